/*
 * The link between mpiexec and a proxy (mpiexec/remote.c, mpiexec/proxy.c):
 * the proxy's stdin and stdout, carried by the launcher (ssh, or a pipe for
 * fork), so the link is as authenticated as the launcher and no secret ever
 * appears on a command line. A frame is a 4-byte little-endian length, a type
 * byte, then fields, each a NUL-terminated string; an output frame ends with
 * raw bytes. Writes are queued and non-blocking; reads collect whole frames.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpiexec/pxlink.h"

void mpx_frame_begin(mpx_frame_t *f, int type)
{
    f->len = 0;
    f->bad = 0;
    mpx_frame_raw(f, "\0\0\0\0", 4);
    {
        char t = (char)type;
        mpx_frame_raw(f, &t, 1);
    }
}

void mpx_frame_raw(mpx_frame_t *f, const void *p, size_t n)
{
    if (f->len + n > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        char *b;
        while (cap < f->len + n)
            cap *= 2;
        b = realloc(f->buf, cap);
        if (b == NULL) {
            f->bad = 1;
            return;
        }
        f->buf = b;
        f->cap = cap;
    }
    memcpy(f->buf + f->len, p, n);
    f->len += n;
}

void mpx_frame_str(mpx_frame_t *f, const char *s)
{
    mpx_frame_raw(f, s, strlen(s) + 1);
}

void mpx_frame_int(mpx_frame_t *f, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    mpx_frame_str(f, num);
}

void mpx_frame_free(mpx_frame_t *f)
{
    free(f->buf);
    memset(f, 0, sizeof *f);
}

void mpx_frame_copy(mpx_frame_t *out, const char *body, size_t len)
{
    mpx_frame_begin(out, len > 0 ? body[0] : 0);
    if (len > 1)
        mpx_frame_raw(out, body + 1, len - 1);
}

void mpx_frame_wrap(mpx_frame_t *out, const char *host, const char *body, size_t len)
{
    mpx_frame_begin(out, MPX_F_ROUTE);
    mpx_frame_str(out, host);
    mpx_frame_raw(out, body, len);
}

int mpx_frame_unwrap(const char *body, size_t len, const char **host, const char **inner,
                     size_t *inner_len)
{
    const char *fl[1];
    size_t rest = 0;
    if (len < 1 || body[0] != MPX_F_ROUTE || mpx_frame_fields(body, len, fl, 1, &rest) != 1 ||
        rest >= len)
        return -1;
    *host = fl[0];
    *inner = body + rest;
    *inner_len = len - rest;
    return 0;
}

int mpx_frame_fields(const char *body, size_t len, const char **fields, int max, size_t *rest)
{
    size_t off = 1; /* after the type */
    int n = 0;
    while (n < max && off < len) {
        const char *z = memchr(body + off, '\0', len - off);
        if (z == NULL)
            return -1;
        fields[n++] = body + off;
        off = (size_t)(z - body) + 1;
    }
    if (rest != NULL)
        *rest = off;
    return n;
}

long long mpx_field_int(const char *s, long long lo, long long hi, int *bad)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        *bad = 1;
        return lo;
    }
    return v;
}

const char *mpx_fields_str(mpx_fields_t *c)
{
    if (c->k < c->nf)
        return c->fl[c->k++];
    c->bad = 1;
    return "";
}

long long mpx_fields_int(mpx_fields_t *c, long long lo, long long hi)
{
    return mpx_field_int(mpx_fields_str(c), lo, hi, &c->bad);
}

int mpx_fields_split(const char *body, size_t len, mpx_fields_t *c, size_t *rest)
{
    int need = 1;
    memset(c, 0, sizeof *c);
    for (size_t i = 1; i < len; i++)
        need += body[i] == '\0';
    c->fl = malloc((size_t)need * sizeof *c->fl);
    if (c->fl == NULL)
        return -1;
    c->nf = mpx_frame_fields(body, len, c->fl, need, rest);
    if (c->nf < 0) {
        free(c->fl);
        c->fl = NULL;
        return -1;
    }
    return 0;
}

void mpx_link_init(mpx_link_t *l, int rfd, int wfd)
{
    memset(l, 0, sizeof *l);
    l->rfd = rfd;
    l->wfd = wfd;
}

int mpx_link_flush(mpx_link_t *l)
{
    while (l->out_len > 0 && l->wfd >= 0) {
        ssize_t n = write(l->wfd, l->out, l->out_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0) {
            l->broken = 1;
            l->out_len = 0;
            return -1;
        }
        memmove(l->out, l->out + n, l->out_len - (size_t)n);
        l->out_len -= (size_t)n;
    }
    return 0;
}

int mpx_link_send(mpx_link_t *l, mpx_frame_t *f)
{
    uint32_t body;
    if (f->bad || f->len - 4 > MPX_FRAME_MAX)
        return -1;
    if (l->broken || l->wfd < 0)
        return -1;
    body = (uint32_t)(f->len - 4);
    f->buf[0] = (char)(body & 0xff);
    f->buf[1] = (char)(body >> 8 & 0xff);
    f->buf[2] = (char)(body >> 16 & 0xff);
    f->buf[3] = (char)(body >> 24 & 0xff);
    if (l->out_len + f->len > l->out_cap) {
        size_t cap = l->out_cap ? l->out_cap : 65536;
        char *b;
        while (cap < l->out_len + f->len)
            cap *= 2;
        b = realloc(l->out, cap);
        if (b == NULL)
            return -1;
        l->out = b;
        l->out_cap = cap;
    }
    memcpy(l->out + l->out_len, f->buf, f->len);
    l->out_len += f->len;
    return mpx_link_flush(l);
}

int mpx_link_read(mpx_link_t *l)
{
    for (int rounds = 0; rounds < 16; rounds++) {
        ssize_t n;
        if (l->in_off > 0 && l->in_off == l->in_len)
            l->in_off = l->in_len = 0;
        if (l->in_cap - l->in_len < 65536) {
            size_t cap = l->in_cap ? l->in_cap * 2 : 131072;
            char *b;
            if (l->in_off > 0) { /* make room by dropping what was taken */
                memmove(l->in, l->in + l->in_off, l->in_len - l->in_off);
                l->in_len -= l->in_off;
                l->in_off = 0;
                continue;
            }
            b = realloc(l->in, cap);
            if (b == NULL)
                return -1;
            l->in = b;
            l->in_cap = cap;
        }
        n = read(l->rfd, l->in + l->in_len, l->in_cap - l->in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n < 0)
            return -1;
        if (n == 0)
            return 1;
        l->in_len += (size_t)n;
        if (l->in_len - l->in_off >= MPX_FRAME_MAX + 4)
            return 0; /* a whole frame is certainly there: let the caller take it */
    }
    return 0;
}

int mpx_link_take(mpx_link_t *l, const char **body, size_t *len)
{
    const unsigned char *p = (const unsigned char *)l->in + l->in_off;
    size_t have = l->in_len - l->in_off;
    uint32_t n;
    if (have < 4)
        return 0;
    n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (n == 0 || n > MPX_FRAME_MAX)
        return -1;
    if (have < 4 + (size_t)n)
        return 0;
    *body = l->in + l->in_off + 4;
    *len = n;
    l->in_off += 4 + (size_t)n;
    return 1;
}
