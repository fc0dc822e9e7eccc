/*
 * The point-to-point and 2-rank collective measurements of issue 26 with
 * the loop structure, iteration counts and timing of the standard
 * benchmarks, so that bench/issue26.sh quotes what OSU 7.4 and IMB-MPI1
 * would print (doc/bench.md says how close they agree):
 *   latency   osu_latency: per iteration MPI_Wtime around Send+Recv on
 *             rank 0 (Recv+Send on rank 1); 10000 iterations after 100
 *             warm-up (1000/10 above 8 KiB); one-way us = total / 2 / iters
 *   bw        osu_bw: window 64 of Isend / Irecv, Waitall, 4-byte ack from
 *             rank 1; 100 windows after 10 (20/2 above 8 KiB); MB/s (1e6)
 *   bibw      osu_bibw: both ranks post 64 Irecv and 64 Isend (tags 10
 *             and 100 by direction), then Waitall the sends and Waitall the
 *             receives (rank 1: receives first); bytes of both directions
 *             over rank 0's time; MB/s
 *   mbw_mr    osu_mbw_mr with one pair: as bw; messages/s in millions
 *   sendrecv  IMB-MPI1 Sendrecv: MPI_Sendrecv to the right, from the left
 *             neighbour, 1000 iterations timed as a whole; us per
 *             iteration, IMB's t_avg (averaged over ranks)
 *   exchange  IMB-MPI1 Exchange: Isend left and right, Recv from left and
 *             right, Waitall; t_avg us
 *   barrier   osu_barrier: each call timed, 1000 after 200 warm-up; avg us
 *             averaged over ranks
 *   allreduce osu_allreduce: MPI_CHAR MPI_SUM (OSU 7.4's default type: a
 *             count of `bytes` chars), each call timed, 1000 after 200
 *             (100/10 above 8 KiB), a barrier after each; avg us averaged
 *             over ranks
 * Usage: mpiexec -n 2 ./osu_like -t TEST -s bytes[,bytes...] [-i scale] [-T]
 *   (-i multiplies the iteration counts; sendrecv/exchange, barrier and
 *   allreduce run on any number of ranks, the others on ranks 0 and 1.
 *   -T initializes with MPI_Init_thread(MPI_THREAD_MULTIPLE), as mpi4py
 *   does, and still communicates from one thread; the test is then named
 *   TEST_tm in the output, and a library that provides less is an error.)
 * Output: "test bytes value" per size (us, MB/s or M msg/s as above);
 *   with -T rank 0 first prints "# provided MPI_THREAD_MULTIPLE".
 * Plain MPI; bench/issue26.sh builds it with Canal, MPICH and Open MPI.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* GCC sees MPICH's MPI_STATUSES_IGNORE as an array of size 0. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define OSU_LARGE 8192
#define OSU_WINDOW 64
#define MAX_BYTES (4L << 20)

static int rank, nproc;
static double scale = 1.0;
static char *sbuf, *rbuf;

static long iters(long n)
{
    long v = (long)(n * scale);
    return v < 1 ? 1 : v;
}

static double osu_latency(long size)
{
    long loop = iters(size > OSU_LARGE ? 1000 : 10000), skip = size > OSU_LARGE ? 10 : 100;
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < loop + skip; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= skip)
            total += MPI_Wtime() - t0;
    }
    return total * 1e6 / (2.0 * loop);
}

/* osu_bw / osu_mbw_mr (bi=0) and osu_bibw (bi=1): seconds for the timed windows */
static double osu_window(long size, int bi, long *loop_out)
{
    long loop = iters(size > OSU_LARGE ? 20 : 100), skip = size > OSU_LARGE ? 2 : 10;
    MPI_Request req[2 * OSU_WINDOW];
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < loop + skip; i++) {
        int n = 0;
        if (i == skip)
            t0 = MPI_Wtime();
        if (rank > 1)
            continue;
        int peer = 1 - rank;
        /* osu_bibw: rank 0 receives tag 10 and sends tag 100, rank 1 the
         * reverse; rank 0 waits for its sends first, rank 1 for its
         * receives first (two MPI_Waitall calls, as OSU 7.4 does) */
        int rtag = bi && rank == 1 ? 100 : 10, stag = bi && rank == 0 ? 100 : 10;
        if (bi || rank == 1)
            for (int j = 0; j < OSU_WINDOW; j++)
                MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, rtag, MPI_COMM_WORLD, &req[n++]);
        if (bi || rank == 0)
            for (int j = 0; j < OSU_WINDOW; j++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, stag, MPI_COMM_WORLD, &req[n++]);
        if (bi) {
            int first = rank == 0 ? OSU_WINDOW : 0; /* the sends, or the receives */
            MPI_Waitall(OSU_WINDOW, req + first, MPI_STATUSES_IGNORE);
            MPI_Waitall(OSU_WINDOW, req + (OSU_WINDOW - first), MPI_STATUSES_IGNORE);
        } else {
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        }
        if (!bi) {
            if (rank == 0)
                MPI_Recv(rbuf, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(sbuf, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
    *loop_out = loop;
    return MPI_Wtime() - t0;
}

/* IMB Sendrecv (exchange=0) / Exchange (1): t_avg in us */
static double imb_chain(long size, int exchange)
{
    long loop = iters(size > 65536 ? 100 : 1000);
    int right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc;
    MPI_Request req[2];
    double t, sum;
    /* IMB runs the loop twice untimed before it times it (its warm-up). */
    for (int pass = 0; pass < 2; pass++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (long i = 0; i < loop; i++) {
            if (!exchange) {
                MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, right, 1, rbuf, (int)size, MPI_BYTE, left,
                             1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Isend(sbuf, (int)size, MPI_BYTE, left, 1, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(sbuf, (int)size, MPI_BYTE, right, 1, MPI_COMM_WORLD, &req[1]);
                MPI_Recv(rbuf, (int)size, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(rbuf + size, (int)size, MPI_BYTE, right, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            }
        }
        t = (MPI_Wtime() - t) / loop;
    }
    MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / nproc * 1e6;
}

/* osu_barrier (size < 0) / osu_allreduce: avg us averaged over ranks */
static double osu_coll(long size)
{
    long loop = iters(size > OSU_LARGE ? 100 : 1000), skip = size > OSU_LARGE ? 10 : 200;
    int count = (int)size; /* (MPI_CHAR, as OSU 7.4: not MPI_FLOAT's size / 4) */
    double total = 0, sum;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < loop + skip; i++) {
        double t0 = MPI_Wtime();
        if (size < 0)
            MPI_Barrier(MPI_COMM_WORLD);
        else
            MPI_Allreduce(sbuf, rbuf, count, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
        if (i >= skip)
            total += MPI_Wtime() - t0;
        if (size >= 0)
            MPI_Barrier(MPI_COMM_WORLD); /* osu_allreduce's barrier between calls */
    }
    total = total * 1e6 / loop;
    MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / nproc;
}

int main(int argc, char **argv)
{
    const char *test = "latency";
    char sizes[1024] = "8";
    int opt, rc = 0, multiple = 0, provided = MPI_THREAD_SINGLE;

    /* (options read before initializing: -T decides how) */
    while ((opt = getopt(argc, argv, "t:s:i:T")) != -1) {
        switch (opt) {
        case 'T':
            multiple = 1;
            break;
        case 't':
            test = optarg;
            break;
        case 's':
            snprintf(sizes, sizeof sizes, "%s", optarg);
            break;
        case 'i':
            scale = atof(optarg);
            break;
        default:
            rc = 1;
        }
    }
    if (multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (multiple) {
        if (provided != MPI_THREAD_MULTIPLE) {
            if (rank == 0)
                fprintf(stderr,
                        "osu_like: -T: the library provides thread level %d, not "
                        "MPI_THREAD_MULTIPLE (%d)\n",
                        provided, MPI_THREAD_MULTIPLE);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            printf("# provided MPI_THREAD_MULTIPLE\n");
    }
    sbuf = calloc(1, 2 * MAX_BYTES);
    rbuf = calloc(1, 2 * MAX_BYTES);
    if (rc || sbuf == NULL || rbuf == NULL || nproc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 osu_like -t latency|bw|bibw|mbw_mr|sendrecv|"
                            "exchange|barrier|allreduce -s bytes[,bytes] [-i scale] [-T]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (char *tok = strtok(sizes, ","); tok != NULL; tok = strtok(NULL, ",")) {
        long size = atol(tok), loop;
        double v;
        if (size < 0 || size > MAX_BYTES) {
            if (rank == 0)
                fprintf(stderr, "osu_like: size %ld out of range 0..%ld\n", size, MAX_BYTES);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (!strcmp(test, "latency")) {
            v = osu_latency(size);
        } else if (!strcmp(test, "bw") || !strcmp(test, "mbw_mr") || !strcmp(test, "bibw")) {
            int bi = !strcmp(test, "bibw");
            double t = osu_window(size, bi, &loop);
            if (!strcmp(test, "mbw_mr"))
                v = (double)loop * OSU_WINDOW / t / 1e6;
            else
                v = (double)size * (bi ? 2 : 1) * loop * OSU_WINDOW / t / 1e6;
        } else if (!strcmp(test, "sendrecv") || !strcmp(test, "exchange")) {
            v = imb_chain(size, !strcmp(test, "exchange"));
        } else if (!strcmp(test, "barrier")) {
            v = osu_coll(-1);
        } else if (!strcmp(test, "allreduce")) {
            v = osu_coll(size);
        } else {
            if (rank == 0)
                fprintf(stderr, "osu_like: unknown test '%s'\n", test);
            MPI_Abort(MPI_COMM_WORLD, 1);
            return 1;
        }
        if (rank == 0)
            printf("%s%s %ld %.4f\n", test, multiple ? "_tm" : "", size, v);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
