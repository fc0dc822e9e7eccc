/*
 * A collective that MPI-IO runs internally fails: its error reaches the
 * file's handler, once, and the call stops. Under the checking mode
 * (CANAL_COLL_CHECK=1) rank 0 calls MPI_File_set_size while the others call
 * MPI_File_sync: the collectives io/ runs for them on the file's
 * communicator (the size's agreement, the outcome's) do not match. The
 * communicators' handler and the file's handler record the call and clear
 * the code. Each rank's call must return the file handler's MPI_SUCCESS
 * after that handler ran once with MPI_ERR_OTHER, and the communicators'
 * handler must never run (the file's communicator is io/'s own).
 *
 * Before the fix (io/io.c's MPI_ERRORS_RETURN on the file's communicator)
 * the failure went to the handler MPI_COMM_WORLD's duplicate inherited,
 * with a communicator the program never saw; clearing it let MPI_File_sync
 * return MPI_SUCCESS as if every rank had synchronized (the file's handler
 * never ran) and MPI_File_set_size compare sizes the collective never
 * delivered.
 */
#include "io_util.h"

static int ncomm, nfile, file_class;

static void comm_clear(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    ncomm++;
    *code = MPI_SUCCESS;
}

static void file_clear(MPI_File *fh, int *code, ...)
{
    (void)fh;
    nfile++;
    MPI_Error_class(*code, &file_class);
    *code = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, rc;
    MPI_Errhandler ceh, feh;
    MPI_File fh;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    MPI_Comm_create_errhandler(comm_clear, &ceh);
    MPI_File_create_errhandler(file_clear, &feh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, ceh);

    rc = MPI_File_open(MPI_COMM_WORLD, io_path("f"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                       MPI_INFO_NULL, &fh);
    CHECK(rc == MPI_SUCCESS, "MPI_File_open: %d", rc);
    MPI_File_set_errhandler(fh, feh);

    if (rank == 0)
        rc = MPI_File_set_size(fh, 100);
    else
        rc = MPI_File_sync(fh);
    CHECK(rc == MPI_SUCCESS, "%s: returned %d, want the file handler's MPI_SUCCESS",
          rank == 0 ? "MPI_File_set_size" : "MPI_File_sync", rc);
    CHECK(nfile == 1, "%s: the file's handler ran %d times, want 1",
          rank == 0 ? "MPI_File_set_size" : "MPI_File_sync", nfile);
    CHECK(file_class == MPI_ERR_OTHER, "%s: the file's handler got class %d, want %d",
          rank == 0 ? "MPI_File_set_size" : "MPI_File_sync", file_class, MPI_ERR_OTHER);
    CHECK(ncomm == 0, "%s: the communicators' handler ran %d times, want 0",
          rank == 0 ? "MPI_File_set_size" : "MPI_File_sync", ncomm);

    /* the file stays usable: a matching collective call works */
    nfile = 0;
    rc = MPI_File_set_size(fh, 10);
    CHECK(rc == MPI_SUCCESS && nfile == 0, "MPI_File_set_size after: %d, handler ran %d times", rc,
          nfile);
    rc = MPI_File_close(&fh);
    CHECK(rc == MPI_SUCCESS && nfile == 0, "MPI_File_close: %d, handler ran %d times", rc, nfile);
    if (rank == 0)
        MPI_File_delete(io_path("f"), MPI_INFO_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&ceh);
    MPI_Errhandler_free(&feh);
    io_dir_remove();
    (void)size;
    return mtest_finish();
}
