/*
 * Windows of MPI_Isend/MPI_Irecv between every pair of ranks, as osu_bw and
 * osu_mbw_mr post them (issue 26): a small contiguous MPI_Isend that goes
 * straight into the channel returns a request that is already complete,
 * everything else a request of its own, and a program must not see the
 * difference. Each round every rank posts, for every other rank, a window
 * of receives and a window of sends of mixed sizes (0 bytes to past the
 * rendezvous limit), contiguous (MPI_BYTE) and derived (a strided vector of
 * ints), and completes them with MPI_Waitall, MPI_Waitany, MPI_Testsome or
 * MPI_Wait one by one (with MPI_Request_get_status first), by round. Some
 * sends are released with MPI_Request_free at once. Every send status is
 * checked not cancelled (MPI_Test_cancelled) and every received message's
 * content, source, tag and count. Then a flood: a window of small sends
 * large enough to fill the ring and the eager credit, received late (after
 * a barrier) in order with one tag, then a last window with a rendezvous
 * message in the middle of small ones, and MPI_Cancel of small sends (the
 * receiver is told whether the cancel succeeded). Run on 2-8 ranks, with a
 * small ring, a small unexpected-message limit (little eager credit: sends
 * queue behind each other) and on the socket channel (testlist).
 */
#include "mtest.h"

enum { W = 24, ROUNDS = 8, FLOOD = 600, NSZ = 12 };
/* bytes (contiguous) or ints (derived); the big ones are rendezvous */
static const int sizes[NSZ] = {0, 1, 8, 3, 64, 100, 8, 1000, 16385, 8, 70000, 4};

static unsigned char pat(int src, int dst, int round, int k, int i)
{
    return (unsigned char)(src * 37 + dst * 11 + round * 5 + k * 3 + i * 7 + 1);
}

typedef struct {
    MPI_Datatype type; /* MPI_BYTE or vec */
    int count;         /* elements of type */
    int bytes;         /* size of the message's data */
    int span;          /* bytes the buffer spans */
} msg_t;

static MPI_Datatype vec; /* two ints out of every three (main) */

static msg_t msg_of(int round, int k)
{
    msg_t m;
    int n = sizes[(k + round) % NSZ];
    if ((k + round) % 3 == 2 && n > 0) {
        /* n/8 + 1 vectors of 2 ints, stride 3 */
        m.type = vec;
        m.count = n / 8 + 1;
        m.bytes = m.count * 2 * (int)sizeof(int);
        m.span = m.count * 3 * (int)sizeof(int);
    } else {
        m.type = MPI_BYTE;
        m.count = n;
        m.bytes = n;
        m.span = n;
    }
    return m;
}

/* Byte i of the data of the message, where it lies in the buffer */
static size_t data_off(const msg_t *m, int i)
{
    if (m->type == MPI_BYTE)
        return (size_t)i;
    int e = i / (int)sizeof(int), b = i % (int)sizeof(int);
    return (size_t)((e / 2) * 3 + e % 2) * sizeof(int) + (size_t)b;
}

static void fill(unsigned char *buf, const msg_t *m, int src, int dst, int round, int k)
{
    memset(buf, 0xee, (size_t)m->span);
    for (int i = 0; i < m->bytes; i++)
        buf[data_off(m, i)] = pat(src, dst, round, k, i);
}

static int bad_at(const unsigned char *buf, const msg_t *m, int src, int dst, int round, int k)
{
    for (int i = 0; i < m->bytes; i++)
        if (buf[data_off(m, i)] != pat(src, dst, round, k, i))
            return i;
    return -1;
}

static void check_send_status(const MPI_Status *st, int round, int k)
{
    int flag = -1;
    OK(MPI_Test_cancelled(st, &flag));
    CHECK(flag == 0, "round %d send %d: MPI_Test_cancelled says %d on a completed send", round, k,
          flag);
}

static void check_recv(const MPI_Status *st, unsigned char *buf, const msg_t *m, int src, int round,
                       int k)
{
    int count = -1, bad, flag = -1;
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == k, "round %d recv %d: source %d tag %d", round,
          k, st->MPI_SOURCE, st->MPI_TAG);
    OK(MPI_Get_count(st, m->type, &count));
    CHECK(count == m->count, "round %d recv %d from %d: count %d, expected %d", round, k, src,
          count, m->count);
    OK(MPI_Test_cancelled(st, &flag));
    CHECK(flag == 0, "round %d recv %d: cancelled %d", round, k, flag);
    bad = bad_at(buf, m, src, mtest_rank, round, k);
    CHECK(bad < 0, "round %d recv %d from %d (%d bytes): wrong byte %d", round, k, src, m->bytes,
          bad);
}

static void window_round(int round)
{
    int np = mtest_size, me = mtest_rank, npeers = np - 1;
    int n = 2 * W * npeers;
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)n);
    MPI_Status *sts = malloc(sizeof *sts * (size_t)n);
    unsigned char **bufs = calloc((size_t)n, sizeof *bufs);
    msg_t *msgs = malloc(sizeof *msgs * (size_t)n);
    int *peer_of = malloc(sizeof *peer_of * (size_t)n), *k_of = malloc(sizeof *k_of * (size_t)n);
    int *freed = calloc((size_t)n, sizeof *freed);
    int mode = round % 4, i = 0;

    /* receives first from every peer, then sends to every peer */
    for (int d = 1; d < np; d++) {
        int src = (me - d + np) % np;
        for (int k = 0; k < W; k++, i++) {
            msgs[i] = msg_of(round, k);
            bufs[i] = malloc((size_t)msgs[i].span + 1);
            memset(bufs[i], 0, (size_t)msgs[i].span + 1);
            peer_of[i] = src;
            k_of[i] = k;
            OK(MPI_Irecv(bufs[i], msgs[i].count, msgs[i].type, src, k, MPI_COMM_WORLD, &reqs[i]));
        }
    }
    for (int d = 1; d < np; d++) {
        int dst = (me + d) % np;
        for (int k = 0; k < W; k++, i++) {
            msgs[i] = msg_of(round, k);
            bufs[i] = malloc((size_t)msgs[i].span + 1);
            fill(bufs[i], &msgs[i], me, dst, round, k);
            peer_of[i] = dst;
            k_of[i] = k;
            OK(MPI_Isend(bufs[i], msgs[i].count, msgs[i].type, dst, k, MPI_COMM_WORLD, &reqs[i]));
            if (k % 7 == 3) { /* nobody waits for it: the barrier below says it arrived */
                OK(MPI_Request_free(&reqs[i]));
                CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
                freed[i] = 1;
            }
        }
    }
    if (mode == 0) {
        OK(MPI_Waitall(n, reqs, sts));
    } else if (mode == 1) {
        int left = n;
        for (int j = 0; j < n; j++)
            left -= freed[j];
        for (; left > 0; left--) {
            int idx = -1;
            MPI_Status st;
            OK(MPI_Waitany(n, reqs, &idx, &st));
            CHECK(idx >= 0 && idx < n, "MPI_Waitany index %d", idx);
            if (idx < 0 || idx >= n)
                break;
            CHECK(reqs[idx] == MPI_REQUEST_NULL, "MPI_Waitany left request %d", idx);
            sts[idx] = st;
        }
        /* the freed ones were MPI_REQUEST_NULL all along */
        for (int j = 0; j < n; j++)
            CHECK(reqs[j] == MPI_REQUEST_NULL, "request %d still active", j);
    } else if (mode == 2) {
        int *idx = malloc(sizeof *idx * (size_t)n), done = 0, out = 0;
        MPI_Status *some = malloc(sizeof *some * (size_t)n);
        int expect = n; /* the freed ones are MPI_REQUEST_NULL already */
        for (int j = 0; j < n; j++)
            expect -= freed[j];
        while (done < expect) {
            OK(MPI_Testsome(n, reqs, &out, idx, some));
            if (out == MPI_UNDEFINED)
                break;
            for (int j = 0; j < out; j++)
                sts[idx[j]] = some[j];
            done += out;
        }
        CHECK(done == expect, "MPI_Testsome completed %d of %d", done, expect);
        free(idx);
        free(some);
    } else {
        for (int j = 0; j < n; j++) {
            int flag = 0;
            if (reqs[j] == MPI_REQUEST_NULL)
                continue;
            while (!flag)
                OK(MPI_Request_get_status(reqs[j], &flag, &sts[j]));
            CHECK(reqs[j] != MPI_REQUEST_NULL, "MPI_Request_get_status freed request %d", j);
            OK(MPI_Wait(&reqs[j], &sts[j]));
            CHECK(reqs[j] == MPI_REQUEST_NULL, "MPI_Wait left request %d", j);
        }
    }
    for (int j = 0; j < n; j++) {
        if (freed[j])
            continue;
        if (j < W * npeers)
            check_recv(&sts[j], bufs[j], &msgs[j], peer_of[j], round, k_of[j]);
        else
            check_send_status(&sts[j], round, k_of[j]);
    }
    /* every receive of every rank is complete: the freed sends' buffers are free */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int j = 0; j < n; j++)
        free(bufs[j]);
    free(bufs);
    free(reqs);
    free(sts);
    free(msgs);
    free(peer_of);
    free(k_of);
    free(freed);
}

/* FLOOD small sends to the next rank, received late, in order, one tag. */
static void flood(void)
{
    int np = mtest_size, me = mtest_rank, dst = (me + 1) % np, src = (me - 1 + np) % np;
    MPI_Request *reqs = malloc(sizeof *reqs * FLOOD);
    unsigned char *sb = malloc(FLOOD * 16), *rb = calloc(FLOOD, 16);
    for (int k = 0; k < FLOOD; k++) {
        int len = 1 + k % 16;
        for (int i = 0; i < len; i++)
            sb[k * 16 + i] = pat(me, dst, 99, k, i);
        OK(MPI_Isend(sb + k * 16, len, MPI_BYTE, dst, 5, MPI_COMM_WORLD, &reqs[k]));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* the receives come late: unexpected, in order */
    for (int k = 0; k < FLOOD; k++) {
        MPI_Status st;
        int count = -1, len = 1 + k % 16, bad = -1;
        OK(MPI_Recv(rb + k * 16, 16, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == len, "flood %d: count %d, expected %d (out of order?)", k, count, len);
        for (int i = 0; i < len && bad < 0; i++)
            if (rb[k * 16 + i] != pat(src, me, 99, k, i))
                bad = i;
        CHECK(bad < 0, "flood %d: wrong byte %d", k, bad);
    }
    OK(MPI_Waitall(FLOOD, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
    free(sb);
    free(rb);
}

/* Small sends around a rendezvous one, one tag: received in order. */
static void mixed_order(void)
{
    enum { N = 40, BIGN = 40000 };
    int np = mtest_size, me = mtest_rank, dst = (me + 1) % np, src = (me - 1 + np) % np;
    MPI_Request reqs[2 * N];
    unsigned char *sb = malloc((size_t)N * BIGN), *rb = calloc((size_t)N, BIGN);
    for (int k = 0; k < N; k++) {
        OK(MPI_Irecv(rb + (size_t)k * BIGN, BIGN, MPI_BYTE, src, 9, MPI_COMM_WORLD, &reqs[k]));
    }
    for (int k = 0; k < N; k++) {
        int len = k % 10 == 4 ? BIGN : k % 9;
        for (int i = 0; i < len; i++)
            sb[(size_t)k * BIGN + i] = pat(me, dst, 77, k, i);
        OK(MPI_Isend(sb + (size_t)k * BIGN, len, MPI_BYTE, dst, 9, MPI_COMM_WORLD, &reqs[N + k]));
    }
    MPI_Status st[2 * N];
    OK(MPI_Waitall(2 * N, reqs, st));
    for (int k = 0; k < N; k++) {
        int len = k % 10 == 4 ? BIGN : k % 9, count = -1, bad = -1;
        OK(MPI_Get_count(&st[k], MPI_BYTE, &count));
        CHECK(count == len, "mixed %d: count %d, expected %d (out of order?)", k, count, len);
        for (int i = 0; i < len && bad < 0; i++)
            if (rb[(size_t)k * BIGN + i] != pat(src, me, 77, k, i))
                bad = i;
        CHECK(bad < 0, "mixed %d: wrong byte %d", k, bad);
        check_send_status(&st[N + k], 77, k);
    }
    free(sb);
    free(rb);
}

/* MPI_Cancel of a small MPI_Isend: MPI lets it succeed only while the
 * message is unmatched; either way the status says which, and the receiver,
 * told by a second message, finds the message exactly when it was not
 * cancelled. */
static void cancel_sent(void)
{
    int np = mtest_size, me = mtest_rank, dst = (me + 1) % np, src = (me - 1 + np) % np;
    for (int k = 0; k < 4; k++) {
        unsigned char sb[8], rb[8];
        int cancelled = -1, peer_cancelled = -1;
        MPI_Request r;
        MPI_Status st;
        for (int i = 0; i < 8; i++)
            sb[i] = pat(me, dst, 55, k, i);
        OK(MPI_Isend(sb, 8, MPI_BYTE, dst, 20 + k, MPI_COMM_WORLD, &r));
        OK(MPI_Cancel(&r));
        OK(MPI_Wait(&r, &st));
        CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left a cancelled send's request");
        OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled == 0 || cancelled == 1, "MPI_Test_cancelled gave %d", cancelled);
        OK(MPI_Sendrecv(&cancelled, 1, MPI_INT, dst, 30, &peer_cancelled, 1, MPI_INT, src, 30,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (peer_cancelled == 0) {
            int bad = -1;
            OK(MPI_Recv(rb, 8, MPI_BYTE, src, 20 + k, MPI_COMM_WORLD, &st));
            for (int i = 0; i < 8 && bad < 0; i++)
                if (rb[i] != pat(src, me, 55, k, i))
                    bad = i;
            CHECK(bad < 0, "cancel %d: wrong byte %d of a send not cancelled", k, bad);
        } else {
            int flag = 1;
            OK(MPI_Iprobe(src, 20 + k, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(flag == 0, "cancel %d: a cancelled send arrived", k);
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    /* two ints, then a gap of one: count elements lie at a stride of 3 ints */
    {
        MPI_Datatype v;
        OK(MPI_Type_contiguous(2, MPI_INT, &v));
        OK(MPI_Type_create_resized(v, 0, 3 * (MPI_Aint)sizeof(int), &vec));
        OK(MPI_Type_free(&v));
        OK(MPI_Type_commit(&vec));
    }
    if (mtest_size < 2) {
        if (mtest_rank == 0)
            printf("skipped: needs 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    for (int r = 0; r < ROUNDS; r++)
        window_round(r);
    flood();
    mixed_order();
    cancel_sent();
    OK(MPI_Type_free(&vec));
    return mtest_finish();
}
