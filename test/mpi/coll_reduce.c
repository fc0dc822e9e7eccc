/*
 * Reductions checked exactly: reduce (every root), allreduce,
 * reduce_scatter, reduce_scatter_block, scan and exscan, with every
 * predefined operation on integers, sums of doubles that are exact,
 * MINLOC/MAXLOC pairs, counts from zero to large (so that the segmented
 * algorithms run), MPI_IN_PLACE, and a non-commutative user operation
 * (2x2 matrix product) whose result depends on rank order. Run with any
 * number of ranks; CANAL_COLL_<NAME> forces each algorithm in turn.
 */
#include "mtest.h"

static const int counts[] = {0, 1, 5, 300, 20000};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };

/* Contribution of rank r to element i, and the expected reductions. */
static int cval(int r, int i)
{
    return (r * 7 + i * 3) % 11 + 1;
}

typedef struct {
    MPI_Op op;
    const char *name;
} op_t;

static const op_t int_ops[] = {
    {MPI_SUM, "SUM"}, {MPI_PROD, "PROD"}, {MPI_MAX, "MAX"},   {MPI_MIN, "MIN"}, {MPI_LAND, "LAND"},
    {MPI_LOR, "LOR"}, {MPI_LXOR, "LXOR"}, {MPI_BAND, "BAND"}, {MPI_BOR, "BOR"}, {MPI_BXOR, "BXOR"},
};

/* Contribution for an op: PROD uses 1s and 2s so that it does not overflow;
 * logical ops see zeros. */
static int contrib(MPI_Op op, int r, int i)
{
    if (op == MPI_PROD)
        return (r + i) % 3 == 0 ? 2 : 1;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (r + i) % 3 == 0 ? 0 : (r + i) % 5;
    return cval(r, i);
}

static int apply(MPI_Op op, int a, int b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    if (op == MPI_LAND)
        return a && b;
    if (op == MPI_LOR)
        return a || b;
    if (op == MPI_LXOR)
        return !a != !b;
    if (op == MPI_BAND)
        return a & b;
    if (op == MPI_BOR)
        return a | b;
    return a ^ b;
}

/* Reduction of ranks [lo, hi) for element i. */
static int expect(MPI_Op op, int lo, int hi, int i)
{
    int acc = contrib(op, lo, i);
    for (int r = lo + 1; r < hi; r++)
        acc = apply(op, acc, contrib(op, r, i));
    return acc;
}

static void test_reduce_allreduce(void)
{
    int maxn = counts[NCOUNTS - 1];
    int *s = malloc(sizeof(int) * (size_t)maxn), *r = malloc(sizeof(int) * (size_t)maxn);
    for (size_t oi = 0; oi < sizeof int_ops / sizeof int_ops[0]; oi++) {
        MPI_Op op = int_ops[oi].op;
        for (int ci = 0; ci < NCOUNTS; ci++) {
            int n = counts[ci];
            /* the big count only with a few ops, to keep the test short */
            if (n > 1000 && op != MPI_SUM && op != MPI_MAX && op != MPI_BXOR)
                continue;
            for (int inplace = 0; inplace < 2; inplace++) {
                for (int root = 0; root < mtest_size; root++) {
                    if (n > 1000 && root > 1)
                        break;
                    for (int i = 0; i < n; i++) {
                        s[i] = contrib(op, mtest_rank, i);
                        r[i] = inplace && mtest_rank == root ? s[i] : -1;
                    }
                    if (inplace && mtest_rank == root)
                        OK(MPI_Reduce(MPI_IN_PLACE, r, n, MPI_INT, op, root, MPI_COMM_WORLD));
                    else
                        OK(MPI_Reduce(s, r, n, MPI_INT, op, root, MPI_COMM_WORLD));
                    if (mtest_rank == root)
                        for (int i = 0; i < n; i++)
                            CHECK(r[i] == expect(op, 0, mtest_size, i),
                                  "reduce %s n=%d root=%d inplace=%d [%d]=%d want %d",
                                  int_ops[oi].name, n, root, inplace, i, r[i],
                                  expect(op, 0, mtest_size, i));
                }
                for (int i = 0; i < n; i++) {
                    s[i] = contrib(op, mtest_rank, i);
                    r[i] = inplace ? s[i] : -1;
                }
                OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, op, MPI_COMM_WORLD));
                for (int i = 0; i < n; i++)
                    CHECK(r[i] == expect(op, 0, mtest_size, i),
                          "allreduce %s n=%d inplace=%d [%d]=%d want %d", int_ops[oi].name, n,
                          inplace, i, r[i], expect(op, 0, mtest_size, i));
            }
        }
    }
    free(s);
    free(r);
}

/* Doubles whose sums are exact; unsigned char and long long. */
static void test_other_types(void)
{
    enum { N = 3000 };
    double *d = malloc(sizeof(double) * N), *dr = malloc(sizeof(double) * N);
    long long ll[N], llr[N];
    unsigned char uc[N], ucr[N];
    for (int i = 0; i < N; i++) {
        d[i] = (double)cval(mtest_rank, i) * 0.25;
        ll[i] = (long long)cval(mtest_rank, i) << 33;
        uc[i] = (unsigned char)(1u << (unsigned)((mtest_rank + i) % 8));
    }
    OK(MPI_Allreduce(d, dr, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allreduce(ll, llr, N, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allreduce(uc, ucr, N, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        double wd = 0;
        long long wl = 0;
        unsigned wu = 0;
        for (int r = 0; r < mtest_size; r++) {
            wd += (double)cval(r, i) * 0.25;
            wl += (long long)cval(r, i) << 33;
            wu |= 1u << (unsigned)((r + i) % 8);
        }
        CHECK(dr[i] == wd, "double sum [%d]=%g want %g", i, dr[i], wd);
        CHECK(llr[i] == wl, "long long sum [%d]", i);
        CHECK(ucr[i] == wu, "uchar bor [%d]=%u want %u", i, ucr[i], wu);
    }
    OK(MPI_Allreduce(d, dr, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        double wd = 0;
        for (int r = 0; r < mtest_size; r++)
            if ((double)cval(r, i) * 0.25 > wd)
                wd = (double)cval(r, i) * 0.25;
        CHECK(dr[i] == wd, "double max [%d]", i);
    }
    free(d);
    free(dr);
    /* MINLOC / MAXLOC: ties go to the lowest index */
    {
        struct {
            int v, idx;
        } p[7], q[7];
        struct {
            double v;
            int idx;
        } dp[7], dq[7];
        for (int i = 0; i < 7; i++) {
            p[i].v = (mtest_rank + i) % 3;
            p[i].idx = mtest_rank;
            dp[i].v = (double)((mtest_rank * 5 + i) % 4);
            dp[i].idx = mtest_rank;
        }
        OK(MPI_Allreduce(p, q, 7, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
        OK(MPI_Allreduce(dp, dq, 7, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
        for (int i = 0; i < 7; i++) {
            int bv = 1 << 30, bi = -1;
            double dv = -1;
            int di = -1;
            for (int r = 0; r < mtest_size; r++) {
                if ((r + i) % 3 < bv) {
                    bv = (r + i) % 3;
                    bi = r;
                }
                if ((double)((r * 5 + i) % 4) > dv) {
                    dv = (double)((r * 5 + i) % 4);
                    di = r;
                }
            }
            CHECK(q[i].v == bv && q[i].idx == bi, "minloc [%d]=(%d,%d) want (%d,%d)", i, q[i].v,
                  q[i].idx, bv, bi);
            CHECK(dq[i].v == dv && dq[i].idx == di, "maxloc [%d]", i);
        }
    }
}

static void test_reduce_scatter(void)
{
    for (int big = 0; big < 2; big++) {
        int per = big ? 3000 : 3;
        int *rc = malloc(sizeof(int) * (size_t)mtest_size), total = 0, off = 0;
        int *s, *r;
        for (int p = 0; p < mtest_size; p++) {
            rc[p] = (p % 3 == 1) ? 0 : per + p; /* some ranks get nothing */
            total += rc[p];
        }
        for (int p = 0; p < mtest_rank; p++)
            off += rc[p];
        s = malloc(sizeof(int) * (size_t)(total + 1));
        r = malloc(sizeof(int) * (size_t)(total + 1));
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < total; i++)
                s[i] = cval(mtest_rank, i);
            if (inplace) {
                memcpy(r, s, sizeof(int) * (size_t)total);
                OK(MPI_Reduce_scatter(MPI_IN_PLACE, r, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            } else {
                OK(MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            }
            for (int i = 0; i < rc[mtest_rank]; i++)
                CHECK(r[i] == expect(MPI_SUM, 0, mtest_size, off + i),
                      "reduce_scatter per=%d inplace=%d [%d]=%d", per, inplace, i, r[i]);
        }
        /* block variant */
        {
            int *bs = malloc(sizeof(int) * (size_t)per * (size_t)mtest_size);
            int *br = malloc(sizeof(int) * (size_t)per * (size_t)mtest_size);
            for (int inplace = 0; inplace < 2; inplace++) {
                for (int i = 0; i < per * mtest_size; i++)
                    bs[i] = cval(mtest_rank, i);
                if (inplace) {
                    memcpy(br, bs, sizeof(int) * (size_t)per * (size_t)mtest_size);
                    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, br, per, MPI_INT, MPI_MAX,
                                                MPI_COMM_WORLD));
                } else {
                    OK(MPI_Reduce_scatter_block(bs, br, per, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
                }
                for (int i = 0; i < per; i++)
                    CHECK(br[i] == expect(MPI_MAX, 0, mtest_size, mtest_rank * per + i),
                          "reduce_scatter_block per=%d inplace=%d [%d]=%d", per, inplace, i, br[i]);
            }
            free(bs);
            free(br);
        }
        free(rc);
        free(s);
        free(r);
    }
}

static void test_scan(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci] / (ci == NCOUNTS - 1 ? 4 : 1);
        int *s = malloc(sizeof(int) * (size_t)(n + 1)), *r = malloc(sizeof(int) * (size_t)(n + 1));
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++) {
                s[i] = cval(mtest_rank, i);
                r[i] = inplace ? s[i] : -1;
            }
            OK(MPI_Scan(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(r[i] == expect(MPI_SUM, 0, mtest_rank + 1, i), "scan n=%d inplace=%d [%d]=%d", n,
                      inplace, i, r[i]);
            for (int i = 0; i < n; i++) {
                s[i] = cval(mtest_rank, i);
                r[i] = inplace ? s[i] : -1;
            }
            OK(MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
            if (mtest_rank > 0)
                for (int i = 0; i < n; i++)
                    CHECK(r[i] == expect(MPI_MAX, 0, mtest_rank, i), "exscan n=%d inplace=%d [%d]=%d", n,
                          inplace, i, r[i]);
        }
        free(s);
        free(r);
    }
}

/* ---------------------------------------------------------------- non-commutative */
/* 2x2 matrices of ints mod 1009, stored as 4 consecutive MPI_INTs;
 * inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k + 3 < *len; k += 4) {
        int c0 = (a[k] * b[k] + a[k + 1] * b[k + 2]) % 1009;
        int c1 = (a[k] * b[k + 1] + a[k + 1] * b[k + 3]) % 1009;
        int c2 = (a[k + 2] * b[k] + a[k + 3] * b[k + 2]) % 1009;
        int c3 = (a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3]) % 1009;
        b[k] = c0, b[k + 1] = c1, b[k + 2] = c2, b[k + 3] = c3;
    }
    (void)dt;
}

static void mat_of(int r, int m, int *out) /* a non-commuting family */
{
    out[0] = 1 + r;
    out[1] = 2 + m % 5;
    out[2] = r % 3;
    out[3] = 1 + (r * m) % 7;
}

static void mat_expect(int lo, int hi, int m, int *out)
{
    int acc[4], x[4];
    mat_of(lo, m, acc);
    for (int r = lo + 1; r < hi; r++) {
        int len = 4;
        mat_of(r, m, x);
        /* acc = acc * x: matmul computes inout = in * inout */
        matmul(acc, x, &len, NULL);
        memcpy(acc, x, sizeof acc);
    }
    memcpy(out, acc, sizeof acc);
}

static void test_noncommutative(void)
{
    MPI_Op op;
    enum { M = 6 };
    int s[4 * M], r[4 * M], want[4];
    if (mtest_unsupported(MPI_Op_create(matmul, 0, &op))) {
        mtest_skipped("user-defined operations (MPI_Op_create)");
        return;
    }
    for (int m = 0; m < M; m++)
        mat_of(mtest_rank, m, s + 4 * m);
    for (int root = 0; root < mtest_size; root++) {
        OK(MPI_Reduce(s, r, 4 * M, MPI_INT, op, root, MPI_COMM_WORLD));
        if (mtest_rank == root)
            for (int m = 0; m < M; m++) {
                mat_expect(0, mtest_size, m, want);
                CHECK(memcmp(r + 4 * m, want, sizeof want) == 0, "noncommutative reduce root=%d",
                      root);
            }
    }
    OK(MPI_Allreduce(s, r, 4 * M, MPI_INT, op, MPI_COMM_WORLD));
    for (int m = 0; m < M; m++) {
        mat_expect(0, mtest_size, m, want);
        CHECK(memcmp(r + 4 * m, want, sizeof want) == 0, "noncommutative allreduce m=%d", m);
    }
    /* reduce_scatter(_block): every rank's block is the same M matrices */
    {
        int *sv = malloc(sizeof(int) * 4 * M * (size_t)mtest_size);
        int *rc = malloc(sizeof(int) * (size_t)mtest_size);
        for (int p = 0; p < mtest_size; p++) {
            memcpy(sv + (size_t)p * 4 * M, s, sizeof s);
            rc[p] = 4 * M;
        }
        for (int block = 0; block < 2; block++) {
            memset(r, 0, sizeof r);
            if (block)
                OK(MPI_Reduce_scatter_block(sv, r, 4 * M, MPI_INT, op, MPI_COMM_WORLD));
            else
                OK(MPI_Reduce_scatter(sv, r, rc, MPI_INT, op, MPI_COMM_WORLD));
            for (int m = 0; m < M; m++) {
                mat_expect(0, mtest_size, m, want);
                CHECK(memcmp(r + 4 * m, want, sizeof want) == 0,
                      "noncommutative reduce_scatter%s m=%d", block ? "_block" : "", m);
            }
        }
        free(sv);
        free(rc);
    }
    OK(MPI_Scan(s, r, 4 * M, MPI_INT, op, MPI_COMM_WORLD));
    for (int m = 0; m < M; m++) {
        mat_expect(0, mtest_rank + 1, m, want);
        CHECK(memcmp(r + 4 * m, want, sizeof want) == 0, "noncommutative scan m=%d", m);
    }
    OK(MPI_Exscan(s, r, 4 * M, MPI_INT, op, MPI_COMM_WORLD));
    if (mtest_rank > 0)
        for (int m = 0; m < M; m++) {
            mat_expect(0, mtest_rank, m, want);
            CHECK(memcmp(r + 4 * m, want, sizeof want) == 0, "noncommutative exscan m=%d", m);
        }
    {
        /* reduce_scatter_block: each rank gets one matrix of the product */
        int *bs = malloc(sizeof(int) * 4 * (size_t)mtest_size), br[4];
        for (int p = 0; p < mtest_size; p++)
            mat_of(mtest_rank, p, bs + 4 * p);
        OK(MPI_Reduce_scatter_block(bs, br, 4, MPI_INT, op, MPI_COMM_WORLD));
        mat_expect(0, mtest_size, mtest_rank, want);
        CHECK(memcmp(br, want, sizeof want) == 0, "noncommutative reduce_scatter_block");
        free(bs);
    }
    MPI_Op_free(&op);
}

/* Reductions over a strided datatype (3 ints out of every 5): the
 * segmented algorithms split the vector in elements of the type; the holes
 * of the receive buffer stay untouched. */
static void test_derived(void)
{
    MPI_Datatype vec;
    int counts_d[] = {1, 700};
    if (mtest_unsupported(MPI_Type_vector(3, 1, 2, MPI_INT, &vec))) {
        mtest_skipped("reductions over derived datatypes (MPI_Type_vector)");
        return;
    }
    OK(MPI_Type_commit(&vec));
    for (int ci = 0; ci < 2; ci++) {
        int n = counts_d[ci], len = 5 * n;
        int *s = malloc(sizeof(int) * (size_t)len), *r = malloc(sizeof(int) * (size_t)len);
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < len; i++) {
                int data = i % 5 % 2 == 0;
                s[i] = data ? cval(mtest_rank, i) : -7;
                r[i] = inplace ? s[i] : -1;
            }
            OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, n, vec, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < len; i++) {
                int data = i % 5 % 2 == 0;
                int want = data ? expect(MPI_SUM, 0, mtest_size, i) : (inplace ? -7 : -1);
                CHECK(r[i] == want, "allreduce vector n=%d inplace=%d [%d]=%d want %d", n, inplace,
                      i, r[i], want);
            }
            for (int i = 0; i < len; i++)
                r[i] = -1;
            OK(MPI_Reduce(s, r, n, vec, MPI_MAX, mtest_size - 1, MPI_COMM_WORLD));
            if (mtest_rank == mtest_size - 1)
                for (int i = 0; i < len; i++) {
                    int data = i % 5 % 2 == 0;
                    CHECK(r[i] == (data ? expect(MPI_MAX, 0, mtest_size, i) : -1),
                          "reduce vector n=%d [%d]=%d", n, i, r[i]);
                }
        }
        free(s);
        free(r);
    }
    OK(MPI_Type_free(&vec));
}

/* Vectors past the oversubscribed table's linear row (512 KiB): the reduce
 * trees at their largest (the root and inner ranks receive a child's part
 * straight into the accumulator), with an odd count, MPI_IN_PLACE, both
 * ends as root and a non-commutative operation. */
static void test_big(void)
{
    enum { N = 200003, M = 50001 };
    int *s = malloc(sizeof(int) * 4 * M), *r = malloc(sizeof(int) * 4 * M);
    int roots[2] = {0, mtest_size - 1}, want[4], bad;
    MPI_Op op;

    for (int ri = 0; ri < 2; ri++) {
        int root = roots[ri];
        for (int inplace = 0; inplace < 2; inplace++) {
            int ip = inplace && mtest_rank == root;
            for (int i = 0; i < N; i++) {
                s[i] = contrib(MPI_SUM, mtest_rank, i);
                r[i] = ip ? s[i] : -1;
            }
            OK(MPI_Reduce(ip ? MPI_IN_PLACE : s, r, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            if (mtest_rank != root)
                continue;
            bad = -1;
            for (int i = 0; i < N && bad < 0; i++)
                if (r[i] != expect(MPI_SUM, 0, mtest_size, i))
                    bad = i;
            CHECK(bad < 0, "big reduce root=%d inplace=%d: [%d]=%d want %d", root, inplace, bad,
                  bad < 0 ? 0 : r[bad], bad < 0 ? 0 : expect(MPI_SUM, 0, mtest_size, bad));
        }
    }
    if (mtest_unsupported(MPI_Op_create(matmul, 0, &op))) {
        mtest_skipped("user-defined operations (MPI_Op_create)");
    } else {
        for (int m = 0; m < M; m++)
            mat_of(mtest_rank, m, s + 4 * m);
        for (int ri = 0; ri < 2; ri++) {
            OK(MPI_Reduce(s, r, 4 * M, MPI_INT, op, roots[ri], MPI_COMM_WORLD));
            if (mtest_rank != roots[ri])
                continue;
            bad = -1;
            for (int m = 0; m < M && bad < 0; m++) {
                mat_expect(0, mtest_size, m, want);
                if (memcmp(r + 4 * m, want, sizeof want) != 0)
                    bad = m;
            }
            CHECK(bad < 0, "big noncommutative reduce root=%d: matrix %d wrong", roots[ri], bad);
        }
        OK(MPI_Op_free(&op));
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    test_derived();
    test_reduce_allreduce();
    test_other_types();
    test_reduce_scatter();
    test_scan();
    test_noncommutative();
    test_big();
    return mtest_finish();
}
