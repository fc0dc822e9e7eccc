/*
 * Sessions without MPI_Init: psets (mpi://WORLD, mpi://SELF, canal://NODE),
 * their info, a communicator from the world group (point to point and a
 * collective on it), session info, error handlers (unknown pset name with
 * MPI_ERRORS_RETURN and with a user handler, MPI_Session_call_errhandler),
 * then MPI_Session_finalize. Cannot use mtest.h (it needs MPI_COMM_WORLD).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors, handler_calls, last_code;

#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c);      \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            errors++;                                                                  \
        }                                                                              \
    } while (0)

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    last_code = *code;
}

int main(void)
{
    MPI_Session s;
    MPI_Info info, used;
    MPI_Group g, gs;
    MPI_Comm comm;
    MPI_Errhandler eh, got;
    int err, n, len, size, rank, flag, found_world = 0, found_self = 0, cls, initialized;
    char name[MPI_MAX_PSET_NAME_LEN], val[64];

    /* a session error handler made before anything is initialised (MPI 4.0
     * 11.4.1; MPICH's errhan/sessioncall) */
    MPI_Session s0;
    {
        CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS, "create before init");
        CHECK(MPI_Session_init(MPI_INFO_NULL, eh, &s0) == MPI_SUCCESS, "init with it");
        MPI_Session_call_errhandler(s0, MPI_ERR_OTHER);
        CHECK(handler_calls == 1 && last_code == MPI_ERR_OTHER, "handler calls %d code %d",
              handler_calls, last_code);
        MPI_Errhandler_free(&eh);
        handler_calls = 0;
    }

    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE");
    err = MPI_Session_init(info, MPI_ERRORS_RETURN, &s);
    CHECK(err == MPI_SUCCESS, "init %d", err);
    MPI_Info_free(&info);
    MPI_Session_finalize(&s0);

    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 2, "n %d", n);
    for (int i = 0; i < n; i++) {
        len = 0;
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL) == MPI_SUCCESS && len > 1,
              "len");
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name) == MPI_SUCCESS, "name");
        CHECK((int)strlen(name) + 1 == len, "len %d for %s", len, name);
        found_world |= strcmp(name, "mpi://WORLD") == 0;
        found_self |= strcmp(name, "mpi://SELF") == 0;
        CHECK(MPI_Session_get_pset_info(s, name, &info) == MPI_SUCCESS, "pset info %s", name);
        MPI_Info_get(info, "mpi_size", sizeof val, val, &flag);
        CHECK(flag && atoi(val) >= 1, "mpi_size of %s", name);
        MPI_Info_free(&info);
    }
    CHECK(found_world && found_self, "world %d self %d", found_world, found_self);

    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS, "group");
    MPI_Group_size(g, &size);
    MPI_Group_rank(g, &rank);
    err = MPI_Comm_create_from_group(g, "canal.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                     &comm);
    CHECK(err == MPI_SUCCESS, "comm from group %d", err);
    {
        int r2, s2, right = (rank + 1) % size, left = (rank + size - 1) % size, got_v = -1, sum = 0;
        MPI_Comm_rank(comm, &r2);
        MPI_Comm_size(comm, &s2);
        CHECK(r2 == rank && s2 == size, "rank %d/%d size %d/%d", r2, rank, s2, size);
        MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got_v, 1, MPI_INT, left, 5, comm,
                     MPI_STATUS_IGNORE);
        CHECK(got_v == left, "ring got %d want %d", got_v, left);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
        CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
    }
    CHECK(MPI_Group_from_session_pset(s, "mpi://SELF", &gs) == MPI_SUCCESS, "self group");
    MPI_Group_size(gs, &n);
    CHECK(n == 1, "self size %d", n);
    MPI_Group_free(&gs);

    /* bad input with MPI_ERRORS_RETURN */
    err = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &gs);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "unknown pset: class %d", cls);
    err = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, name);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "n=99: class %d", cls);

    /* session info */
    CHECK(MPI_Session_get_info(s, &used) == MPI_SUCCESS, "get_info");
    MPI_Info_get(used, "thread_level", sizeof val, val, &flag);
    CHECK(flag && strncmp(val, "MPI_THREAD_", 11) == 0, "thread_level %s", flag ? val : "-");
    MPI_Info_free(&used);

    /* error handlers */
    CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS, "create");
    CHECK(MPI_Session_set_errhandler(s, eh) == MPI_SUCCESS, "set");
    CHECK(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS && got == eh, "get");
    MPI_Errhandler_free(&got);
    MPI_Group_from_session_pset(s, "bogus", &gs);
    CHECK(handler_calls == 1, "handler calls %d", handler_calls);
    MPI_Error_class(last_code, &cls);
    CHECK(cls == MPI_ERR_ARG, "handler class %d", cls);
    MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    MPI_Error_class(last_code, &cls);
    CHECK(handler_calls == 2 && cls == MPI_ERR_OTHER, "call_errhandler %d %d", handler_calls,
          cls);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    /* everyone's verdict, then tear down */
    {
        int total = 0;
        MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, comm);
        if (rank == 0)
            printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
        errors = total;
    }
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS && s == MPI_SESSION_NULL, "finalize");
    MPI_Finalized(&initialized);
    return errors != 0;
}
