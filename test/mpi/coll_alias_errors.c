/*
 * Buffers that really overlap are MPI_ERR_BUFFER, and an argument error
 * leaves no rank hanging (issues 18 and 27; MPICH's errors/coll/noalias2,
 * noalias3, reduce_local):
 *  - the root alone calls a rooted collective (gather, gatherv, scatter,
 *    scatterv, reduce, blocking and nonblocking) with aliased buffers, or
 *    with another argument only the root checks: it gets the error at once
 *    and nothing is sent or received, so the collectives that follow (which
 *    every rank calls) still match;
 *  - every rank passes overlapping buffers to allgather(v), alltoall(v/w),
 *    allreduce, reduce_scatter(_block), scan, exscan: every rank gets
 *    MPI_ERR_BUFFER;
 *  - MPI_Reduce_local with overlapping buffers.
 * Then collectives still work. Under MPI_ERRORS_RETURN.
 */
#include "mtest.h"

#define NUM_INTS 2

static void expect_class(int rc, int want, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
    if (cls == want && rc != MPI_SUCCESS && getenv("COLL_ERRORS_VERBOSE")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        printf("[%d] %-24s -> %s\n", mtest_rank, what, msg);
    }
}

int main(int argc, char **argv)
{
    int *sbuf, *cnt, *dsp, *neg, *bdsp, buf[8], out[8];
    MPI_Datatype *types;
    MPI_Request rq = MPI_REQUEST_NULL;

    mtest_init(&argc, &argv);
    sbuf = malloc(sizeof(int) * NUM_INTS * (size_t)mtest_size);
    cnt = malloc(sizeof(int) * (size_t)mtest_size);
    dsp = malloc(sizeof(int) * (size_t)mtest_size);
    bdsp = malloc(sizeof(int) * (size_t)mtest_size);
    neg = malloc(sizeof(int) * (size_t)mtest_size);
    types = malloc(sizeof(MPI_Datatype) * (size_t)mtest_size);
    for (int i = 0; i < mtest_size; i++) {
        sbuf[NUM_INTS * i] = sbuf[NUM_INTS * i + 1] = i;
        cnt[i] = NUM_INTS;
        dsp[i] = NUM_INTS * i;
        bdsp[i] = (int)sizeof(int) * NUM_INTS * i;
        neg[i] = i == mtest_size - 1 ? -1 : NUM_INTS;
        types[i] = MPI_INT;
    }

    /* the root alone, aliased buffers: the other ranks never call these */
    if (mtest_rank == 0) {
        MPI_Comm w = MPI_COMM_WORLD;
        expect_class(MPI_Gather(sbuf, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "gather");
        expect_class(MPI_Gatherv(sbuf, NUM_INTS, MPI_INT, sbuf, cnt, dsp, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "gatherv");
        expect_class(MPI_Scatter(sbuf, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "scatter");
        expect_class(MPI_Scatterv(sbuf, cnt, dsp, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w),
                     MPI_ERR_BUFFER, "scatterv");
        expect_class(MPI_Reduce(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, 0, w), MPI_ERR_BUFFER,
                     "reduce");
        /* the send block is another rank's block of recvbuf: still aliased */
        if (mtest_size > 1)
            expect_class(MPI_Gather(sbuf + NUM_INTS, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT,
                                    0, w),
                         MPI_ERR_BUFFER, "gather into rank 1's block");
        /* blocks in reverse order (rank 0's highest), the other buffer on
         * the last int of the highest block only: the v-blocks' bound must
         * reach the end of that block (mpi/coll.c's v_bound) */
        {
            int *rev = malloc(sizeof(int) * (size_t)mtest_size);
            int *last = sbuf + NUM_INTS * mtest_size - 1;
            for (int i = 0; i < mtest_size; i++)
                rev[i] = NUM_INTS * (mtest_size - 1 - i);
            expect_class(MPI_Scatterv(sbuf, cnt, rev, MPI_INT, last, 1, MPI_INT, 0, w),
                         MPI_ERR_BUFFER, "scatterv into the last int of the highest block");
            expect_class(MPI_Gatherv(last, 1, MPI_INT, sbuf, cnt, rev, MPI_INT, 0, w),
                         MPI_ERR_BUFFER, "gatherv from the last int of the highest block");
            free(rev);
        }
        expect_class(MPI_Igather(sbuf, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w, &rq),
                     MPI_ERR_BUFFER, "igather");
        expect_class(MPI_Igatherv(sbuf, NUM_INTS, MPI_INT, sbuf, cnt, dsp, MPI_INT, 0, w, &rq),
                     MPI_ERR_BUFFER, "igatherv");
        expect_class(MPI_Iscatter(sbuf, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w, &rq),
                     MPI_ERR_BUFFER, "iscatter");
        expect_class(MPI_Iscatterv(sbuf, cnt, dsp, MPI_INT, sbuf, NUM_INTS, MPI_INT, 0, w, &rq),
                     MPI_ERR_BUFFER, "iscatterv");
        expect_class(MPI_Ireduce(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, 0, w, &rq),
                     MPI_ERR_BUFFER, "ireduce");
        expect_class(MPI_Gatherv_init(sbuf, NUM_INTS, MPI_INT, sbuf, cnt, dsp, MPI_INT, 0, w,
                                      MPI_INFO_NULL, &rq),
                     MPI_ERR_BUFFER, "gatherv_init");
        /* other arguments only the root looks at */
        expect_class(MPI_Gatherv(out, 1, MPI_INT, sbuf, neg, dsp, MPI_INT, 0, w), MPI_ERR_COUNT,
                     "gatherv negative recvcounts");
        expect_class(MPI_Gatherv(out, 1, MPI_INT, sbuf, NULL, dsp, MPI_INT, 0, w), MPI_ERR_ARG,
                     "gatherv NULL recvcounts");
        expect_class(MPI_Scatterv(sbuf, cnt, dsp, MPI_DATATYPE_NULL, out, 1, MPI_INT, 0, w),
                     MPI_ERR_TYPE, "scatterv null sendtype");
        expect_class(MPI_Igatherv(out, 1, MPI_INT, sbuf, neg, dsp, MPI_INT, 0, w, &rq),
                     MPI_ERR_COUNT, "igatherv negative recvcounts");
    }

    /* every rank, overlapping buffers: every rank finds it */
    expect_class(MPI_Allgather(&sbuf[mtest_rank], 1, MPI_INT, sbuf, 1, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "allgather own block");
    expect_class(MPI_Allgatherv(&sbuf[dsp[mtest_rank]], cnt[mtest_rank], MPI_INT, sbuf, cnt, dsp, MPI_INT,
                                MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "allgatherv own block");
    expect_class(MPI_Iallgatherv(&sbuf[dsp[mtest_rank]], cnt[mtest_rank], MPI_INT, sbuf, cnt, dsp, MPI_INT,
                                 MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "iallgatherv own block");
    expect_class(MPI_Alltoall(sbuf, NUM_INTS, MPI_INT, sbuf, NUM_INTS, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "alltoall");
    expect_class(MPI_Alltoallv(sbuf, cnt, dsp, MPI_INT, sbuf, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "alltoallv");
    expect_class(
        MPI_Alltoallw(sbuf, cnt, bdsp, types, sbuf, cnt, bdsp, types, MPI_COMM_WORLD),
        MPI_ERR_BUFFER, "alltoallw");
    expect_class(MPI_Ialltoallv(sbuf, cnt, dsp, MPI_INT, sbuf, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                                &rq),
                 MPI_ERR_BUFFER, "ialltoallv");
    expect_class(MPI_Allreduce(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "allreduce");
    /* overlapping by one int only */
    expect_class(MPI_Allreduce(sbuf, sbuf + 1, 1 + (mtest_size > 1), MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 mtest_size > 1 ? MPI_ERR_BUFFER : MPI_SUCCESS, "allreduce shifted by one");
    expect_class(MPI_Reduce_scatter(sbuf, sbuf, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "reduce_scatter");
    /* one buffer for both, rank 0 receiving nothing: every rank still gets
     * the error (as MPICH), or rank 0 would go on alone */
    cnt[0] = 0;
    expect_class(MPI_Reduce_scatter(sbuf, sbuf, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 mtest_size > 1 ? MPI_ERR_BUFFER : MPI_SUCCESS, "reduce_scatter, rank 0 none");
    cnt[0] = NUM_INTS;
    expect_class(MPI_Reduce_scatter_block(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "reduce_scatter_block");
    expect_class(MPI_Scan(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "scan");
    expect_class(MPI_Iexscan(sbuf, sbuf, NUM_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "iexscan");

    /* reduce_local */
    for (int i = 0; i < 8; i++)
        buf[i] = i;
    expect_class(MPI_Reduce_local(buf, buf, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "reduce_local same buffer");
    expect_class(MPI_Reduce_local(buf, buf + 2, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "reduce_local overlapping");
    expect_class(MPI_Reduce_local(buf, buf + 4, 4, MPI_INT, MPI_SUM), MPI_SUCCESS,
                 "reduce_local adjacent");
    for (int i = 0; i < 4; i++)
        CHECK(buf[4 + i] == 2 * i + 4, "reduce_local adjacent [%d] = %d", i, buf[4 + i]);
    expect_class(MPI_Reduce_local(buf, buf, 0, MPI_INT, MPI_SUM), MPI_SUCCESS,
                 "reduce_local count 0");

    /* everything still works: nothing of the failed calls is left in flight */
    for (int i = 0; i < NUM_INTS * mtest_size; i++)
        sbuf[i] = mtest_rank * 100 + i;
    {
        int *all = malloc(sizeof(int) * NUM_INTS * (size_t)mtest_size), mine[NUM_INTS] = {mtest_rank, -mtest_rank};
        OK(MPI_Gather(mine, NUM_INTS, MPI_INT, all, NUM_INTS, MPI_INT, 0, MPI_COMM_WORLD));
        if (mtest_rank == 0)
            for (int r = 0; r < mtest_size; r++)
                CHECK(all[2 * r] == r && all[2 * r + 1] == -r, "gather after errors: rank %d", r);
        OK(MPI_Scatter(all, NUM_INTS, MPI_INT, mine, NUM_INTS, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK(mine[0] == mtest_rank && mine[1] == -mtest_rank, "scatter after errors: %d %d", mine[0],
              mine[1]);
        OK(MPI_Allreduce(mine, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(out[0] == mtest_size * (mtest_size - 1) / 2, "allreduce after errors: %d", out[0]);
        free(all);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(sbuf);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(neg);
    free(types);
    return mtest_finish();
}
