/*
 * Messages of unknown size, received as a program that learns their size
 * by probing does: in each round one rank receives, every other rank starts
 * a few hundred nonblocking sends to it (every size from 0 to 300 bytes,
 * each side of every power of two from 256 B to 64 KiB and of the 16 KiB
 * eager limit, a stride through 64 KiB and two beyond it: inline, pooled and malloc'ed
 * unexpected payloads and rendezvous requests, mixed), all ranks pass a
 * barrier so that most of them wait unexpected, and the receiver takes them
 * all with wildcards, rotating through
 *   MPI_Probe(ANY, ANY) + MPI_Get_count + MPI_Recv(source, tag)
 *   MPI_Mprobe(ANY, ANY) + MPI_Get_count + MPI_Mrecv
 *   MPI_Improbe(ANY, tag) polled + MPI_Get_count + MPI_Mrecv
 *   MPI_Iprobe(source, ANY) polled + MPI_Get_count + MPI_Recv
 *   MPI_Mprobe(source, ANY) + MPI_Imrecv + MPI_Wait
 * For every message: its source and tag are the next unreceived of that
 * sender (of that tag, when the tag was named: MPI's order of messages
 * between two ranks), MPI_Get_count in bytes, in ints (MPI_UNDEFINED unless
 * a multiple of 4) and MPI_Get_elements agree with the size sent, and every
 * byte is the sender's. Any number of ranks from 2.
 */
#include "mtest.h"

enum { NTAGS = 5, MAXSZ = 90000 };

static int sizes[1024];
static int nsizes;

static void sizes_make(void)
{
    for (int s = 0; s <= 300; s++)
        sizes[nsizes++] = s;
    for (int k = 9; k <= 16; k++)
        for (int d = -1; d <= 1; d++)
            if ((1 << k) + d <= 65536)
                sizes[nsizes++] = (1 << k) + d;
    for (int d = -1; d <= 1; d++)
        sizes[nsizes++] = 16384 + 3 * 1024 + d; /* (a non-power-of-two class boundary region) */
    for (int s = 301; s <= 65536; s += 1999)
        sizes[nsizes++] = s;
    sizes[nsizes++] = 65537; /* (past the largest pooled size, with a larger eager limit) */
    sizes[nsizes++] = MAXSZ;
}

/* What sender src sends as its j-th message to any receiver. */
static int msg_size(int src, int j) { return sizes[(j + 37 * src) % nsizes]; }
static int msg_tag(int src, int j) { return (j + src) % NTAGS; }
static unsigned char pat(int src, int j, int i) { return (unsigned char)(src * 131 + j * 7 + i * 3); }

/* The first message of src not received yet (of tag, unless MPI_ANY_TAG). */
static int next_unreceived(const char *got, int tag, int src)
{
    for (int j = 0; j < nsizes; j++)
        if (!got[j] && (tag == MPI_ANY_TAG || msg_tag(src, j) == tag))
            return j;
    return -1;
}

static void receive_all(int nsenders_msgs, int round, char **got, unsigned char *buf)
{
    for (int n = 0; n < nsenders_msgs; n++) {
        int way = (n + round) % 5, flag = 0, count = -1, icount = -2, elems = -3, want_tag = -1,
            want_src = -1, j, src, tag;
        MPI_Status st, st2;
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Request req;

        switch (way) {
        case 0:
            OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            break;
        case 1:
            OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
            break;
        case 2:
            /* a tag some sender still has a message of */
            for (int t = 0; t < NTAGS && want_tag < 0; t++)
                for (int s = 0; s < mtest_size && want_tag < 0; s++)
                    if (s != mtest_rank && next_unreceived(got[s], (n + t) % NTAGS, s) >= 0)
                        want_tag = (n + t) % NTAGS;
            while (!flag)
                OK(MPI_Improbe(MPI_ANY_SOURCE, want_tag, MPI_COMM_WORLD, &flag, &msg, &st));
            break;
        default:
            /* a sender with messages left */
            for (int s = 0; s < mtest_size && want_src < 0; s++) {
                int c = (n + s) % mtest_size;
                if (c != mtest_rank && next_unreceived(got[c], MPI_ANY_TAG, c) >= 0)
                    want_src = c;
            }
            if (way == 3)
                while (!flag)
                    OK(MPI_Iprobe(want_src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            else
                OK(MPI_Mprobe(want_src, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
            break;
        }
        src = st.MPI_SOURCE;
        tag = st.MPI_TAG;
        if (src < 0 || src >= mtest_size || src == mtest_rank || tag < 0 || tag >= NTAGS) {
            CHECK(0, "round %d way %d: probed source %d tag %d", round, way, src, tag);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK(want_src < 0 || src == want_src, "way %d: source %d, probed for %d", way, src,
              want_src);
        CHECK(want_tag < 0 || tag == want_tag, "way %d: tag %d, probed for %d", way, tag,
              want_tag);
        /* the oldest unreceived message of that sender the probe could match */
        j = next_unreceived(got[src], way == 2 ? tag : MPI_ANY_TAG, src);
        CHECK(j >= 0 && msg_tag(src, j) == tag,
              "round %d way %d: from %d tag %d, but its next message is %d (tag %d)", round, way,
              src, tag, j, j >= 0 ? msg_tag(src, j) : -1);
        if (j < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        OK(MPI_Get_count(&st, MPI_BYTE, &count));
        OK(MPI_Get_count(&st, MPI_INT, &icount));
        OK(MPI_Get_elements(&st, MPI_CHAR, &elems));
        CHECK(count == msg_size(src, j) && elems == count &&
                  icount == (count % 4 ? MPI_UNDEFINED : count / 4),
              "round %d way %d: message %d from %d: count %d elements %d ints %d, %d sent",
              round, way, j, src, count, elems, icount, msg_size(src, j));
        memset(buf, 0xee, (size_t)count + 1);
        if (way == 1 || way == 2)
            OK(MPI_Mrecv(buf, count, MPI_BYTE, &msg, &st2));
        else if (way == 4) {
            OK(MPI_Imrecv(buf, count, MPI_BYTE, &msg, &req));
            OK(MPI_Wait(&req, &st2));
        } else
            OK(MPI_Recv(buf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st2));
        CHECK(msg == MPI_MESSAGE_NULL, "way %d: the message handle is not MPI_MESSAGE_NULL", way);
        OK(MPI_Get_count(&st2, MPI_BYTE, &icount));
        CHECK(st2.MPI_SOURCE == src && st2.MPI_TAG == tag && icount == count,
              "way %d: received %d bytes from %d tag %d, probed %d from %d tag %d", way, icount,
              st2.MPI_SOURCE, st2.MPI_TAG, count, src, tag);
        for (int i = 0; i < count; i++)
            if (buf[i] != pat(src, j, i)) {
                CHECK(0, "round %d way %d: message %d (%d bytes) from %d: byte %d is %d, not %d",
                      round, way, j, count, src, i, buf[i], pat(src, j, i));
                break;
            }
        CHECK(buf[count] == 0xee, "way %d: %d-byte message written past its end", way, count);
        got[src][j] = 1;
    }
}

int main(int argc, char **argv)
{
    unsigned char *buf, **sbuf;
    MPI_Request *reqs;
    char **got;
    int flag;

    mtest_init(&argc, &argv);
    sizes_make();
    buf = malloc(MAXSZ + 1);
    sbuf = calloc((size_t)nsizes, sizeof *sbuf);
    reqs = malloc(sizeof *reqs * (size_t)nsizes);
    got = calloc((size_t)mtest_size, sizeof *got);
    for (int s = 0; s < mtest_size; s++)
        got[s] = calloc((size_t)nsizes, 1);
    for (int j = 0; j < nsizes; j++) {
        int n = msg_size(mtest_rank, j);
        sbuf[j] = malloc((size_t)n + 1);
        for (int i = 0; i < n; i++)
            sbuf[j][i] = pat(mtest_rank, j, i);
    }
    for (int round = 0; round < mtest_size; round++) {
        int recv_rank = round;
        if (mtest_rank != recv_rank)
            for (int j = 0; j < nsizes; j++)
                OK(MPI_Isend(sbuf[j], msg_size(mtest_rank, j), MPI_BYTE, recv_rank,
                             msg_tag(mtest_rank, j), MPI_COMM_WORLD, &reqs[j]));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (mtest_rank == recv_rank) {
            for (int s = 0; s < mtest_size; s++)
                memset(got[s], 0, (size_t)nsizes);
            receive_all((mtest_size - 1) * nsizes, round, got, buf);
            /* nothing left over */
            OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "round %d: a message left after all were received", round);
        } else {
            OK(MPI_Waitall(nsizes, reqs, MPI_STATUSES_IGNORE));
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int j = 0; j < nsizes; j++)
        free(sbuf[j]);
    for (int s = 0; s < mtest_size; s++)
        free(got[s]);
    free(got);
    free(sbuf);
    free(reqs);
    free(buf);
    return mtest_finish();
}
