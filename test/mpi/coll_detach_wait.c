/*
 * A receive of an abandoned collective whose sender still has to write its
 * part into the caller's buffer when the call gives up (adi_recv_detach's
 * wait). Three ranks, halves on (CANAL_OVERSUBSCRIBED=no, CMA): rank 1
 * starts an MPI_Ibcast of 1 MiB from itself (linear: an RTS to each rank)
 * and then does not call MPI for a while; rank 0 calls MPI_Bcast from
 * rank 1, reads its half of the message and asks rank 1 to write the
 * other half (PKT_PUSH: REQ_RECV_HALF); rank 2 calls MPI_Barrier, whose
 * message to rank 0 makes rank 0's call fail with a mismatch while rank
 * 1's half has not come. When MPI_Bcast returns, rank 0 fills its buffer
 * with a guard pattern (the program reuses the memory at once); after the
 * others are done (a barrier, then MPI_Finalize's fence) the pattern must
 * be intact: nothing wrote the buffer after the call returned.
 *   wait     rank 1 sleeps 1 s, then MPI_Wait: rank 0's detach waits for
 *            its half (within CANAL_DETACH_WAIT_MS, 5 s), so the call
 *            returns once it has landed. Without the wait the half landed
 *            in the guard afterwards.
 *   timeout  rank 1 sleeps past CANAL_DETACH_WAIT_MS (the testlist sets
 *            300 ms): rank 0 warns that the wait ended (the testlist's
 *            output=) and goes on; rank 1's half, written when it calls
 *            MPI again, must not land in the guard either: rank 0 waits
 *            on for it (before the fix it returned, and the half landed
 *            in the guard when rank 1 called MPI_Wait).
 *   final    as timeout, but rank 1 never waits for its MPI_Ibcast (an
 *            erroneous program) and calls MPI_Finalize after its sleep:
 *            from there it writes nothing and tells rank 0 so (offer_close
 *            in adi/pt2pt.c), so that rank 0's wait ends instead of
 *            hanging (rank 1 answers nothing from MPI_Finalize's fence).
 *            Each rank reports its own errors (no sum: rank 1 is gone).
 *            Over ofi rank 1's RTS to rank 2 never left (rank 2, in its
 *            fence, never accepts the connection), and rank 1's
 *            MPI_Finalize waited for ever at MPI_COMM_WORLD's release for
 *            its MPI_Ibcast; now it waits CANAL_FINALIZE_WAIT_MS (the
 *            testlist: 1 s), then abandons it, warning (final_abandon in
 *            coll/sched.c).
 *   fence    rank 1 calls MPI_Bcast (blocking), fails on rank 2's notice,
 *            withdraws its offer from rank 0, which sleeps 2 s and does
 *            not answer within CANAL_DETACH_WAIT_MS, and calls
 *            MPI_Finalize; rank 0 then calls MPI_Bcast and matches the
 *            RTS before it reads the withdrawal behind it: its PUSH reaches
 *            rank 1 in the fence and is never answered. Rank 0 reads the
 *            half itself on rank 1's final word (its call may then succeed
 *            with the message) or, its call failed first, stops waiting;
 *            without the final word it waited for ever.
 *   stream   no CMA (the testlist: CANAL_SHM_CMA=no): rank 0's receive asks
 *            for a stream (CTS) that rank 1, asleep, does not send; rank 0
 *            leaves it and calls MPI_Finalize, which waits for the stream
 *            CANAL_FINALIZE_WAIT_MS (the testlist: 1 s) and enters the
 *            fence; rank 1 wakes at 3 s, fails, and calls MPI_Finalize,
 *            whose stream to rank 0 (in the fence) is never taken: it goes
 *            on after the same limit, saying so (the testlist's output=),
 *            and the job ends (before, rank 1 waited there for ever).
 *   kill     rank 1 is killed (SIGKILL) a second after its MPI_Ibcast: the
 *            job ends with the launcher's message naming rank 1.
 * Under MPI_ERRORS_RETURN.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

#include <signal.h>
#include <unistd.h>

enum { BYTES = 1 << 20, GUARD = 0x5a };

static int guard_intact(const unsigned char *buf)
{
    for (size_t i = 0; i < BYTES; i++)
        if (buf[i] != GUARD) {
            CHECK(0, "rank 0's buffer was written after MPI_Bcast returned: byte %zu is 0x%02x", i,
                  buf[i]);
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "wait";
    int late = strcmp(mode, "fence") == 0, stream = strcmp(mode, "stream") == 0;
    int kill = strcmp(mode, "kill") == 0, final = late || stream || strcmp(mode, "final") == 0;
    unsigned sleep_ms = strcmp(mode, "wait") == 0 || kill ? 1000 : stream ? 3000 : 2000;

    if (argc > 2) /* (rank 1's sleep in ms: a run by hand against another limit) */
        sleep_ms = (unsigned)atoi(argv[2]);
    unsigned char *buf;
    MPI_Request req;
    int rc;

    mtest_init(&argc, &argv);
    if (mtest_size != 3) {
        if (mtest_rank == 0)
            printf("needs 3 ranks\n");
        return mtest_finish();
    }
    buf = malloc(BYTES);
    CHECK(buf != NULL, "no memory for %d bytes", BYTES);
    memset(buf, mtest_rank + 1, BYTES);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mtest_rank == 1 && late) {
        rc = MPI_Bcast(buf, BYTES, MPI_BYTE, 1, MPI_COMM_WORLD);
        expect_mismatch(rc, "MPI_Bcast against MPI_Barrier", "MPI_Bcast", "MPI_Barrier");
        MPI_Finalize();
        free(buf);
        return mtest_errors != 0;
    } else if (mtest_rank == 1) {
        OK(MPI_Ibcast(buf, BYTES, MPI_BYTE, 1, MPI_COMM_WORLD, &req));
        usleep(sleep_ms * 1000);
        if (kill)
            raise(SIGKILL);
        if (final && !stream) {
            MPI_Finalize();
            free(buf);
            return 0;
        }
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        /* (stream: rank 2 may have taken rank 1's message as a leftover
         * at its MPI_Finalize, and the call completed unwatched) */
        if (!stream || rc != MPI_SUCCESS)
            expect_mismatch(rc, "MPI_Ibcast against MPI_Barrier", "MPI_Bcast", "MPI_Barrier");
        if (stream) { /* (the others are in MPI_Finalize) */
            MPI_Finalize();
            free(buf);
            return mtest_errors != 0;
        }
    } else if (mtest_rank == 0) {
        if (late)
            usleep(sleep_ms * 1000);
        rc = MPI_Bcast(buf, BYTES, MPI_BYTE, 1, MPI_COMM_WORLD);
        if (late && rc == MPI_SUCCESS)
            for (size_t i = 0; i < BYTES; i++)
                if (buf[i] != 2) {
                    CHECK(0, "MPI_Bcast succeeded, but byte %zu is 0x%02x, not 0x02", i, buf[i]);
                    break;
                }
        memset(buf, GUARD, BYTES);
        if (!late || rc != MPI_SUCCESS)
            expect_mismatch(rc, "MPI_Bcast against MPI_Barrier", "MPI_Bcast", "MPI_Barrier");
    } else {
        rc = MPI_Barrier(MPI_COMM_WORLD);
        expect_mismatch(rc, "MPI_Barrier against MPI_Bcast", "MPI_Barrier", "MPI_Bcast");
    }
    if (final) { /* (rank 1 is in MPI_Finalize) */
        if (mtest_rank == 0)
            guard_intact(buf);
        MPI_Finalize();
        if (mtest_rank == 0 && guard_intact(buf) && mtest_errors == 0)
            printf(" No Errors\n");
        free(buf);
        return mtest_errors != 0;
    }
    still_works("the mismatch");
    if (mtest_rank == 0)
        guard_intact(buf);
    rc = mtest_finish();
    if (mtest_rank == 0 && !guard_intact(buf)) {
        printf(" Found 1 errors (after MPI_Finalize)\n");
        rc = 1;
    }
    free(buf);
    return rc;
}
