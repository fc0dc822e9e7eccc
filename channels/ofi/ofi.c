/*
 * The libfabric channel: ch_ofi_ops, serving peers on other nodes (or every
 * peer with CANAL_CHANNEL=ofi) through whatever provider the machine has:
 * verbs, efa, cxi or psm3 on clusters, tcp;ofi_rxm, udp;ofi_rxd, sockets or
 * shm here. The device calls init() on every rank, then pmi_fence(), then
 * post_fence(); this file does the setup in those two steps:
 *   init:       choose a provider with fi_getinfo, open fabric, domain,
 *               address vector (FI_AV_TABLE), completion queue and a
 *               reliable-datagram endpoint, pre-post the receive buffers and
 *               publish the address card (provider, payload size, the
 *               hex-encoded fi_getname bytes) with pmi_put;
 *   post_fence: read every rank's card and insert the addresses, in rank
 *               order, into the address vector. A rank whose card is missing
 *               or names another provider stays unreachable (reaches() says
 *               so, sendv() says why) instead of failing the whole job.
 * libfabric itself is loaded by init (ofi_dl.c), not linked: a process that
 * never opens this channel never loads it.
 * The data path is in ofi_data.c, memory registration in ofi_mr.c.
 *
 * Why FI_MSG and not FI_TAGGED: the device (adi/) does its own matching on
 * (context, source, tag), with wildcards, probe, cancel and its own
 * unexpected queue; it needs from a channel only ordered packets with its
 * header inside. Mapping MPI matching onto tagged receives would duplicate
 * that logic in the channel and make the other channels behave differently.
 * With FI_MSG each packet is one untagged message carrying the device's
 * header in its payload, received into a pool of pre-posted buffers, which
 * is also exactly what every provider implements most directly.
 *
 * Calls must be serialized by the caller (the device holds its lock around
 * the channel), hence FI_THREAD_DOMAIN.
 */
#include "channels/ofi/ofi_impl.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/proc.h"

int ch_ofi_test_flags;

static const char PMI_KEY_CARD[] = "canal-ofi";
enum { OFI_API = FI_VERSION(1, 10) };

/* Why a peer cannot be reached, for sendv's message. */
enum {
    UNREACH_NONE = 0,
    UNREACH_NO_CARD,
    UNREACH_INIT_FAILED,
    UNREACH_PROVIDER,
    UNREACH_PAYLOAD,
    UNREACH_BAD_CARD,
    UNREACH_NODE,
    UNREACH_AV
};

const char *ch_ofi_err(int fi_rc)
{
    return fi_strerror(fi_rc < 0 ? -fi_rc : fi_rc);
}

/* ---- address cards ------------------------------------------------------ */

/* PMI values may not contain blanks, ';' (Slurm's PMI-2 does not unescape
 * it) or non-printable characters, and provider names look like
 * "tcp;ofi_rxm": ';' becomes ':', blanks '_', anything else odd '?'. */
static void card_escape(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] != '\0' && i + 1 < len; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = c == ';' ? ':' : c == ' ' ? '_' : (c < 0x21 || c > 0x7e) ? '?' : (char)c;
    }
    out[i] = '\0';
}

/* "3|<provider>|<max_payload>|<pid>|<pid namespace>|<hex address>": the pid
 * lets a rank on the same node, in the same pid namespace, tell a peer that
 * died from one that only does not progress (ofi_data.c, probes). */
static canal_status_t card_make(ofi_state_t *st, const unsigned char *addr, size_t alen)
{
    char hex[2 * OFI_ADDR_MAX + 1];
    char prov[sizeof st->prov];
    int n;

    common_hex_encode(addr, alen, hex);
    card_escape(st->prov, prov, sizeof prov);
    n = snprintf(st->card, sizeof st->card, "%d|%s|%zu|%ld|%llu|%s", OFI_CARD_VERSION, prov,
                 st->max_payload, (long)getpid(), (unsigned long long)common_pidns(), hex);
    if (n < 0 || (size_t)n >= sizeof st->card)
        return common_err_set(CANAL_ERR_LIMIT, "ofi: address card of %d bytes exceeds the PMI "
                              "value limit %d", n, PMI_VAL_MAX - 1);
    return CANAL_OK;
}

static int card_parse(const ofi_state_t *st, char *card, unsigned char *addr, long *alen_out,
                      ofi_peer_t *peer)
{
    char *f[6];
    char *save = NULL, *p = card;
    char prov[sizeof st->prov];
    int nf = 0;

    if (card[0] == '!')
        return UNREACH_INIT_FAILED;
    /* The provider name itself contains ';' but never '|'. */
    for (char *tok = strtok_r(p, "|", &save); tok != NULL && nf < 6;
         tok = strtok_r(NULL, "|", &save))
        f[nf++] = tok;
    if (nf != 6 || atoi(f[0]) != OFI_CARD_VERSION)
        return UNREACH_BAD_CARD;
    card_escape(st->prov, prov, sizeof prov);
    if (strcmp(f[1], prov) != 0)
        return UNREACH_PROVIDER;
    if (strtoull(f[2], NULL, 10) != st->max_payload)
        return UNREACH_PAYLOAD;
    peer->pid = atol(f[3]);
    peer->pidns = strtoull(f[4], NULL, 10);
    *alen_out = f[5][0] == '\0' ? -1 : common_hex_decode(f[5], strlen(f[5]), addr, OFI_ADDR_MAX);
    return *alen_out > 0 ? UNREACH_NONE : UNREACH_BAD_CARD;
}

/* ---- provider selection ------------------------------------------------- */

static const char *prov_core(const char *name, char *buf, size_t len)
{
    size_t n = strcspn(name, ";");
    snprintf(buf, len, "%.*s", (int)n, name);
    return buf;
}

/* Providers whose registration pins nothing: keys name virtual memory that
 * is looked up at access time (see ofi_mr.c for what that buys the cache). */
static int prov_is_software(const char *name)
{
    static const char *const soft[] = {"tcp", "udp", "sockets", "shm", "net"};
    char core[64];
    prov_core(name, core, sizeof core);
    for (size_t i = 0; i < sizeof soft / sizeof soft[0]; i++)
        if (strcmp(core, soft[i]) == 0)
            return 1;
    return 0;
}

static struct fi_info *hints_make(int rma, const char *prov)
{
    struct fi_info *h = fi_allocinfo();

    if (h == NULL)
        return NULL;
    h->caps = FI_MSG | (rma ? FI_RMA | FI_READ | FI_REMOTE_READ : 0);
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    /* The modes we can live with; the provider keeps the ones it needs. */
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    /* The device polls progress() anyway; providers that can do either
     * then need no progress thread of their own. */
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    if (prov != NULL && prov[0] != '\0' && (h->fabric_attr->prov_name = strdup(prov)) == NULL) {
        fi_freeinfo(h);
        return NULL;
    }
    return h;
}

/* Pick from libfabric's list (best first). The shm provider reaches only
 * this node, so unless it was asked for by name it is taken only when
 * nothing else is offered. */
static struct fi_info *pick(struct fi_info *list, int by_name, size_t need_msg)
{
    struct fi_info *fallback = NULL;
    char core[64];

    for (struct fi_info *i = list; i != NULL; i = i->next) {
        if (i->ep_attr->max_msg_size < need_msg)
            continue;
        if (!by_name && strcmp(prov_core(i->fabric_attr->prov_name, core, sizeof core), "shm") == 0) {
            if (fallback == NULL)
                fallback = i;
            continue;
        }
        return i;
    }
    return fallback;
}

static canal_status_t select_provider(ofi_state_t *st, const char *want)
{
    const char *fi_prov = getenv("FI_PROVIDER");
    int by_name = (want != NULL && want[0] != '\0') || (fi_prov != NULL && fi_prov[0] != '\0');
    struct fi_info *hints, *list = NULL, *chosen = NULL;
    int rc = -FI_ENODATA;

    for (int rma = (ch_ofi_test_flags & OFI_TEST_NO_RMA) ? 0 : 1; rma >= 0 && chosen == NULL;
         rma--) {
        if ((hints = hints_make(rma, want)) == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "ofi: fi_allocinfo");
        rc = fi_getinfo(OFI_API, NULL, NULL, 0, hints, &list);
        fi_freeinfo(hints);
        if (rc == 0) {
            chosen = pick(list, by_name, st->buf_size);
            if (chosen != NULL && (chosen = fi_dupinfo(chosen)) == NULL) {
                fi_freeinfo(list);
                return common_err_set(CANAL_ERR_NOMEM, "ofi: fi_dupinfo");
            }
            fi_freeinfo(list);
            list = NULL;
            if (chosen != NULL)
                st->has_rma = rma;
        }
    }
    if (chosen == NULL) {
        const char *who = want != NULL && want[0] != '\0' ? want
                          : fi_prov != NULL && fi_prov[0] != '\0' ? fi_prov : NULL;
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "ofi: no libfabric provider%s%s%s offers reliable datagrams "
                              "(FI_EP_RDM) with FI_MSG, ordered sends and %zu-byte messages "
                              "(fi_getinfo: %s)",
                              who ? " matching \"" : "", who ? who : "", who ? "\"" : "",
                              st->buf_size, rc != 0 ? ch_ofi_err(rc) : "too small");
    }
    st->info = chosen;
    return CANAL_OK;
}

/* ---- init ---------------------------------------------------------------- */

static void state_reset(ofi_state_t *st)
{
    free(st->peers);
    free(st->node_of);
    free(st->tx_bufs);
    free(st->rx_bufs);
    free(st->tx_mem);
    free(st->rx_mem);
    free(st->unreach_why);
    st->unreach_why = NULL;
    if (st->info != NULL)
        fi_freeinfo(st->info);
    memset(st, 0, sizeof *st);
}

static void close_fids(ofi_state_t *st)
{
    /* With FI_MR_ENDPOINT the registrations refer to the endpoint: close
     * them first. Otherwise close the endpoint first, which also cancels
     * the posted receives that still use the pool registration. */
    if (st->mr_endpoint)
        ch_ofi_mr_close_all(st);
    if (st->ep != NULL)
        fi_close(&st->ep->fid);
    ch_ofi_mr_close_all(st);
    if (st->cq != NULL)
        fi_close(&st->cq->fid);
    if (st->av != NULL)
        fi_close(&st->av->fid);
    if (st->domain != NULL)
        fi_close(&st->domain->fid);
    if (st->fabric != NULL)
        fi_close(&st->fabric->fid);
    st->ep = NULL;
    st->cq = NULL;
    st->av = NULL;
    st->domain = NULL;
    st->fabric = NULL;
}

static canal_status_t read_config(ofi_state_t *st)
{
    long long pay = common_cvar_int("OFI_MAX_PAYLOAD");
    long long ntx = common_cvar_int("OFI_TX_BUFS");
    long long nrx = common_cvar_int("OFI_RX_BUFS");
    long long idle = common_cvar_int("OFI_MR_CACHE_ENTRIES");
    const char *cache = common_cvar_str("OFI_MR_CACHE");
    const char *wait = common_cvar_str("OFI_CQ_WAIT");
    long long lost = common_cvar_int("OFI_PEER_LOST_S");
    long long probe_all = common_cvar_int("OFI_PROBE_ALL_MAX");

    if (pay < 1024 || pay > (16LL << 20))
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_MAX_PAYLOAD=%lld: expected 1K..16M", pay);
    if (ntx < 2 || ntx > 65536)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_TX_BUFS=%lld: expected 2..65536", ntx);
    if (nrx < 2 || nrx > 65536)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_RX_BUFS=%lld: expected 2..65536", nrx);
    if (idle < 0 || idle > 1000000)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_MR_CACHE_ENTRIES=%lld: expected "
                              "0..1000000", idle);
    if (strcmp(cache, "auto") != 0 && strcmp(cache, "yes") != 0 && strcmp(cache, "no") != 0)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_MR_CACHE=%s: expected auto, yes or no",
                              cache);
    if (strcmp(wait, "auto") != 0 && strcmp(wait, "fd") != 0 && strcmp(wait, "none") != 0)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_CQ_WAIT=%s: expected auto, fd or none",
                              wait);
    if (lost < 1 || lost > 86400)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_PEER_LOST_S=%lld: expected 1..86400",
                              lost);
    if (probe_all < 0 || probe_all > 100000000)
        return common_err_set(CANAL_ERR_ARG, "CANAL_OFI_PROBE_ALL_MAX=%lld: expected "
                              "0..100000000", probe_all);
    st->lost_s = (double)lost;
    st->probe_all_max = (int)probe_all;
    st->max_payload = (size_t)pay;
    st->buf_size = (OFI_PREFIX_MAX + st->max_payload + 63) & ~(size_t)63;
    st->ntx = (int)ntx;
    st->nrx = (int)nrx;
    st->idle_max = (int)idle;
    /* keep_idle is settled once the provider is known. */
    st->keep_idle = strcmp(cache, "yes") == 0 ? 1 : strcmp(cache, "no") == 0 ? 0 : -1;
    st->cq_wait_fd = strcmp(wait, "fd") == 0 ? 1 : strcmp(wait, "none") == 0 ? 0 : -1;
    return CANAL_OK;
}

/* Whether the completion queue gets a wait file descriptor. With one,
 * libfabric's utility providers (tcp;ofi_rxm, net, ...) signal it on every
 * completion and clear it on every read: a write() and a read() per message,
 * about 1 us of the 7.6 us one-way latency of tcp;ofi_rxm here (measured,
 * doc/bench.md). The descriptor pays off only where ranks must sleep rather
 * than spin, that is when they outnumber the cores (the device's
 * CANAL_OVERSUBSCRIBED rule); elsewhere block() naps briefly instead. */
static void cq_wait_choose(ofi_state_t *st, const pmi_info_t *pmi)
{
    const char *over = common_cvar_str("OVERSUBSCRIBED");
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                           : sysconf(_SC_NPROCESSORS_ONLN);

    if (st->cq_wait_fd >= 0)
        return;
    if (strcmp(over, "yes") == 0)
        st->cq_wait_fd = 1;
    else if (strcmp(over, "no") == 0)
        st->cq_wait_fd = 0;
    else
        st->cq_wait_fd = cpus > 0 && pmi->local_size > cpus;
}

/* tcp;ofi_rxm sends messages up to FI_OFI_RXM_BUFFER_SIZE (16 KiB by
 * default, its header included) eagerly and larger ones through its own
 * rendezvous, three times slower here at 16 KiB. The device's eager packets
 * (CANAL_EAGER_LIMIT of payload behind our prefix) are just above that, so
 * unless the user chose a size, ask for one that holds them (256 bytes for
 * rxm's header). Must precede the first fi_getinfo, which reads it; a
 * setenv in MPI_Init, as MPICH's and Open MPI's ofi layers do.
 *
 * Over tcp, rxm's rendezvous also loses a packet now and then under load
 * (libfabric 1.17: the receiver never completes a max-size packet while
 * later ones complete, doc/bench.md, helpers `ofi` and `ofi2`), so none of
 * the channel's packets take it: FI_OFI_RXM_EAGER_LIMIT raised to the
 * largest packet (buf_size). rxm reads that limit only where it places
 * eager data straight into the receiver's buffer and sends straight from
 * ours (tcp's dynamic receive buffers and direct send), so it costs no
 * bounce buffers and leaves verbs;ofi_rxm as it was; there SAR carries
 * packets up to 8 times the buffer size. The channel's own large transfers
 * (rdma_read) are fi_read and do not use rxm's rendezvous. */
static void rxm_limits_set(const ofi_state_t *st)
{
    long long eager = common_cvar_int("EAGER_LIMIT");
    char val[32];

    if (getenv("FI_OFI_RXM_EAGER_LIMIT") == NULL) {
        snprintf(val, sizeof val, "%zu", st->buf_size);
        setenv("FI_OFI_RXM_EAGER_LIMIT", val, 0);
    }
    if (getenv("FI_OFI_RXM_BUFFER_SIZE") != NULL || eager <= 0)
        return;
    if ((size_t)eager > st->max_payload)
        eager = (long long)st->max_payload;
    if (eager + OFI_PREFIX_MAX + 256 <= 16384)
        return;
    snprintf(val, sizeof val, "%lld", eager + OFI_PREFIX_MAX + 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", val, 0);
}

/* ---- the network interface ----------------------------------------------- */

/* libfabric's socket providers pick an interface of their own (tcp: the
 * first that is up), which may be a bridge another program removes while
 * the job runs (EADDRNOTAVAIL), or one the other nodes cannot reach. */
static const char *const IFACE_VARS[] = {"FI_TCP_IFACE", "FI_SOCKETS_IFACE", "FI_NET_IFACE"};

/* The interface whose address is `ip` (numeric), or "" when none has it. */
static void iface_of_addr(const struct sockaddr *sa, char *out, size_t len)
{
    struct ifaddrs *all = NULL;

    out[0] = '\0';
    if (getifaddrs(&all) != 0)
        return;
    for (const struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
        const struct sockaddr *a = i->ifa_addr;
        if (a == NULL || a->sa_family != sa->sa_family || !(i->ifa_flags & IFF_UP))
            continue;
        if ((a->sa_family == AF_INET &&
             ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
                 ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) ||
            (a->sa_family == AF_INET6 &&
             memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                    sizeof(struct in6_addr)) == 0)) {
            snprintf(out, len, "%s", i->ifa_name);
            break;
        }
    }
    freeifaddrs(all);
}

/* The interface the route to PMI_PORT's host leaves through ("" if unknown):
 * a UDP socket connected there (no packet is sent) shows the local address. */
static void iface_toward_launcher(char *out, size_t len, char *host, size_t hlen)
{
    const char *port = getenv("PMI_PORT");
    const char *colon = port != NULL ? strrchr(port, ':') : NULL;
    struct addrinfo hints = {0}, *res = NULL;
    struct sockaddr_storage me;
    socklen_t mlen = sizeof me;
    int fd;

    out[0] = '\0';
    host[0] = '\0';
    if (colon == NULL || colon == port || (size_t)(colon - port) >= hlen)
        return;
    snprintf(host, hlen, "%.*s", (int)(colon - port), port);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    hints.ai_socktype = SOCK_DGRAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || res == NULL)
        return;
    fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&me, &mlen) == 0)
        iface_of_addr((const struct sockaddr *)&me, out, len);
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
}

/* What iface_set() put in the environment (a second endpoint finds it there). */
static char iface_ours[64];

int ch_ofi_iface_choose(int nnodes, char *out, size_t len, char *why, size_t wlen)
{
    const char *sock_iface = common_cvar_str("SOCK_IFACE");
    char host[256];

    out[0] = '\0';
    for (size_t i = 0; i < sizeof IFACE_VARS / sizeof IFACE_VARS[0]; i++) {
        const char *v = getenv(IFACE_VARS[i]);
        if (v != NULL && (iface_ours[0] == '\0' || strcmp(v, iface_ours) != 0)) {
            snprintf(why, wlen, "%s=%s set by the user", IFACE_VARS[i], v);
            return 0;
        }
    }
    if (nnodes <= 1) {
        snprintf(out, len, "lo");
        snprintf(why, wlen, "every rank is on this node");
        return 1;
    }
    if (sock_iface[0] != '\0' && strcmp(sock_iface, "auto") != 0 &&
        strlen(sock_iface) < IF_NAMESIZE && if_nametoindex(sock_iface) != 0) {
        snprintf(out, len, "%s", sock_iface);
        snprintf(why, wlen, "CANAL_SOCK_IFACE (mpiexec -iface)");
        return 1;
    }
    iface_toward_launcher(out, len, host, sizeof host);
    if (out[0] != '\0' && strcmp(out, "lo") != 0) {
        snprintf(why, wlen, "the route to the launcher's PMI_PORT host %s", host);
        return 1;
    }
    out[0] = '\0';
    snprintf(why, wlen, "ranks on %d nodes and no launcher address off loopback to go by",
             nnodes);
    return 0;
}

/* Before the first fi_getinfo (the providers read the variables there). */
static void iface_set(ofi_state_t *st, const pmi_info_t *pmi)
{
    if (ch_ofi_iface_choose(pmi->nnodes, st->iface, sizeof st->iface, st->iface_why,
                            sizeof st->iface_why)) {
        for (size_t i = 0; i < sizeof IFACE_VARS / sizeof IFACE_VARS[0]; i++)
            setenv(IFACE_VARS[i], st->iface, 1);
        snprintf(iface_ours, sizeof iface_ours, "%s", st->iface);
    }
    LOG_INFO("ofi: network interface %s (%s)", st->iface[0] != '\0' ? st->iface : "of libfabric's "
             "choice", st->iface_why);
}

static canal_status_t open_endpoint(ofi_state_t *st)
{
    struct fi_av_attr av_attr = {0};
    struct fi_cq_attr cq_attr = {0};
    int rc;

    if ((rc = fi_fabric(st->info->fabric_attr, &st->fabric, NULL)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_fabric(%s): %s", st->prov, ch_ofi_err(rc));
    if ((rc = fi_domain(st->fabric, st->info, &st->domain, NULL)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_domain(%s, %s): %s", st->prov, st->domain_name,
                              ch_ofi_err(rc));
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)st->size;
    if ((rc = fi_av_open(st->domain, &av_attr, &st->av, NULL)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_av_open(%s, %d entries): %s", st->prov,
                              st->size, ch_ofi_err(rc));
    /* A file descriptor to sleep on in block() where the provider has one,
     * if wanted (cq_wait_fd: see cq_wait_choose); otherwise a plain polled
     * queue, and block() naps instead. */
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.wait_obj = FI_WAIT_FD;
    cq_attr.size = (size_t)(st->ntx + st->nrx) + 256;
    st->wait_fd = -1;
    if (st->cq_wait_fd && fi_cq_open(st->domain, &cq_attr, &st->cq, NULL) == 0) {
        if (fi_control(&st->cq->fid, FI_GETWAIT, &st->wait_fd) != 0 || st->wait_fd < 0) {
            fi_close(&st->cq->fid);
            st->cq = NULL;
            st->wait_fd = -1;
        }
    }
    if (st->cq == NULL) {
        cq_attr.wait_obj = FI_WAIT_NONE;
        if ((rc = fi_cq_open(st->domain, &cq_attr, &st->cq, NULL)) != 0)
            return common_err_set(CANAL_ERR_IO, "ofi: fi_cq_open(%s): %s", st->prov,
                                  ch_ofi_err(rc));
    }
    if ((rc = fi_endpoint(st->domain, st->info, &st->ep, NULL)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_endpoint(%s): %s", st->prov, ch_ofi_err(rc));
    if ((rc = fi_ep_bind(st->ep, &st->av->fid, 0)) != 0 ||
        (rc = fi_ep_bind(st->ep, &st->cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_ep_bind(%s): %s", st->prov, ch_ofi_err(rc));
    if ((rc = fi_enable(st->ep)) != 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_enable(%s): %s", st->prov, ch_ofi_err(rc));
    return CANAL_OK;
}

static canal_status_t pools_make(ofi_state_t *st)
{
    canal_status_t err;
    size_t txbytes = (size_t)st->ntx * st->buf_size;
    size_t rxbytes = (size_t)st->nrx * st->buf_size;

    st->tx_bufs = calloc((size_t)st->ntx, sizeof *st->tx_bufs);
    st->rx_bufs = calloc((size_t)st->nrx, sizeof *st->rx_bufs);
    st->tx_mem = aligned_alloc(4096, (txbytes + 4095) & ~(size_t)4095);
    st->rx_mem = aligned_alloc(4096, (rxbytes + 4095) & ~(size_t)4095);
    if (st->tx_bufs == NULL || st->rx_bufs == NULL || st->tx_mem == NULL ||
        st->rx_mem == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "ofi: buffer pools (%d x %zu + %d x %zu bytes)",
                              st->ntx, st->buf_size, st->nrx, st->buf_size);
    /* Touch every page now: FI_MR_ALLOCATED, and no first-touch faults later. */
    memset(st->tx_mem, 0, txbytes);
    memset(st->rx_mem, 0, rxbytes);
    if (st->mr_local) {
        if ((err = ch_ofi_mr_pool(st, st->tx_mem, txbytes, FI_SEND, &st->tx_mr)) != CANAL_OK)
            return err;
        if ((err = ch_ofi_mr_pool(st, st->rx_mem, rxbytes, FI_RECV, &st->rx_mr)) != CANAL_OK)
            return err;
    }
    for (int i = st->ntx - 1; i >= 0; i--) {
        ofi_txbuf_t *b = &st->tx_bufs[i];
        b->op.kind = OFI_OP_TX;
        b->data = st->tx_mem + (size_t)i * st->buf_size;
        b->next = st->tx_free;
        st->tx_free = b;
    }
    for (int i = 0; i < st->nrx; i++) {
        ofi_rxbuf_t *b = &st->rx_bufs[i];
        b->op.kind = OFI_OP_RX;
        b->data = st->rx_mem + (size_t)i * st->buf_size;
        if ((err = ch_ofi_rx_post(st, b)) < 0)
            return err;
    }
    return CANAL_OK;
}

static canal_status_t ofi_init(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                               ch_caps_t *caps_out)
{
    ofi_state_t *st = ep->state;
    unsigned char addr[OFI_ADDR_MAX];
    size_t alen = sizeof addr;
    const char *want;
    char card_key[PMI_KEY_MAX];
    canal_status_t err;
    struct fi_info *in;
    int rc;

    if (pmi == NULL || up == NULL || up->on_packet == NULL || caps_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "ofi init: %s is NULL",
                              pmi == NULL ? "pmi" : up == NULL ? "up" :
                              caps_out == NULL ? "caps_out" : "up->on_packet");
    if (st->initialized)
        return common_err_set(CANAL_ERR_PENDING, "ofi init: already initialized");
    if (pmi->size < 1 || pmi->rank < 0 || pmi->rank >= pmi->size)
        return common_err_set(CANAL_ERR_ARG, "ofi init: rank %d of size %d", pmi->rank, pmi->size);
    state_reset(st);
    /* The key first: the failure path below publishes why ofi is unusable. */
    ch_endpoint_key(ep, PMI_KEY_CARD, card_key, sizeof card_key);
    /* Before anything calls libfabric: no library, no channel (the device
     * falls back to sock, or fails with this message when ofi was forced). */
    if ((err = ch_ofi_dl_open()) != CANAL_OK)
        goto fail;
    st->up = *up;
    st->rank = pmi->rank;
    st->size = pmi->size;
    if ((err = read_config(st)) != CANAL_OK)
        goto fail;
    st->peers = calloc((size_t)pmi->size, sizeof *st->peers);
    st->unreach_why = calloc((size_t)pmi->size, 1);
    if (st->peers == NULL || st->unreach_why == NULL) {
        err = common_err_set(CANAL_ERR_NOMEM, "ofi init: peer table for %d ranks", pmi->size);
        goto fail;
    }
    if (pmi->node_of != NULL) {
        if ((st->node_of = malloc((size_t)pmi->size * sizeof *st->node_of)) == NULL) {
            err = common_err_set(CANAL_ERR_NOMEM, "ofi init: node table");
            goto fail;
        }
        memcpy(st->node_of, pmi->node_of, (size_t)pmi->size * sizeof *st->node_of);
        st->node = pmi->node_of[pmi->rank];
    }

    cq_wait_choose(st, pmi);
    rxm_limits_set(st);
    iface_set(st, pmi);
    want = ep->provider[0] != '\0' ? ep->provider : common_cvar_str("OFI_PROVIDER");
    if ((err = select_provider(st, want)) != CANAL_OK)
        goto fail;
    in = st->info;
    snprintf(st->prov, sizeof st->prov, "%s", in->fabric_attr->prov_name);
    snprintf(st->fabric_name, sizeof st->fabric_name, "%s",
             in->fabric_attr->name != NULL ? in->fabric_attr->name : "?");
    snprintf(st->domain_name, sizeof st->domain_name, "%s",
             in->domain_attr->name != NULL ? in->domain_attr->name : "?");
    st->mr_local = (in->domain_attr->mr_mode & FI_MR_LOCAL) != 0 ||
                   (ch_ofi_test_flags & OFI_TEST_FORCE_MR_LOCAL) != 0;
    st->mr_virt = (in->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    st->mr_prov_key = (in->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
    st->mr_allocated = (in->domain_attr->mr_mode & FI_MR_ALLOCATED) != 0;
    st->mr_endpoint = (in->domain_attr->mr_mode & FI_MR_ENDPOINT) != 0;
    {
        char core[64];
        st->local_only = strcmp(prov_core(st->prov, core, sizeof core), "shm") == 0;
    }
    st->pins = !prov_is_software(st->prov);
    if (st->keep_idle < 0)
        st->keep_idle = !st->pins;
    if (st->idle_max == 0)
        st->keep_idle = 0;
    /* Never more operations at the provider than its queues hold, whatever
     * CANAL_OFI_TX_BUFS/RX_BUFS say (udp;ofi_rxd stalls when overfilled). */
    st->tx_cap = in->tx_attr->size > 0 && in->tx_attr->size < 65536 ? (int)in->tx_attr->size
                                                                     : 65536;
    if (st->ntx > st->tx_cap)
        st->ntx = st->tx_cap;
    if (in->rx_attr->size > 0 && (size_t)st->nrx > in->rx_attr->size)
        st->nrx = (int)in->rx_attr->size;
    st->rma_max = in->ep_attr->max_msg_size;
    if (st->rma_max > ((size_t)1 << 30))
        st->rma_max = (size_t)1 << 30;
    /* RDMA needs a key the peer can use and, without FI_MR_VIRT_ADDR, the
     * registration's base: ofi_mr.c keeps it in the key, which needs
     * application-chosen 8-byte keys. */
    if (st->has_rma && !st->mr_virt && (st->mr_prov_key || in->domain_attr->mr_key_size < 8)) {
        LOG_DEBUG("ofi: %s wants offsets and provider keys (or keys < 8 bytes): no RDMA",
                  st->prov);
        st->has_rma = 0;
    }

    if ((err = open_endpoint(st)) != CANAL_OK)
        goto fail_fids;
    if ((rc = fi_getname(&st->ep->fid, addr, &alen)) != 0) {
        err =
            common_err_set(CANAL_ERR_IO, "ofi: fi_getname(%s): %s%s", st->prov, ch_ofi_err(rc),
                           rc == -FI_ETOOSMALL ? " (address longer than Canal's cards allow)" : "");
        goto fail_fids;
    }
    if ((err = pools_make(st)) < 0)
        goto fail_fids;
    if ((err = card_make(st, addr, alen)) != CANAL_OK)
        goto fail_fids;
    if ((err = pmi_put(card_key, st->card)) != CANAL_OK)
        goto fail_fids;

    caps_out->max_payload = st->max_payload;
    caps_out->has_rdma = st->has_rma;
    caps_out->local_only = st->local_only;
    caps_out->can_block = 1;
    caps_out->has_dyn = 0;
    st->initialized = 1;
    LOG_DEBUG("ofi: provider %s, fabric %s, domain %s", st->prov, st->fabric_name,
              st->domain_name);
    return CANAL_OK;

fail_fids:
    close_fids(st);
fail:
    {
        /* Tell the others, so they treat this rank as unreachable over ofi
         * (and say why) instead of waiting for a card. */
        char val[512];
        val[0] = '!';
        card_escape(common_err_detail(), val + 1, sizeof val - 1);
        pmi_put(card_key, val);
    }
    state_reset(st);
    return err;
}

/* ---- post_fence ---------------------------------------------------------- */

static canal_status_t ofi_post_fence(ch_endpoint_t *ep)
{
    ofi_state_t *st = ep->state;
    char card[PMI_VAL_MAX], card_key[PMI_KEY_MAX];
    unsigned char addr[OFI_ADDR_MAX];
    int first_bad = -1;

    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "ofi post_fence: init() did not succeed");
    ch_endpoint_key(ep, PMI_KEY_CARD, card_key, sizeof card_key);
    st->nreachable = 0;
    for (int r = 0; r < st->size; r++) {
        ofi_peer_t *p = &st->peers[r];
        long alen = 0;
        int why;

        p->addr = FI_ADDR_NOTAVAIL;
        if (r == st->rank)
            memcpy(card, st->card, sizeof card);
        else if (pmi_get(r, card_key, card, sizeof card) != CANAL_OK)
            card[0] = '\0';
        if (card[0] == '\0')
            why = UNREACH_NO_CARD;
        else if (st->local_only && st->node_of != NULL && st->node_of[r] != st->node)
            why = UNREACH_NODE;
        else
            why = card_parse(st, card, addr, &alen, p);
        if (why == UNREACH_NONE) {
            int rc = fi_av_insert(st->av, addr, 1, &p->addr, 0, NULL);
            if (rc != 1) {
                LOG_WARN("ofi: cannot insert the address of rank %d into the address vector "
                         "(%s)",
                         r, rc < 0 ? ch_ofi_err(rc) : "not inserted");
                why = UNREACH_AV;
            }
        }
        if (why == UNREACH_INIT_FAILED)
            LOG_DEBUG("ofi: rank %d could not initialize its ofi channel: %s", r, card + 1);
        st->unreach_why[r] = (unsigned char)why;
        p->reachable = why == UNREACH_NONE;
        if (p->reachable)
            st->nreachable++;
        else if (first_bad < 0)
            first_bad = r;
    }
    if (!st->peers[st->rank].reachable)
        return common_err_set(CANAL_ERR_IO, "ofi: cannot address this rank's own endpoint "
                              "(%s)", st->prov);
    if (first_bad >= 0)
        LOG_DEBUG("ofi: %d of %d ranks unreachable over %s (first: rank %d)",
                  st->size - st->nreachable, st->size, st->prov, first_bad);
    st->ready = 1;
    return CANAL_OK;
}

/* The reason `peer` cannot be reached, as text (for sendv's message). */
const char *ch_ofi_unreach_reason(ofi_state_t *st, int peer)
{
    switch (st->unreach_why != NULL ? st->unreach_why[peer] : UNREACH_NO_CARD) {
    case UNREACH_NO_CARD: return "it published no ofi address card";
    case UNREACH_INIT_FAILED: return "its ofi channel failed to initialize";
    case UNREACH_PROVIDER: return "it chose a different libfabric provider "
                                  "(set FI_PROVIDER or CANAL_OFI_PROVIDER alike everywhere)";
    case UNREACH_PAYLOAD: return "its CANAL_OFI_MAX_PAYLOAD differs from ours";
    case UNREACH_BAD_CARD: return "its address card is malformed";
    case UNREACH_NODE: return "it is on another node and the provider (shm) is node-local";
    case UNREACH_AV: return "its address could not be inserted into the address vector";
    default: return "reachable";
    }
}

static canal_status_t ofi_finalize(ch_endpoint_t *ep)
{
    ofi_state_t *st = ep->state;

    if (!st->initialized)
        return CANAL_OK;
    /* sendv() promised delivery: give queued sends a moment to leave. */
    if (st->ready)
        ch_ofi_drain_tx(st, 2.0);
    close_fids(st);
    /* Reads that never started or whose callback never ran; reads still
     * with the provider when the endpoint closed cannot be found (and are
     * not expected: the device finalizes with no request pending). */
    while (st->rma_wait != NULL) {
        ofi_rma_t *r = st->rma_wait;
        st->rma_wait = r->next;
        free(r);
    }
    while (st->rma_done != NULL) {
        ofi_rma_t *r = st->rma_done;
        st->rma_done = r->next;
        free(r);
    }
    state_reset(st);
    return CANAL_OK;
}

static int ofi_reaches(ch_endpoint_t *ep, int peer)
{
    ofi_state_t *st = ep->state;
    return st->ready && peer >= 0 && peer < st->size && st->peers[peer].reachable;
}

static void ofi_describe(ch_endpoint_t *ep, char *buf, size_t len)
{
    ofi_state_t *st = ep->state;
    char mr[96];

    if (buf == NULL || len == 0)
        return;
    if (!st->initialized) {
        snprintf(buf, len, "ofi: not initialized");
        return;
    }
    snprintf(mr, sizeof mr, "%s%s%s%s%s", st->mr_local ? " local" : "",
             st->mr_virt ? " virt_addr" : "", st->mr_prov_key ? " prov_key" : "",
             st->mr_allocated ? " allocated" : "", st->mr_endpoint ? " endpoint" : "");
    snprintf(
        buf, len,
        "ofi: libfabric %u.%u (%s), provider %s, fabric %s, domain %s%s, interface %s, "
        "%d/%d ranks reachable, "
        "RMA %s, mr_mode [%s ], %zu B packets, %d rx / %d tx buffers, block %s, "
        "MR cache %s (hits %lu, misses %lu)",
        FI_MAJOR(fi_version()), FI_MINOR(fi_version()), ch_ofi_dl_path(), st->prov, st->fabric_name,
        st->domain_name, st->local_only ? " (node-local)" : "",
        st->iface[0] != '\0' ? st->iface : "libfabric's", st->nreachable, st->size,
        !st->has_rma  ? "no"
        : st->mr_virt ? "yes (virtual addresses)"
                      : "yes (offsets)",
        mr, st->max_payload, st->nrx, st->ntx, st->wait_fd >= 0 ? "on a CQ fd" : "naps (no CQ fd)",
        st->keep_idle ? "keeps idle registrations" : "live registrations only", st->mr_stats.hits,
        st->mr_stats.misses);
}

/* Appends to buf[*off..len); *off stops at len - 1 once it is full. */
static void text_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void text_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*off + 1 >= len)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    if (n > 0)
        *off = *off + (size_t)n < len ? *off + (size_t)n : len - 1;
}

/* " at <the provider's text for rank r's address>", or "" when it has none. */
static const char *addr_text(ofi_state_t *st, int r, char *out, size_t len)
{
    unsigned char addr[OFI_ADDR_MAX];
    size_t alen = sizeof addr, slen;
    char s[80];

    out[0] = '\0';
    if (!st->peers[r].reachable || fi_av_lookup(st->av, st->peers[r].addr, addr, &alen) != 0 ||
        alen > sizeof addr)
        return out;
    slen = sizeof s;
    if (fi_av_straddr(st->av, addr, s, &slen) != NULL && s[0] != '\0')
        snprintf(out, len, " at %s", s);
    return out;
}

void ch_ofi_state_text(ch_endpoint_t *ep, char *buf, size_t len)
{
    ofi_state_t *st;
    size_t off = 0;
    int narrived = 0, nrepost = 0, shown = 0;
    long *oldest;
    unsigned char *isfree;

    if (ep == NULL || buf == NULL || len == 0)
        return;
    buf[0] = '\0';
    st = ep->state;
    if (!st->ready) {
        text_add(buf, len, &off, "ofi: %s\n", st->initialized ? "initialized, before post_fence()"
                                                              : "not initialized");
        return;
    }
    for (ofi_rxbuf_t *b = st->arrived; b != NULL; b = b->next)
        narrived++;
    for (ofi_rxbuf_t *b = st->repost; b != NULL; b = b->next)
        nrepost++;
    text_add(buf, len, &off,
             "ofi %s rank %d: receives %d posted of %d, %d completed not yet delivered, %d to "
             "repost; sends %d in flight of %d (cap %d); reads %d (%d at the provider)\n",
             st->prov, st->rank, st->rx_posted, st->nrx, narrived, nrepost, st->tx_inflight,
             st->ntx, st->tx_cap, st->rma_inflight, st->rma_posted);
    text_add(buf, len, &off,
             "  completions: %lu receives, %lu sends, %lu errors; %lu packets delivered, %lu held "
             "back for order; %lu sends, %lu without a free buffer, %lu FI_EAGAIN; %lu liveness "
             "probes, %lu BYEs\n",
             st->rx_completions, st->tx_completions, st->cq_errors, st->delivered, st->reordered,
             st->sends, st->tx_nobuf, st->tx_eagain, st->probes, st->byes);
    if (st->cq_errors > 0)
        text_add(buf, len, &off, "  last completion error: %s\n", st->last_cq_err);
    /* The oldest send each peer still has at the provider (a bounce buffer
     * not on the free list), by its sequence number: whether the receiver
     * still expects it tells a send the provider never finished from a
     * packet lost after it. */
    oldest = st->tx_inflight > 0 ? malloc((size_t)st->size * sizeof *oldest) : NULL;
    isfree = oldest != NULL ? calloc((size_t)st->ntx, 1) : NULL;
    if (isfree != NULL) {
        for (int r = 0; r < st->size; r++)
            oldest[r] = -1;
        for (const ofi_txbuf_t *b = st->tx_free; b != NULL; b = b->next)
            isfree[b - st->tx_bufs] = 1;
        for (int i = 0; i < st->ntx; i++) {
            ofi_wire_t w;
            int r = st->tx_bufs[i].peer;
            if (isfree[i] || r < 0 || r >= st->size)
                continue;
            memcpy(&w, st->tx_bufs[i].data, sizeof w);
            if (w.magic != OFI_WIRE_MAGIC)
                continue; /* a liveness probe */
            /* Oldest: the furthest behind the next sequence number. */
            if (oldest[r] < 0 ||
                st->peers[r].tx_seq - w.seq > st->peers[r].tx_seq - (uint32_t)oldest[r])
                oldest[r] = w.seq;
        }
    }
    for (int r = 0; r < st->size; r++) {
        const ofi_peer_t *p = &st->peers[r];
        char where[96];
        int nheld = 0;
        uint32_t first = 0, last = 0;

        for (const ofi_rxbuf_t *h = p->held; h != NULL; h = h->next) {
            if (nheld == 0)
                first = h->seq;
            last = h->seq;
            nheld++;
        }
        if (p->tx_seq == 0 && p->rx_seq == 0 && nheld == 0 && !p->failed && !p->departed)
            continue;
        if (shown++ == 16) {
            text_add(buf, len, &off, "  (more peers not shown)\n");
            break;
        }
        text_add(buf, len, &off, "  peer %d%s%s: sent %u (%d in flight), expects %u", r,
                 r == st->rank ? " (self)" : "", addr_text(st, r, where, sizeof where), p->tx_seq,
                 p->tx_inflight, p->rx_seq);
        if (isfree != NULL && oldest[r] >= 0)
            text_add(buf, len, &off, ", oldest send in flight %ld", oldest[r]);
        if (nheld > 0)
            text_add(buf, len, &off, ", holds %d (%u..%u)", nheld, first, last);
        text_add(buf, len, &off, "%s%s\n", p->departed ? ", said BYE" : "",
                 p->failed ? ", failed" : "");
    }
    free(isfree);
    free(oldest);
}

const ch_ops_t ch_ofi_ops = {
    .name = "ofi",
    .state_size = sizeof(ofi_state_t),
    .remote_worth = ch_ofi_remote_worth,
    .init = ofi_init,
    .post_fence = ofi_post_fence,
    .finalize = ofi_finalize,
    .reaches = ofi_reaches,
    .sendv = ch_ofi_sendv,
    .sendv_turn = ch_no_sendv_turn,
    .progress = ch_ofi_progress,
    .mem_register = ch_ofi_mem_register,
    .mem_deregister = ch_ofi_mem_deregister,
    .rdma_read = ch_ofi_rdma_read,
    .rdma_readv = ch_no_rdma_readv,
    .rdma_read_batch = ch_no_rdma_read_batch,
    .rdma_write = ch_no_rdma_write,
    .block = ch_ofi_block,
    .wake = ch_no_wake,
    .flush = ch_ofi_flush,
    .describe = ofi_describe,
    .eager_hint = ch_no_eager_hint,
    .dyn_open = ch_no_dyn_open,
    .dyn_card = ch_no_dyn_card,
    .dyn_peer_add = ch_no_dyn_peer_add,
};
