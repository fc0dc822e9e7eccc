/*
 * Dynamic windows as users write them, on every path Canal has for them
 * (direct through CMA on one node; active messages over sock or with
 * CANAL_RMA_CMA=0): every rank attaches three regions -- heap, stack and
 * MPI_Alloc_mem memory -- and publishes their addresses; every rank then
 * puts, gets, accumulates, fetch-and-ops, compare-and-swaps and
 * get-accumulates into every other rank's regions in each synchronization
 * (lock, lock_all, flush, flush_local, fence, PSCW), and every element is
 * checked at the target or the origin. Then each rank detaches its heap
 * region and attaches another: operations reach the new one, and an
 * access to the old address, to memory never attached, or across the end
 * of an attached region gives MPI_ERR_RMA_RANGE (at the call or at the
 * synchronization that completes it) and leaves that memory untouched.
 * With the argument "direct" (one node, CMA allowed) the window must not
 * start the RMA progress thread: it needs no help from the target.
 */
#include "mtest.h"

#include <stdint.h>

enum { SLOT = 24, R = 5, NREG = 3 };
enum { M_LOCK, M_LOCK_ALL, M_FLUSH, M_FLUSH_LOCAL, M_FENCE, M_PSCW, M_N };
static const char *mname[M_N] = {"lock", "lock_all", "flush", "flush_local", "fence", "pscw"};

static int rank, size;
static MPI_Win win;
static MPI_Group others;
static MPI_Aint *addr; /* [rank * NREG + k]: region k of rank */

static void open_epoch(int m)
{
    if (m == M_FENCE)
        MPI_Win_fence(0, win);
    else if (m == M_PSCW) {
        MPI_Win_post(others, 0, win);
        MPI_Win_start(others, 0, win);
    } else if (m != M_LOCK)
        MPI_Win_lock_all(0, win);
}

static void close_epoch(int m)
{
    if (m == M_FENCE)
        MPI_Win_fence(0, win);
    else if (m == M_PSCW) {
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    } else if (m != M_LOCK)
        MPI_Win_unlock_all(win);
}

static void open_target(int m, int t)
{
    if (m == M_LOCK)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
}

/* After the operations toward t: those of passive modes complete here. */
static void close_target(int m, int t)
{
    if (m == M_LOCK)
        MPI_Win_unlock(t, win);
    else if (m == M_FLUSH || m == M_LOCK_ALL)
        MPI_Win_flush(t, win);
    else if (m == M_FLUSH_LOCAL)
        MPI_Win_flush_local(t, win);
}

static int val(int m, int o, int t, int k, int i)
{
    return ((m * 16 + o) * 16 + t) * 1000 + k * 100 + i + 1;
}

/* One round in mode m over the regions reg[k] (SLOT ints per rank). */
static void round_mode(int m, int *reg[NREG])
{
    int src[SLOT], got[NREG][64][SLOT], fetched[64][R], old[64][SLOT], res[64];

    /* 1. puts: origin o writes its slot of every region of every target */
    MPI_Barrier(MPI_COMM_WORLD);
    open_epoch(m);
    for (int t = 0; t < size; t++) {
        if (t == rank)
            continue;
        open_target(m, t);
        for (int k = 0; k < NREG; k++) {
            for (int i = 0; i < SLOT; i++)
                src[i] = val(m, rank, t, k, i);
            MPI_Put(src, SLOT, MPI_INT, t, addr[t * NREG + k] + (MPI_Aint)(rank * SLOT * 4), SLOT,
                    MPI_INT, win);
            if (m == M_FLUSH_LOCAL) /* the origin buffer is free again after flush_local */
                MPI_Win_flush_local(t, win);
        }
        close_target(m, t);
    }
    close_epoch(m);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NREG; k++)
        for (int o = 0; o < size; o++)
            for (int i = 0; o != rank && i < SLOT; i++)
                CHECK(reg[k][o * SLOT + i] == val(m, o, rank, k, i),
                      "%s put region %d slot %d [%d] = %d, want %d", mname[m], k, o, i,
                      reg[k][o * SLOT + i], val(m, o, rank, k, i));

    /* 2. gets: each target writes a pattern, every origin reads all of it */
    for (int k = 0; k < NREG; k++)
        for (int i = 0; i < size * SLOT; i++)
            reg[k][i] = val(m, 15, rank, k, i);
    MPI_Barrier(MPI_COMM_WORLD);
    open_epoch(m);
    for (int t = 0; t < size; t++) {
        if (t == rank)
            continue;
        open_target(m, t);
        for (int k = 0; k < NREG; k++)
            MPI_Get(got[k][t], SLOT, MPI_INT, t, addr[t * NREG + k] + (MPI_Aint)(t * SLOT * 4),
                    SLOT, MPI_INT, win);
        close_target(m, t);
    }
    close_epoch(m);
    for (int t = 0; t < size; t++)
        for (int k = 0; t != rank && k < NREG; k++)
            for (int i = 0; i < SLOT; i++)
                CHECK(got[k][t][i] == val(m, 15, t, k, t * SLOT + i),
                      "%s get rank %d region %d [%d] = %d, want %d", mname[m], t, k, i,
                      got[k][t][i], val(m, 15, t, k, t * SLOT + i));

    /* 3. accumulates from everyone into the same elements of region k,
     * fetch-and-op on element 0, compare-and-swap on the origin's own
     * element, get_accumulate on the origin's slot of the last region */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NREG; k++)
        memset(reg[k], 0, sizeof(int) * (size_t)(size * SLOT));
    MPI_Barrier(MPI_COMM_WORLD);
    open_epoch(m);
    for (int t = 0; t < size; t++) {
        if (t == rank)
            continue;
        open_target(m, t);
        int one[SLOT], me = rank + 1, zero = 0, add[SLOT];
        for (int i = 0; i < SLOT; i++) {
            one[i] = rank + 1;
            add[i] = 1000 + i;
        }
        for (int r = 0; r < R; r++) {
            MPI_Accumulate(one, SLOT, MPI_INT, t, addr[t * NREG + 0], SLOT, MPI_INT, MPI_SUM, win);
            MPI_Accumulate(one, 1, MPI_INT, t, addr[t * NREG + 1] + 4 * (SLOT - 1), 1, MPI_INT,
                           MPI_SUM, win);
            MPI_Fetch_and_op(&me, &fetched[t][r], MPI_INT, t, addr[t * NREG + 1], MPI_SUM, win);
            if (m != M_FENCE && m != M_PSCW)
                MPI_Win_flush(t, win);
        }
        MPI_Compare_and_swap(&me, &zero, &res[t], MPI_INT, t,
                             addr[t * NREG + 1] + 4 * (SLOT + rank), win);
        MPI_Get_accumulate(add, SLOT, MPI_INT, old[t], SLOT, MPI_INT, t,
                           addr[t * NREG + 2] + (MPI_Aint)(rank * SLOT * 4), SLOT, MPI_INT,
                           MPI_SUM, win);
        close_target(m, t);
    }
    close_epoch(m);
    MPI_Barrier(MPI_COMM_WORLD);
    int total = 0;
    for (int o = 0; o < size; o++)
        total += o == rank ? 0 : (o + 1) * R;
    for (int i = 0; i < SLOT; i++)
        CHECK(reg[0][i] == total, "%s accumulate [%d] = %d, want %d", mname[m], i, reg[0][i],
              total);
    CHECK(reg[1][SLOT - 1] == total, "%s one-element accumulate = %d, want %d", mname[m],
          reg[1][SLOT - 1], total);
    CHECK(reg[1][0] == total, "%s fetch_and_op total %d, want %d", mname[m], reg[1][0], total);
    for (int o = 0; o < size; o++) {
        if (o == rank)
            continue;
        CHECK(reg[1][SLOT + o] == o + 1, "%s compare_and_swap of rank %d left %d", mname[m], o,
              reg[1][SLOT + o]);
        for (int i = 0; i < SLOT; i++)
            CHECK(reg[2][o * SLOT + i] == 1000 + i, "%s get_accumulate rank %d [%d] = %d",
                  mname[m], o, i, reg[2][o * SLOT + i]);
    }
    for (int t = 0; t < size; t++) {
        if (t == rank)
            continue;
        CHECK(res[t] == 0, "%s compare_and_swap at rank %d fetched %d", mname[m], t, res[t]);
        for (int i = 0; i < SLOT; i++)
            CHECK(old[t][i] == 0, "%s get_accumulate fetched [%d] = %d", mname[m], i, old[t][i]);
        int tt = 0; /* the total at t */
        for (int o = 0; o < size; o++)
            tt += o == t ? 0 : (o + 1) * R;
        for (int r = 0; r < R; r++) /* the values this origin saw grow, within the total */
            CHECK(fetched[t][r] >= 0 && fetched[t][r] + rank + 1 <= tt &&
                      (r == 0 || fetched[t][r] > fetched[t][r - 1]),
                  "%s fetch_and_op %d fetched %d", mname[m], r, fetched[t][r]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* An access at a, n ints at rank t, that must be refused: the class of
 * the first error of the call and the synchronization. */
static int refused(int kind, int t, MPI_Aint a, int n)
{
    int buf[64] = {0}, res[64], e1, e2;

    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    if (kind == 0)
        e1 = MPI_Put(buf, n, MPI_INT, t, a, n, MPI_INT, win);
    else if (kind == 1)
        e1 = MPI_Get(res, n, MPI_INT, t, a, n, MPI_INT, win);
    else if (kind == 2)
        e1 = MPI_Accumulate(buf, n, MPI_INT, t, a, n, MPI_INT, MPI_SUM, win);
    else
        e1 = MPI_Fetch_and_op(buf, res, MPI_INT, t, a, MPI_SUM, win);
    e2 = MPI_Win_unlock(t, win);
    return mtest_error_class(e1 != MPI_SUCCESS ? e1 : e2);
}

int main(int argc, char **argv)
{
    int stackreg[64 * SLOT];
    int *heap, *amem, *heap2, *guard, *reg[NREG];
    size_t len;
    MPI_Group world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) {
        CHECK(size <= 64, "at most 64 ranks");
        return mtest_finish();
    }
    len = sizeof(int) * (size_t)(size * SLOT);
    heap = calloc(1, len);
    heap2 = calloc(1, len);
    guard = malloc(len + 64);
    MPI_Alloc_mem((MPI_Aint)len, MPI_INFO_NULL, &amem);
    memset(amem, 0, len);
    memset(stackreg, 0, sizeof stackreg);
    for (size_t i = 0; i < len / 4 + 16; i++)
        guard[i] = 0x5a5a5a5a;
    reg[0] = heap;
    reg[1] = stackreg;
    reg[2] = amem;
    addr = malloc(sizeof *addr * (size_t)(size * NREG));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &rank, &others);

    int t0 = mtest_count_threads();
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (argc > 1 && strcmp(argv[1], "direct") == 0 && size > 1)
        CHECK(mtest_count_threads() == t0,
              "a dynamic window on one node started %d thread(s): it is not direct",
              mtest_count_threads() - t0);
    for (int k = 0; k < NREG; k++)
        MPI_Win_attach(win, reg[k], (MPI_Aint)len);
    MPI_Aint mine[NREG];
    for (int k = 0; k < NREG; k++)
        MPI_Get_address(reg[k], &mine[k]);
    MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD);

    for (int m = 0; m < M_N; m++)
        round_mode(m, reg);

    /* detach the heap region, attach another in its place */
    MPI_Win_detach(win, heap);
    MPI_Win_attach(win, heap2, (MPI_Aint)len);
    MPI_Aint old_heap = addr[rank * NREG]; /* (of this rank: the others' old are in oldaddr) */
    MPI_Aint *oldaddr = malloc(sizeof *oldaddr * (size_t)size), g;
    MPI_Allgather(&old_heap, 1, MPI_AINT, oldaddr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Get_address(heap2, &mine[0]);
    MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD);
    reg[0] = heap2;
    memset(heap, 0x33, len); /* the old region keeps these bytes */
    round_mode(M_LOCK, reg);
    round_mode(M_FENCE, reg);

    /* refused accesses leave the memory alone */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Get_address(guard, &g);
    MPI_Aint *gaddr = malloc(sizeof *gaddr * (size_t)size);
    MPI_Allgather(&g, 1, MPI_AINT, gaddr, 1, MPI_AINT, MPI_COMM_WORLD);
    memset(stackreg, 0, sizeof stackreg);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < size; t++) {
        int c;
        if (t == rank)
            continue;
        for (int kind = 0; kind < 4; kind++) {
            c = refused(kind, t, oldaddr[t], SLOT);
            CHECK(c == MPI_ERR_RMA_RANGE, "kind %d into rank %d's detached region: class %d",
                  kind, t, c);
            c = refused(kind, t, gaddr[t] + 64, SLOT);
            CHECK(c == MPI_ERR_RMA_RANGE, "kind %d into rank %d's unattached memory: class %d",
                  kind, t, c);
        }
        /* the last element of the stack region and one beyond it */
        c = refused(0, t, addr[t * NREG + 1] + (MPI_Aint)len - 4, 2);
        CHECK(c == MPI_ERR_RMA_RANGE, "put across the end of rank %d's region: class %d", t, c);
        /* the window still works */
        int x = 4242 + rank, back = 0;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        OK(MPI_Put(&x, 1, MPI_INT, t, addr[t * NREG + 1] + 4 * rank, 1, MPI_INT, win));
        OK(MPI_Win_flush(t, win));
        OK(MPI_Get(&back, 1, MPI_INT, t, addr[t * NREG + 1] + 4 * rank, 1, MPI_INT, win));
        OK(MPI_Win_unlock(t, win));
        CHECK(back == x, "put/get after the refused ones: %d, want %d", back, x);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < len / 4 + 16; i++)
        CHECK(guard[i] == 0x5a5a5a5a, "unattached memory [%zu] changed: %#x", i, guard[i]);
    for (size_t i = 0; i < len / 4; i++)
        CHECK(heap[i] == 0x33333333, "detached region [%zu] changed: %#x", i, heap[i]);
    for (int o = 0; o < size; o++)
        CHECK(o == rank || stackreg[o] == 4242 + o, "put of rank %d after the refused: %d", o,
              stackreg[o]);
    for (int i = size; i < size * SLOT; i++)
        CHECK(stackreg[i] == 0, "stack region [%d] = %d after the refused operations", i,
              stackreg[i]);

    MPI_Win_detach(win, heap2);
    MPI_Win_detach(win, stackreg);
    MPI_Win_detach(win, amem);
    MPI_Win_free(&win);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    MPI_Free_mem(amem);
    free(heap);
    free(heap2);
    free(guard);
    free(addr);
    free(oldaddr);
    free(gaddr);
    return mtest_finish();
}
