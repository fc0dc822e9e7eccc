/*
 * MPI_Send on a communicator whose ranks are not the job's: MPI_Comm_split
 * of MPI_COMM_WORLD with the ranks reversed, so that communicator rank r
 * is world rank size - 1 - r. A standard send of a predefined type goes
 * straight to the device with the job rank translated in MPI_Send's frame;
 * a message too large for that (rendezvous), a derived type and
 * MPI_PROC_NULL go the general way, which must send to the same
 * communicator rank. Each rank sends every size to the rank after it in
 * the reversed communicator (MPI_Send, then MPI_Recv from the rank before
 * it, even ranks first: in an odd ring the last rank's rendezvous send
 * waits until rank 0's own send is taken, which the next rank does first),
 * with specific and wildcard receives: the
 * payload, the status's source (a communicator rank) and tag, and the
 * count are checked. A message arriving on the wrong rank or context
 * shows as bad data, a wrong source, or a hang. Run on 2-4 ranks.
 */
#include "mtest.h"

static const int sizes[] = {0, 1, 8, 64, 65, 1000, 16385, 200000};
enum { NSIZES = sizeof sizes / sizeof sizes[0], BIG = 200000 };

static unsigned char pat(int src, int tag, int i) { return (unsigned char)(src * 37 + tag * 11 + i); }

static void fill(unsigned char *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = pat(src, tag, i);
}

static void check(const unsigned char *b, int n, const MPI_Status *st, int src, int tag,
                  const char *what)
{
    int cnt = -1;

    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && cnt == n,
          "%s: source %d (want %d) tag %d (want %d) count %d (want %d)", what, st->MPI_SOURCE, src,
          st->MPI_TAG, tag, cnt, n);
    for (int i = 0; i < n; i++)
        if (b[i] != pat(src, tag, i)) {
            CHECK(0, "%s: %d bytes from %d, tag %d: byte %d is %d, want %d", what, n, src, tag, i,
                  b[i], pat(src, tag, i));
            break;
        }
}

int main(int argc, char **argv)
{
    static unsigned char sb[BIG], rb[BIG];
    MPI_Comm rev;
    MPI_Datatype bytes4;
    MPI_Status st;
    int wrank, wsize, rank, size, right, left;

    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev));
    MPI_Comm_rank(rev, &rank);
    MPI_Comm_size(rev, &size);
    CHECK(rank == wsize - 1 - wrank, "reversed rank %d for world rank %d of %d", rank, wrank, wsize);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    OK(MPI_Type_contiguous(4, MPI_BYTE, &bytes4));
    OK(MPI_Type_commit(&bytes4));

    for (int k = 0; k < NSIZES; k++) {
        for (int mode = 0; mode < 3; mode++) {
            int n = sizes[k], tag = 3 * k + mode;
            int sendn = mode == 2 ? n / 4 * 4 : n; /* mode 2: the derived type */
            char what[64];

            snprintf(what, sizeof what, "size %d mode %d", sendn, mode);
            fill(sb, sendn, rank, tag);
            memset(rb, 0xee, (size_t)sendn);
            for (int turn = 0; turn < 2; turn++) {
                if (turn == rank % 2) {
                    if (mode == 2)
                        OK(MPI_Send(sb, sendn / 4, bytes4, right, tag, rev));
                    else
                        OK(MPI_Send(sb, sendn, MPI_BYTE, right, tag, rev));
                } else if (mode == 1) {
                    OK(MPI_Recv(rb, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &st));
                    check(rb, sendn, &st, left, tag, what);
                } else {
                    OK(MPI_Recv(rb, BIG, MPI_BYTE, left, tag, rev, &st));
                    check(rb, sendn, &st, left, tag, what);
                }
            }
        }
    }
    /* MPI_PROC_NULL through the same entry: nothing sent, nothing received. */
    OK(MPI_Send(sb, 8, MPI_BYTE, MPI_PROC_NULL, 1, rev));
    OK(MPI_Send(sb, BIG, MPI_BYTE, MPI_PROC_NULL, 1, rev));
    OK(MPI_Type_free(&bytes4));
    OK(MPI_Comm_free(&rev));
    return mtest_finish();
}
