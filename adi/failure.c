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
 */
#include "adi/adi_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { RANKS_CHUNK = 256, RANKS_CHUNKS = ADI_CONTEXT_MAX / RANKS_CHUNK };

typedef struct {
    int n;      /* source ranks 0..n-1 */
    int *ranks; /* job rank of each; NULL: source rank r is job rank r */
} ctx_ranks_t;

static ctx_ranks_t *ranks_tab[RANKS_CHUNKS];
static pthread_mutex_t ranks_lock = PTHREAD_MUTEX_INITIALIZER;

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
    e->n = n;
    e->ranks = copy;
    pthread_mutex_unlock(&ranks_lock);
    return CANAL_OK;
}

static int job_failed(int job)
{
    return job >= 0 && job < adi_dev.npeers &&
           __atomic_load_n(&adi_dev.peers[job].failed, __ATOMIC_ACQUIRE);
}

int adi_ctx_src_failed(int context, int src, int *peer_out)
{
    const ctx_ranks_t *e;
    int found = 0;

    if (__atomic_load_n(&adi_dev.nfailed, __ATOMIC_SEQ_CST) == 0 || context < 0 ||
        context >= ADI_CONTEXT_MAX)
        return 0;
    pthread_mutex_lock(&ranks_lock);
    if (ranks_tab[context / RANKS_CHUNK] == NULL)
        goto out; /* not a context mpi/ described: nothing known */
    e = &ranks_tab[context / RANKS_CHUNK][context % RANKS_CHUNK];
    if (src == ADI_ANY_SOURCE) {
        for (int r = 0; r < e->n && !found; r++) {
            int job = e->ranks != NULL ? e->ranks[r] : r;
            if (job_failed(job)) {
                found = 1;
                *peer_out = job;
            }
        }
    } else if (src >= 0 && src < e->n) {
        int job = e->ranks != NULL ? e->ranks[src] : src;
        if (job_failed(job)) {
            found = 1;
            *peer_out = job;
        }
    }
out:
    pthread_mutex_unlock(&ranks_lock);
    return found;
}

void adi_ctx_ranks_finalize(void)
{
    pthread_mutex_lock(&ranks_lock);
    for (int c = 0; c < RANKS_CHUNKS; c++) {
        if (ranks_tab[c] == NULL)
            continue;
        for (int i = 0; i < RANKS_CHUNK; i++)
            free(ranks_tab[c][i].ranks);
        free(ranks_tab[c]);
        ranks_tab[c] = NULL;
    }
    pthread_mutex_unlock(&ranks_lock);
}
