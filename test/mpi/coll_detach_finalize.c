/*
 * A send left by an abandoned collective whose receiver is already in
 * MPI_Finalize. Rank 0 calls MPI_Bcast of 1 MiB (rendezvous) on a
 * duplicate of MPI_COMM_WORLD, the others MPI_Gather of one int to rank 0
 * there (they only send a few bytes, and return), and then MPI_Finalize
 * without freeing the duplicate, so nothing takes rank 0's message there.
 * Rank 0 finds the mismatch and leaves its send (adi_send_detach), which
 * waits for its receiver to answer the withdrawal of the buffer address its
 * RTS offered (PKT_WITHDRAWN): a rank in MPI_Finalize's fence never does.
 * On 9cb842b rank 0 waited for ever there (and rank 1 in the fence for
 * rank 0); now it goes on after CANAL_DETACH_WAIT_MS (the testlist sets
 * 500) with a warning, reports the mismatch and finalizes. 2 ranks or
 * more; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

enum { N = 1 << 20 };

int main(int argc, char **argv)
{
    MPI_Comm c;
    int v = 1, *all, rc;
    char *buf;

    mtest_init(&argc, &argv);
    if (mtest_size < 2) {
        mtest_skipped("needs 2 ranks");
        return mtest_finish();
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    buf = calloc(N, 1);
    all = calloc((size_t)mtest_size, sizeof(int));
    if (mtest_rank == 0) {
        rc = MPI_Bcast(buf, N, MPI_BYTE, 0, c);
        expect_mismatch(rc, "1 MiB MPI_Bcast against MPI_Gather", "MPI_Bcast", "MPI_Gather");
    } else {
        MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, c); /* (may return either way) */
    }
    free(buf);
    free(all);
    /* (c is not freed: nothing takes the mismatched messages before the fence) */
    return mtest_finish();
}
