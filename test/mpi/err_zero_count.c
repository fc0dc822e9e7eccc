/*
 * A datatype that is MPI_DATATYPE_NULL or not committed, MPI_ERRORS_RETURN:
 * the class returned is the one MPICH 4.0.2 returns (doc/conformance.md,
 * "The order of argument checks against MPICH 4.0.2"). MPICH does not check
 * the datatype of a point-to-point message or a broadcast of count 0 (the
 * call succeeds and moves nothing); it checks a predefined op against the
 * datatype before the count and the datatype, so a reduction with MPI_SUM
 * and such a datatype is MPI_ERR_OP at any count, where a user's op leaves it
 * MPI_ERR_TYPE; the other collectives check their datatypes at count 0 too;
 * MPI_Get_count, MPI_Status_set_elements and MPI_Pack_external_size take a
 * type that is not committed. The same program built with mpicc.mpich and
 * run with mpiexec.mpich prints "No Errors" (that is how the expected
 * classes were taken).
 */
#include <mpi.h>
#include <stdio.h>

#include "err_class_expect.h"

/* the datatype under test, named in the messages */
static const char *dn;

static void expect_dt(const char *call, int err, int want)
{
    char what[256];

    snprintf(what, sizeof what, "%s (%s)", call, dn);
    expect(what, err, want);
}

static void wait_if(MPI_Request *req)
{
    if (*req != MPI_REQUEST_NULL)
        MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

int main(int argc, char **argv)
{
    int rank, size, a[8] = {0}, b[8] = {0}, n = 0, counts[64] = {0}, pos = 0;
    MPI_Aint sz = 0;
    MPI_Datatype unc, dts[2];
    const char *names[2] = {"MPI_DATATYPE_NULL", "not committed"};
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    MPI_Status st;
    MPI_Op uop;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
    MPI_Type_contiguous(2, MPI_INT, &unc);
    MPI_Op_create(user_op, 1, &uop);
    dts[0] = MPI_DATATYPE_NULL;
    dts[1] = unc;

    for (int i = 0; i < 2; i++) {
        MPI_Datatype d = dts[i];

        dn = names[i];

        /* point-to-point, count 0: not checked (MPICH), the message moves
         * as MPI_BYTE */
        expect_dt("MPI_Send(count=0, dest=MPI_PROC_NULL)", MPI_Send(a, 0, d, MPI_PROC_NULL, 0, w),
                  MPI_SUCCESS);
        expect_dt("MPI_Recv(count=0, source=MPI_PROC_NULL)",
                  MPI_Recv(a, 0, d, MPI_PROC_NULL, 0, w, &st), MPI_SUCCESS);
        req = MPI_REQUEST_NULL;
        expect_dt("MPI_Isend(count=0)", MPI_Isend(a, 0, d, MPI_PROC_NULL, 0, w, &req),
                  MPI_SUCCESS);
        wait_if(&req);
        expect_dt("MPI_Sendrecv(count=0)",
                  MPI_Sendrecv(a, 0, d, MPI_PROC_NULL, 0, b, 0, d, MPI_PROC_NULL, 0, w, &st),
                  MPI_SUCCESS);
        req = MPI_REQUEST_NULL;
        expect_dt("MPI_Send_init(count=0)", MPI_Send_init(a, 0, d, MPI_PROC_NULL, 0, w, &req),
                  MPI_SUCCESS);
        if (req != MPI_REQUEST_NULL)
            MPI_Request_free(&req);
        /* a real message of count 0 to this process */
        req = MPI_REQUEST_NULL;
        expect_dt("MPI_Isend(count=0, MPI_COMM_SELF)",
                  MPI_Isend(a, 0, d, 0, 5, MPI_COMM_SELF, &req), MPI_SUCCESS);
        expect_dt("MPI_Recv(count=0, MPI_COMM_SELF)", MPI_Recv(b, 0, d, 0, 5, MPI_COMM_SELF, &st),
                  MPI_SUCCESS);
        wait_if(&req);
        /* ... and between two processes (ranks 0 and 1): a message of MPI_INT
         * received with count 0 is truncated, as into MPI_BYTE */
        if (size > 1 && rank < 2) {
            int peer = 1 - rank;
            req = MPI_REQUEST_NULL;
            expect_dt("MPI_Irecv(count=0, from the other rank)",
                      MPI_Irecv(b, 0, d, peer, 6, w, &req), MPI_SUCCESS);
            expect_dt("MPI_Send(count=0, to the other rank)", MPI_Send(a, 0, d, peer, 6, w),
                      MPI_SUCCESS);
            wait_if(&req);
            expect_dt("MPI_Sendrecv(count=0, with the other rank)",
                      MPI_Sendrecv(a, 0, d, peer, 7, b, 0, d, peer, 7, w, &st), MPI_SUCCESS);
            n = -1;
            MPI_Get_count(&st, MPI_BYTE, &n);
            if (n != 0) {
                errs++;
                printf("MPI_Sendrecv(count=0) (%s): %d bytes received, expected 0\n", dn, n);
            }
            if (rank == 0)
                MPI_Send(a, 1, MPI_INT, peer, 8, w);
            else
                expect_dt("MPI_Recv(count=0) of one MPI_INT", MPI_Recv(b, 0, d, peer, 8, w, &st),
                          MPI_ERR_TRUNCATE);
        }
        /* ... but a message that moves data is checked */
        expect_dt("MPI_Send(count=1, dest=MPI_PROC_NULL)", MPI_Send(a, 1, d, MPI_PROC_NULL, 0, w),
               MPI_ERR_TYPE);

        /* a broadcast of count 0: not checked (MPICH 4.0.2 then fails an
         * assertion broadcasting MPI_DATATYPE_NULL among two processes or
         * more: that one on MPI_COMM_SELF) */
        expect_dt("MPI_Bcast(count=0)", MPI_Bcast(a, 0, d, 0, i == 0 ? MPI_COMM_SELF : w),
               MPI_SUCCESS);
        req = MPI_REQUEST_NULL;
        expect_dt("MPI_Ibcast(count=0)",
               MPI_Ibcast(a, 0, d, 0, i == 0 ? MPI_COMM_SELF : w, &req), MPI_SUCCESS);
        wait_if(&req);

        /* a predefined op is checked against the datatype first */
        expect_dt("MPI_Allreduce(count=0, MPI_SUM)", MPI_Allreduce(a, b, 0, d, MPI_SUM, w),
               MPI_ERR_OP);
        expect_dt("MPI_Allreduce(count=1, MPI_SUM)", MPI_Allreduce(a, b, 1, d, MPI_SUM, w),
               MPI_ERR_OP);
        expect_dt("MPI_Allreduce(count=-1, MPI_SUM)", MPI_Allreduce(a, b, -1, d, MPI_SUM, w),
               MPI_ERR_OP);
        expect_dt("MPI_Allreduce(MPI_IN_PLACE, count=0, MPI_MAX)",
               MPI_Allreduce(MPI_IN_PLACE, b, 0, d, MPI_MAX, w), MPI_ERR_OP);
        req = MPI_REQUEST_NULL;
        expect_dt("MPI_Iallreduce(count=0, MPI_SUM)",
               MPI_Iallreduce(a, b, 0, d, MPI_SUM, w, &req), MPI_ERR_OP);
        wait_if(&req);
        expect_dt("MPI_Reduce(count=0, MPI_SUM)", MPI_Reduce(a, b, 0, d, MPI_SUM, 0, w),
               MPI_ERR_OP);
        expect_dt("MPI_Exscan(count=0, MPI_PROD)", MPI_Exscan(a, b, 0, d, MPI_PROD, w),
               MPI_ERR_OP);
        expect_dt("MPI_Reduce_scatter_block(recvcount=0, MPI_SUM)",
               MPI_Reduce_scatter_block(a, b, 0, d, MPI_SUM, w), MPI_ERR_OP);
        expect_dt("MPI_Reduce_scatter(recvcounts 0, MPI_SUM)",
               MPI_Reduce_scatter(a, b, counts, d, MPI_SUM, w), MPI_ERR_OP);
        expect_dt("MPI_Reduce_local(count=0, MPI_SUM)", MPI_Reduce_local(a, b, 0, d, MPI_SUM),
               MPI_ERR_OP);
        /* ... a user's op leaves it to the datatype's check */
        expect_dt("MPI_Allreduce(count=0, user op)", MPI_Allreduce(a, b, 0, d, uop, w),
               MPI_ERR_TYPE);
        expect_dt("MPI_Reduce_scatter(recvcounts 0, user op)",
               MPI_Reduce_scatter(a, b, counts, d, uop, w), MPI_ERR_TYPE);
        expect_dt("MPI_Reduce_local(count=0, user op)", MPI_Reduce_local(a, b, 0, d, uop),
               MPI_ERR_TYPE);

        /* the other collectives check their datatypes at count 0 */
        expect_dt("MPI_Gather(sendcount=0)", MPI_Gather(a, 0, d, b, 0, MPI_INT, 0, w),
               MPI_ERR_TYPE);
        expect_dt("MPI_Allgather(count 0)", MPI_Allgather(a, 0, d, b, 0, d, w), MPI_ERR_TYPE);
        expect_dt("MPI_Alltoall(count 0)", MPI_Alltoall(a, 0, d, b, 0, d, w), MPI_ERR_TYPE);

        /* packing checks the datatype at count 0 */
        expect_dt("MPI_Pack_size(count=0)", MPI_Pack_size(0, d, w, &n), MPI_ERR_TYPE);
        pos = 0;
        expect_dt("MPI_Pack(count=0)", MPI_Pack(a, 0, d, b, (int)sizeof b, &pos, w),
               MPI_ERR_TYPE);
    }

    /* a predefined op that is not defined for a predefined type: MPI_ERR_OP
     * before a negative count, and before the buffers of MPI_Reduce_local */
    expect("MPI_Allreduce(count=-1, MPI_SUM) (MPI_BYTE)", MPI_Allreduce(a, b, -1, MPI_BYTE, MPI_SUM, w),
           MPI_ERR_OP);
    expect("MPI_Reduce_local(a, a, count=1, MPI_SUM) (MPI_BYTE)",
           MPI_Reduce_local(a, a, 1, MPI_BYTE, MPI_SUM), MPI_ERR_OP);
    expect("MPI_Reduce_local(count=1, MPI_REPLACE) (MPI_INT)",
           MPI_Reduce_local(a, b, 1, MPI_INT, MPI_REPLACE), MPI_ERR_OP);

    /* the status and size queries take a type that is not committed */
    MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, w, &st);
    expect("MPI_Status_set_elements (not committed)", MPI_Status_set_elements(&st, unc, 0),
           MPI_SUCCESS);
    MPI_Status_set_elements(&st, MPI_INT, 4);
    n = -1;
    expect("MPI_Get_count (not committed)", MPI_Get_count(&st, unc, &n), MPI_SUCCESS);
    if (n != 2) {
        errs++;
        printf("MPI_Get_count (not committed): count %d, expected 2\n", n);
    }
    expect("MPI_Get_elements (not committed)", MPI_Get_elements(&st, unc, &n), MPI_ERR_TYPE);
    expect("MPI_Pack_external_size (not committed)",
           MPI_Pack_external_size("external32", 1, unc, &sz), MPI_SUCCESS);
    if (sz != 8) {
        errs++;
        printf("MPI_Pack_external_size (not committed): size %ld, expected 8\n", (long)sz);
    }
    expect("MPI_Get_count (MPI_DATATYPE_NULL)", MPI_Get_count(&st, MPI_DATATYPE_NULL, &n),
           MPI_ERR_TYPE);

    MPI_Op_free(&uop);
    MPI_Type_free(&unc);
    if (errs == 0 && rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
