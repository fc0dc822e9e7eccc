/*
 * A blocking MPI_Recv of at most 256 bytes that is called before its
 * message arrives waits unposted, and the arrival is copied from the
 * channel straight into its buffer (adi_recv_now's waiter, adi/pt2pt.c).
 * Rank 1 sends each message only after rank 0, which receives, has told
 * it that it is about to call MPI_Recv, so the receive is (almost always)
 * waiting when the message comes. Checked: every size from 0 to 257 bytes
 * around the ring's line boundaries and the copy's (32/33, 40/41, 64/65),
 * into an exact and a larger buffer (count, source, tag, data, the bytes
 * past the message untouched); MPI_ANY_SOURCE and MPI_ANY_TAG; truncation
 * (MPI_ERR_TRUNCATE, the part that fits received, nothing past the
 * buffer); a message ending inside an element (MPI_INT); a contiguous type
 * with a lower bound; MPI_Ssend into the waiting receive; a message of
 * another tag arriving first (it waits unexpected for a later receive);
 * and order: a rendezvous message the waiting receive matches, followed by
 * an eager one with the same tag, is received first. Ranks beyond 2 idle.
 * The messages go on a duplicate of MPI_COMM_WORLD: at 3 ranks, rank 2's
 * end-of-test report to rank 0 (mtest_finish, on MPI_COMM_WORLD) would
 * otherwise match the MPI_ANY_SOURCE/MPI_ANY_TAG receives.
 * Also matching against posted receives: with two MPI_Irecv posted (tags
 * 110 and 111), an MPI_Recv(MPI_ANY_TAG) waits; tag 111 arrives first and
 * goes to the second MPI_Irecv (posted earlier than the wait, though not
 * first in line), then 112 to the wait, then 110. At 3 ranks, 50 rounds:
 * a message of the tag the wait names from rank 2 comes before rank 1's
 * and does not fill the wait for rank 1's (its source differs).
 */
#include "mtest.h"

#include <string.h>

enum { TOKEN = 900, BIGSZ = 1 << 20, ROUNDS3 = 50 };

static MPI_Comm comm;

static unsigned char pat(int tag, int i) { return (unsigned char)(tag * 13 + i * 7 + 1); }

static void fill(unsigned char *b, int n, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = pat(tag, i);
}

/* Rank 0: tell rank 1 to send the next message (then wait for it). */
static void go(void) { OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TOKEN, comm)); }

/* Rank 1: wait for rank 0's go. */
static void wait_go(void)
{
    OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TOKEN, comm, MPI_STATUS_IGNORE));
}

static const int sizes[] = {0,  1,  2,  3,  4,  7,  8,  9,  15, 16,  17,  31,  32,  33,
                            39, 40, 41, 47, 48, 49, 56, 57, 63, 64,  65,  127, 128, 129,
                            200, 255, 256, 257};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void receiver(void)
{
    static unsigned char buf[512], big[BIGSZ];
    MPI_Status st;
    int cnt, rc, tag;

    /* every size, exact and larger buffer, specific and wildcard */
    for (int k = 0; k < NSIZES; k++) {
        for (int v = 0; v < 4; v++) {
            int n = sizes[k], cap = v & 1 ? n + 24 : n;
            int src = v & 2 ? MPI_ANY_SOURCE : 1, want_tag = v & 2 ? MPI_ANY_TAG : k;
            memset(buf, 0xa5, sizeof buf);
            go();
            OK(MPI_Recv(buf, cap, MPI_BYTE, src, want_tag, comm, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == k && cnt == n,
                  "size %d variant %d: source %d tag %d count %d", n, v, st.MPI_SOURCE,
                  st.MPI_TAG, cnt);
            for (int i = 0; i < n; i++)
                if (buf[i] != pat(k, i)) {
                    CHECK(0, "size %d variant %d: byte %d is %d, want %d", n, v, i, buf[i],
                          pat(k, i));
                    break;
                }
            for (int i = n; i < (int)sizeof buf; i++)
                if (buf[i] != 0xa5) {
                    CHECK(0, "size %d variant %d: byte %d past the message written", n, v, i);
                    break;
                }
        }
    }
    /* truncation: 64 and 33 bytes into 40 and 32 */
    for (int t = 0; t < 2; t++) {
        int n = t ? 33 : 64, cap = t ? 32 : 40;
        memset(buf, 0xa5, sizeof buf);
        go();
        rc = MPI_Recv(buf, cap, MPI_BYTE, 1, 100 + t, comm, &st);
        EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "a truncated receive");
        for (int i = 0; i < cap; i++)
            if (buf[i] != pat(100 + t, i)) {
                CHECK(0, "truncated %d into %d: byte %d wrong", n, cap, i);
                break;
            }
        CHECK(buf[cap] == 0xa5, "truncated %d into %d: byte %d past the buffer written", n, cap,
              cap);
    }
    /* 6 bytes into 4 MPI_INTs: ends inside an element */
    go();
    rc = MPI_Recv(buf, 4, MPI_INT, 1, 102, comm, &st);
    EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "a receive ending inside an MPI_INT");
    /* a contiguous type whose data start 8 bytes into the buffer */
    {
        MPI_Datatype t;
        int bl = 12;
        MPI_Aint disp = 8;
        OK(MPI_Type_create_hindexed(1, &bl, &disp, MPI_INT, &t));
        OK(MPI_Type_commit(&t));
        memset(buf, 0xa5, sizeof buf);
        go();
        OK(MPI_Recv(buf, 1, t, 1, 103, comm, &st));
        MPI_Get_count(&st, t, &cnt);
        CHECK(cnt == 1, "the type with a lower bound: count %d", cnt);
        CHECK(buf[7] == 0xa5 && buf[8] == pat(103, 0) && buf[55] == pat(103, 47) &&
                  buf[56] == 0xa5,
              "the type with a lower bound: data not at 8..55");
        MPI_Type_free(&t);
    }
    /* MPI_Ssend into the waiting receive */
    go();
    OK(MPI_Recv(buf, 64, MPI_BYTE, 1, 104, comm, &st));
    CHECK(buf[0] == pat(104, 0) && buf[63] == pat(104, 63), "the synchronous message's data");
    /* another tag first: it waits for the second receive */
    go();
    OK(MPI_Recv(buf, 64, MPI_BYTE, 1, 106, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(st.MPI_TAG == 106 && cnt == 48 && buf[47] == pat(106, 47), "tag 106: tag %d count %d",
          st.MPI_TAG, cnt);
    OK(MPI_Recv(buf, 64, MPI_BYTE, 1, 105, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(st.MPI_TAG == 105 && cnt == 40 && buf[39] == pat(105, 39), "tag 105: tag %d count %d",
          st.MPI_TAG, cnt);
    /* order: a rendezvous message, then an eager one, same tag, both
     * matched by the waiting receive (specific, then any tag) */
    for (int w = 0; w < 2; w++) {
        tag = w ? MPI_ANY_TAG : 107;
        go();
        rc = MPI_Recv(buf, 64, MPI_BYTE, 1, tag, comm, &st);
        EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "the rendezvous message into 64 bytes");
        CHECK(buf[0] == pat(107, 0) && buf[63] == pat(107, 63),
              "first receive (any tag %d): not the rendezvous message's data", w);
        OK(MPI_Recv(big, BIGSZ, MPI_BYTE, 1, tag, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 16 && big[15] == pat(108, 15),
              "second receive (any tag %d): count %d, want the 16-byte eager message", w, cnt);
    }
    /* a posted receive, not first in line, takes its message before the
     * wait that came later */
    {
        static unsigned char b110[64], b111[64];
        MPI_Request rq[2];
        MPI_Status sts[2];
        OK(MPI_Irecv(b110, 64, MPI_BYTE, 1, 110, comm, &rq[0]));
        OK(MPI_Irecv(b111, 64, MPI_BYTE, 1, 111, comm, &rq[1]));
        memset(buf, 0xa5, sizeof buf);
        go();
        OK(MPI_Recv(buf, 64, MPI_BYTE, 1, MPI_ANY_TAG, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(st.MPI_TAG == 112 && cnt == 24 && buf[23] == pat(112, 23),
              "the wait behind two posted receives: tag %d count %d, want 112 and 24", st.MPI_TAG,
              cnt);
        OK(MPI_Waitall(2, rq, sts));
        MPI_Get_count(&sts[1], MPI_BYTE, &cnt);
        CHECK(sts[1].MPI_TAG == 111 && cnt == 32 && b111[31] == pat(111, 31),
              "the second posted receive (tag 111): tag %d count %d", sts[1].MPI_TAG, cnt);
        MPI_Get_count(&sts[0], MPI_BYTE, &cnt);
        CHECK(sts[0].MPI_TAG == 110 && cnt == 16 && b110[15] == pat(110, 15),
              "the first posted receive (tag 110): tag %d count %d", sts[0].MPI_TAG, cnt);
    }
    /* 3 ranks: rank 2's message of the tag the wait names is not rank 1's
     * (rounds: rank 0 may see both messages in one poll, rank 1's first) */
    for (int k = 0; mtest_size >= 3 && k < ROUNDS3; k++) {
        memset(buf, 0xa5, sizeof buf);
        OK(MPI_Send(NULL, 0, MPI_BYTE, 2, TOKEN, comm));
        OK(MPI_Recv(buf, 64, MPI_BYTE, 1, 120, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(st.MPI_SOURCE == 1 && cnt == 20 && buf[19] == pat(121, 19),
              "the wait for rank 1: source %d count %d, want rank 1's 20 bytes", st.MPI_SOURCE,
              cnt);
        OK(MPI_Recv(buf, 64, MPI_BYTE, 2, 120, comm, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(st.MPI_SOURCE == 2 && cnt == 30 && buf[29] == pat(122, 29),
              "rank 2's message: source %d count %d, want its 30 bytes", st.MPI_SOURCE, cnt);
    }
}

/* Rank 2 (3 ranks): on rank 0's go, its message of tag 120, then a go to
 * rank 1, which sends its own. */
static void third(void)
{
    static unsigned char buf[64];

    fill(buf, 30, 122);
    for (int k = 0; k < ROUNDS3; k++) {
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TOKEN, comm, MPI_STATUS_IGNORE));
        OK(MPI_Send(buf, 30, MPI_BYTE, 0, 120, comm));
        OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TOKEN, comm));
    }
}

static void sender(void)
{
    static unsigned char buf[512], big[BIGSZ];
    MPI_Request r;

    for (int k = 0; k < NSIZES; k++) {
        fill(buf, sizes[k], k);
        for (int v = 0; v < 4; v++) {
            wait_go();
            OK(MPI_Send(buf, sizes[k], MPI_BYTE, 0, k, comm));
        }
    }
    for (int t = 0; t < 2; t++) {
        fill(buf, 64, 100 + t);
        wait_go();
        OK(MPI_Send(buf, t ? 33 : 64, MPI_BYTE, 0, 100 + t, comm));
    }
    wait_go();
    OK(MPI_Send(buf, 6, MPI_BYTE, 0, 102, comm));
    fill(buf, 48, 103);
    wait_go();
    OK(MPI_Send(buf, 48, MPI_BYTE, 0, 103, comm));
    fill(buf, 64, 104);
    wait_go();
    OK(MPI_Ssend(buf, 64, MPI_BYTE, 0, 104, comm));
    wait_go();
    fill(buf, 40, 105);
    OK(MPI_Send(buf, 40, MPI_BYTE, 0, 105, comm));
    fill(buf, 48, 106);
    OK(MPI_Send(buf, 48, MPI_BYTE, 0, 106, comm));
    fill(big, BIGSZ, 107);
    fill(buf, 16, 108);
    for (int w = 0; w < 2; w++) {
        wait_go();
        OK(MPI_Isend(big, BIGSZ, MPI_BYTE, 0, 107, comm, &r));
        OK(MPI_Send(buf, 16, MPI_BYTE, 0, 107, comm));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    wait_go();
    fill(buf, 32, 111);
    OK(MPI_Send(buf, 32, MPI_BYTE, 0, 111, comm));
    fill(buf, 24, 112);
    OK(MPI_Send(buf, 24, MPI_BYTE, 0, 112, comm));
    fill(buf, 16, 110);
    OK(MPI_Send(buf, 16, MPI_BYTE, 0, 110, comm));
    fill(buf, 20, 121);
    for (int k = 0; mtest_size >= 3 && k < ROUNDS3; k++) {
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 2, TOKEN, comm, MPI_STATUS_IGNORE));
        OK(MPI_Send(buf, 20, MPI_BYTE, 0, 120, comm));
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    if (mtest_size < 2) {
        CHECK(0, "needs 2 ranks");
    } else if (mtest_rank == 0) {
        receiver();
    } else if (mtest_rank == 1) {
        sender();
    } else if (mtest_rank == 2) {
        third();
    }
    OK(MPI_Comm_free(&comm));
    return mtest_finish();
}
