/*
 * Named POSIX shared-memory segments that a group of processes on one node
 * map together: one process creates and maps a segment under a fresh name,
 * passes the name to the others by whatever collective it has, they attach,
 * and once every one has (or has failed to), the creator unlinks the name so
 * that the memory goes away with the last mapping. Used by RMA windows
 * (rma/rma.c) and the node block of the collectives (coll/shm.c); the
 * collective steps around these calls are the callers'.
 */
#ifndef CANAL_COMMON_SHMSEG_H
#define CANAL_COMMON_SHMSEG_H

#include <stddef.h>

enum { COMMON_SHM_NAME_MAX = 64 };

/* Create a zero-filled segment of len bytes (all of it allocated now, so a
 * full /dev/shm fails here and not later with SIGBUS) named
 * "/canal-<what>-<pid>-<n>", written to name (COMMON_SHM_NAME_MAX bytes),
 * and map it. NULL (and name "") when that is not possible. */
void *common_shm_create(const char *what, size_t len, char *name);
/* Map the segment another process created; NULL when that fails. */
void *common_shm_attach(const char *name, size_t len);
/* Remove the name (the creator, once every process attached or gave up). */
void common_shm_unlink(const char *name);

#endif
