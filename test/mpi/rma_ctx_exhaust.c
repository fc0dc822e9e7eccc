/* A window needs a context id of its own, like a communicator: with every id
 * taken by communicators, MPI_Win_create, MPI_Win_allocate and
 * MPI_Win_create_dynamic fail with MPI_ERR_OTHER, "too many communicators",
 * through the communicator's handler (MPI_ERRORS_RETURN here), and the
 * window handle stays MPI_WIN_NULL; after one communicator is freed, a
 * window can be created and used (a put and a fence). Before, rma/rma.c
 * passed the device's negative status to the error layer as if it were an
 * MPI error class. */
#include "mtest.h"

enum { MAXC = 20000 };

static void expect_limit(int err, MPI_Win win, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(err != MPI_SUCCESS, "%s succeeded with every context id taken", call);
    if (err == MPI_SUCCESS)
        return;
    CHECK(mtest_error_class(err) == MPI_ERR_OTHER, "%s: class %d, not MPI_ERR_OTHER", call,
          mtest_error_class(err));
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "too many communicators") != NULL, "%s: message \"%s\"", call, msg);
    CHECK(strstr(msg, call) != NULL, "%s: message does not name the call: \"%s\"", call, msg);
    CHECK(win == MPI_WIN_NULL, "%s: the window handle is not MPI_WIN_NULL", call);
}

int main(int argc, char **argv)
{
    static MPI_Comm comms[MAXC];
    int rank, size, n = 0, err, buf[4] = {0}, *mem = NULL;
    MPI_Win win = MPI_WIN_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    while (n < MAXC && MPI_Comm_dup(MPI_COMM_WORLD, &comms[n]) == MPI_SUCCESS)
        n++;
    CHECK(n > 0 && n < MAXC, "no limit reached (%d communicators)", n);

    err = MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    expect_limit(err, win, "MPI_Win_create");
    win = MPI_WIN_NULL;
    err = MPI_Win_allocate(sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    expect_limit(err, win, "MPI_Win_allocate");
    win = MPI_WIN_NULL;
    err = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    expect_limit(err, win, "MPI_Win_create_dynamic");

    /* one id free again: a window works */
    MPI_Comm_free(&comms[--n]);
    win = MPI_WIN_NULL;
    err = MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(err == MPI_SUCCESS, "MPI_Win_create after a free: class %d", mtest_error_class(err));
    if (err == MPI_SUCCESS) {
        int one = rank + 1;
        MPI_Win_fence(0, win);
        MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        CHECK(buf[1] == (rank + size - 1) % size + 1, "put through the window: %d", buf[1]);
        MPI_Win_free(&win);
    }
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&comms[i]);
    return mtest_finish();
}
