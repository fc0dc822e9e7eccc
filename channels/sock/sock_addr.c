/*
 * Where the sock channel listens and how its address card is written: the
 * choice of interface from CANAL_SOCK_IFACE (an interface name, a CIDR
 * subnet, one address, or "auto"), and the "host:port" / "[v6]:port" cards
 * other ranks read through PMI. Called by sock.c (init) and sock_conn.c
 * (connect). Addresses are numeric: no name service is ever asked.
 */
#include "channels/sock/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

int ch_sock_addr_is_loopback(const sock_addr_t *a)
{
    if (a->ss.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)(const void *)&a->ss;
        return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)(const void *)&a->ss;
        return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
    }
    return 0;
}

static void addr_set(sock_addr_t *out, const struct sockaddr *sa)
{
    memset(out, 0, sizeof *out);
    if (sa->sa_family == AF_INET) {
        memcpy(&out->ss, sa, sizeof(struct sockaddr_in));
        out->len = sizeof(struct sockaddr_in);
    } else {
        memcpy(&out->ss, sa, sizeof(struct sockaddr_in6));
        out->len = sizeof(struct sockaddr_in6);
        ((struct sockaddr_in6 *)(void *)&out->ss)->sin6_scope_id = 0;
    }
    ((struct sockaddr_in *)(void *)&out->ss)->sin_port = 0; /* same offset in both */
}

/* A usable address of an interface: up, IPv4 or IPv6 that is not
 * link-local (a link-local card means nothing on another host). */
static int usable(const struct ifaddrs *ifa)
{
    if (ifa->ifa_addr == NULL || !(ifa->ifa_flags & IFF_UP))
        return 0;
    if (ifa->ifa_addr->sa_family == AF_INET)
        return 1;
    if (ifa->ifa_addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)(const void *)ifa->ifa_addr;
        return !IN6_IS_ADDR_LINKLOCAL(&s->sin6_addr) && !IN6_IS_ADDR_V4MAPPED(&s->sin6_addr);
    }
    return 0;
}

typedef struct {
    int family;            /* AF_INET or AF_INET6 */
    unsigned char net[16]; /* network bytes */
    int bits;              /* prefix length */
} subnet_t;

/* "10.0.0.0/8", "fd00::/64", "192.0.2.7" (= /32), "::1" (= /128). 1 if
 * spec looks like one (and *out is set), 0 if it does not, error if it
 * does but is malformed. */
static int subnet_parse(const char *spec, subnet_t *out)
{
    char host[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(spec, '/');
    size_t hl = slash != NULL ? (size_t)(slash - spec) : strlen(spec);
    int maxbits;

    if (hl == 0 || hl >= sizeof host)
        return 0;
    memcpy(host, spec, hl);
    host[hl] = '\0';
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, host, out->net) == 1) {
        out->family = AF_INET;
        maxbits = 32;
    } else if (inet_pton(AF_INET6, host, out->net) == 1) {
        out->family = AF_INET6;
        maxbits = 128;
    } else {
        return 0;
    }
    out->bits = maxbits;
    if (slash != NULL) {
        char *end;
        long b = strtol(slash + 1, &end, 10);
        if (slash[1] == '\0' || *end != '\0' || b < 0 || b > maxbits)
            return common_err_set(CANAL_ERR_ARG, "CANAL_SOCK_IFACE=%s: prefix length must be 0..%d",
                                  spec, maxbits);
        out->bits = (int)b;
    }
    return 1;
}

static int subnet_contains(const subnet_t *n, const struct sockaddr *sa)
{
    const unsigned char *a;
    int full, rest;

    if (sa->sa_family != n->family)
        return 0;
    if (sa->sa_family == AF_INET)
        a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else
        a = (const unsigned char *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    full = n->bits / 8;
    rest = n->bits % 8;
    if (memcmp(a, n->net, (size_t)full) != 0)
        return 0;
    if (rest != 0) {
        unsigned char mask = (unsigned char)(0xff << (8 - rest));
        if ((a[full] & mask) != (n->net[full] & mask))
            return 0;
    }
    return 1;
}

/* The names of the interfaces with usable addresses, for error messages. */
static void list_ifaces(const struct ifaddrs *all, char *out, size_t len)
{
    size_t off = 0;

    out[0] = '\0';
    for (const struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
        char a[INET6_ADDRSTRLEN] = "?";
        int dup = 0;
        if (!usable(i))
            continue;
        for (const struct ifaddrs *j = all; j != i; j = j->ifa_next)
            if (usable(j) && strcmp(j->ifa_name, i->ifa_name) == 0 &&
                j->ifa_addr->sa_family == i->ifa_addr->sa_family)
                dup = 1;
        if (dup)
            continue;
        if (i->ifa_addr->sa_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, a, sizeof a);
        else
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, a,
                      sizeof a);
        if (off < len)
            off +=
                (size_t)snprintf(out + off, len - off, "%s%s %s", off ? ", " : "", i->ifa_name, a);
    }
    if (out[0] == '\0')
        snprintf(out, len, "none");
}

/* Best match among the usable addresses: IPv4 before IPv6, then the first. */
static const struct ifaddrs *pick(const struct ifaddrs *all, const char *name,
                                  const subnet_t *subnet, int want_loopback, int avoid_loopback)
{
    const struct ifaddrs *v6 = NULL;

    for (const struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
        int lo;
        if (!usable(i))
            continue;
        if (name != NULL && strcmp(i->ifa_name, name) != 0)
            continue;
        if (subnet != NULL && !subnet_contains(subnet, i->ifa_addr))
            continue;
        lo = (i->ifa_flags & IFF_LOOPBACK) != 0;
        if ((want_loopback && !lo) || (avoid_loopback && lo))
            continue;
        if (i->ifa_addr->sa_family == AF_INET)
            return i;
        if (v6 == NULL)
            v6 = i;
    }
    return v6;
}

canal_status_t ch_sock_addr_choose(const char *spec, int remote, sock_addr_t *out, char *ifname_out,
                                   size_t ifname_len)
{
    struct ifaddrs *all = NULL;
    const struct ifaddrs *hit = NULL;
    subnet_t subnet;
    char names[512];
    canal_status_t err = CANAL_OK;
    int is_subnet;

    if (spec == NULL || out == NULL || ifname_out == NULL || ifname_len == 0)
        return common_err_set(CANAL_ERR_ARG, "ch_sock_addr_choose: NULL argument");
    if (getifaddrs(&all) != 0)
        return common_err_set(CANAL_ERR_IO, "sock: getifaddrs: %s", strerror(errno));
    list_ifaces(all, names, sizeof names);

    if (spec[0] == '\0' || strcmp(spec, "auto") == 0) {
        if (remote) {
            hit = pick(all, NULL, NULL, 0, 1);
            if (hit == NULL && remote == 1)
                LOG_WARN("sock: ranks are on several nodes but no interface other than loopback "
                         "is up (%s); listening on loopback",
                         names);
        }
        if (hit == NULL)
            hit = pick(all, NULL, NULL, 1, 0);
        if (hit == NULL) {
            err = common_err_set(CANAL_ERR_NOTFOUND,
                                 "sock: no usable interface (CANAL_SOCK_IFACE=auto); "
                                 "interfaces: %s",
                                 names);
            goto free_all;
        }
    } else if ((is_subnet = subnet_parse(spec, &subnet)) < 0) {
        err = is_subnet;
        goto free_all;
    } else if (is_subnet) {
        hit = pick(all, NULL, &subnet, 0, 0);
        if (hit == NULL) {
            err = common_err_set(CANAL_ERR_NOTFOUND,
                                 "sock: CANAL_SOCK_IFACE=%s: no interface has an address in it "
                                 "(link-local IPv6 is not used); interfaces: %s",
                                 spec, names);
            goto free_all;
        }
    } else {
        if (strlen(spec) >= IF_NAMESIZE) {
            err = common_err_set(CANAL_ERR_ARG,
                                 "sock: CANAL_SOCK_IFACE=%.40s... is neither an interface name "
                                 "nor an address or subnet",
                                 spec);
            goto free_all;
        }
        hit = pick(all, spec, NULL, 0, 0);
        if (hit == NULL) {
            err = common_err_set(CANAL_ERR_NOTFOUND,
                                 "sock: CANAL_SOCK_IFACE=%s: no such interface that is up with an "
                                 "IPv4 or global IPv6 address; interfaces: %s",
                                 spec, names);
            goto free_all;
        }
    }
    addr_set(out, hit->ifa_addr);
    snprintf(ifname_out, ifname_len, "%s", hit->ifa_name);
    if (remote == 1 && ch_sock_addr_is_loopback(out) && spec[0] != '\0' &&
        strcmp(spec, "auto") != 0)
        LOG_WARN("sock: CANAL_SOCK_IFACE=%s is loopback but ranks are on several nodes", spec);
free_all:
    freeifaddrs(all);
    return err;
}

canal_status_t ch_sock_addr_format(const sock_addr_t *a, char *out, size_t len)
{
    char host[INET6_ADDRSTRLEN];
    int n;

    if (a->ss.ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)(const void *)&a->ss;
        inet_ntop(AF_INET, &s->sin_addr, host, sizeof host);
        n = snprintf(out, len, "%s:%u", host, (unsigned)ntohs(s->sin_port));
    } else if (a->ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)(const void *)&a->ss;
        inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof host);
        n = snprintf(out, len, "[%s]:%u", host, (unsigned)ntohs(s->sin6_port));
    } else {
        return common_err_set(CANAL_ERR_ARG, "sock: address family %d", a->ss.ss_family);
    }
    if (n < 0 || (size_t)n >= len)
        return common_err_set(CANAL_ERR_LIMIT, "sock: address text longer than %zu", len);
    return CANAL_OK;
}

canal_status_t ch_sock_addr_parse(const char *card, sock_addr_t *out)
{
    char host[INET6_ADDRSTRLEN];
    const char *port_s, *end_host;
    const char *start = card;
    unsigned long port;
    char *end;
    size_t hl;
    int v6 = 0;

    if (card == NULL || out == NULL)
        return common_err_set(CANAL_ERR_ARG, "sock: address card is NULL");
    if (card[0] == '[') {
        v6 = 1;
        start = card + 1;
        end_host = strchr(start, ']');
        if (end_host == NULL || end_host[1] != ':')
            return common_err_set(CANAL_ERR_PROTO, "sock: address card \"%.80s\" is not [v6]:port",
                                  card);
        port_s = end_host + 2;
    } else {
        end_host = strrchr(card, ':');
        if (end_host == NULL)
            return common_err_set(CANAL_ERR_PROTO, "sock: address card \"%.80s\" has no port",
                                  card);
        port_s = end_host + 1;
    }
    hl = (size_t)(end_host - start);
    if (hl == 0 || hl >= sizeof host)
        return common_err_set(CANAL_ERR_PROTO, "sock: address card \"%.80s\": bad host part", card);
    memcpy(host, start, hl);
    host[hl] = '\0';
    if (port_s[0] < '0' || port_s[0] > '9')
        return common_err_set(CANAL_ERR_PROTO, "sock: address card \"%.80s\": bad port", card);
    errno = 0;
    port = strtoul(port_s, &end, 10);
    if (*end != '\0' || errno != 0 || port == 0 || port > 65535)
        return common_err_set(CANAL_ERR_PROTO, "sock: address card \"%.80s\": bad port", card);
    memset(out, 0, sizeof *out);
    if (!v6) {
        struct sockaddr_in *s = (struct sockaddr_in *)(void *)&out->ss;
        if (inet_pton(AF_INET, host, &s->sin_addr) != 1)
            return common_err_set(CANAL_ERR_PROTO,
                                  "sock: address card \"%.80s\": \"%s\" is not an IPv4 address",
                                  card, host);
        s->sin_family = AF_INET;
        s->sin_port = htons((uint16_t)port);
        out->len = sizeof *s;
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)(void *)&out->ss;
        if (inet_pton(AF_INET6, host, &s->sin6_addr) != 1)
            return common_err_set(CANAL_ERR_PROTO,
                                  "sock: address card \"%.80s\": \"%s\" is not an IPv6 address",
                                  card, host);
        s->sin6_family = AF_INET6;
        s->sin6_port = htons((uint16_t)port);
        out->len = sizeof *s;
    }
    return CANAL_OK;
}
