/*
 * Every rank but 0 streams small messages to rank 0 (the hub) while the hub
 * takes turns with rank 1 and the others take turns in pairs: with more
 * than two ranks on a node, each wait of the hub looks at several rings at
 * once (channels/shm/shm_ring.c, progress(): the look at an idle ring, the
 * bytes given back at the next poll, the round robin), and rank 1's
 * messages alternate between the line the pair shares (its pings) and the
 * ring (its stream). Checked by results only:
 * - every message arrives once, with its bytes, in the order its sender
 *   sent it (the hub keeps a window of receives posted per sender and
 *   checks each one's sequence number);
 * - the hub's ping-pong with rank 1 completes while the others flood it,
 *   and every ping and pong carries its round: a poll that passed over a
 *   ring or a turn with something in it, or that stopped giving a ring's
 *   bytes back while its sender waits for room, never completes (the
 *   testlist keeps waits from sleeping, CANAL_SLEEP_AFTER_US, where
 *   block() would give everything back and wake on the turn).
 * args=N: messages per streamer (default 20000: more than one ring holds).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { T_STREAM = 1, T_PING = 2, T_PAIR = 3, WINDOW = 16, LEN = 8, ROUNDS = 3000 };

typedef struct {
    int from;
    int seq;
} msg_t;
_Static_assert(sizeof(msg_t) == LEN, "a message is LEN bytes");

/* Rank 1: a ping and its pong per round, then a burst of its stream. */
static void partner(int nstream)
{
    int sent = 0;

    for (int r = 0; r < ROUNDS; r++) {
        msg_t m = {1, r}, back = {-1, -1};
        MPI_Status st;

        OK(MPI_Send(&m, LEN, MPI_BYTE, 0, T_PING, MPI_COMM_WORLD));
        OK(MPI_Recv(&back, LEN, MPI_BYTE, 0, T_PING, MPI_COMM_WORLD, &st));
        CHECK(back.from == 0 && back.seq == r, "round %d: pong from %d round %d", r, back.from,
              back.seq);
        for (int end = (int)((long)nstream * (r + 1) / ROUNDS); sent < end; sent++) {
            msg_t s = {1, sent};
            OK(MPI_Send(&s, LEN, MPI_BYTE, 0, T_STREAM, MPI_COMM_WORLD));
        }
    }
}

/* Ranks 2..: the stream, with a ping-pong round with the pair's other rank
 * (2k with 2k+1; an odd last rank has none) every 64 messages. */
static void streamer(int nstream)
{
    int peer = mtest_rank % 2 == 0 ? mtest_rank + 1 : mtest_rank - 1;
    int paired = peer >= 2 && peer < mtest_size, round = 0;

    for (int i = 0; i < nstream; i++) {
        msg_t s = {mtest_rank, i};

        OK(MPI_Send(&s, LEN, MPI_BYTE, 0, T_STREAM, MPI_COMM_WORLD));
        if (paired && i % 64 == 63) {
            msg_t m = {mtest_rank, round}, got = {-1, -1};
            MPI_Status st;

            if (mtest_rank < peer) {
                OK(MPI_Send(&m, LEN, MPI_BYTE, peer, T_PAIR, MPI_COMM_WORLD));
                OK(MPI_Recv(&got, LEN, MPI_BYTE, peer, T_PAIR, MPI_COMM_WORLD, &st));
            } else {
                OK(MPI_Recv(&got, LEN, MPI_BYTE, peer, T_PAIR, MPI_COMM_WORLD, &st));
                OK(MPI_Send(&m, LEN, MPI_BYTE, peer, T_PAIR, MPI_COMM_WORLD));
            }
            CHECK(got.from == peer && got.seq == round, "pair round %d: got %d's round %d",
                  round, got.from, got.seq);
            round++;
        }
    }
}

/* The hub's windows: WINDOW receives posted per sender, each checked and
 * posted again as it completes, until every sender's nstream messages came.
 * Receives from one sender with one tag match in the order they were
 * posted, so the i-th posted gets the i-th message sent. */
typedef struct {
    MPI_Request *req;
    msg_t *buf;
    int *want;   /* the sequence number each posted receive must get */
    int *posted; /* receives posted per sender */
    int *taken;  /* messages received per sender */
    int n;       /* senders: ranks 1..size-1 */
    int nstream;
} hub_t;

static void hub_post(hub_t *h, int k)
{
    int from = k / WINDOW + 1;

    h->buf[k].from = h->buf[k].seq = -1;
    h->want[k] = h->posted[from - 1]++;
    OK(MPI_Irecv(&h->buf[k], LEN, MPI_BYTE, from, T_STREAM, MPI_COMM_WORLD, &h->req[k]));
}

static void hub_take(hub_t *h, int k, const MPI_Status *st)
{
    int from = k / WINDOW + 1, count = -1;

    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == LEN && st->MPI_SOURCE == from, "from %d: %d bytes from %d", from, count,
          st->MPI_SOURCE);
    CHECK(h->buf[k].from == from && h->buf[k].seq == h->want[k],
          "from %d: message %d of rank %d where %d was due (lost, twice or out of order)", from,
          h->buf[k].seq, h->buf[k].from, h->want[k]);
    h->taken[from - 1]++;
    if (h->posted[from - 1] < h->nstream)
        hub_post(h, k);
}

/* Take what completed (wait: at least one); 0 once every message came. */
static int hub_drain(hub_t *h, int wait)
{
    int total = h->n * WINDOW, done = 0, idx[64 * WINDOW];
    MPI_Status st[64 * WINDOW];

    if (wait)
        OK(MPI_Waitsome(total, h->req, &done, idx, st));
    else
        OK(MPI_Testsome(total, h->req, &done, idx, st));
    for (int i = 0; i < done && done != MPI_UNDEFINED; i++)
        hub_take(h, idx[i], &st[i]);
    for (int s = 0; s < h->n; s++)
        if (h->taken[s] < h->nstream)
            return 1;
    return 0;
}

static void hub(int nstream)
{
    hub_t h;

    h.n = mtest_size - 1;
    h.nstream = nstream;
    h.req = malloc(sizeof *h.req * (size_t)(h.n * WINDOW));
    h.buf = malloc(sizeof *h.buf * (size_t)(h.n * WINDOW));
    h.want = malloc(sizeof *h.want * (size_t)(h.n * WINDOW));
    h.posted = calloc((size_t)h.n, sizeof *h.posted);
    h.taken = calloc((size_t)h.n, sizeof *h.taken);
    for (int k = 0; k < h.n * WINDOW; k++) {
        h.req[k] = MPI_REQUEST_NULL;
        if (h.posted[k / WINDOW] < nstream)
            hub_post(&h, k);
    }
    for (int r = 0; r < ROUNDS; r++) {
        msg_t m = {-1, -1}, back = {0, r};
        MPI_Status st;

        OK(MPI_Recv(&m, LEN, MPI_BYTE, 1, T_PING, MPI_COMM_WORLD, &st));
        CHECK(m.from == 1 && m.seq == r, "round %d: ping from %d round %d", r, m.from, m.seq);
        OK(MPI_Send(&back, LEN, MPI_BYTE, 1, T_PING, MPI_COMM_WORLD));
        if (r % 8 == 0)
            hub_drain(&h, 0);
    }
    while (hub_drain(&h, 1))
        ;
    for (int s = 0; s < h.n; s++)
        CHECK(h.taken[s] == nstream, "rank %d: %d messages of %d", s + 1, h.taken[s], nstream);
    free(h.req);
    free(h.buf);
    free(h.want);
    free(h.posted);
    free(h.taken);
}

int main(int argc, char **argv)
{
    int nstream = argc > 1 ? atoi(argv[1]) : 20000;

    mtest_init(&argc, &argv);
    if (mtest_size < 3 || mtest_size > 64) {
        if (mtest_rank == 0)
            fprintf(stderr, "pt2pt_hub_turns: needs 3 to 64 ranks, has %d\n", mtest_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (mtest_rank == 0)
        hub(nstream);
    else if (mtest_rank == 1)
        partner(nstream);
    else
        streamer(nstream);
    return mtest_finish();
}
