/*
 * General active target synchronization: each rank exposes its window to
 * its two ring neighbours (MPI_Win_post), accesses them (MPI_Win_start),
 * puts and accumulates, completes, and waits (alternately MPI_Win_wait and
 * a MPI_Win_test loop). Several rounds, both window kinds, MPI_MODE_NOCHECK
 * in the last round (after a barrier that makes it true), then the epoch
 * errors.
 */
#include "rma_util.h"

enum { ROUNDS = 6 };

static void run(int flavor, int rank, int size)
{
    int *mem, err;
    MPI_Win win;
    MPI_Group world, nbrs;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int ranks[2] = {left, right};
    int nn = left == right ? 1 : 2;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, nn, ranks, &nbrs);
    mem = rma_win_make(flavor, 4, sizeof(int), &win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < ROUNDS; round++) {
        int nocheck = round == ROUNDS - 1 ? MPI_MODE_NOCHECK : 0;
        int v = round * 100 + rank;
        if (nocheck)
            MPI_Barrier(MPI_COMM_WORLD); /* both posts happen before any start returns... */
        MPI_Win_post(nbrs, nocheck, win);
        if (nocheck)
            MPI_Barrier(MPI_COMM_WORLD); /* ...as NOCHECK promises */
        MPI_Win_start(nbrs, nocheck, win);
        /* to the right: slot 0; to the left: slot 1; both: add 1 to slot 2 */
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Put(&v, 1, MPI_INT, left, 1, 1, MPI_INT, win);
        for (int k = 0; k < nn; k++) {
            int one = 1;
            MPI_Accumulate(&one, 1, MPI_INT, ranks[k], 2, 1, MPI_INT, MPI_SUM, win);
        }
        MPI_Win_complete(win);
        if (round % 2 == 0) {
            MPI_Win_wait(win);
        } else {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        }
        CHECK(mem[0] == round * 100 + left, "flavor %d round %d: slot 0 = %d, expected %d", flavor,
              round, mem[0], round * 100 + left);
        CHECK(mem[1] == round * 100 + right, "flavor %d round %d: slot 1 = %d, expected %d", flavor,
              round, mem[1], round * 100 + right);
        CHECK(mem[2] == nn * (round + 1), "flavor %d round %d: slot 2 = %d, expected %d", flavor,
              round, mem[2], nn * (round + 1));
    }

    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    err = MPI_Win_complete(win);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "complete without start: class %d",
          mtest_error_class(err));
    err = MPI_Win_wait(win);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "wait without post: class %d",
          mtest_error_class(err));
    err = MPI_Win_start(MPI_GROUP_NULL, 0, win);
    CHECK(mtest_error_class(err) == MPI_ERR_GROUP, "start with MPI_GROUP_NULL: class %d",
          mtest_error_class(err));
    err = MPI_Win_post(nbrs, MPI_MODE_NOSUCCEED, win);
    CHECK(mtest_error_class(err) == MPI_ERR_ASSERT, "post with NOSUCCEED: class %d",
          mtest_error_class(err));
    /* an operation toward a rank outside the access group */
    if (size > 3) {
        int v = 0, far = (rank + 2) % size;
        MPI_Win_post(nbrs, 0, win);
        MPI_Win_start(nbrs, 0, win);
        err = MPI_Put(&v, 1, MPI_INT, far, 3, 1, MPI_INT, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "put outside the group: class %d",
              mtest_error_class(err));
        err = MPI_Win_fence(0, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_SYNC, "fence inside PSCW: class %d",
              mtest_error_class(err));
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
    rma_win_free(flavor, mem, &win);
    MPI_Group_free(&nbrs);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    return rma_run_flavors(&argc, &argv, run);
}
