/*
 * dyn_intercomm_create: MPI_Intercomm_create between processes of two jobs,
 * as MPICH's spawn/spaiccreate and spaiccreate2 do. Parent rank 0 alone
 * spawns two children (over MPI_COMM_SELF), so parent rank 1 has never met
 * them; both worlds then build one intercommunicator with that spawn
 * intercommunicator as peer_comm, and every child sends to every parent.
 * Second, the parents' and children's merged communicator is split into
 * even and odd ranks (each half mixes the two jobs) and the halves build an
 * intercommunicator over the merged one: a send-receive with the partner
 * of the same rank and a barrier must work.
 */
#include <limits.h>
#include <stdlib.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Comm parent, inter = MPI_COMM_NULL, all, merged, half, halves;
    int wrank, wsize, is_child, rsize, mrank, hrank, got = -1;
    char self[PATH_MAX];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_get_parent(&parent);
    is_child = parent != MPI_COMM_NULL;
    if (!is_child && wsize != 2) {
        fprintf(stderr, "run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (is_child) {
        inter = parent;
    } else if (wrank == 0) {
        if (realpath(argv[0], self) == NULL)
            snprintf(self, sizeof self, "%s", argv[0]);
        MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                       MPI_ERRCODES_IGNORE);
    }
    /* 1. the two worlds, with the spawn intercommunicator as peer_comm */
    MPI_Intercomm_create(MPI_COMM_WORLD, 0, inter, 0, 123, &all);
    MPI_Comm_remote_size(all, &rsize);
    CHECK(rsize == 2, "remote size %d, expected 2", rsize);
    if (is_child) {
        for (int p = 0; p < rsize; p++)
            MPI_Send(&wrank, 1, MPI_INT, p, 7, all);
    } else {
        for (int c = 0; c < rsize; c++) {
            MPI_Recv(&got, 1, MPI_INT, c, 7, all, MPI_STATUS_IGNORE);
            CHECK(got == c, "parent %d received %d from child %d", wrank, got, c);
        }
    }
    MPI_Barrier(all);

    /* 2. halves that mix the jobs */
    MPI_Intercomm_merge(all, is_child, &merged);
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_split(merged, mrank % 2, mrank, &half);
    MPI_Intercomm_create(half, 0, merged, (mrank + 1) % 2, 456, &halves);
    MPI_Comm_rank(halves, &hrank);
    got = -1;
    MPI_Sendrecv(&mrank, 1, MPI_INT, hrank, 8, &got, 1, MPI_INT, hrank, 8, halves,
                 MPI_STATUS_IGNORE);
    /* merged ranks: the two halves' rank k are 2k and 2k+1 */
    CHECK(got == (mrank ^ 1), "merged rank %d got %d from its partner", mrank, got);
    MPI_Barrier(halves);

    MPI_Comm_free(&halves);
    MPI_Comm_free(&half);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&all);
    if (inter != MPI_COMM_NULL)
        MPI_Comm_disconnect(&inter);
    if (is_child) {
        MPI_Finalize();
        return 0;
    }
    return mtest_finish();
}
