/*
 * The PMI server core of mpiexec and of its proxies: speaks PMI-1 and PMI-2
 * (switching a connection to PMI-2 framing after "cmd=init pmi_version=2") on
 * the socketpair each rank got as PMI_FD. Holds the KVS of each PMI job, node
 * attributes and published names; the barrier is a counter of the ranks
 * served here. What concerns the whole job goes through mpx_server_ops_t:
 * mpiexec on one host decides it here (mpx_server_local_ops: the barrier is
 * complete, an abort ends the job, a spawn starts processes), a proxy
 * (mpiexec/proxy.c) sends it up its link and answers when mpiexec does.
 * Called by the event loops of mpiexec/mpiexec.c and mpiexec/proxy.c. Every
 * message from a rank is untrusted: malformed input closes that rank's
 * connection with a message, it never overflows or stops the server.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"

enum { OUTQ_MAX = 1 << 20, KEY_MAX = 64, VAL_MAX = 1024 };

static mpx_kvs_t *server_nodeattr, *server_names;
static char server_msgbuf[PMI_WIRE_MSG_MAX + 1];
/* CANAL_DEBUG=3 (the level at which the ranks trace their PMI calls) in
 * mpiexec's environment traces every PMI message here too, secrets redacted. */
static int server_trace;

/* One traced message: dir "<<" from the rank, ">>" to it. */
static void trace_msg(const mpx_job_t *job, mpx_rank_t *r, const char *dir, const char *msg,
                      size_t len)
{
    char safe[301];
    int names = pmi_wire_redact(
        msg, len, *dir == '>' ? r->trace_secret : r->trace_secret && r->in_mcmd, safe, sizeof safe);
    size_t n = strlen(safe);
    if (*dir == '<')
        r->trace_secret = names;
    while (n > 0 && safe[n - 1] == '\n')
        safe[--n] = '\0';
    fprintf(stderr, "mpiexec: PMI %s %s: %s\n", dir, mpx_rank_name(job, r), safe);
}

int mpx_server_init(mpx_job_t *job)
{
    const char *dbg = getenv("CANAL_DEBUG");
    server_trace = dbg != NULL && atoi(dbg) >= 3;
    server_nodeattr = mpx_kvs_create();
    server_names = mpx_kvs_create();
    if (server_nodeattr == NULL || server_names == NULL)
        return -1;
    return 0;
}

static mpx_pmijob_t *pjob_of(mpx_job_t *job, const mpx_rank_t *r)
{
    return &job->pjobs[r->pj];
}

static void want_write(mpx_job_t *job, mpx_rank_t *r, int want)
{
    if (job->ops->want_write != NULL)
        job->ops->want_write(job, r, want);
}

static void server_close(mpx_job_t *job, mpx_rank_t *r)
{
    if (r->pmi_fd < 0)
        return;
    if (r->pid == 0 && job->opts->singleton_fd >= 0) {
        close(r->pmi_fd);
        r->pmi_fd = -1;
        r->pmi_wantw = 0;
        r->outq_len = 0;
        mpx_singleton_gone(job, r);
        return;
    }
    want_write(job, r, 0);
    close(r->pmi_fd); /* also removes it from epoll */
    r->pmi_fd = -1;
    r->outq_len = 0;
    if (r->in_barrier) {
        r->in_barrier = 0;
        pjob_of(job, r)->barrier_count--;
    }
}

static void server_flush(mpx_job_t *job, mpx_rank_t *r)
{
    size_t off = 0;
    while (off < r->outq_len) {
        ssize_t n = send(r->pmi_fd, r->outq + off, r->outq_len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            /* the rank is gone; its exit is handled when it is reaped */
            server_close(job, r);
            return;
        }
        off += (size_t)n;
    }
    if (off > 0) { /* outq is still NULL when nothing was ever queued */
        memmove(r->outq, r->outq + off, r->outq_len - off);
        r->outq_len -= off;
    }
    want_write(job, r, r->outq_len > 0);
}

void mpx_server_close(mpx_job_t *job, mpx_rank_t *r)
{
    server_close(job, r);
}

void mpx_server_writable(mpx_job_t *job, mpx_rank_t *r)
{
    server_flush(job, r);
}

static void server_send(mpx_job_t *job, mpx_rank_t *r, pmi_wire_out_t *out)
{
    if (r->pmi_fd < 0)
        return;
    if (pmi_wire_end(out) != 0) {
        fprintf(stderr, "mpiexec: internal error: PMI reply to rank %d too long\n", r->rank);
        return;
    }
    if (server_trace)
        trace_msg(job, r, ">>", out->buf, out->len);
    if (r->outq_len + out->len > OUTQ_MAX) {
        fprintf(stderr, "mpiexec: rank %d does not read its PMI replies; closing its connection\n",
                r->rank);
        server_close(job, r);
        return;
    }
    if (r->outq_len + out->len > r->outq_cap) {
        size_t cap = r->outq_cap ? r->outq_cap * 2 : 4096;
        char *q;
        while (cap < r->outq_len + out->len)
            cap *= 2;
        q = realloc(r->outq, cap);
        if (q == NULL) {
            server_close(job, r);
            return;
        }
        r->outq = q;
        r->outq_cap = cap;
    }
    memcpy(r->outq + r->outq_len, out->buf, out->len);
    r->outq_len += out->len;
    server_flush(job, r);
}

/* Reply in the connection's protocol: PMI-1 "cmd=x_result", PMI-2 "cmd=x-response". */
static void reply_begin(mpx_rank_t *r, pmi_wire_out_t *out, const char *cmd)
{
    pmi_wire_begin(out, r->pmi_version, cmd);
}

static void reply_rc(mpx_job_t *job, mpx_rank_t *r, const char *cmd, int rc, const char *msg)
{
    pmi_wire_out_t out;
    reply_begin(r, &out, cmd);
    pmi_wire_add_int(&out, "rc", rc);
    if (msg != NULL)
        pmi_wire_add(&out, r->pmi_version == 1 ? "msg" : "errmsg", msg);
    server_send(job, r, &out);
}

static void names_request(mpx_job_t *job, mpx_rank_t *r, int op, const char *service,
                          const char *port);

const char *mpx_pmi_arg(const pmi_wire_msg_t *m, const char *name, size_t max)
{
    const char *v = pmi_wire_get(m, name);
    if (v == NULL || strlen(v) >= max)
        return NULL;
    for (const char *p = v; *p != '\0'; p++)
        if (*p < ' ' || *p > '~')
            return NULL;
    return v;
}

static int server_put(mpx_job_t *job, mpx_rank_t *r, const char *key, const char *val)
{
    if (mpx_kvs_put(pjob_of(job, r)->kvs, key, val) != 0)
        return -1;
    if (job->ops->put != NULL)
        job->ops->put(job, r, key, val);
    return 0;
}

/* ------------------------------------------------------------ barrier */

void mpx_server_fence_done(mpx_job_t *job, int pj)
{
    mpx_pmijob_t *p = &job->pjobs[pj];
    for (int i = p->first; i < p->first + p->nlocal; i++) {
        mpx_rank_t *r = job->ranks[i];
        if (!r->in_barrier)
            continue;
        r->in_barrier = 0;
        if (r->pmi_version == 1) {
            pmi_wire_out_t out;
            pmi_wire_begin(&out, 1, "barrier_out");
            pmi_wire_add_int(&out, "rc", 0);
            server_send(job, r, &out);
        } else {
            reply_rc(job, r, "kvs-fence-response", 0, NULL);
        }
    }
    p->barrier_count = 0;
}

/* A barrier that waits for a rank that has exited can never complete: the
 * job ends. Under -disable-auto-cleanup the ranks that exited are left out
 * instead, and the barrier completes among the others (MPI_Finalize's fence
 * of a survivor that had not heard of the failure yet). A proxy leaves this
 * to mpiexec, which knows every host's ranks (there the job still ends). */
static void barrier_check_dead(mpx_job_t *job, int pj)
{
    mpx_pmijob_t *p = &job->pjobs[pj];
    int gone = 0;
    if (p->barrier_count == 0 || job->tearing_down || job->ops->fence != NULL)
        return;
    for (int i = p->first; i < p->first + p->nlocal; i++) {
        mpx_rank_t *r = job->ranks[i];
        if (r->exited && !r->in_barrier) {
            if (job->opts->disable_auto_cleanup) {
                gone++;
                continue;
            }
            mpx_job_fail(job, r->rank, 1,
                         "%s has exited, so the PMI barrier (MPI_Init, fence) other ranks "
                         "wait in can never complete",
                         mpx_rank_name(job, r));
            return;
        }
    }
    if (gone > 0 && p->barrier_count + gone == p->nlocal)
        mpx_server_fence_done(job, pj);
}

static void barrier_enter(mpx_job_t *job, mpx_rank_t *r)
{
    mpx_pmijob_t *p = pjob_of(job, r);
    if (!r->in_barrier) {
        r->in_barrier = 1;
        p->barrier_count++;
    }
    if (p->barrier_count < p->nlocal)
        barrier_check_dead(job, r->pj);
    else if (job->ops->fence != NULL)
        job->ops->fence(job, r->pj);
    else
        mpx_server_fence_done(job, r->pj);
}

void mpx_server_rank_exited(mpx_job_t *job, mpx_rank_t *r)
{
    if (r->pmi_fd >= 0) {
        /* Read what it said last (an abort, its finalize) before judging its exit. */
        mpx_server_readable(job, r);
        server_close(job, r);
    }
}

void mpx_server_check_barriers(mpx_job_t *job, mpx_rank_t *r)
{
    barrier_check_dead(job, r->pj);
}

/* ------------------------------------------------------------ failures */

/* Under -disable-auto-cleanup the other ranks go on after r failed; those
 * that never talked to it would wait for it for ever (a collective, a
 * receive from it): Canal's PMI clients take this message at any time and
 * fail what involves r. (A PMI client of another MPI would take it for the
 * reply to its next request: -disable-auto-cleanup is for Canal programs.) */
void mpx_server_notify_failed(mpx_job_t *job, mpx_rank_t *r)
{
    mpx_pmijob_t *p = pjob_of(job, r);
    for (int i = p->first; i < p->first + p->size; i++) {
        mpx_rank_t *q = job->ranks[i];
        pmi_wire_out_t out;
        if (q == r || q->exited || q->pmi_fd < 0 || q->finalized)
            continue;
        pmi_wire_begin(&out, q->pmi_version, "canal-rank-failed");
        pmi_wire_add_int(&out, "rank", r->rank);
        server_send(job, q, &out);
    }
}

/* ------------------------------------------------------------ abort */

static void handle_abort(mpx_job_t *job, mpx_rank_t *r, const pmi_wire_msg_t *m)
{
    int code = 1;
    const char *msg = pmi_wire_get(m, "error_msg");

    if (msg == NULL)
        msg = pmi_wire_get(m, "msg");
    if (pmi_wire_get_int(m, "exitcode", &code) != 0)
        code = 1;
    r->aborted = 1;
    job->ops->abort(job, r, code, msg != NULL ? msg : "");
}

/* mpiexec on one host: a rank aborted. Ranks that died before it (a
 * survivor aborts because a peer failed: the peer's death comes first) are
 * judged first (mpx_job_settle), so the job ends with the dead rank's signal
 * or exit code, not with the survivor's abort that names it. */
static void local_abort(mpx_job_t *job, mpx_rank_t *r, int code, const char *msg_in)
{
    char pid[32] = "", msg[256];
    /* msg_in lies in the message buffer, which settling reuses (the dying
     * ranks' last words are read first) */
    snprintf(msg, sizeof msg, "%s", msg_in);
    mpx_job_settle(job);
    if (r->pid > 0) /* a singleton is not ours, its pid unknown */
        snprintf(pid, sizeof pid, " (pid %ld)", (long)r->pid);
    mpx_job_fail(job, r->rank, code, "%s%s called MPI_Abort with exit code %d%s%.200s",
                 mpx_rank_name(job, r), pid, code, *msg != '\0' ? ": " : "", msg);
}

/* MPI_UNIVERSE_SIZE: what -usize says, else how many processes this node
 * runs well (its CPUs), and never less than the processes the universe runs
 * now (every job's live ranks: the first job, and spawned children, which
 * ask while their parents wait in the spawn). A spawned job therefore never
 * reads a universe its own parents and itself already overflow: MPICH's
 * tests, and programs like them, decide in parent and children alike
 * whether to spawn by comparing MPI_UNIVERSE_SIZE with the world's size. */
static int universe_size(const mpx_job_t *job)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int u = job->opts->usize > 0 ? job->opts->usize : (int)(cpus > 0 ? cpus : 1);
    int live = job->nranks - job->nexited;
    if (job->opts->usize <= 0 && job->npjobs > 0 && job->pjobs[0].size > u)
        u = job->pjobs[0].size;
    if (job->opts->usize <= 0 && live > u)
        u = live;
    return u;
}

/* ------------------------------------------------------------ spawn */

enum {
    SPAWN_CMDS_MAX = MPX_SPAWN_CMDS_MAX,
    SPAWN_ARGS_MAX = MPX_SPAWN_ARGS_MAX,
    SPAWN_PREPUT_MAX = MPX_SPAWN_PREPUT_MAX,
    SPAWN_PAIRS_MAX = 8192,
    SPAWN_BYTES_MAX = 1 << 20
};
typedef mpx_spawn_cmd_t spawn_cmd_t;
typedef mpx_spawn_plan_t spawn_plan_t;

const char MPX_SPAWN_LATER[] = "(later)";

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* mpiexec on one host: start the new PMI job; its kvsname, or NULL with
 * errmsg filled. */
static const char *local_spawn(mpx_job_t *job, mpx_rank_t *r, const spawn_plan_t *sp,
                               char *errmsg, size_t errlen)
{
    mpx_opts_t *o = job->opts;
    int seg0 = o->nsegs, total = 0, pj;
    const char *parent_wdir = o->segs[r->seg].wdir;
    char spawner[256];
    mpx_segment_t *segs;

    if (sp->ncmds < 1) {
        snprintf(errmsg, errlen, "spawn without commands");
        return NULL;
    }
    for (int i = 0; i < sp->ncmds; i++) {
        if (sp->cmd[i].cmd == NULL || sp->cmd[i].maxprocs < 1 || sp->cmd[i].maxprocs > 100000) {
            snprintf(errmsg, errlen, "spawn command %d has no program or a bad process count", i);
            return NULL;
        }
        total += sp->cmd[i].maxprocs;
        if (!mpx_program_exists(sp->cmd[i].cmd,
                                sp->cmd[i].wdir != NULL ? sp->cmd[i].wdir : parent_wdir)) {
            snprintf(errmsg, errlen, "cannot find an executable '%.100s'", sp->cmd[i].cmd);
            return NULL;
        }
    }
    segs = realloc(o->segs, (size_t)(o->nsegs + sp->ncmds) * sizeof *segs);
    if (segs == NULL) {
        snprintf(errmsg, errlen, "no memory");
        return NULL;
    }
    o->segs = segs;
    for (int i = 0; i < sp->ncmds; i++) {
        mpx_segment_t *g = &o->segs[o->nsegs];
        memset(g, 0, sizeof *g);
        g->nprocs = sp->cmd[i].maxprocs;
        g->argv = calloc((size_t)sp->cmd[i].argc + 2, sizeof(char *));
        if (g->argv == NULL) {
            snprintf(errmsg, errlen, "no memory");
            return NULL;
        }
        g->argv[0] = strdup(sp->cmd[i].cmd);
        for (int a = 0; a < sp->cmd[i].argc; a++)
            g->argv[a + 1] = dup_or_null(sp->cmd[i].argv[a]);
        g->wdir = sp->cmd[i].wdir != NULL ? strdup(sp->cmd[i].wdir) : parent_wdir;
        o->nsegs++;
    }
    snprintf(spawner, sizeof spawner, "%s", pjob_of(job, r)->kvsname);
    pj = mpx_job_add(job, seg0, total, spawner);
    if (pj < 0) {
        snprintf(errmsg, errlen, "cannot create a job of %d processes", total);
        return NULL;
    }
    for (int p = 0; p < sp->npreput; p++)
        if (sp->pkey[p] != NULL && sp->pval[p] != NULL)
            mpx_kvs_put(job->pjobs[pj].kvs, sp->pkey[p], sp->pval[p]);
    if (job->opts->verbose)
        fprintf(stderr, "mpiexec: %s spawns %d process%s as job %s\n", mpx_rank_name(job, r), total,
                total == 1 ? "" : "es", job->pjobs[pj].kvsname);
    if (mpx_launch(job, pj) != 0) {
        snprintf(errmsg, errlen, "could not start the spawned processes");
        return NULL;
    }
    return job->pjobs[pj].kvsname;
}

static void spawn_req_free(mpx_spawn_req_t *q)
{
    if (q == NULL)
        return;
    for (int i = 0; i < q->n; i++) {
        free(q->key[i]);
        free(q->val[i]);
    }
    free(q->key);
    free(q->val);
    free(q);
}

/* One "key=value" line of a PMI-1 spawn block. */
static int spawn_req_add(mpx_spawn_req_t *q, const char *line, size_t len)
{
    const char *eq = memchr(line, '=', len);
    if (eq == NULL || q->n >= SPAWN_PAIRS_MAX || q->bytes + len > SPAWN_BYTES_MAX)
        return -1;
    if (q->n == q->cap) {
        int cap = q->cap ? q->cap * 2 : 32;
        char **k = realloc(q->key, (size_t)cap * sizeof *k), **v;
        if (k == NULL)
            return -1;
        q->key = k;
        v = realloc(q->val, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        q->val = v;
        q->cap = cap;
    }
    q->key[q->n] = strndup(line, (size_t)(eq - line));
    q->val[q->n] = strndup(eq + 1, len - (size_t)(eq - line) - 1);
    if (q->key[q->n] == NULL || q->val[q->n] == NULL) {
        free(q->key[q->n]);
        free(q->val[q->n]);
        return -1;
    }
    q->n++;
    q->bytes += len;
    return 0;
}

/* Value of key in pairs [lo, hi) of q, or NULL. */
static const char *spawn_req_find(const mpx_spawn_req_t *q, int lo, int hi, const char *key)
{
    for (int i = lo; i < hi; i++)
        if (strcmp(q->key[i], key) == 0)
            return q->val[i];
    return NULL;
}

static int atoi_bounded(const char *s, int lo, int hi)
{
    char *end;
    long v;
    if (s == NULL)
        return -1;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    return (int)v;
}

void mpx_server_spawn_reply(mpx_job_t *job, mpx_rank_t *r, const char *jobid, const char *errmsg)
{
    pmi_wire_out_t out;
    if (r->pmi_version == 1) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s", errmsg != NULL ? errmsg : "");
        for (char *p = msg; *p != '\0'; p++)
            if (*p == ' ')
                *p = '_';
        pmi_wire_begin(&out, 1, "spawn_result");
        pmi_wire_add_int(&out, "rc", jobid != NULL ? 0 : -1);
        if (jobid != NULL)
            pmi_wire_add(&out, "jobid", jobid);
        else
            pmi_wire_add(&out, "errmsg", msg);
    } else {
        pmi_wire_begin(&out, 2, "spawn-response");
        pmi_wire_add_int(&out, "rc", jobid != NULL ? 0 : -1);
        if (jobid != NULL) {
            pmi_wire_add(&out, "jobid", jobid);
            pmi_wire_add_int(&out, "nerrs", 0);
        } else {
            pmi_wire_add(&out, "errmsg", errmsg);
        }
    }
    server_send(job, r, &out);
}

/* The plan is complete (bad: refused with errmsg): start it, answer now or
 * when the owner does. */
static void spawn_start(mpx_job_t *job, mpx_rank_t *r, const spawn_plan_t *sp, int bad,
                        char *errmsg, size_t errlen)
{
    const char *jobid = bad ? NULL : job->ops->spawn(job, r, sp, errmsg, errlen);
    if (jobid != MPX_SPAWN_LATER)
        mpx_server_spawn_reply(job, r, jobid, errmsg);
}

/* Info key k = v of a spawn command: those the launcher honours. */
static void spawn_info(spawn_cmd_t *c, const char *k, const char *v)
{
    if (k == NULL)
        return;
    if (strcmp(k, "wdir") == 0)
        c->wdir = v;
    else if (strcmp(k, "host") == 0)
        c->host = v;
}

/* PMI-1: the blocks are complete; build the plan and run it. */
static void pmi1_spawn_finish(mpx_job_t *job, mpx_rank_t *r)
{
    mpx_spawn_req_t *q = r->spawn;
    spawn_plan_t *sp = calloc(1, sizeof *sp);
    char errmsg[200] = "";
    char key[64];
    int bad = 1, lo = 0;

    if (sp == NULL)
        goto reply;
    /* blocks are separated by the "mcmd" pair each begins with */
    while (lo < q->n && sp->ncmds < SPAWN_CMDS_MAX) {
        int hi = lo + 1, argc;
        spawn_cmd_t *c = &sp->cmd[sp->ncmds++];
        while (hi < q->n && strcmp(q->key[hi], "mcmd") != 0)
            hi++;
        c->cmd = spawn_req_find(q, lo, hi, "execname");
        c->maxprocs = atoi_bounded(spawn_req_find(q, lo, hi, "nprocs"), 1, 100000);
        argc = atoi_bounded(spawn_req_find(q, lo, hi, "argcnt"), 0, SPAWN_ARGS_MAX);
        if (argc < 0 && spawn_req_find(q, lo, hi, "argcnt") != NULL) {
            /* never start a command without some of its arguments */
            snprintf(errmsg, sizeof errmsg,
                     "command %d has argcnt=%.20s arguments; this mpiexec takes 0 to %d",
                     sp->ncmds - 1, spawn_req_find(q, lo, hi, "argcnt"), SPAWN_ARGS_MAX);
            goto reply;
        }
        for (int a = 0; a < argc; a++) {
            snprintf(key, sizeof key, "arg%d", a + 1);
            c->argv[c->argc++] = spawn_req_find(q, lo, hi, key);
        }
        for (int n = 0; n < 1000; n++) {
            const char *k;
            snprintf(key, sizeof key, "info_key_%d", n);
            if ((k = spawn_req_find(q, lo, hi, key)) == NULL)
                break;
            snprintf(key, sizeof key, "info_val_%d", n);
            spawn_info(c, k, spawn_req_find(q, lo, hi, key));
        }
        if (sp->ncmds == 1) {
            int np = atoi_bounded(spawn_req_find(q, lo, hi, "preput_num"), 0, SPAWN_PREPUT_MAX);
            for (int p = 0; p < np; p++) {
                snprintf(key, sizeof key, "preput_key_%d", p);
                sp->pkey[sp->npreput] = spawn_req_find(q, lo, hi, key);
                snprintf(key, sizeof key, "preput_val_%d", p);
                sp->pval[sp->npreput++] = spawn_req_find(q, lo, hi, key);
            }
        }
        lo = hi;
    }
    bad = 0;
reply:
    if (sp == NULL)
        snprintf(errmsg, sizeof errmsg, "no memory");
    spawn_start(job, r, sp, bad, errmsg, sizeof errmsg);
    free(sp);
    spawn_req_free(r->spawn);
    r->spawn = NULL;
}

/* PMI-1 lines after "mcmd=spawn", up to "endcmd"; more blocks may follow. */
static void pmi1_spawn_line(mpx_job_t *job, mpx_rank_t *r, const char *line, size_t len)
{
    if (len == 6 && strncmp(line, "endcmd", 6) == 0) {
        int so_far = -1, total = -1;
        r->in_mcmd = 0;
        if (r->spawn == NULL)
            return;
        for (int i = r->spawn->n - 1; i >= 0; i--) {
            if (so_far < 0 && strcmp(r->spawn->key[i], "spawnssofar") == 0)
                so_far = atoi_bounded(r->spawn->val[i], 1, SPAWN_CMDS_MAX);
            if (total < 0 && strcmp(r->spawn->key[i], "totspawns") == 0)
                total = atoi_bounded(r->spawn->val[i], 1, SPAWN_CMDS_MAX);
            if (strcmp(r->spawn->key[i], "mcmd") == 0)
                break;
        }
        if (so_far < 0 || total < 0 || so_far >= total)
            pmi1_spawn_finish(job, r);
        return;
    }
    if (r->spawn != NULL && spawn_req_add(r->spawn, line, len) == 0)
        return;
    /* too large or malformed: drop it and say so at endcmd */
    spawn_req_free(r->spawn);
    r->spawn = calloc(1, sizeof *r->spawn);
}

/* PMI-2: the whole request is one message, pairs in order. */
static void pmi2_spawn(mpx_job_t *job, mpx_rank_t *r, const pmi_wire_msg_t *m)
{
    spawn_plan_t *sp = calloc(1, sizeof *sp);
    spawn_cmd_t *c = NULL;
    char errmsg[200] = "bad spawn request";
    const char *infokey = NULL;
    int bad = sp == NULL;

    for (int i = 1; !bad && i < m->npairs; i++) {
        const char *k = m->key[i], *v = m->val[i];
        if (strcmp(k, "subcmd") == 0) {
            if (sp->ncmds == SPAWN_CMDS_MAX)
                bad = 1;
            else
                (c = &sp->cmd[sp->ncmds++])->cmd = v;
        } else if (strcmp(k, "maxprocs") == 0 && c != NULL) {
            c->maxprocs = atoi_bounded(v, 1, 100000);
        } else if (strncmp(k, "argv", 4) == 0 && c != NULL) {
            if (c->argc == SPAWN_ARGS_MAX)
                bad = 1;
            else
                c->argv[c->argc++] = v;
        } else if (strncmp(k, "infokey", 7) == 0 && c != NULL) {
            infokey = v;
        } else if (strncmp(k, "infoval", 7) == 0 && c != NULL) {
            spawn_info(c, infokey, v);
        } else if (strncmp(k, "ppkey", 5) == 0) {
            if (sp->npreput == SPAWN_PREPUT_MAX)
                bad = 1;
            else
                sp->pkey[sp->npreput] = v;
        } else if (strncmp(k, "ppval", 5) == 0) {
            if (sp->npreput == SPAWN_PREPUT_MAX)
                bad = 1;
            else
                sp->pval[sp->npreput++] = v;
        }
    }
    if (sp != NULL)
        spawn_start(job, r, sp, bad, errmsg, sizeof errmsg);
    else
        mpx_server_spawn_reply(job, r, NULL, "no memory");
    free(sp);
}

/* ------------------------------------------------------------ PMI-1 */

static void pmi1_handle(mpx_job_t *job, mpx_rank_t *r, const pmi_wire_msg_t *m)
{
    const char *cmd = pmi_wire_cmd(m), *key, *val;
    pmi_wire_out_t out;

    if (strcmp(cmd, "init") == 0) {
        int v = 0;
        pmi_wire_get_int(m, "pmi_version", &v);
        pmi_wire_begin(&out, 1, "response_to_init");
        if (v == 1 || v == 2) {
            pmi_wire_add_int(&out, "pmi_version", v);
            pmi_wire_add_int(&out, "pmi_subversion", v == 1 ? 1 : 0);
            pmi_wire_add_int(&out, "rc", 0);
        } else {
            pmi_wire_add_int(&out, "pmi_version", 1);
            pmi_wire_add_int(&out, "pmi_subversion", 1);
            pmi_wire_add_int(&out, "rc", -1);
        }
        server_send(job, r, &out);
        if (v == 2) {
            r->pmi_version = 2;
            r->rd->version = 2;
        }
        if (v == 1 || v == 2)
            r->initialized = 1;
    } else if (strcmp(cmd, "initack") == 0) {
        /* PMI_PORT clients; ours always use PMI_FD but answer anyway */
        pmi_wire_begin(&out, 1, "initack");
        server_send(job, r, &out);
        pmi_wire_begin(&out, 1, "set");
        pmi_wire_add_int(&out, "size", pjob_of(job, r)->size);
        server_send(job, r, &out);
        pmi_wire_begin(&out, 1, "set");
        pmi_wire_add_int(&out, "rank", r->rank);
        server_send(job, r, &out);
        pmi_wire_begin(&out, 1, "set");
        pmi_wire_add_int(&out, "debug", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        pmi_wire_begin(&out, 1, "maxes");
        pmi_wire_add_int(&out, "kvsname_max", 256);
        pmi_wire_add_int(&out, "keylen_max", KEY_MAX);
        pmi_wire_add_int(&out, "vallen_max", VAL_MAX);
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        pmi_wire_begin(&out, 1, "appnum");
        pmi_wire_add_int(&out, "appnum", r->appnum);
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        pmi_wire_begin(&out, 1, "my_kvsname");
        pmi_wire_add(&out, "kvsname", pjob_of(job, r)->kvsname);
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        pmi_wire_begin(&out, 1, "universe_size");
        pmi_wire_add_int(&out, "size", universe_size(job));
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "put") == 0) {
        key = mpx_pmi_arg(m, "key", KEY_MAX);
        val = mpx_pmi_arg(m, "value", VAL_MAX);
        if (key == NULL || val == NULL)
            reply_rc(job, r, "put_result", -1, "missing_or_oversized_key_or_value");
        else if (server_put(job, r, key, val) != 0)
            reply_rc(job, r, "put_result", -1, "kvs_full");
        else
            reply_rc(job, r, "put_result", 0, "success");
    } else if (strcmp(cmd, "get") == 0) {
        key = mpx_pmi_arg(m, "key", KEY_MAX);
        val = key != NULL ? mpx_kvs_get(pjob_of(job, r)->kvs, key) : NULL;
        pmi_wire_begin(&out, 1, "get_result");
        pmi_wire_add_int(&out, "rc", val != NULL ? 0 : -1);
        pmi_wire_add(&out, "msg", val != NULL ? "success" : "key_not_found");
        pmi_wire_add(&out, "value", val != NULL ? val : "unknown");
        server_send(job, r, &out);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        barrier_enter(job, r);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        pmi_wire_begin(&out, 1, "finalize_ack");
        server_send(job, r, &out);
    } else if (strcmp(cmd, "abort") == 0) {
        handle_abort(job, r, m);
    } else if (strcmp(cmd, "publish_name") == 0) {
        names_request(job, r, 'p', mpx_pmi_arg(m, "service", KEY_MAX), mpx_pmi_arg(m, "port", VAL_MAX));
    } else if (strcmp(cmd, "lookup_name") == 0) {
        names_request(job, r, 'l', mpx_pmi_arg(m, "service", KEY_MAX), NULL);
    } else if (strcmp(cmd, "unpublish_name") == 0) {
        names_request(job, r, 'u', mpx_pmi_arg(m, "service", KEY_MAX), NULL);
    } else {
        fprintf(stderr, "mpiexec: rank %d sent an unknown PMI-1 command '%.60s'\n", r->rank, cmd);
        reply_rc(job, r, "error", -1, "unknown_command");
    }
}

/* ------------------------------------------------------------ PMI-2 */

static int is_true(const char *v)
{
    return v != NULL && strcmp(v, "TRUE") == 0;
}

/* ------------------------------------------------------------ names */

int mpx_names_do(int op, const char *service, const char *port, const char **found)
{
    *found = NULL;
    if (service == NULL || (op == 'p' && port == NULL))
        return MPX_NAME_BAD;
    if (server_names == NULL && (server_names = mpx_kvs_create()) == NULL)
        return MPX_NAME_NOMEM; /* mpiexec across hosts: made on first use */
    switch (op) {
    case 'p':
        if (mpx_kvs_get(server_names, service) != NULL)
            return MPX_NAME_EXISTS;
        return mpx_kvs_put(server_names, service, port) != 0 ? MPX_NAME_NOMEM : MPX_NAME_OK;
    case 'l':
        *found = mpx_kvs_get(server_names, service);
        return *found != NULL ? MPX_NAME_OK : MPX_NAME_NOT_FOUND;
    case 'u':
        return mpx_kvs_remove(server_names, service) == 0 ? MPX_NAME_OK : MPX_NAME_NOT_FOUND;
    default:
        return MPX_NAME_BAD;
    }
}

void mpx_server_names_reply(mpx_job_t *job, mpx_rank_t *r, int op, int status, const char *port)
{
    /* PMI-1's words (no blanks on its wire) and PMI-2's, per status */
    static const char *const msg1[] = {"success", "bad_service_or_port", "service_already_published",
                                       "no_memory", "service_not_found",
                                       "cannot_reach_mpiexec's_name_service"};
    static const char *const msg2[] = {NULL, "bad name or port", "name already published",
                                       "no memory", "name not published",
                                       "cannot reach mpiexec's name service"};
    pmi_wire_out_t out;
    const char *cmd;
    if (status < 0 || status > MPX_NAME_UNREACHABLE)
        status = MPX_NAME_BAD;
    if (r->pmi_version == 1)
        cmd = op == 'p' ? "publish_result" : op == 'l' ? "lookup_result" : "unpublish_result";
    else
        cmd = op == 'p' ? "name-publish-response" : op == 'l' ? "name-lookup-response"
                                                             : "name-unpublish-response";
    if (r->pmi_version == 1 && op == 'l' && status == MPX_NAME_BAD)
        status = MPX_NAME_NOT_FOUND;
    if (op != 'l') {
        reply_rc(job, r, cmd, status == MPX_NAME_OK ? 0 : 1,
                 r->pmi_version == 1 ? msg1[status] : msg2[status]);
        return;
    }
    pmi_wire_begin(&out, r->pmi_version, cmd);
    if (r->pmi_version == 1) {
        if (status == MPX_NAME_OK)
            pmi_wire_add(&out, "port", port);
        pmi_wire_add_int(&out, "rc", status == MPX_NAME_OK ? 0 : 1);
        pmi_wire_add(&out, "msg", msg1[status]);
    } else {
        pmi_wire_add_int(&out, "rc", status == MPX_NAME_OK ? 0 : 1);
        pmi_wire_add(&out, "found", status == MPX_NAME_OK ? "TRUE" : "FALSE");
        if (status == MPX_NAME_OK)
            pmi_wire_add(&out, "port", port);
        else if (status != MPX_NAME_NOT_FOUND)
            pmi_wire_add(&out, "errmsg", msg2[status]);
    }
    server_send(job, r, &out);
}

/* A rank's publish ('p'), lookup ('l') or unpublish ('u'): served from this
 * process's table (mpiexec), or passed up to mpiexec by a proxy, whose
 * answer comes back through mpx_server_names_reply. */
static void names_request(mpx_job_t *job, mpx_rank_t *r, int op, const char *service,
                          const char *port)
{
    const char *found;
    int st;
    if (service == NULL || (op == 'p' && port == NULL)) {
        mpx_server_names_reply(job, r, op, MPX_NAME_BAD, NULL);
        return;
    }
    if (job->ops->names != NULL) {
        if (job->ops->names(job, r, op, service, port) != 0)
            mpx_server_names_reply(job, r, op, MPX_NAME_UNREACHABLE, NULL);
        return;
    }
    st = mpx_names_do(op, service, port, &found);
    mpx_server_names_reply(job, r, op, st, found);
}

static void reply_found(mpx_job_t *job, mpx_rank_t *r, const char *cmd, const char *val)
{
    pmi_wire_out_t out;
    pmi_wire_begin(&out, 2, cmd);
    pmi_wire_add_int(&out, "rc", 0);
    pmi_wire_add(&out, "found", val != NULL ? "TRUE" : "FALSE");
    if (val != NULL)
        pmi_wire_add(&out, "value", val);
    server_send(job, r, &out);
}

static void nodeattr_wake(mpx_job_t *job, const char *key, const char *val)
{
    for (int i = 0; i < job->nranks; i++) {
        mpx_rank_t *w = job->ranks[i];
        if (w->waiting_nodeattr && strcmp(w->wait_key, key) == 0) {
            w->waiting_nodeattr = 0;
            reply_found(job, w, "info-getnodeattr-response", val);
        }
    }
}

static void pmi2_handle(mpx_job_t *job, mpx_rank_t *r, const pmi_wire_msg_t *m)
{
    const char *cmd = pmi_wire_cmd(m), *key, *val;
    pmi_wire_out_t out;

    if (strcmp(cmd, "fullinit") == 0) {
        r->initialized = 1;
        pmi_wire_begin(&out, 2, "fullinit-response");
        pmi_wire_add_int(&out, "pmi-version", 2);
        pmi_wire_add_int(&out, "pmi-subversion", 0);
        pmi_wire_add_int(&out, "rank", r->rank);
        pmi_wire_add_int(&out, "size", pjob_of(job, r)->size);
        pmi_wire_add_int(&out, "appnum", r->appnum);
        if (pjob_of(job, r)->spawner[0] != '\0')
            pmi_wire_add(&out, "spawner-jobid", pjob_of(job, r)->spawner);
        pmi_wire_add(&out, "debugged", "FALSE");
        pmi_wire_add(&out, "pmiverbose", "FALSE");
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "job-getid") == 0) {
        pmi_wire_begin(&out, 2, "job-getid-response");
        pmi_wire_add(&out, "jobid", pjob_of(job, r)->kvsname);
        pmi_wire_add_int(&out, "rc", 0);
        server_send(job, r, &out);
    } else if (strcmp(cmd, "info-getjobattr") == 0) {
        char num[32];
        key = pmi_wire_get(m, "key");
        val = NULL;
        if (key != NULL && strcmp(key, "PMI_process_mapping") == 0) {
            val = pjob_of(job, r)->mapping;
        } else if (key != NULL && strcmp(key, "universeSize") == 0) {
            snprintf(num, sizeof num, "%d", universe_size(job));
            val = num;
        }
        reply_found(job, r, "info-getjobattr-response", val);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        key = mpx_pmi_arg(m, "key", KEY_MAX);
        val = mpx_pmi_arg(m, "value", VAL_MAX);
        if (key == NULL || val == NULL)
            reply_rc(job, r, "kvs-put-response", -1, "missing or oversized key or value");
        else if (server_put(job, r, key, val) != 0)
            reply_rc(job, r, "kvs-put-response", -1, "KVS full");
        else
            reply_rc(job, r, "kvs-put-response", 0, NULL);
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        barrier_enter(job, r);
    } else if (strcmp(cmd, "kvs-get") == 0) {
        key = mpx_pmi_arg(m, "key", KEY_MAX);
        reply_found(job, r, "kvs-get-response",
                    key != NULL ? mpx_kvs_get(pjob_of(job, r)->kvs, key) : NULL);
    } else if (strcmp(cmd, "info-putnodeattr") == 0) {
        key = mpx_pmi_arg(m, "key", sizeof r->wait_key);
        val = mpx_pmi_arg(m, "value", VAL_MAX);
        if (key == NULL || val == NULL || mpx_kvs_put(server_nodeattr, key, val) != 0) {
            reply_rc(job, r, "info-putnodeattr-response", -1, "bad or oversized attribute");
        } else {
            reply_rc(job, r, "info-putnodeattr-response", 0, NULL);
            nodeattr_wake(job, key, val);
        }
    } else if (strcmp(cmd, "info-getnodeattr") == 0) {
        key = mpx_pmi_arg(m, "key", sizeof r->wait_key);
        val = key != NULL ? mpx_kvs_get(server_nodeattr, key) : NULL;
        if (val == NULL && key != NULL && is_true(pmi_wire_get(m, "wait"))) {
            r->waiting_nodeattr = 1;
            snprintf(r->wait_key, sizeof r->wait_key, "%s", key);
        } else {
            reply_found(job, r, "info-getnodeattr-response", val);
        }
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        reply_rc(job, r, "finalize-response", 0, NULL);
    } else if (strcmp(cmd, "abort") == 0) {
        handle_abort(job, r, m);
    } else if (strcmp(cmd, "name-publish") == 0) {
        names_request(job, r, 'p', mpx_pmi_arg(m, "name", KEY_MAX), mpx_pmi_arg(m, "port", VAL_MAX));
    } else if (strcmp(cmd, "name-lookup") == 0) {
        names_request(job, r, 'l', mpx_pmi_arg(m, "name", KEY_MAX), NULL);
    } else if (strcmp(cmd, "name-unpublish") == 0) {
        names_request(job, r, 'u', mpx_pmi_arg(m, "name", KEY_MAX), NULL);
    } else if (strcmp(cmd, "spawn") == 0) {
        pmi2_spawn(job, r, m);
    } else {
        char name[80];
        fprintf(stderr, "mpiexec: rank %d sent an unknown PMI-2 command '%.60s'\n", r->rank, cmd);
        snprintf(name, sizeof name, "%.60s-response", cmd);
        reply_rc(job, r, name, -1, "unknown command");
    }
}

/* ------------------------------------------------------------ input */

/* One complete message from rank r (body without framing). */
static int server_dispatch(mpx_job_t *job, mpx_rank_t *r, const char *body, size_t len)
{
    pmi_wire_msg_t *m = malloc(sizeof *m);
    int st;

    if (m == NULL)
        return -1;
    if (server_trace)
        trace_msg(job, r, "<<", body, len);
    if (r->pmi_version == 1 && r->in_mcmd) {
        pmi1_spawn_line(job, r, body, len);
        free(m);
        return 0;
    }
    st = r->pmi_version == 1 ? pmi_wire_parse1(body, len, m) : pmi_wire_parse2(body, len, m);
    if (st != 0) {
        fprintf(stderr,
                "mpiexec: rank %d sent a malformed PMI-%d message (%s); closing its PMI "
                "connection\n",
                r->rank, r->pmi_version, common_err_detail());
        free(m);
        return -1;
    }
    if (strcmp(m->key[0], "mcmd") == 0) {
        /* "mcmd=spawn": the lines of a block follow up to "endcmd" */
        r->in_mcmd = 1;
        if (r->spawn == NULL)
            r->spawn = calloc(1, sizeof *r->spawn);
        if (r->spawn != NULL && spawn_req_add(r->spawn, "mcmd=spawn", 10) != 0) {
            spawn_req_free(r->spawn);
            r->spawn = calloc(1, sizeof *r->spawn);
        }
    } else if (r->pmi_version == 1)
        pmi1_handle(job, r, m);
    else
        pmi2_handle(job, r, m);
    free(m);
    return 0;
}

void mpx_server_readable(mpx_job_t *job, mpx_rank_t *r)
{
    for (;;) {
        size_t room, len;
        char *space;
        ssize_t n;
        canal_status_t st;

        /* Handle every complete message already buffered first. */
        while (r->pmi_fd >= 0 &&
               (st = pmi_wire_reader_take(r->rd, server_msgbuf, sizeof server_msgbuf, &len)) != 0) {
            if (st < 0 || server_dispatch(job, r, server_msgbuf, len) != 0) {
                if (st < 0)
                    fprintf(stderr,
                            "mpiexec: rank %d sent a bad PMI message (%s); closing its PMI "
                            "connection\n",
                            r->rank, common_err_detail());
                server_close(job, r);
                return;
            }
        }
        if (r->pmi_fd < 0)
            return;
        space = pmi_wire_reader_space(r->rd, &room);
        n = recv(r->pmi_fd, space, room, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            server_close(job, r);
            return;
        }
        pmi_wire_reader_fill(r->rd, (size_t)n);
    }
}

/* ------------------------------------------------------------ the job */

int mpx_pjob_new(mpx_job_t *job, const char *kvsname, int size, int nlocal)
{
    mpx_pmijob_t *pjs, *pj;
    if (job->nranks + nlocal > 1000000) {
        fprintf(stderr, "mpiexec: more than 1000000 processes requested\n");
        return -1;
    }
    pjs = realloc(job->pjobs, (size_t)(job->npjobs + 1) * sizeof *pjs);
    if (pjs == NULL)
        return -1;
    job->pjobs = pjs;
    pj = &pjs[job->npjobs];
    memset(pj, 0, sizeof *pj);
    snprintf(pj->kvsname, sizeof pj->kvsname, "%s", kvsname);
    pj->size = size;
    pj->nlocal = nlocal;
    pj->first = job->nranks;
    pj->kvs = mpx_kvs_create();
    if (pj->kvs == NULL)
        return -1;
    if (job->nranks + nlocal > job->ranks_cap) {
        int cap = job->ranks_cap ? job->ranks_cap : 16;
        mpx_rank_t **rs;
        while (cap < job->nranks + nlocal)
            cap *= 2;
        rs = realloc(job->ranks, (size_t)cap * sizeof *rs);
        if (rs == NULL)
            return -1;
        job->ranks = rs;
        job->ranks_cap = cap;
    }
    return job->npjobs++;
}

mpx_rank_t *mpx_rank_new(mpx_job_t *job, int pj, int rank, int seg, int appnum)
{
    mpx_rank_t *r = calloc(1, sizeof *r);
    if (r == NULL || (r->rd = malloc(sizeof *r->rd)) == NULL || job->nranks == job->ranks_cap) {
        if (r != NULL)
            free(r->rd);
        free(r);
        fprintf(stderr, "mpiexec: no memory for %d ranks\n", job->nranks + 1);
        return NULL;
    }
    r->rank = rank;
    r->idx = job->nranks;
    r->pj = pj;
    r->seg = seg;
    r->appnum = appnum;
    r->pmi_fd = r->out.fd = r->err.fd = -1;
    r->out.to = 1;
    r->err.to = 2;
    r->pmi_version = 1;
    pmi_wire_reader_init(r->rd, 1);
    job->ranks[job->nranks++] = r;
    return r;
}

const mpx_server_ops_t mpx_server_local_ops = {
    .abort = local_abort,
    .spawn = local_spawn,
    .want_write = mpx_loop_want_write,
};
