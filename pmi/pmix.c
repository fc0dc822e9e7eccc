/*
 * The PMIx backend of the PMI client, through libpmix: used when a PMIx
 * server (Open MPI's mpirun/prterun, srun --mpi=pmix) started us, that is when
 * PMIX_NAMESPACE is set. pmi/pmi.c routes the pmi_* calls here. Without
 * libpmix (CANAL_HAVE_PMIX unset) every entry point reports UNSUPPORTED and
 * pmi.c explains what is missing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pmi/pmi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CANAL_HAVE_PMIX

#include <pmix.h>

#include "common/log.h"

static pmix_proc_t pmix_me;

int pmix_available(void)
{
    return 1;
}

const char *pmix_backend_version(void)
{
    return PMIx_Get_version();
}

static canal_status_t pmix_fail(pmix_status_t rc, const char *what)
{
    return common_err_set(rc == PMIX_ERR_NOT_FOUND ? CANAL_ERR_NOTFOUND : CANAL_ERR_PEER,
                          "PMIx %s failed: %s", what, PMIx_Error_string(rc));
}

/* Job-level (wildcard rank) or per-process unsigned value; -1 if absent. */
static long pmix_get_u32(pmix_rank_t rank, const char *key)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    long out = -1;

    PMIX_PROC_CONSTRUCT(&proc);
    snprintf(proc.nspace, sizeof proc.nspace, "%s", pmix_me.nspace);
    proc.rank = rank;
    if (PMIx_Get(&proc, key, NULL, 0, &val) != PMIX_SUCCESS || val == NULL)
        return -1;
    switch (val->type) {
    case PMIX_UINT32:
        out = val->data.uint32;
        break;
    case PMIX_UINT16:
        out = val->data.uint16;
        break;
    case PMIX_INT:
        out = val->data.integer;
        break;
    case PMIX_UINT:
        out = val->data.uint;
        break;
    case PMIX_PROC_RANK:
        out = val->data.rank;
        break;
    default:
        break;
    }
    PMIX_VALUE_RELEASE(val);
    return out;
}

/* Node index of every rank: PMIX_NODEID per rank when the server gives it,
 * else this node (PMIX_LOCAL_PEERS) against "elsewhere". */
static canal_status_t pmix_locality(int size, int **node_of_out)
{
    int *node_of = calloc((size_t)size, sizeof *node_of);
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    int ok = 1;

    if (node_of == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the node map of %d ranks", size);
    for (int r = 0; r < size && ok; r++) {
        long id = pmix_get_u32((pmix_rank_t)r, PMIX_NODEID);
        if (id < 0 || id > (1L << 24))
            ok = 0;
        else
            node_of[r] = (int)id;
    }
    if (ok) {
        *node_of_out = node_of;
        return CANAL_OK;
    }
    PMIX_PROC_CONSTRUCT(&wild);
    snprintf(wild.nspace, sizeof wild.nspace, "%s", pmix_me.nspace);
    wild.rank = PMIX_RANK_WILDCARD;
    for (int r = 0; r < size; r++)
        node_of[r] = 1;
    node_of[pmix_me.rank] = 0;
    if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val) == PMIX_SUCCESS && val != NULL &&
        val->type == PMIX_STRING && val->data.string != NULL) {
        char *save = NULL, *copy = strdup(val->data.string);
        for (char *t = copy != NULL ? strtok_r(copy, ",", &save) : NULL; t != NULL;
             t = strtok_r(NULL, ",", &save)) {
            long r = strtol(t, NULL, 10);
            if (r >= 0 && r < size)
                node_of[r] = 0;
        }
        free(copy);
    }
    if (val != NULL)
        PMIX_VALUE_RELEASE(val);
    *node_of_out = node_of;
    return CANAL_OK;
}

/* PMIx event notification: the server reports a process of our job that
 * ended abnormally (its launcher must keep the job running: Open MPI's
 * mpirun --enable-recovery, prterun --with-ft ulfm); the device fails the
 * rank as it does for Canal's mpiexec's notice (pmi_note_rank_failed). A
 * normal end (exit code 0 after MPI_Finalize) is not a failure. */
static void pmix_on_proc_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                               pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                               size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                               void *cbdata)
{
    const pmix_proc_t *p = source;
    int exit_code = -1;

    (void)id;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            info[i].value.type == PMIX_PROC)
            p = info[i].value.data.proc;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT)
            exit_code = info[i].value.data.integer;
    }
    if (p != NULL && PMIX_CHECK_NSPACE(p->nspace, pmix_me.nspace) &&
        p->rank < PMIX_RANK_VALID && p->rank != pmix_me.rank &&
        !(status == PMIX_PROC_TERMINATED && exit_code == 0))
        pmi_note_rank_failed((int)p->rank);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void pmix_watch_failures(void)
{
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_PROC_TERMINATED,
                             PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_EVENT_PROC_TERMINATED};
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], NULL, 0,
                                                   pmix_on_proc_event, NULL, NULL);
    if (rc < 0)
        LOG_INFO("PMIx: no notification of failed processes (%s): a rank that dies is "
                 "noticed by the channels only",
                 PMIx_Error_string(rc));
}

canal_status_t pmix_backend_init(pmi_boot_t *boot_out, int **node_of_out, int *nnodes_out)
{
    pmix_status_t rc = PMIx_Init(&pmix_me, NULL, 0);
    long v;
    canal_status_t st;

    if (rc != PMIX_SUCCESS)
        return common_err_set(CANAL_ERR_PEER,
                              "PMIx_Init failed (%s) although PMIX_NAMESPACE=%s is set: the PMIx "
                              "server of the launcher cannot be reached",
                              PMIx_Error_string(rc), getenv("PMIX_NAMESPACE"));
    boot_out->rank = (int)pmix_me.rank;
    snprintf(boot_out->jobid, sizeof boot_out->jobid, "%s", pmix_me.nspace);
    v = pmix_get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    if (v <= 0) {
        PMIx_Finalize(NULL, 0);
        return common_err_set(CANAL_ERR_PROTO, "PMIx server gave no job size (PMIX_JOB_SIZE)");
    }
    boot_out->size = (int)v;
    v = pmix_get_u32(pmix_me.rank, PMIX_APPNUM);
    boot_out->appnum = v >= 0 ? (int)v : 0;
    {
        pmix_value_t *parent = NULL;
        const char *p = getenv("CANAL_PMI_PARENT");
        boot_out->spawned = PMIx_Get(&pmix_me, PMIX_PARENT_ID, NULL, 0, &parent) == PMIX_SUCCESS ||
                            (p != NULL && strcmp(p, pmix_me.nspace) != 0);
        if (parent != NULL)
            PMIX_VALUE_RELEASE(parent);
    }
    v = pmix_get_u32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE);
    boot_out->universe_size = v > 0 ? (int)v : boot_out->size;
    boot_out->mapping[0] = '\0';
    st = pmix_locality(boot_out->size, node_of_out);
    if (st != CANAL_OK) {
        PMIx_Finalize(NULL, 0);
        return st;
    }
    *nnodes_out = 0; /* pmi.c compacts and counts */
    pmix_watch_failures();
    return CANAL_OK;
}

canal_status_t pmix_backend_put(const char *key, const char *val)
{
    pmix_value_t value;
    pmix_status_t rc;

    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_STRING;
    value.data.string = (char *)val;
    rc = PMIx_Put(PMIX_GLOBAL, key, &value);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "Put");
    return CANAL_OK;
}

canal_status_t pmix_backend_fence(void)
{
    pmix_proc_t wild;
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc = PMIx_Commit();

    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "Commit");
    PMIX_PROC_CONSTRUCT(&wild);
    snprintf(wild.nspace, sizeof wild.nspace, "%s", pmix_me.nspace);
    wild.rank = PMIX_RANK_WILDCARD;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "Fence");
    return CANAL_OK;
}

canal_status_t pmix_backend_get(int rank, const char *key, char *val_out, size_t len)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    canal_status_t st;

    PMIX_PROC_CONSTRUCT(&proc);
    snprintf(proc.nspace, sizeof proc.nspace, "%s", pmix_me.nspace);
    proc.rank = (pmix_rank_t)rank;
    rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMIx key '%s' of rank %d: %s", key, rank,
                              PMIx_Error_string(rc));
    if (val->type != PMIX_STRING || val->data.string == NULL)
        st = common_err_set(CANAL_ERR_PROTO, "PMIx key '%s' of rank %d is not a string", key, rank);
    else
        st = pmi_copy_value(val->data.string, val_out, len);
    PMIX_VALUE_RELEASE(val);
    return st;
}

canal_status_t pmix_backend_publish(const char *service, const char *port)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, service, port, PMIX_STRING);
    rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "Publish");
    return CANAL_OK;
}

canal_status_t pmix_backend_lookup(const char *service, char *port_out, size_t len)
{
    pmix_pdata_t pdata;
    pmix_status_t rc;
    canal_status_t st;

    PMIX_PDATA_CONSTRUCT(&pdata);
    snprintf(pdata.key, sizeof pdata.key, "%s", service);
    rc = PMIx_Lookup(&pdata, 1, NULL, 0);
    if (rc != PMIX_SUCCESS || pdata.value.type != PMIX_STRING || pdata.value.data.string == NULL)
        st = common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    else
        st = pmi_copy_value(pdata.value.data.string, port_out, len);
    PMIX_PDATA_DESTRUCT(&pdata);
    return st;
}

canal_status_t pmix_backend_unpublish(const char *service)
{
    char *keys[2] = {(char *)service, NULL};
    pmix_status_t rc = PMIx_Unpublish(keys, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", service);
    return CANAL_OK;
}

canal_status_t pmix_backend_abort(int code, const char *msg)
{
    PMIx_Abort(code, msg != NULL ? msg : "", NULL, 0);
    return CANAL_OK;
}

canal_status_t pmix_backend_finalize(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_fail(rc, "Finalize");
    return CANAL_OK;
}

canal_status_t pmix_backend_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                                  const char *const *keys, const char *const *vals, char *jobid_out,
                                  size_t len)
{
    pmix_app_t *apps;
    pmix_nspace_t nspace;
    pmix_status_t rc;
    canal_status_t st;

    /* PMIx has no preput, and prterun tells a child neither PMIX_PARENT_ID nor
     * PMIX_SPAWNED: the parent's namespace and the preput values travel in
     * the environment of the new processes (read by pmix_backend_init and
     * pmix_backend_get_job). */
    char **env = calloc((size_t)npreput + 2, sizeof(char *));
    if (env == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a PMIx spawn");
    if (asprintf(&env[0], "CANAL_PMI_PARENT=%s", pmix_me.nspace) < 0)
        env[0] = NULL;
    for (int p = 0; p < npreput && env[p] != NULL; p++)
        if (asprintf(&env[p + 1], "CANAL_PMI_PREPUT_%s=%s", keys[p], vals[p]) < 0)
            env[p + 1] = NULL;
    PMIX_APP_CREATE(apps, (size_t)ncmds);
    if (apps == NULL) {
        for (int p = 0; p <= npreput; p++)
            free(env[p]);
        free(env);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for %d PMIx apps", ncmds);
    }
    st = CANAL_OK;
    for (int p = 0; p <= npreput; p++)
        if (env[p] == NULL)
            st = common_err_set(CANAL_ERR_NOMEM, "no memory for the environment of a spawn");
    for (int i = 0; i < ncmds && st == CANAL_OK; i++) {
        int argc = 0;
        while (cmds[i].argv != NULL && cmds[i].argv[argc] != NULL)
            argc++;
        apps[i].cmd = strdup(cmds[i].command);
        apps[i].argv = calloc((size_t)argc + 2, sizeof(char *));
        if (apps[i].cmd == NULL || apps[i].argv == NULL) {
            st = common_err_set(CANAL_ERR_NOMEM, "no memory for a PMIx app");
            break;
        }
        apps[i].argv[0] = strdup(cmds[i].command);
        for (int a = 0; a < argc; a++)
            apps[i].argv[a + 1] = strdup(cmds[i].argv[a]);
        apps[i].maxprocs = cmds[i].maxprocs;
        apps[i].env = calloc((size_t)npreput + 2, sizeof(char *));
        if (apps[i].env == NULL) {
            st = common_err_set(CANAL_ERR_NOMEM, "no memory for a PMIx app");
            break;
        }
        for (int p = 0; p <= npreput; p++)
            apps[i].env[p] = strdup(env[p]);
        for (int n = 0; n < cmds[i].ninfo; n++)
            if (strcmp(cmds[i].info_keys[n], "wdir") == 0)
                apps[i].cwd = strdup(cmds[i].info_vals[n]);
    }
    if (st == CANAL_OK) {
        rc = PMIx_Spawn(NULL, 0, apps, (size_t)ncmds, nspace);
        if (rc != PMIX_SUCCESS)
            st = pmix_fail(rc, "Spawn");
        else
            st = pmi_copy_value(nspace, jobid_out, len);
    }
    PMIX_APP_FREE(apps, (size_t)ncmds);
    for (int p = 0; p <= npreput; p++)
        free(env[p]);
    free(env);
    return st;
}

canal_status_t pmix_backend_get_job(const char *key, char *val_out, size_t len)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL, *parent = NULL;
    canal_status_t st;

    char name[PMI_KEY_MAX + 32];
    const char *e;

    snprintf(name, sizeof name, "CANAL_PMI_PREPUT_%s", key);
    if ((e = getenv(name)) != NULL)
        return pmi_copy_value(e, val_out, len);
    PMIX_PROC_CONSTRUCT(&wild);
    snprintf(wild.nspace, sizeof wild.nspace, "%s", pmix_me.nspace);
    wild.rank = PMIX_RANK_WILDCARD;
    /* a PMIx server that knows the parent may hold the value there */
    if (PMIx_Get(&pmix_me, PMIX_PARENT_ID, NULL, 0, &parent) == PMIX_SUCCESS && parent != NULL &&
        parent->type == PMIX_PROC && parent->data.proc != NULL &&
        PMIx_Get(parent->data.proc, key, NULL, 0, &val) == PMIX_SUCCESS) {
        PMIX_VALUE_RELEASE(parent);
    } else {
        if (parent != NULL)
            PMIX_VALUE_RELEASE(parent);
        val = NULL;
        if (PMIx_Get(&wild, key, NULL, 0, &val) != PMIX_SUCCESS)
            val = NULL;
    }
    if (val == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND, "PMIx job key '%s' not found", key);
    if (val->type != PMIX_STRING || val->data.string == NULL)
        st = common_err_set(CANAL_ERR_PROTO, "PMIx job key '%s' is not a string", key);
    else
        st = pmi_copy_value(val->data.string, val_out, len);
    PMIX_VALUE_RELEASE(val);
    return st;
}

#else /* !CANAL_HAVE_PMIX */

static canal_status_t pmix_missing(void)
{
    return common_err_set(CANAL_ERR_UNSUPPORTED, "this Canal was built without PMIx");
}

int pmix_available(void)
{
    return 0;
}
const char *pmix_backend_version(void)
{
    return "(not built)";
}
canal_status_t pmix_backend_init(pmi_boot_t *boot_out, int **node_of_out, int *nnodes_out)
{
    return pmix_missing();
}
canal_status_t pmix_backend_put(const char *key, const char *val)
{
    return pmix_missing();
}
canal_status_t pmix_backend_fence(void)
{
    return pmix_missing();
}
canal_status_t pmix_backend_get(int rank, const char *key, char *val_out, size_t len)
{
    return pmix_missing();
}
canal_status_t pmix_backend_publish(const char *service, const char *port)
{
    return pmix_missing();
}
canal_status_t pmix_backend_lookup(const char *service, char *port_out, size_t len)
{
    return pmix_missing();
}
canal_status_t pmix_backend_unpublish(const char *service)
{
    return pmix_missing();
}
canal_status_t pmix_backend_abort(int code, const char *msg)
{
    return pmix_missing();
}
canal_status_t pmix_backend_finalize(void)
{
    return pmix_missing();
}
canal_status_t pmix_backend_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                                  const char *const *keys, const char *const *vals, char *jobid_out,
                                  size_t len)
{
    return pmix_missing();
}
canal_status_t pmix_backend_get_job(const char *key, char *val_out, size_t len)
{
    return pmix_missing();
}

#endif
