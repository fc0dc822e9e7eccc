/*
 * What the device knows to fail requests when a peer is lost: which job
 * ranks stand behind the source ranks of each context. Receives match on
 * (context, source rank in the communicator, tag), and only mpi/ knows the
 * communicators, so mpi/ hands every new context its rank table
 * (adi_ctx_set_ranks); when a channel reports a peer failed, the device
 * looks a posted receive's source up here (pt2pt.c, adi_on_peer_failed),
 * and so does a receive posted after the failure. A table is a copy, kept
 * until the context is given a new one: receives may stay posted on the
 * context of a communicator already freed. One mutex guards the table; it
 * is innermost in the lock order (nothing is called while holding it), and
 * it is taken on the posting path only once some peer has failed.
 *
 * The launcher may know of a loss before any channel does (a rank we never
 * talked to): Canal's mpiexec -disable-auto-cleanup tells every rank over
 * PMI, the PMI watch thread hands it to adi_launcher_failed, and the next
 * wait with nothing to do fails the rank like a channel's report would.
 *
 * The same entries hold what ULFM adds (mpi/ulfm.c): a context can be
 * revoked (every receive on it fails with CANAL_ERR_REVOKED, and so does
 * every send: adi_ctx_revoked), a point-to-point context remembers which
 * of its failed ranks were acknowledged (MPIX_Comm_failure_ack), and a
 * context can be
 * marked fault-tolerant (the ULFM protocol's own: MPI_ANY_SOURCE receives
 * there never fail for a loss). mpi/ gives each communicator an even
 * context for point-to-point and the odd one after it for collectives: a
 * receive on an odd context fails as soon as any rank of the context is
 * lost, whatever its source (a collective cannot complete without it, and
 * the ranks it waits for may be waiting for the lost one).
 *
 * An MPI_ANY_SOURCE receive on a point-to-point context is not failed by a
 * loss (ULFM): it stays posted and may still match a message, and while a
 * lost rank of its context is not acknowledged a wait on it returns
 * CANAL_ERR_PEER_PENDING without completing it (adi_recv_failure_pending,
 * asked by mpi/'s waits).
 *
 * A scope narrows that rule for the messages of one tag on a collective
 * context: MPI_Comm_create_group and the sessions constructors talk among
 * the members of a group on the parent's collective context, and a loss
 * outside the group must not fail them (adi_ctx_scope_push/pop). */
#include "adi/adi_impl.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { RANKS_CHUNK = 256, RANKS_CHUNKS = ADI_CONTEXT_MAX / RANKS_CHUNK };

typedef struct {
    int n;          /* source ranks 0..n-1 */
    int *ranks;     /* job rank of each; NULL: source rank r is job rank r */
    uint8_t *acked; /* n flags: failure acknowledged (NULL: none yet) */
    int revoked; /* 1: by a notice (ULFM's protocol), 2: by a peer's answer only */
    int ft; /* fault-tolerant: any-source receives ignore losses */
} ctx_ranks_t;

/* Exchanges among a subset (adi_ctx_scope_push): few at a time, a list. */
typedef struct ctx_scope {
    struct ctx_scope *next;
    int context, tag, n;
    int jobs[]; /* job ranks of the members */
} ctx_scope_t;

static ctx_ranks_t *ranks_tab[RANKS_CHUNKS];
static ctx_scope_t *scopes;
static pthread_mutex_t ranks_lock = PTHREAD_MUTEX_INITIALIZER;
int adi_nrevoked; /* contexts revoked so far (atomic: read on the posting paths) */

/* The entry of context, created if `create` (ranks_lock held). */
static ctx_ranks_t *entry_locked(int context, int create)
{
    if (context < 0 || context >= ADI_CONTEXT_MAX)
        return NULL;
    if (ranks_tab[context / RANKS_CHUNK] == NULL &&
        (!create ||
         (ranks_tab[context / RANKS_CHUNK] = calloc(RANKS_CHUNK, sizeof(ctx_ranks_t))) == NULL))
        return NULL;
    return &ranks_tab[context / RANKS_CHUNK][context % RANKS_CHUNK];
}

canal_status_t adi_ctx_set_ranks(int context, int n, const int *job_ranks)
{
    ctx_ranks_t *e;
    int *copy = NULL;

    if (context < 0 || context >= ADI_CONTEXT_MAX || n < 0)
        return common_err_set(CANAL_ERR_ARG, "adi_ctx_set_ranks: context %d, %d ranks", context, n);
    if (job_ranks != NULL && n > 0) {
        if ((copy = malloc((size_t)n * sizeof *copy)) == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for the ranks of context %d",
                                  context);
        memcpy(copy, job_ranks, (size_t)n * sizeof *copy);
    }
    pthread_mutex_lock(&ranks_lock);
    if (ranks_tab[context / RANKS_CHUNK] == NULL &&
        (ranks_tab[context / RANKS_CHUNK] = calloc(RANKS_CHUNK, sizeof(ctx_ranks_t))) == NULL) {
        pthread_mutex_unlock(&ranks_lock);
        free(copy);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the ranks of context %d", context);
    }
    e = &ranks_tab[context / RANKS_CHUNK][context % RANKS_CHUNK];
    free(e->ranks);
    free(e->acked);
    e->n = n;
    e->ranks = copy;
    e->acked = NULL;
    if (e->revoked)
        __atomic_sub_fetch(&adi_nrevoked, 1, __ATOMIC_SEQ_CST);
    e->revoked = 0;
    e->ft = 0;
    pthread_mutex_unlock(&ranks_lock);
    return CANAL_OK;
}

static int job_failed(int job)
{
    return job >= 0 && job < __atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&adi_dev.peers[job].failed, __ATOMIC_ACQUIRE);
}

canal_status_t adi_ctx_scope_push(int context, int tag, int n, const int *job_ranks)
{
    ctx_scope_t *sc;

    if (n < 0 || job_ranks == NULL || (sc = malloc(sizeof *sc + (size_t)n * sizeof(int))) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the scope of context %d tag %d",
                              context, tag);
    sc->context = context;
    sc->tag = tag;
    sc->n = n;
    memcpy(sc->jobs, job_ranks, (size_t)n * sizeof(int));
    pthread_mutex_lock(&ranks_lock);
    sc->next = scopes;
    scopes = sc;
    pthread_mutex_unlock(&ranks_lock);
    return CANAL_OK;
}

void adi_ctx_scope_pop(int context, int tag)
{
    ctx_scope_t **pp, *sc = NULL;

    pthread_mutex_lock(&ranks_lock);
    for (pp = &scopes; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->context == context && (*pp)->tag == tag) {
            sc = *pp;
            *pp = sc->next;
            break;
        }
    pthread_mutex_unlock(&ranks_lock);
    free(sc);
}

/* The scope of (context, tag), or NULL (ranks_lock held). */
static const ctx_scope_t *scope_locked(int context, int tag)
{
    for (const ctx_scope_t *sc = scopes; sc != NULL; sc = sc->next)
        if (sc->context == context && sc->tag == tag)
            return sc;
    return NULL;
}

canal_status_t adi_ctx_src_failed(int context, int src, int tag, int *peer_out)
{
    const ctx_ranks_t *e;
    const ctx_scope_t *sc;
    canal_status_t st = CANAL_OK;
    int coll = context & 1;

    if ((__atomic_load_n(&adi_dev.nfailed, __ATOMIC_SEQ_CST) == 0 &&
         __atomic_load_n(&adi_nrevoked, __ATOMIC_SEQ_CST) == 0) ||
        context < 0 || context >= ADI_CONTEXT_MAX)
        return CANAL_OK;
    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) == NULL)
        goto out; /* not a context mpi/ described: nothing known */
    if (e->revoked) {
        *peer_out = -1;
        st = CANAL_ERR_REVOKED;
    } else if (coll && scopes != NULL && (sc = scope_locked(context, tag)) != NULL) {
        for (int r = 0; r < sc->n && st == CANAL_OK; r++)
            if (job_failed(sc->jobs[r])) {
                st = CANAL_ERR_PEER;
                *peer_out = sc->jobs[r];
            }
    } else if (coll || (src == ADI_ANY_SOURCE && !e->ft)) {
        for (int r = 0; r < e->n && st == CANAL_OK; r++) {
            int job = e->ranks != NULL ? e->ranks[r] : r;
            if (job_failed(job) && (coll || e->acked == NULL || !e->acked[r])) {
                st = coll ? CANAL_ERR_PEER : CANAL_ERR_PEER_PENDING;
                *peer_out = job;
            }
        }
    } else if (src >= 0 && src < e->n) {
        int job = e->ranks != NULL ? e->ranks[src] : src;
        if (job_failed(job)) {
            st = CANAL_ERR_PEER;
            *peer_out = job;
        }
    }
out:
    pthread_mutex_unlock(&ranks_lock);
    return st;
}

int adi_nlost;

int adi_recv_failure_pending_slow(adi_request_t *r, int *peer_out)
{
    int peer = -1;

    if (r->kind != ADI_REQ_RECV ||
        r->rank != ADI_ANY_SOURCE || __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != REQ_RECV_POSTED)
        return 0;
    if (adi_ctx_src_failed(r->context, ADI_ANY_SOURCE, r->tag, &peer) != CANAL_ERR_PEER_PENDING)
        return 0;
    if (peer_out != NULL)
        *peer_out = peer;
    return 1;
}

int adi_peer_failed(int job)
{
    return __atomic_load_n(&adi_dev.nfailed, __ATOMIC_RELAXED) != 0 && job_failed(job);
}

/* Whether any of the n contexts from `first` on is revoked: one atomic load
 * while nothing is revoked. */
static int ctx_any_revoked(int first, int n)
{
    const ctx_ranks_t *e;
    int revoked = 0;

    if (__atomic_load_n(&adi_nrevoked, __ATOMIC_SEQ_CST) == 0)
        return 0;
    pthread_mutex_lock(&ranks_lock);
    for (int c = first; c < first + n && !revoked; c++)
        if ((e = entry_locked(c, 0)) != NULL)
            revoked = e->revoked;
    pthread_mutex_unlock(&ranks_lock);
    return revoked;
}

int adi_ctx_revoked(int context)
{
    return ctx_any_revoked(context, 1);
}

int adi_ctx_pair_revoked(int context)
{
    return ctx_any_revoked(context, 2);
}

/* Mark context revoked (ranks_lock only): 1 if it was not yet. */
static int revoke_mark(int context)
{
    ctx_ranks_t *e;
    int fresh = 0;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 1)) != NULL && !(e->revoked & 1)) {
        if (e->revoked == 0)
            __atomic_add_fetch(&adi_nrevoked, 1, __ATOMIC_SEQ_CST);
        e->revoked |= 1;
        fresh = 1;
    }
    pthread_mutex_unlock(&ranks_lock);
    return fresh;
}

int adi_ctx_revoke_locked(int context)
{
    int fresh = revoke_mark(context);
    if (fresh) {
        adi_posted_fail_all();
        adi_revoked_sweep(context);
    }
    return fresh;
}

/* A peer answered a send on context that it dropped the message because the
 * context is revoked (PKT_FLAG_REVOKED), maybe before this process got the
 * notice: later operations here fail at once too. The notice, when it
 * comes, still counts as the first (mpi/ulfm.c forwards it then). */
void adi_ctx_revoked_by_peer_locked(int context)
{
    ctx_ranks_t *e;
    int fresh = 0;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 1)) != NULL && e->revoked == 0) {
        e->revoked = 2;
        __atomic_add_fetch(&adi_nrevoked, 1, __ATOMIC_SEQ_CST);
        fresh = 1;
    }
    pthread_mutex_unlock(&ranks_lock);
    if (fresh) {
        adi_posted_fail_all();
        adi_revoked_sweep(context);
    }
}

int adi_ctx_revoke(int context)
{
    int fresh;
    adi_lock();
    fresh = adi_ctx_revoke_locked(context);
    adi_unlock();
    return fresh;
}

canal_status_t adi_ctx_set_ft(int context)
{
    ctx_ranks_t *e;
    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 1)) != NULL)
        e->ft = 1;
    pthread_mutex_unlock(&ranks_lock);
    return e != NULL
               ? CANAL_OK
               : common_err_set(CANAL_ERR_NOMEM, "no memory for the ranks of context %d", context);
}

canal_status_t adi_ctx_failure_ack(int context)
{
    ctx_ranks_t *e;
    canal_status_t st = CANAL_OK;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) == NULL || e->n == 0)
        goto out;
    if (e->acked == NULL && (e->acked = calloc((size_t)e->n, 1)) == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for the acknowledged failures");
        goto out;
    }
    for (int r = 0; r < e->n; r++)
        if (job_failed(e->ranks != NULL ? e->ranks[r] : r))
            e->acked[r] = 1;
out:
    pthread_mutex_unlock(&ranks_lock);
    return st;
}

int adi_ctx_failed_ranks(int context, int acked_only, int *out, int max)
{
    const ctx_ranks_t *e;
    int k = 0;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) != NULL)
        for (int r = 0; r < e->n; r++) {
            int hit = acked_only ? e->acked != NULL && e->acked[r]
                                 : job_failed(e->ranks != NULL ? e->ranks[r] : r);
            if (hit) {
                if (k < max)
                    out[k] = r;
                k++;
            }
        }
    pthread_mutex_unlock(&ranks_lock);
    return k;
}

int adi_ctx_job_ranks(int context, int *out, int max)
{
    const ctx_ranks_t *e;
    int n = 0;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) != NULL) {
        n = e->n;
        for (int r = 0; r < n && r < max; r++)
            out[r] = e->ranks != NULL ? e->ranks[r] : r;
    }
    pthread_mutex_unlock(&ranks_lock);
    return n;
}

int adi_ctx_failed_ordered(int context, int *out, int max)
{
    const ctx_ranks_t *e;
    int k = 0;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) != NULL)
        for (int r = 0; r < e->n; r++) {
            int job = e->ranks != NULL ? e->ranks[r] : r, pos;
            int order = job_failed(job) ? __atomic_load_n(&adi_dev.peers[job].failed,
                                                          __ATOMIC_ACQUIRE)
                                        : 0;
            if (order == 0)
                continue;
            if (k < max) { /* insertion by the order of the losses (few) */
                for (pos = k; pos > 0; pos--) {
                    int prev = out[pos - 1];
                    int pj = e->ranks != NULL ? e->ranks[prev] : prev;
                    if (__atomic_load_n(&adi_dev.peers[pj].failed, __ATOMIC_ACQUIRE) <= order)
                        break;
                    out[pos] = prev;
                }
                out[pos] = r;
            }
            k++;
        }
    pthread_mutex_unlock(&ranks_lock);
    return k;
}

canal_status_t adi_ctx_ack_ranks(int context, const int *ranks, int k)
{
    ctx_ranks_t *e;
    canal_status_t st = CANAL_OK;

    pthread_mutex_lock(&ranks_lock);
    if ((e = entry_locked(context, 0)) == NULL || e->n == 0)
        goto out;
    if (e->acked == NULL && (e->acked = calloc((size_t)e->n, 1)) == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for the acknowledged failures");
        goto out;
    }
    for (int i = 0; i < k; i++)
        if (ranks[i] >= 0 && ranks[i] < e->n)
            e->acked[ranks[i]] = 1;
out:
    pthread_mutex_unlock(&ranks_lock);
    return st;
}

int adi_launcher_pending;

void adi_launcher_failed(int rank)
{
    if (rank < 0 || rank >= adi_dev.size || adi_dev.peers == NULL || rank == adi_dev.rank)
        return;
    __atomic_store_n(&adi_dev.peers[rank].launcher_failed, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&adi_launcher_pending, 1, __ATOMIC_SEQ_CST);
}

void adi_peer_report_failed(int rank, const char *how)
{
    if (rank < 0 || rank >= adi_dev.size || rank == adi_dev.rank)
        return;
    adi_lock();
    if (!adi_dev.peers[rank].failed) {
        common_err_set(CANAL_ERR_PEER, "%s", how);
        adi_on_peer_failed(rank, CANAL_ERR_PEER);
    }
    adi_unlock();
}

void adi_launcher_take(void)
{
    adi_lock();
    __atomic_store_n(&adi_launcher_pending, 0, __ATOMIC_SEQ_CST);
    for (int r = 0; r < adi_dev.size; r++) {
        if (!__atomic_exchange_n(&adi_dev.peers[r].launcher_failed, 0, __ATOMIC_ACQ_REL) ||
            adi_dev.peers[r].failed)
            continue;
        common_err_set(CANAL_ERR_PEER, "the launcher reports that the process ended");
        adi_on_peer_failed(r, CANAL_ERR_PEER);
    }
    adi_unlock();
}

void adi_ctx_ranks_finalize(void)
{
    pthread_mutex_lock(&ranks_lock);
    for (int c = 0; c < RANKS_CHUNKS; c++) {
        if (ranks_tab[c] == NULL)
            continue;
        for (int i = 0; i < RANKS_CHUNK; i++) {
            free(ranks_tab[c][i].ranks);
            free(ranks_tab[c][i].acked);
        }
        free(ranks_tab[c]);
        ranks_tab[c] = NULL;
    }
    adi_nrevoked = 0;
    pthread_mutex_unlock(&ranks_lock);
}
