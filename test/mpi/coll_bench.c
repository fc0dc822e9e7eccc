/*
 * Collective latency benchmark in the style of the OSU micro-benchmarks,
 * written against plain MPI so that the same source builds with Canal,
 * MPICH and Open MPI (test/mpi/coll_bench.sh runs them side by side).
 *
 *   coll_bench [-c pingpong,barrier,bcast,allreduce,alltoall,allgather,reduce]
 *              [-m MAXBYTES] [-t SECONDS_PER_POINT]
 *
 * For each collective and message size (powers of 4 from 8 bytes; barrier
 * has none; pingpong, the point-to-point floor, only 8 bytes) it runs repeated trials of many
 * iterations and prints, from rank 0, the median over trials of the per-iteration latency in
 * microseconds (the slowest rank of each trial counts), and the minimum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* pingpong (ranks 0 and 1, half a round trip) is the point-to-point floor
 * under the collectives, measured in the same run. */
typedef enum { PINGPONG, BARRIER, BCAST, ALLREDUCE, ALLTOALL, ALLGATHER, REDUCE, NCOLL } coll_t;
static const char *const names[NCOLL] = {"pingpong", "barrier",   "bcast", "allreduce",
                                         "alltoall", "allgather", "reduce"};

static void run_one(coll_t c, char *sb, char *rb, int bytes)
{
    int n = bytes / 8;
    switch (c) {
    case PINGPONG:
        if (rank == 0) {
            MPI_Send(sb, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(rb, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rb, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sb, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        break;
    case BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case BCAST:
        MPI_Bcast(sb, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        MPI_Allreduce(sb, rb, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        MPI_Alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case REDUCE:
        MPI_Reduce(sb, rb, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    default:
        break;
    }
}

/* Iterations such that one trial takes about `secs`, agreed by all ranks. */
static int calibrate(coll_t c, char *sb, char *rb, int bytes, double secs)
{
    int iters = 1;
    for (;;) {
        double t0, t;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run_one(c, sb, rb, bytes);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t >= secs / 4 || iters >= 1 << 20)
            return iters * 4 < 1 << 22 ? (int)(iters * (secs / (t > 0 ? t : 1e-9))) + 1 : iters;
        iters *= 4;
    }
}

int main(int argc, char **argv)
{
    int enabled[NCOLL] = {1, 1, 1, 1, 1, 0, 0};
    long maxbytes = 1 << 20;
    double secs = 0.05;
    enum { TRIALS = 7 };
    char *sb, *rb;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            memset(enabled, 0, sizeof enabled);
            for (char *w = strtok(argv[++i], ","); w != NULL; w = strtok(NULL, ","))
                for (int c = 0; c < NCOLL; c++)
                    if (strcmp(w, names[c]) == 0)
                        enabled[c] = 1;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            maxbytes = atol(argv[++i]);
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            secs = atof(argv[++i]);
        }
    }
    sb = calloc((size_t)maxbytes * (size_t)size + 64, 1);
    rb = calloc((size_t)maxbytes * (size_t)size + 64, 1);
    if (rank == 0)
        printf("# %-10s %10s %12s %12s   (%d ranks, median and min of %d trials)\n", "collective",
               "bytes", "median_us", "min_us", size, TRIALS);
    for (int c = 0; c < NCOLL; c++) {
        if (!enabled[c])
            continue;
        for (long bytes = c == BARRIER ? 0 : 8; bytes <= (c == BARRIER ? 0 : maxbytes);
             bytes = bytes * 4) {
            double t[TRIALS];
            long b = bytes;
            int iters;
            if ((c == ALLTOALL || c == ALLGATHER) && bytes * size > 16L << 20)
                break;
            if (c == PINGPONG && (size < 2 || bytes > 8))
                break;
            iters = calibrate((coll_t)c, sb, rb, (int)b, secs);
            for (int k = 0; k < TRIALS; k++) {
                double t0;
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++)
                    run_one((coll_t)c, sb, rb, (int)b);
                t[k] = (MPI_Wtime() - t0) / iters * 1e6 / (c == PINGPONG ? 2 : 1);
                MPI_Allreduce(MPI_IN_PLACE, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            }
            qsort(t, TRIALS, sizeof t[0], cmp_double);
            if (rank == 0)
                printf("  %-10s %10ld %12.2f %12.2f\n", names[c], bytes, t[TRIALS / 2], t[0]);
            fflush(stdout);
            if (bytes == 0)
                break;
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
