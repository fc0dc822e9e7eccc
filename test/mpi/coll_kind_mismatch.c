/*
 * Ranks of one communicator that call different collectives at the same
 * point of the program (an erroneous program): every rank gets an error of
 * class MPI_ERR_OTHER whose message names both collectives, and no rank
 * hangs, without the checking mode (issue 26). Pairs: MPI_Allreduce against
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block (vectors over the node's
 * shared block's 512 bytes and under the 32 KiB from which more than 2 ranks
 * allreduce on its shared area: the message path; and of 64 bytes or less: the
 * shared block on the shm channel, whose message coll/shm.c's kind_of
 * writes, the message path on sock), MPI_Barrier against MPI_Allreduce
 * (both by messages: sock or CANAL_COLL_SHM=0), MPI_Allgather against
 * MPI_Alltoall of the same sizes (whose messages paired up before, giving
 * wrong data without an error). After each, a correct barrier and
 * allreduce work. Rank 0 makes the odd call; with args=split the even
 * ranks do. Under MPI_ERRORS_RETURN; the runner's timeout turns a hang into
 * a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

static void allreduce_vs_reduce_scatter(int n, int block)
{
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    int *counts = malloc(sizeof(int) * (size_t)mtest_size), rc;
    const char *other = block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter";
    char what[80];

    for (int i = 0; i < n; i++)
        in[i] = i;
    for (int r = 0; r < mtest_size; r++)
        counts[r] = n / mtest_size;
    if (odd_one)
        rc = MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (block)
        rc = MPI_Reduce_scatter_block(in, out, n / mtest_size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        rc = MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    snprintf(what, sizeof what, "MPI_Allreduce against %s of %d ints", other, n);
    expect_mismatch(rc, what, "MPI_Allreduce", other);
    still_works(what);
    free(in);
    free(out);
    free(counts);
}

int main(int argc, char **argv)
{
    int rc, n = 16;

    if (!mismatch_init(&argc, &argv, (size_t)n * 4096, 0))
        return 0;
    /* (the node's shared block is made at the third barrier) */
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(MPI_COMM_WORLD));

    allreduce_vs_reduce_scatter(512 * mtest_size, 0);
    allreduce_vs_reduce_scatter(512 * mtest_size, 1);
    allreduce_vs_reduce_scatter(16 / mtest_size * mtest_size, 0);
    allreduce_vs_reduce_scatter(16 / mtest_size * mtest_size, 1);

    /* (a barrier on the block against an allreduce by messages fails too,
     * coll_block_mismatch, but leaves MPI_COMM_WORLD out of step for
     * still_works: tried here only when both go by messages) */
    if (!block_used()) {
        rc = odd_one ? MPI_Barrier(MPI_COMM_WORLD)
                     : MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        expect_mismatch(rc, "MPI_Barrier against MPI_Allreduce", "MPI_Barrier", "MPI_Allreduce");
        still_works("MPI_Barrier against MPI_Allreduce");
    }

    rc = odd_one ? MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD)
                 : MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    expect_mismatch(rc, "MPI_Allgather against MPI_Alltoall", "MPI_Allgather", "MPI_Alltoall");
    still_works("MPI_Allgather against MPI_Alltoall");

    mismatch_finish();
    return 0;
}
