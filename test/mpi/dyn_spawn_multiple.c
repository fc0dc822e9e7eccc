/*
 * MPI_Comm_spawn_multiple: the parent job spawns two commands (this program
 * with different arguments): 1 process of "first" and 2 of "second". The
 * children check MPI_APPNUM (0 and 1) and their arguments; MPI_COMM_WORLD
 * of the children holds all three. The "first" child then spawns a
 * grandchild (nested spawn) and swaps a value with it. Everybody reports
 * to the parent's rank 0, which checks every value and error count.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

static char self[PATH_MAX];

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, size, *appnum, flag = 0, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag, "no MPI_APPNUM");
    if (parent == MPI_COMM_NULL) {
        char *cmds[2] = {self, self};
        char *argv0[] = {"first", NULL}, *argv1[] = {"second", "x", NULL};
        char **argvs[2] = {argv0, argv1};
        int np[2] = {1, 2}, codes[3] = {-1, -1, -1}, rsize = 0;
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};

        CHECK(!flag || *appnum == 0, "parent appnum %d", *appnum);
        err = MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter, codes);
        CHECK(err == MPI_SUCCESS, "spawn_multiple err %d", err);
        for (int i = 0; i < 3; i++)
            CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] %d", i, codes[i]);
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == 3, "remote size %d", rsize);
        if (rank == 0) {
            for (int c = 0; c < rsize; c++) {
                int rep[3];
                MPI_Recv(rep, 3, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
                CHECK(rep[0] == (c == 0 ? 0 : 1), "child %d appnum %d", c, rep[0]);
                CHECK(rep[1] == 0, "child %d found %d errors", c, rep[1]);
                CHECK(c != 0 || rep[2] == 777, "grandchild value %d", rep[2]);
            }
        }
        MPI_Comm_disconnect(&inter);
    } else if (argc >= 2 && strcmp(argv[1], "grand") == 0) {
        int v = 0;
        CHECK(size == 1, "grandchild world size %d", size);
        MPI_Recv(&v, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
        v += 700;
        MPI_Send(&v, 1, MPI_INT, 0, 3, parent);
        MPI_Comm_disconnect(&parent);
    } else {
        int rep[3] = {flag ? *appnum : -1, 0, 0};
        CHECK(size == 3, "children world size %d", size);
        if (rep[0] == 0) {
            CHECK(argc == 2 && strcmp(argv[1], "first") == 0, "first's argv");
        } else {
            CHECK(argc == 3 && strcmp(argv[1], "second") == 0 && strcmp(argv[2], "x") == 0,
                  "second's argv");
        }
        if (rep[0] == 0) {
            /* nested: spawn a grandchild over MPI_COMM_SELF */
            char *gargv[] = {"grand", NULL};
            MPI_Comm g;
            int v = 77, code = -1;
            err = MPI_Comm_spawn(self, gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &g, &code);
            CHECK(err == MPI_SUCCESS && code == MPI_SUCCESS, "nested spawn %d/%d", err, code);
            if (err == MPI_SUCCESS) {
                MPI_Send(&v, 1, MPI_INT, 0, 2, g);
                MPI_Recv(&rep[2], 1, MPI_INT, 0, 3, g, MPI_STATUS_IGNORE);
                MPI_Comm_disconnect(&g);
            }
        }
        rep[1] = mtest_errors;
        MPI_Send(rep, 3, MPI_INT, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
    }
    return mtest_finish();
}
