/*
 * A job across hosts: mpiexec places the ranks on the hosts (mpiexec/hosts.c),
 * starts one proxy per host that got ranks (beyond -fanout hosts, the
 * proxies start each other as a tree: rm_tree) ("mpiexec -proxy HOST", same path
 * as this mpiexec) through the launcher -- ssh (or -launcher-exec) for other
 * hosts, fork for this one -- and sends each proxy the job over the proxy's
 * stdin (mpiexec/pxlink.c). Then it only relays: output lines (labelled with
 * -l), fences (one message per host each way, carrying the puts of all
 * hosts), aborts, exits, and signals. The first failure -- a rank that exits
 * with an error, is killed, aborts, or a proxy (or its ssh) that goes away --
 * is reported naming the rank and host, and every proxy is told to end its
 * ranks (SIGTERM, then SIGKILL); proxies that do not finish are killed.
 * Called by main() in mpiexec/mpiexec.c when mpx_hosts_remote() says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"
#include "mpiexec/pxlink.h"
#include "common/clock.h"

enum { RM_KILL_GRACE_MS = 3000, RM_PROXY_GRACE_MS = 4000, RM_LINE_MAX = 1 << 20,
       RM_STDIN_QUEUE_MAX = 1 << 20 };

typedef struct {
    char *buf;
    size_t len, cap;
} rm_buf_t;

/* A rank of any PMI job; its index in rm.ranks names it on the links. */
typedef struct {
    int host; /* index in opts->hostv */
    int pj, rank, seg, appnum;
    pid_t pid;
    int exited, status, finalized, aborted;
    rm_buf_t out[2];
} rm_rank_t;

/* A PMI job: the command line's (0), then one per spawn. */
typedef struct {
    char kvsname[256];
    int size, first; /* its ranks are rm.ranks[first .. first+size) */
    int nprox;       /* proxies that run some of them */
    int nfenced;     /* of those, proxies that sent this fence's puts */
    unsigned char *fenced; /* per host: its proxy sent them */
    mpx_frame_t batch;     /* the puts of the current fence */
    int nbatch;
} rm_pjob_t;

typedef struct {
    int host;
    pid_t pid; /* the launcher (ssh, srun, or the forked proxy) */
    int reaped, status;
    mpx_link_t link;
    int closed; /* its stdout reached end of file */
    int nranks;
    int syncing; /* an MPX_F_SYNC it has not answered */
    int via;     /* -1: its own link; else the proxy below mpiexec whose link
                  * carries its frames (MPX_F_ROUTE): it was started by a proxy */
} rm_proxy_t;

static struct {
    mpx_opts_t *o;
    const char *self, *cwd;
    int size, nexited; /* ranks of all PMI jobs */
    rm_rank_t *ranks;
    int nproxies;
    rm_proxy_t *proxies; /* a host whose proxy ended gets a new one for a spawn */
    int proxies_cap;
    int *proxy_of_host;
    int npjobs;
    rm_pjob_t *pjobs;
    int usize, spawn_next; /* the host a spawn without 'host' starts at */
    int failed, exit_code, tearing_down, timed_out;
    long long kill_deadline;
    /* an abort waits for the proxies' MPX_F_SYNC (rm_abort) */
    int abort_wait, abort_rank, abort_code;
    char abort_msg[256];
    /* mpiexec's stdin for rank 0 (rm_stdin) */
    int stdin_open;
    long long stdin_ahead; /* bytes sent that rank 0's proxy has not passed on */
} rm;

static const char *rm_host(int h)
{
    return rm.o->hostv[h].name;
}

/* "rank 3" for the command line's job, "rank 1 of spawned job 2" otherwise. */
static const char *rm_name(int g)
{
    static char name[64];
    if (rm.ranks[g].pj == 0)
        snprintf(name, sizeof name, "rank %d", rm.ranks[g].rank);
    else
        snprintf(name, sizeof name, "rank %d of spawned job %d", rm.ranks[g].rank, rm.ranks[g].pj);
    return name;
}

/* The link that carries proxy p's frames. */
static mpx_link_t *rm_link(int p)
{
    return &rm.proxies[rm.proxies[p].via >= 0 ? rm.proxies[p].via : p].link;
}

/* Send frame f to proxy p (wrapped for its route when a proxy started it);
 * 0, or -1 when the link is broken. */
static int rm_send(int p, mpx_frame_t *f)
{
    mpx_frame_t w = {0};
    int rc;
    if (rm.proxies[p].via < 0)
        return mpx_link_send(&rm.proxies[p].link, f);
    if (f->bad || f->len < 5)
        return -1;
    mpx_frame_wrap(&w, rm_host(rm.proxies[p].host), f->buf + 4, f->len - 4);
    rc = w.bad ? -1 : mpx_link_send(rm_link(p), &w);
    mpx_frame_free(&w);
    return rc;
}

static void rm_send_all(mpx_frame_t *f)
{
    for (int p = 0; p < rm.nproxies; p++)
        if (!rm.proxies[p].closed)
            rm_send(p, f);
}

static void rm_teardown(void)
{
    mpx_frame_t f = {0};
    if (rm.tearing_down)
        return;
    rm.tearing_down = 1;
    mpx_frame_begin(&f, MPX_F_KILL);
    rm_send_all(&f);
    mpx_frame_free(&f);
    rm.kill_deadline = common_now_ms() + RM_KILL_GRACE_MS + RM_PROXY_GRACE_MS;
}

static void rm_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rm_fail(int code, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    if (rm.failed)
        return;
    rm.failed = 1;
    rm.exit_code = code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec: %s\n", msg);
    rm_teardown();
}

/* ------------------------------------------------------------ output */

static void rm_write(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* our output is gone: drop the ranks' output */
        buf += n;
        len -= (size_t)n;
    }
}

/* Write the complete lines of rank r's stream (all of it when final). */
static void rm_emit(int r, int stream, int final)
{
    rm_buf_t *b = &rm.ranks[r].out[stream - 1];
    size_t end = b->len, i = 0;
    char label[32];
    int llen = rm.ranks[r].pj == 0
                   ? snprintf(label, sizeof label, "[%d] ", rm.ranks[r].rank)
                   : snprintf(label, sizeof label, "[%d:%d] ", rm.ranks[r].pj, rm.ranks[r].rank);

    if (!final) {
        while (end > 0 && b->buf[end - 1] != '\n')
            end--;
        if (end == 0 && b->len >= RM_LINE_MAX)
            end = b->len;
    }
    if (end == 0)
        return;
    if (!rm.o->label) {
        rm_write(stream, b->buf, end);
    } else {
        while (i < end) {
            size_t j = i;
            while (j < end && b->buf[j] != '\n')
                j++;
            rm_write(stream, label, (size_t)llen);
            rm_write(stream, b->buf + i, j - i);
            rm_write(stream, "\n", 1);
            i = j + 1;
        }
    }
    memmove(b->buf, b->buf + end, b->len - end);
    b->len -= end;
}

static void rm_output(int r, int stream, const char *data, size_t n)
{
    rm_buf_t *b = &rm.ranks[r].out[stream - 1];
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        char *p;
        while (cap < b->len + n)
            cap *= 2;
        if ((p = realloc(b->buf, cap)) == NULL)
            return;
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    rm_emit(r, stream, 0);
}

/* ------------------------------------------------------------ events from proxies */

static const char *rm_sig_name(int sig)
{
    const char *d = strsignal(sig);
    return d != NULL ? d : "unknown signal";
}

/* A rank of PMI job pj left without finalizing while some host waits in
 * its fence: that fence can never complete. */
static void rm_check_fence(int pj)
{
    rm_pjob_t *j = &rm.pjobs[pj];
    if (j->nfenced == 0 || rm.tearing_down)
        return;
    for (int g = j->first; g < j->first + j->size; g++)
        if (rm.ranks[g].exited && !rm.ranks[g].finalized) {
            rm_fail(1,
                    "%s on host %s has exited, so the PMI barrier (MPI_Init, fence) other ranks "
                    "wait in can never complete",
                    rm_name(g), rm_host(rm.ranks[g].host));
            return;
        }
}

static void rm_rank_exit(int r, int status, int initialized, int finalized)
{
    rm_rank_t *k = &rm.ranks[r];
    const char *prog = rm.o->segs[k->seg].argv[0];
    if (k->exited)
        return;
    k->exited = 1;
    k->status = status;
    k->finalized = finalized;
    rm.nexited++;
    /* a rank that aborted exits as it was told: its abort tells why */
    if (rm.tearing_down || k->aborted)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        rm_fail(128 + sig, "%s (pid %ld, %s) on host %s was killed by signal %d (%s)", rm_name(r),
                (long)k->pid, prog, rm_host(k->host), sig, rm_sig_name(sig));
    } else if (WEXITSTATUS(status) != 0) {
        rm_fail(WEXITSTATUS(status), "%s (pid %ld, %s) on host %s exited with code %d%s",
                rm_name(r), (long)k->pid, prog, rm_host(k->host), WEXITSTATUS(status),
                initialized && !finalized ? " before MPI_Finalize" : "");
    } else if (initialized && !finalized && rm.nexited < rm.size) {
        rm_fail(1,
                "%s (pid %ld, %s) on host %s exited without calling MPI_Finalize while "
                "other ranks still run",
                rm_name(r), (long)k->pid, prog, rm_host(k->host));
    }
    rm_check_fence(k->pj);
}

static void rm_fence(int p, mpx_fields_t *c, const char *body, size_t len)
{
    int pj = (int)mpx_fields_int(c, 0, rm.npjobs - 1);
    long long n = mpx_fields_int(c, 0, 100000000);
    rm_pjob_t *j = &rm.pjobs[pj];
    /* the pairs start after the count field */
    size_t off = c->k < c->nf ? (size_t)(c->fl[c->k] - body) : len;

    int h = rm.proxies[p].host;

    if (c->bad || c->nf != c->k + 2 * n || j->fenced[h]) {
        rm_fail(255, "the proxy on host %s sent a malformed fence",
                rm_host(rm.proxies[p].host));
        return;
    }
    j->fenced[h] = 1;
    j->nfenced++;
    mpx_frame_raw(&j->batch, body + off, len - off);
    j->nbatch += (int)n;
    if (j->nfenced < j->nprox) {
        rm_check_fence(pj);
        return;
    }
    {
        mpx_frame_t f = {0};
        mpx_frame_begin(&f, MPX_F_FENCE);
        mpx_frame_int(&f, pj);
        mpx_frame_int(&f, j->nbatch);
        mpx_frame_raw(&f, j->batch.buf, j->batch.len);
        for (int q = 0; q < rm.nproxies; q++)
            if (!rm.proxies[q].closed && j->fenced[rm.proxies[q].host])
                rm_send(q, &f);
        mpx_frame_free(&f);
    }
    j->batch.len = 0;
    j->nbatch = 0;
    j->nfenced = 0;
    memset(j->fenced, 0, (size_t)rm.o->nhosts);
}

/* A rank aborted. A survivor aborts when a peer failed, and the peer's
 * death may still be on its way from another host: every proxy first
 * reports the ranks that are dying there (MPX_F_SYNC), and a death reported
 * meanwhile ends the job with that rank's signal or exit code. The abort is
 * the verdict only when nobody died. */
static void rm_abort(int r, int code, const char *msg)
{
    mpx_frame_t f = {0};
    rm.ranks[r].aborted = 1;
    if (rm.failed || rm.abort_wait > 0)
        return;
    rm.abort_rank = r;
    rm.abort_code = code;
    snprintf(rm.abort_msg, sizeof rm.abort_msg, "%s", msg);
    mpx_frame_begin(&f, MPX_F_SYNC);
    for (int p = 0; p < rm.nproxies; p++)
        if (!rm.proxies[p].closed && rm_send(p, &f) == 0) {
            rm.proxies[p].syncing = 1;
            rm.abort_wait++;
        }
    mpx_frame_free(&f);
    if (rm.abort_wait == 0) /* no proxy left to ask */
        rm_fail(code, "%s (pid %ld) on host %s called MPI_Abort with exit code %d%s%.200s",
                rm_name(r), (long)rm.ranks[r].pid, rm_host(rm.ranks[r].host), code,
                *msg ? ": " : "", msg);
}

/* Proxy p answered the MPX_F_SYNC (or is gone). */
static void rm_synced(int p)
{
    int r = rm.abort_rank;
    if (!rm.proxies[p].syncing)
        return;
    rm.proxies[p].syncing = 0;
    if (--rm.abort_wait > 0)
        return;
    rm_fail(rm.abort_code, "%s (pid %ld) on host %s called MPI_Abort with exit code %d%s%.200s",
            rm_name(r), (long)rm.ranks[r].pid, rm_host(rm.ranks[r].host), rm.abort_code,
            rm.abort_msg[0] ? ": " : "", rm.abort_msg);
}

static int rm_spawn(int p, mpx_fields_t *c);
static int rm_names(int p, mpx_fields_t *c);
static void rm_proxy_closed(int p, const char *why);

/* Is rank r one this proxy runs? */
static int rm_rank_of(int p, mpx_fields_t *c)
{
    int r = (int)mpx_fields_int(c, 0, rm.size - 1);
    if (!c->bad && rm.ranks[r].host != rm.proxies[p].host)
        c->bad = 1;
    return r;
}

static void rm_frame(int p, const char *body, size_t len)
{
    rm_proxy_t *px = &rm.proxies[p]; /* not after rm_spawn: it may add proxies */
    mpx_fields_t c;
    size_t rest = 0;
    int r;

    if (body[0] == MPX_F_ROUTE) {
        /* from a proxy below the one on this link: as if from its own */
        const char *host, *inner;
        size_t ilen;
        int q = -1;
        if (mpx_frame_unwrap(body, len, &host, &inner, &ilen) == 0)
            for (int k = 0; k < rm.nproxies; k++)
                if (rm.proxies[k].via == p && strcmp(rm_host(rm.proxies[k].host), host) == 0)
                    q = k;
        if (q < 0 || inner[0] == MPX_F_ROUTE) {
            rm_fail(255, "the proxy on host %s relayed a malformed message", rm_host(px->host));
            return;
        }
        if (inner[0] == MPX_F_GONE) {
            const char *fl[1];
            int nf = mpx_frame_fields(inner, ilen, fl, 1, NULL);
            rm_proxy_closed(q, nf == 1 ? fl[0] : "its relay says it is gone");
            return;
        }
        if (!rm.proxies[q].closed)
            rm_frame(q, inner, ilen);
        return;
    }

    if (body[0] == MPX_F_OUTPUT) {
        const char *fl[2];
        int bad = 0, nf = mpx_frame_fields(body, len, fl, 2, &rest), stream;
        r = nf == 2 ? (int)mpx_field_int(fl[0], 0, rm.size - 1, &bad) : (bad = 1);
        stream = nf == 2 ? (int)mpx_field_int(fl[1], 1, 2, &bad) : 1;
        if (!bad && rm.ranks[r].host == px->host)
            rm_output(r, stream, body + rest, len - rest);
        else
            rm_fail(255, "the proxy on host %s sent malformed output", rm_host(px->host));
        return;
    }
    if (mpx_fields_split(body, len, &c, &rest) != 0) {
        rm_fail(255, "the proxy on host %s sent a malformed message ('%c')", rm_host(px->host),
                body[0]);
        return;
    }
    switch (body[0]) {
    case MPX_F_HELLO:
        if (rm.o->verbose && c.nf >= 1)
            fprintf(stderr, "mpiexec: proxy on host %s is up (hostname %s)\n", rm_host(px->host),
                    c.fl[0]);
        break;
    case MPX_F_FENCE:
        rm_fence(p, &c, body, len);
        break;
    case MPX_F_STARTED:
        r = rm_rank_of(p, &c);
        if (!c.bad)
            rm.ranks[r].pid = (pid_t)mpx_fields_int(&c, 1, INT_MAX);
        break;
    case MPX_F_EXIT: {
        int status, ini, fin;
        r = rm_rank_of(p, &c);
        status = (int)mpx_fields_int(&c, 0, INT_MAX);
        ini = (int)mpx_fields_int(&c, 0, 1);
        fin = (int)mpx_fields_int(&c, 0, 1);
        if (!c.bad)
            rm_rank_exit(r, status, ini, fin);
        break;
    }
    case MPX_F_ABORT: {
        int code;
        const char *msg;
        r = rm_rank_of(p, &c);
        code = (int)mpx_fields_int(&c, INT_MIN, INT_MAX);
        msg = mpx_fields_str(&c);
        if (!c.bad)
            rm_abort(r, code, msg);
        break;
    }
    case MPX_F_SYNC:
        rm_synced(p);
        break;
    case MPX_F_STDIN:
        /* rank 0's proxy passed on (or dropped) so many bytes: at most what
         * is ahead, which can pass RM_STDIN_QUEUE_MAX by one read (the
         * proxy acknowledges a whole write loop at once, and a rank 0 that
         * reads while the loop writes takes more than a pipe's worth) */
        rm.stdin_ahead -= mpx_fields_int(&c, 0, rm.stdin_ahead);
        break;
    case MPX_F_SPAWN:
        if (rm_spawn(p, &c) != 0)
            c.bad = 1;
        px = &rm.proxies[p];
        break;
    case MPX_F_NAME:
        if (rm_names(p, &c) != 0)
            c.bad = 1;
        break;
    case MPX_F_ERROR:
        if (c.nf >= 1)
            fprintf(stderr, "mpiexec: host %s: %s\n", rm_host(px->host), c.fl[0]);
        break;
    default:
        c.bad = 1;
    }
    if (c.bad)
        rm_fail(255, "the proxy on host %s sent a malformed message ('%c')", rm_host(px->host),
                body[0]);
    free(c.fl);
}

/* The proxy's link closed: ranks it did not report are lost. */
static void rm_proxy_closed(int p, const char *why)
{
    rm_proxy_t *px = &rm.proxies[p];
    int lost = 0;
    char names[200] = "";
    if (px->closed)
        return;
    px->closed = 1;
    if (px->link.rfd >= 0)
        close(px->link.rfd);
    if (px->link.wfd >= 0)
        close(px->link.wfd);
    px->link.rfd = px->link.wfd = -1;
    for (int r = 0; r < rm.size; r++)
        if (rm.ranks[r].host == px->host && !rm.ranks[r].exited) {
            size_t k = strlen(names);
            if (lost < 8)
                snprintf(names + k, sizeof names - k, "%s%d", lost ? ", " : "", r);
            else if (lost == 8)
                snprintf(names + k, sizeof names - k, ", ...");
            lost++;
            rm.ranks[r].exited = 1;
            rm.ranks[r].status = 255 << 8;
            rm.nexited++;
        }
    if (lost > 0 && !rm.tearing_down)
        rm_fail(255,
                "lost the proxy on host %s (%s): rank%s %s ran there; ending the job on all hosts",
                rm_host(px->host), why, lost > 1 ? "s" : "", names);
    rm_synced(p);
    /* the proxies whose frames came through it are cut off too */
    for (int q = 0; q < rm.nproxies; q++)
        if (rm.proxies[q].via == p && !rm.proxies[q].closed) {
            char w[400];
            snprintf(w, sizeof w, "the proxy on host %.300s, which relayed it, is gone",
                     rm_host(rm.proxies[p].host));
            rm_proxy_closed(q, w);
        }
}

/* ------------------------------------------------------------ start */

/* 'word' for a POSIX shell */
static void rm_quote(char *out, size_t len, const char *word)
{
    size_t k = 0;
    if (k + 1 < len)
        out[k++] = '\'';
    for (const char *p = word; *p != '\0' && k + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *p;
        }
    }
    if (k + 1 < len)
        out[k++] = '\'';
    out[k] = '\0';
}

pid_t mpx_proxy_launch(const char *self, const char *how, const char *launcher_exec, int fork_it,
                       const char *host, int verbose, int *rfd, int *wfd)
{
    int slurm = how != NULL && strcmp(how, "slurm") == 0;
    const char *ssh = launcher_exec != NULL ? launcher_exec : slurm ? "srun" : "ssh";
    int in[2], out[2];
    char cmd[8192], qself[4200], qhost[600], nodelist[300];
    pid_t pid;

    fork_it = fork_it && !slurm;
    if (pipe2(in, O_CLOEXEC) != 0) {
        fprintf(stderr, "mpiexec: pipe: %s\n", strerror(errno));
        return -1;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        fprintf(stderr, "mpiexec: pipe: %s\n", strerror(errno));
        close(in[0]);
        close(in[1]);
        return -1;
    }
    rm_quote(qself, sizeof qself, self);
    rm_quote(qhost, sizeof qhost, host);
    snprintf(cmd, sizeof cmd, "exec %s -proxy %s", qself, qhost);
    snprintf(nodelist, sizeof nodelist, "--nodelist=%s", host);
    if (verbose)
        fprintf(stderr, "mpiexec: starting the proxy on host %s: %s%s%s %s\n", host,
                fork_it ? "" : ssh, fork_it ? "" : slurm ? " -N1 -n1 " : " -x ",
                fork_it ? "" : slurm ? nodelist : host, fork_it ? cmd + 5 : cmd);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpiexec: fork: %s\n", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        setpgid(0, 0);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (fork_it) {
            execl(self, self, "-proxy", host, (char *)NULL);
            fprintf(stderr, "mpiexec: cannot run '%s' as the proxy: %s\n", self, strerror(errno));
        } else if (slurm) {
            /* stdin and stdout carry the link: unbuffered, not labelled, to
             * the one task; the proxy's ranks are its own children */
            execlp(ssh, ssh, "--nodes=1", "--ntasks=1", nodelist, "--unbuffered", "--quiet",
                   "--overlap", "--cpu-bind=none", "--mpi=none", "--input=0", "--kill-on-bad-exit=1",
                   self, "-proxy", host, (char *)NULL);
            fprintf(stderr, "mpiexec: cannot run '%s' for host %s: %s\n", ssh, host,
                    strerror(errno));
        } else {
            execlp(ssh, ssh, "-x", host, cmd, (char *)NULL);
            fprintf(stderr, "mpiexec: cannot run the launcher '%s' for host %s: %s\n", ssh, host,
                    strerror(errno));
        }
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    *rfd = out[0];
    *wfd = in[1];
    return pid;
}

int mpx_tree_fanout(const mpx_opts_t *o)
{
    const char *e = getenv("CANAL_MPIEXEC_FANOUT");
    if (o != NULL && o->fanout > 0)
        return o->fanout;
    if (e != NULL && atoi(e) >= 2)
        return atoi(e);
    return 32;
}

/* A new entry in rm.proxies for host h; its index, or -1. */
static int rm_proxy_new(int h)
{
    int p = rm.nproxies;
    if (p == rm.proxies_cap) {
        int cap = rm.proxies_cap * 2 + 4;
        rm_proxy_t *v = realloc(rm.proxies, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        rm.proxies = v;
        rm.proxies_cap = cap;
    }
    memset(&rm.proxies[p], 0, sizeof rm.proxies[p]);
    rm.proxies[p].host = h;
    rm.proxies[p].via = -1;
    mpx_link_init(&rm.proxies[p].link, -1, -1);
    rm.proxy_of_host[h] = p;
    rm.nproxies++;
    return p;
}

/* Start the proxy of host h: fork (this host, -launcher fork), srun
 * (-launcher slurm: one step of one task on that node, inside the
 * allocation, as Hydra does), or ssh / -launcher-exec. Its index, or -1. */
static int rm_launch(int h)
{
    const mpx_host_t *host = &rm.o->hostv[h];
    const char *how = rm.o->launcher;
    int fork_it = (how != NULL && strcmp(how, "fork") == 0) ||
                  (host->local && rm.o->launcher_exec == NULL && how == NULL);
    int rfd, wfd, p;
    pid_t pid = mpx_proxy_launch(rm.self, how, rm.o->launcher_exec, fork_it, host->name,
                                 rm.o->verbose, &rfd, &wfd);
    if (pid < 0)
        return -1;
    if ((p = rm_proxy_new(h)) < 0) {
        close(rfd);
        close(wfd);
        return -1;
    }
    rm.proxies[p].pid = pid;
    mpx_link_init(&rm.proxies[p].link, rfd, wfd);
    return p;
}

/* More hosts than the fan-out F: mpiexec starts the proxies of the first F
 * hosts (in host order), and each proxy starts up to F more, breadth first:
 * host i (i >= F) hangs below host i/F - 1. A proxy below mpiexec gets the
 * list of the proxies below it (MPX_F_TREE, before anything else), starts
 * its own children with the same launcher, and relays frames both ways
 * (MPX_F_ROUTE); mpiexec keeps an entry per host as before, whose frames go
 * through the link of the proxy below mpiexec it hangs from (via). Every
 * message still names its host, so the rest of this file does not change:
 * what the tree saves is mpiexec's connections and launches (F instead of
 * one per host), and the launches run in parallel down the tree. 0 or -1. */
static int rm_tree(const int *host_of)
{
    int fan = mpx_tree_fanout(rm.o), n = 0, *list, *top, rc = 0;
    unsigned char *used = calloc((size_t)rm.o->nhosts, 1);
    if (used == NULL)
        return -1;
    for (int r = 0; r < rm.size; r++)
        used[host_of[r]] = 1;
    for (int h = 0; h < rm.o->nhosts; h++)
        n += used[h];
    if (n <= fan) {
        free(used);
        return 0;
    }
    list = malloc((size_t)n * sizeof *list);
    top = malloc((size_t)n * sizeof *top);
    if (list == NULL || top == NULL) {
        free(used);
        free(list);
        free(top);
        return -1;
    }
    n = 0;
    for (int h = 0; h < rm.o->nhosts; h++)
        if (used[h])
            list[n++] = h;
    for (int i = 0; i < n && rc == 0; i++) {
        int p;
        if (i < fan) {
            top[i] = p = rm_launch(list[i]);
        } else {
            top[i] = top[i / fan - 1];
            p = rm_proxy_new(list[i]);
            if (p >= 0)
                rm.proxies[p].via = top[i];
        }
        if (p < 0)
            rc = -1;
    }
    for (int t = 0; t < fan && rc == 0; t++) {
        mpx_frame_t f = {0};
        int below = 0;
        for (int i = fan; i < n; i++)
            below += top[i] == top[t];
        if (below == 0)
            continue;
        mpx_frame_begin(&f, MPX_F_TREE);
        mpx_frame_str(&f, rm.o->launcher != NULL ? rm.o->launcher : "");
        mpx_frame_str(&f, rm.o->launcher_exec != NULL ? rm.o->launcher_exec : "");
        mpx_frame_int(&f, below);
        for (int i = fan; i < n; i++)
            if (top[i] == top[t]) {
                mpx_frame_str(&f, rm_host(list[i]));
                mpx_frame_str(&f, rm_host(list[i / fan - 1]));
            }
        if (rm.o->verbose)
            fprintf(stderr, "mpiexec: the proxy on host %s starts %d proxies below it\n",
                    rm_host(list[t]), below);
        if (f.bad || (mpx_link_send(&rm.proxies[top[t]].link, &f) != 0 &&
                      !rm.proxies[top[t]].link.broken))
            rc = -1;
        mpx_frame_free(&f);
    }
    free(used);
    free(list);
    free(top);
    return rc;
}

/* The part of a job frame that describes PMI job pj for proxy p: see
 * proxy.c px_add_job(). segenv: the environment of segments seg0.. */
static void rm_job_part(mpx_frame_t *f, int p, int pj, const char *spawner, const char *mapping,
                        int seg0, int nsegs, const mpx_env_t *segenv, const mpx_spawn_plan_t *sp)
{
    const rm_pjob_t *j = &rm.pjobs[pj];
    int host = rm.proxies[p].host, nlocal = 0;
    mpx_frame_int(f, pj);
    mpx_frame_str(f, j->kvsname);
    mpx_frame_str(f, spawner);
    mpx_frame_int(f, j->size);
    mpx_frame_str(f, mapping);
    mpx_frame_int(f, nsegs);
    for (int s = seg0; s < seg0 + nsegs; s++) {
        const mpx_segment_t *g = &rm.o->segs[s];
        int argc = 0;
        while (g->argv[argc] != NULL)
            argc++;
        mpx_frame_str(f, g->wdir != NULL ? g->wdir : rm.cwd);
        mpx_frame_int(f, argc);
        for (int a = 0; a < argc; a++)
            mpx_frame_str(f, g->argv[a]);
        mpx_frame_int(f, segenv[s - seg0].n);
        for (int e = 0; e < segenv[s - seg0].n; e++)
            mpx_frame_str(f, segenv[s - seg0].kv[e]);
    }
    for (int g = j->first; g < j->first + j->size; g++)
        nlocal += rm.ranks[g].host == host;
    mpx_frame_int(f, nlocal);
    for (int g = j->first; g < j->first + j->size; g++)
        if (rm.ranks[g].host == host) {
            mpx_frame_int(f, g);
            mpx_frame_int(f, rm.ranks[g].rank);
            mpx_frame_int(f, rm.ranks[g].seg - seg0);
            mpx_frame_int(f, rm.ranks[g].appnum);
        }
    mpx_frame_int(f, sp != NULL ? sp->npreput : 0);
    for (int k = 0; sp != NULL && k < sp->npreput; k++) {
        mpx_frame_str(f, sp->pkey[k]);
        mpx_frame_str(f, sp->pval[k]);
    }
}

/* Add PMI job pj (ranks already in rm.ranks, placed): start a proxy on the
 * hosts that have none and send every host of it its part. 0 or -1. */
static int rm_start_pjob(int pj, const char *spawner, int seg0, int nsegs,
                         const mpx_spawn_plan_t *sp)
{
    rm_pjob_t *j = &rm.pjobs[pj];
    mpx_env_t *segenv = calloc((size_t)nsegs, sizeof *segenv);
    int *host_of = malloc((size_t)j->size * sizeof *host_of), rc = 0;
    char *mapping = malloc(8192);

    if (segenv == NULL || host_of == NULL || mapping == NULL)
        goto fail;
    for (int k = 0; k < j->size; k++)
        host_of[k] = rm.ranks[j->first + k].host;
    if (mpx_hosts_mapping(host_of, j->size, mapping, 8192) != 0) {
        fprintf(stderr,
                "mpiexec: the placement of %d ranks on %d hosts is too irregular for "
                "PMI_process_mapping; give the hosts equal slot counts or use -ppn\n",
                j->size, rm.o->nhosts);
        goto fail;
    }
    for (int s = 0; s < nsegs; s++)
        if (mpx_segment_env(rm.o, &rm.o->segs[seg0 + s], &segenv[s]) != 0)
            goto fail;
    if (pj > 0) /* the children know they were spawned */
        for (int s = 0; s < nsegs; s++)
            if (mpx_env_add(&segenv[s], "PMI_SPAWNED", "1") != 0)
                goto fail;
    for (int h = 0; h < rm.o->nhosts && rc == 0; h++) {
        mpx_frame_t f = {0};
        int p = rm.proxy_of_host[h], has = 0;
        for (int k = 0; k < j->size; k++)
            has |= host_of[k] == h;
        if (!has)
            continue;
        /* a host without a proxy, or whose proxy ended (its ranks did), gets one */
        if ((p < 0 || rm.proxies[p].closed) && (p = rm_launch(h)) < 0)
            goto fail;
        j->nprox++;
        if (rm.proxies[p].nranks == 0) {
            mpx_frame_begin(&f, MPX_F_JOB); /* a new proxy: the job frame first */
            mpx_frame_int(&f, rm.usize);
            mpx_frame_str(&f, rm.o->iface != NULL ? rm.o->iface : "");
        } else {
            mpx_frame_begin(&f, MPX_F_ADDJOB);
        }
        rm_job_part(&f, p, pj, spawner, mapping, seg0, nsegs, segenv, sp);
        for (int k = 0; k < j->size; k++)
            rm.proxies[p].nranks += host_of[k] == h;
        /* a launcher that exits at once breaks the pipe: its end of file
         * then reports it with its exit status */
        if (f.bad || (rm_send(p, &f) != 0 && !rm_link(p)->broken))
            rc = -1;
        mpx_frame_free(&f);
    }
    goto done;
fail:
    rc = -1;
done:
    for (int s = 0; segenv != NULL && s < nsegs; s++) {
        for (int k = 0; k < segenv[s].n; k++)
            free(segenv[s].kv[k]);
        free(segenv[s].kv);
    }
    free(segenv);
    free(host_of);
    free(mapping);
    return rc;
}

/* A new PMI job of size ranks; its index or -1. Its ranks get their hosts
 * from the caller. */
static int rm_new_pjob(int size)
{
    rm_pjob_t *pjs = realloc(rm.pjobs, (size_t)(rm.npjobs + 1) * sizeof *pjs);
    rm_rank_t *rs;
    rm_pjob_t *j;
    if (pjs == NULL)
        return -1;
    rm.pjobs = pjs;
    if (rm.size + size > 1000000 ||
        (rs = realloc(rm.ranks, (size_t)(rm.size + size) * sizeof *rs)) == NULL)
        return -1;
    rm.ranks = rs;
    memset(rs + rm.size, 0, (size_t)size * sizeof *rs);
    j = &rm.pjobs[rm.npjobs];
    memset(j, 0, sizeof *j);
    if ((j->fenced = calloc((size_t)rm.o->nhosts, 1)) == NULL)
        return -1;
    j->size = size;
    j->first = rm.size;
    for (int k = 0; k < size; k++) {
        rm.ranks[rm.size + k].pj = rm.npjobs;
        rm.ranks[rm.size + k].rank = k;
    }
    rm.size += size;
    if (rm.npjobs > 0)
        snprintf(j->kvsname, sizeof j->kvsname, "%.200s_spawn%d", rm.pjobs[0].kvsname, rm.npjobs);
    return rm.npjobs++;
}

/* ------------------------------------------------------------ spawn */

static int rm_host_index(const char *name)
{
    for (int h = 0; h < rm.o->nhosts; h++)
        if (strcmp(rm.o->hostv[h].name, name) == 0)
            return h;
    return -1;
}

/* Place, register and start a spawn; the kvsname of the new job, or NULL
 * and errmsg. Children go to the host named by their command's 'host' info
 * key, which must be one of the job's hosts, else round robin over the job's
 * hosts, one child per host in turn, continuing where the last spawn
 * stopped. */
static const char *rm_spawn_run(int parent, const mpx_spawn_plan_t *sp, char *errmsg, size_t len)
{
    mpx_opts_t *o = rm.o;
    int total = 0, seg0 = o->nsegs, pj, g, host[MPX_SPAWN_CMDS_MAX];
    mpx_segment_t *segs;

    if (sp->ncmds < 1) {
        snprintf(errmsg, len, "spawn without commands");
        return NULL;
    }
    for (int i = 0; i < sp->ncmds; i++) {
        const mpx_spawn_cmd_t *c = &sp->cmd[i];
        if (c->cmd == NULL || *c->cmd == '\0' || c->maxprocs < 1 || c->maxprocs > 100000) {
            snprintf(errmsg, len, "spawn command %d has no program or a bad process count", i);
            return NULL;
        }
        host[i] = -1;
        if (c->host != NULL && (host[i] = rm_host_index(c->host)) < 0) {
            snprintf(errmsg, len,
                     "info key 'host' of spawn command %d: '%.100s' is not one of this job's "
                     "hosts (-hosts/-f)",
                     i, c->host);
            return NULL;
        }
        total += c->maxprocs;
    }
    segs = realloc(o->segs, (size_t)(o->nsegs + sp->ncmds) * sizeof *segs);
    if (segs == NULL)
        goto nomem;
    o->segs = segs;
    for (int i = 0; i < sp->ncmds; i++) {
        const mpx_spawn_cmd_t *c = &sp->cmd[i];
        mpx_segment_t *s = &o->segs[o->nsegs];
        memset(s, 0, sizeof *s);
        s->nprocs = c->maxprocs;
        if ((s->argv = calloc((size_t)c->argc + 2, sizeof(char *))) == NULL ||
            (s->argv[0] = strdup(c->cmd)) == NULL)
            goto nomem;
        for (int a = 0; a < c->argc; a++)
            if ((s->argv[a + 1] = strdup(c->argv[a] != NULL ? c->argv[a] : "")) == NULL)
                goto nomem;
        s->wdir = c->wdir != NULL && *c->wdir != '\0' ? strdup(c->wdir)
                                                       : o->segs[rm.ranks[parent].seg].wdir;
        o->nsegs++;
    }
    if ((pj = rm_new_pjob(total)) < 0)
        goto nomem;
    g = rm.pjobs[pj].first;
    for (int i = 0; i < sp->ncmds; i++)
        for (int k = 0; k < sp->cmd[i].maxprocs; k++, g++) {
            rm.ranks[g].seg = seg0 + i;
            rm.ranks[g].appnum = i;
            if (host[i] >= 0) {
                rm.ranks[g].host = host[i];
            } else {
                rm.ranks[g].host = rm.spawn_next;
                rm.spawn_next = (rm.spawn_next + 1) % o->nhosts;
            }
        }
    if (o->verbose)
        fprintf(stderr, "mpiexec: %s spawns %d process%s as job %s\n", rm_name(parent), total,
                total == 1 ? "" : "es", rm.pjobs[pj].kvsname);
    if (rm_start_pjob(pj, rm.pjobs[rm.ranks[parent].pj].kvsname, seg0, sp->ncmds, sp) != 0) {
        /* what did start is told to end with the rest of the job */
        snprintf(errmsg, len, "could not start the spawned processes");
        rm_fail(1, "could not start the processes %s spawned", rm_name(parent));
        return NULL;
    }
    return rm.pjobs[pj].kvsname;
nomem:
    snprintf(errmsg, len, "no memory");
    return NULL;
}

/* MPX_F_SPAWN from proxy p: rank ncmds {cmd maxprocs wdir host argc argv..}
 * npreput {key value}; answer it. 0, or -1 when malformed. */
static int rm_spawn(int p, mpx_fields_t *c)
{
    mpx_spawn_plan_t *sp = calloc(1, sizeof *sp);
    char errmsg[300] = "";
    const char *jobid = NULL;
    mpx_frame_t f = {0};
    int r;

    if (sp == NULL)
        return -1;
    r = rm_rank_of(p, c);
    sp->ncmds = (int)mpx_fields_int(c, 1, MPX_SPAWN_CMDS_MAX);
    for (int i = 0; i < sp->ncmds && !c->bad; i++) {
        mpx_spawn_cmd_t *k = &sp->cmd[i];
        k->cmd = mpx_fields_str(c);
        k->maxprocs = (int)mpx_fields_int(c, -1, 100000);
        k->wdir = mpx_fields_str(c);
        k->host = mpx_fields_str(c);
        if (*k->host == '\0')
            k->host = NULL;
        k->argc = (int)mpx_fields_int(c, 0, MPX_SPAWN_ARGS_MAX);
        for (int a = 0; a < k->argc; a++)
            k->argv[a] = mpx_fields_str(c);
    }
    sp->npreput = (int)mpx_fields_int(c, 0, MPX_SPAWN_PREPUT_MAX);
    for (int k = 0; k < sp->npreput; k++) {
        sp->pkey[k] = mpx_fields_str(c);
        sp->pval[k] = mpx_fields_str(c);
    }
    if (c->bad || c->k != c->nf) {
        free(sp);
        return -1;
    }
    if (rm.tearing_down)
        snprintf(errmsg, sizeof errmsg, "the job is ending");
    else
        jobid = rm_spawn_run(r, sp, errmsg, sizeof errmsg);
    mpx_frame_begin(&f, MPX_F_SPAWN);
    mpx_frame_int(&f, r);
    mpx_frame_str(&f, jobid != NULL ? jobid : "");
    mpx_frame_str(&f, errmsg);
    if (!rm.proxies[p].closed)
        rm_send(p, &f);
    mpx_frame_free(&f);
    free(sp);
    return 0;
}

/* MPX_F_NAME from proxy p: rank op service port. Published names are this
 * mpiexec's, shared by all its PMI jobs on every host; answer with the
 * status (and the port of a lookup). 0, or -1 when malformed. */
static int rm_names(int p, mpx_fields_t *c)
{
    int r = rm_rank_of(p, c), st;
    const char *op = mpx_fields_str(c), *service = mpx_fields_str(c), *port = mpx_fields_str(c);
    const char *found = NULL;
    mpx_frame_t f = {0};
    if (c->bad || c->k != c->nf || strlen(op) != 1 || strchr("plu", *op) == NULL)
        return -1;
    st = mpx_names_do(*op, service, *op == 'p' ? port : NULL, &found);
    mpx_frame_begin(&f, MPX_F_NAME);
    mpx_frame_int(&f, r);
    mpx_frame_str(&f, op);
    mpx_frame_int(&f, st);
    mpx_frame_str(&f, found != NULL ? found : "");
    if (!rm.proxies[p].closed)
        rm_send(p, &f);
    mpx_frame_free(&f);
    return 0;
}

/* ------------------------------------------------------------ stdin */

/* mpiexec's stdin goes to rank 0 (as Hydra does) through its proxy:
 * MPX_F_STDIN frames, an empty one at the end. At most RM_STDIN_QUEUE_MAX
 * bytes are ahead of rank 0 (the proxy acknowledges what it passed on with
 * an MPX_F_STDIN frame up); not read either when it is a terminal we are not
 * in the foreground of. */
static int rm_stdin_wanted(void)
{
    int p = rm.size > 0 ? rm.proxy_of_host[rm.ranks[0].host] : -1;
    if (!rm.stdin_open || p < 0 || rm.proxies[p].closed || rm.ranks[0].exited) {
        rm.stdin_open = 0;
        return 0;
    }
    return rm.stdin_ahead < RM_STDIN_QUEUE_MAX;
}

static void rm_stdin_read(void)
{
    char buf[65536];
    mpx_frame_t f = {0};
    ssize_t n = read(0, buf, sizeof buf);
    int p = rm.proxy_of_host[rm.ranks[0].host];
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    mpx_frame_begin(&f, MPX_F_STDIN);
    if (n > 0) {
        mpx_frame_raw(&f, buf, (size_t)n);
        rm.stdin_ahead += n;
    } else {
        rm.stdin_open = 0;
    }
    rm_send(p, &f);
    mpx_frame_free(&f);
}

static void rm_stdin_setup(void)
{
    rm.stdin_open = fcntl(0, F_GETFD) >= 0 && (!isatty(0) || tcgetpgrp(0) == getpgrp());
}

/* ------------------------------------------------------------ main */

/* Options that need this host's files or processes are refused across hosts. */
static int rm_check_options(const mpx_opts_t *o)
{
    const char *what = o->outpat != NULL          ? "-outfile-pattern"
                       : o->errpat != NULL        ? "-errfile-pattern"
                       : o->bind != MPX_BIND_NONE && o->bind != MPX_BIND_AUTO ? "-bind-to"
                       : o->singleton_fd >= 0     ? "-singleton"
                                                  : NULL;
    if (what != NULL) {
        fprintf(stderr, "mpiexec: %s is not supported in jobs across hosts (-hosts/-f)\n", what);
        return -1;
    }
    return 0;
}

static void rm_reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int p = 0; p < rm.nproxies; p++)
            if (rm.proxies[p].pid == pid) {
                rm.proxies[p].reaped = 1;
                rm.proxies[p].status = status;
            }
    }
}

static void rm_signal(int sig)
{
    mpx_frame_t f = {0};
    if (sig == SIGCHLD) {
        rm_reap();
        return;
    }
    mpx_frame_begin(&f, MPX_F_SIGNAL);
    mpx_frame_int(&f, sig);
    if (sig == SIGUSR1 || sig == SIGUSR2) {
        rm_send_all(&f);
    } else if (rm.tearing_down) {
        for (int p = 0; p < rm.nproxies; p++)
            if (!rm.proxies[p].reaped && rm.proxies[p].pid > 0)
                kill(-rm.proxies[p].pid, SIGKILL);
    } else {
        if (!rm.failed) {
            rm.failed = 1;
            rm.exit_code = 128 + sig;
            fprintf(stderr, "mpiexec: received signal %d (%s); forwarding it to all ranks\n", sig,
                    rm_sig_name(sig));
        }
        rm_send_all(&f);
        rm_teardown();
    }
    mpx_frame_free(&f);
}

/* The proxy's link closed or broke: its launcher's status says why. */
static void rm_link_lost(int p)
{
    rm_proxy_t *px = &rm.proxies[p];
    char why[128];
    int st;
    if (!px->reaped && px->pid > 0 && waitpid(px->pid, &st, 0) == px->pid) {
        px->reaped = 1;
        px->status = st;
    }
    if (px->reaped && WIFSIGNALED(px->status))
        snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(px->status));
    else if (px->reaped)
        snprintf(why, sizeof why, "the launcher exited with code %d%s", WEXITSTATUS(px->status),
                 WEXITSTATUS(px->status) == 255 && rm.o->launcher_exec == NULL &&
                         rm.o->launcher == NULL
                     ? "; can 'ssh HOST true' run without a prompt?"
                     : "");
    else
        snprintf(why, sizeof why, "its connection closed");
    rm_proxy_closed(p, why);
}

int mpx_remote_main(mpx_opts_t *o, int timeout_s)
{
    static char self[4096], cwd[4096];
    int *host_of = NULL, sigfd, pj;
    long long timeout_deadline = -1;
    struct pollfd *pfd = NULL;
    ssize_t sl;

    rm.o = o;
    if (rm_check_options(o) != 0)
        return 2;
    {
        long total = 0;
        for (int s = 0; s < o->nsegs; s++)
            total += o->segs[s].nprocs;
        if (total > 1000000) {
            fprintf(stderr, "mpiexec: more than 1000000 processes requested\n");
            return 2;
        }
        sl = readlink("/proc/self/exe", self, sizeof self - 1);
        if (sl <= 0 || getcwd(cwd, sizeof cwd) == NULL) {
            fprintf(stderr, "mpiexec: cannot find this program's path or the working directory\n");
            return 1;
        }
        self[sl] = '\0';
        rm.self = self;
        rm.cwd = cwd;
        rm.proxy_of_host = malloc((size_t)o->nhosts * sizeof *rm.proxy_of_host);
        host_of = malloc((size_t)(total > 0 ? total : 1) * sizeof *host_of);
        if (rm.proxy_of_host == NULL || host_of == NULL ||
            (pj = rm_new_pjob((int)total)) < 0) {
            fprintf(stderr, "mpiexec: no memory for %ld ranks on %d hosts\n", total, o->nhosts);
            return 1;
        }
    }
    for (int h = 0; h < o->nhosts; h++)
        rm.proxy_of_host[h] = -1;
    mpx_hosts_place(o->hostv, o->nhosts, rm.size, host_of);
    {
        int seg = 0, left = o->segs[0].nprocs;
        for (int r = 0; r < rm.size; r++) {
            while (left == 0)
                left = o->segs[++seg].nprocs;
            left--;
            rm.ranks[r].host = host_of[r];
            rm.ranks[r].seg = seg;
            rm.ranks[r].appnum = seg;
        }
    }
    /* spawns without a 'host' start after the last host the job filled */
    rm.spawn_next = rm.size > 0 ? (host_of[rm.size - 1] + 1) % o->nhosts : 0;
    {
        char me[200] = "";
        struct timespec ts;
        gethostname(me, sizeof me - 1);
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(rm.pjobs[0].kvsname, sizeof rm.pjobs[0].kvsname, "canal_%.100s_%ld_%lx", me,
                 (long)getpid(), (unsigned long)(ts.tv_sec * 1000003L + ts.tv_nsec));
    }
    rm.usize = o->usize > 0 ? o->usize : rm.size;

    sigfd = mpx_signals_open(1);
    if (sigfd < 0) {
        fprintf(stderr, "mpiexec: signalfd: %s\n", strerror(errno));
        return 1;
    }
    rm_stdin_setup();
    if (o->verbose)
        fprintf(stderr, "mpiexec: %d ranks on %d hosts, job %s\n", rm.size, o->nhosts,
                rm.pjobs[0].kvsname);
    if (rm_tree(host_of) != 0 || rm_start_pjob(0, "", 0, o->nsegs, NULL) != 0) {
        rm_fail(1, "could not start the proxies");
        for (int p = 0; p < rm.nproxies; p++)
            if (rm.proxies[p].link.broken)
                rm_link_lost(p);
        if (rm.nproxies == 0)
            return 1;
    }
    free(host_of);
    if (timeout_s > 0)
        timeout_deadline = common_now_ms() + (long long)timeout_s * 1000;

    for (;;) {
        int n = 0, open_links = 0, wait_ms = -1, nfd, nprox = rm.nproxies, in = -1;
        long long t = common_now_ms(), next = -1;

        for (int p = 0; p < nprox; p++) {
            rm_proxy_t *px = &rm.proxies[p];
            open_links += !px->closed;
            /* every rank everywhere exited: no spawn can add any; the end
             * of its input tells a proxy to go once its output is out */
            if (rm.nexited == rm.size && !px->closed && px->link.wfd >= 0 &&
                px->link.out_len == 0) {
                close(px->link.wfd);
                px->link.wfd = -1;
            }
        }
        if (open_links == 0)
            break;
        if (timeout_deadline >= 0 && t >= timeout_deadline && !rm.tearing_down) {
            timeout_deadline = -1;
            rm.timed_out = 1;
            rm_fail(255, "MPIEXEC_TIMEOUT=%d s expired; killing all ranks on all hosts", timeout_s);
        }
        if (rm.tearing_down && rm.kill_deadline >= 0 && t >= rm.kill_deadline) {
            /* proxies that did not finish: kill the launchers (ssh ends the remote side) */
            rm.kill_deadline = -1;
            for (int p = 0; p < nprox; p++)
                if (!rm.proxies[p].reaped && rm.proxies[p].pid > 0)
                    kill(-rm.proxies[p].pid, SIGKILL);
            for (int p = 0; p < nprox; p++)
                rm_proxy_closed(p, "killed after the grace period");
            break;
        }
        if (timeout_deadline >= 0 && !rm.tearing_down)
            next = timeout_deadline;
        if (rm.tearing_down && rm.kill_deadline >= 0 && (next < 0 || rm.kill_deadline < next))
            next = rm.kill_deadline;
        wait_ms = next < 0 ? -1 : (int)(next - t > 0 ? next - t : 0);
        pfd = realloc(pfd, (size_t)(2 + 2 * nprox) * sizeof *pfd);
        if (pfd == NULL)
            return 1;
        pfd[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        if (!rm.tearing_down && rm_stdin_wanted())
            in = 0;
        pfd[n++] = (struct pollfd){.fd = in, .events = POLLIN};
        for (int p = 0; p < nprox; p++) {
            rm_proxy_t *px = &rm.proxies[p];
            pfd[n++] = (struct pollfd){.fd = px->closed ? -1 : px->link.rfd, .events = POLLIN};
            pfd[n++] = (struct pollfd){
                .fd = !px->closed && px->link.out_len > 0 ? px->link.wfd : -1, .events = POLLOUT};
        }
        nfd = poll(pfd, (nfds_t)n, wait_ms);
        if (nfd < 0 && errno != EINTR) {
            fprintf(stderr, "mpiexec: poll: %s\n", strerror(errno));
            break;
        }
        if (nfd <= 0)
            continue;
        if (pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                rm_signal((int)si.ssi_signo);
            rm_reap();
        }
        if (pfd[1].revents)
            rm_stdin_read();
        for (int p = 0; p < nprox; p++) {
            /* rm.proxies[p], not a pointer: a spawn may move the array */
            if (rm.proxies[p].closed)
                continue;
            if (pfd[3 + 2 * p].revents)
                mpx_link_flush(&rm.proxies[p].link);
            if (pfd[2 + 2 * p].revents) {
                int rc = mpx_link_read(&rm.proxies[p].link), tk = 0;
                const char *body;
                size_t len;
                while (!rm.proxies[p].closed &&
                       (tk = mpx_link_take(&rm.proxies[p].link, &body, &len)) == 1)
                    rm_frame(p, body, len);
                if (!rm.proxies[p].closed && tk < 0) {
                    rm_fail(255, "the proxy on host %s sent malformed data",
                            rm_host(rm.proxies[p].host));
                    rc = 1;
                }
                if (rc != 0 && !rm.proxies[p].closed)
                    rm_link_lost(p);
            }
        }
    }
    /* whatever is left of the ranks' output */
    for (int r = 0; r < rm.size; r++) {
        rm_emit(r, 1, 1);
        rm_emit(r, 2, 1);
    }
    for (int p = 0; p < rm.nproxies; p++)
        if (!rm.proxies[p].reaped && rm.proxies[p].pid > 0) {
            kill(-rm.proxies[p].pid, SIGKILL);
            waitpid(rm.proxies[p].pid, NULL, 0);
        }
    free(pfd);
    if (rm.timed_out)
        return 255;
    if (rm.failed)
        return rm.exit_code > 255 || rm.exit_code < 0 ? 255 : rm.exit_code;
    return 0;
}
