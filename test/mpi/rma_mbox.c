/* Small gets and accumulates on an MPI_Win_create window, one at a time
 * with a flush after each (IMB-RMA's non-aggregate pattern), while the
 * target polls inside MPI, while it computes without calling MPI, while it
 * switches between the two, and with every rank origin and target at once.
 * On one node Canal sends such an operation through a mailbox that a
 * polling target serves and takes it back to single-copy (CMA) when the
 * target does not answer soon: every accumulate must be applied exactly
 * once and every get must return what is there. Rank 0 is the target of
 * phases 1-3, ranks 1.. the origins; every total is checked exactly. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 400 /* operations per origin and phase */
#define NCONST 13 /* long longs read back by a 104-byte get */

enum { E_SUM, E_DSUM, E_CONST, E_MINE = E_CONST + NCONST, E_RING = E_MINE + 64, E_COUNT };

static int rank, np, errs;
static long long *mem;

static void fail(const char *what, long long got, long long want)
{
    if (errs++ < 10)
        fprintf(stderr, "rank %d: %s: got %lld, want %lld\n", rank, what, got, want);
}

/* One origin's phase toward target 0: accumulate, get, check. */
static void origin_phase(MPI_Win win, int phase)
{
    long long one = 1, got, cst[NCONST];
    double half = 0.5;

    MPI_Win_lock_all(0, win);
    for (int i = 0; i < N; i++) {
        MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, E_SUM, 1, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, E_DSUM, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, E_MINE + rank, 1, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(0, win);
        /* only this rank adds to E_MINE + rank: a get after the flush sees it */
        MPI_Get(&got, 1, MPI_LONG_LONG, 0, E_MINE + rank, 1, MPI_LONG_LONG, win);
        MPI_Win_flush(0, win);
        if (got != (long long)phase * N + i + 1)
            fail("get after own accumulate", got, (long long)phase * N + i + 1);
        memset(cst, 0, sizeof cst);
        MPI_Get(cst, NCONST, MPI_LONG_LONG, 0, E_CONST, NCONST, MPI_LONG_LONG, win);
        MPI_Win_flush(0, win);
        for (int k = 0; k < NCONST; k++)
            if (cst[k] != 1000 + k)
                fail("get of constant words", cst[k], 1000 + k);
    }
    MPI_Win_unlock_all(win);
}

/* The target of a phase: wait (0 poll in MPI, 1 compute, 2 alternate)
 * until every origin's accumulates of this phase arrived. */
static void target_phase(int mode, int phase)
{
    volatile long long *sum = &mem[E_SUM];
    long long want = (long long)(phase + 1) * N * (np - 1);
    long spin = 0;

    for (;;) {
        if (__atomic_load_n(sum, __ATOMIC_ACQUIRE) >= want)
            break;
        if (mode == 0 || (mode == 2 && (spin / 20000) % 2 == 0)) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        spin++;
    }
}

int main(int argc, char **argv)
{
    MPI_Win win;
    const char *mode_name[3] = {"target polls", "target computes", "target alternates"};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np > 64) {
        if (rank == 0)
            fprintf(stderr, "rma_mbox: needs 2..64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mem = calloc(E_COUNT, sizeof *mem);
    if (mem == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int k = 0; k < NCONST; k++)
        mem[E_CONST + k] = 1000 + k;
    MPI_Win_create(mem, E_COUNT * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int phase = 0; phase < 3; phase++) {
        if (rank == 0)
            target_phase(phase, phase);
        else
            origin_phase(win, phase);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double dwant = 0.5 * (phase + 1) * N * (np - 1), d;
            memcpy(&d, &mem[E_DSUM], sizeof d);
            if (mem[E_SUM] != (long long)(phase + 1) * N * (np - 1))
                fail(mode_name[phase], mem[E_SUM], (long long)(phase + 1) * N * (np - 1));
            if (d != dwant)
                fail("double sum", (long long)(d * 2), (long long)(dwant * 2));
            for (int r = 1; r < np; r++)
                if (mem[E_MINE + r] != (long long)(phase + 1) * N)
                    fail("per-origin sum", mem[E_MINE + r], (long long)(phase + 1) * N);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* checked before the next phase adds */
    }

    /* Every rank accumulates into and reads from the next one while the
     * previous one does the same to it: nobody polls except in its flushes. */
    {
        int next = (rank + 1) % np;
        long long one = 1, got;
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < N; i++) {
            MPI_Accumulate(&one, 1, MPI_LONG_LONG, next, E_RING, 1, MPI_LONG_LONG, MPI_SUM, win);
            MPI_Win_flush(next, win);
            MPI_Get(&got, 1, MPI_LONG_LONG, next, E_RING, 1, MPI_LONG_LONG, win);
            MPI_Win_flush(next, win);
            if (got != i + 1)
                fail("ring get after accumulate", got, i + 1);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (mem[E_RING] != N)
            fail("ring sum", mem[E_RING], N);
    }

    MPI_Win_free(&win);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errs == 0 ? " No Errors\n" : " Found %d errors\n", errs);
    free(mem);
    MPI_Finalize();
    return 0;
}
