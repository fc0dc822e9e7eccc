/*
 * The Fortran 77 bindings that the generator (gen_f77.py) cannot write:
 * those that take Fortran procedures (user reductions, error handlers,
 * attribute copy/delete functions, generalized-request callbacks, data
 * representations), attribute values of Fortran kind, base addresses
 * returned as INTEGER(KIND=MPI_ADDRESS_KIND), string arrays (spawn),
 * functions that return a value (MPI_WTIME), and the helpers of f77.h.
 *
 * Fortran procedures pass every argument by reference. A reduction or an
 * error handler has the C signature already (its C arguments are pointers)
 * and is handed to libmpi as is. Attribute and generalized-request
 * callbacks take values in C, so libmpi gets a C trampoline here whose
 * extra_state is a record holding the Fortran procedures and the user's
 * extra_state. The other names of these functions (mpi_x_, MPI_X, ...)
 * are generated with the rest (CANAL_F77_ALIAS).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bindings/fortran/f77.h"

/* ---------------------------------------------------------------- common blocks */
/* (aligned as gfortran aligns common blocks: the mpi module, compiled into
 * the library, has them too) */
CANAL_F77_API __attribute__((aligned(16))) canal_f77_priv1_t mpipriv1_;
CANAL_F77_API __attribute__((aligned(16))) canal_f77_priv2_t mpipriv2_;
CANAL_F77_API __attribute__((aligned(16))) canal_f77_privc_t mpiprivc_;
CANAL_F77_API __attribute__((aligned(16))) MPI_Fint mpifcmb5_;
CANAL_F77_API __attribute__((aligned(16))) MPI_Fint mpifcmb9_;
/* The same special values for C code that calls Fortran (MPICH exports them
 * from its Fortran library too). */
CANAL_F77_API void *MPI_F_ARGV_NULL = mpiprivc_.argv_null;
CANAL_F77_API void *MPI_F_ARGVS_NULL = mpiprivc_.argvs_null;
/* MPICH's names for the addresses of mpif.h's special values, set before
 * any call by mpirinitc_ in MPICH (its Fortran code passes the common
 * blocks): here they are known at link time, so MPIR_F_NeedInit is 0 and
 * mpirinitf_ has nothing to do; mpirinitc_ records what it is given, as
 * MPICH's does. The bindings compare with the common blocks themselves. */
CANAL_F77_API int MPIR_F_NeedInit = 0;
CANAL_F77_API void *MPIR_F_MPI_BOTTOM = &mpipriv1_.bottom;
CANAL_F77_API void *MPIR_F_MPI_IN_PLACE = &mpipriv1_.in_place;
CANAL_F77_API void *MPIR_F_MPI_UNWEIGHTED = &mpifcmb5_;
CANAL_F77_API void *MPIR_F_MPI_WEIGHTS_EMPTY = &mpifcmb9_;
/* The C values of MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (MPICH's mpi_f08
 * compares with them), set when the library is loaded: they are addresses
 * in libmpi. */
CANAL_F77_API int *MPIR_C_MPI_UNWEIGHTED;
CANAL_F77_API int *MPIR_C_MPI_WEIGHTS_EMPTY;
__attribute__((constructor)) static void canal_f77_c_weights(void)
{
    MPIR_C_MPI_UNWEIGHTED = MPI_UNWEIGHTED;
    MPIR_C_MPI_WEIGHTS_EMPTY = MPI_WEIGHTS_EMPTY;
}

CANAL_F77_API void mpirinitc_(void *si, void *ssi, void *bt, void *ip, void *uw, void *ecsi,
                              void *an, void *asn, void *we, size_t an_len, size_t asn_len)
{
    (void)si, (void)ssi, (void)ecsi, (void)an, (void)asn, (void)an_len, (void)asn_len;
    MPIR_F_MPI_BOTTOM = bt;
    MPIR_F_MPI_IN_PLACE = ip;
    MPIR_F_MPI_UNWEIGHTED = uw;
    MPIR_F_MPI_WEIGHTS_EMPTY = we;
}
CANAL_F77_API void mpirinitf_(void)
{
    MPIR_F_NeedInit = 0;
}
CANAL_F77_API MPI_Fint *MPI_F_ERRCODES_IGNORE = mpipriv2_.errcodes_ignore;

/* ---------------------------------------------------------------- strings */
char *canal_f77_str_in(const char *s, size_t len)
{
    char *c;
    while (len > 0 && s[len - 1] == ' ')
        len--;
    while (len > 0 && *s == ' ') { /* leading blanks are not part of names either */
        s++;
        len--;
    }
    c = malloc(len + 1);
    if (c != NULL) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

char *canal_f77_str_buf(size_t len)
{
    /* The C functions write up to their MPI_MAX_* (at most
     * MPI_MAX_LIBRARY_VERSION_STRING) whatever the Fortran length. */
    return calloc(len + MPI_MAX_LIBRARY_VERSION_STRING + 1, 1);
}

void canal_f77_str_out(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int canal_f77_no_mem(const char *fn)
{
    int code = MPI_ERR_NO_MEM;
    (void)fn;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

/* ---------------------------------------------------------------- values */
CANAL_F77_API void pmpi_init_(MPI_Fint *ierror)
{
    *ierror = MPI_Init(NULL, NULL);
}

CANAL_F77_API void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = MPI_Init_thread(NULL, NULL, *required, provided);
}

CANAL_F77_API double pmpi_wtime_(void)
{
    return MPI_Wtime();
}

CANAL_F77_API double pmpi_wtick_(void)
{
    return MPI_Wtick();
}

CANAL_F77_API MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp)
{
    return MPI_Aint_add(*base, *disp);
}

CANAL_F77_API MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2)
{
    return MPI_Aint_diff(*addr1, *addr2);
}

/* MPI_PCONTROL(LEVEL) has no ierror. */
CANAL_F77_API void pmpi_pcontrol_(MPI_Fint *level)
{
    MPI_Pcontrol(*level);
}

/* MPI_F_SYNC_REG(BUF): a call the compiler cannot see through, so that it
 * keeps BUF in memory across it (MPI 4.0 section 19.1.17); nothing to do. */
CANAL_F77_API void pmpi_f_sync_reg_(void *buf)
{
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

/* MPI_ADDRESS (MPI-1) returns the address in a default INTEGER. */
CANAL_F77_API void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    *ierror = MPI_Get_address(canal_f77_buf(location), &a);
    if (*ierror != MPI_SUCCESS)
        return;
    if (a != (MPI_Aint)(MPI_Fint)a) {
        *ierror = MPI_ERR_ARG;
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, *ierror);
        return;
    }
    *address = (MPI_Fint)a;
}

/* MPI_INFO_CREATE_ENV(INFO, IERROR): no command line in Fortran. */
CANAL_F77_API void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    *ierror = MPI_Info_create_env(0, NULL, (MPI_Info *)info);
}

/* ---------------------------------------------------------------- base addresses */
/* BASEPTR is INTEGER(KIND=MPI_ADDRESS_KIND): the C call stores the address in it. */
CANAL_F77_API void pmpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr,
                                   MPI_Fint *ierror)
{
    *ierror = MPI_Alloc_mem(*size, (MPI_Info)*info, (void *)baseptr);
}

CANAL_F77_API void pmpi_free_mem_(void *base, MPI_Fint *ierror)
{
    *ierror = MPI_Free_mem(base);
}

CANAL_F77_API void pmpi_win_allocate_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info,
                                      MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win,
                                      MPI_Fint *ierror)
{
    *ierror = MPI_Win_allocate(*size, *disp_unit, (MPI_Info)*info, (MPI_Comm)*comm,
                               (void *)baseptr, (MPI_Win *)win);
}

CANAL_F77_API void pmpi_win_allocate_shared_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info,
                                             MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win,
                                             MPI_Fint *ierror)
{
    *ierror = MPI_Win_allocate_shared(*size, *disp_unit, (MPI_Info)*info, (MPI_Comm)*comm,
                                      (void *)baseptr, (MPI_Win *)win);
}

CANAL_F77_API void pmpi_win_shared_query_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
                                          MPI_Fint *disp_unit, MPI_Aint *baseptr,
                                          MPI_Fint *ierror)
{
    *ierror = MPI_Win_shared_query((MPI_Win)*win, *rank, size, disp_unit, (void *)baseptr);
}

/* MPI-1's removed datatype functions have INTEGER displacements and
 * extents in Fortran (as in MPICH's library; MPI-2 replaced them with the
 * INTEGER(KIND=MPI_ADDRESS_KIND) ones). An extent that does not fit an
 * INTEGER is an MPI_ERR_ARG error. */
static void aint_to_fint(MPI_Aint a, MPI_Fint *out, MPI_Fint *ierror)
{
    if (*ierror != MPI_SUCCESS)
        return;
    if (a != (MPI_Aint)(MPI_Fint)a) {
        *ierror = MPI_ERR_ARG;
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, *ierror);
        return;
    }
    *out = (MPI_Fint)a;
}
CANAL_F77_API void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    *ierror = MPI_Type_extent((MPI_Datatype)*datatype, &a);
    aint_to_fint(a, extent, ierror);
}
CANAL_F77_API void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    *ierror = MPI_Type_lb((MPI_Datatype)*datatype, &a);
    aint_to_fint(a, displacement, ierror);
}
CANAL_F77_API void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    *ierror = MPI_Type_ub((MPI_Datatype)*datatype, &a);
    aint_to_fint(a, displacement, ierror);
}
CANAL_F77_API void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                                      MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    *ierror = MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride, (MPI_Datatype)*oldtype,
                               (MPI_Datatype *)newtype);
}
/* The INTEGER displacements as MPI_Aint (NULL and MPI_ERR_NO_MEM if no memory). */
static MPI_Aint *fint_displs(MPI_Fint count, const MPI_Fint *d, MPI_Fint *ierror)
{
    MPI_Aint *a = malloc((count > 0 ? (size_t)count : 1) * sizeof(*a));
    if (a == NULL) {
        *ierror = canal_f77_no_mem("MPI_TYPE_HINDEXED/MPI_TYPE_STRUCT");
        return NULL;
    }
    for (MPI_Fint i = 0; i < count; i++)
        a[i] = d[i];
    return a;
}
CANAL_F77_API void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                                       MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Aint *a = fint_displs(*count, displs, ierror);
    if (a == NULL)
        return;
    *ierror = MPI_Type_hindexed(*count, blocklengths, a, (MPI_Datatype)*oldtype,
                                (MPI_Datatype *)newtype);
    free(a);
}
CANAL_F77_API void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                                     MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Aint *a = fint_displs(*count, displs, ierror);
    if (a == NULL)
        return;
    *ierror = MPI_Type_struct(*count, blocklengths, a, (MPI_Datatype *)types,
                              (MPI_Datatype *)newtype);
    free(a);
}

/* MPI_INFO_GET_STRING: BUFLEN counts characters without C's NUL, in and
 * out (as in MPICH); with BUFLEN 0 the value is left as it is, otherwise
 * the first BUFLEN characters are copied and the rest is blank. */
CANAL_F77_API void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                                         MPI_Fint *flag, MPI_Fint *ierror, size_t key_len,
                                         size_t value_len)
{
    char *key_c = canal_f77_str_in(key, key_len), *value_c = NULL;
    int want = *buflen > 0 ? *buflen + 1 : 0, n = want;
    if (want > 0)
        value_c = calloc((size_t)want, 1);
    if (key_c == NULL || (want > 0 && value_c == NULL)) {
        *ierror = canal_f77_no_mem("MPI_INFO_GET_STRING");
        goto done;
    }
    *ierror = MPI_Info_get_string((MPI_Info)*info, key_c, &n, value_c, flag);
    if (*ierror != MPI_SUCCESS || !*flag)
        goto done;
    if (want > 0)
        canal_f77_str_out(value, value_len < (size_t)*buflen ? value_len : (size_t)*buflen, value_c);
    if (want > 0 && value_len > (size_t)*buflen)
        memset(value + *buflen, ' ', value_len - (size_t)*buflen);
    *buflen = n - 1;
done:
    free(key_c);
    free(value_c);
}

/* The address of the detached buffer means nothing to Fortran. */
CANAL_F77_API void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    void *addr = NULL;
    (void)buffer_addr;
    *ierror = MPI_Buffer_detach(&addr, size);
}

/* ---------------------------------------------------------------- procedures by reference */
/* A Fortran reduction SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE) is a
 * MPI_User_function; COMMUTE is a LOGICAL (1/0). */
CANAL_F77_API void pmpi_op_create_(MPI_User_function *user_fn, MPI_Fint *commute, MPI_Fint *op,
                                   MPI_Fint *ierror)
{
    *ierror = MPI_Op_create(user_fn, *commute != 0, (MPI_Op *)op);
}

/* A Fortran handler SUBROUTINE H(OBJ, ERRCODE) is called as the C one. */
CANAL_F77_API void pmpi_comm_create_errhandler_(MPI_Comm_errhandler_function *fn,
                                                MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = MPI_Comm_create_errhandler(fn, (MPI_Errhandler *)errhandler);
}

CANAL_F77_API void pmpi_win_create_errhandler_(MPI_Win_errhandler_function *fn,
                                               MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = MPI_Win_create_errhandler(fn, (MPI_Errhandler *)errhandler);
}

CANAL_F77_API void pmpi_session_create_errhandler_(MPI_Session_errhandler_function *fn,
                                                   MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = MPI_Session_create_errhandler(fn, (MPI_Errhandler *)errhandler);
}

/* A file handler gets the Fortran file handle (an integer), not a C MPI_File:
 * libmpi calls one trampoline, which finds the Fortran procedure of the
 * file's handler. A freed handler's handle may name a new one later, so the
 * newest registration of a handle wins. */
typedef void(canal_f77_file_errh_t)(MPI_Fint *file, MPI_Fint *code);
typedef struct {
    canal_f77_file_errh_t *fn;
    MPI_Errhandler handle;
} f77_file_errh_t;
static f77_file_errh_t *file_errh;
static int file_errh_count, file_errh_cap;

static void file_errh_trampoline(MPI_File *file, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Fint f = MPI_File_c2f(*file);
    if (MPI_File_get_errhandler(*file, &eh) != MPI_SUCCESS)
        return;
    for (int i = file_errh_count - 1; i >= 0; i--)
        if (file_errh[i].handle == eh) {
            MPI_Errhandler_free(&eh);
            file_errh[i].fn(&f, code);
            return;
        }
    MPI_Errhandler_free(&eh);
}

CANAL_F77_API void pmpi_file_create_errhandler_(canal_f77_file_errh_t *fn, MPI_Fint *errhandler,
                                                MPI_Fint *ierror)
{
    MPI_Errhandler eh;
    if (file_errh_count == file_errh_cap) {
        int cap = file_errh_cap ? 2 * file_errh_cap : 16;
        f77_file_errh_t *n = realloc(file_errh, sizeof(*n) * (size_t)cap);
        if (n == NULL) {
            *ierror = canal_f77_no_mem("MPI_FILE_CREATE_ERRHANDLER");
            return;
        }
        file_errh = n;
        file_errh_cap = cap;
    }
    *ierror = MPI_File_create_errhandler(file_errh_trampoline, &eh);
    if (*ierror != MPI_SUCCESS)
        return;
    file_errh[file_errh_count].fn = fn;
    file_errh[file_errh_count++].handle = eh;
    *errhandler = (MPI_Fint)eh;
}

CANAL_F77_API void pmpi_errhandler_create_(MPI_Comm_errhandler_function *fn, MPI_Fint *errhandler,
                                           MPI_Fint *ierror)
{
    *ierror = MPI_Comm_create_errhandler(fn, (MPI_Errhandler *)errhandler);
}

/* ---------------------------------------------------------------- attributes */
/* Fortran copy and delete procedures of communicator, datatype and window
 * keyvals (and MPI-1's MPI_KEYVAL_CREATE):
 *   SUBROUTINE COPY(OLDOBJ, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
 *                   ATTRIBUTE_VAL_OUT, FLAG, IERROR)
 *   SUBROUTINE DELETE(OBJ, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR)
 * with attribute values and extra_state INTEGER(KIND=MPI_ADDRESS_KIND)
 * (default INTEGER for MPI-1's keyvals). libmpi stores a Fortran
 * attribute's value as the void * whose bits are the integer. */
typedef void(canal_f77_copy_t)(MPI_Fint *oldobj, MPI_Fint *keyval, void *extra, void *in,
                               void *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void(canal_f77_delete_t)(MPI_Fint *obj, MPI_Fint *keyval, void *val, void *extra,
                                 MPI_Fint *ierr);

/* The predefined procedures of mpif.h (MPI_COMM_NULL_COPY_FN ...): Fortran
 * programs pass their addresses; called directly they do what they say. */
#define F77_PREDEF(lname, uname, body)                                                         \
    CANAL_F77_API void p##lname##_(MPI_Fint *oldobj, MPI_Fint *keyval, void *extra, void *in,  \
                                   void *out, MPI_Fint *flag, MPI_Fint *ierr)                  \
    {                                                                                          \
        (void)oldobj;                                                                          \
        (void)keyval;                                                                          \
        (void)extra;                                                                           \
        body;                                                                                  \
        *ierr = MPI_SUCCESS;                                                                   \
    }
#define F77_NULL_COPY (void)in, (void)out, *flag = 0
#define F77_DUP memcpy(out, in, sizeof(MPI_Aint)), *flag = 1
F77_PREDEF(mpi_comm_null_copy_fn, MPI_COMM_NULL_COPY_FN, F77_NULL_COPY)
F77_PREDEF(mpi_comm_dup_fn, MPI_COMM_DUP_FN, F77_DUP)
F77_PREDEF(mpi_type_null_copy_fn, MPI_TYPE_NULL_COPY_FN, F77_NULL_COPY)
F77_PREDEF(mpi_type_dup_fn, MPI_TYPE_DUP_FN, F77_DUP)
F77_PREDEF(mpi_win_null_copy_fn, MPI_WIN_NULL_COPY_FN, F77_NULL_COPY)
F77_PREDEF(mpi_win_dup_fn, MPI_WIN_DUP_FN, F77_DUP)
F77_PREDEF(mpi_null_copy_fn, MPI_NULL_COPY_FN, F77_NULL_COPY)
#undef F77_NULL_COPY
/* MPI-1's MPI_DUP_FN copies a default INTEGER. */
CANAL_F77_API void pmpi_dup_fn_(MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                                MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    (void)oldobj;
    (void)keyval;
    (void)extra;
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
#undef F77_DUP
#undef F77_PREDEF

static void null_delete(MPI_Fint *obj, MPI_Fint *keyval, void *val, void *extra, MPI_Fint *ierr)
{
    (void)obj;
    (void)keyval;
    (void)val;
    (void)extra;
    *ierr = MPI_SUCCESS;
}
CANAL_F77_API void pmpi_comm_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *r)
{
    null_delete(o, k, v, e, r);
}
CANAL_F77_API void pmpi_type_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *r)
{
    null_delete(o, k, v, e, r);
}
CANAL_F77_API void pmpi_win_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *r)
{
    null_delete(o, k, v, e, r);
}
CANAL_F77_API void pmpi_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *r)
{
    null_delete(o, k, v, e, r);
}
CANAL_F77_API void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                                            void *filebuf, MPI_Offset *position, void *extra,
                                            MPI_Fint *ierr)
{
    (void)userbuf;
    (void)datatype;
    (void)count;
    (void)filebuf;
    (void)position;
    (void)extra;
    *ierr = MPI_SUCCESS;
}

/* One Fortran keyval: its procedures and the user's extra_state, which the
 * procedures get by reference (so the record keeps it). */
typedef struct {
    canal_f77_copy_t *copy;
    canal_f77_delete_t *del;
    int mpi1; /* MPI_KEYVAL_CREATE: default-INTEGER values and extra_state */
    MPI_Aint extra;
} f77_keyval_t;

static int f77_copy_call(f77_keyval_t *k, MPI_Fint oldobj, int keyval, void *in, void *out,
                         int *flag)
{
    MPI_Fint fk = keyval, fflag = 0, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint vin = (MPI_Fint)(intptr_t)in, vout = 0, extra = (MPI_Fint)k->extra;
        k->copy(&oldobj, &fk, &extra, &vin, &vout, &fflag, &ierr);
        if (ierr == MPI_SUCCESS && fflag)
            *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint vin = (MPI_Aint)(intptr_t)in, vout = 0;
        k->copy(&oldobj, &fk, &k->extra, &vin, &vout, &fflag, &ierr);
        if (ierr == MPI_SUCCESS && fflag)
            *(void **)out = (void *)(intptr_t)vout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int f77_delete_call(f77_keyval_t *k, MPI_Fint obj, int keyval, void *val)
{
    MPI_Fint fk = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint v = (MPI_Fint)(intptr_t)val, extra = (MPI_Fint)k->extra;
        k->del(&obj, &fk, &v, &extra, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)(intptr_t)val;
        k->del(&obj, &fk, &v, &k->extra, &ierr);
    }
    return ierr;
}

static int comm_copy_tr(MPI_Comm o, int kv, void *x, void *in, void *out, int *flag)
{
    return f77_copy_call(x, (MPI_Fint)o, kv, in, out, flag);
}
static int comm_delete_tr(MPI_Comm o, int kv, void *val, void *x)
{
    return f77_delete_call(x, (MPI_Fint)o, kv, val);
}
static int type_copy_tr(MPI_Datatype o, int kv, void *x, void *in, void *out, int *flag)
{
    return f77_copy_call(x, (MPI_Fint)o, kv, in, out, flag);
}
static int type_delete_tr(MPI_Datatype o, int kv, void *val, void *x)
{
    return f77_delete_call(x, (MPI_Fint)o, kv, val);
}
static int win_copy_tr(MPI_Win o, int kv, void *x, void *in, void *out, int *flag)
{
    return f77_copy_call(x, (MPI_Fint)o, kv, in, out, flag);
}
static int win_delete_tr(MPI_Win o, int kv, void *val, void *x)
{
    return f77_delete_call(x, (MPI_Fint)o, kv, val);
}

/* The trampolines above are the C callbacks libmpi knows; the proxies
 * (MPII_Keyval_set_proxy, MPICH's ABI) make libmpi call them with the raw
 * stored word whatever its kind, so that a Fortran procedure gets a value
 * set from Fortran as that integer (libmpi gives C callbacks an integer
 * kind by address) and a C pointer as its address. */
typedef int(f77_copy_proxy_t)(void *user_fn, int handle, int keyval, void *extra, int kind,
                              void *value, void **newval, int *flag);
typedef int(f77_delete_proxy_t)(void *user_fn, int handle, int keyval, int kind, void *value,
                                void *extra);
void MPII_Keyval_set_proxy(int keyval, f77_copy_proxy_t *copy_proxy,
                           f77_delete_proxy_t *delete_proxy);

static int f77_copy_proxy(void *user_fn, int handle, int keyval, void *extra, int kind, void *value,
                          void **newval, int *flag)
{
    (void)user_fn;
    (void)kind;
    return f77_copy_call(extra, (MPI_Fint)handle, keyval, value, newval, flag);
}

static int f77_delete_proxy(void *user_fn, int handle, int keyval, int kind, void *value,
                            void *extra)
{
    (void)user_fn;
    (void)kind;
    return f77_delete_call(extra, (MPI_Fint)handle, keyval, value);
}

/* The record of a new keyval, or NULL (*ierror set) when out of memory.
 * Records live as long as the program: MPI lets attributes outlive the
 * keyval's MPI_*_FREE_KEYVAL, and the copy/delete calls need them. */
static f77_keyval_t *f77_keyval_new(canal_f77_copy_t *copy, canal_f77_delete_t *del, int mpi1,
                                    MPI_Aint extra, MPI_Fint *ierror)
{
    f77_keyval_t *k = malloc(sizeof(*k));
    if (k == NULL) {
        *ierror = canal_f77_no_mem("MPI_KEYVAL_CREATE");
        return NULL;
    }
    k->copy = copy;
    k->del = del;
    k->mpi1 = mpi1;
    k->extra = extra;
    return k;
}

#define F77_KEYVAL_CREATE(lname, ctype, copy_tr, delete_tr, cfun)                                  \
    CANAL_F77_API void p##lname##_(canal_f77_copy_t *copy, canal_f77_delete_t *del,                \
                                   MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror)            \
    {                                                                                              \
        f77_keyval_t *k = f77_keyval_new(copy, del, 0, *extra, ierror);                            \
        if (k == NULL)                                                                             \
            return;                                                                                \
        *ierror = cfun(copy_tr, delete_tr, keyval, k);                                             \
        if (*ierror != MPI_SUCCESS)                                                                \
            free(k);                                                                               \
        else                                                                                       \
            MPII_Keyval_set_proxy(*keyval, f77_copy_proxy, f77_delete_proxy);                      \
    }
/* The predefined procedures are called through the trampolines like any
 * other, which gives them their meaning (no copy, or a copy of the value). */
F77_KEYVAL_CREATE(mpi_comm_create_keyval, MPI_Comm, comm_copy_tr, comm_delete_tr,
                  MPI_Comm_create_keyval)
F77_KEYVAL_CREATE(mpi_type_create_keyval, MPI_Datatype, type_copy_tr, type_delete_tr,
                  MPI_Type_create_keyval)
F77_KEYVAL_CREATE(mpi_win_create_keyval, MPI_Win, win_copy_tr, win_delete_tr,
                  MPI_Win_create_keyval)
#undef F77_KEYVAL_CREATE

/* MPI-1: MPI_KEYVAL_CREATE(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR), default INTEGERs. */
CANAL_F77_API void pmpi_keyval_create_(canal_f77_copy_t *copy, canal_f77_delete_t *del,
                                       MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *ierror)
{
    f77_keyval_t *k = f77_keyval_new(copy, del, 1, *extra, ierror);
    if (k == NULL)
        return;
    *ierror = MPI_Comm_create_keyval(comm_copy_tr, comm_delete_tr, keyval, k);
    if (*ierror != MPI_SUCCESS)
        free(k);
    else
        MPII_Keyval_set_proxy(*keyval, f77_copy_proxy, f77_delete_proxy);
}

/* libmpi's attribute-kind hooks (MPICH's ABI, as libmpichfort uses them,
 * mpi/mpich_lang.c): a Fortran value is stored as an integer of its kind
 * (MPIR_ATTR_AINT 1, MPI-1's INTEGER MPIR_ATTR_INT 3), so that C reads it
 * by address and C callbacks get its address (MPI 4.0 section 19.3.7); a
 * Fortran get returns the stored word as an integer (a C-set pointer as its
 * address) and a predefined attribute's value itself. libmpi accepts
 * Fortran's predefined keyvals (C keyval + 1). */
enum { F77_ATTR_AINT = 1, F77_ATTR_INT = 3 };
int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, int kind);
int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag, int kind);
int MPII_Type_set_attr(MPI_Datatype type, int keyval, void *value, int kind);
int MPII_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag, int kind);
int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, int kind);
int MPII_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag, int kind);

CANAL_F77_API void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                                       MPI_Fint *ierror)
{
    *ierror = MPII_Comm_set_attr((MPI_Comm)*comm, *keyval, (void *)(intptr_t)*val, F77_ATTR_AINT);
}

CANAL_F77_API void pmpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val,
                                       MPI_Fint *ierror)
{
    *ierror =
        MPII_Type_set_attr((MPI_Datatype)*type, *keyval, (void *)(intptr_t)*val, F77_ATTR_AINT);
}

CANAL_F77_API void pmpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                                      MPI_Fint *ierror)
{
    *ierror = MPII_Win_set_attr((MPI_Win)*win, *keyval, (void *)(intptr_t)*val, F77_ATTR_AINT);
}

CANAL_F77_API void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = MPII_Comm_set_attr((MPI_Comm)*comm, *keyval, (void *)(intptr_t)*val, F77_ATTR_INT);
}

CANAL_F77_API void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val,
                                       MPI_Fint *flag, MPI_Fint *ierror)
{
    intptr_t v = 0;
    int f = 0;
    *ierror = MPII_Comm_get_attr((MPI_Comm)*comm, *keyval, &v, &f, F77_ATTR_AINT);
    if (*ierror == MPI_SUCCESS) {
        *flag = f != 0;
        if (f)
            *val = (MPI_Aint)v;
    }
}

CANAL_F77_API void pmpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val,
                                       MPI_Fint *flag, MPI_Fint *ierror)
{
    intptr_t v = 0;
    int f = 0;
    *ierror = MPII_Type_get_attr((MPI_Datatype)*type, *keyval, &v, &f, F77_ATTR_AINT);
    if (*ierror == MPI_SUCCESS) {
        *flag = f != 0;
        if (f)
            *val = (MPI_Aint)v;
    }
}

CANAL_F77_API void pmpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val,
                                      MPI_Fint *flag, MPI_Fint *ierror)
{
    intptr_t v = 0;
    int f = 0;
    *ierror = MPII_Win_get_attr((MPI_Win)*win, *keyval, &v, &f, F77_ATTR_AINT);
    if (*ierror == MPI_SUCCESS) {
        *flag = f != 0;
        if (f)
            *val = (MPI_Aint)v;
    }
}

/* MPI-1: a default INTEGER value (a wider one is truncated, as MPICH). */
CANAL_F77_API void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                                  MPI_Fint *ierror)
{
    intptr_t v = 0;
    int f = 0;
    *ierror = MPII_Comm_get_attr((MPI_Comm)*comm, *keyval, &v, &f, F77_ATTR_INT);
    if (*ierror == MPI_SUCCESS) {
        *flag = f != 0;
        if (f)
            *val = (MPI_Fint)v;
    }
}

/* ---------------------------------------------------------------- generalized requests */
/* SUBROUTINE QUERY(EXTRA_STATE, STATUS, IERROR), FREE(EXTRA_STATE, IERROR),
 * CANCEL(EXTRA_STATE, COMPLETE, IERROR); EXTRA_STATE is ADDRESS_KIND. */
typedef void(f77_greq_query_t)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void(f77_greq_free_t)(MPI_Aint *extra, MPI_Fint *ierr);
typedef void(f77_greq_cancel_t)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);
typedef struct {
    f77_greq_query_t *query;
    f77_greq_free_t *free_fn;
    f77_greq_cancel_t *cancel;
    MPI_Aint *extra; /* the caller's EXTRA_STATE variable itself, as MPICH passes it */
} f77_greq_t;

static int greq_query_tr(void *x, MPI_Status *status)
{
    f77_greq_t *g = x;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(g->extra, (MPI_Fint *)(void *)status, &ierr);
    return ierr;
}

static int greq_free_tr(void *x)
{
    f77_greq_t *g = x;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free_fn(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel_tr(void *x, int complete)
{
    f77_greq_t *g = x;
    MPI_Fint ierr = MPI_SUCCESS, c = complete != 0;
    g->cancel(g->extra, &c, &ierr);
    return ierr;
}

CANAL_F77_API void pmpi_grequest_start_(f77_greq_query_t *query, f77_greq_free_t *free_fn,
                                        f77_greq_cancel_t *cancel, MPI_Aint *extra,
                                        MPI_Fint *request, MPI_Fint *ierror)
{
    f77_greq_t *g = malloc(sizeof(*g));
    if (g == NULL) {
        *ierror = canal_f77_no_mem("MPI_GREQUEST_START");
        return;
    }
    g->query = query;
    g->free_fn = free_fn;
    g->cancel = cancel;
    g->extra = extra;
    *ierror = MPI_Grequest_start(greq_query_tr, greq_free_tr, greq_cancel_tr, g,
                                 (MPI_Request *)request);
    if (*ierror != MPI_SUCCESS)
        free(g);
}

/* ---------------------------------------------------------------- data representations */
/* The Fortran procedures of a data representation are called through C
 * trampolines whose extra_state is a record of them and the user's
 * extra_state. A conversion procedure has C's arguments by reference (the
 * buffers are addresses either way: <type> BUF(*) in mpif.h, TYPE(C_PTR),
 * VALUE in mpi_f08); MPI_CONVERSION_FN_NULL stays C's null conversion. */
typedef void(f77_extent_t)(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);
typedef void(f77_conv_t)(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                         MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef struct {
    f77_extent_t *extent;
    f77_conv_t *read, *write;
    MPI_Aint extra;
} f77_datarep_t;

static int datarep_extent_tr(MPI_Datatype dt, MPI_Aint *extent, void *x)
{
    f77_datarep_t *d = x;
    MPI_Fint fdt = (MPI_Fint)dt, ierr = MPI_SUCCESS;
    d->extent(&fdt, extent, &d->extra, &ierr);
    return ierr;
}

static int datarep_conv(f77_conv_t *fn, void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                        MPI_Offset position, f77_datarep_t *d)
{
    MPI_Fint fdt = (MPI_Fint)dt, fcount = count, ierr = MPI_SUCCESS;
    fn(userbuf, &fdt, &fcount, filebuf, &position, &d->extra, &ierr);
    return ierr;
}
static int datarep_read_tr(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                           MPI_Offset position, void *x)
{
    f77_datarep_t *d = x;
    return datarep_conv(d->read, userbuf, dt, count, filebuf, position, d);
}
static int datarep_write_tr(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                            MPI_Offset position, void *x)
{
    f77_datarep_t *d = x;
    return datarep_conv(d->write, userbuf, dt, count, filebuf, position, d);
}

CANAL_F77_API void pmpi_register_datarep_(char *datarep, f77_conv_t *read_fn, f77_conv_t *write_fn,
                                          f77_extent_t *extent_fn, MPI_Aint *extra,
                                          MPI_Fint *ierror, size_t datarep_len)
{
    char *name;
    f77_datarep_t *d;
    void *null_fn = (void *)pmpi_conversion_fn_null_;
    name = canal_f77_str_in(datarep, datarep_len);
    d = malloc(sizeof(*d));
    if (name == NULL || d == NULL) {
        free(name);
        free(d);
        *ierror = canal_f77_no_mem("MPI_REGISTER_DATAREP");
        return;
    }
    d->extent = extent_fn;
    d->read = read_fn;
    d->write = write_fn;
    d->extra = *extra;
    *ierror = MPI_Register_datarep(name,
                                   (void *)read_fn == null_fn ? MPI_CONVERSION_FN_NULL : datarep_read_tr,
                                   (void *)write_fn == null_fn ? MPI_CONVERSION_FN_NULL
                                                               : datarep_write_tr,
                                   datarep_extent_tr, d);
    if (*ierror != MPI_SUCCESS)
        free(d);
    free(name);
}

/* ---------------------------------------------------------------- spawn */
/* A Fortran argument list: CHARACTER*(*) ARGV(*) ended by a blank element
 * (column `col` of a count x * array for MPI_COMM_SPAWN_MULTIPLE), or
 * MPI_ARGV_NULL. Returns a NULL-terminated C argv (malloc'ed), *out NULL
 * for MPI_ARGV_NULL; MPI error class on failure. */
/* An argument of a spawned program: trailing blanks go; leading ones too
 * from mpif.h/use mpi, but mpi_f08 keeps them (both as in MPICH: its
 * f77/spawn/spawnargvf expects " Ss" to arrive as "Ss", its
 * f08/spawn/spawnargvf90 as " Ss"). */
static char *f77_arg_in(const char *s, size_t len, int keep_leading)
{
    char *c;
    if (!keep_leading)
        return canal_f77_str_in(s, len);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    c = malloc(len + 1);
    if (c != NULL) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

static int f77_argv(const char *a, size_t len, size_t stride_elems, size_t col, int keep_leading,
                    char ***out)
{
    size_t n = 0, i;
    char **v;
    *out = NULL;
    if (a == mpiprivc_.argv_null || a == mpiprivc_.argvs_null)
        return MPI_SUCCESS;
    for (;;) {
        const char *e = a + (col + n * stride_elems) * len;
        size_t k = 0;
        while (k < len && e[k] == ' ')
            k++;
        if (k == len)
            break;
        n++;
    }
    v = calloc(n + 1, sizeof(*v));
    if (v == NULL)
        return MPI_ERR_NO_MEM;
    for (i = 0; i < n; i++)
        if ((v[i] = f77_arg_in(a + (col + i * stride_elems) * len, len, keep_leading)) == NULL)
            break;
    if (i < n) {
        while (i > 0)
            free(v[--i]);
        free(v);
        return MPI_ERR_NO_MEM;
    }
    *out = v;
    return MPI_SUCCESS;
}

static void f77_argv_free(char **v)
{
    if (v == NULL)
        return;
    for (char **p = v; *p != NULL; p++)
        free(*p);
    free(v);
}

void canal_f77_comm_spawn(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                          MPI_Fint *ierror, size_t command_len, size_t argv_len, int keep_leading)
{
    char *cmd = canal_f77_str_in(command, command_len);
    char **cargv = NULL;
    int err = cmd == NULL ? MPI_ERR_NO_MEM : f77_argv(argv, argv_len, 1, 0, keep_leading, &cargv);
    if (err != MPI_SUCCESS) {
        free(cmd);
        *ierror = canal_f77_no_mem("MPI_COMM_SPAWN");
        return;
    }
    *ierror = MPI_Comm_spawn(cmd, cargv, *maxprocs, (MPI_Info)*info, *root, (MPI_Comm)*comm,
                             (MPI_Comm *)intercomm, canal_f77_errcodes(errcodes));
    f77_argv_free(cargv);
    free(cmd);
}

CANAL_F77_API void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                                    MPI_Fint *errcodes, MPI_Fint *ierror, size_t command_len,
                                    size_t argv_len)
{
    canal_f77_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierror,
                         command_len, argv_len, 0);
}

void canal_f77_comm_spawn_multiple(MPI_Fint *count, char *commands, char *argvs,
                                   MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                   MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                                   MPI_Fint *ierror, size_t commands_len, size_t argvs_len,
                                   int keep_leading)
{
    int n = *count, i, err = MPI_SUCCESS;
    char **cmds = n > 0 ? calloc((size_t)n, sizeof(*cmds)) : NULL;
    char ***argv = n > 0 ? calloc((size_t)n, sizeof(*argv)) : NULL;
    if (n > 0 && (cmds == NULL || argv == NULL))
        err = MPI_ERR_NO_MEM;
    for (i = 0; err == MPI_SUCCESS && i < n; i++) {
        if ((cmds[i] = canal_f77_str_in(commands + (size_t)i * commands_len, commands_len)) == NULL)
            err = MPI_ERR_NO_MEM;
        else
            err = f77_argv(argvs, argvs_len, (size_t)n, (size_t)i, keep_leading, &argv[i]);
    }
    if (err != MPI_SUCCESS)
        *ierror = canal_f77_no_mem("MPI_COMM_SPAWN_MULTIPLE");
    else
        *ierror = MPI_Comm_spawn_multiple(n, cmds, argvs == mpiprivc_.argvs_null ? MPI_ARGVS_NULL : argv,
                                          maxprocs, (MPI_Info *)infos, *root, (MPI_Comm)*comm,
                                          (MPI_Comm *)intercomm, canal_f77_errcodes(errcodes));
    for (i = 0; i < n && cmds != NULL; i++) {
        free(cmds[i]);
        if (argv != NULL)
            f77_argv_free(argv[i]);
    }
    free(cmds);
    free(argv);
}

CANAL_F77_API void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs,
                                             MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                             MPI_Fint *comm, MPI_Fint *intercomm,
                                             MPI_Fint *errcodes, MPI_Fint *ierror,
                                             size_t commands_len, size_t argvs_len)
{
    canal_f77_comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm, intercomm,
                                  errcodes, ierror, commands_len, argvs_len, 0);
}

#include "bindings/fortran/mpi_f77_aliases.h"
