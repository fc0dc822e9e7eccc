/* MPI_THREAD_MULTIPLE with more threads than CPUs waiting on each other (the
 * shape of MPICH's threads/pt2pt/multisend4): every rank runs as many
 * threads as there are ranks; thread t exchanges with rank t (an Isend and
 * an Irecv per round, sizes from 4 bytes to 256 KiB, eager and rendezvous).
 * In the first pass one thread of each rank waits for every thread's
 * requests while its siblings busy-wait on a shared counter, so the waiter
 * competes for the CPU with threads that do no MPI; in the second each
 * thread waits for its own. The data are checked. It exercises the locked
 * mode's wait (one thread polls for the process, the others back off) with
 * more runnable threads than CPUs; no time is asserted, the testlist's
 * timeout only turns a hang into a failure. */
#include "mtest.h"

#include <pthread.h>
#include <stdint.h>

enum { MAX_THREADS = 16, ROUNDS = 4, MAX_INTS = 65536 };

static int rank, size, nthreads;
static pthread_barrier_t bar;
static MPI_Request reqs[2 * MAX_THREADS];
static int *sbuf[MAX_THREADS], *rbuf[MAX_THREADS];
static int arrived; /* the busy-wait: threads spin on it without MPI */
static int thread_errors[MAX_THREADS];

static void spin_barrier(int *gen_seen)
{
    int target = *gen_seen + nthreads;
    __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < target)
        ; /* deliberately burns the CPU, as the MPICH test's barrier does */
    *gen_seen = target;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, gen = 0;

    for (int owner_waits = 0; owner_waits < 2; owner_waits++) {
        for (int cnt = 1; cnt <= MAX_INTS; cnt *= 4) {
            for (int round = 0; round < ROUNDS; round++) {
                int tag = cnt + round;
                for (int i = 0; i < cnt; i++) {
                    sbuf[t][i] = rank * 1000003 + t * 7919 + i + round;
                    rbuf[t][i] = -1;
                }
                pthread_barrier_wait(&bar);
                MPI_Isend(sbuf[t], cnt, MPI_INT, t, tag, MPI_COMM_WORLD, &reqs[2 * t]);
                MPI_Irecv(rbuf[t], cnt, MPI_INT, t, tag, MPI_COMM_WORLD, &reqs[2 * t + 1]);
                if (owner_waits) {
                    MPI_Waitall(2, &reqs[2 * t], MPI_STATUSES_IGNORE);
                } else {
                    pthread_barrier_wait(&bar); /* every request posted */
                    if (t == nthreads - 1)
                        MPI_Waitall(2 * nthreads, reqs, MPI_STATUSES_IGNORE);
                    spin_barrier(&gen); /* the others burn CPU meanwhile */
                }
                /* rank t's thread `rank` sent us its data */
                for (int i = 0; i < cnt; i++) {
                    int want = t * 1000003 + rank * 7919 + i + round;
                    if (rbuf[t][i] != want) {
                        if (thread_errors[t]++ < 5)
                            fprintf(stderr, "rank %d thread %d: %d ints, round %d: [%d] = %d, not %d\n",
                                    rank, t, cnt, round, i, rbuf[t][i], want);
                        break;
                    }
                }
                pthread_barrier_wait(&bar); /* buffers reused next round */
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[MAX_THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK(size <= MAX_THREADS, "at most %d ranks", MAX_THREADS);
    if (provided != MPI_THREAD_MULTIPLE || size > MAX_THREADS)
        return mtest_finish();
    nthreads = size;
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        sbuf[t] = malloc(MAX_INTS * sizeof(int));
        rbuf[t] = malloc(MAX_INTS * sizeof(int));
        CHECK(sbuf[t] != NULL && rbuf[t] != NULL, "malloc");
    }
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        CHECK(thread_errors[t] == 0, "thread %d: %d wrong messages", t, thread_errors[t]);
        free(sbuf[t]);
        free(rbuf[t]);
    }
    pthread_barrier_destroy(&bar);
    MPI_Barrier(MPI_COMM_WORLD);
    return mtest_finish();
}
