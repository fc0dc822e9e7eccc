/*
 * MPI_Gatherv and MPI_Scatterv in which some ranks move nothing while the
 * others do (issue 26): a rank whose own part is empty returns at once and
 * only steps the communicator's call sequence (coll_skip_empty_part), so
 * what matters is that every later call still pairs up at every rank.
 * Ranks with an odd rank send (gatherv) or receive (scatterv) nothing, the
 * others 1..3 ints; the root changes every round, and is itself empty in
 * some rounds. Between the v calls: a bcast and an allreduce whose values
 * are checked, a nonblocking gatherv with the same empty parts, a call in
 * which every part is empty, and empty calls of the other collectives with
 * predefined types (the front's short path). Every received int is
 * checked, as are buffers that must not change. Also: an empty call's
 * argument errors are still raised (bad root, MPI_DATATYPE_NULL as the
 * significant type of a count-0 gather; a NULL counts array).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 300, MAXN = 3, SENTINEL = -7 };

static int part(int rank, int round)
{
    return rank % 2 ? 0 : 1 + (rank + round) % MAXN;
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;
    int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    int *big = calloc((size_t)size * MAXN + 1, sizeof(int));
    int mine[MAXN], got[MAXN], zc[64] = {0};

    for (int round = 0; round < ROUNDS; round++) {
        int root = round % size, total = 0, n = part(rank, round);
        for (int i = 0; i < size; i++) {
            counts[i] = part(i, round);
            displs[i] = total;
            total += counts[i];
        }
        /* gatherv: rank i's ints are 1000 * i + round + j */
        for (int j = 0; j < MAXN; j++)
            mine[j] = 1000 * rank + round + j;
        for (int i = 0; i < size * MAXN + 1; i++)
            big[i] = SENTINEL;
        OK(MPI_Gatherv(mine, n, MPI_INT, big, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
        if (rank == root) {
            for (int i = 0; i < size; i++)
                for (int j = 0; j < counts[i]; j++)
                    CHECK(big[displs[i] + j] == 1000 * i + round + j,
                          "round %d gatherv: rank %d's int %d is %d", round, i, j, big[displs[i] + j]);
            CHECK(big[total] == SENTINEL, "round %d gatherv wrote past the blocks", round);
        }
        /* scatterv: the root sends 2000 * i + round + j to rank i */
        if (rank == root)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < counts[i]; j++)
                    big[displs[i] + j] = 2000 * i + round + j;
        for (int j = 0; j < MAXN; j++)
            got[j] = SENTINEL;
        OK(MPI_Scatterv(big, counts, displs, MPI_INT, got, n, MPI_INT, root, MPI_COMM_WORLD));
        for (int j = 0; j < MAXN; j++)
            CHECK(got[j] == (j < n ? 2000 * rank + round + j : SENTINEL),
                  "round %d scatterv: int %d is %d", round, j, got[j]);
        /* a bcast and an allreduce must pair up with the same calls */
        {
            int v = rank == root ? round * 7 : -1, s = rank, sum = 0;
            OK(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
            CHECK(v == round * 7, "round %d bcast got %d", round, v);
            OK(MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(sum == size * (size - 1) / 2, "round %d allreduce got %d", round, sum);
        }
        /* the nonblocking gatherv, same parts */
        {
            MPI_Request rq;
            for (int i = 0; i < size * MAXN + 1; i++)
                big[i] = SENTINEL;
            OK(MPI_Igatherv(mine, n, MPI_INT, big, counts, displs, MPI_INT, root, MPI_COMM_WORLD,
                            &rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            if (rank == root)
                for (int i = 0; i < size; i++)
                    for (int j = 0; j < counts[i]; j++)
                        CHECK(big[displs[i] + j] == 1000 * i + round + j,
                              "round %d igatherv: rank %d's int %d is %d", round, i, j,
                              big[displs[i] + j]);
        }
        /* every part empty, and the other collectives' empty calls */
        if (round % 3 == 0) {
            int one = 5;
            OK(MPI_Gatherv(mine, 0, MPI_INT, big, zc, zc, MPI_INT, root, MPI_COMM_WORLD));
            OK(MPI_Scatterv(big, zc, zc, MPI_INT, got, 0, MPI_INT, root, MPI_COMM_WORLD));
            OK(MPI_Gather(mine, 0, MPI_INT, big, 0, MPI_INT, root, MPI_COMM_WORLD));
            OK(MPI_Scatter(big, 0, MPI_INT, got, 0, MPI_INT, root, MPI_COMM_WORLD));
            OK(MPI_Allgather(mine, 0, MPI_INT, big, 0, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Allgatherv(mine, 0, MPI_INT, big, zc, zc, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Alltoall(mine, 0, MPI_INT, big, 0, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Reduce(mine, got, 0, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            OK(MPI_Reduce_scatter(mine, got, zc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Reduce_scatter_block(mine, got, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Scan(mine, got, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Bcast(&one, 1, MPI_INT, root, MPI_COMM_WORLD));
            CHECK(one == 5, "round %d bcast after the empty calls got %d", round, one);
        }
    }

    /* an empty call still checks its arguments */
    {
        int buf[4];
        EXPECT_CLASS(MPI_Gather(buf, 0, MPI_INT, buf, 0, MPI_INT, size, MPI_COMM_WORLD),
                     MPI_ERR_ROOT, "empty MPI_Gather, root = size");
        EXPECT_CLASS(MPI_Reduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD),
                     MPI_ERR_ROOT, "empty MPI_Reduce, root = -1");
        EXPECT_CLASS(MPI_Alltoall(buf, 0, MPI_DATATYPE_NULL, buf, 0, MPI_INT, MPI_COMM_WORLD),
                     MPI_ERR_TYPE, "empty MPI_Alltoall, sendtype MPI_DATATYPE_NULL");
        EXPECT_CLASS(MPI_Allgatherv(buf, 0, MPI_INT, buf, NULL, zc, MPI_INT, MPI_COMM_WORLD),
                     MPI_ERR_ARG, "empty MPI_Allgatherv, recvcounts NULL");
        EXPECT_CLASS(MPI_Reduce_scatter_block(buf, buf + 1, 0, MPI_INT, MPI_OP_NULL,
                                              MPI_COMM_WORLD),
                     MPI_ERR_OP, "empty MPI_Reduce_scatter_block, MPI_OP_NULL");
        EXPECT_CLASS(MPI_Gatherv(buf, 0, MPI_INT, buf, zc, zc, MPI_INT, -5, MPI_COMM_WORLD),
                     MPI_ERR_ROOT, "empty MPI_Gatherv, root = -5");
    }
    free(counts);
    free(displs);
    free(big);
    return mtest_finish();
}
