/* MPI_THREAD_MULTIPLE with one thread doing the work while another sits
 * blocked in the library (a Python program's helper thread waiting for a
 * command, say): per round, a second thread blocks in MPI_Recv and then in
 * MPI_Probe + MPI_Recv on its own tags, while the main thread runs
 * nonblocking and blocking point-to-point around the ring and collectives
 * on a duplicate of MPI_COMM_WORLD; the main thread then sends the two
 * messages that release its right neighbour's blocked thread. Every payload
 * is checked. The waits of the main thread complete both by their own polls
 * and by the blocked thread's (which polls for everybody while it holds the
 * device), so both ways a wait ends in locked mode run here. 2-4 ranks. */
#include "mtest.h"

#include <pthread.h>
#include <string.h>

enum { ROUNDS = 40, WORK = 50, N = 16, TAG_RECV = 7, TAG_PROBE = 8, TAG_RING = 1 };

static int rank, size, next, prev;
static int blocked_errors;

static void payload(int *buf, int n, int from, int round, int what)
{
    for (int i = 0; i < n; i++)
        buf[i] = from * 100000 + round * 100 + what * 10 + i % 10;
}

static int payload_ok(const int *buf, int n, int from, int round, int what)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != from * 100000 + round * 100 + what * 10 + i % 10)
            return 0;
    return 1;
}

static void *blocked(void *arg)
{
    int round = (int)(long)arg, buf[N], expect[N], count = -1;
    MPI_Status st;

    memset(buf, 0, sizeof buf);
    MPI_Recv(buf, N, MPI_INT, prev, TAG_RECV, MPI_COMM_WORLD, &st);
    payload(expect, N, prev, round, 1);
    if (memcmp(buf, expect, sizeof buf) != 0 || st.MPI_SOURCE != prev || st.MPI_TAG != TAG_RECV)
        blocked_errors++;
    MPI_Probe(MPI_ANY_SOURCE, TAG_PROBE, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    if (st.MPI_SOURCE != prev || count != N / 2)
        blocked_errors++;
    memset(buf, 0, sizeof buf);
    MPI_Recv(buf, N, MPI_INT, st.MPI_SOURCE, TAG_PROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!payload_ok(buf, N / 2, prev, round, 2))
        blocked_errors++;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, sbuf[N], rbuf[N], bad = 0;
    MPI_Comm comm;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t th;
        pthread_create(&th, NULL, blocked, (void *)(long)round);
        for (int it = 0; it < WORK; it++) {
            MPI_Request rq[2];
            int sum = -1, root = it % size, val = -1;
            payload(sbuf, N, rank, round, 3);
            memset(rbuf, 0, sizeof rbuf);
            MPI_Irecv(rbuf, N, MPI_INT, prev, TAG_RING, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(sbuf, N, MPI_INT, next, TAG_RING, MPI_COMM_WORLD, &rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            bad += !payload_ok(rbuf, N, prev, round, 3);
            memset(rbuf, 0, sizeof rbuf);
            MPI_Sendrecv(sbuf, N, MPI_INT, next, TAG_RING + 1, rbuf, N, MPI_INT, prev,
                         TAG_RING + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad += !payload_ok(rbuf, N, prev, round, 3);
            MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
            bad += sum != size * (size - 1) / 2;
            if (rank == root)
                val = round * 1000 + it;
            MPI_Bcast(&val, 1, MPI_INT, root, comm);
            bad += val != round * 1000 + it;
            if (it % 10 == 0)
                MPI_Barrier(comm);
        }
        /* release the right neighbour's blocked thread */
        payload(sbuf, N, rank, round, 1);
        MPI_Send(sbuf, N, MPI_INT, next, TAG_RECV, MPI_COMM_WORLD);
        payload(sbuf, N / 2, rank, round, 2);
        MPI_Send(sbuf, N / 2, MPI_INT, next, TAG_PROBE, MPI_COMM_WORLD);
        pthread_join(th, NULL);
    }
    CHECK(bad == 0, "%d bad results on the main thread", bad);
    CHECK(blocked_errors == 0, "%d bad messages on the blocked thread", blocked_errors);
    MPI_Comm_free(&comm);
    return mtest_finish();
}
