/*
 * common/proc.c: whether a peer process of this node still runs, looked up
 * by pid only inside our own pid namespace (see proc.h). The namespace's
 * identity is read once; kill(pid, 0) is the lookup. Also this process's
 * threads, all of them and the runnable ones, from /proc (the device's wait
 * policy, adi/device.c).
 */
#include "common/proc.h"

#include <dirent.h>
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

/* The fields of a /proc stat file after its "pid (comm)" (comm may hold
 * blanks and parentheses, so from its last ')'), read into buf; NULL when
 * it cannot be read. */
static char *stat_fields(const char *path, char *buf, size_t len)
{
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *p;

    if (fd < 0)
        return NULL;
    n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return (p = strrchr(buf, ')')) != NULL ? p + 1 : NULL;
}

int common_thread_count(void)
{
    char buf[1024], *p;
    int field = 2;

    /* "pid (comm) state ppid ...": num_threads is field 20 */
    if ((p = stat_fields("/proc/self/stat", buf, sizeof buf)) == NULL)
        return -1;
    for (; *p != '\0' && field < 20; p++)
        if (*p == ' ' && p[1] != ' ')
            field++;
    return field == 20 ? atoi(p) : -1;
}

int common_threads_running(void)
{
    char path[64], buf[512], *p;
    struct dirent *e;
    DIR *d = opendir("/proc/self/task");
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
        /* (" R ppid ...": a thread gone meanwhile is not counted) */
        if ((p = stat_fields(path, buf, sizeof buf)) != NULL && p[0] == ' ' && p[1] == 'R')
            n++;
    }
    closedir(d);
    return n;
}
