/*
 * The receive paths of messages of unknown size, timed as osu_latency times
 * its ping-pong: mpi4py's comm.recv (MPI_Mprobe + MPI_Get_count + MPI_Mrecv)
 * and comm.irecv/test or comm.iprobe loops, and C programs' MPI_Probe +
 * MPI_Get_count + MPI_Recv. Rank 0 sends then receives, rank 1 receives then
 * sends; each receive is one of
 *   probe    MPI_Probe + MPI_Get_count + MPI_Recv
 *   mprobe   MPI_Mprobe + MPI_Get_count + MPI_Mrecv
 *   improbe  MPI_Improbe polled until it matches + MPI_Get_count + MPI_Mrecv
 *   iprobe   MPI_Iprobe polled until it matches + MPI_Get_count + MPI_Recv
 * osu_latency's counts (10000 iterations after 100 warm-up, 1000/10 above
 * 8 KiB) and its figure: one-way us = total / 2 / iterations. The count that
 * MPI_Get_count returns is checked against the size sent (a library that
 * gets it wrong fails the run).
 * Usage: mpiexec -n 2 ./probe_like [-t probe|mprobe|improbe|iprobe|all]
 *        [-s bytes[,bytes...]] [-i scale] [-b K]
 *   (default: all four, 1 B to 64 KiB by powers of 8 and 64 KiB)
 *   -b K: instead of the ping-pong, rank 0 sends K messages, both ranks
 *   pass a barrier, and rank 1 receives the K (already there) in
 *   recv_burst, then both pass a barrier again: a loop without waiting, to
 *   count instructions per receive with callgrind (--toggle-collect=
 *   recv_burst on rank 1; the output's figure is then us per message).
 * Output: "test bytes us" per test and size, as bench/osu_like.c prints.
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
#define MAX_BYTES (64L << 10)

enum { PROBE, MPROBE, IMPROBE, IPROBE, NTESTS };
static const char *names[NTESTS] = {"probe", "mprobe", "improbe", "iprobe"};

static int rank;
static double scale = 1.0;
static char *sbuf, *rbuf;
static int errors;

static long iters(long n)
{
    long v = (long)(n * scale);
    return v < 1 ? 1 : v;
}

/* One receive from `peer` of a message whose size is learnt by probing. */
static void recv_unknown(int which, int peer, long size)
{
    MPI_Status st;
    MPI_Message msg;
    int count = -1, flag = 0;

    switch (which) {
    case PROBE:
        MPI_Probe(peer, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        MPI_Recv(rbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case MPROBE:
        MPI_Mprobe(peer, 1, MPI_COMM_WORLD, &msg, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        MPI_Mrecv(rbuf, count, MPI_CHAR, &msg, MPI_STATUS_IGNORE);
        break;
    case IMPROBE:
        while (!flag)
            MPI_Improbe(peer, 1, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        MPI_Mrecv(rbuf, count, MPI_CHAR, &msg, MPI_STATUS_IGNORE);
        break;
    case IPROBE:
        while (!flag)
            MPI_Iprobe(peer, 1, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_CHAR, &count);
        MPI_Recv(rbuf, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    }
    if (count != size && errors++ == 0)
        fprintf(stderr, "probe_like: %s: rank %d probed %d bytes, %ld were sent\n",
                names[which], rank, count, size);
}

static double pingpong(int which, long size)
{
    long loop = iters(size > OSU_LARGE ? 1000 : 10000), skip = size > OSU_LARGE ? 10 : 100;
    double total = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < loop + skip; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            recv_unknown(which, 1, size);
        } else if (rank == 1) {
            recv_unknown(which, 0, size);
            MPI_Send(sbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= skip)
            total += MPI_Wtime() - t0;
    }
    return total * 1e6 / (2.0 * loop);
}

/* -b: K receives of messages that have arrived (no waiting). */
__attribute__((noinline)) void recv_burst(int which, long k, long size)
{
    for (long j = 0; j < k; j++)
        recv_unknown(which, 0, size);
}

static double burst(int which, long size, long k)
{
    long loop = iters(size > OSU_LARGE ? 100 : 1000);
    double total = 0;
    MPI_Request *reqs = malloc(sizeof *reqs * k);

    for (long i = 0; i < loop; i++) {
        /* (nonblocking sends: a rendezvous-sized send does not wait for
         * its receive, which comes after the barrier) */
        if (rank == 0)
            for (long j = 0; j < k; j++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqs[j]);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 1)
            recv_burst(which, k, size);
        total += MPI_Wtime() - t0;
        if (rank == 0)
            MPI_Waitall((int)k, reqs, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(reqs);
    MPI_Bcast(&total, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return total * 1e6 / ((double)loop * k);
}

int main(int argc, char **argv)
{
    const char *test = "all";
    char sizes[1024] = "1,8,64,512,4096,32768,65536";
    int opt, rc = 0, nproc, all_errors = 0;
    long k = 0;

    while ((opt = getopt(argc, argv, "t:s:i:b:")) != -1) {
        switch (opt) {
        case 'b':
            k = atol(optarg);
            rc |= k < 1;
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
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    int first = 0, last = NTESTS - 1;
    if (strcmp(test, "all") != 0) {
        for (first = 0; first < NTESTS && strcmp(test, names[first]) != 0; first++)
            ;
        last = first;
        if (first == NTESTS)
            rc = 1;
    }
    sbuf = calloc(1, MAX_BYTES);
    rbuf = calloc(1, MAX_BYTES);
    if (rc || sbuf == NULL || rbuf == NULL || nproc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 probe_like [-t probe|mprobe|improbe|iprobe|all] "
                            "[-s bytes[,bytes]] [-i scale] [-b K]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int w = first; w <= last; w++) {
        char list[1024];
        snprintf(list, sizeof list, "%s", sizes);
        for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
            long size = atol(tok);
            if (size < 0 || size > MAX_BYTES) {
                if (rank == 0)
                    fprintf(stderr, "probe_like: size %ld out of range 0..%ld\n", size,
                            MAX_BYTES);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            double v = k ? burst(w, size, k) : pingpong(w, size);
            if (rank == 0)
                printf("%s%s %ld %.4f\n", names[w], k ? "_burst" : "", size, v);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
