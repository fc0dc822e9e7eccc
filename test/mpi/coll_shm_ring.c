/*
 * MPI_Bcast of more than 64 KiB on communicators whose ranks are all on one
 * node, which Canal streams through a ring of 4 MiB of shared memory
 * (coll/shm.c, bcast_ring): the root copies the message in a piece at a
 * time, waiting for room where a rank has not yet taken what the ring
 * holds, and the others copy it out. Checked, on MPI_COMM_WORLD and on a
 * split communicator:
 *  - every root, sizes from just above 64 KiB to 5 MiB, back to back (the
 *    stream's place in the ring moves by odd amounts, messages wrap around
 *    its end, a root writes while the last call's slowest rank still
 *    reads), and mixed with barriers, small bcasts and allreduces;
 *  - a late root (the others wait for its first piece) and a late receiver
 *    (the root of 5 MiB must wait for it before it can reuse the ring);
 *  - a vector type at the root against contiguous ints at the others and
 *    the other way round (the same signature), 3 MiB, across the ring's end;
 *  - mismatches under MPI_ERRORS_RETURN: receivers that pass a shorter count
 *    get MPI_ERR_TRUNCATE (above 64 KiB, and 1000 bytes: the block's bcast
 *    against the ring's), a longer one MPI_ERR_OTHER; a rank that names
 *    another root MPI_ERR_OTHER naming the root; afterwards the communicator
 *    works, every root.
 * Any number of ranks. Arguments: rounds (default 4), then "messages" (under
 * CANAL_COLL_SHM_RING=0, where these sizes go by messages and a mismatch
 * leaves the communicator out of step: no mismatches).
 */
#include "mtest.h"
#include "coll_bcast_types.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MIB = 1024 * 1024, BIG = 5 * MIB + 4097 };

static unsigned char pattern(int round, int root, size_t i)
{
    return (unsigned char)(round * 31 + root * 7 + (int)(i * 13 % 251));
}

/* n bytes from root, the buffer filled with garbage elsewhere, checked */
static void one(MPI_Comm c, int me, int round, int root, size_t n, unsigned char *buf,
                const char *what)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = me == root ? pattern(round, root, i) : 0xee;
    OK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, c));
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(round, root, i)) {
            CHECK(0, "%s: round %d root %d %zu bytes: byte %zu is %u, want %u", what, round, root,
                  n, i, buf[i], pattern(round, root, i));
            return;
        }
}

static void rounds(MPI_Comm c, int nrounds, unsigned char *buf)
{
    static const size_t sizes[] = {65537,   100000,      262144 + 3,      MIB, 2 * MIB - 1,
                                   2 * MIB, 2 * MIB + 1, 3 * MIB + 12345, BIG, 70000};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c)); /* (the block: its 3rd call) */
    for (int round = 0; round < nrounds; round++) {
        for (int s = 0; s < NS; s++)
            for (int root = 0; root < p; root++)
                one(c, me, round, root, sizes[s], buf, "back to back");
        for (int root = 0; root < p; root++) {
            int x = me + round, sum = -1, want = p * round + p * (p - 1) / 2;
            one(c, me, round, root, MIB + 5, buf, "before a barrier");
            OK(MPI_Barrier(c));
            one(c, me, round, (root + 1) % p, 64, buf, "a small one after the ring's");
            one(c, me, round, root, 3 * MIB, buf, "after a small one");
            OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == want, "allreduce after a bcast: %d, want %d", sum, want);
            one(c, me, round, (root + 2) % p, 65536, buf, "the block's largest");
            one(c, me, round, (root + 2) % p, 65537, buf, "the ring's smallest");
        }
    }
}

/* the root comes late (the others wait for its first piece), or one
 * receiver does (the root of more than the ring holds waits for it) */
static void late(MPI_Comm c, int nrounds, unsigned char *buf)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (int round = 0; round < nrounds; round++)
        for (int root = 0; root < p; root++) {
            OK(MPI_Barrier(c));
            if (me == root)
                usleep(2000);
            one(c, me, round + 1000, root, 3 * MIB, buf, "from a late root");
            OK(MPI_Barrier(c));
            if (me == (root + 1) % p)
                usleep(3000);
            one(c, me, round + 2000, root, BIG, buf, "to a late receiver");
        }
}


static void mismatches(MPI_Comm c, unsigned char *buf)
{
    int me, p, rc;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    for (int root = 0; root < p; root++) {
        rc = MPI_Bcast(buf, me == root ? 3 * MIB : MIB, MPI_BYTE, root, c);
        if (me != root)
            bcast_expect(rc, MPI_ERR_TRUNCATE, "a shorter receive", "3145728 bytes");
        else
            OK(rc);
        OK(MPI_Barrier(c));
        rc = MPI_Bcast(buf, me == root ? 200000 : 1000, MPI_BYTE, root, c);
        if (me != root)
            bcast_expect(rc, MPI_ERR_TRUNCATE, "a receive of the block's size",
                         "more than 65536");
        else
            OK(rc);
        OK(MPI_Barrier(c));
        rc = MPI_Bcast(buf, me == root ? MIB : 2 * MIB, MPI_BYTE, root, c);
        if (me != root)
            bcast_expect(rc, MPI_ERR_OTHER, "a longer receive", "MPI_Bcast");
        else
            OK(rc);
        OK(MPI_Barrier(c));
    }
    if (p > 2) {
        /* the last rank names another root (rank 1) than the others (0) */
        rc = MPI_Bcast(buf, MIB, MPI_BYTE, me == p - 1 ? 1 : 0, c);
        if (me == p - 1)
            bcast_expect(rc, MPI_ERR_OTHER, "another root", "root 0");
        else if (me != 0 && me != 1)
            OK(rc);
        OK(MPI_Barrier(c));
    }
    for (int root = 0; root < p; root++)
        one(c, me, 77, root, 2 * MIB + 333, buf, "after the mismatches");
}

int main(int argc, char **argv)
{
    int nrounds;
    MPI_Comm half;
    unsigned char *buf;
    mtest_init(&argc, &argv);
    nrounds = argc > 1 ? atoi(argv[1]) : 4;
    buf = malloc(BIG);
    rounds(MPI_COMM_WORLD, nrounds, buf);
    bcast_types(MPI_COMM_WORLD, 3 * MIB / 4 + 11);
    late(MPI_COMM_WORLD, nrounds / 2 + 1, buf);
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_size - mtest_rank, &half);
    rounds(half, nrounds / 2 + 1, buf);
    bcast_types(half, 3 * MIB / 4 + 11);
    if (argc < 3 || strcmp(argv[2], "messages") != 0)
        mismatches(half, buf);
    MPI_Comm_free(&half);
    if (argc < 3 || strcmp(argv[2], "messages") != 0)
        mismatches(MPI_COMM_WORLD, buf);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
    return mtest_finish();
}
