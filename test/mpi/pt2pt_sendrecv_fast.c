/*
 * MPI_Sendrecv, MPI_Sendrecv_replace and MPI_Send across the eager limit:
 * a small contiguous send goes to the channel with no request when nothing
 * is queued before it (adi_send_now), anything else takes the request path,
 * and both must give the same results. Ring shifts and pairwise exchanges
 * with sizes from 0 bytes to past the rendezvous limit (each direction its
 * own size, received into a larger buffer: count checked), MPI_ANY_SOURCE
 * and MPI_ANY_TAG (status source and tag checked), a non-periodic shift
 * with MPI_PROC_NULL ends, truncation (MPI_ERR_TRUNCATE, eager and
 * rendezvous, the communicator still usable after), derived types on
 * either side, MPI_Sendrecv_replace, and ordering: a flood of small
 * MPI_Sends mixed with large ones, which fills the credit and the send
 * queue so later small sends must wait behind earlier ones, received in
 * order. Run on 2-8 ranks; "mt" runs the ring in two threads at once.
 */
#include "mtest.h"

#include <pthread.h>
#include <unistd.h>

static const int sizes[] = {0, 1, 8, 100, 4000, 16383, 16384, 16385, 40000, 300000};
enum { NSIZES = sizeof sizes / sizeof sizes[0], BIG = 300000 + 64 };

static unsigned char pat(int src, int tag, int i) { return (unsigned char)(src * 31 + tag * 7 + i); }

static void fill(unsigned char *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = pat(src, tag, i);
}

static int bad_at(const unsigned char *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        if (b[i] != pat(src, tag, i))
            return i;
    return -1;
}

static void check_status(const MPI_Status *st, int src, int tag, int n, const char *what, int k)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && cnt == n,
          "%s %d: source %d (want %d) tag %d (want %d) count %d (want %d)", what, k,
          st->MPI_SOURCE, src, st->MPI_TAG, tag, cnt, n);
}

/* Ring shifts with every size, specific and wildcard receives. */
static void ring(MPI_Comm comm, unsigned char *sb, unsigned char *rb)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int k = 0; k < NSIZES; k++) {
        for (int wild = 0; wild < 3; wild++) {
            int n = sizes[k], tag = k + 10 * wild;
            MPI_Status st;
            fill(sb, n, rank, tag);
            memset(rb, 0xee, (size_t)n + 8);
            OK(MPI_Sendrecv(sb, n, MPI_BYTE, right, tag, rb, BIG, MPI_BYTE,
                            wild == 1 ? MPI_ANY_SOURCE : left, wild == 2 ? MPI_ANY_TAG : tag, comm,
                            &st));
            check_status(&st, left, tag, n, "ring size index", k);
            int at = bad_at(rb, n, left, tag);
            CHECK(at < 0, "ring size %d: byte %d wrong", n, at);
            CHECK(rb[n] == 0xee, "ring size %d: wrote past the message", n);
        }
    }
}

typedef struct {
    MPI_Comm comm;
    unsigned char *sb, *rb;
} ring_arg_t;

static void *ring_thread(void *p)
{
    ring_arg_t *a = p;
    for (int i = 0; i < 3; i++)
        ring(a->comm, a->sb, a->rb);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, mt = argc > 1 && strcmp(argv[1], "mt") == 0;
    unsigned char *sb, *rb, *sb2, *rb2;
    MPI_Status st;

    provided = mtest_init_thread(&argc, &argv, mt ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
    int rank = mtest_rank, size = mtest_size;
    sb = malloc(BIG);
    rb = malloc(BIG + 8);
    sb2 = malloc(BIG);
    rb2 = malloc(BIG + 8);

    /* 1. ring shifts */
    ring(MPI_COMM_WORLD, sb, rb);
    if (mt) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
        MPI_Comm c2;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
        pthread_t th;
        ring_arg_t a = {c2, sb2, rb2};
        pthread_create(&th, NULL, ring_thread, &a);
        for (int i = 0; i < 3; i++)
            ring(MPI_COMM_WORLD, sb, rb);
        pthread_join(th, NULL);
        OK(MPI_Comm_free(&c2));
    }

    /* 2. pairwise exchanges, each direction its own size */
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank + size - d) % size;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[(k + rank) % NSIZES], m = sizes[(k + from) % NSIZES], tag = 100 + k;
            fill(sb, n, rank, tag);
            memset(rb, 0xee, (size_t)m + 8);
            OK(MPI_Sendrecv(sb, n, MPI_BYTE, to, tag, rb, BIG, MPI_BYTE, from, tag, MPI_COMM_WORLD,
                            &st));
            check_status(&st, from, tag, m, "pairwise k", k);
            CHECK(bad_at(rb, m, from, tag) < 0 && rb[m] == 0xee, "pairwise %d bytes from %d", m,
                  from);
        }
    }

    /* 3. a non-periodic shift: the ends have MPI_PROC_NULL neighbours */
    {
        int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
        int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k], cnt = -1;
            fill(sb, n, rank, 200);
            memset(rb, 0xee, 16);
            OK(MPI_Sendrecv(sb, n, MPI_BYTE, right, 200, rb, BIG, MPI_BYTE, left, 200,
                            MPI_COMM_WORLD, &st));
            if (left == MPI_PROC_NULL) {
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 &&
                          rb[0] == 0xee,
                      "shift from MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE,
                      st.MPI_TAG, cnt);
            } else {
                check_status(&st, left, 200, n, "shift size index", k);
                CHECK(bad_at(rb, n, left, 200) < 0, "shift %d bytes", n);
            }
        }
    }

    /* 4. truncation: the right neighbour sends more than the receive holds */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        const int tr[][2] = {{9, 8}, {16, 0}, {40000, 1000}, {300000, 16384}};
        for (int k = 0; k < 4; k++) {
            int n = tr[k][0], cap = tr[k][1], cls = -1;
            fill(sb, n, rank, 300 + k);
            memset(rb, 0xee, (size_t)cap + 8);
            int rc = MPI_Sendrecv(sb, n, MPI_BYTE, right, 300 + k, rb, cap, MPI_BYTE, left,
                                  300 + k, MPI_COMM_WORLD, &st);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "sending %d into %d bytes: error class %d", n, cap,
                  cls);
            CHECK(bad_at(rb, cap, left, 300 + k) < 0 && rb[cap] == 0xee,
                  "truncated receive of %d bytes: data or overrun", cap);
        }
        /* still usable */
        ring(MPI_COMM_WORLD, sb, rb);
    }

    /* 5. derived types: a strided send into a contiguous receive and back */
    {
        MPI_Datatype vec;
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        OK(MPI_Type_vector(1000, 1, 2, MPI_INT, &vec));
        OK(MPI_Type_commit(&vec));
        int *iv = malloc(2000 * sizeof(int)), *ic = malloc(1000 * sizeof(int));
        for (int i = 0; i < 2000; i++)
            iv[i] = rank * 100000 + i;
        OK(MPI_Sendrecv(iv, 1, vec, right, 400, ic, 1000, MPI_INT, left, 400, MPI_COMM_WORLD,
                        &st));
        for (int i = 0; i < 1000; i++)
            CHECK(ic[i] == left * 100000 + 2 * i, "vector into contiguous: element %d", i);
        memset(iv, 0, 2000 * sizeof(int));
        for (int i = 0; i < 1000; i++)
            ic[i] = rank * 100000 + i;
        OK(MPI_Sendrecv(ic, 1000, MPI_INT, right, 401, iv, 1, vec, left, 401, MPI_COMM_WORLD,
                        &st));
        for (int i = 0; i < 1000; i++)
            CHECK(iv[2 * i] == left * 100000 + i && iv[2 * i + 1] == 0,
                  "contiguous into vector: element %d", i);
        /* 6. MPI_Sendrecv_replace, contiguous sizes and the vector */
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k];
            fill(rb, n, rank, 500 + k);
            OK(MPI_Sendrecv_replace(rb, n, MPI_BYTE, right, 500 + k, left, 500 + k,
                                    MPI_COMM_WORLD, &st));
            check_status(&st, left, 500 + k, n, "replace size index", k);
            CHECK(bad_at(rb, n, left, 500 + k) < 0, "replace %d bytes", n);
        }
        for (int i = 0; i < 2000; i++)
            iv[i] = rank * 100000 + i;
        MPI_Comm own; /* (a wildcard on MPI_COMM_WORLD could match mtest_finish's messages) */
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &own));
        OK(MPI_Sendrecv_replace(iv, 1, vec, right, 502, MPI_ANY_SOURCE, MPI_ANY_TAG, own, &st));
        OK(MPI_Comm_free(&own));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 502, "replace vector: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < 2000; i++)
            CHECK(iv[i] == (i % 2 ? rank : left) * 100000 + i, "replace vector: element %d", i);
        free(iv);
        free(ic);
        MPI_Type_free(&vec);
    }

    /* 7. ordering: rank 0 floods rank 1 with small sends (most go with no
     * request until the credit runs out, then queue) mixed with large ones */
    if (size >= 2 && rank < 2) {
        enum { NMSG = 3000 };
        if (rank == 0) {
            for (int i = 0; i < NMSG; i++) {
                int n = i % 500 == 499 ? 100000 : 2000;
                memcpy(sb, &i, sizeof i);
                fill(sb + 4, n - 4, 0, i % 200);
                OK(MPI_Send(sb, n, MPI_BYTE, 1, 600, MPI_COMM_WORLD));
            }
        } else {
            usleep(100000); /* let the sends pile up (no timing is checked) */
            for (int i = 0; i < NMSG; i++) {
                int v = -1, n = i % 500 == 499 ? 100000 : 2000, cnt = -1;
                OK(MPI_Recv(rb, BIG, MPI_BYTE, 0, 600, MPI_COMM_WORLD, &st));
                memcpy(&v, rb, sizeof v);
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(v == i && cnt == n && bad_at(rb + 4, n - 4, 0, i % 200) < 0,
                      "flood message %d: got number %d, %d bytes", i, v, cnt);
                if (v != i)
                    break;
            }
        }
    }

    free(sb);
    free(rb);
    free(sb2);
    free(rb2);
    return mtest_finish();
}
