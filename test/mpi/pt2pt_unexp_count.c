/*
 * The MPI_T counter canal_unexpected_messages counts the messages that
 * arrived before a receive matched them (each waited in an unexpected
 * queue: an entry and a second copy), and only those. Rank 0 reads it
 * around two phases with rank 1 on a duplicate of MPI_COMM_WORLD:
 * - early: rank 1 sends NEARLY eager messages (sizes 0-65 around the
 *   device's inline limits) and one rendezvous message (64 KiB), then a
 *   last message of another tag; rank 0 receives the last one first, so
 *   the others all arrive unmatched: the counter grows by NEARLY + 1 (+1
 *   more if the last one also came before its receive was posted);
 * - posted: rank 0 posts every receive, then tells rank 1 to send; the
 *   counter does not move.
 * The data of every message is checked. Ranks beyond 1 idle until rank 0
 * has read the counter.
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { NEARLY = 66, BIG = 1 << 16, TAG_LAST = 7000, TAG_GO = 7001 };

static MPI_Comm comm;
static MPI_T_pvar_session ses;
static MPI_T_pvar_handle hnd;

static unsigned long long counter(void)
{
    unsigned long long v = 0;

    OK(MPI_T_pvar_read(ses, hnd, &v));
    return v;
}

static unsigned char pat(int tag, int i) { return (unsigned char)(tag * 31 + i * 5 + 3); }

static int size_of(int i) { return i < NEARLY ? i : BIG; }

static void send_all(unsigned char *buf)
{
    MPI_Request reqs[NEARLY + 1];

    for (int i = 0; i <= NEARLY; i++) {
        unsigned char *b = buf + (size_t)i * BIG;
        int n = size_of(i);
        for (int k = 0; k < n; k++)
            b[k] = pat(i, k);
        OK(MPI_Isend(b, n, MPI_BYTE, 0, i, comm, &reqs[i]));
    }
    OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_LAST, comm));
    OK(MPI_Waitall(NEARLY + 1, reqs, MPI_STATUSES_IGNORE));
}

static void check_one(const unsigned char *buf, int i, const MPI_Status *st)
{
    int n = size_of(i), got = -1;

    MPI_Get_count(st, MPI_BYTE, &got);
    CHECK(got == n, "message %d: count %d, expected %d", i, got, n);
    for (int k = 0; k < n && k < got; k++)
        if (buf[k] != pat(i, k)) {
            CHECK(0, "message %d: byte %d is %u, expected %u", i, k, buf[k], pat(i, k));
            break;
        }
}

int main(int argc, char **argv)
{
    int idx = -1, count = 0, prov;
    unsigned long long before, after;
    unsigned char *buf;

    mtest_init(&argc, &argv);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    buf = malloc((size_t)BIG * (NEARLY + 1));
    CHECK(buf != NULL, "malloc");
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (mtest_rank == 0) {
        MPI_Request reqs[NEARLY + 2];
        MPI_Status st;

        OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
        OK(MPI_T_pvar_get_index("canal_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER, &idx));
        OK(MPI_T_pvar_session_create(&ses));
        OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &hnd, &count));
        CHECK(count == 1, "count %d", count);
        OK(MPI_T_pvar_start(ses, hnd));

        /* early: every message but the last arrives before its receive */
        before = counter();
        OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, comm));
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_LAST, comm, MPI_STATUS_IGNORE));
        after = counter();
        CHECK(after - before >= NEARLY + 1 && after - before <= NEARLY + 2,
              "early: counter moved by %llu, expected %d (or %d)", after - before, NEARLY + 1,
              NEARLY + 2);
        for (int i = 0; i <= NEARLY; i++) {
            OK(MPI_Recv(buf, BIG, MPI_BYTE, 1, i, comm, &st));
            check_one(buf, i, &st);
        }
        CHECK(counter() == after, "early: receives from the queue moved the counter");

        /* posted: every receive is there before rank 1 sends */
        before = counter();
        for (int i = 0; i <= NEARLY; i++)
            OK(MPI_Irecv(buf + (size_t)i * BIG, BIG, MPI_BYTE, 1, i, comm, &reqs[i]));
        OK(MPI_Irecv(NULL, 0, MPI_BYTE, 1, TAG_LAST, comm, &reqs[NEARLY + 1]));
        OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, comm));
        for (int i = 0; i <= NEARLY; i++) {
            OK(MPI_Wait(&reqs[i], &st));
            check_one(buf + (size_t)i * BIG, i, &st);
        }
        OK(MPI_Wait(&reqs[NEARLY + 1], MPI_STATUS_IGNORE));
        after = counter();
        CHECK(after == before, "posted: counter moved by %llu, expected 0", after - before);
        for (int r = 1; r < mtest_size; r++) /* the others may leave */
            OK(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_GO, comm));

        OK(MPI_T_pvar_stop(ses, hnd));
        OK(MPI_T_pvar_handle_free(ses, &hnd));
        OK(MPI_T_pvar_session_free(&ses));
        OK(MPI_T_finalize());
    } else if (mtest_rank == 1) {
        for (int phase = 0; phase < 2; phase++) {
            OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
            send_all(buf);
        }
        /* (not before rank 0 read the counter: what rank 1 sends on its way
         * out, mtest_finish's report, could arrive first, unexpected) */
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
    } else {
        /* an idle rank's report to rank 0 (mtest_finish) waits too: sent
         * during the posted phase it arrived unexpected and moved the
         * counter (1 run in about 15 at 3 ranks failed so) */
        OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
    }
    free(buf);
    OK(MPI_Comm_free(&comm));
    return mtest_finish();
}
