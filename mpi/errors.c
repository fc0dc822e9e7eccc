/*
 * The one place where Canal's internal status codes become MPI error codes,
 * and where error handlers run (MPI 4.0 chapter 9.3-9.5). Also the error
 * classes and codes chapter: MPI_Error_string/class, MPI_Add_error_*,
 * communicator error handlers, and the fatal path that ends the job.
 *
 * Error codes: a predefined class is its own code (1..127). A raised error
 * gets a code "class | slot << 7" whose slot names a message kept in a ring,
 * so MPI_Error_string can say which call, argument and value failed.
 * User classes and codes (MPI_Add_error_class/code) are 0x40000000 + n,
 * above MPI_ERR_LASTCODE as in MPICH.
 *
 * For MPICH's C++ library: a handler made by MPI::Comm/Win/File::
 * Create_errhandler has a proxy (mpi_errhandler_set_proxy, from
 * MPII_Errhandler_set_cxx) that calls the user's C++ function. The C++
 * wrapper of every method calls the object's handler again (through
 * MPI_*_call_errhandler) when the C call returns an error; MPICH avoids the
 * second call by returning MPI_SUCCESS after a C++ handler, but Canal's calls
 * stop on the non-zero code their checks return. So the failed call returns
 * its code and the code a C++ handler was given is remembered (per thread):
 * the wrapper's MPI_*_call_errhandler with that code right after is not
 * delivered again, and the method returns as in MPICH, the handler having
 * run once. MPI::ERRORS_THROW_EXCEPTIONS (MPIR_ERRORS_THROW_EXCEPTIONS)
 * returns the code like MPI_ERRORS_RETURN: the C++ wrapper throws
 * MPI::Exception.
 */
#include "mpiimpl.h"
#include "common/cvar.h"
#include "mpi/api_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- classes */
typedef struct {
    int cls;
    const char *str;
} class_str_t;

static const class_str_t class_strings[] = {
    {MPI_SUCCESS, "No MPI error"},
    {MPI_ERR_BUFFER, "Invalid buffer pointer"},
    {MPI_ERR_COUNT, "Invalid count"},
    {MPI_ERR_TYPE, "Invalid datatype"},
    {MPI_ERR_TAG, "Invalid tag"},
    {MPI_ERR_COMM, "Invalid communicator"},
    {MPI_ERR_RANK, "Invalid rank"},
    {MPI_ERR_REQUEST, "Invalid MPI_Request"},
    {MPI_ERR_ROOT, "Invalid root"},
    {MPI_ERR_GROUP, "Invalid group"},
    {MPI_ERR_OP, "Invalid MPI_Op"},
    {MPI_ERR_TOPOLOGY, "Invalid topology"},
    {MPI_ERR_DIMS, "Invalid dimension argument"},
    {MPI_ERR_ARG, "Invalid argument"},
    {MPI_ERR_UNKNOWN, "Unknown error"},
    {MPI_ERR_TRUNCATE, "Message truncated"},
    {MPI_ERR_OTHER, "Other MPI error"},
    {MPI_ERR_INTERN, "Internal MPI error!"},
    {MPI_ERR_IN_STATUS, "See the MPI_ERROR field in MPI_Status for the error code"},
    {MPI_ERR_PENDING, "Pending request (no error)"},
    {MPI_ERR_KEYVAL, "Invalid keyval"},
    {MPI_ERR_NO_MEM, "Out of memory"},
    {MPI_ERR_BASE, "Invalid base address"},
    {MPI_ERR_INFO_KEY, "Invalid info key"},
    {MPI_ERR_INFO_VALUE, "Invalid info value"},
    {MPI_ERR_INFO_NOKEY, "Info key not found"},
    {MPI_ERR_SPAWN, "Error in spawn call"},
    {MPI_ERR_PORT, "Invalid port"},
    {MPI_ERR_SERVICE, "Invalid service name"},
    {MPI_ERR_NAME, "Invalid service name (see MPI_Publish_name)"},
    {MPI_ERR_WIN, "Invalid MPI_Win"},
    {MPI_ERR_SIZE, "Invalid size"},
    {MPI_ERR_DISP, "Invalid displacement"},
    {MPI_ERR_INFO, "Invalid MPI_Info"},
    {MPI_ERR_LOCKTYPE, "Invalid locktype"},
    {MPI_ERR_ASSERT, "Invalid assert"},
    {MPI_ERR_RMA_CONFLICT, "Conflicting accesses to window"},
    {MPI_ERR_RMA_SYNC, "Wrong synchronization of RMA calls"},
    {MPI_ERR_RMA_RANGE, "Target memory is not part of the window"},
    {MPI_ERR_RMA_ATTACH, "Memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "Memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "Passed window has incorrect flavor for the called function"},
    {MPI_ERR_FILE, "Invalid MPI_File"},
    {MPI_ERR_NOT_SAME, "Collective argument not identical on all processes"},
    {MPI_ERR_AMODE, "Invalid amode value in MPI_File_open"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "Unsupported datarep passed to MPI_File_set_view"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "Unsupported operation"},
    {MPI_ERR_NO_SUCH_FILE, "File does not exist"},
    {MPI_ERR_FILE_EXISTS, "File exists"},
    {MPI_ERR_BAD_FILE, "Invalid file name"},
    {MPI_ERR_ACCESS, "Permission denied"},
    {MPI_ERR_NO_SPACE, "Not enough space for file"},
    {MPI_ERR_QUOTA, "Quota exceeded for files"},
    {MPI_ERR_READ_ONLY, "Read-only file or filesystem name"},
    {MPI_ERR_FILE_IN_USE, "File in use by some process"},
    {MPI_ERR_DUP_DATAREP, "datarep name already in use"},
    {MPI_ERR_CONVERSION, "An error occurred in a user-supplied data conversion function"},
    {MPI_ERR_IO, "Other I/O error"},
#ifdef MPI_ERR_SESSION
    {MPI_ERR_SESSION, "Invalid session"},
#endif
#ifdef MPI_ERR_PROC_ABORTED
    {MPI_ERR_PROC_ABORTED, "Process aborted"},
#endif
#ifdef MPI_ERR_VALUE_TOO_LARGE
    {MPI_ERR_VALUE_TOO_LARGE, "Value is too large to store"},
#endif
    {MPI_T_ERR_NOT_ACCESSIBLE, "Requested functionality not accessible"},
    {MPI_ERR_ERRHANDLER, "Invalid errhandler"},
    {MPI_ERR_ABI, "The Fortran ABI is already set (or differs from this library's)"},
#ifdef MPIX_ERR_PROC_FAILED
    {MPIX_ERR_PROC_FAILED, "Process failed"},
#endif
#ifdef MPIX_ERR_PROC_FAILED_PENDING
    {MPIX_ERR_PROC_FAILED_PENDING, "Process failed (pending)"},
#endif
#ifdef MPIX_ERR_REVOKED
    {MPIX_ERR_REVOKED, "Communication object revoked"},
#endif
#ifdef MPIX_ERR_EAGAIN
    {MPIX_ERR_EAGAIN, "Operation failed because of resource unavailability"},
#endif
#ifdef MPIX_ERR_NOREQ
    {MPIX_ERR_NOREQ, "Cannot allocate request"},
#endif
};

static const char *class_string(int cls)
{
    for (size_t i = 0; i < sizeof class_strings / sizeof class_strings[0]; i++)
        if (class_strings[i].cls == cls)
            return class_strings[i].str;
    return NULL;
}

/* ---------------------------------------------------------------- codes */
enum { MSG_RING = 4096, DYN_BASE = 0x40000000, DYN_MAX = 4096 };

typedef struct {
    int code;
    char text[MPI_MAX_ERROR_STRING];
} msg_slot_t;

static msg_slot_t msg_ring[MSG_RING];
static unsigned msg_next = 1;

typedef struct {
    int cls;           /* class of this dynamic code (itself for a class); 0: slot free */
    char *text;        /* MPI_Add_error_string, or NULL */
} dyn_entry_t;

/* dyn[1..ndyn] have been handed out; a slot freed by MPIX_Delete_error_class/
 * code has cls 0 and is reused by the next MPI_Add_error_class/code, so a
 * program that adds and deletes in a loop never runs out. ndyn is the
 * highest slot in use (MPI_LASTUSEDCODE). */
static dyn_entry_t dyn[DYN_MAX];
static int ndyn;
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

static int code_class(int code)
{
    if (code >= DYN_BASE && code - DYN_BASE <= ndyn && code - DYN_BASE > 0)
        return dyn[code - DYN_BASE].cls != 0 ? dyn[code - DYN_BASE].cls : -1;
    if (code >= 0 && code < DYN_BASE)
        return code & 0x7f;
    return -1;
}

int mpi_err_code_new(int errclass, const char *fn, const char *detail)
{
    const char *cs = errclass >= DYN_BASE ? "User-defined error class" : class_string(errclass);
    unsigned slot;
    int code;

    if (errclass >= DYN_BASE)
        return errclass; /* user classes carry no ring slot */
    pthread_mutex_lock(&err_lock);
    slot = msg_next;
    msg_next = msg_next + 1 < MSG_RING ? msg_next + 1 : 1;
    code = errclass | (int)(slot << 7);
    msg_ring[slot].code = code;
    snprintf(msg_ring[slot].text, sizeof msg_ring[slot].text, "%s: %s%s%s", fn,
             cs ? cs : "Unknown error class", detail && *detail ? ": " : "",
             detail ? detail : "");
    pthread_mutex_unlock(&err_lock);
    return code;
}

/* ---------------------------------------------------------------- handlers */
typedef struct {
    int objtype;      /* MPI_OBJ_COMM, _WIN, _FILE, _SESSION */
    void (*fn)(void); /* the user's function, cast back by objtype */
    int refcount;
    mpi_errh_proxy_t *proxy; /* NULL: fn is C's */
    int standard_abi;        /* proxy is the standard ABI's (mpi/abi/): every object, once */
} mpi_errhandler_t;

static mpi_errhandler_t errh_fatal = {0, NULL, 1, NULL}, errh_return = {0, NULL, 1, NULL},
                        errh_abort = {0, NULL, 1, NULL}, errh_throw = {0, NULL, 1, NULL};

static mpi_errhandler_t *errh_get(MPI_Errhandler h)
{
    return mpi_handle_get(MPI_OBJ_ERRHANDLER, h);
}

/* A rank that ends the job because a peer failed may wait a moment first,
 * so that the launcher, which usually learns of the death itself, ends the
 * job with the cause ("rank 6 on host h4 was killed by signal 9" and that
 * exit code) rather than with this rank's abort. Canal's mpiexec needs no
 * wait: it judges the ranks that are dying before it takes an abort as the
 * verdict, and sets CANAL_FAILURE_GRACE=0 in its ranks. Other launchers
 * (Hydra, srun) report whichever comes first: there the default, 1 s, covers
 * the other host's launcher reaping the dead rank. */
static void failure_grace(void)
{
    long long ms = common_cvar_int("FAILURE_GRACE") * 1000;
    struct timespec step = {0, 50 * 1000 * 1000};
    for (long long waited = 0; waited < ms; waited += 50)
        nanosleep(&step, NULL);
}

_Noreturn void mpi_err_fatal(int code, const char *fn)
{
    char text[MPI_MAX_ERROR_STRING], line[MPI_MAX_ERROR_STRING + 128];
    int len = 0, cls = code_class(code);
    int exit_code = cls > 0 && cls < 256 ? cls : 1;
    size_t fnlen = strlen(fn);

    mpi_error_string_impl(code, text, &len, "MPI_Error_string");
    /* Raised codes carry "MPI_X: class: detail"; others only the class text. */
    if (strncmp(text, fn, fnlen) == 0 && text[fnlen] == ':')
        snprintf(line, sizeof line, "Fatal error in %s", text);
    else
        snprintf(line, sizeof line, "Fatal error in %s: %s", fn, text);
    if (mpi_state == MPI_STATE_INITIALIZED)
        fprintf(stderr, "[canal:%d] %s (rank %d in MPI_COMM_WORLD)\n", mpi_pmi.rank, line,
                mpi_pmi.rank);
    else
        fprintf(stderr, "[canal] %s\n", line);
    fflush(stderr);
    if (mpi_state == MPI_STATE_INITIALIZED && mpi_pmi.kind != PMI_KIND_SINGLETON &&
        (cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_PROC_FAILED_PENDING))
        failure_grace();
    if (mpi_state == MPI_STATE_INITIALIZED) /* a singleton's pmi_abort exits */
        pmi_abort(exit_code, line);
    _exit(exit_code);
}

/* The code of the error a C++ handler was last given by a failing call
 * (0: none pending), see the top of the file. */
static __thread int cxx_delivered;

__thread unsigned mpi_err_cleared;

static int call_handler(MPI_Errhandler eh, int objtype, void *objhandle, int code,
                        const char *fn);

/* Every raise passes here: a user's handler that returned with the code
 * cleared is counted (mpi_err_cleared), so that a caller going on after the
 * raise can tell it from success. */
static int invoke_handler(MPI_Errhandler eh, int objtype, void *objhandle, int code,
                          const char *fn)
{
    int ret = call_handler(eh, objtype, objhandle, code, fn);

    if (ret == MPI_SUCCESS && code != MPI_SUCCESS)
        mpi_err_cleared++;
    return ret;
}

static int call_handler(MPI_Errhandler eh, int objtype, void *objhandle, int code,
                        const char *fn)
{
    mpi_errhandler_t *e;
    int explicit_call = strstr(fn, "_call_errhandler") != NULL;

    if (explicit_call && code != MPI_SUCCESS && code == cxx_delivered) {
        cxx_delivered = 0; /* the C++ wrapper passing on what its handler saw */
        return MPI_SUCCESS;
    }

    if (eh == MPI_ERRORS_RETURN || eh == MPIR_ERRORS_THROW_EXCEPTIONS)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT || eh == MPI_ERRHANDLER_NULL ||
        mpi_state != MPI_STATE_INITIALIZED)
        mpi_err_fatal(code, fn);
    e = errh_get(eh);
    if (e == NULL || e->fn == NULL)
        mpi_err_fatal(code, fn);
    if (e->proxy != NULL && (objtype != MPI_OBJ_SESSION || e->standard_abi)) {
        int kind = objtype == MPI_OBJ_COMM   ? 0
                   : objtype == MPI_OBJ_FILE ? 1
                   : objtype == MPI_OBJ_WIN  ? 2
                                             : 3,
            c = code;
        if (!explicit_call && !e->standard_abi) /* C++'s wrappers call the handler again */
            cxx_delivered = code;
        e->proxy(kind, objhandle, &c, e->fn);
        return code;
    }
    switch (objtype) {
    case MPI_OBJ_COMM:
        ((MPI_Comm_errhandler_function *)(void *)e->fn)((MPI_Comm *)objhandle, &code);
        break;
    case MPI_OBJ_WIN:
        ((MPI_Win_errhandler_function *)(void *)e->fn)((MPI_Win *)objhandle, &code);
        break;
    case MPI_OBJ_FILE:
        ((MPI_File_errhandler_function *)(void *)e->fn)((MPI_File *)objhandle, &code);
        break;
    case MPI_OBJ_SESSION:
        ((MPI_Session_errhandler_function *)(void *)e->fn)((MPI_Session *)objhandle, &code);
        break;
    default:
        mpi_err_fatal(code, fn);
    }
    return code;
}

int mpi_err_raise_errh(MPI_Errhandler errh, int objtype, void *objhandle, int errclass,
                       const char *fn, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return invoke_handler(errh, objtype, objhandle, mpi_err_code_new(errclass, fn, detail), fn);
}

static int raise_comm(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt,
                      va_list ap)
{
    char detail[MPI_MAX_ERROR_STRING];
    MPI_Comm h;

    vsnprintf(detail, sizeof detail, fmt, ap);
    if (comm == NULL)
        comm = &mpi_comm_world_obj;
    h = comm->handle;
    return invoke_handler(mpi_comm_errh(comm), MPI_OBJ_COMM, &h,
                          mpi_err_code_new(errclass, fn, detail), fn);
}

int mpi_err_raise(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int code;

    va_start(ap, fmt);
    code = raise_comm(comm, errclass, fn, fmt, ap);
    va_end(ap);
    return code;
}

int mpi_err_fail(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int code;

    va_start(ap, fmt);
    code = raise_comm(comm, errclass, fn, fmt, ap);
    va_end(ap);
    return mpi_err_failed(code);
}

int mpi_err_invoke_errh(MPI_Errhandler errh, int objtype, void *objhandle, int code,
                        const char *fn)
{
    return invoke_handler(errh, objtype, objhandle, code, fn);
}

int mpi_err_raise_code(mpi_comm_t *comm, int code, const char *fn)
{
    MPI_Comm h;
    if (comm == NULL)
        comm = &mpi_comm_world_obj;
    h = comm->handle;
    return invoke_handler(mpi_comm_errh(comm), MPI_OBJ_COMM, &h, code, fn);
}

int mpi_err_fail_code(mpi_comm_t *comm, int code, const char *fn)
{
    return mpi_err_failed(mpi_err_raise_code(comm, code, fn));
}

int mpi_err_class_of_status(canal_status_t st)
{
    switch (st) {
    case CANAL_OK: return MPI_SUCCESS;
    case CANAL_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case CANAL_ERR_ARG: return MPI_ERR_ARG;
    case CANAL_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case CANAL_ERR_IO: return MPI_ERR_OTHER;
    case CANAL_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case CANAL_ERR_PROTO: return MPI_ERR_INTERN;
    case CANAL_ERR_INTERN: return MPI_ERR_INTERN;
    case CANAL_ERR_PEER: return MPIX_ERR_PROC_FAILED;
    case CANAL_ERR_PEER_PENDING: return MPIX_ERR_PROC_FAILED_PENDING;
    case CANAL_ERR_REVOKED: return MPIX_ERR_REVOKED;
    case CANAL_ERR_REMOTE: return MPI_ERR_OTHER;
    case CANAL_ERR_LIMIT: return MPI_ERR_OTHER;
    case CANAL_ERR_NOTFOUND: return MPI_ERR_ARG;
    case CANAL_ERR_TYPE: return MPI_ERR_TYPE;
    case CANAL_ERR_OP: return MPI_ERR_OP;
    case CANAL_ERR_PENDING: return MPI_ERR_PENDING;
    case CANAL_ERR_TIMEOUT: return MPI_ERR_OTHER;
    case CANAL_ERR_MISMATCH: return MPI_ERR_OTHER; /* MPICH: "collective size mismatch" */
    default: return MPI_ERR_OTHER;
    }
}

int mpi_err_status(mpi_comm_t *comm, canal_status_t st, const char *fn)
{
    if (st >= 0)
        return MPI_SUCCESS;
    return mpi_err_raise(comm, mpi_err_class_of_status(st), fn, "%s", common_err_detail());
}

int mpi_err_fail_status(mpi_comm_t *comm, canal_status_t st, const char *fn)
{
    return st >= 0 ? MPI_SUCCESS : mpi_err_failed(mpi_err_status(comm, st, fn));
}

int mpi_err_unimplemented(const char *fn)
{
    if (mpi_state != MPI_STATE_INITIALIZED) {
        int code = mpi_err_code_new(MPI_ERR_UNSUPPORTED_OPERATION, fn, "");
        fprintf(stderr, "[canal] %s is not implemented in Canal yet\n", fn);
        return code;
    }
    return mpi_err_raise(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, "%s is not implemented in Canal yet",
                         fn);
}

int mpi_enter(const char *fn)
{
    if (__builtin_expect(mpi_state == MPI_STATE_INITIALIZED, 1))
        return MPI_SUCCESS;
    mpi_err_fatal(mpi_err_code_new(MPI_ERR_OTHER, fn,
                                   mpi_state == MPI_STATE_PRE_INIT
                                       ? "the MPI function was called before MPI_Init"
                                       : "the MPI function was called after MPI_Finalize"),
                  fn);
}

int mpi_errors_init(void)
{
    mpi_handle_builtin(MPI_OBJ_ERRHANDLER, MPI_ERRORS_ARE_FATAL, &errh_fatal);
    mpi_handle_builtin(MPI_OBJ_ERRHANDLER, MPI_ERRORS_RETURN, &errh_return);
    mpi_handle_builtin(MPI_OBJ_ERRHANDLER, MPI_ERRORS_ABORT, &errh_abort);
    mpi_handle_builtin(MPI_OBJ_ERRHANDLER, MPIR_ERRORS_THROW_EXCEPTIONS, &errh_throw);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI functions */
/* The implementations of the generated entry points (mpi/api/09-environment.api
 * and its MPI-1 names in 17-removed.api). MPI_Error_class and _string may be
 * called at any time: outside MPI_Init..MPI_Finalize an error only returns. */
static int anytime_err(const char *fn, const char *detail)
{
    return mpi_state == MPI_STATE_INITIALIZED ? mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s", detail)
                                              : mpi_err_code_new(MPI_ERR_ARG, fn, detail);
}

int mpi_error_class_impl(int errorcode, int *errorclass, const char *fn)
{
    char detail[64];
    int cls = code_class(errorcode);
    if (cls < 0) {
        snprintf(detail, sizeof detail, "errorcode=%d is not a valid error code", errorcode);
        return anytime_err(fn, detail);
    }
    *errorclass = cls;
    return MPI_SUCCESS;
}

int mpi_error_string_impl(int errorcode, char *string, int *resultlen, const char *fn)
{
    char detail[64];
    const char *s = NULL;
    int cls = code_class(errorcode);

    if (string == NULL)
        return anytime_err(fn, "string is NULL");
    if (cls < 0) {
        snprintf(detail, sizeof detail, "errorcode=%d is not a valid error code", errorcode);
        return anytime_err(fn, detail);
    }
    pthread_mutex_lock(&err_lock);
    if (errorcode >= DYN_BASE) {
        s = dyn[errorcode - DYN_BASE].text ? dyn[errorcode - DYN_BASE].text : "";
    } else if (errorcode > 0x7f) {
        unsigned slot = (unsigned)errorcode >> 7;
        if (slot < MSG_RING && msg_ring[slot].code == errorcode)
            s = msg_ring[slot].text;
    }
    if (s == NULL)
        s = class_string(cls) ? class_string(cls) : "Unknown error class";
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    pthread_mutex_unlock(&err_lock);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

static int dyn_add(int cls, int *out)
{
    int v;
    pthread_mutex_lock(&err_lock);
    for (v = 1; v <= ndyn && dyn[v].cls != 0; v++)
        ;
    if (v >= DYN_MAX) {
        pthread_mutex_unlock(&err_lock);
        return -1;
    }
    if (v > ndyn)
        ndyn = v;
    dyn[v].cls = cls < 0 ? DYN_BASE + v : cls;
    dyn[v].text = NULL;
    pthread_mutex_unlock(&err_lock);
    *out = DYN_BASE + v;
    return 0;
}

int mpi_err_lastusedcode(void) { return ndyn ? DYN_BASE + ndyn : MPI_ERR_LASTCODE; }

int mpi_add_error_class_impl(int *errorclass, const char *fn)
{
    if (dyn_add(-1, errorclass) < 0)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn, "no more than %d user error classes/codes",
                             DYN_MAX - 1);
    return MPI_SUCCESS;
}

int mpi_add_error_code_impl(int errorclass, int *errorcode, const char *fn)
{
    if (code_class(errorclass) != errorclass || (errorclass < DYN_BASE && !class_string(errorclass)))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "errorclass=%d is not an error class",
                             errorclass);
    if (dyn_add(errorclass, errorcode) < 0)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn, "no more than %d user error classes/codes",
                             DYN_MAX - 1);
    return MPI_SUCCESS;
}

int mpi_add_error_string_impl(int errorcode, const char *string, const char *fn)
{
    char *copy;
    if (string == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "string is NULL");
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "string is longer than MPI_MAX_ERROR_STRING-1");
    /* a user code or class (its class may be a predefined one) */
    if (errorcode <= DYN_BASE || code_class(errorcode) < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "errorcode=%d was not created by MPI_Add_error_class/code", errorcode);
    copy = strdup(string);
    if (copy == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    pthread_mutex_lock(&err_lock);
    free(dyn[errorcode - DYN_BASE].text);
    dyn[errorcode - DYN_BASE].text = copy;
    pthread_mutex_unlock(&err_lock);
    return MPI_SUCCESS;
}

/* MPICH's MPIX_Delete_error_class/code/string (MPI 4.1 names them
 * MPI_Remove_error_*): undo MPI_Add_error_*. A class may be deleted only
 * once no code of it remains, as MPICH requires; deleting a string leaves
 * the code with the empty string. The checks and the removal happen under
 * one lock so that two threads cannot delete the same slot. */
enum { DEL_CLASS, DEL_CODE, DEL_STRING };

static int dyn_delete(int what, int code, const char *fn)
{
    const char *why = NULL;
    int v = code - DYN_BASE, cls, i;

    pthread_mutex_lock(&err_lock);
    cls = code >= DYN_BASE && v <= ndyn && v > 0 ? dyn[v].cls : 0;
    if (cls == 0)
        why = "was not created by MPI_Add_error_class/code (or was deleted)";
    else if (what == DEL_CLASS && cls != code)
        why = "is an error code, not an error class";
    else if (what == DEL_CODE && cls == code)
        why = "is an error class, not an error code";
    else if (what == DEL_CLASS) {
        for (i = 1; i <= ndyn; i++)
            if (i != v && dyn[i].cls == code)
                break;
        if (i <= ndyn)
            why = "still has error codes (delete them first)";
    }
    if (why == NULL) {
        free(dyn[v].text);
        dyn[v].text = NULL;
        if (what != DEL_STRING) {
            dyn[v].cls = 0;
            while (ndyn > 0 && dyn[ndyn].cls == 0)
                ndyn--;
        }
    }
    pthread_mutex_unlock(&err_lock);
    if (why != NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s=%d %s",
                             what == DEL_CLASS ? "errorclass" : "errorcode", code, why);
    return MPI_SUCCESS;
}

int mpix_delete_error_class_impl(int errorclass, const char *fn)
{
    return dyn_delete(DEL_CLASS, errorclass, fn);
}

int mpix_delete_error_code_impl(int errorcode, const char *fn)
{
    return dyn_delete(DEL_CODE, errorcode, fn);
}

int mpix_delete_error_string_impl(int errorcode, const char *fn)
{
    return dyn_delete(DEL_STRING, errorcode, fn);
}

static int errh_create(int objtype, void (*f)(void), MPI_Errhandler *out, const char *fn)
{
    mpi_errhandler_t *e;
    /* MPI 4.0 11.4.1: MPI_Session_create_errhandler may be called at any
     * time, before MPI_Init and after MPI_Finalize (to give to
     * MPI_Session_init): its entry point is `anytime`. */
    if (f == NULL)
        return objtype == MPI_OBJ_SESSION
                   ? anytime_err(fn, "the function is NULL")
                   : mpi_err_raise(NULL, MPI_ERR_ARG, fn, "the function is NULL");
    e = calloc(1, sizeof *e); /* (no proxy, not the standard ABI's) */
    if (e == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    e->objtype = objtype;
    e->fn = f;
    e->refcount = 1;
    *out = mpi_handle_new(MPI_OBJ_ERRHANDLER, e);
    if (*out == 0) {
        free(e);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of handles");
    }
    return MPI_SUCCESS;
}

int mpi_comm_create_errhandler_impl(MPI_Comm_errhandler_function *f, MPI_Errhandler *errhandler,
                                    const char *fn)
{
    return errh_create(MPI_OBJ_COMM, (void (*)(void))f, errhandler, fn);
}

int mpi_win_create_errhandler_impl(MPI_Win_errhandler_function *f, MPI_Errhandler *errhandler,
                                   const char *fn)
{
    return errh_create(MPI_OBJ_WIN, (void (*)(void))f, errhandler, fn);
}

int mpi_file_create_errhandler_impl(MPI_File_errhandler_function *f, MPI_Errhandler *errhandler,
                                    const char *fn)
{
    return errh_create(MPI_OBJ_FILE, (void (*)(void))f, errhandler, fn);
}

int mpi_session_create_errhandler_impl(MPI_Session_errhandler_function *f,
                                       MPI_Errhandler *errhandler, const char *fn)
{
    return errh_create(MPI_OBJ_SESSION, (void (*)(void))f, errhandler, fn);
}

int mpi_errhandler_set_proxy(MPI_Errhandler h, mpi_errh_proxy_t *proxy)
{
    mpi_errhandler_t *e = errh_get(h);
    if (e == NULL || mpi_handle_kind(h) != MPI_HKIND_DIRECT || e->objtype == MPI_OBJ_SESSION)
        return -1;
    e->proxy = proxy;
    return 0;
}

/* The standard ABI's binding (mpi/abi/): its proxy converts the handle and
 * the code for handlers of every kind, sessions included (kind 3). */
int mpi_errhandler_set_abi_proxy(MPI_Errhandler h, mpi_errh_proxy_t *proxy)
{
    mpi_errhandler_t *e = errh_get(h);
    if (e == NULL || mpi_handle_kind(h) != MPI_HKIND_DIRECT)
        return -1;
    e->proxy = proxy;
    e->standard_abi = 1;
    return 0;
}

/* Take a reference on an error handler that is being attached to an object. */
int mpi_errhandler_retain(MPI_Errhandler h, int objtype)
{
    mpi_errhandler_t *e = errh_get(h);
    if (e == NULL)
        return -1;
    if (mpi_handle_kind(h) == MPI_HKIND_DIRECT) {
        if (e->objtype != objtype)
            return -1;
        __atomic_add_fetch(&e->refcount, 1, __ATOMIC_RELAXED);
    }
    return 0;
}

void mpi_errhandler_release(MPI_Errhandler h)
{
    mpi_errhandler_t *e = errh_get(h);
    if (e == NULL || mpi_handle_kind(h) != MPI_HKIND_DIRECT)
        return;
    if (__atomic_sub_fetch(&e->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        mpi_handle_del(MPI_OBJ_ERRHANDLER, h);
        free(e);
    }
}

/* Why errhandler cannot go on a communicator, for the message: the null
 * handle, or a handler made for another kind of object. */
static const char *errh_kind_note(MPI_Errhandler h)
{
    mpi_errhandler_t *e;

    if (h == MPI_ERRHANDLER_NULL)
        return " (MPI_ERRHANDLER_NULL)";
    e = errh_get(h);
    if (e == NULL)
        return "";
    switch (e->objtype) {
    case MPI_OBJ_WIN: return " (it was created for windows: MPI_Win_create_errhandler)";
    case MPI_OBJ_FILE: return " (it was created for files: MPI_File_create_errhandler)";
    case MPI_OBJ_SESSION: return " (it was created for sessions: MPI_Session_create_errhandler)";
    default: return "";
    }
}

/* callable at any time (MPI 4.0 11.4.1), like the session errhandlers */
int mpi_errhandler_free_impl(MPI_Errhandler *errhandler, const char *fn)
{
    char detail[96];

    if (errh_get(*errhandler) == NULL) {
        snprintf(detail, sizeof detail, "errhandler=%#x is not a valid error handler%s",
                 (unsigned)*errhandler,
                 *errhandler == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
        return anytime_err(fn, detail);
    }
    mpi_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int mpi_comm_set_errhandler_impl(mpi_comm_t *c, MPI_Errhandler errhandler, const char *fn)
{
    if (mpi_errhandler_retain(errhandler, MPI_OBJ_COMM) < 0)
        return mpi_err_raise(c, MPI_ERR_ARG, fn,
                             "errhandler=%#x is not a valid communicator error handler%s",
                             (unsigned)errhandler, errh_kind_note(errhandler));
    mpi_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    c->errh_default = 0;
    return MPI_SUCCESS;
}

int mpi_comm_get_errhandler_impl(mpi_comm_t *c, MPI_Errhandler *errhandler, const char *fn)
{
    (void)fn;
    *errhandler = mpi_comm_errh(c);
    mpi_errhandler_retain(*errhandler, MPI_OBJ_COMM);
    return MPI_SUCCESS;
}

int mpi_comm_call_errhandler_impl(mpi_comm_t *c, int errorcode, const char *fn)
{
    MPI_Comm h = c->handle;
    invoke_handler(mpi_comm_errh(c), MPI_OBJ_COMM, &h, errorcode, fn);
    return MPI_SUCCESS;
}
