/*
 * Empty reductions (count 0) still check that the operation is defined on
 * the datatype (issue 26): Canal's short path for an empty MPI_Allreduce or
 * MPI_Iallreduce remembers the last predefined (operation, datatype) pair
 * it accepted, so this alternates accepted pairs with refused ones
 * (MPI_MAXLOC on MPI_INT, MPI_BAND on MPI_DOUBLE, MPI_SUM on a
 * communicator's handle) and checks that every refused one is MPI_ERR_OP
 * (the bad handle too, as MPICH 4.0.2) in either order, on MPI_COMM_WORLD and
 * on a duplicate, and that the accepted ones return at once with a
 * completed request. Any number of processes.
 */
#include "mtest.h"
#include <stdio.h>

static int errs, rank;

static void expect(int line, const char *what, int err, int cls_want)
{
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    if (cls != cls_want) {
        fprintf(stderr, "[%d] line %d: %s: class %d, expected %d\n", rank, line, what, cls,
                cls_want);
        errs++;
    }
}

static void round_on(MPI_Comm comm)
{
    int i = 0, j = 0;
    double d = 0, e = 0;
    MPI_Request req;
    int flag;

    for (int rep = 0; rep < 3; rep++) {
        expect(__LINE__, "allreduce SUM INT", MPI_Allreduce(&i, &j, 0, MPI_INT, MPI_SUM, comm),
               MPI_SUCCESS);
        expect(__LINE__, "allreduce MAXLOC INT",
               MPI_Allreduce(&i, &j, 0, MPI_INT, MPI_MAXLOC, comm), MPI_ERR_OP);
        expect(__LINE__, "allreduce MAXLOC INT again",
               MPI_Allreduce(&i, &j, 0, MPI_INT, MPI_MAXLOC, comm), MPI_ERR_OP);
        expect(__LINE__, "allreduce BAND DOUBLE",
               MPI_Allreduce(&d, &e, 0, MPI_DOUBLE, MPI_BAND, comm), MPI_ERR_OP);
        expect(__LINE__, "allreduce SUM DOUBLE",
               MPI_Allreduce(&d, &e, 0, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
        expect(__LINE__, "allreduce SUM on a communicator handle", /* MPICH 4.0.2's class */
               MPI_Allreduce(&d, &e, 0, (MPI_Datatype)MPI_COMM_WORLD, MPI_SUM, comm),
               MPI_ERR_OP);
        req = MPI_REQUEST_NULL;
        expect(__LINE__, "iallreduce BAND DOUBLE",
               MPI_Iallreduce(&d, &e, 0, MPI_DOUBLE, MPI_BAND, comm, &req), MPI_ERR_OP);
        expect(__LINE__, "iallreduce SUM DOUBLE",
               MPI_Iallreduce(&d, &e, 0, MPI_DOUBLE, MPI_SUM, comm, &req), MPI_SUCCESS);
        flag = 0;
        expect(__LINE__, "test", MPI_Test(&req, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (!flag || req != MPI_REQUEST_NULL) {
            fprintf(stderr, "[%d] an empty MPI_Iallreduce was not complete at once\n", rank);
            errs++;
        }
        expect(__LINE__, "iallreduce MAXLOC INT",
               MPI_Iallreduce(&i, &j, 0, MPI_INT, MPI_MAXLOC, comm, &req), MPI_ERR_OP);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    round_on(MPI_COMM_WORLD);
    round_on(dup);
    MPI_Comm_free(&dup);
    mtest_errors += errs;
    return mtest_finish();
}
