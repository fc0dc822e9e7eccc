/*
 * The v and w collectives, checked exactly: gatherv, scatterv (every
 * root), allgatherv, alltoallv, alltoallw, with counts that differ per rank
 * (some zero), displacements that leave gaps and are not in rank order,
 * MPI_IN_PLACE where allowed, and the large-count (_c) forms. Gaps must
 * stay untouched. Run with any number of ranks.
 */
#include "mtest.h"

static int val(int from, int to, int i)
{
    return from * 100000 + to * 1000 + i;
}

/* How many elements rank p contributes: varied, zero for some. */
static int cnt(int p, int salt)
{
    return (p + salt) % 4 == 3 ? 0 : (p * 3 + salt) % 7 + 1;
}

/* Displacements in reverse rank order with a gap of 2 after each block. */
static int layout(int size, int salt, int *counts, int *displs)
{
    int off = 0;
    for (int p = size - 1; p >= 0; p--) {
        counts[p] = cnt(p, salt);
        displs[p] = off;
        off += counts[p] + 2;
    }
    return off;
}

static void test_gatherv_scatterv(void)
{
    int *counts = malloc(sizeof(int) * (size_t)mtest_size),
        *displs = malloc(sizeof(int) * (size_t)mtest_size);
    for (int root = 0; root < mtest_size; root++) {
        int total = layout(mtest_size, root, counts, displs), n = counts[mtest_rank];
        int *r = malloc(sizeof(int) * (size_t)total), s[16];
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < total; i++)
                r[i] = -5;
            for (int i = 0; i < n; i++)
                s[i] = val(mtest_rank, root, i);
            if (inplace && mtest_rank == root) {
                for (int i = 0; i < n; i++)
                    r[displs[root] + i] = s[i];
                OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, r, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD));
            } else {
                OK(MPI_Gatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
            }
            if (mtest_rank == root) {
                int *want = malloc(sizeof(int) * (size_t)total);
                for (int i = 0; i < total; i++)
                    want[i] = -5;
                for (int p = 0; p < mtest_size; p++)
                    for (int i = 0; i < counts[p]; i++)
                        want[displs[p] + i] = val(p, root, i);
                for (int i = 0; i < total; i++)
                    CHECK(r[i] == want[i], "gatherv root=%d inplace=%d [%d]=%d want %d", root,
                          inplace, i, r[i], want[i]);
                free(want);
            }
            /* scatterv back */
            for (int i = 0; i < total; i++)
                r[i] = -5;
            if (mtest_rank == root)
                for (int p = 0; p < mtest_size; p++)
                    for (int i = 0; i < counts[p]; i++)
                        r[displs[p] + i] = val(root, p, i);
            for (int i = 0; i < 16; i++)
                s[i] = -6;
            if (inplace && mtest_rank == root) {
                OK(MPI_Scatterv(r, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root,
                                MPI_COMM_WORLD));
                for (int i = 0; i < n; i++)
                    s[i] = r[displs[root] + i];
            } else {
                OK(MPI_Scatterv(r, counts, displs, MPI_INT, s, n, MPI_INT, root, MPI_COMM_WORLD));
            }
            for (int i = 0; i < 16; i++)
                CHECK(s[i] == (i < n ? val(root, mtest_rank, i) : -6),
                      "scatterv root=%d inplace=%d [%d]=%d", root, inplace, i, s[i]);
        }
        free(r);
    }
    free(counts);
    free(displs);
}

static void test_allgatherv(void)
{
    int *counts = malloc(sizeof(int) * (size_t)mtest_size),
        *displs = malloc(sizeof(int) * (size_t)mtest_size);
    for (int salt = 0; salt < 3; salt++) {
        int total = layout(mtest_size, salt, counts, displs), n = counts[mtest_rank];
        int *r = malloc(sizeof(int) * (size_t)total), s[16];
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < total; i++)
                r[i] = -5;
            for (int i = 0; i < n; i++)
                s[i] = val(mtest_rank, salt, i);
            if (inplace) {
                for (int i = 0; i < n; i++)
                    r[displs[mtest_rank] + i] = s[i];
                OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, r, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD));
            } else {
                OK(MPI_Allgatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD));
            }
            for (int p = 0; p < mtest_size; p++) {
                for (int i = 0; i < counts[p]; i++)
                    CHECK(r[displs[p] + i] == val(p, salt, i),
                          "allgatherv salt=%d inplace=%d "
                          "from %d [%d]",
                          salt, inplace, p, i);
                CHECK(r[displs[p] + counts[p]] == -5 && r[displs[p] + counts[p] + 1] == -5,
                      "allgatherv gap after block %d overwritten", p);
            }
        }
        /* the large-count form */
        {
            MPI_Count *cc = malloc(sizeof(MPI_Count) * (size_t)mtest_size);
            MPI_Aint *cd = malloc(sizeof(MPI_Aint) * (size_t)mtest_size);
            for (int p = 0; p < mtest_size; p++) {
                cc[p] = counts[p];
                cd[p] = displs[p];
            }
            for (int i = 0; i < total; i++)
                r[i] = -5;
            OK(MPI_Allgatherv_c(s, n, MPI_INT, r, cc, cd, MPI_INT, MPI_COMM_WORLD));
            for (int p = 0; p < mtest_size; p++)
                for (int i = 0; i < counts[p]; i++)
                    CHECK(r[displs[p] + i] == val(p, salt, i), "allgatherv_c from %d [%d]", p, i);
            free(cc);
            free(cd);
        }
        free(r);
    }
    free(counts);
    free(displs);
}

/* Alltoallv: rank a sends cnt(a + b) elements to b. */
static void test_alltoallv(void)
{
    int *sc = malloc(sizeof(int) * (size_t)mtest_size), *sd = malloc(sizeof(int) * (size_t)mtest_size);
    int *rc = malloc(sizeof(int) * (size_t)mtest_size), *rd = malloc(sizeof(int) * (size_t)mtest_size);
    int so = 0, ro = 0, *s, *r;
    for (int p = mtest_size - 1; p >= 0; p--) {
        sc[p] = cnt(mtest_rank + p, 1);
        sd[p] = so;
        so += sc[p] + 1;
        rc[p] = cnt(p + mtest_rank, 1);
        rd[p] = ro;
        ro += rc[p] + 3;
    }
    s = malloc(sizeof(int) * (size_t)(so + 1));
    r = malloc(sizeof(int) * (size_t)(ro + 1));
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < sc[p]; i++)
            s[sd[p] + i] = val(mtest_rank, p, i);
    for (int i = 0; i < ro; i++)
        r[i] = -5;
    OK(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < mtest_size; p++) {
        for (int i = 0; i < rc[p]; i++)
            CHECK(r[rd[p] + i] == val(p, mtest_rank, i), "alltoallv from %d [%d]=%d", p, i,
                  r[rd[p] + i]);
        CHECK(r[rd[p] + rc[p]] == -5, "alltoallv gap after %d", p);
    }
    /* in place: the send data is the receive layout */
    for (int i = 0; i < ro; i++)
        r[i] = -5;
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < rc[p]; i++)
            r[rd[p] + i] = val(mtest_rank, p, i + 50);
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT,
                     MPI_COMM_WORLD));
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(r[rd[p] + i] == val(p, mtest_rank, i + 50), "alltoallv in place from %d [%d]=%d", p, i,
                  r[rd[p] + i]);
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* Alltoallw: to even ranks ints, to odd ranks shorts, byte displacements. */
static void test_alltoallw(void)
{
    int n = 5;
    int *sc = malloc(sizeof(int) * (size_t)mtest_size), *sd = malloc(sizeof(int) * (size_t)mtest_size);
    int *rc = malloc(sizeof(int) * (size_t)mtest_size), *rd = malloc(sizeof(int) * (size_t)mtest_size);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)mtest_size);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)mtest_size);
    char *s = malloc((size_t)mtest_size * 64), *r = malloc((size_t)mtest_size * 64);
    for (int p = 0; p < mtest_size; p++) {
        int odd_to = p % 2, odd_me = mtest_rank % 2;
        sc[p] = (p + mtest_rank) % 3 == 2 ? 0 : n;
        sd[p] = p * 64;
        st[p] = odd_to ? MPI_SHORT : MPI_INT;
        rc[p] = sc[p];
        rd[p] = (mtest_size - 1 - p) * 64;
        rt[p] = odd_me ? MPI_SHORT : MPI_INT;
        for (int i = 0; i < n; i++) {
            if (odd_to)
                ((short *)(s + sd[p]))[i] = (short)(mtest_rank * 100 + p * 10 + i);
            else
                ((int *)(s + sd[p]))[i] = mtest_rank * 100 + p * 10 + i;
        }
    }
    memset(r, 0x55, (size_t)mtest_size * 64);
    OK(MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD));
    for (int p = 0; p < mtest_size; p++)
        for (int i = 0; i < rc[p]; i++) {
            int got = mtest_rank % 2 ? ((short *)(r + rd[p]))[i] : ((int *)(r + rd[p]))[i];
            CHECK(got == p * 100 + mtest_rank * 10 + i, "alltoallw from %d [%d]=%d", p, i, got);
        }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    test_gatherv_scatterv();
    test_allgatherv();
    test_alltoallv();
    test_alltoallw();
    return mtest_finish();
}
