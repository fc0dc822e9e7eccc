/*
 * Passive target: exclusive locks as a mutex around get-modify-put (the
 * count must come out exact), shared locks with accumulates, lock_all with
 * put/flush/get, flush_local, request-based operations, locking oneself
 * for local load/store, MPI_MODE_NOCHECK; on MPI_Win_create (active
 * messages) and MPI_Win_allocate (direct) windows. Then the epoch errors.
 */
#include "rma_util.h"

enum { ITERS = 20 };

static void run(int flavor, int rank, int size)
{
    long *mem;
    MPI_Win win;
    int err;
    const int n = 4 + size;

    mem = rma_win_make(flavor, n, sizeof(long), &win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. exclusive lock as a mutex: counter at slot 0 of rank 0 */
    for (int it = 0; it < ITERS; it++) {
        long v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(mem[0] == (long)size * ITERS, "flavor %d: counter %ld, expected %ld", flavor, mem[0],
              (long)size * ITERS);
        MPI_Win_unlock(0, win);
    }

    /* 2. shared locks + accumulate into slot 1 of every rank */
    for (int t = 0; t < size; t++) {
        long one = rank + 1;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Accumulate(&one, 1, MPI_LONG, t, 1, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_unlock(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(mem[1] == (long)size * (size + 1) / 2, "flavor %d: shared acc %ld", flavor, mem[1]);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. lock_all, put my rank into slot 4+rank of everybody, flush, read back */
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < size; t++) {
        long v = 1000 + rank;
        MPI_Put(&v, 1, MPI_LONG, t, 4 + rank, 1, MPI_LONG, win);
    }
    MPI_Win_flush_all(win);
    for (int t = 0; t < size; t++) {
        long v = -1;
        MPI_Request req;
        MPI_Rget(&v, 1, MPI_LONG, t, 4 + rank, 1, MPI_LONG, win, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(v == 1000 + rank, "flavor %d: rget from %d gave %ld", flavor, t, v);
    }
    {
        long v = 7, w2 = 0;
        MPI_Request reqs[2];
        int right = (rank + 1) % size;
        MPI_Rput(&v, 1, MPI_LONG, right, 2, 1, MPI_LONG, win, &reqs[0]);
        MPI_Raccumulate(&v, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_SUM, win, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MPI_Win_flush_local(right, win);
        MPI_Win_flush(right, win);
        MPI_Get(&w2, 1, MPI_LONG, right, 2, 1, MPI_LONG, win);
        MPI_Win_flush_local_all(win);
        CHECK(w2 == 7, "flavor %d: put/get after flush: %ld", flavor, w2);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int r = 0; r < size; r++)
        CHECK(mem[4 + r] == 1000 + r, "flavor %d: lock_all put from %d: %ld", flavor, r,
              mem[4 + r]);
    CHECK(mem[3] == 7, "flavor %d: raccumulate gave %ld", flavor, mem[3]);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4. NOCHECK (no conflicting locks by construction: each writes its own slot) */
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    {
        long v = 50 + rank;
        MPI_Put(&v, 1, MPI_LONG, (rank + 1) % size, 2, 1, MPI_LONG, win);
        MPI_Win_flush((rank + 1) % size, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, MPI_MODE_NOCHECK, win);
    CHECK(mem[2] == 50 + (rank + size - 1) % size, "flavor %d: nocheck put %ld", flavor, mem[2]);
    MPI_Win_unlock(rank, win);

    /* 5. epoch errors */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    err = MPI_Win_unlock(0, win);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "unlock without lock: class %d",
          mtest_error_class(err));
    err = MPI_Win_lock(12345, 0, 0, win);
    CHECK(mtest_error_class(err) == MPI_ERR_LOCKTYPE, "bad lock type: class %d",
          mtest_error_class(err));
    err = MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "bad rank: class %d", mtest_error_class(err));
    err = MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOPUT, win);
    CHECK(mtest_error_class(err) == MPI_ERR_ASSERT, "bad assert: class %d", mtest_error_class(err));
    err = MPI_Win_flush(0, win);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "flush without lock: class %d",
          mtest_error_class(err));
    {
        long v = 0;
        MPI_Request req = MPI_REQUEST_NULL;
        err = MPI_Rput(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, &req);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "rput outside lock: class %d",
              mtest_error_class(err));
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        err = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "double lock: class %d",
              mtest_error_class(err));
        err = MPI_Put(&v, 1, MPI_LONG, 0, n, 1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE, "put past the end: class %d",
              mtest_error_class(err));
        err = MPI_Put(&v, 2, MPI_LONG, 0, n - 1, 2, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE, "put across the end: class %d",
              mtest_error_class(err));
        err = MPI_Put(&v, 1, MPI_LONG, 0, -1, 1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_DISP, "negative disp: class %d",
              mtest_error_class(err));
        err = MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_INT, win);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "mismatched types: class %d",
              mtest_error_class(err));
        /* The same checks on MPI_Get, whose common case has a short path. */
        err = MPI_Get(&v, 1, MPI_LONG, 0, n, 1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE, "get past the end: class %d",
              mtest_error_class(err));
        err = MPI_Get_c(&v, (MPI_Count)1 << 61, MPI_LONG, 0, 0, (MPI_Count)1 << 61, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE || mtest_error_class(err) == MPI_ERR_COUNT,
              "get of 2^61 longs: class %d", mtest_error_class(err));
        err = MPI_Get(NULL, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_BUFFER, "get into NULL: class %d",
              mtest_error_class(err));
        err = MPI_Get(&v, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_DATATYPE_NULL, win);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "get of MPI_DATATYPE_NULL: class %d",
              mtest_error_class(err));
        err = MPI_Get(&v, -1, MPI_LONG, 0, 0, -1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_COUNT, "get of count -1: class %d",
              mtest_error_class(err));
        err = MPI_Get(&v, 1, MPI_LONG, size, 0, 1, MPI_LONG, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "get from rank %d: class %d", size,
              mtest_error_class(err));
        err = MPI_Get(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win);
        CHECK(err == MPI_SUCCESS, "get from MPI_PROC_NULL: class %d", mtest_error_class(err));
        if (size > 1) {
            err = MPI_Get(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
            CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "get from an unlocked rank: class %d",
                  mtest_error_class(err));
        }
        v = -7;
        err = MPI_Get(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        CHECK(err == MPI_SUCCESS, "get under the lock: class %d", mtest_error_class(err));
        err = MPI_Win_free(&win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "free inside a lock: class %d",
              mtest_error_class(err));
        MPI_Win_unlock(0, win);
        CHECK(v == 50 + (size - 1) % size, "get under the lock: value %ld", v);
    }
    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    return rma_run_flavors(&argc, &argv, run);
}
