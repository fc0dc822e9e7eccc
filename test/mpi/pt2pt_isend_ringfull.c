/*
 * MPI_Isend's straight path when the channel refuses a send the credit
 * allows (the shm ring full, the receiver not reading): the device takes
 * the message's credit before the channel call and must give it back when
 * the call fails (adi/pt2pt.c, send_now), else every refused send loses its
 * credit for good and, after a few rounds, the sender's queue waits for
 * credit that never comes back (a hang, turned into a failure by the
 * timeout, when the credit is small) and the MPI_T counts of the shm
 * channel's messages and bytes sent count the refused attempt as well as
 * the send that carries the message later. Rank 0 sends rank 1 bursts of K 512-byte messages while rank 1
 * sleeps outside MPI (so the ring fills and the next send is refused), then
 * waits for rank 1's acknowledgement; rank 1 receives each burst in order
 * and checks it. Ranks above 1 only join the barriers. Run with a two-cell
 * ring of 1 KiB cells (testlist), where a burst outgrows the ring long
 * before the credit, and with the default ring.
 */
#include "mtest.h"
#include <string.h>
#include <unistd.h>

enum { ROUNDS = 40, K = 12, LEN = 512 };

/* A started handle on the counter `name` (MPI_T), or none. */
static MPI_T_pvar_handle counter(MPI_T_pvar_session ses, const char *name)
{
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    int idx, n;

    OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
    OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h, &n));
    OK(MPI_T_pvar_start(ses, h));
    return h;
}

int main(int argc, char **argv)
{
    static char buf[K][LEN];
    MPI_Request req[K];
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle hm, hb;
    unsigned long long m0 = 0, b0 = 0, m1 = 0, b1 = 0;
    int provided;

    mtest_init(&argc, &argv);
    if (mtest_size < 2) {
        fprintf(stderr, "pt2pt_isend_ringfull needs 2 ranks\n");
        return 1;
    }
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_T_pvar_session_create(&ses));
    hm = counter(ses, "canal_shm_messages_sent");
    hb = counter(ses, "canal_shm_bytes_sent");
    OK(MPI_T_pvar_read(ses, hm, &m0));
    OK(MPI_T_pvar_read(ses, hb, &b0));
    for (int round = 0; round < ROUNDS; round++) {
        if (mtest_rank == 0) {
            int ack = -1;
            for (int i = 0; i < K; i++) {
                memset(buf[i], (round * K + i) & 0x7f, LEN);
                OK(MPI_Isend(buf[i], LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, &req[i]));
            }
            OK(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
            OK(MPI_Recv(&ack, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ack == round, "round %d: acknowledgement %d", round, ack);
        } else if (mtest_rank == 1) {
            char in[LEN];
            usleep(2000); /* (not a timing assertion: it lets the ring fill) */
            for (int i = 0; i < K; i++) {
                MPI_Status st;
                int n = -1;
                memset(in, 0xff, LEN);
                OK(MPI_Recv(in, LEN, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(st.MPI_TAG == i && n == LEN, "round %d: message %d has tag %d, %d bytes",
                      round, i, st.MPI_TAG, n);
                CHECK(in[0] == (char)((round * K + i) & 0x7f) &&
                          in[LEN - 1] == (char)((round * K + i) & 0x7f),
                      "round %d: message %d holds %d", round, i, in[0]);
            }
            OK(MPI_Send(&round, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
        }
    }
    OK(MPI_T_pvar_read(ses, hm, &m1));
    OK(MPI_T_pvar_read(ses, hb, &b1));
    if (mtest_rank == 0) {
        CHECK(m1 - m0 == ROUNDS * K, "%llu messages counted, %d sent", m1 - m0, ROUNDS * K);
        CHECK(b1 - b0 == (unsigned long long)ROUNDS * K * LEN, "%llu bytes counted, %d sent",
              b1 - b0, ROUNDS * K * LEN);
    }
    OK(MPI_T_pvar_session_free(&ses));
    OK(MPI_T_finalize());
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
