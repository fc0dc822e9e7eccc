/*
 * Messages of 2^31 bytes and more (issue 11, resource limits): MPI_Send_c /
 * MPI_Recv_c, MPI_Isend_c / MPI_Irecv_c, MPI_Bcast_c, an int-count send of a
 * derived datatype whose size exceeds 2^31 bytes, and what the status says
 * about them: MPI_Get_count gives MPI_UNDEFINED when the count does not fit
 * an int, MPI_Get_count_c and MPI_Get_elements_x give the real numbers.
 * Every received byte is checked against a position-dependent pattern.
 *
 * Two processes, each needs one buffer of LEN bytes (and the channel's own
 * memory); when /proc/meminfo's MemAvailable is short the test prints
 * "skipped: needs N GiB" and passes, so that small CI machines stay green.
 * The runner runs it over shm and over sock (CANAL_CHANNEL=sock).
 */
#include "mtest.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* 2^31 + 24 bytes: past INT_MAX, and a multiple of 8 so that MPI_DOUBLE
 * counts are whole */
#define LEN ((MPI_Count)2147483648LL + 24)

static unsigned char pat(size_t i, unsigned seed) { return (unsigned char)((i * 131u + (i >> 20) + seed) & 0xff); }

/* The pattern repeats every 256 bytes within each 1 MiB block (i * 131 mod
 * 256 depends on i mod 256; i >> 20 is the block's number), so fill() and
 * verify() work a 256-byte row at a time with memcpy/memcmp: a byte loop over
 * 2 GiB took most of this test's time (tens of seconds on a loaded CI host).
 * A receive buffer is not cleared first: it holds the pattern of another
 * seed (or zeros), which differs from the expected one at every byte. */
static void pat_row(unsigned char row[256], size_t block, unsigned seed)
{
    for (size_t j = 0; j < 256; j++)
        row[j] = pat((block << 20) + j, seed);
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    unsigned char row[256];
    for (size_t i = 0; i < n; i += (size_t)1 << 20) {
        size_t len = n - i < ((size_t)1 << 20) ? n - i : ((size_t)1 << 20);
        size_t done = len < 256 ? len : 256;
        pat_row(row, i >> 20, seed);
        memcpy(b + i, row, done);
        while (done < len) { /* double the filled part of the block */
            size_t more = len - done < done ? len - done : done;
            memcpy(b + i + done, b + i, more);
            done += more;
        }
    }
}

/* Number of bytes that differ from the pattern (reports the first). */
static size_t verify(const unsigned char *b, size_t n, unsigned seed, const char *what)
{
    unsigned char row[256];
    size_t bad = 0;
    for (size_t i = 0; i < n; i += 256) {
        size_t len = n - i < 256 ? n - i : 256;
        if ((i & ((1u << 20) - 1)) == 0)
            pat_row(row, i >> 20, seed);
        if (memcmp(b + i, row, len) == 0)
            continue;
        for (size_t j = i; j < i + len; j++) {
            if (b[j] != pat(j, seed)) {
                if (bad == 0)
                    fprintf(stderr, "%s: byte %zu is %u, expected %u\n", what, j, b[j], pat(j, seed));
                bad++;
            }
        }
    }
    return bad;
}

/* MemAvailable in KiB (-1 if unknown); MTEST_MEMAVAIL_KIB overrides it so
 * that the skip path itself is tested (testlist.limits). */
static long long mem_available_kib(void)
{
    FILE *f;
    char line[256];
    long long kib = -1;
    if (getenv("MTEST_MEMAVAIL_KIB") != NULL)
        return atoll(getenv("MTEST_MEMAVAIL_KIB"));
    f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    int rank, size, go = 1, icount;
    unsigned char *buf;
    MPI_Status st;
    MPI_Count ccount, elems;
    MPI_Request req;
    /* two buffers of LEN per job plus slack for the channels */
    const long long need_kib = 2 * (LEN / 1024) + 1024 * 1024;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        long long avail = mem_available_kib();
        if (avail >= 0 && avail < need_kib) {
            printf("skipped: needs %.1f GiB of MemAvailable, the machine has %.1f GiB\n",
                   need_kib / 1048576.0, avail / 1048576.0);
            go = 0;
        }
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go || size < 2) {
        if (rank == 0 && size < 2)
            printf("skipped: needs 2 processes\n");
        return mtest_finish();
    }
    buf = malloc((size_t)LEN);
    CHECK(buf != NULL, "cannot allocate %lld bytes", (long long)LEN);
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* 1. MPI_Send_c / MPI_Recv_c of LEN bytes */
    if (rank == 0) {
        fill(buf, (size_t)LEN, 1);
        MPI_Send_c(buf, LEN, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv_c(buf, LEN, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        CHECK(verify(buf, (size_t)LEN, 1, "MPI_Recv_c") == 0, "MPI_Recv_c: data differs");
        MPI_Get_count(&st, MPI_BYTE, &icount);
        CHECK(icount == MPI_UNDEFINED, "MPI_Get_count of %lld bytes: %d, not MPI_UNDEFINED",
              (long long)LEN, icount);
        MPI_Get_count_c(&st, MPI_BYTE, &ccount);
        CHECK(ccount == LEN, "MPI_Get_count_c: %lld", (long long)ccount);
        MPI_Get_count_c(&st, MPI_DOUBLE, &ccount);
        CHECK(ccount == LEN / 8, "MPI_Get_count_c(MPI_DOUBLE): %lld", (long long)ccount);
        MPI_Get_elements_x(&st, MPI_INT, &elems);
        CHECK(elems == LEN / 4, "MPI_Get_elements_x(MPI_INT): %lld", (long long)elems);
        MPI_Get_elements(&st, MPI_BYTE, &icount);
        CHECK(icount == MPI_UNDEFINED, "MPI_Get_elements: %d, not MPI_UNDEFINED", icount);
    }

    /* 2. MPI_Isend_c / MPI_Irecv_c the other way, counted in doubles */
    if (rank == 1) {
        fill(buf, (size_t)LEN, 2);
        MPI_Isend_c(buf, LEN / 8, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Irecv_c(buf, LEN / 8, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
        CHECK(verify(buf, (size_t)LEN, 2, "MPI_Irecv_c") == 0, "MPI_Irecv_c: data differs");
        MPI_Get_count_c(&st, MPI_DOUBLE, &ccount);
        CHECK(ccount == LEN / 8, "MPI_Get_count_c after MPI_Irecv_c: %lld", (long long)ccount);
    }

    /* 3. an int-count send of one element of a derived type of LEN bytes,
     * received as bytes (MPI_Recv_c) */
    {
        MPI_Datatype big;
        MPI_Count tsize;
        MPI_Type_contiguous((int)(LEN / 8), MPI_DOUBLE, &big);
        MPI_Type_commit(&big);
        MPI_Type_size_c(big, &tsize);
        CHECK(tsize == LEN, "MPI_Type_size_c of the big type: %lld", (long long)tsize);
        if (rank == 0) {
            fill(buf, (size_t)LEN, 3);
            MPI_Send(buf, 1, big, 1, 3, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(buf, 1, big, 0, 3, MPI_COMM_WORLD, &st);
            CHECK(verify(buf, (size_t)LEN, 3, "derived type") == 0, "derived type: data differs");
            MPI_Get_count(&st, big, &icount);
            CHECK(icount == 1, "MPI_Get_count(big type): %d", icount);
            MPI_Get_elements_x(&st, big, &elems);
            CHECK(elems == LEN / 8, "MPI_Get_elements_x(big type): %lld", (long long)elems);
            MPI_Get_count(&st, MPI_BYTE, &icount);
            CHECK(icount == MPI_UNDEFINED, "MPI_Get_count(MPI_BYTE): %d", icount);
        }
        MPI_Type_free(&big);
    }

    /* 4. MPI_Bcast_c of LEN bytes from the last rank */
    if (rank == size - 1)
        fill(buf, (size_t)LEN, 4);
    MPI_Bcast_c(buf, LEN, MPI_BYTE, size - 1, MPI_COMM_WORLD);
    CHECK(verify(buf, (size_t)LEN, 4, "MPI_Bcast_c") == 0, "MPI_Bcast_c: data differs");

    free(buf);
    return mtest_finish();
}
