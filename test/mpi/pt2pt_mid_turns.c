/* Messages of 0-1100 bytes after a ping-pong's turn, by MPI_ANY_SOURCE and
 * MPI_ANY_TAG, from every other rank: none lost, reordered or changed, and
 * a truncated one reported with both sizes. Rank 1 sends rank 0 a lone
 * 8-byte MPI_Send (a turn on shm: rank 0 has nothing posted), then a burst
 * of messages of 0-1100 bytes (shm's straight send path takes up to 1 KiB,
 * the general path the rest) that rank 0's waits take after the turn (the
 * reader's poll ends at a turn: the burst comes in later polls); ranks 2..
 * send their own bursts meanwhile. Rank 0 checks each source's order,
 * tags, sizes and bytes, then answers everybody, which paces the next
 * round. Then a 300-byte message into a 200-byte receive, posted and
 * waiting unposted: MPI_ERR_TRUNCATE naming 300 and 200 bytes.
 * argv[1] "T": MPI_THREAD_MULTIPLE, and a second thread of rank 1 streams
 * mid-size messages to rank 0 on a duplicate of the communicator during
 * the rounds; rank 0 takes them at the end, in order.
 * (helper lat13, stop 43: the straight path to 1 KiB, the poll that ends
 * at a turn.) */
#include "mtest.h"

#include <pthread.h>
#include <unistd.h>

enum { ROUNDS = 400, BURST = 6, MAXLEN = 1100, THREAD_MSGS = 1500, TAG_TURN = 1000 };

static int errs, rank;
static MPI_Comm side;

static int len_of(int src, int round, int j)
{
    return (int)(((unsigned)round * 131u + (unsigned)j * 977u + (unsigned)src * 53u) % (MAXLEN + 1));
}

static void fill(unsigned char *b, int n, int src, int round, int j)
{
    for (int k = 0; k < n; k++)
        b[k] = (unsigned char)(src * 31 + round * 7 + j * 3 + k);
}

static void check_bytes(const unsigned char *b, int n, int src, int round, int j)
{
    for (int k = 0; k < n; k++)
        if (b[k] != (unsigned char)(src * 31 + round * 7 + j * 3 + k)) {
            if (errs++ < 10)
                printf("round %d, message %d from %d: byte %d of %d wrong\n", round, j, src, k, n);
            return;
        }
}

static void *streamer(void *arg)
{
    unsigned char b[MAXLEN];
    (void)arg;
    for (int i = 0; i < THREAD_MSGS; i++) {
        int n = len_of(9, i, 1);
        fill(b, n, 9, i, 1);
        MPI_Send(b, n, MPI_BYTE, 0, i, side);
    }
    return NULL;
}

static void truncation(void)
{
    unsigned char b[300];
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls, rc;
    MPI_Status st;
    MPI_Request r;

    if (rank == 1) {
        fill(b, 300, 1, 0, 0);
        MPI_Barrier(MPI_COMM_WORLD);                      /* rank 0 has posted */
        MPI_Send(b, 300, MPI_BYTE, 0, 7, MPI_COMM_WORLD); /* into a posted receive */
        usleep(20000);                                    /* (rank 0 most likely waits) */
        MPI_Send(b, 300, MPI_BYTE, 0, 8, MPI_COMM_WORLD); /* into a waiting MPI_Recv */
    } else if (rank == 0) {
        for (int way = 0; way < 2; way++) {
            if (way == 0) {
                MPI_Irecv(b, 200, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r);
                MPI_Barrier(MPI_COMM_WORLD);
                rc = MPI_Wait(&r, &st);
                if (rc == MPI_SUCCESS)
                    rc = st.MPI_ERROR;
            } else {
                rc = MPI_Recv(b, 200, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            }
            MPI_Error_class(rc, &cls);
            MPI_Error_string(rc, msg, &len);
            if (cls != MPI_ERR_TRUNCATE || !strstr(msg, "300") || !strstr(msg, "200")) {
                errs++;
                printf("truncation (%s): class %d, \"%s\"\n", way ? "waiting" : "posted", cls, msg);
            }
            check_bytes(b, 200, 1, 0, 0);
        }
    }
    if (rank > 1)
        MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    unsigned char b[MAXLEN];
    int size, provided, threads = argc > 1 && strcmp(argv[1], "T") == 0, next[64] = {0};
    pthread_t th;

    if (threads) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            printf("no MPI_THREAD_MULTIPLE\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (threads && rank == 1)
        pthread_create(&th, NULL, streamer, NULL);

    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0) {
            /* 1 turn + BURST from rank 1, BURST from each other rank */
            int want = 1 + BURST * (size - 1);
            for (int got = 0; got < want; got++) {
                MPI_Status st;
                int n, src, j;
                MPI_Recv(b, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &n);
                src = st.MPI_SOURCE;
                if (src == 1 && next[1] == 0) {
                    /* the turn comes first from rank 1 */
                    if ((st.MPI_TAG != TAG_TURN || n != 8) && errs++ < 10)
                        printf("round %d: from 1 tag %d, %d bytes, expected the turn\n", round,
                               st.MPI_TAG, n);
                    check_bytes(b, n, 1, round, 99);
                    next[1] = 1;
                    continue;
                }
                j = src == 1 ? next[1] - 1 : next[src];
                if ((st.MPI_TAG != j || n != len_of(src, round, j)) && errs++ < 10)
                    printf("round %d: from %d tag %d, %d bytes, expected tag %d, %d bytes\n", round,
                           src, st.MPI_TAG, n, j, len_of(src, round, j));
                check_bytes(b, n, src, round, j);
                next[src]++;
            }
            for (int s = 1; s < size; s++) {
                next[s] = 0;
                MPI_Send(NULL, 0, MPI_BYTE, s, 0, MPI_COMM_WORLD);
            }
        } else {
            if (rank == 1) {
                fill(b, 8, 1, round, 99);
                MPI_Send(b, 8, MPI_BYTE, 0, TAG_TURN, MPI_COMM_WORLD);
            }
            for (int j = 0; j < BURST; j++) {
                int n = len_of(rank, round, j);
                fill(b, n, rank, round, j);
                MPI_Send(b, n, MPI_BYTE, 0, j, MPI_COMM_WORLD);
            }
            MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    truncation();
    if (threads && rank == 0) {
        for (int i = 0; i < THREAD_MSGS; i++) {
            MPI_Status st;
            int n;
            MPI_Recv(b, MAXLEN, MPI_BYTE, 1, MPI_ANY_TAG, side, &st);
            MPI_Get_count(&st, MPI_BYTE, &n);
            if ((st.MPI_TAG != i || n != len_of(9, i, 1)) && errs++ < 10)
                printf("thread message %d: tag %d, %d bytes\n", i, st.MPI_TAG, n);
            check_bytes(b, n, 9, i, 1);
        }
    }
    if (threads && rank == 1)
        pthread_join(th, NULL);
    MPI_Comm_free(&side);
    mtest_errors += errs; /* (the sum and "No Errors": mtest_finish) */
    return mtest_finish();
}
