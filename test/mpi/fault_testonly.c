/* A program that only polls with MPI_Test (never waits) also learns that
 * a peer died (issue 23). 2 ranks under mpiexec -disable-auto-cleanup with
 * MPI_ERRORS_RETURN: rank 1 kills itself (SIGKILL) right after MPI_Init,
 * before any message; rank 0 has a receive from it posted and calls only
 * MPI_Test until it gets MPIX_ERR_PROC_FAILED. Over sock the two never
 * connected, so only the launcher's notice can tell rank 0; before, only
 * a wait took that notice, and this loop spun for ever. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, rc, flag = 0, cls, x = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1) {
        raise(SIGKILL);
        pause();
    }
    if (rank != 0) {
        MPI_Finalize();
        return 0;
    }
    if ((rc = MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req)) == MPI_SUCCESS)
        do
            rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && !flag);
    MPI_Error_class(rc, &cls);
    if (cls != MPIX_ERR_PROC_FAILED) {
        fprintf(stderr, "rank 0: expected MPIX_ERR_PROC_FAILED, got class %d (flag %d)\n", cls,
                flag);
        MPI_Abort(MPI_COMM_SELF, 2);
    }
    printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
