/*
 * Lock contention: every rank takes rank 0's lock many times, exclusive
 * (then writes its id over the whole array and reads it back: nobody else
 * may have written in between) or shared (then reads the array: it must be
 * uniform, since writers hold the lock exclusively). Both window kinds.
 */
#include "rma_util.h"

enum { N = 256, ITERS = 12 };

static void run(int flavor, int rank)
{
    int *mem, mine[N], got[N];
    MPI_Win win;

    mem = rma_win_make(flavor, N, sizeof(int), &win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        mine[i] = rank + 1;
    for (int it = 0; it < ITERS; it++) {
        if ((it + rank) % 3 != 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Put(mine, N, MPI_INT, 0, 0, N, MPI_INT, win);
            MPI_Win_flush(0, win);
            MPI_Get(got, N, MPI_INT, 0, 0, N, MPI_INT, win);
            MPI_Win_unlock(0, win);
            for (int i = 0; i < N; i++)
                if (got[i] != rank + 1) {
                    CHECK(0, "flavor %d: exclusive epoch saw %d at [%d]", flavor, got[i], i);
                    break;
                }
        } else {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Get(got, N, MPI_INT, 0, 0, N, MPI_INT, win);
            MPI_Win_unlock(0, win);
            for (int i = 1; i < N; i++)
                if (got[i] != got[0]) {
                    CHECK(0, "flavor %d: shared epoch saw a torn array ([0]=%d, [%d]=%d)", flavor,
                          got[0], i, got[i]);
                    break;
                }
        }
    }
    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    run(0, rank);
    run(1, rank);
    return mtest_finish();
}
