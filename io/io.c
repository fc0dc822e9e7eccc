/*
 * MPI-IO, file manipulation (MPI 4.0 sections 14.2 and 14.7): opening and
 * closing files, deleting them, sizes, hints, atomicity, the group and
 * access mode, and the error handlers of files. Views and file pointers are
 * in io/io_view.c, data access in io/io_rw.c.
 *
 * A file handle is a pointer (MPICH ABI); live handles are kept in a list so
 * that a stale or garbage MPI_File is reported as MPI_ERR_FILE instead of
 * being dereferenced. Every handle owns a duplicate of the user's
 * communicator for its collectives. Opening is collective: the ranks agree
 * on the access mode, rank 0 creates the file (so that MPI_MODE_EXCL has one
 * winner), and all ranks agree on the outcome, so that either every rank has
 * a handle or none has.
 *
 * The default error handler of files is MPI_ERRORS_RETURN; the handler of
 * MPI_FILE_NULL is used by MPI_File_open and MPI_File_delete and is
 * inherited by new handles.
 */
#include "io_impl.h"
#include "mpi/api_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ADIOI_FileD *io_files;
static MPI_Errhandler io_null_errh = MPI_ERRORS_RETURN;

/* errors.c may offer a way to invoke a handler with an existing code. */
int mpi_err_invoke_errh(MPI_Errhandler errh, int objtype, void *objhandle, int code,
                        const char *fn) __attribute__((weak));

/* ---------------------------------------------------------------- errors */
int io_err(struct ADIOI_FileD *f, int errclass, const char *fn, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING - 64];
    va_list ap;
    MPI_File h = f;

    int code;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (f != NULL)
        code = mpi_err_raise_errh(f->errh, MPI_OBJ_FILE, &h, errclass, fn, "%s (file %s)", detail,
                                  f->filename);
    else
        code = mpi_err_raise_errh(io_null_errh, MPI_OBJ_FILE, &h, errclass, fn, "%s", detail);
    return code == MPI_SUCCESS ? IO_HANDLED : code;
}

int io_errno_class(int e)
{
    switch (e) {
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT:
        return MPI_ERR_QUOTA;
#endif
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

struct ADIOI_FileD *io_file_get(MPI_File fh, const char *fn, int *err_out)
{
    struct ADIOI_FileD *f;

    if (fh == MPI_FILE_NULL) {
        *err_out = io_err(NULL, MPI_ERR_FILE, fn, "fh is MPI_FILE_NULL");
        return NULL;
    }
    pthread_mutex_lock(&io_lock);
    for (f = io_files; f != NULL && f != fh; f = f->next)
        ;
    pthread_mutex_unlock(&io_lock);
    if (f == NULL || f->magic != IO_FILE_MAGIC) {
        *err_out = io_err(NULL, MPI_ERR_FILE, fn, "fh=%p is not an open file", (void *)fh);
        return NULL;
    }
    return f;
}

int io_check_buf(struct ADIOI_FileD *f, const void *buf, MPI_Count count, MPI_Datatype datatype,
                 const char *fn, dt_type_t **dt_out)
{
    dt_type_t *dt;

    if (count < 0)
        return io_err(f, MPI_ERR_COUNT, fn, "count=%lld is negative", (long long)count);
    dt = mpi_dt_get(datatype);
    if (dt == NULL)
        return io_err(f, MPI_ERR_TYPE, fn, "datatype=%#x is not a valid datatype",
                      (unsigned)datatype);
    if (!dt_is_committed(dt))
        return io_err(f, MPI_ERR_TYPE, fn, "datatype=%#x is not committed", (unsigned)datatype);
    if (buf == NULL && count > 0 && dt_size(dt) > 0 && mpi_handle_kind(datatype) == MPI_HKIND_BUILTIN)
        return io_err(f, MPI_ERR_BUFFER, fn, "buf is NULL with count=%lld", (long long)count);
    if (buf == MPI_IN_PLACE && count > 0 && dt_size(dt) > 0)
        return io_err(f, MPI_ERR_BUFFER, fn,
                      "buf is MPI_IN_PLACE with count=%lld; only collectives take it",
                      (long long)count);
    *dt_out = dt;
    return MPI_SUCCESS;
}

int io_member_lost(struct ADIOI_FileD *f)
{
    return adi_ctx_failed_ranks(f->comm->context, 0, NULL, 0) > 0;
}

int io_agree(struct ADIOI_FileD *f, int errclass, const char *fn)
{
    int mine = errclass, all = errclass, rc, cls = MPI_ERR_OTHER;
    if ((rc = mpi_allreduce_impl(&mine, &all, 1, MPI_INT, MPI_MAX, f->comm, fn)) != MPI_SUCCESS) {
        mpi_error_class_impl(rc, &cls, fn); /* (a lost process or a revoked communicator stays so) */
        return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED ? cls : MPI_ERR_OTHER;
    }
    return all;
}

/* ---------------------------------------------------------------- hints */
/* The reserved hints of the standard and ROMIO's spellings that Canal
 * accepts; others are ignored (get_info reports only what is used). */
static const char *const io_known_hints[] = {
    "cb_buffer_size", "cb_nodes", "romio_cb_read", "romio_cb_write", "collective_buffering",
    "cb_block_size", "cb_config_list", "ind_rd_buffer_size", "ind_wr_buffer_size",
    "romio_ds_read", "romio_ds_write", "romio_no_indep_rw", "striping_factor",
    "striping_unit", "start_iodevice", "access_style", "file_perm", "io_node_list",
    "nb_proc", "num_io_nodes", "chunked", "chunked_item", "chunked_size", "filename",
    NULL};

static int is_known_hint(const char *key)
{
    for (int i = 0; io_known_hints[i] != NULL; i++)
        if (strcmp(key, io_known_hints[i]) == 0)
            return 1;
    return 0;
}

static int parse_cb_mode(const char *v)
{
    if (strcasecmp(v, "enable") == 0 || strcasecmp(v, "true") == 0)
        return 1;
    if (strcasecmp(v, "disable") == 0 || strcasecmp(v, "false") == 0)
        return 0;
    return 2;
}

static int parse_positive(const char *v, long long *out)
{
    char *end;
    long long x;
    errno = 0;
    x = strtoll(v, &end, 0);
    if (errno != 0 || end == v || *end != '\0' || x <= 0)
        return -1;
    *out = x;
    return 0;
}

/* Merge the hints of info into f->hints and the fields derived from them. */
static int hints_apply(struct ADIOI_FileD *f, MPI_Info info, const char *fn)
{
    char buf[32];
    int n;

    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (!mpi_info_valid(info) || (n = mpi_info_nkeys(info)) < 0)
        return io_err(f, MPI_ERR_INFO, fn, "info=%#x is not a valid info object", (unsigned)info);
    for (int i = 0; i < n; i++) {
        const char *val = NULL, *key = mpi_info_nth(info, i, &val);
        long long x;
        if (key == NULL || val == NULL || !is_known_hint(key))
            continue;
        if (strcmp(key, "cb_buffer_size") == 0 || strcmp(key, "ind_rd_buffer_size") == 0) {
            if (parse_positive(val, &x) < 0)
                continue; /* an invalid hint is ignored, as the standard allows */
            if (key[0] == 'c')
                f->cb_buffer_size = x;
            else
                f->ind_rd_buffer_size = x;
        } else if (strcmp(key, "cb_nodes") == 0) {
            if (parse_positive(val, &x) < 0)
                continue;
            f->cb_nodes = x > f->size ? f->size : (int)x;
            snprintf(buf, sizeof buf, "%d", f->cb_nodes);
            val = buf;
        } else if (strcmp(key, "romio_cb_read") == 0) {
            f->cb_read = parse_cb_mode(val);
        } else if (strcmp(key, "romio_cb_write") == 0) {
            f->cb_write = parse_cb_mode(val);
        } else if (strcmp(key, "collective_buffering") == 0) {
            f->cb_read = f->cb_write = parse_cb_mode(val) == 0 ? 0 : 1;
        }
        if (mpi_info_put(f->hints, key, val) != MPI_SUCCESS)
            return io_err(f, MPI_ERR_NO_MEM, fn, "cannot record hint %s", key);
    }
    return MPI_SUCCESS;
}

static int hints_defaults(struct ADIOI_FileD *f)
{
    char buf[32];
    int err;
    static const char *const names[] = {"automatic", "enable", "disable"};

    if ((err = mpi_info_new(&f->hints)) != MPI_SUCCESS)
        return err;
    f->cb_buffer_size = 16 * 1024 * 1024;
    f->ind_rd_buffer_size = 4 * 1024 * 1024;
    f->cb_read = f->cb_write = 2;
    f->cb_nodes = f->size < 2 ? f->size : 2;
    snprintf(buf, sizeof buf, "%lld", (long long)f->cb_buffer_size);
    mpi_info_put(f->hints, "cb_buffer_size", buf);
    snprintf(buf, sizeof buf, "%d", f->cb_nodes);
    mpi_info_put(f->hints, "cb_nodes", buf);
    mpi_info_put(f->hints, "romio_cb_read", names[0]);
    mpi_info_put(f->hints, "romio_cb_write", names[0]);
    snprintf(buf, sizeof buf, "%lld", (long long)f->ind_rd_buffer_size);
    mpi_info_put(f->hints, "ind_rd_buffer_size", buf);
    mpi_info_put(f->hints, "ind_wr_buffer_size", "524288");
    mpi_info_put(f->hints, "romio_no_indep_rw", "false");
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- open */
static const char *strip_prefix(const char *name)
{
    static const char *const fs[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:",
                                     "testfs:", "xfs:", "daos:", "quobyte:", NULL};
    for (int i = 0; fs[i] != NULL; i++)
        if (strncmp(name, fs[i], strlen(fs[i])) == 0)
            return name + strlen(fs[i]);
    return name;
}

static int check_amode(int amode, char *why, size_t len)
{
    int access = amode & (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY);
    int all = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
              MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |
              MPI_MODE_SEQUENTIAL;

    if (amode & ~all)
        snprintf(why, len, "amode=%#x has unknown bits %#x", (unsigned)amode,
                 (unsigned)(amode & ~all));
    else if (access != MPI_MODE_RDONLY && access != MPI_MODE_RDWR && access != MPI_MODE_WRONLY)
        snprintf(why, len,
                 "amode=%#x must have exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR, "
                 "MPI_MODE_WRONLY", (unsigned)amode);
    else if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        snprintf(why, len, "amode=%#x: MPI_MODE_RDONLY with MPI_MODE_%s", (unsigned)amode,
                 (amode & MPI_MODE_CREATE) ? "CREATE" : "EXCL");
    else if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        snprintf(why, len, "amode=%#x: MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL", (unsigned)amode);
    else
        return 0;
    return -1;
}

static int open_flags(int amode)
{
    int flags = O_CLOEXEC;
    if (amode & MPI_MODE_RDONLY)
        flags |= O_RDONLY;
    else if (amode & MPI_MODE_WRONLY)
        flags |= O_WRONLY;
    else
        flags |= O_RDWR;
    return flags;
}

/* Open with open_flags(amode) | extra. A write-only file is opened for
 * reading too when the permissions allow it, because collective writes with
 * holes read the gaps they rewrite (MPICH's io/i_hindexed opens
 * MPI_MODE_WRONLY); reads stay refused at the MPI level by the amode. */
static int open_fd(const char *path, int amode, int extra, int perm)
{
    int fd;
    if (amode & MPI_MODE_WRONLY) {
        fd = open(path, (open_flags(amode) & ~O_WRONLY) | O_RDWR | extra, perm);
        if (fd >= 0 || (errno != EACCES && errno != EPERM && errno != EROFS))
            return fd;
    }
    return open(path, open_flags(amode) | extra, perm);
}

/* What rank 0 tells the others after trying to create/open the file. */
typedef struct {
    int errclass;
    int eno;
    char token[32];
} open_result_t;

static void file_free(struct ADIOI_FileD *f, const char *fn)
{
    if (f == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    io_shfp_close(f, 0);
    io_view_free(f, fn);
    if (f->hints != MPI_INFO_NULL)
        mpi_info_free_impl(&f->hints, fn);
    if (f->comm != NULL) {
        MPI_Comm h = f->comm->handle;
        mpi_comm_free_impl(&h, fn);
        f->comm = NULL;
    }
    mpi_errhandler_release(f->errh);
    free(f->filename);
    f->magic = 0;
    free(f);
}

/* MPI_File_open, phase by phase: open_args, open_object, open_amode,
 * open_fds, open_finish. Each raises its own error (through
 * MPI_FILE_NULL's handler, which may clear it: io/io.h's IO_HANDLED) and,
 * from open_amode on, frees the file when it fails. */

/* What every rank checks alone. */
static int open_args(MPI_Comm comm, const char *filename, MPI_Info info, MPI_File *fh,
                     mpi_comm_t **c_out, const char *fn)
{
    mpi_comm_t *c;

    if ((c = mpi_comm_get(comm)) == NULL)
        return io_err(NULL, MPI_ERR_COMM, fn, "comm=%#x is not a valid communicator%s",
                      (unsigned)comm, comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if (c->is_inter)
        return io_err(NULL, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator", (unsigned)comm);
    if (fh == NULL)
        return io_err(NULL, MPI_ERR_ARG, fn, "fh is NULL");
    if (filename == NULL || filename[0] == '\0')
        return io_err(NULL, MPI_ERR_BAD_FILE, fn, "filename is %s", filename ? "empty" : "NULL");
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return io_err(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                      (unsigned)info);
    *c_out = c;
    return MPI_SUCCESS;
}

/* The file object: its private communicator, its hints, and the
 * permissions of a file it creates (the file_perm hint). */
static int open_object(mpi_comm_t *c, MPI_Comm comm, const char *filename, const char *path,
                       int amode, MPI_Info info, struct ADIOI_FileD **f_out, int *perm_out,
                       const char *fn)
{
    struct ADIOI_FileD *f;
    const char *v, *why = "";
    int err;

    f = calloc(1, sizeof *f);
    if (f == NULL || (f->filename = strdup(path)) == NULL) {
        free(f);
        return io_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory opening %s", filename);
    }
    f->magic = IO_FILE_MAGIC;
    f->fd = -1;
    f->shfp_fd = -1;
    f->amode = amode;
    f->comm = NULL;
    f->hints = MPI_INFO_NULL;
    f->errh = io_null_errh;
    mpi_errhandler_retain(f->errh, MPI_OBJ_FILE);
    /* The file's own communicator returns its errors (MPI_ERRORS_RETURN,
     * not the handler the duplicate inherits from comm): a collective that
     * io/ runs on it and that fails (a lost process, a mismatch found by
     * the checking mode) reaches the file's handler once, through io_err,
     * and stops the call. With comm's handler it went to a communicator
     * the user never saw, and a handler that cleared it let the call run
     * on with what the collective had not delivered. The duplication
     * itself raises nothing on comm either (mpi_comm_dup_quiet): its
     * failure is MPI_File_open's, on MPI_FILE_NULL's handler (MPI 4.0
     * section 14.7, and MPICH 4.0.2 raises every error of MPI_File_open
     * there), with the class it had (MPIX_ERR_PROC_FAILED for a lost
     * process). */
    if ((err = mpi_comm_dup_quiet(c, &f->comm, &why)) != MPI_SUCCESS) {
        char detail[256];

        snprintf(detail, sizeof detail, "%s", why); /* (a thread's detail, before file_free) */
        f->comm = NULL;
        file_free(f, fn);
        return io_err(NULL, err, fn, "cannot duplicate comm=%#x for %s: %s", (unsigned)comm,
                      filename, detail);
    }
    if (mpi_comm_set_errhandler_impl(f->comm, MPI_ERRORS_RETURN, fn) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_OTHER, fn, "cannot duplicate comm=%#x for %s",
                      (unsigned)comm, filename);
    }
    f->rank = f->comm->rank;
    f->size = f->comm->size;
    if ((err = hints_defaults(f)) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, err, fn, "cannot create the hints of %s", filename);
    }
    if ((err = hints_apply(f, info, fn)) != MPI_SUCCESS) {
        file_free(f, fn);
        return err;
    }
    /* memory allocation kinds: the communicator's, or those of info */
    if (mpi_memkinds_put(f->hints, mpi_memkinds_of(f->comm->info), info) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_NO_MEM, fn, "cannot create the hints of %s", filename);
    }
    if ((v = mpi_info_lookup(info, "file_perm")) != NULL) {
        char *end;
        long p = strtol(v, &end, 8);
        if (*end == '\0' && p >= 0 && p <= 07777)
            *perm_out = (int)p;
    }
    *f_out = f;
    return MPI_SUCCESS;
}

/* Every rank must pass the same valid amode. */
static int open_amode(struct ADIOI_FileD *f, int amode, const char *filename, const char *fn)
{
    char why[256] = "";
    int agree[3], all[3];

    agree[0] = amode;
    agree[1] = -amode;
    agree[2] = check_amode(amode, why, sizeof why) < 0 ? 1 : 0;
    if (mpi_allreduce_impl(agree, all, 3, MPI_INT, MPI_MAX, f->comm, fn) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_OTHER, fn, "cannot agree on the amode of %s", filename);
    }
    if (agree[2]) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_AMODE, fn, "%s opening %s", why, filename);
    }
    if (all[2]) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_AMODE, fn, "another rank passed an invalid amode for %s",
                      filename);
    }
    if (all[0] != amode || -all[1] != amode) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_NOT_SAME, fn,
                      "amode=%#x differs between ranks (range %#x..%#x) opening %s",
                      (unsigned)amode, (unsigned)-all[1], (unsigned)all[0], filename);
    }
    return MPI_SUCCESS;
}

/* Open the descriptors: rank 0 creates (or opens) first, so that
 * MPI_MODE_EXCL has one winner, and chooses the token of the side files;
 * then the others; all agree on the outcome. */
static int open_fds(struct ADIOI_FileD *f, const char *path, const char *filename, int amode,
                    int perm, open_result_t *res, const char *fn)
{
    struct stat sb;
    int err, agree[1], all[1];

    memset(res, 0, sizeof *res);
    if (f->rank == 0) {
        int flags = 0;
        if (amode & MPI_MODE_CREATE)
            flags |= O_CREAT;
        if (amode & MPI_MODE_EXCL)
            flags |= O_EXCL;
        f->fd = open_fd(path, amode, flags, perm);
        if (f->fd < 0) {
            res->eno = errno;
            res->errclass = io_errno_class(errno);
        } else if (fstat(f->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            res->eno = EISDIR;
            res->errclass = MPI_ERR_BAD_FILE;
        }
        snprintf(res->token, sizeof res->token, "%lx.%x", (unsigned long)getpid(),
                 (unsigned)random());
    }
    if (mpi_bcast_impl(res, sizeof *res, MPI_BYTE, 0, f->comm, fn) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, MPI_ERR_OTHER, fn, "cannot share the outcome of opening %s", filename);
    }
    if (res->errclass == 0 && f->rank != 0) {
        f->fd = open_fd(path, amode, 0, perm);
        if (f->fd < 0) {
            res->eno = errno;
            res->errclass = io_errno_class(errno);
        }
    }
    err = res->errclass;
    agree[0] = err;
    if (mpi_allreduce_impl(agree, all, 1, MPI_INT, MPI_MAX, f->comm, fn) != MPI_SUCCESS)
        all[0] = MPI_ERR_OTHER;
    if (all[0] != 0) {
        int cls = err != 0 ? err : all[0];
        file_free(f, fn);
        if (err != 0)
            return io_err(NULL, cls, fn, "cannot open %s with amode=%#x: %s", filename,
                          (unsigned)amode, strerror(res->eno));
        return io_err(NULL, cls, fn, "another rank cannot open %s with amode=%#x", filename,
                      (unsigned)amode);
    }
    return MPI_SUCCESS;
}

/* The shared file pointer (a side file next to the data), the default
 * view, and the pointers of MPI_MODE_APPEND. */
static int open_finish(struct ADIOI_FileD *f, const char *filename, int amode,
                       const open_result_t *res, const char *fn)
{
    char side[64];
    struct stat sb;
    int err;

    snprintf(side, sizeof side, "shfp.%s", res->token);
    if ((err = io_shfp_open(f, side)) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, err, fn, "cannot set up the shared file pointer of %s", filename);
    }
    if ((err = io_view_default(f)) != MPI_SUCCESS) {
        file_free(f, fn);
        return io_err(NULL, err, fn, "cannot set up the view of %s", filename);
    }
    if (amode & MPI_MODE_APPEND) {
        int own = MPI_SUCCESS, any;
        if (fstat(f->fd, &sb) == 0)
            f->fp_ind = sb.st_size;
        /* the shared pointer's initial value, stored by rank 0 before any
         * rank can move it */
        if (f->rank == 0)
            own = io_shfp_store(f, f->fp_ind);
        any = io_agree(f, own != MPI_SUCCESS ? MPI_ERR_IO : 0, fn);
        if (own != MPI_SUCCESS || any != 0) {
            file_free(f, fn);
            return own != MPI_SUCCESS
                       ? own
                       : io_err(NULL, any, fn, "cannot set the shared file pointer of %s",
                                filename);
        }
    }
    return MPI_SUCCESS;
}

int mpi_file_open_impl(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh,
                       const char *fn)
{
    struct ADIOI_FileD *f = NULL;
    mpi_comm_t *c = NULL;
    int err, perm = 0666;
    const char *path;
    open_result_t res;

    if ((err = open_args(comm, filename, info, fh, &c, fn)) != MPI_SUCCESS)
        return err;
    path = strip_prefix(filename);
    if ((err = open_object(c, comm, filename, path, amode, info, &f, &perm, fn)) != MPI_SUCCESS ||
        (err = open_amode(f, amode, filename, fn)) != MPI_SUCCESS ||
        (err = open_fds(f, path, filename, amode, perm, &res, fn)) != MPI_SUCCESS ||
        (err = open_finish(f, filename, amode, &res, fn)) != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&io_lock);
    f->next = io_files;
    io_files = f;
    pthread_mutex_unlock(&io_lock);
    *fh = f;
    return MPI_SUCCESS;
}

static void file_unlist(struct ADIOI_FileD *f)
{
    pthread_mutex_lock(&io_lock);
    for (struct ADIOI_FileD **p = &io_files; *p != NULL; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    pthread_mutex_unlock(&io_lock);
}

int mpi_file_close_impl(MPI_File *fh, const char *fn)
{
    struct ADIOI_FileD *f;
    int err = MPI_SUCCESS, cls = 0;
    char *name;

    if (fh == NULL)
        return io_err(NULL, MPI_ERR_ARG, fn, "fh is NULL");
    if ((f = io_file_get(*fh, fn, &err)) == NULL)
        return err;
    if (f->split.active)
        return io_err(f, MPI_ERR_OTHER, fn, "a split collective is still in progress");
    /* Every rank is done with the file (and the shared pointer) before the
     * side file or, with MPI_MODE_DELETE_ON_CLOSE, the file goes away. */
    if ((f->amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR)) && fsync(f->fd) < 0 && errno != EINVAL &&
        errno != EROFS)
        cls = io_errno_class(errno);
    mpi_barrier_impl(f->comm, fn);
    if (f->rank == 0) {
        io_shfp_close(f, 1);
        if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->filename) < 0 && errno != ENOENT)
            cls = io_errno_class(errno);
    }
    /* the deletion is visible everywhere once close returns */
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        int any = io_agree(f, cls, fn);
        if (cls == 0)
            cls = any;
    }
    file_unlist(f);
    mpi_file_f2c_forget(*fh);
    name = strdup(f->filename);
    if (cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED)
        err = io_err(f, cls, fn, "closing failed: %s",
                     cls == MPIX_ERR_REVOKED ? "the file's communicator was revoked"
                                             : "a process of the file's communicator failed");
    else if (cls != 0)
        err = io_err(f, cls, fn, "closing failed: %s", strerror(errno));
    file_free(f, fn);
    free(name);
    *fh = MPI_FILE_NULL;
    return err;
}

int mpi_file_delete_impl(const char *filename, MPI_Info info, const char *fn)
{
    const char *path;
    struct stat sb;

    if (filename == NULL || filename[0] == '\0')
        return io_err(NULL, MPI_ERR_BAD_FILE, fn, "filename is %s", filename ? "empty" : "NULL");
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return io_err(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                      (unsigned)info);
    path = strip_prefix(filename);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return io_err(NULL, MPI_ERR_BAD_FILE, fn, "%s is a directory", filename);
    if (unlink(path) < 0)
        return io_err(NULL, io_errno_class(errno), fn, "cannot delete %s: %s", filename,
                      strerror(errno));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- size */
/* All ranks pass the same size to set_size/preallocate. */
static int agree_size(struct ADIOI_FileD *f, MPI_Offset size, const char *fn)
{
    long long v[2] = {size, -size}, all[2];
    if (mpi_allreduce_impl(v, all, 2, MPI_LONG_LONG, MPI_MAX, f->comm, fn) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_OTHER, fn, "cannot agree on the size");
    if (all[0] != size || -all[1] != size)
        return io_err(f, MPI_ERR_NOT_SAME, fn, "size=%lld differs between ranks",
                      (long long)size);
    return MPI_SUCCESS;
}

static int writable(struct ADIOI_FileD *f, const char *fn)
{
    if (f->amode & MPI_MODE_RDONLY)
        return io_err(f, MPI_ERR_READ_ONLY, fn, "the file was opened with MPI_MODE_RDONLY");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

int mpi_file_set_size_impl(struct ADIOI_FileD *f, MPI_Offset size, const char *fn)
{
    int err, cls = 0, eno = 0;

    /* (the ranks agree on the size first: a negative one fails on all alike) */
    if ((err = writable(f, fn)) || (err = agree_size(f, size, fn)))
        return err;
    if (size < 0)
        return io_err(f, MPI_ERR_ARG, fn, "size=%lld is negative", (long long)size);
    if (f->rank == 0 && ftruncate(f->fd, size) < 0) {
        eno = errno;
        cls = io_errno_class(errno);
    }
    cls = io_agree(f, cls, fn);
    if (cls != 0)
        return io_err(f, cls, fn, "cannot set the size to %lld: %s", (long long)size,
                      eno ? strerror(eno) : "failed on rank 0");
    return MPI_SUCCESS;
}

int mpi_file_preallocate_impl(struct ADIOI_FileD *f, MPI_Offset size, const char *fn)
{
    int err, cls = 0, eno = 0;
    struct stat sb;

    /* (the ranks agree on the size first: a negative one fails on all alike) */
    if ((err = writable(f, fn)) || (err = agree_size(f, size, fn)))
        return err;
    if (size < 0)
        return io_err(f, MPI_ERR_ARG, fn, "size=%lld is negative", (long long)size);
    /* Preallocation never shrinks the file. */
    if (f->rank == 0 && fstat(f->fd, &sb) == 0 && sb.st_size < size) {
        int rc = posix_fallocate(f->fd, 0, size);
        if (rc != 0 && ftruncate(f->fd, size) < 0) {
            eno = errno;
            cls = io_errno_class(errno);
        }
    }
    cls = io_agree(f, cls, fn);
    if (cls != 0)
        return io_err(f, cls, fn, "cannot preallocate %lld bytes: %s", (long long)size,
                      eno ? strerror(eno) : "failed on rank 0");
    return MPI_SUCCESS;
}

int mpi_file_get_size_impl(struct ADIOI_FileD *f, MPI_Offset *size, const char *fn)
{
    struct stat sb;

    if (fstat(f->fd, &sb) < 0)
        return io_err(f, io_errno_class(errno), fn, "fstat failed: %s", strerror(errno));
    *size = sb.st_size;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- queries */
int mpi_file_get_amode_impl(struct ADIOI_FileD *f, int *amode, const char *fn)
{

    *amode = f->amode;
    return MPI_SUCCESS;
}

int mpi_file_get_group_impl(struct ADIOI_FileD *f, MPI_Group *group, const char *fn)
{
    int err;

    if ((err = mpi_comm_group_impl(f->comm, group, fn)) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_OTHER, fn, "cannot make the group");
    return MPI_SUCCESS;
}

int mpi_file_set_info_impl(struct ADIOI_FileD *f, MPI_Info info, const char *fn)
{

    return hints_apply(f, info, fn);
}

/* For MPI_File_set_view's info argument (io/io_view.c). */
int io_hints_apply(struct ADIOI_FileD *f, MPI_Info info, const char *fn)
{
    return hints_apply(f, info, fn);
}

int mpi_file_get_info_impl(struct ADIOI_FileD *f, MPI_Info *info_used, const char *fn)
{

    if (mpi_info_dup_impl(f->hints, info_used, fn) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot copy the hints");
    return MPI_SUCCESS;
}

int mpi_file_sync_impl(struct ADIOI_FileD *f, const char *fn)
{
    int cls = 0, eno = 0;

    if (f->amode & MPI_MODE_RDONLY)
        return io_err(f, MPI_ERR_ACCESS, fn, "the file was opened with MPI_MODE_RDONLY");
    if (fsync(f->fd) < 0 && errno != EINVAL && errno != EROFS) {
        eno = errno;
        cls = io_errno_class(errno);
    }
    /* Collective: data written by any rank before the sync is visible to
     * every rank after it. */
    cls = io_agree(f, cls, fn);
    if (cls != 0)
        return io_err(f, cls, fn, "fsync failed: %s", eno ? strerror(eno) : "on another rank");
    return MPI_SUCCESS;
}

int mpi_file_set_atomicity_impl(struct ADIOI_FileD *f, int flag, const char *fn)
{
    int v[2], all[2];

    v[0] = flag ? 1 : 0;
    v[1] = -v[0];
    if (mpi_allreduce_impl(v, all, 2, MPI_INT, MPI_MAX, f->comm, fn) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_OTHER, fn, "cannot agree on the flag");
    if (all[0] != -all[1])
        return io_err(f, MPI_ERR_NOT_SAME, fn, "flag=%d differs between ranks", flag);
    f->atomic = v[0];
    return MPI_SUCCESS;
}

int mpi_file_get_atomicity_impl(struct ADIOI_FileD *f, int *flag, const char *fn)
{

    *flag = f->atomic;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- error handlers */
/* These three are entry points of mpi/api/09-environment.api, whose
 * entries do not pass through mpi_result: they return mpi_result() of their
 * raises themselves. */
int mpi_file_set_errhandler_impl(MPI_File file, MPI_Errhandler errhandler, const char *fn)
{
    struct ADIOI_FileD *f = NULL;
    int err;

    if (file != MPI_FILE_NULL && (f = io_file_get(file, fn, &err)) == NULL)
        return mpi_result(err);
    if (mpi_errhandler_retain(errhandler, MPI_OBJ_FILE) < 0)
        return mpi_result(io_err(f, MPI_ERR_ARG, fn,
                                "errhandler=%#x is not a valid file error handler",
                                (unsigned)errhandler));
    if (f == NULL) {
        mpi_errhandler_release(io_null_errh);
        io_null_errh = errhandler;
    } else {
        mpi_errhandler_release(f->errh);
        f->errh = errhandler;
    }
    return MPI_SUCCESS;
}

int mpi_file_get_errhandler_impl(MPI_File file, MPI_Errhandler *errhandler, const char *fn)
{
    struct ADIOI_FileD *f = NULL;
    MPI_Errhandler h;
    int err;

    if (file != MPI_FILE_NULL && (f = io_file_get(file, fn, &err)) == NULL)
        return mpi_result(err);
    if (errhandler == NULL)
        return mpi_result(io_err(f, MPI_ERR_ARG, fn, "errhandler is NULL"));
    h = f != NULL ? f->errh : io_null_errh;
    mpi_errhandler_retain(h, MPI_OBJ_FILE);
    *errhandler = h;
    return MPI_SUCCESS;
}

int mpi_file_call_errhandler_impl(MPI_File fh, int errorcode, const char *fn)
{
    struct ADIOI_FileD *f = NULL;
    MPI_Errhandler errh;
    MPI_File h = fh;
    char text[MPI_MAX_ERROR_STRING], cstr[MPI_MAX_ERROR_STRING];
    const char *detail = text;
    int err, cls = MPI_ERR_OTHER, len = 0;
    size_t fl = strlen(fn), cl;

    if (fh != MPI_FILE_NULL && (f = io_file_get(fh, fn, &err)) == NULL)
        return mpi_result(err);
    errh = f != NULL ? f->errh : io_null_errh;
    if (mpi_err_invoke_errh != NULL) {
        mpi_err_invoke_errh(errh, MPI_OBJ_FILE, &h, errorcode, fn);
        return MPI_SUCCESS;
    }
    /* Without that service: raise a code of the same class and text. */
    if (mpi_error_class_impl(errorcode, &cls, fn) != MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    text[0] = cstr[0] = '\0';
    mpi_error_string_impl(errorcode, text, &len, fn);
    mpi_error_string_impl(cls, cstr, &len, fn);
    cl = strlen(cstr);
    if (strncmp(detail, fn, fl) == 0 && detail[fl] == ':' && detail[fl + 1] == ' ')
        detail += fl + 2;
    if (strncmp(detail, cstr, cl) == 0 && detail[cl] == ':' && detail[cl + 1] == ' ')
        detail += cl + 2;
    mpi_err_raise_errh(errh, MPI_OBJ_FILE, &h, cls, fn, "%s", detail);
    return MPI_SUCCESS;
}
