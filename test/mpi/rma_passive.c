/*
 * Passive-target progress while the target computes: rank 0 spins on its
 * own window memory without calling MPI until the value the others put
 * there appears (at most 45 seconds, so that a loaded machine does not
 * decide the test; the runner gives up at 60). The others lock, put, unlock. This
 * works with direct windows (MPI_Win_allocate on one node) always, and with
 * windows of user memory (MPI_Win_create: active messages) when the RMA
 * progress thread runs (CANAL_RMA_PROGRESS_THREAD auto or 1), which is
 * tested unless that variable is 0. rma_progress.c tests this without a
 * time limit, at every thread level.
 */
#include "mtest.h"

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(int create, int rank, int size)
{
    int *mem;
    MPI_Win win;

    if (create) {
        mem = calloc(size, sizeof(int));
        MPI_Win_create(mem, size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                         &win);
        for (int i = 0; i < size; i++)
            mem[i] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = now();
        int seen = 0;
        /* No time limit: if the puts never arrive, the runner's hang limit
         * ends the job (a failure), however slow the machine is. */
        while (seen < size - 1) {
            seen = 0;
            for (int r = 1; r < size; r++)
                seen += __atomic_load_n(&mem[r], __ATOMIC_ACQUIRE) == 100 + r;
        }
        CHECK(seen == size - 1,
              "%s window: only %d of %d puts arrived while the target computed for %.1f s%s",
              create ? "MPI_Win_create" : "MPI_Win_allocate", seen, size - 1, now() - t0,
              create ? " (did the RMA progress thread start?)" : "");
    } else {
        int v = 100 + rank;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    if (create)
        free(mem);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    const char *thread = getenv("CANAL_RMA_PROGRESS_THREAD");

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(0, rank, size);
    (void)provided;
    if (thread == NULL || strcmp(thread, "0") != 0)
        run(1, rank, size);
    return mtest_finish();
}
