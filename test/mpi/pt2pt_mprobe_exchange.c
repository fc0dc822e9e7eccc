/*
 * mpi4py's receive path as its users drive it: every rank sends objects of
 * random sizes (0 B to 1 MiB, most of them small) to random peers with
 * MPI_Isend, and receives whatever comes with MPI_ANY_SOURCE/MPI_ANY_TAG
 * the way comm.recv does (MPI_Mprobe + MPI_Get_count + MPI_Mrecv into a
 * buffer of that size) or comm.irecv + test does (an MPI_Improbe loop, then
 * MPI_Imrecv + MPI_Wait), alternately. The plan (who sends what to whom) is
 * the same pseudo-random sequence on every rank, so each rank knows how
 * many messages it gets; each payload is a pattern of its sender and tag,
 * checked byte for byte, and every status's source, tag and count. A
 * matched message is gone from matching: a later MPI_Iprobe finds nothing.
 * Run on 2 to 8 ranks.
 */
#include "mtest.h"

enum { PER_RANK = 24, ROUNDS = 3 };

static unsigned long long lcg(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Size of message k in a round: 70% up to 256 B, 20% up to 64 KiB, 10% up to 1 MiB. */
static int plan_size(unsigned long long *s)
{
    unsigned long long r = lcg(s) % 10, v = lcg(s);
    if (r < 7)
        return (int)(v % 257);
    if (r < 9)
        return (int)(v % (64 * 1024 + 1));
    return (int)(v % (1024 * 1024 + 1));
}

static unsigned char pattern(int src, int tag, long i)
{
    return (unsigned char)(src * 31 + tag * 7 + i);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = mtest_rank, size = mtest_size;
    int n = size * PER_RANK;

    for (int round = 0; round < ROUNDS; round++) {
        unsigned long long seed = 12345 + round;
        int *dest = malloc(sizeof(int) * n), *bytes = malloc(sizeof(int) * n);
        int nsend = 0, nrecv = 0, got = 0;
        MPI_Request *reqs = malloc(sizeof(MPI_Request) * n);
        unsigned char **bufs = calloc(n, sizeof *bufs);
        CHECK(dest && bytes && reqs && bufs, "out of memory");
        /* message k: from rank k % size, tag k, to dest[k] (never itself) */
        for (int k = 0; k < n; k++) {
            dest[k] = (int)((k % size + 1 + lcg(&seed) % (size - 1)) % size);
            bytes[k] = plan_size(&seed);
            if (dest[k] == rank)
                nrecv++;
        }
        for (int k = rank; k < n; k += size) {
            bufs[k] = malloc(bytes[k] ? bytes[k] : 1);
            CHECK(bufs[k] != NULL, "out of memory");
            for (long i = 0; i < bytes[k]; i++)
                bufs[k][i] = pattern(rank, k, i);
            OK(MPI_Isend(bufs[k], bytes[k], MPI_BYTE, dest[k], k, MPI_COMM_WORLD, &reqs[nsend++]));
        }
        while (got < nrecv) {
            MPI_Message msg = MPI_MESSAGE_NULL;
            MPI_Status st, st2;
            int cnt = -1, flag = 0;
            if (got % 2 == 0) {
                OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
            } else {
                while (!flag)
                    OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
            }
            OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            int k = st.MPI_TAG;
            CHECK(k >= 0 && k < n && k % size == st.MPI_SOURCE && dest[k] == rank,
                  "round %d: probed source %d tag %d", round, st.MPI_SOURCE, k);
            if (!(k >= 0 && k < n))
                break;
            CHECK(cnt == bytes[k], "round %d message %d: probed count %d, %d sent", round, k, cnt,
                  bytes[k]);
            unsigned char *rb = malloc(cnt > 0 ? cnt : 1);
            CHECK(rb != NULL, "out of memory");
            if (got % 2 == 0) {
                OK(MPI_Mrecv(rb, cnt, MPI_BYTE, &msg, &st2));
            } else {
                MPI_Request r;
                OK(MPI_Imrecv(rb, cnt, MPI_BYTE, &msg, &r));
                OK(MPI_Wait(&r, &st2));
            }
            CHECK(msg == MPI_MESSAGE_NULL, "the receive left the message handle");
            int cnt2 = -1;
            MPI_Get_count(&st2, MPI_BYTE, &cnt2);
            CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == k && cnt2 == cnt,
                  "receive status: source %d tag %d count %d", st2.MPI_SOURCE, st2.MPI_TAG, cnt2);
            long bad = -1;
            for (long i = 0; i < cnt && bad < 0; i++)
                if (rb[i] != pattern(st.MPI_SOURCE, k, i))
                    bad = i;
            CHECK(bad < 0, "round %d message %d from %d: byte %ld wrong", round, k,
                  st.MPI_SOURCE, bad);
            free(rb);
            got++;
        }
        OK(MPI_Waitall(nsend, reqs, MPI_STATUSES_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        /* everything was received once: nothing is left to probe */
        int flag = 1;
        OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "round %d: a received message is still there to probe", round);
        for (int k = 0; k < n; k++)
            free(bufs[k]);
        free(bufs);
        free(reqs);
        free(dest);
        free(bytes);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mtest_finish();
}
