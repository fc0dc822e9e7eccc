/* The queue-length performance variables (canal_posted_queue_length and
 * _hwm, canal_unexpected_queue_length and _hwm) while several threads post
 * and match receives on communicators of their own (MPI_THREAD_MULTIPLE).
 * Rank 1 runs NT threads, each with a duplicate of MPI_COMM_WORLD; each
 * posts K receives and stops; the main thread then reads the posted level
 * (NT * K), every receive being posted, and its high-water mark; rank 0
 * sends, the threads wait, and the level is 0 again. Then rank 0 sends M
 * messages on every thread's communicator before anybody posts: once a
 * probe has seen each communicator's last one, the unexpected level is
 * NT * M; the threads receive them (in reverse tag order, each one a
 * search of the queue) and it is 0. Meanwhile the main thread reads all
 * four variables in a loop: a level never exceeds what can be queued and a
 * high-water mark never falls below the level (ThreadSanitizer, test/tsan.sh,
 * checks that these reads and the threads' queue changes do not race).
 * Before the threads start, rank 1 posts K receives and queues K messages
 * on one communicator, sent to itself, and reads the high-water marks only
 * after: they are the queues' peaks, not just what reads saw.
 * Another library passes if it has no such variables.
 *
 * Usage: pt2pt_threads_queue_levels [threads] [rounds] */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>

enum { MAX_THREADS = 16, K = 8, M = 6 };

static int rank, nthreads = 4, rounds = 20, errors; /* (errors: atomic, any thread) */
/* what the library itself keeps posted or queued (a receive of its own),
 * read before the threads start */
static unsigned long long base[2];
static MPI_Comm comms[MAX_THREADS];
static pthread_barrier_t posted_bar, done_bar;
static volatile int stop_reader;

enum { V_POSTED, V_POSTED_HWM, V_UNEXP, V_UNEXP_HWM, NVARS };
static const char *const var_names[NVARS] = {"canal_posted_queue_length", "canal_posted_queue_hwm",
                                             "canal_unexpected_queue_length",
                                             "canal_unexpected_queue_hwm"};
static const int var_class[NVARS] = {MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_HIGHWATERMARK,
                                     MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_HIGHWATERMARK};
static MPI_T_pvar_session session;

static void fail(void)
{
    __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
}

static MPI_T_pvar_handle handles[NVARS];

static int vars_open(void)
{
    int idx, count;

    if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < NVARS; i++)
        if (MPI_T_pvar_get_index(var_names[i], var_class[i], &idx) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(session, idx, NULL, &handles[i], &count) != MPI_SUCCESS ||
            count != 1)
            return 0;
    return 1;
}

static void vars_read(unsigned long long v[NVARS])
{
    for (int i = 0; i < NVARS; i++)
        if (MPI_T_pvar_read(session, handles[i], &v[i]) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: cannot read %s\n", rank, var_names[i]);
            fail();
        }
}

/* Rank 1's threads: a round is K receives posted (and counted), then M
 * messages already there received. */
static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Request reqs[K];
    int buf[K];

    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < K; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, 0, i, comms[t], &reqs[i]);
        pthread_barrier_wait(&posted_bar); /* the main thread counts them */
        pthread_barrier_wait(&done_bar);   /* and tells rank 0 to send */
        MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < K; i++)
            if (buf[i] != r * 100 + i) {
                fprintf(stderr, "thread %d round %d: receive %d got %d\n", t, r, i, buf[i]);
                fail();
            }
        /* rank 0 sent M more after the K; the main thread waits until all are queued */
        pthread_barrier_wait(&posted_bar);
        pthread_barrier_wait(&done_bar);
        for (int i = M - 1; i >= 0; i--) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, 0, K + i, comms[t], MPI_STATUS_IGNORE);
            if (v != r * 100 + K + i) {
                fprintf(stderr, "thread %d round %d: message %d got %d\n", t, r, K + i, v);
                fail();
            }
        }
        pthread_barrier_wait(&posted_bar);
        pthread_barrier_wait(&done_bar); /* counted: the next round may post */
    }
    return NULL;
}

/* A thread of rank 1 that reads the variables while the others work. */
static void *reader(void *arg)
{
    unsigned long long v[NVARS];

    (void)arg;
    while (!__atomic_load_n(&stop_reader, __ATOMIC_RELAXED)) {
        vars_read(v);
        if (v[V_POSTED] > base[0] + (unsigned long long)nthreads * K ||
            v[V_UNEXP] > base[1] + (unsigned long long)nthreads * M ||
            v[V_POSTED_HWM] < v[V_POSTED] || v[V_UNEXP_HWM] < v[V_UNEXP]) {
            fprintf(stderr, "rank 1 reader: posted %llu (hwm %llu), unexpected %llu (hwm %llu)\n",
                    v[V_POSTED], v[V_POSTED_HWM], v[V_UNEXP], v[V_UNEXP_HWM]);
            fail();
            break;
        }
    }
    return NULL;
}

static void expect(const char *when, int var, unsigned long long want, int at_least)
{
    unsigned long long v[NVARS];

    vars_read(v);
    if (at_least ? v[var] < want : v[var] != want) {
        fprintf(stderr, "rank %d, %s: %s is %llu, expected %s%llu\n", rank, when, var_names[var],
                v[var], at_least ? "at least " : "", want);
        fail();
    }
}

int main(int argc, char **argv)
{
    int provided, tprov, have;
    pthread_t th[MAX_THREADS], rd;

    provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    MPI_T_init_thread(MPI_THREAD_MULTIPLE, &tprov);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 4;
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    have = provided == MPI_THREAD_MULTIPLE && vars_open();
    MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!have) {
        mtest_skipped("the queue-length variables under MPI_THREAD_MULTIPLE");
        goto done;
    }
    if (rank == 1) {
        pthread_barrier_init(&posted_bar, NULL, (unsigned)nthreads + 1);
        pthread_barrier_init(&done_bar, NULL, (unsigned)nthreads + 1);
        {
            unsigned long long v[NVARS];
            vars_read(v);
            base[0] = v[V_POSTED];
            base[1] = v[V_UNEXP];
        }
        {
            /* marks of queues no read saw full: K receives posted and K
             * messages queued on one communicator, to and from itself */
            MPI_Request reqs[K];
            int in[K], out[K];
            for (int i = 0; i < K; i++)
                MPI_Irecv(&in[i], 1, MPI_INT, 1, i, comms[0], &reqs[i]);
            for (int i = 0; i < K; i++) {
                out[i] = i;
                MPI_Send(&out[i], 1, MPI_INT, 1, i, comms[0]);
            }
            MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE);
            for (int i = 0; i < K; i++)
                MPI_Send(&out[i], 1, MPI_INT, 1, i, comms[0]);
            /* all K queued before the first receive (a message to itself
             * may still be on its way when MPI_Send returns, and a
             * blocking receive posted meanwhile would take it unqueued) */
            for (int i = 0; i < K; i++)
                for (int f = 0; !f;)
                    MPI_Iprobe(1, i, comms[0], &f, MPI_STATUS_IGNORE);
            for (int i = K - 1; i >= 0; i--)
                MPI_Recv(&in[i], 1, MPI_INT, 1, i, comms[0], MPI_STATUS_IGNORE);
            expect("K receives posted on one communicator", V_POSTED_HWM, K, 1);
            expect("K messages queued on one communicator", V_UNEXP_HWM, K, 1);
        }
        for (int t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        pthread_create(&rd, NULL, reader, NULL);
        for (int r = 0; r < rounds; r++) {
            pthread_barrier_wait(&posted_bar);
            expect("every thread's receives posted", V_POSTED,
                   base[0] + (unsigned long long)nthreads * K, 0);
            expect("every thread's receives posted", V_POSTED_HWM,
                   base[0] + (unsigned long long)nthreads * K, 1);
            expect("every thread's receives posted", V_UNEXP, base[1], 0);
            MPI_Send(&r, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* go */
            pthread_barrier_wait(&done_bar);
            pthread_barrier_wait(&posted_bar); /* the K received */
            expect("every posted receive matched", V_POSTED, base[0], 0);
            /* the M sent after: here once each communicator's last is */
            for (int t = 0; t < nthreads; t++)
                MPI_Probe(0, K + M - 1, comms[t], MPI_STATUS_IGNORE);
            expect("every message queued", V_UNEXP, base[1] + (unsigned long long)nthreads * M, 0);
            expect("every message queued", V_UNEXP_HWM, base[1] + (unsigned long long)nthreads * M,
                   1);
            pthread_barrier_wait(&done_bar);
            pthread_barrier_wait(&posted_bar); /* the M received */
            expect("every queued message received", V_UNEXP, base[1], 0);
            expect("every queued message received", V_POSTED, base[0], 0);
            expect("after the rounds", V_POSTED_HWM, K, 1);
            pthread_barrier_wait(&done_bar);
        }
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
        __atomic_store_n(&stop_reader, 1, __ATOMIC_RELAXED);
        pthread_join(rd, NULL);
        pthread_barrier_destroy(&posted_bar);
        pthread_barrier_destroy(&done_bar);
    } else if (rank == 0) {
        for (int r = 0; r < rounds; r++) {
            int go;
            MPI_Recv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int t = 0; t < nthreads; t++)
                for (int i = 0; i < K + M; i++) {
                    int v = r * 100 + i;
                    MPI_Send(&v, 1, MPI_INT, 1, i, comms[t]);
                }
        }
    }
    for (int i = 0; i < NVARS; i++)
        MPI_T_pvar_handle_free(session, &handles[i]);
    MPI_T_pvar_session_free(&session);
done:
    mtest_errors += errors;
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    MPI_T_finalize();
    return mtest_finish();
}
