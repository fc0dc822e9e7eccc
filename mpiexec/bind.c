/*
 * CPU binding of the ranks mpiexec starts on its own host (-bind-to core,
 * hwthread, none, and the default auto). mpx_bind_plan reads the CPUs of
 * mpiexec's mask and their cores and packages from sysfs, and mpx_bind_auto
 * takes the share of them that no other mpiexec holds. The decisions made on
 * that topology, which cores exist and which block of them each rank gets,
 * are the pure functions mpx_bind_cores and mpx_bind_blocks, so that the unit
 * test (test/unit/test_mpiexec_bind.c) can give them machines this one is not.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/proc.h"
#include "mpiexec/mpiexec.h"

int mpx_bind_cores(int ncpu, const int *cpus, const int *core_of, const int *pkg_of,
                   int by_hwthread, int by_socket, cpu_set_t *sets)
{
    int n = 0, *owner = NULL, *pkg = NULL, maxpkg = 0, k = 0;
    cpu_set_t *sorted = NULL;

    if (ncpu <= 0)
        return 0;
    memset(sets, 0, sizeof *sets * (size_t)ncpu);
    owner = malloc(sizeof *owner * (size_t)ncpu);
    if (owner == NULL)
        goto fail;
    /* one set per CPU, or per (package, core) with all its hardware threads */
    for (int i = 0; i < ncpu; i++) {
        owner[i] = -1;
        for (int j = 0; j < i && !by_hwthread; j++)
            if (core_of[j] == core_of[i] && pkg_of[j] == pkg_of[i]) {
                owner[i] = owner[j];
                break;
            }
        if (owner[i] < 0)
            owner[i] = n++;
        CPU_SET(cpus[i], &sets[owner[i]]);
    }
    if (!by_socket || n < 2)
        goto done;
    /* -map-by socket: round robin over packages, so slot order is (index in
     * its package, package); a slot's package is its first CPU's */
    sorted = calloc((size_t)n, sizeof *sorted);
    pkg = calloc((size_t)n, sizeof *pkg);
    if (sorted == NULL || pkg == NULL)
        goto fail;
    for (int i = ncpu - 1; i >= 0; i--)
        pkg[owner[i]] = pkg_of[i] < 0 ? 0 : pkg_of[i];
    for (int s = 0; s < n; s++)
        if (pkg[s] > maxpkg)
            maxpkg = pkg[s];
    for (int round = 0; k < n; round++)
        for (int p = 0; p <= maxpkg; p++) {
            int seen = 0;
            for (int s = 0; s < n; s++)
                if (pkg[s] == p && seen++ == round)
                    sorted[k++] = sets[s];
        }
    memcpy(sets, sorted, sizeof *sets * (size_t)n);
done:
    free(owner);
    free(sorted);
    free(pkg);
    return n;
fail:
    free(owner);
    free(sorted);
    free(pkg);
    return -1;
}

void mpx_bind_blocks(const cpu_set_t *cores, const int *free_at, int nfree, int n, int by_socket,
                     cpu_set_t *blocks)
{
    memset(blocks, 0, sizeof *blocks * (size_t)n);
    /* Rank r's block: consecutive free cores (in package order with
     * -map-by socket, whose cores alternate packages: every n-th one). The
     * first nfree % n ranks get one core more. */
    for (int k = 0; k < nfree; k++) {
        int r = by_socket ? k % n : (int)((long)k * n / nfree);
        CPU_OR(&blocks[r], &blocks[r], &cores[free_at[k]]);
    }
}

int mpx_bind_plan(const mpx_opts_t *o, mpx_bind_plan_t *plan)
{
    static int cpus[CPU_SETSIZE], core_of[CPU_SETSIZE], pkg_of[CPU_SETSIZE];
    cpu_set_t allowed;
    int ncpu = 0, n;

    plan->n = 0;
    plan->sets = NULL;
    if (o->bind == MPX_BIND_NONE)
        return 0;
    /* (AUTO plans by core, then mpx_bind_auto takes its share) */
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        char path[128];
        if (!CPU_ISSET(c, &allowed))
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        core_of[ncpu] = common_file_first_int(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 c);
        pkg_of[ncpu] = common_file_first_int(path);
        if (core_of[ncpu] < 0)
            core_of[ncpu] = c; /* no topology: every CPU is its own core */
        cpus[ncpu++] = c;
    }
    if (ncpu == 0)
        return -1;
    plan->sets = calloc((size_t)ncpu, sizeof *plan->sets);
    if (plan->sets == NULL)
        return -1;
    n = mpx_bind_cores(ncpu, cpus, core_of, pkg_of, o->bind == MPX_BIND_HWTHREAD,
                       o->map_by_socket, plan->sets);
    if (n < 0) {
        free(plan->sets);
        plan->sets = NULL;
        return -1;
    }
    plan->n = n;
    return 0;
}

/* -bind-to auto. Unbound, the kernel often leaves two busy ranks of a
 * 2-rank job on one CPU while the other idles (seen in 4 of 6 runs on a
 * 2-CPU guest, and kept there for seconds). Bound apart, that cannot happen
 * (2-rank MPI_Barrier beside two nice-19 busy loops: 0.2-1.4 us bound,
 * 0.4-344 unbound, most runs above 100; doc/bench.md "Stop 39 (lead)"),
 * and the device, seeing CPUs of its own, stops yielding to the other
 * programs (adi/device.c). So a job of n >= 2 ranks gets the cores of
 * mpiexec's mask that no other mpiexec holds, if there are at least n: an
 * equal block of them each (a rank's threads keep the whole block), or none
 * of them. A core is held by an flock on DIR/canal-bind-cpuN
 * (MPIEXEC_BIND_DIR, default /dev/shm; N its first CPU), taken without
 * waiting and kept, on a descriptor closed at exec, for mpiexec's life: the
 * kernel lets go when mpiexec ends, however it ends. Files that cannot be
 * opened count as free (nothing to agree with). */
static int bind_lock_core(const cpu_set_t *set)
{
    const char *dir = getenv("MPIEXEC_BIND_DIR");
    char path[4096];
    int cpu = 0, fd;

    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, set))
        cpu++;
    snprintf(path, sizeof path, "%s/canal-bind-cpu%d", dir != NULL && *dir ? dir : "/dev/shm",
             cpu);
    fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -2; /* (no registry: free) */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -1; /* another mpiexec's */
    }
    return fd;
}

/* A hybrid program's threads (OpenMP's OMP_NUM_THREADS, "4" or the first
 * level of "4,2") would all share their rank's block: with fewer cores than
 * ranks times threads, -bind-to auto leaves the job unbound, so the kernel
 * spreads the threads (a rank of 4 threads bound to one core of a 2-core
 * machine runs them a quarter of the time each). */
int mpx_bind_threads(const mpx_env_t *envs, int nenv)
{
    int most = 1;

    for (int s = 0; s < nenv; s++)
        for (int k = 0; k < envs[s].n; k++) {
            const char *kv = envs[s].kv[k];
            long t;
            if (strncmp(kv, "OMP_NUM_THREADS=", 16) != 0)
                continue;
            t = strtol(kv + 16, NULL, 10); /* (env_set keeps one value a name) */
            if (t > most)
                most = t > CPU_SETSIZE ? CPU_SETSIZE : (int)t;
        }
    return most;
}

void mpx_bind_auto(const mpx_opts_t *o, mpx_bind_plan_t *plan, int n, int spawned, int threads)
{
    int *fds = NULL, *free_at = NULL, nfree = 0;
    long need = (long)n * (threads > 1 ? threads : 1);
    cpu_set_t *blocks = NULL;
    const char *why = NULL;
    char text[128];

    if (spawned)
        why = "spawned ranks"; /* (a singleton's first spawn comes here first) */
    else if (n < 2)
        why = "one rank";
    else if (n > plan->n)
        why = "more ranks than cores";
    else if (need > plan->n) {
        snprintf(text, sizeof text, "%d ranks of OMP_NUM_THREADS=%d need %ld cores, %d here", n,
                 threads, need, plan->n);
        why = text;
    }
    if (why != NULL)
        goto unbound;
    fds = malloc(sizeof *fds * (size_t)plan->n);
    free_at = malloc(sizeof *free_at * (size_t)plan->n);
    blocks = calloc((size_t)n, sizeof *blocks);
    if (fds == NULL || free_at == NULL || blocks == NULL) {
        why = "out of memory";
        goto unbound;
    }
    for (int c = 0; c < plan->n; c++) {
        fds[c] = bind_lock_core(&plan->sets[c]);
        if (fds[c] != -1)
            free_at[nfree++] = c;
    }
    if (nfree < need) {
        for (int c = 0; c < plan->n; c++)
            if (fds[c] >= 0)
                close(fds[c]);
        why = "other jobs hold the cores";
        goto unbound;
    }
    mpx_bind_blocks(plan->sets, free_at, nfree, n, o->map_by_socket, blocks);
    free(plan->sets);
    plan->sets = blocks;
    plan->n = n;
    if (o->verbose)
        fprintf(stderr, "mpiexec: -bind-to auto: %d ranks over %d free cores\n", n, nfree);
    free(fds); /* (the descriptors stay open: they hold the cores) */
    free(free_at);
    return;
unbound:
    if (o->verbose)
        fprintf(stderr, "mpiexec: -bind-to auto: not binding (%s)\n", why);
    free(fds);
    free(free_at);
    free(blocks);
    free(plan->sets);
    plan->sets = NULL;
    plan->n = 0;
}
