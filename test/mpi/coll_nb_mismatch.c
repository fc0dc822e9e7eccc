/*
 * Nonblocking and persistent collectives whose ranks called different
 * collectives at the same point (an erroneous program): MPI_Wait on every
 * rank that waits returns an error of class MPI_ERR_OTHER whose message
 * names both calls, and no rank hangs (issue 26; on 5d96284 each pair
 * hangs in MPI_Wait, which watched for nothing). Pairs: MPI_Ibarrier
 * against MPI_Iallreduce of 1024 ints; MPI_Iallgather (waited for) against
 * a blocking MPI_Alltoall of the same sizes; MPI_Barrier_init against
 * MPI_Allreduce_init (MPI_Start, MPI_Wait); and, where the node's shared
 * block serves blocking barriers (shm channel), MPI_Ibarrier against a
 * blocking MPI_Barrier (by messages, both are the same messages and
 * succeed: that is checked on the sock channel). After each,
 * MPI_COMM_WORLD still works. Rank 0 makes the odd call; with args=split
 * the even ranks do. Under MPI_ERRORS_RETURN; the runner's timeout turns a
 * hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

static int odd_one;

static MPI_Comm fresh(void)
{
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < 3; i++) /* (the shared block comes at the third barrier) */
        OK(MPI_Barrier(c));
    return c;
}

int main(int argc, char **argv)
{
    int *a, *b, rc, n = 16;
    MPI_Request q;
    MPI_Comm c, keep[4];
    int nkeep = 0;

    mtest_init(&argc, &argv);
    odd_one = argc > 1 && strcmp(argv[1], "split") == 0 ? mtest_rank % 2 == 0 : mtest_rank == 0;
    if (mtest_size < 2) {
        mtest_finish();
        return 0;
    }
    a = calloc((size_t)1024 * (size_t)mtest_size, sizeof(int));
    b = calloc((size_t)1024 * (size_t)mtest_size, sizeof(int));

    c = fresh();
    if (odd_one)
        OK(MPI_Ibarrier(c, &q));
    else
        OK(MPI_Iallreduce(a, b, 1024, MPI_INT, MPI_SUM, c, &q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect_mismatch(rc, "MPI_Ibarrier against MPI_Iallreduce", "MPI_Barrier", "MPI_Allreduce");
    still_works("MPI_Ibarrier against MPI_Iallreduce");
    keep[nkeep++] = c;

    c = fresh();
    if (odd_one) {
        OK(MPI_Iallgather(a, n, MPI_INT, b, n, MPI_INT, c, &q));
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, c);
    }
    expect_mismatch(rc, "MPI_Iallgather against MPI_Alltoall", "MPI_Allgather", "MPI_Alltoall");
    still_works("MPI_Iallgather against MPI_Alltoall");
    keep[nkeep++] = c;

    c = fresh();
    if (odd_one)
        OK(MPI_Barrier_init(c, MPI_INFO_NULL, &q));
    else
        OK(MPI_Allreduce_init(a, b, 1024, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q));
    OK(MPI_Start(&q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect_mismatch(rc, "MPI_Barrier_init against MPI_Allreduce_init", "MPI_Barrier",
                    "MPI_Allreduce");
    MPI_Request_free(&q);
    still_works("MPI_Barrier_init against MPI_Allreduce_init");
    keep[nkeep++] = c;

    c = fresh();
    if (odd_one) {
        OK(MPI_Ibarrier(c, &q));
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Barrier(c);
    }
    if (block_used())
        expect_mismatch(rc, "MPI_Ibarrier against MPI_Barrier", "MPI_Barrier", "MPI_Barrier");
    else
        OK(rc);
    still_works("MPI_Ibarrier against MPI_Barrier");
    keep[nkeep++] = c;

    /* (freed only now: a new communicator may take a freed one's context,
     * where the mismatched calls' messages still wait) */
    for (int i = 0; i < nkeep; i++)
        MPI_Comm_free(&keep[i]);
    free(a);
    free(b);
    mtest_finish();
    return 0;
}
