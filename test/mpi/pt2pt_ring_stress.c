/*
 * The shm ring's soft wrap under a user's traffic (issue 26): a sender
 * whose reader has caught up goes back to the ring's start early (a
 * ping-pong reuses the first lines), a stream walks the whole ring, and
 * the two alternate. Every pair of ranks in turn (a round-robin schedule,
 * the other pairs busy at the same time) runs, three times over: a
 * ping-pong of random sizes 0-64 KiB (most up to 4 KiB, where the soft
 * wrap applies; 16 KiB still eager; above it rendezvous), then windows of
 * MPI_Isend both ways at once (osu_bibw's pattern) of random sizes with an
 * acknowledgement per window, then a one-way window (osu_bw's). Every
 * message's content, source, tag and count is checked. Run on 2-8 ranks,
 * also with the soft wrap off and with a ring too small for it (testlist).
 * Optional argument: ping-pong rounds per pair and pass (default 600).
 */
#include "mtest.h"

enum { WIN = 64, MAXB = 65536, PASSES = 3 };

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Most messages up to 4 KiB, some to 16 KiB (eager), some rendezvous. */
static int msg_size(unsigned *s)
{
    unsigned x = rnd(s), k = x % 16;

    if (k < 11)
        return (int)(rnd(s) % 4097);
    if (k < 13)
        return k == 11 ? 16384 : (int)(4097 + rnd(s) % (16384 - 4096));
    return (int)(16385 + rnd(s) % (MAXB - 16384));
}

static unsigned char pat(int src, unsigned msg, int i)
{
    return (unsigned char)(src * 29 + msg * 13 + (unsigned)i * 7 + 3);
}

static void fill(unsigned char *b, int src, unsigned msg, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = pat(src, msg, i);
}

static void check_msg(const unsigned char *b, int src, unsigned msg, int n, MPI_Status *st, int tag,
                      const char *what)
{
    int count = -1, bad = -1;

    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
          "%s %u: source %d tag %d count %d, expected %d %d %d", what, msg, st->MPI_SOURCE,
          st->MPI_TAG, count, src, tag, n);
    for (int i = 0; i < n && i < count; i++)
        if (b[i] != pat(src, msg, i)) {
            bad = i;
            break;
        }
    CHECK(bad < 0, "%s %u from %d (%d bytes): byte %d wrong", what, msg, src, n, bad);
}

/* Ping-pong with peer: the lower rank starts. Both draw sizes from the
 * same seed. */
static void pingpong(int me, int peer, int rounds, unsigned seed, unsigned char *sb,
                     unsigned char *rb)
{
    unsigned s = seed;
    MPI_Status st;

    for (int k = 0; k < rounds; k++) {
        int n = msg_size(&s);
        unsigned msg = seed + (unsigned)k;
        if (me < peer) {
            fill(sb, me, msg, n);
            OK(MPI_Send(sb, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            OK(MPI_Recv(rb, MAXB, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st));
            check_msg(rb, peer, msg, n, &st, 2, "pong");
        } else {
            OK(MPI_Recv(rb, MAXB, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            check_msg(rb, peer, msg, n, &st, 1, "ping");
            fill(sb, me, msg, n);
            OK(MPI_Send(sb, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
        }
    }
}

/* A window of WIN messages from each side that sends (both, or only the
 * lower rank), then a 0-byte acknowledgement from each side that receives. */
static void window(int me, int peer, int both, unsigned seed, unsigned char *sb, unsigned char *rb)
{
    MPI_Request req[2 * WIN];
    MPI_Status st[2 * WIN];
    int sizes[WIN], nreq = 0, sends = both || me < peer, recvs = both || me > peer;
    unsigned s = seed;

    for (int i = 0; i < WIN; i++)
        sizes[i] = msg_size(&s);
    if (recvs)
        for (int i = 0; i < WIN; i++)
            OK(MPI_Irecv(rb + (size_t)i * MAXB, MAXB, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
                         &req[nreq++]));
    if (sends)
        for (int i = 0; i < WIN; i++) {
            unsigned char *b = sb + (size_t)i * MAXB;
            fill(b, me, seed + (unsigned)i, sizes[i]);
            OK(MPI_Isend(b, sizes[i], MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req[nreq++]));
        }
    OK(MPI_Waitall(nreq, req, st));
    if (recvs)
        for (int i = 0; i < WIN; i++)
            check_msg(rb + (size_t)i * MAXB, peer, seed + (unsigned)i, sizes[i], &st[i], 3,
                      "window message");
    if (recvs)
        OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
    if (sends)
        OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 600, me, n;
    unsigned char *sb, *rb, *wsb, *wrb;

    mtest_init(&argc, &argv);
    me = mtest_rank;
    n = mtest_size;
    sb = malloc(MAXB);
    rb = malloc(MAXB);
    wsb = malloc((size_t)WIN * MAXB);
    wrb = malloc((size_t)WIN * MAXB);
    CHECK(sb && rb && wsb && wrb, "malloc");
    if (!(sb && rb && wsb && wrb))
        return mtest_finish();
    for (int pass = 0; pass < PASSES; pass++) {
        /* Round-robin: in step t rank r meets (t - r) mod m (m: the size
         * rounded up to even), so ranks r and s meet once, in step
         * (r + s) mod m; a rank paired with itself or with m - 1 = n sits
         * the step out. */
        int m = n + (n & 1);
        for (int t = 0; t < m; t++) {
            int peer = ((t - me) % m + m) % m;
            unsigned seed;
            if (peer == me || peer >= n)
                continue;
            seed =
                (unsigned)(pass * 1000003 + (me < peer ? me * 64 + peer : peer * 64 + me) * 7919);
            pingpong(me, peer, rounds, seed, sb, rb);
            for (int w = 0; w < 3; w++)
                window(me, peer, 1, seed + 100000u * (unsigned)(w + 1), wsb, wrb);
            window(me, peer, 0, seed + 500000u, wsb, wrb);
            pingpong(me, peer, rounds / 4, seed + 900000u, sb, rb);
        }
    }
    free(sb);
    free(rb);
    free(wsb);
    free(wrb);
    return mtest_finish();
}
