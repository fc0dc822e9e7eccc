/*
 * dyn_intercomm_create: MPI_Intercomm_create between processes of two jobs,
 * as MPICH's spawn/spaiccreate and spaiccreate2 do. Parent rank 0 alone
 * spawns two children (over MPI_COMM_SELF), so parent rank 1 has never met
 * them; both worlds then build one intercommunicator with that spawn
 * intercommunicator as peer_comm, and every child sends to every parent.
 * Second, the parents' and children's merged communicator is split into
 * even and odd ranks (each half mixes the two jobs) and the halves build an
 * intercommunicator over the merged one: a send-receive with the partner
 * of the same rank and a barrier must work. Third, two other mixed halves
 * connect and accept through a port and talk.
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

    /* 3. connect/accept between groups that each mix the two jobs (MPICH
     * disconnect_reconnect3): {parent 0, child 1} accepts, {parent 1,
     * child 0} connects, so the two roots are of one job and the members'
     * job ranks alone would name the wrong processes */
    {
        char port[MPI_MAX_PORT_NAME] = "";
        MPI_Comm ca, mix;
        int carank, rs, acceptor = mrank == 0 || mrank == 3;
        MPI_Comm_split(merged, acceptor, mrank, &mix);
        if (mrank == 0)
            MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, merged);
        for (int round = 0; round < 3; round++) {
            if (acceptor)
                MPI_Comm_accept(port, MPI_INFO_NULL, 0, mix, &ca);
            else
                MPI_Comm_connect(port, MPI_INFO_NULL, 0, mix, &ca);
            MPI_Comm_rank(ca, &carank);
            MPI_Comm_remote_size(ca, &rs);
            got = -1;
            MPI_Sendrecv(&mrank, 1, MPI_INT, carank, 9, &got, 1, MPI_INT, carank, 9, ca,
                         MPI_STATUS_IGNORE);
            CHECK(got == (mrank ^ 1), "round %d: merged rank %d got %d over connect/accept", round,
                  mrank, got);
            /* every member talks to every remote member: merged ranks 0+3 and 1+2 */
            got = 0;
            for (int r = 0; r < rs; r++) {
                int v = -100;
                MPI_Sendrecv(&mrank, 1, MPI_INT, r, 10, &v, 1, MPI_INT, r, 10, ca,
                             MPI_STATUS_IGNORE);
                got += v;
            }
            CHECK(got == 3 && rs == 2, "round %d: remote sum %d, remote size %d", round, got, rs);
            MPI_Comm_disconnect(&ca);
        }
        MPI_Comm_free(&mix);
        MPI_Barrier(merged);
        if (mrank == 0)
            MPI_Close_port(port);
    }

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
