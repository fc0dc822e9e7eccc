/*
 * Memory registration for the ofi channel: the reference-counted cache
 * behind mem_register()/mem_deregister() (the device's rendezvous), the
 * registrations of rdma_read() destinations where the provider wants local
 * buffers registered (FI_MR_LOCAL), the channel's buffer pools, and the
 * acquire/release API of channels/ofi/ofi.h for the managed-runtime work.
 *
 * The cache. Registrations cover whole pages. An acquire whose range lies
 * inside a registration with the needed access reuses it (a hit); otherwise
 * it registers (a miss). A registration with users is always safe to share:
 * its memory belongs to operations in flight and cannot be freed under
 * them. The question is what to do once the last user is gone, because the
 * application may then free the memory and get the same addresses back for
 * other pages, and a cached registration would then point at the old ones.
 * libfabric does not let an application use its memory monitors
 * (userfaultfd/memhooks, FI_MR_CACHE_MONITOR): they live inside providers'
 * own registration caches, and the "import monitor" interface goes the
 * other way. So the policy (CANAL_OFI_MR_CACHE=auto) is:
 *   - hardware providers (verbs, efa, cxi, psm3, ...) pin pages: a
 *     registration without users is closed at once. Hits here come from
 *     overlapping live use; repeated registration of the same buffer is
 *     made cheap by the provider's own cache, whose monitor does notice
 *     munmap/free (that is what it is for);
 *   - software providers (tcp, udp, sockets, shm, net) pin nothing: a key
 *     names virtual memory that is looked up when a peer reads. An idle
 *     registration whose memory was freed and handed out again still reads
 *     what is there now, which is what the new owner asked for, so idle
 *     registrations are kept, most recently used first, up to
 *     CANAL_OFI_MR_CACHE_ENTRIES, and re-validated by (address, length,
 *     access) containment on every lookup.
 * CANAL_OFI_MR_CACHE=yes keeps idle registrations with any provider (for
 * programs that never free communication buffers), =no never does. Whoever
 * knows better (a managed runtime that moved an object, an allocator) calls
 * ch_ofi_mr_invalidate().
 *
 * Keys and addresses. The device sends the buffer's virtual address and the
 * key in its RTS. With FI_MR_VIRT_ADDR that is what fi_read wants. Without
 * it the provider counts from the registration's start, which the reader
 * does not know; so when the application chooses keys (no FI_MR_PROV_KEY,
 * 8-byte keys) the key is the registration's base address (48 bits) with a
 * 16-bit tag above it that keeps keys unique, and rdma_read subtracts the
 * base. Providers with provider keys and offsets get no RDMA (the device
 * then uses its CTS/DATA protocol).
 */
#include "channels/ofi/ofi_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

struct ofi_mr_cb {
    struct ofi_mr_cb *next;
    void (*cb)(void *);
    void *arg;
};

enum { KEY_BASE_BITS = 48 };
static const uint64_t KEY_BASE_MASK = ((uint64_t)1 << KEY_BASE_BITS) - 1;

uint64_t ch_ofi_mr_key_base(uint64_t key)
{
    return key & KEY_BASE_MASK;
}

static size_t page_size(void)
{
    static size_t ps;
    if (ps == 0) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

static ofi_mr_entry_t *mr_of(common_link_t *l)
{
    return common_list_entry(l, ofi_mr_entry_t, link);
}

static void list_unlink(ofi_state_t *st, ofi_mr_entry_t *e)
{
    common_list_remove(&st->mr_list, &e->link);
}

static void list_push_front(ofi_state_t *st, ofi_mr_entry_t *e)
{
    common_list_push_front(&st->mr_list, &e->link);
}

static void run_callbacks(ofi_mr_entry_t *e)
{
    struct ofi_mr_cb *c = e->cbs;
    e->cbs = NULL;
    while (c != NULL) {
        struct ofi_mr_cb *next = c->next;
        c->cb(c->arg);
        free(c);
        c = next;
    }
}

static void entry_close(ofi_state_t *st, ofi_mr_entry_t *e)
{
    list_unlink(st, e);
    if (e->mr != NULL) {
        int rc = fi_close(&e->mr->fid);
        if (rc != 0)
            LOG_WARN("ofi: closing the registration of %zu bytes at %p: %s", e->len,
                     (void *)e->base, ch_ofi_err(rc));
    }
    free(e);
}

static canal_status_t mr_register(ofi_state_t *st, uintptr_t base, size_t len, uint64_t access,
                                  ofi_mr_entry_t *e)
{
    size_t key_size = st->info->domain_attr->mr_key_size;
    struct fid_mr *mr = NULL;
    int rc = 0;

    if (!st->mr_virt && !st->mr_prov_key && (uint64_t)base > KEY_BASE_MASK)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "ofi: address %p is above the 48 bits a "
                              "registration key can carry with %s", (void *)base, st->prov);
    if (st->mr_allocated) {
        /* Registered memory must be backed by pages when registered. */
        for (uintptr_t p = base; p < base + len; p += page_size())
            (void)*(volatile const unsigned char *)p;
    }
    for (int attempt = 0; attempt < 32; attempt++) {
        uint64_t key = 0;
        if (!st->mr_prov_key) {
            uint64_t tag = st->key_tag++;
            if (key_size >= 8)
                key = tag << KEY_BASE_BITS | ((uint64_t)base <= KEY_BASE_MASK ? (uint64_t)base : 0);
            else
                key = tag & (((uint64_t)1 << (8 * (key_size > 0 ? key_size : 1))) - 1);
        }
        rc = fi_mr_reg(st->domain, (void *)base, len, access, 0, key, 0, &mr, NULL);
        if (rc == 0 || st->mr_prov_key || (rc != -FI_ENOKEY && rc != -FI_EKEYREJECTED))
            break;
    }
    if (rc != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: registering %zu bytes at %p with %s: %s", len,
                              (void *)base, st->prov, ch_ofi_err(rc));
    if (st->mr_endpoint) {
        if ((rc = fi_mr_bind(mr, &st->ep->fid, 0)) != 0 || (rc = fi_mr_enable(mr)) != 0) {
            fi_close(&mr->fid);
            return common_err_set(CANAL_ERR_IO,
                                  "ofi: binding a registration to the endpoint "
                                  "(%s): %s",
                                  st->prov, ch_ofi_err(rc));
        }
    }
    e->mr = mr;
    e->desc = fi_mr_desc(mr);
    e->key = fi_mr_key(mr);
    if (e->key == FI_KEY_NOTAVAIL) {
        fi_close(&mr->fid);
        e->mr = NULL;
        return common_err_set(CANAL_ERR_UNSUPPORTED, "ofi: %s gives no usable key for %zu "
                              "bytes at %p", st->prov, len, (void *)base);
    }
    e->base = base;
    e->len = len;
    e->access = access;
    return CANAL_OK;
}

canal_status_t ch_ofi_mr_pool(ofi_state_t *st, void *buf, size_t len, uint64_t access,
                              ofi_mr_entry_t **out)
{
    ofi_mr_entry_t *e = calloc(1, sizeof *e);
    canal_status_t err;

    if (e == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "ofi: registration entry");
    if ((err = mr_register(st, (uintptr_t)buf, len, access, e)) != CANAL_OK) {
        free(e);
        return err;
    }
    e->pool = 1;
    e->refs = 1;
    list_push_front(st, e);
    *out = e;
    return CANAL_OK;
}

canal_status_t ch_ofi_mr_get(ofi_state_t *st, const void *buf, size_t len, uint64_t access,
                             ofi_mr_entry_t **out)
{
    uintptr_t b = (uintptr_t)buf, base, end;
    ofi_mr_entry_t *e;
    canal_status_t err;

    if (!st->initialized || st->domain == NULL)
        return common_err_set(CANAL_ERR_INTERN, "ofi: memory registration before init()");
    if (buf == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "ofi: cannot register %s", buf == NULL ?
                              "a NULL buffer" : "an empty range");
    if (b + len < b || b + len + page_size() < b + len)
        return common_err_set(CANAL_ERR_ARG, "ofi: range %p + %zu wraps around", buf, len);
    for (e = mr_of(st->mr_list.head); e != NULL; e = mr_of(e->link.next)) {
        if (e->pool || e->stale || (e->access & access) != access)
            continue;
        if (e->base <= b && b + len <= e->base + e->len) {
            if (e->refs == 0) {
                st->mr_idle--;
                st->mr_active++;
            }
            e->refs++;
            list_unlink(st, e);
            list_push_front(st, e);
            st->mr_stats.hits++;
            *out = e;
            return CANAL_OK;
        }
    }
    base = b & ~(uintptr_t)(page_size() - 1);
    end = (b + len + page_size() - 1) & ~(uintptr_t)(page_size() - 1);
    if ((e = calloc(1, sizeof *e)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "ofi: registration entry");
    if ((err = mr_register(st, base, end - base, access, e)) != CANAL_OK) {
        free(e);
        return err;
    }
    e->refs = 1;
    list_push_front(st, e);
    st->mr_active++;
    st->mr_stats.misses++;
    *out = e;
    return CANAL_OK;
}

static void evict_idle(ofi_state_t *st)
{
    ofi_mr_entry_t *e, *last = NULL;

    while (st->mr_idle > st->idle_max) {
        /* The least recently used idle entry is the last one in the list. */
        for (e = mr_of(st->mr_list.head); e != NULL; e = mr_of(e->link.next))
            if (e->refs == 0 && !e->pool)
                last = e;
        if (last == NULL)
            return;
        entry_close(st, last);
        last = NULL;
        st->mr_idle--;
        st->mr_stats.evictions++;
    }
}

canal_status_t ch_ofi_mr_put(ofi_state_t *st, ofi_mr_entry_t *e, void (*cb)(void *), void *arg)
{

    if (e == NULL || e->refs <= 0 || e->pool)
        return common_err_set(CANAL_ERR_ARG, "ofi: releasing a registration that has no users");
    if (cb != NULL) {
        struct ofi_mr_cb *c = malloc(sizeof *c), **pp = &e->cbs;
        if (c == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "ofi: release callback");
        c->next = NULL;
        c->cb = cb;
        c->arg = arg;
        while (*pp != NULL)
            pp = &(*pp)->next;
        *pp = c;
    }
    if (--e->refs > 0)
        return CANAL_OK;
    st->mr_active--;
    run_callbacks(e);
    if (e->stale || !st->keep_idle) {
        entry_close(st, e);
        return CANAL_OK;
    }
    st->mr_idle++;
    evict_idle(st);
    return CANAL_OK;
}

void ch_ofi_mr_close_all(ofi_state_t *st)
{

    while (!common_list_empty(&st->mr_list)) {
        ofi_mr_entry_t *e = mr_of(st->mr_list.head);
        /* Nothing in Canal uses the memory any more: tell whoever waits. */
        run_callbacks(e);
        entry_close(st, e);
    }
    st->tx_mr = st->rx_mr = NULL;
    st->mr_active = st->mr_idle = 0;
}

/* ---- the device's interface and ofi.h -------------------------------------- */

canal_status_t ch_ofi_mr_acquire(ch_endpoint_t *ep, const void *buf, size_t len, uint64_t *key_out,
                                 void **handle_out)
{
    ofi_state_t *st = ep->state;
    ofi_mr_entry_t *e;
    canal_status_t err;

    if (key_out == NULL || handle_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "ofi mr_acquire: %s is NULL",
                              key_out == NULL ? "key_out" : "handle_out");
    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "ofi mr_acquire: channel not initialized");
    if (!st->has_rma)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "ofi: provider %s has no RMA reads here",
                              st->prov);
    if ((err = ch_ofi_mr_get(st, buf, len, FI_REMOTE_READ, &e)) != CANAL_OK)
        return err;
    *key_out = e->key;
    *handle_out = e;
    return CANAL_OK;
}

canal_status_t ch_ofi_mr_release(ch_endpoint_t *ep, void *handle, void (*cb)(void *arg), void *arg)
{
    ofi_state_t *st = ep->state;

    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "ofi mr_release: channel not initialized");
    for (ofi_mr_entry_t *e = mr_of(st->mr_list.head); e != NULL; e = mr_of(e->link.next))
        if (e == handle && !e->pool)
            return ch_ofi_mr_put(st, e, cb, arg);
    return common_err_set(CANAL_ERR_ARG, "ofi mr_release: %p is not a live registration", handle);
}

void ch_ofi_mr_invalidate(ch_endpoint_t *ep, const void *buf, size_t len)
{
    ofi_state_t *st = ep->state;
    uintptr_t b = (uintptr_t)buf, end = b + len < b ? UINTPTR_MAX : b + len;
    ofi_mr_entry_t *e, *next;

    if (!st->initialized || len == 0)
        return;
    for (e = mr_of(st->mr_list.head); e != NULL; e = next) {
        next = mr_of(e->link.next);
        if (e->pool || e->stale || e->base >= end || e->base + e->len <= b)
            continue;
        st->mr_stats.invalidations++;
        if (e->refs > 0) {
            e->stale = 1;
        } else {
            entry_close(st, e);
            st->mr_idle--;
        }
    }
}

void ch_ofi_mr_stats(ch_endpoint_t *ep, ch_ofi_mr_stats_t *out)
{
    ofi_state_t *st = ep->state;
    if (out == NULL)
        return;
    *out = st->mr_stats;
    out->active = st->mr_active;
    out->idle = st->mr_idle;
}

canal_status_t ch_ofi_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                   uint64_t *key_out)
{
    void *handle;
    if (key_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "ofi mem_register: key_out is NULL");
    return ch_ofi_mr_acquire(ep, buf, len, key_out, &handle);
}

canal_status_t ch_ofi_mem_deregister(ch_endpoint_t *ep, uint64_t key)
{
    ofi_state_t *st = ep->state;

    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "ofi mem_deregister: channel not initialized");
    for (ofi_mr_entry_t *e = mr_of(st->mr_list.head); e != NULL; e = mr_of(e->link.next))
        if (!e->pool && e->refs > 0 && e->key == key)
            return ch_ofi_mr_put(st, e, NULL, NULL);
    return common_err_set(CANAL_ERR_NOTFOUND, "ofi mem_deregister: no live registration has key "
                          "0x%llx", (unsigned long long)key);
}
