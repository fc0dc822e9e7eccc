/*
 * Blocking allreduces of the C types and operations that the node's shared
 * block reduces without the operation table (coll/shm.c's reduce_fast:
 * MPI_SUM, MPI_MAX and MPI_MIN on MPI_CHAR, MPI_SIGNED_CHAR,
 * MPI_UNSIGNED_CHAR, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
 * MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE), and MPI_PROD and MPI_SHORT beside
 * them (the table's path), at counts from 1 to past the block's 8-byte
 * inline slot and up to its 512-byte limit, with and without MPI_IN_PLACE.
 * Values are chosen so that integer sums overflow and wrap (MPI defines
 * none, but Canal's kernels wrap, and both paths must give the same bits);
 * every rank checks every element against the rank-order result computed
 * locally. Also OSU 7.4's loop (4 MPI_CHAR summed, a barrier after each).
 * Any number of ranks (on one node: the block; else the message path).
 */
#include "mtest.h"

#include <limits.h>

enum { NBUF = 512 };

/* rank r's element i, as raw bits; a type takes its low bytes */
static unsigned long long bits(int r, int i, int salt)
{
    unsigned long long x = 0x9e3779b97f4a7c15ull * (unsigned long long)(r * 1031 + i * 7 + salt + 1);
    return x ^ (x >> 29);
}

/* One type: fill, reduce, check. T the C type, U its unsigned type of
 * the sum (the wrap), FL: floating (values small integers, exact sums). */
#define RUN_TYPE(T, U, FL, dt)                                                                     \
    do {                                                                                           \
        int maxc = NBUF / (int)sizeof(T);                                                          \
        for (int oi = 0; oi < 3; oi++) {                                                           \
            MPI_Op op = ops[oi];                                                                   \
            for (int ci = 0; ci < ncounts; ci++) {                                                 \
                int cnt = counts[ci] / (int)sizeof(T) > 0 ? counts[ci] / (int)sizeof(T) : 1;       \
                if (cnt > maxc)                                                                    \
                    cnt = maxc;                                                                    \
                for (int inplace = 0; inplace < 2; inplace++) {                                    \
                    T *s = (T *)sbuf, *r = (T *)rbuf, want = 0;                                       \
                    salt++;                                                                        \
                    for (int i = 0; i < cnt; i++) {                                                \
                        unsigned long long b = bits(mtest_rank, i, salt);                          \
                        s[i] = FL ? (T)(long long)(b % 2001) - (T)1000 : (T)b;                     \
                        r[i] = inplace ? s[i] : (T)0;                                              \
                    }                                                                              \
                    OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, cnt, dt, op,             \
                                     MPI_COMM_WORLD));                                             \
                    for (int i = 0; i < cnt; i++) {                                                \
                        for (int k = mtest_size - 1; k >= 0; k--) {                                \
                            unsigned long long b = bits(k, i, salt);                               \
                            T x = FL ? (T)(long long)(b % 2001) - (T)1000 : (T)b;                  \
                            if (k == mtest_size - 1)                                               \
                                want = x;                                                          \
                            else if (op == MPI_SUM)                                                \
                                want = (T)((U)x + (U)want);                                        \
                            else if (op == MPI_MAX)                                                \
                                want = x > want ? x : want;                                        \
                            else                                                                   \
                                want = x < want ? x : want;                                        \
                        }                                                                          \
                        if (r[i] != want && bad++ < 5)                                             \
                            CHECK(r[i] == want, "%s %s count %d%s: element %d is %.17g, not %.17g", \
                                  #dt, oi == 0 ? "MPI_SUM" : oi == 1 ? "MPI_MAX" : "MPI_MIN", cnt, \
                                  inplace ? " (in place)" : "", i, (double)r[i], (double)want);   \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static const int counts[] = {1, 2, 3, 4, 7, 8, 9, 16, 100, 256, 511, 512};
static const int ncounts = sizeof counts / sizeof counts[0];
static const MPI_Op ops[3] = {MPI_SUM, MPI_MAX, MPI_MIN};

int main(int argc, char **argv)
{
    static char sbuf[NBUF], rbuf[NBUF];
    int salt = 0, bad = 0, rounds;

    mtest_init(&argc, &argv);
    rounds = argc > 1 ? atoi(argv[1]) : 3;
    /* (the block is made at a communicator's 3rd barrier or allreduce) */
    for (int i = 0; i < 4; i++)
        OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int round = 0; round < rounds; round++) {
        RUN_TYPE(char, unsigned char, 0, MPI_CHAR);
        RUN_TYPE(signed char, unsigned char, 0, MPI_SIGNED_CHAR);
        RUN_TYPE(unsigned char, unsigned char, 0, MPI_UNSIGNED_CHAR);
        RUN_TYPE(short, unsigned short, 0, MPI_SHORT);
        RUN_TYPE(int, unsigned, 0, MPI_INT);
        RUN_TYPE(unsigned, unsigned, 0, MPI_UNSIGNED);
        RUN_TYPE(long, unsigned long, 0, MPI_LONG);
        RUN_TYPE(unsigned long, unsigned long, 0, MPI_UNSIGNED_LONG);
        RUN_TYPE(long long, unsigned long long, 0, MPI_LONG_LONG);
        RUN_TYPE(float, float, 1, MPI_FLOAT);
        RUN_TYPE(double, double, 1, MPI_DOUBLE);
    }
    /* MPI_PROD of ints (the operation table's path): 2 at every rank */
    {
        int two[3] = {2, 2, 2}, p[3] = {0, 0, 0}, want = 1 << (mtest_size < 31 ? mtest_size : 0);
        OK(MPI_Allreduce(two, p, 3, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
        for (int i = 0; i < 3 && mtest_size < 31; i++)
            CHECK(p[i] == want, "MPI_PROD element %d is %d, not %d", i, p[i], want);
    }
    /* OSU 7.4's osu_allreduce -m 4:4 loop: 4 MPI_CHAR summed, a barrier
     * after each call */
    for (int i = 0; i < 2000; i++) {
        char s[4] = {(char)i, (char)(i >> 8), (char)(mtest_rank + 1), 100}, r[4];
        OK(MPI_Allreduce(s, r, 4, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(r[0] == (char)(unsigned char)((unsigned)i * (unsigned)mtest_size) &&
                  r[2] == (char)(unsigned char)(mtest_size * (mtest_size + 1) / 2) &&
                  r[3] == (char)(unsigned char)(100u * (unsigned)mtest_size),
              "osu loop %d: got %d %d %d", i, r[0], r[2], r[3]);
        if (mtest_errors > 5)
            break;
    }
    return mtest_finish();
}
