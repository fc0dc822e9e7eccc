/* Point-to-point semantics programs rely on: all send modes, self sends,
 * wildcards, MPI_PROC_NULL, zero counts, probes, matched probes, cancel,
 * persistent and generalized requests, buffered sends, sendrecv, the wait
 * and test families, eager and rendezvous sizes, derived datatypes. */
#include "mtest.h"

static int rank, size;

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 1000003 + i;
}

static int verify(const int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (b[i] != seed * 1000003 + i)
            return i;
    return -1;
}

static void ring_sizes(void)
{
    static const int counts[] = {0, 1, 7, 1000, 4096, 20000, 300000, 1 << 20};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k], bad, cnt;
        int *s = malloc(sizeof(int) * (n + 1)), *r = malloc(sizeof(int) * (n + 1));
        MPI_Status st;
        MPI_Request rq[2];
        fill(s, n, rank + (int)k);
        MPI_Irecv(r, n, MPI_INT, prev, (int)k, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(s, n, MPI_INT, next, (int)k, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        bad = verify(r, n, prev + (int)k);
        CHECK(bad < 0, "isend/irecv %d ints: first bad index %d", n, bad);
        /* every send mode */
        for (int mode = 0; mode < 3; mode++) {
            memset(r, 0, sizeof(int) * (n + 1));
            MPI_Irecv(r, n, MPI_INT, prev, 100 + mode, MPI_COMM_WORLD, &rq[0]);
            { int t = 0; MPI_Sendrecv(&t, 0, MPI_INT, prev, 55, &t, 0, MPI_INT, next, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } /* ready mode: the receive is posted (no collectives here) */
            if (mode == 0)
                MPI_Ssend(s, n, MPI_INT, next, 100 + mode, MPI_COMM_WORLD);
            else if (mode == 1)
                MPI_Rsend(s, n, MPI_INT, next, 100 + mode, MPI_COMM_WORLD);
            else
                MPI_Send(s, n, MPI_INT, next, 100 + mode, MPI_COMM_WORLD);
            MPI_Wait(&rq[0], &st);
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(cnt == n && st.MPI_SOURCE == prev && st.MPI_TAG == 100 + mode,
                  "mode %d: count %d source %d tag %d", mode, cnt, st.MPI_SOURCE, st.MPI_TAG);
            bad = verify(r, n, prev + (int)k);
            CHECK(bad < 0, "mode %d, %d ints: first bad index %d", mode, n, bad);
        }
        free(s);
        free(r);
    }
}

static void self_and_wildcards(void)
{
    int a[3] = {1, 2, 3}, b[3] = {0}, flag, cnt;
    MPI_Status st;
    MPI_Request rq;

    MPI_Send(a, 3, MPI_INT, rank, 5, MPI_COMM_WORLD); /* eager to self, unexpected */
    /* other ranks may already be sending later phases to us: only wildcard the tag */
    MPI_Iprobe(rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag && st.MPI_SOURCE == rank && st.MPI_TAG == 5, "iprobe flag %d", flag);
    MPI_Probe(rank, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3, "probe count %d", cnt);
    MPI_Recv(b, 3, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    CHECK(b[2] == 3 && st.MPI_TAG == 5, "self recv");
    /* PROC_NULL */
    MPI_Send(a, 3, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(b, 3, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "proc_null status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    /* cancel a receive that cannot match */
    MPI_Irecv(b, 1, MPI_INT, rank, 777, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "receive not cancelled");
    /* matched probe */
    {
        MPI_Message msg;
        int v = 99, w = 0;
        MPI_Send(&v, 1, MPI_INT, rank, 6, MPI_COMM_WORLD);
        MPI_Mprobe(rank, 6, MPI_COMM_WORLD, &msg, &st);
        MPI_Iprobe(rank, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "mprobe'd message still probe-able");
        MPI_Mrecv(&w, 1, MPI_INT, &msg, &st);
        CHECK(w == 99 && msg == MPI_MESSAGE_NULL, "mrecv %d", w);
        MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st);
        CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "improbe proc_null");
        MPI_Mrecv(&w, 1, MPI_INT, &msg, &st);
    }
    /* sendrecv_replace with self */
    {
        int v[2] = {rank, rank + 1};
        MPI_Sendrecv_replace(v, 2, MPI_INT, rank, 8, rank, 8, MPI_COMM_WORLD, &st);
        CHECK(v[0] == rank && v[1] == rank + 1, "sendrecv_replace");
    }
}

static void persistent_and_bsend(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int s = rank, r = -1, bsz = 1 << 16;
    MPI_Request rq[2];
    MPI_Status st[2];
    char *buf = malloc((size_t)bsz);
    void *det;

    MPI_Recv_init(&r, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(&s, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &rq[1]);
    for (int it = 0; it < 5; it++) {
        s = rank * 10 + it;
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, st);
        CHECK(r == prev * 10 + it, "persistent iteration %d got %d", it, r);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);

    MPI_Buffer_attach(buf, bsz);
    s = 1234;
    MPI_Bsend(&s, 1, MPI_INT, next, 10, MPI_COMM_WORLD);
    MPI_Recv(&r, 1, MPI_INT, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(r == 1234, "bsend got %d", r);
    MPI_Buffer_detach(&det, &bsz);
    CHECK(det == buf, "detach returned another buffer");
    free(buf);
}

static void waits(void)
{
    enum { N = 6 };
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int sbuf[N], rbuf[N], idx, outcount, indices[N], flag, done = 0;
    MPI_Request rq[N], sq[N];
    MPI_Status st[N];

    for (int i = 0; i < N; i++) {
        sbuf[i] = rank * 100 + i;
        MPI_Irecv(&rbuf[i], 1, MPI_INT, prev, 20 + i, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = N - 1; i >= 0; i--)
        MPI_Isend(&sbuf[i], 1, MPI_INT, next, 20 + i, MPI_COMM_WORLD, &sq[i]);
    MPI_Waitany(N, rq, &idx, &st[0]);
    CHECK(idx >= 0 && idx < N && rbuf[idx] == prev * 100 + idx, "waitany idx %d", idx);
    done = 1;
    while (done < N) {
        MPI_Waitsome(N, rq, &outcount, indices, st);
        CHECK(outcount != MPI_UNDEFINED, "waitsome undefined too early");
        for (int i = 0; i < outcount; i++)
            CHECK(rbuf[indices[i]] == prev * 100 + indices[i], "waitsome value");
        done += outcount;
    }
    MPI_Waitsome(N, rq, &outcount, indices, st);
    CHECK(outcount == MPI_UNDEFINED, "waitsome on all-null gave %d", outcount);
    do {
        MPI_Testall(N, sq, &flag, MPI_STATUSES_IGNORE);
    } while (!flag);
    MPI_Testany(N, sq, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx == MPI_UNDEFINED, "testany on nulls: flag %d idx %d", flag, idx);

    /* nothing completes: flag false and index MPI_UNDEFINED (not left as it was) */
    {
        MPI_Request pending[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int dummy;
        MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &pending[1]);
        idx = 12345;
        MPI_Testany(2, pending, &idx, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag && idx == MPI_UNDEFINED, "testany on a pending recv: flag %d idx %d", flag, idx);
        MPI_Cancel(&pending[1]);
        MPI_Wait(&pending[1], MPI_STATUS_IGNORE);
    }
}

/* Found by MPICH's test suite (pt2pt/recvnull, pt2pt/multi_psend_derived):
 * a zero-count MPI_DATATYPE_NULL is accepted as MPICH does, and a derived
 * type freed right after MPI_Send_init/MPI_Recv_init stays usable by
 * every later MPI_Start of the persistent request. */
static void mpich_compat(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request sreq, rreq;
    MPI_Datatype sdup, rdup;
    int v, got = -1;

    CHECK(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
          "zero-count MPI_DATATYPE_NULL send refused");
    CHECK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "zero-count MPI_DATATYPE_NULL recv refused");
    MPI_Type_dup(MPI_INT, &sdup);
    MPI_Type_dup(MPI_INT, &rdup);
    MPI_Type_commit(&sdup);
    MPI_Type_commit(&rdup);
    MPI_Send_init(&v, 1, sdup, next, 40, MPI_COMM_WORLD, &sreq);
    MPI_Recv_init(&got, 1, rdup, prev, 40, MPI_COMM_WORLD, &rreq);
    MPI_Type_free(&sdup);
    MPI_Type_free(&rdup);
    for (int it = 0; it < 3; it++) {
        v = rank * 10 + it;
        CHECK(MPI_Start(&rreq) == MPI_SUCCESS && MPI_Start(&sreq) == MPI_SUCCESS,
              "start after type free failed");
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        CHECK(got == prev * 10 + it, "persistent with freed type: got %d", got);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);

    /* a message that ends inside a basic element of the receive type (3
     * chars into ints) is reported as truncation, as MPICH does
     * (errors/pt2pt/truncmsg2); one that ends on a boundary is fine */
    {
        MPI_Comm c;
        char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        int ints[4], err, cnt = -1;
        MPI_Request sr;
        MPI_Status st;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Isend(bytes, 3, MPI_CHAR, next, 41, c, &sr);
        err = MPI_Recv(ints, 4, MPI_INT, prev, 41, c, MPI_STATUS_IGNORE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        CHECK(mtest_error_class(err) == MPI_ERR_TRUNCATE, "3 bytes into ints: class %d",
              mtest_error_class(err));
        MPI_Isend(bytes, 8, MPI_CHAR, next, 42, c, &sr);
        err = MPI_Recv(ints, 4, MPI_INT, prev, 42, c, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(err == MPI_SUCCESS && cnt == 2, "8 bytes into ints: %d, count %d", err, cnt);
        MPI_Comm_free(&c);
    }

    /* the same into receives posted before the message arrives (the posted
     * eager path, which checks element boundaries only for a buffer it did
     * not fill): 3 chars into ints truncate, 8 chars give 2 ints, 16 fill
     * the 4 ints, 6 shorts' bytes into 8 shorts give 3 */
    {
        MPI_Comm c;
        char bytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        int ints[4], err, cnt = -1;
        short shorts[8];
        MPI_Request rr, sr;
        MPI_Status st;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Irecv(ints, 4, MPI_INT, prev, 43, c, &rr);
        MPI_Barrier(c);
        MPI_Isend(bytes, 3, MPI_CHAR, next, 43, c, &sr);
        err = MPI_Wait(&rr, MPI_STATUS_IGNORE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        CHECK(mtest_error_class(err) == MPI_ERR_TRUNCATE, "posted, 3 bytes into ints: class %d",
              mtest_error_class(err));
        MPI_Irecv(ints, 4, MPI_INT, prev, 44, c, &rr);
        MPI_Barrier(c);
        MPI_Isend(bytes, 8, MPI_CHAR, next, 44, c, &sr);
        err = MPI_Wait(&rr, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(err == MPI_SUCCESS && cnt == 2, "posted, 8 bytes into ints: %d, count %d", err, cnt);
        MPI_Irecv(ints, 4, MPI_INT, prev, 45, c, &rr);
        MPI_Barrier(c);
        MPI_Isend(bytes, 16, MPI_CHAR, next, 45, c, &sr);
        err = MPI_Wait(&rr, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(err == MPI_SUCCESS && cnt == 4 && memcmp(ints, bytes, 16) == 0,
              "posted, 16 bytes into ints: %d, count %d", err, cnt);
        MPI_Irecv(shorts, 8, MPI_SHORT, prev, 46, c, &rr);
        MPI_Barrier(c);
        MPI_Isend(bytes, 5, MPI_CHAR, next, 46, c, &sr);
        err = MPI_Wait(&rr, MPI_STATUS_IGNORE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        CHECK(mtest_error_class(err) == MPI_ERR_TRUNCATE, "posted, 5 bytes into shorts: class %d",
              mtest_error_class(err));
        MPI_Irecv(shorts, 8, MPI_SHORT, prev, 47, c, &rr);
        MPI_Barrier(c);
        MPI_Isend(bytes, 6, MPI_CHAR, next, 47, c, &sr);
        err = MPI_Wait(&rr, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_SHORT, &cnt);
        CHECK(err == MPI_SUCCESS && cnt == 3, "posted, 6 bytes into shorts: %d, count %d", err, cnt);
        MPI_Comm_free(&c);
    }

    /* a status describing more than 2^32 elements of a type larger than
     * 4 GiB (datatype/large_count): no 64-bit overflow */
    {
        MPI_Datatype four, big;
        MPI_Status st;
        MPI_Count ex = 0, want = 4LL * (0x7fffffff / 2);
        int n = 0, cnt = 0;
        MPI_Type_contiguous(4, MPI_INT, &four);
        MPI_Type_vector(0x7fffffff / 2, 1, 3, four, &big);
        MPI_Type_commit(&big);
        MPI_Status_set_elements_x(&st, big, want);
        MPI_Get_elements_x(&st, big, &ex);
        MPI_Get_elements(&st, big, &n);
        MPI_Get_count(&st, big, &cnt);
        CHECK(ex == want && n == MPI_UNDEFINED && cnt == 1,
              "large status: elements_x %lld (want %lld), elements %d, count %d", (long long)ex,
              (long long)want, n, cnt);
        MPI_Type_free(&big);
        MPI_Type_free(&four);
    }
}

static void derived(void)
{
    /* a vector on the send side, contiguous on the receive side, both sizes */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int n = 10; n <= 100000; n *= 100) {
        int *s = malloc(sizeof(int) * 2 * n), *r = malloc(sizeof(int) * n), bad = -1, elems;
        MPI_Datatype vec;
        MPI_Status st;
        for (int i = 0; i < 2 * n; i++)
            s[i] = (i % 2) ? -1 : rank * 7 + i / 2;
        MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Sendrecv(s, 1, vec, next, 30, r, n, MPI_INT, prev, 30, MPI_COMM_WORLD, &st);
        for (int i = 0; i < n && bad < 0; i++)
            if (r[i] != prev * 7 + i)
                bad = i;
        CHECK(bad < 0, "vector of %d: first bad %d", n, bad);
        MPI_Get_elements(&st, MPI_INT, &elems);
        CHECK(elems == n, "elements %d", elems);
        /* and back into a vector */
        for (int i = 0; i < 2 * n; i++)
            s[i] = -5;
        MPI_Sendrecv(r, n, MPI_INT, prev, 31, s, 1, vec, next, 31, MPI_COMM_WORLD, &st);
        bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (s[2 * i] != rank * 7 + i || s[2 * i + 1] != -5)
                bad = i;
        CHECK(bad < 0, "into vector of %d: first bad %d", n, bad);
        MPI_Type_free(&vec);
        free(s);
        free(r);
    }
}

static int gq_calls, gf_calls;
static int gquery(void *extra, MPI_Status *st)
{
    gq_calls++;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int gfree(void *extra)
{
    gf_calls++;
    return MPI_SUCCESS;
}
static int gcancel(void *extra, int complete) { return MPI_SUCCESS; }

static void generalized(void)
{
    MPI_Request rq;
    MPI_Status st;
    int flag, cnt;
    MPI_Grequest_start(gquery, gfree, gcancel, NULL, &rq);
    MPI_Test(&rq, &flag, &st);
    CHECK(!flag, "grequest complete before MPI_Grequest_complete");
    MPI_Grequest_complete(rq);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 3 && gq_calls == 1 && gf_calls == 1, "grequest count %d q %d f %d", cnt, gq_calls,
          gf_calls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring_sizes();
    self_and_wildcards();
    persistent_and_bsend();
    waits();
    derived();
    mpich_compat();
    generalized();
    return mtest_finish();
}
