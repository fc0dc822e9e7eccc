/*
 * Request objects: allocated from blocks that never move, so an index names
 * a request for as long as it lives (mpi/ builds the MPI_Request handle from
 * it, and packets carry it to the peer). A free list makes allocation O(1)
 * with no malloc on the fast path once the pool has warmed up.
 */
#include "adi/adi_impl.h"

#include <stdlib.h>
#include <string.h>

enum { RBLOCK = 256, RBLOCKS = 16384 };

static adi_request_t *blocks[RBLOCKS];
static int nblocks;
static adi_request_t *free_head;

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
        blk[i].next = free_head;
        free_head = &blk[i];
    }
    __atomic_store_n(&blocks[nblocks], blk, __ATOMIC_RELEASE);
    nblocks++;
    return 0;
}

adi_request_t *adi_request_alloc(adi_req_kind_t kind)
{
    adi_request_t *r;
    int index;

    adi_lock();
    if (free_head == NULL && pool_grow() < 0) {
        adi_unlock();
        return NULL;
    }
    r = free_head;
    free_head = r->next;
    index = r->index;
    memset(r, 0, sizeof *r);
    r->index = index;
    r->kind = kind;
    r->state = REQ_IDLE;
    r->status.source = ADI_ANY_SOURCE;
    r->status.tag = ADI_ANY_TAG;
    adi_unlock();
    return r;
}

adi_request_t *adi_request_at(int index)
{
    adi_request_t *blk, *r;

    if (index < 0 || index / RBLOCK >= RBLOCKS)
        return NULL;
    blk = __atomic_load_n(&blocks[index / RBLOCK], __ATOMIC_ACQUIRE);
    if (blk == NULL)
        return NULL;
    r = &blk[index % RBLOCK];
    return r->state == REQ_FREE ? NULL : r;
}

void adi_request_free(adi_request_t *r)
{
    if (r == NULL || r->state == REQ_FREE)
        return;
    adi_lock();
    free(r->tmp);
    r->tmp = NULL;
    r->state = REQ_FREE;
    r->kind = 0;
    r->next = free_head;
    free_head = r;
    adi_unlock();
}

void adi_req_finish(adi_request_t *r)
{
    dt_cursor_fini(&r->cursor);
    if (r->dt != NULL) {
        dt_release(r->dt);
        r->dt = NULL;
    }
    free(r->tmp);
    r->tmp = NULL;
    r->state = REQ_DONE;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    if (r->on_complete != NULL) {
        adi_complete_fn f = r->on_complete;
        r->on_complete = NULL;
        f(r, r->on_complete_arg);
    }
    if (r->user_freed) {
        /* MPI_Request_free'd while active: nobody will wait for it. */
        r->state = REQ_FREE;
        r->kind = 0;
        r->next = free_head;
        free_head = r;
    }
}

void adi_request_complete(adi_request_t *r)
{
    adi_lock();
    adi_req_finish(r);
    adi_unlock();
}

void adi_request_pool_finalize(void)
{
    for (int i = 0; i < nblocks; i++) {
        free(blocks[i]);
        blocks[i] = NULL;
    }
    nblocks = 0;
    free_head = NULL;
}
