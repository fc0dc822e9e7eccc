/*
 * MPI_Comm_spawn/spawn_multiple and the parent of a spawned job. The root
 * opens a port, checks the commands, asks the process manager (pmi_spawn)
 * to start the programs with the port preput under "canal-parent-port",
 * and accepts; each child's MPI_Init (mpi_dyn_init_parent) connects
 * MPI_COMM_WORLD to that port, and the intercommunicator is what
 * MPI_Comm_get_parent returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/log.h"
#include "dyn/dyn.h"
#include "dyn_impl.h"
#include "mpi/api_impl.h"

static const char parent_port_key[] = "canal-parent-port";

/* The intercommunicator to the parent job (spawned processes), until freed. */
static mpi_comm_t *parent_comm;

/* ---------------------------------------------------------------- spawn */
/* Where `path` (info key "path": directories separated by ':') has an
 * executable called cmd, or NULL. Commands with a '/' are taken as they are. */
static char *path_resolve(const char *cmd, const char *path)
{
    if (path == NULL || strchr(cmd, '/') != NULL)
        return NULL;
    for (const char *p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        char *full = malloc(n + strlen(cmd) + 2);
        if (full == NULL)
            return NULL;
        snprintf(full, n + strlen(cmd) + 2, "%.*s/%s", (int)n, p, cmd);
        if (n > 0 && access(full, X_OK) == 0)
            return full;
        free(full);
        p += n + (e != NULL);
    }
    return NULL;
}

/* Whether cmd names an executable this process can find: absolute, relative
 * to wdir (or the current directory), or on PATH. */
static int exec_findable(const char *cmd, const char *wdir)
{
    char full[4096];
    const char *path;

    if (strchr(cmd, '/') != NULL) {
        if (cmd[0] == '/' || wdir == NULL)
            return access(cmd, X_OK) == 0;
        snprintf(full, sizeof full, "%s/%s", wdir, cmd);
        return access(full, X_OK) == 0;
    }
    if ((path = getenv("PATH")) == NULL)
        return 0;
    for (const char *p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        snprintf(full, sizeof full, "%.*s/%s", (int)n, n > 0 ? p : ".", cmd);
        if (access(full, X_OK) == 0)
            return 1;
        p += n + (e != NULL);
    }
    return 0;
}

/* What a spawn hands pmi_spawn: a command each, with its launcher info
 * pairs, and the pairs preput into the children's key-value space. */
typedef struct {
    pmi_spawn_cmd_t *cmds;
    const char **keys, **vals; /* per command at most two pairs: wdir and host */
    char **resolved;           /* commands found on the info key path */
    /* Preput: the port, and per command its mpi_memory_alloc_kinds and
     * mpi_initial_errhandler (mpi/envkeys.c) */
    const char **pkey, **pval;
    char (*pstore)[96];
    int npre;
} spawn_plan_t;

static int spawn_plan_alloc(spawn_plan_t *pl, int count)
{
    memset(pl, 0, sizeof *pl);
    pl->cmds = calloc((size_t)count, sizeof *pl->cmds);
    pl->keys = calloc((size_t)count * 2 + 1, sizeof *pl->keys);
    pl->vals = calloc((size_t)count * 2 + 1, sizeof *pl->vals);
    pl->resolved = calloc((size_t)count + 1, sizeof *pl->resolved);
    pl->pkey = calloc((size_t)count * 2 + 1, sizeof *pl->pkey);
    pl->pval = calloc((size_t)count * 2 + 1, sizeof *pl->pval);
    pl->pstore = calloc((size_t)count * 2 + 1, sizeof *pl->pstore);
    pl->npre = 1;
    return pl->cmds != NULL && pl->keys != NULL && pl->vals != NULL && pl->resolved != NULL &&
           pl->pkey != NULL && pl->pval != NULL && pl->pstore != NULL;
}

static void spawn_plan_free(spawn_plan_t *pl, int count)
{
    for (int i = 0; pl->resolved != NULL && i < count; i++)
        free(pl->resolved[i]);
    free(pl->resolved);
    free(pl->cmds);
    free(pl->keys);
    free(pl->vals);
    free(pl->pkey);
    free(pl->pval);
    free(pl->pstore);
}

/* Command i of a spawn and its arguments: MPI_SUCCESS (*total counts its
 * processes) or an error class with why. */
static int spawn_cmd_check(int i, const char *command, int maxprocs, MPI_Info info, int *total,
                           char *why, size_t whylen)
{
    if (command == NULL || command[0] == '\0') {
        snprintf(why, whylen, "command %d is NULL or empty", i);
        return MPI_ERR_SPAWN;
    }
    if (maxprocs < 1) {
        snprintf(why, whylen, "maxprocs=%d for command %d ('%.60s') is not positive", maxprocs, i,
                 command);
        return MPI_ERR_SPAWN;
    }
    if (*total > INT32_MAX - maxprocs) {
        snprintf(why, whylen, "too many processes");
        return MPI_ERR_SPAWN;
    }
    *total += maxprocs;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info)) {
        snprintf(why, whylen, "info=%#x for command %d is not a valid info object",
                 (unsigned)info, i);
        return MPI_ERR_INFO;
    }
    return MPI_SUCCESS;
}

/* Slot i of the plan for a checked command. The reserved info keys the
 * launcher can honour: wdir, host (Canal's mpiexec across hosts places the
 * children there), and path (done here); mpi_memory_alloc_kinds and
 * mpi_initial_errhandler reach the children through the key-value space.
 * arch, file and soft are ignored, as the standard allows. */
static int spawn_cmd_plan(spawn_plan_t *pl, int i, char *command, char **argv, int maxprocs,
                          MPI_Info info, char *why, size_t whylen)
{
    pmi_spawn_cmd_t *cmd = &pl->cmds[i];
    const char *wdir = NULL, *path = NULL, *host = NULL;
    int err;

    if (info != MPI_INFO_NULL) {
        wdir = mpi_info_lookup(info, "wdir");
        path = mpi_info_lookup(info, "path");
        host = mpi_info_lookup(info, "host");
    }
    if ((err = mpi_spawn_keys_preput(info, i, pl->pkey, pl->pval, &pl->npre, pl->pstore, why,
                                     whylen)) != MPI_SUCCESS)
        return err;
    cmd->command = command;
    if (path != NULL && (pl->resolved[i] = path_resolve(command, path)) != NULL)
        cmd->command = pl->resolved[i];
    /* Some launchers (Hydra) answer a spawn before the programs run, so
     * a missing one would leave the parent waiting: look first. */
    if (common_cvar_bool("SPAWN_CHECK") && !exec_findable(cmd->command, wdir)) {
        snprintf(why, whylen,
                 "cannot find an executable '%.100s'%s (command %d; CANAL_SPAWN_CHECK=0 "
                 "leaves the search to the launcher)",
                 cmd->command,
                 strchr(cmd->command, '/') != NULL ? "" : " in PATH or the info key path", i);
        return MPI_ERR_SPAWN;
    }
    cmd->argv = (const char *const *)argv;
    cmd->maxprocs = maxprocs;
    cmd->info_keys = pl->keys + 2 * i;
    cmd->info_vals = pl->vals + 2 * i;
    if (wdir != NULL) {
        pl->keys[2 * i + cmd->ninfo] = "wdir";
        pl->vals[2 * i + cmd->ninfo++] = wdir;
    }
    if (host != NULL) {
        pl->keys[2 * i + cmd->ninfo] = "host";
        pl->vals[2 * i + cmd->ninfo++] = host;
    }
    return MPI_SUCCESS;
}

/* The root's part of a spawn: check the commands, start them with the port
 * preput. MPI_SUCCESS, or an error class with why. */
static int spawn_start(int count, char *commands[], char **argvs[], const int maxprocs[],
                       const MPI_Info infos[], const char *port, int *total_out, char *why,
                       size_t whylen)
{
    spawn_plan_t pl;
    char jobid[256];
    int err = MPI_SUCCESS, total = 0;
    canal_status_t st;

    if (!spawn_plan_alloc(&pl, count)) {
        snprintf(why, whylen, "out of memory");
        err = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 0; i < count; i++) {
        MPI_Info info = infos != NULL ? infos[i] : MPI_INFO_NULL;
        if ((err = spawn_cmd_check(i, commands[i], maxprocs[i], info, &total, why, whylen)) !=
                MPI_SUCCESS ||
            (err = spawn_cmd_plan(&pl, i, commands[i], argvs != NULL ? argvs[i] : NULL,
                                  maxprocs[i], info, why, whylen)) != MPI_SUCCESS)
            goto out;
    }
    adi_lock();
    pl.pkey[0] = parent_port_key;
    pl.pval[0] = port;
    st = pmi_spawn(count, pl.cmds, pl.npre, pl.pkey, pl.pval, jobid, sizeof jobid);
    adi_unlock();
    if (st < 0) {
        snprintf(why, whylen, "%s", common_err_detail());
        err = MPI_ERR_SPAWN;
    }
out:
    spawn_plan_free(&pl, count);
    *total_out = total;
    return err;
}

/* The processes a spawn asked for, as far as maxprocs[] is valid: a failed
 * spawn gives each of them an error code (MPI 4.0 10.3.3), not only those of
 * the commands before the failing one. */
static int spawn_requested(int count, const int maxprocs[])
{
    int total = 0;
    for (int i = 0; i < count && maxprocs[i] >= 1 && total <= INT32_MAX - maxprocs[i]; i++)
        total += maxprocs[i];
    return total;
}

static _Thread_local int spawn_codes;
int mpi_spawn_codes_written(void) { return spawn_codes; }

static int spawn_common(int count, char *commands[], char **argvs[], const int maxprocs[],
                        const MPI_Info infos[], int root, mpi_comm_t *c, MPI_Comm *intercomm,
                        int errcodes[], const char *fn)
{
    MPI_Comm comm = c->handle;
    char port[MPI_MAX_PORT_NAME] = "";
    struct {
        int status, total;
        char why[DYN_WHY];
    } res;
    int err;

    spawn_codes = 0;
    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator; %s needs an "
                            "intracommunicator", (unsigned)comm, fn);
    if (root < 0 || root >= c->size)
        return mpi_err_fail(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    memset(&res, 0, sizeof res);
    adi_cpus_shared(); /* (the children start on this node's CPUs) */
    if (c->rank == root) {
        if (count < 1) {
            res.status = MPI_ERR_ARG;
            snprintf(res.why, sizeof res.why, "count=%d is not positive", count);
        } else if (commands == NULL || maxprocs == NULL) {
            res.status = MPI_ERR_ARG;
            snprintf(res.why, sizeof res.why, "%s is NULL",
                     commands == NULL ? "the command array" : "the maxprocs array");
        } else if ((res.status = dyn_port_open(port, fn, res.why, sizeof res.why)) == MPI_SUCCESS) {
            res.status = spawn_start(count, commands, argvs, maxprocs, infos, port, &res.total,
                                     res.why, sizeof res.why);
            if (res.status != MPI_SUCCESS)
                res.total = spawn_requested(count, maxprocs);
        }
    }
    if ((err = dyn_bcast(&res, sizeof res, MPI_BYTE, root, c, fn)) != MPI_SUCCESS)
        return err;
    if (errcodes != MPI_ERRCODES_IGNORE) {
        for (int i = 0; i < res.total; i++)
            errcodes[i] = res.status;
        spawn_codes = res.total;
    }
    if (res.status != MPI_SUCCESS) {
        dyn_port_t *p = port[0] ? dyn_port_find(port, 1) : NULL;
        if (p != NULL)
            dyn_port_free(p);
        *intercomm = MPI_COMM_NULL;
        return mpi_err_fail(c, res.status, fn, "%s",
                            c->rank == root ? res.why : "the root failed to spawn; see its error");
    }
    {
        dyn_port_t *p = c->rank == root ? dyn_port_find(port, 1) : NULL;
        long long t = common_cvar_int("SPAWN_TIMEOUT");
        err = dyn_accept_on(p, "internal port lost", t > 0 ? (double)t : -1, root, c, intercomm, fn);
        if (p != NULL)
            dyn_port_free(p);
        if (err != MPI_SUCCESS && errcodes != MPI_ERRCODES_IGNORE)
            for (int i = 0; i < res.total; i++)
                errcodes[i] = MPI_ERR_SPAWN;
    }
    return err;
}

int mpi_comm_spawn_impl(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                        mpi_comm_t *comm, MPI_Comm *intercomm, int array_of_errcodes[],
                        const char *fn)
{
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    int np[1] = {maxprocs};
    MPI_Info infos[1] = {info};

    return spawn_common(1, cmds, argv != MPI_ARGV_NULL ? argvs : NULL, np, infos, root, comm,
                        intercomm, array_of_errcodes, fn);
}

int mpi_comm_spawn_multiple_impl(int count, char *array_of_commands[], char **array_of_argv[],
                                 const int array_of_maxprocs[], const MPI_Info array_of_info[],
                                 int root, mpi_comm_t *comm, MPI_Comm *intercomm,
                                 int array_of_errcodes[], const char *fn)
{
    return spawn_common(count, array_of_commands,
                        array_of_argv != MPI_ARGVS_NULL ? array_of_argv : NULL, array_of_maxprocs,
                        array_of_info, root, comm, intercomm, array_of_errcodes, fn);
}

/* ---------------------------------------------------------------- the parent */
static void parent_free_hook(mpi_comm_t *c)
{
    if (c == parent_comm)
        parent_comm = NULL;
}

/* Called by MPI_Init once everything else is up: a spawned job connects its
 * MPI_COMM_WORLD to the port its parent preput. */
int mpi_dyn_init_parent(void)
{
    static const char fn[] = "MPI_Init";
    char port[PMI_VAL_MAX];
    MPI_Comm pc = MPI_COMM_NULL;
    int err;

    mpi_comm_add_free_hook(parent_free_hook);
    if (!pmi_spawned())
        return MPI_SUCCESS;
    if (pmi_get_job(parent_port_key, port, sizeof port) < 0) {
        LOG_WARN("this job was spawned, but not by Canal's MPI_Comm_spawn (no %s): "
                 "MPI_Comm_get_parent gives MPI_COMM_NULL",
                 parent_port_key);
        return MPI_SUCCESS;
    }
    err = dyn_connect_to(port, MPI_INFO_NULL, 1, 0, &mpi_comm_world_obj, &pc, fn);
    if (err == MPI_SUCCESS) {
        parent_comm = mpi_comm_get(pc);
        /* MPI 4.0 11.8.2: its name, as MPI_COMM_WORLD's is "MPI_COMM_WORLD" */
        snprintf(parent_comm->name, sizeof parent_comm->name, "MPI_COMM_PARENT");
    }
    return err;
}

int mpi_comm_get_parent_impl(MPI_Comm *parent, const char *fn)
{
    *parent = parent_comm != NULL ? parent_comm->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
