/*
 * Collectives from several threads at once (MPI_THREAD_MULTIPLE), each
 * thread on its own duplicate of MPI_COMM_WORLD: blocking and nonblocking
 * allreduce, bcast, allgather and barrier in a loop, checked exactly. The
 * schedules, their reuse and the tag sequences are shared state of the
 * library. Skipped (still "No Errors") when the thread level is lower.
 */
#include <pthread.h>

#include "mtest.h"

enum { NTHREADS = 3, ITERS = 200, N = 64 };

static MPI_Comm comms[NTHREADS];
static int terrs[NTHREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, *s = malloc(sizeof(int) * N), *r = malloc(sizeof(int) * N * 16);
    MPI_Comm c = comms[t];
    for (int it = 0; it < ITERS; it++) {
        MPI_Request rq;
        for (int i = 0; i < N; i++)
            s[i] = mtest_rank + i + t + it;
        if (MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, c) != MPI_SUCCESS)
            terrs[t]++;
        for (int i = 0; i < N; i++)
            if (r[i] != mtest_size * (mtest_size - 1) / 2 + mtest_size * (i + t + it))
                terrs[t]++;
        for (int i = 0; i < N; i++)
            r[i] = mtest_rank == it % mtest_size ? it * 7 + i : -1;
        if (MPI_Ibcast(r, N, MPI_INT, it % mtest_size, c, &rq) != MPI_SUCCESS ||
            MPI_Wait(&rq, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            terrs[t]++;
        for (int i = 0; i < N; i++)
            if (r[i] != it * 7 + i)
                terrs[t]++;
        if (mtest_size <= 16) {
            if (MPI_Allgather(s, 1, MPI_INT, r, 1, MPI_INT, c) != MPI_SUCCESS)
                terrs[t]++;
            for (int p = 0; p < mtest_size; p++)
                if (r[p] != p + t + it)
                    terrs[t]++;
        }
        if (it % 10 == 0 && MPI_Barrier(c) != MPI_SUCCESS)
            terrs[t]++;
    }
    free(s);
    free(r);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    pthread_t th[NTHREADS];

    provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        mtest_skipped("threads (MPI_THREAD_MULTIPLE not provided)");
        return mtest_finish();
    }
    for (int t = 0; t < NTHREADS; t++)
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(terrs[t] == 0, "thread %d saw %d errors", t, terrs[t]);
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);
    return mtest_finish();
}
