/*
 * Processes of other jobs ("dynamic peers") for MPI_Comm_connect/accept
 * across jobs, MPI_Comm_spawn and MPI_Comm_join; called by dyn/.
 *
 * Device peers 0..size-1 are the ranks of this job; a process of another
 * job gets the next index from size on (room for CANAL_DYNAMIC_PEERS of
 * them is reserved at init), and communicators name it by that index like
 * a job rank. Only the sock channel serves them (channels/channel.h,
 * dyn_* ops): shm is not used between jobs, even on one node, so traffic
 * between a parent and its children on one node goes over TCP loopback or
 * the chosen interface. When the job itself did not need sock, it is opened
 * on first use, for other jobs only.
 *
 * A process's card for other jobs is its sock address plus a random id
 * ("10.0.0.5:4711#<16 hex>"); adi_dyn_peer_connect(card, pair secret) adds
 * the process (once: a card already known gives its existing index, and the
 * secret of the first introduction stays). Who gives the two sides the pair
 * secret is the caller's business: the roots of a connect/accept exchange
 * cards and a fresh secret over a bootstrap link, a plain TCP connection to
 * the listener a port owns (adi_dyn_listen/accept/dial, blobs with
 * adi_dyn_send/recv), and MPI_Comm_join does the same over the user's
 * socket. The bootstrap link is not the sock channel: it carries a few
 * hundred bytes once, needs no authentication beyond the port's secret
 * (which the caller checks), and the same code serves join's given fd.
 */
#include "adi/adi_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

struct adi_dyn_listener {
    int fd;
};

/* The cards of the dynamic peers, index - size: to find a known one again. */
static char (*dyn_cards)[ADI_DYN_CARD_MAX];

canal_status_t adi_dyn_card(char *buf, size_t len)
{
    ch_endpoint_t *ch;
    canal_status_t st;

    adi_lock();
    st = adi_dev_dyn_channel(&ch);
    if (st >= 0)
        st = ch_dyn_card(ch, buf, len);
    adi_unlock();
    return st;
}

canal_status_t adi_dyn_peer_connect(const char *card, const unsigned char secret[ADI_DYN_SECRET_LEN],
                                    int *peer_out)
{
    ch_endpoint_t *ch;
    canal_status_t st;
    int peer;

    if (card == NULL || strlen(card) >= ADI_DYN_CARD_MAX)
        return common_err_set(CANAL_ERR_ARG, "dynamic card '%.80s' is missing or too long",
                              card != NULL ? card : "(null)");
    adi_lock();
    if ((st = adi_dev_dyn_channel(&ch)) < 0)
        goto out;
    if (dyn_cards == NULL &&
        (dyn_cards = calloc((size_t)(adi_dev.cap - adi_dev.size), sizeof *dyn_cards)) == NULL &&
        adi_dev.cap > adi_dev.size) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for the cards of dynamic peers");
        goto out;
    }
    for (peer = adi_dev.size; peer < adi_dev.npeers; peer++) {
        if (strcmp(dyn_cards[peer - adi_dev.size], card) == 0) {
            *peer_out = peer;
            goto out;
        }
    }
    if (peer >= adi_dev.cap) {
        st = common_err_set(CANAL_ERR_LIMIT,
                            "this process already knows CANAL_DYNAMIC_PEERS=%d processes of "
                            "other jobs; raise the variable",
                            adi_dev.cap - adi_dev.size);
        goto out;
    }
    if ((st = adi_dev_dyn_peer_init(peer)) < 0 ||
        (st = ch_dyn_peer_add(ch, peer, card, secret)) < 0)
        goto out;
    snprintf(dyn_cards[peer - adi_dev.size], ADI_DYN_CARD_MAX, "%s", card);
    __atomic_store_n(&adi_dev.npeers, peer + 1, __ATOMIC_RELEASE); /* (senders read it unlocked) */
    *peer_out = peer;
    LOG_DEBUG("dynamic peer %d is %s", peer, card);
out:
    adi_unlock();
    return st;
}

void adi_dyn_finalize(void)
{
    free(dyn_cards);
    dyn_cards = NULL;
}

/* ---------------------------------------------------------------- bootstrap links */

/* Wait until fd is ready for `events`, progressing the device meanwhile
 * (the other side may need our messages to get there). deadline < 0: none. */
static canal_status_t wait_fd(int fd, short events, double deadline, const char *what)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, 1);
        if (r > 0)
            return CANAL_OK;
        if (r < 0 && errno != EINTR)
            return common_err_set(CANAL_ERR_IO, "%s: poll: %s", what, strerror(errno));
        adi_progress();
        if (deadline >= 0 && common_now_s() > deadline)
            return common_err_set(CANAL_ERR_TIMEOUT, "%s: no answer in time", what);
    }
}

/* Split "1.2.3.4:80" / "[::1]:80" (a sock card, maybe with "#id"). */
static canal_status_t addr_parse(const char *text, struct sockaddr_storage *ss, socklen_t *len_out)
{
    char host[ADI_DYN_CARD_MAX];
    const char *colon, *end = strchr(text, '#');
    size_t n = end != NULL ? (size_t)(end - text) : strlen(text);
    long port;
    char *e;

    if (n >= sizeof host)
        return common_err_set(CANAL_ERR_ARG, "address '%.80s' is too long", text);
    memcpy(host, text, n);
    host[n] = '\0';
    if ((colon = strrchr(host, ':')) == NULL)
        return common_err_set(CANAL_ERR_ARG, "address '%.80s' has no port", host);
    port = strtol(colon + 1, &e, 10);
    if (*e != '\0' || e == colon + 1 || port < 0 || port > 65535)
        return common_err_set(CANAL_ERR_ARG, "address '%.80s' has a bad port", host);
    host[colon - host] = '\0';
    memset(ss, 0, sizeof *ss);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        host[strlen(host) - 1] = '\0';
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
            return common_err_set(CANAL_ERR_ARG, "address '%.80s' is not IPv6", host + 1);
        *len_out = sizeof *s6;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
            return common_err_set(CANAL_ERR_ARG, "address '%.80s' is not IPv4", host);
        *len_out = sizeof *s4;
    }
    return CANAL_OK;
}

static void addr_format(const struct sockaddr_storage *ss, char *out, size_t len)
{
    char h[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof h);
        snprintf(out, len, "[%s]:%u", h, ntohs(s6->sin6_port));
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &s4->sin_addr, h, sizeof h);
        snprintf(out, len, "%s:%u", h, ntohs(s4->sin_port));
    }
}

canal_status_t adi_dyn_listen(adi_dyn_listener_t **l_out, char *addr_out, size_t len)
{
    char card[ADI_DYN_CARD_MAX];
    struct sockaddr_storage ss;
    socklen_t sl;
    canal_status_t st;
    adi_dyn_listener_t *l;
    int fd;

    /* On the address the sock channel chose for other jobs, any port. */
    if ((st = adi_dyn_card(card, sizeof card)) < 0 || (st = addr_parse(card, &ss, &sl)) < 0)
        return st;
    if (ss.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    else
        ((struct sockaddr_in *)&ss)->sin_port = 0;
    if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return common_err_set(CANAL_ERR_IO, "port: socket(): %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        close(fd);
        return common_err_set(CANAL_ERR_IO, "port: bind/listen: %s", strerror(e));
    }
    sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 || (l = malloc(sizeof *l)) == NULL) {
        close(fd);
        return common_err_set(CANAL_ERR_NOMEM, "port: no memory");
    }
    l->fd = fd;
    addr_format(&ss, addr_out, len);
    *l_out = l;
    return CANAL_OK;
}

void adi_dyn_listener_close(adi_dyn_listener_t *l)
{
    if (l == NULL)
        return;
    close(l->fd);
    free(l);
}

canal_status_t adi_dyn_accept(adi_dyn_listener_t *l, double timeout_s, int *link_out)
{
    double deadline = timeout_s < 0 ? -1 : common_now_s() + timeout_s;
    canal_status_t st;

    for (;;) {
        int fd, one = 1;
        if ((st = wait_fd(l->fd, POLLIN, deadline, "accepting on a port")) < 0)
            return st;
        fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            *link_out = fd;
            return CANAL_OK;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            return common_err_set(CANAL_ERR_IO, "accepting on a port: %s", strerror(errno));
    }
}

canal_status_t adi_dyn_dial(const char *addr, int *link_out)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    canal_status_t st;
    int fd, rc, err = 0, one = 1;
    socklen_t el = sizeof err;

    if ((st = addr_parse(addr, &ss, &sl)) < 0)
        return st;
    if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return common_err_set(CANAL_ERR_IO, "socket(): %s", strerror(errno));
    do
        rc = connect(fd, (struct sockaddr *)&ss, sl);
    while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno != EINPROGRESS) {
        err = errno;
    } else if (rc != 0) {
        if ((st = wait_fd(fd, POLLOUT, common_now_s() + 60, "connecting to a port")) < 0) {
            close(fd);
            return st;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
            err = errno;
    }
    if (err != 0) {
        close(fd);
        return common_err_set(CANAL_ERR_PEER,
                              "nobody accepts at %s (%s): the port was closed or its process "
                              "ended",
                              addr, strerror(err));
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *link_out = fd;
    return CANAL_OK;
}

static canal_status_t io_all(int fd, void *buf, size_t len, int writing, double deadline)
{
    unsigned char *p = buf;
    size_t done = 0;

    while (done < len) {
        ssize_t r = writing ? send(fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                            : recv(fd, p + done, len - done, MSG_DONTWAIT);
        canal_status_t st;
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r == 0)
            return common_err_set(CANAL_ERR_PEER,
                                  "the other side closed the connection during the exchange");
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return common_err_set(CANAL_ERR_PEER, "exchange with the other side: %s",
                                  strerror(errno));
        if ((st = wait_fd(fd, writing ? POLLOUT : POLLIN, deadline, "exchange with the other side")) <
            0)
            return st;
    }
    return CANAL_OK;
}

canal_status_t adi_dyn_send(int link, const void *buf, size_t len)
{
    unsigned char head[4] = {(unsigned char)len, (unsigned char)(len >> 8),
                             (unsigned char)(len >> 16), (unsigned char)(len >> 24)};
    canal_status_t st;
    double deadline = common_now_s() + 60;

    if (len > ADI_DYN_BLOB_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "exchange of %zu bytes exceeds %d", len,
                              ADI_DYN_BLOB_MAX);
    if ((st = io_all(link, head, 4, 1, deadline)) < 0)
        return st;
    return io_all(link, (void *)buf, len, 1, deadline);
}

canal_status_t adi_dyn_recv(int link, void **buf_out, size_t *len_out, double timeout_s)
{
    unsigned char head[4];
    double deadline = timeout_s < 0 ? -1 : common_now_s() + timeout_s;
    canal_status_t st;
    size_t len;
    void *buf;

    if ((st = io_all(link, head, 4, 0, deadline)) < 0)
        return st;
    len = (size_t)head[0] | (size_t)head[1] << 8 | (size_t)head[2] << 16 | (size_t)head[3] << 24;
    if (len > ADI_DYN_BLOB_MAX)
        return common_err_set(CANAL_ERR_PROTO, "the other side announces %zu bytes (at most %d)",
                              len, ADI_DYN_BLOB_MAX);
    if ((buf = malloc(len + 1)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for %zu bytes", len);
    if ((st = io_all(link, buf, len, 0, deadline)) < 0) {
        free(buf);
        return st;
    }
    ((char *)buf)[len] = '\0';
    *buf_out = buf;
    *len_out = len;
    return CANAL_OK;
}

int adi_dyn_hung_up(int link)
{
    struct pollfd p = {.fd = link, .events = POLLIN | POLLRDHUP};
    char c;

    if (poll(&p, 1, 0) <= 0)
        return 0;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
        return 1;
    /* readable: data (the link is alive) or end of file */
    return recv(link, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void adi_dyn_close(int link)
{
    if (link >= 0)
        close(link);
}
