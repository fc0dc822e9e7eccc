/*
 * MPI-IO views, data representations and file pointers (MPI 4.0 sections
 * 14.3, 14.4.3-14.4.4 and 14.5): MPI_File_set_view/get_view, the mapping of
 * the view's data stream onto file bytes, conversion between memory and the
 * file representation (native, internal, external32 and user-registered
 * ones), the individual pointer (seek, get_position, get_byte_offset) and
 * the shared pointer's storage. io/io_rw.c moves data through these.
 *
 * A view is flattened once, when it is set: the data blocks of one filetype
 * instance become a sorted list of (offset, length) with prefix sums, so
 * that mapping a stream position to a file offset is a division and a
 * binary search, and walking a range yields merged contiguous pieces.
 *
 * The shared file pointer is a small side file next to the data file
 * (".<name>.shfp.<token>", one MPI_Offset), read and updated under an fcntl
 * lock: it works between processes on one node and on file systems with
 * POSIX locks across nodes, and needs no server process. It is created on
 * first use and removed by MPI_File_close.
 */
#include "io_impl.h"
#include "mpi/api_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *shfp_fallback_name(struct ADIOI_FileD *f);

/* ---------------------------------------------------------------- datareps */
static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static io_datarep_t *reps;

static io_datarep_t *rep_find(const char *name)
{
    io_datarep_t *r;
    pthread_mutex_lock(&rep_lock);
    for (r = reps; r != NULL && strcmp(r->name, name) != 0; r = r->next)
        ;
    pthread_mutex_unlock(&rep_lock);
    return r;
}

static int register_datarep(const char *datarep, MPI_Datarep_conversion_function *rd_i,
                            MPI_Datarep_conversion_function *wr_i,
                            MPI_Datarep_conversion_function_c *rd,
                            MPI_Datarep_conversion_function_c *wr,
                            MPI_Datarep_extent_function *extent, void *extra, const char *fn)
{
    io_datarep_t *r;

    if (datarep == NULL || datarep[0] == '\0' || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return io_err(NULL, MPI_ERR_ARG, fn, "datarep is %s",
                      datarep == NULL ? "NULL" : datarep[0] ? "too long" : "empty");
    if (extent == NULL)
        return io_err(NULL, MPI_ERR_ARG, fn, "dtype_file_extent_fn is NULL for \"%s\"", datarep);
    if (strcmp(datarep, "native") == 0 || strcmp(datarep, "internal") == 0 ||
        strcmp(datarep, "external32") == 0 || rep_find(datarep) != NULL)
        return io_err(NULL, MPI_ERR_DUP_DATAREP, fn, "datarep \"%s\" is already defined",
                      datarep);
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return io_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    snprintf(r->name, sizeof r->name, "%s", datarep);
    r->read_fn_i = rd_i;
    r->write_fn_i = wr_i;
    r->read_fn = rd;
    r->write_fn = wr;
    r->extent_fn = extent;
    r->extra = extra;
    pthread_mutex_lock(&rep_lock);
    r->next = reps;
    reps = r;
    pthread_mutex_unlock(&rep_lock);
    return MPI_SUCCESS;
}

int mpi_register_datarep_impl(const char *datarep,
                              MPI_Datarep_conversion_function *read_conversion_fn,
                              MPI_Datarep_conversion_function *write_conversion_fn,
                              MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state,
                              const char *fn)
{
    return register_datarep(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL,
                            dtype_file_extent_fn, extra_state, fn);
}

int mpi_register_datarep_c_impl(const char *datarep,
                                MPI_Datarep_conversion_function_c *read_conversion_fn,
                                MPI_Datarep_conversion_function_c *write_conversion_fn,
                                MPI_Datarep_extent_function *dtype_file_extent_fn,
                                void *extra_state, const char *fn)
{
    return register_datarep(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn,
                            dtype_file_extent_fn, extra_state, fn);
}

int mpi_datarep_set_proxy(const char *datarep, const mpi_datarep_proxy_t *proxy)
{
    io_datarep_t *r = rep_find(datarep);
    if (r == NULL)
        return -1;
    r->proxy = proxy;
    return 0;
}

/* Bytes in the file of one element of the only basic type dt is made of
 * (user representations); -1 if dt mixes basic types. */
static MPI_Offset user_elem_extent(io_datarep_t *r, dt_type_t *dt)
{
    dt_builtin_t b = dt_basic_type(dt);
    MPI_Aint ext = 0;
    if (b == DT_NBUILTIN)
        return dt_size(dt) == 0 ? 0 : -1;
    if ((r->proxy != NULL ? r->proxy->extent(r->extent_fn, mpi_dt_builtin_handle(b), &ext, r->extra)
                          : r->extent_fn(mpi_dt_builtin_handle(b), &ext, r->extra)) != MPI_SUCCESS ||
        ext < 0)
        return -1;
    return ext;
}

int io_rep_size(struct ADIOI_FileD *f, dt_type_t *dt, MPI_Datatype h, MPI_Count count,
                MPI_Offset *bytes_out, const char *fn)
{
    size_t s;
    MPI_Offset e;

    *bytes_out = -1;
    switch (f->rep) {
    case IO_REP_EXTERNAL32:
        if (dt_external32_size(dt, (size_t)count, &s) != CANAL_OK)
            return io_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                          "datatype=%#x has no external32 representation", (unsigned)h);
        *bytes_out = (MPI_Offset)s;
        return MPI_SUCCESS;
    case IO_REP_USER:
        e = user_elem_extent(f->urep, dt);
        if (e < 0)
            return io_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                          "datatype=%#x mixes basic types; datarep \"%s\" needs one",
                          (unsigned)h, f->urep->name);
        *bytes_out = e * (MPI_Offset)dt_elements(dt) * count;
        return MPI_SUCCESS;
    default:
        *bytes_out = (MPI_Offset)dt_size(dt) * count;
        return MPI_SUCCESS;
    }
}

static int user_has_fn(io_datarep_t *r, int write)
{
    return write ? (r->write_fn != NULL || r->write_fn_i != NULL)
                 : (r->read_fn != NULL || r->read_fn_i != NULL);
}

static int user_convert(io_datarep_t *r, int write, void *userbuf, MPI_Datatype h,
                        MPI_Count count, void *filebuf)
{
    if (r->proxy != NULL) {
        int large = write ? r->write_fn != NULL : r->read_fn != NULL;
        void (*f)(void) = write ? (large ? (void (*)(void))r->write_fn : (void (*)(void))r->write_fn_i)
                                : (large ? (void (*)(void))r->read_fn : (void (*)(void))r->read_fn_i);
        return r->proxy->convert(f, large, userbuf, h, count, filebuf, 0, r->extra);
    }
    if (write) {
        if (r->write_fn != NULL)
            return r->write_fn(userbuf, h, count, filebuf, 0, r->extra);
        return r->write_fn_i(userbuf, h, (int)count, filebuf, 0, r->extra);
    }
    if (r->read_fn != NULL)
        return r->read_fn(userbuf, h, count, filebuf, 0, r->extra);
    return r->read_fn_i(userbuf, h, (int)count, filebuf, 0, r->extra);
}

int io_stream_from_mem(struct ADIOI_FileD *f, const void *buf, MPI_Count count, dt_type_t *dt,
                       MPI_Datatype h, MPI_Offset bytes, void **stream_out, int *owned_out,
                       const char *fn)
{
    void *s;
    size_t done = 0;

    *owned_out = 0;
    if (bytes == 0) {
        *stream_out = (void *)buf;
        return MPI_SUCCESS;
    }
    if ((f->rep == IO_REP_NATIVE || f->rep == IO_REP_INTERNAL ||
         (f->rep == IO_REP_USER && !user_has_fn(f->urep, 1))) &&
        dt_is_contig_count(dt, (size_t)count)) {
        *stream_out = (char *)buf + dt_true_lb(dt);
        return MPI_SUCCESS;
    }
    s = malloc((size_t)bytes);
    if (s == NULL)
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot allocate %lld bytes to pack the data",
                      (long long)bytes);
    switch (f->rep) {
    case IO_REP_EXTERNAL32:
        if (dt_pack_external32(buf, (size_t)count, dt, s, (size_t)bytes, &done) != CANAL_OK)
            goto fail_convert;
        break;
    case IO_REP_USER:
        if (user_has_fn(f->urep, 1)) {
            if (user_convert(f->urep, 1, (void *)buf, h, count, s) != MPI_SUCCESS)
                goto fail_convert;
            break;
        }
        /* no conversion function: the bytes are native */
        __attribute__((fallthrough));
    default:
        if (dt_pack(buf, (size_t)count, dt, s, (size_t)bytes, &done) != CANAL_OK)
            goto fail_convert;
        break;
    }
    *stream_out = s;
    *owned_out = 1;
    return MPI_SUCCESS;

fail_convert:
    free(s);
    return io_err(f, MPI_ERR_CONVERSION, fn, "cannot convert datatype=%#x to datarep \"%s\"",
                  (unsigned)h, f->datarep);
}

int io_stream_for_read(struct ADIOI_FileD *f, void *buf, MPI_Count count, dt_type_t *dt,
                       MPI_Offset bytes, void **stream_out, int *owned_out, const char *fn)
{
    *owned_out = 0;
    if (bytes == 0) {
        *stream_out = buf;
        return MPI_SUCCESS;
    }
    if ((f->rep == IO_REP_NATIVE || f->rep == IO_REP_INTERNAL ||
         (f->rep == IO_REP_USER && !user_has_fn(f->urep, 0))) &&
        dt_is_contig_count(dt, (size_t)count)) {
        *stream_out = (char *)buf + dt_true_lb(dt);
        return MPI_SUCCESS;
    }
    *stream_out = malloc((size_t)bytes);
    if (*stream_out == NULL)
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot allocate %lld bytes for the data",
                      (long long)bytes);
    *owned_out = 1;
    return MPI_SUCCESS;
}

int io_stream_to_mem(struct ADIOI_FileD *f, const void *stream, MPI_Offset got, void *buf,
                     MPI_Count count, dt_type_t *dt, MPI_Datatype h, const char *fn)
{
    size_t done = 0;
    canal_status_t st = CANAL_OK;

    if (stream == (char *)buf + dt_true_lb(dt) || got == 0)
        return MPI_SUCCESS;
    switch (f->rep) {
    case IO_REP_EXTERNAL32:
        st = dt_unpack_external32(stream, (size_t)got, buf, (size_t)count, dt, &done);
        break;
    case IO_REP_USER:
        if (user_has_fn(f->urep, 0)) {
            MPI_Offset e = user_elem_extent(f->urep, dt);
            MPI_Count n = e > 0 ? got / e : 0;
            /* whole elements only: a short read converts what arrived */
            if (n > count * (MPI_Count)dt_elements(dt))
                n = count * (MPI_Count)dt_elements(dt);
            if (dt_elements(dt) > 1 && n == count * (MPI_Count)dt_elements(dt))
                n = count;
            else if (dt_elements(dt) > 1)
                n = n / (MPI_Count)dt_elements(dt);
            if (n > 0 && user_convert(f->urep, 0, buf, h, n, (void *)stream) != MPI_SUCCESS)
                st = CANAL_ERR_ARG;
            break;
        }
        __attribute__((fallthrough));
    default:
        st = dt_unpack(stream, (size_t)got, buf, (size_t)count, dt, &done);
        break;
    }
    if (st != CANAL_OK)
        return io_err(f, MPI_ERR_CONVERSION, fn,
                      "cannot convert from datarep \"%s\" to datatype=%#x", f->datarep,
                      (unsigned)h);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- flattening */
static void flat_free(io_flat_t *fl)
{
    free(fl->off);
    free(fl->len);
    free(fl->psum);
    memset(fl, 0, sizeof *fl);
}

static int flat_push(io_flat_t *fl, size_t *cap, MPI_Offset off, MPI_Offset len)
{
    if (len == 0)
        return 0;
    if (fl->n > 0 && fl->off[fl->n - 1] + fl->len[fl->n - 1] == off) {
        fl->len[fl->n - 1] += len;
        return 0;
    }
    if (fl->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        MPI_Offset *o = realloc(fl->off, nc * sizeof *o);
        if (o == NULL)
            return -1;
        fl->off = o;
        o = realloc(fl->len, nc * sizeof *o);
        if (o == NULL)
            return -1;
        fl->len = o;
        *cap = nc;
    }
    fl->off[fl->n] = off;
    fl->len[fl->n] = len;
    fl->n++;
    return 0;
}

#define FLAT_BASE ((intptr_t)1 << 62)

/* Flatten one instance of t. Returns an MPI error class (not raised) and a
 * reason in why. */
static int flatten(dt_type_t *t, io_flat_t *fl, char *why, size_t wlen)
{
    dt_cursor_t c;
    struct iovec iov[64];
    size_t cap = 0;
    int n;

    memset(fl, 0, sizeof *fl);
    if (dt_cursor_init(&c, t, 1) != CANAL_OK) {
        snprintf(why, wlen, "cannot walk the filetype");
        return MPI_ERR_TYPE;
    }
    /* The walk yields addresses buf + offset; offsets are what we want. buf
     * is an address in the middle of the address space rather than NULL:
     * arithmetic on a null pointer is undefined (UBSan reports it), and the
     * middle leaves room for negative and large offsets either way. */
    while (dt_iov_next(&c, (void *)FLAT_BASE, iov, 64, SIZE_MAX, &n) > 0 || n > 0) {
        for (int i = 0; i < n; i++)
            if (flat_push(fl, &cap, (MPI_Offset)((intptr_t)iov[i].iov_base - FLAT_BASE),
                          (MPI_Offset)iov[i].iov_len) < 0) {
                dt_cursor_fini(&c);
                flat_free(fl);
                snprintf(why, wlen, "out of memory");
                return MPI_ERR_NO_MEM;
            }
        if (n == 0)
            break;
    }
    dt_cursor_fini(&c);
    fl->psum = malloc((fl->n + 1) * sizeof *fl->psum);
    if (fl->psum == NULL) {
        flat_free(fl);
        snprintf(why, wlen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    fl->psum[0] = 0;
    for (size_t i = 0; i < fl->n; i++) {
        if (fl->off[i] < 0) {
            snprintf(why, wlen, "the filetype has data at negative displacement %lld",
                     (long long)fl->off[i]);
            flat_free(fl);
            return MPI_ERR_TYPE;
        }
        if (i > 0 && fl->off[i] < fl->off[i - 1]) {
            snprintf(why, wlen,
                     "the filetype's displacements are not monotonically nondecreasing "
                     "(%lld after %lld)", (long long)fl->off[i], (long long)fl->off[i - 1]);
            flat_free(fl);
            return MPI_ERR_TYPE;
        }
        if (i > 0 && fl->off[i] < fl->off[i - 1] + fl->len[i - 1])
            fl->overlap = 1;
        fl->psum[i + 1] = fl->psum[i] + fl->len[i];
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- mapping */
static size_t flat_find(const io_flat_t *fl, MPI_Offset r)
{
    /* the block b with psum[b] <= r < psum[b + 1] */
    size_t lo = 0, hi = fl->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (fl->psum[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

MPI_Offset io_view_byte(const struct ADIOI_FileD *f, MPI_Offset pos)
{
    const io_flat_t *fl = &f->flat;
    MPI_Offset k, r;
    size_t b;

    if (fl->n == 1 && fl->len[0] == f->fextent)
        return f->disp + fl->off[0] + pos;
    if (f->fsize == 0)
        return f->disp; /* a view without data */
    k = pos / f->fsize;
    r = pos % f->fsize;
    b = flat_find(fl, r);
    return f->disp + k * f->fextent + fl->off[b] + (r - fl->psum[b]);
}

MPI_Offset io_view_bytes_before(const struct ADIOI_FileD *f, MPI_Offset abs)
{
    const io_flat_t *fl = &f->flat;
    MPI_Offset rel = abs - f->disp, k, rem, bytes;
    size_t lo = 0, hi = fl->n;

    if (rel <= 0 || fl->n == 0)
        return 0;
    if (fl->n == 1 && fl->len[0] == f->fextent)
        return rel - fl->off[0] > 0 ? rel - fl->off[0] : 0;
    k = rel / f->fextent;
    rem = rel % f->fextent;
    bytes = k * f->fsize;
    /* the last block starting before rem */
    if (fl->off[0] >= rem)
        return bytes;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (fl->off[mid] < rem)
            lo = mid;
        else
            hi = mid;
    }
    bytes += fl->psum[lo] + (rem - fl->off[lo] < fl->len[lo] ? rem - fl->off[lo] : fl->len[lo]);
    return bytes;
}

int io_view_walk(const struct ADIOI_FileD *f, MPI_Offset pos, MPI_Offset len,
                 int (*fn)(MPI_Offset off, MPI_Offset len, void *arg), void *arg)
{
    const io_flat_t *fl = &f->flat;
    MPI_Offset k, r, pend_off = 0, pend_len = 0;
    size_t b;
    int rc;

    if (len <= 0 || f->fsize == 0)
        return 0;
    if (fl->n == 1 && fl->len[0] == f->fextent)
        return fn(f->disp + fl->off[0] + pos, len, arg);
    k = pos / f->fsize;
    r = pos % f->fsize;
    b = flat_find(fl, r);
    r -= fl->psum[b]; /* offset inside block b */
    while (len > 0) {
        MPI_Offset piece = fl->len[b] - r, off;
        if (piece > len)
            piece = len;
        off = f->disp + k * f->fextent + fl->off[b] + r;
        if (pend_len > 0 && pend_off + pend_len == off) {
            pend_len += piece;
        } else {
            if (pend_len > 0 && (rc = fn(pend_off, pend_len, arg)) != 0)
                return rc;
            pend_off = off;
            pend_len = piece;
        }
        len -= piece;
        r = 0;
        if (++b == fl->n) {
            b = 0;
            k++;
        }
    }
    return pend_len > 0 ? fn(pend_off, pend_len, arg) : 0;
}

/* ---------------------------------------------------------------- views */
static void view_types_free(struct ADIOI_FileD *f, const char *fn)
{
    /* only the duplicates we made (direct handles) are ours to free */
    if (mpi_handle_kind(f->etype) == MPI_HKIND_DIRECT)
        mpi_type_free_impl(&f->etype, fn);
    if (mpi_handle_kind(f->filetype) == MPI_HKIND_DIRECT)
        mpi_type_free_impl(&f->filetype, fn);
    f->etype = f->filetype = MPI_DATATYPE_NULL;
}

void io_view_free(struct ADIOI_FileD *f, const char *fn)
{
    view_types_free(f, fn);
    flat_free(&f->flat);
}

int io_view_default(struct ADIOI_FileD *f)
{
    char why[128];
    int err;
    f->disp = 0;
    f->etype = f->filetype = MPI_BYTE;
    f->etype_dt = f->ftype_dt = mpi_dt_get(MPI_BYTE);
    f->esize = f->fsize = f->fextent = 1;
    f->rep = IO_REP_NATIVE;
    f->urep = NULL;
    snprintf(f->datarep, sizeof f->datarep, "native");
    f->fp_ind = 0;
    err = flatten(f->ftype_dt, &f->flat, why, sizeof why);
    return err;
}

/* A handle the caller owns: builtins as they are, derived types duplicated. */
static int type_copy(MPI_Datatype t, MPI_Datatype *out, const char *fn)
{
    if (mpi_handle_kind(t) == MPI_HKIND_BUILTIN) {
        *out = t;
        return MPI_SUCCESS;
    }
    return mpi_type_dup_impl(t, out, fn);
}

/* MPI_File_set_view, phase 1: this rank's verdict on the view, 0 or an
 * error class (the reason in why); the engine types, the datarep and the
 * flattened filetype. Checks that fail on some ranks only must not leave
 * the others in the collective that follows: each rank finds its verdict,
 * then all agree. */
static int view_verdict(struct ADIOI_FileD *f, MPI_Datatype etype, MPI_Datatype filetype,
                        const char *datarep, dt_type_t **et_out, dt_type_t **ft_out,
                        io_rep_kind_t *rep_out, io_datarep_t **urep_out, io_flat_t *fl, char *why,
                        size_t whylen)
{
    dt_type_t *et, *ft;
    int cls, bad = 0;

    et = mpi_dt_get(etype);
    ft = mpi_dt_get(filetype);
    if (et == NULL || !dt_is_committed(et)) {
        bad = MPI_ERR_TYPE;
        snprintf(why, whylen, "etype=%#x is not a valid committed datatype", (unsigned)etype);
    } else if (ft == NULL || !dt_is_committed(ft)) {
        bad = MPI_ERR_TYPE;
        snprintf(why, whylen, "filetype=%#x is not a valid committed datatype",
                 (unsigned)filetype);
    } else if (datarep == NULL) {
        bad = MPI_ERR_UNSUPPORTED_DATAREP;
        snprintf(why, whylen, "datarep is NULL");
    } else if (strcmp(datarep, "native") == 0) {
        *rep_out = IO_REP_NATIVE;
    } else if (strcmp(datarep, "internal") == 0) {
        *rep_out = IO_REP_INTERNAL;
    } else if (strcmp(datarep, "external32") == 0) {
        *rep_out = IO_REP_EXTERNAL32;
    } else if ((*urep_out = rep_find(datarep)) != NULL) {
        *rep_out = IO_REP_USER;
    } else {
        bad = MPI_ERR_UNSUPPORTED_DATAREP;
        snprintf(why, whylen, "datarep=\"%s\" is not known", datarep);
    }
    if (bad == 0 && dt_size(et) == 0) {
        bad = MPI_ERR_TYPE;
        snprintf(why, whylen, "etype=%#x has size 0", (unsigned)etype);
    } else if (bad == 0 && dt_size(ft) % dt_size(et) != 0) {
        bad = MPI_ERR_TYPE;
        snprintf(why, whylen,
                 "the size of filetype=%#x (%zu) is not a multiple of the etype's (%zu)",
                 (unsigned)filetype, dt_size(ft), dt_size(et));
    } else if (bad == 0 && dt_size(ft) > 0 && dt_extent(ft) <= 0) {
        /* a filetype without data is fine: this rank's view holds nothing
         * (MPICH's io/setview_zero) */
        bad = MPI_ERR_TYPE;
        snprintf(why, whylen, "filetype=%#x has data but a nonpositive extent",
                 (unsigned)filetype);
    }
    if (bad == 0) {
        char w2[200];
        /* MPICH reports filetypes the file cannot follow as MPI_ERR_IO */
        cls = flatten(ft, fl, w2, sizeof w2);
        if (cls == MPI_SUCCESS && fl->overlap && !(f->amode & MPI_MODE_RDONLY)) {
            snprintf(w2, sizeof w2, "the filetype has overlapping blocks on a writable file");
            flat_free(fl);
            cls = MPI_ERR_IO;
        }
        if (cls != MPI_SUCCESS) {
            bad = cls == MPI_ERR_TYPE ? MPI_ERR_IO : cls;
            snprintf(why, whylen, "filetype=%#x: %s", (unsigned)filetype, w2);
        }
    }
    *et_out = et;
    *ft_out = ft;
    return bad;
}

/* Phase 2, once every rank accepted the view: the sizes of the etype and
 * the filetype, and the filetype's extent, in the file's representation.
 * On failure frees fl and returns what the raise returned (io/io.h: never
 * MPI_SUCCESS); the view stays as it was. */
static int view_sizes(struct ADIOI_FileD *f, dt_type_t *et, dt_type_t *ft, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep, io_rep_kind_t rep,
                      io_datarep_t *urep, io_flat_t *fl, MPI_Offset *esize_out,
                      MPI_Offset *fsize_out, MPI_Offset *fext_out, const char *fn)
{
    struct ADIOI_FileD tmp;
    MPI_Offset esize, fsize;
    int err;

    /* Sizes in the file's representation. A non-contiguous filetype must
     * have the same size in memory and in the file representation. */
    tmp = *f;
    tmp.rep = rep;
    tmp.urep = urep;
    snprintf(tmp.datarep, sizeof tmp.datarep, "%s", datarep);
    if ((err = io_rep_size(&tmp, et, etype, 1, esize_out, fn)) != MPI_SUCCESS ||
        (err = io_rep_size(&tmp, ft, filetype, 1, fsize_out, fn)) != MPI_SUCCESS) {
        flat_free(fl);
        return err;
    }
    esize = *esize_out;
    fsize = *fsize_out;
    *fext_out = dt_extent(ft);
    if (fsize != (MPI_Offset)dt_size(ft)) {
        if (!(fl->n == 1 && fl->off[0] == 0 && fl->len[0] == *fext_out)) {
            flat_free(fl);
            return io_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                          "a non-contiguous filetype whose size differs in datarep \"%s\" is "
                          "not supported",
                          datarep);
        }
        fl->len[0] = fsize;
        fl->psum[1] = fsize;
        *fext_out = fsize;
    }
    if (esize == 0 || fsize % esize != 0) {
        flat_free(fl);
        return io_err(f, MPI_ERR_TYPE, fn,
                      "the etype does not divide the filetype in datarep \"%s\"", datarep);
    }
    return MPI_SUCCESS;
}

int mpi_file_set_view_impl(struct ADIOI_FileD *f, MPI_Offset disp, MPI_Datatype etype,
                           MPI_Datatype filetype, const char *datarep, MPI_Info info,
                           const char *fn)
{
    dt_type_t *et, *ft;
    io_rep_kind_t rep = IO_REP_NATIVE;
    io_datarep_t *urep = NULL;
    io_flat_t fl;
    MPI_Datatype e2 = MPI_DATATYPE_NULL, f2 = MPI_DATATYPE_NULL;
    MPI_Offset esize, fsize, fext;
    char why[256];
    int err, info_err, cls, bad, any;

    memset(&fl, 0, sizeof fl);
    if (f->split.active)
        return io_err(f, MPI_ERR_OTHER, fn, "a split collective is in progress");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset sh = 0;
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return io_err(f, MPI_ERR_ARG, fn,
                          "disp=MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        /* (every rank reads the pointer before any rank moves it again) */
        err = io_shfp_fetch_add(f, 0, &sh);
        any = io_agree(f, err != MPI_SUCCESS ? MPI_ERR_IO : 0, fn);
        if (err != MPI_SUCCESS)
            return err;
        if (any != 0)
            return io_err(f, any, fn, "cannot read the shared file pointer on another rank");
        disp = io_view_byte(f, sh * f->esize);
    } else if (disp < 0) {
        return io_err(f, MPI_ERR_ARG, fn, "disp=%lld is negative", (long long)disp);
    }
    /* Checks that fail on some ranks only must not leave the others in
     * the collective below: each rank finds its verdict, then all agree. */
    bad = view_verdict(f, etype, filetype, datarep, &et, &ft, &rep, &urep, &fl, why, sizeof why);
    any = io_agree(f, bad, fn);
    if (bad != 0)
        return io_err(f, bad, fn, "%s", why);
    if (any != 0) {
        flat_free(&fl);
        return io_err(f, any, fn, "the view given on another rank is invalid");
    }

    if ((err = view_sizes(f, et, ft, etype, filetype, datarep, rep, urep, &fl, &esize, &fsize,
                          &fext, fn)) != MPI_SUCCESS)
        return err;
    if (type_copy(etype, &e2, fn) != MPI_SUCCESS || type_copy(filetype, &f2, fn) != MPI_SUCCESS) {
        flat_free(&fl);
        if (mpi_handle_kind(e2) == MPI_HKIND_DIRECT)
            mpi_type_free_impl(&e2, fn);
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot keep the view's datatypes");
    }
    io_view_free(f, fn);
    f->disp = disp;
    f->etype = e2;
    f->filetype = f2;
    f->etype_dt = mpi_dt_get(e2);
    f->ftype_dt = mpi_dt_get(f2);
    f->esize = esize;
    f->fsize = fsize;
    f->fextent = fext;
    f->flat = fl;
    f->rep = rep;
    f->urep = urep;
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
    f->fp_ind = 0;
    /* Both pointers restart at 0; the shared one once every rank is here
     * (a rank whose info is refused still takes part: the view is set). */
    info_err = io_hints_apply(f, info, fn);
    if (f->rank == 0)
        err = io_shfp_store(f, 0);
    else
        err = MPI_SUCCESS;
    cls = io_agree(f, err != MPI_SUCCESS ? MPI_ERR_IO : 0, fn);
    if (info_err != MPI_SUCCESS)
        return info_err;
    if (err != MPI_SUCCESS)
        return err;
    if (cls != 0)
        return io_err(f, cls, fn, "cannot reset the shared file pointer on rank 0");
    return MPI_SUCCESS;
}

int mpi_file_get_view_impl(struct ADIOI_FileD *f, MPI_Offset *disp, MPI_Datatype *etype,
                           MPI_Datatype *filetype, char *datarep, const char *fn)
{

    if (type_copy(f->etype, etype, fn) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot copy the etype");
    if (type_copy(f->filetype, filetype, fn) != MPI_SUCCESS) {
        if (mpi_handle_kind(*etype) == MPI_HKIND_DIRECT)
            mpi_type_free_impl(etype, fn);
        return io_err(f, MPI_ERR_NO_MEM, fn, "cannot copy the filetype");
    }
    *disp = f->disp;
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->datarep);
    return MPI_SUCCESS;
}

int mpi_file_get_type_extent_impl(struct ADIOI_FileD *f, MPI_Datatype datatype, MPI_Count *extent,
                                  const char *fn)
{
    dt_type_t *dt;
    MPI_Offset bytes;
    int err;

    if ((dt = mpi_dt_get(datatype)) == NULL)
        return io_err(f, MPI_ERR_TYPE, fn, "datatype=%#x is not a valid datatype",
                      (unsigned)datatype);
    if (f->rep == IO_REP_NATIVE || f->rep == IO_REP_INTERNAL) {
        *extent = dt_extent(dt);
        return MPI_SUCCESS;
    }
    if ((err = io_rep_size(f, dt, datatype, 1, &bytes, fn)) != MPI_SUCCESS)
        return err;
    /* the gaps of the type keep their size; the data takes its file size */
    *extent = dt_extent(dt) - (MPI_Count)dt_size(dt) + bytes;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- individual pointer */
static int no_sequential(struct ADIOI_FileD *f, const char *fn)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

/* The new position (in etypes) of a seek; what the raise returned if invalid. */
static int seek_target(struct ADIOI_FileD *f, MPI_Offset cur, MPI_Offset offset, int whence,
                       MPI_Offset *out, const char *fn)
{
    struct stat sb;
    MPI_Offset base;

    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = cur;
        break;
    case MPI_SEEK_END:
        if (fstat(f->fd, &sb) < 0)
            return io_err(f, io_errno_class(errno), fn, "fstat failed: %s", strerror(errno));
        base = (io_view_bytes_before(f, sb.st_size) + f->esize - 1) / f->esize;
        break;
    default:
        return io_err(f, MPI_ERR_ARG, fn,
                      "whence=%d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
    }
    if (base + offset < 0)
        return io_err(f, MPI_ERR_ARG, fn, "offset=%lld with whence=%d gives a negative position",
                      (long long)offset, whence);
    *out = base + offset;
    return MPI_SUCCESS;
}

int mpi_file_seek_impl(struct ADIOI_FileD *f, MPI_Offset offset, int whence, const char *fn)
{
    MPI_Offset to;
    int err;

    if ((err = no_sequential(f, fn)) || (err = seek_target(f, f->fp_ind, offset, whence, &to, fn)))
        return err;
    f->fp_ind = to;
    return MPI_SUCCESS;
}

int mpi_file_get_position_impl(struct ADIOI_FileD *f, MPI_Offset *offset, const char *fn)
{
    int err;

    if ((err = no_sequential(f, fn)))
        return err;
    *offset = f->fp_ind;
    return MPI_SUCCESS;
}

int mpi_file_get_byte_offset_impl(struct ADIOI_FileD *f, MPI_Offset offset, MPI_Offset *disp,
                                  const char *fn)
{
    int err;

    if ((err = no_sequential(f, fn)))
        return err;
    if (offset < 0)
        return io_err(f, MPI_ERR_ARG, fn, "offset=%lld is negative", (long long)offset);
    *disp = io_view_byte(f, offset * f->esize);
    return MPI_SUCCESS;
}

int mpi_file_seek_shared_impl(struct ADIOI_FileD *f, MPI_Offset offset, int whence, const char *fn)
{
    MPI_Offset cur = 0, to = 0;
    long long v[2], all[2];
    int err = MPI_SUCCESS, cls = 0;

    /* Collective: every rank passes the same arguments; rank 0 moves the pointer. */
    v[0] = offset ^ ((long long)whence << 48);
    v[1] = -v[0];
    if (mpi_allreduce_impl(v, all, 2, MPI_LONG_LONG, MPI_MAX, f->comm, fn) != MPI_SUCCESS)
        return io_err(f, MPI_ERR_OTHER, fn, "cannot agree on the arguments");
    if (all[0] != -all[1])
        return io_err(f, MPI_ERR_NOT_SAME, fn, "offset=%lld whence=%d differ between ranks",
                      (long long)offset, whence);
    if (f->rank == 0) {
        if ((err = io_shfp_fetch_add(f, 0, &cur)) == MPI_SUCCESS &&
            (err = seek_target(f, cur, offset, whence, &to, fn)) == MPI_SUCCESS)
            err = io_shfp_store(f, to);
        if (err != MPI_SUCCESS)
            cls = MPI_ERR_ARG;
    }
    cls = io_agree(f, cls, fn);
    if (cls != 0)
        return f->rank == 0 ? err : io_err(f, cls, fn, "the seek failed on rank 0");
    return MPI_SUCCESS;
}

int mpi_file_get_position_shared_impl(struct ADIOI_FileD *f, MPI_Offset *offset, const char *fn)
{

    return io_shfp_fetch_add(f, 0, offset);
}

/* ---------------------------------------------------------------- shared pointer storage */
int io_shfp_open(struct ADIOI_FileD *f, const char *token)
{
    char *d = strdup(f->filename), *b = strdup(f->filename);
    size_t len;

    if (d == NULL || b == NULL) {
        free(d);
        free(b);
        return MPI_ERR_NO_MEM;
    }
    len = strlen(f->filename) + strlen(token) + 16;
    f->shfp_name = malloc(len);
    if (f->shfp_name != NULL)
        snprintf(f->shfp_name, len, "%s/.%s.%s", dirname(d), basename(b), token);
    free(d);
    free(b);
    f->shfp_fd = -1;
    return f->shfp_name != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void io_shfp_close(struct ADIOI_FileD *f, int remove)
{
    if (f->shfp_fd >= 0)
        close(f->shfp_fd);
    f->shfp_fd = -1;
    if (f->shfp_name == NULL)
        return;
    if (remove) {
        char *alt = shfp_fallback_name(f);
        unlink(f->shfp_name);
        if (alt != NULL)
            unlink(alt);
        free(alt);
    } else {
        free(f->shfp_name);
        f->shfp_name = NULL;
    }
}

static int shfp_lock(int fd, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl); /* l_pid 0, as open-file-description locks need */
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
#ifdef F_OFD_SETLKW
    /* open-file-description locks also exclude threads of one process */
    for (;;) {
        if (fcntl(fd, F_OFD_SETLKW, &fl) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EINVAL)
            return -1;
        break; /* an old kernel: classic locks */
    }
#endif
    while (fcntl(fd, F_SETLKW, &fl) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* The side file in /tmp, for data files in directories we cannot write. */
static char *shfp_fallback_name(struct ADIOI_FileD *f)
{
    const char *base = strrchr(f->shfp_name, '/');
    size_t len = strlen(f->shfp_name) + 32;
    char *n = malloc(len);
    if (n != NULL)
        snprintf(n, len, "/tmp/.canal-%s", base != NULL ? base + 2 : f->shfp_name);
    return n;
}

static int shfp_fd(struct ADIOI_FileD *f, int create, const char *fn)
{
    int e;
    if (f->shfp_fd >= 0)
        return MPI_SUCCESS;
    f->shfp_fd = open(f->shfp_name, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (f->shfp_fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM ||
                           (!create && errno == ENOENT))) {
        char *alt = shfp_fallback_name(f);
        int fd = alt != NULL ? open(alt, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600) : -1;
        if (fd >= 0) {
            free(f->shfp_name);
            f->shfp_name = alt;
            f->shfp_fd = fd;
            return MPI_SUCCESS;
        }
        free(alt);
    }
    if (f->shfp_fd < 0) {
        e = errno;
        if (!create && e == ENOENT)
            return MPI_ERR_NO_SUCH_FILE; /* not created yet: the pointer is 0 */
        return io_err(f, io_errno_class(e), fn,
                      "cannot open the shared file pointer's file %s: %s", f->shfp_name,
                      strerror(e));
    }
    return MPI_SUCCESS;
}

int io_shfp_fetch_add(struct ADIOI_FileD *f, MPI_Offset add, MPI_Offset *old_out)
{
    static const char fn[] = "MPI_File (shared file pointer)";
    MPI_Offset v = 0;
    ssize_t n;
    int err;

    if ((err = shfp_fd(f, 1, fn)) != MPI_SUCCESS)
        return err;
    if (shfp_lock(f->shfp_fd, F_WRLCK) < 0)
        return io_err(f, MPI_ERR_IO, fn, "cannot lock %s: %s", f->shfp_name, strerror(errno));
    n = pread(f->shfp_fd, &v, sizeof v, 0);
    if (n != (ssize_t)sizeof v)
        v = 0;
    if (add != 0) {
        MPI_Offset nv = v + add;
        if (pwrite(f->shfp_fd, &nv, sizeof nv, 0) != (ssize_t)sizeof nv) {
            shfp_lock(f->shfp_fd, F_UNLCK);
            return io_err(f, MPI_ERR_IO, fn, "cannot update %s: %s", f->shfp_name,
                          strerror(errno));
        }
    }
    shfp_lock(f->shfp_fd, F_UNLCK);
    *old_out = v;
    return MPI_SUCCESS;
}

int io_shfp_store(struct ADIOI_FileD *f, MPI_Offset value)
{
    static const char fn[] = "MPI_File (shared file pointer)";
    int err;

    if ((err = shfp_fd(f, value != 0, fn)) != MPI_SUCCESS)
        return err == MPI_ERR_NO_SUCH_FILE && value == 0 ? MPI_SUCCESS : err;
    if (shfp_lock(f->shfp_fd, F_WRLCK) < 0)
        return io_err(f, MPI_ERR_IO, fn, "cannot lock %s: %s", f->shfp_name, strerror(errno));
    if (pwrite(f->shfp_fd, &value, sizeof value, 0) != (ssize_t)sizeof value) {
        shfp_lock(f->shfp_fd, F_UNLCK);
        return io_err(f, MPI_ERR_IO, fn, "cannot update %s: %s", f->shfp_name, strerror(errno));
    }
    shfp_lock(f->shfp_fd, F_UNLCK);
    return MPI_SUCCESS;
}
