/*
 * The TCP channel: ch_sock_ops, serving peers on other nodes (and every
 * peer when CANAL_CHANNEL=sock). This file is its life cycle; the data path
 * is in sock_conn.c, the wire formats in sock_wire.c, the choice of
 * interface in sock_addr.c. The device calls, in order:
 *   init:       choose the interface (CANAL_SOCK_IFACE), listen on it,
 *               publish the card "host:port" under "sock-<rank>"; rank 0
 *               also draws the job secret (32 bytes from getrandom()) and
 *               publishes it in hex under "sock-secret";
 *   (pmi_fence by the device)
 *   post_fence: every rank reads the secret; from now on sendv() connects
 *               to a peer on first use and progress() accepts connections;
 *   finalize:   a GOODBYE frame on every live connection (so that closing
 *               it is not mistaken for a failure by a peer still running),
 *               then everything is closed.
 *   dyn_open:   (adi/dynamic.c) for other jobs: when init was not called,
 *               listen without publishing anything and serve no job rank;
 *               dyn_card gives "<address>#<random id>".
 * The secret lives only in the job's PMI key-value space and in the ranks'
 * memory: a process outside the job cannot complete the handshake.
 * Calls must be serialized by the caller (the device holds its lock).
 * All state is the endpoint's (ep->state, a sock_state_t); a second endpoint
 * in one process (ch_opts_t.instance) publishes "sock-<rank>.<instance>" and
 * "sock-secret.<instance>".
 */
#include "channels/sock/sock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/log.h"

static const char PMI_KEY_SECRET[] = "sock-secret";

static void state_reset(sock_state_t *st)
{
    if (st->lfd > 0)
        close(st->lfd);
    if (st->epfd > 0)
        close(st->epfd);
    free(st->peers);
    /* The secret must not outlive the channel in memory. */
    memset(st, 0, sizeof *st);
    st->lfd = -1;
    st->epfd = -1;
}

static canal_status_t read_limits(sock_state_t *st)
{
    long long maxp = common_cvar_int("SOCK_MAX_PAYLOAD");
    long long lim = common_cvar_int("SOCK_OUTBUF_LIMIT");
    long long hs = common_cvar_int("SOCK_HANDSHAKE_TIMEOUT");

    if (maxp < 1024 || maxp > (64LL << 20))
        return common_err_set(CANAL_ERR_ARG,
                              "sock: CANAL_SOCK_MAX_PAYLOAD=%lld must be between 1K and 64M", maxp);
    if (lim < maxp || lim > (1LL << 40))
        return common_err_set(CANAL_ERR_ARG,
                              "sock: CANAL_SOCK_OUTBUF_LIMIT=%lld must be at least "
                              "CANAL_SOCK_MAX_PAYLOAD (%lld)",
                              lim, maxp);
    if (hs < 1 || hs > 3600)
        return common_err_set(
            CANAL_ERR_ARG, "sock: CANAL_SOCK_HANDSHAKE_TIMEOUT=%lld must be 1..3600 seconds", hs);
    st->max_payload = (size_t)maxp;
    st->outbuf_limit = (size_t)lim;
    st->hs_timeout = (double)hs;
    return CANAL_OK;
}

static canal_status_t listen_on(sock_state_t *st)
{
    struct epoll_event ev;
    int one = 1;

    st->lfd = socket(st->laddr.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (st->lfd < 0)
        return common_err_set(CANAL_ERR_IO, "sock: socket(): %s", strerror(errno));
    if (st->laddr.ss.ss_family == AF_INET6)
        setsockopt(st->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(st->lfd, (struct sockaddr *)&st->laddr.ss, st->laddr.len) != 0) {
        char a[SOCK_CARD_MAX] = "?";
        ch_sock_addr_format(&st->laddr, a, sizeof a);
        return common_err_set(CANAL_ERR_IO, "sock: bind to %s (interface %s): %s", a, st->ifname,
                              strerror(errno));
    }
    if (listen(st->lfd, SOMAXCONN) != 0)
        return common_err_set(CANAL_ERR_IO, "sock: listen: %s", strerror(errno));
    st->laddr.len = sizeof st->laddr.ss;
    if (getsockname(st->lfd, (struct sockaddr *)&st->laddr.ss, &st->laddr.len) != 0)
        return common_err_set(CANAL_ERR_IO, "sock: getsockname: %s", strerror(errno));
    if (ch_sock_addr_format(&st->laddr, st->card, sizeof st->card) != CANAL_OK)
        return CANAL_ERR_INTERN;
    st->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (st->epfd < 0)
        return common_err_set(CANAL_ERR_IO, "sock: epoll_create1: %s", strerror(errno));
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.ptr = NULL; /* the listener; connections carry their sock_conn_t */
    if (epoll_ctl(st->epfd, EPOLL_CTL_ADD, st->lfd, &ev) != 0)
        return common_err_set(CANAL_ERR_IO, "sock: epoll_ctl: %s", strerror(errno));
    return CANAL_OK;
}

/* The peer table has room for the job's ranks and CANAL_DYNAMIC_PEERS
 * processes of other jobs (calloc'ed: untouched pages cost nothing). */
static canal_status_t peers_alloc(sock_state_t *st)
{
    long long ndyn = common_cvar_int("DYNAMIC_PEERS");

    if (ndyn < 0 || ndyn > 1000000)
        return common_err_set(CANAL_ERR_ARG, "CANAL_DYNAMIC_PEERS=%lld must be 0..1000000", ndyn);
    st->cap = st->size + (int)ndyn;
    st->npeers = st->size;
    st->peers = calloc((size_t)st->cap, sizeof *st->peers);
    if (st->peers == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "sock init: peer table for %d ranks", st->cap);
    do {
        if (common_random_bytes(&st->dyn_id, sizeof st->dyn_id) != CANAL_OK)
            return CANAL_ERR_IO;
    } while (st->dyn_id == 0);
    return CANAL_OK;
}

static canal_status_t sock_init(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                                ch_caps_t *caps_out)
{
    sock_state_t *st = ep->state;
    char key[PMI_KEY_MAX], base[PMI_KEY_MAX];
    canal_status_t err;

    if (pmi == NULL || up == NULL || up->on_packet == NULL || caps_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "sock init: %s is NULL",
                              pmi == NULL        ? "pmi"
                              : up == NULL       ? "up"
                              : caps_out == NULL ? "caps_out"
                                                 : "up->on_packet");
    if (st->initialized)
        return common_err_set(CANAL_ERR_PENDING, "sock init: already initialized");
    if (pmi->size < 1 || pmi->rank < 0 || pmi->rank >= pmi->size)
        return common_err_set(CANAL_ERR_ARG, "sock init: rank %d of size %d", pmi->rank, pmi->size);
    state_reset(st);
    st->ep = ep;
    st->up = *up;
    st->rank = pmi->rank;
    st->size = pmi->size;
    if ((err = read_limits(st)) != CANAL_OK)
        goto fail_state;
    err = ch_sock_addr_choose(common_cvar_str("SOCK_IFACE"), pmi->nnodes > 1, &st->laddr,
                              st->ifname, sizeof st->ifname);
    if (err != CANAL_OK)
        goto fail_state;
    if ((err = listen_on(st)) != CANAL_OK)
        goto fail_state;
    if ((err = peers_alloc(st)) != CANAL_OK)
        goto fail_state;
    snprintf(base, sizeof base, "sock-%d", pmi->rank);
    ch_endpoint_key(ep, base, key, sizeof key);
    if ((err = pmi_put(key, st->card)) != CANAL_OK)
        goto fail_state;
    if (pmi->rank == 0) {
        char hex[2 * SOCK_SECRET_LEN + 1];
        if ((err = common_random_bytes(st->secret, SOCK_SECRET_LEN)) != CANAL_OK)
            goto fail_state;
        common_hex_encode(st->secret, SOCK_SECRET_LEN, hex);
        ch_endpoint_key(ep, PMI_KEY_SECRET, key, sizeof key);
        err = pmi_put(key, hex);
        memset(hex, 0, sizeof hex);
        if (err != CANAL_OK)
            goto fail_state;
    }
    caps_out->max_payload = st->max_payload;
    caps_out->has_rdma = 0;
    caps_out->local_only = 0;
    caps_out->block_wakes_fast = 1;
    caps_out->can_block = 1;
    caps_out->has_dyn = 1;
    st->initialized = 1;
    LOG_DEBUG("sock: listening on %s (%s)", st->card, st->ifname);
    return CANAL_OK;

fail_state:
    state_reset(st);
    return err;
}

static canal_status_t sock_post_fence(ch_endpoint_t *ep)
{
    sock_state_t *st = ep->state;
    char hex[PMI_VAL_MAX], key[PMI_KEY_MAX];
    canal_status_t err;

    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "sock post_fence: init() did not succeed");
    if (st->rank != 0) {
        ch_endpoint_key(ep, PMI_KEY_SECRET, key, sizeof key);
        err = pmi_get(0, key, hex, sizeof hex);
        if (err != CANAL_OK)
            return common_err_set(err, "sock: no job secret from rank 0: %s", common_err_detail());
        err = ch_sock_hex_decode(hex, st->secret, SOCK_SECRET_LEN);
        memset(hex, 0, sizeof hex);
        if (err != CANAL_OK)
            return common_err_set(CANAL_ERR_PROTO, "sock: rank 0's job secret is malformed: %s",
                                  common_err_detail());
    }
    st->ready = 1;
    return CANAL_OK;
}

/* Open for dynamic peers only: the job did not need sock (one node), so
 * nothing was published and no job rank is served (reaches() says no, and
 * the job secret is random, so no job rank could complete a handshake). */
static canal_status_t sock_dyn_open(ch_endpoint_t *ep, const pmi_info_t *pmi,
                                    const ch_upcalls_t *up, ch_caps_t *caps_out)
{
    sock_state_t *st = ep->state;
    canal_status_t err;

    if (st->initialized) {
        caps_out->max_payload = st->max_payload;
        caps_out->has_rdma = 0;
        caps_out->local_only = 0;
        caps_out->block_wakes_fast = 1;
        caps_out->can_block = 1;
        caps_out->has_dyn = 1;
        return st->ready ? CANAL_OK
                         : common_err_set(CANAL_ERR_INTERN, "sock dyn_open before post_fence");
    }
    if (pmi == NULL || up == NULL || up->on_packet == NULL || caps_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "sock dyn_open: NULL argument");
    state_reset(st);
    st->ep = ep;
    st->up = *up;
    st->rank = pmi->rank;
    st->size = pmi->size;
    st->dyn_only = 1;
    if ((err = read_limits(st)) != CANAL_OK)
        goto fail_state;
    /* Other jobs may run on other nodes: prefer a non-loopback address. */
    err = ch_sock_addr_choose(common_cvar_str("SOCK_IFACE"), 2, &st->laddr, st->ifname,
                              sizeof st->ifname);
    if (err != CANAL_OK)
        goto fail_state;
    if ((err = listen_on(st)) != CANAL_OK || (err = peers_alloc(st)) != CANAL_OK ||
        (err = common_random_bytes(st->secret, SOCK_SECRET_LEN)) != CANAL_OK)
        goto fail_state;
    caps_out->max_payload = st->max_payload;
    caps_out->has_rdma = 0;
    caps_out->local_only = 0;
    caps_out->block_wakes_fast = 1;
    caps_out->can_block = 1;
    caps_out->has_dyn = 1;
    st->initialized = 1;
    st->ready = 1;
    LOG_DEBUG("sock: opened for other jobs on %s (%s)", st->card, st->ifname);
    return CANAL_OK;

fail_state:
    state_reset(st);
    return err;
}

static canal_status_t sock_dyn_card(ch_endpoint_t *ep, char *buf, size_t len)
{
    sock_state_t *st = ep->state;

    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN, "sock dyn_card: the channel is not open");
    ch_sock_dyn_card_format(st->card, st->dyn_id, buf, len);
    return CANAL_OK;
}

static canal_status_t sock_finalize(ch_endpoint_t *ep)
{
    sock_state_t *st = ep->state;

    if (!st->initialized)
        return CANAL_OK;
    if (st->ready)
        ch_sock_conn_goodbye_all(st, 2.0);
    ch_sock_conn_close_all(st);
    for (int r = 0; r < st->npeers; r++) {
        sock_chunk_t *k = st->peers[r].out_head;
        while (k != NULL) {
            sock_chunk_t *next = k->next;
            free(k);
            k = next;
        }
    }
    state_reset(st);
    return CANAL_OK;
}

static int sock_reaches(ch_endpoint_t *ep, int peer)
{
    sock_state_t *st = ep->state;
    if (!st->initialized || peer < 0 || peer == st->rank)
        return 0;
    if (peer < st->size)
        return !st->dyn_only;
    return peer < st->npeers;
}

static void sock_describe(ch_endpoint_t *ep, char *buf, size_t len)
{
    sock_state_t *st = ep->state;
    int hs = 0;

    if (buf == NULL || len == 0)
        return;
    if (!st->initialized) {
        snprintf(buf, len, "sock: not initialized");
        return;
    }
    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        hs += c->state != SOCK_CS_UP && c->state != SOCK_CS_DEAD;
    snprintf(buf, len,
             "sock: interface %s, listening on %s (%s), %d connections up, %d handshaking, "
             "max payload %zu B, queue limit %zu B per peer, %lu strangers dropped (%lu to make "
             "room)",
             st->ifname, st->card, st->laddr.ss.ss_family == AF_INET6 ? "IPv6" : "IPv4",
             ch_sock_count_up(st), hs, st->max_payload, st->outbuf_limit, st->strangers_dropped,
             st->strangers_evicted);
}

const ch_ops_t ch_sock_ops = {
    .name = "sock",
    .state_size = sizeof(sock_state_t),
    .remote_worth = ch_no_remote_worth,
    .init = sock_init,
    .post_fence = sock_post_fence,
    .finalize = sock_finalize,
    .reaches = sock_reaches,
    .sendv = ch_sock_sendv,
    .sendv_turn = ch_no_sendv_turn,
    .progress = ch_sock_progress,
    .mem_register = ch_no_mem_register,
    .mem_deregister = ch_no_mem_deregister,
    .rdma_read = ch_no_rdma_read,
    .rdma_readv = ch_no_rdma_readv,
    .rdma_read_batch = ch_no_rdma_read_batch,
    .rdma_write = ch_no_rdma_write,
    .block = ch_sock_block,
    .flush = ch_sock_flush,
    .wake = ch_no_wake,
    .describe = sock_describe,
    .eager_hint = ch_no_eager_hint,
    .dyn_open = sock_dyn_open,
    .dyn_card = sock_dyn_card,
    .dyn_peer_add = ch_sock_dyn_peer_add,
};
