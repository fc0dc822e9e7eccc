/*
 * dyn_universe: a program that spawns only where MPI_UNIVERSE_SIZE leaves
 * room, as MPICH's spawn tests do (MTestSpawnPossible): the parent job
 * spawns as many children as the node has CPUs (2 to 8), and the children,
 * deciding with the same rule whether they run in a universe that has room
 * for them, must find that it has, or they would skip the exchange the
 * parent waits for. Every child's MPI_UNIVERSE_SIZE is at least the number
 * of processes that run (parents and children), and the children answer the
 * parent over the intercommunicator.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, size, flag, *universe;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
    CHECK(flag, "MPI_UNIVERSE_SIZE is not set");
    if (parent == MPI_COMM_NULL) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int nkids = cpus < 2 ? 2 : cpus > 8 ? 8 : (int)cpus, answers = 0;
        char self[PATH_MAX];
        if (realpath(argv[0], self) == NULL)
            snprintf(self, sizeof self, "%s", argv[0]);
        MPI_Comm_spawn(self, MPI_ARGV_NULL, nkids, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        /* the children tell parent 0 what they saw: 1 if they found room */
        if (rank == 0) {
            for (int c = 0; c < nkids; c++) {
                int ok = -1;
                MPI_Recv(&ok, 1, MPI_INT, c, 7, inter, MPI_STATUS_IGNORE);
                answers += ok == 1;
            }
            CHECK(answers == nkids, "%d of %d children found room in the universe", answers, nkids);
        }
        MPI_Comm_disconnect(&inter);
    } else {
        int nparents, ok, live;
        MPI_Comm_remote_size(parent, &nparents);
        live = nparents + size;
        ok = flag && *universe >= live;
        if (!ok)
            fprintf(stderr, "child %d: MPI_UNIVERSE_SIZE %d, but %d parents and %d children run\n",
                    rank, flag ? *universe : -1, nparents, size);
        MPI_Send(&ok, 1, MPI_INT, 0, 7, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    return mtest_finish();
}
