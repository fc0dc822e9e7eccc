/*
 * MPI_Isend's fast path (a small contiguous standard send goes straight
 * into the channel, one call from MPI_Isend to it) handing over to the
 * general path when something rare comes in the middle of a window, and
 * back, without reordering (MPI 4.0 3.5: messages of one sender on one
 * communicator arrive in the order sent):
 *  1. rank 0 sends every other rank a window of one tag, mostly 8-byte
 *     MPI_BYTE and 2-int sends, with rendezvous messages, strided vectors
 *     (packed, eager), MPI_Issend and MPI_Isend with a non-predefined
 *     contiguous type among them; the receivers post late (after a
 *     barrier), so the ring and the eager credit run out mid-window and the
 *     sends after that queue behind the first refused one; then a longer
 *     window to receivers that posted first and drain the ring while it is
 *     sent (a fast-path send that found room while earlier ones waited in
 *     the queue would overtake them). Each message carries its index; the
 *     receiver checks the order and the counts.
 *  2. every rank but 0 sends rank 0 a window on three tags, received with
 *     MPI_ANY_SOURCE and MPI_ANY_TAG after a barrier: per sender, in order.
 *  3. a revoked communicator in the middle: 8 sends go, then rank 0
 *     revokes the communicator and 8 more must fail with MPIX_ERR_REVOKED
 *     (from MPI_Isend or its wait), none delivered as a success.
 * Run with the default ring, a two-cell ring, a small unexpected-message
 * limit (little credit) and on the socket channel (testlist).
 */
#include "mtest.h"

enum { BIG = 20000, NB = 100, NREV = 8 };

static MPI_Datatype vec;  /* 2 ints out of every 3, 4 times: 8 ints of data */
static MPI_Datatype pair; /* a contiguous type of 2 ints (not predefined) */

typedef enum { K_BYTE8, K_INT2, K_BIG, K_VEC, K_SYNC, K_PAIR } kind_t;

static kind_t kind_of(int i)
{
    if (i % 50 == 25)
        return K_BIG;
    if (i % 7 == 3)
        return K_VEC;
    if (i % 11 == 5)
        return K_SYNC;
    if (i % 17 == 9)
        return K_PAIR;
    if (i % 13 == 6)
        return K_INT2;
    return K_BYTE8;
}

/* What message i of the window holds: its index in its first ints. */
static void fill(int *b, int i)
{
    for (int k = 0; k < 12; k++)
        b[k] = i * 100 + k;
}

static void check_msg(const int *rbuf, const MPI_Status *st, int i)
{
    int n, want_n;
    kind_t k = kind_of(i);

    if (k == K_VEC) {
        OK(MPI_Get_count(st, MPI_INT, &n));
        CHECK(n == 8, "message %d (vector): %d ints, want 8", i, n);
        CHECK(rbuf[0] == i * 100 && rbuf[1] == i * 100 + 1 && rbuf[3] == i * 100 + 3,
              "message %d (vector) holds %d %d %d: out of order", i, rbuf[0], rbuf[1], rbuf[3]);
        return;
    }
    OK(MPI_Get_count(st, MPI_BYTE, &n));
    want_n = k == K_BIG ? BIG : 8;
    CHECK(n == want_n, "message %d: %d bytes, want %d", i, n, want_n);
    CHECK(rbuf[0] == i * 100 && rbuf[1] == i * 100 + 1,
          "message %d holds %d %d (message %d's): out of order", i, rbuf[0], rbuf[1],
          rbuf[0] / 100);
}

/* Rank 0 sends every other rank a window of nw messages on one tag. late:
 * the receivers post only after the whole window was started (a blocking
 * receive each), so the senders' rings and credit run out and stay so;
 * else they post every receive first and complete them while rank 0 sends,
 * so the ring fills and empties under the window: a fast-path send that
 * found room in it while earlier sends waited in the queue would overtake
 * them. */
static void window_to_all(int nw, int late)
{
    enum { SPAN = BIG / 4 + 12 };
    int *sbuf = NULL, *rbuf = NULL;
    MPI_Request *req = NULL;
    int nreq = 0;

    if (mtest_rank == 0) {
        sbuf = malloc(sizeof *sbuf * SPAN * (size_t)nw);
        req = malloc(sizeof *req * (size_t)nw * (size_t)mtest_size);
        for (int i = 0; i < nw; i++)
            fill(&sbuf[(size_t)i * SPAN], i);
    } else {
        rbuf = malloc(sizeof *rbuf * SPAN * (size_t)(late ? 1 : nw));
        req = malloc(sizeof *req * (size_t)nw);
        for (int i = 0; !late && i < nw; i++) {
            int *b = &rbuf[(size_t)i * SPAN];
            memset(b, 0xff, sizeof *b * SPAN);
            if (kind_of(i) == K_VEC)
                OK(MPI_Irecv(b, 1, vec, 0, 7, MPI_COMM_WORLD, &req[i]));
            else
                OK(MPI_Irecv(b, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[i]));
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mtest_rank == 0) {
        for (int dst = 1; dst < mtest_size; dst++) {
            for (int i = 0; i < nw; i++) {
                int *b = &sbuf[(size_t)i * SPAN];
                MPI_Request *r = &req[nreq++];
                switch (kind_of(i)) {
                case K_BYTE8:
                    OK(MPI_Isend(b, 8, MPI_BYTE, dst, 7, MPI_COMM_WORLD, r));
                    break;
                case K_INT2:
                    OK(MPI_Isend(b, 2, MPI_INT, dst, 7, MPI_COMM_WORLD, r));
                    break;
                case K_BIG:
                    OK(MPI_Isend(b, BIG, MPI_BYTE, dst, 7, MPI_COMM_WORLD, r));
                    break;
                case K_VEC:
                    OK(MPI_Isend(b, 1, vec, dst, 7, MPI_COMM_WORLD, r));
                    break;
                case K_SYNC:
                    OK(MPI_Issend(b, 8, MPI_BYTE, dst, 7, MPI_COMM_WORLD, r));
                    break;
                case K_PAIR:
                    OK(MPI_Isend(b, 1, pair, dst, 7, MPI_COMM_WORLD, r));
                    break;
                }
            }
        }
        /* (late: the receivers post after this barrier, the synchronous
         * sends among them complete only then) */
        if (late)
            OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        if (!late)
            OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        if (late)
            OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < nw; i++) {
            MPI_Status st;
            if (late) {
                memset(rbuf, 0xff, sizeof *rbuf * SPAN);
                if (kind_of(i) == K_VEC)
                    OK(MPI_Recv(rbuf, 1, vec, 0, 7, MPI_COMM_WORLD, &st));
                else
                    OK(MPI_Recv(rbuf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
                check_msg(rbuf, &st, i);
            } else {
                OK(MPI_Wait(&req[i], &st));
                check_msg(&rbuf[(size_t)i * SPAN], &st, i);
            }
        }
        if (!late)
            OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(sbuf);
    free(rbuf);
    free(req);
}

static void window_any_source(void)
{
    int next[64];

    if (mtest_rank != 0) {
        MPI_Request req[NB];
        int vals[NB];
        for (int i = 0; i < NB; i++) {
            vals[i] = mtest_rank * 10000 + i;
            OK(MPI_Isend(&vals[i], 1, MPI_INT, 0, i % 3, MPI_COMM_WORLD, &req[i]));
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Waitall(NB, req, MPI_STATUSES_IGNORE));
        return;
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int s = 0; s < 64; s++)
        next[s] = 0;
    for (int i = 0; i < NB * (mtest_size - 1); i++) {
        MPI_Status st;
        int v = -1, src;
        OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        src = st.MPI_SOURCE;
        CHECK(src > 0 && src < mtest_size && src < 64, "source %d", src);
        if (src <= 0 || src >= 64)
            continue;
        CHECK(v == src * 10000 + next[src], "from %d: message %d where %d was next", src,
              v - src * 10000, next[src]);
        CHECK(st.MPI_TAG == next[src] % 3, "from %d: tag %d, want %d", src, st.MPI_TAG,
              next[src] % 3);
        next[src]++;
    }
}

static void revoked_in_the_middle(void)
{
    MPI_Comm d;
    int v[NREV * 2];

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    if (mtest_rank == 0) {
        MPI_Request req[NREV];
        for (int i = 0; i < NREV; i++) {
            v[i] = i;
            OK(MPI_Isend(&v[i], 1, MPI_INT, 1, 3, d, &req[i]));
        }
        OK(MPI_Waitall(NREV, req, MPI_STATUSES_IGNORE));
    } else if (mtest_rank == 1) {
        for (int i = 0; i < NREV; i++) {
            int x = -1;
            OK(MPI_Recv(&x, 1, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE));
            CHECK(x == i, "before the revocation: message %d holds %d", i, x);
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mtest_rank == 0) {
        OK(MPIX_Comm_revoke(d));
        for (int i = NREV; i < 2 * NREV; i++) {
            MPI_Request r = MPI_REQUEST_NULL;
            int rc;
            v[i] = i;
            rc = MPI_Isend(&v[i], 1, MPI_INT, 1, 3, d, &r);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(rc != MPI_SUCCESS && mtest_error_class(rc) == MPIX_ERR_REVOKED,
                  "send %d on the revoked communicator: error class %d, want MPIX_ERR_REVOKED",
                  i, rc == MPI_SUCCESS ? 0 : mtest_error_class(rc));
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    OK(MPI_Type_vector(4, 2, 3, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    if (mtest_size >= 2) {
        window_to_all(400, 1);
        window_to_all(3000, 0);
        window_any_source();
        revoked_in_the_middle();
    }
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&pair));
    return mtest_finish();
}
