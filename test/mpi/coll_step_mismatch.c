/*
 * The communicator after a mismatch of a call on the node's shared block
 * against a collective by messages (an erroneous program: rank 0's
 * MPI_Barrier, the others' MPI_Allreduce of 1024 ints; with args=split
 * the even ranks make the odd call). The mismatch fails on every rank
 * (coll_block_mismatch); afterwards the ranks disagree on how many calls
 * the communicator has had (the block's ranks entered a call the others
 * never did, the others took a tag the block's did not). Canal then says
 * so: every later collective on that communicator (a barrier, a small and
 * a large allreduce, a nonblocking barrier) fails on every rank with class
 * MPI_ERR_OTHER and a message saying it is out of step, instead of hanging
 * or pairing with the wrong call (doc/design.md; on 1ef534a the barrier
 * after the mismatch hung, or returned on some ranks while others waited).
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
    char msg[MPI_MAX_ERROR_STRING];
    int cls = MPI_SUCCESS, len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
    }
    msg[len] = '\0';
    CHECK(cls == MPI_ERR_OTHER, "%s: rank %d got class %d, want MPI_ERR_OTHER (%s)", what,
          mtest_rank, cls, msg);
    if (cls != MPI_SUCCESS)
        CHECK(strstr(msg, "out of step") != NULL,
              "%s: rank %d's message does not say the communicator is out of step: %s", what,
              mtest_rank, msg);
    if (getenv("COLL_MISMATCH_VERBOSE"))
        printf("[%d] %s: %s\n", mtest_rank, what, msg);
}

int main(int argc, char **argv)
{
    int rc, one = 1, sum = 0;
    MPI_Comm c;
    MPI_Request r;

    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;

    c = fresh();
    rc = odd_one ? MPI_Barrier(c) : MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, c);
    expect_mismatch(rc, "MPI_Barrier against MPI_Allreduce", "MPI_Barrier", "MPI_Allreduce");

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
    } else {
        OK(MPI_Barrier(c));
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == mtest_size, "allreduce gave %d, want %d", sum, mtest_size);
    }
    still_works("the mismatch on a duplicate");

    mismatch_finish();
    return 0;
}
