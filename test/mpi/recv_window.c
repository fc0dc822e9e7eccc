/*
 * The receive side of a window of messages (issue 26: osu_bw and
 * osu_mbw_mr post 64 MPI_Irecv, then MPI_Waitall): rank 0 posts windows of
 * 1-256 receives per sender, before the messages arrive, after they all
 * arrived (unexpected), or half and half, and completes them with
 * MPI_Waitall or an MPI_Testall loop. The receives mix specific (source,
 * tag) with MPI_ANY_TAG, MPI_ANY_SOURCE (on a tag only that sender uses) and,
 * with one sender, (MPI_ANY_SOURCE, MPI_ANY_TAG), so that MPI's order fixes
 * which message each receive gets; some are truncated (MPI_ERR_TRUNCATE in
 * the status, the bytes past the buffer untouched), some receive into a
 * derived type (a strided vector of ints) and a few messages of a window
 * are rendezvous ones. Every receive's content, source, tag, count and
 * error are checked. Runs on 2-8 ranks (testlist).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { BIG = 12000, GUARD = 16, MAXW = 256 };
static const int windows[] = {1, 2, 5, 16, 64, 65, 200, 256};

/* Ints in message k (the same for every sender): small ones, and now and
 * then one beyond the eager limit. */
static int msg_len(int k) { return k % 29 == 7 ? BIG : k % 5; }

/* Each sender has tags of its own, so an MPI_ANY_SOURCE receive on one of
 * them matches that sender's messages only. */
static int msg_tag(int s, int k) { return s * 4 + k % 3; }

static int value(int s, int k, int i) { return s * 1000000 + (k % 1000) * 1000 + i % 1000; }

typedef struct {
    int *buf;      /* capacity ints (strided: 2 * capacity), then GUARD ints */
    int capacity;  /* ints the receive takes */
    int strided;   /* the receive type is a vector of single ints, stride 2 */
    int src, tag;  /* the receive's pattern */
} recv_t;

int main(int argc, char **argv)
{
    int rank, size, nsend, round = 0;
    MPI_Datatype strided;

    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;
    nsend = size - 1;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
    OK(MPI_Type_commit(&strided));

    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        int w = windows[wi];
        for (int when = 0; when < 3; when++, round++) { /* posted before, after, half */
            if (rank == 0) {
                int n = nsend * w, posted = 0, flag = 0, rc;
                recv_t *rv = calloc((size_t)n, sizeof *rv);
                MPI_Request *req = malloc(sizeof *req * (size_t)n);
                MPI_Status *st = malloc(sizeof *st * (size_t)n);
                int upfront = when == 0 ? n : when == 1 ? 0 : n / 2;
                CHECK(rv != NULL && req != NULL && st != NULL, "no memory");
                /* receive j is sender s's message k (interleaved over senders) */
                for (int j = 0; j < n; j++) {
                    int s = 1 + j % nsend, k = j / nsend, len = msg_len(k), alloc;
                    recv_t *r = &rv[j];
                    r->capacity = (k + round) % 11 == 4 ? (len > 0 ? len - 1 : 0) : len + k % 2;
                    if (len == BIG && (k + round) % 2)
                        r->capacity = 100; /* a truncated rendezvous message */
                    r->strided = (k + round) % 7 == 3;
                    alloc = (r->strided ? 2 * r->capacity : r->capacity) + GUARD;
                    r->buf = malloc(sizeof(int) * (size_t)alloc);
                    CHECK(r->buf != NULL, "no memory");
                    memset(r->buf, 0xEE, sizeof(int) * (size_t)alloc);
                    r->src = s;
                    r->tag = msg_tag(s, k);
                    switch ((k + round) % 4) {
                    case 1: r->tag = MPI_ANY_TAG; break;
                    case 2: r->src = MPI_ANY_SOURCE; break;
                    case 3:
                        if (nsend == 1) {
                            r->src = MPI_ANY_SOURCE;
                            r->tag = MPI_ANY_TAG;
                        }
                        break;
                    }
                }
                for (; posted < upfront; posted++) {
                    recv_t *r = &rv[posted];
                    OK(MPI_Irecv(r->buf, r->capacity, r->strided ? strided : MPI_INT, r->src,
                                 r->tag, MPI_COMM_WORLD, &req[posted]));
                }
                OK(MPI_Barrier(MPI_COMM_WORLD)); /* receives posted: senders go */
                if (when != 0)
                    OK(MPI_Barrier(MPI_COMM_WORLD)); /* every message sent (unexpected) */
                for (; posted < n; posted++) {
                    recv_t *r = &rv[posted];
                    OK(MPI_Irecv(r->buf, r->capacity, r->strided ? strided : MPI_INT, r->src,
                                 r->tag, MPI_COMM_WORLD, &req[posted]));
                }
                if (round % 2 == 0) {
                    rc = MPI_Waitall(n, req, st);
                } else {
                    do
                        rc = MPI_Testall(n, req, &flag, st);
                    while (rc == MPI_SUCCESS && !flag);
                    if (rc != MPI_SUCCESS) /* a failed receive: Testall said flag true */
                        CHECK(flag, "round %d: MPI_Testall failed with flag 0", round);
                }
                CHECK(rc == MPI_SUCCESS || mtest_error_class(rc) == MPI_ERR_IN_STATUS,
                      "round %d: completion returned class %d", round, mtest_error_class(rc));
                for (int j = 0; j < n; j++) {
                    int s = 1 + j % nsend, k = j / nsend, len = msg_len(k), count = -1;
                    recv_t *r = &rv[j];
                    int got = len < r->capacity ? len : r->capacity;
                    int trunc = len > r->capacity;
                    CHECK(req[j] == MPI_REQUEST_NULL, "round %d recv %d: request not freed", round,
                          j);
                    CHECK(st[j].MPI_SOURCE == s && st[j].MPI_TAG == msg_tag(s, k),
                          "round %d (window %d, when %d) recv %d (%d, %d): source %d tag %d, "
                          "expected %d %d",
                          round, w, when, j, r->src, r->tag, st[j].MPI_SOURCE, st[j].MPI_TAG, s,
                          msg_tag(s, k));
                    if (trunc)
                        CHECK(rc != MPI_SUCCESS &&
                                  mtest_error_class(st[j].MPI_ERROR) == MPI_ERR_TRUNCATE,
                              "round %d recv %d: %d ints into %d, error class %d", round, j, len,
                              r->capacity, mtest_error_class(st[j].MPI_ERROR));
                    else
                        CHECK(rc == MPI_SUCCESS || st[j].MPI_ERROR == MPI_SUCCESS,
                              "round %d recv %d: error %d", round, j, st[j].MPI_ERROR);
                    OK(MPI_Get_count(&st[j], MPI_INT, &count));
                    CHECK(count == got, "round %d recv %d: count %d, expected %d", round, j, count,
                          got);
                    /* the data where the type puts it, the rest untouched */
                    for (int i = 0; i < (r->strided ? 2 * r->capacity : r->capacity) + GUARD; i++) {
                        int data = r->strided ? i % 2 == 0 && i / 2 < got : i < got;
                        int want = data ? value(s, k, r->strided ? i / 2 : i) : (int)0xEEEEEEEE;
                        CHECK(r->buf[i] == want,
                              "round %d (window %d, when %d) recv %d (%d of %d ints%s): int %d is "
                              "%#x, expected %#x",
                              round, w, when, j, got, r->capacity, r->strided ? ", strided" : "",
                              i, (unsigned)r->buf[i], (unsigned)want);
                    }
                    free(r->buf);
                }
                free(rv);
                free(req);
                free(st);
            } else {
                MPI_Request *req = malloc(sizeof *req * (size_t)w);
                int **data = malloc(sizeof *data * (size_t)w);
                CHECK(req != NULL && data != NULL, "no memory");
                OK(MPI_Barrier(MPI_COMM_WORLD));
                for (int k = 0; k < w; k++) {
                    int len = msg_len(k);
                    data[k] = malloc(sizeof(int) * (size_t)(len + 1));
                    CHECK(data[k] != NULL, "no memory");
                    for (int i = 0; i < len; i++)
                        data[k][i] = value(rank, k, i);
                    OK(MPI_Isend(data[k], len, MPI_INT, 0, msg_tag(rank, k), MPI_COMM_WORLD,
                                 &req[k]));
                }
                if (when != 0) {
                    /* the eager ones are all in rank 0's unexpected queue (or
                     * waiting behind a full ring) before it posts the rest */
                    OK(MPI_Barrier(MPI_COMM_WORLD));
                }
                OK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
                for (int k = 0; k < w; k++)
                    free(data[k]);
                free(data);
                free(req);
            }
        }
    }
    OK(MPI_Type_free(&strided));
    return mtest_finish();
}
