/* Known gap (fix18, not in the testlist: it hangs): an erroneous program's
 * notice of a new communicator's call that reaches a rank before its first
 * collective there is taken unheeded by the fresh drain (which takes a
 * freed communicator's notes: coll_stale_notice), and that rank waits in
 * the mismatched call for ever. 3 ranks: on a dup, ranks 0 and 1 call
 * MPI_Bcast from rank 2, rank 2 MPI_Reduce to itself (every rank only
 * receives: the pokes after a second show it); rank 0 sleeps 6 s first, so
 * ranks 1 and 2 found the mismatch and told it before its first collective
 * on the dup. On 10966eb ranks 1 and 2 return MPI_ERR_OTHER and rank 0
 * never returns (with a sleep of 2.5 s its call fails too: the notice came
 * after its fresh drain). */
#include "mtest.h"

#include <unistd.h>

enum { N = 1024 };

int main(int argc, char **argv)
{
    int buf[N] = {0}, out[N], rc, cls = MPI_SUCCESS;
    MPI_Comm b;

    mtest_init(&argc, &argv);
    if (mtest_size != 3) {
        CHECK(0, "needs 3 ranks (got %d)", mtest_size);
        return mtest_finish();
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
    if (mtest_rank == 0)
        sleep(6);
    if (mtest_rank < 2)
        rc = MPI_Bcast(buf, N, MPI_INT, 2, b);
    else
        rc = MPI_Reduce(buf, out, N, MPI_INT, MPI_SUM, 2, b);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "rank %d: the mismatched call: class %d", mtest_rank, cls);
    OK(MPI_Comm_free(&b));
    return mtest_finish();
}
