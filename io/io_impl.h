/*
 * What the files of MPI-IO (MPI 4.0 chapter 14) share: Canal's file object
 * (the struct behind the MPICH-ABI pointer handle MPI_File), the file view
 * flattened into byte blocks, and the internal entry points between
 * io/io.c (open, close, hints, sizes, error handlers), io/io_view.c
 * (views, data representations, file pointers) and io/io_rw.c (data
 * access: independent, two-phase collective, shared pointers, nonblocking
 * and split collective forms). Only these files include it; mpi/ sees
 * io/io.h.
 *
 * Files live on a POSIX file system reached with pread/pwrite. Every file
 * handle owns a duplicate of the user's communicator, so that the
 * collectives of I/O never match the user's messages.
 */
#ifndef CANAL_IO_IO_IMPL_H
#define CANAL_IO_IO_IMPL_H

#include "mpi/objects.h"
#include "io/io.h"

#include <sys/types.h>

enum { IO_FILE_MAGIC = 0x43464c45 }; /* "CFLE" */

/* Data representations of a view. User-defined ones (MPI_Register_datarep)
 * come after the three predefined ones. */
typedef enum { IO_REP_NATIVE = 0, IO_REP_INTERNAL, IO_REP_EXTERNAL32, IO_REP_USER } io_rep_kind_t;

typedef struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function_c *read_fn, *write_fn;
    MPI_Datarep_conversion_function *read_fn_i, *write_fn_i;
    MPI_Datarep_extent_function *extent_fn;
    void *extra;
    const mpi_datarep_proxy_t *proxy; /* the standard ABI's (NULL: called directly) */
    struct io_datarep *next;
} io_datarep_t;

/* One instance of the filetype, flattened: blocks in increasing order of
 * offset (relative to the displacement), psum[i] = data bytes before block i. */
typedef struct {
    size_t n;
    MPI_Offset *off;
    MPI_Offset *len;
    MPI_Offset *psum; /* n + 1 entries */
    int overlap;      /* some blocks overlap (read-only views may) */
} io_flat_t;

/* A split collective in progress (MPI_File_*_all_begin / _end). */
typedef struct {
    int active;
    int is_read;
    const void *buf;
    int err;
    MPI_Count bytes;
} io_split_t;

struct ADIOI_FileD {
    uint32_t magic;
    int fd;
    char *filename;
    int amode;
    mpi_comm_t *comm; /* private duplicate of the user's communicator */
    int rank, size;
    MPI_Errhandler errh;
    MPI_Info hints;
    int atomic;
    /* hints in effect */
    MPI_Offset cb_buffer_size;
    int cb_nodes;
    int cb_read, cb_write; /* 0 disable, 1 enable, 2 automatic */
    MPI_Offset ind_rd_buffer_size;
    /* the view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype; /* handles we own (dups of derived types) */
    dt_type_t *etype_dt, *ftype_dt;
    MPI_Offset esize;   /* bytes of one etype (in the file's representation) */
    MPI_Offset fsize;   /* data bytes of one filetype */
    MPI_Offset fextent; /* extent of one filetype */
    io_rep_kind_t rep;
    io_datarep_t *urep;
    char datarep[MPI_MAX_DATAREP_STRING];
    io_flat_t flat;
    MPI_Offset fp_ind; /* individual file pointer, in etypes */
    /* shared file pointer: a side file holding one MPI_Offset, locked with fcntl */
    char *shfp_name;
    int shfp_fd;
    io_split_t split;
    struct ADIOI_FileD *next;
};

/* ---------------------------------------------------------------- io.c */
/* The MPI error class of an errno value from an I/O system call. */
int io_errno_class(int e);
/* Check (count, datatype) of a data access; *dt_out is the engine type. */
int io_check_buf(struct ADIOI_FileD *f, const void *buf, MPI_Count count, MPI_Datatype datatype,
                 const char *fn, dt_type_t **dt_out);
/* Agree on an error among the ranks of the file (MPI_MAX of classes); fn
 * names the call for an error of the exchange itself. */
int io_agree(struct ADIOI_FileD *f, int errclass, const char *fn);
/* A process of the file's communicator is known lost (ULFM): a collective
 * that failed reports MPIX_ERR_PROC_FAILED. */
int io_member_lost(struct ADIOI_FileD *f);

/* ---------------------------------------------------------------- io_view.c */
/* Reset the view to (0, MPI_BYTE, MPI_BYTE, "native") at open. */
int io_view_default(struct ADIOI_FileD *f);
void io_view_free(struct ADIOI_FileD *f, const char *fn);
/* Absolute file offset of data byte `pos` of the view stream (pos counts
 * bytes of the file representation from the view's start). */
MPI_Offset io_view_byte(const struct ADIOI_FileD *f, MPI_Offset pos);
/* Data bytes of the view that lie before absolute file offset `abs`. */
MPI_Offset io_view_bytes_before(const struct ADIOI_FileD *f, MPI_Offset abs);
/* Call fn for each file piece (absolute offset, length) of the stream bytes
 * [pos, pos + len) in stream order; stops at the first nonzero return. */
int io_view_walk(const struct ADIOI_FileD *f, MPI_Offset pos, MPI_Offset len,
                 int (*fn)(MPI_Offset off, MPI_Offset len, void *arg), void *arg);
/* File-representation bytes of (count, dt) under the current datarep. */
int io_rep_size(struct ADIOI_FileD *f, dt_type_t *dt, MPI_Datatype h, MPI_Count count,
                MPI_Offset *bytes_out, const char *fn);
/* Convert between memory (buf, count, dt) and the file representation in a
 * contiguous stream. to_file: fill *stream_out (allocated when the memory
 * layout or the representation needs it, else it points into buf; *owned_out
 * says which). */
int io_stream_from_mem(struct ADIOI_FileD *f, const void *buf, MPI_Count count, dt_type_t *dt,
                       MPI_Datatype h, MPI_Offset bytes, void **stream_out, int *owned_out,
                       const char *fn);
int io_stream_to_mem(struct ADIOI_FileD *f, const void *stream, MPI_Offset got, void *buf,
                     MPI_Count count, dt_type_t *dt, MPI_Datatype h, const char *fn);
/* Where a read lands before conversion: buf itself when it can. */
int io_stream_for_read(struct ADIOI_FileD *f, void *buf, MPI_Count count, dt_type_t *dt,
                       MPI_Offset bytes, void **stream_out, int *owned_out, const char *fn);
/* Shared file pointer (side file, fcntl-locked, created on first use).
 * open: name it from the token rank 0 chose; close: remove = unlink it
 * (rank 0, at MPI_File_close), else free the name. fetch_add: under the
 * lock, *old_out = value and value += add (add 0: a plain read). */
int io_shfp_open(struct ADIOI_FileD *f, const char *token);
void io_shfp_close(struct ADIOI_FileD *f, int remove);
int io_shfp_fetch_add(struct ADIOI_FileD *f, MPI_Offset add, MPI_Offset *old_out);
int io_shfp_store(struct ADIOI_FileD *f, MPI_Offset value);
/* MPI_File_set_view's info argument: the hints of MPI_File_set_info (io.c). */
int io_hints_apply(struct ADIOI_FileD *f, MPI_Info info, const char *fn);

#endif
