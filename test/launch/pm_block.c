/*
 * Every rank says "ready <pid>" and then blocks in an MPI_Recv that no rank
 * ever matches. test/launch/mpiexec.sh kills mpiexec under it and checks
 * that the ranks notice and end.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, x;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("unexpected: the receive completed\n");
    MPI_Finalize();
    return 1;
}
