/*
 * java_pingpong.c: the C half of bench/compare_java.sh. Ping-pong between
 * ranks 0 and 1 at 8 B, 64 KiB and 1 MiB with MPI_Send/MPI_Recv; prints, per
 * size, the median one-way time over 5 batches (us) and the bandwidth (MB/s),
 * in the same format as bench/JavaPingPong.java. The data is checked.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 65536, 1 << 20};
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int s = 0; s < 3; s++) {
        int n = sizes[s], iters = n <= 8 ? 20000 : n <= 65536 ? 2000 : 300;
        char *buf = malloc((size_t)n);
        double t[5];
        memset(buf, rank + 1, (size_t)n);
        for (int b = -1; b < 5; b++) { /* batch -1 warms up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (rank == 0) {
                    MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            if (b >= 0)
                t[b] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        }
        if (rank < 2 && buf[n - 1] != 1) { /* rank 0's bytes went there and back */
            fprintf(stderr, "java_pingpong: wrong data\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        qsort(t, 5, sizeof t[0], cmp);
        if (rank == 0)
            printf("c %d %.2f %.1f\n", n, t[2], n / t[2]);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
