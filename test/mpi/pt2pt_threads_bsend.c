/*
 * pt2pt_threads_bsend: buffered sends from several threads at once
 * (MPI_THREAD_MULTIPLE), as MPICH's threads/pt2pt/mt_bsendrecv and
 * mt_ibsendirecv do. Each thread of rank 0 sends iters messages with
 * MPI_Bsend or MPI_Ibsend on its own tag while the matching thread of rank 1
 * receives and checks them in order. The attached buffer holds every
 * message that can be outstanding with MPI_BSEND_OVERHEAD each, so no send
 * may fail for lack of room, and threads must never share a segment of it
 * (which would deliver one thread's data under another's tag).
 * Arguments: the count of ints per message (default 1) and iters (default
 * 512); "1 1024" is MPICH's mt_bsendrecv: 4,096 messages of 4 bytes
 * outstanding at once (issue 27: "has no room" in one run, a hang in
 * another).
 */
#include "mtest.h"

#include <pthread.h>

enum { THREADS = 4, ROUNDS = 3 };

static int rank;
static int count = 1;
static int iters = 512;
static int thread_errors[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg, *buf = malloc(sizeof(int) * (size_t)count);
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)iters);
        for (int it = 0; it < iters; it++) {
            if (rank == 0) {
                for (int i = 0; i < count; i++)
                    buf[i] = t * 1000000 + round * 10000 + it + i;
                int err = (round % 2) ? MPI_Ibsend(buf, count, MPI_INT, 1, t, MPI_COMM_WORLD, &rq[it])
                                      : MPI_Bsend(buf, count, MPI_INT, 1, t, MPI_COMM_WORLD);
                if (err != MPI_SUCCESS) {
                    thread_errors[t]++;
                    char msg[MPI_MAX_ERROR_STRING];
                    int len = 0;
                    MPI_Error_string(err, msg, &len);
                    fprintf(stderr, "thread %d: buffered send %d of round %d failed: %s\n", t, it,
                            round, msg);
                    if (round % 2)
                        rq[it] = MPI_REQUEST_NULL;
                }
            } else {
                MPI_Recv(buf, count, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < count; i++)
                    if (buf[i] != t * 1000000 + round * 10000 + it + i) {
                        if (thread_errors[t]++ < 5)
                            fprintf(stderr, "thread %d round %d message %d: [%d] is %d, expected %d\n",
                                    t, round, it, i, buf[i], t * 1000000 + round * 10000 + it + i);
                        break;
                    }
            }
        }
        if (rank == 0 && round % 2)
            MPI_Waitall(iters, rq, MPI_STATUSES_IGNORE);
        /* The receiving thread says when it has the round: only then are all
         * of this thread's sends done and their space free again, so at no
         * time are more than iters of its messages in the buffer. */
        if (rank == 0)
            MPI_Recv(NULL, 0, MPI_INT, 1, THREADS + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_INT, 0, THREADS + t, MPI_COMM_WORLD);
        free(rq);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, bufsize;
    pthread_t th[THREADS];
    void *bbuf, *detached;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        count = atoi(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        CHECK(0, "needs 2 ranks and MPI_THREAD_MULTIPLE (size %d, provided %d)", size, provided);
        return mtest_finish();
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Room for one round of every thread's messages, MPI_BSEND_OVERHEAD
     * each: the most that can be outstanding (see the end of a round). */
    bufsize = THREADS * iters * ((int)sizeof(int) * count + MPI_BSEND_OVERHEAD);
    bbuf = malloc((size_t)bufsize);
    MPI_Buffer_attach(bbuf, bufsize);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        mtest_errors += thread_errors[t];
    }
    MPI_Buffer_detach(&detached, &bufsize);
    CHECK(detached == bbuf, "MPI_Buffer_detach returned %p, attached %p", detached, bbuf);
    free(bbuf);
    return mtest_finish();
}
