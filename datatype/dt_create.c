/*
 * Datatype constructors, reference counting, queries and the envelope
 * record. A constructor validates its arguments, computes the new type's
 * size, bounds (as MPICH 4 computes them, see "bounds" below), element
 * signature and envelope, and links the old types into the tree; the program is compiled later by dt_commit()
 * (datatype/dt_commit.c). Called by mpi/type.c and by the subarray/darray
 * builders below.
 */
#include "datatype/dt_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ arithmetic */
static int mul_ovf(ptrdiff_t a, ptrdiff_t b, ptrdiff_t *r) { return __builtin_mul_overflow(a, b, r); }
static int add_ovf(ptrdiff_t a, ptrdiff_t b, ptrdiff_t *r) { return __builtin_add_overflow(a, b, r); }

/* Largest count/length an argument may have: everything must fit ptrdiff_t. */
static int too_big(size_t n) { return n > (size_t)PTRDIFF_MAX; }

/* ------------------------------------------------------------ bounds
 * Bounds follow MPICH 4 (whose ABI and behaviour Canal matches), not the
 * sticky markers of MPI-1: a type's lb and ub are the lowest and highest
 * bounds of the instances it is made of, whatever made them (resized types
 * included); a struct pads its extent to the largest alignment of its
 * members unless all members are of one type; MPI_LB and MPI_UB entries of
 * a struct set the struct's bounds afterwards (the last one of each wins);
 * no data at all (count 0, or a type of size 0) gives the empty type with
 * all bounds 0. */
typedef struct {
    int set, true_set;
    ptrdiff_t lb, ub, tlb, tub;
    size_t align;
    int ovf;
} bounds_t;

static void bounds_point(bounds_t *b, ptrdiff_t lb, ptrdiff_t ub)
{
    if (!b->set || lb < b->lb)
        b->lb = lb;
    if (!b->set || ub > b->ub)
        b->ub = ub;
    b->set = 1;
}

/* One instance of c at displacement d. */
static void bounds_add(bounds_t *b, const dt_type_t *c, ptrdiff_t d)
{
    ptrdiff_t lo, hi;

    if (c->align > b->align)
        b->align = c->align;
    b->ovf |= add_ovf(c->lb, d, &lo) | add_ovf(c->ub, d, &hi);
    bounds_point(b, lo, hi);
    if (c->size > 0) {
        /* the true bounds are those of data (MPICH also counts empty
         * struct members here; Canal does not) */
        b->ovf |= add_ovf(c->true_lb, d, &lo) | add_ovf(c->true_ub, d, &hi);
        if (!b->true_set || lo < b->tlb)
            b->tlb = lo;
        if (!b->true_set || hi > b->tub)
            b->tub = hi;
        b->true_set = 1;
    }
}

/* A block of r instances of c from displacement d, spaced by c's extent:
 * bounds are attained by the first or last instance. An empty block of a
 * vector or block-indexed type still marks its place (as MPICH's does). */
static void bounds_add_block(bounds_t *b, const dt_type_t *c, ptrdiff_t d, size_t r)
{
    ptrdiff_t last;

    if (r == 0) {
        ptrdiff_t at;
        b->ovf |= add_ovf(c->lb, d, &at);
        bounds_point(b, at, at);
        return;
    }
    bounds_add(b, c, d);
    if (r > 1) {
        b->ovf |= mul_ovf((ptrdiff_t)(r - 1), c->ub - c->lb, &last);
        b->ovf |= add_ovf(d, last, &last);
        bounds_add(b, c, last);
    }
}

/* Store the accumulated bounds in t, the extent padded to the alignment of
 * the members when pad is set. */
static canal_status_t bounds_finish(dt_type_t *t, bounds_t *b, int pad, const char *what)
{
    ptrdiff_t ext;

    if (b->ovf)
        return common_err_set(CANAL_ERR_ARG, "%s: displacements overflow the address range", what);
    t->lb = b->set ? b->lb : 0;
    t->ub = b->set ? b->ub : 0;
    t->true_lb = b->true_set ? b->tlb : 0;
    t->true_ub = b->true_set ? b->tub : 0;
    t->align = b->align ? b->align : 1;
    if (add_ovf(t->ub, -t->lb, &ext))
        return common_err_set(CANAL_ERR_ARG, "%s: extent overflows", what);
    if (pad && b->set && t->align > 1) {
        ptrdiff_t rem = ext % (ptrdiff_t)t->align;
        if (rem < 0)
            rem += (ptrdiff_t)t->align;
        if (rem != 0 && add_ovf(t->ub, (ptrdiff_t)t->align - rem, &t->ub))
            return common_err_set(CANAL_ERR_ARG, "%s: extent overflows", what);
    }
    return CANAL_OK;
}

/* Builtins MPICH treats as one type (integers of one size, synonyms of the
 * floating and complex types); a struct of such members is not padded. */
static int builtin_family(dt_builtin_t b)
{
    switch (b) {
    case DT_SHORT: case DT_UNSIGNED_SHORT: case DT_INT16_T: case DT_UINT16_T: case DT_INTEGER2:
        return DT_INT16_T;
    case DT_INT: case DT_UNSIGNED: case DT_INT32_T: case DT_UINT32_T: case DT_INTEGER:
    case DT_INTEGER4: case DT_LOGICAL:
        return DT_INT32_T;
    case DT_LONG: case DT_UNSIGNED_LONG: case DT_LONG_LONG: case DT_UNSIGNED_LONG_LONG:
    case DT_INT64_T: case DT_UINT64_T: case DT_INTEGER8: case DT_AINT: case DT_OFFSET: case DT_COUNT:
        return DT_INT64_T;
    case DT_FLOAT: case DT_REAL: case DT_REAL4:
        return DT_FLOAT;
    case DT_DOUBLE: case DT_DOUBLE_PRECISION: case DT_REAL8:
        return DT_DOUBLE;
    case DT_C_FLOAT_COMPLEX: case DT_COMPLEX: case DT_COMPLEX8: case DT_CXX_FLOAT_COMPLEX: case DT_2REAL:
        return DT_C_FLOAT_COMPLEX;
    case DT_C_DOUBLE_COMPLEX: case DT_DOUBLE_COMPLEX: case DT_COMPLEX16: case DT_CXX_DOUBLE_COMPLEX:
    case DT_2DOUBLE_PRECISION:
        return DT_C_DOUBLE_COMPLEX;
    case DT_C_LONG_DOUBLE_COMPLEX: case DT_CXX_LONG_DOUBLE_COMPLEX:
        return DT_C_LONG_DOUBLE_COMPLEX;
    case DT_2INT: case DT_2INTEGER:
        return DT_2INT;
    default:
        return (int)b;
    }
}

static int same_type(const dt_type_t *a, const dt_type_t *b)
{
    if (a == b)
        return 1;
    return a->builtin != DT_NBUILTIN && b->builtin != DT_NBUILTIN &&
           builtin_family(a->builtin) == builtin_family(b->builtin);
}

/* ------------------------------------------------------------ element signature */
static void sig_init(dt_type_t *t)
{
    t->basic = DT_NBUILTIN;
    t->mixed = 0;
}

static void sig_add(dt_type_t *t, const dt_type_t *c, size_t reps)
{
    if (reps == 0 || c->size == 0)
        return;
    if (c->mixed)
        t->mixed = 1;
    else if (t->basic == DT_NBUILTIN && !t->mixed)
        t->basic = c->basic;
    else if (t->basic != c->basic)
        t->mixed = 1;
    if (t->mixed)
        t->basic = DT_NBUILTIN;
    if (c->depth + 1 > t->depth)
        t->depth = c->depth + 1;
}

/* Adds reps*c's size, elements and external32 size to t. */
static int size_add(dt_type_t *t, const dt_type_t *c, size_t reps)
{
    size_t s, e, x;
    if (__builtin_mul_overflow(reps, c->size, &s) || __builtin_add_overflow(t->size, s, &t->size))
        return -1;
    if (__builtin_mul_overflow(reps, c->nelems, &e) || __builtin_add_overflow(t->nelems, e, &t->nelems))
        return -1;
    if (__builtin_mul_overflow(reps, c->x32_size, &x) || __builtin_add_overflow(t->x32_size, x, &t->x32_size))
        return -1;
    return too_big(t->size) || too_big(t->x32_size) ? -1 : 0;
}

/* The basic extent once the signature is known, for the density check. */
static void dense_finish(dt_type_t *t, size_t k)
{
    ptrdiff_t e, want;
    t->dense = 0;
    if (k == 0 || t->mixed || t->basic == DT_NBUILTIN)
        return;
    e = (ptrdiff_t)dt_binfo[t->basic].extent;
    if (mul_ovf((ptrdiff_t)k, e, &want))
        return;
    if (t->lb == t->true_lb && t->ub - t->lb == want)
        t->dense = k;
}

/* ------------------------------------------------------------ objects */
static dt_type_t *type_new(dt_kind_t kind)
{
    dt_type_t *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->refs = 1;
    t->kind = kind;
    t->builtin = DT_NBUILTIN;
    sig_init(t);
    return t;
}

static void contents_free(dt_contents_t *e)
{
    for (size_t i = 0; i < e->ntypes; i++)
        dt_release(e->types[i]);
    free(e->ints);
    free(e->addrs);
    free(e->counts);
    free(e->types);
    memset(e, 0, sizeof *e);
}

static void type_free(dt_type_t *t)
{
    contents_free(&t->env);
    if (t->old != NULL)
        dt_release(t->old);
    if (t->types != NULL) {
        for (size_t i = 0; i < t->count; i++)
            dt_release(t->types[i]);
        free(t->types);
    }
    free(t->blens);
    free(t->displs);
    dt_arena_free(&t->arena);
    free(t);
}

void dt_retain_ref(dt_type_t *t)
{
    if (t != NULL && !t->is_static)
        __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void dt_release_ref(dt_type_t *t)
{
    if (t == NULL || t->is_static)
        return;
    if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
        type_free(t);
}

canal_status_t dt_contents_set(dt_type_t *t, dt_combiner_t combiner, size_t nints,
                               const int64_t *ints, size_t naddrs, const ptrdiff_t *addrs,
                               size_t ncounts, const int64_t *counts, size_t ntypes,
                               dt_type_t *const *types)
{
    dt_contents_t e = {.combiner = combiner, .nints = nints, .naddrs = naddrs,
                       .ncounts = ncounts, .ntypes = ntypes};

    if (t->is_static)
        return common_err_set(CANAL_ERR_TYPE, "the envelope of a builtin type cannot change");
    e.ints = malloc((nints ? nints : 1) * sizeof *e.ints);
    e.addrs = malloc((naddrs ? naddrs : 1) * sizeof *e.addrs);
    e.counts = malloc((ncounts ? ncounts : 1) * sizeof *e.counts);
    e.types = malloc((ntypes ? ntypes : 1) * sizeof *e.types);
    if (e.ints == NULL || e.addrs == NULL || e.counts == NULL || e.types == NULL) {
        free(e.ints);
        free(e.addrs);
        free(e.counts);
        free(e.types);
        return common_err_set(CANAL_ERR_NOMEM, "datatype envelope of %zu entries",
                              nints + naddrs + ncounts + ntypes);
    }
    if (nints)
        memcpy(e.ints, ints, nints * sizeof *ints);
    if (naddrs)
        memcpy(e.addrs, addrs, naddrs * sizeof *addrs);
    if (ncounts)
        memcpy(e.counts, counts, ncounts * sizeof *counts);
    for (size_t i = 0; i < ntypes; i++) {
        e.types[i] = types[i];
        dt_retain(types[i]);
    }
    contents_free(&t->env);
    t->env = e;
    return CANAL_OK;
}

const dt_contents_t *dt_contents(const dt_type_t *t) { return &t->env; }

/* A finished constructor: record the envelope or undo everything. */
static canal_status_t type_done(dt_type_t *t, dt_combiner_t comb, size_t nints,
                                const int64_t *ints, size_t naddrs, const ptrdiff_t *addrs,
                                size_t ntypes, dt_type_t *const *types, dt_type_t **out)
{
    canal_status_t st = dt_contents_set(t, comb, nints, ints, naddrs, addrs, 0, NULL, ntypes,
                                        types);
    if (st != CANAL_OK) {
        type_free(t);
        return st;
    }
    *out = t;
    return CANAL_OK;
}

static canal_status_t check_old(const dt_type_t *old, const char *what)
{
    if (old == NULL)
        return common_err_set(CANAL_ERR_TYPE, "%s: the old datatype is null", what);
    return CANAL_OK;
}

/* ------------------------------------------------------------ constructors */
/* hvector is the workhorse: contiguous and vector are expressed through it
 * for the bounds; each keeps its own kind and envelope. */
static canal_status_t make_hvector(dt_kind_t kind, size_t count, size_t blen, ptrdiff_t stride,
                                   dt_type_t *old, const char *what, dt_type_t **out)
{
    bounds_t b = {0};
    ptrdiff_t last;
    dt_type_t *t;
    canal_status_t st;
    size_t reps;

    if ((st = check_old(old, what)) != CANAL_OK)
        return st;
    if (too_big(count))
        return common_err_set(CANAL_ERR_ARG, "%s: count %zu is too large", what, count);
    if (too_big(blen))
        return common_err_set(CANAL_ERR_ARG, "%s: blocklength %zu is too large", what, blen);
    if (__builtin_mul_overflow(count, blen, &reps) || too_big(reps))
        return common_err_set(CANAL_ERR_ARG, "%s: count %zu * blocklength %zu overflows", what,
                              count, blen);
    t = type_new(kind);
    if (t == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "%s: datatype object", what);
    if (size_add(t, old, reps) != 0) {
        type_free(t);
        return common_err_set(CANAL_ERR_ARG, "%s: the size of the type overflows (count %zu, "
                              "blocklength %zu, old size %zu)", what, count, blen, old->size);
    }
    /* count 0 or an empty old type: the empty type */
    if (count > 0 && old->size > 0 && !(kind == DT_KIND_CONTIG && blen == 0)) {
        bounds_add_block(&b, old, 0, blen);
        if (count > 1) {
            b.ovf |= mul_ovf((ptrdiff_t)(count - 1), stride, &last);
            bounds_add_block(&b, old, last, blen);
        }
    }
    if ((st = bounds_finish(t, &b, 0, what)) != CANAL_OK) {
        type_free(t);
        return st;
    }
    sig_add(t, old, reps);
    t->count = count;
    t->blen = blen;
    t->stride = stride;
    dt_retain(old);
    t->old = old;
    if (old->dense && (count <= 1 || (!mul_ovf((ptrdiff_t)blen, old->ub - old->lb, &last) &&
                                      stride == last)))
        dense_finish(t, reps * old->dense);
    *out = t;
    return CANAL_OK;
}

canal_status_t dt_create_contiguous(size_t count, dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    canal_status_t st = make_hvector(DT_KIND_CONTIG, 1, count, 0, old, "contiguous", &t);
    int64_t ints[1] = {(int64_t)count};
    if (st != CANAL_OK)
        return st;
    /* the tree stores contiguous as count reps */
    t->count = count;
    t->blen = 1;
    return type_done(t, DT_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, &old, out);
}

canal_status_t dt_create_vector(size_t count, size_t blocklen, ptrdiff_t stride, dt_type_t *old,
                                dt_type_t **out)
{
    ptrdiff_t sb;
    dt_type_t *t;
    canal_status_t st;
    int64_t ints[3] = {(int64_t)count, (int64_t)blocklen, (int64_t)stride};

    if ((st = check_old(old, "vector")) != CANAL_OK)
        return st;
    if (mul_ovf(stride, old->ub - old->lb, &sb))
        return common_err_set(CANAL_ERR_ARG, "vector: stride %td * extent %td overflows", stride,
                              old->ub - old->lb);
    st = make_hvector(DT_KIND_HVECTOR, count, blocklen, sb, old, "vector", &t);
    if (st != CANAL_OK)
        return st;
    return type_done(t, DT_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old, out);
}

canal_status_t dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride_bytes,
                                 dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    int64_t ints[2] = {(int64_t)count, (int64_t)blocklen};
    canal_status_t st = make_hvector(DT_KIND_HVECTOR, count, blocklen, stride_bytes, old,
                                     "hvector", &t);
    if (st != CANAL_OK)
        return st;
    return type_done(t, DT_COMBINER_HVECTOR, 2, ints, 1, &stride_bytes, 1, &old, out);
}

/* Indexed family and struct: blocks with their own length, displacement and
 * (struct) type. blens == NULL means blen for all; types == NULL means old. */
static canal_status_t make_blocks(size_t count, const size_t *blens, size_t blen,
                                  const ptrdiff_t *displs, ptrdiff_t unit, dt_type_t *old,
                                  dt_type_t *const *types, const char *what, dt_type_t **out)
{
    bounds_t b = {0};
    dt_type_t *t;
    canal_status_t st;
    size_t k = 0;
    int adjacent = 1, empty = 0, has_lb = 0, has_ub = 0, mixed_types = 0, struct_data = 0;
    ptrdiff_t next = 0, lb_mark = 0, ub_mark = 0;
    const dt_type_t *first_type = NULL;

    if (too_big(count))
        return common_err_set(CANAL_ERR_ARG, "%s: count %zu is too large", what, count);
    if (count > 0 && displs == NULL)
        return common_err_set(CANAL_ERR_ARG, "%s: array of displacements is NULL", what);
    if (types == NULL && (st = check_old(old, what)) != CANAL_OK)
        return st;
    for (size_t i = 0; i < count && types != NULL; i++)
        if (types[i] == NULL)
            return common_err_set(CANAL_ERR_TYPE, "%s: array_of_types[%zu] is null", what, i);
    t = type_new(types ? DT_KIND_STRUCT : DT_KIND_HINDEXED);
    if (t == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "%s: datatype object", what);
    t->count = count;
    t->blen = blen;
    if (count > 0) {
        t->displs = malloc(count * sizeof *t->displs);
        if (t->displs == NULL)
            goto nomem;
        if (blens != NULL) {
            t->blens = malloc(count * sizeof *t->blens);
            if (t->blens == NULL)
                goto nomem;
        }
        if (types != NULL) {
            t->types = calloc(count, sizeof *t->types);
            if (t->types == NULL)
                goto nomem;
        }
    }
    /* the empty type when nothing holds data (indexed_block keeps the place
     * of empty blocks, like vector) */
    if (types == NULL && old->size == 0)
        empty = 1;
    for (size_t i = 0; i < count && types == NULL && blens != NULL && !empty; i++)
        if (blens[i] > 0)
            break;
        else if (i + 1 == count)
            empty = 1;
    for (size_t i = 0; i < count; i++) {
        const dt_type_t *c = types ? types[i] : old;
        size_t r = blens ? blens[i] : blen;
        ptrdiff_t d;

        if (too_big(r)) {
            st = common_err_set(CANAL_ERR_ARG, "%s: blocklength[%zu] = %zu is too large", what, i, r);
            goto fail;
        }
        if (mul_ovf(displs[i], unit, &d)) {
            st = common_err_set(CANAL_ERR_ARG, "%s: displacement[%zu] = %td * extent %td overflows",
                                what, i, displs[i], unit);
            goto fail;
        }
        t->displs[i] = d;
        if (blens)
            t->blens[i] = r;
        if (types) {
            t->types[i] = types[i];
            dt_retain(types[i]);
        }
        if (size_add(t, c, r) != 0) {
            st = common_err_set(CANAL_ERR_ARG, "%s: the size of the type overflows at block %zu",
                                what, i);
            goto fail;
        }
        if (c->builtin == DT_LB || c->builtin == DT_UB) {
            /* MPI-1 markers: set the bounds at the end, the last one wins */
            if (c->builtin == DT_LB)
                lb_mark = d, has_lb = 1;
            else
                ub_mark = d, has_ub = 1;
        } else {
            if (types != NULL && first_type == NULL)
                first_type = c;
            else if (types != NULL && !same_type(first_type, c))
                mixed_types = 1;
            if (!empty && (r > 0 || blens == NULL))
                bounds_add_block(&b, c, d, r);
            if (r > 0)
                struct_data |= c->size > 0;
        }
        sig_add(t, c, r);
        if (r > 0 && c->size > 0) {
            if (!c->dense || (k > 0 && d != next))
                adjacent = 0;
            k += r * c->dense;
            if (mul_ovf((ptrdiff_t)r, c->ub - c->lb, &next) || add_ovf(next, d, &next))
                adjacent = 0; /* and bounds_finish() rejects the type */
        }
    }
    if (types != NULL && !struct_data)
        b = (bounds_t){0}; /* no data at all: the empty type */
    if ((st = bounds_finish(t, &b, types != NULL && mixed_types, what)) != CANAL_OK)
        goto fail;
    if (has_lb)
        t->lb = lb_mark;
    if (has_ub)
        t->ub = ub_mark;
    if (old != NULL) {
        dt_retain(old);
        t->old = old;
    }
    if (adjacent)
        dense_finish(t, k);
    *out = t;
    return CANAL_OK;
nomem:
    st = common_err_set(CANAL_ERR_NOMEM, "%s: arrays of %zu blocks", what, count);
fail:
    type_free(t);
    return st;
}

static int64_t *ints_of_sizes(size_t n0, const size_t *a, size_t na)
{
    int64_t *v = malloc((1 + na) * sizeof *v);
    if (v == NULL)
        return NULL;
    v[0] = (int64_t)n0;
    for (size_t i = 0; i < na; i++)
        v[1 + i] = (int64_t)a[i];
    return v;
}

canal_status_t dt_create_indexed(size_t count, const size_t *blocklens, const ptrdiff_t *displs,
                                 dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    int64_t *ints;
    canal_status_t st;

    if ((st = check_old(old, "indexed")) != CANAL_OK)
        return st;
    if (count > 0 && blocklens == NULL)
        return common_err_set(CANAL_ERR_ARG, "indexed: array of blocklengths is NULL");
    st = make_blocks(count, blocklens, 0, displs, old->ub - old->lb, old, NULL, "indexed", &t);
    if (st != CANAL_OK)
        return st;
    ints = malloc((1 + 2 * count) * sizeof *ints);
    if (ints == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "indexed: envelope");
    }
    ints[0] = (int64_t)count;
    for (size_t i = 0; i < count; i++) {
        ints[1 + i] = (int64_t)blocklens[i];
        ints[1 + count + i] = (int64_t)displs[i];
    }
    st = type_done(t, DT_COMBINER_INDEXED, 1 + 2 * count, ints, 0, NULL, 1, &old, out);
    free(ints);
    return st;
}

canal_status_t dt_create_hindexed(size_t count, const size_t *blocklens,
                                  const ptrdiff_t *displs_bytes, dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    int64_t *ints;
    canal_status_t st;

    if (count > 0 && blocklens == NULL)
        return common_err_set(CANAL_ERR_ARG, "hindexed: array of blocklengths is NULL");
    st = make_blocks(count, blocklens, 0, displs_bytes, 1, old, NULL, "hindexed", &t);
    if (st != CANAL_OK)
        return st;
    if ((ints = ints_of_sizes(count, blocklens, count)) == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "hindexed: envelope");
    }
    st = type_done(t, DT_COMBINER_HINDEXED, 1 + count, ints, count, displs_bytes, 1, &old, out);
    free(ints);
    return st;
}

canal_status_t dt_create_indexed_block(size_t count, size_t blocklen, const ptrdiff_t *displs,
                                       dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    int64_t *ints;
    canal_status_t st;

    if ((st = check_old(old, "indexed_block")) != CANAL_OK)
        return st;
    st = make_blocks(count, NULL, blocklen, displs, old->ub - old->lb, old, NULL, "indexed_block",
                     &t);
    if (st != CANAL_OK)
        return st;
    ints = malloc((2 + count) * sizeof *ints);
    if (ints == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "indexed_block: envelope");
    }
    ints[0] = (int64_t)count;
    ints[1] = (int64_t)blocklen;
    for (size_t i = 0; i < count; i++)
        ints[2 + i] = (int64_t)displs[i];
    st = type_done(t, DT_COMBINER_INDEXED_BLOCK, 2 + count, ints, 0, NULL, 1, &old, out);
    free(ints);
    return st;
}

canal_status_t dt_create_hindexed_block(size_t count, size_t blocklen,
                                        const ptrdiff_t *displs_bytes, dt_type_t *old,
                                        dt_type_t **out)
{
    dt_type_t *t;
    int64_t ints[2] = {(int64_t)count, (int64_t)blocklen};
    canal_status_t st = make_blocks(count, NULL, blocklen, displs_bytes, 1, old, NULL,
                                    "hindexed_block", &t);
    if (st != CANAL_OK)
        return st;
    return type_done(t, DT_COMBINER_HINDEXED_BLOCK, 2, ints, count, displs_bytes, 1, &old, out);
}

canal_status_t dt_create_struct(size_t count, const size_t *blocklens,
                                const ptrdiff_t *displs_bytes, dt_type_t *const *types,
                                dt_type_t **out)
{
    dt_type_t *t;
    int64_t *ints;
    canal_status_t st;

    if (count > 0 && (blocklens == NULL || types == NULL))
        return common_err_set(CANAL_ERR_ARG, "struct: array of %s is NULL",
                              blocklens == NULL ? "blocklengths" : "types");
    static dt_type_t *const no_types[1] = {NULL};
    st = make_blocks(count, blocklens, 0, displs_bytes, 1, NULL, count ? types : no_types,
                     "struct", &t);
    if (st != CANAL_OK)
        return st;
    if ((ints = ints_of_sizes(count, blocklens, count)) == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "struct: envelope");
    }
    st = type_done(t, DT_COMBINER_STRUCT, 1 + count, ints, count, displs_bytes, count, types, out);
    free(ints);
    return st;
}

static canal_status_t make_resized(dt_type_t *old, ptrdiff_t lb, ptrdiff_t extent,
                                   dt_type_t **out)
{
    dt_type_t *t;
    canal_status_t st;
    ptrdiff_t ub;

    if ((st = check_old(old, "resized")) != CANAL_OK)
        return st;
    if (add_ovf(lb, extent, &ub))
        return common_err_set(CANAL_ERR_ARG, "resized: lb %td + extent %td overflows", lb, extent);
    t = type_new(DT_KIND_RESIZED);
    if (t == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "resized: datatype object");
    t->size = old->size;
    t->nelems = old->nelems;
    t->x32_size = old->x32_size;
    t->lb = lb;
    t->ub = ub;
    t->true_lb = old->true_lb;
    t->true_ub = old->true_ub;
    t->align = old->align;
    t->basic = old->basic;
    t->mixed = old->mixed;
    t->depth = old->depth + 1;
    if (old->dense && lb == old->lb && extent == old->ub - old->lb)
        t->dense = old->dense;
    dt_retain(old);
    t->old = old;
    *out = t;
    return CANAL_OK;
}

canal_status_t dt_create_resized(dt_type_t *old, ptrdiff_t lb, ptrdiff_t extent, dt_type_t **out)
{
    dt_type_t *t;
    ptrdiff_t addrs[2] = {lb, extent};
    canal_status_t st = make_resized(old, lb, extent, &t);
    if (st != CANAL_OK)
        return st;
    return type_done(t, DT_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, &old, out);
}

/* A type that is exactly `inner` (whose reference it takes over). */
static canal_status_t make_alias(dt_type_t *inner, dt_type_t **out)
{
    dt_type_t *t = type_new(DT_KIND_ALIAS);
    if (t == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "datatype object");
    t->size = inner->size;
    t->nelems = inner->nelems;
    t->x32_size = inner->x32_size;
    t->lb = inner->lb;
    t->ub = inner->ub;
    t->true_lb = inner->true_lb;
    t->true_ub = inner->true_ub;
    t->align = inner->align;
    t->basic = inner->basic;
    t->mixed = inner->mixed;
    t->dense = inner->dense;
    t->depth = inner->depth + 1;
    t->old = inner;
    *out = t;
    return CANAL_OK;
}

canal_status_t dt_create_dup(dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    canal_status_t st;

    if ((st = check_old(old, "dup")) != CANAL_OK)
        return st;
    dt_retain(old);
    if ((st = make_alias(old, &t)) != CANAL_OK) {
        dt_release(old);
        return st;
    }
    /* MPI_Type_dup of a committed type is committed */
    if (old->committed && (st = dt_commit(t)) != CANAL_OK) {
        type_free(t);
        return st;
    }
    return type_done(t, DT_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, out);
}

canal_status_t dt_create_clone(dt_type_t *old, dt_type_t **out)
{
    dt_type_t *t;
    const dt_contents_t *e;
    canal_status_t st;

    if ((st = check_old(old, "clone")) != CANAL_OK)
        return st;
    dt_retain(old);
    if ((st = make_alias(old, &t)) != CANAL_OK) {
        dt_release(old);
        return st;
    }
    if (old->committed && (st = dt_commit(t)) != CANAL_OK) {
        type_free(t);
        return st;
    }
    e = &old->env;
    st = dt_contents_set(t, e->combiner, e->nints, e->ints, e->naddrs, e->addrs, e->ncounts,
                         e->counts, e->ntypes, e->types);
    if (st != CANAL_OK) {
        type_free(t);
        return st;
    }
    *out = t;
    return CANAL_OK;
}

/* Subarray: nested (h)vectors from the fastest dimension out, moved to the
 * start corner and resized to the whole array, as the standard defines it. */
canal_status_t dt_create_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                                  const size_t *starts, int order, dt_type_t *old,
                                  dt_type_t **out)
{
    dt_type_t *cur = NULL, *next, *t;
    ptrdiff_t ext, stride, disp = 0, total;
    int64_t *ints;
    canal_status_t st;

    if ((st = check_old(old, "subarray")) != CANAL_OK)
        return st;
    if (ndims <= 0)
        return common_err_set(CANAL_ERR_ARG, "subarray: ndims %d must be positive", ndims);
    if (order != DT_ORDER_C && order != DT_ORDER_FORTRAN)
        return common_err_set(CANAL_ERR_ARG, "subarray: order %d is neither C nor Fortran", order);
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] < 1 || too_big(sizes[i]))
            return common_err_set(CANAL_ERR_ARG, "subarray: array_of_sizes[%d] = %zd must be positive",
                                  i, (ptrdiff_t)sizes[i]);
        if (subsizes[i] < 1 || subsizes[i] > sizes[i])
            return common_err_set(CANAL_ERR_ARG, "subarray: array_of_subsizes[%d] = %zd is not in "
                                  "[1, %zu]", i, (ptrdiff_t)subsizes[i], sizes[i]);
        if (starts[i] > sizes[i] - subsizes[i])
            return common_err_set(CANAL_ERR_ARG, "subarray: array_of_starts[%d] = %zd is not in "
                                  "[0, %zu]", i, (ptrdiff_t)starts[i], sizes[i] - subsizes[i]);
    }
    ext = old->ub - old->lb;
    stride = ext;
    for (int k = 0; k < ndims; k++) {
        int d = order == DT_ORDER_C ? ndims - 1 - k : k;
        ptrdiff_t off;
        if (k == 0)
            st = make_hvector(DT_KIND_CONTIG, 1, subsizes[d], 0, old, "subarray", &next);
        else
            st = make_hvector(DT_KIND_HVECTOR, subsizes[d], 1, stride, cur, "subarray", &next);
        if (st == CANAL_OK && k == 0) {
            next->count = subsizes[d];
            next->blen = 1;
        }
        if (cur != NULL)
            dt_release(cur);
        if (st != CANAL_OK)
            return st;
        cur = next;
        if (mul_ovf((ptrdiff_t)starts[d], stride, &off) || add_ovf(disp, off, &disp) ||
            mul_ovf(stride, (ptrdiff_t)sizes[d], &stride)) {
            dt_release(cur);
            return common_err_set(CANAL_ERR_ARG, "subarray: the array's extent overflows");
        }
    }
    total = stride;
    /* move to the corner, then the bounds of the whole array */
    {
        size_t one = 1;
        st = make_blocks(1, &one, 0, &disp, 1, cur, NULL, "subarray", &next);
        dt_release(cur);
        if (st != CANAL_OK)
            return st;
        cur = next;
    }
    st = make_resized(cur, 0, total, &next);
    dt_release(cur);
    if (st != CANAL_OK)
        return st;
    if ((st = make_alias(next, &t)) != CANAL_OK) {
        dt_release(next);
        return st;
    }
    ints = malloc((2 + 3 * (size_t)ndims) * sizeof *ints);
    if (ints == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "subarray: envelope");
    }
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = (int64_t)sizes[i];
        ints[1 + ndims + i] = (int64_t)subsizes[i];
        ints[1 + 2 * ndims + i] = (int64_t)starts[i];
    }
    ints[1 + 3 * ndims] = order;
    st = type_done(t, DT_COMBINER_SUBARRAY, 2 + 3 * (size_t)ndims, ints, 0, NULL, 1, &old, out);
    free(ints);
    return st;
}

/* ------------------------------------------------------------ darray */
/* One dimension of a distributed array, as the MPI standard defines block
 * and cyclic(k) distributions. `cur` is the type of one element of this
 * dimension (old for the fastest dimension, else the type built for the
 * faster dimensions, resized to their full length), stride its extent.
 * Returns the type of this process's part of the dimension and its start
 * index in elements of the dimension. */
static canal_status_t darray_dim(ptrdiff_t gsize, int dim, int nprocs, int coord, int distrib,
                                 int darg, ptrdiff_t stride, dt_type_t *cur, dt_type_t **out,
                                 ptrdiff_t *st_off)
{
    ptrdiff_t blksize;
    dt_type_t *t = NULL, *u;
    canal_status_t st;

    if (distrib == DT_DISTRIBUTE_NONE) {
        nprocs = 1;
        coord = 0;
        darg = DT_DISTRIBUTE_DFLT_DARG;
        distrib = DT_DISTRIBUTE_BLOCK;
    }
    if (distrib == DT_DISTRIBUTE_BLOCK) {
        ptrdiff_t mysize;
        if (darg == DT_DISTRIBUTE_DFLT_DARG)
            blksize = (gsize + nprocs - 1) / nprocs;
        else {
            blksize = darg;
            if (blksize * nprocs < gsize)
                return common_err_set(CANAL_ERR_ARG, "darray: block size %d * %d processes < "
                                      "array size %td in dimension %d", darg, nprocs, gsize, dim);
        }
        mysize = gsize - blksize * coord;
        if (mysize > blksize)
            mysize = blksize;
        if (mysize < 0)
            mysize = 0;
        st = make_hvector(DT_KIND_HVECTOR, (size_t)mysize, 1, stride, cur, "darray", &t);
        if (st != CANAL_OK)
            return st;
        *st_off = mysize == 0 ? 0 : blksize * coord;
    } else {
        ptrdiff_t st_index, end_index, local, rem, count, vstride;
        blksize = darg == DT_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        st_index = (ptrdiff_t)coord * blksize;
        end_index = gsize - 1;
        if (end_index < st_index)
            local = 0;
        else {
            local = ((end_index - st_index + 1) / (nprocs * blksize)) * blksize;
            rem = (end_index - st_index + 1) % (nprocs * blksize);
            local += rem < blksize ? rem : blksize;
        }
        count = local / blksize;
        rem = local % blksize;
        if (mul_ovf(stride, (ptrdiff_t)nprocs * blksize, &vstride))
            return common_err_set(CANAL_ERR_ARG, "darray: the array's extent overflows");
        /* count full blocks of blksize elements, then a last partial block */
        st = make_hvector(DT_KIND_HVECTOR, (size_t)count, (size_t)blksize, vstride, cur, "darray",
                          &t);
        if (st != CANAL_OK)
            return st;
        if (rem > 0) {
            dt_type_t *types[2] = {t, cur};
            size_t bl[2] = {1, (size_t)rem};
            ptrdiff_t ds[2] = {0, count * vstride};
            st = make_blocks(2, bl, 0, ds, 1, NULL, types, "darray", &u);
            dt_release(t);
            if (st != CANAL_OK)
                return st;
            t = u;
        }
        *st_off = local == 0 ? 0 : (ptrdiff_t)coord * blksize;
    }
    *out = t;
    return CANAL_OK;
}

canal_status_t dt_create_darray(int size, int rank, int ndims, const size_t *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int order, dt_type_t *old, dt_type_t **out)
{
    dt_type_t *cur, *next, *t;
    ptrdiff_t orig_ext, disp = 0, total, mult;
    int coords[64], procs, r;
    int64_t *ints;
    canal_status_t st;

    if ((st = check_old(old, "darray")) != CANAL_OK)
        return st;
    if (size <= 0)
        return common_err_set(CANAL_ERR_ARG, "darray: size %d must be positive", size);
    if (rank < 0 || rank >= size)
        return common_err_set(CANAL_ERR_ARG, "darray: rank %d is not in [0, %d)", rank, size);
    if (ndims <= 0 || ndims > 64)
        return common_err_set(CANAL_ERR_ARG, "darray: ndims %d is not in [1, 64]", ndims);
    if (order != DT_ORDER_C && order != DT_ORDER_FORTRAN)
        return common_err_set(CANAL_ERR_ARG, "darray: order %d is neither C nor Fortran", order);
    procs = 1;
    for (int i = 0; i < ndims; i++) {
        if (gsizes[i] < 1 || too_big(gsizes[i]))
            return common_err_set(CANAL_ERR_ARG, "darray: array_of_gsizes[%d] = %zd must be positive",
                                  i, (ptrdiff_t)gsizes[i]);
        if (psizes[i] <= 0)
            return common_err_set(CANAL_ERR_ARG, "darray: array_of_psizes[%d] = %d must be positive",
                                  i, psizes[i]);
        if (distribs[i] == DT_DISTRIBUTE_NONE && psizes[i] != 1)
            return common_err_set(CANAL_ERR_ARG, "darray: dimension %d is not distributed but "
                                  "array_of_psizes[%d] = %d is not 1", i, i, psizes[i]);
        if (distribs[i] != DT_DISTRIBUTE_NONE && distribs[i] != DT_DISTRIBUTE_BLOCK &&
            distribs[i] != DT_DISTRIBUTE_CYCLIC)
            return common_err_set(CANAL_ERR_ARG, "darray: array_of_distribs[%d] = %d is not a "
                                  "distribution", i, distribs[i]);
        if (dargs[i] != DT_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0)
            return common_err_set(CANAL_ERR_ARG, "darray: array_of_dargs[%d] = %d must be positive",
                                  i, dargs[i]);
        if (__builtin_mul_overflow(procs, psizes[i], &procs))
            return common_err_set(CANAL_ERR_ARG, "darray: the process grid overflows");
    }
    if (procs != size)
        return common_err_set(CANAL_ERR_ARG, "darray: the process grid has %d processes, size is %d",
                              procs, size);

    /* the process grid is row-major whatever the array order */
    procs = size;
    r = rank;
    for (int i = 0; i < ndims; i++) {
        procs /= psizes[i];
        coords[i] = r / procs;
        r %= procs;
    }

    orig_ext = old->ub - old->lb;
    cur = old;
    dt_retain(cur);
    mult = 1;
    for (int k = 0; k < ndims; k++) {
        int d = order == DT_ORDER_FORTRAN ? k : ndims - 1 - k;
        ptrdiff_t off = 0, w, stride, cext;
        dt_type_t *dimt = NULL;
        if (mul_ovf(orig_ext, mult, &stride) || mul_ovf(stride, (ptrdiff_t)gsizes[d], &cext)) {
            dt_release(cur);
            return common_err_set(CANAL_ERR_ARG, "darray: the array's extent overflows");
        }
        st = darray_dim((ptrdiff_t)gsizes[d], d, psizes[d], coords[d], distribs[d], dargs[d],
                        stride, cur, &dimt, &off);
        dt_release(cur);
        if (st != CANAL_OK)
            return st;
        /* the next dimension takes this one's full length as its element */
        st = make_resized(dimt, 0, cext, &next);
        dt_release(dimt);
        if (st != CANAL_OK)
            return st;
        cur = next;
        if (mul_ovf(off, mult, &w) || add_ovf(disp, w, &disp) ||
            mul_ovf(mult, (ptrdiff_t)gsizes[d], &mult)) {
            dt_release(cur);
            return common_err_set(CANAL_ERR_ARG, "darray: the array's extent overflows");
        }
    }
    if (mul_ovf(disp, orig_ext, &disp) || mul_ovf(mult, orig_ext, &total)) {
        dt_release(cur);
        return common_err_set(CANAL_ERR_ARG, "darray: the array's extent overflows");
    }
    {
        size_t one = 1;
        st = make_blocks(1, &one, 0, &disp, 1, cur, NULL, "darray", &next);
        dt_release(cur);
        if (st != CANAL_OK)
            return st;
        cur = next;
    }
    st = make_resized(cur, 0, total, &next);
    dt_release(cur);
    if (st != CANAL_OK)
        return st;
    if ((st = make_alias(next, &t)) != CANAL_OK) {
        dt_release(next);
        return st;
    }
    ints = malloc((4 + 4 * (size_t)ndims) * sizeof *ints);
    if (ints == NULL) {
        type_free(t);
        return common_err_set(CANAL_ERR_NOMEM, "darray: envelope");
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[3 + i] = (int64_t)gsizes[i];
        ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i];
        ints[3 + 3 * ndims + i] = psizes[i];
    }
    ints[3 + 4 * ndims] = order;
    st = type_done(t, DT_COMBINER_DARRAY, 4 + 4 * (size_t)ndims, ints, 0, NULL, 1, &old, out);
    free(ints);
    return st;
}

/* ------------------------------------------------------------ queries */
size_t dt_size(const dt_type_t *t) { return t->size; }
ptrdiff_t dt_extent(const dt_type_t *t) { return t->ub - t->lb; }
ptrdiff_t dt_lb(const dt_type_t *t) { return t->lb; }
ptrdiff_t dt_ub(const dt_type_t *t) { return t->ub; }
ptrdiff_t dt_true_lb(const dt_type_t *t) { return t->true_lb; }
ptrdiff_t dt_true_extent(const dt_type_t *t) { return t->true_ub - t->true_lb; }
int dt_is_committed(const dt_type_t *t) { return t->committed; }
_Static_assert(offsetof(struct dt_type, head) == 0, "dt.h reads the head at a type's address");

/* Copy what dt.h's inline queries read into the head: when t is committed
 * (before committed is published) or a builtin is set up. */
void dt_head_fill(dt_type_t *t)
{
    t->head.size = t->size;
    t->head.lb = t->true_lb;
    t->head.contig = t->contig;
    t->head.is_static = t->is_static;
}
int dt_is_contig_count(const dt_type_t *t, size_t count)
{
    if (!t->committed)
        return 0;
    return count <= 1 ? t->contig1 : t->contig;
}
size_t dt_elements(const dt_type_t *t) { return t->nelems; }
dt_builtin_t dt_basic_type(const dt_type_t *t) { return t->mixed ? DT_NBUILTIN : t->basic; }
size_t dt_block_count(const dt_type_t *t) { return t->nblocks; }
