/*
 * The builtin datatypes: one static object per dt_builtin_t with its size,
 * alignment, reduction class and kernel, external32 form and a ready
 * program. The table follows the C types of this platform (LP64 Linux) and
 * gfortran's Fortran types; pair types are the C structs MPI documents
 * (struct { double v; int i; } for MPI_DOUBLE_INT). Used by every other file
 * of datatype/ and, through dt_builtin(), by mpi/ to back the predefined
 * handles.
 */
#include "datatype/dt_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#ifdef __SIZEOF_FLOAT128__
typedef __float128 dt_quad_t;
#else
typedef long double dt_quad_t;
#endif

struct p_float_int { float v; int i; };
struct p_double_int { double v; int i; };
struct p_long_int { long v; int i; };
struct p_2int { int v; int i; };
struct p_short_int { short v; int i; };
struct p_ld_int { long double v; int i; };
struct p_2float { float v; float i; };
struct p_2double { double v; double i; };

/* char is signed or not as the platform says, and reduced as such (MPICH
 * reduces MPI_CHAR as C char) */
#define DT_K_CHAR (CHAR_MIN < 0 ? DT_K_I8 : DT_K_U8)
#define PLAIN(nm, ctype, cls, kern, x32, xc) \
    {nm, sizeof(ctype), sizeof(ctype), _Alignof(ctype), cls, kern, x32, xc, DT_NBUILTIN, DT_NBUILTIN, 0}
#define PAIR(nm, st, vt, it, vb, ib, kern) \
    {nm, sizeof(vt) + sizeof(it), sizeof(struct st), _Alignof(struct st), DT_CLASS_PAIR, kern, 0, \
     DT_X_PAIR, vb, ib, offsetof(struct st, i)}

const dt_binfo_t dt_binfo[DT_NBUILTIN] = {
    [DT_CHAR] = PLAIN("MPI_CHAR", char, DT_CLASS_CHAR, DT_K_CHAR, 1, DT_X_SWAP),
    [DT_SIGNED_CHAR] = PLAIN("MPI_SIGNED_CHAR", signed char, DT_CLASS_CINT, DT_K_I8, 1, DT_X_SWAP),
    [DT_UNSIGNED_CHAR] = PLAIN("MPI_UNSIGNED_CHAR", unsigned char, DT_CLASS_CINT, DT_K_U8, 1, DT_X_SWAP),
    [DT_BYTE] = PLAIN("MPI_BYTE", unsigned char, DT_CLASS_BYTE, DT_K_U8, 1, DT_X_SWAP),
    [DT_SHORT] = PLAIN("MPI_SHORT", short, DT_CLASS_CINT, DT_K_I16, 2, DT_X_SWAP),
    [DT_UNSIGNED_SHORT] = PLAIN("MPI_UNSIGNED_SHORT", unsigned short, DT_CLASS_CINT, DT_K_U16, 2, DT_X_SWAP),
    [DT_INT] = PLAIN("MPI_INT", int, DT_CLASS_CINT, DT_K_I32, 4, DT_X_SWAP),
    [DT_UNSIGNED] = PLAIN("MPI_UNSIGNED", unsigned, DT_CLASS_CINT, DT_K_U32, 4, DT_X_SWAP),
    [DT_LONG] = PLAIN("MPI_LONG", long, DT_CLASS_CINT, DT_K_I64, 4, DT_X_LONG),
    [DT_UNSIGNED_LONG] = PLAIN("MPI_UNSIGNED_LONG", unsigned long, DT_CLASS_CINT, DT_K_U64, 4, DT_X_ULONG),
    [DT_LONG_LONG] = PLAIN("MPI_LONG_LONG_INT", long long, DT_CLASS_CINT, DT_K_I64, 8, DT_X_SWAP),
    [DT_UNSIGNED_LONG_LONG] = PLAIN("MPI_UNSIGNED_LONG_LONG", unsigned long long, DT_CLASS_CINT, DT_K_U64, 8, DT_X_SWAP),
    [DT_FLOAT] = PLAIN("MPI_FLOAT", float, DT_CLASS_FLOAT, DT_K_F32, 4, DT_X_SWAP),
    [DT_DOUBLE] = PLAIN("MPI_DOUBLE", double, DT_CLASS_FLOAT, DT_K_F64, 8, DT_X_SWAP),
    [DT_LONG_DOUBLE] = PLAIN("MPI_LONG_DOUBLE", long double, DT_CLASS_FLOAT, DT_K_LD, 16, DT_X_LD),
    [DT_WCHAR] = PLAIN("MPI_WCHAR", wchar_t, DT_CLASS_OTHER, DT_K_I32, 4, DT_X_SWAP),
    [DT_C_BOOL] = PLAIN("MPI_C_BOOL", _Bool, DT_CLASS_LOGICAL, DT_K_BOOL, 1, DT_X_SWAP),
    [DT_INT8_T] = PLAIN("MPI_INT8_T", int8_t, DT_CLASS_CINT, DT_K_I8, 1, DT_X_SWAP),
    [DT_INT16_T] = PLAIN("MPI_INT16_T", int16_t, DT_CLASS_CINT, DT_K_I16, 2, DT_X_SWAP),
    [DT_INT32_T] = PLAIN("MPI_INT32_T", int32_t, DT_CLASS_CINT, DT_K_I32, 4, DT_X_SWAP),
    [DT_INT64_T] = PLAIN("MPI_INT64_T", int64_t, DT_CLASS_CINT, DT_K_I64, 8, DT_X_SWAP),
    [DT_UINT8_T] = PLAIN("MPI_UINT8_T", uint8_t, DT_CLASS_CINT, DT_K_U8, 1, DT_X_SWAP),
    [DT_UINT16_T] = PLAIN("MPI_UINT16_T", uint16_t, DT_CLASS_CINT, DT_K_U16, 2, DT_X_SWAP),
    [DT_UINT32_T] = PLAIN("MPI_UINT32_T", uint32_t, DT_CLASS_CINT, DT_K_U32, 4, DT_X_SWAP),
    [DT_UINT64_T] = PLAIN("MPI_UINT64_T", uint64_t, DT_CLASS_CINT, DT_K_U64, 8, DT_X_SWAP),
    [DT_C_FLOAT_COMPLEX] = PLAIN("MPI_C_COMPLEX", float _Complex, DT_CLASS_COMPLEX, DT_K_C32, 8, DT_X_SWAP2),
    [DT_C_DOUBLE_COMPLEX] = PLAIN("MPI_C_DOUBLE_COMPLEX", double _Complex, DT_CLASS_COMPLEX, DT_K_C64, 16, DT_X_SWAP2),
    [DT_C_LONG_DOUBLE_COMPLEX] = PLAIN("MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex, DT_CLASS_COMPLEX, DT_K_CLD, 32, DT_X_LD2),
    [DT_AINT] = PLAIN("MPI_AINT", ptrdiff_t, DT_CLASS_MULTI, DT_K_I64, 8, DT_X_SWAP),
    [DT_OFFSET] = PLAIN("MPI_OFFSET", long long, DT_CLASS_MULTI, DT_K_I64, 8, DT_X_SWAP),
    [DT_COUNT] = PLAIN("MPI_COUNT", long long, DT_CLASS_MULTI, DT_K_I64, 8, DT_X_SWAP),
    [DT_PACKED] = PLAIN("MPI_PACKED", unsigned char, DT_CLASS_OTHER, DT_K_U8, 1, DT_X_SWAP),
    [DT_FLOAT_INT] = PAIR("MPI_FLOAT_INT", p_float_int, float, int, DT_FLOAT, DT_INT, DT_K_P_FLOAT_INT),
    [DT_DOUBLE_INT] = PAIR("MPI_DOUBLE_INT", p_double_int, double, int, DT_DOUBLE, DT_INT, DT_K_P_DOUBLE_INT),
    [DT_LONG_INT] = PAIR("MPI_LONG_INT", p_long_int, long, int, DT_LONG, DT_INT, DT_K_P_LONG_INT),
    [DT_2INT] = PAIR("MPI_2INT", p_2int, int, int, DT_INT, DT_INT, DT_K_P_2INT),
    [DT_SHORT_INT] = PAIR("MPI_SHORT_INT", p_short_int, short, int, DT_SHORT, DT_INT, DT_K_P_SHORT_INT),
    [DT_LONG_DOUBLE_INT] = PAIR("MPI_LONG_DOUBLE_INT", p_ld_int, long double, int, DT_LONG_DOUBLE, DT_INT, DT_K_P_LD_INT),
    [DT_INTEGER] = PLAIN("MPI_INTEGER", int32_t, DT_CLASS_FINT, DT_K_I32, 4, DT_X_SWAP),
    [DT_REAL] = PLAIN("MPI_REAL", float, DT_CLASS_FLOAT, DT_K_F32, 4, DT_X_SWAP),
    [DT_DOUBLE_PRECISION] = PLAIN("MPI_DOUBLE_PRECISION", double, DT_CLASS_FLOAT, DT_K_F64, 8, DT_X_SWAP),
    [DT_COMPLEX] = PLAIN("MPI_COMPLEX", float _Complex, DT_CLASS_COMPLEX, DT_K_C32, 8, DT_X_SWAP2),
    [DT_DOUBLE_COMPLEX] = PLAIN("MPI_DOUBLE_COMPLEX", double _Complex, DT_CLASS_COMPLEX, DT_K_C64, 16, DT_X_SWAP2),
    [DT_LOGICAL] = PLAIN("MPI_LOGICAL", int32_t, DT_CLASS_LOGICAL, DT_K_FLOG, 4, DT_X_SWAP),
    [DT_CHARACTER] = PLAIN("MPI_CHARACTER", char, DT_CLASS_CHAR, DT_K_CHAR, 1, DT_X_SWAP),
    [DT_2INTEGER] = PAIR("MPI_2INTEGER", p_2int, int, int, DT_INTEGER, DT_INTEGER, DT_K_P_2INT),
    [DT_2REAL] = PAIR("MPI_2REAL", p_2float, float, float, DT_REAL, DT_REAL, DT_K_P_2FLOAT),
    [DT_2DOUBLE_PRECISION] = PAIR("MPI_2DOUBLE_PRECISION", p_2double, double, double, DT_DOUBLE_PRECISION, DT_DOUBLE_PRECISION, DT_K_P_2DOUBLE),
    [DT_INTEGER1] = PLAIN("MPI_INTEGER1", int8_t, DT_CLASS_FINT, DT_K_I8, 1, DT_X_SWAP),
    [DT_INTEGER2] = PLAIN("MPI_INTEGER2", int16_t, DT_CLASS_FINT, DT_K_I16, 2, DT_X_SWAP),
    [DT_INTEGER4] = PLAIN("MPI_INTEGER4", int32_t, DT_CLASS_FINT, DT_K_I32, 4, DT_X_SWAP),
    [DT_INTEGER8] = PLAIN("MPI_INTEGER8", int64_t, DT_CLASS_FINT, DT_K_I64, 8, DT_X_SWAP),
    [DT_INTEGER16] = PLAIN("MPI_INTEGER16", __int128, DT_CLASS_FINT, DT_K_I128, 16, DT_X_SWAP),
    [DT_REAL4] = PLAIN("MPI_REAL4", float, DT_CLASS_FLOAT, DT_K_F32, 4, DT_X_SWAP),
    [DT_REAL8] = PLAIN("MPI_REAL8", double, DT_CLASS_FLOAT, DT_K_F64, 8, DT_X_SWAP),
    [DT_REAL16] = PLAIN("MPI_REAL16", dt_quad_t, DT_CLASS_FLOAT, DT_K_F128, 16, DT_X_SWAP),
    [DT_COMPLEX8] = PLAIN("MPI_COMPLEX8", float _Complex, DT_CLASS_COMPLEX, DT_K_C32, 8, DT_X_SWAP2),
    [DT_COMPLEX16] = PLAIN("MPI_COMPLEX16", double _Complex, DT_CLASS_COMPLEX, DT_K_C64, 16, DT_X_SWAP2),
    [DT_COMPLEX32] = {"MPI_COMPLEX32", 2 * sizeof(dt_quad_t), 2 * sizeof(dt_quad_t), _Alignof(dt_quad_t),
                      DT_CLASS_COMPLEX, DT_K_C128, 32, DT_X_SWAP2, DT_NBUILTIN, DT_NBUILTIN, 0},
    [DT_CXX_BOOL] = PLAIN("MPI_CXX_BOOL", bool, DT_CLASS_LOGICAL, DT_K_BOOL, 1, DT_X_SWAP),
    [DT_CXX_FLOAT_COMPLEX] = PLAIN("MPI_CXX_FLOAT_COMPLEX", float _Complex, DT_CLASS_COMPLEX, DT_K_C32, 8, DT_X_SWAP2),
    [DT_CXX_DOUBLE_COMPLEX] = PLAIN("MPI_CXX_DOUBLE_COMPLEX", double _Complex, DT_CLASS_COMPLEX, DT_K_C64, 16, DT_X_SWAP2),
    [DT_CXX_LONG_DOUBLE_COMPLEX] = PLAIN("MPI_CXX_LONG_DOUBLE_COMPLEX", long double _Complex, DT_CLASS_COMPLEX, DT_K_CLD, 32, DT_X_LD2),
    [DT_C_FLOAT16] = PLAIN("MPIX_C_FLOAT16", _Float16, DT_CLASS_FLOAT, DT_K_F16, 2, DT_X_SWAP),
    [DT_LOGICAL1] = PLAIN("MPI_LOGICAL1", int8_t, DT_CLASS_LOGICAL, DT_K_FLOG1, 1, DT_X_SWAP),
    [DT_LOGICAL2] = PLAIN("MPI_LOGICAL2", int16_t, DT_CLASS_LOGICAL, DT_K_FLOG2, 2, DT_X_SWAP),
    [DT_LOGICAL4] = PLAIN("MPI_LOGICAL4", int32_t, DT_CLASS_LOGICAL, DT_K_FLOG, 4, DT_X_SWAP),
    [DT_LOGICAL8] = PLAIN("MPI_LOGICAL8", int64_t, DT_CLASS_LOGICAL, DT_K_FLOG8, 8, DT_X_SWAP),
    [DT_LOGICAL16] = PLAIN("MPI_LOGICAL16", __int128, DT_CLASS_LOGICAL, DT_K_FLOG16, 16, DT_X_SWAP),
    [DT_REAL2] = PLAIN("MPI_REAL2", _Float16, DT_CLASS_FLOAT, DT_K_F16, 2, DT_X_SWAP),
    [DT_COMPLEX4] = PLAIN("MPI_COMPLEX4", dt_cf16_t, DT_CLASS_COMPLEX, DT_K_C16, 4, DT_X_SWAP2),
    [DT_LB] = {"MPI_LB", 0, 0, 1, DT_CLASS_NONE, DT_K_NONE, 0, DT_X_NONE, DT_NBUILTIN, DT_NBUILTIN, 0},
    [DT_UB] = {"MPI_UB", 0, 0, 1, DT_CLASS_NONE, DT_K_NONE, 0, DT_X_NONE, DT_NBUILTIN, DT_NBUILTIN, 0},
};

static dt_type_t builtin_types[DT_NBUILTIN];
/* Programs: one raw block for plain types; pairs with a hole between value
 * and index (MPI_SHORT_INT) need two. */
static dt_node_t builtin_nodes[DT_NBUILTIN];
static ptrdiff_t pair_offs[DT_NBUILTIN][2];
static size_t pair_lens[DT_NBUILTIN][2];
static size_t pair_psum[DT_NBUILTIN][3];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init_one(dt_builtin_t b)
{
    const dt_binfo_t *bi = &dt_binfo[b];
    dt_type_t *t = &builtin_types[b];
    dt_node_t *n = &builtin_nodes[b];

    t->refs = 1;
    t->is_static = 1;
    t->kind = DT_KIND_BUILTIN;
    t->builtin = b;
    t->committed = 1;
    t->size = bi->size;
    t->lb = 0;
    t->ub = (ptrdiff_t)bi->extent;
    t->true_lb = 0;
    t->true_ub = (ptrdiff_t)bi->extent;
    t->align = bi->align;
    t->depth = 0;
    t->env.combiner = DT_COMBINER_NAMED;
    strncpy(t->name, bi->name, sizeof t->name - 1);

    n->kind = DT_NODE_VEC;
    n->depth = 1;
    n->size = bi->size;
    n->extent = (ptrdiff_t)bi->extent;
    if (b == DT_LB || b == DT_UB) {
        t->ub = t->true_ub = 0;
        t->basic = DT_NBUILTIN;
        n->count = 0;
        t->prog = n;
        t->contig = t->contig1 = 1;
        return;
    }
    t->basic = b;
    t->nelems = bi->cls == DT_CLASS_PAIR ? 2 : 1;
    t->x32_size = bi->cls == DT_CLASS_PAIR
                      ? dt_binfo[bi->pair_value].x32_size + dt_binfo[bi->pair_index].x32_size
                      : bi->x32_size;
    t->dense = 1;
    t->nblocks = 1;
    if (bi->cls == DT_CLASS_PAIR) {
        size_t vsize = dt_binfo[bi->pair_value].size;
        size_t isize = dt_binfo[bi->pair_index].size;
        t->true_ub = (ptrdiff_t)(bi->pair_ioff + isize);
        if (bi->pair_ioff != vsize) {
            pair_offs[b][0] = 0;
            pair_offs[b][1] = (ptrdiff_t)bi->pair_ioff;
            pair_lens[b][0] = vsize;
            pair_lens[b][1] = isize;
            pair_psum[b][0] = 0;
            pair_psum[b][1] = vsize;
            pair_psum[b][2] = vsize + isize;
            n->kind = DT_NODE_IDX;
            n->count = 2;
            n->offs = pair_offs[b];
            n->blens = pair_lens[b];
            n->psum = pair_psum[b];
            t->prog = n;
            t->nblocks = 2;
            return;
        }
    }
    n->count = 1;
    n->blen = bi->size;
    t->prog = n;
    t->contig1 = 1;
    t->contig = bi->size == bi->extent;
}

static void builtins_init_once(void)
{
    for (int b = 0; b < DT_NBUILTIN; b++) {
        builtin_init_one((dt_builtin_t)b);
        dt_head_fill(&builtin_types[b]);
    }
}

void dt_builtins_init(void) { pthread_once(&builtin_once, builtins_init_once); }

dt_type_t *dt_builtin(dt_builtin_t b)
{
    if ((unsigned)b >= DT_NBUILTIN)
        return NULL;
    dt_builtins_init();
    return &builtin_types[b];
}

const char *dt_builtin_name(dt_builtin_t b)
{
    if ((unsigned)b >= DT_NBUILTIN)
        return "MPI_DATATYPE_NULL";
    return dt_binfo[b].name;
}

dt_builtin_t dt_builtin_of(const dt_type_t *t) { return t->builtin; }

dt_builtin_t dt_match_size(char typeclass, size_t size)
{
    /* The sized Fortran types first, then the C types, as MPICH does. */
    static const dt_builtin_t reals[] = {DT_REAL4, DT_REAL8, DT_REAL16, DT_FLOAT, DT_DOUBLE,
                                         DT_LONG_DOUBLE};
    static const dt_builtin_t ints[] = {DT_INTEGER1, DT_INTEGER2, DT_INTEGER4, DT_INTEGER8,
                                        DT_SIGNED_CHAR, DT_SHORT, DT_INT, DT_LONG, DT_LONG_LONG};
    static const dt_builtin_t cplx[] = {DT_COMPLEX8, DT_COMPLEX16, DT_COMPLEX32,
                                        DT_C_FLOAT_COMPLEX, DT_C_DOUBLE_COMPLEX,
                                        DT_C_LONG_DOUBLE_COMPLEX};
    const dt_builtin_t *list;
    size_t n;

    switch (typeclass) {
    case 'r': list = reals; n = sizeof reals / sizeof reals[0]; break;
    case 'i': list = ints; n = sizeof ints / sizeof ints[0]; break;
    case 'c': list = cplx; n = sizeof cplx / sizeof cplx[0]; break;
    default: return DT_NBUILTIN;
    }
    for (size_t i = 0; i < n; i++)
        if (dt_binfo[list[i]].size == size)
            return list[i];
    return DT_NBUILTIN;
}

void dt_set_name(dt_type_t *t, const char *name)
{
    size_t n = strlen(name);
    if (n >= sizeof t->name)
        n = sizeof t->name - 1;
    memcpy(t->name, name, n);
    t->name[n] = '\0';
}

const char *dt_get_name(const dt_type_t *t) { return t->name; }

void **dt_user_slot(dt_type_t *t) { return &t->user; }
