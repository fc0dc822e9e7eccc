/*
 * Reductions MPICH 4.0.2 accepts beyond the standard's table, with MPICH's
 * results (issue 27; MPICH's coll/opsum, opprod, opmin, opmax, opland,
 * oplor, oplxor, opband, opbor, opbxor, allred): MPI_CHAR (and Fortran's
 * MPI_CHARACTER) with every arithmetic, logical and bitwise operation;
 * the logical operations on MPI_AINT, MPI_OFFSET, MPI_COUNT and MPI_INTEGER;
 * MPI_LAND, MPI_LOR, MPI_LXOR on floating types (nonzero is true, the
 * result is 1 or 0). Through MPI_Allreduce, MPI_Reduce, MPI_Iallreduce and
 * MPI_Reduce_local. Also OSU osu_allreduce's call: MPI_CHAR with MPI_SUM
 * over a large buffer. MPI_WCHAR stays outside every table (MPI_ERR_OP).
 */
#include "mtest.h"

#include <limits.h>
#include <wchar.h>

enum { N = 6 };

/* What rank r contributes at element i, as an int: small values, zeros
 * included, so that sums of chars stay in range and logical ops see both
 * truth values. */
static int val(int r, int i)
{
    return (r + i) % 3 == 0 ? 0 : (r * 3 + i) % 7 + 1;
}

typedef struct {
    MPI_Op op;
    const char *name;
} op_t;

static const op_t ops[] = {
    {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"},   {MPI_MAX, "MPI_MAX"},
    {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},   {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},
    {MPI_BOR, "MPI_BOR"},   {MPI_BXOR, "MPI_BXOR"},
};

/* The expected result at element i of the contributions of ranks 0..n-1,
 * computed in long long and then stored in the type (arithmetic wraps as
 * the C type does). */
static long long expect_n(MPI_Op op, int i, int n)
{
    long long acc = val(0, i);
    for (int r = 1; r < n; r++) {
        long long v = val(r, i);
        if (op == MPI_SUM)
            acc += v;
        else if (op == MPI_PROD)
            acc *= v;
        else if (op == MPI_MIN)
            acc = v < acc ? v : acc;
        else if (op == MPI_MAX)
            acc = v > acc ? v : acc;
        else if (op == MPI_LAND)
            acc = acc && v;
        else if (op == MPI_LOR)
            acc = acc || v;
        else if (op == MPI_LXOR)
            acc = !acc != !v;
        else if (op == MPI_BAND)
            acc &= v;
        else if (op == MPI_BOR)
            acc |= v;
        else if (op == MPI_BXOR)
            acc ^= v;
    }
    /* (one contribution is the result as it is: no operation was applied) */
    if ((op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) && n > 1)
        acc = acc != 0;
    return acc;
}

static long long expect(MPI_Op op, int i)
{
    return expect_n(op, i, mtest_size);
}

static int is_logical(MPI_Op op)
{
    return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
}

/* One type, one op, three ways. T is the C type. */
#define CHECK_TYPE(T, dt, op)                                                                  \
    do {                                                                                       \
        T in[N], out[N], loc[N];                                                               \
        MPI_Request rq;                                                                        \
        for (int i = 0; i < N; i++)                                                            \
            in[i] = (T)val(mtest_rank, i);                                                          \
        OK(MPI_Allreduce(in, out, N, dt, (op)->op, MPI_COMM_WORLD));                           \
        for (int i = 0; i < N; i++)                                                            \
            CHECK(out[i] == (T)expect((op)->op, i), "allreduce %s on %s [%d]: %lld, want %lld", \
                  (op)->name, #dt, i, (long long)out[i], (long long)(T)expect((op)->op, i));  \
        for (int i = 0; i < N; i++)                                                            \
            out[i] = (T)99;                                                                    \
        OK(MPI_Reduce(in, out, N, dt, (op)->op, mtest_size - 1, MPI_COMM_WORLD));                   \
        if (mtest_rank == mtest_size - 1)                                                                \
            for (int i = 0; i < N; i++)                                                        \
                CHECK(out[i] == (T)expect((op)->op, i), "reduce %s on %s [%d]: %lld",          \
                      (op)->name, #dt, i, (long long)out[i]);                                  \
        OK(MPI_Iallreduce(in, out, N, dt, (op)->op, MPI_COMM_WORLD, &rq));                     \
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                                  \
        for (int i = 0; i < N; i++)                                                            \
            CHECK(out[i] == (T)expect((op)->op, i), "iallreduce %s on %s [%d]: %lld",          \
                  (op)->name, #dt, i, (long long)out[i]);                                      \
        /* reduce_local: inout = in op inout, with rank 0's and rank 1's values */            \
        for (int i = 0; i < N; i++) {                                                          \
            in[i] = (T)val(1, i);                                                              \
            loc[i] = (T)val(0, i);                                                             \
        }                                                                                      \
        OK(MPI_Reduce_local(in, loc, N, dt, (op)->op));                                        \
        for (int i = 0; i < N; i++)                                                            \
            CHECK(loc[i] == (T)expect_n((op)->op, i, 2), "reduce_local %s on %s [%d]: %lld",   \
                  (op)->name, #dt, i, (long long)loc[i]);                                      \
    } while (0)

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);

    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const op_t *op = &ops[k];
        CHECK_TYPE(char, MPI_CHAR, op);
        CHECK_TYPE(char, MPI_CHARACTER, op);
        if (is_logical(op->op)) {
            CHECK_TYPE(MPI_Aint, MPI_AINT, op);
            CHECK_TYPE(MPI_Offset, MPI_OFFSET, op);
            CHECK_TYPE(MPI_Count, MPI_COUNT, op);
            CHECK_TYPE(int, MPI_INTEGER, op);
            CHECK_TYPE(float, MPI_FLOAT, op);
            CHECK_TYPE(double, MPI_DOUBLE, op);
            CHECK_TYPE(long double, MPI_LONG_DOUBLE, op);
            CHECK_TYPE(float, MPI_REAL, op);
        }
    }

    /* OSU osu_allreduce: MPI_CHAR, MPI_SUM, a large buffer */
    {
        size_t n = 1 << 20;
        char *s = malloc(n), *r = malloc(n);
        for (size_t i = 0; i < n; i++)
            s[i] = (char)((i + (size_t)mtest_rank) % 5);
        OK(MPI_Allreduce(s, r, (int)n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
        for (size_t i = 0; i < n; i++) {
            int want = 0;
            for (int q = 0; q < mtest_size; q++)
                want += (int)((i + (size_t)q) % 5);
            if (r[i] != (char)want) {
                CHECK(0, "osu-style allreduce [%zu]: %d, want %d", i, r[i], want);
                break;
            }
        }
        free(s);
        free(r);
    }

    /* MPI_WCHAR is in neither table */
    {
        wchar_t a[2] = {1, 2}, b[2];
        int rc = MPI_Allreduce(a, b, 2, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD), cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "MPI_SUM on MPI_WCHAR: class %d, want MPI_ERR_OP", cls);
    }
    return mtest_finish();
}
