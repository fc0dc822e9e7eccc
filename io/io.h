/*
 * What mpi/ sees of io/, the MPI-IO layer (MPI 4.0 chapter 14; the public
 * header stays mpi/mpio.h). The generated entry points of
 * mpi/api/14-io.api call the mpi_*_impl functions of io/ (declared in the
 * generated mpi/api_impl.h) and, for the data-access functions, the four
 * shared access functions below with the constants of the call (the
 * `impl=NAME(ARGS)` form of the table, mpi/api/README.md); mpi/check.c
 * uses the file as an error object (the `file` kind). The file object
 * itself stays opaque outside io/ (io/io_impl.h).
 */
#ifndef CANAL_IO_IO_H
#define CANAL_IO_IO_H

#include "mpiimpl.h"

struct ADIOI_FileD;

/* How every step of io/ that raises an error reports it (design.md, "a
 * raise returns what the handler left"): a raise returns the code the
 * file's error handler left, and IO_HANDLED instead when a user's handler
 * cleared it to MPI_SUCCESS. So inside io/ a nonzero result always means
 * "failed: stop", whatever the handler did, and callers stop on it alone.
 * The entry points (mpi/api/14-io.api's `result=mpi_result`, mpi/check.c's
 * file checks, the file error handler calls of mpi/api/09) return
 * mpi_result() of it (mpi/mpiimpl.h): the handler's MPI_SUCCESS, as MPICH's
 * errors/io/fileerrret expects. */
enum { IO_HANDLED = MPI_CANAL_HANDLED };

/* The live file named by fh, or NULL (and an MPI_ERR_FILE raised through
 * the handler of MPI_FILE_NULL in *err_out, never MPI_SUCCESS). */
struct ADIOI_FileD *io_file_get(MPI_File fh, const char *fn, int *err_out);
/* Raise through the file's handler (MPI_FILE_NULL's when f is NULL):
 * returns the handler's code, or IO_HANDLED. */
int io_err(struct ADIOI_FileD *f, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------- data access */
/* Where a data access starts: the individual file pointer, an explicit
 * offset, the shared file pointer, or the shared pointer in rank order
 * (the _ordered functions). */
typedef enum { IO_AT, IO_IND, IO_SHARED, IO_ORDERED } io_where_t;

/* Every MPI_File_{read,write}[_at][_all|_shared|_ordered] and its int and
 * _c forms: write 0 or 1, coll 0 (independent) or 1 (collective), where;
 * offset only for IO_AT (in etypes). */
int io_blocking(struct ADIOI_FileD *f, int write, int coll, io_where_t where, MPI_Offset offset,
                const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status,
                const char *fn);
/* The MPI_File_i* forms: the same access, completed at once; *request is a
 * completed request carrying the status. */
int io_nonblocking(struct ADIOI_FileD *f, int write, int coll, io_where_t where,
                   MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Request *request, const char *fn);
/* Split collectives: _begin runs the access and keeps its result; _end
 * (same buffer, same direction) returns it. */
int io_split_begin(struct ADIOI_FileD *f, int write, io_where_t where, MPI_Offset offset,
                   const void *buf, MPI_Count count, MPI_Datatype datatype, const char *fn);
int io_split_end(struct ADIOI_FileD *f, int write, const void *buf, MPI_Status *status,
                 const char *fn);

#endif
