/*
 * MPI_File_open failures with a user's error handler on MPI_FILE_NULL that
 * clears the error (MPICH's errors/io/fileerrret): the handler runs once
 * per failed open, the call returns what the handler left (MPI_SUCCESS),
 * and the open stops there instead of going on with a file that was never
 * opened (it crashed). Covered: a missing file opened without
 * MPI_MODE_CREATE (failure at the open itself), an invalid amode (failure
 * of the ranks' agreement), MPI_COMM_NULL (failure of the argument check).
 * With MPI_ERRORS_RETURN back on MPI_FILE_NULL, the same open returns
 * MPI_ERR_NO_SUCH_FILE.
 */
#include "io_util.h"

static int ncalls;

static void clear_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    ncalls++;
    *code = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Errhandler eh;
    int rc, before;

    MPI_Init(&argc, &argv);
    io_dir_make();

    MPI_File_create_errhandler(clear_error, &eh);
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    MPI_Errhandler_free(&eh);

    before = ncalls;
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("missing.dat"), MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "missing file: open returned %d, want the handler's MPI_SUCCESS", rc);
    CHECK(ncalls == before + 1, "missing file: handler ran %d times, want 1", ncalls - before);

    before = ncalls;
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("amode.dat"), MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                       MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "bad amode: open returned %d, want the handler's MPI_SUCCESS", rc);
    CHECK(ncalls == before + 1, "bad amode: handler ran %d times, want 1", ncalls - before);

    before = ncalls;
    rc = MPI_File_open(MPI_COMM_NULL, io_path("null.dat"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                       MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "MPI_COMM_NULL: open returned %d, want the handler's MPI_SUCCESS", rc);
    CHECK(ncalls == before + 1, "MPI_COMM_NULL: handler ran %d times, want 1", ncalls - before);

    /* the default handler back: the class of the failure */
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("missing.dat"), MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT_CLASS(rc, MPI_ERR_NO_SUCH_FILE, "open of a missing file");

    /* a file that exists still opens */
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("real.dat"),
                       MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "open with MPI_MODE_CREATE returned %d", rc);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);

    io_dir_remove();
    return mtest_finish();
}
