/*
 * common/proc.c: whether a peer process of this node still runs, looked up
 * by pid only inside our own pid namespace (see proc.h). The namespace's
 * identity is read once; kill(pid, 0) is the lookup.
 */
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

int common_thread_count(void)
{
    char buf[1024], *p;
    ssize_t n;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": num_threads is field 20; comm may hold
     * blanks and parentheses, so count from its last ')' */
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    for (p++; *p != '\0' && field < 20; p++)
        if (*p == ' ' && p[1] != ' ')
            field++;
    return field == 20 ? atoi(p) : -1;
}
