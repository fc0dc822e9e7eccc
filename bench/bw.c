/*
 * Streaming bandwidth from rank 0 to rank 1, osu_bw style: for each size
 * from 1 B to 4 MiB by powers of two, rank 0 posts a window of nonblocking
 * sends, rank 1 a window of nonblocking receives, both wait for all, and
 * after each window rank 1 returns a 4-byte acknowledgement. Bandwidth is
 * bytes moved over rank 0's time, in MB/s (1e6 bytes), as OSU prints it;
 * the message rate (windows x window size / time) is printed beside it.
 *
 * Plain MPI, built against Canal, MPICH and Open MPI by bench/compare.sh.
 * As in OSU, all sends of a window read one buffer and all receives write
 * one buffer; only the ordering of data in that buffer is unspecified, which
 * a bandwidth benchmark does not look at. The timed windows are split into
 * batches and the median batch is printed with the slowest and fastest.
 *
 * Usage: mpiexec -n 2 ./bw [-m max_bytes] [-w window] [-i iteration_scale] [-b batches]
 * Output: '#' comment lines, then "size median_MBps min_MBps max_MBps median_Mmsgps".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* GCC sees MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, as an array of
 * size 0 and warns on every MPI_Waitall; the warning is false. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAX_DEFAULT (4L << 20)
#define SMALL_LIMIT 8192
#define WINDOW_MAX 1024

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Windows per size: OSU does 100 up to 8 KiB and 20 above; here 200 small
 * windows, then fewer as the size grows, never under 20. */
static long windows_for(long size, double scale)
{
    long n = size <= SMALL_LIMIT ? 200 : 200L * SMALL_LIMIT / size;
    if (n < 20)
        n = 20;
    n = (long)(n * scale);
    return n < 5 ? 5 : n;
}

int main(int argc, char **argv)
{
    long max_size = MAX_DEFAULT;
    double scale = 1.0;
    int window = 64, batches = 5;
    int rank, size, opt, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    while ((opt = getopt(argc, argv, "m:w:i:b:")) != -1) {
        switch (opt) {
        case 'm':
            max_size = strtol(optarg, NULL, 10);
            break;
        case 'w':
            window = atoi(optarg);
            break;
        case 'i':
            scale = strtod(optarg, NULL);
            break;
        case 'b':
            batches = atoi(optarg);
            break;
        default:
            bad = 1;
        }
    }
    if (bad || max_size < 1 || max_size > (1L << 30) || window < 1 || window > WINDOW_MAX ||
        !(scale > 0) || batches < 1 || batches > 1000) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpiexec -n 2 %s [-m max_bytes] [-w window<=%d] [-i scale] [-b batches]\n",
                    argv[0], WINDOW_MAX);
        MPI_Finalize();
        return 2;
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "bw: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }

    char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, (size_t)max_size)) {
        fprintf(stderr, "bw: cannot allocate %ld bytes\n", max_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, rank == 0 ? 'a' : 0, (size_t)max_size);

    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib; /* Canal's string starts "MPICH Version:" for tools */
        name[strcspn(name, "\n")] = 0;
        printf("# bandwidth (MB/s = 1e6 B/s); library: %s\n", name);
        printf("# ranks %d, window %d, batches %d, iteration scale %g\n", size, window, batches,
               scale);
        printf("# %-10s %12s %12s %12s %12s\n", "size_B", "median_MBps", "min_MBps", "max_MBps",
               "Mmsg_per_s");
        fflush(stdout);
    }

    MPI_Request *req = malloc(sizeof(MPI_Request) * window);
    double *batch = malloc(sizeof(double) * batches);
    double *rate = malloc(sizeof(double) * batches);
    int ack = 0, errors = 0;

    for (long sz = 1; sz <= max_size; sz *= 2) {
        long wins = windows_for(sz, scale);
        long per_batch = wins / batches > 0 ? wins / batches : 1;
        long warm = wins / 10 > 0 ? wins / 10 : 1;
        int count = (int)sz;

        if (rank < 2) {
            for (int b = -1; b < batches; b++) {
                long n = b < 0 ? warm : per_batch;
                double t0 = MPI_Wtime();
                for (long w = 0; w < n; w++) {
                    if (rank == 0) {
                        for (int k = 0; k < window; k++)
                            MPI_Isend(buf, count, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[k]);
                        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                        MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        for (int k = 0; k < window; k++)
                            MPI_Irecv(buf, count, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[k]);
                        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                        MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
                    }
                }
                double t = MPI_Wtime() - t0;
                if (b >= 0) {
                    batch[b] = (double)sz * window * n / t / 1e6;
                    rate[b] = (double)window * n / t / 1e6;
                }
            }
            if (rank == 1 && (buf[0] != 'a' || buf[sz - 1] != 'a')) {
                fprintf(stderr, "bw: rank 1: wrong data received at size %ld\n", sz);
                errors++;
            }
            if (rank == 0) {
                qsort(batch, batches, sizeof batch[0], cmp_double);
                qsort(rate, batches, sizeof rate[0], cmp_double);
                printf("%-12ld %12.1f %12.1f %12.1f %12.3f\n", sz, batch[batches / 2], batch[0],
                       batch[batches - 1], rate[batches / 2]);
                fflush(stdout);
            }
            if (rank == 1)
                memset(buf, 0, (size_t)sz); /* so the next size's check means something */
        }
        if (sz > max_size / 2)
            break;
    }

    free(rate);
    free(batch);
    free(req);
    free(buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
