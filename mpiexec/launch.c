/*
 * Starting the ranks of a job on the local host: the environment of each
 * process (-genv*, -env*, and the PMI variables Hydra sets), pipes for its
 * output, a socketpair for PMI, CPU binding (planned in mpiexec/bind.c), and
 * fork/exec. Each rank leads its own process group so that signals and
 * teardown reach whatever it started.
 * Called once by main() in mpiexec/mpiexec.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"

extern char **environ;

/* Variables of an outer launcher must not reach the ranks: they would make the
 * PMI client choose that launcher instead of us. */
static int env_is_launcher(const char *kv)
{
    return strncmp(kv, "PMI_", 4) == 0 || strncmp(kv, "PMIX_", 5) == 0 ||
           strncmp(kv, "CANAL_PMI_PARENT=", 17) == 0 || strncmp(kv, "CANAL_PMI_PREPUT_", 17) == 0 ||
           strncmp(kv, "MPI_LOCALNRANKS=", 16) == 0 || strncmp(kv, "MPI_LOCALRANKID=", 16) == 0;
}

static int name_in_list(const char *kv, const char *list)
{
    size_t n = strcspn(kv, "=");
    const char *p = list;
    while (p != NULL && *p != '\0') {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, kv, n) == 0)
            return 1;
        p += k;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Set NAME=value in env, replacing an earlier NAME. */
static int env_set(mpx_env_t *env, const char *kv)
{
    size_t n = strcspn(kv, "=");
    for (int i = 0; i < env->n; i++) {
        if (strncmp(env->kv[i], kv, n) == 0 && env->kv[i][n] == '=') {
            char *c = strdup(kv);
            if (c == NULL)
                return -1;
            free(env->kv[i]);
            env->kv[i] = c;
            return 0;
        }
    }
    {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), kv);
        return mpx_env_add(env, name, kv[n] == '=' ? kv + n + 1 : "");
    }
}

/* The environment every rank of a segment shares. */
int mpx_segment_env(const mpx_opts_t *o, const mpx_segment_t *s, mpx_env_t *out)
{
    mpx_env_mode_t mode = s->env_mode != MPX_ENV_DEFAULT ? s->env_mode : o->genv_mode;
    const char *list = s->env_mode == MPX_ENV_LIST ? s->envlist : o->genvlist;

    memset(out, 0, sizeof *out);
    for (char **e = environ; *e != NULL; e++) {
        if (env_is_launcher(*e) || strchr(*e, '=') == NULL)
            continue;
        if (mode == MPX_ENV_NONE || (mode == MPX_ENV_LIST && !name_in_list(*e, list)))
            continue;
        if (env_set(out, *e) != 0)
            return -1;
    }
    for (int i = 0; i < o->genv.n; i++)
        if (env_set(out, o->genv.kv[i]) != 0)
            return -1;
    for (int i = 0; i < s->env.n; i++)
        if (env_set(out, s->env.kv[i]) != 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------ start */

/* Expand %r, %h and %% in an output file pattern. */
static void expand_pattern(const char *pat, int rank, const char *host, char *out, size_t len)
{
    size_t k = 0;
    for (const char *p = pat; *p != '\0' && k + 1 < len; p++) {
        char tmp[300];
        const char *ins = NULL;
        if (*p == '%' && p[1] == 'r') {
            snprintf(tmp, sizeof tmp, "%d", rank);
            ins = tmp;
        } else if (*p == '%' && p[1] == 'h') {
            ins = host;
        } else if (*p == '%' && p[1] == '%') {
            ins = "%";
        }
        if (ins != NULL) {
            for (; *ins != '\0' && k + 1 < len; ins++)
                out[k++] = *ins;
            p++;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
}

int mpx_env_add_rank(mpx_env_t *env, const char *jobid, int rank, int size, int pmi_fd,
                     int nlocal, int localid)
{
    const struct {
        const char *name;
        int v;
    } nums[] = {{"PMI_RANK", rank},
                {"PMI_SIZE", size},
                {"PMI_FD", pmi_fd},
                {"MPI_LOCALNRANKS", nlocal},
                {"MPI_LOCALRANKID", localid}};
    int rc = mpx_env_add(env, "PMI_JOBID", jobid);
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        char num[32];
        snprintf(num, sizeof num, "%d", nums[k].v);
        rc |= mpx_env_add(env, nums[k].name, num);
    }
    /* This launcher judges the deaths of ranks before a survivor's abort
     * (mpx_job_settle, and MPX_F_SYNC across hosts): a survivor that ends
     * the job because a peer failed need not wait for it (mpi/errors.c),
     * unless the user says otherwise. */
    for (int i = 0; i < env->n; i++)
        if (strncmp(env->kv[i], "CANAL_FAILURE_GRACE=", 20) == 0)
            return rc;
    return rc | mpx_env_add(env, "CANAL_FAILURE_GRACE", "0");
}

int mpx_program_exists(const char *argv0, const char *dir)
{
    char path[4096];
    const char *pathenv;

    if (strchr(argv0, '/') != NULL) {
        if (argv0[0] != '/' && dir != NULL)
            snprintf(path, sizeof path, "%s/%s", dir, argv0);
        else
            snprintf(path, sizeof path, "%s", argv0);
        return access(path, X_OK) == 0;
    }
    pathenv = getenv("PATH");
    if (pathenv == NULL)
        pathenv = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = pathenv; *p != '\0';) {
        size_t n = strcspn(p, ":");
        struct stat sb;
        snprintf(path, sizeof path, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", argv0);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0)
            return 1;
        p += n;
        if (*p == ':')
            p++;
    }
    return 0;
}

/* Is pid (a child of ours) exiting: a zombie, or past the start of its exit
 * (PF_EXITING in the flags of /proc/PID/stat)? A process that was killed has
 * closed its sockets only once it is there: a peer that saw them close and
 * aborted finds it at least exiting. */
static int pid_exiting(pid_t pid)
{
    enum { PF_EXITING_FLAG = 0x4 };
    char path[64], buf[1024], state = 0;
    unsigned long flags = 0;
    const char *p;
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command may hold blanks and parentheses */
    if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return 0;
    return state == 'Z' || state == 'X' || (flags & PF_EXITING_FLAG) != 0;
}

int mpx_reap_if_exiting(pid_t pid, int *status)
{
    struct timespec step = {0, 1000 * 1000};
    /* the kernel takes microseconds to finish an exit; 5 s bounds a stuck one */
    for (int i = 0; i < 5000; i++) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 1;
        if (w < 0 || !pid_exiting(pid))
            return 0;
        nanosleep(&step, NULL);
    }
    return 0;
}

int mpx_signals_open(int forward_user)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    if (forward_user) {
        sigaddset(&mask, SIGQUIT);
        sigaddset(&mask, SIGUSR1);
        sigaddset(&mask, SIGUSR2);
    }
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

void mpx_child_reset(pid_t parent)
{
    static const int sigs[] = {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
    sigset_t none;

    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    setpgid(0, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
        signal(sigs[k], SIG_DFL);
}

/* In the child, after fork: become the process that exec's the program. */
static void child_exec(mpx_job_t *job, mpx_rank_t *r, int pmi_child, int out_w, int err_w,
                       int in_fd, char **envp, const cpu_set_t *cpus, pid_t launcher)
{
    const mpx_segment_t *s = &job->opts->segs[r->seg];

    /* If mpiexec dies (kill -9), the rank gets SIGTERM, as mpiexec's own
     * teardown would send; a Canal rank replaces this with its PMI watch
     * (pmi/watch.c), which says why. */
    mpx_child_reset(launcher);
    if (in_fd != 0) {
        dup2(in_fd, 0);
        close(in_fd);
    }
    dup2(out_w, 1);
    dup2(err_w, 2);
    fcntl(pmi_child, F_SETFD, 0); /* the one fd the program inherits */
    if (cpus != NULL && sched_setaffinity(0, sizeof *cpus, cpus) != 0)
        fprintf(stderr, "mpiexec: %s: cannot bind: %s\n", mpx_rank_name(job, r), strerror(errno));
    if (s->wdir != NULL && chdir(s->wdir) != 0) {
        fprintf(stderr, "mpiexec: %s: cannot change to directory '%s': %s\n", mpx_rank_name(job, r),
                s->wdir, strerror(errno));
        _exit(127);
    }
    execvpe(s->argv[0], s->argv, envp);
    fprintf(stderr, "mpiexec: %s: cannot run '%s': %s\n", mpx_rank_name(job, r), s->argv[0],
            strerror(errno));
    _exit(127);
}

static int open_pattern_file(const char *pat, int rank, const char *host)
{
    char path[4096];
    expand_pattern(pat, rank, host, path, sizeof path);
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

int mpx_job_add(mpx_job_t *job, int seg0, int size, const char *spawner)
{
    mpx_pmijob_t *pj;
    char kvsname[256];
    int seg = seg0, left, idx;

    if (job->npjobs == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(kvsname, sizeof kvsname, "canal_%.100s_%ld_%lx", job->hostname, (long)getpid(),
                 (unsigned long)(ts.tv_sec * 1000003L + ts.tv_nsec));
    } else {
        snprintf(kvsname, sizeof kvsname, "%.200s_spawn%d", job->pjobs[0].kvsname, job->npjobs);
    }
    idx = mpx_pjob_new(job, kvsname, size, size);
    if (idx < 0)
        return -1;
    pj = &job->pjobs[idx];
    snprintf(pj->spawner, sizeof pj->spawner, "%s", spawner != NULL ? spawner : "");
    snprintf(pj->mapping, sizeof pj->mapping, "(vector,(0,1,%d))", size);
    if (mpx_kvs_put(pj->kvs, "PMI_process_mapping", pj->mapping) != 0)
        return -1;
    left = job->opts->segs[seg].nprocs;
    for (int k = 0; k < size; k++) {
        while (left == 0)
            left = job->opts->segs[++seg].nprocs;
        left--;
        if (mpx_rank_new(job, idx, k, seg, seg - seg0) == NULL)
            return -1;
    }
    return idx;
}

/* Ranks that never started count as exited with status 127. */
static void mark_unstarted(mpx_job_t *job, int pj)
{
    const mpx_pmijob_t *p = &job->pjobs[pj];
    for (int i = p->first; i < p->first + p->size; i++) {
        mpx_rank_t *r = job->ranks[i];
        if (r->pid == 0 && !r->exited) {
            r->exited = 1;
            r->status = 127 << 8;
            job->nexited++;
        }
    }
}

int mpx_launch(mpx_job_t *job, int pj)
{
    static mpx_bind_plan_t plan;
    static int have_plan;
    mpx_opts_t *o = job->opts;
    mpx_pmijob_t *p = &job->pjobs[pj];
    int seg_lo = job->ranks[p->first]->seg, seg_hi = job->ranks[p->first + p->size - 1]->seg;
    mpx_env_t *segenv = calloc((size_t)(seg_hi - seg_lo + 1), sizeof *segenv);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int rc = 0;
    pid_t launcher = getpid();

    if (segenv == NULL || devnull < 0)
        goto fail;
    for (int s = seg_lo; s <= seg_hi; s++) {
        if (!mpx_program_exists(o->segs[s].argv[0], o->segs[s].wdir)) {
            fprintf(stderr, "mpiexec: cannot find an executable '%s'%s%s\n", o->segs[s].argv[0],
                    strchr(o->segs[s].argv[0], '/') ? "" : " in PATH",
                    o->segs[s].wdir != NULL ? " (from -wdir)" : "");
            goto fail;
        }
        if (mpx_segment_env(o, &o->segs[s], &segenv[s - seg_lo]) != 0)
            goto fail;
    }
    if (!have_plan) {
        if (mpx_bind_plan(o, &plan) != 0) {
            if (o->bind != MPX_BIND_AUTO) {
                fprintf(stderr, "mpiexec: cannot read the CPU topology for -bind-to\n");
                goto fail;
            }
            plan.n = 0; /* (auto: then unbound) */
        } else if (o->bind == MPX_BIND_AUTO) {
            mpx_bind_auto(o, &plan, p->size, pj > 0,
                          mpx_bind_threads(segenv, seg_hi - seg_lo + 1));
        }
        have_plan = 1;
    } else if (o->bind == MPX_BIND_AUTO && pj > 0 && plan.n > 0) {
        /* (spawned ranks: unbound, the kernel places them; the first
         * job's cores stay held) */
        free(plan.sets);
        plan.sets = NULL;
        plan.n = 0;
    }
    /* Output files named by a pattern start empty; ranks then append. */
    for (int i = p->first; pj == 0 && i < p->first + p->size; i++) {
        const char *pats[2] = {o->outpat, o->errpat};
        for (int k = 0; k < 2; k++) {
            char path[4096];
            int fd;
            if (pats[k] == NULL)
                continue;
            expand_pattern(pats[k], i, job->hostname, path, sizeof path);
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0) {
                fprintf(stderr, "mpiexec: cannot create output file '%s': %s\n", path,
                        strerror(errno));
                goto fail;
            }
            close(fd);
        }
    }

    for (int i = p->first; i < p->first + p->size && rc == 0; i++) {
        mpx_rank_t *r = job->ranks[i];
        mpx_env_t *base = &segenv[r->seg - seg_lo];
        int sv[2], outp[2] = {-1, -1}, errp[2] = {-1, -1}, in_fd;
        mpx_env_t env;
        pid_t pid;

        /* the segment's environment plus this rank's PMI variables */
        env.n = base->n;
        env.cap = base->n + 8;
        env.kv = malloc((size_t)env.cap * sizeof(char *));
        if (env.kv == NULL)
            goto fail;
        memcpy(env.kv, base->kv, (size_t)env.n * sizeof(char *));
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            fprintf(stderr, "mpiexec: socketpair: %s\n", strerror(errno));
            free(env.kv);
            goto fail;
        }
        if (o->outpat != NULL)
            outp[1] = open_pattern_file(o->outpat, i, job->hostname);
        else if (pipe2(outp, O_CLOEXEC) != 0)
            outp[1] = -1;
        if (o->errpat != NULL)
            errp[1] = open_pattern_file(o->errpat, i, job->hostname);
        else if (pipe2(errp, O_CLOEXEC) != 0)
            errp[1] = -1;
        if (outp[1] < 0 || errp[1] < 0) {
            fprintf(stderr, "mpiexec: cannot create the output of rank %d: %s\n", i,
                    strerror(errno));
            free(env.kv);
            close(sv[0]);
            close(sv[1]);
            goto fail;
        }
        mpx_env_add_rank(&env, p->kvsname, r->rank, p->size, sv[1], p->size, r->rank);
        /* libfabric pulls in PSM's libinfinipath, whose constructor installs a
         * SIGSEGV backtrace handler; managed runtimes (the JVM) take SIGSEGV
         * in normal operation and die of it. The ofi channel loads libfabric
         * only when it is opened (inside MPI_Init, after the JVM set up its
         * own handlers, which the constructor would then replace): still
         * needed for forced or multi-node ofi. Off unless the user asks. */
        if (getenv("IPATH_NO_BACKTRACE") == NULL)
            mpx_env_add(&env, "IPATH_NO_BACKTRACE", "1");
        if (pj > 0)
            mpx_env_add(&env, "PMI_SPAWNED", "1");
        in_fd = i == 0 && job->stdin_child >= 0 ? job->stdin_child : devnull;

        pid = fork();
        if (pid < 0) {
            fprintf(stderr, "mpiexec: fork for rank %d: %s\n", i, strerror(errno));
            rc = -1;
        } else if (pid == 0) {
            child_exec(job, r, sv[1], outp[1], errp[1], in_fd, env.kv,
                       plan.n > 0 ? &plan.sets[i % plan.n] : NULL, launcher);
        } else {
            setpgid(pid, pid); /* also in the parent, so a kill right away reaches the group */
            r->pid = pid;
            r->pmi_fd = sv[0];
            r->out.fd = outp[0];
            r->err.fd = errp[0];
            mpx_loop_add_rank(job, r);
        }
        close(sv[1]);
        close(outp[1]);
        close(errp[1]);
        if (pid < 0) {
            close(sv[0]);
            close(outp[0]);
            close(errp[0]);
        }
        /* free only the per-rank strings; the segment's are shared */
        for (int k = base->n; k < env.n; k++)
            free(env.kv[k]);
        free(env.kv);
    }
    if (rc != 0)
        goto fail;
    goto done;
fail:
    rc = -1;
    mark_unstarted(job, pj);
done:
    if (devnull >= 0)
        close(devnull);
    if (pj == 0 && job->stdin_child > 0) {
        close(job->stdin_child);
        job->stdin_child = -1;
    }
    for (int s = 0; segenv != NULL && s <= seg_hi - seg_lo; s++) {
        for (int k = 0; k < segenv[s].n; k++)
            free(segenv[s].kv[k]);
        free(segenv[s].kv);
    }
    free(segenv);
    return rc;
}
