/*
 * Per-thread error detail for the status type of common/status.h. The layer
 * that finds an error records a human-readable detail once; mpi/errors.c
 * reads it when it builds the MPI error message.
 */
#include "common/status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char err_detail[512];

canal_status_t common_err_set(canal_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_detail, sizeof err_detail, fmt, ap);
    va_end(ap);
    return st;
}

const char *common_err_detail(void) { return err_detail; }

void common_err_clear(void) { err_detail[0] = '\0'; }

const char *common_status_name(canal_status_t st)
{
    switch (st) {
    case CANAL_OK: return "CANAL_OK";
    case CANAL_INPROGRESS: return "CANAL_INPROGRESS";
    case CANAL_AGAIN: return "CANAL_AGAIN";
    case CANAL_ERR_NOMEM: return "CANAL_ERR_NOMEM";
    case CANAL_ERR_ARG: return "CANAL_ERR_ARG";
    case CANAL_ERR_TRUNCATE: return "CANAL_ERR_TRUNCATE";
    case CANAL_ERR_IO: return "CANAL_ERR_IO";
    case CANAL_ERR_UNSUPPORTED: return "CANAL_ERR_UNSUPPORTED";
    case CANAL_ERR_PROTO: return "CANAL_ERR_PROTO";
    case CANAL_ERR_INTERN: return "CANAL_ERR_INTERN";
    case CANAL_ERR_PEER: return "CANAL_ERR_PEER";
    case CANAL_ERR_LIMIT: return "CANAL_ERR_LIMIT";
    case CANAL_ERR_NOTFOUND: return "CANAL_ERR_NOTFOUND";
    case CANAL_ERR_TYPE: return "CANAL_ERR_TYPE";
    case CANAL_ERR_OP: return "CANAL_ERR_OP";
    case CANAL_ERR_PENDING: return "CANAL_ERR_PENDING";
    case CANAL_ERR_TIMEOUT: return "CANAL_ERR_TIMEOUT";
    case CANAL_ERR_MISMATCH: return "CANAL_ERR_MISMATCH";
    case CANAL_ERR_PEER_PENDING: return "CANAL_ERR_PEER_PENDING";
    case CANAL_ERR_REVOKED: return "CANAL_ERR_REVOKED";
    case CANAL_ERR_REMOTE: return "CANAL_ERR_REMOTE";
    }
    return "CANAL_ERR_UNKNOWN";
}
