/*
 * Every rank calls the collective, but the arguments of one rank are wrong
 * in a way only that rank can see (the root's receive counts or aliased
 * buffers, a non-root's MPI_IN_PLACE, one rank's negative count). In
 * Canal's checking mode (CANAL_COLL_CHECK=1, see doc/design.md, "Errors in
 * collectives") that rank returns its error class and every other rank
 * returns MPI_ERR_OTHER: nobody waits for a rank that gave up (issue 18).
 * Blocking and nonblocking forms; afterwards collectives work again.
 * Under MPI_ERRORS_RETURN. Run with CANAL_COLL_CHECK=1.
 */
#include "mtest.h"

static void expect(int rc, int bad_rank, int want, const char *what)
{
    int cls = MPI_SUCCESS, w = mtest_rank == bad_rank ? want : MPI_ERR_OTHER;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == w, "%s: rank %d got class %d, want %d", what, mtest_rank, cls, w);
    if (rc != MPI_SUCCESS && getenv("COLL_ERRORS_VERBOSE")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        printf("[%d] %-22s -> %s\n", mtest_rank, what, msg);
    }
}

int main(int argc, char **argv)
{
    int n, *buf, *cnt, *dsp, *neg, mine[2], out[2];
    int last;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq = MPI_REQUEST_NULL;

    mtest_init(&argc, &argv);
    n = mtest_size;
    last = mtest_size - 1;
    buf = malloc(sizeof(int) * 2 * (size_t)n);
    cnt = malloc(sizeof(int) * (size_t)n);
    dsp = malloc(sizeof(int) * (size_t)n);
    neg = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        cnt[i] = 2;
        dsp[i] = 2 * i;
        neg[i] = i == last ? -1 : 2;
        buf[2 * i] = buf[2 * i + 1] = i;
    }
    mine[0] = mine[1] = mtest_rank;

    /* the root's buffers alias: only the root can tell */
    expect(MPI_Gatherv(mtest_rank == 0 ? buf : mine, 2, MPI_INT, buf, cnt, dsp, MPI_INT, 0, w), 0,
           MPI_ERR_BUFFER, "gatherv aliased at root");
    expect(MPI_Reduce(mtest_rank == last ? buf : mine, buf, 2, MPI_INT, MPI_SUM, last, w), last,
           MPI_ERR_BUFFER, "reduce aliased at root");
    expect(MPI_Scatter(buf, 2, MPI_INT, mtest_rank == 0 ? buf + 2 * last : out, 2, MPI_INT, 0, w), 0,
           MPI_ERR_BUFFER, "scatter aliased at root");
    /* the root's counts */
    expect(MPI_Gatherv(mine, 2, MPI_INT, buf, neg, dsp, MPI_INT, 0, w), 0, MPI_ERR_COUNT,
           "gatherv recvcounts<0");
    expect(MPI_Scatterv(buf, mtest_rank == last ? NULL : cnt, dsp, MPI_INT, out, 2, MPI_INT, last, w),
           last, MPI_ERR_ARG, "scatterv sendcounts NULL");
    expect(MPI_Igatherv(mine, 2, MPI_INT, buf, neg, dsp, MPI_INT, 0, w, &rq), 0, MPI_ERR_COUNT,
           "igatherv recvcounts<0");
    if (rq != MPI_REQUEST_NULL) {
        CHECK(0, "igatherv: a request came back with an error");
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    /* a non-root's arguments */
    if (mtest_size > 1) {
        expect(MPI_Gather(mtest_rank == 1 ? MPI_IN_PLACE : mine, 2, MPI_INT, buf, 2, MPI_INT, 0, w), 1,
               MPI_ERR_BUFFER, "gather in place at a non-root");
        expect(MPI_Bcast(buf, mtest_rank == 1 ? -1 : 2, MPI_INT, 0, w), 1, MPI_ERR_COUNT,
               "bcast count<0 at rank 1");
        expect(MPI_Allreduce(mine, out, 2, mtest_rank == last ? MPI_DATATYPE_NULL : MPI_INT, MPI_SUM, w),
               last, MPI_ERR_OP, "allreduce null type at one rank"); /* MPI_SUM checked against the type first, as MPICH 4.0.2 */
        rq = MPI_REQUEST_NULL;
        expect(MPI_Iallreduce(mine, out, 2, MPI_INT, MPI_SUM, w, mtest_rank == 1 ? NULL : &rq), 1,
               MPI_ERR_ARG, "iallreduce request NULL at rank 1");
        if (rq != MPI_REQUEST_NULL) {
            CHECK(0, "iallreduce: a request came back with an error");
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
    }

    /* everything still works */
    OK(MPI_Gatherv(mine, 2, MPI_INT, buf, cnt, dsp, MPI_INT, 0, w));
    if (mtest_rank == 0)
        for (int i = 0; i < n; i++)
            CHECK(buf[2 * i] == i && buf[2 * i + 1] == i, "gatherv after errors: rank %d", i);
    OK(MPI_Scatterv(buf, cnt, dsp, MPI_INT, out, 2, MPI_INT, 0, w));
    CHECK(out[0] == mtest_rank && out[1] == mtest_rank, "scatterv after errors: %d %d", out[0], out[1]);
    OK(MPI_Allreduce(mine, out, 2, MPI_INT, MPI_SUM, w));
    CHECK(out[0] == n * (n - 1) / 2, "allreduce after errors: %d", out[0]);
    OK(MPI_Barrier(w));
    free(buf);
    free(cnt);
    free(dsp);
    free(neg);
    return mtest_finish();
}
