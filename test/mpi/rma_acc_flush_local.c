/*
 * An accumulate followed by MPI_Win_flush_local is applied at the target by
 * the time the origin's next collective returns: the shape of OSU 7.4's
 * osu_acc_latency -s flush_local -c (validation). Rank 0 locks rank 1's
 * window (shared), then for each size (1 B to 8 KiB of MPI_CHAR, and
 * MPI_INT / MPI_DOUBLE) issues MPI_Accumulate(SUM), MPI_Win_flush_local and
 * MPI_Barrier; rank 1 reads its own window memory after the barrier and
 * reports whether the sum is there. Then the epoch goes on with more
 * accumulates and closes with an unlock, after which the totals must be
 * exact. argv[1]: "create" (MPI_Win_create memory: CMA on one node),
 * "dynamic" (MPI_Win_create_dynamic) or "allocate" (shared memory).
 *
 * MPI 4.0 promises only local completion at MPI_Win_flush_local; MPICH and
 * Open MPI apply the accumulate by then anyway, and OSU's check counts on it.
 * Before conf6, Canal queued small accumulates of created and dynamic windows
 * on one node until the next flush or unlock, so the target read its initial
 * value (osu_acc_latency printed "failed" at every size up to 4 KiB); with CMA
 * off (active messages) the barrier could end before the target's agent had
 * applied the accumulate (3 runs in 15).
 */
#include "mtest.h"

#include <string.h>

#define MAXB 8192
#define MORE 9 /* (20 + 10 * (1 + MORE) fits a char) */

static void run(const char *flavor, MPI_Datatype type, int tsize, int rank)
{
    MPI_Win win;
    char *base = NULL, *origin = malloc(MAXB);
    MPI_Aint disp = 0;
    int ok;

    if (strcmp(flavor, "allocate") == 0) {
        OK(MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    } else if (strcmp(flavor, "dynamic") == 0) {
        base = malloc(MAXB);
        OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        OK(MPI_Win_attach(win, base, MAXB));
        OK(MPI_Get_address(base, &disp));
        OK(MPI_Bcast(&disp, 1, MPI_AINT, 1, MPI_COMM_WORLD));
    } else {
        base = malloc(MAXB);
        OK(MPI_Win_create(base, MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    for (int bytes = tsize; bytes <= MAXB; bytes *= 2) {
        int n = bytes / tsize;

        /* both sides: the target starts at 20, the origin adds 10 (as OSU) */
        for (int i = 0; i < n; i++) {
            if (type == MPI_CHAR) {
                base[i] = 20;
                origin[i] = 10;
            } else if (type == MPI_INT) {
                ((int *)base)[i] = 20;
                ((int *)origin)[i] = 10;
            } else {
                ((double *)base)[i] = 20;
                ((double *)origin)[i] = 10;
            }
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
            OK(MPI_Accumulate(origin, n, type, 1, disp, n, type, MPI_SUM, win));
            OK(MPI_Win_flush_local(1, win));
            OK(MPI_Barrier(MPI_COMM_WORLD));
            OK(MPI_Recv(&ok, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ok, "%s window, %d bytes of %s: the target did not see the accumulate "
                      "after MPI_Win_flush_local and a barrier",
                  flavor, bytes, type == MPI_CHAR ? "MPI_CHAR" : type == MPI_INT ? "MPI_INT" : "MPI_DOUBLE");
            for (int k = 0; k < MORE; k++) {
                OK(MPI_Accumulate(origin, n, type, 1, disp, n, type, MPI_SUM, win));
                OK(MPI_Win_flush_local(1, win));
            }
            OK(MPI_Win_unlock(1, win));
        } else {
            OK(MPI_Barrier(MPI_COMM_WORLD));
            ok = 1;
            for (int i = 0; i < n && ok; i++)
                ok = type == MPI_CHAR  ? base[i] == 30
                     : type == MPI_INT ? ((int *)base)[i] == 30
                                       : ((double *)base)[i] == 30;
            OK(MPI_Send(&ok, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            /* after the unlock: all 1 + MORE accumulates, exactly */
            for (int i = 0; i < n; i++) {
                double want = 20 + 10.0 * (1 + MORE);
                double got = type == MPI_CHAR  ? base[i]
                             : type == MPI_INT ? ((int *)base)[i]
                                               : ((double *)base)[i];
                CHECK(got == want, "%s window, %d bytes: element %d is %g after the unlock, not %g",
                      flavor, bytes, i, got, want);
                if (got != want)
                    break;
            }
        }
    }
    if (strcmp(flavor, "dynamic") == 0)
        OK(MPI_Win_detach(win, base));
    OK(MPI_Win_free(&win));
    if (strcmp(flavor, "allocate") != 0)
        free(base);
    free(origin);
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "create";

    mtest_init(&argc, &argv);
    if (mtest_size != 2) {
        if (mtest_rank == 0)
            fprintf(stderr, "rma_acc_flush_local needs 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    run(flavor, MPI_CHAR, 1, mtest_rank);
    run(flavor, MPI_INT, (int)sizeof(int), mtest_rank);
    run(flavor, MPI_DOUBLE, (int)sizeof(double), mtest_rank);
    return mtest_finish();
}
