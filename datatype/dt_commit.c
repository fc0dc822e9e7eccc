/*
 * dt_commit(): compiles a type tree into its block program (see dt_node_t in
 * datatype/dt.h). The compiler works bottom-up from the children's programs
 * and keeps the program small and flat:
 *  - a child whose data is one raw block becomes bytes in its parent, and
 *    repetitions of a dense child become one longer block;
 *  - a vector whose blocks touch becomes one block; a loop of a periodic
 *    raw loop becomes one longer raw loop (nested vectors, subarray faces);
 *  - indexed and struct blocks that touch are merged, equal blocks at equal
 *    spacing become a loop, and a single block becomes its child moved.
 * Programs of children are shared, not copied (the parent holds references
 * to its children). Everything a type allocates for its program lives in
 * its arena and goes with it. Called by mpi/type.c (MPI_Type_commit) and by
 * the cursor for types used uncommitted inside the engine.
 */
#include "datatype/dt_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ arena */
struct dt_arena {
    struct dt_arena *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *dt_arena_alloc(dt_arena_t **a, size_t n)
{
    dt_arena_t *ch = *a;
    void *p;

    n = (n + 15) & ~(size_t)15;
    if (ch == NULL || ch->cap - ch->used < n) {
        size_t cap = n > 2048 ? n : 2048;
        ch = malloc(sizeof *ch + cap);
        if (ch == NULL)
            return NULL;
        ch->used = 0;
        ch->cap = cap;
        if (*a != NULL && n > 2048) {
            /* a big array gets its own chunk behind the current one */
            ch->next = (*a)->next;
            (*a)->next = ch;
        } else {
            ch->next = *a;
            *a = ch;
        }
    }
    p = ch->data + ch->used;
    ch->used += n;
    memset(p, 0, n);
    return p;
}

void dt_arena_free(dt_arena_t **a)
{
    while (*a != NULL) {
        dt_arena_t *next = (*a)->next;
        free(*a);
        *a = next;
    }
}

static int arena_owns(const dt_arena_t *a, const void *p)
{
    for (; a != NULL; a = a->next)
        if ((const unsigned char *)p >= a->data && (const unsigned char *)p < a->data + a->cap)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ node helpers */
typedef struct {
    dt_arena_t **arena;
    int nomem;
} cc_t;

static dt_node_t empty_node = {.kind = DT_NODE_VEC, .depth = 1};

static dt_node_t *nd_new(cc_t *cc)
{
    dt_node_t *n = dt_arena_alloc(cc->arena, sizeof *n);
    if (n == NULL) {
        cc->nomem = 1;
        return NULL;
    }
    n->kind = DT_NODE_VEC;
    n->depth = 1;
    return n;
}

static dt_node_t *nd_copy(cc_t *cc, const dt_node_t *src)
{
    dt_node_t *n = nd_new(cc);
    if (n != NULL)
        *n = *src;
    return n;
}

/* a * b == want, false when the product overflows */
static int mul_eq(ptrdiff_t a, ptrdiff_t b, ptrdiff_t want)
{
    ptrdiff_t r;
    return !__builtin_mul_overflow(a, b, &r) && r == want;
}

static int is_leaf(const dt_node_t *n) { return n->kind == DT_NODE_VEC && n->child == NULL; }
static int is_chunk(const dt_node_t *n) { return is_leaf(n) && n->count == 1; }

/* A loop of raw blocks, normalized: empty, one block, or a real loop. */
static void leaf_vec_fill(dt_node_t *n, size_t count, ptrdiff_t disp, ptrdiff_t stride, size_t blen)
{
    memset(n, 0, sizeof *n);
    n->kind = DT_NODE_VEC;
    n->depth = 1;
    if (count == 0 || blen == 0)
        return;
    n->disp = disp;
    if (count == 1 || stride == (ptrdiff_t)blen) {
        n->count = 1;
        n->blen = count * blen;
    } else {
        n->count = count;
        n->stride = stride;
        n->blen = blen;
    }
    n->size = count * blen;
}

static const dt_node_t *leaf_vec(cc_t *cc, size_t count, ptrdiff_t disp, ptrdiff_t stride,
                                 size_t blen)
{
    dt_node_t *n = nd_new(cc);
    if (n != NULL)
        leaf_vec_fill(n, count, disp, stride, blen);
    return n;
}

static const dt_node_t *with_child(cc_t *cc, size_t count, ptrdiff_t disp, ptrdiff_t stride,
                                   size_t reps, const dt_node_t *child)
{
    dt_node_t *n = nd_new(cc);
    if (n == NULL)
        return NULL;
    n->count = count;
    n->disp = disp;
    n->stride = stride;
    n->blen = reps;
    n->child = child;
    n->depth = child->depth + 1;
    n->size = count * reps * child->size;
    return n;
}

const dt_node_t *dt_node_reps(const dt_type_t *t, size_t r, dt_node_t *tmp)
{
    const dt_node_t *p = t->prog;
    ptrdiff_t e = t->ub - t->lb;

    if (r == 1)
        return p;
    if (r == 0 || t->size == 0) {
        leaf_vec_fill(tmp, 0, 0, 0, 0);
        return tmp;
    }
    if (!is_leaf(p))
        return NULL;
    if (p->count == 1) {
        if ((ptrdiff_t)p->blen == e)
            leaf_vec_fill(tmp, 1, p->disp, 0, r * p->blen);
        else
            leaf_vec_fill(tmp, r, p->disp, e, p->blen);
    } else if (mul_eq((ptrdiff_t)p->count, p->stride, e))
        leaf_vec_fill(tmp, r * p->count, p->disp, p->stride, p->blen);
    else
        return NULL;
    tmp->extent = e * (ptrdiff_t)r;
    return tmp;
}

/* r repetitions of c as (node, repetitions of that node). */
static const dt_node_t *block_of(cc_t *cc, const dt_type_t *c, size_t r, size_t *reps_out)
{
    dt_node_t tmp;
    const dt_node_t *n = dt_node_reps(c, r, &tmp);

    *reps_out = 1;
    if (n == NULL) {
        *reps_out = r;
        return c->prog;
    }
    if (n == &tmp)
        return nd_copy(cc, &tmp);
    return n;
}

/* Node n moved by off bytes. */
static const dt_node_t *shift(cc_t *cc, const dt_node_t *n, ptrdiff_t off)
{
    dt_node_t *m;
    if (off == 0 || n->count == 0)
        return n;
    if (n->kind == DT_NODE_VEC) {
        m = nd_copy(cc, n);
        if (m != NULL)
            m->disp += off;
        return m;
    }
    return with_child(cc, 1, off, 0, 1, n);
}

/* ------------------------------------------------------------ builders */
/* count blocks at i*stride, each r repetitions of c. */
static const dt_node_t *build_vec(cc_t *cc, size_t count, ptrdiff_t stride, const dt_type_t *c,
                                  size_t r)
{
    size_t reps;
    const dt_node_t *ch;

    if (count == 0 || r == 0 || c->size == 0)
        return &empty_node;
    ch = block_of(cc, c, r, &reps);
    if (ch == NULL)
        return NULL;
    if (reps == 1) {
        if (count == 1)
            return ch;
        if (is_leaf(ch)) {
            if (ch->count == 1)
                return leaf_vec(cc, count, ch->disp, stride, ch->blen);
            if (mul_eq((ptrdiff_t)ch->count, ch->stride, stride))
                return leaf_vec(cc, count * ch->count, ch->disp, ch->stride, ch->blen);
        }
        return with_child(cc, count, 0, stride, 1, ch);
    }
    if (count == 1 || mul_eq((ptrdiff_t)reps, c->ub - c->lb, stride))
        return with_child(cc, 1, 0, 0, count * reps, ch);
    return with_child(cc, count, 0, stride, reps, ch);
}

/* Raw blocks (offs[i], lens[i]) in pack order: merge touching ones, drop
 * empty ones, and pick the smallest node. May reorder nothing. */
static const dt_node_t *build_raw(cc_t *cc, size_t n, const ptrdiff_t *offs, const size_t *lens)
{
    ptrdiff_t *o;
    size_t *l, *ps, m = 0, total = 0;
    int same = 1, even = 1;
    dt_node_t *nd;

    for (size_t i = 0; i < n; i++) {
        if (lens[i] != 0)
            m++;
    }
    if (m == 0)
        return &empty_node;
    o = dt_arena_alloc(cc->arena, m * sizeof *o);
    l = dt_arena_alloc(cc->arena, m * sizeof *l);
    if (o == NULL || l == NULL) {
        cc->nomem = 1;
        return NULL;
    }
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] == 0)
            continue;
        if (m > 0 && o[m - 1] + (ptrdiff_t)l[m - 1] == offs[i]) {
            l[m - 1] += lens[i];
            continue;
        }
        o[m] = offs[i];
        l[m] = lens[i];
        m++;
    }
    for (size_t i = 1; i < m; i++) {
        if (l[i] != l[0])
            same = 0;
        if (o[i] - o[i - 1] != o[1] - o[0])
            even = 0;
    }
    if (m == 1)
        return leaf_vec(cc, 1, o[0], 0, l[0]);
    if (same && even)
        return leaf_vec(cc, m, o[0], o[1] - o[0], l[0]);
    nd = nd_new(cc);
    if (nd == NULL)
        return NULL;
    nd->kind = DT_NODE_IDX;
    nd->count = m;
    nd->offs = o;
    if (same) {
        nd->blen = l[0];
        total = m * l[0];
    } else {
        ps = dt_arena_alloc(cc->arena, (m + 1) * sizeof *ps);
        if (ps == NULL) {
            cc->nomem = 1;
            return NULL;
        }
        for (size_t i = 0; i < m; i++) {
            ps[i] = total;
            total += l[i];
        }
        ps[m] = total;
        nd->blens = l;
        nd->psum = ps;
    }
    nd->size = total;
    return nd;
}

/* Blocks of (offs[i], reps[i] of child ch[i] or raw bytes when ch[i] is
 * NULL), at least one with a child. */
static const dt_node_t *build_idx(cc_t *cc, size_t n, const ptrdiff_t *offs, const size_t *reps,
                                  const dt_node_t *const *ch)
{
    size_t m = 0, total = 0;
    int one_child = 1, same = 1, even = 1;
    const dt_node_t *first = NULL;
    ptrdiff_t *o;
    size_t *l, *ps;
    const dt_node_t **cv;
    dt_node_t *nd;
    int depth = 0;

    for (size_t i = 0; i < n; i++) {
        if (reps[i] == 0 || (ch[i] != NULL && ch[i]->size == 0))
            continue;
        if (m == 0)
            first = ch[i];
        else if (ch[i] != first)
            one_child = 0;
        m++;
    }
    if (m == 0)
        return &empty_node;
    o = dt_arena_alloc(cc->arena, m * sizeof *o);
    l = dt_arena_alloc(cc->arena, m * sizeof *l);
    ps = dt_arena_alloc(cc->arena, (m + 1) * sizeof *ps);
    cv = one_child ? NULL : dt_arena_alloc(cc->arena, m * sizeof *cv);
    if (o == NULL || l == NULL || ps == NULL || (!one_child && cv == NULL)) {
        cc->nomem = 1;
        return NULL;
    }
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (reps[i] == 0 || (ch[i] != NULL && ch[i]->size == 0))
            continue;
        o[m] = offs[i];
        l[m] = reps[i];
        if (cv != NULL)
            cv[m] = ch[i];
        if (ch[i] != NULL && ch[i]->depth > depth)
            depth = ch[i]->depth;
        ps[m] = total;
        total += reps[i] * (ch[i] != NULL ? ch[i]->size : 1);
        m++;
    }
    ps[m] = total;
    if (one_child) {
        for (size_t i = 1; i < m; i++) {
            if (l[i] != l[0])
                same = 0;
            if (o[i] - o[i - 1] != o[1] - o[0])
                even = 0;
        }
        if (m == 1 && l[0] == 1)
            return shift(cc, first, o[0]);
        if (same && (m == 1 || even))
            return with_child(cc, m, o[0], m > 1 ? o[1] - o[0] : 0, l[0], first);
    }
    nd = nd_new(cc);
    if (nd == NULL)
        return NULL;
    nd->kind = DT_NODE_IDX;
    nd->count = m;
    nd->offs = o;
    nd->blens = l;
    nd->psum = ps;
    nd->child = one_child ? first : NULL;
    nd->childv = cv;
    nd->depth = depth + 1;
    nd->size = total;
    return nd;
}

/* hindexed: blocks of r_i repetitions of c at byte displacements d_i. */
static const dt_node_t *build_hindexed(cc_t *cc, const dt_type_t *t)
{
    const dt_type_t *c = t->old;
    const dt_node_t *p = c->prog;
    size_t n = t->count;
    ptrdiff_t e = c->ub - c->lb;
    int raw = is_chunk(p);
    const dt_node_t *res;

    if (n == 0 || c->size == 0)
        return &empty_node;
    for (size_t i = 0; raw && (ptrdiff_t)p->blen != e && i < n; i++)
        if ((t->blens ? t->blens[i] : t->blen) > 1)
            raw = 0;
    if (raw) {
        ptrdiff_t *o = malloc(n * sizeof *o);
        size_t *l = malloc(n * sizeof *l);
        if (o == NULL || l == NULL) {
            free(o);
            free(l);
            cc->nomem = 1;
            return NULL;
        }
        for (size_t i = 0; i < n; i++) {
            o[i] = t->displs[i] + p->disp;
            l[i] = (t->blens ? t->blens[i] : t->blen) * p->blen;
        }
        res = build_raw(cc, n, o, l);
        free(o);
        free(l);
        return res;
    }
    {
        size_t *r = malloc(n * sizeof *r);
        const dt_node_t **ch = malloc(n * sizeof *ch);
        if (r == NULL || ch == NULL) {
            free(r);
            free((void *)ch);
            cc->nomem = 1;
            return NULL;
        }
        for (size_t i = 0; i < n; i++) {
            r[i] = t->blens ? t->blens[i] : t->blen;
            ch[i] = p;
        }
        res = build_idx(cc, n, t->displs, r, ch);
        free(r);
        free((void *)ch);
        return res;
    }
}

static const dt_node_t *build_struct(cc_t *cc, const dt_type_t *t)
{
    size_t n = t->count;
    ptrdiff_t *o;
    size_t *r;
    const dt_node_t **ch;
    const dt_node_t *res = NULL;
    int all_raw = 1;

    if (n == 0)
        return &empty_node;
    o = malloc(n * sizeof *o);
    r = malloc(n * sizeof *r);
    ch = malloc(n * sizeof *ch);
    if (o == NULL || r == NULL || ch == NULL) {
        cc->nomem = 1;
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) {
        const dt_type_t *c = t->types[i];
        size_t reps;
        const dt_node_t *b;

        o[i] = t->displs[i];
        r[i] = 0;
        ch[i] = NULL;
        if (t->blens[i] == 0 || c->size == 0)
            continue;
        b = block_of(cc, c, t->blens[i], &reps);
        if (b == NULL)
            goto out_free;
        if (reps == 1 && is_chunk(b)) {
            o[i] += b->disp;
            r[i] = b->blen;
        } else {
            ch[i] = b;
            r[i] = reps;
            all_raw = 0;
        }
    }
    res = all_raw ? build_raw(cc, n, o, r) : build_idx(cc, n, o, r, ch);
out_free:
    free(o);
    free(r);
    free((void *)ch);
    return res;
}

static size_t mul_sat(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* Raw blocks one instance is made of (saturating). */
static size_t count_blocks(const dt_node_t *n)
{
    size_t total = 0, per_child;

    if (n->kind == DT_NODE_VEC)
        return mul_sat(n->count, n->child ? mul_sat(n->blen, count_blocks(n->child)) : 1);
    per_child = n->child ? count_blocks(n->child) : 1;
    for (size_t i = 0; i < n->count; i++) {
        const dt_node_t *c = n->childv ? n->childv[i] : n->child;
        size_t reps = n->blens ? n->blens[i] : n->blen;
        size_t b = c == NULL ? 1 : mul_sat(reps, n->childv ? count_blocks(c) : per_child);
        if (__builtin_add_overflow(total, b, &total))
            return SIZE_MAX;
    }
    return total;
}

static canal_status_t commit_locked(dt_type_t *t);

/* Compiles t (its children first); the caller holds commit_lock. */
static canal_status_t dt_compile_locked(dt_type_t *t)
{
    cc_t cc = {.arena = &t->arena};
    const dt_node_t *root = NULL;
    ptrdiff_t e = t->ub - t->lb;
    canal_status_t st;

    switch (t->kind) {
    case DT_KIND_BUILTIN:
        return CANAL_OK;
    case DT_KIND_CONTIG:
    case DT_KIND_HVECTOR:
    case DT_KIND_HINDEXED:
    case DT_KIND_RESIZED:
    case DT_KIND_ALIAS:
        if ((st = commit_locked(t->old)) != CANAL_OK)
            return st;
        break;
    case DT_KIND_STRUCT:
        for (size_t i = 0; i < t->count; i++)
            if ((st = commit_locked(t->types[i])) != CANAL_OK)
                return st;
        break;
    }
    switch (t->kind) {
    case DT_KIND_BUILTIN:
        break;
    case DT_KIND_CONTIG:
        root = build_vec(&cc, 1, 0, t->old, t->count);
        break;
    case DT_KIND_HVECTOR:
        root = build_vec(&cc, t->count, t->stride, t->old, t->blen);
        break;
    case DT_KIND_HINDEXED:
        root = build_hindexed(&cc, t);
        break;
    case DT_KIND_STRUCT:
        root = build_struct(&cc, t);
        break;
    case DT_KIND_RESIZED:
    case DT_KIND_ALIAS:
        root = t->old->prog;
        break;
    }
    if (root == NULL || cc.nomem) {
        dt_arena_free(&t->arena);
        return common_err_set(CANAL_ERR_NOMEM, "commit: program of a type of %zu bytes", t->size);
    }
    /* the root's repetitions are spaced by the type's extent */
    if (root->extent != e) {
        dt_node_t *m = arena_owns(t->arena, root) ? (dt_node_t *)root : nd_copy(&cc, root);
        if (m == NULL) {
            dt_arena_free(&t->arena);
            return common_err_set(CANAL_ERR_NOMEM, "commit: program node");
        }
        m->extent = e;
        root = m;
    }
    if (root->size != t->size) {
        dt_arena_free(&t->arena);
        return common_err_set(CANAL_ERR_INTERN, "commit: program packs %zu bytes, type has %zu",
                              root->size, t->size);
    }
    t->prog = root;
    t->contig1 = t->size == 0 || (is_chunk(root) && root->disp == t->true_lb);
    t->contig = t->contig1 && (t->size == 0 || (ptrdiff_t)t->size == e);
    t->nblocks = count_blocks(root);
    return CANAL_OK;
}

/* Commits are rare and may share uncommitted children between threads
 * (two types built on one uncommitted type, committed concurrently), so
 * compiling is serialized. */
static pthread_mutex_t commit_lock = PTHREAD_MUTEX_INITIALIZER;

static canal_status_t commit_locked(dt_type_t *t)
{
    canal_status_t st;
    if (__atomic_load_n(&t->committed, __ATOMIC_ACQUIRE))
        return CANAL_OK;
    st = dt_compile_locked(t);
    if (st == CANAL_OK) {
        dt_head_fill(t);
        __atomic_store_n(&t->committed, 1, __ATOMIC_RELEASE);
    }
    return st;
}

canal_status_t dt_commit(dt_type_t *t)
{
    canal_status_t st;

    if (t == NULL)
        return common_err_set(CANAL_ERR_TYPE, "commit: null datatype");
    if (__atomic_load_n(&t->committed, __ATOMIC_ACQUIRE))
        return CANAL_OK;
    if (t->is_static)
        dt_builtins_init();
    pthread_mutex_lock(&commit_lock);
    st = commit_locked(t);
    pthread_mutex_unlock(&commit_lock);
    return st;
}
