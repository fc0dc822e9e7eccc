/*
 * The one status type used below mpi/. Every internal function returns
 * canal_status_t: 0 is success, positive values are "not done yet" (in
 * progress, try again), negative values are errors. Only mpi/errors.c turns
 * these into MPI error classes. The detail of the most recent error (which
 * call, which argument, which value) is kept per thread by common_err_set().
 */
#ifndef CANAL_COMMON_STATUS_H
#define CANAL_COMMON_STATUS_H

#include <stddef.h>

typedef int canal_status_t;

enum {
    CANAL_OK = 0,
    CANAL_INPROGRESS = 1,   /* started; completes later */
    CANAL_AGAIN = 2,        /* resource busy; retry later */

    CANAL_ERR_NOMEM = -1,
    CANAL_ERR_ARG = -2,          /* invalid argument */
    CANAL_ERR_TRUNCATE = -3,     /* message larger than the receive buffer */
    CANAL_ERR_IO = -4,           /* system call failed */
    CANAL_ERR_UNSUPPORTED = -5,  /* not implemented or not possible here */
    CANAL_ERR_PROTO = -6,        /* malformed message from a peer */
    CANAL_ERR_INTERN = -7,       /* internal invariant broken */
    CANAL_ERR_PEER = -8,         /* peer died or connection lost */
    CANAL_ERR_LIMIT = -9,        /* a configured limit was exceeded */
    CANAL_ERR_NOTFOUND = -10,    /* key or name not found */
    CANAL_ERR_TYPE = -11,        /* invalid datatype or datatype mismatch */
    CANAL_ERR_OP = -12,          /* invalid reduction operation for the type */
    CANAL_ERR_PENDING = -13,     /* object still in use */
    CANAL_ERR_TIMEOUT = -14,
    CANAL_ERR_MISMATCH = -15,    /* the peers of a collective disagree (sizes) */
    CANAL_ERR_PEER_PENDING = -16, /* any-source receive: a possible sender died (not acknowledged) */
    CANAL_ERR_REVOKED = -17,      /* the communicator was revoked (MPIX_Comm_revoke) */
    CANAL_ERR_REMOTE = -18,       /* another process of the operation reported an error */
};

/* Record the detail of an error for mpi/ to report, and return `st`, so a
 * failure site reads: return common_err_set(CANAL_ERR_ARG, "count %d < 0", c); */
canal_status_t common_err_set(canal_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The detail recorded by the last common_err_set() on this thread ("" if none). */
const char *common_err_detail(void);
void common_err_clear(void);
/* Short name of a status ("CANAL_ERR_ARG"), for logs. */
const char *common_status_name(canal_status_t st);

#endif
