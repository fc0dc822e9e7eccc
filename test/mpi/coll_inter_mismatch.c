/*
 * Mismatched collectives on an intercommunicator (an erroneous program; the
 * world split into its even and odd ranks, joined by MPI_Intercomm_create):
 * - the even group's MPI_Barrier against the odd group's MPI_Allreduce of
 *   1024 ints: every rank of both groups fails with class MPI_ERR_OTHER and
 *   a message naming both calls;
 * - the even group's MPI_Bcast from its rank 0 (MPI_ROOT there,
 *   MPI_PROC_NULL in the rest of the group) against the odd group's
 *   MPI_Allreduce: every rank of the odd group, which waits, fails the same
 *   way; the even group's ranks only send or do nothing, and may return
 *   without an error (as a bcast's root against a reduce to it on an
 *   intracommunicator, doc/design.md).
 * After each, a correct barrier on the intercommunicator and on
 * MPI_COMM_WORLD works (every rank took the call's tag: the communicator
 * stays in step). On 048c67a the first pair hung on every rank and the
 * second on the odd group (intercommunicators had no watch). Under
 * MPI_ERRORS_RETURN; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    MPI_Comm local, ic;
    int rc, even, lrank;

    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;
    even = mtest_rank % 2 == 0;
    OK(MPI_Comm_split(MPI_COMM_WORLD, !even, mtest_rank, &local));
    OK(MPI_Comm_rank(local, &lrank));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, even ? 1 : 0, 26, &ic));
    OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    OK(MPI_Barrier(ic));

    rc = even ? MPI_Barrier(ic) : MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, ic);
    expect_mismatch(rc, "MPI_Barrier against MPI_Allreduce (intercommunicator)", "MPI_Barrier",
                    "MPI_Allreduce");
    OK(MPI_Barrier(ic));
    still_works("MPI_Barrier against MPI_Allreduce on an intercommunicator");

    if (even)
        rc = MPI_Bcast(a, 16, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic);
    else
        rc = MPI_Allreduce(a, b, 16, MPI_INT, MPI_SUM, ic);
    if (!even || rc != MPI_SUCCESS)
        expect_mismatch(rc, "MPI_Bcast against MPI_Allreduce (intercommunicator)", "MPI_Bcast",
                        "MPI_Allreduce");
    OK(MPI_Barrier(ic));
    still_works("MPI_Bcast against MPI_Allreduce on an intercommunicator");

    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
    mismatch_finish();
    return 0;
}
