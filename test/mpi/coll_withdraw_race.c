/*
 * The withdraw race of an abandoned collective's send. Rank 0 calls
 * MPI_Bcast (root 0, 1 MiB: rendezvous, offered to be pulled by CMA on
 * shm), rank 1 the matching MPI_Ibcast, rank 2 MPI_Reduce to rank 0 (the
 * mismatch). Rank 1 posts its receive and then stays out of MPI until rank
 * 0 says (a file, outside MPI) that its call has returned, or for
 * WITHDRAW_RACE_MS (default 2000) when rank 0 waits for rank 1 first (as it
 * does now). So rank 0's RTS arrives before rank 1 looks; rank 0 finds the
 * mismatch, abandons its call and leaves its sends (adi_send_detach:
 * copied, or dropped with CANAL_FAULT_DETACH_NOMEM=1), then overwrites its
 * buffer and frees it (args=reuse: keeps it, overwritten). Rank 1's
 * receive, posted already, matches the RTS when it next polls, before the
 * WITHDRAW that follows it: it must not read the freed buffer. On 7eefd7b
 * it did: its CMA read hit the unmapped buffer (EFAULT), which turned CMA
 * to rank 0 off for the rest of the job (the 4 MiB exchange afterwards went
 * through the rings), or (reuse) it read the overwritten bytes and
 * returned them as the message; and a receive that the sender's drop
 * failed (on sock, where the receive asks for the bytes: CTS) said only
 * "the operation failed (CANAL_ERR_REMOTE)". Now the sender's detach waits
 * for the receiver's answer to the WITHDRAW (or for the end of the send)
 * before its caller may free the buffer, and the receiver gets either the
 * right bytes or an error (the mismatch, or "rank 0 of MPI_COMM_WORLD dropped"), never
 * other bytes. Then collectives on MPI_COMM_WORLD work, the communicator is
 * freed, and CMA still serves ranks 0 and 1. 3 ranks (others idle).
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

#include <time.h>
#include <unistd.h>

enum { N = 1 << 20 };

/* Rank 1, out of MPI: wait until the file `path` exists (rank 0 made it
 * once its call had returned and its buffer was overwritten or freed), or
 * `ms` milliseconds: a sender that waits for rank 1's answer before its
 * caller may free the buffer never makes it. */
static void wait_file(const char *path, long ms)
{
    struct timespec tick = {0, 2000000L};
    for (long waited = 0; waited < ms && access(path, F_OK) != 0; waited += 2)
        nanosleep(&tick, NULL);
}

int main(int argc, char **argv)
{
    const char *env = getenv("WITHDRAW_RACE_MS");
    long ms = env != NULL ? atol(env) : 2000;
    char path[64];
    int pid0 = (int)getpid();
    int reuse = argc > 1 && strcmp(argv[1], "reuse") == 0;
    char msg[MPI_MAX_ERROR_STRING], *buf0 = NULL;
    int pulled, rc, len = 0, one = 1, sum = 0;
    MPI_Comm c;

    mtest_init(&argc, &argv);
    if (mtest_size < 3) {
        mtest_skipped("needs 3 ranks");
        return mtest_finish();
    }
    pulled = exchange_pulled();
    OK(MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof path, "/tmp/canal_withdraw_race.%d", pid0);
    if (mtest_rank == 0) {
        buf0 = malloc(N);
        memset(buf0, 0x5a, N);
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Barrier(c));
    if (mtest_rank == 0) {
        rc = MPI_Bcast(buf0, N, MPI_BYTE, 0, c);
        CHECK(rc != MPI_SUCCESS, "rank 0: MPI_Bcast against MPI_Reduce returned success");
        /* the caller's buffer is its own again: reused (still mapped:
         * what a read of it finds is not the message), or freed */
        memset(buf0, 0xdb, N);
        if (!reuse) {
            free(buf0);
            buf0 = NULL;
        }
        fclose(fopen(path, "w")); /* (rank 1 may read now) */
    } else if (mtest_rank == 1) {
        char *buf = calloc(N, 1);
        MPI_Request req;
        OK(MPI_Ibcast(buf, N, MPI_BYTE, 0, c, &req));
        wait_file(path, ms); /* (out of MPI: rank 0 finds the mismatch meanwhile) */
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            for (int i = 0; i < N; i++)
                if (buf[i] != 0x5a) {
                    CHECK(0, "rank 1: MPI_Ibcast succeeded with byte %d = %#x, want 0x5a", i,
                          (unsigned char)buf[i]);
                    break;
                }
        } else {
            MPI_Error_string(rc, msg, &len);
            msg[len] = '\0';
            if (getenv("COLL_MISMATCH_VERBOSE"))
                printf("[1] MPI_Ibcast: %s\n", msg);
            CHECK(strstr(msg, "mismatch") != NULL ||
                      strstr(msg, "rank 0 of MPI_COMM_WORLD dropped") != NULL,
                  "rank 1: MPI_Ibcast failed with neither the mismatch nor rank 0's drop: %s",
                  msg);
        }
        free(buf);
    } else if (mtest_rank == 2) {
        MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, c); /* (may return either way) */
    }
    still_works("the abandoned MPI_Bcast");
    OK(MPI_Comm_free(&c));
    still_works("the free");
    if (pulled)
        CHECK(exchange_pulled(), "rank %d: a 4 MiB receive from rank %d was pulled by CMA before "
              "the abandoned MPI_Bcast, not after", mtest_rank, 1 - mtest_rank);
    free(buf0);
    if (mtest_rank == 0)
        unlink(path);
    return mtest_finish();
}
