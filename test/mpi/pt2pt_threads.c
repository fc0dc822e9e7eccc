/* MPI_THREAD_MULTIPLE point to point: four threads per rank exchange
 * messages with the neighbours at the same time (each thread its own tag),
 * blocking and nonblocking, eager and rendezvous sizes. */
#include "mtest.h"

#include <pthread.h>

enum { THREADS = 4, ITERS = 200 };

static int rank, size;
static int thread_errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int n = (t % 2) ? 50000 : 8;
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    for (int it = 0; it < ITERS / (n > 1000 ? 20 : 1); it++) {
        MPI_Request rq[2];
        for (int i = 0; i < n; i++)
            s[i] = rank * 1000 + t * 100 + it + i;
        MPI_Irecv(r, n, MPI_INT, prev, t, MPI_COMM_WORLD, &rq[0]);
        if (it % 2)
            MPI_Isend(s, n, MPI_INT, next, t, MPI_COMM_WORLD, &rq[1]);
        else
            MPI_Send(s, n, MPI_INT, next, t, MPI_COMM_WORLD);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        if (it % 2)
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            if (r[i] != prev * 1000 + t * 100 + it + i) {
                thread_errors[t]++;
                break;
            }
    }
    free(s);
    free(r);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(thread_errors[t] == 0, "thread %d saw %d bad messages", t, thread_errors[t]);
    }
    return mtest_finish();
}
