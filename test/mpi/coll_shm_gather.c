/*
 * MPI_Allgather and MPI_Alltoall on communicators whose ranks are all on
 * one node, which Canal runs through the node's shared block while every
 * rank receives at most 2 KiB (COLL_SHM_GATHER_MAX, coll/shm.c): each rank writes what it
 * sends into its slot, waits for all, and copies the blocks out. Checked, on
 * MPI_COMM_WORLD and on a split communicator:
 *  - counts of 1 int up to the block's limit and just above it (messages),
 *    back to back and mixed with barriers, small allreduces and bcasts,
 *    values checked after each (every call reuses a slot two calls later);
 *  - MPI_IN_PLACE for both;
 *  - a vector type (every other int) at the senders against contiguous
 *    ints at the receivers, and the other way round;
 *  - errors, under MPI_ERRORS_RETURN, on a duplicate: a rank whose count
 *    differs from the others' fails every rank (no hang, no wrong data
 *    taken for right), and a rank whose send and receive signatures differ
 *    fails every rank, also when it fails two calls in a row before a slow
 *    rank reaches the first; afterwards the ranks agree again (a last
 *    allgather on MPI_COMM_WORLD).
 * Any number of ranks. Argument: rounds (default 10).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int value(int round, int from, int to, int i)
{
    return round * 1000003 + from * 10007 + to * 101 + i;
}

/* allgather of n ints a rank (in place or not), checked */
static void allgather(MPI_Comm c, int round, int n, int inplace)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n * (size_t)p);
    for (int i = 0; i < n * p; i++)
        r[i] = -1;
    for (int i = 0; i < n; i++)
        (inplace ? r + (size_t)me * (size_t)n : s)[i] = value(round, me, 0, i);
    OK(MPI_Allgather(inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, c));
    for (int from = 0; from < p; from++)
        for (int i = 0; i < n; i++)
            if (r[from * n + i] != value(round, from, 0, i)) {
                CHECK(0, "allgather round %d n %d inplace %d: from %d [%d] = %d, want %d", round,
                      n, inplace, from, i, r[from * n + i], value(round, from, 0, i));
                goto out;
            }
out:
    free(s);
    free(r);
}

/* alltoall of n ints a pair (in place or not), checked */
static void alltoall(MPI_Comm c, int round, int n, int inplace)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    size_t all = (size_t)n * (size_t)p;
    int *s = malloc(sizeof(int) * all), *r = malloc(sizeof(int) * all);
    for (int to = 0; to < p; to++)
        for (int i = 0; i < n; i++) {
            s[to * n + i] = value(round, me, to, i);
            r[to * n + i] = inplace ? s[to * n + i] : -1;
        }
    OK(MPI_Alltoall(inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, c));
    for (int from = 0; from < p; from++)
        for (int i = 0; i < n; i++)
            if (r[from * n + i] != value(round, from, me, i)) {
                CHECK(0, "alltoall round %d n %d inplace %d: from %d [%d] = %d, want %d", round, n,
                      inplace, from, i, r[from * n + i], value(round, from, me, i));
                goto out;
            }
out:
    free(s);
    free(r);
}

static void rounds(MPI_Comm c, int nrounds)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    /* ints a rank receives up to the limit (2 KiB) and past it */
    int limit = 2048 / (int)sizeof(int);
    int gsizes[] = {1, 2, limit / p, limit / p + 1, 200};
    int asizes[] = {1, limit / (p * p) > 0 ? limit / (p * p) : 1, limit / (p * p) + 1, 100};
    for (int round = 0; round < nrounds; round++) {
        for (int k = 0; k < (int)(sizeof gsizes / sizeof gsizes[0]); k++)
            if (gsizes[k] > 0)
                for (int inplace = 0; inplace < 2; inplace++)
                    allgather(c, round, gsizes[k], inplace);
        for (int k = 0; k < (int)(sizeof asizes / sizeof asizes[0]); k++)
            for (int inplace = 0; inplace < 2; inplace++)
                alltoall(c, round, asizes[k], inplace);
        /* mixed with the block's other calls */
        int x = me, sum = -1, b = me == round % p ? round : -1;
        allgather(c, round, 1, 0);
        OK(MPI_Barrier(c));
        alltoall(c, round, 1, 0);
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == p * (p - 1) / 2, "allreduce between: %d", sum);
        OK(MPI_Bcast(&b, 1, MPI_INT, round % p, c));
        CHECK(b == round, "bcast between: %d, want %d", b, round);
        alltoall(c, round, 2, 1);
        allgather(c, round, 2, 1);
    }
}

/* every other int of a vector against contiguous ints, both ways */
static void types(MPI_Comm c)
{
    int me, p, n = 8;
    MPI_Datatype vec;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    size_t all = 2 * (size_t)n * (size_t)p;
    int *v = malloc(sizeof(int) * all), *w = malloc(sizeof(int) * all);
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Datatype vec_r; /* the vector resized to n ints' span, so blocks follow each other */
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &vec_r);
    MPI_Type_commit(&vec_r);
    /* allgather: a vector sent, ints received */
    for (int i = 0; i < 2 * n; i++)
        v[i] = i % 2 == 0 ? me * 100 + i / 2 : -5;
    OK(MPI_Allgather(v, 1, vec, w, n, MPI_INT, c));
    for (int from = 0; from < p; from++)
        for (int i = 0; i < n; i++)
            if (w[from * n + i] != from * 100 + i) {
                CHECK(0, "allgather of a vector: from %d [%d] = %d", from, i, w[from * n + i]);
                goto next;
            }
next:
    /* alltoall: ints sent, vectors received */
    for (int to = 0; to < p; to++)
        for (int i = 0; i < n; i++)
            v[to * n + i] = me * 1000 + to * 10 + i;
    for (int i = 0; i < 2 * n * p; i++)
        w[i] = -7;
    OK(MPI_Alltoall(v, n, MPI_INT, w, 1, vec_r, c));
    for (int from = 0; from < p; from++)
        for (int i = 0; i < 2 * n; i++) {
            int want = i % 2 == 0 ? from * 1000 + me * 10 + i / 2 : -7;
            if (w[from * 2 * n + i] != want) {
                CHECK(0, "alltoall into vectors: from %d [%d] = %d, want %d", from, i,
                      w[from * 2 * n + i], want);
                goto done;
            }
        }
done:
    MPI_Type_free(&vec_r);
    MPI_Type_free(&vec);
    free(v);
    free(w);
}

static void errors(void)
{
    MPI_Comm c;
    int me, p, rc, cls, s[64] = {0}, r[64 * 64];
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    if (p < 2)
        goto out;
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c)); /* (the block) */
    /* the last rank passes 2 ints where the others pass 1 */
    rc = MPI_Allgather(s, me == p - 1 ? 2 : 1, MPI_INT, r, me == p - 1 ? 2 : 1, MPI_INT, c);
    CHECK(rc != MPI_SUCCESS, "allgather with a count that differs on rank %d: no error", p - 1);
    /* (the communicator may be out of step now at some ranks: a fresh one) */
    MPI_Comm_free(&c);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c));
    /* rank 0 sends 2 ints a block but receives 1: its signatures differ */
    rc = MPI_Alltoall(s, me == 0 ? 2 : 1, MPI_INT, r, 1, MPI_INT, c);
    CHECK(rc != MPI_SUCCESS, "alltoall whose rank 0 sends 2 ints and receives 1: no error");
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        if (me == 0)
            CHECK(cls == MPI_ERR_TRUNCATE, "rank 0, sending more than it receives: class %d", cls);
    }
    /* rank 0 fails two calls in a row before the last rank, asleep, comes
     * to the first: the others stop at both, and so does the last rank,
     * although rank 0's line names the second call by then (it hung so
     * before the fix: it waited for rank 0 to enter or fail the first) */
    if (p >= 3) {
        MPI_Comm_free(&c);
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        for (int i = 0; i < 3; i++)
            OK(MPI_Barrier(c));
        if (me == p - 1)
            usleep(300000);
        for (int k = 0; k < 2; k++) {
            rc = MPI_Alltoall(s, me == 0 ? 2 : 1, MPI_INT, r, 1, MPI_INT, c);
            CHECK(rc != MPI_SUCCESS, "alltoall %d after rank 0's bad one: no error", k);
        }
    }
out:
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int nrounds;
    MPI_Comm half;
    mtest_init(&argc, &argv);
    nrounds = argc > 1 ? atoi(argv[1]) : 10;
    rounds(MPI_COMM_WORLD, nrounds);
    types(MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_size - mtest_rank, &half);
    rounds(half, nrounds / 2 + 1);
    types(half);
    MPI_Comm_free(&half);
    errors();
    /* everybody agrees again on a communicator of its own */
    allgather(MPI_COMM_WORLD, 99, 3, 0);
    return mtest_finish();
}
