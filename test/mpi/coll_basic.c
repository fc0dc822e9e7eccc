/*
 * Data-moving collectives on MPI_COMM_WORLD, checked exactly: barrier,
 * bcast, gather, scatter, allgather, alltoall, for every root, counts from
 * zero to beyond the eager limit, with MPI_IN_PLACE where allowed and with
 * a strided (vector) datatype whose holes must stay untouched. Run with any
 * number of ranks; CANAL_COLL_<NAME> forces each algorithm in turn
 * (test/mpi/coll_algos.sh).
 */
#include "mtest.h"

static const int counts[] = {0, 1, 7, 1000, 40000};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };

static int val(int rank, int i, int salt)
{
    return rank * 1000003 + i * 7 + salt;
}

static void test_bcast(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        int *v = malloc(sizeof(int) * (size_t)(n + 1));
        for (int root = 0; root < mtest_size; root++) {
            for (int i = 0; i < n; i++)
                v[i] = mtest_rank == root ? val(root, i, n) : -1;
            OK(MPI_Bcast(v, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(v[i] == val(root, i, n), "bcast n=%d root=%d v[%d]=%d", n, root, i, v[i]);
        }
        free(v);
    }
    /* 1.2 MB from every root: above the sizes of counts[] (where the
     * selection table changes algorithm, e.g. oversubscribed) */
    {
        int n = 300000, *v = malloc(sizeof(int) * (size_t)n);
        for (int root = 0; root < mtest_size; root++) {
            for (int i = 0; i < n; i++)
                v[i] = mtest_rank == root ? val(root, i, n) : -1;
            OK(MPI_Bcast(v, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                if (v[i] != val(root, i, n)) {
                    CHECK(0, "bcast n=%d root=%d v[%d]=%d", n, root, i, v[i]);
                    break;
                }
        }
        free(v);
    }
    /* a strided type: every other int, holes untouched */
    {
        MPI_Datatype vec;
        int n = 500, *v;
        if (mtest_unsupported(MPI_Type_vector(n, 1, 2, MPI_INT, &vec))) {
            mtest_skipped("derived datatypes (MPI_Type_vector)");
            return;
        }
        v = malloc(sizeof(int) * 2 * (size_t)n);
        OK(MPI_Type_commit(&vec));
        for (int root = 0; root < mtest_size; root++) {
            for (int i = 0; i < 2 * n; i++)
                v[i] = mtest_rank == root ? (i % 2 ? -7 : val(root, i, 3)) : -1;
            OK(MPI_Bcast(v, 1, vec, root, MPI_COMM_WORLD));
            for (int i = 0; i < 2 * n; i++) {
                int want = i % 2 ? (mtest_rank == root ? -7 : -1) : val(root, i, 3);
                CHECK(v[i] == want, "bcast vector root=%d v[%d]=%d want %d", root, i, v[i], want);
            }
        }
        OK(MPI_Type_free(&vec));
        free(v);
    }
}

static void test_gather_scatter(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci] / (ci == NCOUNTS - 1 ? 4 : 1);
        int *s = malloc(sizeof(int) * (size_t)(n + 1));
        int *r = malloc(sizeof(int) * (size_t)mtest_size * (size_t)(n + 1));
        for (int root = 0; root < mtest_size; root++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                /* gather */
                for (int i = 0; i < n; i++)
                    s[i] = val(mtest_rank, i, root);
                for (int i = 0; i < mtest_size * n; i++)
                    r[i] = -1;
                if (inplace && mtest_rank == root) {
                    for (int i = 0; i < n; i++)
                        r[root * n + i] = val(root, i, root);
                    OK(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, root,
                                  MPI_COMM_WORLD));
                } else {
                    OK(MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD));
                }
                if (mtest_rank == root)
                    for (int p = 0; p < mtest_size; p++)
                        for (int i = 0; i < n; i++)
                            CHECK(r[p * n + i] == val(p, i, root),
                                  "gather n=%d root=%d inplace=%d r[%d][%d]=%d", n, root, inplace,
                                  p, i, r[p * n + i]);
                /* scatter */
                for (int i = 0; i < mtest_size * n; i++)
                    r[i] = mtest_rank == root ? val(i / (n ? n : 1), i % (n ? n : 1), 5) : -1;
                for (int i = 0; i < n; i++)
                    s[i] = -1;
                if (inplace && mtest_rank == root) {
                    OK(MPI_Scatter(r, n, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root,
                                   MPI_COMM_WORLD));
                    for (int i = 0; i < n; i++)
                        s[i] = r[root * n + i];
                } else {
                    OK(MPI_Scatter(r, n, MPI_INT, s, n, MPI_INT, root, MPI_COMM_WORLD));
                }
                for (int i = 0; i < n; i++)
                    CHECK(s[i] == val(mtest_rank, i, 5), "scatter n=%d root=%d inplace=%d s[%d]=%d", n,
                          root, inplace, i, s[i]);
            }
        }
        free(s);
        free(r);
    }
    /* gather with a vector send type into contiguous ints */
    {
        MPI_Datatype vec;
        int n = 33, s[66], *r;
        if (mtest_unsupported(MPI_Type_vector(n, 1, 2, MPI_INT, &vec)))
            return;
        r = malloc(sizeof(int) * (size_t)mtest_size * 33);
        OK(MPI_Type_commit(&vec));
        for (int i = 0; i < 2 * n; i++)
            s[i] = i % 2 ? -9 : val(mtest_rank, i / 2, 11);
        for (int root = 0; root < mtest_size; root++) {
            OK(MPI_Gather(s, 1, vec, r, n, MPI_INT, root, MPI_COMM_WORLD));
            if (mtest_rank == root)
                for (int p = 0; p < mtest_size; p++)
                    for (int i = 0; i < n; i++)
                        CHECK(r[p * n + i] == val(p, i, 11), "gather vector root=%d [%d][%d]=%d",
                              root, p, i, r[p * n + i]);
        }
        OK(MPI_Type_free(&vec));
        free(r);
    }
}

static void test_allgather(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci] / (ci == NCOUNTS - 1 ? 8 : 1);
        int *s = malloc(sizeof(int) * (size_t)(n + 1));
        int *r = malloc(sizeof(int) * (size_t)mtest_size * (size_t)(n + 1));
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++)
                s[i] = val(mtest_rank, i, 17);
            for (int i = 0; i < mtest_size * n; i++)
                r[i] = -1;
            if (inplace) {
                for (int i = 0; i < n; i++)
                    r[mtest_rank * n + i] = s[i];
                OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT,
                                 MPI_COMM_WORLD));
            } else {
                OK(MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
            }
            for (int p = 0; p < mtest_size; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[p * n + i] == val(p, i, 17), "allgather n=%d inplace=%d r[%d][%d]=%d",
                          n, inplace, p, i, r[p * n + i]);
        }
        free(s);
        free(r);
    }
    /* send 2n ints, receive n pairs (type signatures match) */
    {
        MPI_Datatype pair;
        int n = 10, s[20], *r;
        if (mtest_unsupported(MPI_Type_contiguous(2, MPI_INT, &pair)))
            return;
        r = malloc(sizeof(int) * (size_t)mtest_size * 20);
        OK(MPI_Type_commit(&pair));
        for (int i = 0; i < 2 * n; i++)
            s[i] = val(mtest_rank, i, 23);
        OK(MPI_Allgather(s, 2 * n, MPI_INT, r, n, pair, MPI_COMM_WORLD));
        for (int p = 0; p < mtest_size; p++)
            for (int i = 0; i < 2 * n; i++)
                CHECK(r[p * 2 * n + i] == val(p, i, 23), "allgather pairs [%d][%d]", p, i);
        OK(MPI_Type_free(&pair));
        free(r);
    }
}

static void test_alltoall(void)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci] / (ci == NCOUNTS - 1 ? 16 : 1);
        int *s = malloc(sizeof(int) * (size_t)mtest_size * (size_t)(n + 1));
        int *r = malloc(sizeof(int) * (size_t)mtest_size * (size_t)(n + 1));
        for (int inplace = 0; inplace < 2; inplace++) {
            /* block for rank p: val(me * mtest_size + p, i) */
            for (int p = 0; p < mtest_size; p++)
                for (int i = 0; i < n; i++)
                    s[p * n + i] = val(mtest_rank * mtest_size + p, i, 29);
            if (inplace) {
                memcpy(r, s, sizeof(int) * (size_t)mtest_size * (size_t)n);
                OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD));
            } else {
                for (int i = 0; i < mtest_size * n; i++)
                    r[i] = -1;
                OK(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
            }
            for (int p = 0; p < mtest_size; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[p * n + i] == val(p * mtest_size + mtest_rank, i, 29),
                          "alltoall n=%d inplace=%d from %d [%d]=%d", n, inplace, p, i,
                          r[p * n + i]);
        }
        free(s);
        free(r);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(MPI_COMM_WORLD));
    test_bcast();
    test_gather_scatter();
    test_allgather();
    test_alltoall();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
