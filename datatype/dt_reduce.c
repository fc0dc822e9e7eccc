/*
 * Reduction kernels: inout = in op inout for every predefined operation on
 * the types the MPI standard allows it for (MPI 4.0, section 6.9.2) and on
 * those MPICH 4.0.2 allows beyond it, with MPICH's results (programs and
 * benchmarks rely on them: OSU's osu_allreduce sums MPI_CHAR), on builtin
 * types and on derived types made of one builtin. The type walker
 * (datatype/dt_walk.c) hands over runs of consecutive elements, so a
 * contiguous or vector buffer is reduced by plain loops the compiler can
 * vectorize. Called by mpi/op.c (MPI_Reduce_local), coll/ and RMA.
 */
#include "datatype/dt_internal.h"

/* The build's -O2 leaves these loops scalar (GCC's -O2 vectorizes only
 * loops that need neither an epilogue nor an aliasing check); a 1 MiB float
 * sum took ~45 us per rank that way, and its speed moved with where the
 * loop happened to land in the library. Elementwise operations give the
 * same bits vectorized (no reassociation), and the vectorizer checks at run
 * time whether the two buffers overlap. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __SIZEOF_FLOAT128__
typedef __float128 quad_t_;
#else
typedef long double quad_t_;
#endif

static const char *const op_names[DT_OP_N] = {
    [DT_OP_MAX] = "MPI_MAX",       [DT_OP_MIN] = "MPI_MIN",       [DT_OP_SUM] = "MPI_SUM",
    [DT_OP_PROD] = "MPI_PROD",     [DT_OP_LAND] = "MPI_LAND",     [DT_OP_BAND] = "MPI_BAND",
    [DT_OP_LOR] = "MPI_LOR",       [DT_OP_BOR] = "MPI_BOR",       [DT_OP_LXOR] = "MPI_LXOR",
    [DT_OP_BXOR] = "MPI_BXOR",     [DT_OP_MINLOC] = "MPI_MINLOC", [DT_OP_MAXLOC] = "MPI_MAXLOC",
    [DT_OP_REPLACE] = "MPI_REPLACE", [DT_OP_NO_OP] = "MPI_NO_OP",
};

const char *dt_op_name(dt_op_t op)
{
    return (unsigned)op < DT_OP_N ? op_names[op] : "MPI_OP_NULL";
}

/* Which classes each operation is defined on: the standard's table, and
 * MPICH 4.0.2's additions to it (doc/conformance.md): MPI_CHAR and
 * MPI_CHARACTER wherever integers go; the logical operations on Fortran
 * integers, on MPI_AINT, MPI_OFFSET and MPI_COUNT, and on floating types
 * (a value is true when nonzero; the result is 1 or 0). */
static int op_allows(dt_op_t op, dt_class_t cls)
{
    switch (op) {
    case DT_OP_MAX:
    case DT_OP_MIN:
        return cls == DT_CLASS_CINT || cls == DT_CLASS_FINT || cls == DT_CLASS_FLOAT ||
               cls == DT_CLASS_MULTI || cls == DT_CLASS_CHAR;
    case DT_OP_SUM:
    case DT_OP_PROD:
        return cls == DT_CLASS_CINT || cls == DT_CLASS_FINT || cls == DT_CLASS_FLOAT ||
               cls == DT_CLASS_COMPLEX || cls == DT_CLASS_MULTI || cls == DT_CLASS_CHAR;
    case DT_OP_LAND:
    case DT_OP_LOR:
    case DT_OP_LXOR:
        return cls == DT_CLASS_CINT || cls == DT_CLASS_LOGICAL || cls == DT_CLASS_FINT ||
               cls == DT_CLASS_MULTI || cls == DT_CLASS_CHAR || cls == DT_CLASS_FLOAT;
    case DT_OP_BAND:
    case DT_OP_BOR:
    case DT_OP_BXOR:
        return cls == DT_CLASS_CINT || cls == DT_CLASS_FINT || cls == DT_CLASS_BYTE ||
               cls == DT_CLASS_MULTI || cls == DT_CLASS_CHAR;
    case DT_OP_MINLOC:
    case DT_OP_MAXLOC:
        return cls == DT_CLASS_PAIR;
    case DT_OP_REPLACE:
    case DT_OP_NO_OP:
        return 1;
    default:
        return 0;
    }
}

canal_status_t dt_op_check(dt_op_t op, const dt_type_t *t)
{
    if ((unsigned)op >= DT_OP_N)
        return common_err_set(CANAL_ERR_OP, "invalid operation %d", (int)op);
    if (op == DT_OP_REPLACE || op == DT_OP_NO_OP || t->size == 0)
        return CANAL_OK;
    if (t->mixed)
        return common_err_set(CANAL_ERR_OP, "%s is not defined for a datatype made of several "
                              "basic types", op_names[op]);
    if (!op_allows(op, dt_binfo[t->basic].cls))
        return common_err_set(CANAL_ERR_OP, "%s is not defined for %s%s", op_names[op],
                              t->builtin == DT_NBUILTIN ? "a datatype made of " : "",
                              dt_binfo[t->basic].name);
    return CANAL_OK;
}

/* ------------------------------------------------------------ kernels
 * One function per machine type; the switch on the operation is outside
 * the loops. Integer arithmetic goes through a wide unsigned type so that
 * overflow wraps instead of being undefined. */
#define K_INT(name, T, W)                                                                  \
    static void name(dt_op_t op, const void *inp, void *iop, size_t n)                     \
    {                                                                                      \
        const T *a = inp;                                                                  \
        T *b = iop;                                                                        \
        size_t k;                                                                          \
        switch (op) {                                                                      \
        case DT_OP_MAX: for (k = 0; k < n; k++) b[k] = a[k] > b[k] ? a[k] : b[k]; break;   \
        case DT_OP_MIN: for (k = 0; k < n; k++) b[k] = a[k] < b[k] ? a[k] : b[k]; break;   \
        case DT_OP_SUM: for (k = 0; k < n; k++) b[k] = (T)((W)a[k] + (W)b[k]); break;      \
        case DT_OP_PROD: for (k = 0; k < n; k++) b[k] = (T)((W)a[k] * (W)b[k]); break;     \
        case DT_OP_LAND: for (k = 0; k < n; k++) b[k] = (T)(a[k] && b[k]); break;          \
        case DT_OP_LOR: for (k = 0; k < n; k++) b[k] = (T)(a[k] || b[k]); break;           \
        case DT_OP_LXOR: for (k = 0; k < n; k++) b[k] = (T)(!a[k] != !b[k]); break;        \
        case DT_OP_BAND: for (k = 0; k < n; k++) b[k] = (T)(a[k] & b[k]); break;           \
        case DT_OP_BOR: for (k = 0; k < n; k++) b[k] = (T)(a[k] | b[k]); break;            \
        case DT_OP_BXOR: for (k = 0; k < n; k++) b[k] = (T)(a[k] ^ b[k]); break;           \
        default: break;                                                                    \
        }                                                                                  \
    }

#define K_FLOAT(name, T)                                                                   \
    static void name(dt_op_t op, const void *inp, void *iop, size_t n)                     \
    {                                                                                      \
        const T *a = inp;                                                                  \
        T *b = iop;                                                                        \
        size_t k;                                                                          \
        switch (op) {                                                                      \
        case DT_OP_MAX: for (k = 0; k < n; k++) b[k] = a[k] > b[k] ? a[k] : b[k]; break;   \
        case DT_OP_MIN: for (k = 0; k < n; k++) b[k] = a[k] < b[k] ? a[k] : b[k]; break;   \
        case DT_OP_SUM: for (k = 0; k < n; k++) b[k] = a[k] + b[k]; break;                 \
        case DT_OP_PROD: for (k = 0; k < n; k++) b[k] = a[k] * b[k]; break;                \
        case DT_OP_LAND: for (k = 0; k < n; k++) b[k] = (T)(a[k] != 0 && b[k] != 0); break; \
        case DT_OP_LOR: for (k = 0; k < n; k++) b[k] = (T)(a[k] != 0 || b[k] != 0); break; \
        case DT_OP_LXOR: for (k = 0; k < n; k++) b[k] = (T)((a[k] != 0) != (b[k] != 0)); break; \
        default: break;                                                                    \
        }                                                                                  \
    }

#define K_COMPLEX(name, T)                                                                 \
    static void name(dt_op_t op, const void *inp, void *iop, size_t n)                     \
    {                                                                                      \
        const T *a = inp;                                                                  \
        T *b = iop;                                                                        \
        size_t k;                                                                          \
        switch (op) {                                                                      \
        case DT_OP_SUM: for (k = 0; k < n; k++) b[k] = a[k] + b[k]; break;                 \
        case DT_OP_PROD: for (k = 0; k < n; k++) b[k] = a[k] * b[k]; break;                \
        default: break;                                                                    \
        }                                                                                  \
    }

/* Logical types store 0/1 (C _Bool, C++ bool) or 0/nonzero (Fortran). */
#define K_LOGICAL(name, T)                                                                 \
    static void name(dt_op_t op, const void *inp, void *iop, size_t n)                     \
    {                                                                                      \
        const T *a = inp;                                                                  \
        T *b = iop;                                                                        \
        size_t k;                                                                          \
        switch (op) {                                                                      \
        case DT_OP_LAND: for (k = 0; k < n; k++) b[k] = (T)(a[k] && b[k]); break;          \
        case DT_OP_LOR: for (k = 0; k < n; k++) b[k] = (T)(a[k] || b[k]); break;           \
        case DT_OP_LXOR: for (k = 0; k < n; k++) b[k] = (T)(!a[k] != !b[k]); break;        \
        default: break;                                                                    \
        }                                                                                  \
    }

/* MINLOC/MAXLOC: the better value wins; on a tie the smaller index. Fields
 * are assigned one by one so that struct padding is never written. */
#define K_PAIR(name, ST)                                                                   \
    static void name(dt_op_t op, const void *inp, void *iop, size_t n)                     \
    {                                                                                      \
        const ST *a = inp;                                                                 \
        ST *b = iop;                                                                       \
        size_t k;                                                                          \
        if (op == DT_OP_MINLOC) {                                                          \
            for (k = 0; k < n; k++) {                                                      \
                if (a[k].v < b[k].v) {                                                     \
                    b[k].v = a[k].v;                                               \
                    b[k].i = a[k].i;                                               \
                } else if (a[k].v == b[k].v && a[k].i < b[k].i)                            \
                    b[k].i = a[k].i;                                                       \
            }                                                                              \
        } else if (op == DT_OP_MAXLOC) {                                                   \
            for (k = 0; k < n; k++) {                                                      \
                if (a[k].v > b[k].v) {                                                     \
                    b[k].v = a[k].v;                                               \
                    b[k].i = a[k].i;                                               \
                } else if (a[k].v == b[k].v && a[k].i < b[k].i)                            \
                    b[k].i = a[k].i;                                                       \
            }                                                                              \
        }                                                                                  \
    }

typedef struct { float v; int i; } p_float_int_t;
typedef struct { double v; int i; } p_double_int_t;
typedef struct { long v; int i; } p_long_int_t;
typedef struct { int v; int i; } p_2int_t;
typedef struct { short v; int i; } p_short_int_t;
typedef struct { long double v; int i; } p_ld_int_t;
typedef struct { float v; float i; } p_2float_t;
typedef struct { double v; double i; } p_2double_t;

K_INT(k_i8, int8_t, uint64_t)
K_INT(k_u8, uint8_t, uint64_t)
K_INT(k_i16, int16_t, uint64_t)
K_INT(k_u16, uint16_t, uint64_t)
K_INT(k_i32, int32_t, uint64_t)
K_INT(k_u32, uint32_t, uint64_t)
K_INT(k_i64, int64_t, uint64_t)
K_INT(k_u64, uint64_t, uint64_t)
K_INT(k_i128, __int128, unsigned __int128)
K_FLOAT(k_f16, _Float16)
K_FLOAT(k_f32, float)
K_FLOAT(k_f64, double)
K_FLOAT(k_ld, long double)
K_FLOAT(k_f128, quad_t_)
/* MPI_COMPLEX4: a pair of _Float16, computed in float and rounded back
 * (what GCC does for _Complex _Float16 on x86; clang has no such type). */
static void k_c16(dt_op_t op, const void *inp, void *iop, size_t n)
{
    const dt_cf16_t *a = inp;
    dt_cf16_t *b = iop;
    for (size_t k = 0; k < n; k++) {
        float ar = (float)a[k].re, ai = (float)a[k].im, br = (float)b[k].re, bi = (float)b[k].im;
        float re, im;
        if (op == DT_OP_SUM) {
            re = ar + br;
            im = ai + bi;
        } else if (op == DT_OP_PROD) {
            re = ar * br - ai * bi;
            im = ar * bi + ai * br;
        } else {
            return;
        }
        b[k].re = (_Float16)re;
        b[k].im = (_Float16)im;
    }
}
K_COMPLEX(k_c32, float _Complex)
K_COMPLEX(k_c64, double _Complex)
K_COMPLEX(k_cld, long double _Complex)
K_LOGICAL(k_bool, unsigned char) /* any nonzero byte is true */
K_LOGICAL(k_flog, int32_t)
K_LOGICAL(k_flog1, int8_t)
K_LOGICAL(k_flog2, int16_t)
K_LOGICAL(k_flog8, int64_t)
K_LOGICAL(k_flog16, __int128)
K_PAIR(k_p_float_int, p_float_int_t)
K_PAIR(k_p_double_int, p_double_int_t)
K_PAIR(k_p_long_int, p_long_int_t)
K_PAIR(k_p_2int, p_2int_t)
K_PAIR(k_p_short_int, p_short_int_t)
K_PAIR(k_p_ld_int, p_ld_int_t)
K_PAIR(k_p_2float, p_2float_t)
K_PAIR(k_p_2double, p_2double_t)

/* Complex of quad precision, by hand: not every compiler has the type. */
static void k_c128(dt_op_t op, const void *inp, void *iop, size_t n)
{
    const quad_t_ *a = inp;
    quad_t_ *b = iop;
    for (size_t k = 0; k < n; k++) {
        quad_t_ ar = a[2 * k], ai = a[2 * k + 1], br = b[2 * k], bi = b[2 * k + 1];
        if (op == DT_OP_SUM) {
            b[2 * k] = ar + br;
            b[2 * k + 1] = ai + bi;
        } else if (op == DT_OP_PROD) {
            b[2 * k] = ar * br - ai * bi;
            b[2 * k + 1] = ar * bi + ai * br;
        }
    }
}

typedef void (*kernel_fn)(dt_op_t op, const void *in, void *inout, size_t n);

static const kernel_fn kernels[] = {
    [DT_K_NONE] = NULL,
    [DT_K_I8] = k_i8, [DT_K_U8] = k_u8, [DT_K_I16] = k_i16, [DT_K_U16] = k_u16,
    [DT_K_I32] = k_i32, [DT_K_U32] = k_u32, [DT_K_I64] = k_i64, [DT_K_U64] = k_u64,
    [DT_K_I128] = k_i128,
    [DT_K_F16] = k_f16, [DT_K_F32] = k_f32, [DT_K_F64] = k_f64, [DT_K_LD] = k_ld,
    [DT_K_F128] = k_f128,
    [DT_K_C32] = k_c32, [DT_K_C64] = k_c64, [DT_K_CLD] = k_cld, [DT_K_C128] = k_c128,
    [DT_K_BOOL] = k_bool, [DT_K_FLOG] = k_flog,
    [DT_K_FLOG1] = k_flog1, [DT_K_FLOG2] = k_flog2, [DT_K_FLOG8] = k_flog8, [DT_K_FLOG16] = k_flog16,
    [DT_K_C16] = k_c16,
    [DT_K_P_FLOAT_INT] = k_p_float_int, [DT_K_P_DOUBLE_INT] = k_p_double_int,
    [DT_K_P_LONG_INT] = k_p_long_int, [DT_K_P_2INT] = k_p_2int,
    [DT_K_P_SHORT_INT] = k_p_short_int, [DT_K_P_LD_INT] = k_p_ld_int,
    [DT_K_P_2FLOAT] = k_p_2float, [DT_K_P_2DOUBLE] = k_p_2double,
};

typedef struct {
    dt_op_t op;
    const char *in;
    char *inout;
} reduce_ctx_t;

static int reduce_run(void *ctx, dt_builtin_t b, ptrdiff_t off, size_t n)
{
    reduce_ctx_t *c = ctx;
    const dt_binfo_t *bi = &dt_binfo[b];

    if (c->op == DT_OP_REPLACE) {
        if (bi->cls != DT_CLASS_PAIR) {
            memcpy(c->inout + off, c->in + off, n * bi->size);
        } else {
            /* value and index only, never the padding between elements */
            size_t vs = dt_binfo[bi->pair_value].size, is = dt_binfo[bi->pair_index].size;
            for (size_t k = 0; k < n; k++) {
                ptrdiff_t o = off + (ptrdiff_t)(k * bi->extent);
                memcpy(c->inout + o, c->in + o, vs);
                memcpy(c->inout + o + bi->pair_ioff, c->in + o + bi->pair_ioff, is);
            }
        }
        return 0;
    }
    kernels[bi->kern](c->op, c->in + off, c->inout + off, n);
    return 0;
}

canal_status_t dt_reduce(dt_op_t op, const void *in, void *inout, size_t count,
                         const dt_type_t *t)
{
    reduce_ctx_t c = {op, in, inout};
    canal_status_t st = dt_op_check(op, t);

    if (st != CANAL_OK || op == DT_OP_NO_OP || count == 0)
        return st;
    dt_walk(t, 0, count, reduce_run, &c);
    return CANAL_OK;
}
