/*
 * What err_handler_clears2.c and err_handler_clears3.c share: an error
 * handler that records the call (how many times it ran, on which
 * communicator, with which class) and clears the code to MPI_SUCCESS, and
 * EXPECT(call, comm, class), which checks that the call returned the
 * handler's MPI_SUCCESS after the handler ran exactly once, on comm, with
 * that class. Include after mtest.h.
 */
#ifndef ERR_CLEAR_EXPECT_H
#define ERR_CLEAR_EXPECT_H

static int ncalls, last_class;
static MPI_Comm last_comm;

static void comm_clear(MPI_Comm *comm, int *code, ...)
{
    ncalls++;
    last_comm = *comm;
    MPI_Error_class(*code, &last_class);
    *code = MPI_SUCCESS;
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
        MPI_Comm_compare(comm, last_comm, &same);
        CHECK(same == MPI_IDENT, "line %d: %s: handler ran on another communicator", line, what);
        CHECK(last_class == want, "line %d: %s: error class %d, want %d", line, what, last_class,
              want);
    }
}

#define EXPECT(call, comm, cls)                                                                    \
    do {                                                                                           \
        int before_ = ncalls;                                                                      \
        expect_at(__LINE__, #call, (call), before_, comm, cls);                                    \
    } while (0)

#endif
