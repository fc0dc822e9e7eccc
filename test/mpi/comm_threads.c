/* Communicators created concurrently by several threads (MPI_THREAD_MULTIPLE),
 * each thread on its own parent: the context ids they agree on never collide,
 * which the test sees as messages that always stay in their communicator. */
#include "mtest.h"

#include <pthread.h>

enum { NTHREADS = 3, ITERS = 60, KEEP = 8 };

static int rank, size;
static MPI_Comm parents[NTHREADS];
static int thread_errors[NTHREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm keep[KEEP];
    for (int i = 0; i < KEEP; i++)
        keep[i] = MPI_COMM_NULL;
    for (int i = 0; i < ITERS; i++) {
        MPI_Comm c;
        int send = t * 1000000 + i * 1000 + rank, got = -1, prev = (rank + size - 1) % size;
        if (i % 3 == 2)
            MPI_Comm_split(parents[t], 0, -rank, &c); /* reversed order */
        else
            MPI_Comm_dup(parents[t], &c);
        {
            int r, s;
            MPI_Comm_rank(c, &r);
            MPI_Comm_size(c, &s);
            MPI_Sendrecv(&send, 1, MPI_INT, (r + 1) % s, 0, &got, 1, MPI_INT, (r + s - 1) % s, 0, c,
                         MPI_STATUS_IGNORE);
            prev = i % 3 == 2 ? (rank + 1) % size : prev;
        }
        if (got != t * 1000000 + i * 1000 + prev) {
            fprintf(stderr, "[rank %d] thread %d iteration %d: got %d, expected %d\n", rank, t, i,
                    got, t * 1000000 + i * 1000 + prev);
            thread_errors[t]++;
        }
        if (keep[i % KEEP] != MPI_COMM_NULL)
            MPI_Comm_free(&keep[i % KEEP]);
        keep[i % KEEP] = c;
    }
    for (int i = 0; i < KEEP; i++)
        if (keep[i] != MPI_COMM_NULL)
            MPI_Comm_free(&keep[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    int provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        CHECK(0, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
        return mtest_finish();
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        mtest_errors += thread_errors[t];
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&parents[t]);
    return mtest_finish();
}
