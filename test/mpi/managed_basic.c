/*
 * managed_basic: the MPIX managed-runtime extension with the toy runtime
 * (toyrt.h): hook registration and argument errors, then blocking and
 * nonblocking sends and receives of managed objects between rank pairs at
 * eager and rendezvous sizes while the collector moves every object at every
 * safepoint; old (immovable) objects, truncation and synchronous sends.
 * Checks every byte, that nothing Canal held moved, and that every pin was
 * matched by an unpin.
 */
#include "mtest.h"
#include "toyrt.h"

static const size_t sizes[] = {0, 1, 100, 4096, 16384, 16385, 65536, 300000, 1 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void errors_before_and_after_register(void)
{
    int x = 0, cls, rc;
    MPIX_Managed_hooks h;

    rc = MPIX_Send_ref(&x, 0, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_OTHER, "send before hooks: class %d",
          mtest_error_class(rc));
    memset(&h, 0, sizeof h);
    rc = MPIX_Managed_register(NULL);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL hooks accepted");
    rc = MPIX_Managed_register(&h);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "version 0 accepted");
    h.version = MPIX_MANAGED_VERSION;
    rc = MPIX_Managed_register(&h);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL resolve accepted");
    h.resolve = toy_resolve;
    h.pin = toy_pin;
    rc = MPIX_Managed_register(&h);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "pin without unpin accepted");
    h.flags = 0x100;
    rc = MPIX_Managed_register(&h);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "unknown flags accepted");
    rc = MPIX_Managed_deregister();
    CHECK(mtest_error_class(rc) == MPI_ERR_OTHER, "deregister without hooks: %d", rc);

    rc = toy_init(8 << 20, 0);
    CHECK(rc == MPI_SUCCESS, "toy_init: %d", rc);
    h.flags = 0;
    h.unpin = toy_unpin;
    rc = MPIX_Managed_register(&h);
    CHECK(mtest_error_class(rc) == MPI_ERR_OTHER, "second registration accepted");
    (void)cls;
}

static void argument_errors(void)
{
    toy_obj_t *o = toy_alloc(64, 0), *dead = toy_alloc(8, 0);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    toy_free(dead);
    rc = MPIX_Send_ref(NULL, 0, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "NULL ref: class %d", mtest_error_class(rc));
    rc = MPIX_Send_ref(o, -1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "negative offset: class %d", mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 60, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "out of bounds: class %d",
          mtest_error_class(rc));
    rc = MPIX_Recv_ref(o, 0, 17, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "recv out of bounds: class %d",
          mtest_error_class(rc));
    rc = MPIX_Send_ref(dead, 0, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_BUFFER, "dead ref: class %d", mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 0, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_COUNT, "negative count: class %d",
          mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 0, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_TYPE, "null type: class %d", mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 0, 1, MPI_INT, 9999, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_RANK, "bad rank: class %d", mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 0, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_TAG, "bad tag: class %d", mtest_error_class(rc));
    rc = MPIX_Isend_ref(o, 0, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL request: class %d",
          mtest_error_class(rc));
    rc = MPIX_Send_ref(o, 0, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    CHECK(mtest_error_class(rc) == MPI_ERR_COMM, "null comm: class %d", mtest_error_class(rc));
    rc = MPIX_Managed_inflight(-1, NULL, &rc);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "negative maxuses accepted");
    /* MPI_PROC_NULL: nothing happens, successfully */
    rc = MPIX_Send_ref(o, 0, 16, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "send to MPI_PROC_NULL: %d", rc);
    rc = MPIX_Irecv_ref(o, 0, 16, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "irecv from MPI_PROC_NULL: %d", rc);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    toy_free(o);
}

/* Blocking ping-pong of every size; the collector runs at every safepoint
 * and between operations. */
static void pingpong(int peer, int first, int old)
{
    for (int k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned seed = (unsigned)(k * 31 + old);
        toy_obj_t *s = toy_alloc(n + 24, old ? TOY_OLD : 0);
        toy_obj_t *r = toy_alloc(n + 24, old ? TOY_OLD : 0);
        MPI_Status st;
        int rc, cnt = -1;

        toy_fill(s, 8, n, seed);
        toy_collect();
        if (first) {
            rc = MPIX_Send_ref(s, 8, (MPI_Count)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "send %zu: %d", n, rc);
            rc = MPIX_Recv_ref(r, 8, (MPI_Count)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
        } else {
            rc = MPIX_Recv_ref(r, 8, (MPI_Count)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS, "recv %zu: %d", n, rc);
            toy_collect();
            rc = MPIX_Send_ref(s, 8, (MPI_Count)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
        }
        CHECK(rc == MPI_SUCCESS, "size %zu: %d", n, rc);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)n && st.MPI_SOURCE == peer && st.MPI_TAG == k,
              "status: count %d source %d tag %d", cnt, st.MPI_SOURCE, st.MPI_TAG);
        toy_collect();
        mtest_errors += toy_verify(r, 8, n, seed, "blocking receive") != 0;
        mtest_errors += toy_verify(s, 8, n, seed, "sent object") != 0;
        toy_free(s);
        toy_free(r);
    }
}

/* Nonblocking: pinned at start, unpinned at completion; collections while pending. */
static void nonblocking(int peer)
{
    toy_obj_t *s[NSIZES], *r[NSIZES];
    MPI_Request reqs[2 * NSIZES];
    MPI_Status sts[2 * NSIZES];
    int rc;

    for (int k = 0; k < NSIZES; k++) {
        r[k] = toy_alloc(sizes[k], 0);
        rc = MPIX_Irecv_ref(r[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD,
                            &reqs[k]);
        CHECK(rc == MPI_SUCCESS, "irecv: %d", rc);
        toy_collect();
    }
    for (int k = 0; k < NSIZES; k++) {
        s[k] = toy_alloc(sizes[k], 0);
        toy_fill(s[k], 0, sizes[k], 7u + (unsigned)k);
        rc = MPIX_Isend_ref(s[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD,
                            &reqs[NSIZES + k]);
        CHECK(rc == MPI_SUCCESS, "isend: %d", rc);
        toy_collect();
        toy_free(toy_alloc(100000, 0)); /* garbage */
    }
    for (int i = 0; i < 5; i++)
        toy_collect();
    rc = MPI_Waitall(2 * NSIZES, reqs, sts);
    CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
    toy_collect();
    for (int k = 0; k < NSIZES; k++) {
        CHECK(r[k]->pins == 0 && s[k]->pins == 0, "pins left after completion");
        mtest_errors += toy_verify(r[k], 0, sizes[k], 7u + (unsigned)k, "nonblocking receive") != 0;
        toy_free(r[k]);
        toy_free(s[k]);
    }
}

/* A longer message than the object holds: MPI_ERR_TRUNCATE, the prefix arrives. */
static void truncation(int peer, int first)
{
    size_t sz[2] = {1000, 200000};
    for (int k = 0; k < 2; k++) {
        toy_obj_t *o = toy_alloc(sz[k], 0);
        int rc;
        if (first) {
            toy_fill(o, 0, sz[k], 99);
            rc = MPIX_Send_ref(o, 0, (MPI_Count)sz[k], MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "send: %d", rc);
        } else {
            MPI_Status st;
            int cnt = -1;
            rc = MPIX_Recv_ref(o, 0, (MPI_Count)sz[k] / 2, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st);
            CHECK(mtest_error_class(rc) == MPI_ERR_TRUNCATE, "truncation: class %d",
                  mtest_error_class(rc));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == (int)sz[k] / 2, "truncated count %d", cnt);
            mtest_errors += toy_verify(o, 0, sz[k] / 2, 99, "truncated prefix") != 0;
            for (size_t i = sz[k] / 2; i < sz[k]; i++)
                if (o->addr[i] != 0) {
                    CHECK(0, "byte %zu beyond the receive was written", i);
                    break;
                }
        }
        toy_free(o);
    }
}

/* Synchronous sends, and a datatype with holes (MPI_SHORT_INT: 6 bytes of
 * data in an 8-byte extent) out of and into managed objects. */
typedef struct {
    short s;
    int i;
} short_int_t;

static void ssend_and_types(int peer, int first)
{
    enum { N = 5000 };
    toy_obj_t *o = toy_alloc(sizeof(short_int_t) * N, 0);
    int rc;

    if (first) {
        short_int_t *p = (short_int_t *)o->addr;
        for (int i = 0; i < N; i++) {
            p[i].s = (short)i;
            p[i].i = 3 * i;
        }
        rc = MPIX_Ssend_ref(o, 0, N, MPI_SHORT_INT, peer, 3, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "ssend short_int: %d", rc);
        rc = MPIX_Ssend_ref(o, 0, 10, MPI_INT, peer, 4, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "ssend: %d", rc);
    } else {
        short_int_t *p;
        memset(o->addr, 0x55, o->size);
        rc = MPIX_Recv_ref(o, 0, N, MPI_SHORT_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "recv short_int: %d", rc);
        toy_collect();
        p = (short_int_t *)o->addr;
        for (int i = 0; i < N; i++) {
            unsigned char *pad = (unsigned char *)&p[i] + sizeof(short);
            if (p[i].s != (short)i || p[i].i != 3 * i || pad[0] != 0x55 || pad[1] != 0x55) {
                CHECK(0, "element %d: %d %d (padding %#x)", i, p[i].s, p[i].i, pad[0]);
                break;
            }
        }
        rc = MPIX_Recv_ref(o, 0, 10, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "recv: %d", rc);
    }
    toy_free(o);
}

int main(int argc, char **argv)
{
    int rank, size, peer, first;
    MPIX_Managed_stats st;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errors_before_and_after_register();
    argument_errors();

    peer = rank ^ 1;
    first = (rank & 1) == 0;
    if (peer < size) {
        pingpong(peer, first, 0);
        pingpong(peer, first, 1);
        nonblocking(peer);
        truncation(peer, first);
        ssend_and_types(peer, first);
    }
    MPIX_Managed_stats_get(&st);
    if (peer < size) {
        CHECK(st.pins_avoided > 0, "no blocking operation avoided its pin (%lld)", st.pins_avoided);
        CHECK(toy.moved > 0 && toy.collections > 0, "the collector did not run");
    }
    toy_report("managed_basic");
    mtest_errors += (int)toy_finish_checks();
    CHECK(MPIX_Managed_deregister() == MPI_SUCCESS, "deregister failed");
    return mtest_finish();
}
