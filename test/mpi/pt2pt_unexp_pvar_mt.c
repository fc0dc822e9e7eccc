/*
 * The MPI_T counter canal_unexpected_messages under MPI_THREAD_MULTIPLE
 * with several threads receiving: on rank 0, NTHR threads each take NMSG
 * messages that rank 1 sent to it on a communicator of its own before it
 * posted anything (each thread first receives a last message of another
 * tag, so the others all wait unexpected), while one more thread reads the
 * counter over and over: it never falls, and at the end it has grown by at
 * least NTHR * NMSG (the messages that are known to have waited). Every
 * message's size and content are checked. Ranks beyond 1 idle.
 */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>

enum { NTHR = 3, NMSG = 300, TAG_LAST = 1000, TAG_GO = 1001, MAXSZ = 80 };

static MPI_Comm comms[NTHR];
static MPI_T_pvar_session ses;
static MPI_T_pvar_handle hnd;
static int done_threads;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int msg_size(int i) { return (i * 5) % 70; }
static unsigned char pat(int t, int i, int k) { return (unsigned char)(t * 41 + i * 3 + k); }

static unsigned long long counter(void)
{
    unsigned long long v = 0;

    OK(MPI_T_pvar_read(ses, hnd, &v));
    return v;
}

static void *receiver(void *arg)
{
    int t = (int)(long)arg;
    unsigned char b[MAXSZ];
    MPI_Status st;

    OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, comms[t]));
    OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_LAST, comms[t], MPI_STATUS_IGNORE));
    for (int i = 0; i < NMSG; i++) {
        int n = -1;
        OK(MPI_Recv(b, MAXSZ, MPI_BYTE, 1, i % 4 == 0 ? MPI_ANY_TAG : i, comms[t], &st));
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(st.MPI_TAG == i && n == msg_size(i), "thread %d message %d: tag %d count %d", t, i,
              st.MPI_TAG, n);
        for (int k = 0; k < n && k < msg_size(i); k++)
            if (b[k] != pat(t, i, k)) {
                CHECK(0, "thread %d message %d: wrong byte at %d", t, i, k);
                break;
            }
    }
    pthread_mutex_lock(&mu);
    done_threads++;
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *sender(void *arg)
{
    int t = (int)(long)arg;
    unsigned char *b = malloc((size_t)NMSG * MAXSZ);
    MPI_Request *reqs = malloc(NMSG * sizeof *reqs);

    OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, comms[t], MPI_STATUS_IGNORE));
    for (int i = 0; i < NMSG; i++) {
        for (int k = 0; k < msg_size(i); k++)
            b[(size_t)i * MAXSZ + k] = pat(t, i, k);
        OK(MPI_Isend(b + (size_t)i * MAXSZ, msg_size(i), MPI_BYTE, 0, i, comms[t], &reqs[i]));
    }
    OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_LAST, comms[t]));
    OK(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
    free(b);
    free(reqs);
    return NULL;
}

int main(int argc, char **argv)
{
    int prov = 0, idx = -1, count = 0, rank, size;
    pthread_t th[NTHR];

    prov = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(prov == MPI_THREAD_MULTIPLE, "provided %d", prov);
    for (int t = 0; t < NTHR; t++)
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    if (rank == 0 && size > 1) {
        unsigned long long first, last, v;
        int reads = 0, all = 0;

        OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov));
        OK(MPI_T_pvar_get_index("canal_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER, &idx));
        OK(MPI_T_pvar_session_create(&ses));
        OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hnd, &count));
        OK(MPI_T_pvar_start(ses, hnd));
        first = last = counter();
        for (int t = 0; t < NTHR; t++)
            pthread_create(&th[t], NULL, receiver, (void *)(long)t);
        while (!all) {
            pthread_mutex_lock(&mu);
            all = done_threads == NTHR;
            pthread_mutex_unlock(&mu);
            v = counter();
            reads++;
            CHECK(v >= last, "read %d: counter fell from %llu to %llu", reads, last, v);
            last = v;
        }
        for (int t = 0; t < NTHR; t++)
            pthread_join(th[t], NULL);
        v = counter();
        CHECK(v - first >= (unsigned long long)NTHR * NMSG,
              "counter grew by %llu, at least %d messages waited unexpected", v - first,
              NTHR * NMSG);
        CHECK(v - first <= (unsigned long long)NTHR * (NMSG + 1) + 2 * NTHR,
              "counter grew by %llu, more than the %d messages sent", v - first,
              NTHR * (NMSG + 1));
        OK(MPI_T_pvar_stop(ses, hnd));
        OK(MPI_T_pvar_handle_free(ses, &hnd));
        OK(MPI_T_pvar_session_free(&ses));
        OK(MPI_T_finalize());
    } else if (rank == 1) {
        for (int t = 0; t < NTHR; t++)
            pthread_create(&th[t], NULL, sender, (void *)(long)t);
        for (int t = 0; t < NTHR; t++)
            pthread_join(th[t], NULL);
    }
    for (int t = 0; t < NTHR; t++)
        OK(MPI_Comm_free(&comms[t]));
    return mtest_finish();
}
