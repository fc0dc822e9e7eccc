/*
 * A stand-in for pmi/pmi.h in unit tests of the channels (shm, sock, ofi):
 * fake_pmi_run() forks N processes that form one job, each of which sees
 * pmi_init(), pmi_put/get and pmi_fence() as a real PMI would. The KVS and
 * the fence live in an anonymous MAP_SHARED region made before the fork; a
 * put becomes visible to others after the putter's next fence (as in PMI),
 * and a fence gives up after the job's timeout instead of hanging when a
 * process died. Ranks are placed on simulated nodes (node_of, local_ranks)
 * so a test can make peers look remote.
 * Link it instead of libcanal_pmi; it needs libcanal_common.
 */
#ifndef CANAL_TEST_FAKE_PMI_H
#define CANAL_TEST_FAKE_PMI_H

#include "pmi/pmi.h"
#include "test/unit/unit_limits.h"

enum { FAKE_PMI_MAX_PROCS = 64 };

typedef struct {
    int nprocs;       /* processes (ranks), 1..FAKE_PMI_MAX_PROCS */
    int nnodes;       /* simulated nodes; 0 means 1 */
    int cyclic;       /* 0: ranks fill node 0 first (block); 1: round robin */
    int timeout_s;    /* kill the job after this many seconds; 0 (what tests use)
                       * means twice unit_hang_s() (test/unit/unit_limits.h) */
    int *wstatus_out; /* optional: nprocs wait statuses (waitpid) */
} fake_pmi_job_t;

/* The code each process runs; its return value is the exit status (0 = ok). */
typedef int (*fake_pmi_body_t)(int rank, void *arg);

/* Fork the job, wait for it; returns the number of ranks that did not exit
 * with status 0 (killed, failed, timed out), or -1 if the job could not start.
 * Call from the test process; the children leave with _exit(). */
int fake_pmi_run(const fake_pmi_job_t *job, fake_pmi_body_t body, void *arg);

/* In a child: this rank, and the number of fences it has completed. */
int fake_pmi_rank(void);
int fake_pmi_epoch(void);

/* In a child: note that this rank failed a check (it is about to exit), and
 * read the first rank that did (-1: none yet). A rank that sees another's
 * failure while it waits fails too, printing its own state: both sides of a
 * stalled exchange explain themselves, not only the one that gave up first. */
void fake_pmi_note_failed(void);
int fake_pmi_failed_rank(void);

#endif
