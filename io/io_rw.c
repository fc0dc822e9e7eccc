/*
 * MPI-IO data access (MPI 4.0 section 14.4): reads and writes at explicit
 * offsets, through the individual and the shared file pointers, ordered
 * collectives, their collective (_all), nonblocking (i...), split
 * collective (_begin/_end) and large-count (_c) forms. Every call goes
 * through io_access(): check, convert memory to the file representation
 * (io/io_view.c), move the bytes, convert back, advance the pointer.
 *
 * Independent access walks the view and issues one pread/pwrite per
 * contiguous file piece; small strided reads go through a sieve buffer
 * (hint ind_rd_buffer_size): one large read serves many pieces.
 *
 * Collective access uses two-phase I/O when the ranks' accesses interleave
 * (hints romio_cb_read/romio_cb_write: automatic, enable, disable): cb_nodes aggregator ranks each own one contiguous file domain
 * of the union of the accesses; in rounds of cb_buffer_size bytes every
 * rank sends its pieces of a domain to its aggregator with one
 * MPI_Alltoallv, and the aggregator writes the round's range with one
 * pwrite (reading it first only if the pieces leave holes). Reads run the
 * same rounds backwards. Views with overlapping blocks (read-only files)
 * always use independent access.
 *
 * Nonblocking operations are carried out before the call returns and hand
 * back a completed request; split collectives do the work in _begin and
 * report it in _end. Both are what the standard permits.
 *
 * In atomic mode each access holds an fcntl lock on the file range it
 * touches (shared for reads, exclusive for writes).
 */
#include "io_impl.h"
#include "mpi/api_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- system calls */
static int pwrite_full(int fd, const char *buf, MPI_Offset len, MPI_Offset off)
{
    while (len > 0) {
        size_t chunk = len > (1 << 30) ? (size_t)1 << 30 : (size_t)len;
        ssize_t n = pwrite(fd, buf, chunk, off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        buf += n;
        off += n;
        len -= n;
    }
    return 0;
}

/* Returns the bytes read (short only at end of file), -1 on error. */
static MPI_Offset pread_full(int fd, char *buf, MPI_Offset len, MPI_Offset off)
{
    MPI_Offset done = 0;
    while (done < len) {
        size_t chunk = len - done > (1 << 30) ? (size_t)1 << 30 : (size_t)(len - done);
        ssize_t n = pread(fd, buf + done, chunk, off + done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break;
        done += n;
    }
    return done;
}

static int range_lock(int fd, short type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = len;
    while (fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &fl) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- independent */
typedef struct {
    struct ADIOI_FileD *f;
    char *stream;
    MPI_Offset done;   /* stream bytes handled */
    int eno;           /* errno of a failure */
    int eof;           /* a read reached the end of the file */
    /* read sieve: file range [wstart, wstart + wlen) is in wbuf */
    char *wbuf;
    MPI_Offset wcap, wstart, wlen, span_end;
} ind_ctx_t;

static int ind_write_piece(MPI_Offset off, MPI_Offset len, void *arg)
{
    ind_ctx_t *x = arg;
    if (pwrite_full(x->f->fd, x->stream + x->done, len, off) < 0) {
        x->eno = errno;
        return 1;
    }
    x->done += len;
    return 0;
}

static int ind_read_piece(MPI_Offset off, MPI_Offset len, void *arg)
{
    ind_ctx_t *x = arg;
    MPI_Offset n;

    if (x->wbuf != NULL && len < x->wcap / 4) {
        if (off < x->wstart || off + len > x->wstart + x->wlen) {
            MPI_Offset want = x->span_end - off;
            if (want > x->wcap)
                want = x->wcap;
            if (want < len)
                want = len;
            n = pread_full(x->f->fd, x->wbuf, want, off);
            if (n < 0) {
                x->eno = errno;
                return 1;
            }
            x->wstart = off;
            x->wlen = n;
        }
        n = x->wstart + x->wlen - off;
        if (n > len)
            n = len;
        if (n < 0)
            n = 0;
        memcpy(x->stream + x->done, x->wbuf + (off - x->wstart), (size_t)n);
    } else {
        n = pread_full(x->f->fd, x->stream + x->done, len, off);
        if (n < 0) {
            x->eno = errno;
            return 1;
        }
    }
    x->done += n;
    if (n < len) {
        x->eof = 1;
        return 1;
    }
    return 0;
}

/* Move len stream bytes at view position pos. Returns an MPI error class;
 * *got_out is the bytes moved (short for reads at end of file). */
static int rw_indep(struct ADIOI_FileD *f, int write, MPI_Offset pos, char *stream,
                    MPI_Offset len, MPI_Offset *got_out, int *eno_out)
{
    ind_ctx_t x;
    MPI_Offset first, last;
    int rc;

    memset(&x, 0, sizeof x);
    x.f = f;
    x.stream = stream;
    *got_out = 0;
    *eno_out = 0;
    if (len == 0)
        return MPI_SUCCESS;
    first = io_view_byte(f, pos);
    last = io_view_byte(f, pos + len - 1) + 1;
    if (f->atomic && range_lock(f->fd, write ? F_WRLCK : F_RDLCK, first, last - first) < 0) {
        *eno_out = errno;
        return MPI_ERR_IO;
    }
    if (!write && last - first > len && f->flat.n > 1) {
        /* strided: sieve when the pieces are small */
        x.wcap = f->ind_rd_buffer_size;
        x.span_end = last;
        x.wbuf = malloc((size_t)x.wcap);
    }
    rc = io_view_walk(f, pos, len, write ? ind_write_piece : ind_read_piece, &x);
    free(x.wbuf);
    if (f->atomic)
        range_lock(f->fd, F_UNLCK, first, last - first);
    *got_out = x.done;
    if (rc != 0 && x.eno != 0) {
        *eno_out = x.eno;
        return io_errno_class(x.eno);
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- two-phase */
typedef struct {
    MPI_Offset off, len;
} piece_t;

typedef struct {
    piece_t *p;
    MPI_Offset *spos; /* stream position of each piece (own pieces only) */
    size_t n, cap;
} plist_t;

static int plist_push(plist_t *l, MPI_Offset off, MPI_Offset len, MPI_Offset spos)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        piece_t *p = realloc(l->p, nc * sizeof *p);
        MPI_Offset *s;
        if (p == NULL)
            return -1;
        l->p = p;
        s = realloc(l->spos, nc * sizeof *s);
        if (s == NULL)
            return -1;
        l->spos = s;
        l->cap = nc;
    }
    l->p[l->n].off = off;
    l->p[l->n].len = len;
    l->spos[l->n] = spos;
    l->n++;
    return 0;
}

typedef struct {
    plist_t *per;        /* pieces for each aggregator */
    MPI_Offset gmin, fd_size;
    int naggr;
    MPI_Offset spos;
    int nomem;
} split_ctx_t;

/* Split a piece at file-domain boundaries, one list per aggregator. */
static int split_piece(MPI_Offset off, MPI_Offset len, void *arg)
{
    split_ctx_t *x = arg;
    while (len > 0) {
        int a = (int)((off - x->gmin) / x->fd_size);
        MPI_Offset dend, take;
        if (a >= x->naggr)
            a = x->naggr - 1;
        dend = x->gmin + (MPI_Offset)(a + 1) * x->fd_size;
        take = a == x->naggr - 1 || off + len <= dend ? len : dend - off;
        if (plist_push(&x->per[a], off, take, x->spos) < 0) {
            x->nomem = 1;
            return 1;
        }
        x->spos += take;
        off += take;
        len -= take;
    }
    return 0;
}

static int cmp_piece(const void *a, const void *b)
{
    const piece_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The part of piece p inside window [ws, we): returns the length (0 if none)
 * and the offset in *off_out. */
static MPI_Offset clip(const piece_t *p, MPI_Offset ws, MPI_Offset we, MPI_Offset *off_out)
{
    MPI_Offset s = p->off > ws ? p->off : ws;
    MPI_Offset e = p->off + p->len < we ? p->off + p->len : we;
    *off_out = s;
    return e > s ? e - s : 0;
}

typedef struct {
    MPI_Offset start, end; /* end == -1: no data */
    int strided;
    int overlap;
    int err; /* an MPI error class this rank met before the exchange */
} span_t;

/* local_err: this rank failed before the access (it passes len 0); every
 * rank learns of it from the exchange of spans, which all ranks make
 * anyway, and returns that class, so nobody is left alone in a collective. */
/* Phase 1 of a collective access: every rank learns every rank's span
 * (and error), and all decide alike whether to use two-phase collective
 * buffering over [*gmin_out, *gmax_out) (*gmin_out < 0: nobody has data).
 * Returns the error class all ranks return, or MPI_SUCCESS. */
static int rw_coll_plan(struct ADIOI_FileD *f, int write, const span_t *me, int local_err,
                        MPI_Offset *gmin_out, MPI_Offset *gmax_out, int *use_cb_out,
                        const char *fn)
{
    int size = f->size, mode = write ? f->cb_write : f->cb_read;
    int any_overlap = 0, interleave = 0, cls = MPI_SUCCESS;
    MPI_Offset gmin = -1, gmax = -1;
    span_t *all;

    *gmin_out = *gmax_out = -1;
    *use_cb_out = 0;
    all = malloc((size_t)size * sizeof *all);
    if (all == NULL)
        return MPI_ERR_NO_MEM; /* every rank fails the same way only if all are short */
    if (mpi_allgather_impl(me, sizeof *me, MPI_BYTE, all, sizeof *me, MPI_BYTE, f->comm, fn) !=
        MPI_SUCCESS) {
        free(all);
        return MPI_ERR_OTHER;
    }
    for (int r = 0; r < size && cls == MPI_SUCCESS; r++)
        cls = all[r].err;
    if (cls != MPI_SUCCESS) {
        free(all);
        return local_err != MPI_SUCCESS ? local_err : cls;
    }
    for (int r = 0; r < size; r++) {
        any_overlap |= all[r].overlap;
        if (all[r].end < 0)
            continue;
        if (gmin < 0 || all[r].start < gmin)
            gmin = all[r].start;
        if (all[r].end > gmax)
            gmax = all[r].end;
        for (int q = 0; q < r && !interleave; q++)
            if (all[q].end >= 0 && all[q].start < all[r].end && all[r].start < all[q].end)
                interleave = 1;
    }
    free(all);
    *gmin_out = gmin;
    *gmax_out = gmax;
    if (!any_overlap && size > 1)
        *use_cb_out = mode == 1 || (mode == 2 && interleave);
    return MPI_SUCCESS;
}

static int rw_coll(struct ADIOI_FileD *f, int write, MPI_Offset pos, char *stream, MPI_Offset len,
                   int local_err, MPI_Offset *got_out, int *eno_out, const char *fn)
{
    int size = f->size, rank = f->rank;
    span_t me;
    MPI_Offset gmin = -1, gmax = -1, cb;
    int use_cb = 0, naggr, my_aggr = -1;
    int cls = MPI_SUCCESS, eno = 0;
    split_ctx_t sx;
    int *scnt = NULL, *rcnt = NULL, *sdsp = NULL, *rdsp = NULL, *aggr_rank = NULL;
    piece_t *rpieces = NULL;
    size_t *rstart = NULL, *rcur = NULL, *scur = NULL;
    char *sbuf = NULL, *rbuf = NULL, *cbuf = NULL;
    piece_t *wpieces = NULL;
    MPI_Offset ntimes, fd_size;
    MPI_Offset eof = -1; /* reads: bytes beyond it are not delivered (MPICH io/rd_end) */
    size_t rbuf_cap = 0;

    *got_out = 0;
    if (!write) {
        struct stat sb0;
        if (fstat(f->fd, &sb0) == 0)
            eof = sb0.st_size;
    }
    *eno_out = 0;
    me.start = len > 0 ? io_view_byte(f, pos) : -1;
    me.end = len > 0 ? io_view_byte(f, pos + len - 1) + 1 : -1;
    me.strided = len > 0 && me.end - me.start != len;
    me.overlap = f->flat.overlap;
    me.err = local_err;
    cls = rw_coll_plan(f, write, &me, local_err, &gmin, &gmax, &use_cb, fn);
    if (cls != MPI_SUCCESS)
        return cls;
    if (gmin < 0)
        return MPI_SUCCESS; /* nobody has data */
    if (!use_cb) {
        int c = rw_indep(f, write, pos, stream, len, got_out, eno_out);
        return c;
    }

    /* Two-phase. Aggregators are spread evenly over the ranks. */
    naggr = f->cb_nodes < 1 ? 1 : f->cb_nodes > size ? size : f->cb_nodes;
    cb = f->cb_buffer_size < 4096 ? 4096 : f->cb_buffer_size > (1 << 30) ? (1 << 30)
                                                                        : f->cb_buffer_size;
    fd_size = (gmax - gmin + naggr - 1) / naggr;
    if (fd_size < 1)
        fd_size = 1;
    ntimes = (fd_size + cb - 1) / cb;
    memset(&sx, 0, sizeof sx);
    aggr_rank = malloc((size_t)naggr * sizeof *aggr_rank);
    sx.per = calloc((size_t)naggr, sizeof *sx.per);
    scnt = calloc((size_t)size, sizeof *scnt);
    rcnt = calloc((size_t)size, sizeof *rcnt);
    sdsp = calloc((size_t)size, sizeof *sdsp);
    rdsp = calloc((size_t)size, sizeof *rdsp);
    rstart = calloc((size_t)size + 1, sizeof *rstart);
    rcur = calloc((size_t)size, sizeof *rcur);
    scur = calloc((size_t)naggr, sizeof *scur);
    if (aggr_rank == NULL || sx.per == NULL || scnt == NULL || rcnt == NULL || sdsp == NULL ||
        rdsp == NULL || rstart == NULL || rcur == NULL || scur == NULL) {
        cls = MPI_ERR_NO_MEM;
        goto out; /* note: the other ranks may then wait; out of memory is fatal in practice */
    }
    for (int a = 0; a < naggr; a++) {
        aggr_rank[a] = (int)((long long)a * size / naggr);
        if (aggr_rank[a] == rank)
            my_aggr = a;
    }
    sx.gmin = gmin;
    sx.fd_size = fd_size;
    sx.naggr = naggr;
    if (len > 0)
        io_view_walk(f, pos, len, split_piece, &sx);

    /* Metadata: how many pieces each aggregator gets, then the pieces. */
    for (int a = 0; a < naggr; a++)
        scnt[aggr_rank[a]] = (int)sx.per[a].n;
    if (mpi_alltoall_impl(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, f->comm, fn) != MPI_SUCCESS) {
        cls = MPI_ERR_OTHER;
        goto out;
    }
    {
        size_t ns = 0, nr = 0;
        piece_t *sp;
        for (int r = 0; r < size; r++) {
            sdsp[r] = (int)(ns * sizeof(piece_t));
            ns += (size_t)scnt[r];
            scnt[r] = scnt[r] * (int)sizeof(piece_t);
            rstart[r] = nr;
            rdsp[r] = (int)(nr * sizeof(piece_t));
            nr += (size_t)rcnt[r];
            rcnt[r] = rcnt[r] * (int)sizeof(piece_t);
        }
        rstart[size] = nr;
        sp = malloc((ns ? ns : 1) * sizeof *sp);
        rpieces = malloc((nr ? nr : 1) * sizeof *rpieces);
        if (sp == NULL || rpieces == NULL) {
            free(sp);
            cls = MPI_ERR_NO_MEM;
            goto out;
        }
        for (int a = 0; a < naggr; a++)
            if (sx.per[a].n > 0) /* p is NULL when there is nothing for this aggregator */
                memcpy((char *)sp + sdsp[aggr_rank[a]], sx.per[a].p,
                       sx.per[a].n * sizeof(piece_t));
        if (mpi_alltoallv_impl(sp, scnt, sdsp, MPI_BYTE, rpieces, rcnt, rdsp, MPI_BYTE, f->comm, 0,
                               fn) != MPI_SUCCESS)
            cls = MPI_ERR_OTHER;
        free(sp);
        if (cls != MPI_SUCCESS)
            goto out;
        for (int r = 0; r < size; r++)
            rcur[r] = rstart[r];
    }
    if (my_aggr >= 0) {
        cbuf = malloc((size_t)cb);
        wpieces = malloc((rstart[size] ? rstart[size] : 1) * sizeof *wpieces);
    }
    /* sbuf: my own data of one round (sent for writes, received for reads) */
    sbuf = malloc((size_t)(len < cb * naggr ? (len > 0 ? len : 1) : cb * naggr));
    if (sbuf == NULL || (my_aggr >= 0 && (cbuf == NULL || wpieces == NULL))) {
        cls = MPI_ERR_NO_MEM;
        goto out;
    }
    for (MPI_Offset t = 0; t < ntimes; t++) {
        MPI_Offset my_ws = 0, my_we = 0, lo = -1, hi = -1;
        size_t nw = 0;
        int ssum = 0, rsum = 0;

        memset(scnt, 0, (size_t)size * sizeof *scnt);
        memset(rcnt, 0, (size_t)size * sizeof *rcnt);
        if (my_aggr >= 0) {
            my_ws = gmin + (MPI_Offset)my_aggr * fd_size + t * cb;
            my_we = my_ws + cb;
            if (my_we > gmin + (MPI_Offset)(my_aggr + 1) * fd_size)
                my_we = gmin + (MPI_Offset)(my_aggr + 1) * fd_size;
            if (my_we > gmax)
                my_we = gmax;
            /* the pieces of every rank in this round's window */
            for (int r = 0; r < size; r++) {
                size_t i = rcur[r];
                int bytes = 0;
                for (; i < rstart[r + 1]; i++) {
                    MPI_Offset o, l = clip(&rpieces[i], my_ws, my_we, &o);
                    if (rpieces[i].off >= my_we)
                        break;
                    if (l == 0)
                        continue;
                    wpieces[nw].off = o;
                    wpieces[nw].len = l;
                    nw++;
                    bytes += (int)l;
                    if (lo < 0 || o < lo)
                        lo = o;
                    if (o + l > hi)
                        hi = o + l;
                }
                (write ? rcnt : scnt)[r] = bytes;
            }
        }
        /* my data for each aggregator's window this round */
        for (int a = 0; a < naggr; a++) {
            MPI_Offset ws = gmin + (MPI_Offset)a * fd_size + t * cb, we = ws + cb;
            MPI_Offset dend = gmin + (MPI_Offset)(a + 1) * fd_size;
            int bytes = 0;
            if (we > dend)
                we = dend;
            if (we > gmax)
                we = gmax;
            for (size_t i = scur[a]; i < sx.per[a].n; i++) {
                MPI_Offset o, l = clip(&sx.per[a].p[i], ws, we, &o);
                if (sx.per[a].p[i].off >= we)
                    break;
                bytes += (int)l;
            }
            (write ? scnt : rcnt)[aggr_rank[a]] = bytes;
        }
        for (int r = 0; r < size; r++) {
            sdsp[r] = ssum;
            ssum += scnt[r];
            rdsp[r] = rsum;
            rsum += rcnt[r];
        }
        /* rbuf: what an aggregator gathers (writes) or hands out (reads);
         * ranks may overlap, so it can exceed the window */
        if (my_aggr >= 0 && (size_t)(write ? rsum : ssum) > rbuf_cap) {
            char *nb = realloc(rbuf, (size_t)(write ? rsum : ssum));
            if (nb == NULL) {
                cls = MPI_ERR_NO_MEM;
                goto out;
            }
            rbuf = nb;
            rbuf_cap = (size_t)(write ? rsum : ssum);
        }

        if (write) {
            /* pack my pieces for each aggregator */
            for (int a = 0; a < naggr; a++) {
                MPI_Offset ws = gmin + (MPI_Offset)a * fd_size + t * cb, we = ws + cb;
                MPI_Offset dend = gmin + (MPI_Offset)(a + 1) * fd_size;
                char *dst = sbuf + sdsp[aggr_rank[a]];
                if (we > dend)
                    we = dend;
                if (we > gmax)
                    we = gmax;
                for (size_t i = scur[a]; i < sx.per[a].n; i++) {
                    MPI_Offset o, l = clip(&sx.per[a].p[i], ws, we, &o);
                    if (sx.per[a].p[i].off >= we)
                        break;
                    memcpy(dst, stream + sx.per[a].spos[i] + (o - sx.per[a].p[i].off), (size_t)l);
                    dst += l;
                }
            }
            if (mpi_alltoallv_impl(sbuf, scnt, sdsp, MPI_BYTE, rbuf, rcnt, rdsp, MPI_BYTE, f->comm,
                                   0, fn) != MPI_SUCCESS) {
                cls = MPI_ERR_OTHER;
                goto out;
            }
            if (my_aggr >= 0 && nw > 0 && cls == MPI_SUCCESS) {
                /* place the data; read first only if the pieces leave holes */
                int holes = 0;
                MPI_Offset reach;
                size_t k = 0;
                for (int r = 0; r < size; r++) {
                    char *src = rbuf + rdsp[r];
                    for (size_t i = rcur[r]; i < rstart[r + 1]; i++) {
                        MPI_Offset o, l = clip(&rpieces[i], my_ws, my_we, &o);
                        if (rpieces[i].off >= my_we)
                            break;
                        if (l == 0)
                            continue;
                        wpieces[k].off = o;
                        wpieces[k].len = (MPI_Offset)(src - rbuf); /* remember the source */
                        k++;
                        src += l;
                    }
                }
                /* sort a copy of (offset, length) to find holes */
                {
                    piece_t *cov = malloc(nw * sizeof *cov);
                    size_t k2 = 0;
                    if (cov == NULL) {
                        cls = MPI_ERR_NO_MEM;
                        goto out;
                    }
                    for (int r = 0; r < size; r++)
                        for (size_t i = rcur[r]; i < rstart[r + 1]; i++) {
                            MPI_Offset o, l = clip(&rpieces[i], my_ws, my_we, &o);
                            if (rpieces[i].off >= my_we)
                                break;
                            if (l == 0)
                                continue;
                            cov[k2].off = o;
                            cov[k2].len = l;
                            k2++;
                        }
                    qsort(cov, nw, sizeof *cov, cmp_piece);
                    reach = lo;
                    for (size_t i = 0; i < nw; i++) {
                        if (cov[i].off > reach)
                            holes = 1;
                        if (cov[i].off + cov[i].len > reach)
                            reach = cov[i].off + cov[i].len;
                    }
                    free(cov);
                }
                if (f->atomic && range_lock(f->fd, F_WRLCK, lo, hi - lo) < 0 && cls == 0) {
                    eno = errno;
                    cls = MPI_ERR_IO;
                }
                if (holes) {
                    MPI_Offset n = pread_full(f->fd, cbuf, hi - lo, lo);
                    if (n < 0 && cls == 0) {
                        eno = errno;
                        cls = io_errno_class(errno);
                    } else if (n >= 0 && n < hi - lo) {
                        memset(cbuf + n, 0, (size_t)(hi - lo - n));
                    }
                }
                k = 0;
                for (int r = 0; r < size; r++)
                    for (size_t i = rcur[r]; i < rstart[r + 1]; i++) {
                        MPI_Offset o, l = clip(&rpieces[i], my_ws, my_we, &o);
                        if (rpieces[i].off >= my_we)
                            break;
                        if (l == 0)
                            continue;
                        memcpy(cbuf + (o - lo), rbuf + wpieces[k].len, (size_t)l);
                        k++;
                    }
                if (cls == MPI_SUCCESS && pwrite_full(f->fd, cbuf, hi - lo, lo) < 0) {
                    eno = errno;
                    cls = io_errno_class(errno);
                }
                if (f->atomic)
                    range_lock(f->fd, F_UNLCK, lo, hi - lo);
            }
        } else {
            char *mine = sbuf;
            if (my_aggr >= 0 && nw > 0) {
                MPI_Offset n;
                char *dst = sbuf;
                if (f->atomic && range_lock(f->fd, F_RDLCK, lo, hi - lo) < 0 && cls == 0) {
                    eno = errno;
                    cls = MPI_ERR_IO;
                }
                n = pread_full(f->fd, cbuf, hi - lo, lo);
                if (f->atomic)
                    range_lock(f->fd, F_UNLCK, lo, hi - lo);
                if (n < 0) {
                    if (cls == 0) {
                        eno = errno;
                        cls = io_errno_class(errno);
                    }
                    n = 0;
                }
                if (n < hi - lo)
                    memset(cbuf + n, 0, (size_t)(hi - lo - n));
                /* the send buffer must not overlap what I receive: use rbuf's head */
                dst = rbuf;
                for (int r = 0; r < size; r++)
                    for (size_t i = rcur[r]; i < rstart[r + 1]; i++) {
                        MPI_Offset o, l = clip(&rpieces[i], my_ws, my_we, &o);
                        if (rpieces[i].off >= my_we)
                            break;
                        if (l == 0)
                            continue;
                        memcpy(dst, cbuf + (o - lo), (size_t)l);
                        dst += l;
                    }
            }
            static char nothing;
            if (mpi_alltoallv_impl(my_aggr >= 0 ? rbuf : &nothing, scnt, sdsp, MPI_BYTE, mine, rcnt,
                                   rdsp, MPI_BYTE, f->comm, 0, fn) != MPI_SUCCESS) {
                cls = MPI_ERR_OTHER;
                goto out;
            }
            /* scatter what came back into the stream */
            for (int a = 0; a < naggr; a++) {
                MPI_Offset ws = gmin + (MPI_Offset)a * fd_size + t * cb, we = ws + cb;
                MPI_Offset dend = gmin + (MPI_Offset)(a + 1) * fd_size;
                char *src = mine + rdsp[aggr_rank[a]];
                if (we > dend)
                    we = dend;
                if (we > gmax)
                    we = gmax;
                for (size_t i = scur[a]; i < sx.per[a].n; i++) {
                    MPI_Offset o, l = clip(&sx.per[a].p[i], ws, we, &o), lc = l;
                    if (sx.per[a].p[i].off >= we)
                        break;
                    /* the caller's buffer past the end of the file stays as it was */
                    if (eof >= 0 && o + lc > eof)
                        lc = eof > o ? eof - o : 0;
                    if (lc > 0)
                        memcpy(stream + sx.per[a].spos[i] + (o - sx.per[a].p[i].off), src,
                               (size_t)lc);
                    src += l;
                }
            }
        }

        /* advance the cursors past pieces that end inside this round's windows */
        for (int a = 0; a < naggr; a++) {
            MPI_Offset we = gmin + (MPI_Offset)a * fd_size + (t + 1) * cb;
            while (scur[a] < sx.per[a].n &&
                   sx.per[a].p[scur[a]].off + sx.per[a].p[scur[a]].len <= we)
                scur[a]++;
        }
        if (my_aggr >= 0)
            for (int r = 0; r < size; r++)
                while (rcur[r] < rstart[r + 1] &&
                       rpieces[rcur[r]].off + rpieces[rcur[r]].len <= my_we)
                    rcur[r]++;
    }
    if (write) {
        *got_out = len;
    } else {
        /* what lies before the end of the file arrived */
        struct stat sb;
        MPI_Offset got = len;
        if (len > 0 && fstat(f->fd, &sb) == 0 && me.end > sb.st_size)
            got = io_view_bytes_before(f, sb.st_size) - pos;
        if (got < 0)
            got = 0;
        if (got > len)
            got = len;
        *got_out = got;
    }

out:
    if (sx.per != NULL)
        for (int a = 0; a < naggr; a++) {
            free(sx.per[a].p);
            free(sx.per[a].spos);
        }
    free(sx.per);
    free(aggr_rank);
    free(scnt);
    free(rcnt);
    free(sdsp);
    free(rdsp);
    free(rstart);
    free(rcur);
    free(scur);
    free(rpieces);
    free(wpieces);
    free(sbuf);
    free(rbuf);
    free(cbuf);
    *eno_out = eno;
    return cls;
}

/* ---------------------------------------------------------------- the common path */
typedef struct {
    int err;            /* MPI error code (raised) */
    MPI_Count bytes;    /* memory bytes moved, for the status */
} io_result_t;

static void status_fill(MPI_Status *st, MPI_Count bytes)
{
    adi_status_t as;
    if (st == MPI_STATUS_IGNORE || st == NULL)
        return;
    memset(&as, 0, sizeof as);
    as.source = MPI_ANY_SOURCE;
    as.tag = MPI_ANY_TAG;
    as.bytes = (size_t)bytes;
    mpi_status_set(st, &as);
    st->MPI_ERROR = MPI_SUCCESS;
}

/* A rank that fails before a collective access still makes the same
 * collective calls as the others (the exchange of spans, then the final
 * agreement), carrying its error class. */
static void coll_fail(struct ADIOI_FileD *f, int write, int cls, const char *fn)
{
    MPI_Offset got = 0;
    int eno = 0;
    io_agree(f, rw_coll(f, write, 0, NULL, 0, cls, &got, &eno, fn), fn);
}

static int io_access(struct ADIOI_FileD *f, int write, int coll, io_where_t where,
                     MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                     io_result_t *res, const char *fn)
{
    dt_type_t *dt;
    MPI_Offset bytes, etypes, pos = 0, got = 0;
    void *stream = NULL;
    int owned = 0, err, cls, eno = 0;

    res->bytes = 0;
    if ((err = io_check_buf(f, buf, count, datatype, fn, &dt)))
        return err;
    if (write && (f->amode & MPI_MODE_RDONLY))
        return io_err(f, MPI_ERR_READ_ONLY, fn, "the file was opened with MPI_MODE_RDONLY");
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return io_err(f, MPI_ERR_ACCESS, fn, "the file was opened with MPI_MODE_WRONLY");
    if ((where == IO_AT || where == IO_IND) && (f->amode & MPI_MODE_SEQUENTIAL))
        return io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "explicit offsets and individual file pointers are not allowed with "
                      "MPI_MODE_SEQUENTIAL");
    if (where == IO_AT && offset < 0)
        return io_err(f, MPI_ERR_ARG, fn, "offset=%lld is negative", (long long)offset);
    if ((err = io_rep_size(f, dt, datatype, count, &bytes, fn)))
        return err;
    if (bytes % f->esize != 0)
        return io_err(f, MPI_ERR_TYPE, fn,
                      "count=%lld of datatype=%#x is %lld bytes, not a whole number of etypes "
                      "(%lld bytes each)", (long long)count, (unsigned)datatype,
                      (long long)bytes, (long long)f->esize);
    etypes = bytes / f->esize;
    if (bytes > 0 && f->fsize == 0) {
        if (coll)
            coll_fail(f, write, MPI_ERR_IO, fn);
        return io_err(f, MPI_ERR_IO, fn,
                      "the view of this rank holds no data (its filetype has size 0) but "
                      "count=%lld asks for %lld bytes",
                      (long long)count, (long long)bytes);
    }

    switch (where) {
    case IO_AT:
        pos = offset * f->esize;
        break;
    case IO_IND:
        pos = f->fp_ind * f->esize;
        break;
    case IO_SHARED: {
        MPI_Offset old;
        if ((err = io_shfp_fetch_add(f, etypes, &old)))
            return err;
        pos = old * f->esize;
        break;
    }
    case IO_ORDERED: {
        /* ranks take consecutive slices in rank order */
        long long mine = etypes, before = 0, total = 0, base = 0;
        int c2 = 0;
        if (mpi_exscan_impl(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, f->comm, fn) !=
                MPI_SUCCESS ||
            mpi_allreduce_impl(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, f->comm, fn) !=
                MPI_SUCCESS)
            return io_err(f, MPI_ERR_OTHER, fn, "cannot order the ranks' accesses");
        if (f->rank == 0) {
            MPI_Offset old = 0;
            before = 0;
            if (io_shfp_fetch_add(f, total, &old) != MPI_SUCCESS)
                c2 = 1;
            base = old;
        }
        if (mpi_bcast_impl(&base, 1, MPI_LONG_LONG, 0, f->comm, fn) != MPI_SUCCESS ||
            io_agree(f, c2, fn))
            return io_err(f, MPI_ERR_IO, fn, "cannot update the shared file pointer");
        pos = (base + before) * f->esize;
        break;
    }
    }

    if (write)
        err = io_stream_from_mem(f, buf, count, dt, datatype, bytes, &stream, &owned, fn);
    else
        err = io_stream_for_read(f, buf, count, dt, bytes, &stream, &owned, fn);
    if (err != MPI_SUCCESS) {
        if (coll)
            coll_fail(f, write, MPI_ERR_NO_MEM, fn);
        return err;
    }
    if (coll) {
        cls = rw_coll(f, write, pos, stream, bytes, MPI_SUCCESS, &got, &eno, fn);
        /* every rank learns whether the collective failed somewhere */
        {
            int any = io_agree(f, cls, fn);
            if (cls == MPI_SUCCESS && any != MPI_SUCCESS)
                cls = any;
        }
    } else {
        cls = rw_indep(f, write, pos, stream, bytes, &got, &eno);
    }
    if (cls == MPI_ERR_OTHER && coll && io_member_lost(f))
        cls = MPIX_ERR_PROC_FAILED; /* (its messages inside the collective failed) */
    if (cls != MPI_SUCCESS) {
        if (owned)
            free(stream);
        return io_err(f, cls, fn, "%s %lld bytes at byte %lld of the view failed%s%s",
                      write ? "writing" : "reading", (long long)bytes, (long long)pos,
                      eno ? ": " : " on another rank", eno ? strerror(eno) : "");
    }
    if (!write) {
        err = io_stream_to_mem(f, stream, got, buf, count, dt, datatype, fn);
        if (err != MPI_SUCCESS) {
            if (owned)
                free(stream);
            return err;
        }
    }
    if (owned)
        free(stream);
    if (where == IO_IND)
        f->fp_ind += got / f->esize;
    /* the status counts memory bytes */
    if (bytes == (MPI_Offset)dt_size(dt) * count || bytes == 0)
        res->bytes = got == bytes ? (MPI_Count)dt_size(dt) * count
                                  : got;
    else
        res->bytes = (MPI_Count)((double)got / (double)bytes * (double)dt_size(dt) * count);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the entry points' four */
/* The data-access entry points (mpi/api/14-io.api) call these with the
 * constants of their call (impl=io_blocking(fh,0,1,IO_AT,offset,...)):
 * the generated entry point has checked the initialization, the file and
 * the status or request pointer. The int and _c forms share them. */
int io_blocking(struct ADIOI_FileD *f, int write, int coll, io_where_t where, MPI_Offset offset,
                const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status,
                const char *fn)
{
    io_result_t res;
    int err = io_access(f, write, coll, where, offset, (void *)buf, count, datatype, &res, fn);
    if (err == MPI_SUCCESS)
        status_fill(status, res.bytes);
    return err;
}

/* The entry point checked that request is not NULL. */
int io_nonblocking(struct ADIOI_FileD *f, int write, int coll, io_where_t where,
                   MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Request *request, const char *fn)
{
    io_result_t res;
    adi_request_t *r;
    int err;

    err = io_access(f, write, coll, where, offset, (void *)buf, count, datatype, &res, fn);
    if (err != MPI_SUCCESS) {
        *request = MPI_REQUEST_NULL;
        return err;
    }
    r = adi_request_alloc(ADI_REQ_OTHER);
    if (r == NULL)
        return io_err(f, MPI_ERR_NO_MEM, fn, "out of requests");
    r->status.source = MPI_ANY_SOURCE;
    r->status.tag = MPI_ANY_TAG;
    r->status.bytes = (size_t)res.bytes;
    r->status.error = 0;
    adi_request_complete(r);
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

int io_split_begin(struct ADIOI_FileD *f, int write, io_where_t where, MPI_Offset offset,
                   const void *buf, MPI_Count count, MPI_Datatype datatype, const char *fn)
{
    io_result_t res;
    int err;

    if (f->split.active)
        return io_err(f, MPI_ERR_OTHER, fn,
                      "another split collective is already in progress on this file");
    err = io_access(f, write, 1, where, offset, (void *)buf, count, datatype, &res, fn);
    f->split.active = 1;
    f->split.is_read = !write;
    f->split.buf = buf;
    f->split.err = err;
    f->split.bytes = res.bytes;
    return err;
}

int io_split_end(struct ADIOI_FileD *f, int write, const void *buf, MPI_Status *status,
                 const char *fn)
{
    if (!f->split.active)
        return io_err(f, MPI_ERR_OTHER, fn, "no split collective is in progress on this file");
    if (f->split.is_read == write)
        return io_err(f, MPI_ERR_OTHER, fn, "the split collective in progress is a %s",
                      f->split.is_read ? "read" : "write");
    if (buf != f->split.buf)
        return io_err(f, MPI_ERR_BUFFER, fn, "buf differs from the one given to the _begin call");
    f->split.active = 0;
    if (f->split.err == MPI_SUCCESS)
        status_fill(status, f->split.bytes);
    return f->split.err;
}
