/*
 * The PMI client front door (pmi/pmi.h): chooses PMIx, PMI-2, PMI-1 or a
 * singleton start from the environment (or CANAL_PMI), refuses to start as a
 * silent singleton when a launcher is visible but unusable, builds the
 * locality part of pmi_info_t, and routes every call to the chosen backend.
 * Also the singleton backend itself: a process-local key-value table, until
 * its first pmi_spawn starts Canal's mpiexec to serve it (singleton_upgrade).
 * Called by mpi/init.c and the channels.
 */
#include "pmi/pmi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/log.h"
#include "pmi/pmi_impl.h"

#include <pthread.h>

static struct {
    int initialized;
    pmi_kind_t kind;
    int rank, size;
    int spawned;
    char describe[320];
    int key_max, val_max; /* limits of the server, bounded by PMI_KEY_MAX/PMI_VAL_MAX */
    char jobid[256];
} pmi_state = {.key_max = PMI_KEY_MAX, .val_max = PMI_VAL_MAX};

/* ------------------------------------------------------------ singleton */

/* Keys, names and node attributes of a singleton live in a process-local list. */
enum { SINGLETON_KEY = 0, SINGLETON_NAME = 1, SINGLETON_NODE = 2 };
typedef struct singleton_kv {
    struct singleton_kv *next;
    int is_name; /* SINGLETON_KEY, _NAME (published service) or _NODE (node attribute) */
    char key[PMI_KEY_MAX];
    char val[PMI_VAL_MAX];
} singleton_kv_t;

static singleton_kv_t *singleton_list;

static singleton_kv_t *singleton_find(int is_name, const char *key)
{
    for (singleton_kv_t *e = singleton_list; e != NULL; e = e->next)
        if (e->is_name == is_name && strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static canal_status_t singleton_set(int is_name, const char *key, const char *val)
{
    singleton_kv_t *e = singleton_find(is_name, key);
    if (e == NULL) {
        e = calloc(1, sizeof *e);
        if (e == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for a PMI key");
        e->is_name = is_name;
        snprintf(e->key, sizeof e->key, "%s", key);
        e->next = singleton_list;
        singleton_list = e;
    }
    snprintf(e->val, sizeof e->val, "%s", val);
    return CANAL_OK;
}

static canal_status_t singleton_remove(int is_name, const char *key)
{
    for (singleton_kv_t **pp = &singleton_list; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->is_name == is_name && strcmp((*pp)->key, key) == 0) {
            singleton_kv_t *e = *pp;
            *pp = e->next;
            free(e);
            return CANAL_OK;
        }
    }
    return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published", key);
}

static void singleton_boot(pmi_boot_t *boot)
{
    char host[128] = "localhost";
    struct timespec ts;

    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    clock_gettime(CLOCK_REALTIME, &ts);
    boot->rank = 0;
    boot->size = 1;
    boot->appnum = 0;
    boot->universe_size = 1;
    snprintf(boot->jobid, sizeof boot->jobid, "singleton-%s-%ld-%lld%09ld", host, (long)getpid(),
             (long long)ts.tv_sec, ts.tv_nsec);
    boot->mapping[0] = '\0';
}

/* The mpiexec a singleton starts: CANAL_MPIEXEC, else the one installed
 * with this library (<libdir>/../bin, as found from where the library was
 * loaded, then the configured bindir). Fills path or fails with a message. */
static canal_status_t singleton_find_mpiexec(char *path, size_t len)
{
    const char *want = common_cvar_str("MPIEXEC");
    char tried[1024] = "";
    Dl_info dl;

    if (want != NULL && *want != '\0') {
        if (access(want, X_OK) != 0)
            return common_err_set(CANAL_ERR_NOTFOUND, "CANAL_MPIEXEC='%s' is not an executable: %s",
                                  want, strerror(errno));
        snprintf(path, len, "%s", want);
        return CANAL_OK;
    }
    if (dladdr((void *)singleton_find_mpiexec, &dl) != 0 && dl.dli_fname != NULL &&
        strchr(dl.dli_fname, '/') != NULL) {
        const char *slash = strrchr(dl.dli_fname, '/');
        snprintf(path, len, "%.*s/../bin/mpiexec", (int)(slash - dl.dli_fname), dl.dli_fname);
        if (access(path, X_OK) == 0)
            return CANAL_OK;
        snprintf(tried, sizeof tried, "%s, ", path);
    }
#ifdef CANAL_BINDIR
    snprintf(path, len, "%s/mpiexec", CANAL_BINDIR);
    if (access(path, X_OK) == 0)
        return CANAL_OK;
    snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s, ", path);
#endif
    return common_err_set(CANAL_ERR_NOTFOUND,
                          "a singleton (a program started without mpiexec) starts Canal's mpiexec "
                          "to spawn processes, and none was found (tried %sCANAL_MPIEXEC is "
                          "unset): set CANAL_MPIEXEC or start the program with mpiexec",
                          tried);
}

/* In the child of fork(): become mpiexec serving the singleton on fd. A
 * second fork detaches it (init reaps it, not the program, whose SIGCHLD
 * handling and wait() calls stay its own). Only async-signal-safe calls. */
static void singleton_exec(const char *path, char *const argv[], int fd)
{
    static const char msg[] = "canal: cannot run mpiexec for the singleton's MPI_Comm_spawn\n";
    struct sigaction dfl;
    sigset_t none;
    pid_t pid = fork();

    if (pid != 0)
        _exit(pid < 0 ? 1 : 0);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, NULL); /* mpiexec reaps its ranks */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    fcntl(fd, F_SETFD, 0);
    execv(path, argv);
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing more to do: the closed socket tells the singleton */
    }
    _exit(127);
}

/* A singleton's first spawn: start Canal's mpiexec on one end of a socket
 * pair (as Hydra's singleton init does with MPICH), become rank 0 of its
 * one-process job over PMI-2, and hand it what the singleton kept locally
 * (keys, published names, node attributes). From then on this process is a
 * PMI-2 client like any rank mpiexec started. */
static canal_status_t singleton_upgrade(const char *jobid)
{
    char path[4096], fdnum[32], why[512];
    char *argv[5];
    int sv[2], status = 0;
    pid_t pid;
    pmi_endpoint_t ep;
    pmi_boot_t boot;
    canal_status_t st;

    if ((st = singleton_find_mpiexec(path, sizeof path)) != CANAL_OK)
        return st;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return common_err_set(CANAL_ERR_IO, "singleton spawn: socketpair: %s", strerror(errno));
    if (sv[1] < 3) {
        /* a program that closed stdin/out/err got one of them back: mpiexec
         * keeps 0-2 for its output */
        int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 3);
        if (fd < 0) {
            st = common_err_set(CANAL_ERR_IO, "singleton spawn: dup: %s", strerror(errno));
            close(sv[0]);
            close(sv[1]);
            return st;
        }
        close(sv[1]);
        sv[1] = fd;
    }
    snprintf(fdnum, sizeof fdnum, "%d", sv[1]);
    argv[0] = path;
    argv[1] = "-singleton";
    argv[2] = fdnum;
    argv[3] = (char *)jobid;
    argv[4] = NULL;
    pid = fork();
    if (pid < 0) {
        st = common_err_set(CANAL_ERR_IO, "singleton spawn: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return st;
    }
    if (pid == 0) {
        close(sv[0]);
        singleton_exec(path, argv, sv[1]);
    }
    close(sv[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    memset(&ep, 0, sizeof ep);
    ep.fd = sv[0];
    ep.id = -1;
    ep.env_rank = 0;
    ep.env_size = 1;
    memset(&boot, 0, sizeof boot);
    st = pmi2_init(&ep, &boot); /* closes sv[0] when it fails */
    if (st != CANAL_OK) {
        snprintf(why, sizeof why, "%s", common_err_detail()); /* err_set overwrites it */
        return common_err_set(st, "the singleton could not start %s to spawn processes: %s", path,
                              why);
    }
    if (boot.rank != 0 || boot.size != 1) {
        pmi2_finalize();
        return common_err_set(CANAL_ERR_PROTO,
                              "%s serves the singleton as rank %d of %d, not rank 0 of 1", path,
                              boot.rank, boot.size);
    }
    for (singleton_kv_t *e = singleton_list; e != NULL && st == CANAL_OK; e = e->next) {
        if (e->is_name == SINGLETON_KEY)
            st = pmi2_put(e->key, e->val);
        else if (e->is_name == SINGLETON_NAME)
            st = pmi2_publish(e->key, e->val);
        else
            st = pmi2_node_put(e->key, e->val);
    }
    if (st == CANAL_OK)
        st = pmi2_fence();
    if (st != CANAL_OK) {
        snprintf(why, sizeof why, "%s", common_err_detail());
        st = common_err_set(st, "the singleton could not hand its keys to %s: %s", path, why);
        pmi2_finalize();
        return st;
    }
    while (singleton_list != NULL) {
        singleton_kv_t *e = singleton_list;
        singleton_list = e->next;
        free(e);
    }
    pmi_state.kind = PMI_KIND_PMI2;
    snprintf(pmi_state.describe, sizeof pmi_state.describe,
             "PMI-2 over fd %d to the mpiexec this singleton started", sv[0]);
    LOG_INFO("PMI: %s (%s) serves this singleton from now on", pmi_state.describe, path);
    st = pmi_watch_start(pmi2_conn_get(), pmi_state.describe);
    if (st != CANAL_OK)
        LOG_WARN("%s; a dead launcher will not be noticed", common_err_detail());
    return CANAL_OK;
}

/* ------------------------------------------------------------ selection */

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    char *end;
    long x;
    if (v == NULL || *v == '\0')
        return dflt;
    x = strtol(v, &end, 10);
    if (*end != '\0' || x < -1 || x > 1 << 30)
        return dflt;
    return (int)x;
}

/* Any variable whose name starts with prefix; returns its "NAME=value". */
static const char *env_prefixed(const char *prefix)
{
    extern char **environ;
    size_t n = strlen(prefix);
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (strncmp(*e, prefix, n) == 0)
            return *e;
    return NULL;
}

/* The environment shows a launcher but no PMI we can use: say which and why. */
static canal_status_t launcher_unusable(void)
{
    const char *v;

    if ((v = getenv("PMIX_NAMESPACE")) != NULL)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "started by a PMIx launcher (PMIX_NAMESPACE=%s: Open MPI's mpirun, "
                              "prterun or srun --mpi=pmix) but this Canal was built without PMIx; "
                              "rebuild with libpmix-dev, or launch with Canal's mpiexec or "
                              "srun --mpi=pmi2",
                              v);
    if ((v = env_prefixed("PMIX_")) != NULL)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "started by a PMIx launcher (%.60s) but PMIX_NAMESPACE is not set, "
                              "so the PMIx server cannot be reached",
                              v);
    if (env_int("PMI_SIZE", 1) > 1 || getenv("PMI_RANK") != NULL)
        return common_err_set(
            CANAL_ERR_UNSUPPORTED,
            "started by a PMI launcher (PMI_RANK=%s PMI_SIZE=%s) that set neither "
            "PMI_FD nor PMI_PORT, so the PMI server cannot be reached",
            getenv("PMI_RANK") ? getenv("PMI_RANK") : "unset",
            getenv("PMI_SIZE") ? getenv("PMI_SIZE") : "unset");
    if (env_int("SLURM_STEP_NUM_TASKS", 1) > 1)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "started by Slurm's srun as one of %s tasks, but srun provided no "
                              "PMI (no PMI_FD, PMI_PORT or PMIX_NAMESPACE): use srun --mpi=pmi2 "
                              "or srun --mpi=pmix (or MpiDefault in slurm.conf)",
                              getenv("SLURM_STEP_NUM_TASKS"));
    if (env_int("OMPI_COMM_WORLD_SIZE", 1) > 1)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=%s) without a "
                              "PMIx namespace (PMIX_NAMESPACE unset); use a PMIx-enabled mpirun "
                              "or Canal's mpiexec",
                              getenv("OMPI_COMM_WORLD_SIZE"));
    return CANAL_OK;
}

static void endpoint_from_env(pmi_endpoint_t *ep)
{
    const char *port = getenv("PMI_PORT");
    ep->use_port = getenv("PMI_FD") == NULL && port != NULL;
    ep->fd = env_int("PMI_FD", -1);
    snprintf(ep->port, sizeof ep->port, "%s", port != NULL ? port : "");
    ep->id = env_int("PMI_ID", -1);
    ep->env_rank = env_int("PMI_RANK", -1);
    ep->env_size = env_int("PMI_SIZE", -1);
}

static canal_status_t init_wire(int version, int fallback, pmi_boot_t *boot)
{
    pmi_endpoint_t ep;
    canal_status_t st;

    endpoint_from_env(&ep);
    if (!ep.use_port && ep.fd < 0)
        return common_err_set(CANAL_ERR_ARG, "PMI_FD='%s' is not a file descriptor",
                              getenv("PMI_FD"));
    if (version == 2) {
        st = pmi2_init(&ep, boot);
        /* A server that refuses version 2 keeps a PMI_FD connection open for
         * version 1; a PMI_PORT one is reopened by pmi1_init. */
        if (st != CANAL_ERR_UNSUPPORTED || !fallback)
            goto done;
        LOG_INFO("PMI server refused PMI-2, using PMI-1");
    }
    version = 1;
    st = pmi1_init(&ep, boot);
done:
    if (st != CANAL_OK)
        return st;
    pmi_state.kind = version == 2 ? PMI_KIND_PMI2 : PMI_KIND_PMI1;
    if (version == 1) {
        pmi_state.key_max = pmi1_key_max();
        pmi_state.val_max = pmi1_val_max();
    }
    if (ep.use_port)
        snprintf(pmi_state.describe, sizeof pmi_state.describe, "PMI-%d over PMI_PORT=%.200s",
                 version, ep.port);
    else
        snprintf(pmi_state.describe, sizeof pmi_state.describe, "PMI-%d over PMI_FD=%d", version,
                 ep.fd);
    st = pmi_watch_start(version == 2 ? pmi2_conn_get() : pmi1_conn_get(), pmi_state.describe);
    if (st != CANAL_OK)
        LOG_WARN("%s; a dead launcher will not be noticed", common_err_detail());
    return CANAL_OK;
}

/* Renumber node ids in order of first appearance so they are 0..nnodes-1. */
static int compact_nodes(int *node_of, int size)
{
    int nnodes = 0, *map;
    int maxid = 0;

    for (int r = 0; r < size; r++)
        if (node_of[r] > maxid)
            maxid = node_of[r];
    map = malloc(((size_t)maxid + 1) * sizeof *map);
    if (map == NULL)
        return -1;
    for (int i = 0; i <= maxid; i++)
        map[i] = -1;
    for (int r = 0; r < size; r++) {
        if (map[node_of[r]] < 0)
            map[node_of[r]] = nnodes++;
        node_of[r] = map[node_of[r]];
    }
    free(map);
    return nnodes;
}

static canal_status_t fill_locality(pmi_info_t *info, int *node_of)
{
    int me, n = 0;

    info->nnodes = compact_nodes(node_of, info->size);
    if (info->nnodes < 0)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the node map");
    info->node_of = node_of;
    me = node_of[info->rank];
    for (int r = 0; r < info->size; r++)
        n += node_of[r] == me;
    info->local_ranks = malloc((size_t)n * sizeof(int));
    if (info->local_ranks == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the local rank list");
    info->local_size = n;
    n = 0;
    for (int r = 0; r < info->size; r++) {
        if (node_of[r] != me)
            continue;
        if (r == info->rank)
            info->local_rank = n;
        info->local_ranks[n++] = r;
    }
    return CANAL_OK;
}

canal_status_t pmi_init(pmi_info_t *info_out)
{
    const char *want = common_cvar_str("PMI");
    int have_wire = getenv("PMI_FD") != NULL || getenv("PMI_PORT") != NULL;
    pmi_boot_t boot;
    int *node_of = NULL, nnodes = 0;
    canal_status_t st;

    memset(info_out, 0, sizeof *info_out);
    memset(&boot, 0, sizeof boot);
    if (pmi_state.initialized)
        return common_err_set(CANAL_ERR_INTERN, "pmi_init called twice");

    if (strcmp(want, "singleton") == 0) {
        singleton_boot(&boot);
        pmi_state.kind = PMI_KIND_SINGLETON;
    } else if (strcmp(want, "pmix") == 0 ||
               (strcmp(want, "auto") == 0 && getenv("PMIX_NAMESPACE") != NULL)) {
        if (getenv("PMIX_NAMESPACE") == NULL)
            return common_err_set(CANAL_ERR_UNSUPPORTED,
                                  "CANAL_PMI=pmix but PMIX_NAMESPACE is not set: no PMIx server "
                                  "started this process");
        if (!pmix_available())
            return launcher_unusable();
        st = pmix_backend_init(&boot, &node_of, &nnodes);
        if (st != CANAL_OK)
            return st;
        pmi_state.kind = PMI_KIND_PMIX;
        snprintf(pmi_state.describe, sizeof pmi_state.describe, "PMIx %s (namespace %.200s)",
                 pmix_backend_version(), boot.jobid);
    } else if (strcmp(want, "pmi1") == 0 || strcmp(want, "pmi2") == 0) {
        if (!have_wire)
            return common_err_set(CANAL_ERR_UNSUPPORTED,
                                  "CANAL_PMI=%s but neither PMI_FD nor PMI_PORT is set: no PMI "
                                  "launcher started this process",
                                  want);
        st = init_wire(want[3] - '0', 0, &boot);
        if (st != CANAL_OK)
            return st;
    } else if (strcmp(want, "auto") == 0) {
        if (have_wire) {
            /* PMI-1 is the default: Hydra (4.0.2) ignores PMI-2 aborts and
             * answers a PMI-2 kvs-fence without waiting for the other ranks.
             * Slurm's pmi2 plugin (SLURM_JOB_ID) and Canal's mpiexec
             * (PMI_JOBID) are native PMI-2 servers with real fences. */
            int v = getenv("SLURM_JOB_ID") != NULL || getenv("PMI_JOBID") != NULL ? 2 : 1;
            st = init_wire(v, 1, &boot);
            if (st != CANAL_OK)
                return st;
        } else {
            st = launcher_unusable();
            if (st != CANAL_OK)
                return st;
            singleton_boot(&boot);
            pmi_state.kind = PMI_KIND_SINGLETON;
        }
    } else {
        return common_err_set(
            CANAL_ERR_ARG, "CANAL_PMI='%s' is not one of auto, pmix, pmi2, pmi1, singleton", want);
    }
    if (pmi_state.kind == PMI_KIND_SINGLETON)
        snprintf(pmi_state.describe, sizeof pmi_state.describe, "singleton (no launcher)");

    pmi_state.rank = boot.rank;
    pmi_state.size = boot.size;
    snprintf(pmi_state.jobid, sizeof pmi_state.jobid, "%s", boot.jobid);
    pmi_state.spawned = boot.spawned;
    info_out->kind = pmi_state.kind;
    info_out->rank = boot.rank;
    info_out->size = boot.size;
    info_out->appnum = boot.appnum >= 0 ? boot.appnum : 0; /* Slurm's PMI-2 says -1 */
    info_out->universe_size = boot.universe_size > 0 ? boot.universe_size : boot.size;
    snprintf(info_out->jobid, sizeof info_out->jobid, "%s", boot.jobid);

    if (node_of == NULL) {
        node_of = calloc((size_t)boot.size, sizeof *node_of);
        if (node_of == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for the node map of %d ranks",
                                  boot.size);
        /* No mapping from the server: all ranks on one node. */
        if (boot.mapping[0] != '\0' &&
            pmi_wire_parse_mapping(boot.mapping, boot.size, node_of, &nnodes) != CANAL_OK) {
            LOG_WARN("ignoring the launcher's PMI_process_mapping: %s", common_err_detail());
            memset(node_of, 0, (size_t)boot.size * sizeof *node_of);
        }
    }
    st = fill_locality(info_out, node_of);
    if (st != CANAL_OK) {
        free(node_of);
        info_out->node_of = NULL;
        return st;
    }
    pmi_state.initialized = 1;
    common_log_set_rank(boot.rank);
    LOG_INFO("PMI: %s, rank %d of %d, %d on this node, job %s", pmi_state.describe, boot.rank,
             boot.size, info_out->local_size, boot.jobid);
    return CANAL_OK;
}

void pmi_info_free(pmi_info_t *info)
{
    free(info->node_of);
    free(info->local_ranks);
    info->node_of = NULL;
    info->local_ranks = NULL;
}

const char *pmi_describe(void)
{
    return pmi_state.initialized ? pmi_state.describe : "not initialized";
}

/* ------------------------------------------------------------ routing */

/* Keys of all ranks share one namespace on PMI-1/PMI-2 servers, so the wire
 * key carries the rank. */
static canal_status_t wire_key(int rank, const char *key, char *out, size_t len)
{
    int n = snprintf(out, len, "%s-%d", key, rank);
    if (n < 0 || (size_t)n >= len || n >= pmi_state.key_max)
        return common_err_set(CANAL_ERR_LIMIT, "PMI key '%s' is too long (limit %d with the rank)",
                              key, pmi_state.key_max - 1);
    return CANAL_OK;
}

static canal_status_t check_ready(const char *what)
{
    if (!pmi_state.initialized)
        return common_err_set(CANAL_ERR_INTERN, "%s called before pmi_init", what);
    return CANAL_OK;
}

static canal_status_t check_token(const char *what, const char *s, size_t max)
{
    if (s == NULL || *s == '\0')
        return common_err_set(CANAL_ERR_ARG, "PMI %s is empty", what);
    if (strlen(s) >= max)
        return common_err_set(CANAL_ERR_LIMIT, "PMI %s of %zu bytes exceeds the limit %zu", what,
                              strlen(s), max - 1);
    if (!pmi_wire_token_ok(s) || strpbrk(s, "=;") != NULL)
        return common_err_set(CANAL_ERR_ARG,
                              "PMI %s '%.40s' has a blank, '=', ';' or non-printable character",
                              what, s);
    return CANAL_OK;
}

canal_status_t pmi_put(const char *key, const char *value)
{
    char wk[PMI_KEY_MAX + 16];
    canal_status_t st;

    if ((st = check_ready("pmi_put")) != CANAL_OK ||
        (st = check_token("key", key, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    if (value == NULL || strlen(value) >= (size_t)pmi_state.val_max)
        return common_err_set(CANAL_ERR_LIMIT, "PMI value for '%s' is %zu bytes, limit %d", key,
                              value != NULL ? strlen(value) : 0, pmi_state.val_max - 1);
    /* Slurm's PMI-2 server does not undo the ";;" escape, so ';' is refused
     * everywhere: a value that works under one launcher works under all. */
    if (*value != '\0' && (!pmi_wire_token_ok(value) || strchr(value, ';') != NULL))
        return common_err_set(
            CANAL_ERR_ARG, "PMI value for '%s' has a blank, ';' or non-printable character", key);
    if ((st = wire_key(pmi_state.rank, key, wk, sizeof wk)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        return singleton_set(SINGLETON_KEY, wk, value);
    case PMI_KIND_PMI1:
        return pmi1_put(wk, value);
    case PMI_KIND_PMI2:
        return pmi2_put(wk, value);
    case PMI_KIND_PMIX:
        return pmix_backend_put(key, value);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_fence(void)
{
    canal_status_t st = check_ready("pmi_fence");
    if (st != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        return CANAL_OK;
    case PMI_KIND_PMI1:
        return pmi1_fence();
    case PMI_KIND_PMI2:
        return pmi2_fence();
    case PMI_KIND_PMIX:
        return pmix_backend_fence();
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_get(int rank, const char *key, char *value_out, size_t len)
{
    char wk[PMI_KEY_MAX + 16];
    canal_status_t st;

    if ((st = check_ready("pmi_get")) != CANAL_OK ||
        (st = check_token("key", key, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    if (rank < 0 || rank >= pmi_state.size)
        return common_err_set(CANAL_ERR_ARG, "pmi_get: rank %d is not in 0..%d", rank,
                              pmi_state.size - 1);
    if (value_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "pmi_get: no room for the value of '%s'", key);
    if ((st = wire_key(rank, key, wk, sizeof wk)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON: {
        singleton_kv_t *e = singleton_find(SINGLETON_KEY, wk);
        if (e == NULL)
            return common_err_set(CANAL_ERR_NOTFOUND, "PMI key '%s' of rank %d not found", key,
                                  rank);
        return pmi_copy_value(e->val, value_out, len);
    }
    case PMI_KIND_PMI1:
        return pmi1_get(rank, wk, value_out, len);
    case PMI_KIND_PMI2:
        return pmi2_get(rank, wk, value_out, len);
    case PMI_KIND_PMIX:
        return pmix_backend_get(rank, key, value_out, len);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_node_put(const char *key, const char *value)
{
    canal_status_t st;

    if ((st = check_ready("pmi_node_put")) != CANAL_OK ||
        (st = check_token("key", key, PMI_KEY_MAX)) != CANAL_OK ||
        (st = check_token("node attribute value", value, (size_t)pmi_state.val_max)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        return singleton_set(SINGLETON_NODE, key, value);
    case PMI_KIND_PMI2:
        return pmi2_node_put(key, value);
    case PMI_KIND_PMI1:
    case PMI_KIND_PMIX:
        break;
    }
    return common_err_set(CANAL_ERR_UNSUPPORTED, "node attributes need PMI-2 (this is %s)",
                          pmi_state.describe);
}

canal_status_t pmi_node_get(const char *key, int wait, char *value_out, size_t len)
{
    canal_status_t st;

    if ((st = check_ready("pmi_node_get")) != CANAL_OK ||
        (st = check_token("key", key, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    if (value_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "pmi_node_get: no room for the value of '%s'", key);
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON: {
        singleton_kv_t *e = singleton_find(SINGLETON_NODE, key);
        /* alone on the node: waiting for another process would never end */
        if (e == NULL)
            return common_err_set(CANAL_ERR_NOTFOUND, "node attribute '%s' not found", key);
        return pmi_copy_value(e->val, value_out, len);
    }
    case PMI_KIND_PMI2:
        return pmi2_node_get(key, wait, value_out, len);
    case PMI_KIND_PMI1:
    case PMI_KIND_PMIX:
        break;
    }
    return common_err_set(CANAL_ERR_UNSUPPORTED, "node attributes need PMI-2 (this is %s)",
                          pmi_state.describe);
}

canal_status_t pmi_publish(const char *service, const char *port)
{
    canal_status_t st;
    if ((st = check_ready("pmi_publish")) != CANAL_OK ||
        (st = check_token("service name", service, PMI_KEY_MAX)) != CANAL_OK ||
        (st = check_token("port name", port, PMI_VAL_MAX)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        if (singleton_find(SINGLETON_NAME, service) != NULL)
            return common_err_set(CANAL_ERR_ARG, "service name '%s' is already published", service);
        return singleton_set(SINGLETON_NAME, service, port);
    case PMI_KIND_PMI1:
        return pmi1_publish(service, port);
    case PMI_KIND_PMI2:
        return pmi2_publish(service, port);
    case PMI_KIND_PMIX:
        return pmix_backend_publish(service, port);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_lookup(const char *service, char *port_out, size_t len)
{
    canal_status_t st;
    if ((st = check_ready("pmi_lookup")) != CANAL_OK ||
        (st = check_token("service name", service, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON: {
        singleton_kv_t *e = singleton_find(SINGLETON_NAME, service);
        if (e == NULL)
            return common_err_set(CANAL_ERR_NOTFOUND, "service name '%s' is not published",
                                  service);
        return pmi_copy_value(e->val, port_out, len);
    }
    case PMI_KIND_PMI1:
        return pmi1_lookup(service, port_out, len);
    case PMI_KIND_PMI2:
        return pmi2_lookup(service, port_out, len);
    case PMI_KIND_PMIX:
        return pmix_backend_lookup(service, port_out, len);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_unpublish(const char *service)
{
    canal_status_t st;
    if ((st = check_ready("pmi_unpublish")) != CANAL_OK ||
        (st = check_token("service name", service, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        return singleton_remove(SINGLETON_NAME, service);
    case PMI_KIND_PMI1:
        return pmi1_unpublish(service);
    case PMI_KIND_PMI2:
        return pmi2_unpublish(service);
    case PMI_KIND_PMIX:
        return pmix_backend_unpublish(service);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

/* A string that every launcher carries unchanged: printable, no ';'. */
static canal_status_t check_spawn_text(const char *what, const char *s)
{
    if (s == NULL || *s == '\0')
        return common_err_set(CANAL_ERR_ARG, "pmi_spawn: empty %s", what);
    if (strlen(s) >= PMI_VAL_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "pmi_spawn: %s of %zu bytes is too long", what,
                              strlen(s));
    for (const char *p = s; *p != '\0'; p++)
        if (*p < ' ' || *p > '~' || *p == ';')
            return common_err_set(CANAL_ERR_ARG,
                                  "pmi_spawn: %s '%.40s' has ';' or a non-printable character",
                                  what, s);
    return CANAL_OK;
}

/* A program argument is any C string, the empty one included (the standard
 * allows it; mpi4py passes one): each backend carries it exactly or refuses
 * what its wire cannot carry (a newline in a PMI-1 spawn line). */
static canal_status_t check_spawn_arg(int cmd, int arg, const char *s)
{
    if (s == NULL)
        return common_err_set(CANAL_ERR_ARG, "pmi_spawn: argument %d of command %d is NULL", arg,
                              cmd);
    if (strlen(s) >= PMI_VAL_MAX)
        return common_err_set(CANAL_ERR_LIMIT,
                              "pmi_spawn: argument %d of command %d is %zu bytes long (limit %d)",
                              arg, cmd, strlen(s), PMI_VAL_MAX - 1);
    return CANAL_OK;
}

canal_status_t pmi_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                         const char *const *preput_keys, const char *const *preput_vals,
                         char *jobid_out, size_t len)
{
    canal_status_t st;

    if ((st = check_ready("pmi_spawn")) != CANAL_OK)
        return st;
    if (ncmds < 1 || cmds == NULL || npreput < 0 ||
        (npreput > 0 && (preput_keys == NULL || preput_vals == NULL)))
        return common_err_set(CANAL_ERR_ARG, "pmi_spawn: %d commands, %d preput values", ncmds,
                              npreput);
    if (jobid_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "pmi_spawn: no room for the job id");
    for (int i = 0; i < ncmds; i++) {
        if (cmds[i].maxprocs < 1)
            return common_err_set(CANAL_ERR_ARG, "pmi_spawn: command %d asks for %d processes", i,
                                  cmds[i].maxprocs);
        if ((st = check_spawn_text("command", cmds[i].command)) != CANAL_OK)
            return st;
        for (int a = 0; cmds[i].argv != NULL && cmds[i].argv[a] != NULL; a++)
            if ((st = check_spawn_arg(i, a, cmds[i].argv[a])) != CANAL_OK)
                return st;
        for (int n = 0; n < cmds[i].ninfo; n++)
            if ((st = check_spawn_text("info key", cmds[i].info_keys[n])) != CANAL_OK ||
                (st = check_spawn_text("info value", cmds[i].info_vals[n])) != CANAL_OK)
                return st;
    }
    for (int p = 0; p < npreput; p++)
        if ((st = check_token("preput key", preput_keys[p], PMI_KEY_MAX)) != CANAL_OK ||
            (st = check_spawn_text("preput value", preput_vals[p])) != CANAL_OK)
            return st;
    jobid_out[0] = '\0';
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        if ((st = singleton_upgrade(pmi_state.jobid)) != CANAL_OK)
            return st;
        return pmi2_spawn(ncmds, cmds, npreput, preput_keys, preput_vals, jobid_out, len);
    case PMI_KIND_PMI1:
        return pmi1_spawn(ncmds, cmds, npreput, preput_keys, preput_vals, jobid_out, len);
    case PMI_KIND_PMI2:
        return pmi2_spawn(ncmds, cmds, npreput, preput_keys, preput_vals, jobid_out, len);
    case PMI_KIND_PMIX:
        return pmix_backend_spawn(ncmds, cmds, npreput, preput_keys, preput_vals, jobid_out, len);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

canal_status_t pmi_get_job(const char *key, char *value_out, size_t len)
{
    canal_status_t st;

    if ((st = check_ready("pmi_get_job")) != CANAL_OK ||
        (st = check_token("key", key, PMI_KEY_MAX)) != CANAL_OK)
        return st;
    if (value_out == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "pmi_get_job: no room for the value of '%s'", key);
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        return common_err_set(CANAL_ERR_NOTFOUND, "job key '%s': a singleton has none", key);
    case PMI_KIND_PMI1:
        return pmi1_get(-1, key, value_out, len);
    case PMI_KIND_PMI2:
        return pmi2_get(-1, key, value_out, len);
    case PMI_KIND_PMIX:
        return pmix_backend_get_job(key, value_out, len);
    }
    return common_err_set(CANAL_ERR_INTERN, "unknown PMI kind %d", pmi_state.kind);
}

int pmi_spawned(void)
{
    return pmi_state.initialized && pmi_state.spawned;
}

/* Ranks the launcher reported failed, for a handler set later (the device
 * sets it in adi_init; a report may come before). */
static struct {
    pthread_mutex_t lock;
    void (*fn)(int rank);
    int *early;
    int nearly, capearly;
} failed_reports = {.lock = PTHREAD_MUTEX_INITIALIZER};

void pmi_note_rank_failed(int rank)
{
    void (*fn)(int) = NULL;

    pthread_mutex_lock(&failed_reports.lock);
    fn = failed_reports.fn;
    if (fn == NULL) {
        if (failed_reports.nearly == failed_reports.capearly) {
            int cap = failed_reports.capearly ? 2 * failed_reports.capearly : 16;
            int *a = realloc(failed_reports.early, sizeof *a * (size_t)cap);
            if (a != NULL) {
                failed_reports.early = a;
                failed_reports.capearly = cap;
            }
        }
        if (failed_reports.nearly < failed_reports.capearly)
            failed_reports.early[failed_reports.nearly++] = rank;
    }
    pthread_mutex_unlock(&failed_reports.lock);
    LOG_INFO("PMI: the launcher reports that rank %d failed", rank);
    if (fn != NULL)
        fn(rank);
}

void pmi_set_rank_failed_handler(void (*fn)(int rank))
{
    int *early, n;

    pthread_mutex_lock(&failed_reports.lock);
    failed_reports.fn = fn;
    early = failed_reports.early;
    n = failed_reports.nearly;
    failed_reports.early = NULL;
    failed_reports.nearly = failed_reports.capearly = 0;
    pthread_mutex_unlock(&failed_reports.lock);
    for (int i = 0; fn != NULL && i < n; i++)
        fn(early[i]);
    free(early);
}

canal_status_t pmi_abort(int code, const char *msg)
{
    /* A singleton without a launcher just exits (the caller said why); one
     * that started mpiexec to spawn asks it to end the spawned jobs too. */
    if (!pmi_state.initialized || pmi_state.kind == PMI_KIND_SINGLETON)
        _exit(code);
    if (msg != NULL && *msg != '\0')
        LOG_ERR("aborting the job with exit code %d: %s", code, msg);
    pmi_watch_stop(0); /* the launcher closes the connection to end the job */
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        _exit(code);
    case PMI_KIND_PMI1:
        return pmi1_abort(code, msg);
    case PMI_KIND_PMI2:
        return pmi2_abort(code, msg);
    case PMI_KIND_PMIX:
        pmix_backend_abort(code, msg);
        _exit(code);
    }
    _exit(code);
}

canal_status_t pmi_finalize(void)
{
    canal_status_t st = CANAL_OK;

    if (!pmi_state.initialized)
        return CANAL_OK;
    pmi_watch_stop(1); /* some launchers close the connection after finalize */
    switch (pmi_state.kind) {
    case PMI_KIND_SINGLETON:
        while (singleton_list != NULL) {
            singleton_kv_t *e = singleton_list;
            singleton_list = e->next;
            free(e);
        }
        break;
    case PMI_KIND_PMI1:
        st = pmi1_finalize();
        break;
    case PMI_KIND_PMI2:
        st = pmi2_finalize();
        break;
    case PMI_KIND_PMIX:
        st = pmix_backend_finalize();
        break;
    }
    pmi_state.initialized = 0;
    return st;
}
