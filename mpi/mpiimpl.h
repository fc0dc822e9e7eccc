/*
 * What every file of mpi/ shares: the handle tables that map the MPICH-ABI
 * integer handles to Canal's objects, the communicator object, the process
 * state (initialized/finalized, thread level), and the one place where
 * internal status codes become MPI error codes and error handlers run
 * (mpi/errors.c). Only mpi/ includes this header.
 *
 * Handles follow MPICH's encoding: bits 31-30 kind (0 invalid, 1 builtin,
 * 2 direct), bits 29-26 object type, low 26 bits an index.
 *
 * How an MPI function is written:
 *     int PMPI_X(...)
 *     {
 *         static const char fn[] = "MPI_X";
 *         int err = mpi_enter(fn);              // initialized? (raises if not)
 *         if (err) return err;
 *         ... check arguments, raising with
 *             return mpi_err_raise(comm, MPI_ERR_RANK, fn, "dest=%d is not in [0, %d)", ...);
 *         ... call the layers below; turn their canal_status_t into MPI errors with
 *             return mpi_err_status(comm, st, fn);
 *     }
 *     #pragma weak MPI_X = PMPI_X
 */
#ifndef CANAL_MPIIMPL_H
#define CANAL_MPIIMPL_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "adi/adi.h"
#include "common/log.h"
#include "common/status.h"
#include "datatype/dt.h"
#include "pmi/pmi.h"

/* ---------------------------------------------------------------- handles */
enum {
    MPI_HKIND_INVALID = 0,
    MPI_HKIND_BUILTIN = 1,
    MPI_HKIND_DIRECT = 2,
};

typedef enum {
    MPI_OBJ_COMM = 0x1,
    MPI_OBJ_GROUP = 0x2,
    MPI_OBJ_DATATYPE = 0x3,
    MPI_OBJ_FILE = 0x4,
    MPI_OBJ_ERRHANDLER = 0x5,
    MPI_OBJ_OP = 0x6,
    MPI_OBJ_INFO = 0x7,
    MPI_OBJ_WIN = 0x8,
    MPI_OBJ_KEYVAL = 0x9,
    MPI_OBJ_ATTR = 0xa,
    MPI_OBJ_REQUEST = 0xb,
    MPI_OBJ_GREQ_CLASS = 0xc,
    MPI_OBJ_SESSION = 0xd,
    MPI_OBJ_MESSAGE = 0xe,
    MPI_OBJ_NTYPES = 0x10,
} mpi_objtype_t;

static inline int mpi_handle_kind(int h) { return (int)(((unsigned)h >> 30) & 3u); }
static inline int mpi_handle_objtype(int h) { return (int)(((unsigned)h >> 26) & 0xfu); }
static inline int mpi_handle_index(int h) { return h & 0x03ffffff; }
static inline int mpi_handle_make(int kind, int objtype, int index)
{
    return (int)(((unsigned)kind << 30) | ((unsigned)objtype << 26) | (unsigned)index);
}

/* Object of `objtype` named by handle h, or NULL if h is not a live handle of
 * that type (builtin or created). */
void *mpi_handle_get(mpi_objtype_t objtype, int h);
/* The objects of direct handles (kind 2) by type, in blocks of
 * MPI_HANDLE_BLOCK that never move (mpi/handle.c), and the lookup of
 * mpi_handle_get for them inline: the hot paths of the entry points resolve
 * communicators and windows without a call. NULL unless h is a live direct
 * handle of type t (a 26-bit index always falls in the table). */
enum { MPI_HANDLE_BLOCK = 1024, MPI_HANDLE_BLOCKS = 65536 };
extern void **mpi_handle_blocks[MPI_OBJ_NTYPES][MPI_HANDLE_BLOCKS];
static inline void *mpi_handle_direct(mpi_objtype_t t, int h)
{
    unsigned idx = (unsigned)h & 0x03ffffffu;
    void **blk;
    if (((unsigned)h >> 26) != (((unsigned)MPI_HKIND_DIRECT << 4) | (unsigned)t))
        return NULL;
    blk = __atomic_load_n(&mpi_handle_blocks[t][idx / MPI_HANDLE_BLOCK], __ATOMIC_ACQUIRE);
    return blk == NULL ? NULL : blk[idx % MPI_HANDLE_BLOCK];
}
/* The predefined datatypes with a builtin handle, by the handle's low byte
 * (0: none), filled by mpi_handle_builtin: a handle that is one of them is
 * valid and committed, which the entry points' datatype check decides with
 * one load and one compare. Any other handle (derived, direct, invalid, a
 * handle of another object type) takes the lookup. */
extern int mpi_dt_predefined[256];
extern void *mpi_dt_predefined_obj[256]; /* their engine types (mpi_dt_get) */
extern size_t mpi_dt_predefined_size[256]; /* and sizes (MPI_Get_count) */
static inline int mpi_dt_is_predefined(MPI_Datatype h)
{
    return mpi_dt_predefined[(unsigned)h & 0xffu] == h && h != 0;
}
/* Register a builtin handle (kind 1) for a static object. */
void mpi_handle_builtin(mpi_objtype_t objtype, int h, void *obj);
/* A predefined object with a direct handle (MPICH's MPI_FLOAT_INT...). */
void mpi_handle_reserve(mpi_objtype_t objtype, int h, void *obj);
/* New direct handle for obj; returns the handle (never 0) or 0 when out of memory. */
int mpi_handle_new(mpi_objtype_t objtype, void *obj);
void mpi_handle_del(mpi_objtype_t objtype, int h);

/* Requests: the handle is derived from the device request's index. */
static inline MPI_Request mpi_request_handle(const adi_request_t *r)
{
    return mpi_handle_make(MPI_HKIND_DIRECT, MPI_OBJ_REQUEST, r->index);
}
/* One collective request that is complete from its start, shared by every
 * nonblocking collective that moves nothing (MPICH's and Open MPI's
 * pre-completed request): no allocation, and completing or freeing it
 * writes nothing to it (adi_request_init_done), so any number of handles
 * may name it at once, in any thread. Its index is beyond the request
 * pool's (adi/request.c: at most 2^22 requests). */
enum { MPI_REQUEST_DONE_INDEX = 0x03ffffff };
extern adi_request_t mpi_request_done_obj;
static inline MPI_Request mpi_request_done_handle(void)
{
    return mpi_handle_make(MPI_HKIND_DIRECT, MPI_OBJ_REQUEST, MPI_REQUEST_DONE_INDEX);
}
/* Its twin for point-to-point calls on MPI_PROC_NULL (MPI_Isend, MPI_Irecv
 * and their modes): complete at once with the empty status of MPI 4.0
 * 3.11 (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0). */
enum { MPI_REQUEST_NULLPROC_INDEX = 0x03fffffe };
extern adi_request_t mpi_request_nullproc_obj;
static inline MPI_Request mpi_request_nullproc_handle(void)
{
    return mpi_handle_make(MPI_HKIND_DIRECT, MPI_OBJ_REQUEST, MPI_REQUEST_NULLPROC_INDEX);
}
/* Set both shared requests up (at every init; the same values each time). */
void mpi_request_shared_init(void);
/* r is one of the two shared requests. */
static inline int mpi_request_is_shared(const adi_request_t *r)
{
    return r == &mpi_request_done_obj || r == &mpi_request_nullproc_obj;
}
/* The shared request a handle names, or NULL. */
static inline adi_request_t *mpi_request_shared_of(MPI_Request h)
{
    if (h == mpi_request_done_handle())
        return &mpi_request_done_obj;
    if (h == mpi_request_nullproc_handle())
        return &mpi_request_nullproc_obj;
    return NULL;
}
/* The request a handle names, NULL if invalid: a pool request inline
 * (every MPI_Wait and MPI_Test looks one up), the shared ones out of line. */
adi_request_t *mpi_request_get_other(MPI_Request h);
static inline adi_request_t *mpi_request_get(MPI_Request h)
{
    adi_request_t *r;
    if (__builtin_expect(mpi_handle_kind(h) != MPI_HKIND_DIRECT ||
                             mpi_handle_objtype(h) != MPI_OBJ_REQUEST,
                         0))
        return NULL;
    r = adi_request_at(mpi_handle_index(h));
    return __builtin_expect(r != NULL, 1) ? r : mpi_request_get_other(h);
}

/* ---------------------------------------------------------------- objects */
typedef struct mpi_group mpi_group_t; /* mpi/group.c */
typedef struct mpi_attr mpi_attr_t;   /* mpi/attr.c */

typedef struct mpi_comm {
    MPI_Comm handle;
    int refcount;
    int context;             /* point to point; collectives use context + 1 */
    int rank, size;          /* in the local group */
    int is_inter;
    /* Peers for point to point: the local group (intra) or the remote group
     * (inter). peer_job_ranks == NULL means rank r is job rank r. */
    int peer_size;
    int *peer_job_ranks;
    int *local_job_ranks;    /* local group -> job ranks, NULL = identity */
    mpi_group_t *group;      /* local group (may be NULL until asked for) */
    mpi_group_t *remote_group;
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    mpi_attr_t *attrs;
    MPI_Info info;
    void *topo;              /* mpi/topo.c */
    void *coll;              /* coll/ per-communicator state */
    struct mpi_comm *local_comm; /* intercommunicators: the local intracomm for collectives */
    int idup_seq;            /* MPI_Comm_idup calls so far (their tags, mpi/comm.c) */
    unsigned ulfm_seq;       /* MPIX_Comm_agree/shrink agreements so far (mpi/ulfm.c) */
    /* No error handler was ever set on this communicator or the ones it
     * was made from: errors go to MPI_COMM_WORLD's current handler, as in
     * MPICH (a program that sets MPI_ERRORS_RETURN on the world after
     * making communicators gets it on them too). See mpi_comm_errh(). */
    int errh_default;
    /* The session it derives from (MPI_Comm_create_from_group of a session's
     * group, and communicators made from that one), or 0: a buffered send
     * without a communicator buffer uses that session's (MPI 4.1 3.6). */
    MPI_Session session;
} mpi_comm_t;


static inline int mpi_comm_peer_job_rank(const mpi_comm_t *c, int r)
{
    return c->peer_job_ranks != NULL ? c->peer_job_ranks[r] : r;
}

mpi_comm_t *mpi_comm_get(MPI_Comm h);   /* NULL if invalid */
extern mpi_comm_t mpi_comm_world_obj;
extern mpi_comm_t mpi_comm_self_obj;

/* The handler that errors on c go to (see errh_default). */
static inline MPI_Errhandler mpi_comm_errh(const mpi_comm_t *c)
{
    return c->errh_default ? mpi_comm_world_obj.errhandler : c->errhandler;
}

/* ---------------------------------------------------------------- state */
typedef enum { MPI_STATE_PRE_INIT = 0, MPI_STATE_INITIALIZED, MPI_STATE_FINALIZED } mpi_state_t;
/* mpi_state: whether the library runs (the device is up), started by
 * MPI_Init or by the first MPI_Session_init. mpi_world_state: the World
 * Model's own (MPI_Init ... MPI_Finalize), which MPI_Initialized and
 * MPI_Finalized report; the two models mix (MPI 4.0 section 11.3), so
 * MPI_Init may come after MPI_Session_init, and the library stops when the
 * World Model has finalized (or never started) and the last session ends. */
extern mpi_state_t mpi_state, mpi_world_state;
/* Start the library without the World Model (the first MPI_Session_init). */
int mpi_init_process(int required, int *provided, const char *fn);
/* Stop it (MPI_Finalize, or the last MPI_Session_finalize). */
int mpi_finalize_process(const char *fn);
/* mpi/session.c: MPI_Finalize's end of the World Model; the library stops
 * unless sessions are active (the last MPI_Session_finalize stops it). */
int mpi_session_world_finalize(const char *fn);
extern int mpi_thread_level;
extern pmi_info_t mpi_pmi;

/* MPI_SUCCESS if MPI is initialized and not finalized; otherwise reports
 * "<fn> called before MPI_Init"/"after MPI_Finalize" fatally. */
int mpi_enter(const char *fn);

/* ---------------------------------------------------------------- errors */
/* Build an error code of class `errclass` whose string is
 * "<fn>: <class string>: <detail>", and invoke the error handler of comm
 * (NULL: MPI_COMM_WORLD's, as MPICH does for calls without an object).
 * Returns the error code for the call to return. */
int mpi_err_raise(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Errors this thread raised whose code the user's handler cleared (it
 * returned with MPI_SUCCESS). A step that raises returns what the handler
 * left, so a cleared raise reads as success; the generated entry points'
 * checks compare this count before and after each check and stop on a
 * change (doc/design.md, "a raise returns what the handler left"). */
extern __thread unsigned mpi_err_cleared;
/* What an implementation step returns for a raise whose code the user's
 * handler cleared, so that its callers stop on it (any nonzero result is a
 * failure); the entry points of the table files with `result=mpi_result`
 * (those that reach the implementations raising with mpi_err_fail*, below)
 * turn it back into the handler's MPI_SUCCESS. io/ uses the same value
 * (IO_HANDLED). */
enum { MPI_CANAL_HANDLED = -1 };
static inline int mpi_result(int err)
{
    return err == MPI_CANAL_HANDLED ? MPI_SUCCESS : err;
}
/* mpi_err_raise, mpi_err_raise_code and mpi_err_status for the
 * implementations whose steps go on when a step returns MPI_SUCCESS
 * (mpi/comm.c, group.c, topo.c, attr.c, info.c, type.c): the result is
 * never MPI_SUCCESS for an error, MPI_CANAL_HANDLED when the user's handler
 * cleared the code. Only for implementations whose every entry point maps
 * the result (result=mpi_result); chapters 3, 6 and 12, whose fast paths
 * return the implementation's result as it is, raise with mpi_err_raise. */
static inline int mpi_err_failed(int code) /* code: what a raise returned */
{
    return code == MPI_SUCCESS ? MPI_CANAL_HANDLED : code; /* (a raise never passes 0) */
}
/* The result of a collective that an implementation runs on the user's
 * communicator (dyn/'s broadcasts, gather and barrier): a collective's
 * implementation returns MPI_SUCCESS for a code the user's handler cleared
 * (chapter 6's entry points map nothing: mpi/coll.c maps it itself), so its
 * caller compares the thread's count of cleared codes taken before the call
 * (`cleared`) and gets MPI_CANAL_HANDLED, to stop as on any other error
 * instead of going on with what the collective did not deliver. */
static inline int mpi_coll_step(int err, unsigned cleared)
{
    return err == MPI_SUCCESS && mpi_err_cleared != cleared ? MPI_CANAL_HANDLED : err;
}
int mpi_err_fail(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int mpi_err_fail_code(mpi_comm_t *comm, int code, const char *fn);
int mpi_err_fail_status(mpi_comm_t *comm, canal_status_t st, const char *fn);
/* Invoke an object's error handler for an existing error code
 * (MPI_Win/File/Session_call_errhandler). */
int mpi_err_invoke_errh(MPI_Errhandler errh, int objtype, void *objhandle, int code,
                        const char *fn);
/* Invoke comm's handler for an existing error code. */
int mpi_err_raise_code(mpi_comm_t *comm, int code, const char *fn);
/* Same for windows, files and sessions (errhandler of that object). */
int mpi_err_raise_errh(MPI_Errhandler errh, int objtype, void *objhandle, int errclass,
                       const char *fn, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Convert a negative canal_status_t (with common_err_detail()) and raise it. */
int mpi_err_status(mpi_comm_t *comm, canal_status_t st, const char *fn);
int mpi_err_class_of_status(canal_status_t st);
/* Create an error code for errclass + message without invoking a handler
 * (for statuses of multi-request calls). */
int mpi_err_code_new(int errclass, const char *fn, const char *detail);
/* Error handlers attached to objects are reference counted. */
int mpi_errhandler_retain(MPI_Errhandler h, int objtype);
void mpi_errhandler_release(MPI_Errhandler h);
int mpi_err_lastusedcode(void);
/* MPI_File_close forgets the Fortran handle of the file (mpi/handles_f2c.c). */
void mpi_file_f2c_forget(MPI_File fh);
/* Register init/finalize functions of a module (collectives, RMA, ...). */
void mpi_register_hook(int (*init)(void), void (*finalize)(void));
/* dyn/dyn_spawn.c: the error codes the calling thread's last MPI_Comm_spawn(_multiple)
 * wrote (the standard ABI's binding converts that many in place). */
int mpi_spawn_codes_written(void);
/* The stub of every function that is not implemented yet. */
int mpi_err_unimplemented(const char *fn);
/* Print "Fatal error in <fn>..." and abort the job with a non-zero code. */
_Noreturn void mpi_err_fatal(int code, const char *fn);

/* ---------------------------------------------------------------- QMPI (mpi/qmpi.c) */
typedef void (*mpi_qmpi_fn_t)(void);
extern int mpi_qmpi_active; /* a QMPI tool intercepts some function */
/* The first tool's function for QMPI function id fid (NULL: none, call the
 * library); fills the context and the tool id to pass it, and remembers the
 * caller's address for QMPI_Get_calling_address. */
mpi_qmpi_fn_t mpi_qmpi_first(int fid, void *caller, QMPI_Context *context, int *tool_id);
/* MPI_Init and MPI_Init_thread, before anything else: start the tools of the
 * tool list, so that they intercept these calls too (a problem with the
 * list is raised later, by MPI_Init itself). */
void mpi_qmpi_prestart(void);
/* The library's own function for each QMPI id (generated: mpi/api_qmpi.c). */
extern const mpi_qmpi_fn_t mpi_qmpi_base[];

/* ---------------------------------------------------------------- datatypes */
/* The engine type behind a datatype handle, or NULL if invalid/null. */
dt_type_t *mpi_dt_lookup(MPI_Datatype h);
/* Inline for the predefined types (no call on the hot paths of the
 * implementations); any other handle is looked up in the table. */
static inline dt_type_t *mpi_dt_get(MPI_Datatype h)
{
    if (__builtin_expect(mpi_dt_is_predefined(h), 1))
        return mpi_dt_predefined_obj[(unsigned)h & 0xffu];
    return mpi_dt_lookup(h);
}
/* Resolve a datatype an implementation uses (valid and committed), raising
 * MPI_ERR_TYPE with mpi_err_fail: MPI_CANAL_HANDLED when the user's
 * handler cleared the code, so that its caller stops and maps the result. */
int mpi_check_dt(mpi_comm_t *comm, MPI_Datatype h, const char *fn, dt_type_t **dt_out);
/* The type a message of count 0 moves as: h itself when it is a committed
 * datatype, else MPI_BYTE (MPI_DATATYPE_NULL, a type not yet committed:
 * MPICH does not check the datatype of an empty MPI_Bcast, and neither
 * does mpi/coll.c). */
MPI_Datatype mpi_dt_zero_count(MPI_Datatype h);
void mpi_dt_init(void);
/* The handle of a builtin engine type (MPI_DATATYPE_NULL if none). */
MPI_Datatype mpi_dt_builtin_handle(dt_builtin_t kind);

/* ---------------------------------------------------------------- cross-file services */
/* Reductions (mpi/op.c): apply op to count elements of datatype,
 * inout[i] = in[i] op inout[i], for builtin and user-defined operations.
 * Returns an MPI error class on failure (op not defined for the type). */
int mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype datatype);
int mpi_op_is_commutative(MPI_Op op);
int mpi_op_valid(MPI_Op op);
/* The engine operation of a predefined handle, or DT_OP_N (mpi/op.c). */
dt_op_t mpi_op_builtin(MPI_Op op);
/* A reference that keeps a user operation alive while a schedule uses it. */
void mpi_op_retain(MPI_Op op);
void mpi_op_release(MPI_Op op);
/* Attribute list of a datatype (mpi/type.c), for mpi/attr.c. NULL if invalid. */
mpi_attr_t **mpi_type_attr_list(MPI_Datatype h);
/* Copy attributes on dup (calls copy callbacks) and delete them on free
 * (calls delete callbacks) -- mpi/attr.c. objtype: MPI_OBJ_COMM/DATATYPE/WIN. */
int mpi_attr_dup_all(int objtype, int old_handle, mpi_attr_t *src, mpi_attr_t **dst_out);
int mpi_attr_delete_all(int objtype, int handle, mpi_attr_t **list);
/* ---------------------------------------------------------------- language hooks */
/* What MPICH's Fortran and C++ libraries (libmpichfort.so.12,
 * libmpichcxx.so.12) need of the library, called by mpi/mpich_lang.c's
 * MPII_* hooks. The kinds and proxy signatures are MPICH's ABI. */
typedef enum {
    MPI_ATTR_KIND_PTR = 0,  /* set from C or C++: a pointer */
    MPI_ATTR_KIND_AINT = 1, /* from Fortran, INTEGER(KIND=MPI_ADDRESS_KIND) */
    MPI_ATTR_KIND_INT = 3,  /* from Fortran's MPI-1 MPI_Attr_put, INTEGER */
} mpi_attr_kind_t;
typedef int mpi_attr_copy_proxy_t(MPI_Comm_copy_attr_function *user_fn, int handle, int keyval,
                                  void *extra, mpi_attr_kind_t kind, void *value, void **newval,
                                  int *flag);
typedef int mpi_attr_delete_proxy_t(MPI_Comm_delete_attr_function *user_fn, int handle,
                                    int keyval, mpi_attr_kind_t kind, void *value, void *extra);
/* mpi/attr.c: call keyval's callbacks through these (-1: not a live keyval). */
int mpi_attr_keyval_set_proxy(int keyval, mpi_attr_copy_proxy_t *copy_proxy,
                              mpi_attr_delete_proxy_t *delete_proxy);
/* mpi_attr_set/get of comm_impl.h with the kind of the caller. */
int mpi_attr_set_kind(int objtype, int handle, mpi_attr_t **list, int keyval, void *value,
                      mpi_attr_kind_t kind, const char *fn);
int mpi_attr_get_kind(int objtype, mpi_attr_t *list, int keyval, void *attribute_val, int *flag,
                      mpi_attr_kind_t kind, const char *fn);
/* mpi/op.c: a user operation of C++ is called as proxy(in, inout, len,
 * datatype, user_fn) (-1: op is not a user operation). */
typedef void mpi_op_proxy_t(const void *in, void *inout, int len, MPI_Datatype dt,
                            MPI_User_function *user_fn);
int mpi_op_set_proxy(MPI_Op op, mpi_op_proxy_t *proxy);
/* the same for a large-count operation (MPI_Op_create_c): the standard ABI's
 * binding (mpi/abi/) converts the datatype handle */
typedef void mpi_op_proxy_c_t(const void *in, void *inout, MPI_Count len, MPI_Datatype dt,
                              MPI_User_function_c *user_fn);
int mpi_op_set_proxy_c(MPI_Op op, mpi_op_proxy_c_t *proxy);
/* io/io_view.c: the functions of a user data representation (MPI_Register_datarep)
 * called through the standard ABI's binding, which converts the datatype
 * handle and the returned code (mpi/abi/). -1: no such datarep. */
typedef struct {
    int (*convert)(void (*user_fn)(void), int large, void *userbuf, MPI_Datatype dt,
                   MPI_Count count, void *filebuf, MPI_Offset position, void *extra);
    int (*extent)(MPI_Datarep_extent_function *user_fn, MPI_Datatype dt, MPI_Aint *extent,
                  void *extra);
} mpi_datarep_proxy_t;
int mpi_datarep_set_proxy(const char *datarep, const mpi_datarep_proxy_t *proxy);
/* 1 in libmpi_abi.so.1 (the MPI 5.0 standard ABI, set when mpi/abi/ is
 * loaded), 0 in libmpi.so.12: the core is the same object code in both. */
extern int mpi_abi_standard;
/* MPI 4.1's name of a null handle (MPI_COMM_NULL, MPI_WIN_NULL: `null_name`)
 * for MPI_Comm_get_name/MPI_Win_get_name under the standard ABI: writes it to
 * out (MPI_ERR_ARG when out is NULL); mpi/comm.c. */
int mpi_name_of_null(const char *null_name, char *out, int *resultlen, const char *fn,
                     const char *arg);
/* mpi/errors.c: a C++ error handler is called as proxy(kind, handle, code,
 * user_fn), kind 0 communicator, 1 file, 2 window, once per error (see
 * errors.c). -1: h is not a user error handler. */
typedef void mpi_errh_proxy_t(int kind, int *handle, int *code, void (*user_fn)(void));
int mpi_errhandler_set_proxy(MPI_Errhandler h, mpi_errh_proxy_t *proxy);
/* The standard ABI's proxy (mpi/abi/): for every kind, 3 a session, and the
 * handler runs once per error, as C's (no C++ bookkeeping). */
int mpi_errhandler_set_abi_proxy(MPI_Errhandler h, mpi_errh_proxy_t *proxy);
/* mpi/request.c: the callbacks of a generalized request in another
 * language's convention (mpi/mpich_lang.c's Fortran adapters). */
typedef struct {
    int (*query)(MPI_Grequest_query_function *fn, void *extra, MPI_Status *status);
    int (*free_fn)(MPI_Grequest_free_function *fn, void *extra);
    int (*cancel)(MPI_Grequest_cancel_function *fn, void *extra, int complete);
} mpi_greq_lang_t;
/* -1: request is not a generalized request. */
int mpi_greq_set_lang(MPI_Request request, const mpi_greq_lang_t *lang);

/* Whether the bytes of acount elements of adt at a and of bcount elements of
 * bdt at b overlap (mpi/coll.c); never when either moves nothing. */
int mpi_bufs_overlap(const void *a, MPI_Count acount, dt_type_t *adt, const void *b,
                     MPI_Count bcount, dt_type_t *bdt);
/* Process topologies (mpi/topo.c): neighbours of comm for neighbourhood
 * collectives in the order the standard defines; arrays owned by the topology.
 * Returns MPI_ERR_TOPOLOGY class if comm has no topology. */
int mpi_topo_neighbors(mpi_comm_t *c, int *indegree, const int **sources, int *outdegree,
                       const int **destinations);
/* Context ids (mpi/comm.c): agree on a fresh context (and context+1) among
 * the members of parent (collective over parent). */
int mpi_comm_context_alloc(mpi_comm_t *parent, int *context_out);
void mpi_comm_context_free(int context);
/* mpi/ulfm.c's agreement on a context: the free pairs (returns the words
 * written, -1 if `words` is too small) and taking one (1 if it was free). */
int mpi_comm_context_snapshot(uint32_t *mask, int words);
int mpi_comm_context_take(int context);

/* ---------------------------------------------------------------- pt2pt */
/* The largest tag (the MPI_TAG_UB attribute). */
enum { MPI_CANAL_TAG_UB = 0x3fffffff };
/* Argument checks by parameter kind (mpi/check.c), called by the generated
 * entry points and by implementations: each raises through c's error handler
 * (NULL: MPI_COMM_WORLD's) naming fn, the argument and its value. */
enum { MPI_CANAL_ANY_COUNT = -1 }; /* check a datatype whatever the count */
/* The test of each check is inline: the generated entry points make them on
 * every call, and a call each would cost more than the tests; the raising
 * part (*_fail, *_slow) is in mpi/check.c. */
int mpi_check_comm_fail(MPI_Comm h, const char *fn, mpi_comm_t **out);
int mpi_check_count_fail(mpi_comm_t *c, MPI_Count count, const char *fn, const char *arg);
int mpi_check_buf_fail(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype dt,
                       const char *fn);
int mpi_check_datatype_slow(mpi_comm_t *c, MPI_Datatype *h, MPI_Count count, const char *fn,
                            const char *arg);
int mpi_check_rank_fail(mpi_comm_t *c, int rank, int any_ok, const char *fn, const char *arg);
int mpi_check_tag_fail(mpi_comm_t *c, int tag, int any_ok, const char *fn, const char *arg);
int mpi_check_ptr_fail(mpi_comm_t *c, const char *fn, const char *arg);
int mpi_check_count(mpi_comm_t *c, MPI_Count count, const char *fn);

static inline int mpi_check_comm(MPI_Comm h, const char *fn, mpi_comm_t **out)
{
    if (__builtin_expect(h == MPI_COMM_WORLD, 1)) {
        *out = &mpi_comm_world_obj;
        return MPI_SUCCESS;
    }
    return mpi_check_comm_fail(h, fn, out); /* looks the handle up; raises if invalid */
}
/* mpi_check_comm inside an implementation (a second communicator, a
 * handle passed by pointer): *out is NULL and the result MPI_CANAL_HANDLED
 * when the user's handler cleared the code, so that the caller stops. */
static inline int mpi_check_comm_step(MPI_Comm h, const char *fn, mpi_comm_t **out)
{
    int err;

    *out = NULL;
    err = mpi_check_comm(h, fn, out);
    return err == MPI_SUCCESS && *out == NULL ? MPI_CANAL_HANDLED : err;
}
/* The hot paths' resolution (gen.py's fast tests): MPI_COMM_WORLD or a
 * live direct handle, else NULL (then the checked path decides: builtin
 * MPI_COMM_SELF, errors). */
static inline mpi_comm_t *mpi_comm_fast(MPI_Comm h)
{
    return h == MPI_COMM_WORLD ? &mpi_comm_world_obj : mpi_handle_direct(MPI_OBJ_COMM, h);
}
static inline int mpi_check_count_arg(mpi_comm_t *c, MPI_Count count, const char *fn,
                                      const char *arg)
{
    return __builtin_expect(count >= 0, 1) ? MPI_SUCCESS : mpi_check_count_fail(c, count, fn, arg);
}
/* A buffer address the fast paths may use: neither NULL nor MPI_IN_PLACE
 * ((void *)-1, a collective's word), in one test. mpi_check_buf's and
 * rma/'s fast paths (whose general paths refuse both with MPI_ERR_BUFFER;
 * rma/ may include this header: test/check_layers.sh). */
static inline int mpi_buf_usable(const void *p)
{
    return (uintptr_t)p + 1 > 1;
}
static inline int mpi_check_buf(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype dt,
                                const char *fn)
{
    return __builtin_expect(mpi_buf_usable(buf) || count <= 0, 1)
               ? MPI_SUCCESS
               : mpi_check_buf_fail(c, buf, count, dt, fn);
}
/* *h may be replaced: a message of count 0 moves as MPI_BYTE whatever its
 * datatype (mpi/check.c) */
static inline int mpi_check_datatype_arg(mpi_comm_t *c, MPI_Datatype *h, MPI_Count count,
                                         const char *fn, const char *arg)
{
    if (__builtin_expect(mpi_dt_is_predefined(*h), 1))
        return MPI_SUCCESS; /* predefined types are valid and committed */
    return mpi_check_datatype_slow(c, h, count, fn, arg);
}
static inline int mpi_check_rank_arg(mpi_comm_t *c, int rank, int any_ok, const char *fn,
                                     const char *arg)
{
    return __builtin_expect((unsigned)rank < (unsigned)c->peer_size, 1)
               ? MPI_SUCCESS
               : mpi_check_rank_fail(c, rank, any_ok, fn, arg);
}
static inline int mpi_check_tag_arg(mpi_comm_t *c, int tag, int any_ok, const char *fn,
                                    const char *arg)
{
    return __builtin_expect((unsigned)tag <= (unsigned)MPI_CANAL_TAG_UB, 1)
               ? MPI_SUCCESS
               : mpi_check_tag_fail(c, tag, any_ok, fn, arg);
}
static inline int mpi_check_ptr_arg(mpi_comm_t *c, const void *p, const char *fn, const char *arg)
{
    return __builtin_expect(p != NULL, 1) ? MPI_SUCCESS : mpi_check_ptr_fail(c, fn, arg);
}
int mpi_check_ptr_anytime(const void *p, const char *fn, const char *arg);
/* Kinds `group` (resolved for the implementation), `op` and `type` (a valid
 * datatype, committed or not): MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TYPE. */
int mpi_check_group_arg(mpi_comm_t *c, MPI_Group h, const char *fn, const char *arg,
                        mpi_group_t **out);
int mpi_check_op_arg(mpi_comm_t *c, MPI_Op op, const char *fn, const char *arg);
/* MPICH's first phase on a handle's kind bits alone (`info(first)`, a
 * window's `group`): MPI_ERR_INFO / MPI_ERR_GROUP before the communicator or
 * window is checked; raised through win's handler when win is a live window,
 * else MPI_COMM_WORLD's (mpi/check.c). */
static inline int mpi_handle_is_kind(int h, int objtype) /* (their fast test) */
{
    return mpi_handle_kind(h) != MPI_HKIND_INVALID && mpi_handle_objtype(h) == objtype;
}
int mpi_check_info_kind(MPI_Info h, MPI_Win win, const char *fn, const char *arg);
int mpi_check_group_kind(MPI_Group h, MPI_Win win, const char *fn, const char *arg);
/* The op of a reduction checked against its datatype, before the count
 * (`op(datatype)` in the API table; MPICH's order; mpi/check.c). */
int mpi_check_op_type_arg(mpi_comm_t *c, MPI_Op op, MPI_Datatype h, const char *fn,
                          const char *arg);
int mpi_check_type_slow(mpi_comm_t *c, MPI_Datatype h, const char *fn, const char *arg);
static inline int mpi_check_type_arg(mpi_comm_t *c, MPI_Datatype h, const char *fn,
                                     const char *arg)
{
    return __builtin_expect(mpi_dt_is_predefined(h), 1) ? MPI_SUCCESS
                                                        : mpi_check_type_slow(c, h, fn, arg);
}
/* The window and file error objects (kinds `win`, `file`): valid, else
 * MPI_ERR_WIN / MPI_ERR_FILE; out-pointers raise through the object's handler. */
struct rma_win;
int mpi_check_win_slow(MPI_Win h, const char *fn, struct rma_win **out);
/* Inline: MPI_Put and MPI_Get of a few bytes cost about 200 instructions,
 * and a call more here was measured (callgrind) as 8% of them. */
static inline int mpi_check_win(MPI_Win h, const char *fn, struct rma_win **out)
{
    if (__builtin_expect((*out = mpi_handle_direct(MPI_OBJ_WIN, h)) != NULL, 1))
        return MPI_SUCCESS;
    return mpi_check_win_slow(h, fn, out);
}
static inline struct rma_win *mpi_win_fast(MPI_Win h)
{
    return mpi_handle_direct(MPI_OBJ_WIN, h);
}
int mpi_check_win_ptr_arg(struct rma_win *w, const void *p, const char *fn, const char *arg);
int mpi_check_file(MPI_File h, const char *fn, struct ADIOI_FileD **out);
int mpi_check_file_ptr_arg(struct ADIOI_FileD *f, const void *p, const char *fn, const char *arg);
/* Wait for one request and release it as MPI_Wait does (persistent ones
 * become inactive); fills st unless it is MPI_STATUS_IGNORE. Returns the
 * MPI error of the operation (not raised), its message naming fn. */
int mpi_request_complete_one(adi_request_t *r, const char *fn, MPI_Request *handle,
                             MPI_Status *st);
/* The MPI error of an operation that ended with status st (st->error not
 * 0: a new code, not raised, its message naming fn); size: the message's
 * whole size, for a truncation's message. */
int mpi_status_error_code(const adi_status_t *st, size_t size, const char *fn);
/* A request that is already complete with an empty status (MPI_PROC_NULL). */
adi_request_t *mpi_request_null_proc(adi_req_kind_t kind);

/* Persistent operations other than point to point (collectives, partitioned):
 * the request's mpi_ext points to a struct whose first member is a pointer to
 * these operations. start() makes r->inner the active operation; release()
 * frees mpi_ext when the persistent request is freed. */
typedef struct {
    int (*start)(adi_request_t *r, const char *fn);
    void (*release)(adi_request_t *r);
} mpi_persist_ops_t;

/* ---------------------------------------------------------------- status */
/* Inline: a receive from MPI_PROC_NULL fills its status with constants, and
 * the call cost more than the stores (20 instructions per MPI_Recv). */
static inline void mpi_status_set_bytes(MPI_Status *st, MPI_Count bytes, int cancelled)
{
    st->count_lo = (int)(bytes & 0xffffffff);
    st->count_hi_and_cancelled = (int)(((bytes >> 32) << 1) | (cancelled ? 1 : 0));
}
static inline void mpi_status_set(MPI_Status *st, const adi_status_t *as)
{
    if (st == MPI_STATUS_IGNORE || st == NULL)
        return;
    st->MPI_SOURCE = as->source;
    st->MPI_TAG = as->tag;
    mpi_status_set_bytes(st, (MPI_Count)as->bytes, as->cancelled);
}
void mpi_status_set_empty(MPI_Status *st);

/* MPI_Waitall/Testall on the standard ABI's arrays (libmpi_abi.so.1, mpi/abi/),
 * completed in the caller's memory by mpi/request.c: requests are 8 bytes, a
 * user request the MPICH handle zero-extended and MPI_REQUEST_NULL
 * `request_null`; a status is 8 ints (source, tag, error, then the count
 * words). A status whose source, tag and error are plain values (>= 0, 0) is
 * written directly; any other goes through `status_out`, the binding's
 * conversion of sentinels and error codes. */
typedef struct {
    uint64_t request_null;
    void (*status_out)(void *std_status, const MPI_Status *st);
} mpi_std_array_t;
int mpi_waitall_std_impl(int count, void *array_of_requests, void *array_of_statuses,
                         const mpi_std_array_t *conv, const char *fn);
int mpi_testall_std_impl(int count, void *array_of_requests, int *flag, void *array_of_statuses,
                         const mpi_std_array_t *conv, const char *fn);

/* Buffered-send buffers (mpi/pt2pt.c): the process's, a communicator's
 * (MPI 4.1) and a session's (mpi/session.c holds its slot). Attach returns
 * an MPI class and a reason for the caller to raise through its object. */
typedef struct mpi_bbuf mpi_bbuf_t;
int mpi_bbuf_attach(mpi_bbuf_t **slot, void *buffer, MPI_Count size, const char **why);
void mpi_bbuf_detach(mpi_bbuf_t **slot, void *buffer_addr, MPI_Count *size);
void mpi_bbuf_flush(mpi_bbuf_t **slot);
int mpi_bbuf_iflush(mpi_bbuf_t **slot, MPI_Request *request, const char *fn);
mpi_bbuf_t *mpi_session_bbuf(MPI_Session h); /* mpi/session.c */
size_t mpi_status_bytes(const MPI_Status *st);

/* mpi/pt2pt.c: start a persistent point-to-point request (MPI_Start of
 * mpi/request.c), and free the arguments it keeps. */
int mpi_preq_start(adi_request_t *r, const char *fn);
void mpi_preq_free_args(adi_request_t *r);
/* For the MPI_T variables of mpi/mpit.c: partitioned requests started, their
 * partitions and messages (mpi/part.c), and the live sessions (mpi/session.c). */
void mpi_part_stats(unsigned long long *started_out, unsigned long long *partitions_out,
                    unsigned long long *messages_out);
int mpi_session_count(void);

/* Module init/finalize hooks called by MPI_Init/MPI_Finalize in order. */
int mpi_errors_init(void);
int mpi_comm_init_builtin(void);
void mpi_comm_finalize_builtin(void);

#endif
