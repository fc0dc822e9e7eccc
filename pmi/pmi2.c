/*
 * The PMI-2 wire protocol client (length-prefixed "cmd=...;" messages after a
 * PMI-1 style "cmd=init pmi_version=2" line), as served by Slurm's mpi/pmi2
 * plugin, Hydra and Canal's mpiexec. pmi/pmi.c calls pmi2_init when it chose
 * PMI-2 and routes the pmi_* calls here.
 */
#include "pmi/pmi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

static pmi_conn_t pmi2_conn;
static char pmi2_jobid[256];

int pmi2_fd(void)
{
    return pmi2_conn.fd;
}

pmi_conn_t *pmi2_conn_get(void)
{
    return &pmi2_conn;
}

/* Send, receive `expect`, and check rc=0. */
static canal_status_t pmi2_call(pmi_wire_out_t *out, pmi_wire_msg_t *reply, const char *expect)
{
    canal_status_t st;
    int rc;

    pthread_mutex_lock(&pmi2_conn.lock);
    st = pmi_conn_send(&pmi2_conn, out);
    if (st == CANAL_OK)
        st = pmi_conn_recv(&pmi2_conn, reply, expect);
    pmi_conn_unlock(&pmi2_conn);
    if (st != CANAL_OK)
        return st;
    if (pmi_wire_get_int(reply, "rc", &rc) == CANAL_OK && rc != 0) {
        const char *m = pmi_wire_get(reply, "errmsg");
        return common_err_set(CANAL_ERR_PEER, "PMI-2 %s failed: rc=%d %s", expect, rc,
                              m != NULL ? m : "");
    }
    return CANAL_OK;
}

static int found_true(const pmi_wire_msg_t *msg)
{
    const char *f = pmi_wire_get(msg, "found");
    return f != NULL && strcmp(f, "TRUE") == 0;
}

/* info-getjobattr: 0 and value, or CANAL_ERR_NOTFOUND. */
static canal_status_t pmi2_jobattr(const char *key, char *val_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 2, "info-getjobattr");
    pmi_wire_add(&out, "key", key);
    st = pmi2_call(&out, &msg, "info-getjobattr-response");
    if (st != CANAL_OK)
        return st;
    v = pmi_wire_get(&msg, "value");
    if (!found_true(&msg) || v == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMI-2 job attribute %s not found", key);
    return pmi_copy_value(v, val_out, len);
}

canal_status_t pmi2_init(const pmi_endpoint_t *ep, pmi_boot_t *boot_out)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;
    char num[32];

    st = pmi_conn_open(&pmi2_conn, ep);
    if (st != CANAL_OK)
        return st;
    st = pmi_conn_handshake(&pmi2_conn, 2);
    if (st != CANAL_OK)
        goto close_conn;

    pmi_wire_begin(&out, 2, "fullinit");
    if ((v = getenv("PMI_JOBID")) != NULL)
        pmi_wire_add(&out, "pmijobid", v);
    /* Hydra wants pmirank even on a PMI_PORT connection, where PMI_ID is the rank. */
    if (ep->env_rank >= 0)
        pmi_wire_add_int(&out, "pmirank", ep->env_rank);
    else if (ep->id >= 0)
        pmi_wire_add_int(&out, "pmirank", ep->id);
    if (ep->use_port && ep->id >= 0)
        pmi_wire_add_int(&out, "pmiid", ep->id);
    pmi_wire_add(&out, "threaded", "FALSE");
    st = pmi2_call(&out, &msg, "fullinit-response");
    if (st != CANAL_OK)
        goto close_conn;
    if ((st = pmi_wire_get_int(&msg, "rank", &boot_out->rank)) != CANAL_OK ||
        (st = pmi_wire_get_int(&msg, "size", &boot_out->size)) != CANAL_OK)
        goto close_conn;
    if (boot_out->rank < 0 || boot_out->size <= 0 || boot_out->rank >= boot_out->size) {
        st = common_err_set(CANAL_ERR_PROTO, "PMI-2 fullinit gave rank %d of size %d",
                            boot_out->rank, boot_out->size);
        goto close_conn;
    }
    if (pmi_wire_get_int(&msg, "appnum", &boot_out->appnum) != CANAL_OK)
        boot_out->appnum = 0;
    v = pmi_wire_get(&msg, "spawner-jobid");
    boot_out->spawned = (v != NULL && *v != '\0') ||
                        (getenv("PMI_SPAWNED") != NULL && atoi(getenv("PMI_SPAWNED")) != 0);

    /* The job id names the KVS; fall back to what the launcher put in the environment. */
    pmi_wire_begin(&out, 2, "job-getid");
    st = pmi2_call(&out, &msg, "job-getid-response");
    v = st == CANAL_OK ? pmi_wire_get(&msg, "jobid") : NULL;
    if (v == NULL)
        v = getenv("PMI_JOBID");
    if (v == NULL || *v == '\0' || strlen(v) >= sizeof pmi2_jobid) {
        st = common_err_set(CANAL_ERR_PROTO, "PMI-2 server gave no usable job id");
        goto close_conn;
    }
    snprintf(pmi2_jobid, sizeof pmi2_jobid, "%s", v);
    snprintf(boot_out->jobid, sizeof boot_out->jobid, "%s", v);

    boot_out->universe_size = -1;
    if (pmi2_jobattr("universeSize", num, sizeof num) == CANAL_OK)
        boot_out->universe_size = atoi(num);
    boot_out->mapping[0] = '\0';
    st = pmi2_jobattr("PMI_process_mapping", boot_out->mapping, sizeof boot_out->mapping);
    if (st == CANAL_ERR_NOTFOUND || st == CANAL_ERR_TRUNCATE)
        boot_out->mapping[0] = '\0';
    else if (st != CANAL_OK)
        goto close_conn;
    return CANAL_OK;

close_conn:
    pmi_conn_close(&pmi2_conn);
    return st;
}

canal_status_t pmi2_put(const char *key, const char *val)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 2, "kvs-put");
    pmi_wire_add(&out, "key", key);
    pmi_wire_add(&out, "value", val);
    return pmi2_call(&out, &msg, "kvs-put-response");
}

canal_status_t pmi2_fence(void)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 2, "kvs-fence");
    return pmi2_call(&out, &msg, "kvs-fence-response");
}

canal_status_t pmi2_get(int rank, const char *key, char *val_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 2, "kvs-get");
    pmi_wire_add(&out, "jobid", pmi2_jobid);
    pmi_wire_add_int(&out, "srcid", rank);
    pmi_wire_add(&out, "key", key);
    st = pmi2_call(&out, &msg, "kvs-get-response");
    if (st != CANAL_OK)
        return st;
    v = pmi_wire_get(&msg, "value");
    if (!found_true(&msg) || v == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMI-2 key '%s' (rank %d) not found", key, rank);
    return pmi_copy_value(v, val_out, len);
}

canal_status_t pmi2_publish(const char *service, const char *port)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 2, "name-publish");
    pmi_wire_add(&out, "name", service);
    pmi_wire_add(&out, "port", port);
    st = pmi2_call(&out, &msg, "name-publish-response");
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

canal_status_t pmi2_lookup(const char *service, char *port_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 2, "name-lookup");
    pmi_wire_add(&out, "name", service);
    st = pmi2_call(&out, &msg, "name-lookup-response");
    v = st == CANAL_OK ? pmi_wire_get(&msg, "port") : NULL;
    if (v == NULL)
        v = st == CANAL_OK ? pmi_wire_get(&msg, "value") : NULL;
    if (v == NULL || (pmi_wire_get(&msg, "found") != NULL && !found_true(&msg)))
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    return pmi_copy_value(v, port_out, len);
}

canal_status_t pmi2_unpublish(const char *service)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 2, "name-unpublish");
    pmi_wire_add(&out, "name", service);
    if (pmi2_call(&out, &msg, "name-unpublish-response") != CANAL_OK)
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    return CANAL_OK;
}

canal_status_t pmi2_abort(int code, const char *msg)
{
    pmi_wire_out_t out;

    /* Slurm reads "isworld", other servers "isworldabort": send both. exitcode
     * is Canal's addition (PMI-2 has none); other servers ignore it. */
    pmi_wire_begin(&out, 2, "abort");
    pmi_wire_add(&out, "isworld", "TRUE");
    pmi_wire_add(&out, "isworldabort", "TRUE");
    pmi_wire_add_int(&out, "exitcode", code);
    pmi_wire_add(&out, "msg", msg != NULL ? msg : "");
    if (pmi_conn_send(&pmi2_conn, &out) != CANAL_OK)
        _exit(code);
    pmi_conn_wait_death(&pmi2_conn, code);
}

canal_status_t pmi2_finalize(void)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;

    pmi_wire_begin(&out, 2, "finalize");
    st = pmi2_call(&out, &msg, "finalize-response");
    pmi_conn_close(&pmi2_conn);
    return st;
}

canal_status_t pmi2_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                          const char *const *keys, const char *const *vals, char *jobid_out,
                          size_t len)
{
    pmi_wire_out_t *out = malloc(sizeof *out);
    pmi_wire_msg_t *msg = malloc(sizeof *msg);
    canal_status_t st;
    char k[64];
    const char *v;

    if (out == NULL || msg == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for a PMI-2 spawn request");
        goto free_bufs;
    }
    /* Slurm parses the request in exactly this order. */
    pmi_wire_begin(out, 2, "spawn");
    pmi_wire_add_int(out, "ncmds", ncmds);
    pmi_wire_add_int(out, "preputcount", npreput);
    for (int p = 0; p < npreput; p++) {
        snprintf(k, sizeof k, "ppkey%d", p);
        pmi_wire_add(out, k, keys[p]);
        snprintf(k, sizeof k, "ppval%d", p);
        pmi_wire_add(out, k, vals[p]);
    }
    for (int i = 0; i < ncmds; i++) {
        int argc = 0;
        while (cmds[i].argv != NULL && cmds[i].argv[argc] != NULL)
            argc++;
        pmi_wire_add(out, "subcmd", cmds[i].command);
        pmi_wire_add_int(out, "maxprocs", cmds[i].maxprocs);
        pmi_wire_add_int(out, "argc", argc);
        for (int a = 0; a < argc; a++) {
            snprintf(k, sizeof k, "argv%d", a);
            pmi_wire_add(out, k, cmds[i].argv[a]);
        }
        pmi_wire_add_int(out, "infokeycount", cmds[i].ninfo);
        for (int n = 0; n < cmds[i].ninfo; n++) {
            snprintf(k, sizeof k, "infokey%d", n);
            pmi_wire_add(out, k, cmds[i].info_keys[n]);
            snprintf(k, sizeof k, "infoval%d", n);
            pmi_wire_add(out, k, cmds[i].info_vals[n]);
        }
    }
    st = pmi2_call(out, msg, "spawn-response");
    if (st != CANAL_OK)
        goto free_bufs;
    v = pmi_wire_get(msg, "jobid");
    st = pmi_copy_value(v != NULL ? v : "", jobid_out, len);
free_bufs:
    free(out);
    free(msg);
    return st;
}

canal_status_t pmi2_node_put(const char *key, const char *val)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;

    pmi_wire_begin(&out, 2, "info-putnodeattr");
    pmi_wire_add(&out, "key", key);
    pmi_wire_add(&out, "value", val);
    return pmi2_call(&out, &msg, "info-putnodeattr-response");
}

canal_status_t pmi2_node_get(const char *key, int wait, char *val_out, size_t len)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t msg;
    canal_status_t st;
    const char *v;

    pmi_wire_begin(&out, 2, "info-getnodeattr");
    pmi_wire_add(&out, "key", key);
    pmi_wire_add(&out, "wait", wait ? "TRUE" : "FALSE");
    st = pmi2_call(&out, &msg, "info-getnodeattr-response");
    if (st != CANAL_OK)
        return st;
    v = pmi_wire_get(&msg, "value");
    if (!found_true(&msg) || v == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMI-2 node attribute '%s' not found", key);
    return pmi_copy_value(v, val_out, len);
}
