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

void *canal_f08_buf(CFI_cdesc_t *d, MPI_Count *count, MPI_Datatype *type, int *rc)
{
    MPI_Count n, i;
    MPI_Aint *disp;
    MPI_Datatype t;
    int size = 0;

    if (d->base_addr == (void *)&MPIR_F08_MPI_BOTTOM)
        return MPI_BOTTOM;
    if (d->base_addr == (void *)&MPIR_F08_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    if (d->rank == 0 || CFI_is_contiguous(d))
        return d->base_addr;
    if (count == NULL || type == NULL) {
        *rc = unsupported("mpi_f08: a non-contiguous array section is not supported for this "
                          "argument (pass a contiguous array)");
        return NULL;
    }
    if (*count == 0)
        return d->base_addr;
    if (MPI_Type_size(*type, &size) != MPI_SUCCESS || (size_t)size != d->elem_len) {
        *rc = unsupported("mpi_f08: a non-contiguous array section needs a predefined datatype "
                          "whose size is that of the array's elements");
        return NULL;
    }
    /* Elements of the section in array element order (first index fastest). */
    n = 1;
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent;
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
    for (i = 0; i < *count; i++) {
        MPI_Count rest = i;
        MPI_Aint off = 0;
        for (int r = 0; r < d->rank; r++) {
            off += (MPI_Aint)(rest % d->dim[r].extent) * d->dim[r].sm;
            rest /= d->dim[r].extent;
        }
        disp[i] = off;
    }
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

void canal_f08_buf_done(CFI_cdesc_t *d, MPI_Datatype type, MPI_Datatype user)
{
    (void)d;
    if (type != user)
        MPI_Type_free(&type); /* the operation keeps its own reference */
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
