/*
 * What the err_handler_clears tests share: an error handler that records
 * the call (how many times it ran, on which communicator, with which class)
 * and clears the code to MPI_SUCCESS, clear_install() that puts it on
 * MPI_COMM_WORLD and MPI_COMM_SELF (and returns it for other communicators),
 * EXPECT(call, comm, class), which checks that the call returned the
 * handler's MPI_SUCCESS after the handler ran exactly once, on comm, with
 * that class, and QUIET(call), which checks that the call succeeded without
 * running the handler (under a clearing handler MPI_SUCCESS alone proves
 * nothing). win_clear and EXPECT_WIN(call, class) are the same for a
 * window's handler. Include after mtest.h.
 */
#ifndef ERR_CLEAR_EXPECT_H
#define ERR_CLEAR_EXPECT_H

static int ncalls, last_class, last_on_win;
static MPI_Comm last_comm;

static void comm_clear(MPI_Comm *comm, int *code, ...)
{
    ncalls++;
    last_comm = *comm;
    last_on_win = 0;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
}

/* The same handler for windows (MPI_Win_create_errhandler(win_clear, ...)):
 * EXPECT_WIN checks that it, not a communicator's, ran. */
static inline void win_clear(MPI_Win *win, int *code, ...) /* (inline: unused is fine) */
{
    (void)win;
    ncalls++;
    last_comm = MPI_COMM_NULL;
    last_on_win = 1;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
}

/* The clearing handler on MPI_COMM_WORLD and MPI_COMM_SELF; the caller
 * frees what it returns (MPI_Errhandler_free) once no other communicator
 * needs it. */
static MPI_Errhandler clear_install(void)
{
    MPI_Errhandler eh;

    MPI_Comm_create_errhandler(comm_clear, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    return eh;
}

/* the call returned rc: the handler must have run once, on comm, with class want */
static void expect_at(int line, const char *what, int rc, int before, MPI_Comm comm, int want)
{
    int same = 0;

    CHECK(rc == MPI_SUCCESS, "line %d: %s: returned %d, want the handler's MPI_SUCCESS", line,
          what, rc);
    CHECK(ncalls == before + 1, "line %d: %s: handler ran %d times, want 1", line, what,
          ncalls - before);
    if (ncalls == before + 1) {
        if (comm == MPI_COMM_NULL || last_comm == MPI_COMM_NULL)
            same = comm == last_comm ? MPI_IDENT : MPI_UNEQUAL;
        else
            MPI_Comm_compare(comm, last_comm, &same);
        CHECK(same == MPI_IDENT, "line %d: %s: handler ran on another %s", line, what,
              last_on_win ? "object (a window's)" : "communicator");
        CHECK(last_class == want, "line %d: %s: error class %d, want %d", line, what, last_class,
              want);
    }
}

#define EXPECT(call, comm, cls)                                                                    \
    do {                                                                                           \
        int before_ = ncalls;                                                                      \
        expect_at(__LINE__, #call, (call), before_, comm, cls);                                    \
    } while (0)

/* the call's window handler (win_clear) ran once with class cls */
#define EXPECT_WIN(call, cls)                                                                      \
    do {                                                                                           \
        int before_ = ncalls;                                                                      \
        expect_at(__LINE__, #call, (call), before_, MPI_COMM_NULL, cls);                           \
    } while (0)

#define QUIET(call)                                                                                \
    do {                                                                                           \
        int before_ = ncalls, rc_ = (call);                                                        \
        CHECK(rc_ == MPI_SUCCESS && ncalls == before_,                                             \
              "%s: returned %d and ran the handler %d times, want MPI_SUCCESS and 0", #call, rc_,  \
              ncalls - before_);                                                                   \
    } while (0)

#endif
