/*
 * A fixed loop to count instructions with callgrind (doc/bench.md,
 * "THREAD_MULTIPLE, one thread"): N iterations of MPI_Irecv + MPI_Send +
 * MPI_Wait of 8 bytes to itself on one rank (no spinning, so the count is
 * repeatable), or an 8-byte ping-pong of MPI_Send/MPI_Recv on 2 ranks
 * (per-call counts only: the totals are mostly polling while waiting).
 * Instructions per iteration are the difference of two runs over the
 * difference of their N, which cancels MPI_Init and MPI_Finalize:
 *   mpiexec -n 1 valgrind --tool=callgrind ./insn_loop 3000 [T] [bytes]
 * T initializes with MPI_Init_thread(MPI_THREAD_MULTIPLE) (locked mode);
 * bytes (default 8, at most 4096) is the message size, for the steps at
 * the ring's and the copies' size boundaries (doc/bench.md, helper lat64).
 * W (2 ranks): an osu_bw-like window instead of the ping-pong, each
 * iteration 64 MPI_Isend + MPI_Waitall on rank 0, 64 MPI_Irecv +
 * MPI_Waitall on rank 1, then a 0-byte reply (per-call counts only).
 * M (2 ranks): osu_mbw_mr's loop instead (one pair): W's window, every
 * receive into the same buffer, then a 4-byte reply of tag 101.
 * With W or M, S0 or S1 makes that rank sleep before its MPI_Waitall (S1:
 * the window is then in the ring, and the first poll delivers it all) or
 * its reply's MPI_Recv (S0): per-message counts without empty polls.
 * L0..L3 initializes with MPI_Init_thread at that level (MPI_THREAD_SINGLE
 * .. MPI_THREAD_MULTIPLE; T is L3), one thread either way.
 * S0 or S1 (2 ranks, ping-pong): that rank sleeps 10 ms (S0:MS, MS ms) before each
 * MPI_Recv, so its message is in the ring when the receive starts and the
 * first poll takes it: that rank's counts have no empty polls, and its
 * MPI_Recv's inclusive count is the path from the packet to the return
 * (the other rank waits; discard its counts).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int provided, rank, size, threads = 0, window = 0, mbw = 0, level = -1, napper = -1,
        nap_us = 10000, len = 8;
    static char sbuf[4096], rbuf[64][4096];
    MPI_Request reqs[64];

    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "T") == 0)
            threads = 1;
        else if (strcmp(argv[a], "W") == 0)
            window = 1;
        else if (strcmp(argv[a], "M") == 0)
            window = mbw = 1;
        else if (argv[a][0] == 'L')
            level = atoi(argv[a] + 1);
        else if (argv[a][0] == 'S') {
            char *ms = strchr(argv[a], ':');
            napper = atoi(argv[a] + 1);
            if (ms != NULL)
                nap_us = 1000 * atoi(ms + 1);
        }
        else
            len = atoi(argv[a]);
    }
    if (len < 0 || len > (int)sizeof sbuf) {
        fprintf(stderr, "insn_loop: message size %d outside 0..%zu\n", len, sizeof sbuf);
        return 2;
    }
    if (threads)
        level = MPI_THREAD_MULTIPLE;
    if (level >= 0) {
        int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                        MPI_THREAD_MULTIPLE};
        MPI_Init_thread(&argc, &argv, levels[level > 3 ? 3 : level], &provided);
    } else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (long i = 0; i < n; i++) {
        if (size == 1) {
            MPI_Request req;
            MPI_Irecv(rbuf[0], len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req);
            MPI_Send(sbuf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (window && rank == 0) {
            for (int k = 0; k < 64; k++)
                MPI_Isend(sbuf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(64, reqs, MPI_STATUSES_IGNORE);
            if (napper == 0)
                usleep(nap_us);
            MPI_Recv(rbuf[0], mbw ? 4 : 0, MPI_BYTE, 1, mbw ? 101 : 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (window && rank == 1) {
            for (int k = 0; k < 64; k++)
                MPI_Irecv(rbuf[mbw ? 0 : k], len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &reqs[k]);
            if (napper == 1)
                usleep(nap_us);
            MPI_Waitall(64, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(sbuf, mbw ? 4 : 0, MPI_BYTE, 0, mbw ? 101 : 1, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Send(sbuf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            if (napper == 0)
                usleep(nap_us);
            MPI_Recv(rbuf[0], len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            if (napper == 1)
                usleep(nap_us);
            MPI_Recv(rbuf[0], len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
