/*
 * Passive-target progress without the target's help (issue 12): rank 0
 * (the target) sets a marker in its window and then computes, making no
 * MPI call at all, until every other rank has, one after the other,
 *   1. put 100+r into its slot (MPI_Win_lock exclusive / MPI_Put / unlock),
 *   2. read the marker and its slot back (lock shared / two MPI_Get /
 *      unlock) and checked them,
 *   3. added 1000 with MPI_Accumulate under MPI_Win_lock_all, flushed,
 *   4. added 1 with MPI_Fetch_and_op and checked the old value,
 * so that its slot holds 1101+r. Each step needs the target's side of the
 * window (a lock grant, the reply of a get, the acknowledgement of a flush
 * or unlock) while the target computes: with the RMA progress thread the
 * loop ends; without it the test hangs and the runner's timeout fails it.
 * The target's loop has no time limit, so nothing here depends on timing.
 *
 * Arguments: THREADLEVEL (single, funneled, serialized, multiple) and
 * FLAVOR: create (MPI_Win_create over user memory), dynamic
 * (MPI_Win_create_dynamic + attach), allocate (MPI_Win_allocate: direct on
 * one node unless CANAL_RMA_DIRECT=0). With CANAL_RMA_PROGRESS_THREAD unset
 * (auto) it also checks from /proc/self/task that the thread exists exactly
 * while a window that needs it exists: one for create, none for a window
 * with no_locks=true or a direct one, and none after MPI_Win_free. A third
 * argument "nofree" leaves the window to MPI_Finalize, which must stop the
 * thread before the device goes down.
 */
#include "mtest.h"

#include <sched.h>

/* A thread that was joined may linger in /proc for a moment after the
 * join returns (the kernel clears the tid before it releases the task):
 * wait for the count rather than sampling it once. */
static int threads_settle(int want)
{
    int n = mtest_count_threads();
    for (long i = 0; i < 2000000 && n != want; i++) {
        sched_yield();
        n = mtest_count_threads();
    }
    return n;
}

/* Compute without MPI until the origins' values are all there. */
static volatile double sink;

static void compute_until(volatile int *slot, int size)
{
    double x = 1.0;
    for (;;) {
        int done = 1;
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
        for (int r = 1; r < size; r++)
            if (__atomic_load_n(&slot[r], __ATOMIC_ACQUIRE) != 1101 + r)
                done = 0;
        if (done)
            break;
    }
    sink = x;
}

/* The marker is at displacement base0, this rank's slot at base0 + rank *
 * stride (stride 1 for windows with disp_unit sizeof(int), sizeof(int) for
 * a dynamic window, whose displacements are addresses). */
static void origin(MPI_Win win, MPI_Aint base0, MPI_Aint stride, int rank)
{
    int v = 100 + rank, marker = -1, mine = -1, one = 1, old = -1;
    int add = 1000;
    MPI_Aint me = base0 + rank * stride;

    /* 1: exclusive lock, put */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, me, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    /* 2: shared lock, gets */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&marker, 1, MPI_INT, 0, base0, 1, MPI_INT, win);
    MPI_Get(&mine, 1, MPI_INT, 0, me, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(marker == 4242, "MPI_Get of the target's marker returned %d, want 4242", marker);
    CHECK(mine == 100 + rank, "MPI_Get of my slot returned %d, want %d", mine, 100 + rank);
    /* 3: lock_all, accumulate, flush */
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(&add, 1, MPI_INT, 0, me, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(0, win);
    /* 4: fetch_and_op in the same epoch */
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, me, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);
    CHECK(old == 1100 + rank, "MPI_Fetch_and_op returned %d, want %d", old, 1100 + rank);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"single", "funneled", "serialized", "multiple"};
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    const char *lvl = argc > 1 ? argv[1] : "single";
    const char *flavor = argc > 2 ? argv[2] : "create";
    const char *mode = getenv("CANAL_RMA_PROGRESS_THREAD");
    int required = -1, provided, rank, size, t0, t1, direct;
    int *mem = NULL, *slot;
    MPI_Aint base0 = 0, stride = 1, addr;
    MPI_Win win;
    MPI_Info info;

    for (int i = 0; i < 4; i++)
        if (strcmp(lvl, names[i]) == 0)
            required = levels[i];
    if (required < 0) {
        fprintf(stderr, "rma_progress: unknown thread level %s\n", lvl);
        return 2;
    }
    MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == required, "provided %d, required %d", provided, required);
    if (size < 2) {
        CHECK(size >= 2, "needs at least 2 ranks");
        return mtest_finish();
    }
    /* One node: MPI_Win_allocate is direct whatever the channel, and so is
     * a dynamic window unless CMA is switched off (single copy). */
    const char *e_direct = getenv("CANAL_RMA_DIRECT"), *e_cma = getenv("CANAL_RMA_CMA");
    direct = !(e_direct && strcmp(e_direct, "0") == 0) &&
             (strcmp(flavor, "allocate") == 0 ||
              (strcmp(flavor, "dynamic") == 0 && !(e_cma && strcmp(e_cma, "0") == 0)));

    /* A window that promises no locks does not start the thread. */
    t0 = mtest_count_threads();
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    mem = calloc((size_t)size, sizeof *mem);
    MPI_Win_create(mem, size * (MPI_Aint)sizeof *mem, sizeof *mem, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    t1 = mtest_count_threads();
    if (mode == NULL)
        CHECK(t1 == t0, "a no_locks=true window started %d thread(s)", t1 - t0);
    MPI_Win_free(&win);
    free(mem);
    mem = NULL;

    t0 = threads_settle(t0);
    if (strcmp(flavor, "create") == 0) {
        mem = calloc((size_t)size, sizeof *mem);
        MPI_Win_create(mem, size * (MPI_Aint)sizeof *mem, sizeof *mem, MPI_INFO_NULL,
                       MPI_COMM_WORLD, &win);
        slot = mem;
    } else if (strcmp(flavor, "dynamic") == 0) {
        mem = calloc((size_t)size, sizeof *mem);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, size * (MPI_Aint)sizeof *mem);
        MPI_Get_address(mem, &addr);
        MPI_Bcast(&addr, 1, MPI_AINT, 0, MPI_COMM_WORLD);
        base0 = addr;
        stride = sizeof(int);
        slot = mem;
    } else if (strcmp(flavor, "allocate") == 0) {
        MPI_Win_allocate(size * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &slot, &win);
        memset(slot, 0, size * sizeof(int));
    } else {
        fprintf(stderr, "rma_progress: unknown flavor %s\n", flavor);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    t1 = mtest_count_threads();
    if (mode == NULL)
        CHECK(t1 == t0 + (direct ? 0 : 1), "%s window: %d thread(s) started, want %d", flavor,
              t1 - t0, direct ? 0 : 1);
    if (rank == 0)
        slot[0] = 4242;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        compute_until(slot, size);
        for (int r = 1; r < size; r++)
            CHECK(slot[r] == 1101 + r, "slot %d holds %d, want %d", r, slot[r], 1101 + r);
    } else {
        origin(win, base0, stride, rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 3 && strcmp(argv[3], "nofree") == 0)
        return mtest_finish(); /* MPI_Finalize must stop the thread itself */
    if (strcmp(flavor, "dynamic") == 0)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(mem);
    if (mode == NULL) {
        t1 = threads_settle(t0);
        CHECK(t1 == t0, "%d thread(s) still running after MPI_Win_free", t1 - t0);
    }
    return mtest_finish();
}
