/*
 * mpiexec's command line: Hydra-compatible global options (-genv, -l,
 * -bind-to, ...), MPMD segments separated by ':' with their local options
 * (-n, -env, -wdir, ...), -configfile, and --help/--version/-info. Called once
 * by main() in mpiexec/mpiexec.c. Unknown options and bad values print a
 * message and give exit code 2.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

int mpx_env_add(mpx_env_t *env, const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *kv;

    if (env->n + 1 >= env->cap) {
        int cap = env->cap ? env->cap * 2 : 16;
        char **p = realloc(env->kv, (size_t)cap * sizeof *p);
        if (p == NULL)
            return -1;
        env->kv = p;
        env->cap = cap;
    }
    kv = malloc(len);
    if (kv == NULL)
        return -1;
    snprintf(kv, len, "%s=%s", name, value);
    env->kv[env->n++] = kv;
    env->kv[env->n] = NULL;
    return 0;
}

void mpx_print_help(void)
{
    printf(
        "Usage: mpiexec [global options] [local options] program [args] [: [local options] "
        "program [args] ...]\n"
        "\n"
        "Starts the processes of an MPI job on this host or on the hosts given, and\n"
        "serves them PMI-1 and PMI-2 (through one proxy per host for other hosts).\n"
        "\n"
        "Global options:\n"
        "  -genv NAME VALUE      set an environment variable for every process\n"
        "  -genvlist A,B,...     pass only these variables of mpiexec's environment\n"
        "  -genvall              pass mpiexec's whole environment (the default)\n"
        "  -genvnone             pass none of mpiexec's environment\n"
        "  -l, -prepend-rank     prefix every output line with \"[rank] \"\n"
        "  -outfile-pattern P    write each rank's stdout to file P (%%r rank, %%h host, %%%% %%)\n"
        "  -errfile-pattern P    write each rank's stderr to file P\n"
        "  -bind-to auto|core|hwthread|none   pin each process to a core or hardware\n"
        "                        thread. auto (the default; MPIEXEC_BIND_TO sets another):\n"
        "                        a job of 2 or more ranks on this host that fit the\n"
        "                        cores of mpiexec's CPU mask which no other running\n"
        "                        mpiexec holds gets them, an equal block each (so the\n"
        "                        kernel cannot put two busy ranks on one core, and a\n"
        "                        rank's threads keep its block); otherwise, and for\n"
        "                        one rank, spawned ranks, jobs across hosts and ranks\n"
        "                        of OMP_NUM_THREADS threads the free cores cannot\n"
        "                        hold: none\n"
        "  -map-by core|hwthread|socket|slot   order in which binding fills the machine\n"
        "  -hosts H1,H2,...      hosts to run on; H:N gives host H N slots (default 1)\n"
        "  -f, -hostfile FILE    hosts from FILE: 'host[:N]' per line, '#' comments\n"
        "  -ppn N                processes per host (replaces the hosts' slot counts)\n"
        "                        Ranks fill each host's slots in turn, wrapping around\n"
        "                        when -n exceeds the slots (as Hydra); without -n, one\n"
        "                        process per slot.\n"
        "  -launcher ssh|fork|slurm  how proxies start: ssh (default for other hosts;\n"
        "                        this host uses fork), fork (every proxy on this host),\n"
        "                        or slurm (srun, inside an allocation; without -hosts/-f\n"
        "                        the allocation's nodes and tasks per node)\n"
        "  -launcher-exec PATH   program used instead of ssh, called as\n"
        "                        'PATH -x HOST COMMAND'\n"
        "  -fanout N             proxies each proxy starts (and mpiexec itself) when\n"
        "                        there are more hosts: a tree of proxies (default 32,\n"
        "                        or CANAL_MPIEXEC_FANOUT)\n"
        "  -iface NAME           network interface the ranks use between hosts (sets\n"
        "                        CANAL_SOCK_IFACE)\n"
        "  -configfile FILE      read segments from FILE, one per line\n"
        "  -usize N              MPI_UNIVERSE_SIZE: processes the job may have with its\n"
        "                        spawned ones (default: the CPUs here, at least the job)\n"
        "  -v, -verbose          describe what mpiexec does (CANAL_DEBUG=3: trace PMI too)\n"
        "  -disable-auto-cleanup a rank that dies does not end the others (fault-tolerant\n"
        "                        programs, ULFM); the exit code still says that one failed\n"
        "  -singleton FD JOBID   serve a singleton as rank 0 of job JOBID over PMI-2 on FD\n"
        "                        (a program started without mpiexec runs this on its\n"
        "                        first MPI_Comm_spawn)\n"
        "  -info                 print how this mpiexec was built\n"
        "  -h, --help            this text\n"
        "  --version             print the version\n"
        "\n"
        "Local options (per segment):\n"
        "  -n, -np N             number of processes (default 1)\n"
        "  -env NAME VALUE       set a variable for this segment's processes\n"
        "  -envlist A,B | -envall | -envnone   like the -genv forms, for this segment\n"
        "  -wdir DIR             working directory\n"
        "  -memory-alloc-kinds KINDS   memory allocation kinds the program requests\n"
        "                        (MPI 4.1: e.g. system,mpi:alloc_mem; Canal supports\n"
        "                        system and mpi with its restrictors)\n"
        "  -initial-errhandler NAME    MPI_COMM_WORLD's handler at MPI_Init:\n"
        "                        mpi_errors_are_fatal, mpi_errors_abort or mpi_errors_return\n"
        "\n"
        "Across hosts, mpiexec starts 'mpiexec -proxy HOST' on every host (same path as\n"
        "this mpiexec) through the launcher; the proxy starts the host's ranks and\n"
        "serves their PMI. mpiexec's stdin goes to rank 0; MPI_Comm_spawn places the\n"
        "children on the info key 'host' or round robin over the hosts; names published\n"
        "with MPI_Publish_name are shared by all jobs of this mpiexec on every host;\n"
        "-bind-to (but auto, which binds nothing there) and output file patterns are\n"
        "refused. Ranks on different hosts talk over the sock channel unless the hosts\n"
        "have fabric hardware for libfabric (CANAL_CHANNEL=ofi or CANAL_OFI_PROVIDER\n"
        "forces it). Hosts must be reachable by ssh without a password (keys) and have\n"
        "this mpiexec at the same path.\n"
        "\n"
        "Environment: MPIEXEC_TIMEOUT=s kills the job after s seconds (exit code 255).\n"
        "MPIEXEC_BIND_TO=auto|core|hwthread|none is -bind-to's default (auto);\n"
        "MPIEXEC_BIND_DIR=dir holds auto's per-CPU lock files (default /dev/shm).\n"
        "Exit code: 0 if every rank exits 0, else the code of the first rank that failed\n"
        "(128+signal for a rank killed by a signal, the MPI_Abort code for an abort).\n");
}

static void print_version(void)
{
    printf("mpiexec (Canal) %s\n"
           "PMI server: PMI-1 (simple), PMI-2; launchers: fork, ssh, slurm (one proxy per "
           "host)\n",
           PACKAGE_VERSION);
}

static void print_info(void)
{
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    print_version();
    printf("Launcher:           fork (local host %s); across hosts (-hosts, -f): one\n"
           "                    'mpiexec -proxy HOST' per host (ssh, -launcher-exec, fork,\n"
           "                    slurm: srun inside an allocation)\n"
           "PMI:                PMI-1 and PMI-2 over PMI_FD (socketpair)\n"
           "Binding:            -bind-to auto|core|hwthread|none (sched_setaffinity, topology "
           "from /sys;\n"
           "                    auto's cores held with flock on MPIEXEC_BIND_DIR/canal-bind-cpuN,\n"
           "                    MPIEXEC_BIND_DIR defaulting to /dev/shm)\n"
           "Exit codes:         first failing rank; 128+signal; MPI_Abort code; 255 on "
           "MPIEXEC_TIMEOUT\n"
#ifdef CANAL_CONFIGURE_ARGS
           "Configure:          " CANAL_CONFIGURE_ARGS "\n"
#endif
           ,
           host);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpiexec: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nmpiexec: see 'mpiexec --help'\n");
    return 2;
}

static int parse_count(const char *opt, const char *s, int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 1000000) {
        fprintf(stderr, "mpiexec: %s needs a positive number, got '%s'\n", opt, s);
        return 2;
    }
    *out = (int)v;
    return 0;
}

/* Split a config file into words (blanks separate, quotes group, '#' starts
 * a comment); a line break ends a segment like ':' does. */
static int read_configfile(const char *path, char ***words_out, int *n_out)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    char **w = NULL;
    int n = 0, cap = 0;

    if (f == NULL) {
        fprintf(stderr, "mpiexec: cannot read config file '%s': %s\n", path, strerror(errno));
        return 2;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = line;
        int words_in_line = 0;
        for (;;) {
            char word[8192];
            size_t k = 0;
            char quote = 0;
            while (*p == ' ' || *p == '\t' || *p == '\r')
                p++;
            if (*p == '\0' || *p == '\n' || *p == '#')
                break;
            while (*p != '\0' && *p != '\n' && (quote || (*p != ' ' && *p != '\t'))) {
                if (quote == 0 && (*p == '"' || *p == '\'')) {
                    quote = *p++;
                    continue;
                }
                if (quote != 0 && *p == quote) {
                    quote = 0;
                    p++;
                    continue;
                }
                if (k + 1 < sizeof word)
                    word[k++] = *p;
                p++;
            }
            word[k] = '\0';
            if (n + 2 >= cap) {
                cap = cap ? cap * 2 : 64;
                w = realloc(w, (size_t)cap * sizeof *w);
                if (w == NULL) {
                    fclose(f);
                    return 2;
                }
            }
            w[n++] = strdup(word);
            words_in_line++;
        }
        if (words_in_line > 0)
            w[n++] = strdup(":");
    }
    fclose(f);
    if (n > 0 && strcmp(w[n - 1], ":") == 0)
        n--;
    *words_out = w;
    *n_out = n;
    return 0;
}

static mpx_segment_t *new_segment(mpx_opts_t *o)
{
    mpx_segment_t *s = realloc(o->segs, (size_t)(o->nsegs + 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    o->segs = s;
    s = &o->segs[o->nsegs++];
    memset(s, 0, sizeof *s);
    s->nprocs = -1;
    return s;
}

static int parse_words(int argc, char **argv, mpx_opts_t *o, int depth);

/* -bind-to's value (also MPIEXEC_BIND_TO's); 0, or -1 if unknown. */
static int parse_bind(const char *v, mpx_bind_t *out)
{
    if (strcmp(v, "core") == 0 || strncmp(v, "core:", 5) == 0)
        *out = MPX_BIND_CORE;
    else if (strcmp(v, "hwthread") == 0 || strncmp(v, "hwthread:", 9) == 0)
        *out = MPX_BIND_HWTHREAD;
    else if (strcmp(v, "none") == 0)
        *out = MPX_BIND_NONE;
    else if (strcmp(v, "auto") == 0)
        *out = MPX_BIND_AUTO;
    else
        return -1;
    return 0;
}

/* Option argv[i] takes k arguments: are they there? Sets *used. */
static int need(int argc, char **argv, int i, int k, int *used)
{
    if (i + k >= argc) {
        fprintf(stderr, "mpiexec: option %s needs %d argument%s\nmpiexec: see 'mpiexec --help'\n",
                argv[i], k, k == 1 ? "" : "s");
        return 2;
    }
    *used = 1 + k;
    return 0;
}

/* Options from argv[i]; *used is how many words it took. 0, 1 (done: exit 0) or 2. */
static int parse_option(int argc, char **argv, int i, mpx_opts_t *o, mpx_segment_t *seg, int *used,
                        int depth)
{
    const char *a = argv[i];
    const char *name = (a[1] == '-' && a[2] != '\0') ? a + 1 : a; /* --genv == -genv */

    *used = 1;
    if (strcmp(name, "-n") == 0 || strcmp(name, "-np") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return parse_count(a, argv[i + 1], &seg->nprocs);
    }
    if (strcmp(name, "-usize") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return parse_count(a, argv[i + 1], &o->usize);
    }
    if (strcmp(name, "-genv") == 0) {
        if (need(argc, argv, i, 2, used) != 0)
            return 2;
        return mpx_env_add(&o->genv, argv[i + 1], argv[i + 2]) == 0 ? 0 : 2;
    }
    if (strcmp(name, "-env") == 0) {
        if (need(argc, argv, i, 2, used) != 0)
            return 2;
        return mpx_env_add(&seg->env, argv[i + 1], argv[i + 2]) == 0 ? 0 : 2;
    }
    if (strcmp(name, "-genvlist") == 0 || strcmp(name, "-envlist") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (name[1] == 'g') {
            o->genv_mode = MPX_ENV_LIST;
            o->genvlist = argv[i + 1];
        } else {
            seg->env_mode = MPX_ENV_LIST;
            seg->envlist = argv[i + 1];
        }
        return 0;
    }
    if (strcmp(name, "-genvall") == 0) {
        o->genv_mode = MPX_ENV_ALL;
        return 0;
    }
    if (strcmp(name, "-genvnone") == 0) {
        o->genv_mode = MPX_ENV_NONE;
        return 0;
    }
    if (strcmp(name, "-envall") == 0) {
        seg->env_mode = MPX_ENV_ALL;
        return 0;
    }
    if (strcmp(name, "-envnone") == 0) {
        seg->env_mode = MPX_ENV_NONE;
        return 0;
    }
    /* MPI 4.1 section 11.8.1: per segment, as the spawn info keys of the
     * same names; the library reads them from the environment. */
    if (strcmp(name, "-memory-alloc-kinds") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return mpx_env_add(&seg->env, "CANAL_MEMORY_ALLOC_KINDS", argv[i + 1]) == 0 ? 0 : 2;
    }
    if (strcmp(name, "-initial-errhandler") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (strcasecmp(argv[i + 1], "mpi_errors_are_fatal") != 0 &&
            strcasecmp(argv[i + 1], "mpi_errors_abort") != 0 &&
            strcasecmp(argv[i + 1], "mpi_errors_return") != 0) {
            fprintf(stderr,
                    "mpiexec: -initial-errhandler %s: expected mpi_errors_are_fatal, "
                    "mpi_errors_abort or mpi_errors_return\n",
                    argv[i + 1]);
            return 2;
        }
        return mpx_env_add(&seg->env, "CANAL_INITIAL_ERRHANDLER", argv[i + 1]) == 0 ? 0 : 2;
    }
    if (strcmp(name, "-wdir") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (o->nsegs == 1)
            o->wdir = argv[i + 1];
        else
            seg->wdir = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-l") == 0 || strcmp(name, "-prepend-rank") == 0) {
        o->label = 1;
        return 0;
    }
    if (strcmp(name, "-outfile-pattern") == 0 || strcmp(name, "-errfile-pattern") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (name[1] == 'o')
            o->outpat = argv[i + 1];
        else
            o->errpat = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-bind-to") == 0 || strcmp(name, "-binding") == 0) {
        const char *v;
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        v = argv[i + 1];
        if (parse_bind(v, &o->bind) != 0)
            return usage_error("-bind-to '%s': use auto, core, hwthread or none", v);
        return 0;
    }
    if (strcmp(name, "-map-by") == 0) {
        const char *v;
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        v = argv[i + 1];
        if (strcmp(v, "socket") == 0 || strcmp(v, "package") == 0 || strcmp(v, "numa") == 0)
            o->map_by_socket = 1;
        else if (strcmp(v, "core") == 0 || strcmp(v, "hwthread") == 0 || strcmp(v, "slot") == 0 ||
                 strcmp(v, "node") == 0)
            o->map_by_socket = 0;
        else
            return usage_error("-map-by '%s': use core, hwthread, socket, slot or node", v);
        return 0;
    }
    if (strcmp(name, "-ppn") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return parse_count(a, argv[i + 1], &o->ppn);
    }
    if (strcmp(name, "-fanout") == 0) {
        if (need(argc, argv, i, 1, used) != 0 || parse_count(a, argv[i + 1], &o->fanout) != 0)
            return 2;
        if (o->fanout < 2)
            return usage_error("-fanout '%s': a proxy tree needs a fan-out of at least 2",
                               argv[i + 1]);
        return 0;
    }
    if (strcmp(name, "-hosts") == 0 || strcmp(name, "-host") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        o->hosts_arg = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-f") == 0 || strcmp(name, "-hostfile") == 0 ||
        strcmp(name, "-machinefile") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        o->hostfile = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-launcher") == 0 || strcmp(name, "-bootstrap") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (strcmp(argv[i + 1], "ssh") != 0 && strcmp(argv[i + 1], "fork") != 0 &&
            strcmp(argv[i + 1], "slurm") != 0)
            return usage_error("-launcher '%s': use ssh, fork or slurm", argv[i + 1]);
        o->launcher = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-launcher-exec") == 0 || strcmp(name, "-bootstrap-exec") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (*argv[i + 1] == '\0')
            return usage_error("%s needs a program", a);
        o->launcher_exec = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-iface") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (*argv[i + 1] == '\0' || strlen(argv[i + 1]) >= 16)
            return usage_error("-iface '%s': not a network interface name", argv[i + 1]);
        o->iface = argv[i + 1];
        return 0;
    }
    if (strcmp(name, "-configfile") == 0) {
        char **words;
        int n, rc;
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        if (depth > 0)
            return usage_error("%s cannot be nested", a);
        rc = read_configfile(argv[i + 1], &words, &n);
        if (rc != 0)
            return rc;
        if (n == 0)
            return usage_error("config file '%s' has no program", argv[i + 1]);
        /* The current (empty) segment is replaced by the file's segments. */
        o->nsegs--;
        return parse_words(n, words, o, depth + 1);
    }
    if (strcmp(name, "-singleton") == 0) {
        char *end;
        long fd;
        if (need(argc, argv, i, 2, used) != 0)
            return 2;
        fd = strtol(argv[i + 1], &end, 10);
        if (*end != '\0' || end == argv[i + 1] || fd < 3 || fd > 1 << 20 || *argv[i + 2] == '\0')
            return usage_error("-singleton '%s': needs a file descriptor and a job id",
                               argv[i + 1]);
        o->singleton_fd = (int)fd;
        o->singleton_jobid = argv[i + 2];
        return 0;
    }
    if (strcmp(name, "-disable-auto-cleanup") == 0 || strcmp(name, "-disable_auto_cleanup") == 0) {
        o->disable_auto_cleanup = 1;
        return 0;
    }
    if (strcmp(name, "-v") == 0 || strcmp(name, "-verbose") == 0) {
        o->verbose = 1;
        return 0;
    }
    if (strcmp(name, "-info") == 0) {
        print_info();
        return 1;
    }
    if (strcmp(name, "-h") == 0 || strcmp(name, "-help") == 0) {
        mpx_print_help();
        return 1;
    }
    if (strcmp(name, "-version") == 0) {
        print_version();
        return 1;
    }
    return usage_error("unrecognized option '%s'", a);
}

static int parse_words(int argc, char **argv, mpx_opts_t *o, int depth)
{
    mpx_segment_t *seg = new_segment(o);
    int i = 0;

    if (seg == NULL)
        return 2;
    while (i < argc) {
        const char *a = argv[i];
        if (strcmp(a, ":") == 0) {
            if (seg->argv == NULL)
                return usage_error("'%s' with no program before it", a);
            if ((seg = new_segment(o)) == NULL)
                return 2;
            i++;
            continue;
        }
        if (a[0] == '-' && a[1] != '\0') {
            int used, rc = parse_option(argc, argv, i, o, seg, &used, depth);
            if (rc != 0)
                return rc;
            if (strcmp(a, "-configfile") == 0 || strcmp(a, "--configfile") == 0) {
                /* the file's segments are complete; continue with a fresh one */
                i += used;
                if (i < argc && (seg = new_segment(o)) == NULL)
                    return 2;
                if (i < argc && strcmp(argv[i], ":") == 0)
                    i++;
                continue;
            }
            i += used;
            continue;
        }
        /* The program: everything up to the next ':' is its arguments. */
        {
            int j = i, k;
            while (j < argc && strcmp(argv[j], ":") != 0)
                j++;
            seg->argv = calloc((size_t)(j - i + 1), sizeof(char *));
            if (seg->argv == NULL)
                return 2;
            for (k = i; k < j; k++)
                seg->argv[k - i] = argv[k];
            i = j;
        }
    }
    return 0;
}

int mpx_options_parse(int argc, char **argv, mpx_opts_t *opts)
{
    int rc;

    memset(opts, 0, sizeof *opts);
    opts->genv_mode = MPX_ENV_ALL;
    opts->singleton_fd = -1;
    opts->bind = MPX_BIND_AUTO;
    if (getenv("MPIEXEC_BIND_TO") != NULL && getenv("MPIEXEC_BIND_TO")[0] != '\0' &&
        parse_bind(getenv("MPIEXEC_BIND_TO"), &opts->bind) != 0)
        return usage_error("MPIEXEC_BIND_TO='%s': use auto, core, hwthread or none",
                           getenv("MPIEXEC_BIND_TO"));
    rc = parse_words(argc - 1, argv + 1, opts, 0);
    if (rc != 0)
        return rc;
    if (opts->singleton_fd >= 0) {
        /* job 0 is the singleton: one process, not started by us */
        static char *sargv[] = {"(singleton)", NULL};
        if (opts->nsegs > 1 || (opts->nsegs == 1 && opts->segs[0].argv != NULL))
            return usage_error("%s", "-singleton takes no program");
        if (opts->nsegs == 0 && new_segment(opts) == NULL)
            return 2;
        opts->segs[0].argv = sargv;
        opts->segs[0].nprocs = 1;
        return 0;
    }
    /* A trailing segment with options but no program is an error; an empty one is not. */
    if (opts->nsegs > 0 && opts->segs[opts->nsegs - 1].argv == NULL) {
        mpx_segment_t *last = &opts->segs[opts->nsegs - 1];
        if (last->nprocs > 0 || last->env.n > 0 || opts->nsegs == 1) {
            if (opts->nsegs == 1 && argc == 1) {
                mpx_print_help();
                return 2;
            }
            return usage_error("%s", "no program given to run");
        }
        opts->nsegs--;
    }
    if (opts->hosts_arg != NULL || opts->hostfile != NULL ||
        (opts->launcher != NULL && strcmp(opts->launcher, "slurm") == 0)) {
        rc = mpx_hosts_load(opts);
        if (rc != 0)
            return rc;
        /* As Hydra: without -n, one process per slot of the hosts. */
        if (opts->nsegs == 1 && opts->segs[0].nprocs < 0) {
            int slots = 0;
            for (int h = 0; h < opts->nhosts; h++)
                slots += opts->hostv[h].slots;
            opts->segs[0].nprocs = slots;
        }
    } else if (opts->launcher != NULL || opts->launcher_exec != NULL) {
        return usage_error("%s", "-launcher and -launcher-exec need hosts (-hosts or -f)");
    }
    for (int s = 0; s < opts->nsegs; s++) {
        if (opts->segs[s].nprocs < 0)
            opts->segs[s].nprocs = 1;
        if (opts->segs[s].wdir == NULL)
            opts->segs[s].wdir = opts->wdir;
    }
    return 0;
}
