/* A rank that exits (with status 0) without MPI_Finalize while the others
 * wait for it: the job ends with a message and a non-zero exit code. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        exit(0);
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
