/*
 * The root's sends of small MPI_Scatter(v), as the device sends them in one
 * call with no request where each can go at once and on a request where it
 * cannot (adi_send_now_each; coll/pair.c's lin_scatter_run). Here: roots in
 * turn; a root that runs ahead of late leaves (they nap first), so that
 * its peers' credit runs out and later blocks take the request path,
 * every block's ints checked at its leaf; blocks of 0 ints for some
 * ranks, displacements out of order and overlapping (several ranks read
 * the same ints), MPI_IN_PLACE at the root; a contiguous derived type
 * whose data starts 4 bytes past its buffer (true lower bound 4: the
 * device's send must start there), against leaves that receive MPI_INT;
 * the int and _c forms; a communicator whose ranks are the world's in
 * reverse order. Under MPI_ERRORS_RETURN.
 * Usage: coll_root_batch [CALLS] (the calls a root makes ahead, 300).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAXN = 512 }; /* ints: 2 KiB, the largest block the direct run takes */

static int val(int call, int j)
{
    return call * 7919 + j + 1;
}

static void nap_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* The ints rank r receives in call k (0 for some). */
static int count_of(int r, int k)
{
    return (r + k) % 5 == 0 ? 0 : 1 + (r * 37 + k * 11) % MAXN;
}

/* Calls of scatterv from a root that runs ahead: the source holds
 * val(k, j) at index j, and every rank's block starts at an offset that
 * overlaps others' (ranks in reverse order, offsets 0, 3, 6 ...). */
static void ahead(MPI_Comm comm, int calls, int root, int big)
{
    int p = mtest_size, me;
    int *src = malloc(sizeof(int) * (MAXN + 3 * (size_t)p)), *got = malloc(sizeof(int) * (MAXN + 1));
    int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
    MPI_Count *ccnt = malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *cdsp = malloc(sizeof(MPI_Aint) * (size_t)p);

    MPI_Comm_rank(comm, &me);
    if (me != root)
        nap_ms(200); /* (the root sends its first calls into the rings) */
    for (int k = 0; k < calls; k++) {
        int n = count_of(me, k), in_place = me == root && k % 7 == 3;
        for (int i = 0; i < p; i++) {
            cnt[i] = count_of(i, k);
            dsp[i] = 3 * (p - 1 - i);
            ccnt[i] = cnt[i];
            cdsp[i] = dsp[i];
        }
        if (me == root)
            for (int j = 0; j < MAXN + 3 * p; j++)
                src[j] = val(k, j);
        for (int j = 0; j <= MAXN; j++)
            got[j] = -1;
        if (big)
            OK(MPI_Scatterv_c(src, ccnt, cdsp, MPI_INT, in_place ? MPI_IN_PLACE : got, n, MPI_INT,
                              root, comm));
        else
            OK(MPI_Scatterv(src, cnt, dsp, MPI_INT, in_place ? MPI_IN_PLACE : got, n, MPI_INT,
                            root, comm));
        if (in_place)
            continue;
        for (int j = 0; j < n; j++)
            if (got[j] != val(k, dsp[me] + j)) {
                CHECK(got[j] == val(k, dsp[me] + j),
                      "scatterv%s root %d call %d: int %d of %d is %d, want %d", big ? "_c" : "",
                      root, k, j, n, got[j], val(k, dsp[me] + j));
                break;
            }
        CHECK(got[n] == -1, "scatterv root %d call %d: int %d past the block was written", root,
              k, n);
        if (me != root && k % 50 == 49)
            nap_ms(20); /* (late again) */
    }
    free(src);
    free(got);
    free(cnt);
    free(dsp);
    free(ccnt);
    free(cdsp);
}

/* MPI_Scatter from a root whose type is 2 ints starting 4 bytes into each
 * 8-byte extent's span (true lower bound 4, contiguous), n of them a
 * block; the leaves receive 2n MPI_INT. */
static void lb_type(int calls, int root)
{
    int p = mtest_size, me = mtest_rank, blen = 2, n = 3;
    MPI_Aint disp = 4;
    MPI_Datatype t;
    int *src = malloc(sizeof(int) * (size_t)(p * n * 2 + 2)), got[2 * 3 + 1];

    OK(MPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    for (int k = 0; k < calls; k++) {
        /* rank i's ints: src[1 + 2n i ...], val(k, 2n i + j) */
        for (int j = 0; j < p * n * 2 + 2; j++)
            src[j] = j == 0 ? -7 : val(k, j - 1);
        for (int j = 0; j <= 2 * n; j++)
            got[j] = -1;
        if (me == root)
            OK(MPI_Scatter(src, n, t, got, 2 * n, MPI_INT, root, MPI_COMM_WORLD));
        else
            OK(MPI_Scatter(NULL, 0, MPI_INT, got, 2 * n, MPI_INT, root, MPI_COMM_WORLD));
        for (int j = 0; j < 2 * n; j++)
            if (got[j] != val(k, 2 * n * me + j)) {
                CHECK(got[j] == val(k, 2 * n * me + j),
                      "scatter of a type with lower bound 4, root %d call %d: int %d is %d, "
                      "want %d",
                      root, k, j, got[j], val(k, 2 * n * me + j));
                break;
            }
        CHECK(got[2 * n] == -1, "scatter root %d call %d: past the block written", root, k);
    }
    OK(MPI_Type_free(&t));
    free(src);
}

int main(int argc, char **argv)
{
    int calls;
    MPI_Comm rev;

    mtest_init(&argc, &argv);
    calls = argc > 1 ? atoi(argv[1]) : 300;
    for (int root = 0; root < mtest_size; root++) {
        ahead(MPI_COMM_WORLD, calls, root, root % 2);
        OK(MPI_Barrier(MPI_COMM_WORLD));
        lb_type(20, root);
    }
    /* ranks in reverse order: a rank's job rank is not its rank there */
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mtest_size - mtest_rank, &rev));
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    for (int root = 0; root < mtest_size; root++)
        ahead(rev, calls / 3, root, root % 2);
    OK(MPI_Comm_free(&rev));
    return mtest_finish();
}
