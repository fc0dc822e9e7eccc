/*
 * Nonblocking collectives whose ranks called different collectives (an
 * erroneous program: MPI_Ibarrier on one rank, MPI_Iallreduce of 1024 ints
 * on the others), completed by the calls that may return before all their
 * requests are done: MPI_Waitany, MPI_Waitsome, and loops of MPI_Test,
 * MPI_Testall, MPI_Testany and MPI_Testsome. Every rank gets the mismatch
 * (class MPI_ERR_OTHER, a message naming both calls; in the status and
 * MPI_ERR_IN_STATUS for Waitsome, Testall and Testsome) instead of hanging
 * (issue 26; on 48a4a8c each of them hangs: only MPI_Wait and MPI_Waitall
 * watched). Each pair runs on a communicator of its own; MPI_COMM_WORLD
 * still works after each. Rank 0 makes the odd call; with args=split the
 * even ranks do. Under MPI_ERRORS_RETURN; the runner's timeout turns a
 * hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

static void start(MPI_Comm c, MPI_Request *q)
{
    if (odd_one)
        OK(MPI_Ibarrier(c, q));
    else
        OK(MPI_Iallreduce(a, b, 1024, MPI_INT, MPI_SUM, c, q));
}

/* The collective in q[0] on a communicator of its own, q[1] empty. */
static void start_one(MPI_Request q[2])
{
    start(fresh(), &q[0]);
    q[1] = MPI_REQUEST_NULL;
}

/* rc of a call that reports through the statuses: MPI_ERR_IN_STATUS, and
 * the collective's status has the mismatch. */
static void expect_in_status(int rc, const MPI_Status *st, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS, "%s: rank %d got class %d, want MPI_ERR_IN_STATUS", what,
          mtest_rank, cls);
    if (cls == MPI_ERR_IN_STATUS)
        expect_mismatch(st->MPI_ERROR, what, "MPI_Barrier", "MPI_Allreduce");
}

int main(int argc, char **argv)
{
    MPI_Request q[2];
    MPI_Status st[2];
    int rc, idx = -1, flag = 0, out = 0, ind[2];

    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;

    start_one(q);
    rc = MPI_Waitany(2, q, &idx, &st[0]);
    expect_mismatch(rc, "MPI_Waitany", "MPI_Barrier", "MPI_Allreduce");
    CHECK(idx == 0, "MPI_Waitany: index %d, want 0", idx);
    still_works("MPI_Waitany");

    start_one(q);
    rc = MPI_Waitsome(2, q, &out, ind, st);
    CHECK(out == 1 && ind[0] == 0, "MPI_Waitsome: outcount %d, index %d", out, ind[0]);
    expect_in_status(rc, &st[0], "MPI_Waitsome");
    still_works("MPI_Waitsome");

    start(fresh(), &q[0]);
    do
        rc = MPI_Test(&q[0], &flag, &st[0]);
    while (rc == MPI_SUCCESS && !flag);
    expect_mismatch(rc, "a loop of MPI_Test", "MPI_Barrier", "MPI_Allreduce");
    CHECK(flag, "MPI_Test failed with flag 0");
    still_works("a loop of MPI_Test");

    /* beside a receive that is satisfied: its status is clean */
    start(fresh(), &q[1]);
    {
        int token = mtest_rank, got = -1;
        OK(MPI_Irecv(&got, 1, MPI_INT, mtest_rank, 7, MPI_COMM_WORLD, &q[0]));
        OK(MPI_Send(&token, 1, MPI_INT, mtest_rank, 7, MPI_COMM_WORLD));
        do
            rc = MPI_Testall(2, q, &flag, st);
        while (rc == MPI_SUCCESS && !flag);
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS && got == mtest_rank,
              "MPI_Testall: the receive's status has error %d, got %d", st[0].MPI_ERROR, got);
        expect_in_status(rc, &st[1], "a loop of MPI_Testall");
    }
    still_works("a loop of MPI_Testall");

    start_one(q);
    do
        rc = MPI_Testany(2, q, &idx, &flag, &st[0]);
    while (rc == MPI_SUCCESS && !flag);
    expect_mismatch(rc, "a loop of MPI_Testany", "MPI_Barrier", "MPI_Allreduce");
    CHECK(idx == 0, "MPI_Testany: index %d, want 0", idx);
    still_works("a loop of MPI_Testany");

    start_one(q);
    do
        rc = MPI_Testsome(2, q, &out, ind, st);
    while (rc == MPI_SUCCESS && out == 0);
    CHECK(out == 1 && ind[0] == 0, "MPI_Testsome: outcount %d, index %d", out, ind[0]);
    expect_in_status(rc, &st[0], "a loop of MPI_Testsome");
    still_works("a loop of MPI_Testsome");

    mismatch_finish();
    return 0;
}
