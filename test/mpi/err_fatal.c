/* Under the default MPI_ERRORS_ARE_FATAL, an invalid rank ends the job with
 * a message naming the call and a non-zero exit code (the error class). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1)
        MPI_Send(&x, 1, MPI_INT, size + 10, 0, MPI_COMM_WORLD);
    /* the others wait: the launcher must end them */
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}
