/* Survivors that finalize before they hear of a failure (issue 23; MPICH's
 * ft/die): under mpiexec -disable-auto-cleanup rank 1 exits with code 1
 * right after MPI_Init, and the others go straight to MPI_Finalize. One that
 * has not learnt of the loss yet enters the PMI fence; mpiexec completes it
 * among the ranks still there instead of ending the job because rank 1
 * never comes. Each survivor prints a line after MPI_Finalize; the job's
 * exit code is rank 1's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        exit(1);
    MPI_Finalize();
    printf("rank %d finalized\n", rank);
    fflush(stdout);
    return 0;
}
