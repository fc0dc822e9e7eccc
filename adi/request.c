/*
 * Request objects: allocated from blocks that never move, so an index names
 * a request for as long as it lives (mpi/ builds the MPI_Request handle from
 * it, and packets carry it to the peer). A free list makes allocation O(1)
 * with no malloc on the fast path once the pool has warmed up. In locked
 * mode the free list has its own small lock (never held while calling
 * out, innermost in the lock order), so allocating a request does not wait
 * for the thread polling the channels; and each thread keeps a small cache
 * of free requests in front of it, so that a thread's own allocations and
 * frees take that lock once per RCACHE_BATCH requests rather than twice per
 * message (MPI_THREAD_MULTIPLE with one active thread, mpi4py's default).
 * A thread's cache goes back to the shared list when the thread exits; a
 * cache left from before adi_request_pool_finalize is dropped (generation).
 */
#include "adi/adi_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { RBLOCK = ADI_REQ_BLOCK, RBLOCKS = ADI_REQ_BLOCKS };

#if defined(__x86_64__) && defined(__LP64__)
/* adi_req_init initializes the request field by field: a field added to
 * adi_request_t must be initialized there too (then update this size). */
_Static_assert(sizeof(adi_request_t) == 368, "initialize the new field in adi_req_init (adi_impl.h)");
#endif

adi_request_t *adi_req_blocks[ADI_REQ_BLOCKS]; /* (adi_request_at, adi.h) */
static int nblocks;
/* the free list (in locked mode the threads' caches come first); read inline
 * by adi_request_alloc_fast (adi_impl.h) */
adi_request_t *adi_req_free_head;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calling thread's cache (locked mode only): a list of free requests
 * of the pool generation `gen`. */
enum { RCACHE_BATCH = 32, RCACHE_MAX = ADI_RCACHE_MAX };
typedef adi_req_cache_t req_cache_t;
__thread req_cache_t adi_req_tcache; /* (its pop is inline: adi_request_take, adi_impl.h) */
unsigned adi_req_pool_gen = 1; /* under pool_lock; 0 is never a generation */
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

/* Move up to n requests of the cache c to the shared list (pool_lock held). */
static void cache_spill_locked(req_cache_t *c, int n)
{
    while (n-- > 0 && c->head != NULL) {
        adi_request_t *r = c->head;
        c->head = r->next;
        c->n--;
        r->next = adi_req_free_head;
        adi_req_free_head = r;
    }
}

/* pthread key destructor: an exiting thread's cache goes back to the pool. */
static void cache_at_exit(void *arg)
{
    req_cache_t *c = arg;
    pthread_mutex_lock(&pool_lock);
    if (c->gen == adi_req_pool_gen)
        cache_spill_locked(c, c->n);
    c->head = NULL;
    c->n = 0;
    pthread_mutex_unlock(&pool_lock);
}

static void cache_key_make(void) { pthread_key_create(&cache_key, cache_at_exit); }

/* pool_put's locked mode: into the thread's cache (out of line, so that the
 * unlocked push saves no registers). */
static __attribute__((noinline)) void pool_put_locked(adi_request_t *r)
{
    req_cache_t *c = &adi_req_tcache;
    if (c->gen == __atomic_load_n(&adi_req_pool_gen, __ATOMIC_RELAXED)) {
        r->next = c->head;
        c->head = r;
        if (++c->n > RCACHE_MAX) {
            pthread_mutex_lock(&pool_lock);
            cache_spill_locked(c, RCACHE_BATCH);
            pthread_mutex_unlock(&pool_lock);
        }
        return;
    }
    pthread_mutex_lock(&pool_lock);
    r->next = adi_req_free_head;
    adi_req_free_head = r;
    pthread_mutex_unlock(&pool_lock);
}

/* Back to the free list; the caller has released what r owned. Unlocked:
 * a push. */
static inline void pool_put(adi_request_t *r)
{
    r->state = REQ_FREE;
    r->kind = 0;
    __atomic_store_n(&r->live, 0, __ATOMIC_RELEASE);
    if (adi_locked) {
        req_cache_t *c = &adi_req_tcache;
        if (c->gen == __atomic_load_n(&adi_req_pool_gen, __ATOMIC_RELAXED) && c->n < RCACHE_MAX) {
            r->next = c->head;
            c->head = r;
            c->n++;
            return;
        }
        pool_put_locked(r);
        return;
    }
    r->next = adi_req_free_head;
    adi_req_free_head = r;
}

static int pool_grow(void)
{
    adi_request_t *blk;

    if (nblocks == RBLOCKS)
        return -1;
    blk = calloc(RBLOCK, sizeof *blk);
    if (blk == NULL)
        return -1;
    for (int i = RBLOCK - 1; i >= 0; i--) {
        blk[i].index = nblocks * RBLOCK + i;
        blk[i].next = adi_req_free_head;
        adi_req_free_head = &blk[i];
    }
    __atomic_store_n(&adi_req_blocks[nblocks], blk, __ATOMIC_RELEASE);
    nblocks++;
    return 0;
}

/* Locked mode: a request from the thread's cache, refilled from the shared
 * list a batch at a time (NULL when the pool cannot grow). Out of line, as
 * is the unlocked growth: adi_request_alloc's common path is a pop and
 * stores that need no saved register. */
static __attribute__((noinline)) adi_request_t *cache_take(void)
{
    req_cache_t *c = &adi_req_tcache;
    adi_request_t *r;

    if (c->head != NULL && c->gen == __atomic_load_n(&adi_req_pool_gen, __ATOMIC_RELAXED)) {
        r = c->head;
        c->head = r->next;
        c->n--;
        return r;
    }
    pthread_once(&cache_key_once, cache_key_make);
    pthread_mutex_lock(&pool_lock);
    if (c->gen != adi_req_pool_gen) { /* first use, or a cache from before a finalize */
        c->head = NULL;
        c->n = 0;
        c->gen = adi_req_pool_gen;
        pthread_setspecific(cache_key, c);
    }
    for (int i = 0; i < RCACHE_BATCH; i++) {
        if (adi_req_free_head == NULL && pool_grow() < 0)
            break;
        r = adi_req_free_head;
        adi_req_free_head = r->next;
        r->next = c->head;
        c->head = r;
        c->n++;
    }
    pthread_mutex_unlock(&pool_lock);
    if ((r = c->head) == NULL)
        return NULL;
    c->head = r->next;
    c->n--;
    return r;
}

/* adi_request_alloc's uncommon ways to a free request: locked mode, or an
 * empty free list (NULL when the pool cannot grow). */
__attribute__((noinline)) adi_request_t *adi_request_take_slow(void)
{
    adi_request_t *r;

    if (adi_locked)
        return cache_take();
    if (adi_req_free_head == NULL && pool_grow() < 0)
        return NULL;
    r = adi_req_free_head;
    adi_req_free_head = r->next;
    return r;
}

adi_request_t *adi_request_alloc(adi_req_kind_t kind)
{
    adi_request_t *r;

    if (__builtin_expect(adi_locked || adi_req_free_head == NULL, 0)) {
        if ((r = adi_request_take_slow()) == NULL)
            return NULL;
    } else {
        r = adi_req_free_head;
        adi_req_free_head = r->next;
    }
    adi_req_init(r, kind);
    return r;
}

/* Free r->tmp; a send's copy that adi_send_detach made (its buf) is
 * counted off adi_dev.detached_bytes. */
static void adi_req_tmp_free(adi_request_t *r)
{
    if (r->kind == ADI_REQ_SEND && r->buf == r->tmp)
        __atomic_sub_fetch(&adi_dev.detached_bytes, r->size, __ATOMIC_RELAXED);
    free(r->tmp);
    r->tmp = NULL;
}

void adi_request_free(adi_request_t *r)
{
    if (r == NULL || !__atomic_load_n(&r->live, __ATOMIC_ACQUIRE))
        return;
    if (r->tmp != NULL) /* (rare) */
        adi_req_tmp_free(r);
    pool_put(r);
}

/* A receive that got fewer bytes than its buffer holds must end on a
 * boundary of the buffer type's basic elements; a message ending inside one
 * (3 bytes into an MPI_INT buffer) was sent with another type signature,
 * which MPICH reports as truncation (its errors/pt2pt/truncmsg2). */
int adi_recv_partial_elem(dt_type_t *dt, size_t count, size_t bytes)
{
    size_t at = 0, before = 0;

    if (bytes >= count * dt_size(dt) || bytes == 0 || dt_size(dt) == 1)
        return 0;
    /* the last byte completes an element iff counting it adds one */
    return dt_count_elements(dt, bytes, &at) < 0 || at == SIZE_MAX ||
           (dt_count_elements(dt, bytes - 1, &before) == 0 && before != SIZE_MAX && before == at);
}

static void recv_check_partial(adi_request_t *r)
{
    if (r->kind != ADI_REQ_RECV || r->dt == NULL || r->status.error != 0 || r->status.cancelled)
        return;
    if (adi_recv_partial_elem(r->dt, r->count, r->status.bytes))
        r->status.error = CANAL_ERR_TRUNCATE;
}

canal_status_t adi_req_cursor_init(adi_request_t *r)
{
    if (r->cursor == NULL && (r->cursor = malloc(sizeof *r->cursor)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a datatype cursor");
    return dt_cursor_init(r->cursor, r->dt, r->count);
}

void adi_req_finish(adi_request_t *r)
{
    recv_check_partial(r);
    adi_req_finish_checked(r);
}

void adi_req_finish_checked(adi_request_t *r)
{
    if (r->cursor != NULL)
        dt_cursor_fini(r->cursor); /* (the memory stays with the request) */
    if (r->dt != NULL) {
        dt_release(r->dt);
        r->dt = NULL;
    }
    if (r->tmp != NULL) { /* (rare: a packed eager send, a DATA chunk, a detached send) */
        adi_req_tmp_free(r);
    }
    r->state = REQ_DONE;
    if (r->on_complete == NULL) {
        /* Once done is published, the thread waiting for r (which does not
         * hold the device lock) may free it and reuse it for another
         * operation: nothing of r is read after the store (TSan saw the
         * old order read on_complete of a request already taken again). */
        int freed = r->user_freed; /* (set under the device lock, held here) */
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
        if (freed) /* MPI_Request_free'd while active: nobody will wait for it. */
            pool_put(r);
        return;
    }
    /* A request with a completion callback belongs to that callback (an
     * internal operation nobody else waits for): it reads done, may mark r
     * freed or free it through its own state. */
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    adi_complete_fn f = r->on_complete;
    r->on_complete = NULL;
    f(r, r->on_complete_arg);
    if (r->user_freed)
        pool_put(r);
}

void adi_request_complete(adi_request_t *r)
{
    adi_lock();
    adi_req_finish(r);
    adi_unlock();
}

void adi_request_done_fresh(adi_request_t *r)
{
    r->state = REQ_DONE;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

void adi_request_init_done(adi_request_t *r, adi_req_kind_t kind, int index)
{
    /* Not live: adi_request_free returns at once, adi_request_at never
     * hands it out (the index is beyond the pool's blocks). */
    memset(r, 0, sizeof *r);
    r->index = index;
    r->kind = kind;
    r->status = (adi_status_t){.source = ADI_ANY_SOURCE, .tag = ADI_ANY_TAG, .peer = -1};
    r->state = REQ_DONE;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

void adi_request_pool_finalize(void)
{
    for (int i = 0; i < nblocks; i++) {
        for (int k = 0; k < RBLOCK; k++)
            if (adi_req_blocks[i][k].cursor != NULL) {
                dt_cursor_fini(adi_req_blocks[i][k].cursor);
                free(adi_req_blocks[i][k].cursor);
            }
        free(adi_req_blocks[i]);
        adi_req_blocks[i] = NULL;
    }
    nblocks = 0;
    adi_req_free_head = NULL;
    pthread_mutex_lock(&pool_lock);
    /* every thread's cache is now stale */
    __atomic_store_n(&adi_req_pool_gen, adi_req_pool_gen + 1 == 0 ? 1 : adi_req_pool_gen + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool_lock);
}

void adi_request_each_live(void (*fn)(adi_request_t *r, void *arg), void *arg)
{
    int n = __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE);

    for (int b = 0; b < n; b++) {
        adi_request_t *blk = __atomic_load_n(&adi_req_blocks[b], __ATOMIC_ACQUIRE);
        for (int i = 0; blk != NULL && i < RBLOCK; i++)
            if (__atomic_load_n(&blk[i].live, __ATOMIC_ACQUIRE))
                fn(&blk[i], arg);
    }
}
