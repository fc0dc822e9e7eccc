/*
 * Messages a rank sends to itself through the self channel, whose
 * delivered packets are kept for the next sends (channels/self): sizes that
 * grow and shrink across the kept packets' limits (0 to 5000 bytes, around
 * 256 and 4096), and windows of 40 messages queued before any is received
 * (more than the spare list holds, so packets are both reused and freed).
 * Every message's data, count, source and tag are checked.
 */
#include "mtest.h"

enum { MAXB = 5000, WIN = 40 };

static unsigned char pat(int k, int i) { return (unsigned char)(k * 31 + i * 7 + 3); }

static void check(const unsigned char *b, int n, int k, const MPI_Status *st, int tag)
{
    int got = -1, bad = 0;
    MPI_Get_count(st, MPI_BYTE, &got);
    CHECK(got == n && st->MPI_SOURCE == mtest_rank && st->MPI_TAG == tag,
          "message %d: count %d source %d tag %d, expected %d %d %d", k, got, st->MPI_SOURCE,
          st->MPI_TAG, n, mtest_rank, tag);
    for (int i = 0; i < n && !bad; i++)
        bad = b[i] != pat(k, i);
    CHECK(!bad, "message %d of %d bytes: data differ", k, n);
}

int main(int argc, char **argv)
{
    static unsigned char s[WIN][MAXB], r[MAXB];
    static const int sizes[] = {0, 1, 8, 255, 256, 257, 8, 4095, 4096, 4097, 5000, 16, 300, 1};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    MPI_Request req[WIN];
    MPI_Status st;

    mtest_init(&argc, &argv);
    /* one at a time: each size after every other */
    for (int k = 0; k < 3 * NS; k++) {
        int n = sizes[k % NS];
        for (int i = 0; i < n; i++)
            s[0][i] = pat(k, i);
        OK(MPI_Sendrecv(s[0], n, MPI_BYTE, mtest_rank, k, r, MAXB, MPI_BYTE, mtest_rank, k,
                        MPI_COMM_WORLD, &st));
        check(r, n, k, &st, k);
    }
    /* windows queued before they are received */
    for (int round = 0; round < 3; round++) {
        for (int w = 0; w < WIN; w++) {
            int n = sizes[(w + round) % NS], k = round * WIN + w;
            for (int i = 0; i < n; i++)
                s[w][i] = pat(k, i);
            OK(MPI_Isend(s[w], n, MPI_BYTE, mtest_rank, w, MPI_COMM_WORLD, &req[w]));
        }
        for (int w = 0; w < WIN; w++) {
            OK(MPI_Recv(r, MAXB, MPI_BYTE, mtest_rank, w, MPI_COMM_WORLD, &st));
            check(r, sizes[(w + round) % NS], round * WIN + w, &st, w);
        }
        OK(MPI_Waitall(WIN, req, MPI_STATUSES_IGNORE));
    }
    return mtest_finish();
}
