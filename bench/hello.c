/*
 * The smallest MPI program, for bench/startup.sh: the time of
 * `mpiexec -n N ./hello` is the launcher's start-up plus MPI_Init and
 * MPI_Finalize of every rank. Prints one line from rank 0 only with -v.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && argc > 1 && strcmp(argv[1], "-v") == 0)
        printf("hello from rank 0 of %d\n", size);
    MPI_Finalize();
    return 0;
}
