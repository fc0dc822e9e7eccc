/*
 * Element-level work on the type tree, where the merged block program is the
 * wrong tool because it forgets which basic type each byte belongs to:
 * the tree walker (runs of basic elements in typemap order), MPI_Get_elements
 * (dt_count_elements) and the external32 representation (MPI_Pack_external).
 * Reductions (datatype/dt_reduce.c) use the walker too.
 */
#include "datatype/dt_internal.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

int dt_walk(const dt_type_t *t, ptrdiff_t off, size_t reps, dt_run_fn fn, void *ctx)
{
    ptrdiff_t e = t->ub - t->lb;
    int rc = 0;

    if (reps == 0 || t->size == 0)
        return 0;
    if (t->dense)
        return fn(ctx, t->basic, off + t->lb, reps * t->dense);
    for (size_t r = 0; r < reps && rc == 0; r++, off += e) {
        switch (t->kind) {
        case DT_KIND_BUILTIN:
            rc = fn(ctx, t->builtin, off, 1);
            break;
        case DT_KIND_CONTIG:
            rc = dt_walk(t->old, off, t->count, fn, ctx);
            break;
        case DT_KIND_HVECTOR:
            for (size_t i = 0; i < t->count && rc == 0; i++)
                rc = dt_walk(t->old, off + (ptrdiff_t)i * t->stride, t->blen, fn, ctx);
            break;
        case DT_KIND_HINDEXED:
            for (size_t i = 0; i < t->count && rc == 0; i++)
                rc = dt_walk(t->old, off + t->displs[i], t->blens ? t->blens[i] : t->blen, fn,
                             ctx);
            break;
        case DT_KIND_STRUCT:
            for (size_t i = 0; i < t->count && rc == 0; i++)
                rc = dt_walk(t->types[i], off + t->displs[i], t->blens[i], fn, ctx);
            break;
        case DT_KIND_RESIZED:
        case DT_KIND_ALIAS:
            rc = dt_walk(t->old, off, 1, fn, ctx);
            break;
        }
    }
    return rc;
}

/* ------------------------------------------------------------ elements */
typedef struct {
    size_t left, elems;
} count_ctx_t;

static int count_run(void *ctx, dt_builtin_t b, ptrdiff_t off, size_t n)
{
    count_ctx_t *c = ctx;
    const dt_binfo_t *bi = &dt_binfo[b];
    size_t per = bi->cls == DT_CLASS_PAIR ? 2 : 1, k, rem;

    if (c->left >= n * bi->size) {
        c->left -= n * bi->size;
        c->elems += n * per;
        return c->left == 0;
    }
    k = c->left / bi->size;
    rem = c->left - k * bi->size;
    c->elems += k * per;
    c->left = 0;
    /* a partial element is not counted (a pair's value alone is one) */
    if (bi->cls == DT_CLASS_PAIR && rem >= dt_binfo[bi->pair_value].size)
        c->elems += 1;
    return 1;
}

canal_status_t dt_count_elements(const dt_type_t *t, size_t bytes, size_t *elements_out)
{
    count_ctx_t c = {0};

    if (t->size == 0) {
        *elements_out = 0;
        return CANAL_OK;
    }
    /* As MPICH: a plain builtin type must fill the bytes exactly; other
     * types count the whole basic elements and ignore a partial one. */
    if (t->builtin != DT_NBUILTIN && dt_binfo[t->builtin].cls != DT_CLASS_PAIR) {
        *elements_out = bytes % t->size ? SIZE_MAX : bytes / t->size;
        return CANAL_OK;
    }
    c.elems = bytes / t->size * t->nelems;
    c.left = bytes % t->size;
    if (c.left > 0)
        dt_walk(t, 0, 1, count_run, &c);
    *elements_out = c.elems;
    return CANAL_OK;
}

/* ------------------------------------------------------------ external32 */
static int host_little(void) { return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; }

/* n bytes from src to dst, big-endian <-> host order. */
static void swap_copy(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (!host_little() || n == 1) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* long double <-> IEEE binary128, in host order. */
static void ld_to_quad(unsigned char q[16], const unsigned char *src)
{
    long double ld;
    memcpy(&ld, src, sizeof ld);
#if defined(__SIZEOF_FLOAT128__) && LDBL_MANT_DIG != 113
    __float128 v = (__float128)ld;
    memcpy(q, &v, 16);
#else
    memcpy(q, &ld, 16);
#endif
}

static void quad_to_ld(unsigned char *dst, const unsigned char q[16])
{
    long double ld;
#if defined(__SIZEOF_FLOAT128__) && LDBL_MANT_DIG != 113
    __float128 v;
    memcpy(&v, q, 16);
    ld = (long double)v;
#else
    memcpy(&ld, q, 16);
#endif
    memcpy(dst, &ld, sizeof ld);
}

/* One element of b between host memory p and external32 bytes x; returns
 * the external bytes used. to_x: host -> external. */
static size_t x32_one(dt_builtin_t b, unsigned char *p, unsigned char *x, int to_x)
{
    const dt_binfo_t *bi = &dt_binfo[b];
    unsigned char q[16];
    size_t h;

    switch (bi->xconv) {
    case DT_X_SWAP:
        if (to_x)
            swap_copy(x, p, bi->size);
        else
            swap_copy(p, x, bi->size);
        return bi->size;
    case DT_X_SWAP2:
        h = bi->size / 2;
        if (to_x) {
            swap_copy(x, p, h);
            swap_copy(x + h, p + h, h);
        } else {
            swap_copy(p, x, h);
            swap_copy(p + h, x + h, h);
        }
        return bi->size;
    case DT_X_LONG:
    case DT_X_ULONG:
        if (to_x) {
            long v;
            uint32_t w;
            memcpy(&v, p, sizeof v);
            w = (uint32_t)v;
            swap_copy(x, (unsigned char *)&w, 4);
        } else {
            uint32_t w;
            long v;
            swap_copy((unsigned char *)&w, x, 4);
            v = bi->xconv == DT_X_LONG ? (long)(int32_t)w : (long)w;
            memcpy(p, &v, sizeof v);
        }
        return 4;
    case DT_X_LD:
    case DT_X_LD2:
        for (size_t k = 0; k < (bi->xconv == DT_X_LD2 ? 2u : 1u); k++) {
            unsigned char *pk = p + k * sizeof(long double);
            if (to_x) {
                ld_to_quad(q, pk);
                swap_copy(x + 16 * k, q, 16);
            } else {
                swap_copy(q, x + 16 * k, 16);
                quad_to_ld(pk, q);
            }
        }
        return bi->xconv == DT_X_LD2 ? 32 : 16;
    case DT_X_PAIR:
        h = x32_one(bi->pair_value, p, x, to_x);
        return h + x32_one(bi->pair_index, p + bi->pair_ioff, x + h, to_x);
    case DT_X_NONE:
        return 0;
    }
    return 0;
}

typedef struct {
    unsigned char *buf, *x;
    size_t pos;
    int to_x;
} x32_ctx_t;

static int x32_run(void *ctx, dt_builtin_t b, ptrdiff_t off, size_t n)
{
    x32_ctx_t *c = ctx;
    size_t e = dt_binfo[b].extent;

    if (dt_binfo[b].xconv == DT_X_SWAP && (dt_binfo[b].size == 1 || !host_little()) &&
        e == dt_binfo[b].size) {
        /* no conversion: a straight copy of the run */
        if (c->to_x)
            memcpy(c->x + c->pos, c->buf + off, n * e);
        else
            memcpy(c->buf + off, c->x + c->pos, n * e);
        c->pos += n * e;
        return 0;
    }
    for (size_t k = 0; k < n; k++)
        c->pos += x32_one(b, c->buf + off + (ptrdiff_t)(k * e), c->x + c->pos, c->to_x);
    return 0;
}

canal_status_t dt_external32_size(const dt_type_t *t, size_t count, size_t *bytes_out)
{
    if (__builtin_mul_overflow(count, t->x32_size, bytes_out) || *bytes_out > (size_t)PTRDIFF_MAX)
        return common_err_set(CANAL_ERR_ARG, "external32 size of %zu elements overflows", count);
    return CANAL_OK;
}

canal_status_t dt_pack_external32(const void *buf, size_t count, const dt_type_t *t, void *out,
                                  size_t out_size, size_t *bytes_out)
{
    x32_ctx_t c = {(unsigned char *)buf, out, 0, 1};
    size_t total;
    canal_status_t st;

    if ((st = dt_external32_size(t, count, &total)) != CANAL_OK)
        return st;
    if (total > out_size)
        return common_err_set(CANAL_ERR_TRUNCATE, "pack_external: %zu bytes do not fit in %zu",
                              total, out_size);
    dt_walk(t, 0, count, x32_run, &c);
    *bytes_out = c.pos;
    return CANAL_OK;
}

canal_status_t dt_unpack_external32(const void *in, size_t in_size, void *buf, size_t count,
                                    const dt_type_t *t, size_t *bytes_out)
{
    x32_ctx_t c = {buf, (unsigned char *)in, 0, 0};
    size_t total;
    canal_status_t st;

    if ((st = dt_external32_size(t, count, &total)) != CANAL_OK)
        return st;
    if (total > in_size)
        return common_err_set(CANAL_ERR_TRUNCATE, "unpack_external: %zu bytes needed, %zu given",
                              total, in_size);
    dt_walk(t, 0, count, x32_run, &c);
    *bytes_out = c.pos;
    return CANAL_OK;
}
