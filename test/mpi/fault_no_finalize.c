/* A rank that exits (with status 0) without MPI_Finalize while the others
 * wait for it: the job ends with a message and a non-zero exit code.
 * argv[1] "coll": the others are in a collective (MPI_Bcast from rank 1,
 * then MPI_Barrier) when rank 1 exits. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "coll") == 0) {
        for (int it = 0;; it++) {
            if (rank == 1 && it == 30)
                exit(0);
            x = it;
            MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    if (rank == 1)
        exit(0);
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
