/*
 * Ranks that sleep in blocking barriers and small allreduces are woken when
 * the last rank arrives, never left to sleep out their timeout (issue 26).
 * Run with more ranks than CPUs: every rank but the last to arrive waits,
 * and with CANAL_SLEEP_AFTER_US=0 it soon sleeps in the shm channel, while
 * the others write the communicator's shared block (coll/shm.c) and ring.
 * A rank that rechecked only its rings after announcing its sleep missed the
 * ring of a peer that wrote the block just before: it slept until its
 * timeout with the barrier already complete. The library counts such sleeps
 * (MPI_T pvar canal_wait_missed_wakes: a sleep that lasted its whole
 * CANAL_WAIT_SLEEP_US although what it waited for had happened); with
 * CANAL_WAIT_SLEEP_US long (1 s), a waker merely descheduled between its
 * write and its ring rings well within it, so every count is a lost wake-up.
 * No timing is measured. The results are checked too.
 * Argument: rounds (default 2000). Prints the job's sleeps and missed wakes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank;

static int pvar_open(MPI_T_pvar_session ps, const char *name, MPI_T_pvar_handle *h)
{
    int idx, count;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: no MPI_T pvar %s\n", wrank, name);
        errs++;
        return 0;
    }
    if (MPI_T_pvar_handle_alloc(ps, idx, NULL, h, &count) != MPI_SUCCESS || count != 1 ||
        MPI_T_pvar_start(ps, *h) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: pvar %s cannot be read\n", wrank, name);
        errs++;
        return 0;
    }
    return 1;
}

static unsigned long long pvar_get(MPI_T_pvar_session ps, MPI_T_pvar_handle h, int ok)
{
    unsigned long long v = 0;
    if (ok && MPI_T_pvar_read(ps, h, &v) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_T_pvar_read failed\n", wrank);
        errs++;
    }
    return v;
}

int main(int argc, char **argv)
{
    int provided, size, rounds = argc > 1 ? atoi(argv[1]) : 2000;
    int ok_s, ok_m, x, v[64], sum[64];
    unsigned long long mine[2], all[2];
    volatile double spin = 0;
    MPI_T_pvar_session ps;
    MPI_T_pvar_handle hs, hm;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_T_pvar_session_create(&ps);
    ok_s = pvar_open(ps, "canal_wait_sleeps", &hs);
    ok_m = pvar_open(ps, "canal_wait_missed_wakes", &hm);

    for (int i = 0; i < rounds; i++) {
        /* a little uneven work, so that the last to arrive changes */
        for (int k = 0; k < ((wrank + i) % size) * 20000; k++)
            spin += k;
        switch (i % 3) {
        case 0:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case 1:
            x = wrank + i;
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (x != size * (size - 1) / 2 + size * i && errs++ < 10)
                fprintf(stderr, "rank %d: round %d: allreduce gave %d\n", wrank, i, x);
            break;
        default:
            for (int k = 0; k < 64; k++)
                v[k] = wrank * k + i;
            MPI_Allreduce(v, sum, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int k = 0; k < 64; k++)
                if (sum[k] != k * (size * (size - 1) / 2) + size * i && errs++ < 10)
                    fprintf(stderr, "rank %d: round %d: allreduce[%d] gave %d\n", wrank, i, k,
                            sum[k]);
            break;
        }
    }

    mine[0] = pvar_get(ps, hs, ok_s);
    mine[1] = pvar_get(ps, hm, ok_m);
    MPI_Reduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0) {
        printf("%d ranks, %d rounds: %llu sleeps, %llu missed wake-ups\n", size, rounds, all[0],
               all[1]);
        if (all[1] != 0) {
            fprintf(stderr, "%llu sleeps outlasted a wake-up that never came\n", all[1]);
            errs++;
        }
    }
    MPI_T_pvar_session_free(&ps);
    MPI_T_finalize();
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
