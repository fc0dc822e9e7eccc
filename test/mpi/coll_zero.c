/*
 * Collectives that move no data (issue 26): every rank passes an empty type
 * signature (count 0, or a count of a zero-size type), so Canal returns at
 * once, and a nonblocking one hands back a request that is already
 * complete (doc/design.md, collectives). Checked here:
 *  - "at once": rank 0 starts each nonblocking empty collective (root 0 for
 *    the rooted ones) and tests it once while every other rank is still
 *    waiting for a message that rank 0 sends only afterwards: the first
 *    MPI_Test must say complete. Then the blocking forms, in the same way:
 *    rank 0 calls them all before the others enter (with Canal's rule they
 *    return; without it this hangs and the runner's timeout fails it). The
 *    others then make the same calls, and everybody waits.
 *  - results: an empty call leaves the buffers alone, also with MPI_IN_PLACE,
 *    a non-commutative user operation (never called) and ranks that spell
 *    the empty signature differently (count 0 of MPI_INT here, 3 of an
 *    empty contiguous type there);
 *  - what still communicates: a persistent empty collective, an
 *    intercommunicator's empty collectives, and a non-empty call right
 *    after empty ones;
 *  - argument errors are still reported with count 0 (root, op).
 */
#include "mtest.h"

#include <string.h>

enum { NCALLS = 12, SENTINEL = 0x5a5a5a5a };

static int op_calls;
static void never_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
    op_calls++;
}

/* The empty nonblocking collectives, root 0, into rq[NCALLS]. */
static void start_all(int *buf, int *zc, MPI_Op op, MPI_Request *rq)
{
    int k = 0;
    OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Ireduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iallreduce(buf, buf + 1, 0, MPI_INT, op, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iscan(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iexscan(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Igather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iscatter(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iallgather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Iallgatherv(buf, 0, MPI_INT, buf + 1, zc, zc, MPI_INT, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Ialltoall(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Ireduce_scatter(buf, buf + 1, zc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Ireduce_scatter_block(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
}

static void blocking_all(int *buf, int *zc, MPI_Op op)
{
    OK(MPI_Bcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Reduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    OK(MPI_Allreduce(buf, buf + 1, 0, MPI_INT, op, MPI_COMM_WORLD));
    OK(MPI_Scan(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Exscan(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Gather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Scatter(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Allgather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Allgatherv(buf, 0, MPI_INT, buf + 1, zc, zc, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoall(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter(buf, buf + 1, zc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter_block(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

static const char *const names[NCALLS] = {
    "MPI_Ibcast",     "MPI_Ireduce",    "MPI_Iallreduce",     "MPI_Iscan",
    "MPI_Iexscan",    "MPI_Igather",    "MPI_Iscatter",       "MPI_Iallgather",
    "MPI_Iallgatherv", "MPI_Ialltoall", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block"};

/* Rank 0 first, the others after its message (see the header). */
static void at_once(int *zc, MPI_Op op)
{
    int buf[2] = {SENTINEL, SENTINEL}, go = 1;
    MPI_Request rq[NCALLS];

    if (mtest_rank != 0)
        OK(MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    start_all(buf, zc, op, rq);
    if (mtest_rank == 0) {
        for (int i = 0; i < NCALLS; i++) {
            int flag = 0;
            OK(MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE));
            CHECK(flag, "%s with count 0 is not complete at its first MPI_Test", names[i]);
        }
        blocking_all(buf, zc, op);
        for (int r = 1; r < mtest_size; r++)
            OK(MPI_Send(&go, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
    } else {
        blocking_all(buf, zc, op);
    }
    OK(MPI_Waitall(NCALLS, rq, MPI_STATUSES_IGNORE));
    CHECK(buf[0] == SENTINEL && buf[1] == SENTINEL, "an empty collective wrote %#x %#x", buf[0],
          buf[1]);
}

/* Empty signatures spelled differently, in-place forms, a user op. */
static void results(int *zc, MPI_Op op)
{
    MPI_Datatype empty, t;
    int buf[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL}, n;
    MPI_Request rq;
    MPI_Status st;

    OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    OK(MPI_Type_commit(&empty));
    /* odd ranks: 3 elements of the empty type; even ranks: 0 MPI_INT */
    n = mtest_rank % 2 ? 3 : 0;
    t = mtest_rank % 2 ? empty : MPI_INT;
    for (int root = 0; root < mtest_size; root++) {
        OK(MPI_Bcast(buf, n, t, root, MPI_COMM_WORLD));
        OK(MPI_Gather(buf, n, t, buf + 2, n, t, root, MPI_COMM_WORLD));
        OK(MPI_Scatter(buf, n, t, buf + 2, n, t, root, MPI_COMM_WORLD));
        OK(MPI_Gather(mtest_rank == root ? MPI_IN_PLACE : (void *)buf, 0, MPI_INT, buf, 0, MPI_INT,
                      root, MPI_COMM_WORLD));
        OK(MPI_Scatter(buf, 0, MPI_INT, mtest_rank == root ? MPI_IN_PLACE : (void *)buf, 0, MPI_INT,
                       root, MPI_COMM_WORLD));
        OK(MPI_Reduce(mtest_rank == root ? MPI_IN_PLACE : (void *)buf, buf, 0, MPI_INT, op, root,
                      MPI_COMM_WORLD));
    }
    OK(MPI_Allgather(buf, n, t, buf + 2, n, t, MPI_COMM_WORLD));
    OK(MPI_Alltoall(buf, n, t, buf + 2, n, t, MPI_COMM_WORLD));
    OK(MPI_Allreduce(MPI_IN_PLACE, buf, 0, MPI_INT, op, MPI_COMM_WORLD));
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, buf, 0, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, buf, zc, MPI_INT, op, MPI_COMM_WORLD));
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 0, MPI_INT, op, MPI_COMM_WORLD));
    OK(MPI_Iallreduce(MPI_IN_PLACE, buf, 0, MPI_INT, op, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the request of an empty MPI_Iallreduce");
    OK(MPI_Ibcast(buf, n, t, 0, MPI_COMM_WORLD, &rq));
    OK(MPI_Request_free(&rq)); /* a complete request can be freed too */
    for (int i = 0; i < 4; i++)
        CHECK(buf[i] == SENTINEL, "empty collectives wrote buf[%d] = %#x", i, buf[i]);
    CHECK(op_calls == 0, "the user operation ran %d times on empty data", op_calls);
    OK(MPI_Type_free(&empty));
}

/* What still runs its schedule: persistent, intercommunicator; and a real
 * call right after empty ones. */
static void still_communicates(int *zc)
{
    int buf[2] = {SENTINEL, SENTINEL}, v = mtest_rank + 1, sum = 0;
    MPI_Request rq;

    OK(MPI_Bcast_init(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int i = 0; i < 3; i++) {
        OK(MPI_Start(&rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    OK(MPI_Request_free(&rq));
    OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == mtest_size * (mtest_size + 1) / 2, "allreduce after empty ones: %d", sum);

    if (mtest_size >= 2) {
        MPI_Comm half, inter;
        int color = mtest_rank < mtest_size / 2, lrank, remote = color ? mtest_size / 2 : 0;
        OK(MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, &half));
        OK(MPI_Comm_rank(half, &lrank));
        OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote, 9, &inter));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        /* group "color" broadcasts (nothing) from its rank 0 */
        OK(MPI_Bcast(buf, 0, MPI_INT, color ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter));
        OK(MPI_Allreduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, inter));
        OK(MPI_Iallgather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, inter, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        v = 1;
        OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter));
        {
            int rsize;
            OK(MPI_Comm_remote_size(inter, &rsize));
            CHECK(sum == rsize, "intercommunicator allreduce: %d, expected %d", sum, rsize);
        }
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&half));
    }
    (void)zc;
    CHECK(buf[0] == SENTINEL && buf[1] == SENTINEL, "an empty collective wrote %#x %#x", buf[0],
          buf[1]);
}

static void errors(void)
{
    int buf[1];
    MPI_Request rq;
    EXPECT_CLASS(MPI_Bcast(buf, 0, MPI_INT, mtest_size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                 "MPI_Bcast(count 0, root = size)");
    EXPECT_CLASS(MPI_Ibcast(buf, 0, MPI_INT, -5, MPI_COMM_WORLD, &rq), MPI_ERR_ROOT,
                 "MPI_Ibcast(count 0, root -5)");
    EXPECT_CLASS(MPI_Allreduce(buf, buf, 0, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_Allreduce(count 0, MPI_OP_NULL)");
    EXPECT_CLASS(MPI_Iallreduce(buf, buf, 0, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &rq),
                 MPI_ERR_OP, "MPI_Iallreduce(count 0, MPI_OP_NULL)");
}

int main(int argc, char **argv)
{
    MPI_Op op;
    int *zc;

    mtest_init(&argc, &argv);
    zc = calloc((size_t)mtest_size, sizeof(int));
    OK(MPI_Op_create(never_op, 0, &op)); /* non-commutative */
    at_once(zc, op);
    results(zc, op);
    still_communicates(zc);
    errors();
    OK(MPI_Op_free(&op));
    free(zc);
    return mtest_finish();
}
