/*
 * RMA mixed with everything else: point-to-point messages received with
 * MPI_ANY_SOURCE/MPI_ANY_TAG in the middle of lock and fence epochs (they
 * must neither swallow nor be swallowed by window traffic), two windows
 * alive at once on different communicators (MPI_COMM_WORLD and the halves
 * of a split), and windows created and freed in a loop (contexts are
 * recycled without leftovers).
 */
#include "mtest.h"

enum { N = 4000, LOOPS = 20 };

int main(int argc, char **argv)
{
    int rank, size, *wmem, *hmem, hrank, hsize;
    MPI_Win w, h;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    wmem = calloc(N, sizeof(int));
    MPI_Win_create(wmem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, half, &hmem, &h);
    for (int i = 0; i < N; i++)
        hmem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    int *src = malloc(sizeof(int) * N), *msg = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        src[i] = rank * N + i;

    /* passive epoch on w with user messages interleaved */
    MPI_Win_lock_all(0, w);
    MPI_Request sreq;
    MPI_Status st;
    MPI_Isend(src, N, MPI_INT, right, 77, MPI_COMM_WORLD, &sreq);
    MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, w);
    MPI_Win_flush(right, w);
    MPI_Recv(msg, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 77, "message from %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    for (int i = 0; i < N; i++)
        if (msg[i] != left * N + i) {
            CHECK(0, "message [%d] = %d", i, msg[i]);
            break;
        }
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (wmem[i] != left * N + i) {
            CHECK(0, "put [%d] = %d", i, wmem[i]);
            break;
        }

    /* fence epochs on both windows at once, with a message exchange inside */
    MPI_Win_fence(0, w);
    MPI_Win_fence(0, h);
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, h);
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, msg, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
    CHECK(msg[0] == left && st.MPI_TAG == 5, "sendrecv got %d tag %d", msg[0], st.MPI_TAG);
    MPI_Win_fence(0, h);
    MPI_Win_fence(0, w);
    if (rank == 0)
        CHECK(wmem[0] == left * N + 0 + size, "world accumulate: %d", wmem[0]);
    if (hrank == 0)
        CHECK(hmem[0] == hsize, "half accumulate: %d (half size %d)", hmem[0], hsize);
    MPI_Win_free(&h);
    MPI_Win_free(&w);

    /* create/free in a loop; leftover traffic must not leak into later windows */
    for (int it = 0; it < LOOPS; it++) {
        int *m;
        MPI_Win x;
        MPI_Win_allocate(sizeof(int) * 4, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &m, &x);
        m[0] = -1;
        MPI_Win_create(wmem, sizeof(int) * 4, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
        MPI_Win_fence(0, w);
        MPI_Win_fence(0, x);
        MPI_Put(&it, 1, MPI_INT, right, 1, 1, MPI_INT, w);
        MPI_Put(&it, 1, MPI_INT, right, 0, 1, MPI_INT, x);
        MPI_Win_fence(0, x);
        MPI_Win_fence(0, w);
        CHECK(wmem[1] == it && m[0] == it, "loop %d: %d %d", it, wmem[1], m[0]);
        MPI_Win_free(&w);
        MPI_Win_free(&x);
    }
    MPI_Comm_free(&half);
    free(src);
    free(msg);
    free(wmem);
    return mtest_finish();
}
