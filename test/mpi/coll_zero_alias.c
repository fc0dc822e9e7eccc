/*
 * Collectives whose send and receive buffers are the same pointer but share
 * no byte that moves are correct programs and must succeed (issue 18):
 * mpi4py passes one static pointer for every empty buffer, so a zero-count
 * Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw (and their
 * nonblocking, persistent and large-count forms, and the other collectives)
 * arrives with sendbuf == recvbuf (the neighbourhood collectives too).
 * Also: one allocation whose send blocks and
 * receive blocks lie side by side, and counts that are zero on some ranks
 * only. Every collective is then checked to still work.
 */
#include "mtest.h"

static char empty[1]; /* the one pointer of every empty buffer */

/* Blocking, nonblocking and persistent zero-count forms of the vector
 * collectives, with one pointer for both buffers and zero counts. */
static void zero_vector(void)
{
    int *zc = calloc((size_t)mtest_size, sizeof(int)), *zd = calloc((size_t)mtest_size, sizeof(int));
    MPI_Count *zcc = calloc((size_t)mtest_size, sizeof(MPI_Count));
    MPI_Aint *zdc = calloc((size_t)mtest_size, sizeof(MPI_Aint));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)mtest_size);
    MPI_Request rq[8];
    void *p = empty;

    for (int i = 0; i < mtest_size; i++)
        types[i] = MPI_INT;
    for (int root = 0; root < mtest_size; root++) {
        OK(MPI_Gatherv(p, 0, MPI_INT, p, zc, zd, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Scatterv(p, zc, zd, MPI_INT, p, 0, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Gather(p, 0, MPI_INT, p, 0, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Scatter(p, 0, MPI_INT, p, 0, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Reduce(p, p, 0, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        OK(MPI_Gatherv_c(p, 0, MPI_INT, p, zcc, zdc, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Scatterv_c(p, zcc, zdc, MPI_INT, p, 0, MPI_INT, root, MPI_COMM_WORLD));
    }
    OK(MPI_Allgatherv(p, 0, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoallv(p, zc, zd, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoallw(p, zc, zd, types, p, zc, zd, types, MPI_COMM_WORLD));
    OK(MPI_Allgather(p, 0, MPI_INT, p, 0, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoall(p, 0, MPI_INT, p, 0, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Allreduce(p, p, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter(p, p, zc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter_block(p, p, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Scan(p, p, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Exscan(p, p, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allgatherv_c(p, 0, MPI_INT, p, zcc, zdc, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoallv_c(p, zcc, zdc, MPI_INT, p, zcc, zdc, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoallw_c(p, zcc, zdc, types, p, zcc, zdc, types, MPI_COMM_WORLD));

    /* nonblocking */
    for (int i = 0; i < 8; i++)
        rq[i] = MPI_REQUEST_NULL;
    OK(MPI_Igatherv(p, 0, MPI_INT, p, zc, zd, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Iscatterv(p, zc, zd, MPI_INT, p, 0, MPI_INT, mtest_size - 1, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Iallgatherv(p, 0, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD, &rq[2]));
    OK(MPI_Ialltoallv(p, zc, zd, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD, &rq[3]));
    OK(MPI_Ialltoallw(p, zc, zd, types, p, zc, zd, types, MPI_COMM_WORLD, &rq[4]));
    OK(MPI_Igatherv_c(p, 0, MPI_INT, p, zcc, zdc, MPI_INT, 0, MPI_COMM_WORLD, &rq[5]));
    OK(MPI_Iallreduce(p, p, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[6]));
    OK(MPI_Ialltoallv_c(p, zcc, zdc, MPI_INT, p, zcc, zdc, MPI_INT, MPI_COMM_WORLD, &rq[7]));
    OK(MPI_Waitall(8, rq, MPI_STATUSES_IGNORE));

    /* persistent, started twice */
    for (int i = 0; i < 8; i++)
        rq[i] = MPI_REQUEST_NULL;
    OK(MPI_Gatherv_init(p, 0, MPI_INT, p, zc, zd, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &rq[0]));
    OK(MPI_Scatterv_init(p, zc, zd, MPI_INT, p, 0, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &rq[1]));
    OK(MPI_Allgatherv_init(p, 0, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rq[2]));
    OK(MPI_Alltoallv_init(p, zc, zd, MPI_INT, p, zc, zd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &rq[3]));
    OK(MPI_Alltoallw_init(p, zc, zd, types, p, zc, zd, types, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &rq[4]));
    OK(MPI_Allgatherv_init_c(p, 0, MPI_INT, p, zcc, zdc, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rq[5]));
    for (int round = 0; round < 2; round++) {
        int n = 0;
        for (int i = 0; i < 6; i++)
            n += rq[i] != MPI_REQUEST_NULL;
        if (n == 6) {
            OK(MPI_Startall(6, rq));
            OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
        }
    }
    for (int i = 0; i < 6; i++)
        if (rq[i] != MPI_REQUEST_NULL)
            OK(MPI_Request_free(&rq[i]));
    free(zc);
    free(zd);
    free(zcc);
    free(zdc);
    free(types);
}

/* Counts zero on some ranks only; where data moves, the buffers differ. */
static void zero_on_some(void)
{
    int *rc = calloc((size_t)mtest_size, sizeof(int)), *dp = calloc((size_t)mtest_size, sizeof(int));
    int *all = malloc(sizeof(int) * (size_t)mtest_size), mine = 100 + mtest_rank;
    int root = mtest_size - 1;
    /* ranks with an odd rank send one int; the root receives them; every
     * other rank (the root included, if even) passes its one pointer */
    for (int i = 0, at = 0; i < mtest_size; i++) {
        rc[i] = i % 2;
        dp[i] = at;
        at += rc[i];
    }
    for (int i = 0; i < mtest_size; i++)
        all[i] = -1;
    if (mtest_rank % 2)
        OK(MPI_Gatherv(&mine, 1, MPI_INT, all, rc, dp, MPI_INT, root, MPI_COMM_WORLD));
    else if (mtest_rank == root)
        OK(MPI_Gatherv(all, 0, MPI_INT, all, rc, dp, MPI_INT, root, MPI_COMM_WORLD));
    else
        OK(MPI_Gatherv(empty, 0, MPI_INT, empty, rc, dp, MPI_INT, root, MPI_COMM_WORLD));
    if (mtest_rank == root)
        for (int i = 1, k = 0; i < mtest_size; i += 2, k++)
            CHECK(all[k] == 100 + i, "gatherv zero on some: [%d] = %d, want %d", k, all[k],
                  100 + i);
    /* allgatherv: every rank passes sendbuf == recvbuf; the odd ones send an
     * int that lands elsewhere in the same array */
    {
        int *buf = malloc(sizeof(int) * (size_t)(2 * mtest_size + 1));
        for (int i = 0; i < 2 * mtest_size + 1; i++)
            buf[i] = -1;
        buf[2 * mtest_size] = 200 + mtest_rank;
        /* receive blocks start at buf[0]; the send block is the array's last int */
        OK(MPI_Allgatherv(&buf[2 * mtest_size], rc[mtest_rank], MPI_INT, buf, rc, dp, MPI_INT,
                          MPI_COMM_WORLD));
        for (int i = 1, k = 0; i < mtest_size; i += 2, k++)
            CHECK(buf[k] == 200 + i, "allgatherv zero on some: [%d] = %d", k, buf[k]);
        free(buf);
    }
    free(rc);
    free(dp);
    free(all);
}

/* One allocation, sendbuf == recvbuf, send blocks in its first half and
 * receive blocks in its second half: no byte is both sent and received. */
static void side_by_side(void)
{
    int n = mtest_size;
    int *buf = malloc(sizeof(int) * (size_t)(2 * n));
    int *cnt = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rd = malloc(sizeof(int) * (size_t)n), *bd = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Request rq;
    for (int i = 0; i < n; i++) {
        cnt[i] = 1;
        sd[i] = i;
        rd[i] = n + i;
        bd[i] = (int)sizeof(int) * (n + i);
        types[i] = MPI_INT;
    }
    for (int i = 0; i < n; i++) {
        buf[i] = 1000 * mtest_rank + i;
        buf[n + i] = -1;
    }
    OK(MPI_Alltoallv(buf, cnt, sd, MPI_INT, buf, cnt, rd, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(buf[n + i] == 1000 * i + mtest_rank, "alltoallv side by side: [%d] = %d", i, buf[n + i]);
    for (int i = 0; i < n; i++)
        buf[n + i] = -1;
    for (int i = 0; i < n; i++)
        sd[i] = (int)sizeof(int) * i;
    OK(MPI_Ialltoallw(buf, cnt, sd, types, buf, cnt, bd, types, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(buf[n + i] == 1000 * i + mtest_rank, "ialltoallw side by side: [%d] = %d", i, buf[n + i]);
    /* gather to the second half at the root, from the first int */
    for (int i = 0; i < n; i++)
        buf[n + i] = -1;
    OK(MPI_Gather(buf, 1, MPI_INT, mtest_rank == 0 ? buf + n : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (mtest_rank == 0)
        for (int i = 0; i < n; i++)
            CHECK(buf[n + i] == 1000 * i, "gather side by side: [%d] = %d", i, buf[n + i]);
    /* allreduce from the first half into the second */
    OK(MPI_Allreduce(buf, buf + n, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(buf[n + i] == 1000 * (n - 1) + i, "allreduce side by side: [%d] = %d", i,
              buf[n + i]);
    free(buf);
    free(cnt);
    free(sd);
    free(rd);
    free(bd);
    free(types);
}

/* Neighbourhood collectives on a ring, zero counts, one pointer. */
static void zero_neighbor(void)
{
    MPI_Comm ring;
    int dims[1] = {mtest_size}, periods[1] = {1}, zc[2] = {0, 0}, zd[2] = {0, 0};
    MPI_Aint zad[2] = {0, 0};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request rq;
    void *p = empty;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    OK(MPI_Neighbor_allgather(p, 0, MPI_INT, p, 0, MPI_INT, ring));
    OK(MPI_Neighbor_allgatherv(p, 0, MPI_INT, p, zc, zd, MPI_INT, ring));
    OK(MPI_Neighbor_alltoall(p, 0, MPI_INT, p, 0, MPI_INT, ring));
    OK(MPI_Neighbor_alltoallv(p, zc, zd, MPI_INT, p, zc, zd, MPI_INT, ring));
    OK(MPI_Neighbor_alltoallw(p, zc, zad, types, p, zc, zad, types, ring));
    OK(MPI_Ineighbor_alltoallv(p, zc, zd, MPI_INT, p, zc, zd, MPI_INT, ring, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Comm_free(&ring));
}

int main(int argc, char **argv)
{
    int x, sum = 0;
    mtest_init(&argc, &argv);
    zero_vector();
    zero_on_some();
    side_by_side();
    zero_neighbor();
    /* everything still works */
    x = mtest_rank + 1;
    OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == mtest_size * (mtest_size + 1) / 2, "allreduce after: %d", sum);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
