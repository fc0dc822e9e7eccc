/* The C twin of PingPong.java: same method (200 round trips, last 100
 * timed, 5 repetitions, mean), same output format ("c <size> <us> <MB/s>"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, max = argc > 1 ? atoi(argv[1]) : 1 << 22;
    char *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = calloc(1, (size_t)max);
    for (int n = 1; n <= max; n *= 4) {
        double total = 0;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < 200; i++) {
                if (i == 100)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            total += (MPI_Wtime() - t0) / 100 / 2;
        }
        if (rank == 0)
            printf("c %d %.3f %.1f\n", n, total / 5 * 1e6, n / (total / 5) / 1e6);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
