/*
 * The MPICH-internal hooks that MPICH's own language libraries call:
 * Debian's libmpichfort.so.12 (Fortran: mpif.h, the mpi module) and
 * libmpichcxx.so.12 (the MPI-2 C++ bindings) link against libmpich.so.12
 * and, besides the MPI functions, import ten MPII_ names. With these, a
 * program built with mpif90.mpich or mpicxx.mpich runs on Canal by swapping
 * the library (LD_LIBRARY_PATH), lazily or with LD_BIND_NOW=1.
 *
 * Their signatures and meaning are MPICH 4.0.2's (src/include/
 * mpir_attr_generic.h, mpii_cxxinterface.h, mpii_f77interface.h):
 *   MPII_{Comm,Type,Win}_{set,get}_attr: the attribute functions with the
 *     kind of the caller's value (MPIR_Attr_type: 0 pointer from C/C++,
 *     1 Fortran INTEGER(KIND=MPI_ADDRESS_KIND), 3 Fortran INTEGER of
 *     MPI_Attr_put/get). A Fortran get returns integers: a predefined
 *     attribute's value (MPI_TAG_UB is 0x3fffffff, not its address), a
 *     Fortran-set value as set; C code gets a Fortran-set value by address.
 *   MPII_Keyval_set_proxy: the keyval's copy and delete callbacks are
 *     called through the library's thunks (Fortran's take their arguments
 *     by reference, C++'s build MPI::Comm objects).
 *   MPII_Op_set_cxx, MPII_Errhandler_set_cxx: the user operation or error
 *     handler is a C++ function, called through the thunk given.
 *   MPII_Grequest_set_lang_f77: the generalized request's query, free and
 *     cancel functions are Fortran subroutines (adapters below).
 * The work is done by small entry points of mpi/attr.c, op.c, errors.c and
 * request.c (mpiimpl.h, "language hooks"). These names are exported (as
 * MPICH exports them) and compared by test/abi-check.sh.
 */
#include "mpiimpl.h"
#include "comm_impl.h"
#include "rma/rma.h"

#include <string.h>

#define MPII_HOOK __attribute__((visibility("default")))

MPII_HOOK int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, mpi_attr_kind_t kind);
MPII_HOOK int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag,
                                 mpi_attr_kind_t kind);
MPII_HOOK int MPII_Type_set_attr(MPI_Datatype type, int keyval, void *value,
                                 mpi_attr_kind_t kind);
MPII_HOOK int MPII_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag,
                                 mpi_attr_kind_t kind);
MPII_HOOK int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, mpi_attr_kind_t kind);
MPII_HOOK int MPII_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag,
                                mpi_attr_kind_t kind);
MPII_HOOK void MPII_Keyval_set_proxy(int keyval, mpi_attr_copy_proxy_t *copy_proxy,
                                     mpi_attr_delete_proxy_t *delete_proxy);
MPII_HOOK void MPII_Op_set_cxx(MPI_Op op, void (*opcall)(void));
MPII_HOOK void MPII_Errhandler_set_cxx(MPI_Errhandler errhandler, void (*errcall)(void));
MPII_HOOK void MPII_Grequest_set_lang_f77(MPI_Request greq);

/* The MPI function the user called: Fortran's MPI_Attr_put/get pass the
 * INTEGER kind, its MPI_Comm_set/get_attr the address kind. */
static const char *attr_fn(mpi_attr_kind_t kind, const char *mpi1, const char *mpi2)
{
    return kind == MPI_ATTR_KIND_INT && mpi1 != NULL ? mpi1 : mpi2;
}

static int kind_ok(mpi_attr_kind_t kind)
{
    return kind == MPI_ATTR_KIND_PTR || kind == MPI_ATTR_KIND_AINT || kind == MPI_ATTR_KIND_INT;
}

#define KIND_MSG                                                                                   \
    "attribute kind %d is not MPIR_ATTR_PTR (0), MPIR_ATTR_AINT (1) or MPIR_ATTR_INT (3)"

/* ---------------------------------------------------------------- communicators */
int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, mpi_attr_kind_t kind)
{
    const char *fn = attr_fn(kind, "MPI_Attr_put", "MPI_Comm_set_attr");
    mpi_comm_t *c = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = mpi_check_comm_step(comm, fn, &c)))
        return mpi_result(err);
    if (!kind_ok(kind))
        return mpi_err_raise(c, MPI_ERR_ARG, fn, KIND_MSG, (int)kind);
    err = mpi_attr_set_kind(MPI_OBJ_COMM, comm, &c->attrs, keyval, value, kind, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(c, err, fn);
}

int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag,
                       mpi_attr_kind_t kind)
{
    const char *fn = attr_fn(kind, "MPI_Attr_get", "MPI_Comm_get_attr");
    mpi_comm_t *c = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = mpi_check_comm_step(comm, fn, &c)))
        return mpi_result(err);
    if (!kind_ok(kind))
        return mpi_err_raise(c, MPI_ERR_ARG, fn, KIND_MSG, (int)kind);
    err = mpi_attr_get_kind(MPI_OBJ_COMM, c->attrs, keyval, attribute_val, flag, kind, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(c, err, fn);
}

/* ---------------------------------------------------------------- datatypes */
static int type_attrs(MPI_Datatype type, mpi_attr_kind_t kind, const char *fn,
                      mpi_attr_t ***out)
{
    mpi_attr_t **l = mpi_type_attr_list(type);
    if (l == NULL)
        return mpi_err_fail(NULL, MPI_ERR_TYPE, fn, "datatype=%#x is not a valid datatype%s",
                            (unsigned)type,
                            type == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    if (!kind_ok(kind))
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, KIND_MSG, (int)kind);
    *out = l;
    return MPI_SUCCESS;
}

int MPII_Type_set_attr(MPI_Datatype type, int keyval, void *value, mpi_attr_kind_t kind)
{
    static const char fn[] = "MPI_Type_set_attr";
    mpi_attr_t **l = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = type_attrs(type, kind, fn, &l)))
        return mpi_result(err);
    err = mpi_attr_set_kind(MPI_OBJ_DATATYPE, type, l, keyval, value, kind, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(NULL, err, fn);
}

int MPII_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag,
                       mpi_attr_kind_t kind)
{
    static const char fn[] = "MPI_Type_get_attr";
    mpi_attr_t **l = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = type_attrs(type, kind, fn, &l)))
        return mpi_result(err);
    err = mpi_attr_get_kind(MPI_OBJ_DATATYPE, *l, keyval, attribute_val, flag, kind, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(NULL, err, fn);
}

/* ---------------------------------------------------------------- windows */
/* The window is rma/'s (rma/rma.h): it checks the keyval and answers the
 * predefined attributes from the window itself. */
int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, mpi_attr_kind_t kind)
{
    static const char fn[] = "MPI_Win_set_attr";
    struct rma_win *w = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = rma_win_check(win, fn, &w)) || w == NULL)
        return err; /* (w NULL: the handler cleared the code, which err is) */
    if (!kind_ok(kind))
        return rma_err(w, MPI_ERR_ARG, fn, KIND_MSG, (int)kind);
    return rma_win_attr_set_kind(w, keyval, value, kind, fn);
}

int MPII_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag,
                      mpi_attr_kind_t kind)
{
    static const char fn[] = "MPI_Win_get_attr";
    struct rma_win *w = NULL;
    int err;

    if ((err = mpi_enter(fn)) || (err = rma_win_check(win, fn, &w)) || w == NULL)
        return err; /* (w NULL: the handler cleared the code, which err is) */
    if (!kind_ok(kind))
        return rma_err(w, MPI_ERR_ARG, fn, KIND_MSG, (int)kind);
    if (attribute_val == NULL || flag == NULL)
        return rma_err(w, MPI_ERR_ARG, fn, "%s is NULL",
                       attribute_val == NULL ? "attribute_val" : "flag");
    return rma_win_attr_get_kind(w, keyval, attribute_val, flag, kind, fn);
}

/* ---------------------------------------------------------------- proxies */
/* These four are called right after the object was created (the C++ and
 * Fortran wrappers call MPI_*_create, then the hook); a handle that is not
 * live means that creation failed and was already reported, so there is
 * nothing to mark (MPICH would dereference a NULL object here). */
void MPII_Keyval_set_proxy(int keyval, mpi_attr_copy_proxy_t *copy_proxy,
                           mpi_attr_delete_proxy_t *delete_proxy)
{
    (void)mpi_attr_keyval_set_proxy(keyval, copy_proxy, delete_proxy);
}

void MPII_Op_set_cxx(MPI_Op op, void (*opcall)(void))
{
    (void)mpi_op_set_proxy(op, (mpi_op_proxy_t *)(void *)opcall);
}

void MPII_Errhandler_set_cxx(MPI_Errhandler errhandler, void (*errcall)(void))
{
    (void)mpi_errhandler_set_proxy(errhandler, (mpi_errh_proxy_t *)(void *)errcall);
}

/* ---------------------------------------------------------------- Fortran generalized requests */
/* Fortran subroutines take every argument by reference and return the
 * error in a last INTEGER; extra_state is already the address of the
 * program's INTEGER(KIND=MPI_ADDRESS_KIND) (mpif.h's wrapper passed it).
 * MPI_Fint is int and a Fortran status is MPI_Status's five ints. */
typedef void f_query_fn(void *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_free_fn(void *extra, MPI_Fint *ierr);
typedef void f_cancel_fn(void *extra, MPI_Fint *complete, MPI_Fint *ierr);

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is a C status");

static int f_greq_query(MPI_Grequest_query_function *fn, void *extra, MPI_Status *status)
{
    MPI_Fint fst[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
    memcpy(fst, status, sizeof fst);
    ((f_query_fn *)(void *)fn)(extra, fst, &ierr);
    if (ierr == MPI_SUCCESS)
        memcpy(status, fst, sizeof fst);
    return ierr;
}

static int f_greq_free(MPI_Grequest_free_function *fn, void *extra)
{
    MPI_Fint ierr = MPI_SUCCESS;
    ((f_free_fn *)(void *)fn)(extra, &ierr);
    return ierr;
}

static int f_greq_cancel(MPI_Grequest_cancel_function *fn, void *extra, int complete)
{
    MPI_Fint ierr = MPI_SUCCESS, fcomplete = complete != 0;
    ((f_cancel_fn *)(void *)fn)(extra, &fcomplete, &ierr);
    return ierr;
}

static const mpi_greq_lang_t fortran_greq = {f_greq_query, f_greq_free, f_greq_cancel};

void MPII_Grequest_set_lang_f77(MPI_Request greq)
{
    (void)mpi_greq_set_lang(greq, &fortran_greq);
}
