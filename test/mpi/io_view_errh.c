/*
 * Failed file accesses and views with a user's error handler on the file
 * that clears the error: the handler runs once, the call returns what the
 * handler left (MPI_SUCCESS), and the operation stops there. Before, a
 * view whose sizes were refused went on with its freed flattened filetype,
 * and an access refused by its checks (a read-only file, a count that is
 * not a whole number of etypes) went on with the access. Covered: a
 * non-contiguous filetype whose size differs in "external32" (MPI_LONG is
 * 4 bytes there), a write of 3 bytes under an MPI_INT etype, a write to a
 * file opened MPI_MODE_RDONLY; the view and the file's size are checked
 * to be unchanged after each.
 */
#include "io_util.h"

#include <string.h>

static int ncalls;

static void clear_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    ncalls++;
    *code = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL, ro = MPI_FILE_NULL;
    MPI_Errhandler eh;
    MPI_Datatype vec, et, ft;
    MPI_Offset disp, size;
    char rep[MPI_MAX_DATAREP_STRING], bytes[3] = {1, 2, 3};
    long longs[8] = {0};
    int rc, before, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io_dir_make();

    MPI_File_create_errhandler(clear_error, &eh);
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("view.dat"),
                       MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                       &fh);
    CHECK(rc == MPI_SUCCESS, "open returned %d", rc);
    MPI_File_set_errhandler(fh, eh);

    /* a view the sizes refuse: the view stays native bytes */
    MPI_Type_vector(2, 1, 2, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    before = ncalls;
    rc = MPI_File_set_view(fh, 0, MPI_LONG, vec, "external32", MPI_INFO_NULL);
    CHECK(rc == MPI_SUCCESS, "external32 view: set_view returned %d, want the handler's MPI_SUCCESS",
          rc);
    CHECK(ncalls == before + 1, "external32 view: handler ran %d times, want 1", ncalls - before);
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK(disp == 0 && et == MPI_BYTE && ft == MPI_BYTE && strcmp(rep, "native") == 0,
          "external32 view: the view changed to disp %lld, datarep %s", (long long)disp, rep);
    /* the file still works */
    rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof longs, longs, 8, MPI_LONG,
                               MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "write after the refused view returned %d", rc);

    /* an access that is not a whole number of etypes writes nothing */
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_get_size(fh, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    before = ncalls;
    rc = MPI_File_write_at(fh, 1000, bytes, 3, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "3-byte write: returned %d, want the handler's MPI_SUCCESS", rc);
    CHECK(ncalls == before + 1, "3-byte write: handler ran %d times, want 1", ncalls - before);
    MPI_Barrier(MPI_COMM_WORLD);
    {
        MPI_Offset now;
        MPI_File_get_size(fh, &now);
        CHECK(now == size, "3-byte write: the file grew from %lld to %lld bytes", (long long)size,
              (long long)now);
    }

    /* a write to a read-only file does not reach the file */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("view.dat"), MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    CHECK(rc == MPI_SUCCESS, "read-only open returned %d", rc);
    if (rc == MPI_SUCCESS) {
        MPI_File_set_errhandler(ro, eh);
        before = ncalls;
        rc = MPI_File_write_at(ro, 4096, bytes, 3, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "read-only write: returned %d, want the handler's MPI_SUCCESS",
              rc);
        CHECK(ncalls == before + 1, "read-only write: handler ran %d times, want 1",
              ncalls - before);
        MPI_File_close(&ro);
    }

    MPI_Errhandler_free(&eh);
    MPI_Type_free(&vec);
    MPI_File_close(&fh);
    io_dir_remove();
    return mtest_finish();
}
