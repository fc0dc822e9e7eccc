/* MPI_Abort from the last rank with code 7: the job ends with exit code 7.
 * argv[1] "coll": the others are inside collectives (an MPI_Allreduce loop)
 * when the last rank, itself in the loop, calls MPI_Abort between two of its
 * own MPI_Allreduce calls. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "coll") == 0) {
        for (int it = 0;; it++) {
            int sum;
            if (rank == size - 1 && it == 50)
                MPI_Abort(MPI_COMM_WORLD, 7);
            MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    if (rank == size - 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
