/*
 * Info objects (MPI 4.0 chapter 10) and MPI_INFO_ENV (section 11.2.4).
 *
 * An info object is an ordered list of (key, value) strings; the order is
 * the order in which keys were first set, which is what MPI_Info_get_nthkey
 * walks. Keys are at most MPI_MAX_INFO_KEY characters and values at most
 * MPI_MAX_INFO_VAL, as MPICH checks them. The standard lets the info
 * functions be called before MPI_Init and after MPI_Finalize, so they never
 * use mpi_enter: outside those bounds an error is returned without invoking
 * an error handler.
 *
 * MPI_INFO_ENV is built on first use from what Canal knows about how the
 * process was started (command line from /proc/self/cmdline, number of
 * processes, host, architecture, working directory, thread level) and is
 * read-only. Communicators keep their hints in info objects made with the
 * internal functions at the end of comm_impl.h.
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct {
    char *key;
    char *value;
} info_ent_t;

typedef struct {
    int n, cap;
    info_ent_t *ents;
    int readonly; /* MPI_INFO_ENV */
} info_t;

static info_t info_env_obj = {.readonly = 1};
static pthread_once_t info_env_once = PTHREAD_ONCE_INIT;

static void info_env_build(void);

static info_t *info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        pthread_once(&info_env_once, info_env_build);
        return &info_env_obj;
    }
    if (mpi_handle_kind(h) != MPI_HKIND_DIRECT)
        return NULL;
    return mpi_handle_get(MPI_OBJ_INFO, h);
}

/* Raise through MPI_COMM_WORLD's handler when MPI is running; otherwise only
 * return the code (no handler exists before MPI_Init or after Finalize). */
static int info_err(int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int info_err(int cls, const char *fn, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (mpi_state == MPI_STATE_INITIALIZED)
        return mpi_err_fail(NULL, cls, fn, "%s", detail);
    return mpi_err_code_new(cls, fn, detail);
}

/* ---------------------------------------------------------------- the list */
static info_ent_t *info_find(const info_t *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->ents[i].key, key) == 0)
            return &in->ents[i];
    return NULL;
}

static int info_set_raw(info_t *in, const char *key, const char *value)
{
    info_ent_t *e = info_find(in, key);
    char *v = strdup(value);

    if (v == NULL)
        return MPI_ERR_NO_MEM;
    if (e != NULL) {
        free(e->value);
        e->value = v;
        return MPI_SUCCESS;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        info_ent_t *ne = realloc(in->ents, sizeof *ne * (size_t)cap);
        if (ne == NULL) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        in->ents = ne;
        in->cap = cap;
    }
    in->ents[in->n].key = strdup(key);
    if (in->ents[in->n].key == NULL) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    in->ents[in->n].value = v;
    in->n++;
    return MPI_SUCCESS;
}

static void info_destroy(info_t *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->ents[i].key);
        free(in->ents[i].value);
    }
    free(in->ents);
    free(in);
}

static int info_new_handle(MPI_Info *out, info_t **obj_out)
{
    info_t *in = calloc(1, sizeof *in);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    *out = mpi_handle_new(MPI_OBJ_INFO, in);
    if (*out == 0) {
        free(in);
        return MPI_ERR_NO_MEM;
    }
    if (obj_out != NULL)
        *obj_out = in;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- internal API */
int mpi_info_valid(MPI_Info h)
{
    return info_get(h) != NULL;
}

const char *mpi_info_lookup(MPI_Info h, const char *key)
{
    info_t *in = info_get(h);
    info_ent_t *e = in != NULL ? info_find(in, key) : NULL;
    return e != NULL ? e->value : NULL;
}

int mpi_info_new(MPI_Info *out)
{
    return info_new_handle(out, NULL);
}

int mpi_info_put(MPI_Info h, const char *key, const char *value)
{
    info_t *in = info_get(h);
    if (in == NULL || in->readonly)
        return MPI_ERR_INFO;
    return info_set_raw(in, key, value);
}

int mpi_info_nkeys(MPI_Info h)
{
    info_t *in = info_get(h);
    return in != NULL ? in->n : 0;
}

const char *mpi_info_nth(MPI_Info h, int n, const char **value_out)
{
    info_t *in = info_get(h);
    if (in == NULL || n < 0 || n >= in->n)
        return NULL;
    if (value_out != NULL)
        *value_out = in->ents[n].value;
    return in->ents[n].key;
}

void mpi_info_release(MPI_Info h)
{
    info_t *in = info_get(h);
    if (in == NULL || in->readonly)
        return;
    mpi_handle_del(MPI_OBJ_INFO, h);
    info_destroy(in);
}

/* ---------------------------------------------------------------- MPI_INFO_ENV */
static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    default:
        return "MPI_THREAD_MULTIPLE";
    }
}

/* Join argv[1..argc-1] with spaces (what the "argv" key holds). */
static char *join_args(int argc, char *argv[])
{
    size_t len = 1;
    char *s;

    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 1;
    s = malloc(len);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (int i = 1; i < argc; i++) {
        if (i > 1)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* The command line of this process, split at NULs, from /proc/self/cmdline. */
static int read_cmdline(char **buf_out, char ***argv_out)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    char *buf = NULL, **argv = NULL;
    size_t len = 0, cap = 0;
    int argc = 0, c;

    if (f == NULL)
        return 0;
    while ((c = fgetc(f)) != EOF) {
        if (len + 2 > cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 256);
            if (nb == NULL)
                break;
            buf = nb;
        }
        buf[len++] = (char)c;
    }
    fclose(f);
    if (buf == NULL || len == 0) {
        free(buf);
        return 0;
    }
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            argc++;
    argv = calloc((size_t)argc + 1, sizeof *argv);
    if (argv == NULL) {
        free(buf);
        return 0;
    }
    argc = 0;
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
        argv[argc++] = buf + i;
    *buf_out = buf;
    *argv_out = argv;
    return argc;
}

/* Values longer than MPI_MAX_INFO_VAL are cut there rather than lost. */
static int env_set(info_t *in, const char *key, const char *value)
{
    char cut[MPI_MAX_INFO_VAL + 1];
    size_t n = strlen(value);
    if (n > MPI_MAX_INFO_VAL)
        n = MPI_MAX_INFO_VAL;
    memcpy(cut, value, n);
    cut[n] = '\0';
    return info_set_raw(in, key, cut);
}

/* The job size as the launcher announced it in the environment (PMI,
 * PMIx/Open MPI, Slurm), so that it reads the same before MPI_Init. */
static int env_maxprocs(void)
{
    static const char *const vars[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE",
                                       "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long n = v != NULL ? strtol(v, &end, 10) : 0;
        if (v != NULL && *end == '\0' && n > 0 && n <= 0x7fffffff)
            return (int)n;
    }
    return mpi_pmi.size > 0 ? mpi_pmi.size : 1;
}

/* MPI_INFO_ENV and MPI_Info_create_env describe the environment the
 * process started in, so that they read the same before MPI_Init, after it
 * and after MPI_Finalize (MPICH's info/infocreateenv checks this): maxprocs
 * comes from the launcher's environment, and thread_level (only known once
 * MPI_Init_thread ran) is in MPI_INFO_ENV only, which is built there. */
static int env_fill(info_t *in, int argc, char *argv[], int with_thread_level)
{
    char buf[4096], *cmd_buf = NULL, **cmd_argv = NULL, *args;
    struct utsname u;
    int err = MPI_SUCCESS;

    if (argc <= 0 || argv == NULL) {
        argc = read_cmdline(&cmd_buf, &cmd_argv);
        argv = cmd_argv;
    }
    if (argc > 0 && argv[0] != NULL) {
        err = env_set(in, "command", argv[0]);
        if (err == MPI_SUCCESS && argc > 1) {
            args = join_args(argc, argv);
            err = args != NULL ? env_set(in, "argv", args) : MPI_ERR_NO_MEM;
            free(args);
        }
    }
    if (err == MPI_SUCCESS) {
        snprintf(buf, sizeof buf, "%d", env_maxprocs());
        err = env_set(in, "maxprocs", buf);
    }
    if (err == MPI_SUCCESS && gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        err = env_set(in, "host", buf);
    }
    if (err == MPI_SUCCESS && uname(&u) == 0)
        err = env_set(in, "arch", u.machine);
    if (err == MPI_SUCCESS && getcwd(buf, sizeof buf) != NULL)
        err = env_set(in, "wdir", buf);
    if (err == MPI_SUCCESS && with_thread_level)
        err = env_set(in, "thread_level", thread_level_name(mpi_thread_level));
    /* As requested (MPI 4.1 section 11.4.3; what is supported is in the
     * objects' info), in MPI_INFO_ENV only, like thread_level. */
    if (err == MPI_SUCCESS && with_thread_level && mpi_memkinds_requested() != NULL)
        err = env_set(in, "mpi_memory_alloc_kinds", mpi_memkinds_requested());
    free(cmd_buf);
    free(cmd_argv);
    return err;
}

static void info_env_build(void)
{
    info_env_obj.readonly = 0;
    env_fill(&info_env_obj, 0, NULL, 1); /* what fits in memory is kept */
    info_env_obj.readonly = 1;
}

/* ---------------------------------------------------------------- checks */
static int check_info(MPI_Info h, const char *fn, info_t **out)
{
    info_t *in = info_get(h);
    if (in == NULL)
        return info_err(MPI_ERR_INFO, fn, "info=%#x is not a valid info object%s", (unsigned)h,
                        h == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
    *out = in;
    return MPI_SUCCESS;
}

static int check_key(const char *key, const char *fn)
{
    size_t len;
    if (key == NULL)
        return info_err(MPI_ERR_INFO_KEY, fn, "key is NULL");
    len = strlen(key);
    if (len == 0)
        return info_err(MPI_ERR_INFO_KEY, fn, "key is empty");
    if (len > MPI_MAX_INFO_KEY)
        return info_err(MPI_ERR_INFO_KEY, fn,
                        "key \"%.40s...\" has %zu characters, more than MPI_MAX_INFO_KEY=%d", key,
                        len, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI functions */
/* The implementations of the generated entry points (mpi/api/10-info.api):
 * `anytime` entries, which check their out-pointers without a handler
 * outside MPI_Init..MPI_Finalize, as info_err does here. */
int mpi_info_create_impl(MPI_Info *info, const char *fn)
{
    if (info_new_handle(info, NULL) != MPI_SUCCESS)
        return info_err(MPI_ERR_NO_MEM, fn, "out of memory for an info object");
    return MPI_SUCCESS;
}

int mpi_info_create_env_impl(int argc, char *argv[], MPI_Info *info, const char *fn)
{
    info_t *in = NULL;
    if (argc < 0 || (argc > 0 && argv == NULL))
        return info_err(MPI_ERR_ARG, fn, "argc=%d with argv %s", argc, argv ? "set" : "NULL");
    if (info_new_handle(info, &in) != MPI_SUCCESS)
        return info_err(MPI_ERR_NO_MEM, fn, "out of memory for an info object");
    if (env_fill(in, argc, argv, 0) != MPI_SUCCESS) {
        mpi_info_release(*info);
        *info = MPI_INFO_NULL;
        return info_err(MPI_ERR_NO_MEM, fn, "out of memory for an info object");
    }
    return MPI_SUCCESS;
}

int mpi_info_free_impl(MPI_Info *info, const char *fn)
{
    info_t *in = NULL;
    int err;
    if ((err = check_info(*info, fn, &in)))
        return err;
    if (in->readonly)
        return info_err(MPI_ERR_INFO, fn, "MPI_INFO_ENV is predefined and cannot be freed");
    mpi_info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int mpi_info_dup_impl(MPI_Info info, MPI_Info *newinfo, const char *fn)
{
    info_t *in = NULL, *out = NULL;
    int err;
    if ((err = check_info(info, fn, &in)))
        return err;
    if (info_new_handle(newinfo, &out) != MPI_SUCCESS)
        return info_err(MPI_ERR_NO_MEM, fn, "out of memory for an info object");
    for (int i = 0; i < in->n; i++)
        if (info_set_raw(out, in->ents[i].key, in->ents[i].value) != MPI_SUCCESS) {
            mpi_info_release(*newinfo);
            *newinfo = MPI_INFO_NULL;
            return info_err(MPI_ERR_NO_MEM, fn, "out of memory for an info object");
        }
    return MPI_SUCCESS;
}

int mpi_info_set_impl(MPI_Info info, const char *key, const char *value, const char *fn)
{
    info_t *in = NULL;
    size_t vlen;
    int err;
    if ((err = check_info(info, fn, &in)) || (err = check_key(key, fn)))
        return err;
    if (value == NULL)
        return info_err(MPI_ERR_INFO_VALUE, fn, "value is NULL (key \"%s\")", key);
    vlen = strlen(value);
    if (vlen > MPI_MAX_INFO_VAL)
        return info_err(MPI_ERR_INFO_VALUE, fn,
                        "the value of key \"%s\" has %zu characters, more than "
                        "MPI_MAX_INFO_VAL=%d",
                        key, vlen, MPI_MAX_INFO_VAL);
    if (in->readonly)
        return info_err(MPI_ERR_INFO, fn, "MPI_INFO_ENV is predefined and read-only");
    if (info_set_raw(in, key, value) != MPI_SUCCESS)
        return info_err(MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

int mpi_info_delete_impl(MPI_Info info, const char *key, const char *fn)
{
    info_t *in = NULL;
    info_ent_t *e = NULL;
    int err;
    if ((err = check_info(info, fn, &in)) || (err = check_key(key, fn)))
        return err;
    if (in->readonly)
        return info_err(MPI_ERR_INFO, fn, "MPI_INFO_ENV is predefined and read-only");
    if ((e = info_find(in, key)) == NULL)
        return info_err(MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not in the info object", key);
    free(e->key);
    free(e->value);
    memmove(e, e + 1, sizeof *e * (size_t)(in->n - (e - in->ents) - 1));
    in->n--;
    return MPI_SUCCESS;
}

int mpi_info_get_impl(MPI_Info info, const char *key, int valuelen, char *value, int *flag,
                      const char *fn)
{
    info_t *in = NULL;
    info_ent_t *e = NULL;
    int err;
    if ((err = check_info(info, fn, &in)) || (err = check_key(key, fn)))
        return err;
    if (valuelen < 0)
        return info_err(MPI_ERR_ARG, fn, "valuelen=%d is negative", valuelen);
    if (value == NULL)
        return info_err(MPI_ERR_ARG, fn, "value is NULL");
    e = info_find(in, key);
    *flag = e != NULL;
    if (e != NULL) {
        /* valuelen excludes the terminating NUL, as in the standard */
        size_t n = strlen(e->value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, e->value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

int mpi_info_get_valuelen_impl(MPI_Info info, const char *key, int *valuelen, int *flag,
                               const char *fn)
{
    info_t *in = NULL;
    info_ent_t *e = NULL;
    int err;
    if ((err = check_info(info, fn, &in)) || (err = check_key(key, fn)))
        return err;
    e = info_find(in, key);
    *flag = e != NULL;
    if (e != NULL)
        *valuelen = (int)strlen(e->value);
    return MPI_SUCCESS;
}

int mpi_info_get_string_impl(MPI_Info info, const char *key, int *buflen, char *value, int *flag,
                             const char *fn)
{
    info_t *in = NULL;
    info_ent_t *e = NULL;
    int err;
    if ((err = check_info(info, fn, &in)) || (err = check_key(key, fn)))
        return err;
    if (*buflen < 0)
        return info_err(MPI_ERR_ARG, fn, "*buflen=%d is negative", *buflen);
    if (*buflen > 0 && value == NULL)
        return info_err(MPI_ERR_ARG, fn, "value is NULL with *buflen=%d", *buflen);
    e = info_find(in, key);
    *flag = e != NULL;
    if (e != NULL) {
        /* buflen counts the NUL; the value is cut to fit, the full length returned */
        size_t len = strlen(e->value);
        if (*buflen > 0) {
            size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
            memcpy(value, e->value, n);
            value[n] = '\0';
        }
        *buflen = (int)len + 1;
    }
    return MPI_SUCCESS;
}

int mpi_info_get_nkeys_impl(MPI_Info info, int *nkeys, const char *fn)
{
    info_t *in = NULL;
    int err;
    if ((err = check_info(info, fn, &in)))
        return err;
    *nkeys = in->n;
    return MPI_SUCCESS;
}

int mpi_info_get_nthkey_impl(MPI_Info info, int n, char *key, const char *fn)
{
    info_t *in = NULL;
    int err;
    if ((err = check_info(info, fn, &in)))
        return err;
    if (key == NULL)
        return info_err(MPI_ERR_ARG, fn, "key is NULL");
    if (n < 0 || n >= in->n)
        return info_err(MPI_ERR_ARG, fn, "n=%d is not in [0, %d) (the number of keys)", n, in->n);
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", in->ents[n].key);
    return MPI_SUCCESS;
}
