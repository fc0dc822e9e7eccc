/*
 * The fake PMI of test/unit/fake_pmi.h: pmi/pmi.h implemented for a job of
 * forked processes sharing one anonymous mapping. Used by the channel unit
 * tests (test_ch_shm, and the sock/ofi tests after it). Only for tests: a
 * spinlock guards the table, the fence is a counting barrier with polling.
 */
#include "common/clock.h"
#include "test/unit/fake_pmi.h"
#include "test/unit/unit_limits.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { KV_MAX = 2048, PUB_MAX = 64 };

typedef struct {
    int rank;
    int epoch; /* the putter's fence count at put time */
    char key[PMI_KEY_MAX];
    char val[PMI_VAL_MAX];
} kv_entry_t;

typedef struct {
    int used;
    char service[PMI_KEY_MAX];
    char port[PMI_VAL_MAX];
} pub_entry_t;

typedef struct {
    int nprocs;
    int timeout_s;
    char jobid[64];
    int node_of[FAKE_PMI_MAX_PROCS];
    int nnodes;
    _Atomic int lock;
    _Atomic int arrived;
    _Atomic int generation;
    _Atomic int aborted;
    _Atomic int failed_rank; /* 1 + the first rank that failed a check; 0: none */
    int nkv;
    kv_entry_t kv[KV_MAX];
    pub_entry_t pub[PUB_MAX];
} shared_t;

static shared_t *sh;
static int my_rank = -1;
static int my_epoch;
static int *my_node_of;
static int *my_local_ranks;

int fake_pmi_rank(void)
{
    return my_rank;
}
int fake_pmi_epoch(void)
{
    return my_epoch;
}

static double now_s(void)
{
    return common_now_s();
}

static void pause_briefly(int spins)
{
    if (spins < 100) {
        sched_yield();
    } else {
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

static void lock(void)
{
    int spins = 0;
    int expected = 0;
    while (!atomic_compare_exchange_weak(&sh->lock, &expected, 1)) {
        expected = 0;
        pause_briefly(spins++);
    }
}

static void unlock(void)
{
    atomic_store(&sh->lock, 0);
}

static canal_status_t need_child(const char *what)
{
    if (sh == NULL || my_rank < 0)
        return common_err_set(CANAL_ERR_INTERN, "fake pmi: %s outside fake_pmi_run()", what);
    return CANAL_OK;
}

/* ---- pmi.h ------------------------------------------------------------- */

canal_status_t pmi_init(pmi_info_t *info_out)
{
    canal_status_t err;
    int n, me, nl = 0;

    if ((err = need_child("pmi_init")) != CANAL_OK)
        return err;
    if (info_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_init: info_out is NULL");
    n = sh->nprocs;
    free(my_node_of);
    free(my_local_ranks);
    my_node_of = calloc((size_t)n, sizeof *my_node_of);
    my_local_ranks = calloc((size_t)n, sizeof *my_local_ranks);
    if (my_node_of == NULL || my_local_ranks == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "fake pmi_init");
    memset(info_out, 0, sizeof *info_out);
    info_out->kind = PMI_KIND_PMI1;
    info_out->rank = my_rank;
    info_out->size = n;
    info_out->appnum = 0;
    info_out->universe_size = n;
    snprintf(info_out->jobid, sizeof info_out->jobid, "%s", sh->jobid);
    info_out->nnodes = sh->nnodes;
    me = -1;
    for (int r = 0; r < n; r++) {
        my_node_of[r] = sh->node_of[r];
        if (sh->node_of[r] == sh->node_of[my_rank]) {
            if (r == my_rank)
                me = nl;
            my_local_ranks[nl++] = r;
        }
    }
    info_out->node_of = my_node_of;
    info_out->local_size = nl;
    info_out->local_rank = me;
    info_out->local_ranks = my_local_ranks;
    return CANAL_OK;
}

const char *pmi_describe(void)
{
    return "fake PMI (unit tests)";
}

canal_status_t pmi_put(const char *key, const char *value)
{
    canal_status_t err;

    if ((err = need_child("pmi_put")) != CANAL_OK)
        return err;
    if (key == NULL || value == NULL || strlen(key) >= PMI_KEY_MAX || strlen(value) >= PMI_VAL_MAX)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_put: bad key or value (%s)",
                              key != NULL ? key : "NULL");
    lock();
    if (sh->nkv >= KV_MAX) {
        unlock();
        return common_err_set(CANAL_ERR_LIMIT, "fake pmi_put: KVS full (%d entries)", KV_MAX);
    }
    kv_entry_t *e = &sh->kv[sh->nkv++];
    e->rank = my_rank;
    e->epoch = my_epoch;
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->val, sizeof e->val, "%s", value);
    unlock();
    return CANAL_OK;
}

canal_status_t pmi_fence(void)
{
    canal_status_t err;
    int gen, spins = 0;
    double deadline;

    if ((err = need_child("pmi_fence")) != CANAL_OK)
        return err;
    deadline = now_s() + sh->timeout_s;
    gen = atomic_load(&sh->generation);
    if (atomic_fetch_add(&sh->arrived, 1) == sh->nprocs - 1) {
        atomic_store(&sh->arrived, 0);
        atomic_fetch_add(&sh->generation, 1);
    } else {
        while (atomic_load(&sh->generation) == gen) {
            if (atomic_load(&sh->aborted))
                return common_err_set(CANAL_ERR_PEER, "fake pmi_fence: job aborted");
            if (now_s() > deadline)
                return common_err_set(CANAL_ERR_TIMEOUT,
                                      "fake pmi_fence: rank %d waited %d s for the others", my_rank,
                                      sh->timeout_s);
            pause_briefly(spins++);
        }
    }
    my_epoch++;
    return CANAL_OK;
}

canal_status_t pmi_get(int rank, const char *key, char *value_out, size_t len)
{
    canal_status_t err;

    if ((err = need_child("pmi_get")) != CANAL_OK)
        return err;
    if (rank < 0 || rank >= sh->nprocs || key == NULL || value_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_get: rank %d key %s", rank,
                              key != NULL ? key : "NULL");
    lock();
    /* Newest first, and only what was put before a fence we completed. */
    for (int i = sh->nkv - 1; i >= 0; i--) {
        kv_entry_t *e = &sh->kv[i];
        if (e->rank == rank && strcmp(e->key, key) == 0 &&
            (e->epoch < my_epoch || rank == my_rank)) {
            if (strlen(e->val) >= len) {
                unlock();
                return common_err_set(CANAL_ERR_TRUNCATE,
                                      "fake pmi_get: value of %s longer than %zu", key, len);
            }
            snprintf(value_out, len, "%s", e->val);
            unlock();
            return CANAL_OK;
        }
    }
    unlock();
    return common_err_set(CANAL_ERR_NOTFOUND,
                          "fake pmi_get: rank %d has no key %s (before fence %d)", rank, key,
                          my_epoch);
}

canal_status_t pmi_publish(const char *service, const char *port)
{
    canal_status_t err;

    if ((err = need_child("pmi_publish")) != CANAL_OK)
        return err;
    if (service == NULL || port == NULL || strlen(service) >= PMI_KEY_MAX ||
        strlen(port) >= PMI_VAL_MAX)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_publish: bad service or port");
    lock();
    for (int i = 0; i < PUB_MAX; i++)
        if (sh->pub[i].used && strcmp(sh->pub[i].service, service) == 0) {
            unlock();
            return common_err_set(CANAL_ERR_ARG, "fake pmi_publish: %s already published", service);
        }
    for (int i = 0; i < PUB_MAX; i++)
        if (!sh->pub[i].used) {
            sh->pub[i].used = 1;
            snprintf(sh->pub[i].service, sizeof sh->pub[i].service, "%s", service);
            snprintf(sh->pub[i].port, sizeof sh->pub[i].port, "%s", port);
            unlock();
            return CANAL_OK;
        }
    unlock();
    return common_err_set(CANAL_ERR_LIMIT, "fake pmi_publish: table full");
}

canal_status_t pmi_lookup(const char *service, char *port_out, size_t len)
{
    canal_status_t err;

    if ((err = need_child("pmi_lookup")) != CANAL_OK)
        return err;
    if (service == NULL || port_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_lookup: bad arguments");
    lock();
    for (int i = 0; i < PUB_MAX; i++)
        if (sh->pub[i].used && strcmp(sh->pub[i].service, service) == 0) {
            snprintf(port_out, len, "%s", sh->pub[i].port);
            unlock();
            return CANAL_OK;
        }
    unlock();
    return common_err_set(CANAL_ERR_NOTFOUND, "fake pmi_lookup: %s not published", service);
}

canal_status_t pmi_unpublish(const char *service)
{
    canal_status_t err;

    if ((err = need_child("pmi_unpublish")) != CANAL_OK)
        return err;
    if (service == NULL)
        return common_err_set(CANAL_ERR_ARG, "fake pmi_unpublish: service is NULL");
    lock();
    for (int i = 0; i < PUB_MAX; i++)
        if (sh->pub[i].used && strcmp(sh->pub[i].service, service) == 0) {
            sh->pub[i].used = 0;
            unlock();
            return CANAL_OK;
        }
    unlock();
    return common_err_set(CANAL_ERR_NOTFOUND, "fake pmi_unpublish: %s not published", service);
}

void fake_pmi_note_failed(void)
{
    int none = 0;
    if (sh != NULL && my_rank >= 0)
        atomic_compare_exchange_strong(&sh->failed_rank, &none, my_rank + 1);
}

int fake_pmi_failed_rank(void)
{
    return sh != NULL ? atomic_load_explicit(&sh->failed_rank, memory_order_relaxed) - 1 : -1;
}

canal_status_t pmi_abort(int code, const char *msg)
{
    if (sh != NULL)
        atomic_store(&sh->aborted, 1);
    fprintf(stderr, "[fake pmi rank %d] abort(%d): %s\n", my_rank, code, msg != NULL ? msg : "");
    fflush(NULL);
    _exit(code != 0 ? code : 1);
}

canal_status_t pmi_finalize(void)
{
    return CANAL_OK;
}

/* ---- the job ----------------------------------------------------------- */

int fake_pmi_run(const fake_pmi_job_t *job, fake_pmi_body_t body, void *arg)
{
    static int jobs;
    pid_t pids[FAKE_PMI_MAX_PROCS];
    int status[FAKE_PMI_MAX_PROCS];
    int done[FAKE_PMI_MAX_PROCS] = {0};
    int n, nnodes, ndone = 0, failed = 0;
    double deadline;

    if (job == NULL || body == NULL || job->nprocs < 1 || job->nprocs > FAKE_PMI_MAX_PROCS)
        return -1;
    n = job->nprocs;
    nnodes = job->nnodes > 0 ? job->nnodes : 1;
    if (nnodes > n)
        nnodes = n;
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        sh = NULL;
        return -1;
    }
    sh->nprocs = n;
    sh->nnodes = nnodes;
    sh->timeout_s = job->timeout_s > 0 ? job->timeout_s : (int)(2 * unit_hang_s());
    snprintf(sh->jobid, sizeof sh->jobid, "fakejob-%ld-%d", (long)getpid(), jobs++);
    for (int r = 0; r < n; r++)
        sh->node_of[r] = job->cyclic ? r % nnodes : r * nnodes / n;

    fflush(NULL);
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] < 0) {
            for (int k = 0; k < r; k++)
                kill(pids[k], SIGKILL);
            for (int k = 0; k < r; k++)
                waitpid(pids[k], NULL, 0);
            munmap(sh, sizeof *sh);
            sh = NULL;
            return -1;
        }
        if (pids[r] == 0) {
            int rc;
            my_rank = r;
            my_epoch = 0;
            rc = body(r, arg);
            fflush(NULL);
            _exit(rc == 0 ? 0 : 1);
        }
    }

    deadline = now_s() + sh->timeout_s + 5;
    while (ndone < n) {
        int progressed = 0;
        for (int r = 0; r < n; r++) {
            if (done[r])
                continue;
            pid_t w = waitpid(pids[r], &status[r], WNOHANG);
            if (w == pids[r] || (w < 0 && errno != EINTR)) {
                if (w < 0)
                    status[r] = -1;
                done[r] = 1;
                ndone++;
                progressed = 1;
                if (!(WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 0)) {
                    failed++;
                    /* One rank failed: the others would wait for it forever. */
                    atomic_store(&sh->aborted, 1);
                }
            }
        }
        if (ndone < n && now_s() > deadline) {
            for (int r = 0; r < n; r++)
                if (!done[r]) {
                    fprintf(stderr, "fake_pmi_run: rank %d (pid %d) timed out, killing it\n", r,
                            (int)pids[r]);
                    kill(pids[r], SIGKILL);
                    waitpid(pids[r], &status[r], 0);
                    done[r] = 1;
                    ndone++;
                    failed++;
                }
        }
        if (!progressed && ndone < n) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    if (job->wstatus_out != NULL)
        for (int r = 0; r < n; r++)
            job->wstatus_out[r] = status[r];
    munmap(sh, sizeof *sh);
    sh = NULL;
    return failed;
}
