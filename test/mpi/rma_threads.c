/*
 * MPI_THREAD_MULTIPLE: two threads per rank issue MPI_Fetch_and_op and
 * MPI_Accumulate on the same window inside one MPI_Win_lock_all epoch, each
 * flushing its own operations. The counter must come out exact and the
 * fetched values distinct. Both window kinds.
 */
#include "rma_util.h"

#include <pthread.h>

enum { ITERS = 40, NT = 2 };

static MPI_Win win;
static long fetched[NT][ITERS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    long one = 1, two = 2;
    for (int i = 0; i < ITERS; i++) {
        MPI_Fetch_and_op(&one, &fetched[t][i], MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Accumulate(&two, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush_local(0, win);
    }
    return NULL;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static void run(int flavor, int rank, int size)
{
    long *mem;
    pthread_t th[NT];

    mem = rma_win_make(flavor, 2, sizeof(long), &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    MPI_Win_unlock_all(win);
    {
        long *all = rank == 0 ? malloc(sizeof(long) * NT * ITERS * size) : NULL;
        MPI_Gather(fetched, NT * ITERS, MPI_LONG, all, NT * ITERS, MPI_LONG, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            qsort(all, (size_t)NT * ITERS * size, sizeof(long), cmp_long);
            for (long i = 0; i < (long)NT * ITERS * size; i++)
                if (all[i] != i) {
                    CHECK(0, "flavor %d: fetched values are not distinct (at %ld: %ld)", flavor, i,
                          all[i]);
                    break;
                }
            free(all);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(mem[0] == (long)NT * ITERS * size && mem[1] == 2L * NT * ITERS * size,
              "flavor %d: counters %ld %ld", flavor, mem[0], mem[1]);
        MPI_Win_unlock(0, win);
    }
    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided == MPI_THREAD_MULTIPLE) {
        run(0, rank, size);
        run(1, rank, size);
    } else if (rank == 0) {
        printf("MPI_THREAD_MULTIPLE not provided (%d); nothing to test\n", provided);
    }
    return mtest_finish();
}
