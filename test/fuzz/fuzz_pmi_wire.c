/*
 * libFuzzer target: the PMI-1/PMI-2 wire code in pmi/wire.c, which both the
 * PMI client (replies from whatever launcher started us) and mpiexec's PMI
 * server (requests from any process that connects) apply to bytes they do
 * not control. The first input byte picks what is exercised:
 *   0 pmi_wire_parse1 on the rest      1 pmi_wire_parse2 on the rest
 *   2 the stream reader (version from the next byte, fed in odd chunks,
 *     switching 1 -> 2 after a PMI-2 init line as the server does)
 *   3 pmi_wire_parse_mapping with a rank count from the next two bytes
 *   4 building: key/value pairs from the input go through pmi_wire_add and
 *     must parse back to the same pairs (a property, not only "no crash").
 * Cases 0 and 1 also run the log redaction (pmi_wire_redact) on the bytes,
 * into a buffer of every size from 1 to 64 and a large one: it must stay
 * within the buffer and terminate it.
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi/wire.h"
#include "fuzz.h"

static pmi_wire_msg_t msg;

/* Touch every parsed pair so a pointer outside buf shows up under ASan. */
static void walk(const pmi_wire_msg_t *m)
{
    size_t total = 0;
    int x;
    for (int i = 0; i < m->npairs; i++)
        total += strlen(m->key[i]) + strlen(m->val[i]);
    (void)pmi_wire_cmd(m);
    (void)pmi_wire_get_int(m, "rc", &x);
    (void)pmi_wire_get_int(m, "size", &x);
    (void)pmi_wire_get(m, "kvsname");
    if (total > PMI_WIRE_MSG_MAX)
        abort(); /* decoding never grows a message */
}

static void fuzz_reader(const uint8_t *d, size_t n)
{
    static pmi_wire_reader_t r;
    static char out[PMI_WIRE_MSG_MAX + 1];
    size_t pos = 0, len;
    int steps = 0;

    if (n < 1)
        return;
    pmi_wire_reader_init(&r, (d[0] & 1) + 1);
    pos = 1;
    while (steps++ < 10000) {
        canal_status_t st = pmi_wire_reader_take(&r, out, (d[0] & 2) ? 64 : sizeof out, &len);
        if (st == 1) {
            if (len >= sizeof out || out[len] != '\0')
                abort();
            if (r.version == 1 ? pmi_wire_parse1(out, len, &msg) == CANAL_OK
                               : pmi_wire_parse2(out, len, &msg) == CANAL_OK) {
                walk(&msg);
                if (r.version == 1 && strcmp(pmi_wire_cmd(&msg), "init") == 0 &&
                    pmi_wire_get(&msg, "pmi_version") != NULL &&
                    strcmp(pmi_wire_get(&msg, "pmi_version"), "2") == 0)
                    r.version = 2;
            }
            continue;
        }
        if (st < 0 && st != CANAL_ERR_TRUNCATE)
            return; /* a broken stream: the connection would be closed */
        if (st == 0) {
            size_t room, chunk;
            char *space = pmi_wire_reader_space(&r, &room);
            if (pos >= n || room == 0)
                return;
            chunk = 1 + d[pos] % 97; /* odd chunk sizes split headers and lines */
            if (chunk > n - pos)
                chunk = n - pos;
            if (chunk > room)
                chunk = room;
            memcpy(space, d + pos, chunk);
            pmi_wire_reader_fill(&r, chunk);
            pos += chunk;
        }
    }
}

static void fuzz_mapping(const uint8_t *d, size_t n)
{
    int size, nnodes = -1, *node_of;
    char *text;

    if (n < 2)
        return;
    size = 1 + ((d[0] | d[1] << 8) & 0xfff);
    text = malloc(n - 1);
    node_of = malloc(sizeof *node_of * (size_t)size);
    memcpy(text, d + 2, n - 2);
    text[n - 2] = '\0';
    if (pmi_wire_parse_mapping(text, size, node_of, &nnodes) == CANAL_OK) {
        if (nnodes < 1)
            abort();
        for (int i = 0; i < size; i++)
            if (node_of[i] < 0 || node_of[i] >= nnodes)
                abort();
    }
    free(node_of);
    free(text);
}

/* Split the input at 0xff bytes into tokens: cmd, then key, value, key, value... */
static void fuzz_build(const uint8_t *d, size_t n)
{
    static pmi_wire_out_t out;
    char *copy = malloc(n + 1), *tok[2 * 64 + 1];
    int ntok = 0, version;
    canal_status_t st;

    if (n < 1) {
        free(copy);
        return;
    }
    version = (d[0] & 1) + 1;
    memcpy(copy, d + 1, n - 1);
    copy[n - 1] = '\0';
    for (char *p = copy, *s = copy; ntok < (int)(sizeof tok / sizeof tok[0]); p++) {
        if (*p == (char)0xff || *p == '\0') {
            int last = *p == '\0';
            *p = '\0';
            tok[ntok++] = s;
            s = p + 1;
            if (last)
                break;
        }
    }
    if (ntok % 2 == 0)
        ntok--; /* cmd + whole pairs */
    pmi_wire_begin(&out, version, tok[0]);
    for (int i = 1; i + 1 < ntok; i += 2)
        pmi_wire_add(&out, tok[i], tok[i + 1]);
    st = pmi_wire_end(&out);
    if (st == CANAL_OK) {
        size_t hl = version == 2 ? PMI_WIRE_HDR_LEN : 0;
        if (version == 2) {
            char hdr[PMI_WIRE_HDR_LEN + 1];
            memcpy(hdr, out.buf, PMI_WIRE_HDR_LEN);
            hdr[PMI_WIRE_HDR_LEN] = '\0';
            if ((size_t)atoi(hdr) != out.len - hl)
                abort();
        }
        st = version == 1 ? pmi_wire_parse1(out.buf, out.len, &msg)
                          : pmi_wire_parse2(out.buf + hl, out.len - hl, &msg);
        /* What we built must read back as exactly the pairs we added. */
        if (st != CANAL_OK)
            abort();
        {
            if (msg.npairs != (ntok + 1) / 2)
                abort();
            if (strcmp(msg.val[0], tok[0]) != 0)
                abort();
            for (int i = 1; i + 1 < ntok; i += 2)
                if (strcmp(msg.key[(i + 1) / 2], tok[i]) != 0 ||
                    strcmp(msg.val[(i + 1) / 2], tok[i + 1]) != 0)
                    abort();
        }
    }
    free(copy);
}

static void fuzz_redact(const char *m, size_t n)
{
    static char out[PMI_WIRE_MSG_MAX + 1];
    char small[64];

    for (size_t cap = 1; cap <= sizeof small; cap += 7) {
        (void)pmi_wire_redact(m, n, (int)(cap & 1), small, cap);
        if (memchr(small, '\0', cap) == NULL)
            abort();
    }
    (void)pmi_wire_redact(m, n, 1, out, sizeof out);
    if (memchr(out, '\0', sizeof out) == NULL)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % 5) {
    case 0:
        if (pmi_wire_parse1((const char *)data + 1, size - 1, &msg) == CANAL_OK)
            walk(&msg);
        fuzz_redact((const char *)data + 1, size - 1);
        break;
    case 1:
        if (pmi_wire_parse2((const char *)data + 1, size - 1, &msg) == CANAL_OK)
            walk(&msg);
        fuzz_redact((const char *)data + 1, size - 1);
        break;
    case 2:
        fuzz_reader(data + 1, size - 1);
        break;
    case 3:
        fuzz_mapping(data + 1, size - 1);
        break;
    case 4:
        fuzz_build(data + 1, size - 1);
        break;
    }
    return 0;
}
