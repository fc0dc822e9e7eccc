/*
 * Messages of an abandoned collective still in MPI_COMM_WORLD's queues at
 * MPI_Finalize, where their sender finalizes first. Rank 0 calls
 * MPI_Allgather and the others MPI_Alltoall, of blocks of `bytes` (args;
 * default 1 MiB: rendezvous) on MPI_COMM_WORLD: every rank gets the
 * mismatch error, and rank 0's sends to the others stay unmatched (their
 * RTS withdrawn when it left the call: adi_send_detach). After correct
 * collectives, rank 0 calls MPI_Finalize at once and the others 300 ms
 * later, so that rank 0 is past its last progress (in the launcher's
 * fence) when the others free MPI_COMM_WORLD and find its messages. Before
 * the fix, coll_watch_leftovers received each such message: for a
 * rendezvous one it asked rank 0 for the bytes (CTS) and waited for ever;
 * with CANAL_EAGER_LIMIT=4K the 8-rank coll_kind_mismatch hung so most
 * runs. Now a leftover is discarded unread (adi_mdiscard: FIN at once).
 * The others' MPI_Alltoall receives from each other are matched: a
 * rendezvous one streamed in pieces (no CMA) may still be coming when the
 * call returns with the mismatch and the caller frees the buffer; before
 * adi_recv_detach its rest was written there (a segfault in recv_put, 8
 * runs in 10 with 4 ranks, CANAL_SHM_CMA=no, CANAL_RNDV_CHUNK=1024), and
 * its sender waited at MPI_Finalize for a stream whose receiver was in
 * the fence (a hang, once the segfault was fixed).
 * Every rank must end; the runner's timeout turns a hang into a failure.
 * Under MPI_ERRORS_RETURN.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    size_t block = argc > 1 ? (size_t)atol(argv[1]) : 1 << 20, n;
    int rc, total, e;
    char *sbuf, *rbuf;

    mtest_init(&argc, &argv);
    if (mtest_size < 2)
        return mtest_finish();
    n = block * (size_t)mtest_size;
    sbuf = malloc(n);
    rbuf = malloc(n);
    CHECK(sbuf != NULL && rbuf != NULL, "no memory for %zu bytes", n);
    memset(sbuf, mtest_rank + 1, n);
    rc = mtest_rank == 0
             ? MPI_Allgather(sbuf, (int)block, MPI_BYTE, rbuf, (int)block, MPI_BYTE, MPI_COMM_WORLD)
             : MPI_Alltoall(sbuf, (int)block, MPI_BYTE, rbuf, (int)block, MPI_BYTE, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    expect_mismatch(rc, "MPI_Allgather against MPI_Alltoall", "MPI_Allgather", "MPI_Alltoall");
    still_works("the mismatch");
    /* mtest_finish's sum, then the others finalize after rank 0 */
    total = mtest_errors;
    if (mtest_rank == 0) {
        for (int i = 1; i < mtest_size; i++) {
            OK(MPI_Recv(&e, 1, MPI_INT, i, 32767, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            total += e;
        }
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
        fflush(stdout);
    } else {
        OK(MPI_Send(&mtest_errors, 1, MPI_INT, 0, 32767, MPI_COMM_WORLD));
        usleep(300 * 1000);
    }
    MPI_Finalize();
    return total != 0;
}
