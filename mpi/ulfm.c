/*
 * ULFM (User Level Failure Mitigation) with MPICH's names: MPIX_Comm_revoke,
 * MPIX_Comm_agree, MPIX_Comm_shrink, MPIX_Comm_failure_ack and
 * MPIX_Comm_failure_get_acked, for intracommunicators of the job's ranks.
 *
 * Two contexts of their own, above the ones mpi/comm.c hands out, carry
 * the protocol; their source ranks are job ranks, and a receive posted
 * there from MPI_ANY_SOURCE never fails for a loss (adi_ctx_set_ft):
 *  - ULFM_CTX_REVOKE: a revoke notice is a 0-byte message whose tag is the
 *    revoked communicator's context. Every process keeps one receive for
 *    them posted from MPI_Init on; its completion (inside progress, device
 *    lock held) revokes both contexts of the communicator in the device,
 *    which fails what is posted on them, and posts the next receive.
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
 * Forwarded decisions that nobody waits for stay in the unexpected queue of
 * ULFM_CTX_AGREE (n small messages per member and agreement).
 */
#include "comm_impl.h"
#include "mpiimpl.h"

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
        adi_ctx_revoke_locked(r->status.tag);
        adi_ctx_revoke_locked(r->status.tag + 1);
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

/* The checks the ULFM calls share: an intracommunicator of the job's ranks. */
static int check_ulfm_comm(MPI_Comm comm, const char *fn, mpi_comm_t **out)
{
    mpi_comm_t *c;
    int err = mpi_check_comm(comm, fn, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (c->is_inter)
        return mpi_err_raise(c, MPI_ERR_COMM, fn,
                             "comm is an intercommunicator; Canal's ULFM takes "
                             "intracommunicators only");
    for (int i = 0; i < c->size; i++)
        if (mpi_comm_peer_job_rank(c, i) >= adi_job_size())
            return mpi_err_raise(c, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                                 "comm holds processes of another job (rank %d); Canal's ULFM "
                                 "covers the ranks of one job",
                                 i);
    if (!ulfm_ready)
        return mpi_err_raise(c, MPI_ERR_INTERN, fn, "the ULFM protocol did not start");
    *out = c;
    return MPI_SUCCESS;
}

int PMPIX_Comm_revoke(MPI_Comm comm)
{
    static const char fn[] = "MPIX_Comm_revoke";
    mpi_comm_t *c = NULL;
    int err = mpi_enter(fn);
    if (err)
        return err;
    if ((err = check_ulfm_comm(comm, fn, &c)) != MPI_SUCCESS)
        return err;
    adi_ctx_revoke(c->context);
    adi_ctx_revoke(c->context + 1);
    /* Sent again when revoked already (by a notice): a member whose
     * revoker died before reaching it may still learn it from us. */
    for (int i = 0; i < c->size; i++)
        if (i != c->rank)
            send_detached(NULL, 0, mpi_comm_peer_job_rank(c, i), c->context, ULFM_CTX_REVOKE);
    return MPI_SUCCESS;
}
#pragma weak MPIX_Comm_revoke = PMPIX_Comm_revoke

/* ---------------------------------------------------------------- agreement */
typedef struct {
    adi_request_t *decide; /* from any source */
    adi_request_t **contrib;
    int n;
} coord_wait_t;

static int coord_ready(void *arg)
{
    const coord_wait_t *w = arg;
    if (__atomic_load_n(&w->decide->done, __ATOMIC_ACQUIRE) && w->decide->status.error == 0)
        return 1;
    for (int i = 0; i < w->n; i++)
        if (w->contrib[i] != NULL && !__atomic_load_n(&w->contrib[i]->done, __ATOMIC_ACQUIRE))
            return 0;
    return 1;
}

static int req_done(void *arg)
{
    return __atomic_load_n(&((adi_request_t *)arg)->done, __ATOMIC_ACQUIRE);
}

/* Wait for r, release it, return its status (CANAL_ERR_PEER: its peer failed). */
static canal_status_t wait_free(adi_request_t *r)
{
    canal_status_t st;
    adi_wait_until(req_done, r);
    st = r->status.error;
    adi_request_free(r);
    return st;
}

static void cancel_free(adi_request_t *r)
{
    if (r == NULL)
        return;
    adi_cancel(r);
    adi_wait_until(req_done, r);
    adi_request_free(r);
}

static int agree_tag(const mpi_comm_t *c, unsigned seq, int kind)
{
    return (c->context / 2) << 16 | (int)(seq & 0x3fffu) << 2 | kind;
}

/* Decide as coordinator: msg (words, then the failed flags of the n ranks)
 * holds our contribution and becomes the decision. */
static canal_status_t coordinate(mpi_comm_t *c, unsigned seq, uint8_t *msg, int nw, uint8_t *bufs)
{
    int n = c->size;
    size_t len = (size_t)nw * 4 + (size_t)n;
    uint8_t *failed = msg + (size_t)nw * 4;
    coord_wait_t w = {NULL, NULL, n};
    canal_status_t st = CANAL_OK;

    if ((w.contrib = calloc((size_t)n, sizeof *w.contrib)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for an agreement of %d ranks", n);
    if ((st = adi_irecv(bufs + (size_t)n * len, len, dt_builtin(DT_BYTE), ADI_ANY_SOURCE,
                        agree_tag(c, seq, KIND_DECIDE), ULFM_CTX_AGREE, &w.decide)) < 0)
        goto out;
    for (int i = 0; i < n; i++) {
        if (i == c->rank || failed[i])
            continue;
        if ((st = adi_irecv(bufs + (size_t)i * len, len, dt_builtin(DT_BYTE),
                            mpi_comm_peer_job_rank(c, i), agree_tag(c, seq, KIND_CONTRIB),
                            ULFM_CTX_AGREE, &w.contrib[i])) < 0)
            goto out;
    }
    adi_wait_until(coord_ready, &w);
    if (__atomic_load_n(&w.decide->done, __ATOMIC_ACQUIRE) && w.decide->status.error == 0) {
        /* An earlier coordinator decided before it failed. */
        memcpy(msg, bufs + (size_t)n * len, len);
    } else {
        for (int i = 0; i < n; i++) {
            const uint8_t *in = bufs + (size_t)i * len;
            if (w.contrib[i] == NULL)
                continue;
            if (w.contrib[i]->status.error != 0) {
                failed[i] = 1; /* it failed meanwhile */
                continue;
            }
            for (int k = 0; k < nw; k++) {
                uint32_t a, b;
                memcpy(&a, msg + 4 * k, 4);
                memcpy(&b, in + 4 * k, 4);
                a &= b;
                memcpy(msg + 4 * k, &a, 4);
            }
            for (int j = 0; j < n; j++)
                failed[j] |= in[(size_t)nw * 4 + (size_t)j];
        }
    }
out:
    if (w.decide != NULL)
        cancel_free(w.decide);
    for (int i = 0; i < n; i++)
        cancel_free(w.contrib[i]);
    free(w.contrib);
    return st;
}

/* The fault-tolerant agreement on c: words[nw] becomes the AND of every
 * live member's, failed[n] (in: the failures we know) the union of the
 * failures the members knew; every member that returns gets the same. */
static canal_status_t ft_agree(mpi_comm_t *c, uint32_t *words, int nw, uint8_t *failed)
{
    int n = c->size;
    size_t len = (size_t)nw * 4 + (size_t)n;
    unsigned seq = c->ulfm_seq++;
    uint8_t *msg = malloc(len), *bufs = malloc(len * ((size_t)n + 1));
    int *fl = malloc(sizeof *fl * (size_t)n);
    canal_status_t st = CANAL_OK;

    if (msg == NULL || bufs == NULL || fl == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for an agreement of %d ranks", n);
        goto out;
    }
    memcpy(msg, words, (size_t)nw * 4);
    memcpy(msg + (size_t)nw * 4, failed, (size_t)n);
    for (;;) {
        uint8_t *f = msg + (size_t)nw * 4;
        int coord = -1, k = adi_ctx_failed_ranks(c->context, 0, fl, n);
        adi_request_t *r = NULL;

        for (int i = 0; i < k && i < n; i++)
            f[fl[i]] = 1;
        f[c->rank] = 0; /* (we are alive, whatever a stale report says) */
        for (int i = 0; i < n && coord < 0; i++)
            if (!f[i])
                coord = i;
        if (coord == c->rank) {
            if ((st = coordinate(c, seq, msg, nw, bufs)) < 0)
                goto out;
            break;
        }
        /* A member: contribute, then wait for the coordinator's decision. */
        if (adi_isend(msg, len, dt_builtin(DT_BYTE), mpi_comm_peer_job_rank(c, coord),
                      adi_job_rank(), agree_tag(c, seq, KIND_CONTRIB), ULFM_CTX_AGREE,
                      ADI_MODE_STANDARD, &r) < 0 ||
            wait_free(r) < 0) {
            f[coord] = 1;
            continue;
        }
        if ((st = adi_irecv(bufs, len, dt_builtin(DT_BYTE), mpi_comm_peer_job_rank(c, coord),
                            agree_tag(c, seq, KIND_DECIDE), ULFM_CTX_AGREE, &r)) < 0)
            goto out;
        if (wait_free(r) < 0) {
            f[coord] = 1; /* it failed: the next one coordinates */
            continue;
        }
        memcpy(msg, bufs, len);
        break;
    }
    /* Tell everybody: a later coordinator must hear of this decision. */
    for (int i = 0; i < n; i++)
        if (i != c->rank && !msg[(size_t)nw * 4 + (size_t)i])
            send_detached(msg, len, mpi_comm_peer_job_rank(c, i), agree_tag(c, seq, KIND_DECIDE),
                          ULFM_CTX_AGREE);
    memcpy(words, msg, (size_t)nw * 4);
    memcpy(failed, msg + (size_t)nw * 4, (size_t)n);
    /* The agreed failures are known here from now on (ULFM: what
     * MPIX_Comm_failure_ack acknowledges next), even those another member
     * saw first. */
    for (int i = 0; i < n; i++)
        if (failed[i] && i != c->rank)
            adi_peer_report_failed(mpi_comm_peer_job_rank(c, i),
                                   "another process reported it failed (MPIX_Comm_agree)");
out:
    free(msg);
    free(bufs);
    free(fl);
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

int PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    static const char fn[] = "MPIX_Comm_agree";
    mpi_comm_t *c = NULL;
    uint8_t *failed = NULL;
    uint32_t w;
    canal_status_t st;
    int err = mpi_enter(fn), un;

    if (err)
        return err;
    if ((err = check_ulfm_comm(comm, fn, &c)) != MPI_SUCCESS)
        return err;
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
#pragma weak MPIX_Comm_agree = PMPIX_Comm_agree

/* ---------------------------------------------------------------- shrink */
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char fn[] = "MPIX_Comm_shrink";
    mpi_comm_t *c = NULL, *nc = NULL;
    uint8_t *failed = NULL;
    uint32_t mask[SHRINK_MASK_WORDS];
    int *ranks = NULL, nw, context = -1, nsurv = 0;
    mpi_group_t *g = NULL;
    canal_status_t st;
    int err = mpi_enter(fn);

    if (err)
        return err;
    if ((err = check_ulfm_comm(comm, fn, &c)) != MPI_SUCCESS)
        return err;
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
#pragma weak MPIX_Comm_shrink = PMPIX_Comm_shrink

/* ---------------------------------------------------------------- acknowledgement */
int PMPIX_Comm_failure_ack(MPI_Comm comm)
{
    static const char fn[] = "MPIX_Comm_failure_ack";
    mpi_comm_t *c = NULL;
    canal_status_t st;
    int err = mpi_enter(fn);
    if (err)
        return err;
    if ((err = check_ulfm_comm(comm, fn, &c)) != MPI_SUCCESS)
        return err;
    if ((st = adi_ctx_failure_ack(c->context)) < 0)
        return mpi_err_status(c, st, fn);
    return MPI_SUCCESS;
}
#pragma weak MPIX_Comm_failure_ack = PMPIX_Comm_failure_ack

int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
    static const char fn[] = "MPIX_Comm_failure_get_acked";
    mpi_comm_t *c = NULL;
    mpi_group_t *g;
    int *ranks, k;
    int err = mpi_enter(fn);
    if (err)
        return err;
    if ((err = check_ulfm_comm(comm, fn, &c)) != MPI_SUCCESS)
        return err;
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
#pragma weak MPIX_Comm_failure_get_acked = PMPIX_Comm_failure_get_acked
