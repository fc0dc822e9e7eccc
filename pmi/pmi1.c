/*
 * The PMI-1 "simple" wire protocol client, as spoken by Hydra, Slurm's pmi2
 * plugin (which also accepts PMI-1) and Canal's mpiexec. pmi/pmi.c calls
 * pmi1_init when it chose PMI-1 and routes pmi_put/get/fence... here.
 *
 * Rank and size come from PMI_RANK/PMI_SIZE when the server handed us PMI_FD,
 * or from the "cmd=set" lines that follow the initack of a PMI_PORT connection.
 */
#include "pmi/pmi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

static pmi_conn_t pmi1_conn;
static char pmi1_kvsname[256];
static int pmi1_keymax = PMI_KEY_MAX, pmi1_valmax = PMI_VAL_MAX;

int pmi1_fd(void)
{
    return pmi1_conn.fd;
}

pmi_conn_t *pmi1_conn_get(void)
{
    return &pmi1_conn;
}

int pmi1_key_max(void)
{
    return pmi1_keymax;
}
int pmi1_val_max(void)
{
    return pmi1_valmax;
}

/* Send a message and read the reply `expect`, checking its rc= if present. */
static canal_status_t pmi1_call(pmi_wire_out_t *out, pmi_wire_msg_t *reply, const char *expect)
{
    canal_status_t st;
    int rc;

    pthread_mutex_lock(&pmi1_conn.lock);
    st = pmi_conn_send(&pmi1_conn, out);
    if (st == CANAL_OK)
        st = pmi_conn_recv(&pmi1_conn, reply, expect);
    pmi_conn_unlock(&pmi1_conn);
    if (st != CANAL_OK)
        return st;
    if (pmi_wire_get_int(reply, "rc", &rc) == CANAL_OK && rc != 0) {
        const char *m = pmi_wire_get(reply, "msg");
        /* a failed get is a missing key, whatever rc the server uses (Hydra -1, Slurm 1) */
        return common_err_set(strcmp(expect, "get_result") == 0 ? CANAL_ERR_NOTFOUND
                                                                : CANAL_ERR_PEER,
                              "PMI-1 %s failed: rc=%d %s", expect, rc, m != NULL ? m : "");
    }
    return CANAL_OK;
}

/* PMI_PORT: "cmd=initack pmiid=ID", then the server tells size, rank, debug. */
static canal_status_t pmi1_initack(const pmi_endpoint_t *ep, pmi_boot_t *boot)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 1, "initack");
    pmi_wire_add_int(&out, "pmiid", ep->id);
    st = pmi_conn_send(&pmi1_conn, &out);
    if (st == CANAL_OK)
        st = pmi_conn_recv(&pmi1_conn, &msg, "initack");
    for (int i = 0; i < 3 && st == CANAL_OK; i++) {
        st = pmi_conn_recv(&pmi1_conn, &msg, "set");
        if (st != CANAL_OK)
            break;
        if (pmi_wire_get(&msg, "size") != NULL)
            st = pmi_wire_get_int(&msg, "size", &boot->size);
        else if (pmi_wire_get(&msg, "rank") != NULL)
            st = pmi_wire_get_int(&msg, "rank", &boot->rank);
    }
    return st;
}

canal_status_t pmi1_init(const pmi_endpoint_t *ep, pmi_boot_t *boot_out)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    boot_out->rank = ep->env_rank;
    boot_out->size = ep->env_size;
    boot_out->spawned = getenv("PMI_SPAWNED") != NULL && atoi(getenv("PMI_SPAWNED")) != 0;
    st = pmi_conn_open(&pmi1_conn, ep);
    if (st != CANAL_OK)
        return st;
    if (ep->use_port) {
        st = pmi1_initack(ep, boot_out);
        if (st != CANAL_OK)
            goto close_conn;
    }
    st = pmi_conn_handshake(&pmi1_conn, 1);
    if (st != CANAL_OK)
        goto close_conn;
    if (boot_out->rank < 0 || boot_out->size <= 0 || boot_out->rank >= boot_out->size) {
        st = common_err_set(CANAL_ERR_PROTO,
                            "PMI-1 server gave no valid rank/size (PMI_RANK=%d PMI_SIZE=%d)",
                            boot_out->rank, boot_out->size);
        goto close_conn;
    }

    pmi_wire_begin(&out, 1, "get_maxes");
    st = pmi1_call(&out, &msg, "maxes");
    if (st != CANAL_OK)
        goto close_conn;
    if (pmi_wire_get_int(&msg, "keylen_max", &pmi1_keymax) != CANAL_OK || pmi1_keymax > PMI_KEY_MAX)
        pmi1_keymax = PMI_KEY_MAX;
    if (pmi_wire_get_int(&msg, "vallen_max", &pmi1_valmax) != CANAL_OK || pmi1_valmax > PMI_VAL_MAX)
        pmi1_valmax = PMI_VAL_MAX;

    pmi_wire_begin(&out, 1, "get_my_kvsname");
    st = pmi1_call(&out, &msg, "my_kvsname");
    if (st != CANAL_OK)
        goto close_conn;
    v = pmi_wire_get(&msg, "kvsname");
    if (v == NULL || *v == '\0' || strlen(v) >= sizeof pmi1_kvsname) {
        st = common_err_set(CANAL_ERR_PROTO, "PMI-1 server sent no usable kvsname");
        goto close_conn;
    }
    snprintf(pmi1_kvsname, sizeof pmi1_kvsname, "%s", v);
    snprintf(boot_out->jobid, sizeof boot_out->jobid, "%s", v);

    boot_out->appnum = 0;
    pmi_wire_begin(&out, 1, "get_appnum");
    st = pmi1_call(&out, &msg, "appnum");
    if (st != CANAL_OK)
        goto close_conn;
    pmi_wire_get_int(&msg, "appnum", &boot_out->appnum);

    boot_out->universe_size = -1;
    pmi_wire_begin(&out, 1, "get_universe_size");
    st = pmi1_call(&out, &msg, "universe_size");
    if (st != CANAL_OK)
        goto close_conn;
    pmi_wire_get_int(&msg, "size", &boot_out->universe_size);

    boot_out->mapping[0] = '\0';
    st = pmi1_get(-1, "PMI_process_mapping", boot_out->mapping, sizeof boot_out->mapping);
    if (st == CANAL_ERR_NOTFOUND) {
        boot_out->mapping[0] = '\0';
        st = CANAL_OK;
    }
    if (st != CANAL_OK)
        goto close_conn;
    return CANAL_OK;

close_conn:
    pmi_conn_close(&pmi1_conn);
    return st;
}

canal_status_t pmi1_put(const char *key, const char *val)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 1, "put");
    pmi_wire_add(&out, "kvsname", pmi1_kvsname);
    pmi_wire_add(&out, "key", key);
    pmi_wire_add(&out, "value", val);
    return pmi1_call(&out, &msg, "put_result");
}

canal_status_t pmi1_fence(void)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 1, "barrier_in");
    return pmi1_call(&out, &msg, "barrier_out");
}

canal_status_t pmi1_get(int rank, const char *key, char *val_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 1, "get");
    pmi_wire_add(&out, "kvsname", pmi1_kvsname);
    pmi_wire_add(&out, "key", key);
    st = pmi1_call(&out, &msg, "get_result");
    if (st != CANAL_OK)
        return st;
    v = pmi_wire_get(&msg, "value");
    if (v == NULL)
        return common_err_set(CANAL_ERR_PROTO, "PMI-1 get_result for '%s' has no value", key);
    return pmi_copy_value(v, val_out, len);
}

canal_status_t pmi1_publish(const char *service, const char *port)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 1, "publish_name");
    pmi_wire_add(&out, "service", service);
    pmi_wire_add(&out, "port", port);
    st = pmi1_call(&out, &msg, "publish_result");
    /* the process manager answered no (the name is taken): the caller's
     * argument (MPI_ERR_SERVICE), not a failed peer */
    if (st == CANAL_ERR_PEER) {
        char why[200];
        snprintf(why, sizeof why, "%s", common_err_detail());
        return common_err_set(CANAL_ERR_ARG, "service name '%s' cannot be published (%s)", service,
                              why);
    }
    return st;
}

canal_status_t pmi1_lookup(const char *service, char *port_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 1, "lookup_name");
    pmi_wire_add(&out, "service", service);
    st = pmi1_call(&out, &msg, "lookup_result");
    if (st != CANAL_OK)
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    v = pmi_wire_get(&msg, "port");
    if (v == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    return pmi_copy_value(v, port_out, len);
}

canal_status_t pmi1_unpublish(const char *service)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 1, "unpublish_name");
    pmi_wire_add(&out, "service", service);
    st = pmi1_call(&out, &msg, "unpublish_result");
    if (st != CANAL_OK)
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    return CANAL_OK;
}

canal_status_t pmi1_abort(int code, const char *msg)
{
    pmi_wire_out_t out;

    /* PMI-1 servers (Hydra) take only the exit code; the message is ours to print. */
    pmi_wire_begin(&out, 1, "abort");
    pmi_wire_add_int(&out, "exitcode", code);
    if (pmi_conn_send(&pmi1_conn, &out) != CANAL_OK)
        _exit(code);
    pmi_conn_wait_death(&pmi1_conn, code);
}

canal_status_t pmi1_finalize(void)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 1, "finalize");
    st = pmi1_call(&out, &msg, "finalize_ack");
    pmi_conn_close(&pmi1_conn);
    return st;
}

/* ------------------------------------------------------------ spawn */

/* The lines of an "mcmd=spawn" request, each "key=value\n". */
typedef struct {
    char *buf;
    size_t len, cap;
    canal_status_t failed;
} spawn_lines_t;

/* Append text as it is, growing the buffer (bounded at 16 MB). */
static void lines_raw(spawn_lines_t *b, const char *text)
{
    size_t need = strlen(text);

    if (b->failed)
        return;
    if (b->len + need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        char *p;
        while (cap < b->len + need + 1)
            cap *= 2;
        if (cap > (size_t)1 << 24 || (p = realloc(b->buf, cap)) == NULL) {
            b->failed = common_err_set(CANAL_ERR_NOMEM, "PMI-1 spawn request too large");
            return;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, text, need + 1);
    b->len += need;
}

static void lines_add(spawn_lines_t *b, const char *key, const char *val)
{
    if (b->failed)
        return;
    /* A spawn block is one "key=value" per line: values may hold blanks
     * (paths do), not newlines or other control characters. */
    int val_ok = *val != '\0';
    for (const char *p = val; *p != '\0'; p++)
        if ((*p >= 0 && *p < ' ' && *p != '\t') || *p == 0x7f)
            val_ok = 0;
    if (!val_ok || !pmi_wire_token_ok(key)) {
        b->failed = common_err_set(CANAL_ERR_ARG,
                                   "PMI-1 spawn: %s='%.40s' is empty or has a control "
                                   "character",
                                   key, val);
        return;
    }
    lines_raw(b, key);
    lines_raw(b, "=");
    lines_raw(b, val);
    lines_raw(b, "\n");
}

/* A program argument goes as it is, the empty one included: the server
 * (Hydra, Canal's mpiexec) takes the rest of the line after "argN=" (blanks,
 * '=', ';', quotes, tabs, any byte). Only a newline cannot be carried. */
static void lines_add_arg(spawn_lines_t *b, int cmd, int arg, const char *val)
{
    char key[32];

    if (b->failed)
        return;
    if (strchr(val, '\n') != NULL) {
        b->failed = common_err_set(CANAL_ERR_ARG,
                                   "PMI-1 spawn cannot carry argument %d of command %d: it "
                                   "contains a newline, and PMI-1 sends one line per argument "
                                   "(PMI-2 carries it)",
                                   arg, cmd);
        return;
    }
    snprintf(key, sizeof key, "arg%d", arg + 1);
    lines_raw(b, key);
    lines_raw(b, "=");
    lines_raw(b, val);
    lines_raw(b, "\n");
}

static void lines_add_int(spawn_lines_t *b, const char *key, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    lines_add(b, key, num);
}

canal_status_t pmi1_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                          const char *const *keys, const char *const *vals, char *jobid_out,
                          size_t len)
{
    spawn_lines_t b = {0};
    pmi_wire_msg_t msg;
    canal_status_t st;
    char k[64];
    const char *v;
    int rc = 0;

    for (int i = 0; i < ncmds; i++) {
        int argc = 0;
        while (cmds[i].argv != NULL && cmds[i].argv[argc] != NULL)
            argc++;
        lines_raw(&b, "mcmd=spawn\n");
        lines_add_int(&b, "nprocs", cmds[i].maxprocs);
        lines_add(&b, "execname", cmds[i].command);
        lines_add_int(&b, "totspawns", ncmds);
        lines_add_int(&b, "spawnssofar", i + 1);
        lines_add_int(&b, "argcnt", argc);
        for (int a = 0; a < argc; a++)
            lines_add_arg(&b, i, a, cmds[i].argv[a]);
        lines_add_int(&b, "preput_num", npreput);
        for (int p = 0; p < npreput; p++) {
            snprintf(k, sizeof k, "preput_key_%d", p);
            lines_add(&b, k, keys[p]);
            snprintf(k, sizeof k, "preput_val_%d", p);
            lines_add(&b, k, vals[p]);
        }
        lines_add_int(&b, "info_num", cmds[i].ninfo);
        for (int n = 0; n < cmds[i].ninfo; n++) {
            snprintf(k, sizeof k, "info_key_%d", n);
            lines_add(&b, k, cmds[i].info_keys[n]);
            snprintf(k, sizeof k, "info_val_%d", n);
            lines_add(&b, k, cmds[i].info_vals[n]);
        }
        lines_raw(&b, "endcmd\n");
    }
    if (b.failed) {
        free(b.buf);
        return b.failed;
    }
    pthread_mutex_lock(&pmi1_conn.lock);
    st = pmi_conn_send_raw(&pmi1_conn, b.buf, b.len);
    free(b.buf);
    if (st == CANAL_OK)
        st = pmi_conn_recv(&pmi1_conn, &msg, "spawn_result");
    pmi_conn_unlock(&pmi1_conn);
    if (st != CANAL_OK)
        return st;
    if (pmi_wire_get_int(&msg, "rc", &rc) == CANAL_OK && rc != 0) {
        v = pmi_wire_get(&msg, "errmsg");
        if (v == NULL)
            v = pmi_wire_get(&msg, "msg");
        return common_err_set(CANAL_ERR_PEER, "PMI-1 spawn failed: rc=%d %s", rc,
                              v != NULL ? v : "");
    }
    v = pmi_wire_get(&msg, "jobid");
    return pmi_copy_value(v != NULL ? v : "", jobid_out, len);
}
