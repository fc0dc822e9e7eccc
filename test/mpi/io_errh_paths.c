/*
 * Every MPI-IO call driven into its error path under a user's file error
 * handler that returns: one that records the error and clears it to
 * MPI_SUCCESS, and one that only records it. The whole program runs once
 * with each, set on MPI_FILE_NULL (open, delete, calls on closed or null
 * handles) and inherited by the files. Each failing call must run the
 * handler once, return what the handler left (MPI_SUCCESS, or the code of
 * the expected class), change nothing (pointers, sizes, views, split
 * collectives in progress) and leave the file usable; a failure on some
 * ranks of a collective must not leave the others waiting.
 *
 * Before the fix (io/io.h's IO_HANDLED), with the clearing handler: a call
 * on MPI_FILE_NULL or with a NULL out-pointer went on with the missing
 * object (a crash), MPI_File_seek with a bad whence moved the pointer to
 * an uninitialized position, MPI_File_seek_shared reset the shared pointer
 * to 0, MPI_File_set_size on a read-only file raised twice, and a
 * collective access refused on one rank left the others in the collective.
 */
#include "io_util.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

static int ncalls, last_code, clearing;

static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    ncalls++;
    last_code = *code;
    if (clearing)
        *code = MPI_SUCCESS;
}

/* The call returned what the handler left, and the handler ran once with
 * an error of class cls (cls -1: any class, for ranks that only learn of
 * another rank's failure). EXPECT_RAISES(call, cls, what) makes the call
 * and checks it; its value is what the call returned. */
#define EXPECT_RAISED(rc, before, cls, what)                                                       \
    expect_raised_at((rc), (before), (cls), (what), __FILE__, __LINE__)
#define EXPECT_RAISES(call, cls, what)                                                             \
    ({                                                                                             \
        int before_ = ncalls, rc_ = (call);                                                        \
        expect_raised_at(rc_, before_, (cls), (what), __FILE__, __LINE__);                         \
        rc_;                                                                                       \
    })
static void expect_raised_at(int rc, int before, int cls, const char *what, const char *file,
                             int line)
{
    if (ncalls != before + 1) {
        mtest_fail_at(file, line, what, "the handler ran %d times, want 1", ncalls - before);
        return;
    }
    if (cls >= 0 && mtest_error_class(last_code) != cls)
        mtest_fail_at(file, line, what, "the handler saw class %d, want %d",
                      mtest_error_class(last_code), cls);
    if (clearing && rc != MPI_SUCCESS)
        mtest_fail_at(file, line, what, "returned %d, want the handler's MPI_SUCCESS", rc);
    if (!clearing && rc != last_code)
        mtest_fail_at(file, line, what, "returned %d, want the handler's code %d", rc, last_code);
}

static MPI_Offset size_of(MPI_File fh)
{
    MPI_Offset s = -1;
    OK(MPI_File_get_size(fh, &s));
    return s;
}

/* Calls on handles that are not open files, and on files that do not exist. */
static void null_handles(void)
{
    MPI_File fh = MPI_FILE_NULL, stale = MPI_FILE_NULL;
    MPI_Offset size = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    int buf[4] = {0};

    EXPECT_RAISES(
        MPI_File_open(MPI_COMM_WORLD, io_path("missing.dat"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
        MPI_ERR_NO_SUCH_FILE, "open of a missing file");
    CHECK(fh == MPI_FILE_NULL, "open of a missing file gave a handle");

    EXPECT_RAISES(MPI_File_get_size(MPI_FILE_NULL, &size), MPI_ERR_FILE, "get_size(MPI_FILE_NULL)");
    EXPECT_RAISES(MPI_File_write(MPI_FILE_NULL, buf, 4, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
                  "write(MPI_FILE_NULL)");
    EXPECT_RAISES(MPI_File_iread_at(MPI_FILE_NULL, 0, buf, 4, MPI_INT, &req), MPI_ERR_FILE,
                  "iread_at(MPI_FILE_NULL)");
    EXPECT_RAISES(MPI_File_close(&fh), MPI_ERR_FILE, "close(MPI_FILE_NULL)");

    /* a handle kept after its file was closed */
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("closed.dat"),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    stale = fh;
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close left the handle");
    EXPECT_RAISES(MPI_File_seek(stale, 0, MPI_SEEK_SET), MPI_ERR_FILE, "seek on a closed file");
    EXPECT_RAISES(MPI_File_read_all(stale, buf, 4, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
                  "read_all on a closed file");

    if (mtest_rank == 0) {
        EXPECT_RAISES(MPI_File_delete(io_path("missing.dat"), MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE,
                      "delete of a missing file");
    }
}

/* The individual and the shared file pointers after refused moves. */
static void pointers(MPI_File fh)
{
    MPI_Offset pos = -1, sh = -1;

    OK(MPI_File_seek(fh, 7, MPI_SEEK_SET));
    EXPECT_RAISES(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG, "seek with a bad whence");
    EXPECT_RAISES(MPI_File_seek(fh, -100, MPI_SEEK_CUR), MPI_ERR_ARG, "seek before the start");
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 7, "refused seeks moved the pointer from 7 to %lld", (long long)pos);

    EXPECT_RAISES(MPI_File_get_position(fh, NULL), MPI_ERR_ARG, "get_position(NULL)");
    EXPECT_RAISES(MPI_File_get_size(fh, NULL), MPI_ERR_ARG, "get_size(NULL)");

    OK(MPI_File_seek_shared(fh, 5, MPI_SEEK_SET));
    EXPECT_RAISES(MPI_File_seek_shared(fh, 0, 12345), -1, "seek_shared with a bad whence");
    EXPECT_RAISES(MPI_File_seek_shared(fh, -100, MPI_SEEK_CUR), -1, "seek_shared before the start");
    OK(MPI_File_get_position_shared(fh, &sh));
    CHECK(sh == 5, "refused shared seeks moved the shared pointer from 5 to %lld", (long long)sh);
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));

    /* a view whose info only rank 0 gets wrong (not an info object): its
     * hints are refused there, the view is set everywhere, and no rank
     * waits */
    {
        MPI_Info bad = (MPI_Info)0x5ceb1234;
        MPI_Datatype et = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
        MPI_Offset disp = -1;
        char rep[MPI_MAX_DATAREP_STRING];

        if (mtest_rank == 0)
            EXPECT_RAISES(MPI_File_set_view(fh, 8, MPI_INT, MPI_INT, "native", bad), MPI_ERR_INFO,
                          "set_view with a bad info");
        else
            OK(MPI_File_set_view(fh, 8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
        CHECK(disp == 8 && et == MPI_INT && ft == MPI_INT, "the view is disp %lld",
              (long long)disp);
        OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    }
}

/* Accesses refused by their checks, on every rank or on one. */
static void accesses(MPI_File fh)
{
    char bytes[3] = {1, 2, 3};
    int ints[4] = {1, 2, 3, 4}, rc;
    MPI_Offset size, sh = -1, pos = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;

    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_write_at_all(fh, (MPI_Offset)mtest_rank * 4, ints, 4, MPI_INT, MPI_STATUS_IGNORE));
    size = size_of(fh);

    /* not a whole number of etypes, in every form */
    EXPECT_RAISES(MPI_File_write_all(fh, bytes, 3, MPI_BYTE, &st), MPI_ERR_TYPE,
                  "write_all of 3 bytes");
    EXPECT_RAISES(MPI_File_write_ordered(fh, bytes, 3, MPI_BYTE, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
                  "write_ordered of 3 bytes");
    EXPECT_RAISES(MPI_File_write_shared(fh, bytes, 3, MPI_BYTE, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
                  "write_shared of 3 bytes");
    rc = EXPECT_RAISES(MPI_File_iwrite_at(fh, 100, bytes, 3, MPI_BYTE, &req), MPI_ERR_TYPE,
                       "iwrite_at of 3 bytes");
    /* whatever request came back completes, having moved nothing */
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) {
        int n = -1;
        OK(MPI_Wait(&req, &st));
        OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 0, "the refused iwrite_at's request reports %d bytes", n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(size_of(fh) == size, "refused writes changed the size from %lld to %lld", (long long)size,
          (long long)size_of(fh));
    OK(MPI_File_get_position_shared(fh, &sh));
    CHECK(sh == 0, "refused shared writes moved the shared pointer to %lld", (long long)sh);
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0, "refused writes moved the individual pointer to %lld", (long long)pos);

    /* one rank's bad offset: the others do not wait for it */
    EXPECT_RAISES(MPI_File_read_at_all(fh, mtest_rank == 0 ? -1 : 0, ints, 4, MPI_INT, &st),
                  mtest_rank == 0 ? MPI_ERR_ARG : -1, "read_at_all, bad offset on 0");
    /* one rank's access of 3 bytes in an ordered write */
    EXPECT_RAISES(MPI_File_write_ordered(
                      fh, mtest_rank == mtest_size - 1 ? (void *)bytes : (void *)ints,
                      mtest_rank == mtest_size - 1 ? 3 : 1,
                      mtest_rank == mtest_size - 1 ? MPI_BYTE : MPI_INT, MPI_STATUS_IGNORE),
                  mtest_rank == mtest_size - 1 ? MPI_ERR_TYPE : -1,
                  "write_ordered, 3 bytes on the last rank");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(size_of(fh) == size, "the refused collectives changed the size from %lld to %lld",
          (long long)size, (long long)size_of(fh));

    /* the file still works */
    OK(MPI_File_read_at_all(fh, (MPI_Offset)mtest_rank * 4, ints, 4, MPI_INT, &st));
    CHECK(ints[0] == 1 && ints[3] == 4, "read back %d..%d, want 1..4", ints[0], ints[3]);
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
}

/* Split collectives called out of order. */
static void splits(MPI_File fh)
{
    int a[4] = {0}, b[4] = {0}, n = -1;
    MPI_Status st;

    EXPECT_RAISES(MPI_File_read_all_end(fh, a, &st), -1, "read_all_end without a begin");

    OK(MPI_File_read_at_all_begin(fh, (MPI_Offset)mtest_rank * 16, a, 4, MPI_INT));
    EXPECT_RAISES(MPI_File_read_all_begin(fh, b, 4, MPI_INT), -1, "a second split collective");
    EXPECT_RAISES(MPI_File_write_all_end(fh, a, &st), -1, "write_all_end for a read");
    EXPECT_RAISES(MPI_File_read_at_all_end(fh, b, &st), MPI_ERR_BUFFER,
                  "read_at_all_end with another buffer");
    EXPECT_RAISES(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), -1,
                  "set_view during a split collective");
    EXPECT_RAISES(MPI_File_close(&fh), -1, "close during a split collective");
    CHECK(fh != MPI_FILE_NULL, "the refused close took the handle");
    /* the split collective in progress still ends as begun */
    OK(MPI_File_read_at_all_end(fh, a, &st));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4 && a[0] == 1 && a[3] == 4, "the split read gave %d ints %d..%d", n, a[0], a[3]);
}

/* Size calls on a read-only file, and sizes that differ between ranks. */
static void sizes(MPI_File fh, MPI_File ro)
{
    MPI_Offset size = size_of(ro);

    EXPECT_RAISES(MPI_File_set_size(ro, 0), MPI_ERR_READ_ONLY, "set_size on a read-only file");
    EXPECT_RAISES(MPI_File_preallocate(ro, size + 4096), MPI_ERR_READ_ONLY,
                  "preallocate on a read-only file");
    EXPECT_RAISES(MPI_File_sync(ro), MPI_ERR_ACCESS, "sync of a read-only file");
    EXPECT_RAISES(MPI_File_write_at_all(ro, 0, &size, 1, MPI_LONG_LONG, MPI_STATUS_IGNORE),
                  MPI_ERR_READ_ONLY, "write_at_all on a read-only file");
    CHECK(size_of(ro) == size, "refused size calls changed the size from %lld to %lld",
          (long long)size, (long long)size_of(ro));

    /* rank 0 alone passes a negative size: every rank is told, none waits */
    EXPECT_RAISES(MPI_File_set_size(fh, mtest_rank == 0 ? -1 : size),
                  mtest_size > 1 ? MPI_ERR_NOT_SAME : MPI_ERR_ARG, "set_size, negative on rank 0");
    CHECK(size_of(fh) == size, "the refused set_size changed the size to %lld",
          (long long)size_of(fh));
}

/* The shared file pointer's side file cannot be opened (no descriptor left):
 * the shared write fails and writes nothing anywhere. */
static void no_descriptors(void)
{
    MPI_File fh = MPI_FILE_NULL;
    struct rlimit old, low;
    int ints[4] = {5, 6, 7, 8}, rc, before, lowest;
    MPI_Offset sh = -1;
    char name[32];

    snprintf(name, sizeof name, "nofd%d.dat", mtest_rank);
    OK(MPI_File_open(MPI_COMM_SELF, io_path(name),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    if (fh == MPI_FILE_NULL || getrlimit(RLIMIT_NOFILE, &old) != 0 ||
        (lowest = open("/dev/null", O_RDONLY)) < 0) {
        CHECK(0, "cannot set up the descriptor limit");
        return;
    }
    close(lowest);
    low = old;
    low.rlim_cur = (rlim_t)lowest; /* the next open fails with EMFILE */
    before = ncalls;
    if (setrlimit(RLIMIT_NOFILE, &low) == 0) {
        rc = MPI_File_write_shared(fh, ints, 4, MPI_INT, MPI_STATUS_IGNORE);
        setrlimit(RLIMIT_NOFILE, &old);
        EXPECT_RAISED(rc, before, MPI_ERR_IO, "write_shared without descriptors");
        CHECK(size_of(fh) == 0, "the failed shared write wrote %lld bytes", (long long)size_of(fh));
    }
    /* with descriptors again, the shared pointer works from 0 */
    OK(MPI_File_write_shared(fh, ints, 4, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_get_position_shared(fh, &sh));
    CHECK(sh == 16 && size_of(fh) == 16, "shared write: pointer %lld size %lld, want 16 16",
          (long long)sh, (long long)size_of(fh));
    OK(MPI_File_close(&fh));
}

static void run(MPI_Errhandler eh)
{
    MPI_File fh = MPI_FILE_NULL, ro = MPI_FILE_NULL;
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    int ints[4] = {1, 2, 3, 4};

    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    null_handles();

    OK(MPI_File_open(MPI_COMM_WORLD, io_path("paths.dat"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "the file did not inherit MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    pointers(fh);
    accesses(fh);
    OK(MPI_File_write_at_all(fh, (MPI_Offset)mtest_rank * 16, ints, 4, MPI_INT, MPI_STATUS_IGNORE));
    splits(fh);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("paths.dat"), MPI_MODE_RDONLY, MPI_INFO_NULL, &ro));
    sizes(fh, ro);
    OK(MPI_File_close(&ro));
    no_descriptors();
    OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (mtest_rank == 0)
        OK(MPI_File_delete(io_path("paths.dat"), MPI_INFO_NULL));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;

    mtest_init(&argc, &argv);
    io_dir_make();
    OK(MPI_File_create_errhandler(on_error, &eh));
    clearing = 1;
    run(eh);
    clearing = 0;
    run(eh);
    MPI_Errhandler_free(&eh);
    io_dir_remove();
    return mtest_finish();
}
