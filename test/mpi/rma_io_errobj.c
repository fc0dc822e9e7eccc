/*
 * Argument errors of window and file functions go to the window's or the
 * file's error handler, never to MPI_COMM_WORLD's (MPI 4.0 9.3): the
 * generated entry points check the window/file and their out-pointers
 * through that object (the `win` and `file` kinds of mpi/api/). Each
 * object gets a handler that counts its calls and records the class;
 * MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL, so an error raised there ends
 * the job. An invalid window is MPI_ERR_WIN on MPI_COMM_WORLD's handler, an
 * invalid file MPI_ERR_FILE on MPI_FILE_NULL's.
 */
#include "mtest.h"

#include <unistd.h>

static int win_calls, win_class, file_calls, file_class;
static char last_msg[MPI_MAX_ERROR_STRING];

static void record(int code, int *cls)
{
    int len = 0;
    MPI_Error_class(code, cls);
    MPI_Error_string(code, last_msg, &len);
}

static void win_errh(MPI_Win *win, int *code, ...)
{
    (void)win;
    win_calls++;
    record(*code, &win_class);
}

static void file_errh(MPI_File *fh, int *code, ...)
{
    (void)fh;
    file_calls++;
    record(*code, &file_class);
}

/* The call returned cls after one call of the object's handler, and the
 * message names the function and the argument. */
static void expect(int line, int err, int calls, int got_class, int cls, const char *fn,
                   const char *arg)
{
    int ecls = -1;
    MPI_Error_class(err, &ecls);
    CHECK(ecls == cls && calls == 1 && got_class == cls,
          "line %d: %s returned class %d "
          "(handler: %d calls, class %d), expected %d",
          line, fn, ecls, calls, got_class, cls);
    CHECK(strstr(last_msg, fn) != NULL && strstr(last_msg, arg) != NULL,
          "line %d: the message \"%s\" does not name %s and %s", line, last_msg, fn, arg);
}

#define EXPECT_WIN(cls, call, fn, arg)                                                             \
    do {                                                                                           \
        win_calls = 0;                                                                             \
        win_class = -1;                                                                            \
        last_msg[0] = '\0';                                                                        \
        int e_ = (call);                                                                           \
        expect(__LINE__, e_, win_calls, win_class, cls, fn, arg);                                  \
    } while (0)

#define EXPECT_FILE(cls, call, fn, arg)                                                            \
    do {                                                                                           \
        file_calls = 0;                                                                            \
        file_class = -1;                                                                           \
        last_msg[0] = '\0';                                                                        \
        int e_ = (call);                                                                           \
        expect(__LINE__, e_, file_calls, file_class, cls, fn, arg);                                \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Errhandler weh, feh;
    MPI_Win win;
    MPI_File fh;
    MPI_Offset disp;
    MPI_Datatype et, ft;
    int *base, v = 1, flag = 0, rank, err, cls;
    char name[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* ---- windows */
    MPI_Win_create_errhandler(win_errh, &weh);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, weh);
    EXPECT_WIN(MPI_ERR_ARG, MPI_Win_get_group(win, NULL), "MPI_Win_get_group", "group");
    EXPECT_WIN(MPI_ERR_ARG, MPI_Win_get_attr(win, MPI_WIN_BASE, NULL, &flag), "MPI_Win_get_attr",
               "attribute_val");
    EXPECT_WIN(MPI_ERR_ARG, MPI_Win_get_errhandler(win, NULL), "MPI_Win_get_errhandler",
               "errhandler");
    MPI_Win_lock_all(0, win);
    EXPECT_WIN(MPI_ERR_ARG, MPI_Rput(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win, NULL), "MPI_Rput",
               "request");
    EXPECT_WIN(MPI_ERR_ARG, MPI_Rget_c(&v, 1, MPI_INT, rank, 0, 1, MPI_INT, win, NULL),
               "MPI_Rget_c", "request");
    /* the implementation's checks use the same handler */
    EXPECT_WIN(MPI_ERR_COUNT, MPI_Put(&v, -1, MPI_INT, rank, 0, -1, MPI_INT, win), "MPI_Put",
               "origin_count");
    EXPECT_WIN(MPI_ERR_RANK, MPI_Get(&v, 1, MPI_INT, 1000, 0, 1, MPI_INT, win), "MPI_Get",
               "target_rank");
    MPI_Win_unlock_all(win);
    MPI_Win_post(MPI_GROUP_EMPTY, 0, win);
    EXPECT_WIN(MPI_ERR_ARG, MPI_Win_test(win, NULL), "MPI_Win_test", "flag");
    MPI_Win_wait(win);
    MPI_Win_free(&win);
    MPI_Errhandler_free(&weh);

    /* an invalid window: MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Win_fence(0, MPI_WIN_NULL);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_WIN, "MPI_Win_fence(MPI_WIN_NULL): class %d", cls);
    err = MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_WIN, "MPI_Put(MPI_WIN_NULL): class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* ---- files (one per process) */
    snprintf(name, sizeof name, "/tmp/canal_errobj_%d_%d", (int)getpid(), rank);
    MPI_File_create_errhandler(file_errh, &feh);
    err = MPI_File_open(MPI_COMM_SELF, name,
                        MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                        &fh);
    CHECK(err == MPI_SUCCESS, "MPI_File_open %s", name);
    if (err == MPI_SUCCESS) {
        MPI_File_set_errhandler(fh, feh);
        EXPECT_FILE(MPI_ERR_ARG, MPI_File_get_size(fh, NULL), "MPI_File_get_size", "size");
        EXPECT_FILE(MPI_ERR_ARG, MPI_File_get_view(fh, &disp, &et, &ft, NULL), "MPI_File_get_view",
                    "datarep");
        EXPECT_FILE(MPI_ERR_ARG, MPI_File_iread(fh, &v, 1, MPI_INT, NULL), "MPI_File_iread",
                    "request");
        EXPECT_FILE(MPI_ERR_ARG, MPI_File_iwrite_at_c(fh, 0, &v, 1, MPI_INT, NULL),
                    "MPI_File_iwrite_at_c", "request");
        EXPECT_FILE(MPI_ERR_ARG, MPI_File_get_type_extent(fh, MPI_INT, NULL),
                    "MPI_File_get_type_extent", "extent");
        EXPECT_FILE(MPI_ERR_COUNT, MPI_File_write(fh, &v, -1, MPI_INT, MPI_STATUS_IGNORE),
                    "MPI_File_write", "count");
        MPI_File_close(&fh);
    }
    /* an invalid file: MPI_FILE_NULL's handler */
    MPI_File_set_errhandler(MPI_FILE_NULL, feh);
    {
        MPI_Offset sz;
        EXPECT_FILE(MPI_ERR_FILE, MPI_File_get_size(MPI_FILE_NULL, &sz), "MPI_File_get_size", "fh");
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&feh);
    return mtest_finish();
}
