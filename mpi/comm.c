/*
 * Communicators (MPI 4.0 sections 7.4-7.6 and 7.8): construction (dup,
 * create, create_group, split, split_type, intercommunicators and their
 * merge), comparison, naming, hints, freeing, and the context ids every
 * communicator needs for its messages.
 *
 * Context ids. A communicator uses two device contexts: `context` for point
 * to point and `context + 1` for collectives, so ids are even. Each process
 * keeps a bitmask of free ids; the members of a new communicator agree on the
 * lowest id free at all of them by AND-reducing their masks. Communicators
 * whose groups are disjoint (the results of one split) may share an id: a
 * process only ever receives on it from members of its own group. Under
 * MPI_THREAD_MULTIPLE two threads may run agreements on different parents at
 * once, so an id chosen by the reduction is reserved under the mask's mutex
 * and a second AND-reduction confirms that every member got it; if not, the
 * members that got it release it and the agreement starts over, searching
 * from beyond the contested id (from a point that depends on the parent, so
 * that different parents tend to look in different places).
 *
 * The small collectives this needs (reduce, broadcast, allgather, leader
 * exchange for intercommunicators) are written here over adi_isend/adi_irecv
 * on the parent's collective context with reserved tags (comm_impl.h), so
 * that communicator construction does not depend on coll/.
 *
 * Called by the generated MPI_Comm_* / MPI_Intercomm_* entry points (the
 * mpi_*_impl functions below take their checked arguments), by mpi/topo.c
 * (Cartesian and graph constructors) and through mpiimpl.h by the layers
 * that need contexts of their own (mpi_comm_context_alloc).
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"
#include "dyn/dyn.h"
#include "common/proc.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- free hooks */
enum { MAX_FREE_HOOKS = 8 };
static void (*free_hooks[MAX_FREE_HOOKS])(mpi_comm_t *c);
static int nfree_hooks;

void mpi_comm_add_free_hook(void (*hook)(mpi_comm_t *c))
{
    if (nfree_hooks < MAX_FREE_HOOKS)
        free_hooks[nfree_hooks++] = hook;
}

/* ---------------------------------------------------------------- exchanges */
static int dom_job(const mpi_dom_t *d, int r)
{
    return d->job != NULL ? d->job[r] : r;
}
/* How this process, and local rank r, are named in the domain's messages. */
static int dom_me(const mpi_dom_t *d)
{
    return d->by_job ? dom_job(d, d->rank) : d->rank;
}
static int dom_src(const mpi_dom_t *d, int r)
{
    return d->by_job ? dom_job(d, r) : r;
}
static int dom_vrank(const mpi_dom_t *d)
{
    return (d->rank - d->root + d->size) % d->size;
}
static int dom_real(const mpi_dom_t *d, int v)
{
    return (v + d->root) % d->size;
}

/* Wait for r, check it, free it. */
static canal_status_t req_finish(adi_request_t *r, int is_recv, size_t expect)
{
    canal_status_t st = adi_wait(r);

    if (st >= 0 && r->status.error < 0)
        st = common_err_set(r->status.error,
                            "a message of the communicator construction failed (%s)",
                            common_status_name(r->status.error));
    else if (st >= 0 && is_recv && r->status.bytes != expect)
        st = common_err_set(CANAL_ERR_PROTO,
                            "communicator construction: expected %zu bytes from rank %d, got %zu "
                            "(mismatched collective calls?)",
                            expect, r->status.source, r->status.bytes);
    adi_request_free(r);
    return st;
}

static canal_status_t raw_isend(const void *buf, size_t len, int job, int myrank, int tag,
                                int context, adi_request_t **r)
{
    return adi_isend(buf, len, dt_builtin(DT_BYTE), job, myrank, tag, context, ADI_MODE_STANDARD,
                     r);
}

static canal_status_t raw_irecv(void *buf, size_t len, int src, int tag, int context,
                                adi_request_t **r)
{
    return adi_irecv(buf, len, dt_builtin(DT_BYTE), src, tag, context, r);
}

canal_status_t mpi_dom_send(const mpi_dom_t *d, int dest, const void *buf, size_t len)
{
    adi_request_t *r;
    canal_status_t st = raw_isend(buf, len, dom_job(d, dest), dom_me(d), d->tag, d->context, &r);
    return st < 0 ? st : req_finish(r, 0, 0);
}

canal_status_t mpi_dom_recv(const mpi_dom_t *d, int src, void *buf, size_t len)
{
    adi_request_t *r;
    canal_status_t st = raw_irecv(buf, len, dom_src(d, src), d->tag, d->context, &r);
    return st < 0 ? st : req_finish(r, 1, len);
}

/* Binomial tree rooted at d->root. */
canal_status_t mpi_dom_bcast(const mpi_dom_t *d, void *buf, size_t len)
{
    int v = dom_vrank(d), mask = 1;
    canal_status_t st;

    while (mask < d->size) {
        if (v & mask) {
            if ((st = mpi_dom_recv(d, dom_real(d, v - mask), buf, len)) < 0)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < d->size && (st = mpi_dom_send(d, dom_real(d, v + mask), buf, len)) < 0)
            return st;
    return CANAL_OK;
}

static canal_status_t dom_reduce_band(const mpi_dom_t *d, uint32_t *words, int n)
{
    int v = dom_vrank(d);
    uint32_t *tmp = malloc(sizeof *tmp * (size_t)n);
    canal_status_t st = CANAL_OK;

    if (tmp == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a context-id reduction");
    for (int mask = 1; mask < d->size; mask <<= 1) {
        if (v & mask) {
            st = mpi_dom_send(d, dom_real(d, v - mask), words, sizeof *words * (size_t)n);
            break;
        }
        if (v + mask < d->size) {
            st = mpi_dom_recv(d, dom_real(d, v + mask), tmp, sizeof *tmp * (size_t)n);
            if (st < 0)
                break;
            for (int i = 0; i < n; i++)
                words[i] &= tmp[i];
        }
    }
    free(tmp);
    return st;
}

/* Send len bytes and receive len bytes with one peer, both posted at once. */
static canal_status_t pair_exchange(const void *sbuf, void *rbuf, size_t len, int src, int dest_job,
                                    int me, int tag, int context)
{
    adi_request_t *rs, *rr;
    canal_status_t st, st2;

    st = raw_irecv(rbuf, len, src, tag, context, &rr);
    if (st < 0)
        return st;
    st = raw_isend(sbuf, len, dest_job, me, tag, context, &rs);
    if (st < 0) {
        adi_cancel(rr);
        req_finish(rr, 1, len);
        return st;
    }
    st = req_finish(rs, 0, 0);
    st2 = req_finish(rr, 1, len);
    return st < 0 ? st : st2;
}

/* The root and the peer root exchange equal-sized buffers. */
static canal_status_t bridge_sendrecv(const mpi_dom_t *d, const void *sbuf, void *rbuf, size_t len)
{
    return pair_exchange(sbuf, rbuf, len, d->b_peer_rank, d->b_peer_job, d->b_my_rank, d->b_tag,
                         d->b_context);
}

/* Exchange n words with domain rank peer (both post at once). */
static canal_status_t dom_exchange(const mpi_dom_t *d, int peer, const uint32_t *mine,
                                   uint32_t *theirs, int n)
{
    return pair_exchange(mine, theirs, sizeof *mine * (size_t)n, dom_src(d, peer), dom_job(d, peer),
                         dom_me(d), d->tag, d->context);
}

/* Recursive doubling, for a domain that is not bridged: log2(size) message
 * latencies instead of the 2 log2(size) of a reduction and a broadcast (a
 * 2-rank agreement is one exchange, not a message there and one back; on a
 * machine where each wake-up costs, that is half the waiting). Ranks past
 * the largest power of two give their words to a partner below it first and
 * take the result from it at the end. Every member posts its receives in
 * the same order of phases, and receives from one partner once per phase,
 * so messages of consecutive phases cannot be mismatched. */
static canal_status_t dom_allreduce_band_rd(const mpi_dom_t *d, uint32_t *words, int n)
{
    int v = d->rank, p2 = 1;
    uint32_t *tmp = malloc(sizeof *tmp * (size_t)n);
    canal_status_t st = CANAL_OK;

    if (tmp == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a context-id reduction");
    while (p2 * 2 <= d->size)
        p2 *= 2;
    if (v >= p2) {
        st = mpi_dom_send(d, v - p2, words, sizeof *words * (size_t)n);
        if (st >= 0)
            st = mpi_dom_recv(d, v - p2, words, sizeof *words * (size_t)n);
        goto out;
    }
    if (v + p2 < d->size) {
        if ((st = mpi_dom_recv(d, v + p2, tmp, sizeof *tmp * (size_t)n)) < 0)
            goto out;
        for (int i = 0; i < n; i++)
            words[i] &= tmp[i];
    }
    for (int mask = 1; mask < p2; mask <<= 1) {
        if ((st = dom_exchange(d, v ^ mask, words, tmp, n)) < 0)
            goto out;
        for (int i = 0; i < n; i++)
            words[i] &= tmp[i];
    }
    if (v + p2 < d->size)
        st = mpi_dom_send(d, v + p2, words, sizeof *words * (size_t)n);
out:
    free(tmp);
    return st;
}

canal_status_t mpi_dom_allreduce_band(const mpi_dom_t *d, uint32_t *words, int n)
{
    canal_status_t st;

    if (!d->bridged)
        return dom_allreduce_band_rd(d, words, n);
    st = dom_reduce_band(d, words, n);

    if (st < 0)
        return st;
    if (d->bridged && d->rank == d->root) {
        uint32_t *theirs = malloc(sizeof *theirs * (size_t)n);
        if (theirs == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for a context-id reduction");
        st = bridge_sendrecv(d, words, theirs, sizeof *words * (size_t)n);
        for (int i = 0; i < n && st >= 0; i++)
            words[i] &= theirs[i];
        free(theirs);
        if (st < 0)
            return st;
    }
    return mpi_dom_bcast(d, words, sizeof *words * (size_t)n);
}

canal_status_t mpi_dom_allgather(const mpi_dom_t *d, const void *mine, void *all, size_t len)
{
    canal_status_t st = CANAL_OK;

    memcpy((char *)all + (size_t)d->rank * len, mine, len);
    if (d->rank == d->root) {
        for (int r = 0; r < d->size && st >= 0; r++)
            if (r != d->root)
                st = mpi_dom_recv(d, r, (char *)all + (size_t)r * len, len);
    } else {
        st = mpi_dom_send(d, d->root, mine, len);
    }
    if (st < 0)
        return st;
    return mpi_dom_bcast(d, all, len * (size_t)d->size);
}

canal_status_t mpi_dom_alltoallv(const mpi_dom_t *d, const void *sbuf, const size_t *scounts,
                                 const size_t *sdispls, void *rbuf, const size_t *rcounts,
                                 const size_t *rdispls)
{
    adi_request_t **reqs = calloc((size_t)d->size * 2, sizeof *reqs);
    size_t *expect = calloc((size_t)d->size * 2, sizeof *expect); /* 0: a send */
    canal_status_t st = CANAL_OK, st2;
    int nr = 0;

    if (reqs == NULL || expect == NULL) {
        free(reqs);
        free(expect);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a topology exchange");
    }
    if (rcounts[d->rank] > 0)
        memcpy((char *)rbuf + rdispls[d->rank], (const char *)sbuf + sdispls[d->rank],
               rcounts[d->rank]);
    for (int p = 0; p < d->size && st >= 0; p++)
        if (p != d->rank && rcounts[p] > 0) {
            st = raw_irecv((char *)rbuf + rdispls[p], rcounts[p], dom_src(d, p), d->tag, d->context,
                           &reqs[nr]);
            if (st >= 0)
                expect[nr++] = rcounts[p];
        }
    for (int p = 0; p < d->size && st >= 0; p++)
        if (p != d->rank && scounts[p] > 0) {
            st = raw_isend((const char *)sbuf + sdispls[p], scounts[p], dom_job(d, p), dom_me(d),
                           d->tag, d->context, &reqs[nr]);
            if (st >= 0)
                expect[nr++] = 0;
        }
    for (int i = 0; i < nr; i++) {
        if (st < 0 && expect[i] > 0)
            adi_cancel(reqs[i]);
        st2 = req_finish(reqs[i], expect[i] > 0 && st >= 0, expect[i]);
        if (st >= 0)
            st = st2;
    }
    free(reqs);
    free(expect);
    return st;
}

canal_status_t mpi_dom_bridge_swap(const mpi_dom_t *d, const void *mine, size_t mylen,
                                   void **theirs_out, size_t *theirlen_out)
{
    uint64_t lens[2] = {mylen, 0};
    void *theirs = NULL;
    canal_status_t st = CANAL_OK;

    if (d->rank == d->root) {
        st = bridge_sendrecv(d, &lens[0], &lens[1], sizeof lens[0]);
        if (st >= 0) {
            theirs = malloc(lens[1] ? lens[1] : 1);
            if (theirs == NULL)
                st = common_err_set(CANAL_ERR_NOMEM,
                                    "no memory for %llu bytes from the remote "
                                    "group",
                                    (unsigned long long)lens[1]);
        }
        /* Both sizes are known, so each side sends and receives exactly. */
        if (st >= 0) {
            adi_request_t *rs, *rr;
            st = raw_irecv(theirs, lens[1], d->b_peer_rank, d->b_tag, d->b_context, &rr);
            if (st >= 0) {
                canal_status_t st2;
                st = raw_isend(mine, mylen, d->b_peer_job, d->b_my_rank, d->b_tag, d->b_context,
                               &rs);
                if (st >= 0)
                    st = req_finish(rs, 0, 0);
                else
                    adi_cancel(rr);
                st2 = req_finish(rr, st >= 0, lens[1]);
                if (st >= 0)
                    st = st2;
            }
        }
        if (st < 0)
            lens[1] = UINT64_MAX; /* tell the local group it failed */
    }
    if (mpi_dom_bcast(d, &lens[1], sizeof lens[1]) < 0 && st >= 0)
        st = common_err_set(CANAL_ERR_PEER, "broadcast of the remote group failed");
    if (lens[1] == UINT64_MAX) {
        free(theirs);
        return st < 0
                   ? st
                   : common_err_set(CANAL_ERR_REMOTE, "the leader of this group failed "
                                                    "(bad arguments at the leader, or it could not "
                                                    "reach the remote group)");
    }
    if (d->rank != d->root) {
        theirs = malloc(lens[1] ? lens[1] : 1);
        if (theirs == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for the remote group");
    }
    if ((st = mpi_dom_bcast(d, theirs, lens[1])) < 0) {
        free(theirs);
        return st;
    }
    *theirs_out = theirs;
    *theirlen_out = lens[1];
    return CANAL_OK;
}

void mpi_dom_of_comm(mpi_comm_t *c, int tag, mpi_dom_t *d)
{
    memset(d, 0, sizeof *d);
    d->tag = tag;
    if (!c->is_inter) {
        d->rank = c->rank;
        d->size = c->size;
        d->job = c->local_job_ranks;
        d->context = c->context + 1;
        return;
    }
    d->rank = c->local_comm->rank;
    d->size = c->local_comm->size;
    d->job = c->local_comm->local_job_ranks;
    d->context = c->local_comm->context + 1;
    d->bridged = 1;
    d->b_context = c->context + 1;
    d->b_tag = tag;
    d->b_my_rank = 0;
    d->b_peer_rank = 0;
    d->b_peer_job = mpi_comm_peer_job_rank(c, 0);
}

/* ---------------------------------------------------------------- context ids */
enum { CTX_PAIRS = 4096, CTX_WORDS = CTX_PAIRS / 32 };

static uint32_t ctx_free_mask[CTX_WORDS]; /* bit set: the pair (2i, 2i+1) is free */
static int ctx_mask_ready;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static void ctx_mask_init_locked(void)
{
    if (ctx_mask_ready)
        return;
    memset(ctx_free_mask, 0xff, sizeof ctx_free_mask);
    ctx_free_mask[0] &= ~3u; /* 0: MPI_COMM_WORLD, 2: MPI_COMM_SELF */
    ctx_mask_ready = 1;
}

static void ctx_quarantine_sweep_locked(void);

static int ctx_find(const uint32_t *mask, int start)
{
    for (int k = 0; k < CTX_PAIRS; k++) {
        int b = (start + k) % CTX_PAIRS;
        if (mask[b / 32] & (1u << (b % 32)))
            return b;
    }
    return -1;
}

/* MPI_Comm_idup agreements under way in this process (they take bits from a
 * progress hook, which may run in another thread). */
static int ctx_idups_pending;

int mpi_comm_context_agree(const mpi_dom_t *d, int *context_out)
{
    /* The free mask, then one word for where the search starts and whether
     * the bit must be verified. */
    uint32_t mask[CTX_WORDS + 1];
    /* The verification round (did every member get the bit?) is needed when
     * other threads or a pending MPI_Comm_idup (which takes its bit from a
     * progress hook) may take bits on some member during the agreement.
     * That differs between processes, and all members must run the same
     * rounds: a member that needs it clears the top bit of the last word,
     * and the AND tells everybody. Without it a construction is one
     * reduction instead of two (MPICH's comm/ctxalloc: 200,000 MPI_Comm_dup). */
    int may_change = mpi_thread_level == MPI_THREAD_MULTIPLE ||
                     __atomic_load_n(&ctx_idups_pending, __ATOMIC_ACQUIRE) > 0;
    int verify;
    /* With threads, agreements on different communicators start their
     * search at different bits (a hash of the local context), so that
     * concurrent ones rarely want the same bit. The start must be the same
     * on every member, and a bridged domain joins two groups whose local
     * contexts, and even thread levels, may differ (a parent's
     * MPI_COMM_SELF and its children's MPI_COMM_WORLD; a threaded parent
     * and unthreaded children): so each member contributes its hash (0
     * without threads) to the reduction, complemented, and everybody
     * starts at the OR of them all. */
    uint32_t hash = mpi_thread_level == MPI_THREAD_MULTIPLE
                        ? (uint32_t)((unsigned)d->context * 2654435761u) % CTX_PAIRS
                        : 0;
    int start = 0, first = 1;
    canal_status_t st;

    for (;;) {
        uint32_t flag;
        int bit, got;

        pthread_mutex_lock(&ctx_lock);
        ctx_mask_init_locked();
        ctx_quarantine_sweep_locked();
        memcpy(mask, ctx_free_mask, sizeof ctx_free_mask);
        pthread_mutex_unlock(&ctx_lock);
        mask[CTX_WORDS] = ~hash & (may_change ? 0x7fffffffu : 0xffffffffu);
        if ((st = mpi_dom_allreduce_band(d, mask, CTX_WORDS + 1)) < 0)
            return st;
        verify = !(mask[CTX_WORDS] >> 31);
        if (first)
            start = (int)((~mask[CTX_WORDS] & 0x7fffffffu) % CTX_PAIRS);
        first = 0;
        bit = ctx_find(mask, start);
        if (bit < 0)
            return common_err_set(CANAL_ERR_LIMIT,
                                  "too many communicators: all %d context ids are in use by "
                                  "communicators (and windows) not yet freed, or by receives "
                                  "still posted on freed ones",
                                  CTX_PAIRS);
        pthread_mutex_lock(&ctx_lock);
        got = (ctx_free_mask[bit / 32] >> (bit % 32)) & 1u;
        if (got)
            ctx_free_mask[bit / 32] &= ~(1u << (bit % 32));
        pthread_mutex_unlock(&ctx_lock);
        if (!verify) {
            if (!got)
                return common_err_set(CANAL_ERR_INTERN,
                                      "context id %d was taken during its agreement although "
                                      "MPI is not in MPI_THREAD_MULTIPLE",
                                      2 * bit);
            *context_out = 2 * bit;
            return CANAL_OK;
        }
        flag = got ? 1u : 0u;
        if ((st = mpi_dom_allreduce_band(d, &flag, 1)) < 0) {
            if (got)
                mpi_comm_context_free(2 * bit);
            return st;
        }
        if (flag) {
            *context_out = 2 * bit;
            return CANAL_OK;
        }
        if (got)
            mpi_comm_context_free(2 * bit);
        start = bit + 1; /* another thread holds it somewhere: look further */
    }
}

int mpi_comm_context_alloc(mpi_comm_t *parent, int *context_out)
{
    mpi_dom_t d;
    mpi_dom_of_comm(parent, MPI_TAG_CTX_AGREE, &d);
    return mpi_comm_context_agree(&d, context_out);
}

/* For MPIX_Comm_shrink (mpi/ulfm.c), which agrees on a context with its
 * fault-tolerant agreement instead of mpi_dom_allreduce_band: the free
 * pairs now (bit i: contexts 2i, 2i+1), and taking one of them. */
int mpi_comm_context_snapshot(uint32_t *mask, int words)
{
    if (words < CTX_WORDS)
        return -1;
    pthread_mutex_lock(&ctx_lock);
    ctx_mask_init_locked();
    ctx_quarantine_sweep_locked();
    memcpy(mask, ctx_free_mask, sizeof ctx_free_mask);
    pthread_mutex_unlock(&ctx_lock);
    return CTX_WORDS;
}

int mpi_comm_context_take(int context)
{
    int bit = context / 2, got;
    if (context < 4 || bit >= CTX_PAIRS)
        return 0;
    pthread_mutex_lock(&ctx_lock);
    got = (ctx_free_mask[bit / 32] >> (bit % 32)) & 1u;
    if (got)
        ctx_free_mask[bit / 32] &= ~(1u << (bit % 32));
    pthread_mutex_unlock(&ctx_lock);
    return got;
}

/* Context pairs of freed communicators on which receives are still posted
 * (the standard lets pending operations complete after MPI_Comm_free): they
 * go back to the free mask only once the device says nothing waits on them,
 * checked whenever ids are handed out, so a new communicator never shares
 * ids with receives of a freed one. */
static uint32_t ctx_quarantine[CTX_WORDS];
static int nquarantined;

static int ctx_pair_idle(int bit)
{
    return adi_ctx_idle(2 * bit) && adi_ctx_idle(2 * bit + 1);
}

static void ctx_quarantine_sweep_locked(void)
{
    for (int b = 0; nquarantined > 0 && b < CTX_PAIRS; b++)
        if ((ctx_quarantine[b / 32] & (1u << (b % 32))) && ctx_pair_idle(b)) {
            ctx_quarantine[b / 32] &= ~(1u << (b % 32));
            ctx_free_mask[b / 32] |= 1u << (b % 32);
            nquarantined--;
        }
}

void mpi_comm_context_free(int context)
{
    int bit = context / 2;
    if (context < 4 || bit >= CTX_PAIRS)
        return; /* the predefined communicators keep theirs */
    pthread_mutex_lock(&ctx_lock);
    if (ctx_pair_idle(bit)) {
        ctx_free_mask[bit / 32] |= 1u << (bit % 32);
    } else if (!(ctx_quarantine[bit / 32] & (1u << (bit % 32)))) {
        ctx_quarantine[bit / 32] |= 1u << (bit % 32);
        nquarantined++;
    }
    pthread_mutex_unlock(&ctx_lock);
}

/* ---------------------------------------------------------------- objects */
static pthread_mutex_t comm_group_lock = PTHREAD_MUTEX_INITIALIZER;

static mpi_comm_t *comm_alloc(mpi_comm_t *parent)
{
    mpi_comm_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->refcount = 1;
    c->context = -1;
    c->errhandler = parent != NULL ? parent->errhandler : MPI_ERRORS_ARE_FATAL;
    c->errh_default = parent != NULL ? parent->errh_default : 1;
    c->session = parent != NULL ? parent->session : 0;
    mpi_errhandler_retain(c->errhandler, MPI_OBJ_COMM);
    c->info = MPI_INFO_NULL;
    /* Memory allocation kinds: the parent's when they were set (none: the
     * world's, which get_info reports). */
    if (parent != NULL && mpi_memkinds_of(parent->info) != NULL &&
        (mpi_info_new(&c->info) != MPI_SUCCESS ||
         mpi_memkinds_put(c->info, mpi_memkinds_of(parent->info), MPI_INFO_NULL) != MPI_SUCCESS)) {
        if (c->info != MPI_INFO_NULL)
            mpi_info_release(c->info);
        mpi_errhandler_release(c->errhandler);
        free(c);
        return NULL;
    }
    return c;
}

void mpi_comm_destroy(mpi_comm_t *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < nfree_hooks; i++)
        free_hooks[i](c);
    if (c->local_comm != NULL)
        mpi_comm_destroy(c->local_comm);
    if (c->context >= 0)
        mpi_comm_context_free(c->context);
    if (c->is_inter)
        free(c->peer_job_ranks);
    free(c->local_job_ranks);
    mpi_group_release(c->group);
    mpi_group_release(c->remote_group);
    mpi_errhandler_release(c->errhandler);
    if (c->info != MPI_INFO_NULL)
        mpi_info_release(c->info);
    mpi_topo_free(c->topo);
    if (c->handle != 0)
        mpi_handle_del(MPI_OBJ_COMM, c->handle);
    free(c);
}

void mpi_comm_retain(mpi_comm_t *c)
{
    __atomic_add_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL);
}

void mpi_comm_release(mpi_comm_t *c)
{
    if (__atomic_sub_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        mpi_comm_destroy(c);
}

static int comm_register(mpi_comm_t *c)
{
    c->handle = mpi_handle_new(MPI_OBJ_COMM, c);
    return c->handle != 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int mpi_comm_new_intra(mpi_comm_t *parent, int context, mpi_group_t *g, mpi_comm_t **out)
{
    int identity;
    mpi_comm_t *c = comm_alloc(parent);

    if (c == NULL)
        return MPI_ERR_NO_MEM;
    c->local_job_ranks = mpi_group_job_array(g, mpi_pmi.size, &identity);
    if (c->local_job_ranks == NULL && !identity) {
        mpi_comm_destroy(c);
        return MPI_ERR_NO_MEM;
    }
    c->peer_job_ranks = c->local_job_ranks;
    c->size = c->peer_size = g->size;
    c->rank = g->rank;
    mpi_group_retain(g);
    c->group = g;
    /* The device learns who the ranks are, to fail receives from a peer it loses. */
    if (comm_register(c) != MPI_SUCCESS ||
        adi_ctx_set_ranks(context, c->size, c->local_job_ranks) != CANAL_OK ||
        adi_ctx_set_ranks(context + 1, c->size, c->local_job_ranks) != CANAL_OK) {
        mpi_comm_destroy(c);
        return MPI_ERR_NO_MEM;
    }
    c->context = context; /* only now: on failure the caller frees it */
    *out = c;
    return MPI_SUCCESS;
}

/* An intercommunicator with context `context` and a local communicator for
 * collectives with `local_context`; this process is a member of lg. */
static int comm_new_inter(mpi_comm_t *parent, int context, mpi_group_t *lg, mpi_group_t *rg,
                          int local_context, mpi_comm_t **out)
{
    int lid, rid, err;
    mpi_comm_t *c = comm_alloc(parent);

    if (c == NULL)
        return MPI_ERR_NO_MEM;
    c->is_inter = 1;
    /* NULL is the identity: one group may be all of MPI_COMM_WORLD when
     * the other is of another job (dyn/). */
    c->local_job_ranks = mpi_group_job_array(lg, mpi_pmi.size, &lid);
    c->peer_job_ranks = mpi_group_job_array(rg, mpi_pmi.size, &rid);
    if ((c->local_job_ranks == NULL && !lid) || (c->peer_job_ranks == NULL && !rid)) {
        mpi_comm_destroy(c);
        return MPI_ERR_NO_MEM;
    }
    c->size = lg->size;
    c->rank = lg->rank;
    c->peer_size = rg->size;
    mpi_group_retain(lg);
    c->group = lg;
    mpi_group_retain(rg);
    c->remote_group = rg;
    if ((err = mpi_comm_new_intra(parent, local_context, lg, &c->local_comm)) != MPI_SUCCESS ||
        comm_register(c) != MPI_SUCCESS ||
        adi_ctx_set_ranks(context, c->peer_size, c->peer_job_ranks) != CANAL_OK ||
        adi_ctx_set_ranks(context + 1, c->peer_size, c->peer_job_ranks) != CANAL_OK) {
        if (c->local_comm != NULL)
            c->local_comm->context = -1; /* the caller frees both contexts */
        mpi_comm_destroy(c);
        return MPI_ERR_NO_MEM;
    }
    c->context = context;
    *out = c;
    return MPI_SUCCESS;
}

/* For dyn/, whose remote group comes from another job. */
int mpi_comm_new_inter(mpi_comm_t *parent, int context, mpi_group_t *lg, mpi_group_t *rg,
                       int local_context, mpi_comm_t **out)
{
    return comm_new_inter(parent, context, lg, rg, local_context, out);
}

mpi_group_t *mpi_comm_local_group(mpi_comm_t *c)
{
    pthread_mutex_lock(&comm_group_lock);
    if (c->group == NULL)
        c->group = c->local_job_ranks != NULL ? mpi_group_new_list(c->local_job_ranks, c->size)
                                              : mpi_group_new_stride(0, 1, c->size);
    pthread_mutex_unlock(&comm_group_lock);
    return c->group;
}

mpi_group_t *mpi_comm_remote_group(mpi_comm_t *c)
{
    pthread_mutex_lock(&comm_group_lock);
    if (c->remote_group == NULL)
        c->remote_group = c->peer_job_ranks != NULL
                              ? mpi_group_new_list(c->peer_job_ranks, c->peer_size)
                              : mpi_group_new_stride(0, 1, c->peer_size);
    pthread_mutex_unlock(&comm_group_lock);
    return c->remote_group;
}

/* ---------------------------------------------------------------- hints */
/* The communicator hints Canal knows (MPI 4.0 section 7.4.4); all boolean
 * with default "false". Hints not in this table are ignored and are not
 * returned by MPI_Comm_get_info, as MPI 4.0 asks. */
static const char *const comm_hints[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};
enum { NHINTS = sizeof comm_hints / sizeof comm_hints[0] };

static int comm_put_hint(mpi_comm_t *c, const char *key, const char *value)
{
    int err;
    if (c->info == MPI_INFO_NULL && (err = mpi_info_new(&c->info)) != MPI_SUCCESS)
        return err;
    return mpi_info_put(c->info, key, value);
}

/* The hints of info (and, when `creating` the communicator, its memory
 * allocation kinds: MPI_Comm_set_info cannot change those). */
static int comm_apply_hints(mpi_comm_t *c, MPI_Info info, int creating)
{
    int err;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (creating && mpi_memkinds_of(info) != NULL &&
        ((c->info == MPI_INFO_NULL && (err = mpi_info_new(&c->info)) != MPI_SUCCESS) ||
         (err = mpi_memkinds_put(c->info, NULL, info)) != MPI_SUCCESS))
        return err;
    for (int i = 0; i < NHINTS; i++) {
        const char *v = mpi_info_lookup(info, comm_hints[i]);
        if (v != NULL && (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) &&
            (err = comm_put_hint(c, comm_hints[i], v)) != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* A communicator made from a session's group reports that session's memory
 * allocation kinds. */
static int comm_session_kinds(mpi_comm_t *c, MPI_Session session)
{
    const char *v = session != 0 ? mpi_session_memkinds(session) : NULL;
    int err;

    if (v == NULL)
        return MPI_SUCCESS;
    if (c->info == MPI_INFO_NULL && (err = mpi_info_new(&c->info)) != MPI_SUCCESS)
        return err;
    return mpi_memkinds_put(c->info, v, MPI_INFO_NULL);
}

/* ---------------------------------------------------------------- checks */
static int check_intra(mpi_comm_t *c, const char *fn)
{
    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn,
                            "comm=%#x is an intercommunicator; an intracommunicator is required",
                            (unsigned)c->handle);
    return MPI_SUCCESS;
}

static int raise_create(mpi_comm_t *c, int err, const char *fn)
{
    return mpi_err_fail(c, err, fn, "out of memory for the new communicator");
}

/* ---------------------------------------------------------------- dup */
/* Build the duplicate of c once its context ids are agreed (ctx, and lctx
 * for the local communicator of an intercommunicator). Returns an MPI error
 * class, raising nothing (the nonblocking path reports through its request)
 * and setting *why; on failure the contexts are released. */
static int comm_dup_build(mpi_comm_t *c, int ctx, int lctx, int use_info, MPI_Info info,
                          mpi_comm_t **out, const char **why)
{
    mpi_comm_t *n = NULL;
    int err;

    if (c->is_inter)
        err = comm_new_inter(c, ctx, mpi_comm_local_group(c), mpi_comm_remote_group(c), lctx, &n);
    else
        err = mpi_comm_new_intra(c, ctx, mpi_comm_local_group(c), &n);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
        *why = "out of memory for the new communicator";
        return err;
    }
    /* MPI_Comm_dup/idup pass on no hints, only the memory allocation kinds
     * (mpi_comm_new_intra takes those from c): MPI 4.0, and MPICH 4.0.2's
     * impls/mpich/comm/comm_dup. The _with_info forms take info's. */
    err = use_info ? comm_apply_hints(n, info, 1) : MPI_SUCCESS;
    if (err != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        *why = "out of memory for the hints";
        return err;
    }
    if (c->topo != NULL && (n->topo = mpi_topo_dup(c->topo)) == NULL) {
        mpi_comm_destroy(n);
        *why = "out of memory for the topology";
        return MPI_ERR_NO_MEM;
    }
    err = mpi_attr_dup_all(MPI_OBJ_COMM, c->handle, c->attrs, &n->attrs);
    if (err != MPI_SUCCESS) {
        mpi_attr_delete_all(MPI_OBJ_COMM, n->handle, &n->attrs);
        mpi_comm_destroy(n);
        *why = "an attribute copy callback failed";
        return err;
    }
    *out = n;
    return MPI_SUCCESS;
}

/* comm_dup_impl's work, raising nothing: MPI_SUCCESS, or an error: the
 * context agreement's status in *st (< 0), else an MPI error class or an
 * attribute copy callback's code, with *why. */
static int comm_dup_core(mpi_comm_t *c, int use_info, MPI_Info info, mpi_comm_t **out,
                         canal_status_t *st, const char **why)
{
    mpi_dom_t d;
    int ctx, lctx = -1;

    /* Build the groups first: running out of memory then costs no agreement. */
    if (mpi_comm_local_group(c) == NULL || (c->is_inter && mpi_comm_remote_group(c) == NULL)) {
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    mpi_dom_of_comm(c, MPI_TAG_CTX_AGREE, &d);
    if ((*st = mpi_comm_context_agree(&d, &ctx)) < 0)
        return mpi_err_class_of_status(*st);
    if (c->is_inter) {
        mpi_dom_of_comm(c->local_comm, MPI_TAG_CTX_AGREE, &d);
        if ((*st = mpi_comm_context_agree(&d, &lctx)) < 0) {
            mpi_comm_context_free(ctx);
            return mpi_err_class_of_status(*st);
        }
    }
    return comm_dup_build(c, ctx, lctx, use_info, info, out, why);
}

static int comm_dup_impl(mpi_comm_t *c, int use_info, MPI_Info info, mpi_comm_t **out,
                         const char *fn)
{
    const char *why = NULL;
    canal_status_t st = CANAL_OK;
    int err = comm_dup_core(c, use_info, info, out, &st, &why);

    if (err == MPI_SUCCESS)
        return err;
    if (st < 0)
        return mpi_err_fail_status(c, st, fn);
    if (err == MPI_ERR_NO_MEM || err == MPI_ERR_INTERN)
        return mpi_err_fail(c, err, fn, "%s", why);
    return mpi_err_fail_code(c, err, fn);
}

int mpi_comm_dup_quiet(mpi_comm_t *c, mpi_comm_t **out, const char **why)
{
    canal_status_t st = CANAL_OK;
    int err = comm_dup_core(c, 0, MPI_INFO_NULL, out, &st, why);

    if (st < 0)
        *why = common_err_detail();
    else if (err != MPI_SUCCESS && err != MPI_ERR_NO_MEM && err != MPI_ERR_INTERN)
        err = MPI_ERR_OTHER; /* an attribute copy callback's code: *why says so */
    return err;
}

/* ---------------------------------------------------------------- idup */
/* MPI_Comm_idup and MPI_Comm_idup_with_info make progress without the
 * caller: the context-id agreement of comm_dup_impl is split into steps
 * (a binomial AND-reduction, the bridge between the roots of an
 * intercommunicator, a binomial broadcast, then the same for the
 * verification flag) that a progress hook advances whenever anybody
 * progresses the device. Each idup uses its own tag on the parent's
 * collective context, numbered by a per-communicator sequence that agrees
 * across processes because idups of one communicator are ordered like all
 * its collectives; so several idups, blocking constructors and user
 * collectives can overlap. The new communicator is built from the hook and
 * *newcomm is written when the request completes. */
enum { IDUP_TAG_BASE = 0x3ffff000, IDUP_TAG_MASK = 0x7ff };

/* A bitwise-AND allreduce over a domain, advanced by nb_band_step(). */
typedef struct {
    const mpi_dom_t *d;
    uint32_t *words, *tmp;
    int n, phase, and_pending, nr;
    adi_request_t *r[34];
} nb_band_t;

enum { NB_REDUCE, NB_BRIDGE, NB_BCAST_RECV, NB_BCAST_SEND, NB_DONE };

static void nb_band_init(nb_band_t *a, const mpi_dom_t *d, uint32_t *words, uint32_t *tmp, int n)
{
    memset(a, 0, sizeof *a);
    a->d = d;
    a->words = words;
    a->tmp = tmp;
    a->n = n;
    a->phase = NB_REDUCE;
}

/* 1 done, 0 not yet, < 0 error (requests all finished). */
static canal_status_t nb_band_step(nb_band_t *a, int *mask_io)
{
    const mpi_dom_t *d = a->d;
    size_t len = sizeof *a->words * (size_t)a->n;
    int v = dom_vrank(d), mask = *mask_io;
    canal_status_t st = CANAL_OK;

again:
    for (int i = 0; i < a->nr; i++)
        if (!__atomic_load_n(&a->r[i]->done, __ATOMIC_ACQUIRE))
            return 0;
    for (int i = 0; i < a->nr; i++) {
        adi_request_t *r = a->r[i];
        if (st >= 0 && r->status.error < 0)
            st = common_err_set(r->status.error, "a message of MPI_Comm_idup failed (%s)",
                                common_status_name(r->status.error));
        adi_request_free(r);
    }
    a->nr = 0;
    if (st < 0)
        return st;
    if (a->and_pending) {
        for (int i = 0; i < a->n; i++)
            a->words[i] &= a->tmp[i];
        a->and_pending = 0;
    }
    switch (a->phase) {
    case NB_REDUCE:
        for (; mask < d->size; mask <<= 1) {
            if (v & mask) {
                st = raw_isend(a->words, len, dom_job(d, dom_real(d, v - mask)), dom_me(d), d->tag,
                               d->context, &a->r[a->nr]);
                a->nr += st >= 0;
                a->phase = NB_BCAST_RECV;
                break;
            }
            if (v + mask < d->size) {
                st = raw_irecv(a->tmp, len, dom_src(d, dom_real(d, v + mask)), d->tag, d->context,
                               &a->r[a->nr]);
                a->nr += st >= 0;
                a->and_pending = 1;
                mask <<= 1;
                break;
            }
        }
        if (mask >= d->size && a->phase == NB_REDUCE)
            a->phase = NB_BRIDGE;
        break;
    case NB_BRIDGE:
        a->phase = NB_BCAST_RECV;
        if (d->bridged && d->rank == d->root) {
            st = raw_irecv(a->tmp, len, d->b_peer_rank, d->b_tag, d->b_context, &a->r[a->nr]);
            a->nr += st >= 0;
            if (st >= 0) {
                st = raw_isend(a->words, len, d->b_peer_job, d->b_my_rank, d->b_tag, d->b_context,
                               &a->r[a->nr]);
                a->nr += st >= 0;
            }
            a->and_pending = 1;
            break;
        }
        /* fall through */
    case NB_BCAST_RECV:
        a->phase = NB_BCAST_SEND;
        if (v != 0) {
            int low = v & -v;
            st = raw_irecv(a->words, len, dom_src(d, dom_real(d, v - low)), d->tag, d->context,
                           &a->r[a->nr]);
            a->nr += st >= 0;
            break;
        }
        /* fall through */
    case NB_BCAST_SEND: {
        int top = 1;
        if (v != 0)
            top = v & -v;
        else
            while (top < d->size)
                top <<= 1;
        for (int m = top >> 1; m > 0 && st >= 0; m >>= 1)
            if (v + m < d->size) {
                st = raw_isend(a->words, len, dom_job(d, dom_real(d, v + m)), dom_me(d), d->tag,
                               d->context, &a->r[a->nr]);
                a->nr += st >= 0;
            }
        a->phase = NB_DONE;
        break;
    }
    default:
        return 1;
    }
    *mask_io = mask;
    if (st < 0) {
        /* This runs inside progress: no waiting here. Receives are
         * cancelled; whatever is still in flight is freed by the device
         * when it completes. */
        for (int i = 0; i < a->nr; i++) {
            adi_cancel(a->r[i]);
            if (__atomic_load_n(&a->r[i]->done, __ATOMIC_ACQUIRE))
                adi_request_free(a->r[i]);
            else
                a->r[i]->user_freed = 1;
        }
        a->nr = 0;
        return st;
    }
    goto again; /* as far as it goes without waiting */
}

/* One context-id agreement (mask round, then verification round). */
typedef struct {
    mpi_dom_t d;
    uint32_t mask[CTX_WORDS], tmp[CTX_WORDS], flag, ftmp;
    nb_band_t ar;
    int round_mask; /* the binomial cursor of ar */
    int verifying, bit, got, start;
} nb_agree_t;

static void nb_agree_round(nb_agree_t *g)
{
    pthread_mutex_lock(&ctx_lock);
    ctx_mask_init_locked();
    ctx_quarantine_sweep_locked();
    memcpy(g->mask, ctx_free_mask, sizeof g->mask);
    pthread_mutex_unlock(&ctx_lock);
    g->verifying = 0;
    g->round_mask = 1;
    nb_band_init(&g->ar, &g->d, g->mask, g->tmp, CTX_WORDS);
}

/* 1 with *ctx_out set, 0 not yet, < 0 error. */
static canal_status_t nb_agree_step(nb_agree_t *g, int *ctx_out)
{
    canal_status_t st;

again:
    if ((st = nb_band_step(&g->ar, &g->round_mask)) <= 0)
        return st;
    if (!g->verifying) {
        g->bit = ctx_find(g->mask, g->start);
        if (g->bit < 0)
            return common_err_set(CANAL_ERR_LIMIT,
                                  "too many communicators: all %d context ids are in use by "
                                  "communicators (and windows) not yet freed, or by receives "
                                  "still posted on freed ones",
                                  CTX_PAIRS);
        pthread_mutex_lock(&ctx_lock);
        g->got = (ctx_free_mask[g->bit / 32] >> (g->bit % 32)) & 1u;
        if (g->got)
            ctx_free_mask[g->bit / 32] &= ~(1u << (g->bit % 32));
        pthread_mutex_unlock(&ctx_lock);
        g->flag = g->got ? 1u : 0u;
        g->verifying = 1;
        g->round_mask = 1;
        nb_band_init(&g->ar, &g->d, &g->flag, &g->ftmp, 1);
        goto again;
    }
    if (g->flag) {
        *ctx_out = 2 * g->bit;
        return 1;
    }
    if (g->got)
        mpi_comm_context_free(2 * g->bit);
    g->start = g->bit + 1;
    nb_agree_round(g);
    goto again;
}

typedef struct idup_op {
    struct idup_op *next;
    mpi_comm_t *c;
    int use_info;
    MPI_Info info;      /* our own copy, or MPI_INFO_NULL */
    MPI_Comm *newcomm;
    adi_request_t *req;
    int stage;          /* 0: ctx over the whole communicator, 1: lctx (inter) */
    int ctx, lctx, tag;
    nb_agree_t g;
} idup_op_t;

static idup_op_t *idup_list;
static int idup_hook_id = -1;

static void idup_finish(idup_op_t *op, int err, const char *why)
{
    mpi_comm_t *n = NULL;

    if (err == MPI_SUCCESS)
        err = comm_dup_build(op->c, op->ctx, op->lctx, op->use_info, op->info, &n, &why);
    else {
        mpi_comm_context_free(op->ctx);
        mpi_comm_context_free(op->lctx);
    }
    /* On failure the output is MPI_COMM_NULL, as MPICH leaves it. */
    *op->newcomm = err == MPI_SUCCESS ? n->handle : MPI_COMM_NULL;
    if (err != MPI_SUCCESS)
        common_err_set(CANAL_ERR_INTERN, "MPI_Comm_idup: %s", why != NULL ? why : "failed");
    op->req->status.error = err;
    if (op->info != MPI_INFO_NULL)
        mpi_info_release(op->info);
    mpi_comm_release(op->c);
    __atomic_fetch_sub(&ctx_idups_pending, 1, __ATOMIC_RELEASE);
    adi_request_complete(op->req);
    free(op);
}

/* The progress hook: advance every pending idup (device lock held). */
static void idup_progress(void *arg)
{
    idup_op_t **pp = &idup_list;

    while (*pp != NULL) {
        idup_op_t *op = *pp;
        int ctx = -1;
        canal_status_t st = nb_agree_step(&op->g, &ctx);

        if (st == 0) {
            pp = &op->next;
            continue;
        }
        if (st > 0 && op->stage == 0 && op->c->is_inter) {
            op->ctx = ctx;
            op->stage = 1;
            memset(&op->g, 0, sizeof op->g);
            mpi_dom_of_comm(op->c->local_comm, op->tag, &op->g.d);
            nb_agree_round(&op->g);
            continue; /* step the second agreement at once */
        }
        if (st > 0 && op->stage == 0)
            op->ctx = ctx;
        else if (st > 0)
            op->lctx = ctx;
        *pp = op->next;
        idup_finish(op, st > 0 ? MPI_SUCCESS : mpi_err_class_of_status(st),
                    st > 0 ? NULL : common_err_detail());
    }
}

static int idup_start(mpi_comm_t *c, int use_info, MPI_Info info, MPI_Comm *newcomm,
                      adi_request_t *r, const char *fn)
{
    idup_op_t *op;

    if (mpi_comm_local_group(c) == NULL || (c->is_inter && mpi_comm_remote_group(c) == NULL) ||
        (op = calloc(1, sizeof *op)) == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    op->c = c;
    op->use_info = use_info;
    op->info = MPI_INFO_NULL;
    if (use_info && info != MPI_INFO_NULL &&
        mpi_info_dup_impl(info, &op->info, fn) != MPI_SUCCESS) {
        free(op);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for a copy of the info");
    }
    op->newcomm = newcomm;
    op->req = r;
    op->ctx = op->lctx = -1;
    op->tag = IDUP_TAG_BASE + (c->idup_seq++ & IDUP_TAG_MASK);
    mpi_dom_of_comm(c, op->tag, &op->g.d);
    nb_agree_round(&op->g);
    mpi_comm_retain(c);
    r->owner_handle = c->handle;
    __atomic_fetch_add(&ctx_idups_pending, 1, __ATOMIC_RELEASE);
    adi_lock();
    if (idup_hook_id < 0)
        idup_hook_id = adi_progress_hook_add(idup_progress, NULL);
    op->next = idup_list;
    idup_list = op;
    adi_unlock();
    adi_progress();
    return MPI_SUCCESS;
}

static int dup_front(mpi_comm_t *c, int use_info, MPI_Info info, MPI_Comm *newcomm,
                     MPI_Request *request, const char *fn)
{
    mpi_comm_t *n = NULL;
    adi_request_t *r = NULL;
    int err;

    if (use_info && info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    if (request != NULL) {
        if ((r = adi_request_alloc(ADI_REQ_OTHER)) == NULL)
            return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "no request");
        if ((err = idup_start(c, use_info, info, newcomm, r, fn)) != MPI_SUCCESS) {
            adi_request_free(r);
            return err;
        }
        *request = mpi_request_handle(r);
        return MPI_SUCCESS;
    }
    /* A duplication that fails after the arguments were accepted (an attribute
     * copy callback, memory) leaves MPI_COMM_NULL, as MPICH does. */
    if ((err = comm_dup_impl(c, use_info, info, &n, fn)) != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return err;
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int mpi_comm_dup_impl(mpi_comm_t *c, MPI_Comm *newcomm, const char *fn)
{
    return dup_front(c, 0, MPI_INFO_NULL, newcomm, NULL, fn);
}

int mpi_comm_dup_with_info_impl(mpi_comm_t *c, MPI_Info info, MPI_Comm *newcomm, const char *fn)
{
    return dup_front(c, 1, info, newcomm, NULL, fn);
}

int mpi_comm_idup_impl(mpi_comm_t *c, MPI_Comm *newcomm, MPI_Request *request, const char *fn)
{
    return dup_front(c, 0, MPI_INFO_NULL, newcomm, request, fn);
}

int mpi_comm_idup_with_info_impl(mpi_comm_t *c, MPI_Info info, MPI_Comm *newcomm,
                                 MPI_Request *request, const char *fn)
{
    return dup_front(c, 1, info, newcomm, request, fn);
}

/* ---------------------------------------------------------------- split */
typedef struct {
    int key, rank;
} split_ent_t;

static int split_cmp(const void *a, const void *b)
{
    const split_ent_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The job ranks of the members with colour `color` among n (color, key)
 * pairs, ordered by key then rank; job[] maps rank -> job rank (NULL: identity). */
static mpi_group_t *split_members(const int *pairs, int n, const int *job, int color)
{
    split_ent_t *e = malloc(sizeof *e * (size_t)(n > 0 ? n : 1));
    int *ranks = malloc(sizeof *ranks * (size_t)(n > 0 ? n : 1));
    mpi_group_t *g = NULL;
    int k = 0;

    if (e != NULL && ranks != NULL) {
        for (int r = 0; r < n; r++)
            if (pairs[2 * r] == color) {
                e[k].key = pairs[2 * r + 1];
                e[k].rank = r;
                k++;
            }
        qsort(e, (size_t)k, sizeof *e, split_cmp);
        for (int i = 0; i < k; i++)
            ranks[i] = job != NULL ? job[e[i].rank] : e[i].rank;
        g = mpi_group_new_list(ranks, k);
    }
    free(e);
    free(ranks);
    return g;
}

int mpi_comm_split_intra(mpi_comm_t *p, int color, int key, mpi_comm_t **out, const char *fn)
{
    mpi_dom_t d;
    int mine[2] = {color, key}, *pairs, ctx, err;
    mpi_group_t *g = NULL;
    canal_status_t st;

    pairs = malloc(sizeof *pairs * 2 * (size_t)p->size);
    if (pairs == NULL)
        return mpi_err_fail(p, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_dom_of_comm(p, MPI_TAG_SPLIT, &d);
    if ((st = mpi_dom_allgather(&d, mine, pairs, sizeof mine)) < 0) {
        free(pairs);
        return mpi_err_fail_status(p, st, fn);
    }
    mpi_dom_of_comm(p, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        free(pairs);
        return mpi_err_fail_status(p, st, fn);
    }
    if (color == MPI_UNDEFINED) {
        free(pairs);
        mpi_comm_context_free(ctx);
        *out = NULL;
        return MPI_SUCCESS;
    }
    g = split_members(pairs, p->size, p->local_job_ranks, color);
    free(pairs);
    if (g == NULL) {
        mpi_comm_context_free(ctx);
        return mpi_err_fail(p, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    err = mpi_comm_new_intra(p, ctx, g, out);
    mpi_group_release(g);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        return raise_create(p, err, fn);
    }
    return MPI_SUCCESS;
}

/* Intercommunicator split: local (color, key) pairs are gathered, the leaders
 * swap them, and each process builds its local and remote groups. */
static int comm_split_inter(mpi_comm_t *p, int color, int key, mpi_comm_t **out, const char *fn)
{
    mpi_dom_t d;
    int mine[2] = {color, key}, *pairs, *rpairs = NULL, ctx, lctx, err;
    size_t rlen;
    mpi_group_t *lg = NULL, *rg = NULL;
    canal_status_t st;

    pairs = malloc(sizeof *pairs * 2 * (size_t)p->size);
    if (pairs == NULL)
        return mpi_err_fail(p, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_dom_of_comm(p, MPI_TAG_SPLIT, &d);
    st = mpi_dom_allgather(&d, mine, pairs, sizeof mine);
    if (st >= 0)
        st = mpi_dom_bridge_swap(&d, pairs, sizeof mine * (size_t)p->size, (void **)&rpairs, &rlen);
    if (st >= 0 && rlen != sizeof mine * (size_t)p->peer_size)
        st = common_err_set(CANAL_ERR_PROTO,
                            "the remote group sent %zu bytes of colours, "
                            "expected %zu",
                            rlen, sizeof mine * (size_t)p->peer_size);
    if (st < 0) {
        free(pairs);
        free(rpairs);
        return mpi_err_fail_status(p, st, fn);
    }
    mpi_dom_of_comm(p, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        free(pairs);
        free(rpairs);
        return mpi_err_fail_status(p, st, fn);
    }
    mpi_dom_of_comm(p->local_comm, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &lctx)) < 0) {
        mpi_comm_context_free(ctx);
        free(pairs);
        free(rpairs);
        return mpi_err_fail_status(p, st, fn);
    }
    *out = NULL;
    err = MPI_SUCCESS;
    if (color != MPI_UNDEFINED) {
        lg = split_members(pairs, p->size, p->local_job_ranks, color);
        rg = split_members(rpairs, p->peer_size, p->peer_job_ranks, color);
        if (lg == NULL || rg == NULL)
            err = MPI_ERR_NO_MEM;
        else if (rg->size > 0)
            err = comm_new_inter(p, ctx, lg, rg, lctx, out);
    }
    free(pairs);
    free(rpairs);
    mpi_group_release(lg);
    mpi_group_release(rg);
    if (*out == NULL) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
    }
    return err == MPI_SUCCESS ? MPI_SUCCESS : raise_create(p, err, fn);
}

int mpi_comm_split_impl(mpi_comm_t *c, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    int err;

    if (color < 0 && color != MPI_UNDEFINED)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "color=%d is negative and not MPI_UNDEFINED",
                            color);
    err = c->is_inter ? comm_split_inter(c, color, key, &n, fn)
                      : mpi_comm_split_intra(c, color, key, &n, fn);
    if (err != MPI_SUCCESS)
        return err;
    *newcomm = n != NULL ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- hardware levels */
/* MPI_COMM_TYPE_HW_GUIDED / HW_UNGUIDED split by hardware resource. The
 * levels carry hwloc's names (as MPICH accepts them) and are read from
 * Linux's sysfs: a process belongs to a resource when every CPU it may run
 * on (its affinity mask) lies in that one resource; an unbound process is
 * in its node and package but not in one core. Each resource is named by
 * the lowest CPU that shares it (or the NUMA node number), qualified by the
 * node, so the colours of different nodes never meet. */
typedef enum { HW_MACHINE, HW_PACKAGE, HW_NUMA, HW_L3, HW_L2, HW_L1, HW_CORE, HW_PU } hw_level_t;

static const struct {
    const char *name;
    hw_level_t level;
} hw_names[] = {
    {"mpi_shared_memory", HW_MACHINE},
    {"Machine", HW_MACHINE},
    {"Package", HW_PACKAGE},
    {"Socket", HW_PACKAGE},
    {"NUMANode", HW_NUMA},
    {"NUMA", HW_NUMA},
    {"L3Cache", HW_L3},
    {"L2Cache", HW_L2},
    {"L1Cache", HW_L1},
    {"Core", HW_CORE},
    {"PU", HW_PU},
};
/* The name each level is reported under (mpi_hw_resource_type), largest first. */
static const char *const hw_level_names[] = {"mpi_shared_memory", "Package", "NUMANode", "L3Cache",
                                             "L2Cache",           "L1Cache", "Core",     "PU"};
enum { HW_NLEVELS = 8 };

static int hw_level_of(const char *v)
{
    for (size_t i = 0; v != NULL && i < sizeof hw_names / sizeof hw_names[0]; i++)
        if (strcasecmp(v, hw_names[i].name) == 0)
            return (int)hw_names[i].level;
    return -1;
}

/* The id of the resource of `level` that holds CPU `cpu`, or -1. */
static int hw_resource_of_cpu(hw_level_t level, int cpu)
{
    char path[256];
    int id;

    switch (level) {
    case HW_MACHINE:
        return 0;
    case HW_PU:
        return cpu;
    case HW_PACKAGE:
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list",
                 cpu);
        if ((id = common_file_first_int(path)) >= 0)
            return id;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 cpu);
        return common_file_first_int(path);
    case HW_CORE:
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpu);
        return common_file_first_int(path);
    case HW_NUMA: {
        DIR *d;
        struct dirent *e;
        int node = -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
        if ((d = opendir(path)) == NULL)
            return -1;
        while ((e = readdir(d)) != NULL)
            if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
                node = atoi(e->d_name + 4);
                break;
            }
        closedir(d);
        return node;
    }
    default: {
        int want = level == HW_L3 ? 3 : level == HW_L2 ? 2 : 1;
        for (int i = 0; i < 16; i++) {
            char type[32] = "";
            FILE *f;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu,
                     i);
            if (common_file_first_int(path) != want)
                continue;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
            if ((f = fopen(path, "r")) != NULL) {
                if (fscanf(f, "%31s", type) != 1)
                    type[0] = '\0';
                fclose(f);
            }
            if (strcmp(type, "Instruction") == 0)
                continue;
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
            return common_file_first_int(path);
        }
        return -1;
    }
    }
}

static int node_of_job(int j)
{
    return mpi_pmi.node_of != NULL && j >= 0 && j < mpi_pmi.size ? mpi_pmi.node_of[j] : 0;
}

/* This process's colour at `level`: MPI_UNDEFINED when its CPUs span
 * several resources of that level (or sysfs does not say). */
static int hw_color(hw_level_t level, int node)
{
    cpu_set_t set;
    int id = -2;

    if (level == HW_MACHINE)
        return node;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return MPI_UNDEFINED;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        int r;
        if (!CPU_ISSET(cpu, &set))
            continue;
        r = hw_resource_of_cpu(level, cpu);
        if (r < 0 || (id != -2 && r != id))
            return MPI_UNDEFINED;
        id = r;
    }
    if (id < 0 || id >= 32768 || node >= 65536)
        return MPI_UNDEFINED;
    return node * 32768 + id;
}

/* For MPI_Get_hw_resource_info (mpi/mpi41.c): the name of hardware level
 * `i` (0 the largest) in *name_out and 1 when this process runs within one
 * resource of it (MPI_COMM_TYPE_HW_GUIDED with that name splits it), 0 when
 * not; -1 past the last level. */
int mpi_comm_hw_level(int i, const char **name_out)
{
    if (i < 0 || i >= HW_NLEVELS)
        return -1;
    *name_out = hw_level_names[i];
    return hw_color((hw_level_t)i, node_of_job(mpi_pmi.rank)) != MPI_UNDEFINED;
}

/* MPIX_COMM_TYPE_NEIGHBORHOOD (MPICH's extension) with the hint
 * "nbhd_common_dirname": the members that share access to that directory.
 * Sharing is observed, not guessed from file system types: every member
 * leaves a marker file in the directory, the names are gathered, and a
 * member's colour is the lowest rank whose marker it can see (all of a
 * node on a local file system, everyone on a shared one). The hint must
 * be the same on every member; a missing, unknown or mismatched hint (and
 * MPICH's "network_topo", whose network knowledge Canal does not have)
 * gives MPI_COMM_NULL on every member, as in MPICH. Sets *color_out. */
enum { NBHD_NAME_MAX = 96 };

static int nbhd_color(mpi_comm_t *c, MPI_Info info, const char *fn, int *color_out)
{
    const char *dir = info != MPI_INFO_NULL ? mpi_info_lookup(info, "nbhd_common_dirname") : NULL;
    char mine[NBHD_NAME_MAX + 8], *all = NULL;
    uint64_t hash = 1469598103934665603ull;
    mpi_dom_t d;
    canal_status_t st;
    int made = 0, same = 1, err = MPI_SUCCESS;

    *color_out = MPI_UNDEFINED;
    memset(mine, 0, sizeof mine);
    if (dir != NULL) {
        for (const char *p = dir; *p; p++)
            hash = (hash ^ (unsigned char)*p) * 1099511628211ull;
        snprintf(mine + 8, NBHD_NAME_MAX, ".canal-nbhd-%ld-%d-%d", (long)getpid(), c->context,
                 c->rank);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, mine + 8);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            close(fd);
            made = 1;
        } else {
            mine[8] = '\0'; /* this member cannot write there: it gets MPI_COMM_NULL */
        }
    } else {
        hash = 0;
    }
    memcpy(mine, &hash, sizeof hash);
    if ((all = malloc(sizeof mine * (size_t)c->size)) == NULL) {
        err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
        goto out_marker;
    }
    mpi_dom_of_comm(c, MPI_TAG_SPLIT, &d);
    if ((st = mpi_dom_allgather(&d, mine, all, sizeof mine)) < 0) {
        err = mpi_err_fail_status(c, st, fn);
        goto out_all;
    }
    for (int r = 0; r < c->size; r++)
        same &= memcmp(all + r * sizeof mine, &hash, sizeof hash) == 0;
    if (dir != NULL && same && made) {
        for (int r = 0; r < c->size && *color_out == MPI_UNDEFINED; r++) {
            const char *name = all + r * sizeof mine + 8;
            char path[4096];
            struct stat sb;
            snprintf(path, sizeof path, "%s/%s", dir, name);
            if (name[0] != '\0' && stat(path, &sb) == 0)
                *color_out = r;
        }
    }
    /* nobody removes a marker before everyone has looked */
    if ((st = mpi_dom_allgather(&d, mine, all, sizeof mine)) < 0)
        err = mpi_err_fail_status(c, st, fn);
out_all:
    free(all);
out_marker:
    if (made) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, mine + 8);
        unlink(path);
    }
    return err;
}

int mpi_comm_split_type_impl(mpi_comm_t *c, int split_type, int key, MPI_Info info,
                             MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    int err, color = MPI_UNDEFINED, my_node, level;
    const char *level_name = NULL;

    if ((err = check_intra(c, fn)))
        return err;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    my_node = node_of_job(mpi_comm_peer_job_rank(c, c->rank));
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
        color = my_node;
        break;
    case MPI_COMM_TYPE_HW_GUIDED:
        /* every process names the same level; unknown levels give MPI_COMM_NULL */
        level_name = info != MPI_INFO_NULL ? mpi_info_lookup(info, "mpi_hw_resource_type") : NULL;
        if ((level = hw_level_of(level_name)) >= 0)
            color = hw_color((hw_level_t)level, my_node);
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED: {
        /* The largest level that every member belongs to one resource of and
         * that splits the parent: all members must see the same choice, so
         * the colours of every level are gathered first. */
        int mine[HW_NLEVELS], *all = malloc(sizeof mine * (size_t)c->size);
        mpi_dom_t d;
        canal_status_t st;
        if (all == NULL)
            return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int l = 0; l < HW_NLEVELS; l++)
            mine[l] = hw_color((hw_level_t)l, my_node);
        mpi_dom_of_comm(c, MPI_TAG_SPLIT, &d);
        if ((st = mpi_dom_allgather(&d, mine, all, sizeof mine)) < 0) {
            free(all);
            return mpi_err_fail_status(c, st, fn);
        }
        for (int l = 0; l < HW_NLEVELS && level_name == NULL; l++) {
            int usable = 1, splits = 0;
            for (int r = 0; r < c->size; r++) {
                usable &= all[r * HW_NLEVELS + l] != MPI_UNDEFINED;
                splits |= all[r * HW_NLEVELS + l] != all[l];
            }
            if (usable && splits) {
                color = mine[l];
                level_name = hw_level_names[l];
            }
        }
        free(all);
        break;
    }
    case MPIX_COMM_TYPE_NEIGHBORHOOD:
        if ((err = nbhd_color(c, info, fn, &color)) != MPI_SUCCESS)
            return err;
        break;
    default:
        /* MPI_UNDEFINED and types Canal does not know: MPI_COMM_NULL. */
        break;
    }
    if ((err = mpi_comm_split_intra(c, color, key, &n, fn)) != MPI_SUCCESS)
        return err;
    if (n != NULL && level_name != NULL &&
        (err = comm_put_hint(n, "mpi_hw_resource_type", level_name))) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, err, fn, "out of memory for the hints");
    }
    if (n != NULL && (err = comm_apply_hints(n, info, 1)) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, err, fn, "out of memory for the hints");
    }
    /* HW_UNGUIDED also tells the caller the level it chose in the caller's own
     * info (as MPICH does, and programs and MPICH's comm/cmsplit_type read it
     * there); MPI_INFO_ENV is read-only and keeps its keys. */
    if (n != NULL && split_type == MPI_COMM_TYPE_HW_UNGUIDED && level_name != NULL &&
        info != MPI_INFO_NULL && info != MPI_INFO_ENV &&
        (err = mpi_info_put(info, "mpi_hw_resource_type", level_name)) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(c, err, fn, "out of memory for info=%#x's mpi_hw_resource_type",
                            (unsigned)info);
    }
    *newcomm = n != NULL ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- create */
static int check_subset(mpi_comm_t *c, mpi_group_t *g, const char *fn)
{
    mpi_group_t *cg = mpi_comm_local_group(c);
    if (cg == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < g->size; i++)
        if (mpi_group_rank_of(cg, mpi_group_member(g, i)) == MPI_UNDEFINED)
            return mpi_err_fail(c, MPI_ERR_GROUP, fn,
                                "rank %d of group (MPI_COMM_WORLD rank %d) is not in the "
                                "%sgroup of comm",
                                i, mpi_group_member(g, i), c->is_inter ? "local " : "");
    return MPI_SUCCESS;
}

static int comm_create_inter(mpi_comm_t *c, mpi_group_t *g, mpi_comm_t **out, const char *fn)
{
    mpi_dom_t d;
    int *mine, *theirs = NULL, ctx, lctx, identity, err = MPI_SUCCESS;
    size_t tlen;
    mpi_group_t *rg = NULL;
    canal_status_t st;

    mine = mpi_group_job_array(g, -1, &identity);
    if (mine == NULL && g->size > 0)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_dom_of_comm(c, MPI_TAG_XCHG, &d);
    st = mpi_dom_bridge_swap(&d, mine, sizeof *mine * (size_t)g->size, (void **)&theirs, &tlen);
    free(mine);
    if (st < 0)
        return mpi_err_fail_status(c, st, fn);
    mpi_dom_of_comm(c, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        free(theirs);
        return mpi_err_fail_status(c, st, fn);
    }
    mpi_dom_of_comm(c->local_comm, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &lctx)) < 0) {
        free(theirs);
        mpi_comm_context_free(ctx);
        return mpi_err_fail_status(c, st, fn);
    }
    *out = NULL;
    rg = mpi_group_new_list(theirs, (int)(tlen / sizeof *theirs));
    free(theirs);
    if (rg == NULL)
        err = MPI_ERR_NO_MEM;
    else if (g->rank != MPI_UNDEFINED && rg->size > 0)
        err = comm_new_inter(c, ctx, g, rg, lctx, out);
    mpi_group_release(rg);
    if (*out == NULL) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
    }
    return err == MPI_SUCCESS ? MPI_SUCCESS : raise_create(c, err, fn);
}

/* group comes checked (mpi_check_group_arg) by the entry point, as below */
int mpi_comm_create_impl(mpi_comm_t *c, mpi_group_t *g, MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    mpi_dom_t d;
    int err, ctx;
    canal_status_t st;

    if ((err = check_subset(c, g, fn)))
        return err;
    if (c->is_inter) {
        if ((err = comm_create_inter(c, g, &n, fn)) != MPI_SUCCESS)
            return err;
        *newcomm = n != NULL ? n->handle : MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    mpi_dom_of_comm(c, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0)
        return mpi_err_fail_status(c, st, fn);
    if (g->rank == MPI_UNDEFINED) {
        mpi_comm_context_free(ctx);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((err = mpi_comm_new_intra(c, ctx, g, &n)) != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        return raise_create(c, err, fn);
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* A communicator over group g made by its members only: messages travel on
 * base's collective context with `tag`, between group ranks. */
static int comm_from_group(mpi_comm_t *base, mpi_group_t *g, int tag, mpi_comm_t **out,
                           const char *fn)
{
    mpi_dom_t d;
    int *job, identity, ctx, err;
    canal_status_t st;

    job = mpi_group_job_array(g, mpi_pmi.size, &identity);
    if (job == NULL && !identity)
        return mpi_err_fail(base, MPI_ERR_NO_MEM, fn, "out of memory");
    memset(&d, 0, sizeof d);
    d.rank = g->rank;
    d.size = g->size;
    d.job = job;
    d.context = base->context + 1;
    d.tag = tag;
    d.by_job = 1;
    /* Only the group's members take part: a loss elsewhere in base must not
     * fail the exchange (the failure rule of a collective context). */
    st = job != NULL ? adi_ctx_scope_push(d.context, tag, g->size, job) : CANAL_OK;
    if (st >= 0) {
        st = mpi_comm_context_agree(&d, &ctx);
        if (job != NULL)
            adi_ctx_scope_pop(d.context, tag);
    }
    free(job);
    if (st < 0)
        return mpi_err_fail_status(base, st, fn);
    if ((err = mpi_comm_new_intra(base, ctx, g, out)) != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        return raise_create(base, err, fn);
    }
    return MPI_SUCCESS;
}

int mpi_comm_create_group_impl(mpi_comm_t *c, mpi_group_t *g, int tag, MPI_Comm *newcomm,
                               const char *fn)
{
    mpi_comm_t *n = NULL;
    int err;

    if ((err = check_intra(c, fn)) || (err = check_subset(c, g, fn)))
        return err;
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((err = comm_from_group(c, g, tag, &n, fn)) != MPI_SUCCESS)
        return err;
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* Sessions-style constructors name the operation by a string; the tag on
 * MPI_COMM_WORLD's collective context is derived from it (even for the local
 * step, odd for the leaders' bridge), below the reserved tags. */
static int stringtag_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(0x20000000u | (h & 0x0ffffffeu));
}

static int check_stringtag(const char *stringtag, const char *fn)
{
    if (stringtag == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "stringtag is NULL");
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "stringtag is longer than MPI_MAX_STRINGTAG_LEN-1 (%d)",
                            MPI_MAX_STRINGTAG_LEN - 1);
    return MPI_SUCCESS;
}

static int set_errhandler(mpi_comm_t *n, MPI_Errhandler errhandler)
{
    if (errhandler == MPI_ERRHANDLER_NULL)
        return MPI_SUCCESS;
    if (mpi_errhandler_retain(errhandler, MPI_OBJ_COMM) < 0)
        return MPI_ERR_ARG;
    mpi_errhandler_release(n->errhandler);
    n->errhandler = errhandler;
    n->errh_default = 0;
    if (n->local_comm != NULL && mpi_errhandler_retain(errhandler, MPI_OBJ_COMM) == 0) {
        mpi_errhandler_release(n->local_comm->errhandler);
        n->local_comm->errhandler = errhandler;
    }
    return MPI_SUCCESS;
}

int mpi_comm_create_from_group_impl(mpi_group_t *g, const char *stringtag, MPI_Info info,
                                    MPI_Errhandler errhandler, MPI_Comm *newcomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    int err;

    if ((err = check_stringtag(stringtag, fn)))
        return err;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    if (g->rank == MPI_UNDEFINED)
        return mpi_err_fail(NULL, MPI_ERR_GROUP, fn,
                            "the calling process is not a member of group");
    if ((err = comm_from_group(&mpi_comm_world_obj, g, stringtag_hash(stringtag), &n, fn)))
        return err;
    n->session = g->session;
    if (set_errhandler(n, errhandler) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "errhandler=%#x is not a communicator error handler",
                            (unsigned)errhandler);
    }
    if ((err = comm_session_kinds(n, g->session)) != MPI_SUCCESS ||
        (err = comm_apply_hints(n, info, 1)) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(NULL, err, fn, "out of memory for the hints");
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- intercommunicators */
static int groups_overlap(const mpi_group_t *a, const mpi_group_t *b)
{
    for (int i = 0; i < a->size; i++)
        if (mpi_group_rank_of(b, mpi_group_member(a, i)) != MPI_UNDEFINED)
            return 1;
    return 0;
}

/* The common part of both intercommunicator constructors: d describes the
 * local group and the bridge; lg is the local group and lbase the
 * communicator (or, for the sessions form, the domain) the local
 * communicator's context is agreed over. */
/* The leaders swap [cross, member job ranks...]; cross is 1 when the remote
 * leader is a process of another job (a device index past the job's ranks:
 * both leaders see it alike) or the group holds one (all its members see
 * that alike): then job ranks mean nothing to the other side, no members
 * follow, and *cross_out tells the caller to introduce the groups as
 * connect/accept does (mpi_dyn_intercomm_cross). */
static int intercomm_build(mpi_comm_t *errc, mpi_dom_t *d, mpi_dom_t *ldom, mpi_group_t *lg,
                           mpi_comm_t **out, int *cross_out, const char *fn)
{
    int *mine, *theirs = NULL, ctx, lctx, err, cross, local_cross = 0;
    size_t tlen;
    mpi_group_t *rg = NULL;
    canal_status_t st;

    *cross_out = 0;
    if (lg == NULL || (mine = malloc(sizeof *mine * (size_t)(lg->size + 1))) == NULL)
        return mpi_err_fail(errc, MPI_ERR_NO_MEM, fn, "out of memory");
    /* every member sees alike whether its group mixes jobs */
    for (int i = 0; i < lg->size; i++)
        if ((mine[i + 1] = mpi_group_member(lg, i)) >= mpi_pmi.size)
            local_cross = 1;
    cross = local_cross || (d->rank == d->root && d->b_peer_job >= mpi_pmi.size);
    mine[0] = cross;
    st = mpi_dom_bridge_swap(d, mine, sizeof *mine * (size_t)(cross ? 1 : lg->size + 1),
                             (void **)&theirs, &tlen);
    free(mine);
    if (st < 0)
        return mpi_err_fail_status(errc, st, fn);
    if (tlen < sizeof *theirs) {
        free(theirs);
        return mpi_err_fail(errc, MPI_ERR_INTERN, fn, "the remote leader sent no group");
    }
    if (theirs[0] || local_cross) { /* the remote leader's flag holds the bridge's verdict */
        free(theirs);
        *cross_out = 1;
        return MPI_SUCCESS;
    }
    rg = mpi_group_new_list(theirs + 1, (int)(tlen / sizeof *theirs) - 1);
    free(theirs);
    if (rg == NULL)
        return mpi_err_fail(errc, MPI_ERR_NO_MEM, fn, "out of memory");
    /* Every process sees both lists, so all of them reach the same verdict. */
    if (rg->size == 0 || groups_overlap(lg, rg)) {
        mpi_group_release(rg);
        return mpi_err_fail(errc, MPI_ERR_COMM, fn,
                            "the local and remote groups overlap (or the remote one is empty); "
                            "an intercommunicator joins two disjoint groups");
    }
    if ((st = mpi_comm_context_agree(d, &ctx)) < 0) {
        mpi_group_release(rg);
        return mpi_err_fail_status(errc, st, fn);
    }
    if ((st = mpi_comm_context_agree(ldom, &lctx)) < 0) {
        mpi_comm_context_free(ctx);
        mpi_group_release(rg);
        return mpi_err_fail_status(errc, st, fn);
    }
    err = comm_new_inter(errc, ctx, lg, rg, lctx, out);
    mpi_group_release(rg);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
        return raise_create(errc, err, fn);
    }
    return MPI_SUCCESS;
}

/* tag is significant at the leaders only: it is checked there (kind value). */
int mpi_intercomm_create_impl(mpi_comm_t *lc, int local_leader, MPI_Comm peer_comm,
                              int remote_leader, int tag, MPI_Comm *newintercomm, const char *fn)
{
    mpi_comm_t *pc = NULL, *n = NULL;
    mpi_dom_t d, ld;
    int err, bad = 0, cross = 0;
    char why[200] = "";

    if ((err = check_intra(lc, fn)))
        return err;
    if (local_leader < 0 || local_leader >= lc->size)
        return mpi_err_fail(lc, MPI_ERR_RANK, fn, "local_leader=%d is not in [0, %d)",
                             local_leader, lc->size);
    if (lc->rank == local_leader) {
        /* Arguments only the leader sees: on error it tells its group first,
         * so that the other members fail too instead of waiting. */
        if ((pc = mpi_comm_get(peer_comm)) == NULL) {
            bad = MPI_ERR_COMM;
            snprintf(why, sizeof why,
                     "peer_comm=%#x is not a valid communicator (at the local "
                     "leader)",
                     (unsigned)peer_comm);
        } else if (remote_leader < 0 || remote_leader >= pc->peer_size) {
            bad = MPI_ERR_RANK;
            snprintf(why, sizeof why,
                     "remote_leader=%d is not in [0, %d) (the size of "
                     "peer_comm)",
                     remote_leader, pc->peer_size);
        } else if (!pc->is_inter && remote_leader == pc->rank) {
            bad = MPI_ERR_RANK;
            snprintf(why, sizeof why, "remote_leader=%d is the local leader itself", remote_leader);
        } else if (tag < 0 || tag > MPI_CANAL_TAG_UB) {
            bad = MPI_ERR_TAG;
            snprintf(why, sizeof why, "tag=%d is not in [0, MPI_TAG_UB=%d]", tag, MPI_CANAL_TAG_UB);
        }
    }
    mpi_dom_of_comm(lc, MPI_TAG_XCHG, &d);
    d.root = local_leader;
    d.bridged = 1;
    if (bad) {
        uint64_t failed = UINT64_MAX; /* what mpi_dom_bridge_swap broadcasts on failure */
        mpi_dom_bcast(&d, &failed, sizeof failed);
        return mpi_err_fail(lc, bad, fn, "%s", why);
    }
    if (pc != NULL) {
        d.b_context = pc->context + 1;
        d.b_tag = tag;
        d.b_my_rank = pc->rank;
        d.b_peer_rank = remote_leader;
        d.b_peer_job = mpi_comm_peer_job_rank(pc, remote_leader);
    }
    mpi_dom_of_comm(lc, MPI_TAG_CTX_AGREE, &ld);
    if ((err = intercomm_build(lc, &d, &ld, mpi_comm_local_group(lc), &n, &cross, fn)) !=
        MPI_SUCCESS)
        return err;
    if (cross) /* the groups are of two jobs (spawn, connect/accept) */
        return mpi_dyn_intercomm_cross(lc, local_leader, &d, newintercomm, fn);
    *newintercomm = n->handle;
    return MPI_SUCCESS;
}

int mpi_intercomm_create_from_groups_impl(mpi_group_t *lg, int local_leader, mpi_group_t *rg,
                                          int remote_leader, const char *stringtag, MPI_Info info,
                                          MPI_Errhandler errhandler, MPI_Comm *newintercomm,
                                          const char *fn)
{
    mpi_comm_t *n = NULL, *w = &mpi_comm_world_obj;
    mpi_dom_t d, ld;
    int *job, identity, err, tag, cross = 0;

    if ((err = check_stringtag(stringtag, fn)))
        return err;
    if (lg->rank == MPI_UNDEFINED)
        return mpi_err_fail(NULL, MPI_ERR_GROUP, fn,
                            "the calling process is not a member of local_group");
    if (local_leader < 0 || local_leader >= lg->size)
        return mpi_err_fail(NULL, MPI_ERR_RANK, fn, "local_leader=%d is not in [0, %d)",
                             local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return mpi_err_fail(NULL, MPI_ERR_RANK, fn, "remote_leader=%d is not in [0, %d)",
                             remote_leader, rg->size);
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    job = mpi_group_job_array(lg, mpi_pmi.size, &identity);
    if (job == NULL && !identity)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    tag = stringtag_hash(stringtag);
    memset(&d, 0, sizeof d);
    d.rank = lg->rank;
    d.size = lg->size;
    d.root = local_leader;
    d.job = job;
    d.context = w->context + 1;
    d.tag = tag;
    d.bridged = 1;
    d.b_context = w->context + 1;
    d.b_tag = tag | 1;
    d.b_my_rank = mpi_pmi.rank;
    d.b_peer_job = mpi_group_member(rg, remote_leader);
    d.b_peer_rank = d.b_peer_job;
    ld = d;
    ld.bridged = 0;
    ld.root = 0;
    err = intercomm_build(w, &d, &ld, lg, &n, &cross, fn);
    free(job);
    if (err != MPI_SUCCESS)
        return err;
    if (cross) /* both leaders see it: both sides fail alike */
        return mpi_err_fail(NULL, MPI_ERR_GROUP, fn,
                            "the remote leader is a process of another job; Canal builds "
                            "such intercommunicators with MPI_Intercomm_create only");
    if (set_errhandler(n, errhandler) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn,
                            "errhandler=%#x is not a communicator error handler",
                            (unsigned)errhandler);
    }
    if ((err = comm_session_kinds(n, lg->session)) != MPI_SUCCESS ||
        (err = comm_apply_hints(n, info, 1)) != MPI_SUCCESS) {
        mpi_comm_destroy(n);
        return mpi_err_fail(NULL, err, fn, "out of memory for the hints");
    }
    *newintercomm = n->handle;
    return MPI_SUCCESS;
}

int mpi_intercomm_merge_impl(mpi_comm_t *c, int high, MPI_Comm *newintracomm, const char *fn)
{
    mpi_comm_t *n = NULL;
    mpi_group_t *lg = NULL, *rg = NULL, *g = NULL;
    mpi_dom_t d;
    int mine = high ? 1 : 0, *theirs = NULL, remote_high, local_first, ctx, err, k = 0, *buf;
    size_t tlen;
    canal_status_t st;

    if (!c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn,
                            "intercomm=%#x is an intracommunicator; MPI_Intercomm_merge needs "
                            "an intercommunicator",
                            (unsigned)c->handle);
    mpi_dom_of_comm(c, MPI_TAG_XCHG, &d);
    /* The leaders swap their `high`; each side also broadcasts its own
     * leader's value, so that all members order the groups alike. */
    /* With `high` goes a hash of the job id: job ranks order the groups of
     * one job, but not those of two jobs (dyn/), whose members each
     * side numbers from its own job size on. */
    struct {
        int high, pad;
        uint64_t job;
    } me2 = {mine, 0, 1469598103934665603ULL}, *their2 = NULL;
    for (const char *p = mpi_pmi.jobid; *p != '\0'; p++)
        me2.job = (me2.job ^ (unsigned char)*p) * 1099511628211ULL;
    (void)theirs;
    if ((st = mpi_dom_bcast(&d, &me2, sizeof me2)) < 0 ||
        (st = mpi_dom_bridge_swap(&d, &me2, sizeof me2, (void **)&their2, &tlen)) < 0)
        return mpi_err_fail_status(c, st, fn);
    mine = me2.high;
    remote_high = tlen == sizeof me2 ? their2->high : 0;
    lg = mpi_comm_local_group(c);
    rg = mpi_comm_remote_group(c);
    if (lg == NULL || rg == NULL) {
        free(their2);
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if (mine != remote_high)
        local_first = mine < remote_high;
    else if (tlen == sizeof me2 && their2->job != me2.job &&
             mpi_group_member(rg, 0) >= mpi_pmi.size)
        local_first = me2.job < their2->job; /* two jobs: by job */
    else /* same value on both sides: the group holding the lower job rank goes first */
        local_first = mpi_group_member(lg, 0) < mpi_group_member(rg, 0);
    free(their2);
    buf = malloc(sizeof *buf * ((size_t)lg->size + (size_t)rg->size));
    if (buf == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        mpi_group_t *src = (pass == 0) == local_first ? lg : rg;
        for (int i = 0; i < src->size; i++)
            buf[k++] = mpi_group_member(src, i);
    }
    g = mpi_group_new_list(buf, k);
    free(buf);
    if (g == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_dom_of_comm(c, MPI_TAG_CTX_AGREE, &d);
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        mpi_group_release(g);
        return mpi_err_fail_status(c, st, fn);
    }
    err = mpi_comm_new_intra(c, ctx, g, &n);
    mpi_group_release(g);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        return raise_create(c, err, fn);
    }
    *newintracomm = n->handle;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- queries */
int mpi_comm_group_impl(mpi_comm_t *c, MPI_Group *group, const char *fn)
{
    mpi_group_t *g = NULL;
    int err;

    if ((g = mpi_comm_local_group(c)) == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_group_retain(g);
    if ((err = mpi_group_to_handle(g, group)) != MPI_SUCCESS)
        return mpi_err_fail(c, err, fn, "out of group handles");
    return MPI_SUCCESS;
}

int mpi_comm_remote_group_impl(mpi_comm_t *c, MPI_Group *group, const char *fn)
{
    mpi_group_t *g = NULL;
    int err;

    if (!c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "comm=%#x is not an intercommunicator",
                            (unsigned)c->handle);
    if ((g = mpi_comm_remote_group(c)) == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_group_retain(g);
    if ((err = mpi_group_to_handle(g, group)) != MPI_SUCCESS)
        return mpi_err_fail(c, err, fn, "out of group handles");
    return MPI_SUCCESS;
}

int mpi_comm_remote_size_impl(mpi_comm_t *c, int *size, const char *fn)
{
    if (!c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "comm=%#x is not an intercommunicator",
                            (unsigned)c->handle);
    *size = c->peer_size;
    return MPI_SUCCESS;
}

int mpi_comm_test_inter_impl(mpi_comm_t *c, int *flag, const char *fn)
{
    (void)fn;
    *flag = c->is_inter;
    return MPI_SUCCESS;
}

int mpi_comm_compare_impl(mpi_comm_t *c1, MPI_Comm comm2, int *result, const char *fn)
{
    mpi_comm_t *c2 = NULL;
    mpi_group_t *a = NULL, *b = NULL;
    int err, r;

    if ((err = mpi_check_comm_step(comm2, fn, &c2)))
        return err;
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (c1->is_inter != c2->is_inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    a = mpi_comm_local_group(c1);
    b = mpi_comm_local_group(c2);
    if (a == NULL || b == NULL)
        return mpi_err_fail(c1, MPI_ERR_NO_MEM, fn, "out of memory");
    r = mpi_group_compare(a, b);
    if (c1->is_inter && r != MPI_UNEQUAL) {
        int r2;
        a = mpi_comm_remote_group(c1);
        b = mpi_comm_remote_group(c2);
        if (a == NULL || b == NULL)
            return mpi_err_fail(c1, MPI_ERR_NO_MEM, fn, "out of memory");
        r2 = mpi_group_compare(a, b);
        if (r2 > r)
            r = r2;
    }
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- free */
int mpi_comm_free_impl(MPI_Comm *comm, const char *fn)
{
    mpi_comm_t *c = NULL;
    int err;

    if ((err = mpi_check_comm_step(*comm, fn, &c)))
        return err;
    if (c == &mpi_comm_world_obj || c == &mpi_comm_self_obj)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "%s cannot be freed", c->name);
    /* Delete callbacks run first; if one fails the communicator stays. */
    if ((err = mpi_attr_delete_all(MPI_OBJ_COMM, c->handle, &c->attrs)) != MPI_SUCCESS)
        return mpi_err_fail_code(c, err, fn);
    if (__atomic_load_n(&c->refcount, __ATOMIC_ACQUIRE) > 1) {
        /* still used (a pending idup): the handle goes now, the object later */
        mpi_handle_del(MPI_OBJ_COMM, c->handle);
        c->handle = 0;
    }
    mpi_comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- names */
int mpi_comm_set_name_impl(mpi_comm_t *c, const char *comm_name, const char *fn)
{
    if (comm_name == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "comm_name is NULL");
    /* Longer names are truncated, as MPICH does. */
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}

int mpi_name_of_null(const char *null_name, char *out, int *resultlen, const char *fn,
                     const char *arg)
{
    if (out == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL", arg);
    snprintf(out, MPI_MAX_OBJECT_NAME, "%s", null_name);
    *resultlen = (int)strlen(out);
    return MPI_SUCCESS;
}

/* MPI 4.1 (section 7.8) gives MPI_COMM_NULL a name, "MPI_COMM_NULL": the
 * standard ABI (MPI 5.0) does so; libmpi.so.12 keeps MPI 4.0's and MPICH
 * 4.0.2's MPI_ERR_COMM. */
int mpi_comm_get_name_impl(MPI_Comm comm, char *comm_name, int *resultlen, const char *fn)
{
    mpi_comm_t *c = NULL;
    int err;

    if (comm == MPI_COMM_NULL && mpi_abi_standard)
        return mpi_name_of_null("MPI_COMM_NULL", comm_name, resultlen, fn, "comm_name");
    if ((err = mpi_check_comm_step(comm, fn, &c)) != MPI_SUCCESS)
        return err;
    if (comm_name == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "comm_name is NULL");
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- info */
int mpi_comm_set_info_impl(mpi_comm_t *c, MPI_Info info, const char *fn)
{
    int err;

    if (info == MPI_INFO_NULL || !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    if ((err = comm_apply_hints(c, info, 0)) != MPI_SUCCESS)
        return mpi_err_fail(c, err, fn, "out of memory for the hints");
    return MPI_SUCCESS;
}

int mpi_comm_get_info_impl(mpi_comm_t *c, MPI_Info *info_used, const char *fn)
{
    MPI_Info info;
    int err;

    if ((err = mpi_info_new(&info)) != MPI_SUCCESS)
        return mpi_err_fail(c, err, fn, "out of memory");
    /* Every supported hint with its default, then what is in effect. */
    for (int i = 0; i < NHINTS && err == MPI_SUCCESS; i++)
        err = mpi_info_put(info, comm_hints[i], "false");
    for (int i = 0; c->info != MPI_INFO_NULL && i < mpi_info_nkeys(c->info) && !err; i++) {
        const char *v, *k = mpi_info_nth(c->info, i, &v);
        if (k != NULL)
            err = mpi_info_put(info, k, v);
    }
    if (err == MPI_SUCCESS && mpi_memkinds_of(c->info) == NULL)
        err = mpi_memkinds_put(info, NULL, MPI_INFO_NULL); /* the world's */
    if (err != MPI_SUCCESS) {
        mpi_info_release(info);
        return mpi_err_fail(c, err, fn, "out of memory");
    }
    *info_used = info;
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first (MPI 4.0
 * section 11.2.3); the hook runs before the device goes down. */
static void comm_module_finalize(void)
{
    mpi_attr_finalize();
}

__attribute__((constructor)) static void comm_module_register(void)
{
    mpi_register_hook(NULL, comm_module_finalize);
}
