/*
 * common/proc.c: whether a peer process of this node still runs, looked up
 * by pid only inside our own pid namespace (see proc.h). The namespace's
 * identity is read once; kill(pid, 0) is the lookup.
 */
#include "common/proc.h"

#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/types.h>

/* UINT64_MAX: not read yet. Every reader computes the same value, so a race
 * between two first readers stores it twice. */
static _Atomic uint64_t pidns_cached = UINT64_MAX;

uint64_t common_pidns(void)
{
    uint64_t v = atomic_load_explicit(&pidns_cached, memory_order_relaxed);
    struct stat sb;

    if (v != UINT64_MAX)
        return v;
    v = stat("/proc/self/ns/pid", &sb) == 0 ? (uint64_t)sb.st_ino : 0;
    atomic_store_explicit(&pidns_cached, v, memory_order_relaxed);
    return v;
}

int common_pid_gone(long pid, uint64_t pidns)
{
    if (pid <= 0 || pidns != common_pidns())
        return -1;
    if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
        return 0;
    return errno == ESRCH ? 1 : -1;
}

int common_file_first_int(const char *path)
{
    FILE *f = fopen(path, "r");
    int v = -1;
    if (f == NULL)
        return -1;
    if (fscanf(f, "%d", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}
