/* MPI_THREAD_MULTIPLE with one thread, then two, then one again (the
 * device's lock bias, adi/lock.h: the initializing thread takes the locks
 * without atomics until a second thread takes one). Every rank exchanges
 * windows of 64 small messages with its neighbours, osu_mbw_mr's shape,
 * checking each message's content and order; receives of a specific
 * source, of MPI_ANY_SOURCE and of MPI_ANY_TAG are mixed, a posted receive
 * is cancelled and a message probed in each window. Phase 2 starts a second
 * thread while the main thread is in the middle of its windows: the second
 * thread runs the same windows on a duplicate of MPI_COMM_WORLD, and both
 * go on until each has done its count; phase 3 is the main thread alone on
 * locks taken for real. args=N: windows per phase (default 300). */
#include "mtest.h"

#include <pthread.h>
#include <string.h>

enum { WIN = 64 };

static int rank, size, windows = 300;

/* One window on comm: WIN messages to next and from prev, tag base+k, the
 * value (sender, window, k); then a probed one and a cancelled receive. */
static int window(MPI_Comm comm, int base, int w)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, errs = 0;
    int s[WIN][2], r[WIN][2], extra[2] = {-1, -1}, flag = 0, cancelled = 0;
    MPI_Request rq[2 * WIN], c;
    MPI_Status st[2 * WIN], ps;

    for (int k = 0; k < WIN; k++) {
        /* every third receive takes any source, every fifth any tag: the
         * messages of one sender still match in the order they were sent */
        int src = k % 3 == 0 && size == 2 ? MPI_ANY_SOURCE : prev;
        int tag = k % 5 == 0 ? MPI_ANY_TAG : base + k;
        MPI_Irecv(r[k], 2, MPI_INT, src, tag, comm, &rq[k]);
    }
    for (int k = 0; k < WIN; k++) {
        s[k][0] = rank;
        s[k][1] = w * WIN + k;
        MPI_Isend(s[k], 2, MPI_INT, next, base + k, comm, &rq[WIN + k]);
    }
    MPI_Waitall(2 * WIN, rq, st);
    for (int k = 0; k < WIN; k++)
        if (r[k][0] != prev || r[k][1] != w * WIN + k || st[k].MPI_TAG != base + k) {
            if (errs++ < 3)
                fprintf(stderr, "rank %d: window %d message %d: got (%d, %d) tag %d, want (%d, %d) tag %d\n",
                        rank, w, k, r[k][0], r[k][1], st[k].MPI_TAG, prev, w * WIN + k, base + k);
        }
    /* a receive posted and cancelled: nothing is sent to it */
    MPI_Irecv(extra, 2, MPI_INT, prev, base + WIN + 1, comm, &c);
    MPI_Cancel(&c);
    MPI_Wait(&c, &ps);
    MPI_Test_cancelled(&ps, &cancelled);
    if (!cancelled && errs++ < 3)
        fprintf(stderr, "rank %d: window %d: the cancelled receive completed\n", rank, w);
    /* a message probed, then received */
    MPI_Send(s[0], 2, MPI_INT, next, base + WIN, comm);
    while (!flag)
        MPI_Iprobe(prev, base + WIN, comm, &flag, &ps);
    MPI_Recv(extra, 2, MPI_INT, ps.MPI_SOURCE, ps.MPI_TAG, comm, MPI_STATUS_IGNORE);
    if (extra[0] != prev || extra[1] != w * WIN) {
        if (errs++ < 3)
            fprintf(stderr, "rank %d: window %d: probed (%d, %d)\n", rank, w, extra[0], extra[1]);
    }
    return errs;
}

static int second_errs;

static void *second(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    for (int w = 0; w < windows; w++)
        second_errs += window(comm, 1000, w);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, errs = 0;
    MPI_Comm dup;
    pthread_t th;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (argc > 1)
        windows = atoi(argv[1]);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    /* phase 1: one thread (biased) */
    for (int w = 0; w < windows; w++)
        errs += window(MPI_COMM_WORLD, 0, w);
    CHECK(errs == 0, "phase 1: %d bad messages", errs);
    /* phase 2: a second thread starts while this one is busy */
    errs = 0;
    pthread_create(&th, NULL, second, &dup);
    for (int w = 0; w < windows; w++)
        errs += window(MPI_COMM_WORLD, 0, windows + w);
    pthread_join(th, NULL);
    CHECK(errs == 0, "phase 2, main thread: %d bad messages", errs);
    CHECK(second_errs == 0, "phase 2, second thread: %d bad messages", second_errs);
    /* phase 3: one thread again */
    errs = 0;
    for (int w = 0; w < windows; w++)
        errs += window(MPI_COMM_WORLD, 0, 3 * windows + w);
    CHECK(errs == 0, "phase 3: %d bad messages", errs);
    MPI_Comm_free(&dup);
    return mtest_finish();
}
