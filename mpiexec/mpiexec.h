/*
 * Shared declarations of Canal's mpiexec: the parsed command line
 * (mpiexec/options.c), the job and its ranks (mpiexec/mpiexec.c runs the event
 * loop, mpiexec/launch.c starts processes), the PMI-1/PMI-2 server
 * (mpiexec/server.c) and its key-value store (mpiexec/kvs.c), CPU binding
 * (mpiexec/bind.c).
 */
#ifndef CANAL_MPIEXEC_H
#define CANAL_MPIEXEC_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "pmi/wire.h"

/* ------------------------------------------------------------ options */

/* A list of "NAME=value" strings (environment to set). */
typedef struct {
    char **kv;
    int n, cap;
} mpx_env_t;

typedef enum { MPX_ENV_DEFAULT = 0, MPX_ENV_ALL, MPX_ENV_NONE, MPX_ENV_LIST } mpx_env_mode_t;
/* AUTO (the default): a local job of 2 or more ranks that fit the cores
 * nobody else's mpiexec holds is spread over them (mpiexec/launch.c). */
typedef enum { MPX_BIND_NONE = 0, MPX_BIND_CORE, MPX_BIND_HWTHREAD, MPX_BIND_AUTO } mpx_bind_t;

/* One MPMD segment: "-n 2 -env K V ./prog args". */
typedef struct {
    int nprocs;
    char **argv; /* NULL-terminated */
    const char *wdir;
    mpx_env_t env;
    mpx_env_mode_t env_mode;
    const char *envlist;
} mpx_segment_t;

typedef struct {
    mpx_segment_t *segs;
    int nsegs;
    mpx_env_t genv;
    mpx_env_mode_t genv_mode;
    const char *genvlist;
    int label;
    const char *outpat, *errpat;
    const char *wdir;
    mpx_bind_t bind;
    int map_by_socket;
    int ppn;
    int fanout; /* -fanout N: proxies per proxy in the tree; 0: mpx_tree_fanout's default */
    int verbose;
    int disable_auto_cleanup; /* a dead rank leaves the others running */
    int usize; /* -usize: MPI_UNIVERSE_SIZE; 0: the larger of the CPUs and the job */
    /* -singleton FD JOBID: serve a singleton (a program started without a
     * launcher, which started us on its first MPI_Comm_spawn) as rank 0 of
     * job JOBID over the PMI connection FD; -1 otherwise. */
    int singleton_fd;
    const char *singleton_jobid;
    /* Hosts (mpiexec/hosts.c): -hosts and -f as given, then the parsed list. */
    const char *hosts_arg, *hostfile;
    const char *launcher;      /* -launcher ssh|fork, NULL: ssh for remote hosts */
    const char *launcher_exec; /* -launcher-exec PATH: the ssh program */
    const char *iface;         /* -iface NAME: network interface of the ranks */
    struct mpx_host *hostv;
    int nhosts;
} mpx_opts_t;

/* Parse argv. Returns 0 to run the job, 1 when the command was fully handled
 * (--help, --version, -info: exit 0), or 2 after printing a usage error. */
int mpx_options_parse(int argc, char **argv, mpx_opts_t *opts);
int mpx_env_add(mpx_env_t *env, const char *name, const char *value);
/* A rank's PMI variables (PMI_RANK, PMI_SIZE, PMI_FD, PMI_JOBID,
 * MPI_LOCALNRANKS, MPI_LOCALRANKID) and CANAL_FAILURE_GRACE=0 unless env
 * sets it. 0 or -1. */
int mpx_env_add_rank(mpx_env_t *env, const char *jobid, int rank, int size, int pmi_fd,
                     int nlocal, int localid);
void mpx_print_help(void);

/* ------------------------------------------------------------ binding */

/* CPU sets to bind to, one per slot, in the order ranks take them. */
typedef struct {
    int n;
    cpu_set_t *sets;
} mpx_bind_plan_t;

/* The slots of -bind-to (core, hwthread; auto plans by core) over the CPUs of
 * mpiexec's mask; n = 0 for none. 0, or -1 if the topology cannot be read. */
int mpx_bind_plan(const mpx_opts_t *o, mpx_bind_plan_t *plan);
/* -bind-to auto for a job of n ranks (spawned: ranks of MPI_Comm_spawn) of
 * `threads` threads each (mpx_bind_threads): plan becomes a block of free
 * cores per rank, held until mpiexec exits, or n = 0 (unbound) with -verbose
 * saying why. */
void mpx_bind_auto(const mpx_opts_t *o, mpx_bind_plan_t *plan, int n, int spawned, int threads);
/* The most threads a rank of these environments asks for (OMP_NUM_THREADS), >= 1. */
int mpx_bind_threads(const mpx_env_t *envs, int nenv);
/* The plan's decisions, pure. mpx_bind_cores: the slots made of ncpu CPUs
 * (cpus[i] with its core and package ids; ids repeat across packages): one per
 * CPU (by_hwthread) or per (package, core), in package round robin with
 * by_socket, into sets (room for ncpu); returns their number, -1 out of
 * memory. mpx_bind_blocks: n blocks from the nfree slots cores[free_at[k]],
 * consecutive ones each (every n-th with by_socket), the first nfree % n
 * ranks one more (a rank's threads keep its block). */
int mpx_bind_cores(int ncpu, const int *cpus, const int *core_of, const int *pkg_of,
                   int by_hwthread, int by_socket, cpu_set_t *sets);
void mpx_bind_blocks(const cpu_set_t *cores, const int *free_at, int nfree, int n, int by_socket,
                     cpu_set_t *blocks);

/* ------------------------------------------------------------ hosts */

/* One host of -hosts / -f: its name and slots (processes it takes per round). */
typedef struct mpx_host {
    char name[256];
    int slots;
    int local; /* this machine */
} mpx_host_t;

/* Is this host name (before any ':') this machine? */
int mpx_host_is_local(const char *name);
/* Read -hosts and -f into opts->hostv (merging repeated names, -ppn
 * overriding the slots). 0, or 2 after printing a usage error. */
int mpx_hosts_load(mpx_opts_t *o);
/* Hydra's placement: fill each host's slots in turn, wrapping around while
 * ranks are left. host_of[r] is the index in hosts of rank r. */
void mpx_hosts_place(const mpx_host_t *hosts, int nhosts, int nranks, int *host_of);
/* PMI_process_mapping for a placement, node ids in order of first use:
 * "(vector,(node,count,ranks),...)". 0, or -1 when it does not fit. */
int mpx_hosts_mapping(const int *host_of, int nranks, char *out, size_t len);
/* Does this job go through proxies (a host that is not this one, or an
 * explicit -launcher)? */
int mpx_hosts_remote(const mpx_opts_t *o);

/* mpiexec/remote.c: run the job through one proxy per host; the exit code. */
int mpx_remote_main(mpx_opts_t *o, int timeout_s);
/* mpiexec/proxy.c: "mpiexec -proxy HOST", started by mpiexec through the
 * launcher; talks to it on stdin/stdout. The exit code. */
int mpx_proxy_main(int argc, char **argv);
/* Start 'self -proxy host' with launcher how ("ssh" or NULL: launcher_exec
 * or ssh; "fork"; "slurm": srun), its stdin and stdout pipes the link:
 * *rfd reads it, *wfd writes it (non-blocking, close-on-exec). The
 * launcher's pid (leader of its own process group), or -1 after a message.
 * Used by mpiexec (remote.c) and by proxies that start proxies below them. */
pid_t mpx_proxy_launch(const char *self, const char *how, const char *launcher_exec, int fork_it,
                       const char *host, int verbose, int *rfd, int *wfd);
/* The fan-out of the proxy tree: -fanout N, else CANAL_MPIEXEC_FANOUT,
 * else 32 (up to 32 hosts, mpiexec starts every proxy itself). */
int mpx_tree_fanout(const mpx_opts_t *o);

/* ------------------------------------------------------------ job */

/* Output of one stream of one rank, cut into whole lines before it is written. */
typedef struct {
    int fd; /* read end of the pipe, -1 once closed */
    int to; /* 1 or 2: mpiexec's stdout or stderr */
    char *buf;
    size_t len, cap;
} mpx_stream_t;

/* A PMI-1 or PMI-2 spawn request being collected (PMI-1 sends one block of
 * lines per command) or parsed: its key=value pairs in order. */
typedef struct {
    int n, cap;
    char **key, **val;
    size_t bytes;
} mpx_spawn_req_t;

typedef struct {
    int rank; /* rank in its PMI job */
    int idx;  /* index in mpx_job_t.ranks: the epoll token */
    int pj;   /* its PMI job (0: started from the command line) */
    int appnum, seg;
    pid_t pid;              /* 0 for a singleton we serve: not our child, never signalled */
    int pmi_fd;             /* server end of the socketpair, -1 once closed */
    int pmi_version;        /* framing: 1 lines, 2 length-prefixed */
    int in_mcmd;            /* inside a PMI-1 multi-line "mcmd=spawn" */
    mpx_spawn_req_t *spawn; /* PMI-1 spawn blocks received so far */
    pmi_wire_reader_t *rd;
    int pmi_wantw;    /* EPOLLOUT registered for pmi_fd */
    int trace_secret; /* its last message named a secret key (see pmi_wire_redact) */
    char *outq;       /* replies not yet written (socket full) */
    size_t outq_len, outq_cap;
    int initialized, finalized, in_barrier, waiting_nodeattr;
    int aborted; /* it sent an abort: its own exit is no news */
    char wait_key[256]; /* node attribute a PMI-2 getnodeattr waits for */
    int exited, status;
    mpx_stream_t out, err;
} mpx_rank_t;

/* A PMI job: the ranks that share a KVS and barriers. Job 0 comes from the
 * command line, each spawn adds one. */
typedef struct mpx_kvs mpx_kvs_t;
typedef struct {
    char kvsname[256];
    char spawner[256]; /* kvsname of the job that spawned it, "" for job 0 */
    int size;
    int first;  /* index of its first rank served here in mpx_job_t.ranks */
    int nlocal; /* its ranks served here: all of them in mpiexec, a host's in a proxy */
    int barrier_count;
    char mapping[4096];
    mpx_kvs_t *kvs;
} mpx_pmijob_t;

typedef struct mpx_server_ops mpx_server_ops_t;

typedef struct {
    mpx_opts_t *opts;
    const mpx_server_ops_t *ops; /* mpiexec's own (mpx_server_local_ops) or a proxy's */
    int nranks; /* processes of all PMI jobs */
    int ranks_cap;
    mpx_rank_t **ranks; /* stable addresses: spawns grow the array */
    int npjobs;
    mpx_pmijob_t *pjobs;
    char hostname[256];
    int nexited;
    /* first failure decides the exit code */
    int failed, exit_code;
    /* -disable-auto-cleanup: ranks that failed while the others went on;
     * the first one's code is the job's exit code if nothing else failed */
    int nkept_failures, kept_exit_code;
    int tearing_down;
    int timed_out;
    int stdin_child; /* what rank 0 reads: 0 our stdin, >0 a forwarding pipe, -1 /dev/null */
} mpx_job_t;

/* The singleton's PMI connection closed: it finalized and left, or died. */
void mpx_singleton_gone(mpx_job_t *job, mpx_rank_t *r);

/* Stop the job: print why (once), signal every rank still running. */
void mpx_job_fail(mpx_job_t *job, int rank, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void mpx_job_teardown(mpx_job_t *job);
/* Judge the exits of ranks that are dying now (killed or exited, not yet
 * reaped): called before an abort is reported, so that a survivor's abort
 * that names a dead rank does not hide that rank's death. */
void mpx_job_settle(mpx_job_t *job);
/* Wait (a bounded poll, while the kernel finishes it) for pid, which is ours,
 * if it is exiting now; 1 and its status when it was reaped, 0 if it is not
 * exiting (or did not finish in time). */
int mpx_reap_if_exiting(pid_t pid, int *status);
/* "rank 3" for the command line's job, "rank 1 of spawned job 2" otherwise. */
const char *mpx_rank_name(const mpx_job_t *job, const mpx_rank_t *r);

/* ------------------------------------------------------------ launch */

/* Add a PMI job of `size` ranks running segments seg0.. (each segment's
 * nprocs ranks in turn). Returns its index or -1. */
int mpx_job_add(mpx_job_t *job, int seg0, int size, const char *spawner);
/* Start the ranks of PMI job pj; 0 or -1 after printing why (ranks that
 * could not start are marked exited with status 127). */
int mpx_launch(mpx_job_t *job, int pj);
/* The environment the ranks of segment s get (the -genv/-env rules). */
int mpx_segment_env(const mpx_opts_t *o, const mpx_segment_t *s, mpx_env_t *out);
/* Block the signals a launcher handles itself (SIGCHLD, SIGINT, SIGTERM,
 * SIGHUP, and with forward_user also SIGQUIT, SIGUSR1, SIGUSR2), ignore
 * SIGPIPE, and return a non-blocking signalfd that delivers them, or -1. */
int mpx_signals_open(int forward_user);
/* In a child just forked by mpiexec or a proxy (parent: the forker's pid):
 * die with SIGTERM when the parent dies (checked after the prctl, since the
 * parent may be gone already), take a process group of its own, and start
 * with no signal blocked and the launcher-handled signals at their defaults
 * (even when the launcher was started with them ignored: a background job). */
void mpx_child_reset(pid_t parent);
/* Is argv0 an executable (relative to dir when it has a '/')? */
int mpx_program_exists(const char *argv0, const char *dir);

/* ------------------------------------------------------------ PMI server */

/* A spawn request, parsed from PMI-1 blocks or a PMI-2 message. The strings
 * point into the request (or, in mpiexec across hosts, into a frame). */
enum { MPX_SPAWN_CMDS_MAX = 64, MPX_SPAWN_ARGS_MAX = 2048, MPX_SPAWN_PREPUT_MAX = 64 };
typedef struct {
    const char *cmd;
    int maxprocs;
    int argc;
    const char *argv[MPX_SPAWN_ARGS_MAX];
    const char *wdir;
    const char *host; /* the 'host' info key, NULL without */
} mpx_spawn_cmd_t;
typedef struct {
    int ncmds, npreput;
    mpx_spawn_cmd_t cmd[MPX_SPAWN_CMDS_MAX];
    const char *pkey[MPX_SPAWN_PREPUT_MAX], *pval[MPX_SPAWN_PREPUT_MAX];
} mpx_spawn_plan_t;

/* The PMI server core (mpiexec/server.c) serves ranks on their PMI sockets
 * for two owners: mpiexec on a single host (mpx_server_local_ops, everything
 * decided here) and a proxy of a job across hosts (mpiexec/proxy.c, which
 * passes what concerns the whole job up its link). What differs: */
struct mpx_server_ops {
    /* Every rank of PMI job pj served here entered its barrier. NULL: the
     * barrier is complete (mpiexec serves the whole job); a proxy sends its
     * puts up and calls mpx_server_fence_done when mpiexec answers. */
    void (*fence)(mpx_job_t *job, int pj);
    /* A key was put (and stored here) by rank r; NULL: nothing more to do. */
    void (*put)(mpx_job_t *job, mpx_rank_t *r, const char *key, const char *val);
    void (*abort)(mpx_job_t *job, mpx_rank_t *r, int code, const char *msg);
    /* Start a spawn: the new PMI job's kvsname (reply now), or NULL with
     * errmsg set, or MPX_SPAWN_LATER (the answer comes with
     * mpx_server_spawn_reply). */
    const char *(*spawn)(mpx_job_t *job, mpx_rank_t *r, const mpx_spawn_plan_t *sp, char *errmsg,
                         size_t errlen);
    /* EPOLLOUT for rank r's PMI socket; NULL: the owner polls outq_len. */
    void (*want_write)(mpx_job_t *job, mpx_rank_t *r, int want);
    /* A rank's name request (op 'p' publish, 'l' lookup, 'u' unpublish;
     * port only for 'p'): 0 when it was passed on (the answer comes with
     * mpx_server_names_reply), -1 when it could not be. NULL: served from
     * mpiexec's own table (mpx_names_do). */
    int (*names)(mpx_job_t *job, mpx_rank_t *r, int op, const char *service, const char *port);
};
extern const mpx_server_ops_t mpx_server_local_ops;
extern const char MPX_SPAWN_LATER[];

/* A client-supplied key or value of message m (mpiexec's server and the
 * proxies): present, shorter than max, printable ASCII; else NULL. */
const char *mpx_pmi_arg(const pmi_wire_msg_t *m, const char *name, size_t max);
/* Data arrived on (or the peer closed) the PMI socket of rank r. */
void mpx_server_readable(mpx_job_t *job, mpx_rank_t *r);
/* Close rank r's PMI connection (a singleton's: it is gone, see mpx_singleton_gone). */
void mpx_server_close(mpx_job_t *job, mpx_rank_t *r);
/* The socket of rank r can take more of its queued replies. */
void mpx_server_writable(mpx_job_t *job, mpx_rank_t *r);
/* A rank exited: barriers that can no longer complete end the job. */
void mpx_server_rank_exited(mpx_job_t *job, mpx_rank_t *r);
/* After a rank's exit was judged: fail the job if a barrier now waits for it. */
void mpx_server_check_barriers(mpx_job_t *job, mpx_rank_t *r);
/* -disable-auto-cleanup: tell the other ranks of r's PMI job that r failed
 * ("cmd=canal-rank-failed rank=N", unasked; pmi/conn.c reads it). */
void mpx_server_notify_failed(mpx_job_t *job, mpx_rank_t *r);
int mpx_server_init(mpx_job_t *job);
/* Release the ranks of PMI job pj waiting in its barrier (a proxy: the
 * whole job's fence is complete). */
void mpx_server_fence_done(mpx_job_t *job, int pj);
/* Answer rank r's pending spawn: jobid, or NULL and errmsg. */
void mpx_server_spawn_reply(mpx_job_t *job, mpx_rank_t *r, const char *jobid, const char *errmsg);
/* Published names (MPI_Publish_name), one table per mpiexec shared by all
 * its PMI jobs on every host: op 'p', 'l' or 'u' on it; an MPX_NAME_
 * status, and for a lookup the port in *found. */
enum { MPX_NAME_OK, MPX_NAME_BAD, MPX_NAME_EXISTS, MPX_NAME_NOMEM, MPX_NAME_NOT_FOUND,
       MPX_NAME_UNREACHABLE };
int mpx_names_do(int op, const char *service, const char *port, const char **found);
/* Answer rank r's name request op with status (and the port of a lookup). */
void mpx_server_names_reply(mpx_job_t *job, mpx_rank_t *r, int op, int status, const char *port);
/* Append a PMI job (kvsname, size, nlocal of its ranks served here) to job;
 * its index or -1. Its ranks are added with mpx_rank_new. */
int mpx_pjob_new(mpx_job_t *job, const char *kvsname, int size, int nlocal);
mpx_rank_t *mpx_rank_new(mpx_job_t *job, int pj, int rank, int seg, int appnum);

/* ------------------------------------------------------------ KVS */

mpx_kvs_t *mpx_kvs_create(void);
/* 0, or -1 when the store is full (a runaway or hostile client). */
int mpx_kvs_put(mpx_kvs_t *kvs, const char *key, const char *val);
const char *mpx_kvs_get(const mpx_kvs_t *kvs, const char *key);
int mpx_kvs_remove(mpx_kvs_t *kvs, const char *key);

/* mpiexec/mpiexec.c: register interest in writing to a rank's PMI socket;
 * watch the fds of a newly started rank. */
void mpx_loop_want_write(mpx_job_t *job, mpx_rank_t *r, int want);
void mpx_loop_add_rank(mpx_job_t *job, mpx_rank_t *r);

#endif
