/*
 * The sock channel's connections and data path: sendv(), progress(),
 * block(). Called by the device through ch_sock_ops (sock.c); one thread at
 * a time (the device serializes channel calls).
 *
 * A connection to a peer is made on the first sendv() to it; until it is
 * authenticated the packets wait in the peer's output queue, and sendv()
 * says "again" once that queue holds CANAL_SOCK_OUTBUF_LIMIT bytes. Every
 * connection runs the handshake of sock.h before any frame is read from it.
 * When two ranks connect to each other at once, the acceptor decides: the
 * connection made by the lower rank wins (the higher rank drops its own
 * attempt when it accepts the lower's; the lower rejects the higher's), and
 * the queued packets then leave on the winner, so both sides agree on one
 * connection and order is kept.
 *
 * Dynamic peers (processes of other jobs, indices from the job size on,
 * added by ch_sock_dyn_peer_add) run the dynamic form of the handshake
 * (sock.h): ids and a pair secret instead of ranks and the job secret; an
 * incoming one from an id not known yet waits parked (SOCK_CS_PARKED) until
 * its peer_add or SOCK_DYN_PARK_S; simultaneous connects keep the lower
 * id's connection.
 *
 * Failures: a peer whose connection closes or resets without a GOODBYE frame
 * (or that cannot be reached, or that fails to prove it belongs to the job)
 * is reported once through up->on_peer_failed(), from progress(). A stranger
 * (a connection that does not complete the handshake: garbage, a wrong or
 * replayed proof, silence past CANAL_SOCK_HANDSHAKE_TIMEOUT, or the oldest
 * of SOCK_PENDING_MAX unauthenticated ones when a new one comes) is dropped
 * with a log line and nothing it sent reaches the device. Our own attempts
 * that end in the handshake are retried with growing pauses for
 * CANAL_SOCK_HANDSHAKE_TIMEOUT before the peer counts as failed.
 */
#include "channels/sock/sock.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

enum {
    IN_MIN = 64 * 1024,    /* receive buffer of an authenticated connection */
    HS_IN_CAP = 128,       /* receive buffer during the handshake */
    CHUNK_MIN = 16 * 1024, /* small frames are queued together in chunks this big */
    IOV_BATCH = 64,
    WARN_FREE = 20, /* stranger lines logged before rate limiting */
};

static const unsigned char zeros[8];

static int would_block(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

/* ---- connections ------------------------------------------------------- */

static uint32_t conn_wanted(sock_state_t *st, sock_conn_t *c)
{
    uint32_t ev = EPOLLIN;

    if (c->state == SOCK_CS_CONNECTING)
        return EPOLLOUT;
    if (c->state == SOCK_CS_PARKED)
        return 0; /* only hang-ups: it waits for peer_add, not for bytes */
    if (c->hs_off < c->hs_len)
        ev |= EPOLLOUT;
    else if (c->state == SOCK_CS_UP && st->peers[c->peer].out_bytes > 0)
        ev |= EPOLLOUT;
    return ev;
}

static void conn_watch(sock_state_t *st, sock_conn_t *c)
{
    struct epoll_event ev;
    uint32_t want;

    if (c->state == SOCK_CS_DEAD || c->fd < 0)
        return;
    want = conn_wanted(st, c);
    if (want == c->events)
        return;
    memset(&ev, 0, sizeof ev);
    ev.events = want;
    ev.data.ptr = c;
    if (epoll_ctl(st->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
        c->events = want;
}

static sock_conn_t *conn_new(sock_state_t *st, int fd, int acceptor, int peer, const char *where)
{
    struct epoll_event ev;
    sock_conn_t *c = calloc(1, sizeof *c);
    int one = 1;

    if (c == NULL)
        return NULL;
    c->in = malloc(HS_IN_CAP);
    if (c->in == NULL) {
        free(c);
        return NULL;
    }
    c->in_cap = HS_IN_CAP;
    c->fd = fd;
    c->acceptor = acceptor;
    c->peer = peer;
    snprintf(c->where, sizeof c->where, "%s", where);
    /* Latency over batching: the device sends whole packets. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(st->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        free(c->in);
        free(c);
        return NULL;
    }
    c->events = EPOLLIN;
    c->next = st->conns;
    st->conns = c;
    return c;
}

/* Close now; free later (progress() or finalize()), because the caller's
 * caller may still be reading c->in. */
static void conn_kill(sock_state_t *st, sock_conn_t *c)
{
    if (c->state == SOCK_CS_DEAD)
        return;
    if (c->pending) {
        c->pending = 0;
        st->npending--;
    }
    if (c->fd >= 0) {
        epoll_ctl(st->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    if (c->peer >= 0 && st->peers[c->peer].conn == c)
        st->peers[c->peer].conn = NULL;
    c->state = SOCK_CS_DEAD;
    st->ndead++;
}

static void conns_reap(sock_state_t *st)
{
    sock_conn_t **pp = &st->conns;

    while (*pp != NULL && st->ndead > 0) {
        sock_conn_t *c = *pp;
        if (c->state == SOCK_CS_DEAD) {
            *pp = c->next;
            free(c->in);
            free(c);
            st->ndead--;
        } else {
            pp = &c->next;
        }
    }
}

void ch_sock_conn_close_all(sock_state_t *st)
{
    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        conn_kill(st, c);
    conns_reap(st);
}

int ch_sock_count_up(const sock_state_t *st)
{
    int n = 0;
    for (const sock_conn_t *c = st->conns; c != NULL; c = c->next)
        n += c->state == SOCK_CS_UP;
    return n;
}

static void consume(sock_conn_t *c, size_t n)
{
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

static int in_reserve(sock_conn_t *c, size_t cap)
{
    unsigned char *b;

    if (c->in_cap >= cap)
        return 0;
    b = realloc(c->in, cap);
    if (b == NULL)
        return -1;
    c->in = b;
    c->in_cap = cap;
    return 0;
}

/* A connection that did not prove itself: one log line (the first
 * WARN_FREE, then one in a hundred, so a flood cannot fill the log). */
static void stranger_drop(sock_state_t *st, sock_conn_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stranger_drop(sock_state_t *st, sock_conn_t *c, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    st->strangers_dropped++;
    if (st->warn_lines < WARN_FREE || st->strangers_dropped % 100 == 0) {
        st->warn_lines++;
        LOG_WARN("sock: dropped a connection from %s: %s (%lu dropped so far)", c->where, why,
                 st->strangers_dropped);
    }
    conn_kill(st, c);
}

/* ---- peers --------------------------------------------------------------- */

/* Every change of a peer's state goes through here, so that progress() knows
 * cheaply whether any peer waits on a timer (BACKOFF, WAITING). */
static void peer_set_state(sock_state_t *st, sock_peer_t *p, int state)
{
    int was = p->state == SOCK_PS_BACKOFF || p->state == SOCK_PS_WAITING;
    int is = state == SOCK_PS_BACKOFF || state == SOCK_PS_WAITING;

    st->ntimed += is - was;
    p->state = state;
}

static void out_free(sock_peer_t *p)
{
    while (p->out_head != NULL) {
        sock_chunk_t *k = p->out_head;
        p->out_head = k->next;
        free(k);
    }
    p->out_tail = NULL;
    p->out_bytes = 0;
}

/* The peer is lost: close its connection, drop its queue, and report it
 * from progress() (never from inside sendv, whose caller is mid-operation). */
static void peer_fail(sock_state_t *st, int peer, canal_status_t why, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void peer_fail(sock_state_t *st, int peer, canal_status_t why, const char *fmt, ...)
{
    sock_peer_t *p = &st->peers[peer];
    va_list ap;

    if (p->state == SOCK_PS_FAILED || p->state == SOCK_PS_GONE)
        return;
    va_start(ap, fmt);
    vsnprintf(p->fail_why, sizeof p->fail_why, fmt, ap);
    va_end(ap);
    if (!st->finalizing)
        LOG_ERR("sock: %s", p->fail_why);
    if (p->conn != NULL)
        conn_kill(st, p->conn);
    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        if (c->peer == peer)
            conn_kill(st, c);
    out_free(p);
    peer_set_state(st, p, SOCK_PS_FAILED);
    p->fail_status = why;
    p->fail_pending = 1;
    st->nfail_pending++;
}

static void peer_gone(sock_state_t *st, int peer)
{
    sock_peer_t *p = &st->peers[peer];

    if (p->out_bytes > 0)
        LOG_DEBUG("sock: rank %d finalized; dropping %zu queued bytes to it", peer, p->out_bytes);
    out_free(p);
    if (p->conn != NULL)
        conn_kill(st, p->conn);
    peer_set_state(st, p, SOCK_PS_GONE);
}

static canal_status_t peer_connect(sock_state_t *st, int peer)
{
    sock_peer_t *p = &st->peers[peer];
    char key[PMI_KEY_MAX], card[PMI_VAL_MAX];
    sock_addr_t a;
    sock_conn_t *c;
    canal_status_t err;
    int fd, rc;

    if (p->dyn) {
        snprintf(card, sizeof card, "%s", p->dyn_addr);
    } else {
        char base[PMI_KEY_MAX];
        snprintf(base, sizeof base, "sock-%d", peer);
        ch_endpoint_key(st->ep, base, key, sizeof key);
        if ((err = pmi_get(peer, key, card, sizeof card)) != CANAL_OK)
            return common_err_set(CANAL_ERR_PEER, "sock: no address card from rank %d: %s", peer,
                                  common_err_detail());
    }
    if ((err = ch_sock_addr_parse(card, &a)) != CANAL_OK)
        return common_err_set(CANAL_ERR_PEER, "sock: rank %d: %s", peer, common_err_detail());
    fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return common_err_set(CANAL_ERR_IO, "sock: socket() to reach rank %d: %s", peer,
                              strerror(errno));
    do
        rc = connect(fd, (struct sockaddr *)&a.ss, a.len);
    while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return common_err_set(CANAL_ERR_PEER, "sock: cannot connect to rank %d at %s: %s", peer,
                              card, strerror(e));
    }
    c = conn_new(st, fd, 0, peer, card);
    if (c == NULL) {
        close(fd);
        return common_err_set(CANAL_ERR_NOMEM, "sock: connection to rank %d", peer);
    }
    c->state = rc == 0 ? SOCK_CS_WAIT_CHALLENGE : SOCK_CS_CONNECTING;
    c->dyn = p->dyn;
    conn_watch(st, c);
    p->conn = c;
    if (p->retries == 0)
        p->retry_since = common_now_s(); /* the first attempt of a series */
    peer_set_state(st, p, SOCK_PS_CONNECTING);
    st->connects_started++;
    return CANAL_OK;
}

/* Our attempt ended before the handshake did: the acceptor may have timed
 * us out while we were not progressing, evicted us to make room for
 * strangers, or its backlog was full, so try again after pauses that double
 * up to SOCK_RETRY_PAUSE_MAX_MS. The peer is declared failed once the
 * attempts started CANAL_SOCK_HANDSHAKE_TIMEOUT ago and SOCK_RETRY_MIN of
 * them failed, or twice that time ago whatever their number (connects that
 * end only in the kernel's own timeout). */
static void peer_retry(sock_state_t *st, int peer, const char *what)
{
    sock_peer_t *p = &st->peers[peer];
    double now = common_now_s(), pause;

    if (p->conn != NULL)
        conn_kill(st, p->conn);
    p->retries++;
    if ((p->retries >= SOCK_RETRY_MIN && now - p->retry_since >= st->hs_timeout) ||
        now - p->retry_since >= 2 * st->hs_timeout) {
        peer_fail(st, peer, CANAL_ERR_PEER,
                  "connection to rank %d failed %d times in %.0f s before its handshake ended "
                  "(last: %s)",
                  peer, p->retries, now - p->retry_since, what);
        return;
    }
    LOG_DEBUG("sock: connection to rank %d ended in the handshake (%s); retrying", peer, what);
    peer_set_state(st, p, SOCK_PS_BACKOFF);
    pause = 0.05 * (double)(1 << (p->retries < 16 ? p->retries : 16));
    if (pause > SOCK_RETRY_PAUSE_MAX_MS / 1000.0)
        pause = SOCK_RETRY_PAUSE_MAX_MS / 1000.0;
    p->retry_at = now + pause;
}

/* ---- writing ------------------------------------------------------------- */

/* Room for n more bytes at the queue's tail, or NULL (no memory). */
static unsigned char *out_reserve(sock_peer_t *p, size_t n)
{
    sock_chunk_t *t = p->out_tail;
    size_t cap;

    if (t != NULL && t->cap - t->len >= n)
        return t->data + t->len;
    cap = n > CHUNK_MIN ? n : CHUNK_MIN;
    t = malloc(sizeof *t + cap);
    if (t == NULL)
        return NULL;
    t->next = NULL;
    t->cap = cap;
    t->len = 0;
    t->off = 0;
    if (p->out_tail != NULL)
        p->out_tail->next = t;
    else
        p->out_head = t;
    p->out_tail = t;
    return t->data;
}

/* Queue the bytes of iov[] from offset skip on (the part a direct write did
 * not take). The frame's bytes stay contiguous in one chunk. */
static int out_append(sock_peer_t *p, const struct iovec *iov, int n, size_t skip)
{
    size_t total = 0, need;
    unsigned char *dst;

    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    need = total - skip;
    if ((dst = out_reserve(p, need)) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        size_t l = iov[i].iov_len;
        const unsigned char *s = iov[i].iov_base;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(dst, s + skip, l - skip);
        dst += l - skip;
        skip = 0;
    }
    p->out_tail->len += need;
    p->out_bytes += need;
    return 0;
}

/* Write what we can: handshake bytes first, then (once up) the queue.
 * 0 when everything is written, 1 when the socket is full, -errno on error. */
static int conn_write(sock_state_t *st, sock_conn_t *c)
{
    while (c->hs_off < c->hs_len) {
        ssize_t w =
            send(c->fd, c->hs_out + c->hs_off, c->hs_len - c->hs_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return would_block(errno) ? 1 : -errno;
        c->hs_off += (size_t)w;
    }
    if (c->state != SOCK_CS_UP)
        return 0;
    sock_peer_t *p = &st->peers[c->peer];
    while (p->out_head != NULL) {
        struct iovec iov[IOV_BATCH];
        struct msghdr m;
        sock_chunk_t *k = p->out_head;
        int n = 0;
        ssize_t w;

        for (; k != NULL && n < IOV_BATCH; k = k->next)
            if (k->len > k->off)
                iov[n++] = (struct iovec){k->data + k->off, k->len - k->off};
        memset(&m, 0, sizeof m);
        m.msg_iov = iov;
        m.msg_iovlen = (size_t)n;
        w = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (would_block(errno))
                return 1;
            return -errno;
        }
        p->out_bytes -= (size_t)w;
        for (size_t left = (size_t)w;
             left > 0 || (p->out_head && p->out_head->off == p->out_head->len);) {
            size_t take;
            k = p->out_head;
            take = left < k->len - k->off ? left : k->len - k->off;
            k->off += take;
            left -= take;
            if (k->off < k->len)
                break;
            p->out_head = k->next;
            if (p->out_head == NULL)
                p->out_tail = NULL;
            free(k);
        }
    }
    return 0;
}

static void conn_broken(sock_state_t *st, sock_conn_t *c, const char *what);

/* Write, and deal with the outcome: a reject closes after its verdict is
 * out; an error breaks the connection. */
static void conn_push(sock_state_t *st, sock_conn_t *c)
{
    int r;

    if (c->state == SOCK_CS_DEAD)
        return;
    r = conn_write(st, c);
    if (r < 0) {
        conn_broken(st, c, strerror(-r));
        return;
    }
    if (r == 0 && c->close_after_hs) {
        conn_kill(st, c);
        return;
    }
    conn_watch(st, c);
}

canal_status_t ch_sock_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    sock_state_t *st = ep->state;
    struct iovec fiov_small[IOV_BATCH], *fiov = fiov_small;
    unsigned char head[SOCK_FRAME_HEAD];
    size_t hdr_len, len = 0, total;
    canal_status_t err;
    sock_peer_t *p;
    int nf = 0;

    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN,
                              "sock: sendv before post_fence() or after finalize()");
    if (peer < 0 || peer >= st->npeers || peer == st->rank || (peer < st->size && st->dyn_only))
        return common_err_set(CANAL_ERR_ARG,
                              "sock sendv: peer %d is not another rank of 0..%d nor a dynamic "
                              "peer (%d..%d)%s",
                              peer, st->size - 1, st->size, st->npeers - 1,
                              st->dyn_only ? "; the channel serves other jobs only" : "");
    if (iov == NULL || n < 1)
        return common_err_set(CANAL_ERR_ARG, "sock sendv: %s (n = %d); iov[0] is the header",
                              iov == NULL ? "iov is NULL" : "no iovec", n);
    hdr_len = iov[0].iov_len;
    if (hdr_len > CH_HDR_MAX)
        return common_err_set(CANAL_ERR_ARG,
                              "sock sendv: header of %zu bytes exceeds CH_HDR_MAX %d", hdr_len,
                              CH_HDR_MAX);
    if (hdr_len > 0 && iov[0].iov_base == NULL)
        return common_err_set(CANAL_ERR_ARG, "sock sendv: header base is NULL with length %zu",
                              hdr_len);
    for (int i = 1; i < n; i++) {
        if (iov[i].iov_len > st->max_payload - len)
            return common_err_set(CANAL_ERR_ARG,
                                  "sock sendv: payload exceeds max_payload %zu bytes (at iov[%d])",
                                  st->max_payload, i);
        if (iov[i].iov_len > 0 && iov[i].iov_base == NULL)
            return common_err_set(CANAL_ERR_ARG, "sock sendv: iov[%d] base is NULL with length %zu",
                                  i, iov[i].iov_len);
        len += iov[i].iov_len;
    }

    p = &st->peers[peer];
    if (p->state == SOCK_PS_FAILED)
        return common_err_set(CANAL_ERR_PEER, "sock: rank %d is unreachable: %s", peer,
                              p->fail_why);
    if (p->state == SOCK_PS_GONE)
        return common_err_set(CANAL_ERR_PEER, "sock: rank %d has finalized", peer);
    if (p->out_bytes >= st->outbuf_limit)
        return CANAL_AGAIN;
    if (p->state == SOCK_PS_IDLE && (err = peer_connect(st, peer)) != CANAL_OK) {
        peer_fail(st, peer, err, "%s", common_err_detail());
        return common_err_set(err, "%s", p->fail_why);
    }

    /* The frame as an iovec list: head, header, padding, payload, padding. */
    if (n + 3 > IOV_BATCH && (fiov = malloc(((size_t)n + 3) * sizeof *fiov)) == NULL)
        return CANAL_AGAIN;
    ch_sock_frame_encode(head, SOCK_FRAME_DATA, hdr_len, len);
    fiov[nf++] = (struct iovec){head, SOCK_FRAME_HEAD};
    if (hdr_len > 0)
        fiov[nf++] = iov[0];
    if (sock_pad8(hdr_len) > hdr_len)
        fiov[nf++] = (struct iovec){(void *)zeros, sock_pad8(hdr_len) - hdr_len};
    for (int i = 1; i < n; i++)
        if (iov[i].iov_len > 0)
            fiov[nf++] = iov[i];
    if (sock_pad8(len) > len)
        fiov[nf++] = (struct iovec){(void *)zeros, sock_pad8(len) - len};
    total = SOCK_FRAME_HEAD + sock_pad8(hdr_len) + sock_pad8(len);

    size_t done = 0;
    sock_conn_t *c = p->conn;
    if (p->state == SOCK_PS_UP && c != NULL && p->out_bytes == 0 && c->hs_off == c->hs_len &&
        nf <= IOV_BATCH) {
        /* The common case: nothing queued, write straight from the caller's buffers. */
        struct msghdr m;
        ssize_t w;
        memset(&m, 0, sizeof m);
        m.msg_iov = fiov;
        m.msg_iovlen = (size_t)nf;
        do
            w = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (w < 0 && errno == EINTR);
        if (w < 0 && !would_block(errno)) {
            int e = errno;
            peer_fail(st, peer, CANAL_ERR_PEER,
                      "connection to rank %d (%s) lost: %s (did the process die?)", peer, c->where,
                      strerror(e));
            if (fiov != fiov_small)
                free(fiov);
            return common_err_set(CANAL_ERR_PEER, "%s", p->fail_why);
        }
        done = w > 0 ? (size_t)w : 0;
    }
    if (done < total && out_append(p, fiov, nf, done) != 0) {
        if (fiov != fiov_small)
            free(fiov);
        if (done > 0) {
            /* Part of the frame is on the wire: the stream cannot be resynchronized. */
            peer_fail(st, peer, CANAL_ERR_NOMEM, "no memory to queue %zu bytes for rank %d",
                      total - done, peer);
            return common_err_set(CANAL_ERR_NOMEM, "%s", p->fail_why);
        }
        return CANAL_AGAIN;
    }
    if (fiov != fiov_small)
        free(fiov);
    st->frames_out++;
    if (done < total && p->state == SOCK_PS_UP)
        conn_watch(st, p->conn);
    return CANAL_OK;
}

/* ---- the handshake --------------------------------------------------------- */

static void hs_set(sock_conn_t *c, const unsigned char *msg, size_t len)
{
    memcpy(c->hs_out, msg, len);
    c->hs_len = len;
    c->hs_off = 0;
}

static void hs_accept(sock_state_t *st, sock_conn_t *c, int peer, int theirs_wins);

/* How log lines name a peer: a job rank, or a process of another job by its
 * id (its index here is no rank: two processes of two jobs may well call
 * each other "peer 1", and the ids, not the indices, settle their ties). */
static const char *peer_label(const sock_state_t *st, int peer, char *buf, size_t len)
{
    if (peer >= st->size && peer < st->npeers && st->peers[peer].dyn)
        snprintf(buf, len, "process %016llx of another job (peer %d; we are %016llx)",
                 (unsigned long long)st->peers[peer].dyn_id, peer, (unsigned long long)st->dyn_id);
    else
        snprintf(buf, len, "rank %d", peer);
    return buf;
}

/* Acceptor: a complete RESPONSE is in c->in. */
static void hs_on_response(sock_state_t *st, sock_conn_t *c)
{
    int peer = -1;

    if (st->dyn_only) {
        stranger_drop(st, c, "a job-rank handshake, but this channel serves other jobs only");
        return;
    }
    if (ch_sock_hs_response_check(c->in, st->secret, c->nonce_a, st->rank, st->size, &peer,
                                  c->nonce_c) != CANAL_OK) {
        stranger_drop(st, c, "%s", common_err_detail());
        return;
    }
    consume(c, SOCK_RESPONSE_LEN);
    if (c->in_len > 0) {
        stranger_drop(st, c, "rank %d's connection sent data before the handshake ended", peer);
        return;
    }
    /* Both connect at once: the lower rank's connection wins. */
    hs_accept(st, c, peer, peer < st->rank);
}

static int dyn_find(const sock_state_t *st, uint64_t id)
{
    for (int r = st->size; r < st->npeers; r++)
        if (st->peers[r].dyn && st->peers[r].dyn_id == id)
            return r;
    return -1;
}

/* Acceptor: a complete dynamic RESPONSE is in c->in (maybe again, after
 * peer_add named its id). */
static void hs_on_dyn_response(sock_state_t *st, sock_conn_t *c)
{
    uint64_t cid, aid;
    int peer;

    if (ch_sock_hs_dyn_response_decode(c->in, &cid, &aid) != CANAL_OK) {
        stranger_drop(st, c, "%s", common_err_detail());
        return;
    }
    if (aid != st->dyn_id) {
        stranger_drop(st, c, "dynamic response meant for id %016llx, we are %016llx",
                      (unsigned long long)aid, (unsigned long long)st->dyn_id);
        return;
    }
    if (c->in_len > SOCK_DYN_RESPONSE_LEN) {
        stranger_drop(st, c, "id %016llx's connection sent data before the handshake ended",
                      (unsigned long long)cid);
        return;
    }
    c->dyn = 1;
    if ((peer = dyn_find(st, cid)) < 0) {
        if (c->state != SOCK_CS_PARKED) {
            LOG_DEBUG("sock: parking a connection from unknown id %016llx", (unsigned long long)cid);
            c->state = SOCK_CS_PARKED;
            st->dyn_parked++;
            c->dyn_cid = cid;
            c->deadline = common_now_s() + SOCK_DYN_PARK_S;
            conn_watch(st, c);
        }
        return;
    }
    c->state = SOCK_CS_WAIT_RESPONSE;
    if (ch_sock_hs_dyn_response_check(c->in, st->peers[peer].dyn_secret, c->nonce_a, c->nonce_c) !=
        CANAL_OK) {
        stranger_drop(st, c, "%s", common_err_detail());
        return;
    }
    consume(c, SOCK_DYN_RESPONSE_LEN);
    /* Both connect at once: the lower id's connection wins. */
    hs_accept(st, c, peer, cid < st->dyn_id);
}

/* Acceptor: the connector proved it is `peer`; keep its connection or
 * reject it (theirs_wins: its connection beats ours to it). */
static void hs_accept(sock_state_t *st, sock_conn_t *c, int peer, int theirs_wins)
{
    unsigned char msg[SOCK_VERDICT_LEN];
    char name[SOCK_CARD_MAX + 64];
    sock_peer_t *p;
    int verdict = SOCK_VERDICT_ACCEPT;
    const char *why = "";

    c->pending = 0;
    st->npending--;
    p = &st->peers[peer];
    switch (p->state) {
    case SOCK_PS_CONNECTING:
        if (theirs_wins) {
            if (p->conn != NULL)
                conn_kill(st, p->conn);
            LOG_DEBUG("sock: simultaneous connect with %s: keeping its connection",
                      peer_label(st, peer, name, sizeof name));
        } else {
            verdict = SOCK_VERDICT_REJECT;
            why = c->dyn ? "our id is the lower: our connection to it wins"
                         : "our rank is the lower: our connection to it wins";
        }
        break;
    case SOCK_PS_UP:
        verdict = SOCK_VERDICT_REJECT;
        why = "already connected";
        break;
    case SOCK_PS_GONE:
        verdict = SOCK_VERDICT_REJECT;
        why = "it said goodbye";
        break;
    case SOCK_PS_FAILED:
        /* We gave it up (its connections kept failing, say) while it lives:
         * no verdict, so that its own attempts run out and it gives us up
         * too -- a reject would have it wait for a connection of ours that
         * never comes, and its requests with it. */
        LOG_DEBUG("sock: closing a connection from rank %d: it was declared failed", peer);
        conn_kill(st, c);
        return;
    default:
        break;
    }
    if (c->dyn)
        ch_sock_hs_dyn_verdict_encode(msg, p->dyn_secret, verdict, c->nonce_a, c->nonce_c,
                                      p->dyn_id, st->dyn_id);
    else
        ch_sock_hs_verdict_encode(msg, st->secret, verdict, c->nonce_a, c->nonce_c, peer, st->rank);
    hs_set(c, msg, sizeof msg);
    c->peer = peer;
    if (verdict == SOCK_VERDICT_REJECT) {
        LOG_DEBUG("sock: rejecting a connection from %s: %s",
                  peer_label(st, peer, name, sizeof name), why);
        st->rejects_sent++;
        c->close_after_hs = 1;
        /* Not the peer's connection: keep conn_kill from touching p->conn. */
        c->peer = -1;
        conn_push(st, c);
        return;
    }
    c->state = SOCK_CS_UP;
    p->conn = c;
    peer_set_state(st, p, SOCK_PS_UP);
    p->retries = 0;
    st->handshakes_ok++;
    if (in_reserve(c, IN_MIN) != 0) {
        peer_fail(st, peer, CANAL_ERR_NOMEM, "no memory for the receive buffer of rank %d", peer);
        return;
    }
    conn_push(st, c);
}

/* Connector: a complete CHALLENGE is in c->in. */
static void hs_on_challenge(sock_state_t *st, sock_conn_t *c)
{
    unsigned char msg[SOCK_DYN_RESPONSE_LEN];
    int acceptor;

    if (ch_sock_hs_challenge_decode(c->in, &acceptor, c->nonce_a) != CANAL_OK) {
        peer_fail(st, c->peer, CANAL_ERR_PROTO,
                  "rank %d's address %s answers, but not as a "
                  "canal sock endpoint: %s",
                  c->peer, c->where, common_err_detail());
        return;
    }
    /* A process of another job names its rank in its own job: not checked. */
    if (!c->dyn && acceptor != c->peer) {
        peer_fail(st, c->peer, CANAL_ERR_PROTO,
                  "the process at %s (rank %d's address) says it is rank %d", c->where, c->peer,
                  acceptor);
        return;
    }
    consume(c, SOCK_CHALLENGE_LEN);
    if (c->in_len > 0) {
        peer_fail(st, c->peer, CANAL_ERR_PROTO, "rank %d sent data before the handshake ended",
                  c->peer);
        return;
    }
    if (common_random_bytes(c->nonce_c, SOCK_NONCE_LEN) != CANAL_OK) {
        peer_fail(st, c->peer, CANAL_ERR_IO, "%s", common_err_detail());
        return;
    }
    if (c->dyn) {
        const sock_peer_t *p = &st->peers[c->peer];
        ch_sock_hs_dyn_response_encode(msg, p->dyn_secret, c->nonce_a, c->nonce_c, st->dyn_id,
                                       p->dyn_id);
        hs_set(c, msg, SOCK_DYN_RESPONSE_LEN);
    } else {
        ch_sock_hs_response_encode(msg, st->secret, c->nonce_a, c->nonce_c, st->rank, c->peer);
        hs_set(c, msg, SOCK_RESPONSE_LEN);
    }
    c->state = SOCK_CS_WAIT_VERDICT;
    conn_push(st, c);
}

static void frames_deliver(sock_state_t *st, sock_conn_t *c);

/* Connector: a complete VERDICT is in c->in. */
static void hs_on_verdict(sock_state_t *st, sock_conn_t *c)
{
    sock_peer_t *p = &st->peers[c->peer];
    int verdict;

    canal_status_t vst =
        c->dyn ? ch_sock_hs_dyn_verdict_check(c->in, p->dyn_secret, c->nonce_a, c->nonce_c,
                                              st->dyn_id, p->dyn_id, &verdict)
               : ch_sock_hs_verdict_check(c->in, st->secret, c->nonce_a, c->nonce_c, st->rank,
                                          c->peer, &verdict);

    if (vst != CANAL_OK) {
        peer_fail(st, c->peer, CANAL_ERR_PROTO,
                  "the process at %s (rank %d's address) failed to prove it belongs to this "
                  "job: %s",
                  c->where, c->peer, common_err_detail());
        return;
    }
    consume(c, SOCK_VERDICT_LEN);
    if (verdict == SOCK_VERDICT_REJECT) {
        /* Its own connection to us wins; the queue waits for it. */
        char name[SOCK_CARD_MAX + 64];
        LOG_DEBUG("sock: %s rejected our connection; waiting for its own",
                  peer_label(st, c->peer, name, sizeof name));
        conn_kill(st, c);
        peer_set_state(st, p, SOCK_PS_WAITING);
        p->wait_since = common_now_s();
        return;
    }
    c->state = SOCK_CS_UP;
    peer_set_state(st, p, SOCK_PS_UP);
    p->retries = 0;
    st->handshakes_ok++;
    if (in_reserve(c, IN_MIN) != 0) {
        peer_fail(st, c->peer, CANAL_ERR_NOMEM, "no memory for the receive buffer of rank %d",
                  c->peer);
        return;
    }
    /* Frames may have come right behind the verdict. */
    frames_deliver(st, c);
    conn_push(st, c);
}

/* The connection closed or failed (what says how). */
static void conn_broken(sock_state_t *st, sock_conn_t *c, const char *what)
{
    if (c->state == SOCK_CS_DEAD)
        return;
    if (c->acceptor && c->state == SOCK_CS_WAIT_RESPONSE) {
        if (c->in_len > 0) {
            stranger_drop(st, c, "%s after %zu bytes of an incomplete handshake", what, c->in_len);
            return;
        }
        /* Often a peer's attempt that lost a simultaneous connect. */
        LOG_INFO("sock: connection from %s ended during the handshake (%s)", c->where, what);
        conn_kill(st, c);
    } else if (c->peer < 0 || st->peers[c->peer].conn != c) {
        conn_kill(st, c); /* a rejected or abandoned one */
    } else if (c->state != SOCK_CS_UP) {
        /* (a refused connect never comes here: conn_event fails the peer) */
        peer_retry(st, c->peer, what);
    } else if (c->got_goodbye || st->finalizing) {
        conn_kill(st, c);
    } else {
        peer_fail(st, c->peer, CANAL_ERR_PEER,
                  "connection to rank %d (%s) lost: %s (did the process die?)", c->peer, c->where,
                  what);
    }
}

/* ---- reading --------------------------------------------------------------- */

/* Deliver every whole frame in c->in; keep the rest. */
static void frames_deliver(sock_state_t *st, sock_conn_t *c)
{
    size_t off = 0;
    int peer = c->peer;

    while (c->state == SOCK_CS_UP) {
        sock_frame_t f;
        size_t need;
        int r = ch_sock_frame_scan(c->in + off, c->in_len - off, st->max_payload, &f, &need);
        if (r < 0) {
            peer_fail(st, peer, CANAL_ERR_PROTO,
                      "rank %d sent a bad frame, dropping its "
                      "connection: %s",
                      peer, common_err_detail());
            return;
        }
        if (r == 0) {
            if (need > c->in_cap && in_reserve(c, need) != 0) {
                peer_fail(st, peer, CANAL_ERR_NOMEM, "no memory for a %zu-byte frame from rank %d",
                          need, peer);
                return;
            }
            break;
        }
        if (f.type == SOCK_FRAME_GOODBYE) {
            c->got_goodbye = 1;
            peer_gone(st, peer);
            return;
        }
        st->frames_in++;
        st->delivered++;
        if (!st->finalizing) {
            const unsigned char *h = c->in + off + SOCK_FRAME_HEAD;
            st->up.on_packet(peer, h, f.hdr_len, h + sock_pad8(f.hdr_len), f.len);
        }
        off += f.wire_len;
    }
    if (off > 0 && c->state != SOCK_CS_DEAD)
        consume(c, off);
}

static void conn_read(sock_state_t *st, sock_conn_t *c)
{
    size_t want;
    ssize_t r;
    int rounds = 0, full;

again:

    /* Read no further than the handshake message a stranger may send, so
     * that a stranger costs a small buffer and never a frame's worth. */
    switch (c->state) {
    case SOCK_CS_WAIT_RESPONSE:
        want = (c->in_len >= SOCK_MAGIC_LEN && memcmp(c->in, ch_sock_dyn_magic, SOCK_MAGIC_LEN) == 0
                    ? SOCK_DYN_RESPONSE_LEN
                    : SOCK_RESPONSE_LEN) +
               1;
        break;
    case SOCK_CS_WAIT_CHALLENGE:
        want = SOCK_CHALLENGE_LEN + 1;
        break;
    case SOCK_CS_WAIT_VERDICT:
        want = HS_IN_CAP;
        break;
    case SOCK_CS_UP:
        want = c->in_cap;
        break;
    default:
        return;
    }
    if (want <= c->in_len)
        return;
    do
        r = read(c->fd, c->in + c->in_len, want - c->in_len);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (!would_block(errno))
            conn_broken(st, c, strerror(errno));
        return;
    }
    if (r == 0) {
        conn_broken(st, c, "closed by the other side");
        return;
    }
    c->in_len += (size_t)r;
    full = c->in_len == want;

    switch (c->state) {
    case SOCK_CS_WAIT_RESPONSE: {
        size_t m = c->in_len < SOCK_MAGIC_LEN ? c->in_len : SOCK_MAGIC_LEN;
        if (memcmp(c->in, ch_sock_dyn_magic, m) == 0) {
            if (c->in_len >= SOCK_DYN_RESPONSE_LEN)
                hs_on_dyn_response(st, c);
        } else if (memcmp(c->in, ch_sock_magic, m) != 0) {
            stranger_drop(st, c, "sent bytes that are not a canal handshake");
        } else if (c->in_len >= SOCK_RESPONSE_LEN) {
            hs_on_response(st, c);
        }
        break;
    }
    case SOCK_CS_WAIT_CHALLENGE:
        if (c->in_len >= SOCK_CHALLENGE_LEN)
            hs_on_challenge(st, c);
        break;
    case SOCK_CS_WAIT_VERDICT:
        if (c->in_len >= SOCK_VERDICT_LEN)
            hs_on_verdict(st, c);
        break;
    case SOCK_CS_UP:
        frames_deliver(st, c);
        /* The read filled the buffer: more is likely waiting; save an epoll_wait. */
        if (full && c->state == SOCK_CS_UP && ++rounds < 8)
            goto again;
        break;
    default:
        break;
    }
}

/* ---- accepting --------------------------------------------------------------- */

/* Make room for a new connection: drop the unauthenticated one that has
 * waited longest (the list is newest first). 0 if there was none. */
static int evict_oldest_stranger(sock_state_t *st)
{
    sock_conn_t *oldest = NULL;

    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        if (c->pending && c->state != SOCK_CS_DEAD)
            oldest = c;
    if (oldest == NULL)
        return 0;
    st->strangers_evicted++;
    stranger_drop(st, oldest,
                  "%d connections were handshaking; the one that waited longest makes room",
                  SOCK_PENDING_MAX);
    return 1;
}

/* Accept everything the backlog holds (the listener is level-triggered, so
 * more than ACCEPT_BATCH wait for the next progress). A full table evicts its
 * oldest stranger; so does running out of descriptors, once per round. */
static void accept_new(sock_state_t *st)
{
    int evicted_for_fd = 0;

    for (int k = 0; k < 64; k++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        sock_addr_t a;
        char where[SOCK_CARD_MAX] = "?";
        sock_conn_t *c;
        unsigned char msg[SOCK_CHALLENGE_LEN];
        int fd = accept4(st->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if ((errno == EMFILE || errno == ENFILE) && !evicted_for_fd &&
                evict_oldest_stranger(st)) {
                evicted_for_fd = 1;
                continue;
            }
            /* Out of descriptors, say: the connection waits in the backlog;
             * say so now and then, not on every poll. */
            if (!would_block(errno) && st->accept_errors++ % 1000 == 0)
                LOG_WARN("sock: accept: %s (%lu times)", strerror(errno), st->accept_errors);
            return;
        }
        memset(&a, 0, sizeof a);
        if (sl <= sizeof a.ss) {
            memcpy(&a.ss, &ss, sl);
            a.len = sl;
            ch_sock_addr_format(&a, where, sizeof where);
        }
        if (st->npending >= SOCK_PENDING_MAX)
            evict_oldest_stranger(st);
        c = conn_new(st, fd, 1, -1, where);
        if (c == NULL) {
            LOG_WARN("sock: no memory for a connection from %s", where);
            close(fd);
            continue;
        }
        c->pending = 1;
        st->npending++;
        c->state = SOCK_CS_WAIT_RESPONSE;
        c->deadline = common_now_s() + st->hs_timeout;
        if (common_random_bytes(c->nonce_a, SOCK_NONCE_LEN) != CANAL_OK) {
            LOG_WARN("sock: %s", common_err_detail());
            conn_kill(st, c);
            continue;
        }
        ch_sock_hs_challenge_encode(msg, st->rank, c->nonce_a);
        hs_set(c, msg, sizeof msg);
        conn_push(st, c);
    }
}

/* ---- progress ------------------------------------------------------------------ */

static void conn_event(sock_state_t *st, sock_conn_t *c, uint32_t events)
{
    if (c->state == SOCK_CS_DEAD)
        return;
    if (c->state == SOCK_CS_PARKED) {
        if (events & (EPOLLHUP | EPOLLERR))
            stranger_drop(st, c, "closed while waiting for its id to become known");
        return;
    }
    if (c->state == SOCK_CS_CONNECTING) {
        int err = 0;
        socklen_t l = sizeof err;
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
            err = errno;
        if (err == ECONNREFUSED && c->peer >= 0 && st->peers[c->peer].conn == c) {
            /* Nobody listens there any more: the process is gone. */
            peer_fail(st, c->peer, CANAL_ERR_PEER, "cannot connect to rank %d at %s: %s", c->peer,
                      c->where, strerror(err));
            return;
        }
        if (err != 0) {
            /* A timeout while the peer's backlog was full, say: tried again. */
            conn_broken(st, c, strerror(err));
            return;
        }
        c->state = SOCK_CS_WAIT_CHALLENGE;
        conn_watch(st, c);
        return;
    }
    if (events & EPOLLOUT)
        conn_push(st, c);
    if (c->state != SOCK_CS_DEAD && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        conn_read(st, c);
    if (c->state != SOCK_CS_DEAD)
        conn_watch(st, c);
}

static void timers(sock_state_t *st, double now)
{
    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        if (c->state == SOCK_CS_WAIT_RESPONSE && now > c->deadline)
            stranger_drop(st, c,
                          "no complete handshake within %g s (a rank that computes without "
                          "calling MPI answers late: raise CANAL_SOCK_HANDSHAKE_TIMEOUT)",
                          st->hs_timeout);
        else if (c->state == SOCK_CS_PARKED && now > c->deadline)
            stranger_drop(st, c, "id %016llx did not become a known dynamic peer within %d s",
                          (unsigned long long)c->dyn_cid, SOCK_DYN_PARK_S);
    for (int r = 0; r < st->npeers; r++) {
        sock_peer_t *p = &st->peers[r];
        /* Rejected, and the peer's own connection never came: try ours again. */
        if (p->state == SOCK_PS_WAITING && now - p->wait_since > 4 * st->hs_timeout) {
            canal_status_t err;
            LOG_INFO("sock: rank %d rejected our connection %g s ago and has not connected; "
                     "trying again",
                     r, now - p->wait_since);
            peer_set_state(st, p, SOCK_PS_IDLE);
            if ((err = peer_connect(st, r)) != CANAL_OK)
                peer_fail(st, r, err, "%s", common_err_detail());
        }
        if (p->state == SOCK_PS_BACKOFF && now >= p->retry_at) {
            canal_status_t err;
            peer_set_state(st, p, SOCK_PS_IDLE);
            if ((err = peer_connect(st, r)) != CANAL_OK)
                peer_fail(st, r, err, "%s", common_err_detail());
        }
    }
}

static void report_failures(sock_state_t *st)
{
    for (int r = 0; r < st->npeers && st->nfail_pending > 0; r++) {
        sock_peer_t *p = &st->peers[r];
        if (!p->fail_pending)
            continue;
        p->fail_pending = 0;
        st->nfail_pending--;
        common_err_set(p->fail_status, "%s", p->fail_why);
        if (st->up.on_peer_failed != NULL && !st->finalizing)
            st->up.on_peer_failed(r, p->fail_status);
    }
}

int ch_sock_progress(ch_endpoint_t *ep)
{
    sock_state_t *st = ep->state;
    struct epoll_event ev[64];
    double now;
    int n;

    /* on_packet() may call sendv(); a nested progress() would deliver
     * out of order from under the outer loop, so it polls nothing. */
    if (!st->ready || st->in_progress)
        return 0;
    /* With no connection and no timer, only a stranger or a new peer can
     * come: look for them on one call in 16 (a system call saved on the
     * other channels' fast path). */
    if (st->conns == NULL && st->ntimed == 0 && st->nfail_pending == 0 &&
        (++st->quiet_polls & 15) != 0)
        return 0;
    st->in_progress = 1;
    st->delivered = 0;
    n = epoll_wait(st->epfd, ev, 64, 0);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr == NULL)
            accept_new(st);
        else
            conn_event(st, ev[i].data.ptr, ev[i].events);
    }
    now = common_now_coarse_s();
    if (now >= st->next_timer) {
        timers(st, common_now_s());
        st->next_timer = now + 0.05;
    }
    if (st->nfail_pending > 0)
        report_failures(st);
    if (st->ndead > 0)
        conns_reap(st);
    st->in_progress = 0;
    return st->delivered;
}

canal_status_t ch_sock_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                             void *arg)
{
    sock_state_t *st = ep->state;
    struct epoll_event ev;
    int ms, n;

    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN,
                              "sock: block before post_fence() or after finalize()");
    if (st->nfail_pending > 0)
        return CANAL_OK;
    ms = timeout_us <= 0                  ? 0
         : timeout_us >= 1000L * 1000000L ? 1000000
                                          : (int)((timeout_us + 999) / 1000);
    /* (no wake() reaches us here: the condition is checked before, which
     * narrows the window of a change made meanwhile, and the timeout bounds it) */
    if (ready != NULL && ready(arg))
        return CANAL_OK;
    /* Level-triggered: what wakes us here is reported again to progress(). */
    n = epoll_wait(st->epfd, &ev, 1, ms);
    if (n < 0 && errno != EINTR)
        return common_err_set(CANAL_ERR_IO, "sock: epoll_wait: %s", strerror(errno));
    return n == 0 && ms > 0 ? CANAL_AGAIN : CANAL_OK;
}

static int anything_queued(const sock_state_t *st)
{
    for (int r = 0; r < st->npeers; r++) {
        const sock_peer_t *p = &st->peers[r];
        if (p->out_bytes > 0)
            return 1;
        if (p->state == SOCK_PS_UP && p->conn != NULL && p->conn->hs_off < p->conn->hs_len)
            return 1;
    }
    return 0;
}

canal_status_t ch_sock_flush(ch_endpoint_t *ep)
{
    sock_state_t *st = ep->state;

    if (!st->ready)
        return CANAL_OK;
    return anything_queued(st) ? CANAL_AGAIN : CANAL_OK;
}

/* ---- finalize ------------------------------------------------------------------ */

/* Called by finalize(): queue GOODBYE on every live connection, write what
 * is queued for up to timeout_s (peers need not progress for that: the
 * kernel takes it), then close everything. Nothing is read or delivered. */
void ch_sock_conn_goodbye_all(sock_state_t *st, double timeout_s)
{
    double end = common_now_s() + timeout_s;
    int busy;

    st->finalizing = 1;
    for (int r = 0; r < st->npeers; r++) {
        sock_peer_t *p = &st->peers[r];
        unsigned char head[SOCK_FRAME_HEAD];
        struct iovec iov = {head, sizeof head};
        if (p->state != SOCK_PS_UP || p->conn == NULL)
            continue;
        ch_sock_frame_encode(head, SOCK_FRAME_GOODBYE, 0, 0);
        if (out_append(p, &iov, 1, 0) != 0)
            LOG_DEBUG("sock: no memory for the goodbye to rank %d", r);
    }
    do {
        busy = 0;
        for (int r = 0; r < st->npeers; r++) {
            sock_peer_t *p = &st->peers[r];
            if (p->state != SOCK_PS_UP || p->conn == NULL || p->out_bytes == 0)
                continue;
            if (conn_write(st, p->conn) == 1)
                busy = 1;
        }
        if (busy) {
            struct epoll_event ev;
            epoll_wait(st->epfd, &ev, 1, 5);
        }
    } while (busy && common_now_s() < end);
    for (int r = 0; r < st->npeers; r++) {
        sock_peer_t *p = &st->peers[r];
        if (p->out_bytes > 0 && p->state != SOCK_PS_GONE && p->state != SOCK_PS_FAILED)
            LOG_WARN("sock: finalize: %zu bytes for rank %d could not be sent (%s)", p->out_bytes,
                     r,
                     p->state == SOCK_PS_UP ? "its connection is full"
                                            : "its connection never completed: the device must "
                                              "flush the channel before its finalize fence");
        if (p->conn != NULL && p->conn->fd >= 0 && p->state == SOCK_PS_UP) {
            /* Take what the peer sent, so that close() sends FIN and not RST
             * (an RST could destroy our goodbye in the peer's kernel). */
            char sink[4096];
            shutdown(p->conn->fd, SHUT_WR);
            for (int k = 0; k < 256 && read(p->conn->fd, sink, sizeof sink) > 0; k++)
                ;
        }
        out_free(p);
    }
    ch_sock_conn_close_all(st);
}

/* ---- dynamic peers ------------------------------------------------------------ */

canal_status_t ch_sock_dyn_peer_add(ch_endpoint_t *ep, int peer, const char *card,
                                    const unsigned char secret[SOCK_SECRET_LEN])
{
    sock_state_t *st = ep->state;
    sock_peer_t *p;
    uint64_t id;
    canal_status_t err;

    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN, "sock dyn_peer_add: the channel is not open");
    if (peer != st->npeers)
        return common_err_set(CANAL_ERR_ARG, "sock dyn_peer_add: peer %d, expected %d", peer,
                              st->npeers);
    if (peer >= st->cap)
        return common_err_set(CANAL_ERR_LIMIT,
                              "more than CANAL_DYNAMIC_PEERS=%d processes of other jobs",
                              st->cap - st->size);
    if (secret == NULL)
        return common_err_set(CANAL_ERR_ARG, "sock dyn_peer_add: secret is NULL");
    p = &st->peers[peer];
    memset(p, 0, sizeof *p);
    if ((err = ch_sock_dyn_card_parse(card, p->dyn_addr, sizeof p->dyn_addr, &id)) != CANAL_OK)
        return err;
    if (id == st->dyn_id)
        return common_err_set(CANAL_ERR_ARG, "sock dyn_peer_add: card '%.80s' is our own", card);
    if (dyn_find(st, id) >= 0)
        return common_err_set(CANAL_ERR_ARG, "sock dyn_peer_add: id %016llx is already peer %d",
                              (unsigned long long)id, dyn_find(st, id));
    p->dyn = 1;
    p->dyn_id = id;
    memcpy(p->dyn_secret, secret, SOCK_SECRET_LEN);
    st->npeers++;
    /* Its connection may have come before we knew it. */
    for (sock_conn_t *c = st->conns; c != NULL; c = c->next)
        if (c->state == SOCK_CS_PARKED && c->dyn_cid == id)
            hs_on_dyn_response(st, c);
    return CANAL_OK;
}
