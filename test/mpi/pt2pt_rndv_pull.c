/* Pulled rendezvous (the receiver copies from the sender's buffer: CMA on
 * shm) at the sizes around its thresholds, as osu_latency and osu_bw use it:
 * a ping-pong of each size, then a window of Isends of mixed sizes answered
 * by Irecvs posted late (unexpected RTS) and early, then a large receive
 * too short for its message (MPI_ERR_TRUNCATE, the bytes that fit
 * delivered, the rest of the buffer untouched). Ranks pair up (0-1, 2-3,
 * ...; an odd last rank only checks its own self-sends). Run with
 * CANAL_WAIT_PREEMPTED_US=1 the process is in contended mode almost at once,
 * where waits that expect a pull spin past the early sleep
 * (adi_wait_contended_after): every byte must still arrive, and nothing may
 * hang. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {16384, 16385, 65535, 65536, 262144, 1048575, 1048576, 4194304};
enum { NSIZES = sizeof sizes / sizeof sizes[0], WINDOW = 12 };

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char)(i * 7 + (size_t)seed * 13 + (i >> 12));
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(i, seed);
}

static size_t bad_at(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(i, seed))
            return i;
    return n;
}

static void ping_pong(int peer, unsigned char *s, unsigned char *r)
{
    int first = mtest_rank < peer;

    for (int k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        for (int it = 0; it < 3; it++) {
            int seed = k * 10 + it;
            MPI_Status st;
            int cnt;
            fill(s, n, first ? seed : seed + 5);
            memset(r, 0, n);
            if (first) {
                OK(MPI_Send(s, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
                OK(MPI_Recv(r, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
            } else {
                OK(MPI_Recv(r, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
                OK(MPI_Send(s, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
            }
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK((size_t)cnt == n, "ping-pong %zu bytes: count %d", n, cnt);
            size_t at = bad_at(r, n, first ? seed + 5 : seed);
            CHECK(at == n, "ping-pong %zu bytes: byte %zu wrong", n, at);
        }
    }
}

/* WINDOW messages of mixed sizes each way; `late` posts the receives after
 * the sends reached the peer (unexpected RTS), else before. */
static void window(int peer, unsigned char *s, unsigned char *r, int late)
{
    MPI_Request rq[2 * WINDOW];
    size_t off[WINDOW + 1];
    int first = mtest_rank < peer;

    off[0] = 0;
    for (int i = 0; i < WINDOW; i++)
        off[i + 1] = off[i] + sizes[(i * 5 + 3) % NSIZES];
    fill(s, off[WINDOW], first ? 1 : 2);
    memset(r, 0, off[WINDOW]);
    if (!late)
        for (int i = 0; i < WINDOW; i++)
            OK(MPI_Irecv(r + off[i], (int)(off[i + 1] - off[i]), MPI_BYTE, peer, 100 + i,
                         MPI_COMM_WORLD, &rq[WINDOW + i]));
    for (int i = 0; i < WINDOW; i++)
        OK(MPI_Isend(s + off[i], (int)(off[i + 1] - off[i]), MPI_BYTE, peer, 100 + i,
                     MPI_COMM_WORLD, &rq[i]));
    if (late) {
        MPI_Status st;
        /* the last message's RTS is here: so are the others' (in order) */
        OK(MPI_Probe(peer, 100 + WINDOW - 1, MPI_COMM_WORLD, &st));
        for (int i = 0; i < WINDOW; i++)
            OK(MPI_Irecv(r + off[i], (int)(off[i + 1] - off[i]), MPI_BYTE, peer, 100 + i,
                         MPI_COMM_WORLD, &rq[WINDOW + i]));
    }
    OK(MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE));
    size_t at = bad_at(r, off[WINDOW], first ? 2 : 1);
    CHECK(at == off[WINDOW], "window (%s receives) of %zu bytes: byte %zu wrong",
          late ? "late" : "early", off[WINDOW], at);
}

/* The first of a pair sends 4 MiB into the other's receive of 1 MiB + 3. */
static void truncated(int peer, unsigned char *s, unsigned char *r)
{
    size_t n = 4194304, room = 1048579;

    if (mtest_rank < peer) {
        fill(s, n, 9);
        OK(MPI_Send(s, (int)n, MPI_BYTE, peer, 300, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        memset(r, 0xee, room + 64);
        int rc = MPI_Recv(r, (int)room, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &st);
        EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "4 MiB into 1 MiB + 3");
        size_t at = bad_at(r, room, 9);
        CHECK(at == room, "truncated receive: byte %zu of %zu wrong", at, room);
        for (size_t i = room; i < room + 64; i++)
            CHECK(r[i] == 0xee, "truncated receive wrote byte %zu past its %zu", i, room);
    }
    /* both sides go on: a ping-pong after it */
    OK(MPI_Sendrecv(s, 65536, MPI_BYTE, peer, 301, r, 65536, MPI_BYTE, peer, 301, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    size_t cap = 0;
    unsigned char *s, *r;

    mtest_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < WINDOW; i++)
        cap += sizes[(i * 5 + 3) % NSIZES];
    if (cap < 4194304 + 64)
        cap = 4194304 + 64;
    s = malloc(cap);
    r = malloc(cap);
    CHECK(s != NULL && r != NULL, "no memory for 2 x %zu bytes", cap);
    if (s != NULL && r != NULL) {
        int peer = mtest_rank ^ 1;
        if (peer < mtest_size) {
            ping_pong(peer, s, r);
            window(peer, s, r, 0);
            window(peer, s, r, 1);
            truncated(peer, s, r);
        } else { /* the odd last rank: to itself */
            MPI_Request rq;
            fill(s, 4194304, 3);
            OK(MPI_Isend(s, 4194304, MPI_BYTE, mtest_rank, 7, MPI_COMM_WORLD, &rq));
            OK(MPI_Recv(r, 4194304, MPI_BYTE, mtest_rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK(bad_at(r, 4194304, 3) == 4194304, "self-send of 4 MiB");
        }
    }
    free(s);
    free(r);
    return mtest_finish();
}
