/*
 * Which protocol a message to a peer on this node takes, at the eager
 * limit and one byte past it: a message of the limit goes eagerly, one
 * byte more by rendezvous (the MPI_T counter canal_rndv_sent, read at the
 * sender). The limit expected follows the rule doc/design.md gives: the
 * user's CANAL_EAGER_LIMIT for every peer when set (argument "user");
 * else, while the shm channel's single-copy reads work, the channel's
 * CANAL_SHM_EAGER_LIMIT (whose default depends on the CPU: 4 KiB on Intel,
 * 16 KiB elsewhere); else CANAL_EAGER_LIMIT's default; each at most the
 * channel's largest packet (CANAL_SHM_CELL_SIZE). On an oversubscribed
 * node (argument "over", the line sets CANAL_OVERSUBSCRIBED=yes) a channel
 * limit below CANAL_EAGER_LIMIT does not hold while rendezvous messages of
 * that size stream (below CANAL_RNDV_STREAM_MAX): an 8 KiB message to a
 * peer took RTS, CTS and the data through the ring there, two copies as
 * eager's, where CANAL_SHM_EAGER_LIMIT was 2 KiB (as 4 KiB is on Intel
 * CPUs by default). The values are read
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
    int user = argc > 1 && strcmp(argv[1], "user") == 0, prov, cma = 0;
    int over = argc > 1 && strcmp(argv[1], "over") == 0;
    long long eager, shm_eager, cell, stream_max, expect;
    unsigned long long p0;
    long long big;
    char *buf;

    mtest_init(&argc, &argv);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    eager = mtest_cvar("CANAL_EAGER_LIMIT");
    shm_eager = mtest_cvar("CANAL_SHM_EAGER_LIMIT");
    cell = mtest_cvar("CANAL_SHM_CELL_SIZE");
    stream_max = mtest_cvar("CANAL_RNDV_STREAM_MAX");
    /* (below CANAL_RNDV_STREAM_MAX an oversubscribed node streams) */
    big = stream_max > (1 << 20) ? stream_max : (1 << 20);
    buf = calloc((size_t)big, 1);
    CHECK(buf != NULL, "no memory");
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (mtest_rank <= 1) {
        /* single-copy reads: a receive of 1 MiB (or CANAL_RNDV_STREAM_MAX) is pulled */
        p0 = mtest_counter("canal_rndv_pulled");
        send_is_rndv(buf, (int)big);
        cma = mtest_counter("canal_rndv_pulled") > p0;
    } else {
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Bcast(&cma, 1, MPI_INT, 1, MPI_COMM_WORLD));
    expect = user || !cma ? eager : shm_eager;
    if (!user && cma && over && shm_eager < eager && stream_max > eager)
        expect = eager;
    if (expect > cell)
        expect = cell;
    if (mtest_rank == 0)
        printf("eager limit to a local peer: expected %lld (CANAL_EAGER_LIMIT %lld%s, "
               "CANAL_SHM_EAGER_LIMIT %lld, cell %lld, single-copy reads %s, oversubscribed %s, "
               "streamed below %lld)\n",
               expect, eager, user ? " set" : "", shm_eager, cell, cma ? "yes" : "no",
               over ? "yes" : "no", stream_max);
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
