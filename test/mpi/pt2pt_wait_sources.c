/* A blocked wait gets every message from everywhere while it spins for a
 * ping-pong's peer: rank 0 ping-pongs with rank 1 and, in the same waits,
 * gets messages sent to itself (the self channel), by MPI_ANY_SOURCE, and
 * with 3 ranks from rank 2 (not the ping-pong's peer), which answers late
 * now and then so that rank 0's wait spins while it comes.
 * argv[1] "T": MPI_THREAD_MULTIPLE, and on rank 0 a second thread sends to
 * rank 0 itself and to rank 1 while the main thread waits (the packets a
 * spinning wait must not leave in the self queue).
 * Every message carries its iteration; a lost, duplicated or reordered
 * one is an error, a delayed-forever one a hang (the runner's timeout).
 * (Written for stop 42's spin on the pair's arrival words between polls,
 * helper lat12, which was measured and not kept: doc/bench.md.) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { ITERS = 3000, TAG_PP = 1, TAG_SELF = 2, TAG_THIRD = 3, TAG_THREAD = 4 };

static int errs;

static int rank;

static void check(int got, int want, const char *what, int it)
{
    if (got != want && errs++ < 10)
        printf("rank %d, iteration %d: %s: got %d, expected %d\n", rank, it, what, got, want);
}

/* The next message of rank 0's second thread (T), which numbers them *next. */
static void thread_take(int *next, int it)
{
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, 0, TAG_THREAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(v, (*next)++, "the other thread's message", it);
}

/* Those that have come by now, in order. */
static void thread_drain(int *next, int it)
{
    for (int flag = 1; flag;) {
        MPI_Iprobe(0, TAG_THREAD, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            thread_take(next, it);
    }
}

/* Rank 0's second thread (T): ITERS messages to itself and to rank 1,
 * paced so that most land while the main thread waits. */
static void *sender(void *arg)
{
    (void)arg;
    for (int it = 0; it < ITERS; it++) {
        if (it % 16 == 0)
            usleep(50);
        MPI_Send(&it, 1, MPI_INT, 0, TAG_THREAD, MPI_COMM_WORLD);
        MPI_Send(&it, 1, MPI_INT, 1, TAG_THREAD, MPI_COMM_WORLD);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int size, provided, threads = argc > 1 && strcmp(argv[1], "T") == 0;
    int from_thread = 0, thread_seen = 0;
    pthread_t th;

    if (threads) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            printf("skipped: no MPI_THREAD_MULTIPLE\n");
            MPI_Finalize();
            return 0;
        }
    } else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("needs 2 or 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (threads && rank == 0)
        pthread_create(&th, NULL, sender, NULL);

    for (int it = 0; it < ITERS; it++) {
        int v = -1;
        if (rank == 0) {
            MPI_Request rq[3];
            MPI_Status st;
            int mine = -1, pp = -1;
            MPI_Send(&it, 1, MPI_INT, 1, TAG_PP, MPI_COMM_WORLD);
            switch (it % 3) {
            case 0: /* the peer's answer by name */
                MPI_Recv(&pp, 1, MPI_INT, 1, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            case 1: /* by MPI_ANY_SOURCE */
                MPI_Recv(&pp, 1, MPI_INT, MPI_ANY_SOURCE, TAG_PP, MPI_COMM_WORLD, &st);
                check(st.MPI_SOURCE, 1, "source of the answer", it);
                break;
            default: /* with a message to itself in the same wait */
                MPI_Irecv(&pp, 1, MPI_INT, 1, TAG_PP, MPI_COMM_WORLD, &rq[0]);
                MPI_Irecv(&mine, 1, MPI_INT, 0, TAG_SELF, MPI_COMM_WORLD, &rq[1]);
                MPI_Isend(&it, 1, MPI_INT, 0, TAG_SELF, MPI_COMM_WORLD, &rq[2]);
                MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
                check(mine, it, "message to itself", it);
                break;
            }
            check(pp, it, "ping-pong answer", it);
            if (size > 2) {
                /* from the rank that is not the pair's peer, late now and then */
                MPI_Send(&it, 1, MPI_INT, 2, TAG_THIRD, MPI_COMM_WORLD);
                MPI_Recv(&v, 1, MPI_INT, it % 2 ? 2 : MPI_ANY_SOURCE, TAG_THIRD, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                check(v, it, "rank 2's answer", it);
            }
            if (threads) {
                /* what the other thread sent to this rank so far, in order;
                 * now and then wait for the next one: it comes while this
                 * thread spins */
                thread_drain(&from_thread, it);
                if (it % 7 == 0 && from_thread < ITERS)
                    thread_take(&from_thread, it);
            }
        } else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_INT, 0, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(v, it, "rank 0's ping", it);
            if (it % 64 == 0)
                usleep(200); /* rank 0 spins, maybe yields, while this comes */
            MPI_Send(&it, 1, MPI_INT, 0, TAG_PP, MPI_COMM_WORLD);
            if (threads)
                thread_drain(&thread_seen, it);
        } else if (rank == 2) {
            MPI_Recv(&v, 1, MPI_INT, 0, TAG_THIRD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(v, it, "rank 0's message", it);
            if (it % 32 == 0)
                usleep(100);
            MPI_Send(&it, 1, MPI_INT, 0, TAG_THIRD, MPI_COMM_WORLD);
        }
    }
    if (threads && rank == 0)
        pthread_join(th, NULL);
    if (threads && rank < 2) {
        int *next = rank == 0 ? &from_thread : &thread_seen;
        while (*next < ITERS)
            thread_take(next, ITERS);
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
