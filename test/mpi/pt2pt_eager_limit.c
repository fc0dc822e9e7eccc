/*
 * Which protocol a message to a peer on this node takes, at the eager
 * limit and one byte past it: a message of the limit goes eagerly, one
 * byte more by rendezvous (the MPI_T counter canal_rndv_sent, read at the
 * sender). The limit expected follows the rule doc/design.md gives: the
 * user's CANAL_EAGER_LIMIT for every peer when set (argument "user");
 * else, while the shm channel's single-copy reads work, the channel's
 * CANAL_SHM_EAGER_LIMIT (whose default depends on the CPU: 4 KiB on Intel,
 * 16 KiB elsewhere); else CANAL_EAGER_LIMIT's default; each at most the
 * channel's largest packet (CANAL_SHM_CELL_SIZE). The values are read
 * through MPI_T's control variables, as a tool would. Whether single-copy
 * reads work is seen from canal_rndv_pulled at the receiver of a 1 MiB
 * message. 2 ranks or more (the others idle).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

/* Rank 0 sends n bytes to rank 1, whose receive is posted first; returns
 * 1 if the send went by rendezvous (at rank 0; -1 elsewhere). */
static int send_is_rndv(char *buf, int n)
{
    MPI_Request r;
    unsigned long long before = 0;
    int rndv = -1;

    if (mtest_rank == 1)
        OK(MPI_Irecv(buf, n, MPI_BYTE, 0, n, MPI_COMM_WORLD, &r));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mtest_rank == 0) {
        before = mtest_counter("canal_rndv_sent");
        OK(MPI_Send(buf, n, MPI_BYTE, 1, n, MPI_COMM_WORLD));
        rndv = mtest_counter("canal_rndv_sent") > before;
    } else if (mtest_rank == 1) {
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    return rndv;
}

int main(int argc, char **argv)
{
    enum { BIG = 1 << 20 };
    int user = argc > 1 && strcmp(argv[1], "user") == 0, prov, cma = 0;
    long long eager, shm_eager, cell, expect;
    unsigned long long p0;
    char *buf = calloc(BIG, 1);

    mtest_init(&argc, &argv);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    CHECK(buf != NULL, "no memory");
    eager = mtest_cvar("CANAL_EAGER_LIMIT");
    shm_eager = mtest_cvar("CANAL_SHM_EAGER_LIMIT");
    cell = mtest_cvar("CANAL_SHM_CELL_SIZE");
    if (mtest_rank <= 1) {
        /* single-copy reads: a 1 MiB receive is pulled */
        p0 = mtest_counter("canal_rndv_pulled");
        send_is_rndv(buf, BIG);
        cma = mtest_counter("canal_rndv_pulled") > p0;
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Bcast(&cma, 1, MPI_INT, 1, MPI_COMM_WORLD));
    expect = user || !cma ? eager : shm_eager;
    if (expect > cell)
        expect = cell;
    if (mtest_rank == 0)
        printf("eager limit to a local peer: expected %lld (CANAL_EAGER_LIMIT %lld%s, "
               "CANAL_SHM_EAGER_LIMIT %lld, cell %lld, single-copy reads %s)\n",
               expect, eager, user ? " set" : "", shm_eager, cell, cma ? "yes" : "no");
    for (int k = 0; k < 2; k++) {
        int n = (int)expect + k, rndv;
        if (mtest_rank > 1) {
            OK(MPI_Barrier(MPI_COMM_WORLD));
            continue;
        }
        rndv = send_is_rndv(buf, n);
        if (mtest_rank == 0)
            CHECK(rndv == k, "a message of %d bytes went %s (eager limit expected %lld)", n,
                  rndv ? "by rendezvous" : "eagerly", expect);
    }
    free(buf);
    OK(MPI_T_finalize());
    return mtest_finish();
}
