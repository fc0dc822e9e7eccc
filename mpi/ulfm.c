/*
 * ULFM (User Level Failure Mitigation) with MPICH's names: MPIX_Comm_revoke,
 * MPIX_Comm_agree, MPIX_Comm_shrink, MPIX_Comm_failure_ack and
 * MPIX_Comm_failure_get_acked, for intracommunicators of the job's ranks;
 * and the MPI-5 era MPIX_Comm_get_failed, MPIX_Comm_ack_failed and
 * MPIX_Comm_iagree (ULFM's signatures; mpi_ext.h, as MPICH 4.0.2's mpi.h
 * has none of them).
 *
 * Two contexts of their own, above the ones mpi/comm.c hands out, carry
 * the protocol; their source ranks are job ranks, and a receive posted
 * there from MPI_ANY_SOURCE never fails for a loss (adi_ctx_set_ft):
 *  - ULFM_CTX_REVOKE: a revoke notice is a 0-byte message whose tag is the
 *    revoked communicator's context. Every process keeps one receive for
 *    them posted from MPI_Init on; its completion (inside progress, device
 *    lock held) revokes both contexts of the communicator in the device,
 *    which fails what is posted on them, forwards the notice to the other
 *    members the first time (the revoker may die before reaching them
 *    all), and posts the next receive.
 *  - ULFM_CTX_AGREE: the agreement (ft_agree), a coordinator protocol. The
 *    coordinator is the lowest rank not known to have failed. Each other
 *    member sends it its contribution (words to AND, the failures it knows)
 *    and waits for the decision from it alone; when the coordinator fails,
 *    the member contributes to the next one. The coordinator waits until it
 *    has a contribution or a failure from every member, or a decision from
 *    anybody (one that an earlier coordinator sent before it died), decides
 *    (that decision, else the AND and the union of the failures) and sends
 *    it to every member. A member that receives the decision forwards it to
 *    all before it returns, so that a later coordinator hears of it from
 *    every member that decided (a member that decided never contributes
 *    again, and a coordinator cannot finish without hearing from each live
 *    member): two live members never return different decisions. Failures
 *    are those the device knows (channels, adi/failure.c); the protocol
 *    assumes that a process the device gives up is dead (fail-stop).
 *    An agreement is a state machine (agree_op_t) that the completions of
 *    its own requests advance, inside progress: MPIX_Comm_agree and
 *    MPIX_Comm_shrink wait for it, MPIX_Comm_iagree returns a request it
 *    completes, and it goes on while the process waits in any other call.
 * Forwarded decisions that nobody waits for stay in the unexpected queue of
 * ULFM_CTX_AGREE (n small messages per member and agreement).
 */
#include "comm_impl.h"
#include "mpi_ext.h"
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>
#include <string.h>

enum {
    ULFM_CTX_REVOKE = 65532, /* even: not a collective context (adi.h) */
    ULFM_CTX_AGREE = 65534,
    KIND_CONTRIB = 0,
    KIND_DECIDE = 1,
    SHRINK_MASK_WORDS = 256, /* at least mpi/comm.c's CTX_WORDS */
};

static adi_request_t *listener; /* the posted revoke-notice receive (device lock) */
static int listener_init;       /* posting from the init hook: do not repost */
static int listener_fired;      /* it completed during that post */
static int listener_stop;       /* finalize: do not repost */
static int ulfm_ready;

/* ---------------------------------------------------------------- revoke */
static void listener_post(void);

static void send_detached(const void *buf, size_t len, int job, int tag, int context);

/* This process learnt from a notice of job rank `from` that `context` is
 * revoked: it tells the other members in turn, so that a revoker that dies
 * before reaching everybody still revokes the communicator everywhere
 * (every member forwards once: n^2 notices in all). */
static void revoke_forward(int context, int from)
{
    int n = adi_ctx_job_ranks(context, NULL, 0), *jobs;

    if (n <= 0 || (jobs = malloc(sizeof *jobs * (size_t)n)) == NULL)
        return; /* (the members still learn it from the revoker) */
    n = adi_ctx_job_ranks(context, jobs, n);
    for (int i = 0; i < n; i++)
        if (jobs[i] != adi_job_rank() && jobs[i] != from && jobs[i] < adi_job_size())
            send_detached(NULL, 0, jobs[i], context, ULFM_CTX_REVOKE);
    free(jobs);
}

/* A revoke notice arrived (or the receive was cancelled). Inside progress,
 * with the device lock held; the request is released after this returns. */
static void listener_done(adi_request_t *r, void *arg)
{
    (void)arg;
    r->user_freed = 1;
    if (r == listener)
        listener = NULL;
    if (r->status.cancelled || r->status.error != 0)
        return;
    if (r->status.tag >= 0 && r->status.tag < ULFM_CTX_REVOKE - 1) {
        int fresh = adi_ctx_revoke_locked(r->status.tag);
        adi_ctx_revoke_locked(r->status.tag + 1);
        if (fresh)
            revoke_forward(r->status.tag, r->status.source);
    }
    if (listener_init)
        listener_fired = 1;
    else if (!listener_stop)
        listener_post(); /* nothing else is unexpected there: no nested delivery */
}

static void listener_post(void)
{
    adi_request_t *r = adi_request_alloc(ADI_REQ_RECV);
    if (r == NULL) {
        LOG_ERR("no memory for the receive of revoke notices: MPIX_Comm_revoke of other "
                "processes will not reach this one");
        return;
    }
    r->on_complete = listener_done;
    listener = r;
    if (adi_irecv_into(r, NULL, 0, dt_builtin(DT_BYTE), ADI_ANY_SOURCE, ADI_ANY_TAG,
                       ULFM_CTX_REVOKE) < 0) {
        listener = NULL;
        adi_request_free(r);
    }
}

static int ulfm_module_init(void)
{
    int n = adi_job_size();
    if (adi_ctx_set_ranks(ULFM_CTX_REVOKE, n, NULL) != CANAL_OK ||
        adi_ctx_set_ranks(ULFM_CTX_AGREE, n, NULL) != CANAL_OK ||
        adi_ctx_set_ft(ULFM_CTX_REVOKE) != CANAL_OK || adi_ctx_set_ft(ULFM_CTX_AGREE) != CANAL_OK)
        return MPI_ERR_NO_MEM;
    /* Notices sent before this post wait in the unexpected queue: take
     * them one by one here, outside progress. */
    do {
        listener_fired = 0;
        listener_init = 1;
        listener_post();
        listener_init = 0;
    } while (listener_fired);
    ulfm_ready = 1;
    return MPI_SUCCESS;
}

static void ulfm_module_finalize(void)
{
    adi_request_t *r;
    adi_lock();
    listener_stop = 1;
    r = listener;
    adi_unlock();
    if (r != NULL)
        adi_cancel(r); /* completes it: listener_done releases it */
    ulfm_ready = 0;
}

__attribute__((constructor)) static void ulfm_module_register(void)
{
    mpi_register_hook(ulfm_module_init, ulfm_module_finalize);
}

/* A send nobody waits for: released when it completes. */
static void send_detached(const void *buf, size_t len, int job, int tag, int context)
{
    adi_request_t *r = NULL;
    if (adi_isend(buf, len, dt_builtin(DT_BYTE), job, adi_job_rank(), tag, context,
                  ADI_MODE_STANDARD, &r) < 0 ||
        r == NULL)
        return; /* (a failed peer: nothing to tell it) */
    adi_lock();
    if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
        adi_request_free(r);
    else
        r->user_freed = 1;
    adi_unlock();
}

/* What ULFM needs of a (valid) communicator: an intracommunicator of the
 * job's ranks. Raised with mpi_err_fail: a code the user's handler cleared
 * (MPI_CANAL_HANDLED) ends the call as any error does -- an agreement must
 * not start on an intercommunicator -- and the calls return mpi_result() of
 * it (their table files, ext-mpich and ext-canal, map nothing). */
static int check_ulfm_obj(mpi_comm_t *c, const char *fn)
{
    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn,
                             "comm is an intercommunicator; Canal's ULFM takes "
                             "intracommunicators only");
    for (int i = 0; i < c->size; i++)
        if (mpi_comm_peer_job_rank(c, i) >= adi_job_size())
            return mpi_err_fail(c, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                                 "comm holds processes of another job (rank %d); Canal's ULFM "
                                 "covers the ranks of one job",
                                 i);
    if (!ulfm_ready)
        return mpi_err_fail(c, MPI_ERR_INTERN, fn, "the ULFM protocol did not start");
    return MPI_SUCCESS;
}

int mpix_comm_revoke_impl(mpi_comm_t *comm, const char *fn)
{
    mpi_comm_t *c = comm;
    int err;
    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    adi_ctx_revoke(c->context);
    adi_ctx_revoke(c->context + 1);
    /* Sent again when revoked already (by a notice): a member whose
     * revoker died before reaching it may still learn it from us. */
    for (int i = 0; i < c->size; i++)
        if (i != c->rank)
            send_detached(NULL, 0, mpi_comm_peer_job_rank(c, i), c->context, ULFM_CTX_REVOKE);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- agreement */
/* One agreement in flight: a state machine that the completions of its own
 * requests drive (their on_complete, inside progress, device lock held),
 * so that it goes on whatever call the process is blocked in: blocking
 * agreements wait for it, MPIX_Comm_iagree returns at once. */
typedef enum { AG_PICK, AG_MEMBER, AG_COORD, AG_DECIDED, AG_FINISHED } agree_phase_t;

typedef struct agree_op agree_op_t;
struct agree_op {
    mpi_comm_t *c;
    int n, nw, coord;
    unsigned seq;
    size_t len;
    agree_phase_t phase;
    canal_status_t st;
    uint8_t *msg;  /* nw words, then the n failed flags: ours, then the decision */
    uint8_t *bufs; /* n + 1 receive buffers of len bytes */
    int *fl;
    adi_request_t *send, *recv; /* a member's contribution and the coordinator's decision */
    adi_request_t *decide;      /* the coordinator's: a decision from anybody */
    adi_request_t **contrib;    /* the coordinator's: each member's contribution */
    int busy, again;            /* agree_step is running / must run again */
    /* MPIX_Comm_iagree: where the flag goes, and the request to complete */
    int *user_flag;
    adi_request_t *user_req;
};

static void agree_step(agree_op_t *op);

static void agree_req_done(adi_request_t *r, void *arg)
{
    (void)r;
    agree_step(arg);
}

static int req_ok(const adi_request_t *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && r->status.error == 0;
}

static int req_is_over(const adi_request_t *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* Let go of a request of the protocol (device lock held): cancelled if it
 * can be, released now or when it completes, and never calls back. */
static void agree_release(adi_request_t **rp)
{
    adi_request_t *r = *rp;
    if (r == NULL)
        return;
    *rp = NULL;
    r->on_complete = NULL;
    if (!req_is_over(r))
        adi_cancel(r);
    if (req_is_over(r))
        adi_request_free(r);
    else
        r->user_freed = 1;
}

static int agree_tag(const mpi_comm_t *c, unsigned seq, int kind)
{
    return (c->context / 2) << 16 | (int)(seq & 0x3fffu) << 2 | kind;
}

static canal_status_t agree_irecv(agree_op_t *op, void *buf, int src_job, int kind,
                                  adi_request_t **out)
{
    adi_request_t *r = adi_request_alloc(ADI_REQ_RECV);
    canal_status_t st;
    if (r == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request of the agreement");
    r->on_complete = agree_req_done;
    r->on_complete_arg = op;
    *out = r; /* (before posting: the callback may run at once) */
    st = adi_irecv_into(r, buf, op->len, dt_builtin(DT_BYTE), src_job,
                        agree_tag(op->c, op->seq, kind), ULFM_CTX_AGREE);
    if (st < 0) {
        *out = NULL;
        adi_request_free(r);
    }
    return st;
}

/* Start a phase from the failures we know now: contribute to the lowest
 * member not known failed, or coordinate when that is us. */
static void agree_pick(agree_op_t *op)
{
    int n = op->n, me = op->c->rank;
    uint8_t *f = op->msg + (size_t)op->nw * 4;
    int k = adi_ctx_failed_ranks(op->c->context, 0, op->fl, n);
    canal_status_t st;

    for (int i = 0; i < k && i < n; i++)
        f[op->fl[i]] = 1;
    f[me] = 0; /* (we are alive, whatever a stale report says) */
    op->coord = -1;
    for (int i = 0; i < n && op->coord < 0; i++)
        if (!f[i])
            op->coord = i;
    if (op->coord == me) {
        op->phase = AG_COORD;
        if ((st = agree_irecv(op, op->bufs + (size_t)n * op->len, ADI_ANY_SOURCE, KIND_DECIDE,
                              &op->decide)) < 0)
            goto fail;
        for (int i = 0; i < n; i++)
            if (i != me && !f[i] &&
                (st = agree_irecv(op, op->bufs + (size_t)i * op->len,
                                  mpi_comm_peer_job_rank(op->c, i), KIND_CONTRIB,
                                  &op->contrib[i])) < 0)
                goto fail;
        op->again = 1;
        return;
    }
    op->phase = AG_MEMBER;
    if ((st = agree_irecv(op, op->bufs, mpi_comm_peer_job_rank(op->c, op->coord), KIND_DECIDE,
                          &op->recv)) < 0)
        goto fail;
    if (adi_isend(op->msg, op->len, dt_builtin(DT_BYTE), mpi_comm_peer_job_rank(op->c, op->coord),
                  adi_job_rank(), agree_tag(op->c, op->seq, KIND_CONTRIB), ULFM_CTX_AGREE,
                  ADI_MODE_STANDARD, &op->send) < 0) {
        op->send = NULL; /* (it failed: the next one coordinates) */
        f[op->coord] = 1;
        agree_release(&op->recv);
        op->phase = AG_PICK;
    } else {
        op->send->on_complete = agree_req_done;
        op->send->on_complete_arg = op;
    }
    op->again = 1;
    return;
fail:
    op->st = st;
    op->phase = AG_FINISHED;
}

/* The coordinator: a decision from anybody (an earlier coordinator's, sent
 * before it failed) or a contribution or a failure from every member. */
static void agree_coord(agree_op_t *op)
{
    int n = op->n, nw = op->nw;
    uint8_t *failed = op->msg + (size_t)nw * 4;

    if (req_ok(op->decide)) {
        memcpy(op->msg, op->bufs + (size_t)n * op->len, op->len);
    } else {
        for (int i = 0; i < n; i++)
            if (op->contrib[i] != NULL && !req_is_over(op->contrib[i]))
                return;
        for (int i = 0; i < n; i++) {
            const uint8_t *in = op->bufs + (size_t)i * op->len;
            if (op->contrib[i] == NULL)
                continue;
            if (op->contrib[i]->status.error != 0) {
                failed[i] = 1; /* it failed meanwhile */
                continue;
            }
            for (int k = 0; k < nw; k++) {
                uint32_t a, b;
                memcpy(&a, op->msg + 4 * k, 4);
                memcpy(&b, in + 4 * k, 4);
                a &= b;
                memcpy(op->msg + 4 * k, &a, 4);
            }
            for (int j = 0; j < n; j++)
                failed[j] |= in[(size_t)nw * 4 + (size_t)j];
        }
    }
    op->phase = AG_DECIDED;
    op->again = 1;
}

/* A member: the coordinator's decision, or its failure. */
static void agree_member(agree_op_t *op)
{
    uint8_t *f = op->msg + (size_t)op->nw * 4;

    if (req_is_over(op->recv)) {
        if (op->recv->status.error == 0) {
            memcpy(op->msg, op->bufs, op->len);
            op->phase = AG_DECIDED;
            op->again = 1;
            return;
        }
    } else if (!(op->send != NULL && req_is_over(op->send) && op->send->status.error != 0)) {
        return; /* waiting */
    }
    f[op->coord] = 1; /* it failed: the next one coordinates */
    agree_release(&op->send);
    agree_release(&op->recv);
    op->phase = AG_PICK;
    op->again = 1;
}

/* Decided: tell everybody (a later coordinator must hear of it), and make
 * the agreed failures known here (ULFM: what MPIX_Comm_failure_ack
 * acknowledges next), even those another member saw first. */
static void agree_decided(agree_op_t *op)
{
    int n = op->n;
    const uint8_t *failed = op->msg + (size_t)op->nw * 4;

    agree_release(&op->send);
    agree_release(&op->recv);
    agree_release(&op->decide);
    for (int i = 0; i < n; i++)
        agree_release(&op->contrib[i]);
    for (int i = 0; i < n; i++)
        if (i != op->c->rank && !failed[i])
            send_detached(op->msg, op->len, mpi_comm_peer_job_rank(op->c, i),
                          agree_tag(op->c, op->seq, KIND_DECIDE), ULFM_CTX_AGREE);
    for (int i = 0; i < n; i++)
        if (failed[i] && i != op->c->rank)
            adi_peer_report_failed(mpi_comm_peer_job_rank(op->c, i),
                                   "another process reported it failed (MPIX_Comm_agree)");
    op->phase = AG_FINISHED;
}

static void agree_free(agree_op_t *op)
{
    agree_release(&op->send);
    agree_release(&op->recv);
    agree_release(&op->decide);
    for (int i = 0; op->contrib != NULL && i < op->n; i++)
        agree_release(&op->contrib[i]);
    free(op->contrib);
    free(op->msg);
    free(op->bufs);
    free(op->fl);
    free(op);
}

static void iagree_finish(agree_op_t *op);

static void agree_step(agree_op_t *op)
{
    adi_lock();
    if (op->busy) {
        op->again = 1; /* (a completion inside a step: the running step loops) */
        adi_unlock();
        return;
    }
    op->busy = 1;
    do {
        op->again = 0;
        switch (op->phase) {
        case AG_PICK:
            agree_pick(op);
            break;
        case AG_MEMBER:
            agree_member(op);
            break;
        case AG_COORD:
            agree_coord(op);
            break;
        case AG_DECIDED:
            agree_decided(op);
            break;
        case AG_FINISHED:
            break;
        }
    } while (op->again && op->phase != AG_FINISHED);
    op->busy = 0;
    if (op->phase == AG_FINISHED && op->user_req != NULL)
        iagree_finish(op); /* frees op */
    adi_unlock();
}

/* Start the fault-tolerant agreement on c: words[nw] becomes the AND of
 * every live member's, failed[n] (in: the failures we know) the union of
 * the failures the members knew; every member that finishes gets the same. */
static canal_status_t agree_start(mpi_comm_t *c, const uint32_t *words, int nw,
                                  const uint8_t *failed, agree_op_t **out)
{
    int n = c->size;
    agree_op_t *op = calloc(1, sizeof *op);

    if (op == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for an agreement of %d ranks", n);
    op->c = c;
    op->n = n;
    op->nw = nw;
    op->len = (size_t)nw * 4 + (size_t)n;
    op->seq = c->ulfm_seq++;
    op->phase = AG_PICK;
    op->msg = malloc(op->len);
    op->bufs = malloc(op->len * ((size_t)n + 1));
    op->fl = malloc(sizeof *op->fl * (size_t)n);
    op->contrib = calloc((size_t)n, sizeof *op->contrib);
    if (op->msg == NULL || op->bufs == NULL || op->fl == NULL || op->contrib == NULL) {
        agree_free(op);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for an agreement of %d ranks", n);
    }
    memcpy(op->msg, words, (size_t)nw * 4);
    memcpy(op->msg + (size_t)nw * 4, failed, (size_t)n);
    *out = op;
    return CANAL_OK;
}

static int agree_finished(void *arg)
{
    const agree_op_t *op = arg;
    int fin;
    adi_lock();
    fin = op->phase == AG_FINISHED;
    adi_unlock();
    return fin;
}

/* The blocking agreement (MPIX_Comm_agree, MPIX_Comm_shrink). */
static canal_status_t ft_agree(mpi_comm_t *c, uint32_t *words, int nw, uint8_t *failed)
{
    agree_op_t *op = NULL;
    canal_status_t st = agree_start(c, words, nw, failed, &op);

    if (st < 0)
        return st;
    agree_step(op);
    adi_wait_until(agree_finished, op);
    if ((st = op->st) >= 0) {
        memcpy(words, op->msg, (size_t)nw * 4);
        memcpy(failed, op->msg + (size_t)nw * 4, (size_t)c->size);
    }
    adi_lock();
    agree_free(op);
    adi_unlock();
    return st;
}

/* The failures of c this process knows now, as flags. */
static int known_failed(mpi_comm_t *c, uint8_t **failed_out)
{
    int n = c->size, k;
    uint8_t *failed = calloc((size_t)n, 1);
    int *fl = malloc(sizeof *fl * (size_t)n);
    if (failed == NULL || fl == NULL) {
        free(failed);
        free(fl);
        return MPI_ERR_NO_MEM;
    }
    k = adi_ctx_failed_ranks(c->context, 0, fl, n);
    for (int i = 0; i < k && i < n; i++)
        failed[fl[i]] = 1;
    free(fl);
    *failed_out = failed;
    return MPI_SUCCESS;
}

/* The first rank of the agreed failures that this process has not
 * acknowledged on c, or -1. */
static int first_unacked(mpi_comm_t *c, const uint8_t *failed)
{
    int n = c->size, k, found = -1;
    int *acked = malloc(sizeof *acked * (size_t)(n > 0 ? n : 1));
    uint8_t *is_acked = calloc((size_t)(n > 0 ? n : 1), 1);
    if (acked == NULL || is_acked == NULL) {
        free(acked);
        free(is_acked);
        return -2;
    }
    k = adi_ctx_failed_ranks(c->context, 1, acked, n);
    for (int i = 0; i < k && i < n; i++)
        is_acked[acked[i]] = 1;
    for (int i = 0; i < n && found < 0; i++)
        if (failed[i] && !is_acked[i] && i != c->rank)
            found = i;
    free(acked);
    free(is_acked);
    return found;
}

int mpix_comm_agree_impl(mpi_comm_t *comm, int *flag, const char *fn)
{
    mpi_comm_t *c = comm;
    uint8_t *failed = NULL;
    uint32_t w;
    canal_status_t st;
    int err, un;

    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if (flag == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "flag is NULL");
    if (known_failed(c, &failed) != MPI_SUCCESS)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for an agreement");
    w = (uint32_t)*flag;
    if ((st = ft_agree(c, &w, 1, failed)) < 0) {
        free(failed);
        return mpi_err_status(c, st, fn);
    }
    *flag = (int)w;
    un = first_unacked(c, failed);
    free(failed);
    if (un == -2)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for an agreement");
    if (un >= 0)
        return mpi_err_raise(c, MPIX_ERR_PROC_FAILED, fn,
                             "rank %d of comm (rank %d of MPI_COMM_WORLD) failed and this process "
                             "has not acknowledged it (MPIX_Comm_failure_ack); flag is the "
                             "agreed value",
                             un, mpi_comm_peer_job_rank(c, un));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- shrink */
int mpix_comm_shrink_impl(mpi_comm_t *comm, MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *c = comm, *nc = NULL;
    uint8_t *failed = NULL;
    uint32_t mask[SHRINK_MASK_WORDS];
    int *ranks = NULL, nw, context = -1, nsurv = 0;
    mpi_group_t *g = NULL;
    canal_status_t st;
    int err;

    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if (newcomm == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (known_failed(c, &failed) != MPI_SUCCESS)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for an agreement");
    /* Agree on a context pair free everywhere (the AND of the free masks),
     * take it, and agree that everybody could (another thread may have
     * taken it meanwhile); the failures agreed last are left out. */
    for (;;) {
        uint32_t got;
        int bit = -1, took;
        if ((nw = mpi_comm_context_snapshot(mask, SHRINK_MASK_WORDS)) < 0) {
            err = mpi_err_raise(c, MPI_ERR_INTERN, fn, "context mask larger than expected");
            goto out;
        }
        if ((st = ft_agree(c, mask, nw, failed)) < 0)
            goto out_st;
        for (int b = 2; b < nw * 32 && bit < 0; b++) /* (pairs 0, 1: the predefined ones) */
            if (mask[b / 32] & (1u << (b % 32)))
                bit = b;
        if (bit < 0) {
            err = mpi_err_raise(c, MPI_ERR_OTHER, fn,
                                "too many communicators: no context id is free on every "
                                "surviving process");
            goto out;
        }
        took = mpi_comm_context_take(2 * bit);
        got = (uint32_t)took;
        if ((st = ft_agree(c, &got, 1, failed)) < 0) {
            if (took)
                mpi_comm_context_free(2 * bit);
            goto out_st;
        }
        if (got) {
            context = 2 * bit;
            break;
        }
        if (took)
            mpi_comm_context_free(2 * bit);
    }
    if ((ranks = malloc(sizeof *ranks * (size_t)c->size)) == NULL) {
        err = mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the survivors");
        goto out;
    }
    for (int i = 0; i < c->size; i++)
        if (!failed[i])
            ranks[nsurv++] = mpi_comm_peer_job_rank(c, i);
    if ((g = mpi_group_new_list(ranks, nsurv)) == NULL) {
        err = mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the survivors' group");
        goto out;
    }
    if ((err = mpi_comm_new_intra(c, context, g, &nc)) != MPI_SUCCESS) {
        err = mpi_err_raise(c, err, fn, "cannot make the shrunk communicator");
        goto out;
    }
    context = -1; /* nc owns it */
    *newcomm = nc->handle;
    err = MPI_SUCCESS;
    goto out;
out_st:
    err = mpi_err_status(c, st, fn);
out:
    if (context >= 0)
        mpi_comm_context_free(context);
    if (g != NULL)
        mpi_group_release(g);
    free(ranks);
    free(failed);
    return err;
}

/* ---------------------------------------------------------------- acknowledgement */
int mpix_comm_failure_ack_impl(mpi_comm_t *comm, const char *fn)
{
    mpi_comm_t *c = comm;
    canal_status_t st;
    int err;
    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if ((st = adi_ctx_failure_ack(c->context)) < 0)
        return mpi_err_status(c, st, fn);
    return MPI_SUCCESS;
}

int mpix_comm_failure_get_acked_impl(mpi_comm_t *comm, MPI_Group *failedgrp, const char *fn)
{
    mpi_comm_t *c = comm;
    mpi_group_t *g;
    int *ranks, k;
    int err;
    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if (failedgrp == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "failedgrp is NULL");
    if ((ranks = malloc(sizeof *ranks * (size_t)(c->size > 0 ? c->size : 1))) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the failed group");
    k = adi_ctx_failed_ranks(c->context, 1, ranks, c->size);
    if (k == 0) {
        free(ranks);
        *failedgrp = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < k; i++)
        ranks[i] = mpi_comm_peer_job_rank(c, ranks[i]);
    g = mpi_group_new_list(ranks, k);
    free(ranks);
    if (g == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the failed group");
    if ((err = mpi_group_to_handle(g, failedgrp)) != MPI_SUCCESS)
        return mpi_err_raise(c, err, fn, "no handle for the failed group");
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI-5 era names */
/* (Not in MPICH 4.0.2's mpi.h: declared in mpi_ext.h, described in
 * mpi/api/ext-canal.api.) */
int mpix_comm_get_failed_impl(mpi_comm_t *comm, MPI_Group *failedgrp, const char *fn)
{
    mpi_comm_t *c = comm;
    mpi_group_t *g;
    int *ranks, k;
    int err;
    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if ((ranks = malloc(sizeof *ranks * (size_t)(c->size > 0 ? c->size : 1))) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the failed group");
    k = adi_ctx_failed_ordered(c->context, ranks, c->size);
    if (k == 0) {
        free(ranks);
        *failedgrp = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < k; i++)
        ranks[i] = mpi_comm_peer_job_rank(c, ranks[i]);
    g = mpi_group_new_list(ranks, k);
    free(ranks);
    if (g == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the failed group");
    if ((err = mpi_group_to_handle(g, failedgrp)) != MPI_SUCCESS)
        return mpi_err_raise(c, err, fn, "no handle for the failed group");
    return MPI_SUCCESS;
}

int mpix_comm_ack_failed_impl(mpi_comm_t *comm, int num_to_ack, int *num_acked, const char *fn)
{
    mpi_comm_t *c = comm;
    int *ranks, k;
    canal_status_t st;
    int err;
    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if (num_to_ack < 0)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "num_to_ack=%d is negative", num_to_ack);
    if ((ranks = malloc(sizeof *ranks * (size_t)(c->size > 0 ? c->size : 1))) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the failed ranks");
    /* The first num_to_ack of MPIX_Comm_get_failed's group, in its order. */
    k = adi_ctx_failed_ordered(c->context, ranks, c->size);
    if ((st = adi_ctx_ack_ranks(c->context, ranks, k < num_to_ack ? k : num_to_ack)) < 0) {
        free(ranks);
        return mpi_err_status(c, st, fn);
    }
    *num_acked = adi_ctx_failed_ranks(c->context, 1, ranks, c->size);
    free(ranks);
    return MPI_SUCCESS;
}

/* The nonblocking agreement finished (inside agree_step, device lock held):
 * the flag, the error of the request (as MPIX_Comm_agree's), completion. */
static void iagree_finish(agree_op_t *op)
{
    adi_request_t *ur = op->user_req;
    int n = op->n, un;

    if (op->st < 0) {
        ur->status.error = op->st;
    } else {
        uint32_t w;
        memcpy(&w, op->msg, 4);
        *op->user_flag = (int)w;
        un = first_unacked(op->c, op->msg + 4);
        if (un == -2) {
            ur->status.error =
                common_err_set(CANAL_ERR_NOMEM, "no memory for an agreement of %d ranks", n);
        } else if (un >= 0) {
            ur->status.error = CANAL_ERR_PEER;
            ur->status.peer = mpi_comm_peer_job_rank(op->c, un);
        }
    }
    op->user_req = NULL;
    agree_free(op);
    adi_request_complete(ur);
}

int mpix_comm_iagree_impl(mpi_comm_t *comm, int *flag, MPI_Request *request, const char *fn)
{
    mpi_comm_t *c = comm;
    uint8_t *failed = NULL;
    agree_op_t *op = NULL;
    adi_request_t *ur;
    uint32_t w;
    canal_status_t st;
    int err;

    if ((err = check_ulfm_obj(c, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    if (known_failed(c, &failed) != MPI_SUCCESS)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for an agreement");
    w = (uint32_t)*flag;
    st = agree_start(c, &w, 1, failed, &op);
    free(failed);
    if (st < 0)
        return mpi_err_status(c, st, fn);
    if ((ur = adi_request_alloc(ADI_REQ_OTHER)) == NULL) {
        adi_lock();
        agree_free(op);
        adi_unlock();
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
    }
    ur->owner_handle = c->handle;
    op->user_flag = flag;
    op->user_req = ur;
    *request = mpi_request_handle(ur);
    agree_step(op); /* (may finish at once: then the request is complete) */
    return MPI_SUCCESS;
}
