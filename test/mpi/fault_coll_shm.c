/* A lost rank ends a blocking barrier or allreduce even when the rank it
 * waits for is alive but never enters the call (under mpiexec
 * -disable-auto-cleanup). On a duplicate of MPI_COMM_WORLD that has done a
 * few barriers (Canal runs them through the node's shared block from the
 * 3rd: coll/shm.c), the last rank dies; rank 0 learns it from a receive
 * from the victim and does not enter the next barrier (its receive
 * failed: the program goes to recovery), while the other survivors enter
 * it and wait, also for rank 0. As a message on the collective context
 * would, the wait fails with MPIX_ERR_PROC_FAILED because a rank of the
 * communicator is lost. Then all survivors shrink MPI_COMM_WORLD and sum.
 * Argument: "allreduce" waits in an MPI_Allreduce instead. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank;

#include "fault_util.h"

int main(int argc, char **argv)
{
    int size, victim, rc, x = 1, y, sum = 0, want = 0;
    int allreduce = argc > 1 && strcmp(argv[1], "allreduce") == 0;
    MPI_Comm dup, shrunk;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3)
        fail("needs 3 ranks or more", MPI_SUCCESS);
    victim = size - 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 5; i++)
        MPI_Barrier(dup);
    if (rank == victim) {
        raise(SIGKILL);
        pause();
    }
    if (rank == 0) {
        rc = MPI_Recv(&y, 1, MPI_INT, victim, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
            fail("receive from the dead rank", rc);
    } else {
        rc = allreduce ? MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup) : MPI_Barrier(dup);
        if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
            fail("the collective did not fail with MPIX_ERR_PROC_FAILED", rc);
    }
    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk)) != MPI_SUCCESS)
        fail("MPIX_Comm_shrink", rc);
    if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk)) != MPI_SUCCESS)
        fail("MPI_Allreduce on the shrunk communicator", rc);
    for (int r = 0; r < victim; r++)
        want += r;
    if (sum != want)
        fail("wrong sum on the shrunk communicator", MPI_SUCCESS);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
