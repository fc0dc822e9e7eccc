/* MPI_THREAD_MULTIPLE point to point, hammered: THREADS threads per rank,
 * each exchanging with the ring neighbours through every point-to-point
 * path at once -- Isend/Irecv completed by Wait, Waitall and Test loops,
 * Iprobe then Recv, Mprobe/Mrecv, Improbe/Imrecv, cancelled receives,
 * synchronous sends, eager and rendezvous sizes -- and receives completed
 * by another thread than the one that posted them. Run twice: every thread
 * pair on its own communicator (wildcards allowed), then all threads on one
 * shared communicator told apart by tag. Meant to be run under
 * ThreadSanitizer too (test/tsan.sh). */
#include "mtest.h"

#include <pthread.h>

enum { THREADS = 4, ITERS = 24, BIG = 40000 };

static int rank, size, next, prev;
static MPI_Comm comms[THREADS];
static int shared_mode;
static pthread_barrier_t bar;
static MPI_Request handoff[THREADS];
static int handoff_buf[THREADS][64];
static int thread_errors[THREADS];

#define TCHECK(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d thread %d: ", rank, t);                               \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            thread_errors[t]++;                                                            \
        }                                                                                  \
    } while (0)

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 7919 + i;
}

static int check(const int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (b[i] != seed * 7919 + i)
            return i;
    return -1;
}

/* Tags: in shared mode every thread has its own band of tags. */
static int tag_of(int t, int k) { return shared_mode ? t * 100 + k : k; }

static void exchange(int t, MPI_Comm c, int it)
{
    int n = (it % 3 == 2) ? BIG : (it % 3 == 1 ? 256 : 2);
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    MPI_Request rq[2];
    int bad;

    fill(s, n, rank * 1000 + t * 100 + it);
    MPI_Irecv(r, n, MPI_INT, prev, tag_of(t, 1), c, &rq[0]);
    if (it % 4 == 3)
        MPI_Issend(s, n, MPI_INT, next, tag_of(t, 1), c, &rq[1]);
    else
        MPI_Isend(s, n, MPI_INT, next, tag_of(t, 1), c, &rq[1]);
    switch (it % 3) {
    case 0: {
        int done = 0;
        while (!done)
            MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE);
        break;
    }
    case 1:
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        break;
    default:
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    bad = check(r, n, prev * 1000 + t * 100 + it);
    TCHECK(bad < 0, "exchange %d (%d ints): wrong data at %d", it, n, bad);
    free(s);
    free(r);
}

static void probes(int t, MPI_Comm c, int it)
{
    int s[64], r[64], flag = 0, count, bad;
    MPI_Status st;
    MPI_Message msg;
    MPI_Request rq, sq;
    int tag = tag_of(t, 2), any = tag; /* ANY_TAG would take the next round's messages */
    int src = shared_mode ? prev : MPI_ANY_SOURCE;

    /* Iprobe, then Recv what was probed. */
    fill(s, 64, rank * 31 + t + it);
    MPI_Isend(s, 64, MPI_INT, next, tag, c, &sq);
    while (!flag)
        MPI_Iprobe(src, any, c, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    TCHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag && count == 64,
           "iprobe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_Recv(r, 64, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, c, MPI_STATUS_IGNORE);
    bad = check(r, 64, prev * 31 + t + it);
    TCHECK(bad < 0, "iprobe/recv: wrong data at %d", bad);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);

    /* Mprobe/Mrecv, then Improbe/Imrecv. */
    for (int k = 0; k < 2; k++) {
        fill(s, 64, rank * 37 + t + it + k);
        MPI_Isend(s, 64, MPI_INT, next, tag, c, &sq);
        if (k == 0) {
            MPI_Mprobe(src, any, c, &msg, &st);
            MPI_Mrecv(r, 64, MPI_INT, &msg, MPI_STATUS_IGNORE);
        } else {
            flag = 0;
            while (!flag)
                MPI_Improbe(src, any, c, &flag, &msg, &st);
            MPI_Imrecv(r, 64, MPI_INT, &msg, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        TCHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag, "mprobe %d: source %d tag %d", k,
               st.MPI_SOURCE, st.MPI_TAG);
        bad = check(r, 64, prev * 37 + t + it + k);
        TCHECK(bad < 0, "mprobe %d: wrong data at %d", k, bad);
        MPI_Wait(&sq, MPI_STATUS_IGNORE);
    }
}

static void cancel(int t, MPI_Comm c)
{
    int r, cancelled = 0;
    MPI_Request rq;
    MPI_Status st;

    /* Nobody sends this tag: the receive must cancel. */
    MPI_Irecv(&r, 1, MPI_INT, prev, tag_of(t, 3), c, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &cancelled);
    TCHECK(cancelled, "a receive nobody matches was not cancelled");
}

/* Thread t (even) posts a receive; thread t+1 completes it. */
static void handoff_round(int t, MPI_Comm c, int it)
{
    int s[64], bad;
    MPI_Request sq;

    if (t % 2 == 0)
        MPI_Irecv(handoff_buf[t], 64, MPI_INT, prev, tag_of(t, 4), c, &handoff[t]);
    pthread_barrier_wait(&bar);
    if (t % 2 == 0) {
        fill(s, 64, rank * 41 + t + it);
        MPI_Send(s, 64, MPI_INT, next, tag_of(t, 4), c);
    } else {
        int done = 0;
        if (it % 2)
            MPI_Wait(&handoff[t - 1], MPI_STATUS_IGNORE);
        else
            while (!done)
                MPI_Test(&handoff[t - 1], &done, MPI_STATUS_IGNORE);
        bad = check(handoff_buf[t - 1], 64, prev * 41 + (t - 1) + it);
        TCHECK(bad < 0, "request completed by another thread: wrong data at %d", bad);
    }
    (void)sq;
    pthread_barrier_wait(&bar);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];

    for (int it = 0; it < ITERS; it++) {
        exchange(t, c, it);
        probes(t, c, it);
        if (it % 4 == 0)
            cancel(t, c);
        handoff_round(t, c, it);
    }
    return NULL;
}

static void run(int shared)
{
    pthread_t th[THREADS];

    shared_mode = shared;
    for (int t = 0; t < THREADS; t++) {
        if (shared)
            comms[t] = MPI_COMM_WORLD;
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    }
    pthread_barrier_init(&bar, NULL, THREADS);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < THREADS; t++) {
        mtest_errors += thread_errors[t];
        thread_errors[t] = 0;
        if (!shared)
            MPI_Comm_free(&comms[t]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    run(0);
    run(1);
    return mtest_finish();
}
