/*
 * Which way a rendezvous message between ranks of one node travels when
 * the node is oversubscribed (adi/pt2pt.c, rndv_offer): streamed through
 * the channel below CANAL_RNDV_STREAM_MAX, except that messages a rank
 * sends with others at once (a broadcast's root, a scatter's root, a
 * linear allgather or alltoall: fan-out) are read by their receivers
 * (single copy, CMA). Each collective runs the way a user's
 * program calls it, its data checked, and the MPI_T counter
 * canal_rndv_pulled (reads made, summed over ranks) is compared with what
 * the rule says. The limits are read through MPI_T's control variables,
 * and whether single-copy reads work here from a point-to-point message of
 * CANAL_RNDV_STREAM_MAX bytes; argument "read": everything is read, the
 * node not being oversubscribed (CANAL_OVERSUBSCRIBED=no) or the reads
 * not the receiver's own copies (CANAL_CHANNEL=ofi: a NIC's, or here its
 * provider's).
 * Before the rule, a gather root on an oversubscribed node read every
 * block itself (np8 Gatherv 128 KiB: 2-3 times Open MPI's time).
 */
#include "mtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long long stream_max;
static int cma, over;
static unsigned long long mark; /* canal_rndv_pulled at the last look */

/* Whether a rendezvous message of n bytes is read, by the rule; fanout:
 * its sender sends others at once (with 2 ranks nobody does). */
static int read_by_rule(long long n, int fanout)
{
    if (!cma)
        return 0;
    if (!over)
        return 1;
    return n >= stream_max || fanout;
}

/* Reads made on all ranks since the last look. */
static unsigned long long reads_since(void)
{
    unsigned long long now = mtest_counter("canal_rndv_pulled"), mine = now - mark, all = 0;

    mark = now;
    OK(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    return all;
}

static void expect_reads(const char *what, unsigned long long got, unsigned long long want)
{
    CHECK(got == want, "%s: %llu single-copy reads where the rule (stream below %lld but "
                       "fan-out, oversubscribed %s, CMA %s) says %llu",
          what, got, stream_max, over ? "yes" : "no", cma ? "yes" : "no", want);
}

/* The reads since the last look, where msgs messages of n bytes went from
 * ranks that sent others at once (fan-out, with more than 2 ranks): checked
 * on an oversubscribed node (elsewhere trees, whose reads go by shape). */
static void expect_fanout(const char *what, unsigned long long msgs, long long n)
{
    unsigned long long got = reads_since();

    if (over)
        expect_reads(what, got, msgs * (unsigned)read_by_rule(n, mtest_size > 2));
}

static unsigned char pat(int rank, size_t i) { return (unsigned char)(rank * 31 + i * 7 + 1); }

int main(int argc, char **argv)
{
    int rank, size, prov;
    size_t big;
    unsigned char *a, *b;

    mtest_init(&argc, &argv);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    rank = mtest_rank;
    size = mtest_size;
    over = !(argc > 1 && strcmp(argv[1], "read") == 0);
    stream_max = mtest_cvar("CANAL_RNDV_STREAM_MAX");
    big = (size_t)(stream_max > (1 << 20) ? stream_max : (1 << 20));
    a = malloc(big * (size_t)size);
    b = malloc(big * (size_t)size);
    CHECK(a != NULL && b != NULL, "no memory");
    if (a == NULL || b == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* Single-copy reads work here: a message of CANAL_RNDV_STREAM_MAX
     * bytes (read whatever the node) from rank 0 to rank 1 is read. */
    mark = mtest_counter("canal_rndv_pulled");
    if (size > 1) {
        if (rank == 0)
            OK(MPI_Send(a, (int)big, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
        else if (rank == 1)
            OK(MPI_Recv(b, (int)big, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        cma = reads_since() == 1;
    }
    if (rank == 0)
        printf("stream below %lld, %s, single-copy reads %s\n", stream_max,
               over ? "streaming where the rule says" : "every message read",
               cma ? "yes" : "no");

    /* A gather of 128 KiB blocks: each leaf's one message to the root. */
    {
        size_t n = 128 * 1024;
        for (size_t i = 0; i < n; i++)
            a[i] = pat(rank, i);
        OK(MPI_Gather(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD));
        if (rank == 0)
            for (int p = 0; p < size; p++)
                for (size_t i = 0; i < n; i += 251)
                    CHECK(b[(size_t)p * n + i] == pat(p, i), "gather: rank %d's byte %zu", p, i);
        expect_reads("MPI_Gather of 128 KiB blocks", reads_since(),
                     (unsigned long long)(size - 1) * (unsigned)read_by_rule((long long)n, 0));
    }
    /* A gatherv of blocks from 32 KiB to 32 KiB * size, the root's last. */
    {
        int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
        unsigned long long want = 0;
        int off = 0;
        CHECK(counts != NULL && displs != NULL, "no memory");
        for (int p = 0; p < size; p++) {
            counts[p] = 32 * 1024 * (p + 1);
            displs[p] = off;
            off += counts[p];
            if (p != size - 1)
                want += (unsigned)read_by_rule(counts[p], 0);
        }
        for (int i = 0; i < counts[rank]; i++)
            a[i] = pat(rank + 3, (size_t)i);
        OK(MPI_Gatherv(a, counts[rank], MPI_BYTE, b, counts, displs, MPI_BYTE, size - 1,
                       MPI_COMM_WORLD));
        if (rank == size - 1)
            for (int p = 0; p < size; p++)
                for (int i = 0; i < counts[p]; i += 509)
                    CHECK(b[displs[p] + i] == pat(p + 3, (size_t)i), "gatherv: rank %d's byte %d",
                          p, i);
        expect_reads("MPI_Gatherv of 32 KiB-per-rank blocks", reads_since(), want);
        free(counts);
        free(displs);
    }
    /* Broadcasts from rank 1 (a linear broadcast on an oversubscribed node:
     * one message to every rank at once; up to 64 KiB a broadcast goes
     * through the node's shared block instead). */
    for (long long n = 128 * 1024; n <= 1024 * 1024; n *= 8) {
        int root = size > 1 ? 1 : 0;
        for (long long i = 0; i < n; i++)
            a[i] = rank == root ? pat(root, (size_t)i) : 0;
        OK(MPI_Bcast(a, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
        for (long long i = 0; i < n; i += 331)
            CHECK(a[i] == pat(root, (size_t)i), "bcast of %lld bytes: byte %lld", n, i);
        expect_fanout(n < 1024 * 1024 ? "MPI_Bcast of 128 KiB" : "MPI_Bcast of 1 MiB",
                      (unsigned long long)(size - 1), n);
    }
    /* A scatter of 32 KiB blocks from rank 0: fan-out. */
    {
        size_t n = 32 * 1024;
        if (rank == 0)
            for (size_t i = 0; i < n * (size_t)size; i++)
                a[i] = pat((int)(i / n), i % n);
        OK(MPI_Scatter(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD));
        for (size_t i = 0; i < n; i += 257)
            CHECK(b[i] == pat(rank, i), "scatter: byte %zu", i);
        expect_fanout("MPI_Scatter of 32 KiB blocks", (unsigned long long)(size - 1), (long long)n);
    }
    /* Allgathers of 64 KiB and 256 KiB blocks: each rank's block to all. */
    for (size_t n = 64 * 1024; n <= 256 * 1024; n *= 4) {
        for (size_t i = 0; i < n; i++)
            a[i] = pat(rank + 5, i);
        OK(MPI_Allgather(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            for (size_t i = 0; i < n; i += 313)
                CHECK(b[(size_t)p * n + i] == pat(p + 5, i), "allgather %zu: rank %d's byte %zu",
                      n, p, i);
        expect_fanout("MPI_Allgather", (unsigned long long)size * (unsigned long long)(size - 1),
                      (long long)n);
    }
    /* An alltoall of 48 KiB blocks: every rank's to every other at once. */
    {
        size_t n = 48 * 1024;
        for (size_t i = 0; i < n * (size_t)size; i++)
            a[i] = pat(rank * 16 + (int)(i / n), i % n);
        OK(MPI_Alltoall(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            for (size_t i = 0; i < n; i += 199)
                CHECK(b[(size_t)p * n + i] == pat(p * 16 + rank, i), "alltoall: rank %d's byte %zu",
                      p, i);
        expect_fanout("MPI_Alltoall of 48 KiB blocks",
                      (unsigned long long)size * (unsigned long long)(size - 1), (long long)n);
    }
    /* An allreduce of 1 MiB of doubles and a ring of 512 KiB exchanges. */
    {
        size_t n = (1 << 20) / sizeof(double);
        double *x = (double *)a, *y = (double *)b;
        unsigned long long got;
        for (size_t i = 0; i < n; i++)
            x[i] = (double)(rank + 1) + (double)(i % 5);
        OK(MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        for (size_t i = 0; i < n; i += 97)
            CHECK(x[i] == (double)size * (size + 1) / 2 + (double)size * (double)(i % 5),
                  "allreduce: [%zu] = %g", i, x[i]);
        got = reads_since();
        /* (from 8 ranks linear_blocks: every rank's parts to every rank at
         * once, twice; below, Rabenseifner's pairs) */
        if (over && size >= 8)
            expect_reads("MPI_Allreduce of 1 MiB", got,
                         2ull * (unsigned long long)size * (unsigned long long)(size - 1) *
                             (unsigned)read_by_rule(1 << 17, 1));
        else if (over && !read_by_rule(1 << 20, 0))
            expect_reads("MPI_Allreduce of 1 MiB", got, 0);
        if (size > 1) {
            size_t m = 512 * 1024;
            int to = (rank + 1) % size, from = (rank + size - 1) % size;
            for (size_t i = 0; i < m; i++)
                a[i] = pat(rank + 9, i);
            OK(MPI_Sendrecv(a, (int)m, MPI_BYTE, to, 5, y, (int)m, MPI_BYTE, from, 5,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (size_t i = 0; i < m; i += 211)
                CHECK(b[i] == pat(from + 9, i), "sendrecv: byte %zu", i);
            expect_reads("a ring of 512 KiB MPI_Sendrecv", reads_since(),
                         (unsigned long long)size * (unsigned)read_by_rule((long long)m, 0));
        }
    }
    free(a);
    free(b);
    OK(MPI_T_finalize());
    return mtest_finish();
}
