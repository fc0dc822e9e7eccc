/*
 * Parsing and building of PMI-1 and PMI-2 wire messages, stream reassembly,
 * and the PMI_process_mapping format (see pmi/wire.h). Used by the PMI clients
 * and by mpiexec's server; everything from the peer is treated as hostile, so
 * every length is checked before it is used.
 */
#include "pmi/wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Printable ASCII without blanks: what fits in a PMI-1 token. */
int pmi_wire_token_ok(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s <= ' ' || *s > '~')
            return 0;
    return 1;
}

/* ------------------------------------------------------------ secrets */

/* The keys whose values are secret: the sock channel's job secret
 * (channels/sock/sock.c), the port a spawned job connects to its parent by
 * (dyn/dyn_spawn.c), and the port of a name-service entry. */
static const char *const wire_secret_keys[] = {"sock-secret", "canal-parent-port", "port"};

int pmi_wire_key_secret(const char *key)
{
    for (size_t i = 0; i < sizeof wire_secret_keys / sizeof wire_secret_keys[0]; i++) {
        size_t n = strlen(wire_secret_keys[i]);
        const char *p = key + n;
        if (strncmp(key, wire_secret_keys[i], n) != 0)
            continue;
        if (*p == '\0')
            return 1;
        /* the wire key of a rank: "<key>-<rank>" */
        if (*p++ != '-' || *p == '\0')
            continue;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '\0')
            return 1;
    }
    return 0;
}

/* Pairs that carry the value of a key named by an earlier pair. */
static int redact_is_value_key(const char *k, size_t n)
{
    return (n == 5 && strncmp(k, "value", 5) == 0) || (n > 5 && strncmp(k, "ppval", 5) == 0) ||
           (n > 11 && strncmp(k, "preput_val_", 11) == 0);
}

/* Append n bytes to out (cap bytes, one kept for the NUL), cutting what does not fit. */
static void redact_put(char *out, size_t cap, size_t *k, const char *src, size_t n)
{
    size_t m = n < cap - 1 - *k ? n : cap - 1 - *k;
    memcpy(out + *k, src, m);
    *k += m;
}

int pmi_wire_redact(const char *msg, size_t len, int reply_secret, char *out, size_t cap)
{
    static const char mask[] = "<secret>";
    size_t i = 0, k = 0;
    int names_secret = 0, next_value_secret = 0;

    if (cap == 0)
        return 0;
    while (i < len && k + 1 < cap) {
        /* one token: up to a blank, a newline or ';' (PMI-2's ";;" is a ';'
         * inside a value, so the two stay together) */
        size_t t = i, eq = (size_t)-1, vlen;
        while (t < len && msg[t] != ' ' && msg[t] != '\n' && msg[t] != '\t') {
            if (msg[t] == ';') {
                if (t + 1 < len && msg[t + 1] == ';') {
                    t += 2;
                    continue;
                }
                break;
            }
            if (msg[t] == '=' && eq == (size_t)-1)
                eq = t;
            t++;
        }
        if (eq != (size_t)-1) {
            const char *key = msg + i, *val = msg + eq + 1;
            size_t klen = eq - i;
            char kbuf[128], vbuf[128];
            int secret;
            vlen = t - eq - 1;
            snprintf(kbuf, sizeof kbuf, "%.*s", (int)(klen < 127 ? klen : 127), key);
            snprintf(vbuf, sizeof vbuf, "%.*s", (int)(vlen < 127 ? vlen : 127), val);
            secret = pmi_wire_key_secret(kbuf) ||
                     (redact_is_value_key(key, klen) && (next_value_secret || reply_secret));
            if (redact_is_value_key(key, klen))
                next_value_secret = 0;
            if (vlen > 0 && pmi_wire_key_secret(vbuf)) {
                names_secret = 1;
                next_value_secret = 1;
            }
            /* a name-service lookup is answered with a port */
            if ((strcmp(kbuf, "cmd") == 0 || strcmp(kbuf, "mcmd") == 0) &&
                (strcmp(vbuf, "lookup_name") == 0 || strcmp(vbuf, "name-lookup") == 0))
                names_secret = 1;
            redact_put(out, cap, &k, key, klen + 1);
            if (secret && vlen > 0)
                redact_put(out, cap, &k, mask, sizeof mask - 1);
            else
                redact_put(out, cap, &k, val, vlen);
        } else {
            redact_put(out, cap, &k, msg + i, t - i);
        }
        if (t < len)
            redact_put(out, cap, &k, msg + t, 1); /* the separator */
        i = t + 1;
    }
    out[k] = '\0';
    return names_secret;
}

static canal_status_t msg_add_pair(pmi_wire_msg_t *m, char *key, char *val)
{
    if (m->npairs >= PMI_WIRE_PAIRS_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "PMI message has more than %d key=value pairs",
                              PMI_WIRE_PAIRS_MAX);
    if (*key == '\0')
        return common_err_set(CANAL_ERR_PROTO, "PMI message has a pair with an empty key");
    m->key[m->npairs] = key;
    m->val[m->npairs] = val;
    m->npairs++;
    return CANAL_OK;
}

canal_status_t pmi_wire_parse1(const char *line, size_t len, pmi_wire_msg_t *msg_out)
{
    pmi_wire_msg_t *m = msg_out;
    char *p, *end;
    canal_status_t st;

    m->npairs = 0;
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > PMI_WIRE_MSG_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "PMI-1 line of %zu bytes exceeds the limit %d", len,
                              PMI_WIRE_MSG_MAX);
    if (memchr(line, '\0', len) != NULL)
        return common_err_set(CANAL_ERR_PROTO, "PMI-1 line contains a NUL byte");
    memcpy(m->buf, line, len);
    m->buf[len] = '\0';
    p = m->buf;
    end = m->buf + len;
    while (p < end) {
        char *key, *eq;
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        key = p;
        while (p < end && !is_blank(*p))
            p++;
        *p = '\0'; /* p < end: a blank; p == end: the terminator already */
        p++;
        eq = strchr(key, '=');
        if (eq == NULL)
            return common_err_set(CANAL_ERR_PROTO, "PMI-1 token '%.40s' has no '='", key);
        *eq = '\0';
        st = msg_add_pair(m, key, eq + 1);
        if (st != CANAL_OK)
            return st;
    }
    /* line is not NUL-terminated: quote at most its len bytes */
    if (m->npairs == 0 || (strcmp(m->key[0], "cmd") != 0 && strcmp(m->key[0], "mcmd") != 0))
        return common_err_set(CANAL_ERR_PROTO, "PMI-1 line does not start with cmd=: '%.*s'",
                              (int)(len < 60 ? len : 60), line);
    return CANAL_OK;
}

canal_status_t pmi_wire_parse2(const char *body, size_t len, pmi_wire_msg_t *msg_out)
{
    pmi_wire_msg_t *m = msg_out;
    size_t i = 0;
    char *w = m->buf;
    canal_status_t st;

    m->npairs = 0;
    if (len > PMI_WIRE_MSG_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "PMI-2 message of %zu bytes exceeds the limit %d",
                              len, PMI_WIRE_MSG_MAX);
    if (memchr(body, '\0', len) != NULL)
        return common_err_set(CANAL_ERR_PROTO, "PMI-2 message contains a NUL byte");
    /* Decoding only shrinks (";;" -> ';'), so writing into buf as we read is safe. */
    while (i < len) {
        char *key = w, *val;
        while (i < len && body[i] != '=' && body[i] != ';')
            *w++ = body[i++];
        if (i == len || body[i] != '=')
            return common_err_set(CANAL_ERR_PROTO, "PMI-2 pair without '=' near byte %zu", i);
        *w++ = '\0';
        i++;
        val = w;
        for (;;) {
            if (i == len)
                return common_err_set(CANAL_ERR_PROTO, "PMI-2 message not terminated by ';'");
            if (body[i] == ';') {
                if (i + 1 < len && body[i + 1] == ';') {
                    *w++ = ';';
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            *w++ = body[i++];
        }
        *w++ = '\0';
        st = msg_add_pair(m, key, val);
        if (st != CANAL_OK)
            return st;
    }
    if (m->npairs == 0 || strcmp(m->key[0], "cmd") != 0)
        return common_err_set(CANAL_ERR_PROTO, "PMI-2 message does not start with cmd=");
    return CANAL_OK;
}

const char *pmi_wire_get(const pmi_wire_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++)
        if (strcmp(msg->key[i], key) == 0)
            return msg->val[i];
    return NULL;
}

const char *pmi_wire_cmd(const pmi_wire_msg_t *msg)
{
    if (msg->npairs == 0)
        return "";
    return msg->val[0];
}

canal_status_t pmi_wire_get_int(const pmi_wire_msg_t *msg, const char *key, int *out)
{
    const char *v = pmi_wire_get(msg, key);
    char *end;
    long x;

    if (v == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMI message '%s' has no %s=", pmi_wire_cmd(msg),
                              key);
    x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || x < INT_MIN || x > INT_MAX)
        return common_err_set(CANAL_ERR_PROTO, "PMI message '%s': %s='%.40s' is not an integer",
                              pmi_wire_cmd(msg), key, v);
    *out = (int)x;
    return CANAL_OK;
}

/* ------------------------------------------------------------ building */

static void out_append(pmi_wire_out_t *out, const char *s, size_t n)
{
    if (out->failed)
        return;
    if (out->len + n > PMI_WIRE_HDR_LEN + PMI_WIRE_MSG_MAX) {
        out->failed =
            common_err_set(CANAL_ERR_LIMIT, "PMI message longer than %d bytes", PMI_WIRE_MSG_MAX);
        return;
    }
    memcpy(out->buf + out->len, s, n);
    out->len += n;
}

void pmi_wire_begin(pmi_wire_out_t *out, int version, const char *cmd)
{
    out->version = version;
    out->failed = 0;
    out->len = version == 2 ? PMI_WIRE_HDR_LEN : 0;
    pmi_wire_add(out, "cmd", cmd);
}

void pmi_wire_add(pmi_wire_out_t *out, const char *key, const char *val)
{
    if (out->failed)
        return;
    if (out->version == 1) {
        /* an empty key would build " =v", which no reader (ours included) accepts */
        if (*key == '\0' || !pmi_wire_token_ok(key) || strchr(key, '=') != NULL ||
            !pmi_wire_token_ok(val)) {
            out->failed = common_err_set(CANAL_ERR_ARG,
                                         "PMI-1 key '%.40s' is empty or it or its value contains "
                                         "a blank, '=' or a non-printable character",
                                         key);
            return;
        }
        if (out->len > 0)
            out_append(out, " ", 1);
        out_append(out, key, strlen(key));
        out_append(out, "=", 1);
        out_append(out, val, strlen(val));
        return;
    }
    if (strpbrk(key, "=;") != NULL || *key == '\0') {
        out->failed =
            common_err_set(CANAL_ERR_ARG, "PMI-2 key '%.40s' is empty or has '=' or ';'", key);
        return;
    }
    out_append(out, key, strlen(key));
    out_append(out, "=", 1);
    for (const char *p = val; *p != '\0'; p++) {
        if (*p == ';')
            out_append(out, ";;", 2);
        else
            out_append(out, p, 1);
    }
    out_append(out, ";", 1);
}

void pmi_wire_add_int(pmi_wire_out_t *out, const char *key, long long val)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", val);
    pmi_wire_add(out, key, num);
}

canal_status_t pmi_wire_end(pmi_wire_out_t *out)
{
    char hdr[PMI_WIRE_HDR_LEN + 1];

    if (out->failed)
        return out->failed;
    if (out->version == 1) {
        out->buf[out->len++] = '\n'; /* room reserved by the +2 in buf */
        out->buf[out->len] = '\0';
        return CANAL_OK;
    }
    snprintf(hdr, sizeof hdr, "%-6zu", out->len - PMI_WIRE_HDR_LEN);
    memcpy(out->buf, hdr, PMI_WIRE_HDR_LEN);
    out->buf[out->len] = '\0';
    return CANAL_OK;
}

/* ------------------------------------------------------------ reassembly */

void pmi_wire_reader_init(pmi_wire_reader_t *r, int version)
{
    r->version = version;
    r->len = 0;
}

char *pmi_wire_reader_space(pmi_wire_reader_t *r, size_t *room_out)
{
    *room_out = sizeof r->buf - r->len;
    return r->buf + r->len;
}

void pmi_wire_reader_fill(pmi_wire_reader_t *r, size_t n)
{
    if (n > sizeof r->buf - r->len)
        n = sizeof r->buf - r->len;
    r->len += n;
}

static void reader_consume(pmi_wire_reader_t *r, size_t n)
{
    memmove(r->buf, r->buf + n, r->len - n);
    r->len -= n;
}

canal_status_t pmi_wire_reader_take(pmi_wire_reader_t *r, char *out, size_t cap, size_t *len_out)
{
    size_t body, skip;
    const char *start;

    if (r->version == 1) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl == NULL) {
            if (r->len >= PMI_WIRE_MSG_MAX)
                return common_err_set(CANAL_ERR_LIMIT, "PMI-1 line longer than %d bytes",
                                      PMI_WIRE_MSG_MAX);
            return 0;
        }
        body = (size_t)(nl - r->buf);
        start = r->buf;
        skip = body + 1;
    } else {
        size_t n = 0;
        int digits = 0;
        if (r->len < PMI_WIRE_HDR_LEN)
            return 0;
        /* Length header: decimal, padded with blanks on either side. */
        for (int i = 0; i < PMI_WIRE_HDR_LEN; i++) {
            char c = r->buf[i];
            if (c >= '0' && c <= '9') {
                if (digits > 0 && r->buf[i - 1] == ' ')
                    return common_err_set(CANAL_ERR_PROTO, "bad PMI-2 length header '%.6s'",
                                          r->buf);
                n = n * 10 + (size_t)(c - '0');
                digits++;
            } else if (c != ' ') {
                return common_err_set(CANAL_ERR_PROTO, "bad PMI-2 length header '%.6s'", r->buf);
            }
        }
        if (digits == 0)
            return common_err_set(CANAL_ERR_PROTO, "empty PMI-2 length header");
        if (n > PMI_WIRE_MSG_MAX)
            return common_err_set(CANAL_ERR_LIMIT,
                                  "PMI-2 message of %zu bytes exceeds the limit %d", n,
                                  PMI_WIRE_MSG_MAX);
        if (r->len < PMI_WIRE_HDR_LEN + n)
            return 0;
        body = n;
        start = r->buf + PMI_WIRE_HDR_LEN;
        skip = PMI_WIRE_HDR_LEN + n;
    }
    if (body + 1 > cap) {
        reader_consume(r, skip);
        return common_err_set(CANAL_ERR_TRUNCATE, "PMI message of %zu bytes does not fit in %zu",
                              body, cap);
    }
    memcpy(out, start, body);
    out[body] = '\0';
    *len_out = body;
    reader_consume(r, skip);
    return 1;
}

/* ------------------------------------------------------------ process mapping */

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Read a non-negative integer bounded by 2^24 (more nodes or ranks than that
 * is a corrupt mapping). */
static const char *parse_small(const char *p, int *out)
{
    long v = 0;
    p = skip_blanks(p);
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > (1L << 24))
            return NULL;
        p++;
    }
    *out = (int)v;
    return skip_blanks(p);
}

enum { MAPPING_BLOCKS_MAX = 256 };

canal_status_t pmi_wire_parse_mapping(const char *text, int size, int *node_of, int *nnodes_out)
{
    static const char vec[] = "vector";
    int start[MAPPING_BLOCKS_MAX], nodes[MAPPING_BLOCKS_MAX], ppn[MAPPING_BLOCKS_MAX];
    int nblocks = 0, rank = 0, maxnode = -1;
    const char *p = skip_blanks(text);

    if (*p++ != '(')
        goto bad;
    p = skip_blanks(p);
    if (strncmp(p, vec, sizeof vec - 1) != 0)
        goto bad;
    p = skip_blanks(p + sizeof vec - 1);
    while (*p == ',') {
        int s, n, k;
        p = skip_blanks(p + 1);
        if (*p++ != '(')
            goto bad;
        if ((p = parse_small(p, &s)) == NULL || *p++ != ',')
            goto bad;
        if ((p = parse_small(p, &n)) == NULL || *p++ != ',')
            goto bad;
        if ((p = parse_small(p, &k)) == NULL || *p++ != ')')
            goto bad;
        p = skip_blanks(p);
        if (nblocks == MAPPING_BLOCKS_MAX)
            return common_err_set(CANAL_ERR_LIMIT, "PMI_process_mapping has more than %d blocks",
                                  nblocks);
        start[nblocks] = s;
        nodes[nblocks] = n;
        ppn[nblocks] = k;
        nblocks++;
    }
    if (*p++ != ')' || *skip_blanks(p) != '\0' || nblocks == 0)
        goto bad;
    /* Walk the blocks, again and again if they cover fewer ranks than size. */
    while (rank < size) {
        int before = rank;
        for (int b = 0; b < nblocks && rank < size; b++)
            for (int n = 0; n < nodes[b] && rank < size; n++)
                for (int k = 0; k < ppn[b] && rank < size; k++) {
                    int node = start[b] + n;
                    node_of[rank++] = node;
                    if (node > maxnode)
                        maxnode = node;
                }
        if (rank == before)
            return common_err_set(
                CANAL_ERR_PROTO, "PMI_process_mapping '%.80s' places no rank (empty blocks)", text);
    }
    *nnodes_out = maxnode + 1;
    return CANAL_OK;
bad:
    return common_err_set(CANAL_ERR_PROTO, "malformed PMI_process_mapping '%.80s'", text);
}
