/*
 * libFuzzer target: mpiexec's PMI server (mpiexec/server.c and its KVS,
 * mpiexec/kvs.c) reading requests from its ranks -- any process holding a
 * PMI_FD socket can send it anything. The two files are compiled into this
 * target (#include below): mpiexec is a program, not part of libmpi.a. The
 * rest of mpiexec is replaced by stubs: the event loop does nothing, a job
 * failure is only recorded, and spawn finds no executable (so no process is
 * ever started; the spawn request parsing up to that point is exercised).
 * A job of two ranks, each a socketpair; the input is a sequence of
 * [rank][len][len bytes] chunks written to that rank's socket, after each of
 * which the server reads and the replies are drained and discarded.
 * Built and run by test/fuzz/run.sh.
 */
#include "mpiexec/kvs.c"
#include "mpiexec/server.c"

#include <fcntl.h>
#include <stdint.h>
#include "fuzz.h"

static mpx_opts_t opts;
static mpx_segment_t seg;
static char *seg_argv[] = {"prog", NULL};
static mpx_pmijob_t pjob;
static mpx_rank_t rank_obj[2];
static mpx_rank_t *rank_ptr[2] = {&rank_obj[0], &rank_obj[1]};
static mpx_job_t job;
static int peer_fd[2] = {-1, -1};

/* ---- stubs for the rest of mpiexec ---- */
void mpx_job_fail(mpx_job_t *j, int rank, int code, const char *fmt, ...)
{
    (void)rank;
    (void)fmt;
    if (!j->failed) {
        j->failed = 1;
        j->exit_code = code;
    }
}
void mpx_job_teardown(mpx_job_t *j) { j->tearing_down = 1; }
/* mpiexec judges dying ranks before an abort; the fuzzer starts no process. */
void mpx_job_settle(mpx_job_t *j) { (void)j; }
const char *mpx_rank_name(const mpx_job_t *j, const mpx_rank_t *r)
{
    static char name[32];
    (void)j;
    snprintf(name, sizeof name, "rank %d", r->rank);
    return name;
}
int mpx_job_add(mpx_job_t *j, int seg0, int size, const char *spawner)
{
    (void)j, (void)seg0, (void)size, (void)spawner;
    return -1;
}
int mpx_launch(mpx_job_t *j, int pj)
{
    (void)j, (void)pj;
    return -1;
}
int mpx_program_exists(const char *argv0, const char *dir)
{
    (void)argv0, (void)dir;
    return 0; /* never start anything from a fuzzer */
}
void mpx_loop_want_write(mpx_job_t *j, mpx_rank_t *r, int want)
{
    (void)j;
    r->pmi_wantw = want;
}
void mpx_loop_add_rank(mpx_job_t *j, mpx_rank_t *r) { (void)j, (void)r; }
void mpx_singleton_gone(mpx_job_t *j, mpx_rank_t *r) { (void)j, (void)r; }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    seg.nprocs = 2;
    seg.argv = seg_argv;
    opts.segs = &seg;
    opts.nsegs = 1;
    opts.singleton_fd = -1; /* ranks of a job mpiexec started, not a singleton it serves */
    snprintf(pjob.kvsname, sizeof pjob.kvsname, "kvs_fuzz_0");
    snprintf(pjob.mapping, sizeof pjob.mapping, "(vector,(0,1,2))");
    pjob.size = 2;
    pjob.first = 0;
    pjob.kvs = mpx_kvs_create();
    job.opts = &opts;
    job.ops = &mpx_server_local_ops; /* the server as mpiexec runs it on one host */
    job.nranks = 2;
    job.ranks_cap = 2;
    job.ranks = rank_ptr;
    job.npjobs = 1;
    job.pjobs = &pjob;
    snprintf(job.hostname, sizeof job.hostname, "fuzzhost");
    for (int i = 0; i < 2; i++) {
        rank_obj[i].rank = i;
        rank_obj[i].idx = i;
        rank_obj[i].rd = malloc(sizeof *rank_obj[i].rd);
        rank_obj[i].pmi_fd = -1;
    }
    if (mpx_server_init(&job) != 0)
        abort();
    return 0;
}

static void drain(int i)
{
    char buf[65536];
    while (peer_fd[i] >= 0 && recv(peer_fd[i], buf, sizeof buf, MSG_DONTWAIT) > 0)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    size_t pos = 0;

    job.failed = 0;
    pjob.barrier_count = 0;
    for (int i = 0; i < 2; i++) {
        mpx_rank_t *r = &rank_obj[i];
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            abort();
        r->pmi_fd = sv[0];
        peer_fd[i] = sv[1];
        r->pmi_version = 1;
        r->in_mcmd = 0;
        r->outq_len = 0;
        r->initialized = r->finalized = r->in_barrier = r->waiting_nodeattr = 0;
        r->exited = 0;
        pmi_wire_reader_init(r->rd, 1);
    }
    while (pos + 2 <= n) {
        int i = d[pos] & 1;
        size_t len = d[pos + 1];
        pos += 2;
        if (len > n - pos)
            len = n - pos;
        if (rank_obj[i].pmi_fd >= 0 && len > 0) {
            if (send(peer_fd[i], d + pos, len, MSG_DONTWAIT) != (ssize_t)len)
                abort();
            mpx_server_readable(&job, &rank_obj[i]);
            if (rank_obj[i].pmi_fd >= 0 && (d[pos - 2] & 2))
                mpx_server_writable(&job, &rank_obj[i]);
        }
        pos += len;
        drain(0);
        drain(1);
    }
    for (int i = 0; i < 2; i++) {
        mpx_rank_t *r = &rank_obj[i];
        close(peer_fd[i]);
        peer_fd[i] = -1;
        if (r->pmi_fd >= 0)
            mpx_server_readable(&job, r); /* sees the end of the stream, closes */
        if (r->pmi_fd >= 0)
            server_close(&job, r);
        if (r->spawn != NULL) {
            spawn_req_free(r->spawn);
            r->spawn = NULL;
        }
    }
    return 0;
}
