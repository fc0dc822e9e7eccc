/* The README's example: every rank says hello; rank 0 collects the names. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    if (rank == 0) {
        printf("Hello from rank 0 of %d on %s\n", size, name);
        for (int r = 1; r < size; r++) {
            MPI_Recv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            printf("Hello from rank %d of %d on %s\n", r, size, name);
        }
    } else {
        MPI_Send(name, len + 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
