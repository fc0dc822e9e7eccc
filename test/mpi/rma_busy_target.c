/*
 * Exclusive locks on a target that waits outside MPI (issue 18): the lock
 * pattern of OpenCoarrays' events (libcaf_mpi's event post / event wait).
 * A waiting image opens MPI_Win_lock_all(MPI_MODE_NOCHECK) on the event's
 * window and polls its own event counter, sleeping between looks; the
 * image that posts takes MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on the waiter,
 * adds 1 with MPI_Accumulate and unlocks. The NOCHECK lock must not stand
 * in the way of the exclusive one (it promises that no conflicting lock is
 * taken, and MPICH, like Canal's message windows, takes no lock for it);
 * before the fix a direct window took a real shared lock and the poster
 * waited forever in MPI_Win_lock. A waiter that holds no lock at all and
 * makes no MPI call must not delay the lock either.
 *
 * Each round has two phases. In the first, rank 0 posts to every other
 * rank (lock exclusive / put a value / unlock, then lock exclusive /
 * accumulate the event / unlock) while they wait. In the second, every
 * other rank posts to rank 0 at once, incrementing a total under the
 * exclusive lock with get, flush, put (so a lock that was not exclusive
 * would lose increments), while rank 0 waits for all of them. A waiter
 * then reads the value and consumes the event with MPI_Fetch_and_op under
 * a shared lock on itself, as libcaf does. The rounds:
 *   1. the waiter holds MPI_Win_lock_all(MPI_MODE_NOCHECK) while it waits,
 *   2. the waiter holds no lock and makes no MPI call while it waits
 *      (not run when the window needs the target's agent and
 *      CANAL_RMA_PROGRESS_THREAD=0: nobody serves it then, by design).
 * Nothing depends on timing: the waits have no limit, so a hang is the
 * runner's timeout.
 *
 * Arguments: FLAVOR (create, allocate, shared, dynamic) and WAIT: sleep
 * (nanosleep between looks, no MPI call) or sync (MPI_Win_sync, nanosleep,
 * MPI_Win_flush on itself: libcaf's loop). WAIT=sleep on a window that
 * needs the agent with CANAL_RMA_PROGRESS_THREAD=0 is refused (exit 2).
 */
#include "mtest.h"

#include <time.h>

enum { EV = 0, DATA = 1, TOTAL = 2, NWORDS = 8 };

static MPI_Win win;
static int *mine;       /* this rank's window memory */
static MPI_Aint *bases; /* dynamic: every rank's address; else NULL */
static int rank, size;

static MPI_Aint disp(int target, int word)
{
    return (bases ? bases[target] : 0) + word * (MPI_Aint)sizeof(int); /* disp_unit 1 */
}

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

/* Wait until this rank's event counter reaches want. */
static void wait_event(int want, int use_mpi)
{
    long ns = 10000;
    for (;;) {
        if (use_mpi)
            MPI_Win_sync(win);
        if (__atomic_load_n(&mine[EV], __ATOMIC_ACQUIRE) >= want)
            break;
        nap(ns);
        if (ns < 1000000)
            ns += 10000;
        if (use_mpi)
            MPI_Win_flush(rank, win); /* libcaf: "needed to enforce MPI progress" */
    }
}

/* Read DATA and TOTAL and take `want` off the event, as event wait does. */
static void consume(int want, int *data, int *total)
{
    int minus = -want, old = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Get(data, 1, MPI_INT, rank, disp(rank, DATA), 1, MPI_INT, win);
    MPI_Get(total, 1, MPI_INT, rank, disp(rank, TOTAL), 1, MPI_INT, win);
    MPI_Fetch_and_op(&minus, &old, MPI_INT, rank, disp(rank, EV), MPI_SUM, win);
    MPI_Win_unlock(rank, win);
    CHECK(old == want, "the event counter was %d, want %d", old, want);
}

/* event post: an exclusive lock for the data, another for the event. */
static void post(int t, int value)
{
    int one = 1, got = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    if (value >= 0) {
        MPI_Put(&value, 1, MPI_INT, t, disp(t, DATA), 1, MPI_INT, win);
    } else { /* read-modify-write of the total: only correct if exclusive */
        MPI_Get(&got, 1, MPI_INT, t, disp(t, TOTAL), 1, MPI_INT, win);
        MPI_Win_flush(t, win);
        got++;
        MPI_Put(&got, 1, MPI_INT, t, disp(t, TOTAL), 1, MPI_INT, win);
    }
    MPI_Win_unlock(t, win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, t, disp(t, EV), 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(t, win);
}

static void round_(int k, int nocheck, int use_mpi)
{
    int data, total;

    /* Phase 1: rank 0 posts to everyone else. */
    if (rank != 0 && nocheck)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD); /* the waiters hold their locks now */
    if (rank == 0) {
        for (int t = 1; t < size; t++)
            post(t, 1000 * k + t);
    } else {
        wait_event(1, use_mpi);
        if (nocheck)
            MPI_Win_unlock_all(win);
        consume(1, &data, &total);
        CHECK(data == 1000 * k + rank, "round %d: the posted value is %d, want %d", k, data,
              1000 * k + rank);
    }

    /* Phase 2: everyone else posts to rank 0 at once. */
    if (rank == 0 && nocheck)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        wait_event(size - 1, use_mpi);
        if (nocheck)
            MPI_Win_unlock_all(win);
        consume(size - 1, &data, &total);
        CHECK(total == (size - 1) * k,
              "round %d: the total is %d, want %d (an exclusive lock was not exclusive)", k,
              total, (size - 1) * k);
    } else {
        post(0, -1);
    }
}

int main(int argc, char **argv)
{
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    const char *wait = argc > 2 ? argv[2] : "sleep";
    const char *thread = getenv("CANAL_RMA_PROGRESS_THREAD");
    const char *direct_env = getenv("CANAL_RMA_DIRECT");
    int use_mpi = strcmp(wait, "sync") == 0, needs_agent, no_thread;
    MPI_Aint bytes = NWORDS * (MPI_Aint)sizeof(int), addr;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || (!use_mpi && strcmp(wait, "sleep") != 0)) {
        if (rank == 0)
            fprintf(stderr, "rma_busy_target: needs 2 or more ranks and WAIT sleep or sync\n");
        MPI_Finalize();
        return 2;
    }
    /* All ranks run on one node here: allocate and shared windows are
     * direct (loads and stores) unless CANAL_RMA_DIRECT=0 turns allocate
     * into a message window. */
    needs_agent = strcmp(flavor, "create") == 0 || strcmp(flavor, "dynamic") == 0 ||
                  (strcmp(flavor, "allocate") == 0 && direct_env && strcmp(direct_env, "0") == 0);
    no_thread = thread != NULL && strcmp(thread, "0") == 0;
    if (needs_agent && no_thread && !use_mpi) {
        if (rank == 0)
            fprintf(stderr, "rma_busy_target: a %s window with CANAL_RMA_PROGRESS_THREAD=0 needs "
                            "WAIT=sync (nobody serves a target that makes no MPI call)\n",
                    flavor);
        MPI_Finalize();
        return 2;
    }

    if (strcmp(flavor, "create") == 0) {
        mine = calloc(NWORDS, sizeof *mine);
        MPI_Win_create(mine, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else if (strcmp(flavor, "allocate") == 0) {
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    } else if (strcmp(flavor, "shared") == 0) {
        MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    } else if (strcmp(flavor, "dynamic") == 0) {
        mine = calloc(NWORDS, sizeof *mine);
        bases = malloc(sizeof *bases * (size_t)size);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mine, bytes);
        MPI_Get_address(mine, &addr);
        MPI_Allgather(&addr, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    } else {
        if (rank == 0)
            fprintf(stderr, "rma_busy_target: unknown flavor %s\n", flavor);
        MPI_Finalize();
        return 2;
    }
    /* Zero this rank's words before anyone posts (allocate does not). */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(mine, 0, (size_t)bytes);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    round_(1, 1, use_mpi);
    round_(2, 1, use_mpi);
    if (!(needs_agent && no_thread))
        round_(3, 0, 0);

    MPI_Barrier(MPI_COMM_WORLD);
    if (bases != NULL)
        MPI_Win_detach(win, mine);
    MPI_Win_free(&win);
    if (strcmp(flavor, "create") == 0 || bases != NULL)
        free(mine);
    free(bases);
    return mtest_finish();
}
