/*
 * MPI_Barrier on a communicator of one process returns at once (no
 * schedule), but a revoked one still fails with MPIX_ERR_REVOKED; with
 * several ranks each rank's own MPI_COMM_SELF barrier is independent.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Comm self;
    int rc;

    MPI_Init(&argc, &argv);
    for (int i = 0; i < 1000; i++)
        CHECK(MPI_Barrier(MPI_COMM_SELF) == MPI_SUCCESS, "MPI_Barrier(MPI_COMM_SELF) failed");
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    CHECK(MPI_Barrier(self) == MPI_SUCCESS, "barrier on a dup of MPI_COMM_SELF failed");
    MPIX_Comm_revoke(self);
    rc = MPI_Barrier(self);
    CHECK(mtest_error_class(rc) == MPIX_ERR_REVOKED,
          "barrier on a revoked communicator of one process: class %d, expected MPIX_ERR_REVOKED",
          mtest_error_class(rc));
    MPI_Comm_free(&self);
    MPI_Barrier(MPI_COMM_WORLD);
    return mtest_finish();
}
