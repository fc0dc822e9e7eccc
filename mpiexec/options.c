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

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
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
        "Starts the processes of an MPI job on this host and serves them PMI-1 and PMI-2.\n"
        "\n"
        "Global options:\n"
        "  -genv NAME VALUE      set an environment variable for every process\n"
        "  -genvlist A,B,...     pass only these variables of mpiexec's environment\n"
        "  -genvall              pass mpiexec's whole environment (the default)\n"
        "  -genvnone             pass none of mpiexec's environment\n"
        "  -l, -prepend-rank     prefix every output line with \"[rank] \"\n"
        "  -outfile-pattern P    write each rank's stdout to file P (%%r rank, %%h host, %%%% %%)\n"
        "  -errfile-pattern P    write each rank's stderr to file P\n"
        "  -bind-to core|hwthread|none   pin each process to a core or hardware thread\n"
        "  -map-by core|hwthread|socket|slot   order in which binding fills the machine\n"
        "  -ppn N                processes per node (all run on this host)\n"
        "  -hosts H1,H2 | -f FILE  hosts to use; only this host is supported\n"
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
        "\n"
        "Environment: MPIEXEC_TIMEOUT=s kills the job after s seconds (exit code 255).\n"
        "Exit code: 0 if every rank exits 0, else the code of the first rank that failed\n"
        "(128+signal for a rank killed by a signal, the MPI_Abort code for an abort).\n");
}

static void print_version(void)
{
    printf("mpiexec (Canal) %s\n"
           "PMI server: PMI-1 (simple), PMI-2; processes start on the local host\n",
           PACKAGE_VERSION);
}

static void print_info(void)
{
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    print_version();
    printf("Launcher:           fork (local host %s)\n"
           "PMI:                PMI-1 and PMI-2 over PMI_FD (socketpair)\n"
           "Binding:            -bind-to core|hwthread|none (sched_setaffinity, topology from "
           "/sys)\n"
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

/* Is this host name (optionally "name:slots") this machine? */
static int host_is_local(const char *spec)
{
    char name[256], me[256] = "";
    size_t n = strcspn(spec, ": \t");
    struct addrinfo hints, *res = NULL;
    int local = 0;

    if (n == 0 || n >= sizeof name)
        return 0;
    memcpy(name, spec, n);
    name[n] = '\0';
    if (strcasecmp(name, "localhost") == 0 || strncmp(name, "127.", 4) == 0 ||
        strcmp(name, "::1") == 0)
        return 1;
    gethostname(me, sizeof me - 1);
    if (strcasecmp(name, me) == 0)
        return 1;
    if (strcspn(name, ".") == strcspn(me, ".") && strncasecmp(name, me, strcspn(me, ".")) == 0)
        return 1;
    /* An address we can bind to belongs to this machine. */
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_DGRAM;
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

static int check_hosts(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (copy == NULL)
        return 2;
    for (char *h = strtok_r(copy, ",", &save); h != NULL && rc == 0; h = strtok_r(NULL, ",", &save))
        if (!host_is_local(h))
            rc = usage_error("host '%s' is not this machine: this mpiexec starts processes on the "
                             "local host only",
                             h);
    free(copy);
    return rc;
}

static int check_hostfile(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int rc = 0;

    if (f == NULL) {
        fprintf(stderr, "mpiexec: cannot read host file '%s': %s\n", path, strerror(errno));
        return 2;
    }
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        p[strcspn(p, "\n#")] = '\0';
        if (!host_is_local(p))
            rc = usage_error("host '%s' (from the host file) is not this machine: this mpiexec "
                             "starts processes on the local host only",
                             p);
    }
    fclose(f);
    return rc;
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
        if (strcmp(v, "core") == 0 || strncmp(v, "core:", 5) == 0)
            o->bind = MPX_BIND_CORE;
        else if (strcmp(v, "hwthread") == 0 || strncmp(v, "hwthread:", 9) == 0)
            o->bind = MPX_BIND_HWTHREAD;
        else if (strcmp(v, "none") == 0)
            o->bind = MPX_BIND_NONE;
        else
            return usage_error("-bind-to '%s': use core, hwthread or none", v);
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
    if (strcmp(name, "-hosts") == 0 || strcmp(name, "-host") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return check_hosts(argv[i + 1]);
    }
    if (strcmp(name, "-f") == 0 || strcmp(name, "-hostfile") == 0 ||
        strcmp(name, "-machinefile") == 0) {
        if (need(argc, argv, i, 1, used) != 0)
            return 2;
        return check_hostfile(argv[i + 1]);
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
    for (int s = 0; s < opts->nsegs; s++) {
        if (opts->segs[s].nprocs < 0)
            opts->segs[s].nprocs = 1;
        if (opts->segs[s].wdir == NULL)
            opts->segs[s].wdir = opts->wdir;
    }
    return 0;
}
