/*
 * The C side of mpi_f08 that is not generated (gen_f08.py): the special
 * values, the buffer descriptors of choice arguments, and the procedures
 * that gen_f08.py leaves out for the hand-written part of the module
 * (mpi_f08.f90): MPI_Init, MPI_Init_thread, user reductions, error
 * handlers, keyvals and attributes of Fortran kind, generalized requests and
 * base addresses. Those reuse the Fortran 77 bindings (f77_special.c),
 * whose conventions mpi_f08's handles, addresses and procedure arguments
 * share; ierror is OPTIONAL in mpi_f08 (NULL when absent).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bindings/fortran/f08ts.h"


static int unsupported(const char *msg)
{
    int code = MPI_ERR_UNSUPPORTED_OPERATION;
    if (MPI_Add_error_code(MPI_ERR_UNSUPPORTED_OPERATION, &code) == MPI_SUCCESS)
        MPI_Add_error_string(code, msg);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

/* The elements of a non-contiguous section in array element order (first
 * index fastest): the byte offset of element i from d->base_addr. */
static MPI_Aint section_offset(const CFI_cdesc_t *d, MPI_Count i)
{
    MPI_Aint off = 0;
    for (int r = 0; r < d->rank; r++) {
        off += (MPI_Aint)(i % d->dim[r].extent) * d->dim[r].sm;
        i /= d->dim[r].extent;
    }
    return off;
}

static MPI_Count section_elements(const CFI_cdesc_t *d)
{
    MPI_Count n = 1;
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent;
    return n;
}

/* A contiguous copy of the section (copied in when copy != 0). */
static void *section_copy(CFI_cdesc_t *d, int copy, int *rc)
{
    MPI_Count n = section_elements(d), i;
    char *t = malloc(n > 0 ? (size_t)n * d->elem_len : 1);
    if (t == NULL) {
        *rc = canal_f77_no_mem("mpi_f08");
        return NULL;
    }
    if (copy)
        for (i = 0; i < n; i++)
            memcpy(t + (size_t)i * d->elem_len, (char *)d->base_addr + section_offset(d, i),
                   d->elem_len);
    return t;
}

void *canal_f08_buf(CFI_cdesc_t *d, MPI_Count *count, MPI_Datatype *type, int may_copy,
                    canal_f08_tmp_t *tmp, int *rc)
{
    MPI_Count n, i;
    MPI_Aint *disp;
    MPI_Datatype t;
    int size = 0;

    tmp->mem = NULL;
    tmp->copy_out = 0;
    if (*rc != MPI_SUCCESS) /* an earlier buffer of the call failed */
        return NULL;
    if (d->base_addr == (void *)&MPIR_F08_MPI_BOTTOM)
        return MPI_BOTTOM;
    if (d->base_addr == (void *)&MPIR_F08_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    if (d->rank == 0 || CFI_is_contiguous(d))
        return d->base_addr;
    if (count != NULL && type != NULL && *count == 0)
        return d->base_addr;
    if (count == NULL || type == NULL || MPI_Type_size(*type, &size) != MPI_SUCCESS ||
        (size_t)size != d->elem_len) {
        /* No datatype over the section: a blocking call may work on a copy. */
        if (may_copy == CANAL_F08_NO_COPY) {
            *rc = unsupported("mpi_f08: a non-contiguous array section needs a predefined "
                              "datatype whose size is that of the array's elements in this "
                              "call (it is nonblocking or keeps the buffer; pass a contiguous "
                              "array)");
            return NULL;
        }
        tmp->mem = section_copy(d, 1, rc);
        tmp->copy_out = may_copy == CANAL_F08_COPY_INOUT;
        return tmp->mem;
    }
    /* A predefined element type: an hindexed datatype picks the first
     * *count elements of the section, in place (no copy). */
    n = section_elements(d);
    if (*count > n) {
        *rc = MPI_ERR_TRUNCATE;
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, *rc);
        return NULL;
    }
    disp = malloc((size_t)*count * sizeof(*disp));
    if (disp == NULL) {
        *rc = canal_f77_no_mem("mpi_f08");
        return NULL;
    }
    for (i = 0; i < *count; i++)
        disp[i] = section_offset(d, i);
    *rc = MPI_Type_create_hindexed_block((int)*count, 1, disp, *type, &t);
    free(disp);
    if (*rc == MPI_SUCCESS)
        *rc = MPI_Type_commit(&t);
    if (*rc != MPI_SUCCESS)
        return NULL;
    *type = t;
    *count = 1;
    return d->base_addr;
}

void canal_f08_buf_done(CFI_cdesc_t *d, MPI_Datatype type, MPI_Datatype user, canal_f08_tmp_t *tmp)
{
    if (type != user)
        MPI_Type_free(&type); /* the operation keeps its own reference */
    if (tmp->mem != NULL) {
        if (tmp->copy_out) {
            MPI_Count n = section_elements(d), i;
            for (i = 0; i < n; i++)
                memcpy((char *)d->base_addr + section_offset(d, i),
                       (char *)tmp->mem + (size_t)i * d->elem_len, d->elem_len);
        }
        free(tmp->mem);
        tmp->mem = NULL;
    }
}

/* ---------------------------------------------------------------- hand-written procedures */
/* The Fortran 77 bindings these call (f77_special.c). */
void pmpi_init_(MPI_Fint *ierror);
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
void pmpi_op_create_(void *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror);
void pmpi_comm_create_errhandler_(void *fn, MPI_Fint *eh, MPI_Fint *ierror);
void pmpi_win_create_errhandler_(void *fn, MPI_Fint *eh, MPI_Fint *ierror);
void pmpi_comm_create_keyval_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x, MPI_Fint *ierror);
void pmpi_type_create_keyval_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x, MPI_Fint *ierror);
void pmpi_win_create_keyval_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x, MPI_Fint *ierror);
void pmpi_comm_set_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror);
void pmpi_type_set_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror);
void pmpi_win_set_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror);
void pmpi_comm_get_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f, MPI_Fint *ierror);
void pmpi_type_get_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f, MPI_Fint *ierror);
void pmpi_win_get_attr_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f, MPI_Fint *ierror);
void pmpi_grequest_start_(void *q, void *f, void *c, MPI_Aint *x, MPI_Fint *req, MPI_Fint *ierror);
void pmpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr, MPI_Fint *ierror);
void pmpi_win_allocate_(MPI_Aint *size, MPI_Fint *du, MPI_Fint *info, MPI_Fint *comm,
                        MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierror);
void pmpi_win_allocate_shared_(MPI_Aint *size, MPI_Fint *du, MPI_Fint *info, MPI_Fint *comm,
                               MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierror);
void pmpi_win_shared_query_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *du,
                            MPI_Aint *baseptr, MPI_Fint *ierror);
void pmpi_file_create_errhandler_(void *fn, MPI_Fint *eh, MPI_Fint *ierror);
void pmpi_session_create_errhandler_(void *fn, MPI_Fint *eh, MPI_Fint *ierror);
void pmpi_register_datarep_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                            MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len);
void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                              MPI_Offset *position, void *extra, MPI_Fint *ierr);
void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                      MPI_Fint *ierror, size_t command_len, size_t argv_len);
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                               MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                               size_t commands_len, size_t argvs_len);
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
                           MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len);
/* mpi_f08_callbacks' predefined conversion procedure (mpi_f08_callbacks.f90). */
void __mpi_f08_callbacks_MOD_mpi_conversion_fn_null(void);

static void set_ierror(MPI_Fint *ierror, MPI_Fint e)
{
    if (ierror != NULL)
        *ierror = e;
}

#define F08_CALL(call)                                                                          \
    do {                                                                                        \
        MPI_Fint e_ = MPI_SUCCESS;                                                              \
        call;                                                                                   \
        set_ierror(ierror, e_);                                                                 \
    } while (0)

CANAL_F77_API void mpi_init_f08_(MPI_Fint *ierror)
{
    F08_CALL(pmpi_init_(&e_));
}
CANAL_F77_API void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    F08_CALL(pmpi_init_thread_(required, provided, &e_));
}
/* An mpi_f08 reduction SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE) takes
 * TYPE(C_PTR), VALUE vectors and the rest by reference: a C MPI_User_function. */
CANAL_F77_API void mpi_op_create_f08_(void *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    F08_CALL(pmpi_op_create_(fn, commute, op, &e_));
}
CANAL_F77_API void mpi_comm_create_errhandler_f08_(void *fn, MPI_Fint *eh, MPI_Fint *ierror)
{
    F08_CALL(pmpi_comm_create_errhandler_(fn, eh, &e_));
}
CANAL_F77_API void mpi_win_create_errhandler_f08_(void *fn, MPI_Fint *eh, MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_create_errhandler_(fn, eh, &e_));
}
CANAL_F77_API void mpi_comm_create_keyval_f08_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x,
                                               MPI_Fint *ierror)
{
    F08_CALL(pmpi_comm_create_keyval_(c, d, kv, x, &e_));
}
CANAL_F77_API void mpi_type_create_keyval_f08_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x,
                                               MPI_Fint *ierror)
{
    F08_CALL(pmpi_type_create_keyval_(c, d, kv, x, &e_));
}
CANAL_F77_API void mpi_win_create_keyval_f08_(void *c, void *d, MPI_Fint *kv, MPI_Aint *x,
                                              MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_create_keyval_(c, d, kv, x, &e_));
}
CANAL_F77_API void mpi_comm_set_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror)
{
    F08_CALL(pmpi_comm_set_attr_(o, kv, v, &e_));
}
CANAL_F77_API void mpi_type_set_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror)
{
    F08_CALL(pmpi_type_set_attr_(o, kv, v, &e_));
}
CANAL_F77_API void mpi_win_set_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_set_attr_(o, kv, v, &e_));
}
CANAL_F77_API void mpi_comm_get_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f,
                                          MPI_Fint *ierror)
{
    F08_CALL(pmpi_comm_get_attr_(o, kv, v, f, &e_));
}
CANAL_F77_API void mpi_type_get_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f,
                                          MPI_Fint *ierror)
{
    F08_CALL(pmpi_type_get_attr_(o, kv, v, f, &e_));
}
CANAL_F77_API void mpi_win_get_attr_f08_(MPI_Fint *o, MPI_Fint *kv, MPI_Aint *v, MPI_Fint *f,
                                         MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_get_attr_(o, kv, v, f, &e_));
}
CANAL_F77_API void mpi_grequest_start_f08_(void *q, void *f, void *c, MPI_Aint *x, MPI_Fint *req,
                                           MPI_Fint *ierror)
{
    F08_CALL(pmpi_grequest_start_(q, f, c, x, req, &e_));
}
/* BASEPTR is TYPE(C_PTR): the C call stores the address in it. */
CANAL_F77_API void mpi_alloc_mem_f08_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr,
                                      MPI_Fint *ierror)
{
    F08_CALL(pmpi_alloc_mem_(size, info, baseptr, &e_));
}
CANAL_F77_API void mpi_win_allocate_f08_(MPI_Aint *size, MPI_Fint *du, MPI_Fint *info,
                                         MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win,
                                         MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_allocate_(size, du, info, comm, baseptr, win, &e_));
}
CANAL_F77_API void mpi_win_allocate_shared_f08_(MPI_Aint *size, MPI_Fint *du, MPI_Fint *info,
                                                MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win,
                                                MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_allocate_shared_(size, du, info, comm, baseptr, win, &e_));
}
CANAL_F77_API void mpi_win_shared_query_f08_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
                                             MPI_Fint *du, MPI_Aint *baseptr, MPI_Fint *ierror)
{
    F08_CALL(pmpi_win_shared_query_(win, rank, size, du, baseptr, &e_));
}
CANAL_F77_API void mpi_file_create_errhandler_f08_(void *fn, MPI_Fint *eh, MPI_Fint *ierror)
{
    F08_CALL(pmpi_file_create_errhandler_(fn, eh, &e_));
}
CANAL_F77_API void mpi_session_create_errhandler_f08_(void *fn, MPI_Fint *eh, MPI_Fint *ierror)
{
    F08_CALL(pmpi_session_create_errhandler_(fn, eh, &e_));
}

/* The large forms: DISP_UNIT is INTEGER(KIND=MPI_ADDRESS_KIND). */
CANAL_F77_API void mpi_win_allocate_f08_large_(MPI_Aint *size, MPI_Aint *du, MPI_Fint *info,
                                               MPI_Fint *comm, void **baseptr, MPI_Fint *win,
                                               MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Win_allocate_c(*size, *du, (MPI_Info)*info, (MPI_Comm)*comm,
                                          (void *)baseptr, (MPI_Win *)win));
}
CANAL_F77_API void mpi_win_allocate_shared_f08_large_(MPI_Aint *size, MPI_Aint *du, MPI_Fint *info,
                                                      MPI_Fint *comm, void **baseptr, MPI_Fint *win,
                                                      MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Win_allocate_shared_c(*size, *du, (MPI_Info)*info, (MPI_Comm)*comm,
                                                 (void *)baseptr, (MPI_Win *)win));
}
CANAL_F77_API void mpi_win_shared_query_f08_large_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
                                                   MPI_Aint *du, void **baseptr, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Win_shared_query_c((MPI_Win)*win, *rank, size, du, (void *)baseptr));
}

/* BUFFER_ADDR is TYPE(C_PTR) in mpi_f08. */
CANAL_F77_API void mpi_buffer_detach_f08_(void **buffer_addr, MPI_Fint *size, MPI_Fint *ierror)
{
    int n = 0;
    int rc = MPI_Buffer_detach((void *)buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n;
    set_ierror(ierror, rc);
}
CANAL_F77_API void mpi_buffer_detach_f08_large_(void **buffer_addr, MPI_Count *size,
                                                MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Buffer_detach_c((void *)buffer_addr, size));
}

CANAL_F77_API MPI_Aint mpi_aint_add_f08_(MPI_Aint *base, MPI_Aint *disp)
{
    return MPI_Aint_add(*base, *disp);
}
CANAL_F77_API MPI_Aint mpi_aint_diff_f08_(MPI_Aint *addr1, MPI_Aint *addr2)
{
    return MPI_Aint_diff(*addr1, *addr2);
}
CANAL_F77_API void mpi_pcontrol_f08_(MPI_Fint *level)
{
    MPI_Pcontrol(*level);
}
/* MPI_F_sync_reg: the call itself is the barrier to the compiler's code motion. */
CANAL_F77_API void mpi_f_sync_reg_f08ts_(void *buf)
{
    (void)buf;
}
CANAL_F77_API void mpi_info_create_env_f08_(MPI_Fint *info, MPI_Fint *ierror)
{
    set_ierror(ierror, MPI_Info_create_env(0, NULL, (MPI_Info *)info));
}
/* MPICH 4.0.2's names (from an MPI 4.1 draft) of MPI_Remove_error_class ... */
CANAL_F77_API void mpi_delete_error_class_f08_(MPI_Fint *errorclass, MPI_Fint *ierror)
{
    set_ierror(ierror, MPIX_Delete_error_class(*errorclass));
}
CANAL_F77_API void mpi_delete_error_code_f08_(MPI_Fint *errorcode, MPI_Fint *ierror)
{
    set_ierror(ierror, MPIX_Delete_error_code(*errorcode));
}
CANAL_F77_API void mpi_delete_error_string_f08_(MPI_Fint *errorcode, MPI_Fint *ierror)
{
    set_ierror(ierror, MPIX_Delete_error_string(*errorcode));
}
/* FLAG is an INTEGER (the bitwise AND of the processes' values). */
CANAL_F77_API void mpix_comm_agree_f08_(MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *ierror)
{
    set_ierror(ierror, MPIX_Comm_agree((MPI_Comm)*comm, flag));
}

/* Spawn: the strings as in Fortran 77 (hidden lengths last); mpi_f08's
 * MPI_ARGV(S)_NULL and MPI_ERRCODES_IGNORE become mpif.h's. */
CANAL_F77_API void mpi_comm_spawn_f08_(char *command, char *argv, MPI_Fint *maxprocs,
                                       MPI_Fint *info, MPI_Fint *root, MPI_Fint *comm,
                                       MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                                       size_t command_len, size_t argv_len)
{
    if (argv == __mpi_f08_link_constants_MOD_mpi_argv_null)
        argv = mpiprivc_.argv_null;
    if (errcodes == __mpi_f08_link_constants_MOD_mpi_errcodes_ignore)
        errcodes = mpipriv2_.errcodes_ignore;
    F08_CALL(canal_f77_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes,
                                  &e_, command_len, argv_len, 1));
}
CANAL_F77_API void mpi_comm_spawn_multiple_f08_(MPI_Fint *count, char *commands, char *argvs,
                                                MPI_Fint *maxprocs, MPI_Fint *infos,
                                                MPI_Fint *root, MPI_Fint *comm,
                                                MPI_Fint *intercomm, MPI_Fint *errcodes,
                                                MPI_Fint *ierror, size_t commands_len,
                                                size_t argvs_len)
{
    if (argvs == __mpi_f08_link_constants_MOD_mpi_argvs_null)
        argvs = mpiprivc_.argvs_null;
    if (errcodes == __mpi_f08_link_constants_MOD_mpi_errcodes_ignore)
        errcodes = mpipriv2_.errcodes_ignore;
    F08_CALL(canal_f77_comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm,
                                           intercomm, errcodes, &e_, commands_len, argvs_len, 1));
}

/* mpi_f08's MPI_CONVERSION_FN_NULL is a module procedure: mpif.h's is
 * what the Fortran 77 binding recognizes. */
CANAL_F77_API void mpi_register_datarep_f08_(char *datarep, void *read_fn, void *write_fn,
                                             void *extent_fn, MPI_Aint *extra, MPI_Fint *ierror,
                                             size_t datarep_len)
{
    void *null_f08 = (void *)__mpi_f08_callbacks_MOD_mpi_conversion_fn_null;
    if (read_fn == null_f08)
        read_fn = (void *)pmpi_conversion_fn_null_;
    if (write_fn == null_f08)
        write_fn = (void *)pmpi_conversion_fn_null_;
    F08_CALL(pmpi_register_datarep_(datarep, read_fn, write_fn, extent_fn, extra, &e_,
                                    datarep_len));
}
CANAL_F77_API void mpi_info_get_string_f08_(MPI_Fint *info, char *key, MPI_Fint *buflen,
                                            char *value, MPI_Fint *flag, MPI_Fint *ierror,
                                            size_t key_len, size_t value_len)
{
    F08_CALL(pmpi_info_get_string_(info, key, buflen, value, flag, &e_, key_len, value_len));
}
#undef F08_CALL

/* MPI_Wtime and MPI_Wtick are Fortran functions MPI_Wtime_f08 in MPICH's
 * mpi_f08 (a DOUBLE PRECISION result is returned as C's double). */
CANAL_F77_API double mpi_wtime_f08_(void)
{
    return MPI_Wtime();
}
CANAL_F77_API double mpi_wtick_f08_(void)
{
    return MPI_Wtick();
}
