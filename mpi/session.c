/*
 * Sessions (MPI 4.0 section 11.3): MPI_Session_init/finalize, the process
 * sets a session knows ("mpi://WORLD", "mpi://SELF" and the node-local
 * "canal://NODE"), MPI_Group_from_session_pset, MPI_Session_get_info and
 * the session error handlers. Communicators are then made with
 * MPI_Comm_create_from_group (mpi/comm.c), which builds them over the
 * device's job-wide context space exactly as for the world model.
 *
 * How MPI comes up: the device, PMI and the builtin objects are started by
 * init_common() in mpi/init.c, which is static; this file reaches it through
 * MPI_Init_thread's implementation when MPI is not initialized yet, and remembers that the
 * sessions started it. When the last session is finalized and the world
 * model was never entered, MPI is finalized again (as by MPI_Finalize), which
 * is collective over the job like MPI_Session_finalize itself may be.
 * Consequences until init.c separates "device up" from "world model
 * entered" (see the report of this change): MPI_Initialized says true while
 * a session is open, MPI_Init after MPI_Session_init is an error, and a
 * session cannot be started again after the last one was finalized.
 */
#include "mpiimpl.h"

#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Raise an existing code through a handler (mpi/errors.c, once it exports
 * it; see rma/rma.c for the same arrangement). */
int mpi_err_invoke_errh(MPI_Errhandler errh, int objtype, void *objhandle, int code,
                        const char *fn) __attribute__((weak));

typedef struct {
    MPI_Session handle;
    MPI_Errhandler errhandler;
    int thread_level;
    mpi_bbuf_t *bbuf; /* MPI_Session_attach_buffer (mpi/pt2pt.c) */
    /* mpi_memory_alloc_kinds: those of MPI_Session_init's info Canal
     * supports, or the launch request's (mpi/envkeys.c) */
    char memkinds[MPI_MAX_INFO_VAL];
} mpi_session_t;

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static int nsessions;

int mpi_session_count(void)
{
    return __atomic_load_n(&nsessions, __ATOMIC_RELAXED);
}

static mpi_session_t *session_get(MPI_Session h)
{
    if (h == MPI_SESSION_NULL || mpi_state != MPI_STATE_INITIALIZED)
        return NULL;
    return mpi_handle_get(MPI_OBJ_SESSION, h);
}

/* Errors of calls with a session go to the session's handler. */
static int raise_s(mpi_session_t *s, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int raise_s(mpi_session_t *s, int errclass, const char *fn, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    MPI_Session h = s != NULL ? s->handle : MPI_SESSION_NULL;
    MPI_Errhandler eh = s != NULL ? s->errhandler : MPI_ERRORS_ARE_FATAL;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return mpi_err_failed(mpi_err_raise_errh(eh, MPI_OBJ_SESSION, &h, errclass, fn, "%s", detail));
}

/* A call naming an invalid session has no handler to use: MPI 4.0 says the
 * error goes to the MPI_ERRORS_ARE_FATAL default of "no object" calls
 * (MPI_COMM_SELF's handler with the world model up; we use MPI_COMM_WORLD's
 * as the rest of Canal does). */
static int check_session(MPI_Session h, const char *fn, mpi_session_t **out)
{
    mpi_session_t *s = session_get(h);
    if (s == NULL) {
        if (mpi_state != MPI_STATE_INITIALIZED)
            mpi_err_fatal(mpi_err_code_new(MPI_ERR_SESSION, fn,
                                           "no session is open (MPI is not initialized)"),
                          fn);
        return mpi_err_fail(NULL, MPI_ERR_SESSION, fn, "session=%#x is not a valid session%s",
                            (unsigned)h, h == MPI_SESSION_NULL ? " (MPI_SESSION_NULL)" : "");
    }
    *out = s;
    return MPI_SUCCESS;
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

static int thread_level_parse(const char *v, int *out)
{
    static const struct {
        const char *name;
        int level;
    } names[] = {{"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE},
                 {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
                 {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED},
                 {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(v, names[i].name) == 0) {
            *out = names[i].level;
            return 0;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- init, finalize */
int mpi_session_init_impl(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session,
                          const char *fn)
{
    MPI_Session none = MPI_SESSION_NULL;
    int level = -1, provided, err; /* -1: not requested */
    const char *v = NULL;
    mpi_session_t *s;

    /* Before MPI is up only the handler given here can report errors, and
     * only MPI_ERRORS_RETURN can return. */
    if (session == NULL)
        return mpi_err_raise_errh(errhandler, MPI_OBJ_SESSION, &none, MPI_ERR_ARG, fn,
                                  "session is NULL");
    /* A user-made handler may come from MPI_Session_create_errhandler
     * before MPI is up (callable at any time); anything else is refused. */
    if (mpi_state != MPI_STATE_INITIALIZED && errhandler != MPI_ERRORS_RETURN &&
        errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_ABORT &&
        errhandler != MPI_ERRHANDLER_NULL &&
        (mpi_handle_kind(errhandler) != MPI_HKIND_DIRECT ||
         mpi_handle_get(MPI_OBJ_ERRHANDLER, errhandler) == NULL))
        return mpi_err_raise_errh(MPI_ERRORS_ARE_FATAL, MPI_OBJ_SESSION, &none, MPI_ERR_ARG, fn,
                                  "errhandler=%#x is not a valid session error handler",
                                  (unsigned)errhandler);
    if (info != MPI_INFO_NULL) {
        if (!mpi_info_valid(info))
            return mpi_err_raise_errh(errhandler, MPI_OBJ_SESSION, &none, MPI_ERR_INFO, fn,
                                      "info=%#x is not a valid info object", (unsigned)info);
        v = mpi_info_lookup(info, "thread_level");
        if (v != NULL && thread_level_parse(v, &level) != 0)
            return mpi_err_raise_errh(errhandler, MPI_OBJ_SESSION, &none, MPI_ERR_ARG, fn,
                                      "info key thread_level=\"%s\" is not MPI_THREAD_SINGLE, "
                                      "_FUNNELED, _SERIALIZED or _MULTIPLE",
                                      v);
    }
    pthread_mutex_lock(&session_lock);
    if (mpi_state == MPI_STATE_FINALIZED) {
        pthread_mutex_unlock(&session_lock);
        return mpi_err_raise_errh(errhandler, MPI_OBJ_SESSION, &none, MPI_ERR_OTHER, fn,
                                  "MPI was finalized (by MPI_Finalize or the last "
                                  "MPI_Session_finalize); Canal cannot start it again");
    }
    if (mpi_state == MPI_STATE_PRE_INIT) {
        err = mpi_init_process(level < 0 ? MPI_THREAD_SINGLE : level, &provided, fn);
        if (err != MPI_SUCCESS) {
            pthread_mutex_unlock(&session_lock);
            return err;
        }
    }
    /* The device runs at one thread level for the process: the first
     * initialization fixed it. */
    provided = mpi_thread_level;
    if (errhandler != MPI_ERRHANDLER_NULL && mpi_errhandler_retain(errhandler, MPI_OBJ_SESSION) < 0) {
        pthread_mutex_unlock(&session_lock);
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "errhandler=%#x is not a valid session error handler",
                             (unsigned)errhandler);
    }
    s = calloc(1, sizeof *s);
    if (s == NULL || (s->handle = mpi_handle_new(MPI_OBJ_SESSION, s)) == 0) {
        free(s);
        if (errhandler != MPI_ERRHANDLER_NULL)
            mpi_errhandler_release(errhandler);
        pthread_mutex_unlock(&session_lock);
        return mpi_err_raise_errh(errhandler, MPI_OBJ_SESSION, &none, MPI_ERR_NO_MEM, fn,
                                  "out of memory for a session");
    }
    s->errhandler = errhandler != MPI_ERRHANDLER_NULL ? errhandler : MPI_ERRORS_ARE_FATAL;
    if (info != MPI_INFO_NULL && mpi_memkinds_of(info) != NULL)
        mpi_memkinds_supported(mpi_memkinds_of(info), s->memkinds, sizeof s->memkinds);
    else
        snprintf(s->memkinds, sizeof s->memkinds, "%s", mpi_memkinds_world());
    /* Not requested: the level the process runs at, which is what the
     * session really gets (as MPICH reports; threads/init/mult_session). */
    s->thread_level = level < 0 || level > provided ? provided : level;
    nsessions++;
    pthread_mutex_unlock(&session_lock);
    *session = s->handle;
    return MPI_SUCCESS;
}

int mpi_session_finalize_impl(MPI_Session *session, const char *fn)
{
    mpi_session_t *s = NULL;
    int err, last;

    if ((err = check_session(*session, fn, &s)))
        return err;
    if (s->bbuf != NULL) { /* its buffered messages go out first (MPI 4.1 11.3.1) */
        void *addr;
        MPI_Count size;
        mpi_bbuf_detach(&s->bbuf, &addr, &size);
    }
    pthread_mutex_lock(&session_lock);
    mpi_handle_del(MPI_OBJ_SESSION, s->handle);
    mpi_errhandler_release(s->errhandler);
    free(s);
    *session = MPI_SESSION_NULL;
    /* The last session stops the library unless the World Model runs. */
    last = --nsessions == 0 && mpi_world_state != MPI_STATE_INITIALIZED;
    if (last)
        err = mpi_finalize_process(fn);
    pthread_mutex_unlock(&session_lock);
    return err;
}

int mpi_session_world_finalize(const char *fn)
{
    int err = MPI_SUCCESS;

    /* MPI_Finalized stays 0 until MPI_Finalize has completed: the delete
     * callbacks of MPI_COMM_SELF's attributes, which the finalize hooks run
     * first, must see 0 (MPI 4.0 section 11.2.3; MPICH's attr/attrend2). */
    pthread_mutex_lock(&session_lock);
    if (nsessions == 0)
        err = mpi_finalize_process(fn);
    mpi_world_state = MPI_STATE_FINALIZED;
    pthread_mutex_unlock(&session_lock);
    return err;
}

/* ---------------------------------------------------------------- process sets */
enum { PSET_WORLD, PSET_SELF, PSET_NODE, PSET_COUNT };
static const char *const pset_names[PSET_COUNT] = {"mpi://WORLD", "mpi://SELF", "canal://NODE"};

/* The "mpi://" names are matched without regard to case, as the standard's
 * examples use both spellings. */
static int pset_find(const char *name)
{
    for (int i = 0; i < PSET_COUNT; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

static int pset_size(int p)
{
    return p == PSET_WORLD ? mpi_pmi.size : p == PSET_SELF ? 1 : mpi_pmi.local_size;
}

static int check_pset_name(mpi_session_t *s, const char *name, const char *fn, int *out)
{
    if (name == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "pset_name is NULL");
    if ((*out = pset_find(name)) < 0)
        return raise_s(s, MPI_ERR_ARG, fn,
                       "pset_name=\"%.*s\" is not a process set of this session (known: "
                       "mpi://WORLD, mpi://SELF, canal://NODE)",
                       MPI_MAX_PSET_NAME_LEN, name);
    return MPI_SUCCESS;
}

int mpi_session_get_num_psets_impl(MPI_Session session, MPI_Info info, int *npset_names,
                                   const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return raise_s(s, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                       (unsigned)info);
    if (npset_names == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "npset_names is NULL");
    *npset_names = PSET_COUNT;
    return MPI_SUCCESS;
}

int mpi_session_get_nth_pset_impl(MPI_Session session, MPI_Info info, int n, int *pset_len,
                                  char *pset_name, const char *fn)
{
    mpi_session_t *s = NULL;
    int err, len;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return raise_s(s, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                       (unsigned)info);
    if (n < 0 || n >= PSET_COUNT)
        return raise_s(s, MPI_ERR_ARG, fn, "n=%d is not in [0, %d)", n, PSET_COUNT);
    if (pset_len == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "pset_len is NULL");
    len = (int)strlen(pset_names[n]);
    /* *pset_len == 0 asks for the length (with the terminating NUL). */
    if (*pset_len <= 0) {
        if (*pset_len < 0)
            return raise_s(s, MPI_ERR_ARG, fn, "*pset_len=%d is negative", *pset_len);
        *pset_len = len + 1;
        return MPI_SUCCESS;
    }
    if (pset_name == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "pset_name is NULL with *pset_len=%d", *pset_len);
    snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    return MPI_SUCCESS;
}

int mpi_session_get_pset_info_impl(MPI_Session session, const char *pset_name, MPI_Info *info,
                                   const char *fn)
{
    mpi_session_t *s = NULL;
    char size[32];
    int err, p;

    if ((err = check_session(session, fn, &s)) || (err = check_pset_name(s, pset_name, fn, &p)))
        return err;
    if (info == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "info is NULL");
    if ((err = mpi_info_new(info)) != MPI_SUCCESS)
        return raise_s(s, err, fn, "cannot create the info object");
    snprintf(size, sizeof size, "%d", pset_size(p));
    if (mpi_info_put(*info, "mpi_size", size) != MPI_SUCCESS) {
        mpi_info_release(*info);
        *info = MPI_INFO_NULL;
        return raise_s(s, MPI_ERR_NO_MEM, fn, "out of memory for the info object");
    }
    return MPI_SUCCESS;
}

int mpi_group_from_session_pset_impl(MPI_Session session, const char *pset_name,
                                     MPI_Group *newgroup, const char *fn)
{
    mpi_session_t *s = NULL;
    mpi_group_t *g;
    int err, p;

    if ((err = check_session(session, fn, &s)) || (err = check_pset_name(s, pset_name, fn, &p)))
        return err;
    if (newgroup == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "newgroup is NULL");
    switch (p) {
    case PSET_WORLD: g = mpi_group_new_stride(0, 1, mpi_pmi.size); break;
    case PSET_SELF: g = mpi_group_new_stride(mpi_pmi.rank, 1, 1); break;
    default:
        g = mpi_pmi.local_ranks != NULL
                ? mpi_group_new_list(mpi_pmi.local_ranks, mpi_pmi.local_size)
                : mpi_group_new_stride(mpi_pmi.rank, 1, 1);
        break;
    }
    if (g == NULL)
        return raise_s(s, MPI_ERR_NO_MEM, fn, "out of memory for the group of %s",
                       pset_names[p]);
    if (g->size > 0) /* not the shared empty group */
        g->session = s->handle;
    if ((err = mpi_group_to_handle(g, newgroup)) != MPI_SUCCESS)
        return raise_s(s, err, fn, "cannot make a handle for the group of %s", pset_names[p]);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- info */
const char *mpi_session_memkinds(MPI_Session h)
{
    mpi_session_t *s = session_get(h);
    return s != NULL ? s->memkinds : NULL;
}

int mpi_session_get_info_impl(MPI_Session session, MPI_Info *info_used, const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (info_used == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "info_used is NULL");
    if ((err = mpi_info_new(info_used)) != MPI_SUCCESS)
        return raise_s(s, err, fn, "cannot create the info object");
    if (mpi_info_put(*info_used, "thread_level", thread_level_name(s->thread_level)) !=
            MPI_SUCCESS ||
        mpi_info_put(*info_used, "mpi_memory_alloc_kinds", s->memkinds) != MPI_SUCCESS) {
        mpi_info_release(*info_used);
        *info_used = MPI_INFO_NULL;
        return raise_s(s, MPI_ERR_NO_MEM, fn, "out of memory for the info object");
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- error handlers */
int mpi_session_set_errhandler_impl(MPI_Session session, MPI_Errhandler errhandler, const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (mpi_errhandler_retain(errhandler, MPI_OBJ_SESSION) < 0)
        return raise_s(s, MPI_ERR_ARG, fn, "errhandler=%#x is not a valid session error handler",
                       (unsigned)errhandler);
    mpi_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

int mpi_session_get_errhandler_impl(MPI_Session session, MPI_Errhandler *errhandler, const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (errhandler == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "errhandler is NULL");
    mpi_errhandler_retain(s->errhandler, MPI_OBJ_SESSION);
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

int mpi_session_call_errhandler_impl(MPI_Session session, int errorcode, const char *fn)
{
    char text[MPI_MAX_ERROR_STRING];
    mpi_session_t *s = NULL;
    MPI_Session h = session;
    int err, cls = MPI_ERR_OTHER, len = 0;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (mpi_err_invoke_errh != NULL) {
        mpi_err_invoke_errh(s->errhandler, MPI_OBJ_SESSION, &h, errorcode, fn);
        return MPI_SUCCESS;
    }
    /* Without the export the handler gets a new code of the same class
     * whose text carries the original's. */
    if (mpi_error_class_impl(errorcode, &cls, "MPI_Error_class") != MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    mpi_error_string_impl(errorcode, text, &len, "MPI_Error_string");
    mpi_err_raise_errh(s->errhandler, MPI_OBJ_SESSION, &h, cls, fn, "%s", text);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- buffered sends (MPI 4.1) */
/* The buffer of session h, or NULL (for a buffered send on a communicator
 * derived from it; device lock held). */
mpi_bbuf_t *mpi_session_bbuf(MPI_Session h)
{
    mpi_session_t *s = session_get(h);
    return s != NULL ? s->bbuf : NULL;
}

/* The session's buffer for buffered sends (mpi/pt2pt.c does the work):
 * argument errors go to the session's handler. */
int mpi_session_attach_buffer_impl(MPI_Session session, void *buffer, MPI_Count size,
                                   const char *fn)
{
    mpi_session_t *s = NULL;
    const char *why = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if ((err = mpi_bbuf_attach(&s->bbuf, buffer, size, &why)) != MPI_SUCCESS)
        return raise_s(s, err, fn, "buffer=%p size=%lld: %s", buffer, (long long)size, why);
    return MPI_SUCCESS;
}

int mpi_session_detach_buffer_impl(MPI_Session session, void *buffer_addr, MPI_Count *size,
                                   const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (buffer_addr == NULL || size == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "%s is NULL",
                       buffer_addr == NULL ? "buffer_addr" : "size");
    mpi_bbuf_detach(&s->bbuf, buffer_addr, size);
    return MPI_SUCCESS;
}

int mpi_session_flush_buffer_impl(MPI_Session session, const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    mpi_bbuf_flush(&s->bbuf);
    return MPI_SUCCESS;
}

int mpi_session_iflush_buffer_impl(MPI_Session session, MPI_Request *request, const char *fn)
{
    mpi_session_t *s = NULL;
    int err;

    if ((err = check_session(session, fn, &s)))
        return err;
    if (request == NULL)
        return raise_s(s, MPI_ERR_ARG, fn, "request is NULL");
    if ((err = mpi_bbuf_iflush(&s->bbuf, request, fn)) == MPI_ERR_NO_MEM)
        return raise_s(s, err, fn, "no memory for a request");
    return err;
}
