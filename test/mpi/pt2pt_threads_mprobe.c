/* MPI_THREAD_MULTIPLE matched probes: four threads per rank, each with its
 * own tag, send two messages to the next rank and take two from the
 * previous one with MPI_Mprobe/MPI_Mrecv (odd rounds: MPI_Improbe in a
 * loop), checking that they come in order and that none is lost. Several
 * threads block in MPI_Mprobe at once, so some sleep while another polls
 * for the process; a matched probe takes the message off the queue when it
 * finds it, so a wait that looked again after finding it would skip one
 * message (wrong data, then a probe that never ends: the testlist's timeout
 * turns that into a failure; no time is asserted). */
#include "mtest.h"

#include <pthread.h>

enum { THREADS = 4, ITERS = 500, N = 16 };

static int rank, size;
static int thread_errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int s[2][N], r[N];

    for (int it = 0; it < ITERS; it++) {
        MPI_Request sq[2];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < N; i++)
                s[k][i] = rank * 100000 + t * 10000 + (2 * it + k) % 10000 + i;
            MPI_Isend(s[k], N, MPI_INT, next, t, MPI_COMM_WORLD, &sq[k]);
        }
        for (int k = 0; k < 2; k++) {
            MPI_Message msg;
            MPI_Status st;
            int flag = 0;
            if (it % 2 == 0) {
                MPI_Mprobe(prev, t, MPI_COMM_WORLD, &msg, &st);
            } else {
                while (!flag)
                    MPI_Improbe(prev, t, MPI_COMM_WORLD, &flag, &msg, &st);
            }
            MPI_Mrecv(r, N, MPI_INT, &msg, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                if (r[i] != prev * 100000 + t * 10000 + (2 * it + k) % 10000 + i) {
                    if (thread_errors[t]++ == 0)
                        fprintf(stderr, "rank %d thread %d round %d message %d: got %d, expected %d\n",
                                rank, t, it, k, r[i], prev * 100000 + t * 10000 + (2 * it + k) % 10000 + i);
                    break;
                }
        }
        MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
    }
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
        CHECK(thread_errors[t] == 0, "thread %d saw %d messages out of order or wrong", t, thread_errors[t]);
    }
    return mtest_finish();
}
