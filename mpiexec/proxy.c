/*
 * "mpiexec -proxy HOST": the per-host proxy of a job across hosts. mpiexec
 * (mpiexec/remote.c) starts it through the launcher (ssh, srun, or fork on its
 * own host) and talks to it over its stdin/stdout (mpiexec/pxlink.c). The
 * proxy starts this host's ranks (a PMI job arrives in one MPX_F_JOB or
 * MPX_F_ADDJOB frame) and serves them PMI-1 and PMI-2 with the server core of
 * mpiexec/server.c, whose job holds only this host's ranks. What concerns the
 * whole job goes up the link (this file's mpx_server_ops_t): a fence costs
 * mpiexec one message per host (the proxy sends up the puts of its ranks once
 * all of them entered it, and releases them when mpiexec sends back the puts
 * of every host), aborts and spawn requests are mpiexec's to decide. Up also
 * go the ranks' output, starts and exits; down comes rank 0's stdin. Node
 * attributes are this host's own; published names are mpiexec's (requests
 * go up as MPX_F_NAME). When mpiexec says so, or when its link closes
 * (mpiexec or ssh died), the ranks get SIGTERM, then SIGKILL after a grace.
 * In a tree (more hosts than the fan-out, see remote.c rm_tree) a proxy
 * also starts the proxies below it (MPX_F_TREE) and relays: frames for them
 * come down wrapped in MPX_F_ROUTE, theirs go up wrapped with their host, a
 * child that goes away is reported as MPX_F_GONE for it and every host
 * below it, and the end of our input closes theirs. The proxy exits when
 * its ranks (and the proxies below it) are gone and mpiexec closed the
 * link: mpiexec does so once every rank of every host exited, since until
 * then a spawn may add ranks here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"
#include "mpiexec/pxlink.h"
#include "common/clock.h"

extern char **environ;

enum { PX_KILL_GRACE_MS = 3000, PX_DRAIN_MS = 2000 };

typedef struct {
    char *wdir;
    char **argv, **env;
} px_seg_t;

/* What the proxy keeps beside the server's view of a PMI job. */
typedef struct {
    int gjob;         /* mpiexec's number of the PMI job */
    mpx_frame_t pend; /* puts since the last fence: key, value fields */
    int npend;
} px_pjob_t;

static struct {
    mpx_link_t up;
    char host[256];
    char iface[64];
    mpx_opts_t opts;
    mpx_job_t job; /* this host's ranks, served by mpiexec/server.c */
    int *gidx;     /* per rank of job: its index in mpiexec's list */
    int gidx_cap;
    px_pjob_t *pjx; /* per PMI job of job */
    int nsegs;
    px_seg_t *segs;
    char **frames; /* the job frames the segments point into */
    int nframes;
    int started, killing, up_gone;
    int down_closed; /* mpiexec closed our stdin: it is gone, or every rank everywhere is */
    int stdin_w;  /* rank 0's stdin when it runs here, else -1 */
    char *stdin_q; /* bytes for it not written yet */
    size_t stdin_len, stdin_cap;
    int stdin_eof;
    long long kill_deadline, drain_deadline;
    /* the proxy tree: the proxies this one started (MPX_F_TREE); name is
     * this host as mpiexec calls it (-proxy NAME: a host file's name, which
     * need not be the hostname) */
    char name[256];
    struct px_kid {
        char host[256];
        pid_t pid;
        int reaped, status, closed;
        mpx_link_t link;
        char **below; /* the hosts it relays for, itself included */
        int nbelow;
    } *kids;
    int nkids;
} px = {.stdin_w = -1};

static void px_send_up(mpx_frame_t *f)
{
    if (!px.up_gone && mpx_link_send(&px.up, f) != 0)
        px.up_gone = 1;
    mpx_frame_free(f);
}

static void px_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void px_error(const char *fmt, ...)
{
    char msg[1024];
    mpx_frame_t f = {0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (px.up_gone) {
        fprintf(stderr, "mpiexec proxy on %s: %s\n", px.host, msg);
        return;
    }
    mpx_frame_begin(&f, MPX_F_ERROR);
    mpx_frame_str(&f, msg);
    px_send_up(&f);
}

static void px_signal_all(int sig)
{
    for (int i = 0; i < px.job.nranks; i++)
        if (px.job.ranks[i]->pid > 0 && !px.job.ranks[i]->exited)
            kill(-px.job.ranks[i]->pid, sig);
}

static void px_teardown(int sig)
{
    if (px.killing)
        return;
    px.killing = 1;
    px_signal_all(sig);
    px.kill_deadline = common_now_ms() + PX_KILL_GRACE_MS;
}

/* ------------------------------------------------------------ server ops */

static void px_put(mpx_job_t *job, mpx_rank_t *r, const char *key, const char *val)
{
    px_pjob_t *x = &px.pjx[r->pj];
    (void)job;
    mpx_frame_str(&x->pend, key);
    mpx_frame_str(&x->pend, val);
    x->npend++;
}

static void px_fence(mpx_job_t *job, int pj)
{
    px_pjob_t *x = &px.pjx[pj];
    mpx_frame_t f = {0};
    (void)job;
    mpx_frame_begin(&f, MPX_F_FENCE);
    mpx_frame_int(&f, x->gjob);
    mpx_frame_int(&f, x->npend);
    mpx_frame_raw(&f, x->pend.buf, x->pend.len);
    if (x->pend.bad || f.bad) {
        px_error("no memory for the puts of a fence");
        px_teardown(SIGTERM);
    }
    px_send_up(&f);
    x->pend.len = 0;
    x->npend = 0;
}

static void px_abort(mpx_job_t *job, mpx_rank_t *r, int code, const char *msg)
{
    mpx_frame_t f = {0};
    (void)job;
    mpx_frame_begin(&f, MPX_F_ABORT);
    mpx_frame_int(&f, px.gidx[r->idx]);
    mpx_frame_int(&f, code);
    mpx_frame_str(&f, msg);
    px_send_up(&f);
}

/* mpiexec places and starts the children (remote.c rm_spawn); its answer
 * comes back as MPX_F_SPAWN. */
static const char *px_spawn(mpx_job_t *job, mpx_rank_t *r, const mpx_spawn_plan_t *sp,
                            char *errmsg, size_t errlen)
{
    mpx_frame_t f = {0};
    (void)job;
    mpx_frame_begin(&f, MPX_F_SPAWN);
    mpx_frame_int(&f, px.gidx[r->idx]);
    mpx_frame_int(&f, sp->ncmds);
    for (int i = 0; i < sp->ncmds; i++) {
        const mpx_spawn_cmd_t *c = &sp->cmd[i];
        mpx_frame_str(&f, c->cmd != NULL ? c->cmd : "");
        mpx_frame_int(&f, c->maxprocs);
        mpx_frame_str(&f, c->wdir != NULL ? c->wdir : "");
        mpx_frame_str(&f, c->host != NULL ? c->host : "");
        mpx_frame_int(&f, c->argc);
        for (int a = 0; a < c->argc; a++)
            mpx_frame_str(&f, c->argv[a] != NULL ? c->argv[a] : "");
    }
    mpx_frame_int(&f, sp->npreput);
    for (int p = 0; p < sp->npreput; p++) {
        mpx_frame_str(&f, sp->pkey[p] != NULL ? sp->pkey[p] : "");
        mpx_frame_str(&f, sp->pval[p] != NULL ? sp->pval[p] : "");
    }
    if (f.bad || px.up_gone) {
        mpx_frame_free(&f);
        snprintf(errmsg, errlen, "cannot pass the spawn request to mpiexec");
        return NULL;
    }
    px_send_up(&f);
    return MPX_SPAWN_LATER;
}

/* Published names live in mpiexec, shared by every host and PMI job: the
 * request goes up, the answer comes back as MPX_F_NAME. */
static int px_names(mpx_job_t *job, mpx_rank_t *r, int op, const char *service, const char *port)
{
    mpx_frame_t f = {0};
    char ops[2] = {(char)op, '\0'};
    (void)job;
    mpx_frame_begin(&f, MPX_F_NAME);
    mpx_frame_int(&f, px.gidx[r->idx]);
    mpx_frame_str(&f, ops);
    mpx_frame_str(&f, service);
    mpx_frame_str(&f, port != NULL ? port : "");
    if (f.bad || px.up_gone) {
        mpx_frame_free(&f);
        return -1;
    }
    px_send_up(&f);
    return 0;
}

static const mpx_server_ops_t px_ops = {
    .fence = px_fence,
    .put = px_put,
    .abort = px_abort,
    .spawn = px_spawn,
    .names = px_names,
};

/* ------------------------------------------------------------ output, stdin */

static void px_output(mpx_rank_t *r, int stream)
{
    int *fd = stream == 1 ? &r->out.fd : &r->err.fd;
    char buf[65536];
    for (int rounds = 0; rounds < 4 && *fd >= 0; rounds++) {
        ssize_t n = read(*fd, buf, sizeof buf);
        mpx_frame_t f = {0};
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close(*fd);
            *fd = -1;
            return;
        }
        mpx_frame_begin(&f, MPX_F_OUTPUT);
        mpx_frame_int(&f, px.gidx[r->idx]);
        mpx_frame_int(&f, stream);
        mpx_frame_raw(&f, buf, (size_t)n);
        px_send_up(&f);
    }
}

/* mpiexec sends rank 0's stdin ahead only so far: tell it what left the
 * queue (written to rank 0, or dropped when it closed its stdin). */
static void px_stdin_ack(size_t n)
{
    mpx_frame_t f = {0};
    if (n == 0)
        return;
    mpx_frame_begin(&f, MPX_F_STDIN);
    mpx_frame_int(&f, (long long)n);
    px_send_up(&f);
}

static void px_stdin_close(void)
{
    if (px.stdin_w >= 0)
        close(px.stdin_w);
    px.stdin_w = -1;
    px_stdin_ack(px.stdin_len);
    px.stdin_len = 0;
}

/* Write what rank 0 takes; at the end of mpiexec's stdin, close its pipe. */
static void px_stdin_flush(void)
{
    size_t off = 0;
    while (px.stdin_w >= 0 && off < px.stdin_len) {
        ssize_t n = write(px.stdin_w, px.stdin_q + off, px.stdin_len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) { /* rank 0 closed its stdin: drop the rest */
            px_stdin_close();
            return;
        }
        off += (size_t)n;
    }
    if (off > 0) {
        memmove(px.stdin_q, px.stdin_q + off, px.stdin_len - off);
        px.stdin_len -= off;
        px_stdin_ack(off);
    }
    if (px.stdin_eof && px.stdin_len == 0)
        px_stdin_close();
}

static void px_stdin_data(const char *data, size_t n)
{
    if (n == 0) {
        px.stdin_eof = 1;
    } else if (px.stdin_w < 0) {
        px_stdin_ack(n); /* rank 0 is gone or closed its stdin */
    } else {
        if (px.stdin_len + n > px.stdin_cap) {
            size_t cap = px.stdin_cap ? px.stdin_cap * 2 : 65536;
            char *q;
            while (cap < px.stdin_len + n)
                cap *= 2;
            if ((q = realloc(px.stdin_q, cap)) == NULL) {
                px_error("no memory for rank 0's stdin");
                px_stdin_close();
                px_stdin_ack(n);
                return;
            }
            px.stdin_q = q;
            px.stdin_cap = cap;
        }
        memcpy(px.stdin_q + px.stdin_len, data, n);
        px.stdin_len += n;
    }
    px_stdin_flush();
}

/* ------------------------------------------------------------ start */

static void px_child(mpx_rank_t *r, int pmi_child, int in_r, int out_w, int err_w, char **envp,
                     pid_t proxy)
{
    px_seg_t *s = &px.segs[r->seg];

    mpx_child_reset(proxy);
    if (in_r < 0)
        in_r = open("/dev/null", O_RDONLY);
    if (in_r >= 0 && in_r != 0) {
        dup2(in_r, 0);
        close(in_r);
    }
    dup2(out_w, 1);
    dup2(err_w, 2);
    fcntl(pmi_child, F_SETFD, 0);
    if (s->wdir[0] != '\0' && chdir(s->wdir) != 0) {
        fprintf(stderr, "mpiexec: rank %d on %s: cannot change to directory '%s': %s\n", r->rank,
                px.host, s->wdir, strerror(errno));
        _exit(127);
    }
    environ = envp; /* execvp searches the job's PATH */
    execvp(s->argv[0], s->argv);
    fprintf(stderr, "mpiexec: rank %d on %s: cannot run '%s': %s\n", r->rank, px.host, s->argv[0],
            strerror(errno));
    _exit(127);
}

static int px_start(mpx_rank_t *r, int local_idx)
{
    px_seg_t *s = &px.segs[r->seg];
    const mpx_pmijob_t *pj = &px.job.pjobs[r->pj];
    int sv[2], outp[2], errp[2], inp[2] = {-1, -1};
    mpx_env_t env = {0};
    int has_iface = 0, has_ipath = 0, rc = -1;
    pid_t pid, me = getpid();
    mpx_frame_t f = {0};

    for (char **e = s->env; *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        char name[256];
        has_iface |= strncmp(*e, "CANAL_SOCK_IFACE=", 17) == 0;
        has_ipath |= strncmp(*e, "IPATH_NO_BACKTRACE=", 19) == 0;
        if (eq == NULL || eq - *e >= (long)sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        if (mpx_env_add(&env, name, eq + 1) != 0)
            goto out;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        goto out;
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)
        goto out;
    /* rank 0 of the command line's job reads mpiexec's stdin (MPX_F_STDIN) */
    if (px.gidx[r->idx] == 0 && pipe2(inp, O_CLOEXEC) != 0)
        goto out;
    mpx_env_add_rank(&env, pj->kvsname, r->rank, pj->size, sv[1], pj->nlocal, local_idx);
    if (px.pjx[r->pj].gjob > 0)
        mpx_env_add(&env, "PMI_SPAWNED", "1");
    if (!has_ipath)
        mpx_env_add(&env, "IPATH_NO_BACKTRACE", "1");
    if (px.iface[0] != '\0' && !has_iface)
        mpx_env_add(&env, "CANAL_SOCK_IFACE", px.iface);
    pid = fork();
    if (pid == 0)
        px_child(r, sv[1], inp[0], outp[1], errp[1], env.kv, me);
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    if (inp[0] >= 0)
        close(inp[0]);
    if (pid < 0) {
        close(sv[0]);
        close(outp[0]);
        close(errp[0]);
        if (inp[1] >= 0)
            close(inp[1]);
        goto out;
    }
    setpgid(pid, pid);
    r->pid = pid;
    r->pmi_fd = sv[0];
    r->out.fd = outp[0];
    r->err.fd = errp[0];
    fcntl(r->pmi_fd, F_SETFL, O_NONBLOCK);
    fcntl(r->out.fd, F_SETFL, O_NONBLOCK);
    fcntl(r->err.fd, F_SETFL, O_NONBLOCK);
    if (inp[1] >= 0) {
        fcntl(inp[1], F_SETFL, O_NONBLOCK);
        px.stdin_w = inp[1];
        px_stdin_flush();
    }
    mpx_frame_begin(&f, MPX_F_STARTED);
    mpx_frame_int(&f, px.gidx[r->idx]);
    mpx_frame_int(&f, pid);
    px_send_up(&f);
    rc = 0;
out:
    for (int k = 0; k < env.n; k++)
        free(env.kv[k]);
    free(env.kv);
    return rc;
}

static void px_report_exit(mpx_rank_t *r, int status)
{
    mpx_frame_t f = {0};
    mpx_frame_begin(&f, MPX_F_EXIT);
    mpx_frame_int(&f, px.gidx[r->idx]);
    mpx_frame_int(&f, status);
    mpx_frame_int(&f, r->initialized);
    mpx_frame_int(&f, r->finalized);
    px_send_up(&f);
}

/* A PMI job (see remote.c rm_job_part): gjob kvsname spawner size mapping
 * nsegs {wdir argc argv.. envc env..} nlocal {gidx rank seg appnum} npairs
 * {key value}; then start its ranks. The fields point into a frame kept for
 * good (px.frames). */
static int px_add_job(mpx_fields_t *c)
{
    int gjob, size, nsegs, nlocal, npairs, seg0 = px.nsegs, pj, first;
    const char *kvsname, *spawner, *mapping;
    px_seg_t *segs;
    px_pjob_t *pjx;

    gjob = (int)mpx_fields_int(c, 0, 1000000);
    kvsname = mpx_fields_str(c);
    spawner = mpx_fields_str(c);
    size = (int)mpx_fields_int(c, 1, 1000000);
    mapping = mpx_fields_str(c);
    nsegs = (int)mpx_fields_int(c, 1, 100000);
    if (c->bad || (segs = realloc(px.segs, (size_t)(seg0 + nsegs) * sizeof *segs)) == NULL)
        return -1;
    px.segs = segs;
    for (int s = 0; s < nsegs && !c->bad; s++) {
        px_seg_t *g = &px.segs[px.nsegs];
        int argc, envc;
        memset(g, 0, sizeof *g);
        g->wdir = (char *)mpx_fields_str(c);
        argc = (int)mpx_fields_int(c, 1, 100000);
        if (c->bad || (g->argv = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
            return -1;
        px.nsegs++;
        for (int a = 0; a < argc; a++)
            g->argv[a] = (char *)mpx_fields_str(c);
        envc = (int)mpx_fields_int(c, 0, 1000000);
        if (c->bad || (g->env = calloc((size_t)envc + 1, sizeof(char *))) == NULL)
            return -1;
        for (int e = 0; e < envc; e++)
            g->env[e] = (char *)mpx_fields_str(c);
    }
    nlocal = (int)mpx_fields_int(c, 1, size);
    if (c->bad || (pj = mpx_pjob_new(&px.job, kvsname, size, nlocal)) < 0)
        return -1;
    if ((pjx = realloc(px.pjx, (size_t)px.job.npjobs * sizeof *pjx)) == NULL)
        return -1;
    px.pjx = pjx;
    memset(&px.pjx[pj], 0, sizeof px.pjx[pj]);
    px.pjx[pj].gjob = gjob;
    snprintf(px.job.pjobs[pj].spawner, sizeof px.job.pjobs[pj].spawner, "%s", spawner);
    snprintf(px.job.pjobs[pj].mapping, sizeof px.job.pjobs[pj].mapping, "%s", mapping);
    if (px.job.nranks + nlocal > px.gidx_cap) {
        int *g = realloc(px.gidx, (size_t)(px.job.nranks + nlocal) * sizeof *g);
        if (g == NULL)
            return -1;
        px.gidx = g;
        px.gidx_cap = px.job.nranks + nlocal;
    }
    first = px.job.nranks;
    for (int i = 0; i < nlocal; i++) {
        int gidx = (int)mpx_fields_int(c, 0, 100000000);
        int rank = (int)mpx_fields_int(c, 0, size - 1);
        int seg = (int)mpx_fields_int(c, 0, nsegs - 1);
        int appnum = (int)mpx_fields_int(c, 0, nsegs - 1);
        mpx_rank_t *r;
        if (c->bad || (r = mpx_rank_new(&px.job, pj, rank, seg0 + seg, appnum)) == NULL)
            return -1;
        px.gidx[r->idx] = gidx;
    }
    npairs = (int)mpx_fields_int(c, 0, 100000);
    for (int p = 0; p < npairs && !c->bad; p++) {
        const char *k = mpx_fields_str(c), *v = mpx_fields_str(c);
        if (mpx_kvs_put(px.job.pjobs[pj].kvs, k, v) != 0)
            return -1;
    }
    if (c->bad || c->k != c->nf ||
        mpx_kvs_put(px.job.pjobs[pj].kvs, "PMI_process_mapping", mapping) != 0)
        return -1;
    for (int i = first; i < px.job.nranks; i++) {
        mpx_rank_t *r = px.job.ranks[i];
        if (px_start(r, i - first) == 0)
            continue;
        px_error("cannot start rank %d: %s", r->rank, strerror(errno));
        px_teardown(SIGTERM);
        for (int j = i; j < px.job.nranks; j++)
            if (px.job.ranks[j]->pid == 0) {
                px.job.ranks[j]->exited = 1;
                px.job.nexited++;
                px_report_exit(px.job.ranks[j], 127 << 8);
            }
        break;
    }
    return 0;
}

/* MPX_F_JOB: usize iface, then the first PMI job. */
static int px_job(mpx_fields_t *c)
{
    px.opts.usize = (int)mpx_fields_int(c, 1, 100000000);
    snprintf(px.iface, sizeof px.iface, "%s", mpx_fields_str(c));
    if (c->bad)
        return -1;
    return px_add_job(c);
}

/* ------------------------------------------------------------ loop */

static void px_rank_exited(mpx_rank_t *r, int status)
{
    r->exited = 1;
    r->status = status;
    px.job.nexited++;
    mpx_server_rank_exited(&px.job, r); /* its last words (an abort, finalize) come first */
    if (px.gidx[r->idx] == 0)
        px_stdin_close();
    px_report_exit(r, status);
    if (px.job.nexited == px.job.nranks)
        px.drain_deadline = common_now_ms() + PX_DRAIN_MS;
}

static void px_reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int k = 0; k < px.nkids; k++)
            if (px.kids[k].pid == pid && !px.kids[k].reaped) {
                px.kids[k].reaped = 1;
                px.kids[k].status = status;
            }
        for (int i = 0; i < px.job.nranks; i++) {
            mpx_rank_t *r = px.job.ranks[i];
            if (r->pid == pid && !r->exited) {
                px_rank_exited(r, status);
                break;
            }
        }
    }
}

/* MPX_F_SYNC: report the ranks that are dying now (a rank elsewhere aborted,
 * maybe because one of ours died), then answer. */
static void px_sync(void)
{
    mpx_frame_t f = {0};
    for (int i = 0; i < px.job.nranks; i++) {
        mpx_rank_t *r = px.job.ranks[i];
        int status;
        if (r->pid > 0 && !r->exited && mpx_reap_if_exiting(r->pid, &status))
            px_rank_exited(r, status);
    }
    mpx_frame_begin(&f, MPX_F_SYNC);
    px_send_up(&f);
}

/* mpiexec's answer to a spawn: rank jobid errmsg. */
static void px_spawned(mpx_fields_t *c)
{
    int gidx = (int)mpx_fields_int(c, 0, 100000000);
    const char *jobid = mpx_fields_str(c), *errmsg = mpx_fields_str(c);
    if (c->bad)
        return;
    for (int i = 0; i < px.job.nranks; i++)
        if (px.gidx[i] == gidx) {
            mpx_server_spawn_reply(&px.job, px.job.ranks[i], *jobid != '\0' ? jobid : NULL,
                                   errmsg);
            return;
        }
}

/* mpiexec's answer to a name request: rank op status port. */
static void px_named(mpx_fields_t *c)
{
    int gidx = (int)mpx_fields_int(c, 0, 100000000);
    const char *op = mpx_fields_str(c);
    int status = (int)mpx_fields_int(c, MPX_NAME_OK, MPX_NAME_UNREACHABLE);
    const char *port = mpx_fields_str(c);
    if (c->bad || strlen(op) != 1 || strchr("plu", *op) == NULL)
        return;
    for (int i = 0; i < px.job.nranks; i++)
        if (px.gidx[i] == gidx) {
            mpx_server_names_reply(&px.job, px.job.ranks[i], *op, status, port);
            return;
        }
}

/* mpiexec's answer to a fence: gjob npairs {key value}. */
static void px_fence_done(mpx_fields_t *c)
{
    int gjob = (int)mpx_fields_int(c, 0, 1000000);
    long long n = mpx_fields_int(c, 0, 100000000);
    int pj = -1;
    for (int i = 0; i < px.job.npjobs; i++)
        if (px.pjx[i].gjob == gjob)
            pj = i;
    if (c->bad || pj < 0 || c->nf != c->k + 2 * n) {
        px_error("malformed fence reply from mpiexec");
        px_teardown(SIGTERM);
        return;
    }
    for (long long i = 0; i < n; i++) {
        const char *k = mpx_fields_str(c), *v = mpx_fields_str(c);
        mpx_kvs_put(px.job.pjobs[pj].kvs, k, v);
    }
    mpx_server_fence_done(&px.job, pj);
}

/* ------------------------------------------------------------ the tree */

static void px_down(const char *body, size_t len);

/* The child proxy that relays for host, or -1. */
static int px_kid_of(const char *host)
{
    for (int k = 0; k < px.nkids; k++)
        for (int b = 0; b < px.kids[k].nbelow; b++)
            if (strcmp(px.kids[k].below[b], host) == 0)
                return k;
    return -1;
}

/* A frame for a proxy below: to the child that relays for its host (or, for
 * this host, unwrapped and handled here). */
static void px_route_down(const char *body, size_t len)
{
    const char *host, *inner;
    size_t ilen;
    mpx_frame_t f = {0};
    int k;
    if (mpx_frame_unwrap(body, len, &host, &inner, &ilen) != 0) {
        px_error("malformed routed message from mpiexec");
        return;
    }
    if (strcmp(host, px.name) == 0) {
        if (inner[0] != MPX_F_ROUTE)
            px_down(inner, ilen);
        return;
    }
    if ((k = px_kid_of(host)) < 0 || px.kids[k].closed)
        return; /* gone: mpiexec hears of it (MPX_F_GONE) */
    mpx_frame_copy(&f, body, len);
    if (!f.bad)
        mpx_link_send(&px.kids[k].link, &f);
    mpx_frame_free(&f);
}

/* Tell mpiexec that host's proxy is gone, and why. */
static void px_gone(const char *host, const char *why)
{
    mpx_frame_t in = {0}, f = {0};
    mpx_frame_begin(&in, MPX_F_GONE);
    mpx_frame_str(&in, why);
    if (!in.bad)
        mpx_frame_wrap(&f, host, in.buf + 4, in.len - 4);
    mpx_frame_free(&in);
    if (f.bad)
        mpx_frame_free(&f);
    else
        px_send_up(&f);
}

/* Child k's link closed: it and every proxy it relayed for are gone. */
static void px_kid_closed(int k)
{
    struct px_kid *kd = &px.kids[k];
    char why[400];
    int st;
    if (kd->closed)
        return;
    kd->closed = 1;
    if (kd->link.rfd >= 0)
        close(kd->link.rfd);
    if (kd->link.wfd >= 0)
        close(kd->link.wfd);
    kd->link.rfd = kd->link.wfd = -1;
    if (!kd->reaped && waitpid(kd->pid, &st, 0) == kd->pid) {
        kd->reaped = 1;
        kd->status = st;
    }
    if (kd->reaped && WIFSIGNALED(kd->status))
        snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(kd->status));
    else if (kd->reaped)
        snprintf(why, sizeof why, "its launcher (from host %.200s) exited with code %d", px.name,
                 WEXITSTATUS(kd->status));
    else
        snprintf(why, sizeof why, "its connection closed");
    px_gone(kd->host, why);
    snprintf(why, sizeof why, "the proxy on host %.300s, which relayed it, is gone", kd->host);
    for (int b = 1; b < kd->nbelow; b++)
        px_gone(kd->below[b], why);
}

/* Frames from child k: up, wrapped with its host unless already routed. */
static void px_kid_frame(int k, const char *body, size_t len)
{
    mpx_frame_t f = {0};
    if (body[0] == MPX_F_ROUTE)
        mpx_frame_copy(&f, body, len);
    else
        mpx_frame_wrap(&f, px.kids[k].host, body, len);
    if (f.bad)
        mpx_frame_free(&f);
    else
        px_send_up(&f);
}

/* MPX_F_TREE: launcher launcher-exec n {host parent}: the proxies below this
 * one, breadth first. Start those whose parent is this host and send each
 * the part of the list below it. */
static void px_tree(mpx_fields_t *c)
{
    const char *how = mpx_fields_str(c), *exec = mpx_fields_str(c);
    int n = (int)mpx_fields_int(c, 1, 1000000);
    const char **name, **parent;
    int *first; /* per entry: the entry of its ancestor that is our child */
    static char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);

    if (c->bad || c->nf != c->k + 2 * n || sl <= 0 || px.nkids > 0) {
        px_error("malformed proxy tree from mpiexec");
        px_teardown(SIGTERM);
        return;
    }
    self[sl] = '\0';
    name = calloc((size_t)n, sizeof *name);
    parent = calloc((size_t)n, sizeof *parent);
    first = calloc((size_t)n, sizeof *first);
    px.kids = calloc((size_t)n, sizeof *px.kids);
    if (name == NULL || parent == NULL || first == NULL || px.kids == NULL) {
        px_error("no memory for the proxy tree");
        px_teardown(SIGTERM);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        name[i] = mpx_fields_str(c);
        parent[i] = mpx_fields_str(c);
    }
    /* breadth first: a parent comes before its children */
    for (int i = 0; i < n; i++) {
        first[i] = -1;
        if (strcmp(parent[i], px.name) == 0)
            first[i] = i;
        else
            for (int j = 0; j < i; j++)
                if (strcmp(name[j], parent[i]) == 0)
                    first[i] = first[j];
        if (first[i] < 0) {
            px_error("proxy tree: host %s hangs below %s, which is not below %s", name[i],
                     parent[i], px.name);
            px_teardown(SIGTERM);
            goto out;
        }
    }
    for (int i = 0; i < n; i++) {
        struct px_kid *kd;
        mpx_frame_t f = {0};
        int rfd, wfd, nb = 0;
        if (first[i] != i)
            continue;
        kd = &px.kids[px.nkids++];
        snprintf(kd->host, sizeof kd->host, "%s", name[i]);
        mpx_link_init(&kd->link, -1, -1);
        for (int j = 0; j < n; j++)
            nb += first[j] == i;
        kd->below = calloc((size_t)nb, sizeof *kd->below);
        for (int j = 0; kd->below != NULL && j < n; j++)
            if (first[j] == i && (kd->below[kd->nbelow] = strdup(name[j])) != NULL)
                kd->nbelow++;
        kd->pid = mpx_proxy_launch(self, *how != '\0' ? how : NULL, *exec != '\0' ? exec : NULL,
                                   strcmp(how, "fork") == 0, name[i], 0, &rfd, &wfd);
        if (kd->pid < 0 || kd->nbelow != nb) {
            kd->reaped = 1;
            kd->closed = 0;
            px_kid_closed(px.nkids - 1);
            continue;
        }
        mpx_link_init(&kd->link, rfd, wfd);
        if (nb > 1) {
            mpx_frame_begin(&f, MPX_F_TREE);
            mpx_frame_str(&f, how);
            mpx_frame_str(&f, exec);
            mpx_frame_int(&f, nb - 1);
            for (int j = 0; j < n; j++)
                if (first[j] == i && j != i) {
                    mpx_frame_str(&f, name[j]);
                    mpx_frame_str(&f, parent[j]);
                }
            if (!f.bad)
                mpx_link_send(&kd->link, &f);
            mpx_frame_free(&f);
        }
    }
out:
    free(name);
    free(parent);
    free(first);
}

static void px_tree(mpx_fields_t *c);
static void px_route_down(const char *body, size_t len);

static void px_down(const char *body, size_t len)
{
    mpx_fields_t c;
    size_t rest = 0;

    if (body[0] == MPX_F_ROUTE) {
        px_route_down(body, len);
        return;
    }
    if (body[0] == MPX_F_TREE) {
        if (mpx_fields_split(body, len, &c, NULL) == 0)
            px_tree(&c);
        else
            px_error("no memory for the proxy tree");
        free(c.fl);
        return;
    }

    if (body[0] == MPX_F_STDIN) {
        px_stdin_data(body + 1, len - 1);
        return;
    }
    if (body[0] == MPX_F_JOB || body[0] == MPX_F_ADDJOB) {
        /* the fields point into the link's buffer: keep a copy for good */
        char *copy = malloc(len);
        char **fr = realloc(px.frames, (size_t)(px.nframes + 1) * sizeof *fr);
        if (fr != NULL)
            px.frames = fr;
        if (copy == NULL || fr == NULL || (body[0] == MPX_F_JOB) == (px.started != 0)) {
            free(copy);
            px_error("no memory for, or an unexpected, job description");
            return;
        }
        memcpy(copy, body, len);
        px.frames[px.nframes++] = copy;
        px.started = 1;
        if (mpx_fields_split(copy, len, &c, NULL) != 0 ||
            (body[0] == MPX_F_JOB ? px_job(&c) : px_add_job(&c)) != 0) {
            px_error("malformed job description from mpiexec");
            px_teardown(SIGTERM);
        }
        free(c.fl);
        return;
    }
    if (mpx_fields_split(body, len, &c, &rest) != 0) {
        px_error("malformed message '%c' from mpiexec", body[0]);
        return;
    }
    switch (body[0]) {
    case MPX_F_FENCE:
        px_fence_done(&c);
        break;
    case MPX_F_SPAWN:
        px_spawned(&c);
        break;
    case MPX_F_NAME:
        px_named(&c);
        break;
    case MPX_F_SYNC:
        px_sync();
        break;
    case MPX_F_KILL:
        px_teardown(SIGTERM);
        break;
    case MPX_F_SIGNAL: {
        int sig = (int)mpx_fields_int(&c, 1, 64);
        if (!c.bad)
            px_signal_all(sig);
        break;
    }
    default:
        px_error("unknown message '%c' from mpiexec", body[0]);
        break;
    }
    free(c.fl);
}

int mpx_proxy_main(int argc, char **argv)
{
    int sigfd;
    struct pollfd *pfd = NULL;

    if (argc != 3) {
        fprintf(stderr, "mpiexec: -proxy HOST is started by mpiexec itself\n");
        return 2;
    }
    gethostname(px.host, sizeof px.host - 1);
    snprintf(px.name, sizeof px.name, "%s", argv[2]);
    px.opts.singleton_fd = -1;
    px.job.opts = &px.opts;
    px.job.ops = &px_ops;
    snprintf(px.job.hostname, sizeof px.job.hostname, "%s", px.host);
    mpx_link_init(&px.up, 0, 1);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    if (mpx_server_init(&px.job) != 0)
        return 1;
    sigfd = mpx_signals_open(0);
    if (sigfd < 0)
        return 1;
    {
        mpx_frame_t f = {0};
        mpx_frame_begin(&f, MPX_F_HELLO);
        mpx_frame_str(&f, px.host);
        px_send_up(&f);
    }

    for (;;) {
        int n = 0, nfd, wait_ms = -1, nranks = px.job.nranks, nkids = px.nkids;
        long long t = common_now_ms();
        int streams = 0, all_gone = px.started && px.job.nexited == px.job.nranks, kids_open = 0;

        for (int i = 0; i < nranks; i++)
            streams += (px.job.ranks[i]->out.fd >= 0) + (px.job.ranks[i]->err.fd >= 0);
        if (all_gone && streams > 0 && t >= px.drain_deadline) {
            /* a process a rank left behind holds its output open */
            for (int i = 0; i < nranks; i++) {
                mpx_rank_t *r = px.job.ranks[i];
                if (r->out.fd >= 0)
                    close(r->out.fd);
                if (r->err.fd >= 0)
                    close(r->err.fd);
                r->out.fd = r->err.fd = -1;
            }
            streams = 0;
        }
        /* the proxies below: the end of our input is the end of theirs */
        for (int k = 0; k < px.nkids; k++) {
            struct px_kid *kd = &px.kids[k];
            kids_open += !kd->closed;
            if (!kd->closed && kd->link.wfd >= 0 &&
                (px.up_gone || (px.down_closed && kd->link.out_len == 0))) {
                close(kd->link.wfd);
                kd->link.wfd = -1;
            }
        }
        /* (a spawn may still add ranks until mpiexec closes the link) */
        if (all_gone && streams == 0 && (px.down_closed || px.up_gone) && kids_open == 0)
            break;
        if ((px.up_gone || px.down_closed) && !px.started)
            break;
        if (px.killing && px.kill_deadline >= 0 && t >= px.kill_deadline) {
            px_signal_all(SIGKILL);
            px.kill_deadline = -1;
        }
        pfd = realloc(pfd, (size_t)(4 + 3 * nranks + 2 * px.nkids) * sizeof *pfd);
        if (pfd == NULL)
            return 1;
        pfd[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        pfd[n++] = (struct pollfd){.fd = px.up_gone || px.down_closed ? -1 : 0, .events = POLLIN};
        pfd[n++] =
            (struct pollfd){.fd = px.up.out_len > 0 && !px.up_gone ? 1 : -1, .events = POLLOUT};
        pfd[n++] = (struct pollfd){.fd = px.stdin_len > 0 ? px.stdin_w : -1, .events = POLLOUT};
        for (int i = 0; i < nranks; i++) {
            mpx_rank_t *r = px.job.ranks[i];
            pfd[n++] = (struct pollfd){.fd = r->pmi_fd,
                                       .events = POLLIN | (r->outq_len > 0 ? POLLOUT : 0)};
            pfd[n++] = (struct pollfd){.fd = r->out.fd, .events = POLLIN};
            pfd[n++] = (struct pollfd){.fd = r->err.fd, .events = POLLIN};
        }
        for (int k = 0; k < px.nkids; k++) {
            struct px_kid *kd = &px.kids[k];
            pfd[n++] = (struct pollfd){.fd = kd->closed ? -1 : kd->link.rfd, .events = POLLIN};
            pfd[n++] = (struct pollfd){
                .fd = !kd->closed && kd->link.out_len > 0 ? kd->link.wfd : -1, .events = POLLOUT};
        }
        if (px.killing && px.kill_deadline >= 0)
            wait_ms = (int)(px.kill_deadline > t ? px.kill_deadline - t : 0);
        if (all_gone && streams > 0) {
            int d = (int)(px.drain_deadline > t ? px.drain_deadline - t : 0);
            wait_ms = wait_ms < 0 || d < wait_ms ? d : wait_ms;
        }
        nfd = poll(pfd, (nfds_t)n, wait_ms);
        if (nfd < 0 && errno != EINTR)
            return 1;
        if (nfd <= 0)
            continue;
        if (pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                if (si.ssi_signo != SIGCHLD)
                    px_teardown((int)si.ssi_signo);
            px_reap();
        }
        if (pfd[2].revents && mpx_link_flush(&px.up) != 0)
            px.up_gone = 1;
        if (pfd[3].revents)
            px_stdin_flush();
        for (int i = 0; i < nranks; i++) {
            mpx_rank_t *r = px.job.ranks[i];
            struct pollfd *p = &pfd[4 + 3 * i];
            if (p[0].revents & POLLOUT)
                mpx_server_writable(&px.job, r);
            if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
                mpx_server_readable(&px.job, r);
            if (p[1].revents)
                px_output(r, 1);
            if (p[2].revents)
                px_output(r, 2);
        }
        px_reap();
        for (int k = 0, base = 4 + 3 * nranks; k < nkids; k++) {
            struct px_kid *kd = &px.kids[k];
            struct pollfd *p = &pfd[base + 2 * k];
            if (kd->closed)
                continue;
            if ((p[1].revents & (POLLOUT | POLLERR)) && mpx_link_flush(&kd->link) != 0)
                kd->link.broken = 1;
            if (p[0].revents) {
                int rc = mpx_link_read(&kd->link), tk;
                const char *body;
                size_t len;
                while ((tk = mpx_link_take(&kd->link, &body, &len)) == 1)
                    px_kid_frame(k, body, len);
                if (tk < 0 || rc != 0)
                    px_kid_closed(k);
            }
        }
        /* mpiexec's messages last: a job frame adds ranks to the arrays above */
        if (pfd[1].revents) {
            int rc = mpx_link_read(&px.up);
            const char *body;
            size_t len;
            int t2;
            while ((t2 = mpx_link_take(&px.up, &body, &len)) == 1)
                px_down(body, len);
            if (t2 < 0 || rc != 0) {
                /* mpiexec (or the ssh carrying us) is gone, or every rank
                 * ended: end what still runs */
                if (t2 < 0)
                    fprintf(stderr, "mpiexec proxy on %s: malformed data from mpiexec\n", px.host);
                if (t2 < 0 || rc < 0)
                    px.up_gone = 1;
                px.down_closed = 1;
                if (px.job.nexited < px.job.nranks)
                    px_teardown(SIGTERM);
            }
        }
    }
    /* what is still queued for mpiexec goes out before we leave */
    if (!px.up_gone) {
        fcntl(1, F_SETFL, fcntl(1, F_GETFL) & ~O_NONBLOCK);
        mpx_link_flush(&px.up);
    }
    if (px.killing)
        px_signal_all(SIGKILL);
    return 0;
}
