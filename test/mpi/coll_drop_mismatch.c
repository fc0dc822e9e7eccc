/*
 * A send of an abandoned collective whose bytes cannot be kept (issue 26's
 * robustness side). Rank 0 calls MPI_Allgather and the others
 * MPI_Alltoall, of 1 MiB blocks (rendezvous), on a fresh duplicate of
 * MPI_COMM_WORLD: every rank gets the mismatch error and leaves its
 * call with a rendezvous send that no receiver will ever match, whose
 * bytes adi_send_detach copies out of the caller's buffer, freed at once.
 * With CANAL_FAULT_DETACH_NOMEM=1 that copy finds no memory, and with
 * CANAL_DETACH_KEEP_MAX under 1 MiB it is more than may be kept (args=dropped
 * for either): the send is dropped, never reading the freed buffer, and the
 * caller's error says so ("the send was dropped") beside the mismatch.
 * With args=scratch (and the Bruck allgather, which sends from a
 * temporary of the schedule: no copy, the schedule lives while the send
 * does) rank 0's send is not copied, so not dropped either, while rank 1's
 * MPI_Alltoall send from its caller's buffer is. Afterwards
 * collectives on MPI_COMM_WORLD work, and the communicator is freed with
 * the mismatched messages still in its queues. Run with glibc's
 * MALLOC_PERTURB_ so that a read of the freed buffer sees poison or an
 * unmapped page. The RTS of such a send offered the caller's buffer's
 * address (shm: pulled by CMA): the sender withdraws it when it leaves
 * (PKT_WITHDRAW), and the receiver asks for the bytes instead. On a9c9f41
 * the receiver read the freed, unmapped buffer when the communicator was
 * freed (EFAULT: it fell back to asking, and gave up CMA to that peer for
 * the rest of the job): where a 4 MiB exchange on MPI_COMM_WORLD was
 * pulled by CMA before (canal_rndv_pulled), it still is afterwards. Under
 * MPI_ERRORS_RETURN; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

enum { BLOCK = 1 << 20 };

int main(int argc, char **argv)
{
    int scratch = argc > 1 && strcmp(argv[1], "scratch") == 0, rc;
    int dropped = argc > 1 && strcmp(argv[1], "dropped") == 0;
    size_t n;
    char *sbuf, *rbuf, msg[MPI_MAX_ERROR_STRING];
    int len = 0, pulled;
    MPI_Comm c;

    mtest_init(&argc, &argv);
    dropped |= scratch && mtest_rank != 0;
    if (mtest_size < 2)
        return mtest_finish();
    n = (size_t)BLOCK * (size_t)mtest_size;
    pulled = exchange_pulled();
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    sbuf = malloc(n);
    rbuf = malloc(n);
    memset(sbuf, mtest_rank + 1, n);
    rc = mtest_rank == 0 ? MPI_Allgather(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c)
                         : MPI_Alltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c);
    /* the caller's buffers go at once: nothing may read them again */
    free(sbuf);
    free(rbuf);
    expect_mismatch(rc, "1 MiB MPI_Allgather against MPI_Alltoall", "MPI_Allgather",
                    "MPI_Alltoall");
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
        /* a rank whose rendezvous send was still out when it left */
        if (dropped)
            CHECK(strstr(msg, "the send was dropped") != NULL,
                  "rank %d: the error does not say a send was dropped: %s", mtest_rank, msg);
        else
            CHECK(strstr(msg, "dropped") == NULL, "rank %d: a send was dropped: %s", mtest_rank,
                  msg);
    }
    still_works("the dropped sends");
    OK(MPI_Comm_free(&c));
    still_works("the free");
    if (pulled)
        CHECK(exchange_pulled(), "rank %d: a 4 MiB receive from rank %d was pulled by CMA before "
              "the mismatch, not after", mtest_rank, 1 - mtest_rank);
    return mtest_finish();
}
