/*
 * "mpiexec -proxy HOST": the per-host proxy of a job across hosts. mpiexec
 * (mpiexec/remote.c) starts it through the launcher (ssh, or fork on its own
 * host) and talks to it over its stdin/stdout (mpiexec/pxlink.c). The proxy
 * starts this host's ranks (the job arrives in one MPX_F_JOB frame), serves
 * them PMI-1 and PMI-2 on a socketpair each (PMI_FD), keeps a copy of the
 * job's key-value store, and forwards their output, exits and aborts. A fence
 * costs mpiexec one message per host: the proxy sends up the puts of its
 * ranks once all of them entered the fence, and releases them when mpiexec
 * sends back the puts of every host. Node attributes are this host's own.
 * When mpiexec says so, or when its link closes (mpiexec or ssh died), the
 * ranks get SIGTERM, then SIGKILL after a grace; the proxy exits when they
 * are gone. Spawn and name publishing are refused with an error reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"
#include "mpiexec/pxlink.h"
#include "common/clock.h"

extern char **environ;

enum { PX_KILL_GRACE_MS = 3000, PX_DRAIN_MS = 2000, PX_KEY_MAX = 64, PX_VAL_MAX = 1024 };

typedef struct {
    int rank, seg, appnum;
    pid_t pid;
    int pmi_fd, out_fd, err_fd;
    int ver;
    pmi_wire_reader_t rd;
    int initialized, finalized, in_fence, exited;
    int in_mcmd, mcmd_total, mcmd_seen; /* a PMI-1 spawn request being read */
    int waiting_nodeattr;
    char wait_key[PX_KEY_MAX];
    char *outq;
    size_t outq_len, outq_cap;
} px_rank_t;

typedef struct {
    char *wdir;
    char **argv, **env;
} px_seg_t;

static struct {
    mpx_link_t up;
    char host[256];
    char kvsname[256], mapping[4096], iface[64];
    int size, usize, nlocal, nexited, nfenced, started;
    px_rank_t *ranks;
    int nsegs;
    px_seg_t *segs;
    mpx_kvs_t *kvs, *nodeattr;
    mpx_frame_t pend; /* puts since the last fence: key, value fields */
    int npend;
    int killing, up_gone;
    long long kill_deadline, drain_deadline;
} px;

static char px_msgbuf[PMI_WIRE_MSG_MAX + 1];

static void px_send_up(mpx_frame_t *f)
{
    if (!px.up_gone && mpx_link_send(&px.up, f) != 0)
        px.up_gone = 1;
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
    mpx_frame_free(&f);
}

static void px_signal_all(int sig)
{
    for (int i = 0; i < px.nlocal; i++)
        if (px.ranks[i].pid > 0 && !px.ranks[i].exited)
            kill(-px.ranks[i].pid, sig);
}

static void px_teardown(int sig)
{
    if (px.killing)
        return;
    px.killing = 1;
    px_signal_all(sig);
    px.kill_deadline = common_now_ms() + PX_KILL_GRACE_MS;
}

/* ------------------------------------------------------------ PMI replies */

static void px_pmi_close(px_rank_t *r)
{
    if (r->pmi_fd < 0)
        return;
    close(r->pmi_fd);
    r->pmi_fd = -1;
    r->outq_len = 0;
    if (r->in_fence) {
        r->in_fence = 0;
        px.nfenced--;
    }
}

static void px_pmi_flush(px_rank_t *r)
{
    size_t off = 0;
    while (r->pmi_fd >= 0 && off < r->outq_len) {
        ssize_t n = send(r->pmi_fd, r->outq + off, r->outq_len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            px_pmi_close(r);
            return;
        }
        off += (size_t)n;
    }
    if (off > 0) {
        memmove(r->outq, r->outq + off, r->outq_len - off);
        r->outq_len -= off;
    }
}

static void px_reply(px_rank_t *r, pmi_wire_out_t *out)
{
    if (r->pmi_fd < 0 || pmi_wire_end(out) != 0)
        return;
    if (r->outq_len + out->len > (1 << 20)) {
        px_error("rank %d does not read its PMI replies; closing its connection", r->rank);
        px_pmi_close(r);
        return;
    }
    if (r->outq_len + out->len > r->outq_cap) {
        size_t cap = r->outq_cap ? r->outq_cap * 2 : 4096;
        char *q;
        while (cap < r->outq_len + out->len)
            cap *= 2;
        if ((q = realloc(r->outq, cap)) == NULL) {
            px_pmi_close(r);
            return;
        }
        r->outq = q;
        r->outq_cap = cap;
    }
    memcpy(r->outq + r->outq_len, out->buf, out->len);
    r->outq_len += out->len;
    px_pmi_flush(r);
}

static void px_reply_rc(px_rank_t *r, const char *cmd, int rc, const char *msg)
{
    pmi_wire_out_t out;
    pmi_wire_begin(&out, r->ver, cmd);
    pmi_wire_add_int(&out, "rc", rc);
    if (msg != NULL)
        pmi_wire_add(&out, r->ver == 1 ? "msg" : "errmsg", msg);
    px_reply(r, &out);
}

static void px_reply_found(px_rank_t *r, const char *cmd, const char *val)
{
    pmi_wire_out_t out;
    pmi_wire_begin(&out, 2, cmd);
    pmi_wire_add_int(&out, "rc", 0);
    pmi_wire_add(&out, "found", val != NULL ? "TRUE" : "FALSE");
    if (val != NULL)
        pmi_wire_add(&out, "value", val);
    px_reply(r, &out);
}

/* ------------------------------------------------------------ KVS and fence */

static int px_put(px_rank_t *r, const char *key, const char *val)
{
    (void)r;
    if (mpx_kvs_put(px.kvs, key, val) != 0)
        return -1;
    mpx_frame_str(&px.pend, key);
    mpx_frame_str(&px.pend, val);
    px.npend++;
    return px.pend.bad ? -1 : 0;
}

static void px_fence_enter(px_rank_t *r)
{
    mpx_frame_t f = {0};
    if (!r->in_fence) {
        r->in_fence = 1;
        px.nfenced++;
    }
    if (px.nfenced < px.nlocal)
        return;
    mpx_frame_begin(&f, MPX_F_FENCE);
    mpx_frame_int(&f, px.npend);
    mpx_frame_raw(&f, px.pend.buf, px.pend.len);
    px_send_up(&f);
    mpx_frame_free(&f);
    px.pend.len = 0;
    px.npend = 0;
}

/* mpiexec's answer: every host's puts; the fence is complete. */
static void px_fence_done(const char **fl, int nf)
{
    int bad = 0;
    long long n = nf > 0 ? mpx_field_int(fl[0], 0, 100000000, &bad) : 0;
    if (bad || nf != 1 + 2 * n) {
        px_error("malformed fence reply from mpiexec");
        px_teardown(SIGTERM);
        return;
    }
    for (long long i = 0; i < n; i++)
        mpx_kvs_put(px.kvs, fl[1 + 2 * i], fl[2 + 2 * i]);
    for (int i = 0; i < px.nlocal; i++) {
        px_rank_t *r = &px.ranks[i];
        if (!r->in_fence)
            continue;
        r->in_fence = 0;
        if (r->ver == 1) {
            pmi_wire_out_t out;
            pmi_wire_begin(&out, 1, "barrier_out");
            pmi_wire_add_int(&out, "rc", 0);
            px_reply(r, &out);
        } else {
            px_reply_rc(r, "kvs-fence-response", 0, NULL);
        }
    }
    px.nfenced = 0;
}

static void px_abort(px_rank_t *r, const pmi_wire_msg_t *m)
{
    mpx_frame_t f = {0};
    const char *msg = pmi_wire_get(m, "error_msg");
    int code = 1;
    if (msg == NULL)
        msg = pmi_wire_get(m, "msg");
    if (pmi_wire_get_int(m, "exitcode", &code) != 0)
        code = 1;
    mpx_frame_begin(&f, MPX_F_ABORT);
    mpx_frame_int(&f, r->rank);
    mpx_frame_int(&f, code);
    mpx_frame_str(&f, msg != NULL ? msg : "");
    px_send_up(&f);
    mpx_frame_free(&f);
}

/* ------------------------------------------------------------ PMI-1 */

static void px_pmi1(px_rank_t *r, const pmi_wire_msg_t *m)
{
    const char *cmd = pmi_wire_cmd(m), *key, *val;
    pmi_wire_out_t out;

    if (strcmp(cmd, "init") == 0) {
        int v = 0;
        pmi_wire_get_int(m, "pmi_version", &v);
        pmi_wire_begin(&out, 1, "response_to_init");
        pmi_wire_add_int(&out, "pmi_version", v == 2 ? 2 : 1);
        pmi_wire_add_int(&out, "pmi_subversion", v == 2 ? 0 : 1);
        pmi_wire_add_int(&out, "rc", v == 1 || v == 2 ? 0 : -1);
        px_reply(r, &out);
        if (v == 2) {
            r->ver = 2;
            r->rd.version = 2;
        }
        r->initialized = v == 1 || v == 2;
    } else if (strcmp(cmd, "get_maxes") == 0) {
        pmi_wire_begin(&out, 1, "maxes");
        pmi_wire_add_int(&out, "kvsname_max", 256);
        pmi_wire_add_int(&out, "keylen_max", PX_KEY_MAX);
        pmi_wire_add_int(&out, "vallen_max", PX_VAL_MAX);
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        pmi_wire_begin(&out, 1, "appnum");
        pmi_wire_add_int(&out, "appnum", r->appnum);
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        pmi_wire_begin(&out, 1, "my_kvsname");
        pmi_wire_add(&out, "kvsname", px.kvsname);
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        pmi_wire_begin(&out, 1, "universe_size");
        pmi_wire_add_int(&out, "size", px.usize);
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "put") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        val = mpx_pmi_arg(m, "value", PX_VAL_MAX);
        if (key == NULL || val == NULL)
            px_reply_rc(r, "put_result", -1, "missing_or_oversized_key_or_value");
        else if (px_put(r, key, val) != 0)
            px_reply_rc(r, "put_result", -1, "kvs_full");
        else
            px_reply_rc(r, "put_result", 0, "success");
    } else if (strcmp(cmd, "get") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        val = key != NULL ? mpx_kvs_get(px.kvs, key) : NULL;
        pmi_wire_begin(&out, 1, "get_result");
        pmi_wire_add_int(&out, "rc", val != NULL ? 0 : -1);
        pmi_wire_add(&out, "msg", val != NULL ? "success" : "key_not_found");
        pmi_wire_add(&out, "value", val != NULL ? val : "unknown");
        px_reply(r, &out);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        px_fence_enter(r);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        pmi_wire_begin(&out, 1, "finalize_ack");
        px_reply(r, &out);
    } else if (strcmp(cmd, "abort") == 0) {
        px_abort(r, m);
    } else if (strcmp(cmd, "publish_name") == 0 || strcmp(cmd, "unpublish_name") == 0) {
        px_reply_rc(r, strcmp(cmd, "publish_name") == 0 ? "publish_result" : "unpublish_result", 1,
                    "name_publishing_is_not_supported_in_jobs_across_hosts");
    } else if (strcmp(cmd, "lookup_name") == 0) {
        px_reply_rc(r, "lookup_result", 1, "name_publishing_is_not_supported_in_jobs_across_hosts");
    } else {
        px_reply_rc(r, "error", -1, "unknown_command");
    }
}

/* PMI-1 spawn: the lines of "mcmd=spawn" blocks up to the last "endcmd". */
static void px_pmi1_mcmd_line(px_rank_t *r, const char *line, size_t len)
{
    static const char tot[] = "totspawns=", sofar[] = "spawnssofar=";
    if (len >= sizeof tot - 1 && strncmp(line, tot, sizeof tot - 1) == 0)
        r->mcmd_total = atoi(line + sizeof tot - 1);
    if (len >= sizeof sofar - 1 && strncmp(line, sofar, sizeof sofar - 1) == 0)
        r->mcmd_seen = atoi(line + sizeof sofar - 1);
    if (len == 6 && strncmp(line, "endcmd", 6) == 0) {
        r->in_mcmd = 0;
        if (r->mcmd_seen >= r->mcmd_total) {
            pmi_wire_out_t out;
            pmi_wire_begin(&out, 1, "spawn_result");
            pmi_wire_add_int(&out, "rc", -1);
            pmi_wire_add(&out, "errmsg", "MPI_Comm_spawn_is_not_supported_in_jobs_across_hosts");
            px_reply(r, &out);
            r->mcmd_total = r->mcmd_seen = 0;
        }
    }
}

/* ------------------------------------------------------------ PMI-2 */

static void px_pmi2(px_rank_t *r, const pmi_wire_msg_t *m)
{
    const char *cmd = pmi_wire_cmd(m), *key, *val;
    pmi_wire_out_t out;

    if (strcmp(cmd, "fullinit") == 0) {
        r->initialized = 1;
        pmi_wire_begin(&out, 2, "fullinit-response");
        pmi_wire_add_int(&out, "pmi-version", 2);
        pmi_wire_add_int(&out, "pmi-subversion", 0);
        pmi_wire_add_int(&out, "rank", r->rank);
        pmi_wire_add_int(&out, "size", px.size);
        pmi_wire_add_int(&out, "appnum", r->appnum);
        pmi_wire_add(&out, "debugged", "FALSE");
        pmi_wire_add(&out, "pmiverbose", "FALSE");
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "job-getid") == 0) {
        pmi_wire_begin(&out, 2, "job-getid-response");
        pmi_wire_add(&out, "jobid", px.kvsname);
        pmi_wire_add_int(&out, "rc", 0);
        px_reply(r, &out);
    } else if (strcmp(cmd, "info-getjobattr") == 0) {
        char num[32];
        key = pmi_wire_get(m, "key");
        val = NULL;
        if (key != NULL && strcmp(key, "PMI_process_mapping") == 0) {
            val = px.mapping;
        } else if (key != NULL && strcmp(key, "universeSize") == 0) {
            snprintf(num, sizeof num, "%d", px.usize);
            val = num;
        }
        px_reply_found(r, "info-getjobattr-response", val);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        val = mpx_pmi_arg(m, "value", PX_VAL_MAX);
        if (key == NULL || val == NULL)
            px_reply_rc(r, "kvs-put-response", -1, "missing or oversized key or value");
        else if (px_put(r, key, val) != 0)
            px_reply_rc(r, "kvs-put-response", -1, "KVS full");
        else
            px_reply_rc(r, "kvs-put-response", 0, NULL);
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        px_fence_enter(r);
    } else if (strcmp(cmd, "kvs-get") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        px_reply_found(r, "kvs-get-response", key != NULL ? mpx_kvs_get(px.kvs, key) : NULL);
    } else if (strcmp(cmd, "info-putnodeattr") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        val = mpx_pmi_arg(m, "value", PX_VAL_MAX);
        if (key == NULL || val == NULL || mpx_kvs_put(px.nodeattr, key, val) != 0) {
            px_reply_rc(r, "info-putnodeattr-response", -1, "bad or oversized attribute");
        } else {
            px_reply_rc(r, "info-putnodeattr-response", 0, NULL);
            for (int i = 0; i < px.nlocal; i++) {
                px_rank_t *w = &px.ranks[i];
                if (w->waiting_nodeattr && strcmp(w->wait_key, key) == 0) {
                    w->waiting_nodeattr = 0;
                    px_reply_found(w, "info-getnodeattr-response", val);
                }
            }
        }
    } else if (strcmp(cmd, "info-getnodeattr") == 0) {
        key = mpx_pmi_arg(m, "key", PX_KEY_MAX);
        val = key != NULL ? mpx_kvs_get(px.nodeattr, key) : NULL;
        if (val == NULL && key != NULL && pmi_wire_get(m, "wait") != NULL &&
            strcmp(pmi_wire_get(m, "wait"), "TRUE") == 0) {
            r->waiting_nodeattr = 1;
            snprintf(r->wait_key, sizeof r->wait_key, "%s", key);
        } else {
            px_reply_found(r, "info-getnodeattr-response", val);
        }
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        px_reply_rc(r, "finalize-response", 0, NULL);
    } else if (strcmp(cmd, "abort") == 0) {
        px_abort(r, m);
    } else if (strcmp(cmd, "name-publish") == 0 || strcmp(cmd, "name-unpublish") == 0 ||
               strcmp(cmd, "name-lookup") == 0) {
        char name[80];
        snprintf(name, sizeof name, "%s-response", cmd);
        px_reply_rc(r, name, 1, "name publishing is not supported in jobs across hosts");
    } else if (strcmp(cmd, "spawn") == 0) {
        px_reply_rc(r, "spawn-response", -1,
                    "MPI_Comm_spawn is not supported in jobs across hosts");
    } else {
        char name[80];
        snprintf(name, sizeof name, "%.60s-response", cmd);
        px_reply_rc(r, name, -1, "unknown command");
    }
}

static void px_pmi_readable(px_rank_t *r)
{
    for (;;) {
        size_t room, len;
        char *space;
        ssize_t n;
        canal_status_t st;

        while (r->pmi_fd >= 0 &&
               (st = pmi_wire_reader_take(&r->rd, px_msgbuf, sizeof px_msgbuf, &len)) != 0) {
            pmi_wire_msg_t *m;
            if (st < 0) {
                px_error("rank %d sent a bad PMI message (%s); closing its PMI connection", r->rank,
                         common_err_detail());
                px_pmi_close(r);
                return;
            }
            if (r->ver == 1 && r->in_mcmd) {
                px_pmi1_mcmd_line(r, px_msgbuf, len);
                continue;
            }
            m = malloc(sizeof *m);
            if (m == NULL || (r->ver == 1 ? pmi_wire_parse1(px_msgbuf, len, m)
                                          : pmi_wire_parse2(px_msgbuf, len, m)) != CANAL_OK) {
                px_error("rank %d sent a malformed PMI-%d message; closing its PMI connection",
                         r->rank, r->ver);
                free(m);
                px_pmi_close(r);
                return;
            }
            if (strcmp(m->key[0], "mcmd") == 0)
                r->in_mcmd = 1;
            else if (r->ver == 1)
                px_pmi1(r, m);
            else
                px_pmi2(r, m);
            free(m);
        }
        if (r->pmi_fd < 0)
            return;
        space = pmi_wire_reader_space(&r->rd, &room);
        n = recv(r->pmi_fd, space, room, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            px_pmi_close(r);
            return;
        }
        pmi_wire_reader_fill(&r->rd, (size_t)n);
    }
}

/* ------------------------------------------------------------ output */

static void px_output(px_rank_t *r, int stream)
{
    int *fd = stream == 1 ? &r->out_fd : &r->err_fd;
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
        mpx_frame_int(&f, r->rank);
        mpx_frame_int(&f, stream);
        mpx_frame_raw(&f, buf, (size_t)n);
        px_send_up(&f);
        mpx_frame_free(&f);
    }
}

/* ------------------------------------------------------------ start */

static void px_child(px_rank_t *r, int pmi_child, int out_w, int err_w, char **envp, pid_t proxy)
{
    px_seg_t *s = &px.segs[r->seg];
    int devnull;

    mpx_child_reset(proxy);
    devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0 && devnull != 0) {
        dup2(devnull, 0);
        close(devnull);
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

static int px_start(px_rank_t *r, int local_idx)
{
    px_seg_t *s = &px.segs[r->seg];
    int sv[2], outp[2], errp[2];
    mpx_env_t env = {0};
    char num[32];
    int has_iface = 0, has_ipath = 0;
    pid_t pid, me = getpid();
    mpx_frame_t f = {0};

    for (char **e = s->env; *e != NULL; e++) {
        has_iface |= strncmp(*e, "CANAL_SOCK_IFACE=", 17) == 0;
        has_ipath |= strncmp(*e, "IPATH_NO_BACKTRACE=", 19) == 0;
        if (env.n + 1 >= env.cap) {
            int cap = env.cap ? env.cap * 2 : 64;
            char **kv = realloc(env.kv, (size_t)cap * sizeof *kv);
            if (kv == NULL)
                return -1;
            env.kv = kv;
            env.cap = cap;
        }
        env.kv[env.n++] = strdup(*e);
        env.kv[env.n] = NULL;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)
        return -1;
    snprintf(num, sizeof num, "%d", r->rank);
    mpx_env_add(&env, "PMI_RANK", num);
    snprintf(num, sizeof num, "%d", px.size);
    mpx_env_add(&env, "PMI_SIZE", num);
    snprintf(num, sizeof num, "%d", sv[1]);
    mpx_env_add(&env, "PMI_FD", num);
    mpx_env_add(&env, "PMI_JOBID", px.kvsname);
    snprintf(num, sizeof num, "%d", px.nlocal);
    mpx_env_add(&env, "MPI_LOCALNRANKS", num);
    snprintf(num, sizeof num, "%d", local_idx);
    mpx_env_add(&env, "MPI_LOCALRANKID", num);
    if (!has_ipath)
        mpx_env_add(&env, "IPATH_NO_BACKTRACE", "1");
    if (px.iface[0] != '\0' && !has_iface)
        mpx_env_add(&env, "CANAL_SOCK_IFACE", px.iface);
    pid = fork();
    if (pid == 0)
        px_child(r, sv[1], outp[1], errp[1], env.kv, me);
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    for (int k = 0; k < env.n; k++)
        free(env.kv[k]);
    free(env.kv);
    if (pid < 0) {
        close(sv[0]);
        close(outp[0]);
        close(errp[0]);
        return -1;
    }
    setpgid(pid, pid);
    r->pid = pid;
    r->pmi_fd = sv[0];
    r->out_fd = outp[0];
    r->err_fd = errp[0];
    fcntl(r->pmi_fd, F_SETFL, O_NONBLOCK);
    fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
    mpx_frame_begin(&f, MPX_F_STARTED);
    mpx_frame_int(&f, r->rank);
    mpx_frame_int(&f, pid);
    px_send_up(&f);
    mpx_frame_free(&f);
    return 0;
}

/* The job: kvsname size usize mapping iface nsegs {wdir argc argv.. envc env..}
 * nlocal {rank seg appnum}. */
static int px_job(const char **fl, int nf)
{
    int bad = 0, k = 0;
#define NEXT() (k < nf ? fl[k++] : (bad = 1, ""))
    snprintf(px.kvsname, sizeof px.kvsname, "%s", NEXT());
    px.size = (int)mpx_field_int(NEXT(), 1, 1000000, &bad);
    px.usize = (int)mpx_field_int(NEXT(), 1, 100000000, &bad);
    snprintf(px.mapping, sizeof px.mapping, "%s", NEXT());
    snprintf(px.iface, sizeof px.iface, "%s", NEXT());
    px.nsegs = (int)mpx_field_int(NEXT(), 1, 100000, &bad);
    if (bad || (px.segs = calloc((size_t)px.nsegs, sizeof *px.segs)) == NULL)
        return -1;
    for (int s = 0; s < px.nsegs && !bad; s++) {
        int argc, envc;
        px.segs[s].wdir = (char *)NEXT();
        argc = (int)mpx_field_int(NEXT(), 1, 100000, &bad);
        if (bad || (px.segs[s].argv = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
            return -1;
        for (int a = 0; a < argc; a++)
            px.segs[s].argv[a] = (char *)NEXT();
        envc = (int)mpx_field_int(NEXT(), 0, 1000000, &bad);
        if (bad || (px.segs[s].env = calloc((size_t)envc + 1, sizeof(char *))) == NULL)
            return -1;
        for (int e = 0; e < envc; e++)
            px.segs[s].env[e] = (char *)NEXT();
    }
    px.nlocal = (int)mpx_field_int(NEXT(), 1, 1000000, &bad);
    if (bad || (px.ranks = calloc((size_t)px.nlocal, sizeof *px.ranks)) == NULL)
        return -1;
    for (int i = 0; i < px.nlocal; i++) {
        px_rank_t *r = &px.ranks[i];
        r->rank = (int)mpx_field_int(NEXT(), 0, px.size - 1, &bad);
        r->seg = (int)mpx_field_int(NEXT(), 0, px.nsegs - 1, &bad);
        r->appnum = (int)mpx_field_int(NEXT(), 0, px.nsegs - 1, &bad);
        r->pmi_fd = r->out_fd = r->err_fd = -1;
        r->ver = 1;
        pmi_wire_reader_init(&r->rd, 1);
    }
#undef NEXT
    if (bad || k != nf)
        return -1;
    if (mpx_kvs_put(px.kvs, "PMI_process_mapping", px.mapping) != 0)
        return -1;
    for (int i = 0; i < px.nlocal; i++) {
        if (px_start(&px.ranks[i], i) != 0) {
            px_error("cannot start rank %d: %s", px.ranks[i].rank, strerror(errno));
            px_teardown(SIGTERM);
            for (int j = i; j < px.nlocal; j++)
                if (px.ranks[j].pid == 0) {
                    mpx_frame_t f = {0};
                    px.ranks[j].exited = 1;
                    px.nexited++;
                    mpx_frame_begin(&f, MPX_F_EXIT);
                    mpx_frame_int(&f, px.ranks[j].rank);
                    mpx_frame_int(&f, 127 << 8);
                    mpx_frame_int(&f, 0);
                    mpx_frame_int(&f, 0);
                    px_send_up(&f);
                    mpx_frame_free(&f);
                }
            break;
        }
    }
    px.started = 1;
    return 0;
}

/* ------------------------------------------------------------ loop */

static void px_reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int i = 0; i < px.nlocal; i++) {
            px_rank_t *r = &px.ranks[i];
            mpx_frame_t f = {0};
            if (r->pid != pid || r->exited)
                continue;
            if (r->pmi_fd >= 0) {
                px_pmi_readable(r); /* its last words (an abort, finalize) come first */
                px_pmi_close(r);
            }
            r->exited = 1;
            px.nexited++;
            mpx_frame_begin(&f, MPX_F_EXIT);
            mpx_frame_int(&f, r->rank);
            mpx_frame_int(&f, status);
            mpx_frame_int(&f, r->initialized);
            mpx_frame_int(&f, r->finalized);
            px_send_up(&f);
            mpx_frame_free(&f);
            if (px.nexited == px.nlocal)
                px.drain_deadline = common_now_ms() + PX_DRAIN_MS;
            break;
        }
    }
}

static void px_down(const char *body, size_t len)
{
    static const char **fl;
    static int flcap;
    int nf;

    /* the job frame has many fields: count the NULs first */
    {
        int need = 1;
        for (size_t i = 1; i < len; i++)
            need += body[i] == '\0';
        if (need > flcap) {
            const char **p = realloc(fl, (size_t)need * sizeof *p);
            if (p == NULL) {
                px_error("no memory for a message from mpiexec");
                px_teardown(SIGTERM);
                return;
            }
            fl = p;
            flcap = need;
        }
    }
    nf = mpx_frame_fields(body, len, fl, flcap, NULL);
    switch (body[0]) {
    case MPX_F_JOB: {
        /* the fields point into the link's buffer: keep a copy */
        char *copy = malloc(len);
        if (copy == NULL || px.started) {
            free(copy);
            break;
        }
        memcpy(copy, body, len);
        nf = mpx_frame_fields(copy, len, fl, flcap, NULL);
        if (nf < 0 || px_job(fl, nf) != 0) {
            px_error("malformed job description from mpiexec");
            px.started = 1;
        }
        break;
    }
    case MPX_F_FENCE:
        px_fence_done(fl, nf);
        break;
    case MPX_F_KILL:
        px_teardown(SIGTERM);
        break;
    case MPX_F_SIGNAL: {
        int bad = 0;
        int sig = nf == 1 ? (int)mpx_field_int(fl[0], 1, 64, &bad) : 0;
        if (!bad && sig > 0)
            px_signal_all(sig);
        break;
    }
    default:
        px_error("unknown message '%c' from mpiexec", body[0]);
        break;
    }
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
    mpx_link_init(&px.up, 0, 1);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    px.kvs = mpx_kvs_create();
    px.nodeattr = mpx_kvs_create();
    if (px.kvs == NULL || px.nodeattr == NULL)
        return 1;
    sigfd = mpx_signals_open(0);
    if (sigfd < 0)
        return 1;
    {
        mpx_frame_t f = {0};
        mpx_frame_begin(&f, MPX_F_HELLO);
        mpx_frame_str(&f, px.host);
        px_send_up(&f);
        mpx_frame_free(&f);
    }

    for (;;) {
        int n = 0, nfd, wait_ms = -1;
        long long t = common_now_ms();
        int streams = 0, built = px.nlocal;

        for (int i = 0; i < px.nlocal; i++)
            streams += (px.ranks[i].out_fd >= 0) + (px.ranks[i].err_fd >= 0);
        if (px.started && px.nexited == px.nlocal &&
            (streams == 0 || t >= px.drain_deadline || px.up_gone))
            break;
        if (px.up_gone && !px.started)
            break;
        if (px.killing && px.kill_deadline >= 0 && t >= px.kill_deadline) {
            px_signal_all(SIGKILL);
            px.kill_deadline = -1;
        }
        pfd = realloc(pfd, (size_t)(3 + 3 * px.nlocal) * sizeof *pfd);
        if (pfd == NULL)
            return 1;
        pfd[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        pfd[n++] = (struct pollfd){.fd = px.up_gone ? -1 : 0, .events = POLLIN};
        pfd[n++] =
            (struct pollfd){.fd = px.up.out_len > 0 && !px.up_gone ? 1 : -1, .events = POLLOUT};
        for (int i = 0; i < px.nlocal; i++) {
            px_rank_t *r = &px.ranks[i];
            pfd[n++] = (struct pollfd){.fd = r->pmi_fd,
                                       .events = POLLIN | (r->outq_len > 0 ? POLLOUT : 0)};
            pfd[n++] = (struct pollfd){.fd = r->out_fd, .events = POLLIN};
            pfd[n++] = (struct pollfd){.fd = r->err_fd, .events = POLLIN};
        }
        if (px.killing && px.kill_deadline >= 0)
            wait_ms = (int)(px.kill_deadline > t ? px.kill_deadline - t : 0);
        if (px.started && px.nexited == px.nlocal) {
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
        if (pfd[1].revents) {
            int rc = mpx_link_read(&px.up);
            const char *body;
            size_t len;
            int t2;
            while ((t2 = mpx_link_take(&px.up, &body, &len)) == 1)
                px_down(body, len);
            if (t2 < 0 || rc != 0) {
                /* mpiexec (or the ssh carrying us) is gone: end the ranks */
                if (t2 < 0)
                    fprintf(stderr, "mpiexec proxy on %s: malformed data from mpiexec\n", px.host);
                px.up_gone = 1;
                px_teardown(SIGTERM);
            }
        }
        for (int i = 0; i < built; i++) {
            px_rank_t *r = &px.ranks[i];
            struct pollfd *p = &pfd[3 + 3 * i];
            if (p[0].revents & POLLOUT)
                px_pmi_flush(r);
            if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
                px_pmi_readable(r);
            if (p[1].revents)
                px_output(r, 1);
            if (p[2].revents)
                px_output(r, 2);
        }
        px_reap();
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
