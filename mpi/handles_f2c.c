/*
 * handles_f2c.c -- conversions between C and Fortran handles and statuses,
 * and the address arithmetic of MPI_Aint_add / MPI_Aint_diff.
 *
 * Called by programs and by Fortran bindings layered on libmpi. In the MPICH
 * ABI an integer handle is its own Fortran handle (mpi.h turns those
 * conversions into casts), so only MPI_File, a pointer, needs a table: the
 * Fortran handle of a file is its index in that table, 0 being
 * MPI_FILE_NULL. The I/O code calls mpi_file_f2c_forget when a file is
 * closed so that its slot can be reused.
 *
 * These are the implementations of generated `anytime` entry points
 * (mpi/api/19-bindings.api, MPI_Aint_add/diff of 05-datatypes.api).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiimpl.h"
#include "mpi/api_impl.h"

/* ------------------------------------------------------------------ files */

/* Slot 0 is never used: Fortran handle 0 is MPI_FILE_NULL. */
static pthread_mutex_t file_table_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_File *file_table;
static int file_table_len; /* slots in use, including slot 0 */
static int file_table_cap;

MPI_Fint mpi_file_c2f_impl(MPI_File file)
{
    MPI_Fint handle = 0;
    int i;

    if (file == MPI_FILE_NULL)
        return 0;
    pthread_mutex_lock(&file_table_lock);
    for (i = 1; i < file_table_len; i++) {
        if (file_table[i] == file) {
            handle = i;
            goto unlock;
        }
    }
    /* reuse a slot freed by mpi_file_f2c_forget before growing */
    for (i = 1; i < file_table_len; i++) {
        if (file_table[i] == MPI_FILE_NULL) {
            file_table[i] = file;
            handle = i;
            goto unlock;
        }
    }
    if (file_table_len == file_table_cap) {
        int cap = file_table_cap ? 2 * file_table_cap : 16;
        MPI_File *grown;

        /* no error path exists: 0 (MPI_FILE_NULL) tells the caller it failed */
        if (cap <= file_table_cap || (size_t)cap > SIZE_MAX / sizeof(MPI_File))
            goto unlock;
        grown = realloc(file_table, (size_t)cap * sizeof(MPI_File));
        if (grown == NULL)
            goto unlock;
        memset(grown + file_table_cap, 0, (size_t)(cap - file_table_cap) * sizeof(MPI_File));
        file_table = grown;
        file_table_cap = cap;
        if (file_table_len == 0)
            file_table_len = 1;
    }
    handle = file_table_len;
    file_table[file_table_len++] = file;
unlock:
    pthread_mutex_unlock(&file_table_lock);
    return handle;
}

MPI_File mpi_file_f2c_impl(MPI_Fint file)
{
    MPI_File result = MPI_FILE_NULL;

    pthread_mutex_lock(&file_table_lock);
    if (file > 0 && file < file_table_len)
        result = file_table[file];
    pthread_mutex_unlock(&file_table_lock);
    return result;
}

/* Called by MPI_File_close: the file's Fortran handle becomes invalid. */
void mpi_file_f2c_forget(MPI_File file)
{
    int i;

    if (file == MPI_FILE_NULL)
        return;
    pthread_mutex_lock(&file_table_lock);
    for (i = 1; i < file_table_len; i++) {
        if (file_table[i] == file)
            file_table[i] = MPI_FILE_NULL;
    }
    pthread_mutex_unlock(&file_table_lock);
}

/* --------------------------------------------------------------- statuses */

/*
 * The three status forms (C struct, Fortran INTEGER array, Fortran 2008
 * type) have the same five ints in the same order; converting is copying.
 * The "ignore" sentinels are not statuses, so passing one is an argument
 * error, as is a null pointer; while MPI runs the error goes through
 * MPI_COMM_WORLD's handler as for every call without an object, and
 * before MPI_Init or after MPI_Finalize (these calls are allowed then) it is
 * only returned.
 */
static int status_err(const char *fn, const char *what, const void *p)
{
    char detail[96];

    snprintf(detail, sizeof detail, "%s is %s, not a status", what,
             p == NULL ? "a null pointer" : "an \"ignore\" placeholder");
    return mpi_state == MPI_STATE_INITIALIZED ? mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s", detail)
                                              : mpi_err_code_new(MPI_ERR_ARG, fn, detail);
}

static int status_copy(const void *from, void *to, const char *fn)
{
    if (from == NULL || from == (const void *)MPI_STATUS_IGNORE ||
        from == (const void *)MPI_F_STATUS_IGNORE || from == (const void *)MPI_F_STATUSES_IGNORE ||
        from == (const void *)MPI_F08_STATUS_IGNORE ||
        from == (const void *)MPI_F08_STATUSES_IGNORE)
        return status_err(fn, "the status to convert", from);
    if (to == NULL || to == (void *)MPI_STATUS_IGNORE || to == (void *)MPI_F_STATUS_IGNORE ||
        to == (void *)MPI_F08_STATUS_IGNORE)
        return status_err(fn, "the output status", to);
    memcpy(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int mpi_status_c2f_impl(const MPI_Status *c_status, MPI_Fint *f_status, const char *fn)
{
    return status_copy(c_status, f_status, fn);
}

int mpi_status_f2c_impl(const MPI_Fint *f_status, MPI_Status *c_status, const char *fn)
{
    return status_copy(f_status, c_status, fn);
}

int mpi_status_c2f08_impl(const MPI_Status *c_status, MPI_F08_status *f08_status, const char *fn)
{
    return status_copy(c_status, f08_status, fn);
}

int mpi_status_f082c_impl(const MPI_F08_status *f08_status, MPI_Status *c_status, const char *fn)
{
    return status_copy(f08_status, c_status, fn);
}

int mpi_status_f082f_impl(const MPI_F08_status *f08_status, MPI_Fint *f_status, const char *fn)
{
    return status_copy(f08_status, f_status, fn);
}

int mpi_status_f2f08_impl(const MPI_Fint *f_status, MPI_F08_status *f08_status, const char *fn)
{
    return status_copy(f_status, f08_status, fn);
}

/* ---------------------------------------------------------------- address */

/*
 * Addresses are treated as unsigned integers so that the arithmetic wraps
 * like the hardware's instead of being undefined signed overflow.
 */
MPI_Aint mpi_aint_add_impl(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint mpi_aint_diff_impl(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
