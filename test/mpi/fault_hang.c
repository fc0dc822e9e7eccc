/* A job stuck forever (every rank waits for a message nobody sends):
 * MPIEXEC_TIMEOUT ends it with exit code 255. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int x;
    MPI_Init(&argc, &argv);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
