/*
 * managed_prims: the runtime-friendly primitives of the MPIX extension with
 * the toy runtime (toyrt.h): completion upcalls (run from progress, after the
 * managed operation released its pins, on requests already freed, starting
 * new operations from inside), wait hooks (called while a thread is blocked,
 * removable), size-known receives (callback errors, too-small targets,
 * native targets, MPI_ANY_SOURCE), pins refused by the runtime (Canal copies
 * instead), the safepoint at entry, MPI_Cancel and deregistration with
 * operations in flight, and what MPIX_Managed_inflight reports. Pairs of ranks.
 */
#include "mtest.h"
#include "toyrt.h"

static int rank, size, peer, first;
static int in_progress_call;

static void go(void)
{
    MPI_Send(NULL, 0, MPI_BYTE, peer, 999, MPI_COMM_WORLD);
}
static void wait_go(void)
{
    MPI_Recv(NULL, 0, MPI_BYTE, peer, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* ---------------------------------------------------------------- upcalls */
typedef struct {
    int calls, source, tag, count, error, inside_progress;
    toy_obj_t *obj;
    int obj_pins;
    MPI_Request reply;
    int reply_value;
} up_t;

static void upcall(MPI_Request request, const MPI_Status *status, void *extra)
{
    up_t *u = extra;
    (void)request;
    u->calls++;
    u->source = status->MPI_SOURCE;
    u->tag = status->MPI_TAG;
    u->error = status->MPI_ERROR;
    MPI_Get_count(status, MPI_BYTE, &u->count);
    u->inside_progress = in_progress_call;
    if (u->obj != NULL)
        u->obj_pins = u->obj->canal_pins;
}

/* An upcall that answers: starting operations from inside is allowed. */
static void upcall_reply(MPI_Request request, const MPI_Status *status, void *extra)
{
    up_t *u = extra;
    upcall(request, status, extra);
    u->reply_value = 4242;
    MPI_Isend(&u->reply_value, 1, MPI_INT, status->MPI_SOURCE, 21, MPI_COMM_WORLD, &u->reply);
}

static void progress_until(volatile int *flag)
{
    for (long i = 0; !*flag && i < 200000000L; i++) {
        in_progress_call = 1;
        MPIX_Progress(NULL);
        in_progress_call = 0;
    }
}

static void test_upcalls(void)
{
    up_t u;
    MPI_Request req;
    int buf[64] = {0}, rc;

    /* errors */
    rc = MPIX_Request_set_upcall(MPI_REQUEST_NULL, upcall, &u);
    CHECK(mtest_error_class(rc) == MPI_ERR_REQUEST, "MPI_REQUEST_NULL: class %d",
          mtest_error_class(rc));
    MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    rc = MPIX_Request_set_upcall(req, NULL, &u);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL fn: class %d", mtest_error_class(rc));
    /* already complete: runs at once in the caller */
    memset(&u, 0, sizeof u);
    rc = MPIX_Request_set_upcall(req, upcall, &u);
    CHECK(rc == MPI_SUCCESS && u.calls == 1 && u.source == MPI_PROC_NULL,
          "upcall on a complete request: rc %d calls %d source %d", rc, u.calls, u.source);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Recv_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    rc = MPIX_Request_set_upcall(req, upcall, &u);
    CHECK(mtest_error_class(rc) == MPI_ERR_REQUEST, "persistent request: class %d",
          mtest_error_class(rc));
    MPI_Request_free(&req);
    if (peer >= size)
        return;

    /* fire and forget: the request is freed, the upcall reports the status */
    if (first) {
        memset(&u, 0, sizeof u);
        MPI_Irecv(buf, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &req);
        rc = MPIX_Request_set_upcall(req, upcall, &u);
        CHECK(rc == MPI_SUCCESS, "set_upcall: %d", rc);
        MPI_Request_free(&req);
        go();
        progress_until(&u.calls);
        CHECK(u.calls == 1 && u.source == peer && u.tag == 11 && u.count == 48 &&
                  u.error == MPI_SUCCESS && u.inside_progress,
              "upcall: calls %d source %d tag %d count %d error %d inside %d", u.calls, u.source,
              u.tag, u.count, u.error, u.inside_progress);
        CHECK(buf[11] == 11, "data %d", buf[11]);
    } else {
        for (int i = 0; i < 64; i++)
            buf[i] = i;
        wait_go();
        MPI_Send(buf, 12, MPI_INT, peer, 11, MPI_COMM_WORLD); /* 48 bytes */
        MPI_Send(buf, 6, MPI_INT, peer, 11, MPI_COMM_WORLD);  /* 24 bytes */
    }
    if (first) { /* the second, 24-byte message */
        memset(&u, 0, sizeof u);
        MPI_Irecv(buf, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &req);
        MPIX_Request_set_upcall(req, upcall, &u);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(u.calls == 1 && u.count == 24, "upcall during MPI_Wait: calls %d count %d", u.calls,
              u.count);
    }

    /* upcall on a managed receive: the object is unpinned before the upcall;
     * the upcall starts a reply */
    if (first) {
        toy_obj_t *o = toy_alloc(100000, 0);
        memset(&u, 0, sizeof u);
        u.obj = o;
        u.reply = MPI_REQUEST_NULL;
        rc = MPIX_Irecv_ref(o, 0, 100000, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &req);
        CHECK(rc == MPI_SUCCESS, "irecv_ref: %d", rc);
        MPIX_Request_set_upcall(req, upcall_reply, &u);
        CHECK(o->canal_pins == 1, "nonblocking receive of a movable object not pinned");
        go();
        progress_until(&u.calls);
        CHECK(u.calls == 1 && u.count == 100000 && u.obj_pins == 0,
              "managed upcall: calls %d count %d pins at upcall %d", u.calls, u.count, u.obj_pins);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Wait(&u.reply, MPI_STATUS_IGNORE);
        mtest_errors += toy_verify(o, 0, 100000, 12, "upcall receive") != 0;
        toy_free(o);
    } else {
        toy_obj_t *o = toy_alloc(100000, 0);
        int answer = 0;
        toy_fill(o, 0, 100000, 12);
        wait_go();
        rc = MPIX_Send_ref(o, 0, 100000, MPI_BYTE, peer, 12, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "send_ref: %d", rc);
        MPI_Recv(&answer, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(answer == 4242, "reply from the upcall: %d", answer);
        toy_free(o);
    }
}

/* ---------------------------------------------------------------- wait hooks */
static int hook_calls;
static void wait_hook(void *extra)
{
    (*(int *)extra)++;
    usleep(50); /* a runtime would run another of its threads here */
}

static void test_wait_hooks(void)
{
    int v = 0, rc;
    rc = MPIX_Wait_hook_set(wait_hook, &hook_calls, -1);
    CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "negative interval: class %d",
          mtest_error_class(rc));
    if (peer >= size)
        return;
    MPIX_Wait_hook_set(wait_hook, &hook_calls, 10);
    if (first) {
        MPI_Recv(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(hook_calls > 0, "the wait hook never ran during a 100 ms wait");
        MPIX_Wait_hook_set(NULL, NULL, 0);
        hook_calls = 0;
        MPI_Recv(&v, 1, MPI_INT, peer, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(hook_calls == 0, "a removed wait hook ran %d times", hook_calls);
    } else {
        MPIX_Wait_hook_set(NULL, NULL, 0);
        usleep(100000);
        MPI_Send(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD);
        usleep(50000);
        MPI_Send(&v, 1, MPI_INT, peer, 32, MPI_COMM_WORLD);
    }
}

/* ---------------------------------------------------------------- size-known receives */
typedef struct {
    int mode; /* 0 managed object, 1 fail, 2 too small, 3 native memory */
    toy_obj_t *obj;
    void *mem;
    long count;
    int source;
} al_t;

static int alloc_fn(MPI_Count count, int source, int tag, void *extra, MPIX_Target *t)
{
    al_t *a = extra;
    (void)tag;
    a->count = (long)count;
    a->source = source;
    switch (a->mode) {
    case 1:
        return MPI_ERR_NO_MEM;
    case 2:
        a->obj = toy_alloc((size_t)count / 2, TOY_NOGC);
        t->ref = a->obj;
        return MPI_SUCCESS;
    case 3:
        a->mem = malloc((size_t)count + 1);
        t->addr = a->mem;
        return MPI_SUCCESS;
    default:
        a->obj = toy_alloc((size_t)count * sizeof(int), TOY_NOGC);
        t->ref = a->obj;
        return MPI_SUCCESS;
    }
}

static void test_recv_alloc(void)
{
    static const int counts[] = {0, 10, 5000, 60000};
    int rc;
    if (peer >= size)
        return;
    if (first) {
        for (int k = 0; k < 4; k++) {
            al_t a = {0};
            MPI_Status st;
            int cnt = -1;
            rc =
                MPIX_Recv_alloc(alloc_fn, &a, MPI_INT, MPI_ANY_SOURCE, 40 + k, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS, "recv_alloc %d: %d", counts[k], rc);
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(a.count == counts[k] && cnt == counts[k] && a.source == peer,
                  "callback count %ld, status count %d, source %d", a.count, cnt, a.source);
            toy_collect();
            for (int i = 0; i < counts[k]; i++)
                if (((int *)a.obj->addr)[i] != i * 3 + k) {
                    CHECK(0, "recv_alloc element %d: %d", i, ((int *)a.obj->addr)[i]);
                    break;
                }
            toy_free(a.obj);
        }
        {
            al_t a = {1};
            rc =
                MPIX_Recv_alloc(alloc_fn, &a, MPI_INT, peer, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(mtest_error_class(rc) == MPI_ERR_NO_MEM, "failing callback: class %d",
                  mtest_error_class(rc));
        }
        {
            al_t a = {2};
            MPI_Request req;
            rc = MPIX_Irecv_alloc(alloc_fn, &a, MPI_INT, peer, 51, MPI_COMM_WORLD, &req);
            CHECK(rc == MPI_SUCCESS, "irecv_alloc: %d", rc);
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(mtest_error_class(rc) == MPI_ERR_TRUNCATE, "too small a target: class %d",
                  mtest_error_class(rc));
            toy_free(a.obj);
        }
        {
            al_t a = {3};
            MPI_Request req;
            rc = MPIX_Irecv_alloc(alloc_fn, &a, MPI_BYTE, peer, 52, MPI_COMM_WORLD, &req);
            CHECK(rc == MPI_SUCCESS, "irecv_alloc: %d", rc);
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(rc == MPI_SUCCESS && a.count == 70000 && a.mem != NULL &&
                      ((unsigned char *)a.mem)[69999] == (unsigned char)(69999 % 251),
                  "native target: rc %d count %ld", rc, a.count);
            free(a.mem);
        }
        rc = MPIX_Recv_alloc(NULL, NULL, MPI_INT, peer, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(mtest_error_class(rc) == MPI_ERR_ARG, "NULL callback: class %d",
              mtest_error_class(rc));
    } else {
        for (int k = 0; k < 4; k++) {
            int *v = malloc(sizeof(int) * (size_t)(counts[k] + 1));
            for (int i = 0; i < counts[k]; i++)
                v[i] = i * 3 + k;
            MPI_Send(v, counts[k], MPI_INT, peer, 40 + k, MPI_COMM_WORLD);
            free(v);
        }
        {
            int v[100] = {0};
            unsigned char *m = malloc(70000);
            for (int i = 0; i < 70000; i++)
                m[i] = (unsigned char)(i % 251);
            MPI_Send(v, 100, MPI_INT, peer, 50, MPI_COMM_WORLD);
            MPI_Send(m, 30000, MPI_BYTE, peer, 51, MPI_COMM_WORLD);
            MPI_Send(m, 70000, MPI_BYTE, peer, 52, MPI_COMM_WORLD);
            free(m);
        }
    }
}

/* ---------------------------------------------------------------- refused pins */
static void test_refused_pins(void)
{
    MPIX_Managed_stats before, after;
    enum { N = 4 };
    size_t sz[N] = {10, 20000, 150000, 600000};
    toy_obj_t *o[N];
    MPI_Request req[N];
    int rc;

    if (peer >= size)
        return;
    MPIX_Managed_stats_get(&before);
    toy.refuse_pins = 1; /* every pin fails */
    for (int k = 0; k < N; k++) {
        o[k] = toy_alloc(sz[k], 0);
        if (first) {
            rc = MPIX_Irecv_ref(o[k], 0, (MPI_Count)sz[k], MPI_BYTE, peer, 60 + k, MPI_COMM_WORLD,
                                &req[k]);
        } else {
            toy_fill(o[k], 0, sz[k], 60u + (unsigned)k);
            rc = MPIX_Isend_ref(o[k], 0, (MPI_Count)sz[k], MPI_BYTE, peer, 60 + k, MPI_COMM_WORLD,
                                &req[k]);
        }
        CHECK(rc == MPI_SUCCESS, "refused pins, op %d: %d", k, rc);
        toy_collect();
    }
    rc = MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
    /* blocking operations whose pins are refused: the safepoint is skipped */
    if (first) {
        rc = MPIX_Recv_ref(o[3], 0, (MPI_Count)sz[3], MPI_BYTE, peer, 70, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "blocking receive with refused pins: %d", rc);
        mtest_errors += toy_verify(o[3], 0, sz[3], 63, "blocking receive, pins refused") != 0;
    } else {
        rc = MPIX_Send_ref(o[3], 0, (MPI_Count)sz[3], MPI_BYTE, peer, 70, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "blocking send with refused pins: %d", rc);
    }
    toy.refuse_pins = 0;
    MPIX_Managed_stats_get(&after);
    CHECK(after.copies - before.copies >= N, "only %lld copies for %d refused pins",
          after.copies - before.copies, N);
    for (int k = 0; k < N; k++) {
        if (first)
            mtest_errors += toy_verify(o[k], 0, sz[k], 60u + (unsigned)k, "copied receive") != 0;
        toy_free(o[k]);
    }
}

/* ---------------------------------------------------------------- lifecycle and query */
static void test_lifecycle(void)
{
    toy_obj_t *young = toy_alloc(1000, 0), *old = toy_alloc(1000, TOY_OLD);
    MPIX_Ref_use uses[4];
    MPI_Request req[2];
    MPI_Status st;
    int n = -1, rc, flag = 0, saw_young = 0, saw_old = 0;
    long long safepoints0;
    MPIX_Managed_stats s;

    /* receives that never match: cancelled */
    MPIX_Irecv_ref(young, 0, 1000, MPI_BYTE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &req[0]);
    MPIX_Irecv_ref(old, 0, 1000, MPI_BYTE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &req[1]);
    rc = MPIX_Managed_inflight(4, uses, &n);
    CHECK(rc == MPI_SUCCESS && n == 2, "inflight: rc %d n %d", rc, n);
    for (int i = 0; i < n && i < 4; i++) {
        if (uses[i].ref == young) {
            saw_young = 1;
            CHECK(uses[i].flags == (MPIX_REF_PINNED | MPIX_REF_ADDRESS_HELD | MPIX_REF_MOVABLE),
                  "young object flags %#x", uses[i].flags);
        } else if (uses[i].ref == old) {
            saw_old = 1;
            CHECK(uses[i].flags == MPIX_REF_ADDRESS_HELD, "old object flags %#x", uses[i].flags);
        }
    }
    CHECK(saw_young && saw_old, "inflight misses a reference");
    rc = MPIX_Managed_inflight(1, uses, &n);
    CHECK(rc == MPI_SUCCESS && n == 2, "a short array still reports the total: %d", n);
    rc = MPIX_Managed_deregister();
    CHECK(mtest_error_class(rc) == MPI_ERR_PENDING, "deregister with receives posted: class %d",
          mtest_error_class(rc));
    for (int i = 0; i < 2; i++) {
        MPI_Cancel(&req[i]);
        MPI_Wait(&req[i], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag, "receive %d not cancelled", i);
    }
    CHECK(young->canal_pins == 0, "a cancelled receive kept its pin");
    rc = MPIX_Managed_deregister();
    CHECK(rc == MPI_SUCCESS, "deregister: %d", rc);
    rc = MPIX_Send_ref(young, 0, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(rc) == MPI_ERR_OTHER, "send without hooks: class %d",
          mtest_error_class(rc));

    /* the safepoint at the entry of blocking calls */
    rc = toy_register(MPIX_MANAGED_SAFEPOINT_AT_ENTRY);
    CHECK(rc == MPI_SUCCESS, "register again: %d", rc);
    MPIX_Managed_stats_get(&s);
    safepoints0 = s.safepoints;
    if (peer < size) {
        if (first)
            MPIX_Send_ref(young, 0, 1000, MPI_BYTE, peer, 80, MPI_COMM_WORLD);
        else
            MPIX_Recv_ref(young, 0, 1000, MPI_BYTE, peer, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPIX_Managed_stats_get(&s);
        CHECK(s.safepoints > safepoints0, "no safepoint at entry");
    }
    MPIX_Managed_deregister();
    toy_register(0);
    toy_free(young);
    toy_free(old);
}

int main(int argc, char **argv)
{
    int rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = rank ^ 1;
    first = (rank & 1) == 0;
    rc = toy_init(16u << 20, 0);
    CHECK(rc == MPI_SUCCESS, "toy_init: %d", rc);
    test_upcalls();
    test_wait_hooks();
    test_recv_alloc();
    test_refused_pins();
    test_lifecycle();
    toy_report("managed_prims");
    mtest_errors += (int)toy_finish_checks();
    return mtest_finish();
}
