/* A rank killed with SIGKILL (before MPI_Init, in the middle of
 * point-to-point traffic, in the middle of collectives) ends the whole job
 * within seconds: mpiexec names the rank and the signal and exits 128+9.
 * argv[1]: "before", "p2p" or "coll" (an MPI_Allreduce/MPI_Bcast loop on
 * every rank; rank 1 dies between two of them while the others are inside
 * the next one). */
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, buf[1024] = {0};
    const char *where = argc > 1 ? argv[1] : "p2p";

    if (strcmp(where, "before") == 0 && getenv("PMI_RANK") && atoi(getenv("PMI_RANK")) == 1)
        raise(SIGKILL);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(where, "coll") == 0) {
        for (int it = 0;; it++) {
            int sum = 0;
            if (rank == 1 && it == 200)
                raise(SIGKILL);
            MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Bcast(buf, 1024, MPI_INT, it % size, MPI_COMM_WORLD);
            if (sum != size * (size - 1) / 2)
                abort(); /* wrong data: not the exit code the test expects */
        }
    }
    for (int it = 0;; it++) {
        if (rank == 1 && it == 100)
            raise(SIGKILL);
        if (rank == 0) {
            MPI_Send(buf, 1024, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 1024, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, 1024, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1024, MPI_INT, 0, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(buf, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
