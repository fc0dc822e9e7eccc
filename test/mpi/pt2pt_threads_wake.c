/* More threads than CPUs blocked in waits whose requests complete in an
 * order other than the one they started waiting in (MPI_THREAD_MULTIPLE).
 * Rank 1 runs NT threads (default 6; the machine may have 2 CPUs); in each
 * round every thread posts a receive (thread i: tag i), and they start
 * waiting one after the other, thread 0 first. Rank 0 then sends the NT
 * messages one at a time in the round's order -- forward, reverse, or
 * shuffled -- and sends the next only after the thread that received the
 * last one has told it so. So each completion must wake exactly the thread
 * whose request it completed while the others sleep on, and when the thread
 * that polls for the others (in Canal: the first that would have slept)
 * gets its message first, it must hand the polling to a sleeper, or nobody
 * polls. The waits alternate between MPI_Wait, MPI_Waitall (the request
 * and a completed one), and MPI_Recv of a message sent later (no request
 * posted in advance).
 *
 * Run with CANAL_THREAD_WAIT_SLEEP_US large (the testlist: 30 s), a lost
 * wake-up or hand-off hangs into the timeout, and the MPI_T pvar
 * canal_thread_wait_missed_wakes (a sleep that lasted its whole time
 * although its request had completed) must stay 0. Other libraries pass
 * if they do not hang.
 *
 * Usage: pt2pt_threads_wake [threads] [rounds] */
#include "mtest.h"

#include <pthread.h>
#include <stdint.h>

enum { MAX_THREADS = 32, TAG_ACK = 1000, TAG_GO = 2000 };

static int rank, nthreads = 6, rounds = 60;
static pthread_barrier_t bar;
static int started; /* threads of this round that are about to wait */
static int errors;

/* The round's sending order: forward, reverse, then shuffled. */
static void round_order(int round, int *order)
{
    for (int i = 0; i < nthreads; i++)
        order[i] = round % 3 == 0 ? i : round % 3 == 1 ? nthreads - 1 - i : i;
    if (round % 3 == 2) {
        unsigned x = 2654435761u * (unsigned)(round + 1);
        for (int i = nthreads - 1; i > 0; i--) {
            int j, t;
            x = x * 1103515245u + 12345u;
            j = (int)((x >> 8) % (unsigned)(i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}

static void *receiver(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int round = 0; round < rounds; round++) {
        int val = -1, how = (round / 3 + t) % 3;
        MPI_Request req[2];
        MPI_Status st;

        pthread_barrier_wait(&bar);
        if (how != 2)
            MPI_Irecv(&val, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &req[0]);
        /* start waiting in thread order: thread t after thread t-1 */
        while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) != t)
            sched_yield();
        __atomic_store_n(&started, t + 1, __ATOMIC_RELEASE);
        if (how == 0) {
            MPI_Wait(&req[0], &st);
        } else if (how == 1) {
            MPI_Isend(NULL, 0, MPI_INT, 0, TAG_GO + t, MPI_COMM_SELF, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_INT, 0, TAG_GO + t, MPI_COMM_SELF, &st);
            st.MPI_SOURCE = 0;
            st.MPI_TAG = t;
        } else {
            MPI_Recv(&val, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &st);
        }
        if (val != round * MAX_THREADS + t || st.MPI_SOURCE != 0 || st.MPI_TAG != t) {
            fprintf(stderr, "round %d thread %d: got %d (source %d, tag %d), want %d\n", round,
                    t, val, st.MPI_SOURCE, st.MPI_TAG, round * MAX_THREADS + t);
            __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
        }
        MPI_Send(&t, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
    }
    return NULL;
}

/* The MPI_T pvar canal_thread_wait_missed_wakes, counted from
 * missed_start() (an MPI_T counter counts only while its handle is
 * started: read without a start it says 0 whatever happened), or -1 when
 * the library has none. */
static MPI_T_pvar_session missed_session;
static MPI_T_pvar_handle missed_handle;
static int missed_ok;

static void missed_start(void)
{
    int idx, count;

    if (MPI_T_pvar_get_index("canal_thread_wait_missed_wakes", MPI_T_PVAR_CLASS_COUNTER, &idx) !=
            MPI_SUCCESS ||
        MPI_T_pvar_session_create(&missed_session) != MPI_SUCCESS)
        return;
    missed_ok = MPI_T_pvar_handle_alloc(missed_session, idx, NULL, &missed_handle, &count) ==
                    MPI_SUCCESS &&
                count == 1 && MPI_T_pvar_start(missed_session, missed_handle) == MPI_SUCCESS;
}

static long long missed_wakes(void)
{
    unsigned long long v = 0;

    if (!missed_ok)
        return -1;
    if (MPI_T_pvar_read(missed_session, missed_handle, &v) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: cannot read canal_thread_wait_missed_wakes\n", rank);
        errors++;
    }
    MPI_T_pvar_handle_free(missed_session, &missed_handle);
    MPI_T_pvar_session_free(&missed_session);
    return (long long)v;
}

int main(int argc, char **argv)
{
    int provided, size, tprov;
    pthread_t tid[MAX_THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &tprov);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    missed_start();
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (provided < MPI_THREAD_MULTIPLE || size < 2 || nthreads < 1 || nthreads > MAX_THREADS ||
        rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "need MPI_THREAD_MULTIPLE (got %d), 2 ranks or more (got %d), 1..%d "
                            "threads\n", provided, size, MAX_THREADS);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        int order[MAX_THREADS];
        for (int round = 0; round < rounds; round++) {
            round_order(round, order);
            /* every thread of rank 1 is waiting, or about to (a message
             * sent earlier would complete the waits before they sleep) */
            MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < nthreads; i++) {
                int val = round * MAX_THREADS + order[i], who = -1;
                MPI_Send(&val, 1, MPI_INT, 1, order[i], MPI_COMM_WORLD);
                MPI_Recv(&who, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (who != order[i]) {
                    fprintf(stderr, "round %d: thread %d answered, %d expected\n", round, who,
                            order[i]);
                    errors++;
                }
            }
        }
    } else if (rank == 1) {
        pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1);
        for (int t = 0; t < nthreads; t++)
            pthread_create(&tid[t], NULL, receiver, (void *)(intptr_t)t);
        for (int round = 0; round < rounds; round++) {
            pthread_barrier_wait(&bar);
            while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) != nthreads)
                sched_yield();
            /* (the last thread to start has had time to reach its wait's
             * sleep: rank 0's first message follows a round trip) */
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
            __atomic_store_n(&started, 0, __ATOMIC_RELEASE);
        }
        for (int t = 0; t < nthreads; t++)
            pthread_join(tid[t], NULL);
        pthread_barrier_destroy(&bar);
    }
    if (rank == 1) {
        long long missed = missed_wakes();
        if (missed > 0) {
            fprintf(stderr, "rank 1: %lld sleeps of waiting threads missed their wake-up\n",
                    missed);
            errors++;
        }
    }
    MPI_T_finalize();
    mtest_errors += errors;
    return mtest_finish();
}
