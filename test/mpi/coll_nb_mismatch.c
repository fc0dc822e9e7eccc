/*
 * Nonblocking and persistent collectives whose ranks called different
 * collectives at the same point (an erroneous program): MPI_Wait on every
 * rank that waits returns an error of class MPI_ERR_OTHER whose message
 * names both calls, and no rank hangs (issue 26; on 5d96284 each pair
 * hangs in MPI_Wait, which watched for nothing). Pairs: MPI_Ibarrier
 * against MPI_Iallreduce of 1024 ints; MPI_Iallgather (waited for) against
 * a blocking MPI_Alltoall of the same sizes (through the node's block since
 * 3564f55, so a rank may get the out-of-step error instead: ci82);
 * MPI_Barrier_init against
 * MPI_Allreduce_init (MPI_Start, MPI_Wait); the first pair again completed
 * by MPI_Waitall beside a satisfied receive (the mismatch in the
 * collective's status, MPI_ERR_IN_STATUS; on 4bf6fcb MPI_Waitall hung,
 * only MPI_Wait watched); and, where the node's shared
 * block serves blocking barriers (shm channel), MPI_Ibarrier against a
 * blocking MPI_Barrier (by messages, both are the same messages and
 * succeed: that is checked on the sock channel). After each,
 * MPI_COMM_WORLD still works. Rank 0 makes the odd call; with args=split
 * the even ranks do. Under MPI_ERRORS_RETURN; the runner's timeout turns a
 * hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    int rc, n = 16;
    MPI_Request q;
    MPI_Comm c;

    if (!mismatch_init(&argc, &argv, 1024, 1))
        return 0;

    c = fresh();
    if (odd_one)
        OK(MPI_Ibarrier(c, &q));
    else
        OK(MPI_Iallreduce(a, b, 1024, MPI_INT, MPI_SUM, c, &q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect_mismatch(rc, "MPI_Ibarrier against MPI_Iallreduce", "MPI_Barrier", "MPI_Allreduce");
    still_works("MPI_Ibarrier against MPI_Iallreduce");

    /* the same pair completed by MPI_Waitall, beside a receive that is
     * satisfied: the mismatch is in the collective's status
     * (MPI_ERR_IN_STATUS), the receive's status is clean */
    c = fresh();
    {
        MPI_Request rq[2];
        MPI_Status sts[2];
        int token = mtest_rank, got = -1;
        OK(MPI_Irecv(&got, 1, MPI_INT, mtest_rank, 7, MPI_COMM_WORLD, &rq[0]));
        OK(MPI_Send(&token, 1, MPI_INT, mtest_rank, 7, MPI_COMM_WORLD));
        if (odd_one)
            OK(MPI_Ibarrier(c, &rq[1]));
        else
            OK(MPI_Iallreduce(a, b, 1024, MPI_INT, MPI_SUM, c, &rq[1]));
        rc = MPI_Waitall(2, rq, sts);
        CHECK(rc != MPI_SUCCESS, "MPI_Waitall of a mismatched MPI_Ibarrier returned MPI_SUCCESS");
        if (rc != MPI_SUCCESS) {
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_IN_STATUS, "MPI_Waitall: class %d, want MPI_ERR_IN_STATUS", cls);
            CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && got == mtest_rank,
                  "MPI_Waitall: the receive's status has error %d, got %d", sts[0].MPI_ERROR, got);
            expect_mismatch(sts[1].MPI_ERROR, "MPI_Ibarrier against MPI_Iallreduce in MPI_Waitall",
                            "MPI_Barrier", "MPI_Allreduce");
        }
    }
    still_works("MPI_Ibarrier against MPI_Iallreduce in MPI_Waitall");

    c = fresh();
    if (odd_one) {
        OK(MPI_Iallgather(a, n, MPI_INT, b, n, MPI_INT, c, &q));
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, c);
    }
    /* (16 ints a rank: the blocking MPI_Alltoall goes through the node's
     * block, so rank 0's notice may come first: out of step) */
    expect_block_pair(rc, "MPI_Iallgather against MPI_Alltoall", "MPI_Allgather", "MPI_Alltoall");
    still_works("MPI_Iallgather against MPI_Alltoall");

    c = fresh();
    if (odd_one)
        OK(MPI_Barrier_init(c, MPI_INFO_NULL, &q));
    else
        OK(MPI_Allreduce_init(a, b, 1024, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q));
    OK(MPI_Start(&q));
    rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    expect_mismatch(rc, "MPI_Barrier_init against MPI_Allreduce_init", "MPI_Barrier",
                    "MPI_Allreduce");
    MPI_Request_free(&q);
    still_works("MPI_Barrier_init against MPI_Allreduce_init");

    c = fresh();
    if (odd_one) {
        OK(MPI_Ibarrier(c, &q));
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Barrier(c);
    }
    if (block_used())
        expect_mismatch(rc, "MPI_Ibarrier against MPI_Barrier", "MPI_Barrier", "MPI_Barrier");
    else
        OK(rc);
    still_works("MPI_Ibarrier against MPI_Barrier");

    mismatch_finish();
    return 0;
}
