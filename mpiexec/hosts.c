/*
 * mpiexec's hosts: -hosts "h1,h2:4" and -f FILE (Hydra's format: "host[:N]"
 * per line, '#' starts a comment) become a list of hosts with slot counts
 * (-ppn replaces them; a repeated name adds its slots to the first entry, so
 * every host has one proxy). Placement follows Hydra: ranks fill the first
 * host's slots, then the next host's, and wrap around to the first host while
 * ranks are left. The placement becomes the PMI_process_mapping the ranks
 * read to tell which of them share a node. Under -launcher slurm without
 * -hosts/-f, the hosts are the allocation's (SLURM_JOB_NODELIST, in Slurm's
 * compressed form "node[01-04,07],gpu3") with SLURM_TASKS_PER_NODE ("2(x3),1")
 * as slots, as Hydra reads them. Used by options.c (parsing) and remote.c
 * (the job across hosts).
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"

enum { HOSTS_MAX = 65536, SLOTS_MAX = 1000000 };

int mpx_host_is_local(const char *name)
{
    char me[256] = "";
    struct addrinfo hints, *res = NULL;
    int local = 0;

    if (strcasecmp(name, "localhost") == 0 || strncmp(name, "127.", 4) == 0 ||
        strcmp(name, "::1") == 0)
        return 1;
    gethostname(me, sizeof me - 1);
    if (strcasecmp(name, me) == 0)
        return 1;
    /* "node1" and "node1.cluster" name the same machine */
    if (strcspn(name, ".") == strcspn(me, ".") && strncasecmp(name, me, strcspn(me, ".")) == 0)
        return 1;
    /* A numeric address we can bind to belongs to this machine. Names are
     * not resolved: a lost DNS reply costs the resolver's 5 s timeout, and a
     * name of this machine we do not recognise only costs an ssh to it. */
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICHOST;
    if (getaddrinfo(name, NULL, &hints, &res) != 0)
        return 0;
    for (struct addrinfo *ai = res; ai != NULL && !local; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, SOCK_DGRAM, 0);
        if (fd < 0)
            continue;
        local = bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
        close(fd);
    }
    freeaddrinfo(res);
    return local;
}

/* Add "name[:N]" (blanks around it ignored) from `where` (for messages). */
static int host_add(mpx_opts_t *o, const char *spec, const char *where)
{
    char name[256];
    const char *colon;
    size_t n;
    int slots = 1;

    spec += strspn(spec, " \t\r");
    n = strcspn(spec, " \t\r\n");
    colon = memchr(spec, ':', n);
    if (colon != NULL) {
        char *end;
        long v;
        errno = 0;
        v = strtol(colon + 1, &end, 10);
        if (errno != 0 || end == colon + 1 || end != spec + n || v < 1 || v > SLOTS_MAX) {
            fprintf(stderr, "mpiexec: host '%.*s' %s: the count after ':' must be 1..%d\n", (int)n,
                    spec, where, SLOTS_MAX);
            return 2;
        }
        slots = (int)v;
        n = (size_t)(colon - spec);
    }
    {
        size_t w = strcspn(spec, " \t\r\n");
        if (spec[w + strspn(spec + w, " \t\r\n")] != '\0') {
            fprintf(stderr, "mpiexec: host entry '%s' %s: one 'host[:N]' per entry\n", spec, where);
            return 2;
        }
    }
    if (n == 0 || n >= sizeof name) {
        fprintf(stderr, "mpiexec: empty or overlong host name in '%s' %s\n", spec, where);
        return 2;
    }
    memcpy(name, spec, n);
    name[n] = '\0';
    for (const char *p = name; *p != '\0'; p++)
        if (!(*p == '-' || *p == '.' || *p == '_' || *p == '%' || *p == '[' || *p == ']' ||
              (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
            fprintf(stderr, "mpiexec: host name '%s' %s has a character ('%c') no host name has\n",
                    name, where, *p);
            return 2;
        }
    for (int h = 0; h < o->nhosts; h++)
        if (strcmp(o->hostv[h].name, name) == 0) {
            o->hostv[h].slots =
                o->hostv[h].slots + slots > SLOTS_MAX ? SLOTS_MAX : o->hostv[h].slots + slots;
            return 0;
        }
    if (o->nhosts == HOSTS_MAX) {
        fprintf(stderr, "mpiexec: more than %d hosts\n", HOSTS_MAX);
        return 2;
    }
    {
        mpx_host_t *v = realloc(o->hostv, (size_t)(o->nhosts + 1) * sizeof *v);
        if (v == NULL)
            return 2;
        o->hostv = v;
    }
    memset(&o->hostv[o->nhosts], 0, sizeof o->hostv[0]);
    snprintf(o->hostv[o->nhosts].name, sizeof o->hostv[0].name, "%s", name);
    o->hostv[o->nhosts].slots = slots;
    o->hostv[o->nhosts].local = mpx_host_is_local(name);
    o->nhosts++;
    return 0;
}

static int hosts_from_list(mpx_opts_t *o, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (copy == NULL)
        return 2;
    for (char *h = strtok_r(copy, ",", &save); h != NULL && rc == 0; h = strtok_r(NULL, ",", &save))
        rc = host_add(o, h, "(from -hosts)");
    free(copy);
    return rc;
}

static int hosts_from_file(mpx_opts_t *o, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024], where[1200];
    int rc = 0, lineno = 0;

    if (f == NULL) {
        fprintf(stderr, "mpiexec: cannot read host file '%s': %s\n", path, strerror(errno));
        return 2;
    }
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        char *p = line + strspn(line, " \t\r");
        lineno++;
        p[strcspn(p, "\n#")] = '\0';
        if (p[strspn(p, " \t\r")] == '\0')
            continue;
        snprintf(where, sizeof where, "(line %d of %s)", lineno, path);
        rc = host_add(o, p, where);
    }
    fclose(f);
    return rc;
}

/* The next count of SLURM_TASKS_PER_NODE ("2(x3),1"): *left repeats left. */
static int slurm_next_slots(const char **p, int *cur, int *left)
{
    char *end;
    long v, rep = 1;
    if (*left > 0) {
        (*left)--;
        return *cur;
    }
    if (**p == ',')
        (*p)++;
    v = strtol(*p, &end, 10);
    if (end == *p || v < 1 || v > SLOTS_MAX)
        return -1;
    *p = end;
    if (strncmp(*p, "(x", 2) == 0) {
        rep = strtol(*p + 2, &end, 10);
        if (end == *p + 2 || *end != ')' || rep < 1)
            return -1;
        *p = end + 1;
    }
    *cur = (int)v;
    *left = (int)(rep > INT_MAX ? INT_MAX : rep) - 1;
    return *cur;
}

/* The hosts of the Slurm allocation we run in. */
static int hosts_from_slurm(mpx_opts_t *o)
{
    const char *list = getenv("SLURM_JOB_NODELIST"), *tasks = getenv("SLURM_TASKS_PER_NODE");
    const char *tasks0;
    int cur = 1, left = 0, rc = 0;
    if (list == NULL)
        list = getenv("SLURM_NODELIST");
    if (tasks == NULL)
        tasks = getenv("SLURM_JOB_CPUS_PER_NODE");
    tasks0 = tasks;
    if (list == NULL || *list == '\0') {
        fprintf(stderr, "mpiexec: -launcher slurm without -hosts/-f runs inside a Slurm "
                        "allocation (salloc, sbatch): SLURM_JOB_NODELIST is not set\n");
        return 2;
    }
    for (const char *p = list; *p != '\0' && rc == 0;) {
        /* one item: up to a ',' outside brackets */
        size_t n = 0;
        int depth = 0;
        char item[512], spec[600];
        const char *lb, *rb;
        while (p[n] != '\0' && (depth > 0 || p[n] != ',')) {
            depth += (p[n] == '[') - (p[n] == ']');
            n++;
        }
        if (n == 0 || n >= sizeof item)
            goto bad;
        memcpy(item, p, n);
        item[n] = '\0';
        p += n + (p[n] == ',');
        lb = strchr(item, '[');
        rb = lb != NULL ? strchr(lb, ']') : NULL;
        if (lb == NULL) {
            int slots = tasks != NULL ? slurm_next_slots(&tasks, &cur, &left) : 1;
            if (slots < 0)
                goto bad;
            snprintf(spec, sizeof spec, "%s:%d", item, slots);
            rc = host_add(o, spec, "(from SLURM_JOB_NODELIST)");
            continue;
        }
        if (rb == NULL || strchr(rb, '[') != NULL)
            goto bad; /* one bracket group per item, as Slurm writes them here */
        for (const char *r = lb + 1; r < rb && rc == 0;) {
            char *end;
            long a = strtol(r, &end, 10), b = a;
            int width = (int)(end - r);
            if (end == r)
                goto bad;
            if (*end == '-') {
                const char *q = end + 1;
                b = strtol(q, &end, 10);
                if (end == q)
                    goto bad;
            }
            if (b < a || b - a > HOSTS_MAX || (*end != ',' && end != rb))
                goto bad;
            for (long v = a; v <= b && rc == 0; v++) {
                int slots = tasks != NULL ? slurm_next_slots(&tasks, &cur, &left) : 1;
                if (slots < 0)
                    goto bad;
                snprintf(spec, sizeof spec, "%.*s%0*ld%s:%d", (int)(lb - item), item, width, v,
                         rb + 1, slots);
                rc = host_add(o, spec, "(from SLURM_JOB_NODELIST)");
            }
            r = *end == ',' ? end + 1 : end;
        }
    }
    return rc;
bad:
    fprintf(stderr, "mpiexec: cannot read the Slurm allocation: SLURM_JOB_NODELIST='%s', "
                    "SLURM_TASKS_PER_NODE='%s'\n",
            list, tasks0 != NULL ? tasks0 : "");
    return 2;
}

int mpx_hosts_load(mpx_opts_t *o)
{
    int rc = 0;
    if (o->hosts_arg != NULL)
        rc = hosts_from_list(o, o->hosts_arg);
    if (rc == 0 && o->hostfile != NULL)
        rc = hosts_from_file(o, o->hostfile);
    if (rc == 0 && o->hosts_arg == NULL && o->hostfile == NULL)
        rc = hosts_from_slurm(o);
    if (rc != 0)
        return rc;
    if (o->nhosts == 0) {
        fprintf(stderr, "mpiexec: no host in %s%s%s\n", o->hosts_arg ? "-hosts" : "",
                o->hosts_arg && o->hostfile ? " and " : "", o->hostfile ? o->hostfile : "");
        return 2;
    }
    if (o->ppn > 0)
        for (int h = 0; h < o->nhosts; h++)
            o->hostv[h].slots = o->ppn;
    return 0;
}

void mpx_hosts_place(const mpx_host_t *hosts, int nhosts, int nranks, int *host_of)
{
    int r = 0;
    while (r < nranks)
        for (int h = 0; h < nhosts && r < nranks; h++)
            for (int k = 0; k < hosts[h].slots && r < nranks; k++)
                host_of[r++] = h;
}

int mpx_hosts_mapping(const int *host_of, int nranks, char *out, size_t len)
{
    /* node ids in order of first use; blocks (node, count, ranks per node) */
    int *node_of_host = NULL, maxh = 0, nnodes = 0;
    int bnode = -1, bcount = 0, bppn = 0, nblocks = 0;
    size_t k;
    int rc = -1;

    for (int r = 0; r < nranks; r++)
        if (host_of[r] + 1 > maxh)
            maxh = host_of[r] + 1;
    node_of_host = malloc((size_t)(maxh > 0 ? maxh : 1) * sizeof *node_of_host);
    if (node_of_host == NULL)
        return -1;
    for (int h = 0; h < maxh; h++)
        node_of_host[h] = -1;
    k = (size_t)snprintf(out, len, "(vector");
    for (int r = 0; r < nranks;) {
        int node, run = 1;
        if (node_of_host[host_of[r]] < 0)
            node_of_host[host_of[r]] = nnodes++;
        node = node_of_host[host_of[r]];
        while (r + run < nranks && host_of[r + run] == host_of[r])
            run++;
        if (bcount > 0 && run == bppn && node == bnode + bcount) {
            bcount++;
        } else {
            if (bcount > 0) {
                k += (size_t)snprintf(out + k, k < len ? len - k : 0, ",(%d,%d,%d)", bnode, bcount,
                                      bppn);
                nblocks++;
            }
            bnode = node;
            bcount = 1;
            bppn = run;
        }
        r += run;
    }
    if (bcount > 0)
        k += (size_t)snprintf(out + k, k < len ? len - k : 0, ",(%d,%d,%d)", bnode, bcount, bppn);
    k += (size_t)snprintf(out + k, k < len ? len - k : 0, ")");
    /* the PMI clients read at most 256 blocks (pmi/wire.c) */
    if (k < len && nblocks < 256)
        rc = 0;
    free(node_of_host);
    return rc;
}

int mpx_hosts_remote(const mpx_opts_t *o)
{
    if (o->nhosts == 0)
        return 0;
    if (o->launcher != NULL || o->launcher_exec != NULL)
        return 1;
    for (int h = 0; h < o->nhosts; h++)
        if (!o->hostv[h].local)
            return 1;
    return 0;
}
