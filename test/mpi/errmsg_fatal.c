/* The fatal error handler's message (MPI_ERRORS_ARE_FATAL, the default)
 * names the rank, the call, the error class and the bad argument with its
 * value, in one line the testlist's output= key checks, and the job ends
 * with the class as exit code. argv[1] picks the failing call on rank 1:
 *   send  MPI_Send to dest=12       (MPI_ERR_RANK, exit 6)
 *   bcast MPI_Bcast with root=7     (MPI_ERR_ROOT, exit 7)
 *   type  MPI_Type_contiguous(-4)   (MPI_ERR_COUNT, exit 2)
 *   dup   MPI_Send with tag=-9 on a duplicate of MPI_COMM_WORLD, whose
 *         handler was inherited as fatal (MPI_ERR_TAG, exit 4)
 * The other processes wait in a receive that never matches: the launcher
 * must end them. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    const char *what = argc > 1 ? argv[1] : "send";
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 1) {
        if (strcmp(what, "send") == 0) {
            MPI_Send(&x, 1, MPI_INT, 12, 0, MPI_COMM_WORLD);
        } else if (strcmp(what, "bcast") == 0) {
            MPI_Bcast(&x, 1, MPI_INT, 7, MPI_COMM_WORLD);
        } else if (strcmp(what, "type") == 0) {
            MPI_Datatype t;
            MPI_Type_contiguous(-4, MPI_INT, &t);
        } else if (strcmp(what, "dup") == 0) {
            MPI_Send(&x, 1, MPI_INT, 0, -9, dup);
        }
        printf("not reached: the %s error did not end the job\n", what);
    }
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
