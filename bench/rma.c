/* One-sided (RMA) micro-benchmarks in the style of the OSU ones, for two
 * ranks, on an MPI_Win_allocate window. Run by bench/compare_rma_io.sh
 * against Canal, MPICH and Open MPI. Rank 0 is the origin, rank 1 the
 * target. Each test runs a few batches and prints the median batch, one
 * line per (test, size):
 *   put_lock   SIZE us     MPI_Put latency, lock/put/unlock per operation
 *   put_fence  SIZE us     MPI_Put latency, put between two fences
 *   get_bw     SIZE MB/s   MPI_Get bandwidth, a window of gets per flush
 *                          (osu_get_bw)
 *   get_lock   SIZE us     MPI_Get latency, lock/get/unlock per operation
 *                          (osu_get_latency, -s lock)
 *   get_flush  SIZE us     MPI_Get latency, get + MPI_Win_flush per operation
 *                          inside one MPI_Win_lock_all (osu_get_latency -s
 *                          lock_all / flush)
 *   acc_lock   8    us     MPI_Accumulate latency, 1 double, MPI_SUM
 * Options: -i SCALE multiplies the iteration counts; -b N batches. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (1 << 20)
#define GET_WINDOW 64

static int rank;
static double scale = 1.0;
static int nbatch = 5;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int iters_for(int size, int base)
{
    int n = base;
    if (size > 8192)
        n = base / 10;
    if (size > 131072)
        n = base / 50;
    n = (int)(n * scale);
    return n < 4 ? 4 : n;
}

/* Returns us per op for one batch (rank 0's time, broadcast). */
static double put_lock_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Put(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
            MPI_Win_unlock(1, win);
        }
        t = (MPI_Wtime() - t0) * 1e6 / iters;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double put_fence_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int i = 0; i < iters; i++) {
        if (rank == 0)
            MPI_Put(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
        MPI_Win_fence(0, win);
    }
    t = (MPI_Wtime() - t0) * 1e6 / iters;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

/* MB/s */
static double get_bw_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            for (int w = 0; w < GET_WINDOW; w++)
                MPI_Get(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
            MPI_Win_flush(1, win);
        }
        t = MPI_Wtime() - t0;
        MPI_Win_unlock(1, win);
        t = (double)size * GET_WINDOW * iters / t / 1e6;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double get_lock_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Get(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
            MPI_Win_unlock(1, win);
        }
        t = (MPI_Wtime() - t0) * 1e6 / iters;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double get_flush_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Get(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
            MPI_Win_flush(1, win);
        }
        t = (MPI_Wtime() - t0) * 1e6 / iters;
        MPI_Win_unlock_all(win);
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static double acc_lock_batch(MPI_Win win, char *buf, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Accumulate(buf, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_unlock(1, win);
        }
        t = (MPI_Wtime() - t0) * 1e6 / iters;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

typedef double (*batch_fn)(MPI_Win, char *, int, int);

static void run(const char *name, batch_fn fn, MPI_Win win, char *buf, int size, int base)
{
    double v[64];
    int iters = iters_for(size, base);
    fn(win, buf, size, iters / 10 + 1); /* warm-up */
    for (int b = 0; b < nbatch; b++)
        v[b] = fn(win, buf, size, iters);
    if (rank == 0)
        printf("%-9s %8d %12.3f\n", name, size, median(v, nbatch));
}

int main(int argc, char **argv)
{
    int np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i") && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            nbatch = atoi(argv[++i]);
    }
    if (nbatch < 1 || nbatch > 64)
        nbatch = 5;
    if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "rma: needs exactly 2 ranks, got %d\n", np);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *base, *buf = malloc(MAX_SIZE);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, rank + 1, MAX_SIZE);
    MPI_Win win;
    MPI_Win_allocate(MAX_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, MAX_SIZE);
    MPI_Barrier(MPI_COMM_WORLD);

    static const int sizes[] = {8, 64, 512, 4096, 32768, 262144, MAX_SIZE};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    for (int k = 0; k < nsizes; k++)
        run("put_lock", put_lock_batch, win, buf, sizes[k], 2000);
    for (int k = 0; k < nsizes; k++)
        run("put_fence", put_fence_batch, win, buf, sizes[k], 2000);
    for (int k = 0; k < nsizes; k++)
        run("get_bw", get_bw_batch, win, buf, sizes[k], 200);
    for (int k = 0; k < 3; k++) /* 8, 64, 512 B */
        run("get_lock", get_lock_batch, win, buf, sizes[k], 4000);
    for (int k = 0; k < 3; k++)
        run("get_flush", get_flush_batch, win, buf, sizes[k], 4000);
    {
        double one = 1.0;
        memcpy(buf, &one, sizeof one);
        memset(base, 0, sizeof(double));
        MPI_Barrier(MPI_COMM_WORLD);
        run("acc_lock", acc_lock_batch, win, buf, 8, 2000);
        /* Check: the target's double now equals the number of accumulates. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            double got;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            memcpy(&got, base, sizeof got);
            MPI_Win_unlock(1, win);
            long want = (long)iters_for(8, 2000) * nbatch + iters_for(8, 2000) / 10 + 1;
            if ((long)got != want)
                fprintf(stderr, "rma: accumulate check FAILED: %.0f, want %ld\n", got, want);
        }
    }
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
