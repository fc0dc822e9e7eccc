/*
 * Small messages against the arrival's paths, checked message by message.
 * Every rank but 0 sends NFLOOD messages to rank 0 (sizes 0-65 and 250-260,
 * around the inline limits of an unexpected message; tags 0-4), twice:
 * - unexpected: the senders' messages all wait in rank 0's unexpected
 *   queue (rank 0 first receives a last message of another tag from each
 *   sender), more of them than the device keeps in its pool of free
 *   messages, so that taking them frees some; rank 0 then takes them with
 *   a mix of receives: (source, tag), (any source, tag), (source, any tag)
 *   and (any, any), some through MPI_Probe first. Each one must get the
 *   oldest message of its source that it matches (MPI's non-overtaking
 *   rule), with its size and content;
 * - posted: rank 0 posts every receive before the senders start, from each
 *   source by tag or with MPI_ANY_TAG, in an order unlike the sending one
 *   (so the head of the posted queue often does not match, and the queue
 *   gets long enough to be indexed), and checks that each receive got the
 *   message the matching rule gives it (simulated here).
 * Run on 2-8 ranks.
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { NFLOOD = 600, NTAGS = 5, MAXSZ = 300, TAG_LAST = 100, TAG_GO = 101 };

static int msg_size(int i)
{
    int k = (i * 13) % 77;
    return k < 66 ? k : 250 + (k - 66);
}
static int msg_tag(int i) { return (i * 7 + i / 5) % NTAGS; }
static unsigned char pat(int src, int i, int k) { return (unsigned char)(src * 53 + i * 11 + k); }

static void check_msg(const unsigned char *b, const MPI_Status *st, int src, int i,
                      const char *what)
{
    int n = -1;

    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == msg_tag(i) && n == msg_size(i),
          "%s: message %d of %d: source %d tag %d (want %d) count %d (want %d)", what, i, src,
          st->MPI_SOURCE, st->MPI_TAG, msg_tag(i), n, msg_size(i));
    for (int k = 0; k < n && k < msg_size(i); k++)
        if (b[k] != pat(src, i, k)) {
            CHECK(0, "%s: message %d of %d: wrong byte at %d", what, i, src, k);
            break;
        }
}

static void send_all(int me, unsigned char *buf)
{
    MPI_Request *reqs = malloc(NFLOOD * sizeof *reqs);

    for (int i = 0; i < NFLOOD; i++) {
        unsigned char *b = buf + (size_t)i * MAXSZ;
        for (int k = 0; k < msg_size(i); k++)
            b[k] = pat(me, i, k);
        OK(MPI_Isend(b, msg_size(i), MPI_BYTE, 0, msg_tag(i), MPI_COMM_WORLD, &reqs[i]));
    }
    OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_LAST, MPI_COMM_WORLD));
    OK(MPI_Waitall(NFLOOD, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
}

/* The first message of src not taken yet, of tag (or any tag): -1 if none. */
static int first_left(const char *taken, int tag)
{
    for (int i = 0; i < NFLOOD; i++)
        if (!taken[i] && (tag == MPI_ANY_TAG || msg_tag(i) == tag))
            return i;
    return -1;
}

static void take_unexpected(int nsrc, char *taken, unsigned char *b)
{
    int left = nsrc * NFLOOD;

    for (int k = 0; left > 0; k++) {
        int src = 1 + k % nsrc, i, want_src, want_tag, any;
        char *t;
        MPI_Status st, pst;

        while ((i = first_left(taken + (size_t)src * NFLOOD, MPI_ANY_TAG)) < 0)
            src = 1 + src % nsrc;
        /* a tag that src still has: the one of a message some way down */
        for (int j = i + (k % 17); j >= i; j--)
            if (j < NFLOOD && !taken[(size_t)src * NFLOOD + j]) {
                i = j;
                break;
            }
        any = k % 4;
        want_src = any & 1 ? MPI_ANY_SOURCE : src;
        want_tag = any & 2 ? MPI_ANY_TAG : msg_tag(i);
        if (k % 3 == 0) {
            OK(MPI_Probe(want_src, want_tag, MPI_COMM_WORLD, &pst));
            OK(MPI_Recv(b, MAXSZ, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, MPI_COMM_WORLD, &st));
            CHECK(pst.MPI_SOURCE == st.MPI_SOURCE && pst.MPI_TAG == st.MPI_TAG,
                  "probe saw (%d, %d), the receive got (%d, %d)", pst.MPI_SOURCE, pst.MPI_TAG,
                  st.MPI_SOURCE, st.MPI_TAG);
        } else {
            OK(MPI_Recv(b, MAXSZ, MPI_BYTE, want_src, want_tag, MPI_COMM_WORLD, &st));
        }
        if (st.MPI_SOURCE < 1 || st.MPI_SOURCE > nsrc) {
            CHECK(0, "receive (%d, %d) got source %d", want_src, want_tag, st.MPI_SOURCE);
            return;
        }
        t = taken + (size_t)st.MPI_SOURCE * NFLOOD;
        i = first_left(t, want_tag == MPI_ANY_TAG ? MPI_ANY_TAG : st.MPI_TAG);
        if (i < 0) {
            CHECK(0, "receive (%d, %d) got a message of %d that was not left", want_src, want_tag,
                  st.MPI_SOURCE);
            return;
        }
        check_msg(b, &st, st.MPI_SOURCE, i, "unexpected");
        t[i] = 1;
        left--;
    }
}

/* Posted phase: receive j of source src is for tag ptag[j] (or any tag);
 * posted in the order of j. Which message each gets, by the matching rule:
 * each arriving message (in send order) takes the oldest open receive it
 * matches. 1 when every receive gets one. */
static int expect_posted(const int *ptag, int *got)
{
    char *open = malloc(NFLOOD);
    int all = 1;

    memset(open, 1, NFLOOD);
    for (int j = 0; j < NFLOOD; j++)
        got[j] = -1;
    for (int i = 0; i < NFLOOD; i++) {
        for (int j = 0; j < NFLOOD; j++)
            if (open[j] && (ptag[j] == MPI_ANY_TAG || ptag[j] == msg_tag(i))) {
                open[j] = 0;
                got[j] = i;
                break;
            }
    }
    for (int j = 0; j < NFLOOD; j++)
        if (got[j] < 0)
            all = 0;
    free(open);
    return all;
}

int main(int argc, char **argv)
{
    int nsrc;

    mtest_init(&argc, &argv);
    nsrc = mtest_size - 1;
    if (nsrc < 1) {
        CHECK(0, "needs 2 ranks or more");
        return mtest_finish();
    }
    if (mtest_rank == 0) {
        unsigned char *b = malloc((size_t)(nsrc + 1) * NFLOOD * MAXSZ);
        char *taken = calloc((size_t)(nsrc + 1) * NFLOOD, 1);
        int *ptag = malloc(NFLOOD * sizeof *ptag), *got = malloc(NFLOOD * sizeof *got);
        MPI_Request *reqs = malloc((size_t)(nsrc + 1) * NFLOOD * sizeof *reqs);
        MPI_Status *sts = malloc((size_t)(nsrc + 1) * NFLOOD * sizeof *sts);

        for (int s = 1; s <= nsrc; s++)
            OK(MPI_Send(NULL, 0, MPI_BYTE, s, TAG_GO, MPI_COMM_WORLD));
        for (int s = 1; s <= nsrc; s++)
            OK(MPI_Recv(NULL, 0, MPI_BYTE, s, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        take_unexpected(nsrc, taken, b);

        /* posted: the tags in an order of their own, every 4th any tag */
        for (int j = 0; j < NFLOOD; j++)
            ptag[j] = j % 4 == 3 ? MPI_ANY_TAG : msg_tag((j * 37 + 11) % NFLOOD);
        /* (a receive left without a message, when the any-tag receives
         * went to earlier messages, becomes one more any-tag receive) */
        while (!expect_posted(ptag, got))
            for (int j = 0; j < NFLOOD; j++)
                if (got[j] < 0)
                    ptag[j] = MPI_ANY_TAG;
        for (int s = 1; s <= nsrc; s++)
            for (int j = 0; j < NFLOOD; j++) {
                size_t x = (size_t)s * NFLOOD + j;
                memset(b + x * MAXSZ, 0xee, MAXSZ);
                OK(MPI_Irecv(b + x * MAXSZ, MAXSZ, MPI_BYTE, s, ptag[j], MPI_COMM_WORLD,
                             &reqs[x]));
            }
        for (int s = 1; s <= nsrc; s++)
            OK(MPI_Send(NULL, 0, MPI_BYTE, s, TAG_GO, MPI_COMM_WORLD));
        OK(MPI_Waitall(nsrc * NFLOOD, reqs + NFLOOD, sts + NFLOOD));
        for (int s = 1; s <= nsrc; s++)
            OK(MPI_Recv(NULL, 0, MPI_BYTE, s, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int s = 1; s <= nsrc; s++)
            for (int j = 0; j < NFLOOD; j++) {
                size_t x = (size_t)s * NFLOOD + j;
                if (got[j] < 0)
                    CHECK(0, "posted: receive %d has no message (test error)", j);
                else
                    check_msg(b + x * MAXSZ, &sts[x], s, got[j], "posted");
            }
        free(b);
        free(taken);
        free(ptag);
        free(got);
        free(reqs);
        free(sts);
    } else {
        unsigned char *buf = malloc((size_t)NFLOOD * MAXSZ);

        OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        send_all(mtest_rank, buf);
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        send_all(mtest_rank, buf);
        free(buf);
    }
    return mtest_finish();
}
