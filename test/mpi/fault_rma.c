/* A window's target dies in the middle of an epoch (issue 23), under
 * mpiexec -disable-auto-cleanup with MPI_ERRORS_RETURN on the window:
 *   argv[1] "lock": rank 1 (the target) locks its own window exclusively
 *     and kills itself (SIGKILL) while rank 0 tries lock / put / unlock on
 *     it (passive target); rank 0's epoch fails with MPIX_ERR_PROC_FAILED
 *     instead of waiting for ever for the lock, and it goes on;
 *   argv[1] "fence": rank 2 kills itself between two fences while every
 *     rank puts into its right neighbour; each survivor's closing fence
 *     fails with MPIX_ERR_PROC_FAILED.
 *   argv[1] "live": rank 2 kills itself; ranks 0 and 1 then lock, put to
 *     and unlock each other's window 200 times (passive target between
 *     live members): the live targets' agents keep serving them (before,
 *     an agent whose any-source receive failed for the loss re-posted it
 *     and failed again, for ever, logging each time).
 *   argv[1] "get": rank 1 leaves MPI for good (a flag file says so) and
 *     dies 2 s later; rank 0's MPI_Rget and rank 2's MPI_Get_accumulate
 *     toward it, issued once the flag is there, fail with
 *     MPIX_ERR_PROC_FAILED (run with CMA off: the active-message path).
 *   argv[1] "gone": as "get", but the survivors issue their calls only once
 *     the victim's process is gone (no /proc entry, or a zombie), so that
 *     with CMA on the kernel refuses the read (ESRCH): the same class, at
 *     the call or at its completion; on a shared-memory window (whose
 *     memory outlives the victim) at a flush toward it, once the device
 *     has the launcher's notice (ULFM: eventually).
 * argv[2] "create" (MPI_Win_create: operations go through the target's
 * agent) or "allocate" (MPI_Win_allocate: in shared memory on one node).
 * Nobody hangs; the survivors then shrink MPI_COMM_WORLD and sum on it. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;

/* The get mode's flag file goes when rank 0 leaves (after the survivors'
 * sum: every survivor has seen it by then). */
static char unlink_at_exit[64];
static void unlink_now(void) { unlink(unlink_at_exit); }
static void atexit_unlink(const char *path)
{
    snprintf(unlink_at_exit, sizeof unlink_at_exit, "%s", path);
    atexit(unlink_now);
}

#include "fault_util.h"

/* Whether process pid has no memory left to read: no /proc entry, or a
 * zombie (state Z or X). */
static int process_gone(long pid)
{
    char path[64], line[256], *p;
    FILE *f;
    int z = 0;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return 1;
    if (fgets(line, sizeof line, f) != NULL && (p = strrchr(line, ')')) != NULL)
        z = p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
    fclose(f);
    return z;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "lock";
    const char *flavor = argc > 2 ? argv[2] : "create";
    int size, rc = MPI_SUCCESS, victim, *base = NULL, one = 1, all = 0, want = 0;
    MPI_Win win;
    MPI_Comm shrunk;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int gone = strcmp(mode, "gone") == 0;
    victim = strcmp(mode, "lock") == 0 || strcmp(mode, "get") == 0 || gone ? 1 : 2; /* fence, live: 2 */
    if (size < 3)
        fail("run with 3 processes or more", MPI_SUCCESS);
    if (strcmp(flavor, "allocate") == 0) {
        rc = MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                              &win);
    } else {
        base = calloc(64, sizeof(int));
        rc = MPI_Win_create(base, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win);
    }
    if (rc != MPI_SUCCESS)
        fail("creating the window", rc);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);

    if (strcmp(mode, "lock") == 0) {
        /* The victim dies holding an exclusive lock on its own window. */
        if (rank == victim && (rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, win)) != MPI_SUCCESS)
            fail("the victim's lock", rc);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) {
            raise(SIGKILL);
            pause();
        }
        if (rank == 0) {
            /* Until the loss is seen: each epoch may still succeed before. */
            for (long i = 0; rc == MPI_SUCCESS; i++) {
                rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, victim, 0, win);
                if (rc == MPI_SUCCESS) {
                    rc = MPI_Put(&one, 1, MPI_INT, victim, (int)(i % 64), 1, MPI_INT, win);
                    int rc2 = MPI_Win_unlock(victim, win);
                    if (rc == MPI_SUCCESS)
                        rc = rc2;
                }
            }
            if (error_class(rc) != MPIX_ERR_PROC_FAILED)
                fail("passive-target epoch on a dead target", rc);
            printf("rank 0: lock/put/unlock on the dead target failed with "
                   "MPIX_ERR_PROC_FAILED\n");
        }
    } else if (strcmp(mode, "live") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) {
            raise(SIGKILL);
            pause();
        }
        sleep(1); /* (the survivors hear of the loss before their epochs) */
        if (rank < 2) {
            int peer = 1 - rank, got = -1;
            for (int i = 0; i < 200 && rc == MPI_SUCCESS; i++) {
                rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
                if (rc == MPI_SUCCESS) {
                    int v = 1000 * rank + i;
                    rc = MPI_Put(&v, 1, MPI_INT, peer, 10 + rank, 1, MPI_INT, win);
                    int rc2 = MPI_Win_unlock(peer, win);
                    if (rc == MPI_SUCCESS)
                        rc = rc2;
                }
            }
            if (rc != MPI_SUCCESS)
                fail("passive-target epochs between live members after a loss", rc);
            /* Both are done (a message between the two), then the last value
             * the peer put here, read under our own lock. */
            int token = 0;
            MPI_Sendrecv_replace(&token, 1, MPI_INT, peer, 77, peer, 77, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
            got = base[10 + peer];
            MPI_Win_unlock(rank, win);
            if (got != 1000 * peer + 199)
                fail("the peer's puts did not arrive", MPI_SUCCESS);
            printf("rank %d: 200 epochs with the live peer after the loss\n", rank);
        }
    } else if (strcmp(mode, "get") == 0 || gone) {
        int got[4] = {-1, -1, -1, -1};
        char flag[64] = "";
        long vpid = (long)getpid();
        MPI_Request req;
        /* MPI_MODE_NOCHECK: no lock message waits for the victim's agent. */
        if (rank != victim && (rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, win)) != MPI_SUCCESS)
            fail("MPI_Win_lock_all", rc);
        /* The others issue their operations only once the victim is out of
         * MPI for good: it says so with a file, outside MPI. (Before, they
         * issued them after a barrier, and a victim still in the barrier's
         * progress could answer them: under CI's load both succeeded.) */
        if (rank == 0)
            snprintf(flag, sizeof flag, "/tmp/canal_fault_rma.%ld", (long)getpid());
        MPI_Bcast(flag, sizeof flag, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Bcast(&vpid, 1, MPI_LONG, victim, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) {
            FILE *f = fopen(flag, "w");
            if (f != NULL)
                fclose(f);
            if (!gone)
                sleep(2); /* (the others' requests reach it first, unanswered) */
            raise(SIGKILL);
            pause();
        }
        for (int i = 0; i < 60000 && access(flag, F_OK) != 0; i++)
            usleep(1000);
        if (access(flag, F_OK) != 0)
            fail("the victim never left MPI (no flag file after 60 s)", MPI_SUCCESS);
        for (int i = 0; gone && i < 60000 && !process_gone(vpid); i++)
            usleep(1000);
        if (gone && !process_gone(vpid))
            fail("the victim's process still runs 60 s after its SIGKILL", MPI_SUCCESS);
        /* get: the calls succeed (the victim was alive), their completion
         * fails. gone: the call itself may fail already (the window's
         * process is gone); if it does not, its completion fails, or at the
         * latest a flush toward the victim (a shared-memory window's get
         * completes at the call: the victim's memory is still mapped). */
        if (rank == 0) {
            rc = MPI_Rget(got, 4, MPI_INT, victim, 0, 4, MPI_INT, win, &req);
            if (rc != MPI_SUCCESS && !(gone && error_class(rc) == MPIX_ERR_PROC_FAILED))
                fail("MPI_Rget toward the target before it died", rc);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            /* (a shared-memory window's flush polls the device only now and
             * then: the launcher's notice of the death comes within a few) */
            for (int i = 0; rc == MPI_SUCCESS && gone && i < 3000; i++) {
                rc = MPI_Win_flush(victim, win);
                if (rc == MPI_SUCCESS)
                    usleep(10000);
            }
            if (error_class(rc) != MPIX_ERR_PROC_FAILED)
                fail(gone ? "MPI_Rget, MPI_Wait and MPI_Win_flush toward a dead target"
                          : "MPI_Wait on an MPI_Rget whose target died", rc);
            printf("rank 0: the MPI_Rget failed with MPIX_ERR_PROC_FAILED\n");
        } else if (rank == 2) {
            rc = MPI_Get_accumulate(&one, 1, MPI_INT, got, 1, MPI_INT, victim, 5, 1, MPI_INT,
                                    MPI_SUM, win);
            if (rc != MPI_SUCCESS && !(gone && error_class(rc) == MPIX_ERR_PROC_FAILED))
                fail("MPI_Get_accumulate toward the target before it died", rc);
            for (int i = 0; rc == MPI_SUCCESS && i < (gone ? 3000 : 1); i++) {
                rc = MPI_Win_flush_local(victim, win);
                if (rc == MPI_SUCCESS && gone)
                    usleep(10000);
            }
            if (error_class(rc) != MPIX_ERR_PROC_FAILED)
                fail("MPI_Win_flush_local after an MPI_Get_accumulate whose target died", rc);
            printf("rank 2: the MPI_Get_accumulate failed with MPIX_ERR_PROC_FAILED\n");
        }
        if (rank == 0)
            atexit_unlink(flag);
    } else {
        if ((rc = MPI_Win_fence(0, win)) != MPI_SUCCESS)
            fail("the first fence", rc);
        if (rank == victim) {
            raise(SIGKILL);
            pause();
        }
        rc = MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_fence(0, win);
        if (rc == MPI_SUCCESS || error_class(rc) != MPIX_ERR_PROC_FAILED)
            fail("a fence epoch whose member died", rc);
        printf("rank %d: the fence failed with MPIX_ERR_PROC_FAILED\n", rank);
    }
    fflush(stdout);

    /* The survivors go on without the window. */
    if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk)) != MPI_SUCCESS)
        fail("MPIX_Comm_shrink", rc);
    if ((rc = MPI_Allreduce(&rank, &all, 1, MPI_INT, MPI_SUM, shrunk)) != MPI_SUCCESS)
        fail("MPI_Allreduce on the shrunk communicator", rc);
    for (int r = 0; r < size; r++)
        want += r == victim ? 0 : r;
    if (all != want)
        fail("wrong sum on the shrunk communicator", MPI_SUCCESS);
    MPI_Comm_free(&shrunk);
    if (rank == 0)
        printf("No Errors\n");
    fflush(stdout);
    MPI_Finalize(); /* (the window is left: freeing it is collective over a dead rank) */
    return 0;
}
