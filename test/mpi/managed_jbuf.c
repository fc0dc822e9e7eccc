/*
 * managed_jbuf: the life cycle of registered buffers (MPIX_Buffer, after
 * jbufs): registration is reference counted; a buffer used by incomplete
 * operations cannot be deregistered (MPI_ERR_PENDING, and it stays usable);
 * MPIX_Buffer_in_use reports exactly the ranges in flight; a release with a
 * callback while operations are in flight calls back only when the last one
 * completes (also for a request freed with MPI_Request_free); stale handles
 * and out-of-range operations are errors, never crashes. Ranks work in pairs.
 */
#include "mtest.h"
#include <mpi_ext.h>

enum { BIG = 200000, SMALL = 100, LEN = 1 << 20, TAG_GO = 50 };

typedef struct {
    int calls;
    void *base;
    MPI_Aint len;
} cb_state_t;

static void on_release(void *base, MPI_Aint len, void *extra)
{
    cb_state_t *s = extra;
    s->calls++;
    s->base = base;
    s->len = len;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 9));
}

static int check_fill(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 9))) {
            fprintf(stderr, "%s: byte %zu of %zu wrong\n", what, i, n);
            return 1;
        }
    return 0;
}

static void go(int peer)
{
    MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD);
}
static void wait_go(int peer)
{
    MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void errors(void)
{
    MPIX_Buffer b = MPIX_BUFFER_NULL, stale;
    char mem[64];
    int rc, flag;

    rc = MPIX_Buffer_register(NULL, 10, &b);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "NULL base: class %d", mtest_error_class(rc));
    rc = MPIX_Buffer_register(mem, 0, &b);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "zero length: class %d", mtest_error_class(rc));
    rc = MPIX_Buffer_register(mem, 10, NULL);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL handle: class %d", mtest_error_class(rc));
    rc = MPIX_Buffer_deregister(&b);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "deregister NULL: class %d",
          mtest_error_class(rc));
    rc = MPIX_Buffer_register(mem, sizeof mem, &b);
    CHECK(rc == MPI_SUCCESS && b != MPIX_BUFFER_NULL, "register: %d", rc);
    stale = b;
    rc = MPIX_Buffer_in_use(b, 60, 10, &flag);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "in_use out of range: class %d",
          mtest_error_class(rc));
    rc = MPIX_Send_buffer(b, 60, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "send out of range: class %d",
          mtest_error_class(rc));
    rc = MPIX_Send_buffer(b, -1, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "negative offset: class %d", mtest_error_class(rc));
    rc = MPIX_Buffer_deregister(&b);
    CHECK(rc == MPI_SUCCESS && b == MPIX_BUFFER_NULL, "deregister idle: %d", rc);
    rc = MPIX_Buffer_deregister(&stale);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "double deregister: class %d",
          mtest_error_class(rc));
    rc = MPIX_Buffer_in_use(stale, 0, 1, &flag);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "in_use stale: class %d", mtest_error_class(rc));
    rc = MPIX_Send_buffer(stale, 0, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "send stale: class %d", mtest_error_class(rc));
    rc = MPIX_Buffer_in_use(12345, 0, 1, &flag);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "in_use garbage: class %d",
          mtest_error_class(rc));
}

static void refcount(void)
{
    static char mem[4096];
    MPIX_Buffer a, b, c;
    cb_state_t cs = {0};
    int rc, flag = -1;

    MPIX_Buffer_register(mem, sizeof mem, &a);
    MPIX_Buffer_register(mem, sizeof mem, &b);
    MPIX_Buffer_register(mem, 100, &c);
    CHECK(a == b, "same region registered twice gave %d and %d", a, b);
    CHECK(c != a, "a different region shares a handle");
    rc = MPIX_Buffer_deregister(&b);
    CHECK(rc == MPI_SUCCESS && b == MPIX_BUFFER_NULL, "first deregister: %d", rc);
    rc = MPIX_Buffer_in_use(a, 0, 10, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0, "still registered after one deregister: %d", rc);
    /* release with another reference outstanding: the callback waits for the last */
    MPIX_Buffer_register(mem, sizeof mem, &b);
    rc = MPIX_Buffer_release(&b, on_release, &cs);
    CHECK(rc == MPI_SUCCESS && b == MPIX_BUFFER_NULL && cs.calls == 0,
          "release with a reference left: rc %d calls %d", rc, cs.calls);
    rc = MPIX_Buffer_deregister(&a);
    CHECK(rc == MPI_SUCCESS && cs.calls == 1 && cs.base == mem && cs.len == (MPI_Aint)sizeof mem,
          "last deregister: rc %d calls %d", rc, cs.calls);
    /* release of an idle buffer calls back at once */
    rc = MPIX_Buffer_release(&c, on_release, &cs);
    CHECK(rc == MPI_SUCCESS && cs.calls == 2 && cs.len == 100, "idle release: calls %d", cs.calls);
}

/* Receiver: deregistration while receives are posted fails and changes nothing. */
static void inflight_receiver(int peer, unsigned char *mem)
{
    MPIX_Buffer b;
    MPI_Request req[2];
    int rc, flag;

    MPIX_Buffer_register(mem, LEN, &b);
    memset(mem, 0, LEN);
    rc = MPIX_Irecv_buffer(b, 4096, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[0]);
    CHECK(rc == MPI_SUCCESS, "irecv_buffer: %d", rc);
    rc = MPIX_Irecv_buffer(b, 300000, SMALL, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[1]);
    CHECK(rc == MPI_SUCCESS, "irecv_buffer: %d", rc);
    MPIX_Buffer_in_use(b, 4096, 10, &flag);
    CHECK(flag == 1, "range of a posted receive not in use");
    MPIX_Buffer_in_use(b, 0, 4096, &flag);
    CHECK(flag == 0, "range before the receive in use");
    MPIX_Buffer_in_use(b, 4096 + BIG, 300000 - 4096 - BIG, &flag);
    CHECK(flag == 0, "gap between receives in use");
    MPIX_Buffer_in_use(b, 300000 + SMALL - 1, 1, &flag);
    CHECK(flag == 1, "last byte of the small receive not in use");
    rc = MPIX_Buffer_deregister(&b);
    CHECK(mtest_error_class(rc) == MPI_ERR_PENDING && b != MPIX_BUFFER_NULL,
          "deregister in use: class %d", mtest_error_class(rc));
    go(peer);
    rc = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
    mtest_errors += check_fill(mem + 4096, BIG, 1, "registered receive (big)");
    mtest_errors += check_fill(mem + 300000, SMALL, 2, "registered receive (small)");
    MPIX_Buffer_in_use(b, 0, LEN, &flag);
    CHECK(flag == 0, "buffer in use after completion");
    rc = MPIX_Buffer_deregister(&b);
    CHECK(rc == MPI_SUCCESS, "deregister after completion: %d", rc);
}

/* Sender: a rendezvous send is in flight until the receiver has pulled it. */
static void inflight_sender(int peer, unsigned char *mem)
{
    MPIX_Buffer b;
    MPI_Request req[2];
    int rc, flag;

    fill(mem + 8, BIG, 1);
    fill(mem + 500000, SMALL, 2);
    MPIX_Buffer_register(mem, LEN, &b);
    wait_go(peer);
    rc = MPIX_Isend_buffer(b, 8, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[0]);
    CHECK(rc == MPI_SUCCESS, "isend_buffer: %d", rc);
    rc = MPIX_Isend_buffer(b, 500000, SMALL, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[1]);
    CHECK(rc == MPI_SUCCESS, "isend_buffer: %d", rc);
    MPIX_Buffer_in_use(b, 100, 1, &flag);
    CHECK(flag == 1, "rendezvous send range not in use");
    rc = MPIX_Buffer_deregister(&b);
    CHECK(mtest_error_class(rc) == MPI_ERR_PENDING, "deregister with a send in flight: class %d",
          mtest_error_class(rc));
    rc = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
    rc = MPIX_Buffer_deregister(&b);
    CHECK(rc == MPI_SUCCESS, "deregister after completion: %d", rc);
}

/* Release with a callback while operations are in flight. */
static void release_receiver(int peer, unsigned char *mem)
{
    MPIX_Buffer b, old;
    MPI_Request req;
    cb_state_t cs = {0};
    int rc, flag;

    MPIX_Buffer_register(mem, LEN, &b);
    old = b;
    rc = MPIX_Irecv_buffer(b, 0, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "irecv_buffer: %d", rc);
    rc = MPIX_Buffer_release(&b, on_release, &cs);
    CHECK(rc == MPI_SUCCESS && b == MPIX_BUFFER_NULL, "release in flight: %d", rc);
    CHECK(cs.calls == 0, "release callback ran while a receive was in flight");
    rc = MPIX_Irecv_buffer(old, 0, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "new operation on a released buffer: class %d",
          mtest_error_class(rc));
    rc = MPIX_Buffer_in_use(old, 0, 10, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1, "in_use of a buffer being released: rc %d flag %d", rc,
          flag);
    rc = MPIX_Buffer_deregister(&old);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "deregister after release: class %d",
          mtest_error_class(rc));
    go(peer);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "wait: %d", rc);
    CHECK(cs.calls == 1 && cs.base == mem && cs.len == LEN,
          "release callback after the last receive: calls %d", cs.calls);
    mtest_errors += check_fill(mem, BIG, 3, "receive into a released buffer");
    rc = MPIX_Buffer_in_use(old, 0, 10, &flag);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "released buffer still known: class %d",
          mtest_error_class(rc));
}

/* The sender frees its request and releases the buffer: fire and forget. */
static void release_sender(int peer, unsigned char *mem)
{
    MPIX_Buffer b;
    MPI_Request req;
    cb_state_t cs = {0};
    int rc, spins = 0;

    fill(mem, BIG, 3);
    MPIX_Buffer_register(mem, LEN, &b);
    wait_go(peer);
    rc = MPIX_Isend_buffer(b, 0, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "isend_buffer: %d", rc);
    MPI_Request_free(&req);
    rc = MPIX_Buffer_release(&b, on_release, &cs);
    CHECK(rc == MPI_SUCCESS, "release: %d", rc);
    CHECK(cs.calls == 0, "release callback ran while a send was in flight");
    while (cs.calls == 0 && spins < 100000000) {
        MPIX_Progress(NULL);
        spins++;
    }
    CHECK(cs.calls == 1 && cs.base == mem, "release callback after a freed send: calls %d",
          cs.calls);
}

/* One scatter receive over two registered buffers, both released while it
 * is in flight: each release callback runs once, with its own buffer. */
static void release_two(int peer, int first, unsigned char *mem)
{
    if (first) {
        unsigned char *tmp = malloc(100000);
        fill(tmp, 100000, 11);
        wait_go(peer);
        MPI_Send(tmp, 100000, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
        free(tmp);
    } else {
        MPIX_Buffer b1, b2;
        MPIX_Segment seg[2];
        MPI_Request req;
        cb_state_t s1 = {0}, s2 = {0};
        int rc;
        MPIX_Buffer_register(mem, 100000, &b1);
        MPIX_Buffer_register(mem + 200000, 100000, &b2);
        memset(seg, 0, sizeof seg);
        seg[0].buffer = b1;
        seg[0].length = 50000;
        seg[1].buffer = b2;
        seg[1].length = 50000;
        rc = MPIX_Irecvv(seg, 2, peer, 8, MPI_COMM_WORLD, &req);
        CHECK(rc == MPI_SUCCESS, "irecvv: %d", rc);
        MPIX_Buffer_release(&b1, on_release, &s1);
        MPIX_Buffer_release(&b2, on_release, &s2);
        CHECK(s1.calls == 0 && s2.calls == 0, "released buffers called back while in use");
        go(peer);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "wait: %d", rc);
        CHECK(s1.calls == 1 && s2.calls == 1 && s1.base == mem && s2.base == mem + 200000 &&
                  s1.len == 100000 && s2.len == 100000,
              "two releases: calls %d %d", s1.calls, s2.calls);
        memmove(mem + 50000, mem + 200000, 50000);
        mtest_errors += check_fill(mem, 100000, 11, "scatter over two released buffers");
    }
}

/* Gather from a registered buffer and plain memory; scatter into a buffer. */
static void vectors(int peer, int first, unsigned char *mem)
{
    MPIX_Buffer b;
    MPIX_Segment seg[3];
    unsigned char hdr[24];
    int rc;

    MPIX_Buffer_register(mem, LEN, &b);
    memset(seg, 0, sizeof seg);
    if (first) {
        unsigned char tmp[70000];
        fill(tmp, sizeof tmp, 9);
        memcpy(hdr, tmp, sizeof hdr);
        memcpy(mem + 1000, tmp + sizeof hdr, 50000);
        memcpy(mem + 90000, tmp + sizeof hdr + 50000, sizeof tmp - sizeof hdr - 50000);
        seg[0].addr = hdr;
        seg[0].length = sizeof hdr;
        seg[1].buffer = b;
        seg[1].offset = 1000;
        seg[1].length = 50000;
        seg[2].buffer = b;
        seg[2].offset = 90000;
        seg[2].length = (MPI_Aint)(sizeof tmp - sizeof hdr - 50000);
        rc = MPIX_Sendv(seg, 3, peer, 5, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "sendv: %d", rc);
    } else {
        MPI_Status st;
        int cnt;
        memset(mem, 0, LEN);
        seg[0].buffer = b;
        seg[0].offset = 200000;
        seg[0].length = 60000;
        seg[1].buffer = b;
        seg[1].offset = 260000;
        seg[1].length = 20000;
        rc = MPIX_Recvv(seg, 2, peer, 5, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "recvv: %d", rc);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == 70000, "recvv count %d", cnt);
        mtest_errors += check_fill(mem + 200000, 70000, 9, "scatter into a registered buffer");
        seg[0].length = LEN;
        rc = MPIX_Recvv(seg, 1, peer, 6, MPI_COMM_WORLD, &st);
        CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "segment beyond the buffer: class %d",
              mtest_error_class(rc));
    }
    MPIX_Buffer_deregister(&b);
}

int main(int argc, char **argv)
{
    int rank, size, peer;
    unsigned char *mem;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mem = malloc(LEN);
    errors();
    refcount();
    peer = rank ^ 1;
    if (peer < size) {
        int first = (rank & 1) == 0;
        if (first) {
            inflight_sender(peer, mem);
            release_sender(peer, mem);
        } else {
            inflight_receiver(peer, mem);
            release_receiver(peer, mem);
        }
        vectors(peer, first, mem);
        release_two(peer, first, mem);
    }
    free(mem);
    return mtest_finish();
}
