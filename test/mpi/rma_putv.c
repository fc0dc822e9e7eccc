/* Puts, gets and accumulates of 1 byte to several MiB in IMB-RMA's patterns,
 * every byte checked: one at a time with a flush after each, many (puts
 * mixed with accumulates toward the same target) before one flush, and
 * MPI_Win_flush_local followed by a reuse of the origin buffer. First all
 * origins toward rank 0 while it polls inside MPI, then computes without
 * calling MPI; then in a ring where every rank is origin and target at
 * once and nobody polls but in its own flushes; then a derived datatype at
 * the target and at the origin. On one node Canal moves small puts and
 * accumulates of a created window through the polling target's mailbox
 * (several in one request) and everything else by single copy; the
 * checks are the same for every path and window.
 * args: create (MPI_Win_create on calloc'ed memory, the default), allocmem
 * (MPI_Win_create on MPI_Alloc_mem memory, which Canal maps into every
 * rank on one node), mixed (MPI_Alloc_mem memory on even ranks only),
 * allocate (MPI_Win_allocate) or dynamic (MPI_Win_create_dynamic +
 * MPI_Win_attach). A second argument maps=N checks that this process maps
 * N regions of MPI_Alloc_mem memory once the window exists (Canal: its own
 * and, where the window maps them, its peers'; "np" for the number of ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NCOUNT = 64 };           /* long longs after the slots: counters, per origin */
enum { C_DONE = 0, C_SUM = 1 }; /* C_SUM + origin: sums that origin added */

static int rank, np, errs, flavor;
static size_t slot;     /* bytes each origin owns in each target */
static char *mem;       /* np slots, then NCOUNT long longs */
static MPI_Aint *base;  /* every rank's window base as a displacement */
static char *src, *chk; /* origin and check buffers of slot bytes */

static void fail(const char *what, size_t size, long long got, long long want)
{
    if (errs++ < 10)
        fprintf(stderr, "rank %d: %s (size %zu): got %lld, want %lld\n", rank, what, size, got,
                want);
}

static unsigned char pat(int o, size_t size, int rep, size_t k)
{
    return (unsigned char)(o * 31 + size * 7 + (size_t)rep * 13 + k * 3 + 1);
}

static MPI_Aint slot_disp(int t, int o)
{
    return base[t] + (MPI_Aint)((size_t)o * slot);
}

static MPI_Aint count_disp(int t, int i)
{
    return base[t] + (MPI_Aint)((size_t)np * slot + (size_t)i * sizeof(long long));
}

static void fill(int rep, size_t size, size_t n)
{
    for (size_t k = 0; k < n; k++)
        src[k] = (char)pat(rank, size, rep, k);
}

static void check(const char *what, int rep, size_t size, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)chk[k] != pat(rank, size, rep, k)) {
            fail(what, size, (unsigned char)chk[k], pat(rank, size, rep, k));
            return;
        }
}

/* This origin's work toward target t at one size; adds to t's C_SUM+rank
 * (returned: how much). */
static long long origin_size(MPI_Win win, int t, size_t size)
{
    long long one = 1, added = 0, got;
    int reps = size <= 4096 ? 8 : 2;

    /* one at a time: put, flush, get, flush */
    for (int rep = 0; rep < reps; rep++) {
        fill(rep, size, size);
        MPI_Put(src, (int)size, MPI_BYTE, t, slot_disp(t, rank), (int)size, MPI_BYTE, win);
        MPI_Win_flush(t, win);
        memset(chk, 0, size);
        MPI_Get(chk, (int)size, MPI_BYTE, t, slot_disp(t, rank), (int)size, MPI_BYTE, win);
        MPI_Win_flush(t, win);
        check("put, flush, get", rep, size, size);
        MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, count_disp(t, C_SUM + rank), 1, MPI_LONG_LONG,
                       MPI_SUM, win);
        MPI_Win_flush(t, win);
        added++;
    }
    /* many: puts of `size` at consecutive places of the slot, each followed
     * by an accumulate of the same target, one flush */
    if (size * 2 <= slot) {
        size_t n = slot / size < 24 ? slot / size : 24;
        fill(100, size, n * size);
        for (size_t k = 0; k < n; k++) {
            MPI_Put(src + k * size, (int)size, MPI_BYTE, t,
                    slot_disp(t, rank) + (MPI_Aint)(k * size), (int)size, MPI_BYTE, win);
            MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, count_disp(t, C_SUM + rank), 1, MPI_LONG_LONG,
                           MPI_SUM, win);
            added++;
        }
        MPI_Win_flush(t, win);
        memset(chk, 0, n * size);
        MPI_Get(chk, (int)(n * size), MPI_BYTE, t, slot_disp(t, rank), (int)(n * size), MPI_BYTE,
                win);
        MPI_Win_flush(t, win);
        check("many puts, one flush", 100, size, n * size);
    }
    /* flush_local: the origin buffer is ours again, the bytes still land */
    fill(200, size, size);
    MPI_Put(src, (int)size, MPI_BYTE, t, slot_disp(t, rank), (int)size, MPI_BYTE, win);
    MPI_Win_flush_local(t, win);
    memset(src, 0x5a, size);
    MPI_Win_flush(t, win);
    memset(chk, 0, size);
    MPI_Get(chk, (int)size, MPI_BYTE, t, slot_disp(t, rank), (int)size, MPI_BYTE, win);
    MPI_Win_flush_local(t, win); /* a get is complete at a local flush */
    check("put, flush_local, reuse, flush", 200, size, size);
    /* the running sum, fetched */
    MPI_Fetch_and_op(NULL, &got, MPI_LONG_LONG, t, count_disp(t, C_SUM + rank), MPI_NO_OP, win);
    MPI_Win_flush(t, win);
    (void)got;
    return added;
}

/* Mappings of MPI_Alloc_mem regions in this process (Canal names its
 * memfds "canal-alloc-mem"): how many peers' window memory is mapped here. */
static int alloc_mem_maps(void)
{
    char line[512];
    int n = 0;
    FILE *f = fopen("/proc/self/maps", "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        n += strstr(line, "canal-alloc-mem") != NULL;
    fclose(f);
    return n;
}

static const size_t sizes[] = {1,    3,    8,    17,   64,   100,   512,     1000,
                               2048, 4064, 4096, 4097, 8192, 65536, 1 << 20, 4 << 20};

/* Everything toward t; returns what this origin added to t's sum. */
static long long origin_all(MPI_Win win, int t)
{
    long long added = 0, got = -1;

    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (sizes[i] <= slot)
            added += origin_size(win, t, sizes[i]);
    MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t,
                       count_disp(t, C_SUM + rank), 1, MPI_LONG_LONG, MPI_NO_OP, win);
    MPI_Win_flush(t, win);
    MPI_Win_unlock(t, win);
    return added;
}

/* Rank 0 while the others work on it: poll inside MPI (mode 0) or compute
 * (mode 1) until every origin said it is done. */
static void target_wait(int mode, long long want)
{
    volatile long long *done = (long long *)(mem + (size_t)np * slot) + C_DONE;
    while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < want) {
        if (mode == 0) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
    }
}

/* A vector at the target (every other long long of the slot) from a
 * contiguous origin, and back into a vector at the origin. */
static void derived(MPI_Win win, int t)
{
    enum { N = 64 };
    long long out[N], in[2 * N];
    MPI_Datatype vec;

    if (slot < 2 * N * sizeof(long long))
        return;
    MPI_Type_vector(N, 1, 2, MPI_LONG_LONG, &vec);
    MPI_Type_commit(&vec);
    for (int k = 0; k < N; k++)
        out[k] = 1000000LL * rank + k;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Put(out, N, MPI_LONG_LONG, t, slot_disp(t, rank), 1, vec, win);
    MPI_Accumulate(out, N, MPI_LONG_LONG, t, slot_disp(t, rank) + (MPI_Aint)sizeof(long long), 1,
                   vec, MPI_REPLACE, win);
    MPI_Win_flush(t, win);
    memset(in, 0, sizeof in);
    MPI_Get(in, N, MPI_LONG_LONG, t, slot_disp(t, rank), 1, vec, win);
    MPI_Win_flush(t, win);
    for (int k = 0; k < N; k++)
        if (in[k] != out[k])
            fail("vector put, vector get at the target", 8, in[k], out[k]);
    memset(in, 0, sizeof in);
    MPI_Get(in, 1, vec, t, slot_disp(t, rank), N, MPI_LONG_LONG, win);
    MPI_Win_flush(t, win);
    for (int k = 0; k < N; k++) /* (the target holds each value twice) */
        if (in[2 * k] != out[k / 2] || in[2 * k + 1] != 0)
            fail("vector get at the origin", 8, in[2 * k], out[k / 2]);
    MPI_Get(in, 2 * N, MPI_LONG_LONG, t, slot_disp(t, rank), 2 * N, MPI_LONG_LONG, win);
    MPI_Win_unlock(t, win);
    for (int k = 0; k < 2 * N; k++)
        if (in[k] != out[k / 2])
            fail("vector accumulate (replace)", 8, in[k], out[k / 2]);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    size_t bytes;
    long long *cnt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *how = argc > 1 ? argv[1] : "create";
    int allocmem = !strcmp(how, "allocmem") || (!strcmp(how, "mixed") && rank % 2 == 0);
    flavor = !strcmp(how, "allocate") ? 1 : !strcmp(how, "dynamic") ? 2 : 0;
    slot = np <= 2 ? 4u << 20 : np <= 4 ? 1u << 20 : 256u << 10;
    bytes = (size_t)np * slot + NCOUNT * sizeof(long long);
    src = malloc(slot);
    chk = malloc(slot);
    base = calloc((size_t)np, sizeof *base);
    if (src == NULL || chk == NULL || base == NULL || np > NCOUNT - C_SUM)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (flavor == 1) {
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        memset(mem, 0, bytes);
        MPI_Win_unlock(rank, win);
    } else {
        if (allocmem) {
            if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &mem) != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            memset(mem, 0, bytes);
        } else if ((mem = calloc(1, bytes)) == NULL) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (flavor == 0) {
            MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Aint mine;
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_attach(win, mem, (MPI_Aint)bytes);
            MPI_Get_address(mem, &mine);
            MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
        }
    }
    cnt = (long long *)(mem + (size_t)np * slot);
    if (argc > 2 && !strncmp(argv[2], "maps=", 5)) {
        int want = !strcmp(argv[2] + 5, "np") ? np : atoi(argv[2] + 5), got = alloc_mem_maps();
        if (got != want)
            fail("MPI_Alloc_mem regions mapped here", 0, got, want);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* all toward rank 0: it polls, then computes */
    long long total = 0;
    for (int mode = 0; mode < 2; mode++) {
        long long one = 1, added = 0;
        if (rank == 0) {
            target_wait(mode, (long long)(mode + 1) * (np - 1));
        } else {
            added = origin_all(win, 0);
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, count_disp(0, C_DONE), 1, MPI_LONG_LONG,
                           MPI_SUM, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &added, rank == 0 ? &added : NULL, 1, MPI_LONG_LONG,
                   MPI_SUM, 0, MPI_COMM_WORLD); /* (rank 0 adds 0) */
        if (rank == 0) {
            long long sum = 0;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            for (int o = 1; o < np; o++)
                sum += cnt[C_SUM + o];
            MPI_Win_unlock(0, win);
            total += added;
            if (sum != total)
                fail("accumulated counters at the target", 0, sum, total);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* a ring: every rank works on the next while the previous works on it */
    {
        int next = (rank + 1) % np, prev = (rank + np - 1) % np;
        long long added = origin_all(win, next), theirs = 0;
        MPI_Sendrecv(&added, 1, MPI_LONG_LONG, next, 7, &theirs, 1, MPI_LONG_LONG, prev, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        /* (rank 0's counter of prev also holds the star phases' sums) */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        if (rank != 0 && cnt[C_SUM + prev] != theirs)
            fail("ring counter", 0, cnt[C_SUM + prev], theirs);
        MPI_Win_unlock(rank, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    derived(win, (rank + 1) % np);

    MPI_Barrier(MPI_COMM_WORLD);
    if (flavor == 2)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    if (allocmem)
        MPI_Free_mem(mem);
    else if (flavor != 1)
        free(mem);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errs == 0 ? " No Errors\n" : " Found %d errors\n", errs);
    free(src);
    free(chk);
    free(base);
    MPI_Finalize();
    return 0;
}
