/*
 * Spawning what cannot run: a missing executable (MPI_Comm_spawn and
 * spawn_multiple with one good and one missing command; found by the root's
 * check, or with CANAL_SPAWN_CHECK=0 reported by the launcher), maxprocs 0,
 * a negative count, and (with a short CANAL_SPAWN_TIMEOUT) a program that
 * never connects. Each fails with the MPICH class on every member of the
 * parent communicator (MPI_ERR_SPAWN, or MPI_ERR_ARG for count), the
 * errcodes are set, the intercommunicator is MPI_COMM_NULL, nothing hangs,
 * and the job goes on (a point-to-point exchange afterwards).
 */
#include <unistd.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Comm inter = MPI_COMM_WORLD;
    int rank, size, err, cls, codes[4] = {-1, -1, -1, -1};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    err = MPI_Comm_spawn("/nonexistent/canal-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                         MPI_COMM_WORLD, &inter, codes);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_SPAWN, "missing executable: class %d", cls);
    CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "errcodes %d %d", codes[0],
          codes[1]);
    CHECK(inter == MPI_COMM_NULL, "intercomm not MPI_COMM_NULL");
    if (rank == 0 && cls == MPI_ERR_SPAWN) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        CHECK(strstr(msg, "canal-no-such-program") != NULL, "message '%s'", msg);
    }

    {
        char *cmds[2] = {argv[0], "canal-no-such-program-either"};
        int np[2] = {1, 1};
        for (int i = 0; i < 4; i++)
            codes[i] = -1;
        err = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, NULL, 0, MPI_COMM_WORLD, &inter,
                                      codes);
        cls = mtest_error_class(err);
        CHECK(cls == MPI_ERR_SPAWN, "spawn_multiple with a missing one: class %d", cls);
        CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "errcodes %d %d", codes[0],
              codes[1]);
    }

    {
        /* the missing command first: every process asked for gets its code,
         * those of the commands after it too (not only the ones before) */
        char *cmds[2] = {"canal-no-such-program-either", argv[0]};
        int np[2] = {1, 2};
        for (int i = 0; i < 4; i++)
            codes[i] = -1;
        err = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, NULL, 0, MPI_COMM_WORLD, &inter,
                                      codes);
        cls = mtest_error_class(err);
        CHECK(cls == MPI_ERR_SPAWN, "spawn_multiple, the first missing: class %d", cls);
        CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN &&
                  codes[3] == -1,
              "errcodes %d %d %d %d", codes[0], codes[1], codes[2], codes[3]);
    }

    err = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                         MPI_ERRCODES_IGNORE);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_SPAWN, "maxprocs 0: class %d", cls);
    err = MPI_Comm_spawn_multiple(-1, NULL, MPI_ARGVS_NULL, NULL, NULL, 0, MPI_COMM_WORLD, &inter,
                                  MPI_ERRCODES_IGNORE);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_ARG, "count -1: class %d", cls);
    err = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter,
                         MPI_ERRCODES_IGNORE);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_ROOT, "root=size: class %d", cls);

    /* A program that never calls MPI_Init (and so never connects): with a
     * short CANAL_SPAWN_TIMEOUT the spawn fails instead of waiting. */
    if (getenv("CANAL_SPAWN_TIMEOUT") != NULL && atoi(getenv("CANAL_SPAWN_TIMEOUT")) <= 10) {
        for (int i = 0; i < 4; i++)
            codes[i] = -1;
        err = MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                             &inter, codes);
        cls = mtest_error_class(err);
        CHECK(cls == MPI_ERR_SPAWN, "a program that never connects: class %d", cls);
        CHECK(codes[0] == MPI_ERR_SPAWN, "errcodes[0] %d", codes[0]);
    }

    /* the job is fine */
    {
        int v = rank, w = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 0, &w, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(w == (rank + size - 1) % size, "ring %d", w);
    }
    return mtest_finish();
}
