/* OSU's bandwidth loops (osu_put_bw, osu_get_bw, osu_put_bibw) at the
 * sizes around Canal's single-copy queue limits, every byte checked: in
 * each epoch an origin issues a window of W puts (or gets, or both
 * interleaved) of one size from consecutive slices of its buffer to
 * consecutive slices of its target's window memory, then closes the epoch
 * the way OSU does: MPI_Win_lock/unlock, MPI_Win_flush or
 * MPI_Win_flush_local inside one lock, MPI_Win_lock_all/unlock_all,
 * MPI_Win_fence, or MPI_Win_post/start/complete/wait. Every rank is the
 * origin of rank + 1 and the target of rank - 1, all at once (put_bibw's
 * shape at 2 ranks). After a local flush the origin overwrites its buffer
 * at once: a put that had not read it yet would land the new bytes. More
 * than 64 operations per epoch at the small sizes fill the queue. The
 * target checks its memory after the epoch (and a barrier), the origin
 * its gets. On one node Canal queues puts and gets of a created or dynamic
 * window up to 1 MiB -- those above 4 KiB by reference, moved by one
 * process_vm_writev/readv per run at the flush -- and does larger ones at
 * the call; the checks are the same for every path and window.
 * args: create (default; posix_memalign'ed memory, as OSU's -w create),
 * allocmem (MPI_Alloc_mem), allocate (MPI_Win_allocate) or dynamic. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {1, 8, 2048, 4095, 4096, 4097, 8192, 16384, 65536, 1 << 20, (1 << 20) + 1};
enum { S_LOCK, S_FLUSH, S_FLUSH_LOCAL, S_LOCK_ALL, S_FENCE, S_PSCW, S_N };
static const char *sync_name[S_N] = {"lock", "flush", "flush_local", "lock_all", "fence", "pscw"};
enum { K_PUT, K_GET, K_BOTH, K_N };
static const char *kind_name[K_N] = {"put", "get", "put+get"};

static int rank, np, errs, dyn, t, o;
static MPI_Aint *base;
static size_t region; /* bytes of a window of operations: the put region holds
                       * two (one per round of a flush epoch), then the get region */
static char *mem, *src, *dst;
static MPI_Group tgrp, ogrp;

/* W operations per epoch at this size (OSU's window is 64). */
static size_t window_of(size_t size)
{
    return size <= 16384 ? 70 : size <= 65536 ? 20 : 3;
}

static unsigned char pat(int who, size_t size, int round, size_t k)
{
    return (unsigned char)(who * 31 + size * 7 + (size_t)round * 13 + k * 5 + (k >> 12));
}

static MPI_Aint disp(size_t off)
{
    return (dyn ? base[t] : 0) + (MPI_Aint)off;
}

static void fail(const char *what, int s, int kind, size_t size, size_t k, int got, int want)
{
    if (errs++ < 10)
        fprintf(stderr, "rank %d: %s, %s %s size %zu, byte %zu: got %d, want %d\n", rank, what,
                sync_name[s], kind_name[kind], size, k, got, want);
}

static void open_epoch(int s, MPI_Win win)
{
    switch (s) {
    case S_LOCK:
    case S_FLUSH:
    case S_FLUSH_LOCAL:
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        break;
    case S_LOCK_ALL:
        MPI_Win_lock_all(0, win);
        break;
    case S_FENCE:
        MPI_Win_fence(0, win);
        break;
    default:
        MPI_Win_post(ogrp, 0, win);
        MPI_Win_start(tgrp, 0, win);
        break;
    }
}

static void close_epoch(int s, MPI_Win win)
{
    switch (s) {
    case S_LOCK:
    case S_FLUSH:
    case S_FLUSH_LOCAL:
        MPI_Win_unlock(t, win);
        break;
    case S_LOCK_ALL:
        MPI_Win_unlock_all(win);
        break;
    case S_FENCE:
        MPI_Win_fence(0, win);
        break;
    default:
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        break;
    }
}

/* One epoch (two rounds for the flush syncs, inside one lock as OSU's). */
static void epoch(MPI_Win win, int s, int kind, size_t size, int round)
{
    size_t w = window_of(size), n = w * size;
    int rounds = s == S_FLUSH || s == S_FLUSH_LOCAL ? 2 : 1;

    /* the target side: clear the put region, write the get region; the
     * origin side: its pattern in src, dst cleared */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(mem, 0, 2 * region);
    for (size_t k = 0; k < n; k++)
        mem[2 * region + k] = (char)pat(rank, size, round, k);
    MPI_Win_unlock(rank, win);
    memset(dst, 0, n);
    MPI_Barrier(MPI_COMM_WORLD);
    open_epoch(s, win);
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < n; k++)
            src[k] = (char)pat(rank, size, round + r + 1, k);
        for (size_t j = 0; j < w; j++) {
            if (kind != K_GET)
                MPI_Put(src + j * size, (int)size, MPI_BYTE, t, disp(r * region + j * size),
                        (int)size, MPI_BYTE, win); /* (a round of its own: no conflict) */
            if (kind != K_PUT)
                MPI_Get(dst + j * size, (int)size, MPI_BYTE, t, disp(2 * region + j * size),
                        (int)size, MPI_BYTE, win);
        }
        if (s == S_FLUSH)
            MPI_Win_flush(t, win);
        else if (s == S_FLUSH_LOCAL)
            MPI_Win_flush_local(t, win);
        else
            break;
        if (kind != K_PUT) /* the gets are complete at either flush */
            for (size_t k = 0; k < n; k++)
                if ((unsigned char)dst[k] != pat(t, size, round, k)) {
                    fail("got", s, kind, size, k, (unsigned char)dst[k], pat(t, size, round, k));
                    break;
                }
        memset(src, 0x5a, n); /* the origin buffer is ours again */
        memset(dst, 0, n);
    }
    close_epoch(s, win);
    if (rounds == 1 && kind != K_PUT)
        for (size_t k = 0; k < n; k++)
            if ((unsigned char)dst[k] != pat(t, size, round, k)) {
                fail("got", s, kind, size, k, (unsigned char)dst[k], pat(t, size, round, k));
                break;
            }
    MPI_Barrier(MPI_COMM_WORLD);
    if (kind != K_GET) {
        /* what my origin put in each round */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int r = 0; r < rounds; r++) {
            const char *p = mem + (size_t)r * region;
            for (size_t k = 0; k < n; k++)
                if ((unsigned char)p[k] != pat(o, size, round + r + 1, k)) {
                    fail("put", s, kind, size, k, (unsigned char)p[k],
                         pat(o, size, round + r + 1, k));
                    break;
                }
        }
        MPI_Win_unlock(rank, win);
    }
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "create";
    size_t bytes;
    MPI_Group world;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    t = (rank + 1) % np;
    o = (rank + np - 1) % np;
    region = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (window_of(sizes[i]) * sizes[i] > region)
            region = window_of(sizes[i]) * sizes[i];
    bytes = 3 * region;
    if (posix_memalign((void **)&src, 4096, region) != 0 ||
        posix_memalign((void **)&dst, 4096, region) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (strcmp(how, "allocate") == 0) {
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else if (strcmp(how, "allocmem") == 0) {
        MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &mem);
        MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        if (posix_memalign((void **)&mem, 4096, bytes) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        dyn = strcmp(how, "dynamic") == 0;
        if (dyn) {
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_attach(win, mem, (MPI_Aint)bytes);
        } else {
            MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        }
    }
    base = malloc(sizeof *base * (size_t)np);
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &t, &tgrp);
    MPI_Group_incl(world, 1, &o, &ogrp);

    int round = 0;
    for (int s = 0; s < S_N; s++)
        for (int kind = 0; kind < K_N; kind++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++, round += 3)
                epoch(win, s, kind, sizes[i], round);

    MPI_Barrier(MPI_COMM_WORLD);
    if (dyn)
        MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    if (strcmp(how, "allocmem") == 0)
        MPI_Free_mem(mem);
    else if (strcmp(how, "allocate") != 0)
        free(mem);
    MPI_Group_free(&tgrp);
    MPI_Group_free(&ogrp);
    MPI_Group_free(&world);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errs == 0 ? " No Errors\n" : " Found %d errors\n", errs);
    free(src);
    free(dst);
    free(base);
    MPI_Finalize();
    return 0;
}
