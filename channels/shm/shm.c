/*
 * The shared-memory channel: ch_shm_ops, serving the ranks on this node.
 * The device (adi/) calls init() on every rank, then pmi_fence(), then
 * post_fence(); this file sets up the segment in those two steps:
 *   init:       every rank computes the layout; the lowest local rank
 *               creates and sizes the segment and publishes its name (or
 *               "!reason" if it failed) with pmi_put;
 *   post_fence: the others attach; every rank zeroes its incoming rings
 *               (first touch: the pages land near their reader) and writes
 *               its pid; a second pmi_fence() (on every rank of the job, even
 *               alone on its node) says everyone is attached, and the creator
 *               unlinks the name; every rank maps the pages of the rings it
 *               writes (they exist now). Then the CMA probe on a peer.
 * The data path is in shm_ring.c, single-copy reads in shm_cma.c, the
 * segment itself in shm_seg.c. Calls must be serialized by the caller (the
 * device holds its lock around the channel).
 */
#include "channels/shm/shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif

#include "common/cvar.h"
#include "common/log.h"
#include "common/proc.h"

uint32_t ch_shm_test_count_base;

static const char PMI_KEY_SEG[] = "canal-shm-seg";

const char *ch_shm_segment_name(ch_endpoint_t *ep)
{
    return ((ch_shm_state_t *)ep->state)->name;
}

static void state_reset(ch_shm_state_t *st)
{
    free(st->local_of);
    free(st->peers);
    free(st->poll_order);
    memset(st, 0, sizeof *st);
    st->armed_slot = -1;
}

static canal_status_t check_pmi(const pmi_info_t *pmi)
{
    if (pmi->size < 1 || pmi->rank < 0 || pmi->rank >= pmi->size)
        return common_err_set(CANAL_ERR_ARG, "shm init: rank %d of size %d", pmi->rank, pmi->size);
    if (pmi->local_size < 1 || pmi->local_size > pmi->size || pmi->local_ranks == NULL ||
        pmi->local_rank < 0 || pmi->local_rank >= pmi->local_size)
        return common_err_set(CANAL_ERR_ARG, "shm init: local rank %d of %d (local_ranks %p)",
                              pmi->local_rank, pmi->local_size, (void *)pmi->local_ranks);
    if (pmi->local_ranks[pmi->local_rank] != pmi->rank)
        return common_err_set(CANAL_ERR_ARG, "shm init: local_ranks[%d] = %d, not this rank %d",
                              pmi->local_rank, pmi->local_ranks[pmi->local_rank], pmi->rank);
    for (int i = 0; i < pmi->local_size; i++) {
        int r = pmi->local_ranks[i];
        if (r < 0 || r >= pmi->size || (i > 0 && r <= pmi->local_ranks[i - 1]))
            return common_err_set(
                CANAL_ERR_ARG, "shm init: local_ranks[%d] = %d is out of range or not increasing",
                i, r);
    }
    return CANAL_OK;
}

static canal_status_t ch_shm_init(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                                  ch_caps_t *caps_out)
{
    ch_shm_state_t *st = ep->state;
    char seg_key[PMI_KEY_MAX];
    long long cell, cells, segmax, soft_wrap;
    canal_status_t err;
    int node;

    if (pmi == NULL || up == NULL || up->on_packet == NULL || caps_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "shm init: %s is NULL",
                              pmi == NULL        ? "pmi"
                              : up == NULL       ? "up"
                              : caps_out == NULL ? "caps_out"
                                                 : "up->on_packet");
    if (st->initialized)
        return common_err_set(CANAL_ERR_PENDING, "shm init: already initialized");
    if ((err = check_pmi(pmi)) != CANAL_OK)
        return err;
    state_reset(st);
    st->up = *up;
    st->world_rank = pmi->rank;
    st->world_size = pmi->size;
    st->local_rank = pmi->local_rank;
    st->local_size = pmi->local_size;
    st->creator = pmi->local_rank == 0;
    st->anon = pmi->local_size == 1;

    if ((err = ch_shm_cma_parse_mode(common_cvar_str("SHM_CMA"), &st->cma_mode)) != CANAL_OK ||
        (err = ch_shm_cma_parse_write_fail(common_cvar_str("SHM_CMA_WRITE_FAIL"),
                                           &st->cma_write_fail)) != CANAL_OK ||
        (err = ch_shm_cma_parse_fail_after(st, common_cvar_str("SHM_CMA_FAIL_AFTER"))) !=
            CANAL_OK)
        goto fail_state;
    cell = common_cvar_int("SHM_CELL_SIZE");
    cells = common_cvar_int("SHM_CELLS");
    segmax = common_cvar_int("SHM_SEGMENT_MAX");
    soft_wrap = common_cvar_int("SHM_SOFT_WRAP");
    if (soft_wrap != 0 && (soft_wrap < 1024 || soft_wrap > (1 << 20))) {
        err = common_err_set(CANAL_ERR_ARG,
                             "shm init: CANAL_SHM_SOFT_WRAP=%lld must be 0 (off) or 1K..1M",
                             soft_wrap);
        goto fail_state;
    }
    if (cell <= 0 || cells <= 0 || segmax <= 0) {
        err = common_err_set(CANAL_ERR_ARG,
                             "shm init: CANAL_SHM_CELL_SIZE=%lld, CANAL_SHM_CELLS=%lld, "
                             "CANAL_SHM_SEGMENT_MAX=%lld must all be positive",
                             cell, cells, segmax);
        goto fail_state;
    }
    err = ch_shm_layout_compute(pmi->local_size, (size_t)cell, (size_t)cells, (size_t)segmax,
                                &st->lay);
    if (err != CANAL_OK)
        goto fail_state;
    st->wrap_first = ch_shm_soft_wrap_first((size_t)soft_wrap, st->lay.ring_bytes);
    if (st->lay.over_budget && st->creator)
        LOG_WARN("shm: %d local ranks need %zu bytes of shared memory, above "
                 "CANAL_SHM_SEGMENT_MAX=%lld",
                 pmi->local_size, st->lay.seg_size, segmax);

    st->local_of = malloc((size_t)pmi->size * sizeof *st->local_of);
    st->peers = calloc((size_t)pmi->local_size, sizeof *st->peers);
    st->poll_order = malloc(2 * (size_t)pmi->local_size * sizeof *st->poll_order);
    if (st->local_of == NULL || st->peers == NULL || st->poll_order == NULL) {
        err = common_err_set(CANAL_ERR_NOMEM, "shm init: peer tables for %d ranks", pmi->size);
        goto fail_state;
    }
    for (int r = 0; r < pmi->size; r++)
        st->local_of[r] = -1;
    for (int i = 0; i < pmi->local_size; i++) {
        st->local_of[pmi->local_ranks[i]] = i;
        st->peers[i].world = pmi->local_ranks[i];
    }
    st->own = &st->peers[pmi->local_rank];
    for (int k = 0, n = 0; k < 2 * pmi->local_size; k++)
        if (k % pmi->local_size != pmi->local_rank)
            st->poll_order[n++] = &st->peers[k % pmi->local_size];

    if ((err = ch_shm_cma_probe_self(st)) != CANAL_OK)
        goto fail_state;
    st->eager_limit = (size_t)common_cvar_int("SHM_EAGER_LIMIT");
    st->mb_registered = common_cvar_bool("SHM_MEMBARRIER") && ch_shm_membarrier_register();
    st->turns = common_cvar_bool("SHM_TURNS");

    ch_endpoint_key(ep, PMI_KEY_SEG, seg_key, sizeof seg_key);
    if (st->creator) {
        char val[PMI_VAL_MAX];
        node = pmi->node_of != NULL ? pmi->node_of[pmi->rank] : 0;
        if (!st->anon)
            ch_shm_seg_name(pmi->jobid, node, (long)getpid(), ep->instance, st->name,
                            sizeof st->name);
        err = ch_shm_seg_create(st);
        if (err != CANAL_OK) {
            /* Tell the others why, so they fail with the reason, not a hang
             * or a missing key. */
            snprintf(val, sizeof val, "!%s", common_err_detail());
            pmi_put(seg_key, val);
            goto fail_state;
        }
        if (!st->anon && (err = pmi_put(seg_key, st->name)) != CANAL_OK)
            goto fail_seg;
    }

    caps_out->max_payload = st->lay.payload_cap;
    caps_out->has_rdma = st->cma_state != SHM_CMA_DENIED;
    caps_out->has_rdma_write = caps_out->has_rdma;
    caps_out->rdma_read_sync = 1; /* (process_vm_readv) */
    caps_out->has_read_batch = caps_out->has_rdma; /* (one process_vm_readv) */
    caps_out->local_only = 1;
    caps_out->block_wakes_fast = 0;
    caps_out->can_block = 1;
    caps_out->sendv_wakes = 1;
    caps_out->has_dyn = 0;
    caps_out->turn_max = st->turns && ch_shm_turns_fit(st->lay.ring_bytes) ? SHM_TURN_BYTES : 0;
    st->initialized = 1;
    return CANAL_OK;

fail_seg:
    ch_shm_seg_detach(st);
fail_state:
    state_reset(st);
    return err;
}

/* The half a peer without turns reads: never written, never a new turn. */
static ch_shm_turn_t no_turn;

static void rings_wire(ch_shm_state_t *st)
{
    const ch_shm_layout_t *lay = &st->lay;
    int me = st->local_rank;

    st->slots = (ch_shm_slot_t *)(void *)(st->base + lay->slots_off);
    for (int li = 0; li < st->local_size; li++) {
        /* Ring s -> r lives in r's block at index s. */
        unsigned char *out = st->base + lay->rings_off + (size_t)li * lay->block_stride +
                             (size_t)me * lay->ring_stride;
        unsigned char *in = st->base + lay->rings_off + (size_t)me * lay->block_stride +
                            (size_t)li * lay->ring_stride;
        ch_shm_peer_t *p = &st->peers[li];
        p->out_ctl = (ch_shm_ring_ctl_t *)(void *)out;
        p->out_ring = out + sizeof(ch_shm_ring_ctl_t);
        p->in_ctl = (ch_shm_ring_ctl_t *)(void *)in;
        p->in_ring = in + sizeof(ch_shm_ring_ctl_t);
        /* The byte counts start 8-aligned; records start at offset 0. */
        p->sent = ch_shm_test_count_base & ~7u;
        p->peer_consumed = p->sent;
        p->received = p->sent;
        p->released = p->sent;
        p->cleaned = p->sent;
        p->rel_pos = 0;
        p->sent_recs = ch_shm_test_count_base;
        p->received_recs = ch_shm_test_count_base;
        p->wrap_at = st->wrap_first;
        p->wrap_recs = p->received_recs;
        p->out_pos = 0;
        p->in_pos = 0;
        p->blocked = 0;
        p->dead = 0;
        p->bell = li == me ? NULL : &st->slots[li];
        p->turn_sent = 0;
        p->turn_took = 0;
        if (li == me || !ch_shm_turns_fit(lay->ring_bytes)) {
            p->turn_out = NULL;
            p->turn_in = &no_turn;
        } else {
            /* The pair's line: in ring lo -> hi's control lines (hi's block,
             * zeroed by hi before the fence, as its rings are). */
            int lo = li < me ? li : me, hi = li < me ? me : li;
            ch_shm_ring_ctl_t *c = (ch_shm_ring_ctl_t *)(void *)(st->base + lay->rings_off +
                                                                 (size_t)hi * lay->block_stride +
                                                                 (size_t)lo * lay->ring_stride);
            /* (CANAL_SHM_TURNS=0 sends none but reads the peer's: the
             * ranks' settings may differ) */
            p->turn_out = st->turns ? &c->turn[me == lo ? 0 : 1] : NULL;
            p->turn_in = &c->turn[me == lo ? 1 : 0];
        }
        p->out_read = li == me; /* the own ring is not read (ring_out_read) */
        ch_shm_peer_limit(p, (uint32_t)lay->ring_bytes);
    }
}

/* Every receiver has touched its block by the second fence, so the pages of
 * the rings this rank writes exist; map them into this process now rather
 * than one minor fault per page on the first pass of a stream (a 264 KiB
 * ring is 66 faults, which made the first osu_bw/osu_mbw_mr/osu_bibw size of
 * a run a third of the rate of the next). Before Linux 5.14 (no
 * MADV_POPULATE_WRITE) a read of each page faults it in. The lines
 * themselves are read on the first send to each peer
 * (shm_ring.c, ring_out_read): read here, every ring at start, they cost 2.6 ms
 * of CPU per rank at 4 local ranks and 7 ms at 8 in MPI_Init (bench.md,
 * helper ring4). */
static void out_rings_map(ch_shm_state_t *st)
{
    const ch_shm_layout_t *lay = &st->lay;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

    for (int li = 0; li < st->local_size; li++) {
        if (li == st->local_rank)
            continue;
        uintptr_t a = (uintptr_t)st->peers[li].out_ctl & ~(pg - 1);
        uintptr_t b = ((uintptr_t)st->peers[li].out_ctl + lay->ring_stride + pg - 1) & ~(pg - 1);
        if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) != 0)
            for (uintptr_t q = a; q < b; q += pg)
                (void)*(volatile unsigned char *)q;
    }
}

/* An incoming ring after the zeroing: its consumed count, and a stale
 * record number in every line start. A reader that has caught up polls the
 * line start where the next record will go for that record's number, and
 * the sender writes no terminator there (only inside a record's last
 * line): the line start must already hold a number the reader does not
 * expect, as the ones it cleans do (ring_release writes its count of
 * records taken). A zero does, except for record number 0, the one after
 * UINT32_MAX: 2^32 - 1 records away in a job, whose counters start at 0,
 * but early in the unit tests that start them near 2^32
 * (ch_shm_test_count_base), where a zero line start passed for record 0
 * (header length 0: ci65's order_wrap failure; test_fresh_line_record_0).
 * The reader's starting count is stale for 2^32 records, like a cleaned
 * line start; at 0 the memset wrote it already. */
static void in_ring_init(ch_shm_state_t *st, ch_shm_peer_t *p)
{
    uint32_t stale = p->received_recs;

    if (stale != 0)
        for (size_t off = 0; off < st->lay.ring_bytes; off += SHM_LINE)
            atomic_store_explicit(&ch_shm_rec_at(p->in_ring, (uint32_t)off)->seq, stale,
                                  memory_order_relaxed);
    atomic_store_explicit(&p->in_ctl->consumed, p->received, memory_order_relaxed);
}

static canal_status_t ch_shm_post_fence(ch_endpoint_t *ep)
{
    ch_shm_state_t *st = ep->state;
    canal_status_t err = CANAL_OK, ferr, uerr;
    ch_shm_slot_t *me;

    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "shm post_fence: init() did not succeed");
    if (!st->creator) {
        char val[PMI_VAL_MAX], seg_key[PMI_KEY_MAX];
        ch_endpoint_key(ep, PMI_KEY_SEG, seg_key, sizeof seg_key);
        err = pmi_get(st->peers[0].world, seg_key, val, sizeof val);
        if (err != CANAL_OK)
            err = common_err_set(err, "shm: no segment name from local rank 0 (rank %d): %s",
                                 st->peers[0].world, common_err_detail());
        else if (val[0] == '!')
            err = common_err_set(CANAL_ERR_IO,
                                 "shm: local rank 0 (rank %d) could not create "
                                 "the segment: %s",
                                 st->peers[0].world, val + 1);
        else
            err = ch_shm_seg_attach(st, val);
    }
    if (err == CANAL_OK) {
        rings_wire(st);
        memset(st->base + st->lay.rings_off + (size_t)st->local_rank * st->lay.block_stride, 0,
               (size_t)st->local_size * st->lay.ring_stride);
        for (int li = 0; li < st->local_size; li++)
            in_ring_init(st, &st->peers[li]);
        me = &st->slots[st->local_rank];
        atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
        me->pid = (int32_t)getpid();
        me->pidns = common_pidns();
        me->membarrier_ok = (uint32_t)st->mb_registered;
        me->probe_addr = ch_shm_cma_probe_addr();
    }
    /* Every rank of the job takes part, whatever happened above, so that
     * one failure does not leave the others waiting here. */
    ferr = pmi_fence();
    uerr = ch_shm_seg_unlink(st);
    /* For the others too: the creator removes the name right after this fence. */
    if (err == CANAL_OK && ferr == CANAL_OK)
        st->unlinked = 1;
    if (err == CANAL_OK && ferr != CANAL_OK)
        err = ferr;
    if (err == CANAL_OK && uerr != CANAL_OK)
        err = uerr;
    if (err == CANAL_OK && ferr == CANAL_OK) {
        /* Asymmetric barriers only if every local rank receives them. */
        st->mb = 1;
        for (int li = 0; li < st->local_size; li++)
            st->mb = st->mb && st->slots[li].membarrier_ok;
        out_rings_map(st);
    }
    if (err == CANAL_OK && st->local_size > 1)
        err = ch_shm_cma_probe_peer(st);
    if (err != CANAL_OK) {
        ch_shm_seg_detach(st);
        state_reset(st);
        return err;
    }
    st->attached = 1;
    st->send_n = st->world_size;
    return CANAL_OK;
}

static canal_status_t ch_shm_finalize(ch_endpoint_t *ep)
{
    ch_shm_state_t *st = ep->state;

    if (!st->initialized)
        return CANAL_OK;
    if (st->attached)
        atomic_store_explicit(&st->slots[st->local_rank].finalized, 1, memory_order_release);
    ch_shm_seg_detach(st);
    state_reset(st);
    return CANAL_OK;
}

static int ch_shm_reaches(ch_endpoint_t *ep, int peer)
{
    ch_shm_state_t *st = ep->state;
    return st->initialized && peer >= 0 && peer < st->world_size && st->local_of[peer] >= 0;
}

static void ch_shm_describe(ch_endpoint_t *ep, char *buf, size_t len)
{
    ch_shm_state_t *st = ep->state;
    const char *cma;

    if (buf == NULL || len == 0)
        return;
    if (!st->initialized) {
        snprintf(buf, len, "shm: not initialized");
        return;
    }
    cma = st->cma_state == SHM_CMA_WORKS    ? "yes"
          : st->cma_state == SHM_CMA_DENIED ? "no"
                                            : "untested";
    snprintf(buf, len,
             "shm: %d local ranks, segment %.1f MiB (%s), %d rings x %zu KiB (max payload %zu B), "
             "wake-up barrier %s, CMA %s%s%s%s",
             st->local_size, (double)st->lay.seg_size / (1024.0 * 1024.0),
             st->anon       ? "anonymous"
             : st->unlinked ? "unlinked"
                            : st->name,
             st->local_size * st->local_size, st->lay.ring_bytes / 1024, st->lay.payload_cap,
             st->mb ? "membarrier" : "fence", cma, st->cma_why[0] != '\0' ? " (" : "", st->cma_why,
             st->cma_why[0] != '\0' ? ")" : "");
}

const ch_ops_t ch_shm_ops = {
    .name = "shm",
    .state_size = sizeof(ch_shm_state_t),
    .remote_worth = ch_no_remote_worth,
    .init = ch_shm_init,
    .post_fence = ch_shm_post_fence,
    .finalize = ch_shm_finalize,
    .reaches = ch_shm_reaches,
    .sendv = ch_shm_sendv,
    .sendv_turn = ch_shm_sendv_turn,
    .progress = ch_shm_progress,
    .mem_register = ch_shm_mem_register,
    .mem_deregister = ch_shm_mem_deregister,
    .rdma_read = ch_shm_rdma_read,
    .rdma_readv = ch_shm_rdma_readv,
    .rdma_write = ch_shm_rdma_write,
    .rdma_read_batch = ch_shm_rdma_read_batch,
    .block = ch_shm_block,
    .wake = ch_shm_wake,
    .flush = ch_no_flush,
    .describe = ch_shm_describe,
    .eager_hint = ch_shm_eager_hint,
    .dyn_open = ch_no_dyn_open,
    .dyn_card = ch_no_dyn_card,
    .dyn_peer_add = ch_no_dyn_peer_add,
};
