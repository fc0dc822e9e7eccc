/*
 * Bad arguments to collectives come back as the right MPI error class
 * under MPI_ERRORS_RETURN, never as a crash or a hang: invalid root, count,
 * datatype, communicator, operation (null, undefined for the type,
 * MPI_REPLACE), aliased send and receive buffers, MPI_IN_PLACE where it is
 * not allowed, a NULL request, a neighbourhood collective without a
 * topology, a truncated broadcast. Every case is erroneous on every rank,
 * so no rank waits for another. The bad arguments of MPI_Scatterv's and
 * MPI_Gatherv's own side away from the root (MPI_IN_PLACE, a negative
 * count, MPI_DATATYPE_NULL, a type not committed, a NULL buffer, a root out
 * of range: the checks of the front's short way there, mpi/coll.c's
 * leaf_direct) against a root whose counts are bad. After the errors,
 * collectives still work, the v forms too.
 */
#include "mtest.h"

static void expect_class(int rc, int want, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
    if (cls == want && rc != MPI_SUCCESS && mtest_rank == 0 && getenv("COLL_ERRORS_VERBOSE")) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        printf("%-28s -> %s\n", what, msg);
    }
}

int main(int argc, char **argv)
{
    int buf[64], out[64], *big;
    MPI_Request rq;

    mtest_init(&argc, &argv);
    for (int i = 0; i < 64; i++)
        buf[i] = out[i] = i;
    big = malloc(sizeof(int) * 64 * (size_t)mtest_size);

    expect_class(MPI_Bcast(buf, 1, MPI_INT, mtest_size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                 "bcast root=size");
    expect_class(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root=-1");
    expect_class(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count=-1");
    expect_class(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "bcast datatype null");
    expect_class(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "bcast comm null");
    expect_class(MPI_Bcast(NULL, 3, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "bcast buffer null");
    expect_class(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, mtest_size + 3, MPI_COMM_WORLD), MPI_ERR_ROOT,
                 "reduce bad root");
    expect_class(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                 "allreduce op null");
    expect_class(MPI_Allreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
                 "allreduce band on double");
    expect_class(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP,
                 "allreduce replace");
    expect_class(MPI_Allreduce(buf, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "allreduce aliased");
    expect_class(MPI_Allreduce(buf, out, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
                 "allreduce count=-2");
    expect_class(MPI_Alltoall(big, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "alltoall aliased");
    expect_class(MPI_Allgather(buf, 1, MPI_INT, big, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
                 "allgather recvcount=-1");
    expect_class(MPI_Scan(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                 "scan op null");
    /* MPI_IN_PLACE away from the root; the root mtest_errors on its count */
    if (mtest_rank == 0)
        expect_class(MPI_Gather(buf, 1, MPI_INT, big, -1, MPI_INT, 0, MPI_COMM_WORLD),
                     MPI_ERR_COUNT, "gather root recvcount=-1");
    else
        expect_class(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, big, 1, MPI_INT, 0, MPI_COMM_WORLD),
                     MPI_ERR_BUFFER, "gather in place at non-root");
    /* negative entries of recvcounts at the root, negative sendcount elsewhere */
    {
        int *rc = malloc(sizeof(int) * (size_t)mtest_size), *dp = malloc(sizeof(int) * (size_t)mtest_size);
        for (int p = 0; p < mtest_size; p++) {
            rc[p] = p == mtest_size - 1 ? -4 : 1;
            dp[p] = p;
        }
        if (mtest_rank == 0)
            expect_class(MPI_Gatherv(buf, 1, MPI_INT, big, rc, dp, MPI_INT, 0, MPI_COMM_WORLD),
                         MPI_ERR_COUNT, "gatherv negative recvcounts");
        else
            expect_class(MPI_Gatherv(buf, -1, MPI_INT, big, rc, dp, MPI_INT, 0, MPI_COMM_WORLD),
                         MPI_ERR_COUNT, "gatherv sendcount=-1");
        expect_class(MPI_Reduce_scatter(buf, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                     MPI_ERR_COUNT, "reduce_scatter negative count");
        free(rc);
        free(dp);
    }
    expect_class(MPI_Ibcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
                 "ibcast request null");
    expect_class(MPI_Iallreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &rq), MPI_ERR_OP,
                 "iallreduce op null");
    expect_class(MPI_Neighbor_allgather(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_TOPOLOGY, "neighbor_allgather without topology");

    /* a broadcast whose receivers expect less than the root sends: rank 1
     * (the root's child in every tree) finds the message truncated, the
     * ranks it forwards to learn that the broadcast failed (MPI_ERR_OTHER,
     * as in MPICH) */
    if (mtest_size > 1) {
        int rc = MPI_Bcast(buf, mtest_rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD), cls = 0;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (mtest_rank == 0)
            CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE, "truncated bcast: class %d", cls);
        else
            CHECK(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER,
                  "truncated bcast: rank %d got class %d", mtest_rank, cls);
        if (mtest_rank == 1)
            CHECK(cls == MPI_ERR_TRUNCATE, "rank 1 got class %d for a truncated bcast", cls);
    }

    /* the v forms' own side away from the root; the root's counts are bad */
    {
        int *cnt = malloc(sizeof(int) * (size_t)mtest_size), *dsp = malloc(sizeof(int) * (size_t)mtest_size);
        MPI_Datatype loose;
        struct {
            void *buf;
            int count;
            MPI_Datatype type;
            int root, cls;
            const char *what;
        } leaf[6];
        OK(MPI_Type_contiguous(2, MPI_INT, &loose)); /* (never committed) */
        leaf[0] = (typeof(leaf[0])){MPI_IN_PLACE, 1, MPI_INT, 0, MPI_ERR_BUFFER, "in place"};
        leaf[1] = (typeof(leaf[0])){out, -1, MPI_INT, 0, MPI_ERR_COUNT, "count=-1"};
        leaf[2] = (typeof(leaf[0])){out, 1, MPI_DATATYPE_NULL, 0, MPI_ERR_TYPE, "datatype null"};
        leaf[3] = (typeof(leaf[0])){out, 1, loose, 0, MPI_ERR_TYPE, "datatype not committed"};
        leaf[4] = (typeof(leaf[0])){NULL, 3, MPI_INT, 0, MPI_ERR_BUFFER, "buffer null"};
        leaf[5] = (typeof(leaf[0])){out, 1, MPI_INT, mtest_size, MPI_ERR_ROOT, "root=size"};
        for (int p = 0; p < mtest_size; p++) {
            cnt[p] = p == mtest_size - 1 ? -1 : 1;
            dsp[p] = p;
        }
        for (int i = 0; i < 6; i++) {
            char what[64];
            int root_bad = mtest_rank == 0 && leaf[i].root == 0;
            snprintf(what, sizeof what, "scatterv %s %s", root_bad ? "root, counts" : "leaf",
                     leaf[i].what);
            if (root_bad)
                expect_class(MPI_Scatterv(big, cnt, dsp, MPI_INT, out, 1, MPI_INT, 0,
                                          MPI_COMM_WORLD),
                             MPI_ERR_COUNT, what);
            else
                expect_class(MPI_Scatterv(big, cnt, dsp, MPI_INT, leaf[i].buf, leaf[i].count,
                                          leaf[i].type, leaf[i].root, MPI_COMM_WORLD),
                             leaf[i].cls, what);
            snprintf(what, sizeof what, "gatherv %s %s", root_bad ? "root, counts" : "leaf",
                     leaf[i].what);
            if (root_bad)
                expect_class(MPI_Gatherv(buf, 1, MPI_INT, big, cnt, dsp, MPI_INT, 0,
                                         MPI_COMM_WORLD),
                             MPI_ERR_COUNT, what);
            else
                expect_class(MPI_Gatherv(leaf[i].buf, leaf[i].count, leaf[i].type, big, cnt, dsp,
                                         MPI_INT, leaf[i].root, MPI_COMM_WORLD),
                             leaf[i].cls, what);
        }
        OK(MPI_Type_free(&loose));
        /* and right: rank r's block r of the root's, reversed in its buffer */
        for (int p = 0; p < mtest_size; p++) {
            cnt[p] = 1;
            dsp[p] = mtest_size - 1 - p;
            big[p] = 100 + mtest_size - 1 - p;
        }
        out[0] = -1;
        OK(MPI_Scatterv(big, cnt, dsp, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK(out[0] == 100 + mtest_rank, "scatterv after errors: %d", out[0]);
        buf[0] = 200 + mtest_rank;
        for (int p = 0; p < mtest_size; p++)
            big[p] = -1;
        OK(MPI_Gatherv(buf, 1, MPI_INT, big, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD));
        for (int p = 0; mtest_rank == 0 && p < mtest_size; p++)
            CHECK(big[mtest_size - 1 - p] == 200 + p, "gatherv after errors: rank %d's %d", p,
                  big[mtest_size - 1 - p]);
        free(cnt);
        free(dsp);
    }

    /* everything still works */
    for (int i = 0; i < 64; i++)
        buf[i] = mtest_rank + i;
    OK(MPI_Allreduce(buf, out, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 64; i++)
        CHECK(out[i] == mtest_size * (mtest_size - 1) / 2 + mtest_size * i, "allreduce after errors [%d]", i);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(big);
    return mtest_finish();
}
