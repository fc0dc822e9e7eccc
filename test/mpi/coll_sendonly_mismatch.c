/*
 * Mismatched collectives in which no rank waits for another (an erroneous
 * program): rank 0 calls MPI_Bcast from root 0 while the others call
 * MPI_Reduce to root 0 (with args=scatter: MPI_Scatter from rank 0 against
 * MPI_Gather to rank 0). Every rank only sends, so each call may return
 * without an error: seeing the other call would cost every correct call a
 * round trip (doc/design.md). The job must still say so: when the
 * communicator is freed, a rank holding the other call's message warns,
 * naming that call and its sender ("collective mismatch on a communicator
 * being freed: rank 0's MPI_Bcast ..."; the runner checks the output), and
 * the messages are discarded, so that a communicator made later on the same
 * context does not meet them. On 1ef534a the job ended silently. A barrier
 * on MPI_COMM_WORLD before the free orders the messages before it (each
 * rank's message has reached its receiver's queue). Under
 * MPI_ERRORS_RETURN.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    int scatter = argc > 1 && strcmp(argv[1], "scatter") == 0, rc;
    MPI_Comm c;

    if (!mismatch_init(&argc, &argv, 4, 1))
        return 0;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (scatter)
        rc = mtest_rank == 0 ? MPI_Scatter(a, 4, MPI_INT, b, 4, MPI_INT, 0, c)
                             : MPI_Gather(a, 4, MPI_INT, b, 4, MPI_INT, 0, c);
    else
        rc = mtest_rank == 0 ? MPI_Bcast(a, 4, MPI_INT, 0, c)
                             : MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, 0, c);
    /* (returns at once or with a mismatch: either is right here) */
    if (rc != MPI_SUCCESS)
        expect_mismatch(rc, scatter ? "MPI_Scatter against MPI_Gather" : "MPI_Bcast against MPI_Reduce",
                        scatter ? "MPI_Scatter" : "MPI_Bcast", scatter ? "MPI_Gather" : "MPI_Reduce");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Comm_free(&c));
    /* a new communicator may take c's context: its calls are not disturbed */
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < 3; i++) {
        int one = 1, sum = 0;
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == mtest_size, "allreduce gave %d, want %d", sum, mtest_size);
    }
    OK(MPI_Comm_free(&c));
    still_works(scatter ? "MPI_Scatter against MPI_Gather" : "MPI_Bcast against MPI_Reduce");
    mismatch_finish();
    return 0;
}
