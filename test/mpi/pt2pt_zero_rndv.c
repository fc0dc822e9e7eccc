/*
 * Empty messages sent by rendezvous: with no eager credit left (run with
 * CANAL_EAGER_LIMIT=0 and a tiny CANAL_UNEXPECTED_LIMIT, so that a few
 * unexpected 0-byte messages use up the window), rank 0's later 0-byte
 * MPI_Isends go as RTS. Rank 1 takes them after a barrier, by tag in reverse
 * order, contiguous and into a vector type. Each must
 * complete: the receiver once answered CTS for them and waited for a DATA
 * packet the sender never sends for 0 bytes (pt2pt_unexpected under
 * CANAL_CHANNEL=ofi and CANAL_UNEXPECTED_LIMIT=16K hung there, its 0-byte
 * acknowledgements; doc/bench.md, helper `ofi2`).
 */
#include <mpi.h>
#include <stdio.h>

#include "mtest.h"

enum { NMSG = 24 };

int main(int argc, char **argv)
{
    MPI_Request rq[NMSG];
    MPI_Datatype vec;
    int buf[4] = {7, 7, 7, 7};

    mtest_init(&argc, &argv);
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    if (mtest_rank == 0) {
        for (int i = 0; i < NMSG; i++)
            OK(MPI_Isend(buf, 0, i % 2 ? MPI_INT : vec, 1, i, MPI_COMM_WORLD, &rq[i]));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
    } else if (mtest_rank == 1) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = NMSG - 1; i >= 0; i--) {
            MPI_Status st;
            int n = -1;
            OK(MPI_Recv(buf, i % 3 ? 4 : 2, i % 3 ? MPI_INT : vec, 0, i, MPI_COMM_WORLD, &st));
            OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(n == 0 && st.MPI_SOURCE == 0 && st.MPI_TAG == i,
                  "message %d: %d bytes from %d tag %d", i, n, st.MPI_SOURCE, st.MPI_TAG);
        }
        CHECK(buf[0] == 7 && buf[1] == 7 && buf[2] == 7 && buf[3] == 7,
              "an empty message wrote into the buffer");
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Type_free(&vec));
    return mtest_finish();
}
