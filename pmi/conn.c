/*
 * The blocking socket under the PMI-1 and PMI-2 clients: adopt PMI_FD or
 * connect to PMI_PORT, send built messages, receive and parse replies, and the
 * "cmd=init" handshake both protocol versions begin with. Called by
 * pmi/pmi1.c, pmi/pmi2.c and pmi/pmi.c (version negotiation).
 *
 * Canal's mpiexec may also send a message nobody asked for: under
 * -disable-auto-cleanup, "cmd=canal-rank-failed rank=N" when a rank of the
 * job died. A reply being awaited may come after it (pmi_conn_recv takes it
 * on the way); otherwise the watch thread reads it (pmi_conn_drain).
 */
#include "pmi/pmi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

static canal_status_t conn_connect(pmi_conn_t *c, const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints, *res = NULL, *ai;
    int rc, fd = -1, one = 1;

    if (colon == NULL || colon == hostport || (size_t)(colon - hostport) >= sizeof host ||
        colon[1] == '\0')
        return common_err_set(CANAL_ERR_ARG, "PMI_PORT='%s' is not host:port", hostport);
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0)
        return common_err_set(CANAL_ERR_IO, "PMI_PORT='%s': cannot resolve host: %s", hostport,
                              gai_strerror(rc));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return common_err_set(CANAL_ERR_IO, "cannot connect to the PMI server at PMI_PORT='%s': %s",
                              hostport, strerror(errno));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    return CANAL_OK;
}

canal_status_t pmi_conn_open(pmi_conn_t *c, const pmi_endpoint_t *ep)
{
    c->fd = -1;
    c->version = 1;
    pthread_mutex_init(&c->lock, NULL);
    pmi_wire_reader_init(&c->rd, 1);
    if (ep->use_port)
        return conn_connect(c, ep->port);
    if (fcntl(ep->fd, F_GETFD) < 0)
        return common_err_set(CANAL_ERR_ARG, "PMI_FD=%d is not an open file descriptor", ep->fd);
    /* programs this process runs must not hold the launcher's connection */
    fcntl(ep->fd, F_SETFD, FD_CLOEXEC);
    c->fd = ep->fd;
    return CANAL_OK;
}

void pmi_conn_close(pmi_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

canal_status_t pmi_conn_send(pmi_conn_t *c, pmi_wire_out_t *out)
{
    canal_status_t st = pmi_wire_end(out);

    if (st != CANAL_OK)
        return st;
    return pmi_conn_send_raw(c, out->buf, out->len);
}

canal_status_t pmi_conn_send_raw(pmi_conn_t *c, const char *buf, size_t len)
{
    size_t off = 0;

    if (common_log_level() >= LOG_LVL_DEBUG) {
        char safe[301];
        c->reply_secret = pmi_wire_redact(buf, len, 0, safe, sizeof safe);
        LOG_DEBUG("PMI >> %s", safe);
    }

    if (c->fd < 0)
        return common_err_set(CANAL_ERR_PEER, "PMI connection is closed");
    while (off < len) {
        ssize_t n = send(c->fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return common_err_set(CANAL_ERR_PEER, "writing to the PMI server (fd %d) failed: %s",
                                  c->fd, strerror(errno));
        off += (size_t)n;
    }
    return CANAL_OK;
}

/* A message the launcher sent unasked: handled here, 1; else 0. */
static int conn_notice(const pmi_wire_msg_t *msg)
{
    int rank;
    if (strcmp(pmi_wire_cmd(msg), PMI_CMD_RANK_FAILED) != 0)
        return 0;
    if (pmi_wire_get_int(msg, "rank", &rank) == CANAL_OK && rank >= 0)
        pmi_note_rank_failed(rank);
    return 1;
}

int pmi_conn_drain(pmi_conn_t *c)
{
    int ret = 1;

    if (pthread_mutex_trylock(&c->lock) != 0)
        return 0;
    c->rd.version = c->version;
    for (;;) {
        size_t len, room;
        char *space;
        ssize_t n;
        pmi_wire_msg_t msg;
        canal_status_t st = pmi_wire_reader_take(&c->rd, c->scratch, sizeof c->scratch, &len);

        if (st < 0)
            break; /* malformed: the next request's reply will say so */
        if (st == 1) {
            st = c->version == 1 ? pmi_wire_parse1(c->scratch, len, &msg)
                                 : pmi_wire_parse2(c->scratch, len, &msg);
            if (st == CANAL_OK && !conn_notice(&msg))
                LOG_WARN("PMI: the server sent '%.40s' unasked; ignored", pmi_wire_cmd(&msg));
            continue;
        }
        if (c->fd < 0) {
            ret = -1;
            break;
        }
        space = pmi_wire_reader_space(&c->rd, &room);
        n = recv(c->fd, space, room, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            ret = -1;
            break;
        }
        if (n < 0)
            break;
        pmi_wire_reader_fill(&c->rd, (size_t)n);
    }
    pthread_mutex_unlock(&c->lock);
    return ret;
}

void pmi_conn_unlock(pmi_conn_t *c)
{
    int more = c->rd.len > 0;
    pthread_mutex_unlock(&c->lock);
    if (more)
        pmi_watch_kick();
}

canal_status_t pmi_conn_recv(pmi_conn_t *c, pmi_wire_msg_t *msg, const char *expect)
{
    size_t len;
    canal_status_t st;

    c->rd.version = c->version;
    for (;;) {
        size_t room;
        char *space;
        ssize_t n;

        st = pmi_wire_reader_take(&c->rd, c->scratch, sizeof c->scratch, &len);
        if (st < 0)
            return st;
        if (st == 1)
            break;
        space = pmi_wire_reader_space(&c->rd, &room);
        n = read(c->fd, space, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return common_err_set(CANAL_ERR_PEER, "reading from the PMI server failed: %s",
                                  strerror(errno));
        if (n == 0)
            return common_err_set(CANAL_ERR_PEER,
                                  "the PMI server closed the connection (waiting for %s)",
                                  expect != NULL ? expect : "a reply");
        pmi_wire_reader_fill(&c->rd, (size_t)n);
    }
    if (common_log_level() >= LOG_LVL_DEBUG) {
        char safe[301];
        pmi_wire_redact(c->scratch, len, c->reply_secret, safe, sizeof safe);
        LOG_DEBUG("PMI << %s", safe);
    }
    st = c->version == 1 ? pmi_wire_parse1(c->scratch, len, msg)
                         : pmi_wire_parse2(c->scratch, len, msg);
    if (st != CANAL_OK)
        return st;
    if (conn_notice(msg))
        return pmi_conn_recv(c, msg, expect); /* (one level per notice: a handful) */
    if (expect != NULL && strcmp(pmi_wire_cmd(msg), expect) != 0)
        return common_err_set(CANAL_ERR_PROTO,
                              "PMI server answered '%.40s' where '%s' was expected",
                              pmi_wire_cmd(msg), expect);
    return CANAL_OK;
}

canal_status_t pmi_conn_handshake(pmi_conn_t *c, int version)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    int rc = 0, v = 0;

    c->version = 1; /* the init exchange is a PMI-1 line in both versions */
    pmi_wire_begin(&out, 1, "init");
    pmi_wire_add_int(&out, "pmi_version", version);
    pmi_wire_add_int(&out, "pmi_subversion", version == 1 ? 1 : 0);
    st = pmi_conn_send(c, &out);
    if (st != CANAL_OK)
        return st;
    st = pmi_conn_recv(c, &msg, "response_to_init");
    if (st != CANAL_OK)
        return st;
    if (pmi_wire_get_int(&msg, "rc", &rc) != CANAL_OK)
        rc = 0; /* some servers omit rc on success */
    if (pmi_wire_get_int(&msg, "pmi_version", &v) != CANAL_OK)
        v = version;
    if (rc != 0 || v != version)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "PMI server refused protocol version %d (rc=%d, offers %d)", version,
                              rc, v);
    c->version = version;
    return CANAL_OK;
}

void pmi_conn_wait_death(pmi_conn_t *c, int code)
{
    int64_t t0 = common_now_ms();
    char buf[256];

    for (;;) {
        struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
        int ms;
        ms = 10000 - (int)(common_now_ms() - t0);
        if (ms <= 0 || c->fd < 0)
            break;
        if (poll(&pfd, 1, ms) > 0) {
            ssize_t n = read(c->fd, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR))
                break; /* launcher closed our connection: it is ending the job */
        }
    }
    _exit(code);
}

canal_status_t pmi_copy_value(const char *val, char *out, size_t len)
{
    size_t n = strlen(val);
    if (n + 1 > len)
        return common_err_set(CANAL_ERR_TRUNCATE, "PMI value of %zu bytes does not fit in %zu", n,
                              len);
    memcpy(out, val, n + 1);
    return CANAL_OK;
}
