/*
 * MPI_Bcast on communicators whose ranks are all on one node, which Canal
 * runs through the node's shared block up to 64 KiB (coll/shm.c): the root
 * writes the message and leaves, the others copy it out. Checked, on
 * MPI_COMM_WORLD and on a split communicator:
 *  - every root, sizes 1 B to 64 KiB and just above (65537 B, messages),
 *    on both sides of the 16 KiB pieces a root publishes as it writes,
 *    back to back with no other call between (a root may leave before the
 *    others entered: its next message must not overwrite one still read);
 *  - bcasts between barriers and small allreduces in every order (IMB's
 *    loop is bcast, barrier), values checked after each;
 *  - a root that comes late (the others already wait for its first piece)
 *    with 64 KiB: nobody takes a piece before the root wrote it;
 *  - a vector type at the root against contiguous ints at the others, and
 *    the other way round (the same type signature), 36000 bytes;
 *  - mismatches, under MPI_ERRORS_RETURN: receivers that pass a shorter
 *    count get MPI_ERR_TRUNCATE, a longer one MPI_ERR_OTHER, a rank that
 *    names another root MPI_ERR_OTHER naming both roots; afterwards the
 *    communicator works (a bcast of every root).
 * With a second argument "cross": sizes on both sides of the block's limit
 * (the root 1000 bytes, the others 100000, which go by messages, and the
 * other way round), on a communicator of their own: every receiver gets
 * MPI_ERR_OTHER or MPI_ERR_TRUNCATE, nobody hangs (the root learns of it at
 * its next collective there: the communicator is out of step after it).
 * Any number of ranks. Arguments: rounds (default 20), then "cross".
 */
#include "mtest.h"
#include "coll_bcast_types.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char pattern(int round, int root, size_t i)
{
    return (unsigned char)(round * 31 + root * 7 + (int)(i * 13 % 251));
}

static void check_bytes(const unsigned char *b, size_t n, int round, int root, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(round, root, i)) {
            CHECK(0, "%s: round %d root %d %zu bytes: byte %zu is %u, want %u", what, round, root,
                  n, i, b[i], pattern(round, root, i));
            return;
        }
}

/* count bytes from root, the buffer filled with garbage elsewhere */
static void one(MPI_Comm c, int me, int round, int root, size_t n, unsigned char *buf,
                const char *what)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = me == root ? pattern(round, root, i) : 0xee;
    OK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, c));
    check_bytes(buf, n, round, root, what);
}

static void rounds(MPI_Comm c, int nrounds)
{
    /* (above 16 KiB the root writes the message in pieces of 16 KiB that
     * the others copy out as they come: sizes on both sides of a piece) */
    static const size_t sizes[] = {1,     4,     8,     100,   4096,  16384, 16385,
                                   32767, 49153, 65535, 65536, 65537};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    int me, p;
    unsigned char *buf = malloc(65537);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    /* make the block (the 3rd blocking barrier, allreduce or bcast) */
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c));
    for (int round = 0; round < nrounds; round++) {
        /* back to back: every size from every root */
        for (int s = 0; s < NS; s++)
            for (int root = 0; root < p; root++)
                one(c, me, round, root, sizes[s], buf, "back to back");
        /* mixed with the block's other calls */
        for (int root = 0; root < p; root++) {
            int x = me + round, sum = -1, want = p * round + p * (p - 1) / 2;
            one(c, me, round, root, 64, buf, "before a barrier");
            OK(MPI_Barrier(c));
            one(c, me, round, root, 65536, buf, "after a barrier");
            OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == want, "allreduce after a bcast: %d, want %d", sum, want);
            one(c, me, round, (root + 1) % p, 8, buf, "after an allreduce");
            one(c, me, round, (root + 2) % p, 300, buf, "after a bcast");
            OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_MAX, c));
            CHECK(sum == p - 1 + round, "allreduce MPI_MAX after bcasts: %d", sum);
        }
    }
    free(buf);
}

/* the root comes late (the others wait for its first piece when it starts
 * writing) with 64 KiB, every root a few times: a receiver copies pieces
 * while the root writes the next ones, and must take none before it is
 * written (the area holds the previous message of that parity) */
static void late_root(MPI_Comm c, int nrounds)
{
    int me, p;
    unsigned char *buf = malloc(65536);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (int round = 0; round < nrounds; round++)
        for (int root = 0; root < p; root++) {
            OK(MPI_Barrier(c));
            if (me == root)
                usleep(2000);
            one(c, me, round + 1000, root, 65536, buf, "from a late root");
        }
    free(buf);
}


static void cross(int rootbytes, int otherbytes)
{
    MPI_Comm c;
    char *buf = calloc(1, 100000);
    int rc, cls = MPI_SUCCESS;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c)); /* (the block) */
    rc = MPI_Bcast(buf, mtest_rank == 0 ? rootbytes : otherbytes, MPI_BYTE, 0, c);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (mtest_rank != 0)
        CHECK(cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "root %d bytes, this rank %d: class %d, want MPI_ERR_OTHER or MPI_ERR_TRUNCATE",
              rootbytes, otherbytes, cls);
    else
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "the root of %d bytes against %d: class %d", rootbytes, otherbytes, cls);
    /* (every rank may fail here, the communicator being out of step) */
    rc = MPI_Barrier(c);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OTHER, "the barrier after a crossed bcast: class %d", cls);
    }
    MPI_Comm_free(&c);
    free(buf);
}

static void mismatches(MPI_Comm c)
{
    int me, p, buf[64] = {0}, rc;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    for (int root = 0; root < p; root++) {
        /* receivers expect less: truncated */
        rc = MPI_Bcast(buf, me == root ? 10 : 5, MPI_INT, root, c);
        if (me != root)
            bcast_expect(rc, MPI_ERR_TRUNCATE, "a shorter receive", "truncated");
        OK(MPI_Barrier(c));
        /* receivers expect more */
        rc = MPI_Bcast(buf, me == root ? 5 : 10, MPI_INT, root, c);
        if (me != root)
            bcast_expect(rc, MPI_ERR_OTHER, "a longer receive", "MPI_Bcast");
        OK(MPI_Barrier(c));
    }
    if (p > 2) {
        /* the last rank names another root (rank 1) than the others (0) */
        rc = MPI_Bcast(buf, 4, MPI_INT, me == p - 1 ? 1 : 0, c);
        if (me == p - 1)
            bcast_expect(rc, MPI_ERR_OTHER, "another root", "root 0");
        else if (me != 0 && me != 1)
            OK(rc);
        OK(MPI_Barrier(c));
    }
    /* it works again */
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < 64; i++)
            buf[i] = me == root ? i * (root + 1) : -1;
        OK(MPI_Bcast(buf, 64, MPI_INT, root, c));
        for (int i = 0; i < 64; i++)
            if (buf[i] != i * (root + 1)) {
                CHECK(0, "bcast after the mismatches, root %d: [%d] = %d", root, i, buf[i]);
                break;
            }
    }
}

int main(int argc, char **argv)
{
    int nrounds;
    MPI_Comm half;
    mtest_init(&argc, &argv);
    nrounds = argc > 1 ? atoi(argv[1]) : 20;
    rounds(MPI_COMM_WORLD, nrounds);
    bcast_types(MPI_COMM_WORLD, 9000);
    late_root(MPI_COMM_WORLD, nrounds);
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_size - mtest_rank, &half);
    rounds(half, nrounds / 4 + 1);
    bcast_types(half, 9000);
    mismatches(half);
    MPI_Comm_free(&half);
    mismatches(MPI_COMM_WORLD);
    if (argc > 2 && strcmp(argv[2], "cross") == 0 && mtest_size > 1) {
        cross(1000, 100000);
        cross(100000, 1000);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
