/*
 * Endpoints and the stubs of the optional channel operations (channel.h).
 * An endpoint is one opened instance of a channel: its ops table, the
 * options that selected it and the channel's state, allocated here with the
 * endpoint (zeroed) so that a channel keeps no state in file-scope globals.
 * The ch_no_* stubs fill the optional operations a channel does not have:
 * the device calls every operation unconditionally through channel.h's
 * wrappers.
 */
#include "channels/channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n >= max)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

canal_status_t ch_endpoint_new(const ch_ops_t *ops, const ch_opts_t *opts, ch_endpoint_t **ep_out)
{
    ch_endpoint_t *ep;
    const char *missing;

    if (ops == NULL || ep_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "ch_endpoint_new: %s is NULL",
                              ops == NULL ? "ops" : "ep_out");
    if ((missing = ch_ops_missing(ops)) != NULL)
        return common_err_set(CANAL_ERR_INTERN, "channel %s: operation %s is NULL", ops->name,
                              missing);
    if (opts != NULL && opts->instance != NULL && !name_ok(opts->instance, sizeof ep->instance))
        return common_err_set(CANAL_ERR_ARG,
                              "channel %s: instance name \"%s\" (expected at most %zu of "
                              "[A-Za-z0-9_])",
                              ops->name, opts->instance, sizeof ep->instance - 1);
    if (opts != NULL && opts->provider != NULL && strlen(opts->provider) >= sizeof ep->provider)
        return common_err_set(CANAL_ERR_ARG, "channel %s: provider name \"%s\" is too long",
                              ops->name, opts->provider);
    ep = calloc(1, sizeof *ep);
    if (ep == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "channel %s: no memory for an endpoint", ops->name);
    ep->state = calloc(1, ops->state_size > 0 ? ops->state_size : 1);
    if (ep->state == NULL) {
        free(ep);
        return common_err_set(CANAL_ERR_NOMEM, "channel %s: no memory for its state (%zu B)",
                              ops->name, ops->state_size);
    }
    ep->ops = ops;
    if (opts != NULL && opts->instance != NULL)
        strcpy(ep->instance, opts->instance);
    if (opts != NULL && opts->provider != NULL)
        strcpy(ep->provider, opts->provider);
    *ep_out = ep;
    return CANAL_OK;
}

void ch_endpoint_free(ch_endpoint_t *ep)
{
    if (ep == NULL)
        return;
    /* A channel's state may hold secrets (sock's job secret). */
    memset(ep->state, 0, ep->ops->state_size);
    free(ep->state);
    free(ep);
}

void ch_endpoint_key(const ch_endpoint_t *ep, const char *base, char *out, size_t len)
{
    if (ep->instance[0] == '\0')
        snprintf(out, len, "%s", base);
    else
        snprintf(out, len, "%s.%s", base, ep->instance);
}

const char *ch_ops_missing(const ch_ops_t *ops)
{
#define CH_MISSING(op)                                                                             \
    if (ops->op == NULL)                                                                           \
        return #op;
    if (ops->name == NULL)
        return "name";
    CH_MISSING(remote_worth)
    CH_MISSING(init)
    CH_MISSING(post_fence)
    CH_MISSING(finalize)
    CH_MISSING(reaches)
    CH_MISSING(sendv)
    CH_MISSING(sendv_turn)
    CH_MISSING(progress)
    CH_MISSING(mem_register)
    CH_MISSING(mem_deregister)
    CH_MISSING(rdma_read)
    CH_MISSING(rdma_readv)
    CH_MISSING(rdma_write)
    CH_MISSING(rdma_read_batch)
    CH_MISSING(block)
    CH_MISSING(wake)
    CH_MISSING(flush)
    CH_MISSING(describe)
    CH_MISSING(eager_hint)
    CH_MISSING(dyn_open)
    CH_MISSING(dyn_card)
    CH_MISSING(dyn_peer_add)
#undef CH_MISSING
    return NULL;
}

/* ---- stubs ----------------------------------------------------------------- */

int ch_no_remote_worth(ch_endpoint_t *ep, char *why, size_t len)
{
    (void)ep, (void)why, (void)len;
    return 1; /* nothing against it: the device decides by what it needs */
}

canal_status_t ch_no_sendv_turn(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    return ep->ops->sendv(ep, peer, iov, n); /* no faster way for a turn */
}

canal_status_t ch_no_post_fence(ch_endpoint_t *ep)
{
    (void)ep;
    return CANAL_OK; /* nothing to finish after the fence */
}

canal_status_t ch_no_mem_register(ch_endpoint_t *ep, const void *buf, size_t len, uint64_t *key_out)
{
    (void)buf, (void)len, (void)key_out;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot register memory",
                          ep->ops->name);
}

canal_status_t ch_no_mem_deregister(ch_endpoint_t *ep, uint64_t key)
{
    (void)ep, (void)key;
    return CANAL_OK; /* nothing was registered */
}

canal_status_t ch_no_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                               uint64_t rkey, size_t len, void *cookie)
{
    (void)peer, (void)dst, (void)raddr, (void)rkey, (void)len, (void)cookie;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot read remote memory",
                          ep->ops->name);
}

canal_status_t ch_no_rdma_readv(ch_endpoint_t *ep, int peer, const struct iovec *dst, int n,
                                uint64_t raddr, uint64_t rkey)
{
    (void)peer, (void)dst, (void)n, (void)raddr, (void)rkey;
    return common_err_set(CANAL_ERR_UNSUPPORTED,
                          "channel %s cannot read remote memory into pieces", ep->ops->name);
}

canal_status_t ch_no_rdma_write(ch_endpoint_t *ep, int peer, const void *src, uint64_t raddr,
                                uint64_t rkey, size_t len)
{
    (void)peer, (void)src, (void)raddr, (void)rkey, (void)len;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot write remote memory",
                          ep->ops->name);
}

canal_status_t ch_no_rdma_read_batch(ch_endpoint_t *ep, int peer, const ch_read_t *reads, int n,
                                     canal_status_t *st_out)
{
    canal_status_t st = common_err_set(CANAL_ERR_UNSUPPORTED,
                                       "channel %s cannot read several messages at once",
                                       ep->ops->name);
    (void)peer, (void)reads;
    for (int i = 0; i < n; i++)
        st_out[i] = st;
    return st;
}

canal_status_t ch_no_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg), void *arg)
{
    (void)ep, (void)timeout_us, (void)ready, (void)arg;
    return CANAL_AGAIN; /* cannot sleep: the caller polls again */
}

void ch_no_wake(ch_endpoint_t *ep, int peer)
{
    (void)ep, (void)peer;
}

canal_status_t ch_no_flush(ch_endpoint_t *ep)
{
    (void)ep;
    return CANAL_OK; /* sendv hands every packet over before it returns */
}

void ch_no_describe(ch_endpoint_t *ep, char *buf, size_t len)
{
    (void)ep;
    if (buf != NULL && len > 0)
        buf[0] = '\0';
}

size_t ch_no_eager_hint(ch_endpoint_t *ep, int peer)
{
    (void)ep, (void)peer;
    return 0; /* no preference: CANAL_EAGER_LIMIT */
}

canal_status_t ch_no_dyn_open(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                              ch_caps_t *caps_out)
{
    (void)pmi, (void)up, (void)caps_out;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot reach other jobs",
                          ep->ops->name);
}

canal_status_t ch_no_dyn_card(ch_endpoint_t *ep, char *buf, size_t len)
{
    (void)buf, (void)len;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot reach other jobs",
                          ep->ops->name);
}

canal_status_t ch_no_dyn_peer_add(ch_endpoint_t *ep, int peer, const char *card,
                                  const unsigned char secret[32])
{
    (void)peer, (void)card, (void)secret;
    return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot reach other jobs",
                          ep->ops->name);
}
