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
 *  - argument errors are still reported with count 0 (root, op);
 *  - the completed requests through every completion call: MPI_Wait/Test
 *    and their any/some/all forms (mixed with a real receive and a real
 *    nonblocking collective, the same empty request handle twice in one
 *    array), MPI_Request_get_status (leaves the request), MPI_Request_free,
 *    statuses as an empty one, and 20,000 outstanding at once. Canal hands
 *    every empty nonblocking collective one shared pre-completed request
 *    (doc/design.md); this part passed with the per-call requests before
 *    it too: it checks that the shared one behaves like them.
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
    /* (the short path of empty bcasts and allreduces leaves these to the
     * checks, in MPICH 4.0.2's order: an empty broadcast does not look at
     * its datatype; a predefined op is checked against the type first) */
    {
        MPI_Datatype raw;
        OK(MPI_Type_contiguous(2, MPI_INT, &raw)); /* not committed */
        OK(MPI_Ibcast(buf, 0, raw, 0, MPI_COMM_WORLD, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        EXPECT_CLASS(MPI_Allreduce(buf, buf, 0, raw, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
                     "MPI_Allreduce(count 0, an uncommitted type)");
        OK(MPI_Type_free(&raw));
    }
    OK(MPI_Bcast(buf, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    EXPECT_CLASS(MPI_Iallreduce(buf, buf, 0, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD, &rq),
                 MPI_ERR_OP, "MPI_Iallreduce(count 0, MPI_BAND on MPI_DOUBLE)");
    EXPECT_CLASS(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
                 "MPI_Ibcast(count 0, request NULL)");
}

/* The status of a completed empty collective: no source, no tag, 0 bytes. */
static void check_empty_status(const MPI_Status *st, const char *what)
{
    int n = -1, cancelled = 1;
    OK(MPI_Get_count(st, MPI_INT, &n));
    OK(MPI_Test_cancelled(st, &cancelled));
    CHECK(n == 0 && !cancelled, "%s: count %d, cancelled %d", what, n, cancelled);
}

static void completion_calls(void)
{
    enum { MANY = 20000 };
    int buf[2] = {SENTINEL, SENTINEL}, v = mtest_rank, got = -1, sum = -1, flag, idx, out;
    int indices[4];
    MPI_Request rq[4], *many;
    MPI_Status st[4];

    /* MPI_Test, MPI_Wait with a status */
    OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    flag = 0;
    st[0].MPI_ERROR = -7;
    OK(MPI_Test(&rq[0], &flag, &st[0]));
    CHECK(flag && rq[0] == MPI_REQUEST_NULL, "MPI_Test: flag %d, request not freed", flag);
    check_empty_status(&st[0], "MPI_Test");
    OK(MPI_Iallreduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Wait(&rq[0], &st[0]));
    check_empty_status(&st[0], "MPI_Wait");

    /* MPI_Request_get_status leaves it; then MPI_Wait frees it */
    OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    flag = 0;
    OK(MPI_Request_get_status(rq[0], &flag, &st[0]));
    CHECK(flag && rq[0] != MPI_REQUEST_NULL, "MPI_Request_get_status: flag %d", flag);
    check_empty_status(&st[0], "MPI_Request_get_status");
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(rq[0] == MPI_REQUEST_NULL, "MPI_Wait after MPI_Request_get_status left the request");

    /* an array: a real receive from the left, two empty collectives, a
     * real allreduce; Waitall with statuses */
    OK(MPI_Irecv(&got, 1, MPI_INT, (mtest_rank + mtest_size - 1) % mtest_size, 3, MPI_COMM_WORLD,
                 &rq[0]));
    OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
    OK(MPI_Ireduce(buf, buf + 1, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq[3]));
    OK(MPI_Send(&v, 1, MPI_INT, (mtest_rank + 1) % mtest_size, 3, MPI_COMM_WORLD));
    OK(MPI_Waitall(4, rq, st));
    CHECK(got == (mtest_rank + mtest_size - 1) % mtest_size, "Waitall: received %d", got);
    CHECK(sum == mtest_size * (mtest_size - 1) / 2, "Waitall: allreduce %d", sum);
    check_empty_status(&st[1], "MPI_Waitall [1]");
    check_empty_status(&st[3], "MPI_Waitall [3]");
    for (int i = 0; i < 4; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "MPI_Waitall left request %d", i);

    /* Waitany / Testany / Waitsome / Testsome / Testall */
    OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    rq[1] = MPI_REQUEST_NULL;
    OK(MPI_Waitany(2, rq, &idx, &st[0]));
    CHECK(idx == 0 && rq[0] == MPI_REQUEST_NULL, "MPI_Waitany: index %d", idx);
    OK(MPI_Iscan(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    rq[0] = MPI_REQUEST_NULL;
    flag = 0;
    OK(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && idx == 1 && rq[1] == MPI_REQUEST_NULL, "MPI_Testany: flag %d index %d", flag,
          idx);
    for (int i = 0; i < 3; i++)
        OK(MPI_Iallgather(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD, &rq[i]));
    OK(MPI_Waitsome(3, rq, &out, indices, MPI_STATUSES_IGNORE));
    CHECK(out == 3, "MPI_Waitsome: %d of 3 empty requests complete", out);
    for (int i = 0; i < 3; i++)
        OK(MPI_Ialltoall(buf, 0, MPI_INT, buf + 1, 0, MPI_INT, MPI_COMM_WORLD, &rq[i]));
    OK(MPI_Testsome(3, rq, &out, indices, st));
    CHECK(out == 3, "MPI_Testsome: %d of 3 empty requests complete", out);
    for (int i = 0; i < 3; i++)
        OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[i]));
    rq[3] = rq[1]; /* (the same completed handle twice: harmless for a shared one) */
    if (rq[3] != rq[1] || rq[1] != rq[0])
        rq[3] = MPI_REQUEST_NULL; /* distinct requests: a duplicate would be erroneous */
    flag = 0;
    OK(MPI_Testall(4, rq, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "MPI_Testall: empty requests not complete");
    for (int i = 0; i < 4; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "MPI_Testall left request %d", i);

    /* MPI_Request_free; many outstanding at once */
    OK(MPI_Ireduce_scatter_block(buf, buf + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Request_free(&rq[0]));
    CHECK(rq[0] == MPI_REQUEST_NULL, "MPI_Request_free left the request");
    many = malloc(sizeof *many * MANY);
    CHECK(many != NULL, "no memory");
    if (many != NULL) {
        for (int i = 0; i < MANY; i++)
            OK(MPI_Ibcast(buf, 0, MPI_INT, 0, MPI_COMM_WORLD, &many[i]));
        OK(MPI_Waitall(MANY, many, MPI_STATUSES_IGNORE));
        for (int i = 0; i < MANY; i++)
            if (many[i] != MPI_REQUEST_NULL) {
                CHECK(0, "MPI_Waitall left request %d of %d", i, MANY);
                break;
            }
        free(many);
    }
    CHECK(buf[0] == SENTINEL && buf[1] == SENTINEL, "an empty collective wrote %#x %#x", buf[0],
          buf[1]);
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
    completion_calls();
    OK(MPI_Op_free(&op));
    free(zc);
    return mtest_finish();
}
