/*
 * dyn_spawn_manyargs: MPI_Comm_spawn with many arguments, as MPICH's
 * spawn/spawnmanyarg (16 to 256 arguments of 8 characters): the parent
 * spawns two children with N arguments "a0", "a1", ... for N = 16, 64,
 * 256 and 1000, in turn; each child checks that it got exactly those and
 * tells parent rank 0 its argc, and the parent checks every answer.
 */
#include <limits.h>
#include <stdlib.h>

#include "mtest.h"

enum { NKIDS = 2, MAXARGS = 1000 };

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        static const int counts[] = {16, 64, 256, MAXARGS};
        char **args = calloc(MAXARGS + 1, sizeof *args);
        char self[PATH_MAX];
        if (realpath(argv[0], self) == NULL)
            snprintf(self, sizeof self, "%s", argv[0]);
        for (int i = 0; i < MAXARGS; i++) {
            args[i] = malloc(16);
            snprintf(args[i], 16, "a%d", i);
        }
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int n = counts[k], codes[NKIDS] = {-1, -1}, err;
            char *saved = args[n];
            args[n] = NULL;
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            err =
                MPI_Comm_spawn(self, args, NKIDS, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
            args[n] = saved;
            CHECK(err == MPI_SUCCESS, "spawn with %d arguments failed (class %d)", n,
                  mtest_error_class(err));
            if (err != MPI_SUCCESS)
                break;
            if (rank == 0)
                for (int c = 0; c < NKIDS; c++) {
                    int got = -1;
                    MPI_Recv(&got, 1, MPI_INT, c, 3, inter, MPI_STATUS_IGNORE);
                    CHECK(got == n, "child %d reports %d good arguments of %d", c, got, n);
                }
            MPI_Comm_disconnect(&inter);
        }
        for (int i = 0; i < MAXARGS; i++)
            free(args[i]);
        free(args);
        return mtest_finish();
    }
    {
        /* a child: argc - 1 arguments, each "a<i>"; -1 if one differs */
        int good = argc - 1;
        for (int i = 1; i < argc; i++) {
            char want[16];
            snprintf(want, sizeof want, "a%d", i - 1);
            if (strcmp(argv[i], want) != 0) {
                fprintf(stderr, "child: argument %d is '%.20s', expected '%s'\n", i, argv[i], want);
                good = -1;
                break;
            }
        }
        MPI_Send(&good, 1, MPI_INT, 0, 3, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
}
