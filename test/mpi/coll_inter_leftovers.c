/*
 * Messages of a mismatched collective on an intercommunicator are taken
 * when it is freed. The two halves of MPI_COMM_WORLD make an
 * intercommunicator, and both groups' rank 0 pass MPI_ROOT to an MPI_Bcast
 * of a few bytes (the others MPI_PROC_NULL): each root sends to the other
 * group's rank 0 and nothing receives, a pair of calls that only send,
 * which returns without an error (as on an intracommunicator). When the
 * intercommunicator is freed, each group's rank 0 takes the other root's
 * message and warns, naming the call (the testlist checks the warning's
 * text). On 3d25126 coll_watch_leftovers left an intercommunicator alone:
 * the messages stayed queued for good (no warning; the context never
 * reused, the eager credit never returned). Afterwards a correct MPI_Bcast
 * runs on a new intercommunicator. 2 ranks or more.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    int lr, v[4] = {1, 2, 3, 4}, color;

    mtest_init(&argc, &argv);
    if (mtest_size < 2) {
        mtest_skipped("needs 2 ranks");
        return mtest_finish();
    }
    color = mtest_rank < mtest_size / 2 ? 0 : 1;
    inter = halves_inter(&local);
    MPI_Comm_rank(local, &lr);
    /* both groups' rank 0 as the root: erroneous, send-only */
    OK(MPI_Bcast(v, 4, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
    /* a correct one afterwards: group 0's rank 0 the root */
    inter = halves_inter(&local);
    MPI_Comm_rank(local, &lr);
    if (color == 0) {
        v[0] = 42;
        OK(MPI_Bcast(v, 4, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    } else {
        v[0] = 0;
        OK(MPI_Bcast(v, 4, MPI_INT, 0, inter));
        CHECK(v[0] == 42, "rank %d: MPI_Bcast gave %d, want 42", mtest_rank, v[0]);
    }
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
    return mtest_finish();
}
