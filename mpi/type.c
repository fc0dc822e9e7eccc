/*
 * MPI 4.0 chapter 5 (datatypes) on top of the datatype engine
 * (datatype/dt.h): every MPI_Type_* constructor in its int, large-count (_c)
 * and removed MPI-1 forms, commit/free/dup, size and extent queries, the
 * envelope and contents decoding, names, MPI_Pack/Unpack and their external32
 * forms, MPI_Get_address, MPI_Type_match_size and the Fortran 90
 * parameterized types. Argument checking lives here; the engine checks what
 * only it can (overflowing sizes and bounds, subarray and darray rules) and
 * its detail is passed on through mpi_err_fail_status(). Attributes on types are
 * kept in the engine object's user slot; mpi/attr.c manages them.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(sizeof(MPI_Aint) == sizeof(ptrdiff_t), "MPI_Aint is not ptrdiff_t");

/* ---------------------------------------------------------------- helpers */
/* A valid datatype handle (committed or not). */
static int type_arg(MPI_Datatype h, const char *what, const char *fn, dt_type_t **out)
{
    dt_type_t *t = NULL;
    if (h == MPI_DATATYPE_NULL)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn, "%s is MPI_DATATYPE_NULL", what);
    t = mpi_dt_get(h);
    if (t == NULL)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn, "%s=%#x is not a valid datatype", what,
                            (unsigned)h);
    *out = t;
    return MPI_SUCCESS;
}

/* Give the new type t (one reference, ours) a handle in *newtype. */
static int type_out(dt_type_t *t, MPI_Datatype *newtype, const char *fn)
{
    int h = mpi_handle_new(MPI_OBJ_DATATYPE, t);
    if (h == 0) {
        dt_release(t);
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "no handle left for a new datatype");
    }
    *newtype = h;
    return MPI_SUCCESS;
}

static int engine_err(canal_status_t st, const char *fn)
{
    return mpi_err_fail_status(NULL, st, fn);
}

/* Arrays of the MPI interface -> the engine's, checked. The caller frees *out. */
static int lens_in_cls(const void *a, int is_count, MPI_Count n, const char *what, int errcls,
                       const char *fn, size_t **out);

static int lens_in(const void *a, int is_count, MPI_Count n, const char *what, const char *fn,
                   size_t **out)
{
    return lens_in_cls(a, is_count, n, what, MPI_ERR_COUNT, fn, out);
}

/* errcls: the class of a negative entry (MPICH: MPI_ERR_COUNT for block
 * lengths, MPI_ERR_ARG for array sizes) */
static int lens_in_cls(const void *a, int is_count, MPI_Count n, const char *what, int errcls,
                       const char *fn, size_t **out)
{
    size_t *v;
    *out = NULL;
    if (n > 0 && a == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "%s is NULL", what);
    v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "%s: %lld entries", what, (long long)n);
    for (MPI_Count i = 0; i < n; i++) {
        long long x = is_count ? (long long)((const MPI_Count *)a)[i] : ((const int *)a)[i];
        if (x < 0) {
            free(v);
            return mpi_err_fail(NULL, errcls, fn, "%s[%lld]=%lld is negative", what, (long long)i,
                                x);
        }
        v[i] = (size_t)x;
    }
    *out = v;
    return MPI_SUCCESS;
}

static int displs_in(const void *a, int is_count, MPI_Count n, const char *what, const char *fn,
                     ptrdiff_t **out)
{
    ptrdiff_t *v;
    *out = NULL;
    if (n > 0 && a == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "%s is NULL", what);
    v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "%s: %lld entries", what, (long long)n);
    for (MPI_Count i = 0; i < n; i++)
        v[i] = is_count ? (ptrdiff_t)((const MPI_Count *)a)[i] : ((const int *)a)[i];
    *out = v;
    return MPI_SUCCESS;
}

/* The large-count (_c) form of a constructor records a large-count
 * envelope; both forms share one implementation, which tells them apart by
 * the name of the call. */
static int large_form(const char *fn)
{
    size_t n = strlen(fn);
    return n > 2 && strcmp(fn + n - 2, "_c") == 0;
}

/* a block length (MPICH reports negative ones as MPI_ERR_COUNT) */
static int ptr_arg(const void *p, const char *what, const char *fn)
{
    if (p == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "%s is NULL", what);
    return MPI_SUCCESS;
}

/* The large-count envelope (MPI 4.0 section 5.1.13): counts, block lengths,
 * displacements and strides become large counts. */
static int record_large(dt_type_t *t, dt_combiner_t comb, size_t ni, const int64_t *ints,
                        size_t nc, const int64_t *counts, size_t nt, dt_type_t *const *types,
                        const char *fn)
{
    canal_status_t st = dt_contents_set(t, comb, ni, ints, 0, NULL, nc, counts, nt, types);
    if (st != CANAL_OK) {
        dt_release(t);
        return engine_err(st, fn);
    }
    return MPI_SUCCESS;
}

/* Concatenate [n0] + a[0..n1) + b[0..n2) of MPI_Count into int64. */
static int64_t *cat_counts(int has0, int64_t v0, const MPI_Count *a, size_t na,
                           const MPI_Count *b, size_t nb)
{
    size_t k = 0;
    int64_t *v = malloc((1 + na + nb) * sizeof *v);
    if (v == NULL)
        return NULL;
    if (has0)
        v[k++] = v0;
    for (size_t i = 0; i < na; i++)
        v[k++] = a[i];
    for (size_t i = 0; i < nb; i++)
        v[k++] = b[i];
    return v;
}

/* ---------------------------------------------------------------- constructors */
static int contiguous(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype, int large,
                      const char *fn)
{
    dt_type_t *old, *t;
    canal_status_t st;
    int err;

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    if ((st = dt_create_contiguous((size_t)count, old, &t)) != CANAL_OK)
        return engine_err(st, fn);
    if (large) {
        int64_t c = count;
        if ((err = record_large(t, DT_COMBINER_CONTIGUOUS, 0, NULL, 1, &c, 1, &old, fn)))
            return err;
    }
    return type_out(t, newtype, fn);
}

/* The implementations of the generated entry points (mpi/api/05-datatypes.api
 * and the MPI-1 names of 17-removed.api). */
int mpi_type_contiguous_impl(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype,
                             const char *fn)
{
    return contiguous(count, oldtype, newtype, large_form(fn), fn);
}

/* vector (stride in extents) and hvector (stride in bytes) */
static int vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, int bytes,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, int large, const char *fn)
{
    dt_type_t *old, *t;
    canal_status_t st;
    int err;

    old = mpi_dt_get(oldtype); /* blocklength and oldtype: checked by the entry point */
    st = bytes ? dt_create_hvector((size_t)count, (size_t)blocklength, stride, old, &t)
               : dt_create_vector((size_t)count, (size_t)blocklength, stride, old, &t);
    if (st != CANAL_OK)
        return engine_err(st, fn);
    if (large) {
        int64_t c[3] = {count, blocklength, stride};
        if ((err = record_large(t, bytes ? DT_COMBINER_HVECTOR : DT_COMBINER_VECTOR, 0, NULL, 3, c,
                                1, &old, fn)))
            return err;
    }
    return type_out(t, newtype, fn);
}

int mpi_type_vector_impl(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    return vector(count, blocklength, stride, 0, oldtype, newtype, large_form(fn), fn);
}

int mpi_type_create_hvector_impl(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    return vector(count, blocklength, stride, 1, oldtype, newtype, large_form(fn), fn);
}

int mpi_type_hvector_impl(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                          MPI_Datatype *newtype, const char *fn)
{
    return vector(count, blocklength, stride, 1, oldtype, newtype, 0, fn);
}

/* The indexed family. kind: 0 indexed, 1 hindexed, 2 indexed_block, 3
 * hindexed_block. Block lengths and displacements come as int/MPI_Aint
 * arrays (int variants) or MPI_Count arrays (large). */
static int indexed(int kind, MPI_Count count, const void *blens, MPI_Count blocklength,
                   const void *displs, MPI_Datatype oldtype, MPI_Datatype *newtype, int large,
                   const char *fn)
{
    dt_type_t *old, *t = NULL;
    size_t *bl = NULL;
    ptrdiff_t *ds = NULL;
    canal_status_t st;
    int err, block = kind >= 2, hbytes = kind == 1 || kind == 3;
    static const dt_combiner_t combs[4] = {DT_COMBINER_INDEXED, DT_COMBINER_HINDEXED,
                                           DT_COMBINER_INDEXED_BLOCK, DT_COMBINER_HINDEXED_BLOCK};

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    if (!block && (err = lens_in(blens, large, count, "array_of_blocklengths", fn, &bl)))
        return err;
    if (hbytes && !large) {
        if (count > 0 && displs == NULL) {
            free(bl);
            return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
        }
    } else if ((err = displs_in(displs, large, count, "array_of_displacements", fn, &ds))) {
        free(bl);
        return err;
    }
    {
        const ptrdiff_t *d = ds != NULL ? ds : (const ptrdiff_t *)displs;
        switch (kind) {
        case 0: st = dt_create_indexed((size_t)count, bl, d, old, &t); break;
        case 1:
            st = dt_create_hindexed((size_t)count, bl, d, old, &t);
            break;
        case 2:
            st = dt_create_indexed_block((size_t)count, (size_t)blocklength, d, old, &t);
            break;
        default:
            st = dt_create_hindexed_block((size_t)count, (size_t)blocklength, d, old, &t);
            break;
        }
    }
    free(bl);
    free(ds);
    if (st != CANAL_OK)
        return engine_err(st, fn);
    if (large) {
        const MPI_Count *cb = blens, *cd = displs;
        int64_t *c, hdr[2] = {count, blocklength};
        size_t n = (size_t)count;
        if (block) {
            c = malloc((2 + n) * sizeof *c);
            if (c != NULL) {
                memcpy(c, hdr, sizeof hdr);
                for (size_t i = 0; i < n; i++)
                    c[2 + i] = cd[i];
            }
        } else
            c = cat_counts(1, count, cb, n, cd, n);
        if (c == NULL) {
            dt_release(t);
            return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "datatype envelope");
        }
        err = record_large(t, combs[kind], 0, NULL, block ? 2 + n : 1 + 2 * n, c, 1, &old, fn);
        free(c);
        if (err)
            return err;
    }
    return type_out(t, newtype, fn);
}

int mpi_type_indexed_impl(MPI_Count count, const void *array_of_blocklengths,
                          const void *array_of_displacements, MPI_Datatype oldtype,
                          MPI_Datatype *newtype, int large, const char *fn)
{
    return indexed(0, count, array_of_blocklengths, 0, array_of_displacements, oldtype, newtype,
                   large, fn);
}

int mpi_type_create_hindexed_impl(MPI_Count count, const void *array_of_blocklengths,
                                  const void *array_of_displacements, MPI_Datatype oldtype,
                                  MPI_Datatype *newtype, int large, const char *fn)
{
    return indexed(1, count, array_of_blocklengths, 0, array_of_displacements, oldtype, newtype,
                   large, fn);
}

int mpi_type_hindexed_impl(int count, int array_of_blocklengths[],
                           MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                           MPI_Datatype *newtype, const char *fn)
{
    return indexed(1, count, array_of_blocklengths, 0, array_of_displacements, oldtype, newtype, 0,
                   fn);
}

int mpi_type_create_indexed_block_impl(MPI_Count count, MPI_Count blocklength,
                                       const void *array_of_displacements, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype, int large, const char *fn)
{
    return indexed(2, count, NULL, blocklength, array_of_displacements, oldtype, newtype, large,
                   fn);
}

int mpi_type_create_hindexed_block_impl(MPI_Count count, MPI_Count blocklength,
                                        const void *array_of_displacements, MPI_Datatype oldtype,
                                        MPI_Datatype *newtype, int large, const char *fn)
{
    return indexed(3, count, NULL, blocklength, array_of_displacements, oldtype, newtype, large,
                   fn);
}

static int type_struct(MPI_Count count, const void *blens, const void *displs,
                       const MPI_Datatype types[], MPI_Datatype *newtype, int large,
                       const char *fn)
{
    dt_type_t **tt = NULL, *t = NULL;
    size_t *bl = NULL;
    ptrdiff_t *ds = NULL;
    canal_status_t st;
    int err;

    if (count > 0 && types == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "array_of_types is NULL");
    if ((err = lens_in(blens, large, count, "array_of_blocklengths", fn, &bl)))
        return err;
    if (large && (err = displs_in(displs, 1, count, "array_of_displacements", fn, &ds)))
        goto out_free;
    if (!large && count > 0 && displs == NULL) {
        err = mpi_err_fail(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
        goto out_free;
    }
    tt = malloc((size_t)(count > 0 ? count : 1) * sizeof *tt);
    if (tt == NULL) {
        err = mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "%lld types", (long long)count);
        goto out_free;
    }
    for (MPI_Count i = 0; i < count; i++) {
        char what[64];
        snprintf(what, sizeof what, "array_of_types[%lld]", (long long)i);
        if ((err = type_arg(types[i], what, fn, &tt[i])))
            goto out_free;
    }
    st = dt_create_struct((size_t)count, bl, ds != NULL ? ds : (const ptrdiff_t *)displs, tt, &t);
    if (st != CANAL_OK) {
        err = engine_err(st, fn);
        goto out_free;
    }
    if (large) {
        int64_t *c = cat_counts(1, count, blens, (size_t)count, displs, (size_t)count);
        if (c == NULL) {
            dt_release(t);
            err = mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "datatype envelope");
            goto out_free;
        }
        err = record_large(t, DT_COMBINER_STRUCT, 0, NULL, 1 + 2 * (size_t)count, c,
                           (size_t)count, tt, fn);
        free(c);
        if (err)
            goto out_free;
    }
    err = type_out(t, newtype, fn);
out_free:
    free(bl);
    free(ds);
    free(tt);
    return err;
}

int mpi_type_create_struct_impl(MPI_Count count, const void *array_of_blocklengths,
                                const void *array_of_displacements,
                                const MPI_Datatype array_of_types[], MPI_Datatype *newtype,
                                int large, const char *fn)
{
    return type_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                       newtype, large, fn);
}

int mpi_type_struct_impl(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                         MPI_Datatype array_of_types[], MPI_Datatype *newtype, const char *fn)
{
    return type_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                       newtype, 0, fn);
}

static int order_in(int order, int *out, const char *fn)
{
    if (order == MPI_ORDER_C)
        *out = DT_ORDER_C;
    else if (order == MPI_ORDER_FORTRAN)
        *out = DT_ORDER_FORTRAN;
    else
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "order=%d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

static int subarray(int ndims, const void *sizes, const void *subsizes, const void *starts,
                    int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int large,
                    const char *fn)
{
    dt_type_t *old, *t;
    size_t *sz = NULL, *sub = NULL, *st0 = NULL;
    canal_status_t st;
    int err, ord = DT_ORDER_C;

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    if (ndims <= 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "ndims=%d must be positive", ndims);
    if ((err = order_in(order, &ord, fn)))
        return err;
    if ((err = lens_in_cls(sizes, large, ndims, "array_of_sizes", MPI_ERR_ARG, fn, &sz)) ||
        (err = lens_in_cls(subsizes, large, ndims, "array_of_subsizes", MPI_ERR_ARG, fn, &sub)) ||
        (err = lens_in_cls(starts, large, ndims, "array_of_starts", MPI_ERR_ARG, fn, &st0)))
        goto out_free;
    st = dt_create_subarray(ndims, sz, sub, st0, ord, old, &t);
    if (st != CANAL_OK) {
        err = engine_err(st, fn);
        goto out_free;
    }
    if (large) {
        int64_t ints[2] = {ndims, order}, *c = malloc(3 * (size_t)ndims * sizeof *c);
        if (c == NULL) {
            dt_release(t);
            err = mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "datatype envelope");
            goto out_free;
        }
        for (int i = 0; i < ndims; i++) {
            c[i] = ((const MPI_Count *)sizes)[i];
            c[ndims + i] = ((const MPI_Count *)subsizes)[i];
            c[2 * ndims + i] = ((const MPI_Count *)starts)[i];
        }
        err = record_large(t, DT_COMBINER_SUBARRAY, 2, ints, 3 * (size_t)ndims, c, 1, &old, fn);
        free(c);
        if (err)
            goto out_free;
    } else {
        /* the envelope holds MPI's order constant, not the engine's (the
         * arrays of a record are the engine's but writable) */
        const dt_contents_t *e = dt_contents(t);
        e->ints[e->nints - 1] = order;
    }
    err = type_out(t, newtype, fn);
out_free:
    free(sz);
    free(sub);
    free(st0);
    return err;
}

int mpi_type_create_subarray_impl(int ndims, const void *array_of_sizes,
                                  const void *array_of_subsizes, const void *array_of_starts,
                                  int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int large,
                                  const char *fn)
{
    return subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype,
                    newtype, large, fn);
}

static int darray(int size, int rank, int ndims, const void *gsizes, const int distribs[],
                  const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, int large, const char *fn)
{
    dt_type_t *old, *t;
    size_t *gs = NULL;
    int *dist = NULL, ord = DT_ORDER_C, err;
    canal_status_t st;

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    if (ndims <= 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "ndims=%d must be positive", ndims);
    if (distribs == NULL || dargs == NULL || psizes == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "array_of_%s is NULL",
                     distribs == NULL ? "distribs" : dargs == NULL ? "dargs" : "psizes");
    if ((err = order_in(order, &ord, fn)))
        return err;
    if ((err = lens_in_cls(gsizes, large, ndims, "array_of_gsizes", MPI_ERR_ARG, fn, &gs)))
        return err;
    dist = malloc((size_t)ndims * sizeof *dist);
    if (dist == NULL) {
        free(gs);
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "darray of %d dimensions", ndims);
    }
    for (int i = 0; i < ndims; i++) {
        switch (distribs[i]) {
        case MPI_DISTRIBUTE_BLOCK: dist[i] = DT_DISTRIBUTE_BLOCK; break;
        case MPI_DISTRIBUTE_CYCLIC: dist[i] = DT_DISTRIBUTE_CYCLIC; break;
        case MPI_DISTRIBUTE_NONE: dist[i] = DT_DISTRIBUTE_NONE; break;
        default:
            free(gs);
            free(dist);
            return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                                "array_of_distribs[%d]=%d is not a distribution", i, distribs[i]);
        }
    }
    st = dt_create_darray(size, rank, ndims, gs, dist, dargs, psizes, ord, old, &t);
    free(gs);
    free(dist);
    if (st != CANAL_OK)
        return engine_err(st, fn);
    {
        /* MPI's constants in the envelope; the large form moves gsizes to counts */
        size_t n = (size_t)ndims, ni = large ? 4 + 3 * n : 4 + 4 * n, k = 0;
        int64_t *ints = malloc(ni * sizeof *ints), *c = malloc(n * sizeof *c);
        if (ints == NULL || c == NULL) {
            free(ints);
            free(c);
            dt_release(t);
            return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "datatype envelope");
        }
        ints[k++] = size;
        ints[k++] = rank;
        ints[k++] = ndims;
        for (size_t i = 0; i < n; i++) {
            c[i] = large ? ((const MPI_Count *)gsizes)[i] : ((const int *)gsizes)[i];
            if (!large)
                ints[k + i] = c[i];
        }
        if (!large)
            k += n;
        for (size_t i = 0; i < n; i++) {
            ints[k + i] = distribs[i];
            ints[k + n + i] = dargs[i];
            ints[k + 2 * n + i] = psizes[i];
        }
        k += 3 * n;
        ints[k++] = order;
        st = dt_contents_set(t, DT_COMBINER_DARRAY, k, ints, 0, NULL, large ? n : 0, c, 1, &old);
        free(ints);
        free(c);
        if (st != CANAL_OK) {
            dt_release(t);
            return engine_err(st, fn);
        }
    }
    return type_out(t, newtype, fn);
}

int mpi_type_create_darray_impl(int size, int rank, int ndims, const void *array_of_gsizes,
                                const int array_of_distribs[], const int array_of_dargs[],
                                const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype, int large, const char *fn)
{
    return darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, newtype, large, fn);
}

static int resized(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype,
                   int large, const char *fn)
{
    dt_type_t *old, *t;
    canal_status_t st;
    int err;

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    if ((st = dt_create_resized(old, lb, extent, &t)) != CANAL_OK)
        return engine_err(st, fn);
    if (large) {
        int64_t c[2] = {lb, extent};
        if ((err = record_large(t, DT_COMBINER_RESIZED, 0, NULL, 2, c, 1, &old, fn)))
            return err;
    }
    return type_out(t, newtype, fn);
}

int mpi_type_create_resized_impl(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                 MPI_Datatype *newtype, const char *fn)
{
    return resized(oldtype, lb, extent, newtype, large_form(fn), fn);
}

/* ---------------------------------------------------------------- Fortran 90 types */
/* MPI_Type_create_f90_*: predefined-like types, one per (kind, p, r),
 * cached for the life of the process and never freed. */
enum { F90_MAX = 64 };
static struct {
    dt_combiner_t comb;
    int p, r;
    MPI_Datatype handle;
} f90_cache[F90_MAX];
static int f90_n;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

static int is_f90(MPI_Datatype h)
{
    int found = 0;
    pthread_mutex_lock(&f90_lock);
    for (int i = 0; i < f90_n && !found; i++)
        found = f90_cache[i].handle == h;
    pthread_mutex_unlock(&f90_lock);
    return found;
}

/* The builtin behind a precision/range request; DT_NBUILTIN if none. */
static dt_builtin_t f90_base(dt_combiner_t comb, int p, int r)
{
    if (comb == DT_COMBINER_F90_INTEGER) {
        if (r == MPI_UNDEFINED || r <= 2) return r == MPI_UNDEFINED ? DT_INTEGER4 : DT_INTEGER1;
        if (r <= 4) return DT_INTEGER2;
        if (r <= 9) return DT_INTEGER4;
        if (r <= 18) return DT_INTEGER8;
        if (r <= 38) return DT_INTEGER16;
        return DT_NBUILTIN;
    }
    /* gfortran: kind 4 (p 6, r 37), 8 (p 15, r 307), 16 (p 33, r 4931) */
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p < 0 || r < 0)
        return DT_NBUILTIN;
    if (p <= 6 && r <= 37)
        return comb == DT_COMBINER_F90_REAL ? DT_REAL4 : DT_COMPLEX8;
    if (p <= 15 && r <= 307)
        return comb == DT_COMBINER_F90_REAL ? DT_REAL8 : DT_COMPLEX16;
    if (p <= 33 && r <= 4931)
        return comb == DT_COMBINER_F90_REAL ? DT_REAL16 : DT_COMPLEX32;
    return DT_NBUILTIN;
}

static int f90_type(dt_combiner_t comb, int p, int r, MPI_Datatype *newtype, const char *fn)
{
    dt_builtin_t b;
    dt_type_t *t = NULL;
    canal_status_t st;
    int err = MPI_SUCCESS, h;
    int64_t ints[2] = {p, r};

    if (comb != DT_COMBINER_F90_INTEGER && p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "p and r are both MPI_UNDEFINED");
    b = f90_base(comb, p, r);
    if (b == DT_NBUILTIN)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "no Fortran %s type has %s%d and range %d",
                     comb == DT_COMBINER_F90_INTEGER ? "integer"
                     : comb == DT_COMBINER_F90_REAL  ? "real"
                                                     : "complex",
                     comb == DT_COMBINER_F90_INTEGER ? "" : "precision ", p, r);
    pthread_mutex_lock(&f90_lock);
    for (int i = 0; i < f90_n; i++)
        if (f90_cache[i].comb == comb && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].handle;
            goto out_unlock;
        }
    if (f90_n == F90_MAX) {
        err = mpi_err_fail(NULL, MPI_ERR_INTERN, fn, "more than %d distinct Fortran 90 types",
                           F90_MAX);
        goto out_unlock;
    }
    if ((st = dt_create_dup(dt_builtin(b), &t)) != CANAL_OK ||
        (st = dt_contents_set(t, comb, comb == DT_COMBINER_F90_INTEGER ? 1 : 2,
                              comb == DT_COMBINER_F90_INTEGER ? &ints[1] : ints, 0, NULL, 0, NULL,
                              0, NULL)) != CANAL_OK) {
        err = engine_err(st, fn);
        goto out_unlock;
    }
    h = mpi_handle_new(MPI_OBJ_DATATYPE, t);
    if (h == 0) {
        dt_release(t);
        err = mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "no handle left for a new datatype");
        goto out_unlock;
    }
    f90_cache[f90_n].comb = comb;
    f90_cache[f90_n].p = p;
    f90_cache[f90_n].r = r;
    f90_cache[f90_n].handle = h;
    f90_n++;
    *newtype = h;
out_unlock:
    pthread_mutex_unlock(&f90_lock);
    return err;
}

int mpi_type_create_f90_real_impl(int p, int r, MPI_Datatype *newtype, const char *fn)
{
    return f90_type(DT_COMBINER_F90_REAL, p, r, newtype, fn);
}

int mpi_type_create_f90_complex_impl(int p, int r, MPI_Datatype *newtype, const char *fn)
{
    return f90_type(DT_COMBINER_F90_COMPLEX, p, r, newtype, fn);
}

int mpi_type_create_f90_integer_impl(int r, MPI_Datatype *newtype, const char *fn)
{
    return f90_type(DT_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, newtype, fn);
}

int mpi_type_match_size_impl(int typeclass, int size, MPI_Datatype *datatype, const char *fn)
{
    char cls;
    dt_builtin_t b;
    MPI_Datatype h;

    switch (typeclass) {
    case MPI_TYPECLASS_REAL: cls = 'r'; break;
    case MPI_TYPECLASS_INTEGER: cls = 'i'; break;
    case MPI_TYPECLASS_COMPLEX:
        cls = 'c';
        break;
    default:
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "typeclass=%d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX",
                            typeclass);
    }
    b = size > 0 ? dt_match_size(cls, (size_t)size) : DT_NBUILTIN;
    h = b == DT_NBUILTIN ? MPI_DATATYPE_NULL : mpi_dt_builtin_handle(b);
    if (h == MPI_DATATYPE_NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "no %s type has size %d",
                     cls == 'r' ? "real" : cls == 'i' ? "integer" : "complex", size);
    *datatype = h;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- commit, free, dup */
int mpi_type_commit_impl(MPI_Datatype *datatype, const char *fn)
{
    dt_type_t *t = NULL;
    canal_status_t st;
    int err;

    if ((err = type_arg(*datatype, "datatype", fn, &t)))
        return err;
    if ((st = dt_commit(t)) != CANAL_OK)
        return engine_err(st, fn);
    return MPI_SUCCESS;
}

int mpi_type_free_impl(MPI_Datatype *datatype, const char *fn)
{
    dt_type_t *t = NULL;
    int err;

    if ((err = type_arg(*datatype, "datatype", fn, &t)))
        return err;
    if (dt_builtin_of(t) != DT_NBUILTIN || is_f90(*datatype))
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn, "datatype %s is predefined and cannot be freed",
                     dt_get_name(t)[0] ? dt_get_name(t) : "(Fortran 90 type)");
    if ((err = mpi_attr_delete_all(MPI_OBJ_DATATYPE, *datatype,
                                   (mpi_attr_t **)dt_user_slot(t))) != MPI_SUCCESS)
        return mpi_err_fail_code(NULL, err, fn);
    mpi_handle_del(MPI_OBJ_DATATYPE, *datatype);
    /* messages still using the type hold their own references */
    dt_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int mpi_type_dup_impl(MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    dt_type_t *old, *t;
    mpi_attr_t *attrs = NULL;
    canal_status_t st;
    int err;

    old = mpi_dt_get(oldtype); /* checked by the entry point (kind type) */
    /* A failed duplication leaves MPI_DATATYPE_NULL, as MPICH does. */
    *newtype = MPI_DATATYPE_NULL;
    if ((st = dt_create_dup(old, &t)) != CANAL_OK)
        return engine_err(st, fn);
    err = mpi_attr_dup_all(MPI_OBJ_DATATYPE, oldtype, *(mpi_attr_t **)dt_user_slot(old), &attrs);
    if (err != MPI_SUCCESS) {
        dt_release(t);
        return mpi_err_fail_code(NULL, err, fn);
    }
    *dt_user_slot(t) = attrs;
    return type_out(t, newtype, fn);
}

mpi_attr_t **mpi_type_attr_list(MPI_Datatype h)
{
    dt_type_t *t = mpi_dt_get(h);
    return t == NULL ? NULL : (mpi_attr_t **)dt_user_slot(t);
}

/* ---------------------------------------------------------------- queries */

/* Any datatype, committed or not (kind type in the table). */
int mpi_type_size_impl(MPI_Datatype datatype, MPI_Count *size, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *size = (MPI_Count)dt_size(t);
    return MPI_SUCCESS;
}

int mpi_type_get_extent_impl(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent,
                             const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *lb = dt_lb(t);
    *extent = dt_extent(t);
    return MPI_SUCCESS;
}

int mpi_type_get_true_extent_impl(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent,
                                  const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *true_lb = dt_true_lb(t);
    *true_extent = dt_true_extent(t);
    return MPI_SUCCESS;
}

/* MPI-1 queries, removed from the standard but still exported by MPICH. */
int mpi_type_extent_impl(MPI_Datatype datatype, MPI_Aint *extent, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *extent = dt_extent(t);
    return MPI_SUCCESS;
}

int mpi_type_lb_impl(MPI_Datatype datatype, MPI_Aint *displacement, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *displacement = dt_lb(t);
    return MPI_SUCCESS;
}

int mpi_type_ub_impl(MPI_Datatype datatype, MPI_Aint *displacement, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype); /* checked by the entry point */

    (void)fn;
    *displacement = dt_ub(t);
    return MPI_SUCCESS;
}

int mpi_get_address_impl(const void *location, MPI_Aint *address, const char *fn)
{
    (void)fn;
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int mpi_address_impl(void *location, MPI_Aint *address, const char *fn)
{
    (void)fn;
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- names */
int mpi_type_set_name_impl(MPI_Datatype datatype, const char *type_name, const char *fn)
{
    dt_type_t *t = NULL;
    int err;

    t = mpi_dt_get(datatype); /* checked by the entry point */
    if ((err = ptr_arg(type_name, "type_name", fn)))
        return err;
    dt_set_name(t, type_name);
    return MPI_SUCCESS;
}

int mpi_type_get_name_impl(MPI_Datatype datatype, char *type_name, int *resultlen, const char *fn)
{
    dt_type_t *t = NULL;
    size_t n;
    int err;

    t = mpi_dt_get(datatype); /* checked by the entry point */
    if ((err = ptr_arg(type_name, "type_name", fn)))
        return err;
    n = strlen(dt_get_name(t));
    if (n > MPI_MAX_OBJECT_NAME - 1)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(type_name, dt_get_name(t), n);
    type_name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- envelope and contents */
static int combiner_out(dt_combiner_t c)
{
    switch (c) {
    case DT_COMBINER_NAMED: return MPI_COMBINER_NAMED;
    case DT_COMBINER_DUP: return MPI_COMBINER_DUP;
    case DT_COMBINER_CONTIGUOUS: return MPI_COMBINER_CONTIGUOUS;
    case DT_COMBINER_VECTOR: return MPI_COMBINER_VECTOR;
    case DT_COMBINER_HVECTOR: return MPI_COMBINER_HVECTOR;
    case DT_COMBINER_INDEXED: return MPI_COMBINER_INDEXED;
    case DT_COMBINER_HINDEXED: return MPI_COMBINER_HINDEXED;
    case DT_COMBINER_INDEXED_BLOCK: return MPI_COMBINER_INDEXED_BLOCK;
    case DT_COMBINER_HINDEXED_BLOCK: return MPI_COMBINER_HINDEXED_BLOCK;
    case DT_COMBINER_STRUCT: return MPI_COMBINER_STRUCT;
    case DT_COMBINER_SUBARRAY: return MPI_COMBINER_SUBARRAY;
    case DT_COMBINER_DARRAY: return MPI_COMBINER_DARRAY;
    case DT_COMBINER_F90_REAL: return MPI_COMBINER_F90_REAL;
    case DT_COMBINER_F90_COMPLEX: return MPI_COMBINER_F90_COMPLEX;
    case DT_COMBINER_F90_INTEGER: return MPI_COMBINER_F90_INTEGER;
    case DT_COMBINER_RESIZED: return MPI_COMBINER_RESIZED;
    }
    return MPI_COMBINER_NAMED;
}

int mpi_type_get_envelope_impl(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                               int *num_datatypes, int *combiner, const char *fn)
{
    const dt_contents_t *e = dt_contents(mpi_dt_get(datatype)); /* checked by the entry point */

    if (e->ncounts > 0)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn,
                            "the datatype was made by a large-count constructor; "
                            "decode it with MPI_Type_get_envelope_c");
    if (e->nints > INT_MAX || e->naddrs > INT_MAX || e->ntypes > INT_MAX)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn, "the envelope does not fit in int counts");
    *num_integers = (int)e->nints;
    *num_addresses = (int)e->naddrs;
    *num_datatypes = (int)e->ntypes;
    *combiner = combiner_out(e->combiner);
    return MPI_SUCCESS;
}

int mpi_type_get_envelope_c_impl(MPI_Datatype datatype, MPI_Count *num_integers,
                                 MPI_Count *num_addresses, MPI_Count *num_large_counts,
                                 MPI_Count *num_datatypes, int *combiner, const char *fn)
{
    const dt_contents_t *e = dt_contents(mpi_dt_get(datatype)); /* checked by the entry point */

    (void)fn;
    *num_integers = (MPI_Count)e->nints;
    *num_addresses = (MPI_Count)e->naddrs;
    *num_large_counts = (MPI_Count)e->ncounts;
    *num_datatypes = (MPI_Count)e->ntypes;
    *combiner = combiner_out(e->combiner);
    return MPI_SUCCESS;
}

/* Handles for the datatypes of an envelope: predefined ones are returned as
 * themselves, derived ones as new handles the caller must free. */
static int contents_types(const dt_contents_t *e, MPI_Datatype out[], const char *fn)
{
    for (size_t i = 0; i < e->ntypes; i++) {
        dt_type_t *c = e->types[i], *n;
        dt_builtin_t b = dt_builtin_of(c);
        canal_status_t st;
        int err;

        if (b != DT_NBUILTIN) {
            out[i] = mpi_dt_builtin_handle(b);
            continue;
        }
        if ((st = dt_create_clone(c, &n)) != CANAL_OK) {
            err = engine_err(st, fn);
            goto undo;
        }
        if ((err = type_out(n, &out[i], fn)) != MPI_SUCCESS)
            goto undo;
        continue;
    undo:
        while (i-- > 0)
            if (dt_builtin_of(e->types[i]) == DT_NBUILTIN) {
                dt_release(mpi_dt_get(out[i]));
                mpi_handle_del(MPI_OBJ_DATATYPE, out[i]);
            }
        return err;
    }
    return MPI_SUCCESS;
}

static int contents(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                    MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                    MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                    MPI_Datatype array_of_datatypes[], int large, const char *fn)
{
    dt_type_t *t = NULL;
    const dt_contents_t *e;
    int err;

    t = mpi_dt_get(datatype); /* checked by the entry point (kind type) */
    e = dt_contents(t);
    if (e->combiner == DT_COMBINER_NAMED)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn,
                            "%s is a predefined datatype: it has no contents", dt_get_name(t));
    if (!large && e->ncounts > 0)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn,
                            "the datatype was made by a large-count constructor; "
                            "decode it with MPI_Type_get_contents_c");
    /* MPICH reports too small arrays as MPI_ERR_OTHER */
    if ((MPI_Count)e->nints > max_integers || (MPI_Count)e->naddrs > max_addresses ||
        (MPI_Count)e->ncounts > max_large_counts || (MPI_Count)e->ntypes > max_datatypes)
        return mpi_err_fail(
            NULL, MPI_ERR_OTHER, fn,
            "arrays too small: the datatype has %zu integers, %zu "
            "addresses, %zu large counts and %zu datatypes (room for %lld, %lld, %lld, %lld)",
            e->nints, e->naddrs, e->ncounts, e->ntypes, (long long)max_integers,
            (long long)max_addresses, (long long)max_large_counts, (long long)max_datatypes);
    if ((e->nints > 0 && array_of_integers == NULL) ||
        (e->naddrs > 0 && array_of_addresses == NULL) ||
        (e->ncounts > 0 && array_of_large_counts == NULL) ||
        (e->ntypes > 0 && array_of_datatypes == NULL))
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "an output array is NULL");
    if ((err = contents_types(e, array_of_datatypes, fn)))
        return err;
    for (size_t i = 0; i < e->nints; i++)
        array_of_integers[i] = (int)e->ints[i];
    for (size_t i = 0; i < e->naddrs; i++)
        array_of_addresses[i] = e->addrs[i];
    for (size_t i = 0; i < e->ncounts; i++)
        array_of_large_counts[i] = (MPI_Count)e->counts[i];
    return MPI_SUCCESS;
}

int mpi_type_get_contents_impl(MPI_Datatype datatype, int max_integers, int max_addresses,
                               int max_datatypes, int array_of_integers[],
                               MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[],
                               const char *fn)
{
    return contents(datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                    array_of_addresses, NULL, array_of_datatypes, 0, fn);
}

int mpi_type_get_contents_c_impl(MPI_Datatype datatype, MPI_Count max_integers,
                                 MPI_Count max_addresses, MPI_Count max_large_counts,
                                 MPI_Count max_datatypes, int array_of_integers[],
                                 MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                                 MPI_Datatype array_of_datatypes[], const char *fn)
{
    return contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes, 1, fn);
}

/* ---------------------------------------------------------------- pack and unpack */
/* MPI_IN_PLACE (a collective's word) as a buffer of the pack and unpack
 * calls: the engine took it as the address (void *)-1 and crashed. */
static int pack_in_place(mpi_comm_t *c, const void *inbuf, const void *outbuf, const char *fn)
{
    if (inbuf != MPI_IN_PLACE && outbuf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE; only collectives take it",
                        inbuf == MPI_IN_PLACE ? "inbuf" : "outbuf");
}

/* incount, datatype, position and the communicator come checked. */
int mpi_pack_impl(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                  MPI_Count outsize, MPI_Count *position, mpi_comm_t *c, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t bytes;
    canal_status_t st;
    int err;

    if (outsize < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "outsize=%lld is negative", (long long)outsize);
    if (*position < 0 || *position > outsize)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "position=%lld is not in [0, outsize=%lld]",
                            (long long)*position, (long long)outsize);
    if (outbuf == NULL && incount > 0 && dt_size(t) > 0)
        return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "outbuf is NULL");
    if ((err = pack_in_place(c, inbuf, outbuf, fn)))
        return err;
    st = dt_pack(inbuf, (size_t)incount, t, (char *)outbuf + *position,
                 (size_t)(outsize - *position), &bytes);
    if (st == CANAL_ERR_TRUNCATE)
        return mpi_err_fail(c, MPI_ERR_ARG, fn,
                            "outsize=%lld is too small: incount=%lld elements of %zu bytes need "
                            "%llu bytes, %lld are left after position=%lld",
                            (long long)outsize, (long long)incount, dt_size(t),
                            (unsigned long long)incount * dt_size(t),
                            (long long)(outsize - *position), (long long)*position);
    if (st != CANAL_OK)
        return mpi_err_fail_status(c, st, fn);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int mpi_unpack_impl(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                    MPI_Count outcount, MPI_Datatype datatype, mpi_comm_t *c, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t bytes, need;
    canal_status_t st;
    int err;

    if (insize < 0)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "insize=%lld is negative", (long long)insize);
    if (*position < 0 || *position > insize)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "position=%lld is not in [0, insize=%lld]",
                            (long long)*position, (long long)insize);
    /* as MPICH: when the input holds less than outcount elements, unpack
     * what is there (like a receive of a shorter message) */
    if (__builtin_mul_overflow((size_t)outcount, dt_size(t), &need) ||
        need > (size_t)(insize - *position))
        need = (size_t)(insize - *position);
    if (need > 0 && inbuf == NULL)
        return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "inbuf is NULL");
    if ((err = pack_in_place(c, inbuf, outbuf, fn)))
        return err;
    st = dt_unpack((const char *)inbuf + *position, need, outbuf, (size_t)outcount, t, &bytes);
    if (st != CANAL_OK)
        return mpi_err_fail_status(c, st, fn);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

/* A size an int cannot hold is MPI_UNDEFINED in the int form (its entry
 * point converts), as for MPI_Type_size. */
int mpi_pack_size_impl(MPI_Count incount, MPI_Datatype datatype, mpi_comm_t *c, MPI_Count *size,
                       const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t n;

    if (__builtin_mul_overflow((size_t)incount, dt_size(t), &n) || n > (size_t)LLONG_MAX)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%lld elements of %zu bytes overflow",
                            (long long)incount, dt_size(t));
    *size = (MPI_Count)n;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- external32 */
static int datarep_arg(const char *datarep, const char *fn)
{
    if (datarep == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
    if (strcasecmp(datarep, "external32") != 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "datarep \"%s\" is not supported (only \"external32\")", datarep);
    return MPI_SUCCESS;
}

int mpi_pack_external_impl(const char *datarep, const void *inbuf, MPI_Count incount,
                           MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                           MPI_Count *position, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t bytes;
    canal_status_t st;
    int err;

    if ((err = datarep_arg(datarep, fn)))
        return err;
    if (outsize < 0 || *position < 0 || *position > outsize)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "position=%lld is not in [0, outsize=%lld]",
                     (long long)*position, (long long)outsize);
    if ((err = pack_in_place(NULL, inbuf, outbuf, fn)))
        return err;
    st = dt_pack_external32(inbuf, (size_t)incount, t, (char *)outbuf + *position,
                            (size_t)(outsize - *position), &bytes);
    if (st == CANAL_ERR_TRUNCATE)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "pack buffer too small: %s (position %lld)",
                     common_err_detail(), (long long)*position);
    if (st != CANAL_OK)
        return engine_err(st, fn);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int mpi_unpack_external_impl(const char datarep[], const void *inbuf, MPI_Count insize,
                             MPI_Count *position, void *outbuf, MPI_Count outcount,
                             MPI_Datatype datatype, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t bytes;
    canal_status_t st;
    int err;

    if ((err = datarep_arg(datarep, fn)))
        return err;
    if (insize < 0 || *position < 0 || *position > insize)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "position=%lld is not in [0, insize=%lld]",
                     (long long)*position, (long long)insize);
    if ((err = pack_in_place(NULL, inbuf, outbuf, fn)))
        return err;
    st = dt_unpack_external32((const char *)inbuf + *position, (size_t)(insize - *position),
                              outbuf, (size_t)outcount, t, &bytes);
    if (st == CANAL_ERR_TRUNCATE)
        return mpi_err_fail(NULL, MPI_ERR_TRUNCATE, fn, "%s (position %lld)", common_err_detail(),
                     (long long)*position);
    if (st != CANAL_OK)
        return engine_err(st, fn);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int mpi_pack_external_size_impl(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                                MPI_Count *size, const char *fn)
{
    dt_type_t *t = mpi_dt_get(datatype);
    size_t n;
    canal_status_t st;
    int err;

    if ((err = datarep_arg(datarep, fn)))
        return err;
    if ((st = dt_external32_size(t, (size_t)incount, &n)) != CANAL_OK)
        return engine_err(st, fn);
    *size = (MPI_Count)n;
    return MPI_SUCCESS;
}
