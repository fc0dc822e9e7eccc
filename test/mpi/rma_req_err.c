/*
 * A request-based operation that fails where it is issued must fail its
 * request too, also when the window's error handler cleared the code: an
 * MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate on a dynamic
 * window toward a displacement no memory is attached at (the origin finds
 * it on its own memory, the direct path). Each call runs the window's
 * handler once with MPI_ERR_RMA_RANGE and returns the handler's
 * MPI_SUCCESS; MPI_Wait on its request must then return MPI_ERR_RMA_RANGE
 * (MPI_ERRORS_RETURN on MPI_COMM_WORLD), not MPI_SUCCESS as if the data had
 * moved. Under MPI_ERRORS_RETURN on the window the call returns the class
 * and its request fails the same way. Before, rma/'s direct path completed
 * the request as successful when the handler cleared the code (the raise
 * returned MPI_SUCCESS and the request took that as the operation's
 * result). MPICH 4.0.2 does not check a dynamic window's addresses (it
 * writes there), so this is Canal's own behaviour. Every rank targets
 * itself, so any number of ranks works.
 */
#include "mtest.h"

static int ncalls, last_class;

static void win_clear(MPI_Win *win, int *code, ...)
{
    (void)win;
    ncalls++;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
}

/* call returned rc and made *req: the handler ran `runs` times with
 * MPI_ERR_RMA_RANGE, rc is want_rc's class, MPI_Wait gives MPI_ERR_RMA_RANGE */
static void expect_failed(int line, const char *what, int rc, int before, int runs, int want_rc,
                          MPI_Request *req)
{
    int cls = MPI_SUCCESS, wcls = MPI_SUCCESS, wrc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want_rc, "line %d: %s: returned class %d, want %d", line, what, cls, want_rc);
    CHECK(ncalls == before + runs, "line %d: %s: handler ran %d times, want %d", line, what,
          ncalls - before, runs);
    CHECK(runs == 0 || last_class == MPI_ERR_RMA_RANGE, "line %d: %s: handler saw class %d", line,
          what, last_class);
    wrc = MPI_Wait(req, MPI_STATUS_IGNORE);
    if (wrc != MPI_SUCCESS)
        MPI_Error_class(wrc, &wcls);
    CHECK(wcls == MPI_ERR_RMA_RANGE,
          "line %d: %s: MPI_Wait on its request returned class %d, want MPI_ERR_RMA_RANGE (%d)",
          line, what, wcls, MPI_ERR_RMA_RANGE);
}

#define FAILS(call, req, runs, want_rc)                                                            \
    do {                                                                                           \
        int before_ = ncalls;                                                                      \
        expect_failed(__LINE__, #call, (call), before_, runs, want_rc, req);                       \
    } while (0)

static void run(MPI_Win win, int rank, int cleared)
{
    int buf[4] = {1, 2, 3, 4}, res[4] = {-1, -1, -1, -1}, i;
    static int unattached[4];
    MPI_Aint disp;
    MPI_Request req;
    int runs = cleared ? 1 : 0, want = cleared ? MPI_SUCCESS : MPI_ERR_RMA_RANGE;

    MPI_Get_address(unattached, &disp);
    OK(MPI_Win_lock_all(0, win));
    req = MPI_REQUEST_NULL;
    FAILS(MPI_Rput(buf, 4, MPI_INT, rank, disp, 4, MPI_INT, win, &req), &req, runs, want);
    req = MPI_REQUEST_NULL;
    FAILS(MPI_Rget(res, 4, MPI_INT, rank, disp, 4, MPI_INT, win, &req), &req, runs, want);
    req = MPI_REQUEST_NULL;
    FAILS(MPI_Raccumulate(buf, 4, MPI_INT, rank, disp, 4, MPI_INT, MPI_SUM, win, &req), &req, runs,
          want);
    req = MPI_REQUEST_NULL;
    FAILS(MPI_Rget_accumulate(buf, 4, MPI_INT, res, 4, MPI_INT, rank, disp, 4, MPI_INT, MPI_SUM,
                              win, &req),
          &req, runs, want);
    OK(MPI_Win_unlock_all(win));
    for (i = 0; i < 4; i++) {
        CHECK(unattached[i] == 0, "a failed operation wrote unattached[%d] = %d", i, unattached[i]);
        CHECK(res[i] == -1, "a failed get wrote res[%d] = %d", i, res[i]);
    }
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Errhandler eh;
    int rank, mem[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_attach(win, mem, sizeof mem)); /* (memory elsewhere is attached) */
    MPI_Win_create_errhandler(win_clear, &eh);
    OK(MPI_Win_set_errhandler(win, eh));
    MPI_Errhandler_free(&eh);
    run(win, rank, 1);
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    run(win, rank, 0);
    OK(MPI_Win_detach(win, mem));
    OK(MPI_Win_free(&win));
    return mtest_finish();
}
