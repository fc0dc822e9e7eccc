/*
 * Ping-pong latency between ranks 0 and 1, osu_latency style: for each size
 * from 0 B to 4 MiB by powers of two, a warm-up, then iterations of
 * send/recv round trips; the one-way time is half the round trip.
 *
 * Plain MPI (MPI_Send/MPI_Recv, MPI_Wtime), so the same source is built
 * against Canal, MPICH and Open MPI by bench/compare.sh. Unlike OSU, the
 * timed iterations are split into batches and the median batch is printed
 * next to the fastest and slowest, because on a shared 2-core machine one
 * preemption inside a single long average hides the real figure.
 *
 * Usage: mpiexec -n 2 ./latency [-m max_bytes] [-s list] [-i iteration_scale] [-b batches]
 * -s 1,8,33,48,64 measures those sizes instead of the powers of two (the
 * steps at the ring's line and the copies' boundaries, doc/bench.md).
 * Output: comment lines start with '#'; then "size median_us min_us max_us".
 * Ranks beyond 1 only take part in MPI_Init/MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEFAULT (4L << 20)
#define SMALL_LIMIT 8192

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Iterations per size: OSU uses 10000 up to 8 KiB and 100 above; scaling
 * smoothly by size keeps every size at a similar, short run time. */
static long iterations_for(long size, double scale)
{
    long n = size <= SMALL_LIMIT ? 10000 : 10000L * SMALL_LIMIT / size;
    if (n < 100)
        n = 100;
    n = (long)(n * scale);
    return n < 10 ? 10 : n;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: mpiexec -n 2 %s [-m max_bytes] [-s size,size,...] [-i iteration_scale] "
            "[-b batches]\n",
            prog);
}

int main(int argc, char **argv)
{
    long max_size = MAX_DEFAULT;
    double scale = 1.0;
    int batches = 5;
    int rank, size, opt, bad = 0;
    long list[64];
    int nlist = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    while ((opt = getopt(argc, argv, "m:s:i:b:")) != -1) {
        switch (opt) {
        case 's':
            for (char *p = optarg, *end; *p != 0 && !bad; p = *end == ',' ? end + 1 : end) {
                long v = strtol(p, &end, 10);
                if (end == p || v < 0 || v > (1L << 30) || nlist == 64)
                    bad = 1;
                else
                    list[nlist++] = v;
            }
            break;
        case 'm':
            max_size = strtol(optarg, NULL, 10);
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
    if (bad || max_size < 0 || max_size > (1L << 30) || !(scale > 0) || batches < 1 ||
        batches > 1000) {
        if (rank == 0)
            usage(argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "latency: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }

    if (nlist > 0) {
        max_size = 0;
        for (int k = 0; k < nlist; k++)
            max_size = list[k] > max_size ? list[k] : max_size;
    }
    char *sbuf = NULL, *rbuf = NULL;
    size_t alloc = max_size > 0 ? (size_t)max_size : 1;
    if (posix_memalign((void **)&sbuf, 4096, alloc) || posix_memalign((void **)&rbuf, 4096, alloc)) {
        fprintf(stderr, "latency: cannot allocate %zu bytes\n", alloc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, rank == 0 ? 'a' : 'b', alloc);
    memset(rbuf, 0, alloc);

    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib; /* Canal's string starts "MPICH Version:" for tools */
        name[strcspn(name, "\n")] = 0;
        printf("# latency (one way, us); library: %s\n", name);
        printf("# ranks %d, batches %d, iteration scale %g\n", size, batches, scale);
        printf("# %-10s %12s %12s %12s\n", "size_B", "median_us", "min_us", "max_us");
        fflush(stdout);
    }

    double *batch = malloc(sizeof(double) * batches);
    int errors = 0;
    for (long sz = nlist ? list[0] : 0, k = 0; sz <= max_size;
         sz = nlist ? (++k < nlist ? list[k] : max_size + 1) : sz ? sz * 2 : 1) {
        long iters = iterations_for(sz, scale);
        long per_batch = iters / batches > 0 ? iters / batches : 1;
        long warm = iters / 10 > 0 ? iters / 10 : 1;
        int count = (int)sz;

        if (rank < 2) {
            int peer = 1 - rank;
            for (int b = -1; b < batches; b++) {
                long n = b < 0 ? warm : per_batch;
                double t0 = MPI_Wtime();
                for (long i = 0; i < n; i++) {
                    if (rank == 0) {
                        MPI_Send(sbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                        MPI_Recv(rbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(rbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(sbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    }
                }
                if (b >= 0)
                    batch[b] = (MPI_Wtime() - t0) / n / 2 * 1e6;
            }
            /* A library that is fast because it moves nothing must not win. */
            if (sz > 0 && (rbuf[0] != (rank == 0 ? 'b' : 'a') || rbuf[sz - 1] != rbuf[0])) {
                fprintf(stderr, "latency: rank %d: wrong data received at size %ld\n", rank, sz);
                errors++;
            }
            if (rank == 0) {
                qsort(batch, batches, sizeof batch[0], cmp_double);
                printf("%-12ld %12.3f %12.3f %12.3f\n", sz, batch[batches / 2], batch[0],
                       batch[batches - 1]);
                fflush(stdout);
            }
        }
        if (!nlist && sz == max_size)
            break;
    }

    free(batch);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
