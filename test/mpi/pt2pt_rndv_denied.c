/*
 * Single-copy reads denied at run time in the middle of a window of
 * rendezvous messages. Rank 0 receives from every other rank windows of W
 * messages (W = 1, 2, 7, 33, 64, 100) of mixed sizes, 8 KiB to 1 MiB (one
 * poll reads the 64 KiB ones and smaller from a sender together, the
 * others one by one, those of 128 KiB and more in halves), into receives
 * posted before the senders start, posted after their requests wait
 * unexpected, and from MPI_ANY_SOURCE; every byte, every count and each
 * sender's order is checked. The test knob
 * CANAL_SHM_CMA_FAIL_AFTER=N[,efault][,partial][,first|,last] makes rank
 * 0's read number N+1 (or the first or last of the batch it falls in) fail;
 * args name the errno and the same N:
 * - args=eperm~N: CMA is denied there; every later message comes to rank 0
 *   through the ring instead, so exactly N messages were read
 *   (canal_rndv_pulled) of the more than N that came by rendezvous
 *   (canal_rndv_received);
 * - args=denied~N: the same where first or last moves the failure: some
 *   messages were not read;
 * - args=efault~N: only that message comes through the ring: all others
 *   were read;
 * - args=any: no count (several knobs at once, CMA off from the start).
 * Then (not with halves) every rank exchanges windows with every other, of
 * sizes on both sides of the eager limit, some into a strided type, some
 * from MPI_ANY_SOURCE (exchange(), below): each rank's knob fires at its
 * own read N+1 there, if not before.
 * More words: mt runs rank 0 under MPI_THREAD_MULTIPLE with each window's
 * requests completed by two threads at once; halves sends only messages of
 * 128 KiB and more, one at a time, so that with CANAL_SHM_CMA_WRITE_FAIL
 * (the sender cannot write its half) read N+1 can be the receiver's read of
 * the sender's half after its own half was read: before, that receive
 * failed (CANAL_ERR_UNSUPPORTED, or CANAL_ERR_ARG) with its second half
 * never written; now the sender streams the message through the ring.
 */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* data: tag TAG + round (a rank that went on to the next round sends what a
 * wildcard of this one must not match) */
enum { TAG_GO = 8, TAG = 100 };
static const int wins[] = {1, 2, 7, 33, 64, 100};
enum { NWINS = sizeof wins / sizeof wins[0] };
/* sizes of the batch's reach (64 KiB and below) and past it */
static const int small[] = {8192, 20000, 65536, 12288, 40000, 8200, 32768};
static const int big[] = {1048576, 100000, 262144, 131072};
enum { NSMALL = sizeof small / sizeof small[0], NBIG = sizeof big / sizeof big[0] };

/* message m of sender s in a window of w of a round: mostly batchable,
 * every fifth (every ninth in wide windows, 100000 B at most there) past
 * 64 KiB */
static int halves; /* args: every message 128 KiB or more, one at a time */

static int msg_size(int s, int round, int m, int w)
{
    if (halves)
        return big[(s + round + m) % NBIG] < 131072 ? 131072 : big[(s + round + m) % NBIG];
    if (w <= 7 && m % 5 == 4)
        return big[(s + round + m / 5) % NBIG];
    if (w > 7 && m % 9 == 8)
        return 100000;
    return small[(s * 3 + m) % NSMALL];
}

static int win_max(int w)
{
    return w <= 7 ? big[0] : 100000;
}

static unsigned char pat(int src, int round, int msg, size_t i)
{
    return (unsigned char)(src * 37 + round * 13 + msg * 11 + i + i / 251);
}

typedef struct {
    MPI_Request *reqs;
    MPI_Status *sts;
    int n, rc;
} waiter_t;

static void *wait_part(void *arg)
{
    waiter_t *w = arg;

    w->rc = MPI_Waitall(w->n, w->reqs, w->sts);
    return NULL;
}

/* rank 0: one window of w messages from each sender; mode 0 posted first,
 * 1 posted after the senders sent, 2 from MPI_ANY_SOURCE */
static void recv_window(MPI_Comm comm, int w, int mode, int round, int mt)
{
    int senders = mtest_size - 1, total = senders * w;
    size_t slot = (size_t)win_max(w);
    unsigned char *buf = malloc(slot * (size_t)total);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)total);
    MPI_Status *sts = malloc(sizeof *sts * (size_t)total);
    int *msgno = calloc((size_t)mtest_size, sizeof(int));

    CHECK(buf != NULL && reqs != NULL && sts != NULL && msgno != NULL, "malloc");
    if (buf == NULL || reqs == NULL || sts == NULL || msgno == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 0, slot * (size_t)total);
    if (mode == 1) {
        for (int s = 1; s < mtest_size; s++)
            OK(MPI_Send(&round, 1, MPI_INT, s, TAG_GO, comm));
        /* the last sender's first message is here: its RTSs wait unexpected */
        OK(MPI_Probe(mtest_size - 1, TAG + round, comm, MPI_STATUS_IGNORE));
    }
    for (int s = 1, k = 0; s < mtest_size; s++)
        for (int m = 0; m < w; m++, k++)
            OK(MPI_Irecv(buf + (size_t)k * slot, (int)slot, MPI_BYTE,
                         mode == 2 ? MPI_ANY_SOURCE : s, TAG + round, comm, &reqs[k]));
    if (mode != 1)
        for (int s = 1; s < mtest_size; s++)
            OK(MPI_Send(&round, 1, MPI_INT, s, TAG_GO, comm));
    if (mt && total >= 2) {
        /* two threads complete the window's requests at once */
        waiter_t a = {reqs, sts, total / 2, 0},
                 b = {reqs + total / 2, sts + total / 2, total - total / 2, 0};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, wait_part, &b) == 0, "pthread_create");
        wait_part(&a);
        pthread_join(t, NULL);
        CHECK(a.rc == MPI_SUCCESS && b.rc == MPI_SUCCESS, "Waitall in two threads: %d %d", a.rc,
              b.rc);
    } else {
        OK(MPI_Waitall(total, reqs, sts));
    }
    for (int k = 0; k < total; k++)
        if (sts[k].MPI_ERROR != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(sts[k].MPI_ERROR, text, &len);
            CHECK(0, "round %d (window %d, mode %d): receive %d failed: %s", round, w, mode, k,
                  text);
        }
    for (int s = 1, k = 0; s < mtest_size; s++)
        for (int m = 0; m < w; m++, k++) {
            unsigned char *b = buf + (size_t)k * slot;
            int from = sts[k].MPI_SOURCE, got = -1, msg, n;
            CHECK(from >= 1 && from < mtest_size && (from == s || mode == 2),
                  "round %d: receive %d from %d, expected %d", round, k, from, s);
            if (from < 1 || from >= mtest_size)
                continue;
            msg = mode == 2 ? msgno[from]++ : m; /* (a sender's messages arrive in order) */
            n = msg_size(from, round, msg, w);
            MPI_Get_count(&sts[k], MPI_BYTE, &got);
            CHECK(got == n,
                  "round %d (window %d, mode %d): message %d of %d: %d bytes, expected %d", round,
                  w, mode, msg, from, got, n);
            for (size_t i = 0; i < (size_t)n; i++)
                if (b[i] != pat(from, round, msg, i)) {
                    CHECK(0,
                          "round %d (window %d, mode %d): message %d of %d (%d B), byte %zu is "
                          "%u, expected %u",
                          round, w, mode, msg, from, n, i, b[i], pat(from, round, msg, i));
                    break;
                }
        }
    free(msgno);
    free(sts);
    free(reqs);
    free(buf);
}

static void send_window(MPI_Comm comm, int w, int round)
{
    size_t slot = (size_t)win_max(w);
    unsigned char *buf = malloc(slot * (size_t)w);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)w);
    int go;

    CHECK(buf != NULL && reqs != NULL, "malloc");
    if (buf == NULL || reqs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int m = 0; m < w; m++)
        for (size_t i = 0; i < (size_t)msg_size(mtest_rank, round, m, w); i++)
            buf[(size_t)m * slot + i] = pat(mtest_rank, round, m, i);
    OK(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
    CHECK(go == round, "go for round %d, expected %d", go, round);
    for (int m = 0; m < w; m++)
        OK(MPI_Isend(buf + (size_t)m * slot, msg_size(mtest_rank, round, m, w), MPI_BYTE, 0,
                     TAG + round, comm, &reqs[m]));
    OK(MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
    free(buf);
}

/* Then every rank sends to and receives from every other at once (a halo
 * exchange): windows of sizes on both sides of the eager limit, which rises
 * for a rank's new sends once its own CMA is denied, some received into a
 * strided type (256-byte blocks 512 bytes apart: read piece by piece,
 * rdma_readv, or streamed again from the start when a read fails part
 * way), some from MPI_ANY_SOURCE. Each rank's knob fires at its own read. */
static const int xwins[] = {7, 33, 64, 100};
static const int xsmall[] = {3000, 4096, 4097, 6000, 8192, 16384, 16385, 20000, 65536};
enum { NXWINS = sizeof xwins / sizeof xwins[0], NXSMALL = sizeof xsmall / sizeof xsmall[0] };

static int x_size(int src, int dst, int round, int m, int w)
{
    if (w <= 7 && m % 3 == 1)
        return (src + dst + round + m) % 2 ? 1048576 : 262144;
    return xsmall[(src * 5 + dst * 3 + round + m) % NXSMALL];
}

static unsigned char x_pat(int src, int dst, int round, int msg, size_t i)
{
    return (unsigned char)(src * 29 + dst * 17 + round * 7 + msg * 3 + i + i / 509);
}

static void exchange(MPI_Comm comm, int w, int round, int any, MPI_Datatype strided)
{
    int peers = mtest_size - 1, total = 2 * peers * w;
    size_t slot = w <= 7 ? 1048576 : 65536;
    unsigned char *rbuf = calloc((size_t)peers * (size_t)w, 2 * slot);
    unsigned char *sbuf = malloc((size_t)peers * (size_t)w * slot);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)total);
    MPI_Status *sts = malloc(sizeof *sts * (size_t)total);
    int *msgno = calloc((size_t)mtest_size, sizeof(int));
    int k = 0;

    CHECK(rbuf != NULL && sbuf != NULL && reqs != NULL && sts != NULL && msgno != NULL, "malloc");
    if (rbuf == NULL || sbuf == NULL || reqs == NULL || sts == NULL || msgno == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int p = 0; p < mtest_size; p++)
        for (int m = 0; p != mtest_rank && m < w; m++, k++) {
            unsigned char *b = rbuf + (size_t)k * 2 * slot;
            int src = any ? MPI_ANY_SOURCE : p;
            if (k % 4 == 3) /* (slot bytes: slot / 256 blocks of the strided type) */
                OK(MPI_Irecv(b, (int)(slot / 256), strided, src, TAG + round, comm, &reqs[k]));
            else
                OK(MPI_Irecv(b, (int)slot, MPI_BYTE, src, TAG + round, comm, &reqs[k]));
        }
    for (int p = 0, j = 0; p < mtest_size; p++)
        for (int m = 0; p != mtest_rank && m < w; m++, j++, k++) {
            unsigned char *b = sbuf + (size_t)j * slot;
            int n = x_size(mtest_rank, p, round, m, w);
            for (size_t i = 0; i < (size_t)n; i++)
                b[i] = x_pat(mtest_rank, p, round, m, i);
            OK(MPI_Isend(b, n, MPI_BYTE, p, TAG + round, comm, &reqs[k]));
        }
    OK(MPI_Waitall(total, reqs, sts));
    for (k = 0; k < peers * w; k++) {
        unsigned char *b = rbuf + (size_t)k * 2 * slot;
        int from = sts[k].MPI_SOURCE, got = -1, msg, n, strd = k % 4 == 3;
        CHECK(from >= 0 && from < mtest_size && from != mtest_rank,
              "exchange round %d: receive %d from %d", round, k, from);
        if (from < 0 || from >= mtest_size || from == mtest_rank)
            continue;
        msg = any ? msgno[from]++ : k % w;
        CHECK(any || from == (k / w < mtest_rank ? k / w : k / w + 1),
              "exchange round %d: receive %d from %d", round, k, from);
        n = x_size(from, mtest_rank, round, msg, w);
        MPI_Get_count(&sts[k], MPI_BYTE, &got);
        CHECK(got == n, "exchange round %d (window %d): message %d of %d: %d bytes, expected %d",
              round, w, msg, from, got, n);
        for (size_t i = 0; i < (size_t)n; i++) {
            size_t at = strd ? i / 256 * 512 + i % 256 : i;
            if (b[at] != x_pat(from, mtest_rank, round, msg, i)) {
                CHECK(0,
                      "exchange round %d (window %d%s): message %d of %d (%d B), byte %zu is "
                      "%u, expected %u",
                      round, w, strd ? ", strided" : "", msg, from, n, i, b[at],
                      x_pat(from, mtest_rank, round, msg, i));
                break;
            }
        }
    }
    free(msgno);
    free(sts);
    free(reqs);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "any";
    long after = 0;
    int mt = 0, round = 0, prov = 0, nwins = NWINS;
    unsigned long long pulled0 = 0, received0 = 0;
    MPI_Comm comm;

    for (int a = 2; a < argc; a++)
        if (strcmp(argv[a], "mt") == 0)
            mt = 1;
        else if (strcmp(argv[a], "halves") == 0)
            halves = 1, nwins = 1; /* (windows of one: a read, then its other half) */
        else
            after = atol(argv[a]);
    if (mt) {
        prov = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
        CHECK(prov == MPI_THREAD_MULTIPLE, "thread level %d", prov);
    } else {
        mtest_init(&argc, &argv);
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (mtest_rank == 0) {
        pulled0 = mtest_counter("canal_rndv_pulled");
        received0 = mtest_counter("canal_rndv_received");
    }
    for (int wi = 0; wi < nwins && mtest_size > 1; wi++)
        for (int mode = 0; mode < 3 * (halves ? 4 : 1); mode++, round++) {
            if (mtest_rank == 0)
                recv_window(comm, wins[wi], mode % 3, round, mt);
            else
                send_window(comm, wins[wi], round);
        }
    if (mtest_rank == 0 && mtest_size > 1) {
        unsigned long long pulled = mtest_counter("canal_rndv_pulled") - pulled0;
        unsigned long long received = mtest_counter("canal_rndv_received") - received0;
        CHECK(received > (unsigned long long)after,
              "%llu rendezvous messages, not more than the %ld reads before the failure", received,
              after);
        if (strcmp(how, "eperm") == 0)
            CHECK(pulled == (unsigned long long)after,
                  "%llu of %llu rendezvous messages read, expected the %ld before CMA was denied",
                  pulled, received, after);
        else if (strcmp(how, "denied") == 0)
            CHECK(pulled < received, "all %llu rendezvous messages read: CMA never denied",
                  received);
        else if (strcmp(how, "efault") == 0)
            CHECK(pulled == received - 1,
                  "%llu of %llu rendezvous messages read, expected all but the one that failed",
                  pulled, received);
    }
    /* (rank 0 counted before: canal_rndv_received counts requests that
     * arrive, also those the exchange sends it early) */
    OK(MPI_Barrier(comm));
    if (!halves && mtest_size > 1) {
        MPI_Datatype block, strided;
        OK(MPI_Type_contiguous(256, MPI_BYTE, &block));
        OK(MPI_Type_create_resized(block, 0, 512, &strided));
        OK(MPI_Type_commit(&strided));
        for (int wi = 0; wi < NXWINS; wi++)
            for (int any = 0; any < 2; any++, round++)
                exchange(comm, xwins[wi], round, any, strided);
        OK(MPI_Type_free(&strided));
        OK(MPI_Type_free(&block));
    }
    OK(MPI_Comm_free(&comm));
    return mtest_finish();
}
