/* Large messages from a contiguous send into derived-type receives between
 * ranks of one node (issue 27, MPICH's pt2pt/large_message in the shape of a
 * user's halo or column exchange). Rank 0 sends the same 48 MiB of doubles
 * to every other rank; rank 1 receives it as 256-byte blocks at stride 512
 * bytes, rank 2 as 4 KiB blocks at stride 8 KiB, rank 3 (when present) as a
 * struct of pieces of 24 and 40 bytes resized to leave gaps; the gaps must
 * stay untouched and every value must land. Then the same into a receive
 * of 256-byte blocks too short for it (truncation: MPI_ERR_TRUNCATE, the
 * bytes that fit delivered).
 *
 * With single-copy reads (CMA on shm) each such receive is one copy read
 * straight from the sender's buffer: the MPI_T counter canal_rndv_pulled
 * must count it for ranks 1 and 2 (rank 3's small pieces are cheaper
 * streamed through the channel: the device declines to read them so, after
 * having described the first of them, and must rewind). Where the node has no single-copy reads (a contiguous
 * receive is not pulled either) the test says "skipped:"; with the argument
 * "streamed" (CANAL_SHM_CMA=no) only the data is checked.
 *
 * With the argument "big" (2 ranks): MPICH's large_message through a type,
 * 2.2 GB (more than 2^31 bytes) sent contiguous and received as two pieces
 * of 1.1 GB with a 4 KiB gap (reads of at most 1 GiB each); skipped, with a
 * line saying so, where less than 6 GiB of memory is available. */
#include "mtest.h"

#include <string.h>

enum { N = 6 * 1024 * 1024 }; /* doubles sent */

static unsigned long long pulled_now(void) { return mtest_counter("canal_rndv_pulled"); }

static double value_of(size_t i) { return (double)i * 0.5 + 1.0; }

/* The receive type of rank r (one element for ranks 1 and 2, N / 8 for
 * rank 3) and in *span the doubles of the buffer that receive spans. */
static MPI_Datatype recv_type(int r, size_t *span)
{
    MPI_Datatype t, s;

    if (r == 1) {
        OK(MPI_Type_vector(N / 32, 32, 64, MPI_DOUBLE, &t));
    } else if (r == 2) {
        OK(MPI_Type_vector(N / 512, 512, 1024, MPI_DOUBLE, &t));
    } else {
        int bl[2] = {3, 5};
        MPI_Aint disp[2] = {0, 4 * sizeof(double)};
        MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_DOUBLE};
        /* 8 doubles in an extent of 10: pieces of 3 and 5 with gaps of 1 and 1 */
        OK(MPI_Type_create_struct(2, bl, disp, ty, &s));
        OK(MPI_Type_create_resized(s, 0, 10 * sizeof(double), &t));
        OK(MPI_Type_free(&s));
    }
    OK(MPI_Type_commit(&t));
    *span = r == 1 ? 2 * (size_t)N : r == 2 ? 2 * (size_t)N : (size_t)N / 8 * 10;
    return t;
}

/* Index in the receive buffer of the k-th double received by rank r. */
static size_t pos_of(int r, size_t k)
{
    if (r == 1)
        return k / 32 * 64 + k % 32;
    if (r == 2)
        return k / 512 * 1024 + k % 512;
    size_t e = k / 8, j = k % 8;
    return e * 10 + (j < 3 ? j : j + 1);
}

/* MemAvailable in KiB (-1 if unknown). */
static long long mem_available_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kib = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static int big(void)
{
    const size_t nb = 275000000, half = nb / 2, gap = 512; /* doubles */
    long long avail = mem_available_kib();
    int go = avail < 0 || avail >= 6LL << 20, count;
    unsigned long long p0 = 0, p1 = 0;
    MPI_Datatype t;
    MPI_Status st;
    double *buf;

    CHECK(mtest_size == 2, "big: run with 2 ranks, not %d", mtest_size);
    OK(MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!go) {
        if (mtest_rank == 0)
            printf("skipped: needs 6 GiB of memory available (%lld KiB here)\n", avail);
        return mtest_finish();
    }
    if (mtest_rank == 0) {
        buf = malloc(sizeof(double) * nb);
        CHECK(buf != NULL, "no memory");
        for (size_t i = 0; i < nb; i++)
            buf[i] = value_of(i);
        OK(MPI_Send(buf, (int)nb, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD));
    } else {
        size_t bad = 0;
        buf = malloc(sizeof(double) * (nb + gap));
        CHECK(buf != NULL, "no memory");
        for (size_t i = 0; i < nb + gap; i++)
            buf[i] = -7.0;
        OK(MPI_Type_vector(2, (int)half, (int)(half + gap), MPI_DOUBLE, &t));
        OK(MPI_Type_commit(&t));
        p0 = pulled_now();
        OK(MPI_Recv(buf, 1, t, 0, 0, MPI_COMM_WORLD, &st));
        p1 = pulled_now();
        OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
        CHECK(count == (int)nb, "big: count %d", count);
        for (size_t k = 0; k < nb; k++)
            bad += buf[k < half ? k : k + gap] != value_of(k);
        for (size_t i = half; i < half + gap; i++)
            bad += buf[i] != -7.0;
        CHECK(bad == 0, "big: %zu doubles wrong", bad);
        CHECK(p1 == p0 + 1, "big: not read in one copy (canal_rndv_pulled %llu -> %llu)", p0, p1);
        OK(MPI_Type_free(&t));
        OK(MPI_T_finalize());
    }
    free(buf);
    return mtest_finish();
}

int main(int argc, char **argv)
{
    int streamed = argc > 1 && strcmp(argv[1], "streamed") == 0;
    double *buf;

    mtest_init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "big") == 0)
        return big();
    CHECK(mtest_size >= 3 && mtest_size <= 4, "run with 3 or 4 ranks, not %d", mtest_size);
    if (mtest_rank == 0) {
        buf = malloc(sizeof(double) * N);
        CHECK(buf != NULL, "no memory");
        for (size_t i = 0; i < N; i++)
            buf[i] = value_of(i);
        /* (a contiguous receive first: tells whether single-copy reads work) */
        for (int d = 1; d < mtest_size; d++)
            OK(MPI_Send(buf, N, MPI_DOUBLE, d, 0, MPI_COMM_WORLD));
        for (int d = 1; d < mtest_size; d++)
            OK(MPI_Send(buf, N, MPI_DOUBLE, d, 1, MPI_COMM_WORLD));
        for (int d = 1; d < mtest_size; d++)
            OK(MPI_Send(buf, N, MPI_DOUBLE, d, 2, MPI_COMM_WORLD));
        free(buf);
    } else {
        size_t span, total;
        MPI_Datatype t = recv_type(mtest_rank, &span);
        MPI_Status st;
        unsigned long long p0, p1, p2;
        int count, can_pull, elems;

        buf = malloc(sizeof(double) * (span > N ? span : N));
        CHECK(buf != NULL, "no memory");
        p0 = pulled_now();
        OK(MPI_Recv(buf, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st));
        for (size_t i = 0; i < N; i++)
            CHECK(buf[i] == value_of(i), "contiguous: [%zu] = %g", i, buf[i]);
        p1 = pulled_now();
        can_pull = p1 > p0;

        /* the derived-type receive, gaps marked */
        for (size_t i = 0; i < span; i++)
            buf[i] = -7.0;
        elems = mtest_rank == 3 ? N / 8 : 1;
        OK(MPI_Recv(buf, elems, t, 0, 1, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
        CHECK(count == N, "type %d: count %d", mtest_rank, count);
        total = 0;
        for (size_t k = 0; k < N; k++) {
            size_t at = pos_of(mtest_rank, k);
            if (buf[at] != value_of(k) && total++ < 5)
                CHECK(0, "type %d: value %zu at [%zu] = %g", mtest_rank, k, at, buf[at]);
            buf[at] = -7.0;
        }
        CHECK(total == 0, "type %d: %zu values wrong", mtest_rank, total);
        total = 0;
        for (size_t i = 0; i < span; i++)
            total += buf[i] != -7.0;
        CHECK(total == 0, "type %d: %zu doubles written in the gaps", mtest_rank, total);
        p2 = pulled_now();
        if (can_pull && !streamed && mtest_rank < 3)
            CHECK(p2 == p1 + 1, "type %d: the derived-type receive was not read in one copy "
                  "(canal_rndv_pulled %llu -> %llu)", mtest_rank, p1, p2);

        /* into too small a receive: the part that fits, then MPI_ERR_TRUNCATE */
        for (size_t i = 0; i < span; i++)
            buf[i] = -7.0;
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        {
            MPI_Datatype half;
            int rc;
            size_t got = 0;
            OK(MPI_Type_vector(N / 64, 32, 64, MPI_DOUBLE, &half));
            OK(MPI_Type_commit(&half));
            rc = MPI_Recv(buf, 1, half, 0, 2, MPI_COMM_WORLD, &st);
            CHECK(mtest_error_class(rc) == MPI_ERR_TRUNCATE, "truncation: class %d",
                  mtest_error_class(rc));
            for (size_t k = 0; k < N / 2; k++)
                got += buf[pos_of(1, k)] == value_of(k) && buf[pos_of(1, k) + 32] == -7.0;
            CHECK(got == N / 2, "truncation: %zu of %d values where they belong", got, N / 2);
            CHECK(buf[N] == -7.0, "truncation: written past the receive");
            OK(MPI_Type_free(&half));
        }
        if (!can_pull && !streamed && mtest_rank == 1)
            printf("skipped: no single-copy reads between these ranks (a contiguous rendezvous "
                   "receive was not pulled); the data was checked\n");
        OK(MPI_Type_free(&t));
        free(buf);
        OK(MPI_T_finalize());
    }
    return mtest_finish();
}
