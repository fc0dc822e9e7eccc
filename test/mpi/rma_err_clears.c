/*
 * A user's error handler that clears the code, on a window and on
 * MPI_COMM_WORLD, and one-sided calls whose bad argument rma/ finds (the
 * datatypes, the op, the counts, the target range, the lock rank, the
 * asserts and groups of the synchronization calls, the arguments of window
 * creation, a bad handle to MPI_Win_free and MPI_Win_get_name). Each call
 * must run the handler once with MPICH's class, return the handler's
 * MPI_SUCCESS and stop there. Before, rma/'s checks returned the cleared code
 * as success and the call went on: MPI_Put with MPI_DATATYPE_NULL sized the
 * operation with no datatype (SIGSEGV), an MPI_Put past the window's end
 * wrote there, MPI_Win_lock of rank size+3 wrote past the peer table,
 * MPI_Win_start and MPI_Win_post with MPI_GROUP_NULL opened an epoch,
 * MPI_Win_create with size -1 made a window, MPI_Win_free(MPI_WIN_NULL)
 * read a NULL window. Every rank passes the same bad arguments (except the
 * fence below), so no rank waits for another. Afterwards the window still
 * works. Checked on MPI_Win_create and MPI_Win_allocate windows. The
 * handlers and EXPECT are err_clear_expect.h's, which also check which
 * handler ran: the window's (EXPECT_WIN) for calls on a window,
 * MPI_COMM_WORLD's for window creation and a bad window handle.
 */
#include "rma_util.h"

#include "err_clear_expect.h"

enum { N = 16 };

static void run(int flavor, int rank, int size)
{
    MPI_Win win, nwin = MPI_WIN_NULL;
    MPI_Errhandler eh;
    int *mem, buf[N], res[N], i, before;
    int right = (rank + 1) % size;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -5;

    mem = rma_win_make(flavor, N, sizeof(int), &win);
    MPI_Win_create_errhandler(win_clear, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    for (i = 0; i < N; i++) {
        buf[i] = 100 + i;
        res[i] = -1;
    }

    /* operations: issue_check_args / issue_check_range (nothing may move) */
    OK(MPI_Win_fence(0, win));
    EXPECT_WIN(MPI_Put(buf, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Put(buf, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Put(buf, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT_WIN(MPI_Put(buf, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Put(buf, 4, MPI_INT, right, N - 2, 4, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_WIN(MPI_Get(res, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Get(res, 4, MPI_INT, right, N - 1, 4, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_WIN(MPI_Accumulate(buf, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT_WIN(MPI_Accumulate(buf, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, MPI_SUM, win),
               MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT,
                                  MPI_SUM, win),
               MPI_ERR_TYPE);
    EXPECT_WIN(MPI_Fetch_and_op(buf, res, MPI_INT, right, 0, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT_WIN(MPI_Compare_and_swap(buf, NULL, res, MPI_INT, right, 0, win), MPI_ERR_ARG);
    EXPECT_WIN(MPI_Compare_and_swap(buf, buf, res, MPI_FLOAT, right, 0, win), MPI_ERR_TYPE);
    OK(MPI_Win_fence(0, win));
    for (i = 0; i < N; i++)
        CHECK(res[i] == -1, "flavor %d: a failed get or fetch wrote res[%d] = %d", flavor, i,
              res[i]);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (i = 0; i < N; i++)
        CHECK(mem[i] == 0, "flavor %d: a failed put or accumulate wrote mem[%d] = %d", flavor, i,
              mem[i]);
    OK(MPI_Win_unlock(rank, win));
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* (the puts below must not land before every check) */

    /* synchronization: check_rank, check_assert, mark_group (no epoch opens) */
    EXPECT_WIN(MPI_Win_lock(MPI_LOCK_SHARED, size + 3, 0, win), MPI_ERR_RANK);
    EXPECT_WIN(MPI_Win_lock(MPI_LOCK_SHARED, right, 0x7fff0000, win), MPI_ERR_ASSERT);
    EXPECT_WIN(MPI_Win_unlock(size + 3, win), MPI_ERR_RANK);
    EXPECT_WIN(MPI_Win_flush(-2, win), MPI_ERR_RANK);
    EXPECT_WIN(MPI_Win_lock_all(0x7fff0000, win), MPI_ERR_ASSERT);
    EXPECT_WIN(MPI_Win_start(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
    EXPECT_WIN(MPI_Win_post(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
    EXPECT_WIN(MPI_Win_start(MPI_GROUP_EMPTY, 0x7fff0000, win), MPI_ERR_ASSERT);
    if (rank == 0) /* alone: had it gone on, it would wait for the others */
        EXPECT_WIN(MPI_Win_fence(0x7fff0000, win), MPI_ERR_ASSERT);
    /* none of them left an epoch open: a lock_all epoch and a fence work */
    before = ncalls;
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Put(buf, 1, MPI_INT, right, rank == 0 ? 1 : 0, 1, MPI_INT, win));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_fence(0, win));
    CHECK(ncalls == before, "flavor %d: a bad call left an epoch open (%d more errors)", flavor,
          ncalls - before);

    /* window objects: MPI_COMM_WORLD's handler */
    EXPECT(MPI_Win_create(buf, -1, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &nwin),
           MPI_COMM_WORLD, MPI_ERR_SIZE);
    CHECK(nwin == MPI_WIN_NULL, "flavor %d: MPI_Win_create with size -1 made a window", flavor);
    EXPECT(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &nwin), MPI_COMM_WORLD,
           MPI_ERR_DISP);
    CHECK(nwin == MPI_WIN_NULL, "flavor %d: MPI_Win_create with disp_unit 0 made a window", flavor);
    EXPECT(MPI_Win_free(&nwin), MPI_COMM_WORLD, MPI_ERR_WIN);
    EXPECT(MPI_Win_get_name(MPI_WIN_NULL, name, &len), MPI_COMM_WORLD, MPI_ERR_WIN);

    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eh = clear_install();
    MPI_Errhandler_free(&eh);
    run(0, rank, size);
    run(1, rank, size);
    return mtest_finish();
}
