/* Calling MPI before MPI_Init gets a clear fatal error, not a crash. */
#include <mpi.h>

int main(void)
{
    int x = 1;
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    return 0;
}
