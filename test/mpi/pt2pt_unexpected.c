/*
 * Messages that arrive before their receives: every rank starts a batch of
 * sends to every other rank (sizes around the 256 bytes an unexpected
 * message keeps inline, around the 16 KiB eager limit and past it; some
 * synchronous), waits in a barrier so that they land in the unexpected
 * queues, then takes them in one of several ways:
 *   0 MPI_Recv from each source with MPI_ANY_TAG (the first match, in order)
 *   1 MPI_Recv from each source by tag, highest tag first
 *   2 MPI_Recv with MPI_ANY_SOURCE and MPI_ANY_TAG (per-source order)
 *   3 MPI_Mprobe + MPI_Mrecv and MPI_Improbe + MPI_Imrecv interleaved with MPI_Recv
 *   4 MPI_Recv into a buffer half the message's size: MPI_ERR_TRUNCATE, the
 *     received part and its count checked, the communicator usable after
 *   5 MPI_Sendrecv and MPI_Sendrecv_replace, whose send half acknowledges
 *     (into receives posted before)
 *   6 MPI_Recv with no barrier (some messages unexpected, some not)
 * Content, source, tag and count are checked for every message. Run on 2-8
 * ranks; "args=mt" runs modes 0 and 2 in two threads at once (each thread
 * its own communicator).
 */
#include "mtest.h"

#include <pthread.h>

static const int sizes[] = {0, 1, 8, 200, 255, 256, 257, 1000, 4096, 16383, 16384, 16385, 40000};
enum { NSIZES = sizeof sizes / sizeof sizes[0], NMSG = 2 * NSIZES, NTAGS = 3, BIG = 40000,
       ACK_TAG = 99, ACK_MAX = 4096 };

static int msg_size(int j) { return sizes[(j * 7) % NSIZES]; }
static int msg_tag(int j) { return j % NTAGS; }
static unsigned char pat(int src, int j, int i) { return (unsigned char)(src * 31 + j * 7 + i); }

static void check_msg(const unsigned char *b, int n, const MPI_Status *st, int src, int j,
                      int mode)
{
    int cnt = -1, bad = -1;

    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == msg_tag(j) && cnt == n,
          "mode %d message %d: source %d (want %d) tag %d (want %d) count %d (want %d)", mode, j,
          st->MPI_SOURCE, src, st->MPI_TAG, msg_tag(j), cnt, n);
    for (int i = 0; i < n && i < cnt; i++)
        if (b[i] != pat(src, j, i)) {
            bad = i;
            break;
        }
    CHECK(bad < 0, "mode %d message %d from %d: wrong byte at %d", mode, j, src, bad);
}

/* Which message of source src this is: the next one (of that tag, when
 * by_tag) in send order. */
static int next_of(int *next, int src, int tag)
{
    int j = next[src];
    if (tag >= 0)
        while (j < NMSG && msg_tag(j) != tag)
            j++;
    return j;
}

static void round_of(MPI_Comm comm, int mode)
{
    int rank, size, nreq = 0;
    MPI_Request *reqs;
    unsigned char **sbuf, *rb = malloc(BIG + 64);
    int *next;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    reqs = malloc(sizeof *reqs * (size_t)size * NMSG);
    sbuf = malloc(sizeof *sbuf * NMSG);
    next = calloc((size_t)size, sizeof *next);
    for (int j = 0; j < NMSG; j++) {
        sbuf[j] = malloc((size_t)msg_size(j) + 1);
        for (int i = 0; i < msg_size(j); i++)
            sbuf[j][i] = pat(rank, j, i);
    }
    for (int d = 1; d < size; d++) {
        int dest = (rank + d) % size;
        for (int j = 0; j < NMSG; j++) {
            if (j % 4 == 3)
                OK(MPI_Issend(sbuf[j], msg_size(j), MPI_BYTE, dest, msg_tag(j), comm,
                              &reqs[nreq++]));
            else
                OK(MPI_Isend(sbuf[j], msg_size(j), MPI_BYTE, dest, msg_tag(j), comm,
                             &reqs[nreq++]));
        }
    }
    /* (the eager messages have had the barrier's progress to land) */
    if (mode != 6)
        OK(MPI_Barrier(comm));
    if (mode == 0 || mode == 4 || mode == 6) {
        for (int d = 1; d < size; d++) {
            int src = (rank - d + size) % size;
            for (int j = 0; j < NMSG; j++) {
                MPI_Status st;
                int n = msg_size(j), err, cnt = -1;
                if (mode == 4 && n > 0 && j % 2 == 0) {
                    err = MPI_Recv(rb, n / 2, MPI_BYTE, src, MPI_ANY_TAG, comm, &st);
                    MPI_Get_count(&st, MPI_BYTE, &cnt);
                    CHECK(n / 2 == n || mtest_error_class(err) == MPI_ERR_TRUNCATE,
                          "message %d (%d bytes) into %d: error class %d, not MPI_ERR_TRUNCATE", j,
                          n, n / 2, mtest_error_class(err));
                    CHECK(cnt == n / 2 && st.MPI_SOURCE == src && st.MPI_TAG == msg_tag(j),
                          "truncated message %d: count %d (want %d) source %d tag %d", j, cnt,
                          n / 2, st.MPI_SOURCE, st.MPI_TAG);
                    for (int i = 0; i < n / 2; i++)
                        if (rb[i] != pat(src, j, i)) {
                            CHECK(0, "truncated message %d: wrong byte at %d", j, i);
                            break;
                        }
                    continue;
                }
                OK(MPI_Recv(rb, BIG + 64, MPI_BYTE, src, MPI_ANY_TAG, comm, &st));
                check_msg(rb, n, &st, src, j, mode);
            }
        }
    } else if (mode == 1) {
        for (int d = 1; d < size; d++) {
            int src = (rank - d + size) % size;
            for (int tag = NTAGS - 1; tag >= 0; tag--)
                for (int j = tag; j < NMSG; j += NTAGS) {
                    MPI_Status st;
                    OK(MPI_Recv(rb, BIG + 64, MPI_BYTE, src, tag, comm, &st));
                    check_msg(rb, msg_size(j), &st, src, j, mode);
                }
        }
    } else if (mode == 2 || mode == 3) {
        for (int k = 0; k < (size - 1) * NMSG; k++) {
            MPI_Status st;
            int src, j;
            if (mode == 3 && k % 3 != 2) {
                MPI_Message msg;
                int cnt = -1, flag = 0;
                if (k % 3 == 0) {
                    OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg, &st));
                } else {
                    while (!flag)
                        OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg, &st));
                }
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                src = st.MPI_SOURCE;
                j = next_of(next, src, -1);
                CHECK(j < NMSG && cnt == msg_size(j), "probed message from %d: %d bytes", src,
                      cnt);
                if (k % 3 == 0) {
                    OK(MPI_Mrecv(rb, cnt, MPI_BYTE, &msg, &st));
                } else {
                    MPI_Request r;
                    OK(MPI_Imrecv(rb, cnt, MPI_BYTE, &msg, &r));
                    OK(MPI_Wait(&r, &st));
                }
            } else {
                OK(MPI_Recv(rb, BIG + 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
                src = st.MPI_SOURCE;
                j = next_of(next, src, -1);
            }
            if (src < 0 || src >= size || j >= NMSG) {
                CHECK(0, "mode %d: message from %d beyond the %d sent", mode, src, NMSG);
                break;
            }
            check_msg(rb, msg_size(j), &st, src, j, mode);
            next[src] = j + 1;
        }
    } else { /* 5: the acks' receives are posted first (a send may wait for its receive) */
        int nack = 0;
        MPI_Request *acks = malloc(sizeof *acks * (size_t)size * NMSG);
        unsigned char *ackbuf = malloc((size_t)size * NMSG * (ACK_MAX + 1));
        for (int d = 1; d < size; d++)
            for (int j = 0; j < NMSG; j++, nack++)
                OK(MPI_Irecv(ackbuf + (size_t)nack * (ACK_MAX + 1), ACK_MAX + 1, MPI_BYTE,
                             (rank + d) % size, ACK_TAG, comm, &acks[nack]));
        for (int d = 1; d < size; d++) {
            int src = (rank - d + size) % size;
            for (int j = 0; j < NMSG; j++) {
                MPI_Status st;
                int n = msg_size(j);
                if (j % 2 || n > ACK_MAX) {
                    OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, src, ACK_TAG, rb, BIG + 64, MPI_BYTE, src,
                                    MPI_ANY_TAG, comm, &st));
                    check_msg(rb, n, &st, src, j, mode);
                } else {
                    /* the received message replaces a 1-byte ack of the same capacity */
                    memset(rb, 0x5a, (size_t)n + 1);
                    OK(MPI_Sendrecv_replace(rb, n > 0 ? n : 1, MPI_BYTE, src, ACK_TAG, src,
                                            msg_tag(j), comm, &st));
                    check_msg(rb, n, &st, src, j, mode);
                }
            }
        }
        nack = 0;
        for (int d = 1; d < size; d++) {
            int dest = (rank + d) % size;
            for (int j = 0; j < NMSG; j++, nack++) {
                MPI_Status st;
                int cnt = -1, n = msg_size(j), want = j % 2 || n > ACK_MAX ? 0 : (n > 0 ? n : 1);
                OK(MPI_Wait(&acks[nack], &st));
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(cnt == want && st.MPI_SOURCE == dest,
                      "ack %d from %d: %d bytes from %d, want %d", j, dest, cnt, st.MPI_SOURCE,
                      want);
            }
        }
        free(acks);
        free(ackbuf);
    }
    OK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    /* No rank starts the next round's sends before every rank has received
     * this round's: a receive with MPI_ANY_SOURCE (modes 2 and 3) would
     * take a fast rank's next-round messages for this round's (a test race
     * seen at 8 ranks under load: "message from 7 beyond the 26 sent", and
     * the messages left unreceived hung their senders' MPI_Waitall). */
    OK(MPI_Barrier(comm));
    for (int j = 0; j < NMSG; j++)
        free(sbuf[j]);
    free(sbuf);
    free(reqs);
    free(next);
    free(rb);
}

static void *thread_main(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    for (int rep = 0; rep < 3; rep++) {
        round_of(comm, 0);
        round_of(comm, 2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0, mt = argc > 1 && strcmp(argv[1], "mt") == 0;

    if (mt)
        provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    else
        mtest_init(&argc, &argv);
    if (mt && provided == MPI_THREAD_MULTIPLE) {
        MPI_Comm comms[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
            MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN);
        }
        for (int t = 0; t < 2; t++)
            pthread_create(&th[t], NULL, thread_main, &comms[t]);
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        for (int t = 0; t < 2; t++)
            MPI_Comm_free(&comms[t]);
    } else {
        CHECK(!mt, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
        for (int rep = 0; rep < 2; rep++)
            for (int mode = 0; mode <= 6; mode++)
                round_of(MPI_COMM_WORLD, mode);
    }
    return mtest_finish();
}
