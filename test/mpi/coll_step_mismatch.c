/*
 * The communicator after a mismatch of a call on the node's shared block
 * against a collective by messages (an erroneous program: rank 0's
 * MPI_Barrier, the others' MPI_Allreduce of 1024 ints; with args=split
 * the even ranks make the odd call). The mismatch fails on every rank
 * (coll_block_mismatch); afterwards the ranks disagree on how many calls
 * the communicator has had (the block's ranks entered a call the others
 * never did, the others took a tag the block's did not). Canal then says
 * so: every later collective on that communicator (a barrier, a small and
 * a large allreduce, a nonblocking barrier, the restart of a persistent
 * barrier made before the mismatch, an MPI_Gatherv and an MPI_Scatterv in
 * which every count is 0, whose ranks step the call sequence without a
 * message) fails on every rank with class
 * MPI_ERR_OTHER and a message saying it is out of step, instead of hanging
 * or pairing with the wrong call (doc/design.md; on 1ef534a the barrier
 * after the mismatch hung, or returned on some ranks while others waited;
 * on 048c67a the persistent barrier's MPI_Start and MPI_Wait succeeded;
 * the empty gatherv's and scatterv's short path must look too; so must a
 * non-root's MPI_Gather(v) and MPI_Scatter(v) of one int, whose direct
 * run the communicator remembers from the same calls made before the
 * mismatch: coll10's remembered leaf, not forgotten at the mismatch, took
 * the call's tag and waited for a root that had failed).
 * MPI_Comm_free of it works, and MPI_COMM_WORLD still works. Where no block
 * is used (sock, CANAL_COLL_SHM=0) both calls go by messages, the ranks
 * stay in step, and the later collectives must succeed. Under
 * MPI_ERRORS_RETURN; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

/* rc is the out-of-step error of a collective on a communicator left
 * behind by a mismatch. */
static void expect_out_of_step(int rc, const char *what)
{
    expect_mismatch(rc, what, "out of step", NULL);
}

/* MPI_Gather, MPI_Gatherv, MPI_Scatter and MPI_Scatterv of one int a rank
 * from root 0 on c: each succeeds with the data checked, or (out_of_step)
 * fails so. */
static void rooted_calls(MPI_Comm c, int out_of_step)
{
    int size = mtest_size, rank = mtest_rank, mine = 100 + rank, got = -1;
    int all[64], ones[64], displs[64];
    const char *what[4] = {"MPI_Gather of 1 int", "MPI_Gatherv of 1 int", "MPI_Scatter of 1 int",
                           "MPI_Scatterv of 1 int"};

    for (int i = 0; i < size; i++) {
        all[i] = 100 + i;
        ones[i] = 1;
        displs[i] = i;
    }
    for (int k = 0; k < 4; k++) {
        int rc, out[64];
        char msg[96];
        for (int i = 0; i < size; i++)
            out[i] = -1;
        got = -1;
        if (k == 0)
            rc = MPI_Gather(&mine, 1, MPI_INT, out, 1, MPI_INT, 0, c);
        else if (k == 1)
            rc = MPI_Gatherv(&mine, 1, MPI_INT, out, ones, displs, MPI_INT, 0, c);
        else if (k == 2)
            rc = MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, 0, c);
        else
            rc = MPI_Scatterv(all, ones, displs, MPI_INT, &got, 1, MPI_INT, 0, c);
        if (out_of_step) {
            snprintf(msg, sizeof msg, "%s after the mismatch", what[k]);
            expect_out_of_step(rc, msg);
            continue;
        }
        OK(rc);
        for (int i = 0; k < 2 && rank == 0 && i < size; i++)
            CHECK(out[i] == 100 + i, "%s: block %d is %d, want %d", what[k], i, out[i], 100 + i);
        if (k >= 2)
            CHECK(got == 100 + rank, "%s: got %d, want %d", what[k], got, 100 + rank);
    }
}

int main(int argc, char **argv)
{
    int rc, one = 1, sum = 0, zeros[64] = {0}, sb = 0, rb = 0;
    MPI_Comm c;
    MPI_Request r, p;

    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;

    c = fresh();
    /* (a persistent barrier made and run before the mismatch) */
    OK(MPI_Barrier_init(c, MPI_INFO_NULL, &p));
    OK(MPI_Start(&p));
    OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
    rooted_calls(c, 0);
    rc = odd_one ? MPI_Barrier(c) : MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, c);
    expect_block_pair(rc, "MPI_Barrier against MPI_Allreduce", "MPI_Barrier", "MPI_Allreduce");

    if (block_used()) {
        expect_out_of_step(MPI_Barrier(c), "MPI_Barrier after the mismatch");
        expect_out_of_step(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c),
                           "MPI_Allreduce of 1 int after the mismatch");
        expect_out_of_step(MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, c),
                           "MPI_Allreduce of 1024 ints after the mismatch");
        rc = MPI_Ibarrier(c, &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect_out_of_step(rc, "MPI_Ibarrier after the mismatch");
        rc = MPI_Start(&p);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&p, MPI_STATUS_IGNORE);
        expect_out_of_step(rc, "MPI_Start of a persistent barrier made before the mismatch");
        expect_out_of_step(MPI_Gatherv(&sb, 0, MPI_INT, &rb, zeros, zeros, MPI_INT, 0, c),
                           "MPI_Gatherv of 0 ints after the mismatch");
        expect_out_of_step(MPI_Scatterv(&sb, zeros, zeros, MPI_INT, &rb, 0, MPI_INT, 0, c),
                           "MPI_Scatterv of 0 ints after the mismatch");
        rooted_calls(c, 1);
    } else {
        rooted_calls(c, 0);
        OK(MPI_Gatherv(&sb, 0, MPI_INT, &rb, zeros, zeros, MPI_INT, 0, c));
        OK(MPI_Scatterv(&sb, zeros, zeros, MPI_INT, &rb, 0, MPI_INT, 0, c));
        OK(MPI_Barrier(c));
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == mtest_size, "allreduce gave %d, want %d", sum, mtest_size);
    }
    OK(MPI_Request_free(&p));
    still_works("the mismatch on a duplicate");

    mismatch_finish();
    return 0;
}
