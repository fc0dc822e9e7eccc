/* OSU's one-sided loops in active-target epochs, every byte checked: each
 * rank is the origin of rank + 1 and the target of rank - 1 (a ring; at 1
 * rank itself), and in every epoch it puts a pattern, gets one that the
 * target wrote just before the epoch opened, accumulates into an integer
 * array, fetch-and-adds a counter and compares-and-swaps a word, at sizes
 * from 1 byte to 1 MiB. sync fence: MPI_Win_fence before and after;
 * sync pscw: MPI_Win_post/start ... complete/wait, where the target clears
 * the put's region and writes the get's just before it posts, after a
 * pause on some rounds: an operation that reached the target before its
 * MPI_Win_post (MPI 4.0 section 12.5.2: an access epoch may start before
 * the matching exposure epoch, but the operations may not touch the
 * target's memory until it posts) would be overwritten or read stale
 * bytes. Canal moves these operations on one node by single copy or
 * through the polling target's mailbox (created windows) or with loads and
 * stores (allocated ones, MPI_Alloc_mem memory); the checks are the same
 * for every path and window.
 * args: create (the default: MPI_Win_create over posix_memalign memory, as
 * OSU's -w create), allocmem, allocate or dynamic, then fence (default) or
 * pscw. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXS = 1 << 20, ACCMAX = 65536 };
/* window layout: put region, get region, accumulate ints, counter, cas word */
enum { OFF_PUT = 0, OFF_GET = MAXS, OFF_ACC = 2 * MAXS, OFF_CNT = 2 * MAXS + ACCMAX };
enum { WINBYTES = OFF_CNT + 64 };

static int rank, np, errs, flavor_dyn;
static MPI_Aint *base;

static void fail(const char *what, size_t size, int rep, long long got, long long want)
{
    if (errs++ < 10)
        fprintf(stderr, "rank %d: %s (size %zu, round %d): got %lld, want %lld\n", rank, what,
                size, rep, got, want);
}

static unsigned char pat(int who, size_t size, int rep, size_t k, int salt)
{
    return (unsigned char)(who * 29 + size * 7 + (size_t)rep * 11 + k * 5 + salt);
}

static MPI_Aint disp(int t, size_t off)
{
    return (flavor_dyn ? base[t] : 0) + (MPI_Aint)off;
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "create";
    int pscw = argc > 2 && strcmp(argv[2], "pscw") == 0;
    char *mem = NULL, *src, *dst;
    int *ones;
    MPI_Win win;
    MPI_Group world, tgrp, ogrp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int t = (rank + 1) % np, o = (rank + np - 1) % np;

    if (strcmp(kind, "allocate") == 0) {
        MPI_Win_allocate(WINBYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else if (strcmp(kind, "allocmem") == 0) {
        MPI_Alloc_mem(WINBYTES, MPI_INFO_NULL, &mem);
        MPI_Win_create(mem, WINBYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else if (strcmp(kind, "dynamic") == 0) {
        flavor_dyn = 1;
        if (posix_memalign((void **)&mem, 4096, WINBYTES) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, WINBYTES);
    } else {
        if (posix_memalign((void **)&mem, 4096, WINBYTES) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Win_create(mem, WINBYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    base = malloc(sizeof *base * (size_t)np);
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
    src = malloc(MAXS);
    dst = malloc(MAXS);
    ones = malloc(ACCMAX);
    for (int i = 0; i < ACCMAX / (int)sizeof(int); i++)
        ones[i] = 1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &t, &tgrp);
    MPI_Group_incl(world, 1, &o, &ogrp);

    for (size_t size = 1; size <= MAXS; size *= 8) {
        int reps = size >= 262144 ? 3 : 12;
        size_t nacc = (size < ACCMAX ? size : ACCMAX) / sizeof(int);
        if (nacc == 0)
            nacc = 1;
        memset(mem + OFF_ACC, 0, ACCMAX);
        memset(mem + OFF_CNT, 0, 64);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int rep = 0; rep < reps; rep++) {
            long long one = 1, old = -1, cmp = rep, nw = rep + 1, cold = -1;
            /* the target's side of the epoch's opening: clear what will be
             * put, write what will be got */
            if (pscw && (rank + rep) % 2 == 1)
                pause_us(3000); /* its origin's operations come before the post */
            memset(mem + OFF_PUT, 0, size);
            for (size_t k = 0; k < size; k++)
                mem[OFF_GET + k] = (char)pat(rank, size, rep, k, 3);
            for (size_t k = 0; k < size; k++)
                src[k] = (char)pat(rank, size, rep, k, 1);
            memset(dst, 0, size);
            if (pscw) {
                MPI_Win_post(ogrp, 0, win);
                MPI_Win_start(tgrp, 0, win);
            } else {
                MPI_Win_fence(0, win);
            }
            MPI_Put(src, (int)size, MPI_BYTE, t, disp(t, OFF_PUT), (int)size, MPI_BYTE, win);
            MPI_Get(dst, (int)size, MPI_BYTE, t, disp(t, OFF_GET), (int)size, MPI_BYTE, win);
            MPI_Accumulate(ones, (int)nacc, MPI_INT, t, disp(t, OFF_ACC), (int)nacc, MPI_INT,
                           MPI_SUM, win);
            MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, t, disp(t, OFF_CNT), MPI_SUM, win);
            MPI_Compare_and_swap(&nw, &cmp, &cold, MPI_LONG_LONG, t, disp(t, OFF_CNT + 8), win);
            if (pscw) {
                MPI_Win_complete(win);
                MPI_Win_wait(win);
            } else {
                MPI_Win_fence(0, win);
            }
            /* origin's results */
            for (size_t k = 0; k < size; k++)
                if ((unsigned char)dst[k] != pat(t, size, rep, k, 3)) {
                    fail("got byte", size, rep, (unsigned char)dst[k], pat(t, size, rep, k, 3));
                    break;
                }
            if (old != rep)
                fail("fetch_and_op old value", size, rep, old, rep);
            if (cold != rep)
                fail("compare_and_swap old value", size, rep, cold, rep);
            /* target's memory */
            for (size_t k = 0; k < size; k++)
                if ((unsigned char)mem[OFF_PUT + k] != pat(o, size, rep, k, 1)) {
                    fail("put byte", size, rep, (unsigned char)mem[OFF_PUT + k],
                         pat(o, size, rep, k, 1));
                    break;
                }
            for (size_t k = 0; k < nacc; k++)
                if (((int *)(mem + OFF_ACC))[k] != rep + 1) {
                    fail("accumulated int", size, rep, ((int *)(mem + OFF_ACC))[k], rep + 1);
                    break;
                }
            if (((long long *)(mem + OFF_CNT))[0] != rep + 1)
                fail("counter", size, rep, ((long long *)(mem + OFF_CNT))[0], rep + 1);
            if (((long long *)(mem + OFF_CNT))[1] != rep + 1)
                fail("swapped word", size, rep, ((long long *)(mem + OFF_CNT))[1], rep + 1);
            /* every check of this round before anybody prepares the next */
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }

    MPI_Group_free(&tgrp);
    MPI_Group_free(&ogrp);
    MPI_Group_free(&world);
    if (flavor_dyn)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    if (strcmp(kind, "allocmem") == 0)
        MPI_Free_mem(mem);
    else if (strcmp(kind, "allocate") != 0)
        free(mem);
    free(base);
    free(src);
    free(dst);
    free(ones);
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
