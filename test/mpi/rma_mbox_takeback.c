/* Lone small gets and accumulates toward a target that polls, with origins
 * that take their requests back at once (run with CANAL_RMA_MBOX_WAIT_US=1,
 * and with the machine loaded): every answer must be the one asked for.
 *
 * On one node Canal's origin posts a lone small get or accumulate of a
 * created or dynamic window to the target's mailbox when the target polls,
 * and takes it back to do it by single copy when the target has not
 * claimed it within CANAL_RMA_MBOX_WAIT_US; it then posts its next request
 * in the same mailbox. A target that read a request's fields before it
 * claimed the mailbox could claim the next request with the previous one's
 * fields: a get answered with the bytes of the get before it (seen once in
 * rma_bw_windows under ASan: "byte 4: got byte 3's value"), an accumulate
 * applied at the wrong place.
 *
 * Rank 0 is the origin, every other rank a target that polls (MPI_Test on a
 * receive of rank 0's end message). Each round rank 0 gets one byte at a
 * pseudo-random offset of a target's window (whose bytes all differ from
 * their neighbours') and checks it after MPI_Win_flush, then adds 1 to a
 * pseudo-random int of the target's second region (MPI_Accumulate, MPI_SUM)
 * and flushes. At the end every target checks its ints against the counts
 * rank 0 sends it.
 *
 * Usage: rma_mbox_takeback [rounds] [create|dynamic] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NBYTES = 4096, NINTS = 256 };

static unsigned char byte_at(int target, int k) { return (unsigned char)(k * 7 + target * 3 + 1); }

int main(int argc, char **argv)
{
    int rank, np, rounds = argc > 1 ? atoi(argv[1]) : 20000, errs = 0, dyn;
    unsigned char *mem;
    int *ints, *counts = NULL;
    MPI_Aint *base;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    dyn = argc > 2 && strcmp(argv[2], "dynamic") == 0;
    if (np < 2 || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "run with 2 processes or more and rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mem = malloc(NBYTES + NINTS * sizeof(int));
    base = malloc(sizeof *base * (size_t)np);
    if (mem == NULL || base == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int k = 0; k < NBYTES; k++)
        mem[k] = byte_at(rank, k);
    ints = (int *)(void *)(mem + NBYTES);
    memset(ints, 0, NINTS * sizeof(int));
    if (dyn) {
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, NBYTES + NINTS * sizeof(int));
    } else {
        MPI_Win_create(mem, NBYTES + NINTS * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    {
        MPI_Aint mine;
        MPI_Get_address(mem, &mine);
        MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
    }
    if (!dyn)
        for (int r = 0; r < np; r++)
            base[r] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        uint32_t x = 12345u;
        counts = calloc((size_t)np * NINTS, sizeof *counts);
        if (counts == NULL)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < rounds; i++) {
            int t = 1 + i % (np - 1), k, one = 1;
            unsigned char got = 0;
            x = x * 1103515245u + 12345u;
            k = (int)((x >> 8) % NBYTES);
            MPI_Get(&got, 1, MPI_BYTE, t, base[t] + k, 1, MPI_BYTE, win);
            MPI_Win_flush(t, win);
            if (got != byte_at(t, k) && errs++ < 10)
                fprintf(stderr, "round %d: byte %d of rank %d: got %u, want %u\n", i, k, t, got,
                        byte_at(t, k));
            x = x * 1103515245u + 12345u;
            k = (int)((x >> 8) % NINTS);
            MPI_Accumulate(&one, 1, MPI_INT, t, base[t] + NBYTES + k * (MPI_Aint)sizeof(int), 1,
                           MPI_INT, MPI_SUM, win);
            MPI_Win_flush(t, win);
            counts[t * NINTS + k]++;
        }
        MPI_Win_unlock_all(win);
        for (int t = 1; t < np; t++)
            MPI_Send(counts + t * NINTS, NINTS, MPI_INT, t, 0, MPI_COMM_WORLD);
    } else {
        /* poll (the progress hook serves the mailboxes) until rank 0 ends */
        int done = 0, want[NINTS];
        MPI_Request req;
        MPI_Irecv(want, NINTS, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        while (!done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int k = 0; k < NINTS; k++)
            if (ints[k] != want[k] && errs++ < 10)
                fprintf(stderr, "rank %d: int %d is %d after %d accumulates of 1\n", rank, k,
                        ints[k], want[k]);
        MPI_Win_unlock(rank, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (dyn)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errs == 0 ? " No Errors\n" : " Found %d errors\n", errs);
    free(counts);
    free(base);
    free(mem);
    MPI_Finalize();
    return errs != 0;
}
