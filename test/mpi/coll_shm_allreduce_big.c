/*
 * MPI_Allreduce of 32 KiB and more on communicators of more than 2 ranks
 * all on one node, which Canal runs on the shared ring's area (coll/shm.c,
 * allreduce_big): each rank copies its vector in a round at a time,
 * reduces its share of every round across the ranks' slots in rank order
 * and copies the result out. Checked, on MPI_COMM_WORLD and a split
 * communicator, every result against the sum computed here:
 *  - sizes on both sides of 32 KiB and of a round (4 MiB / 2 / ranks), up
 *    to several rounds, MPI_INT and MPI_DOUBLE sums, MPI_MAX, MPI_2INT with
 *    MPI_MINLOC, MPI_IN_PLACE;
 *  - a non-commutative user operation (the first nonzero operand): the
 *    result must be the lowest rank's nonzero value;
 *  - back to back with bcasts above 64 KiB (the same area, as the bcasts'
 *    ring) and with small allreduces and barriers;
 *  - a contiguous derived type at one rank against MPI_INT at the others
 *    (the same signature: legal; the call goes by messages) and at all;
 *  - under MPI_ERRORS_RETURN, ranks whose counts differ: every rank fails
 *    with MPI_ERR_OTHER, and the communicator works afterwards.
 * MPI_Reduce of 256 KiB and more on more than 4 ranks runs there too (the
 * result copied out at the root alone): sums to every root, in place at the
 * root, the non-commutative operation, a root that one rank names otherwise
 * (every rank fails with MPI_ERR_OTHER; by messages a rank that only sends
 * meets no mismatch: more than 4 ranks only), interleaved with the
 * allreduces; on fewer ranks the same calls go by messages.
 * 3 ranks or more. Arguments: rounds (default 2), then "messages" (under
 * CANAL_COLL_SHM_RING=0, where these calls go by messages and a rank that
 * only sends meets no mismatch: no mismatches).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static void sum_int(MPI_Comm c, size_t n, int in_place, int round)
{
    int me, p, *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (size_t i = 0; i < n; i++)
        x[i] = (int)(i % 1009) * (me + 1) + round;
    if (in_place)
        OK(MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_INT, MPI_SUM, c));
    else
        OK(MPI_Allreduce(x, y, (int)n, MPI_INT, MPI_SUM, c));
    for (size_t i = 0; i < n; i++) {
        int want = (int)(i % 1009) * (p * (p + 1) / 2) + p * round;
        int got = in_place ? x[i] : y[i];
        if (got != want) {
            CHECK(0, "MPI_INT sum of %zu%s: [%zu] = %d, want %d", n, in_place ? " in place" : "",
                  i, got, want);
            break;
        }
    }
    free(x);
    free(y);
}

static void max_double(MPI_Comm c, size_t n)
{
    int me, p;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)((i + (size_t)me * 7) % (size_t)p) + 0.5 * (double)i;
    OK(MPI_Allreduce(x, y, (int)n, MPI_DOUBLE, MPI_MAX, c));
    for (size_t i = 0; i < n; i++)
        if (y[i] != (double)(p - 1) + 0.5 * (double)i) {
            CHECK(0, "MPI_DOUBLE max of %zu: [%zu] = %g", n, i, y[i]);
            break;
        }
    free(x);
    free(y);
}

static void minloc(MPI_Comm c, size_t n)
{
    int me, p, *x = malloc(2 * n * sizeof(int)), *y = malloc(2 * n * sizeof(int));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = (int)((i + (size_t)me) % (size_t)p); /* rank (p - i % p) % p has 0 */
        x[2 * i + 1] = me;
    }
    OK(MPI_Allreduce(x, y, (int)n, MPI_2INT, MPI_MINLOC, c));
    for (size_t i = 0; i < n; i++)
        if (y[2 * i] != 0 || y[2 * i + 1] != (int)(((size_t)p - i % (size_t)p) % (size_t)p)) {
            CHECK(0, "MPI_MINLOC of %zu: [%zu] = (%d, %d)", n, i, y[2 * i], y[2 * i + 1]);
            break;
        }
    free(x);
    free(y);
}

static void reduce_sum(MPI_Comm c, size_t n, int root, int in_place)
{
    int me, p, *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (size_t i = 0; i < n; i++) {
        x[i] = (int)(i % 997) + me * 3;
        y[i] = -1;
    }
    if (in_place && me == root)
        OK(MPI_Reduce(MPI_IN_PLACE, x, (int)n, MPI_INT, MPI_SUM, root, c));
    else
        OK(MPI_Reduce(x, y, (int)n, MPI_INT, MPI_SUM, root, c));
    for (size_t i = 0; i < n && me == root; i++) {
        int want = (int)(i % 997) * p + 3 * p * (p - 1) / 2, got = in_place ? x[i] : y[i];
        if (got != want) {
            CHECK(0, "MPI_Reduce sum of %zu to %d%s: [%zu] = %d, want %d", n, root,
                  in_place ? " in place" : "", i, got, want);
            break;
        }
    }
    for (size_t i = 0; i < n && me != root; i++)
        if (y[i] != -1) {
            CHECK(0, "MPI_Reduce to %d wrote rank %d's receive buffer", root, me);
            break;
        }
    free(x);
    free(y);
}

/* the first nonzero operand in rank order: associative, not commutative */
static void first_nonzero(void *in, void *inout, int *len, MPI_Datatype *t)
{
    int *a = in, *b = inout;
    (void)t;
    for (int k = 0; k < *len; k++)
        b[k] = a[k] != 0 ? a[k] : b[k];
}

/* root < 0: MPI_Allreduce; else MPI_Reduce to root */
static void ordered(MPI_Comm c, size_t n, MPI_Op op, int root)
{
    int me, p, *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    for (size_t i = 0; i < n; i++)
        x[i] = (i + (size_t)me) % 3 == 0 ? 0 : me * 100000 + (int)(i % 1000) + 1;
    if (root < 0)
        OK(MPI_Allreduce(x, y, (int)n, MPI_INT, op, c));
    else
        OK(MPI_Reduce(x, y, (int)n, MPI_INT, op, root, c));
    for (size_t i = 0; i < n && (root < 0 || me == root); i++) {
        int want = 0;
        for (int r = p - 1; r >= 0; r--)
            if ((i + (size_t)r) % 3 != 0)
                want = r * 100000 + (int)(i % 1000) + 1;
        if (y[i] != want) {
            CHECK(0, "the first nonzero in rank order of %zu: [%zu] = %d, want %d", n, i, y[i],
                  want);
            break;
        }
    }
    free(x);
    free(y);
}

/* rank 0 passes pairs of ints (a contiguous type), the others ints */
static void derived(MPI_Comm c, size_t n, int all)
{
    int me, p, *x = malloc(n * sizeof(int)), *y = malloc(n * sizeof(int));
    MPI_Datatype pair;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (size_t i = 0; i < n; i++)
        x[i] = (int)i + me;
    if (me == 0 || all)
        OK(MPI_Allreduce(x, y, (int)(n / 2), pair, MPI_SUM, c));
    else
        OK(MPI_Allreduce(x, y, (int)n, MPI_INT, MPI_SUM, c));
    for (size_t i = 0; i < n; i++)
        if (y[i] != (int)i * p + p * (p - 1) / 2) {
            CHECK(0, "pairs against ints (%s), %zu: [%zu] = %d", all ? "all" : "rank 0", n, i,
                  y[i]);
            break;
        }
    MPI_Type_free(&pair);
    free(x);
    free(y);
}

static void mismatch(MPI_Comm c)
{
    int me, p, rc, *x = calloc(300000, sizeof(int)), *y = calloc(300000, sizeof(int));
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(x, y, me == 1 ? 200000 : 100000, MPI_INT, MPI_SUM, c);
    EXPECT_CLASS(rc, MPI_ERR_OTHER, "an allreduce whose counts differ");
    if (p > 4) {
        /* the last rank names root 1, the others root 0 */
        rc = MPI_Reduce(x, y, 100000, MPI_INT, MPI_SUM, me == p - 1 ? 1 : 0, c);
        EXPECT_CLASS(rc, MPI_ERR_OTHER, "a reduce whose roots differ");
    }
    free(x);
    free(y);
    sum_int(c, 100000, 0, 9); /* it works afterwards */
    reduce_sum(c, 100000, 1, 0);
}

static int messages; /* argument "messages": no mismatches */

static void all(MPI_Comm c, int nrounds, MPI_Op op)
{
    int me, p, z = 1, s = 0;
    size_t round_ints;
    unsigned char *big = malloc(3 << 20);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    round_ints = (size_t)(4 << 20) / 2 / (size_t)p / sizeof(int);
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c)); /* (the block) */
    for (int round = 0; round < nrounds; round++) {
        size_t sizes[] = {8191, 8192, 8193, round_ints - 1, round_ints, round_ints + 1,
                          3 * round_ints + 77, 262147};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            sum_int(c, sizes[k], 0, round);
            sum_int(c, sizes[k], 1, round);
        }
        max_double(c, 100003);
        minloc(c, 50001);
        ordered(c, 160001, op, -1);
        for (int root = 0; root < p; root++) {
            reduce_sum(c, 8192 + (size_t)root, root, root % 2);
            reduce_sum(c, 3 * round_ints + 5, root, root % 2 == 0);
            ordered(c, 100003, op, root);
        }
        /* with the bcasts' ring and the block's small calls between */
        for (int root = 0; root < p; root++) {
            memset(big, me == root ? root + 1 : 0, 3 << 20);
            OK(MPI_Bcast(big, 3 << 20, MPI_BYTE, root, c));
            CHECK(big[0] == root + 1 && big[(3 << 20) - 1] == root + 1, "bcast from %d", root);
            sum_int(c, 300001, 0, round + root);
            OK(MPI_Allreduce(&z, &s, 1, MPI_INT, MPI_SUM, c));
            CHECK(s == p, "small allreduce: %d", s);
            OK(MPI_Bcast(big, 100000, MPI_BYTE, (root + 1) % p, c));
            sum_int(c, 8192, 1, round);
            OK(MPI_Barrier(c));
        }
        derived(c, 65536, 0);
        derived(c, 65536, 1);
    }
    if (!messages)
        mismatch(c);
    free(big);
}

int main(int argc, char **argv)
{
    int nrounds;
    MPI_Op op;
    MPI_Comm third;
    mtest_init(&argc, &argv);
    nrounds = argc > 1 ? atoi(argv[1]) : 2;
    messages = argc > 2 && strcmp(argv[2], "messages") == 0;
    MPI_Op_create(first_nonzero, 0, &op);
    all(MPI_COMM_WORLD, nrounds, op);
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 3 == 0, mtest_size - mtest_rank, &third);
    {
        int tp;
        MPI_Comm_size(third, &tp);
        if (tp > 2)
            all(third, 1, op);
    }
    MPI_Comm_free(&third);
    MPI_Op_free(&op);
    return mtest_finish();
}
