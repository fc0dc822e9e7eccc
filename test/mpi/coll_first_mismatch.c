/*
 * Mismatched collectives among a communicator's first blocking calls (an
 * erroneous program), where the call that makes the node's shared block
 * (coll/shm.c: at the third blocking barrier or small allreduce, by a
 * bcast and an allreduce of its own) meets a collective by messages. On a
 * fresh duplicate of MPI_COMM_WORLD, after k = 0..3 correct barriers, the
 * odd rank(s) call MPI_Barrier and the others MPI_Bcast of 1 int from rank
 * 0, or MPI_Allreduce of 1024 ints: every rank fails with class
 * MPI_ERR_OTHER and a message naming both calls (or, on a rank that made
 * the block beside the one that found the mismatch, saying that the
 * communicator is out of step after this rank's MPI_Barrier). On 048c67a, with 4 ranks,
 * the making of the block's bcast paired with the others' MPI_Bcast (they
 * failed with MPI_ERR_TRUNCATE) and rank 0 hung in its allreduce; against
 * MPI_Allreduce rank 0 hung. The communicator may be out of step
 * afterwards (coll_step_mismatch); MPI_COMM_WORLD works. Under
 * MPI_ERRORS_RETURN; the runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

/* rc says the communicator is out of step: a rank that made the block
 * beside another that did (3 ranks or more) may take the out-of-step note
 * of the rank that found the mismatch before the notice of the call. */
static int out_of_step(int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS || MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        return 0;
    msg[len] = '\0';
    return strstr(msg, "out of step") != NULL;
}

int main(int argc, char **argv)
{
    if (!mismatch_init(&argc, &argv, 1024, 0))
        return 0;
    for (int bcast = 0; bcast < 2; bcast++) {
        const char *other = bcast ? "MPI_Bcast" : "MPI_Allreduce";
        for (int k = 0; k < 4; k++) {
            char what[96];
            MPI_Comm c;
            int rc;

            OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
            for (int i = 0; i < k; i++)
                OK(MPI_Barrier(c));
            if (odd_one)
                rc = MPI_Barrier(c);
            else if (bcast)
                rc = MPI_Bcast(a, 1, MPI_INT, 0, c);
            else
                rc = MPI_Allreduce(a, b, 1024, MPI_INT, MPI_SUM, c);
            snprintf(what, sizeof what, "MPI_Barrier against %s after %d barriers", other, k);
            if (out_of_step(rc))
                expect_mismatch(rc, what, "out of step", "MPI_Barrier");
            else
                expect_mismatch(rc, what, "MPI_Barrier", other);
            still_works(what);
            /* (kept to the end: a communicator made later may take a freed
             * one's context, where the mismatched calls' messages wait) */
            if (fresh_n < 16)
                fresh_comms[fresh_n++] = c;
        }
    }
    mismatch_finish();
    return 0;
}
