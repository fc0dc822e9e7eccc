/*
 * The PMI wire formats, shared by the PMI-1/PMI-2 clients (pmi/pmi1.c,
 * pmi/pmi2.c) and the server inside mpiexec (mpiexec/server.c).
 *
 * PMI-1 ("simple"): one message per line, "cmd=NAME key=value key=value\n";
 * tokens are separated by blanks, a value runs to the next blank and may
 * contain '='.
 * PMI-2: a 6-character decimal length, then "cmd=NAME;key=value;...;" where a
 * ';' inside a value is written ";;".
 *
 * Everything here is bounded: a message longer than PMI_WIRE_MSG_MAX, more than
 * PMI_WIRE_PAIRS_MAX pairs, a bad length header or a pair without '=' is an
 * error (CANAL_ERR_PROTO / CANAL_ERR_LIMIT), never an overflow.
 */
#ifndef CANAL_PMI_WIRE_H
#define CANAL_PMI_WIRE_H

#include <stddef.h>

#include "common/status.h"

enum {
    PMI_WIRE_MSG_MAX = 32768,  /* longest message body we accept or build */
    PMI_WIRE_PAIRS_MAX = 2100, /* most key=value pairs in one message (a spawn: one per argument) */
    PMI_WIRE_HDR_LEN = 6,      /* PMI-2 length prefix */
};

/* A parsed message: pointers into buf, which holds the decoded copy. */
typedef struct {
    int npairs;
    const char *key[PMI_WIRE_PAIRS_MAX];
    const char *val[PMI_WIRE_PAIRS_MAX];
    char buf[PMI_WIRE_MSG_MAX + 1];
} pmi_wire_msg_t;

/* Parse one PMI-1 line (with or without its '\n') / one PMI-2 body (without
 * its length header). The first pair must be cmd=... for PMI-2 and cmd= or
 * mcmd= for PMI-1. */
canal_status_t pmi_wire_parse1(const char *line, size_t len, pmi_wire_msg_t *msg_out);
canal_status_t pmi_wire_parse2(const char *body, size_t len, pmi_wire_msg_t *msg_out);

/* Value of the first pair named `key`, or NULL. */
const char *pmi_wire_get(const pmi_wire_msg_t *msg, const char *key);
/* The command name (value of cmd= or mcmd=), "" if none. */
const char *pmi_wire_cmd(const pmi_wire_msg_t *msg);
/* Integer value of `key`: 0 and *out set, or CANAL_ERR_NOTFOUND / CANAL_ERR_PROTO. */
canal_status_t pmi_wire_get_int(const pmi_wire_msg_t *msg, const char *key, int *out);

/* Building a message: begin, add pairs, end. Errors (too long, a PMI-1 value
 * with a blank or newline) are remembered and returned by end. */
typedef struct {
    int version; /* 1 or 2 */
    int failed;  /* canal_status_t of the first error, 0 if none */
    size_t len;  /* bytes in buf, including the PMI-2 header space */
    char buf[PMI_WIRE_HDR_LEN + PMI_WIRE_MSG_MAX + 2];
} pmi_wire_out_t;

void pmi_wire_begin(pmi_wire_out_t *out, int version, const char *cmd);
void pmi_wire_add(pmi_wire_out_t *out, const char *key, const char *val);
void pmi_wire_add_int(pmi_wire_out_t *out, const char *key, long long val);
/* Terminates the message ('\n' or the length header) and makes buf/len the
 * exact bytes to send. */
canal_status_t pmi_wire_end(pmi_wire_out_t *out);

/* Reassembly of a byte stream into messages. version 1: lines; version 2:
 * length-prefixed. The server switches a connection from 1 to 2 after the
 * PMI-2 init line; bytes already buffered are then read in the new framing. */
typedef struct {
    int version;
    size_t len;
    char buf[PMI_WIRE_HDR_LEN + PMI_WIRE_MSG_MAX + 1];
} pmi_wire_reader_t;

void pmi_wire_reader_init(pmi_wire_reader_t *r, int version);
/* Room for more input: pointer and size to read into, then pmi_wire_reader_fill(n). */
char *pmi_wire_reader_space(pmi_wire_reader_t *r, size_t *room_out);
void pmi_wire_reader_fill(pmi_wire_reader_t *r, size_t n);
/* Take the next complete message (body only: no '\n', no header) into out
 * (cap bytes, NUL-terminated). Returns 1 with *len_out set, 0 if incomplete,
 * or an error for a message that cannot be valid (too long, bad header). */
canal_status_t pmi_wire_reader_take(pmi_wire_reader_t *r, char *out, size_t cap, size_t *len_out);

/* PMI_process_mapping: "(vector,(start,nodes,ppn),...)". Fills node_of[0..size)
 * with node indices, repeating the blocks cyclically when they cover fewer than
 * size ranks (as Hydra writes it). Returns 0, or CANAL_ERR_PROTO for text that
 * is not a valid mapping. *nnodes_out is 1 + the largest node index used. */
canal_status_t pmi_wire_parse_mapping(const char *text, int size, int *node_of, int *nnodes_out);

/* Printable, no blanks: what a PMI-1 key or value may contain. */
int pmi_wire_token_ok(const char *s);

/* Secrets travel through PMI (the sock channel's job secret; port names,
 * which are capabilities) but never reach a log, at any verbosity. The one
 * list of secret keys is in wire.c: pmi_wire_key_secret says whether a key
 * (as the API names it, or on the wire with its "-<rank>" suffix) holds one. */
int pmi_wire_key_secret(const char *key);
/* A copy of a message for a log line (any framing: a PMI-1 line, the lines of
 * a PMI-1 spawn, a PMI-2 message with or without its header), NUL-terminated
 * and cut to cap-1 bytes, in which every secret value reads "<secret>": the
 * value of a secret key, the value= or preput value that follows a pair
 * naming a secret key, and, when reply_secret is set (the message answers a
 * request that named one), every value=. Returns 1 when the message names a
 * secret key (its answer then needs reply_secret), else 0. */
int pmi_wire_redact(const char *msg, size_t len, int reply_secret, char *out, size_t cap);

#endif
