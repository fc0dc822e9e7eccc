/*
 * MPI_Accumulate with every predefined operation on every predefined type
 * it is defined for (MPI_ERR_OP otherwise), checked against MPI_Allreduce
 * of the same contributions: rank 0's window starts with rank 0's
 * contribution and every other rank accumulates its own. MPI_REPLACE must
 * leave one rank's value, MPI_NO_OP nothing changed. Values are small
 * integers so that floating-point sums are exact in any order. Both window
 * kinds (active messages and direct), and the direct one under a passive
 * lock too (the short path of one-type accumulates).
 */
#include "mtest.h"

#include <complex.h>
#include <stdint.h>

enum { N = 5 };
enum { K_INT, K_UINT, K_FLOAT, K_COMPLEX, K_BOOL, K_BYTE, K_PAIR };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int kind;
    int size;   /* bytes of the value (of the value part for pairs) */
    int extent; /* bytes per element in memory */
} tinfo_t;

#define T(d, k, sz, ext)                                                                           \
    {                                                                                              \
        d, #d, k, sz, ext                                                                          \
    }
static const tinfo_t types[] = {
    T(MPI_INT, K_INT, sizeof(int), sizeof(int)),
    T(MPI_UNSIGNED, K_UINT, sizeof(unsigned), sizeof(unsigned)),
    T(MPI_SHORT, K_INT, sizeof(short), sizeof(short)),
    T(MPI_UNSIGNED_SHORT, K_UINT, sizeof(short), sizeof(short)),
    T(MPI_LONG, K_INT, sizeof(long), sizeof(long)),
    T(MPI_UNSIGNED_LONG, K_UINT, sizeof(long), sizeof(long)),
    T(MPI_LONG_LONG, K_INT, sizeof(long long), sizeof(long long)),
    T(MPI_UNSIGNED_LONG_LONG, K_UINT, sizeof(long long), sizeof(long long)),
    T(MPI_SIGNED_CHAR, K_INT, 1, 1),
    T(MPI_UNSIGNED_CHAR, K_UINT, 1, 1),
    T(MPI_INT8_T, K_INT, 1, 1),
    T(MPI_INT16_T, K_INT, 2, 2),
    T(MPI_INT32_T, K_INT, 4, 4),
    T(MPI_INT64_T, K_INT, 8, 8),
    T(MPI_UINT8_T, K_UINT, 1, 1),
    T(MPI_UINT16_T, K_UINT, 2, 2),
    T(MPI_UINT32_T, K_UINT, 4, 4),
    T(MPI_UINT64_T, K_UINT, 8, 8),
    T(MPI_AINT, K_INT, sizeof(MPI_Aint), sizeof(MPI_Aint)),
    T(MPI_OFFSET, K_INT, sizeof(MPI_Offset), sizeof(MPI_Offset)),
    T(MPI_COUNT, K_INT, sizeof(MPI_Count), sizeof(MPI_Count)),
    T(MPI_CHAR, K_INT, 1, 1),
    T(MPI_WCHAR, K_INT, sizeof(wchar_t), sizeof(wchar_t)),
    T(MPI_FLOAT, K_FLOAT, sizeof(float), sizeof(float)),
    T(MPI_DOUBLE, K_FLOAT, sizeof(double), sizeof(double)),
    T(MPI_LONG_DOUBLE, K_FLOAT, sizeof(long double), sizeof(long double)),
    T(MPI_C_FLOAT_COMPLEX, K_COMPLEX, sizeof(float), 2 * sizeof(float)),
    T(MPI_C_DOUBLE_COMPLEX, K_COMPLEX, sizeof(double), 2 * sizeof(double)),
    T(MPI_C_BOOL, K_BOOL, 1, 1),
    T(MPI_BYTE, K_BYTE, 1, 1),
    T(MPI_FLOAT_INT, K_PAIR, sizeof(float), sizeof(struct {
          float v;
          int i;
      })),
    T(MPI_DOUBLE_INT, K_PAIR, sizeof(double), sizeof(struct {
          double v;
          int i;
      })),
    T(MPI_LONG_INT, K_PAIR, sizeof(long), sizeof(struct {
          long v;
          int i;
      })),
    T(MPI_2INT, K_PAIR, sizeof(int), sizeof(struct {
          int v;
          int i;
      })),
    T(MPI_SHORT_INT, K_PAIR, sizeof(short), sizeof(struct {
          short v;
          int i;
      })),
    T(MPI_LONG_DOUBLE_INT, K_PAIR, sizeof(long double), sizeof(struct {
          long double v;
          int i;
      })),
};

static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                             MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                             MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
static const char *const op_names[] = {"MAX",    "MIN",    "SUM",     "PROD", "LAND",
                                       "BAND",   "LOR",    "BOR",     "LXOR", "BXOR",
                                       "MINLOC", "MAXLOC", "REPLACE", "NO_OP"};

static void put_int(void *p, int size, long long v)
{
    switch (size) {
    case 1: {
        int8_t x = (int8_t)v;
        memcpy(p, &x, 1);
        break;
    }
    case 2: {
        int16_t x = (int16_t)v;
        memcpy(p, &x, 2);
        break;
    }
    case 4: {
        int32_t x = (int32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    default: {
        int64_t x = v;
        memcpy(p, &x, 8);
        break;
    }
    }
}

static void put_float(void *p, int size, double v)
{
    if (size == sizeof(float)) {
        float x = (float)v;
        memcpy(p, &x, sizeof x);
    } else if (size == sizeof(double)) {
        memcpy(p, &v, sizeof v);
    } else {
        long double x = v;
        memcpy(p, &x, sizeof x);
    }
}

/* Offset of the index in a pair element: right after the value, aligned. */
static int pair_index_off(const tinfo_t *t)
{
    int off = t->size;
    return (off + (int)sizeof(int) - 1) / (int)sizeof(int) * (int)sizeof(int);
}

/* Contribution of rank r, element i. */
static void fill(const tinfo_t *t, char *buf, int r)
{
    memset(buf, 0, (size_t)t->extent * N);
    for (int i = 0; i < N; i++) {
        char *e = buf + (size_t)i * t->extent;
        long long v = (r + i) % 3 + 1;
        switch (t->kind) {
        case K_INT:
        case K_UINT:
            put_int(e, t->size, v);
            break;
        case K_FLOAT:
            put_float(e, t->size, (double)v);
            break;
        case K_COMPLEX:
            put_float(e, t->size, (double)v);
            put_float(e + t->size, t->size, r % 2);
            break;
        case K_BOOL:
            e[0] = (char)((r + i) % 2);
            break;
        case K_BYTE:
            e[0] = (char)(0x5a ^ (r * 7 + i));
            break;
        case K_PAIR: {
            if (t->dt == MPI_FLOAT_INT || t->dt == MPI_DOUBLE_INT || t->dt == MPI_LONG_DOUBLE_INT)
                put_float(e, t->size, (double)v);
            else
                put_int(e, t->size, v);
            int idx = r;
            memcpy(e + pair_index_off(t), &idx, sizeof idx);
            break;
        }
        }
    }
}

static int elem_equal(const tinfo_t *t, const char *a, const char *b)
{
    switch (t->kind) {
    case K_FLOAT:
        if (t->size == sizeof(long double)) {
            long double x, y;
            memcpy(&x, a, sizeof x);
            memcpy(&y, b, sizeof y);
            return x == y;
        }
        return memcmp(a, b, (size_t)t->size) == 0;
    case K_COMPLEX:
        return memcmp(a, b, (size_t)t->extent) == 0;
    case K_PAIR: {
        int ia, ib, o = pair_index_off(t);
        memcpy(&ia, a + o, sizeof ia);
        memcpy(&ib, b + o, sizeof ib);
        if (ia != ib)
            return 0;
        if (t->dt == MPI_LONG_DOUBLE_INT) {
            long double x, y;
            memcpy(&x, a, sizeof x);
            memcpy(&y, b, sizeof y);
            return x == y;
        }
        return memcmp(a, b, (size_t)t->size) == 0;
    }
    default:
        return memcmp(a, b, (size_t)t->size) == 0;
    }
}

static void run(int flavor, int rank, int size, int *tested)
{
    char *mem, contrib[64 * N], expect[64 * N], other[64 * N];
    MPI_Win win;
    /* flavor 2: MPI_Win_allocate under MPI_Win_lock_all, where accumulates
     * of one predefined type take the short path on direct windows */
    int passive = flavor == 2;

    if (flavor == 0) {
        mem = malloc(64 * N);
        MPI_Win_create(mem, 64 * N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(64 * N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const tinfo_t *t = &types[ti];
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            int err = MPI_SUCCESS, ok = 1, all_ok = 0, rerr;
            fill(t, contrib, rank);
            if (rank == 0)
                memcpy(mem, contrib, (size_t)t->extent * N);
            if (passive) {
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Win_lock_all(0, win);
            } else {
                MPI_Win_fence(0, win);
            }
            if (rank != 0)
                err = MPI_Accumulate(contrib, N, t->dt, 0, 0, N, t->dt, ops[oi], win);
            if (size == 1) /* check the op's validity all the same */
                err = MPI_Accumulate(contrib, 0, t->dt, 0, 0, 0, t->dt, ops[oi], win);
            if (passive) {
                MPI_Win_unlock_all(win);
                MPI_Barrier(MPI_COMM_WORLD);
            } else {
                MPI_Win_fence(0, win);
            }
            ok = err == MPI_SUCCESS;
            if (!ok)
                CHECK(mtest_error_class(err) == MPI_ERR_OP,
                      "%s %s: accumulate failed with class %d", t->name, op_names[oi],
                      mtest_error_class(err));
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            if (!all_ok)
                continue;
            if (ops[oi] == MPI_REPLACE || ops[oi] == MPI_NO_OP) {
                if (rank == 0) {
                    for (int i = 0; i < N; i++) {
                        const char *got = mem + (size_t)i * t->extent;
                        int match = 0;
                        int lo = ops[oi] == MPI_NO_OP || size == 1 ? 0 : 1;
                        int hi = ops[oi] == MPI_NO_OP ? 1 : size;
                        for (int r = lo; r < hi && !match; r++) {
                            fill(t, other, r);
                            match = elem_equal(t, got, other + (size_t)i * t->extent);
                        }
                        CHECK(match, "%s %s (flavor %d): element %d is nobody's value", t->name,
                              op_names[oi], flavor, i);
                    }
                }
                (*tested)++;
                continue;
            }
            rerr = MPI_Allreduce(contrib, expect, N, t->dt, ops[oi], MPI_COMM_WORLD);
            if (rerr != MPI_SUCCESS)
                continue; /* the collective disagrees about validity: not our business */
            if (rank == 0)
                for (int i = 0; i < N; i++)
                    CHECK(
                        elem_equal(t, mem + (size_t)i * t->extent, expect + (size_t)i * t->extent),
                        "%s %s (flavor %d): element %d differs from MPI_Allreduce", t->name,
                        op_names[oi], flavor, i);
            (*tested)++;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Win_free(&win);
    if (flavor == 0)
        free(mem);
}

int main(int argc, char **argv)
{
    int rank, size, tested = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(0, rank, size, &tested);
    run(1, rank, size, &tested);
    run(2, rank, size, &tested);
    CHECK(tested > 3 * 150, "only %d (type, op) pairs were valid", tested);
    return mtest_finish();
}
