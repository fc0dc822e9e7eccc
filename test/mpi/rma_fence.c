/*
 * Fence epochs: put, get and accumulate between all ranks, small (inline)
 * and large (separate data message) transfers, on a window of user memory
 * (MPI_Win_create: active messages) and on one of MPI_Win_allocate (direct
 * loads and stores when all ranks share a node). Also the assertions and
 * an operation after a MPI_MODE_NOSUCCEED fence (MPI_ERR_RMA_SYNC).
 */
#include "rma_util.h"

enum { SMALL = 16, LARGE = 40000 };

static void run(int flavor, int rank, int size)
{
    int *buf, *big;
    MPI_Win win;
    int n = size * SMALL + LARGE;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *get = malloc(sizeof(int) * LARGE);

    buf = rma_win_make(flavor, n, sizeof(int), &win);
    for (int i = 0; i < n; i++)
        buf[i] = -1;
    big = malloc(sizeof(int) * LARGE);
    for (int i = 0; i < LARGE; i++)
        big[i] = rank * 1000000 + i;

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    /* everyone writes its block of SMALL ints into every rank */
    int mine[SMALL];
    for (int i = 0; i < SMALL; i++)
        mine[i] = rank * 100 + i;
    for (int t = 0; t < size; t++)
        MPI_Put(mine, SMALL, MPI_INT, t, rank * SMALL, SMALL, MPI_INT, win);
    /* and a large block into its right neighbour */
    MPI_Put(big, LARGE, MPI_INT, right, size * SMALL, LARGE, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < SMALL; i++)
            CHECK(buf[r * SMALL + i] == r * 100 + i, "flavor %d: buf[%d] = %d, expected %d", flavor,
                  r * SMALL + i, buf[r * SMALL + i], r * 100 + i);
    for (int i = 0; i < LARGE; i++)
        if (buf[size * SMALL + i] != left * 1000000 + i) {
            CHECK(0, "flavor %d: large put: [%d] = %d, expected %d", flavor, i,
                  buf[size * SMALL + i], left * 1000000 + i);
            break;
        }
    /* read back: the left neighbour's large block (which came from its left) */
    MPI_Get(get, LARGE, MPI_INT, right, size * SMALL, LARGE, MPI_INT, win);
    int small_get[SMALL];
    MPI_Get(small_get, SMALL, MPI_INT, left, right * SMALL, SMALL, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < LARGE; i++)
        if (get[i] != rank * 1000000 + i) {
            CHECK(0, "flavor %d: large get: [%d] = %d, expected %d", flavor, i, get[i],
                  rank * 1000000 + i);
            break;
        }
    for (int i = 0; i < SMALL; i++)
        CHECK(small_get[i] == right * 100 + i, "flavor %d: small get [%d] = %d", flavor, i,
              small_get[i]);

    /* accumulate: every rank adds (rank+1) to slot 0..SMALL-1 of every rank */
    for (int i = 0; i < n; i++)
        buf[i] = 0;
    MPI_Win_fence(0, win);
    int add[SMALL];
    for (int i = 0; i < SMALL; i++)
        add[i] = rank + 1 + i;
    for (int t = 0; t < size; t++)
        MPI_Accumulate(add, SMALL, MPI_INT, t, 0, SMALL, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < SMALL; i++) {
        int expect = size * (size + 1) / 2 + size * i;
        CHECK(buf[i] == expect, "flavor %d: acc [%d] = %d, expected %d", flavor, i, buf[i], expect);
    }
    /* MAX accumulate of a large block into rank 0 */
    MPI_Accumulate(big, LARGE, MPI_INT, 0, SMALL, LARGE, MPI_INT, MPI_MAX, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        for (int i = 0; i < LARGE; i++)
            if (buf[SMALL + i] != (size - 1) * 1000000 + i) {
                CHECK(0, "flavor %d: max acc [%d] = %d", flavor, i, buf[SMALL + i]);
                break;
            }

    /* ordering across fences: what one epoch puts, the next epoch reads,
     * whatever the targets' progress (rotating partners, many rounds) */
    MPI_Win_fence(0, win);
    for (int round = 0; round < 30; round++) {
        int to = (rank + 1 + round) % size, from = (rank + size - 1 - round % size + size) % size;
        int v = round * 1000 + rank, got = -5;
        MPI_Put(&v, 1, MPI_INT, to, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        /* rank `from` wrote into slot 0 of (from + 1 + round) % size */
        int holder = (from + 1 + round) % size;
        MPI_Get(&got, 1, MPI_INT, holder, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        int writer = (holder + size - 1 - round % size + size) % size;
        CHECK(got == round * 1000 + writer, "flavor %d round %d: read %d from rank %d, expected %d",
              flavor, round, got, holder, round * 1000 + writer);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    /* no epoch is open now */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int err = MPI_Put(mine, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "put outside an epoch gave class %d",
          mtest_error_class(err));
    err = MPI_Win_fence(0x12345678, win);
    CHECK(mtest_error_class(err) == MPI_ERR_ASSERT, "bad assert gave class %d",
          mtest_error_class(err));

    rma_win_free(flavor, buf, &win);
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not reset the handle");
    free(big);
    free(get);
}

int main(int argc, char **argv)
{
    return rma_run_flavors(&argc, &argv, run);
}
