/*
 * Small blocking sends between pairs of ranks in the shapes programs use
 * them, checked for data and order. A small MPI_Send with no receive
 * posted may travel in the line the pair shares on the node ("turns",
 * channels/shm/shm_ring.c), and everything else in the ring; a message
 * must never pass one sent before it on the same communicator, whichever
 * way each went. Ranks 2k and 2k+1 pair up (an odd last rank only takes
 * part in the final checks). Each round is one of:
 * - a ping-pong of 0-8 bytes, then of 9-64 bytes (turns, then the ring);
 * - a leader's MPI_Isend of 40 bytes, then an MPI_Send of 8 (the turn
 *   follows a ring message), received with MPI_ANY_TAG in order;
 * - a stream of three MPI_Send of 8, 0 and 1 bytes (the first may be a
 *   turn, the others wait for its acknowledgement in the ring), received
 *   with MPI_ANY_SOURCE;
 * - an MPI_Sendrecv both ways, then a ping-pong again.
 * Every message carries its round and index and is checked byte by byte,
 * with its count and tag. Meanwhile each paired rank keeps a receive posted
 * on a second communicator (as a library's listener would), which its peer
 * answers after the last round. args=mt runs under MPI_THREAD_MULTIPLE.
 */
#include "mtest.h"

#include <string.h>

enum { ROUNDS = 4000, MAXLEN = 64 };

static void fill(unsigned char *b, int len, int from, int round, int idx)
{
    for (int i = 0; i < len; i++)
        b[i] = (unsigned char)(from * 31 + round * 7 + idx * 13 + i);
}

static void expect(const unsigned char *b, const MPI_Status *st, int len, int from, int round,
                   int idx, int tag)
{
    int n = -1;

    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(n == len, "round %d message %d from %d: %d bytes, expected %d", round, idx, from, n, len);
    CHECK(st->MPI_TAG == tag, "round %d message %d from %d: tag %d, expected %d (out of order)",
          round, idx, from, st->MPI_TAG, tag);
    CHECK(st->MPI_SOURCE == from, "round %d message %d: source %d, expected %d", round, idx,
          st->MPI_SOURCE, from);
    for (int i = 0; i < len && i < n; i++)
        if (b[i] != (unsigned char)(from * 31 + round * 7 + idx * 13 + i)) {
            CHECK(0, "round %d message %d from %d: byte %d of %d wrong", round, idx, from, i, len);
            break;
        }
}

/* One message of len bytes, sent or received; tag = idx. */
static void send_one(MPI_Comm c, int to, int len, int round, int idx)
{
    unsigned char b[MAXLEN];

    fill(b, len, mtest_rank, round, idx);
    OK(MPI_Send(b, len, MPI_BYTE, to, idx, c));
}

static void recv_one(MPI_Comm c, int from, int any, int len, int round, int idx)
{
    unsigned char b[MAXLEN];
    MPI_Status st;

    memset(b, 0xee, sizeof b);
    OK(MPI_Recv(b, MAXLEN, MPI_BYTE, any ? MPI_ANY_SOURCE : from, any ? MPI_ANY_TAG : idx, c, &st));
    expect(b, &st, len, from, round, idx, idx);
}

static void pingpong(MPI_Comm c, int leader, int peer, int len, int round, int idx)
{
    if (leader) {
        send_one(c, peer, len, round, idx);
        recv_one(c, peer, 0, len, round, idx + 1);
    } else {
        recv_one(c, peer, 0, len, round, idx);
        send_one(c, peer, len, round, idx + 1);
    }
}

int main(int argc, char **argv)
{
    int mt = argc > 1 && strcmp(argv[1], "mt") == 0;
    MPI_Comm c, side;
    MPI_Request listen = MPI_REQUEST_NULL;
    int peer, leader, heard = -1;
    long sum = 0, total = 0;

    if (mt)
        mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    else
        mtest_init(&argc, &argv);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &side));
    peer = mtest_rank ^ 1;
    leader = (mtest_rank & 1) == 0;
    if (peer < mtest_size)
        OK(MPI_Irecv(&heard, 1, MPI_INT, peer, 9, side, &listen));
    if (peer < mtest_size) {
        for (int r = 0; r < ROUNDS; r++) {
            switch (r % 4) {
            case 0:
                pingpong(c, leader, peer, r % 9, r, 0);
                pingpong(c, leader, peer, 9 + r % 56, r, 2);
                break;
            case 1:
                if (leader) {
                    unsigned char b[MAXLEN];
                    MPI_Request q;
                    fill(b, 40, mtest_rank, r, 0);
                    OK(MPI_Isend(b, 40, MPI_BYTE, peer, 0, c, &q));
                    send_one(c, peer, 8, r, 1);
                    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
                } else {
                    unsigned char b[MAXLEN];
                    MPI_Status st;
                    OK(MPI_Recv(b, MAXLEN, MPI_BYTE, peer, MPI_ANY_TAG, c, &st));
                    expect(b, &st, 40, peer, r, 0, 0);
                    OK(MPI_Recv(b, MAXLEN, MPI_BYTE, peer, MPI_ANY_TAG, c, &st));
                    expect(b, &st, 8, peer, r, 1, 1);
                }
                pingpong(c, !leader, peer, 4, r, 2);
                break;
            case 2:
                if (leader) {
                    send_one(c, peer, 8, r, 0);
                    send_one(c, peer, 0, r, 1);
                    send_one(c, peer, 1, r, 2);
                } else {
                    recv_one(c, peer, 1, 8, r, 0);
                    recv_one(c, peer, 1, 0, r, 1);
                    recv_one(c, peer, 1, 1, r, 2);
                }
                pingpong(c, !leader, peer, r % 9, r, 3);
                break;
            default: {
                unsigned char s[MAXLEN], b[MAXLEN];
                MPI_Status st;
                fill(s, 8, mtest_rank, r, 0);
                OK(MPI_Sendrecv(s, 8, MPI_BYTE, peer, 0, b, MAXLEN, MPI_BYTE, peer, 0, c, &st));
                expect(b, &st, 8, peer, r, 0, 0);
                pingpong(c, leader, peer, 8, r, 1);
                break;
            }
            }
            sum += r;
        }
        total = sum;
        OK(MPI_Send(&mtest_rank, 1, MPI_INT, peer, 9, side));
        OK(MPI_Wait(&listen, MPI_STATUS_IGNORE));
        CHECK(heard == peer, "the other communicator's message: %d, expected %d", heard, peer);
    }
    /* Every rank, paired or not: the same number of rounds finished. */
    OK(MPI_Allreduce(&total, &sum, 1, MPI_LONG, MPI_MAX, c));
    CHECK(sum == (long)ROUNDS * (ROUNDS - 1) / 2, "rounds: %ld", sum);
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_free(&side));
    return mtest_finish();
}
