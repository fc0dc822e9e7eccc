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

/* The state of a two-phase access, shared by its phases. Aggregator a owns
 * the file domain [gmin + a * fd_size, gmin + (a + 1) * fd_size) and moves
 * it in rounds of at most cb bytes. */
typedef struct {
    struct ADIOI_FileD *f;
    int write, size;
    char *stream;
    MPI_Offset len;
    MPI_Offset gmin, gmax, cb, fd_size;
    int naggr, my_aggr; /* my_aggr: my index among the aggregators, or -1 */
    int *aggr_rank;
    split_ctx_t sx; /* my pieces, per aggregator */
    int *scnt, *rcnt, *sdsp, *rdsp;
    piece_t *rpieces;      /* aggregators: every rank's pieces in my domain */
    size_t *rstart, *rcur; /* per rank: its first and its current piece in rpieces */
    size_t *scur;          /* per aggregator: my current piece in sx.per[a] */
    char *sbuf, *rbuf, *cbuf;
    size_t rbuf_cap;
    piece_t *wpieces;
    MPI_Offset eof; /* reads: bytes beyond it are not delivered (MPICH io/rd_end) */
    int cls, eno;
    const char *fn;
} tp_t;

/* What one round moves: my window [ws, we) as an aggregator, the extent
 * [lo, hi) of the data in it and the number of pieces nw. */
typedef struct {
    MPI_Offset ws, we, lo, hi;
    size_t nw;
} tp_round_t;

/* Aggregator a's window in round t. */
static void tp_window(const tp_t *tp, int a, MPI_Offset t, MPI_Offset *ws, MPI_Offset *we)
{
    MPI_Offset dend = tp->gmin + (MPI_Offset)(a + 1) * tp->fd_size;
    *ws = tp->gmin + (MPI_Offset)a * tp->fd_size + t * tp->cb;
    *we = *ws + tp->cb;
    if (*we > dend)
        *we = dend;
    if (*we > tp->gmax)
        *we = tp->gmax;
}

/* Aggregators, file domains, and my pieces split at the domains' edges. */
static int tp_setup(tp_t *tp, MPI_Offset pos)
{
    struct ADIOI_FileD *f = tp->f;
    int size = tp->size;

    tp->naggr = f->cb_nodes < 1 ? 1 : f->cb_nodes > size ? size : f->cb_nodes;
    tp->cb = f->cb_buffer_size < 4096 ? 4096 : f->cb_buffer_size > (1 << 30) ? (1 << 30)
                                                                            : f->cb_buffer_size;
    tp->fd_size = (tp->gmax - tp->gmin + tp->naggr - 1) / tp->naggr;
    if (tp->fd_size < 1)
        tp->fd_size = 1;
    tp->aggr_rank = malloc((size_t)tp->naggr * sizeof *tp->aggr_rank);
    tp->sx.per = calloc((size_t)tp->naggr, sizeof *tp->sx.per);
    tp->scnt = calloc((size_t)size, sizeof *tp->scnt);
    tp->rcnt = calloc((size_t)size, sizeof *tp->rcnt);
    tp->sdsp = calloc((size_t)size, sizeof *tp->sdsp);
    tp->rdsp = calloc((size_t)size, sizeof *tp->rdsp);
    tp->rstart = calloc((size_t)size + 1, sizeof *tp->rstart);
    tp->rcur = calloc((size_t)size, sizeof *tp->rcur);
    tp->scur = calloc((size_t)tp->naggr, sizeof *tp->scur);
    if (tp->aggr_rank == NULL || tp->sx.per == NULL || tp->scnt == NULL || tp->rcnt == NULL ||
        tp->sdsp == NULL || tp->rdsp == NULL || tp->rstart == NULL || tp->rcur == NULL ||
        tp->scur == NULL)
        /* the other ranks may then wait: out of memory is fatal in practice */
        return MPI_ERR_NO_MEM;
    for (int a = 0; a < tp->naggr; a++) {
        tp->aggr_rank[a] = (int)((long long)a * size / tp->naggr);
        if (tp->aggr_rank[a] == f->rank)
            tp->my_aggr = a;
    }
    tp->sx.gmin = tp->gmin;
    tp->sx.fd_size = tp->fd_size;
    tp->sx.naggr = tp->naggr;
    if (tp->len > 0)
        io_view_walk(f, pos, tp->len, split_piece, &tp->sx);
    return MPI_SUCCESS;
}

/* Metadata: how many pieces each aggregator gets, then the pieces; and
 * the buffers of the rounds. */
static int tp_exchange_pieces(tp_t *tp)
{
    int size = tp->size, naggr = tp->naggr, cls = MPI_SUCCESS;
    size_t ns = 0, nr = 0;
    piece_t *sp;

    for (int a = 0; a < naggr; a++)
        tp->scnt[tp->aggr_rank[a]] = (int)tp->sx.per[a].n;
    if (mpi_alltoall_impl(tp->scnt, 1, MPI_INT, tp->rcnt, 1, MPI_INT, tp->f->comm, tp->fn) !=
        MPI_SUCCESS)
        return MPI_ERR_OTHER;
    for (int r = 0; r < size; r++) {
        tp->sdsp[r] = (int)(ns * sizeof(piece_t));
        ns += (size_t)tp->scnt[r];
        tp->scnt[r] = tp->scnt[r] * (int)sizeof(piece_t);
        tp->rstart[r] = nr;
        tp->rdsp[r] = (int)(nr * sizeof(piece_t));
        nr += (size_t)tp->rcnt[r];
        tp->rcnt[r] = tp->rcnt[r] * (int)sizeof(piece_t);
    }
    tp->rstart[size] = nr;
    sp = malloc((ns ? ns : 1) * sizeof *sp);
    tp->rpieces = malloc((nr ? nr : 1) * sizeof *tp->rpieces);
    if (sp == NULL || tp->rpieces == NULL) {
        free(sp);
        return MPI_ERR_NO_MEM;
    }
    for (int a = 0; a < naggr; a++)
        if (tp->sx.per[a].n > 0) /* p is NULL when there is nothing for this aggregator */
            memcpy((char *)sp + tp->sdsp[tp->aggr_rank[a]], tp->sx.per[a].p,
                   tp->sx.per[a].n * sizeof(piece_t));
    if (mpi_alltoallv_impl(sp, tp->scnt, tp->sdsp, MPI_BYTE, tp->rpieces, tp->rcnt, tp->rdsp,
                           MPI_BYTE, tp->f->comm, 0, tp->fn) != MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    free(sp);
    if (cls != MPI_SUCCESS)
        return cls;
    for (int r = 0; r < size; r++)
        tp->rcur[r] = tp->rstart[r];

    if (tp->my_aggr >= 0) {
        tp->cbuf = malloc((size_t)tp->cb);
        tp->wpieces = malloc((tp->rstart[size] ? tp->rstart[size] : 1) * sizeof *tp->wpieces);
    }
    /* sbuf: my own data of one round (sent for writes, received for reads) */
    tp->sbuf = malloc((size_t)(tp->len < tp->cb * naggr ? (tp->len > 0 ? tp->len : 1)
                                                        : tp->cb * naggr));
    if (tp->sbuf == NULL || (tp->my_aggr >= 0 && (tp->cbuf == NULL || tp->wpieces == NULL)))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* The byte counts of round t: as an aggregator, every rank's pieces in my
 * window (into wpieces); my data for each aggregator's window; the
 * displacements; rbuf grown to what I gather or hand out. */
static int tp_round_counts(tp_t *tp, MPI_Offset t, tp_round_t *rd)
{
    int size = tp->size, write = tp->write, ssum = 0, rsum = 0;

    memset(rd, 0, sizeof *rd);
    rd->lo = rd->hi = -1;
    memset(tp->scnt, 0, (size_t)size * sizeof *tp->scnt);
    memset(tp->rcnt, 0, (size_t)size * sizeof *tp->rcnt);
    if (tp->my_aggr >= 0) {
        tp_window(tp, tp->my_aggr, t, &rd->ws, &rd->we);
        /* the pieces of every rank in this round's window */
        for (int r = 0; r < size; r++) {
            int bytes = 0;
            for (size_t i = tp->rcur[r]; i < tp->rstart[r + 1]; i++) {
                MPI_Offset o, l = clip(&tp->rpieces[i], rd->ws, rd->we, &o);
                if (tp->rpieces[i].off >= rd->we)
                    break;
                if (l == 0)
                    continue;
                tp->wpieces[rd->nw].off = o;
                tp->wpieces[rd->nw].len = l;
                rd->nw++;
                bytes += (int)l;
                if (rd->lo < 0 || o < rd->lo)
                    rd->lo = o;
                if (o + l > rd->hi)
                    rd->hi = o + l;
            }
            (write ? tp->rcnt : tp->scnt)[r] = bytes;
        }
    }
    /* my data for each aggregator's window this round */
    for (int a = 0; a < tp->naggr; a++) {
        MPI_Offset ws, we;
        int bytes = 0;
        tp_window(tp, a, t, &ws, &we);
        for (size_t i = tp->scur[a]; i < tp->sx.per[a].n; i++) {
            MPI_Offset o, l = clip(&tp->sx.per[a].p[i], ws, we, &o);
            if (tp->sx.per[a].p[i].off >= we)
                break;
            bytes += (int)l;
        }
        (write ? tp->scnt : tp->rcnt)[tp->aggr_rank[a]] = bytes;
    }
    for (int r = 0; r < size; r++) {
        tp->sdsp[r] = ssum;
        ssum += tp->scnt[r];
        tp->rdsp[r] = rsum;
        rsum += tp->rcnt[r];
    }
    /* rbuf: what an aggregator gathers (writes) or hands out (reads);
     * ranks may overlap, so it can exceed the window */
    if (tp->my_aggr >= 0 && (size_t)(write ? rsum : ssum) > tp->rbuf_cap) {
        char *nb = realloc(tp->rbuf, (size_t)(write ? rsum : ssum));
        if (nb == NULL)
            return MPI_ERR_NO_MEM;
        tp->rbuf = nb;
        tp->rbuf_cap = (size_t)(write ? rsum : ssum);
    }
    return MPI_SUCCESS;
}

/* An aggregator writes what it gathered into its window: read first only
 * if the pieces leave holes. Errors go to tp->cls (the rounds go on: the
 * others still exchange with this rank). Returns nonzero when out of memory. */
static int tp_place_write(tp_t *tp, const tp_round_t *rd)
{
    struct ADIOI_FileD *f = tp->f;
    MPI_Offset lo = rd->lo, hi = rd->hi, reach;
    int holes = 0;
    size_t k = 0, k2 = 0;
    piece_t *cov;

    for (int r = 0; r < tp->size; r++) {
        char *src = tp->rbuf + tp->rdsp[r];
        for (size_t i = tp->rcur[r]; i < tp->rstart[r + 1]; i++) {
            MPI_Offset o, l = clip(&tp->rpieces[i], rd->ws, rd->we, &o);
            if (tp->rpieces[i].off >= rd->we)
                break;
            if (l == 0)
                continue;
            tp->wpieces[k].off = o;
            tp->wpieces[k].len = (MPI_Offset)(src - tp->rbuf); /* remember the source */
            k++;
            src += l;
        }
    }
    /* sort a copy of (offset, length) to find holes */
    cov = malloc(rd->nw * sizeof *cov);
    if (cov == NULL) {
        tp->cls = MPI_ERR_NO_MEM;
        return -1;
    }
    for (int r = 0; r < tp->size; r++)
        for (size_t i = tp->rcur[r]; i < tp->rstart[r + 1]; i++) {
            MPI_Offset o, l = clip(&tp->rpieces[i], rd->ws, rd->we, &o);
            if (tp->rpieces[i].off >= rd->we)
                break;
            if (l == 0)
                continue;
            cov[k2].off = o;
            cov[k2].len = l;
            k2++;
        }
    qsort(cov, rd->nw, sizeof *cov, cmp_piece);
    reach = lo;
    for (size_t i = 0; i < rd->nw; i++) {
        if (cov[i].off > reach)
            holes = 1;
        if (cov[i].off + cov[i].len > reach)
            reach = cov[i].off + cov[i].len;
    }
    free(cov);
    if (f->atomic && range_lock(f->fd, F_WRLCK, lo, hi - lo) < 0 && tp->cls == 0) {
        tp->eno = errno;
        tp->cls = MPI_ERR_IO;
    }
    if (holes) {
        MPI_Offset n = pread_full(f->fd, tp->cbuf, hi - lo, lo);
        if (n < 0 && tp->cls == 0) {
            tp->eno = errno;
            tp->cls = io_errno_class(errno);
        } else if (n >= 0 && n < hi - lo) {
            memset(tp->cbuf + n, 0, (size_t)(hi - lo - n));
        }
    }
    k = 0;
    for (int r = 0; r < tp->size; r++)
        for (size_t i = tp->rcur[r]; i < tp->rstart[r + 1]; i++) {
            MPI_Offset o, l = clip(&tp->rpieces[i], rd->ws, rd->we, &o);
            if (tp->rpieces[i].off >= rd->we)
                break;
            if (l == 0)
                continue;
            memcpy(tp->cbuf + (o - lo), tp->rbuf + tp->wpieces[k].len, (size_t)l);
            k++;
        }
    if (tp->cls == MPI_SUCCESS && pwrite_full(f->fd, tp->cbuf, hi - lo, lo) < 0) {
        tp->eno = errno;
        tp->cls = io_errno_class(errno);
    }
    if (f->atomic)
        range_lock(f->fd, F_UNLCK, lo, hi - lo);
    return 0;
}

/* Round t of a write: pack my pieces for each aggregator, send them, and
 * (aggregators) place what arrived. Nonzero: stop (tp->cls says why). */
static int tp_round_write(tp_t *tp, MPI_Offset t, const tp_round_t *rd)
{
    for (int a = 0; a < tp->naggr; a++) {
        MPI_Offset ws, we;
        char *dst = tp->sbuf + tp->sdsp[tp->aggr_rank[a]];
        tp_window(tp, a, t, &ws, &we);
        for (size_t i = tp->scur[a]; i < tp->sx.per[a].n; i++) {
            MPI_Offset o, l = clip(&tp->sx.per[a].p[i], ws, we, &o);
            if (tp->sx.per[a].p[i].off >= we)
                break;
            memcpy(dst, tp->stream + tp->sx.per[a].spos[i] + (o - tp->sx.per[a].p[i].off),
                   (size_t)l);
            dst += l;
        }
    }
    if (mpi_alltoallv_impl(tp->sbuf, tp->scnt, tp->sdsp, MPI_BYTE, tp->rbuf, tp->rcnt, tp->rdsp,
                           MPI_BYTE, tp->f->comm, 0, tp->fn) != MPI_SUCCESS) {
        tp->cls = MPI_ERR_OTHER;
        return -1;
    }
    if (tp->my_aggr >= 0 && rd->nw > 0 && tp->cls == MPI_SUCCESS)
        return tp_place_write(tp, rd);
    return 0;
}

/* Round t of a read: aggregators read their window and hand every rank its
 * pieces; I scatter mine into the stream. Nonzero: stop (tp->cls says why). */
static int tp_round_read(tp_t *tp, MPI_Offset t, const tp_round_t *rd)
{
    static char nothing;
    struct ADIOI_FileD *f = tp->f;
    char *mine = tp->sbuf;

    if (tp->my_aggr >= 0 && rd->nw > 0) {
        MPI_Offset n, lo = rd->lo, hi = rd->hi;
        char *dst;
        if (f->atomic && range_lock(f->fd, F_RDLCK, lo, hi - lo) < 0 && tp->cls == 0) {
            tp->eno = errno;
            tp->cls = MPI_ERR_IO;
        }
        n = pread_full(f->fd, tp->cbuf, hi - lo, lo);
        if (f->atomic)
            range_lock(f->fd, F_UNLCK, lo, hi - lo);
        if (n < 0) {
            if (tp->cls == 0) {
                tp->eno = errno;
                tp->cls = io_errno_class(errno);
            }
            n = 0;
        }
        if (n < hi - lo)
            memset(tp->cbuf + n, 0, (size_t)(hi - lo - n));
        /* the send buffer must not overlap what I receive: use rbuf's head */
        dst = tp->rbuf;
        for (int r = 0; r < tp->size; r++)
            for (size_t i = tp->rcur[r]; i < tp->rstart[r + 1]; i++) {
                MPI_Offset o, l = clip(&tp->rpieces[i], rd->ws, rd->we, &o);
                if (tp->rpieces[i].off >= rd->we)
                    break;
                if (l == 0)
                    continue;
                memcpy(dst, tp->cbuf + (o - lo), (size_t)l);
                dst += l;
            }
    }
    if (mpi_alltoallv_impl(tp->my_aggr >= 0 ? tp->rbuf : &nothing, tp->scnt, tp->sdsp, MPI_BYTE,
                           mine, tp->rcnt, tp->rdsp, MPI_BYTE, f->comm, 0, tp->fn) != MPI_SUCCESS) {
        tp->cls = MPI_ERR_OTHER;
        return -1;
    }
    /* scatter what came back into the stream */
    for (int a = 0; a < tp->naggr; a++) {
        MPI_Offset ws, we;
        char *src = mine + tp->rdsp[tp->aggr_rank[a]];
        tp_window(tp, a, t, &ws, &we);
        for (size_t i = tp->scur[a]; i < tp->sx.per[a].n; i++) {
            MPI_Offset o, l = clip(&tp->sx.per[a].p[i], ws, we, &o), lc = l;
            if (tp->sx.per[a].p[i].off >= we)
                break;
            /* the caller's buffer past the end of the file stays as it was */
            if (tp->eof >= 0 && o + lc > tp->eof)
                lc = tp->eof > o ? tp->eof - o : 0;
            if (lc > 0)
                memcpy(tp->stream + tp->sx.per[a].spos[i] + (o - tp->sx.per[a].p[i].off), src,
                       (size_t)lc);
            src += l;
        }
    }
    return 0;
}

/* Advance the cursors past pieces that end inside round t's windows. */
static void tp_advance(tp_t *tp, MPI_Offset t, const tp_round_t *rd)
{
    for (int a = 0; a < tp->naggr; a++) {
        MPI_Offset we = tp->gmin + (MPI_Offset)a * tp->fd_size + (t + 1) * tp->cb;
        while (tp->scur[a] < tp->sx.per[a].n &&
               tp->sx.per[a].p[tp->scur[a]].off + tp->sx.per[a].p[tp->scur[a]].len <= we)
            tp->scur[a]++;
    }
    if (tp->my_aggr >= 0)
        for (int r = 0; r < tp->size; r++)
            while (tp->rcur[r] < tp->rstart[r + 1] &&
                   tp->rpieces[tp->rcur[r]].off + tp->rpieces[tp->rcur[r]].len <= rd->we)
                tp->rcur[r]++;
}

static void tp_free(tp_t *tp)
{
    if (tp->sx.per != NULL)
        for (int a = 0; a < tp->naggr; a++) {
            free(tp->sx.per[a].p);
            free(tp->sx.per[a].spos);
        }
    free(tp->sx.per);
    free(tp->aggr_rank);
    free(tp->scnt);
    free(tp->rcnt);
    free(tp->sdsp);
    free(tp->rdsp);
    free(tp->rstart);
    free(tp->rcur);
    free(tp->scur);
    free(tp->rpieces);
    free(tp->wpieces);
    free(tp->sbuf);
    free(tp->rbuf);
    free(tp->cbuf);
}

/* A collective access of the stream bytes [pos, pos + len): the plan
 * (rw_coll_plan), then either independent access or two-phase collective
 * buffering in rounds (tp_*). */
static int rw_coll(struct ADIOI_FileD *f, int write, MPI_Offset pos, char *stream, MPI_Offset len,
                   int local_err, MPI_Offset *got_out, int *eno_out, const char *fn)
{
    span_t me;
    tp_t tp;
    MPI_Offset ntimes;
    int use_cb = 0, cls;

    memset(&tp, 0, sizeof tp);
    tp.f = f;
    tp.write = write;
    tp.size = f->size;
    tp.stream = stream;
    tp.len = len;
    tp.my_aggr = -1;
    tp.eof = -1;
    tp.fn = fn;
    *got_out = 0;
    if (!write) {
        struct stat sb0;
        if (fstat(f->fd, &sb0) == 0)
            tp.eof = sb0.st_size;
    }
    *eno_out = 0;
    me.start = len > 0 ? io_view_byte(f, pos) : -1;
    me.end = len > 0 ? io_view_byte(f, pos + len - 1) + 1 : -1;
    me.strided = len > 0 && me.end - me.start != len;
    me.overlap = f->flat.overlap;
    me.err = local_err;
    cls = rw_coll_plan(f, write, &me, local_err, &tp.gmin, &tp.gmax, &use_cb, fn);
    if (cls != MPI_SUCCESS)
        return cls;
    if (tp.gmin < 0)
        return MPI_SUCCESS; /* nobody has data */
    if (!use_cb)
        return rw_indep(f, write, pos, stream, len, got_out, eno_out);

    /* Two-phase. Aggregators are spread evenly over the ranks. */
    if ((tp.cls = tp_setup(&tp, pos)) != MPI_SUCCESS ||
        (tp.cls = tp_exchange_pieces(&tp)) != MPI_SUCCESS)
        goto out;
    ntimes = (tp.fd_size + tp.cb - 1) / tp.cb;
    for (MPI_Offset t = 0; t < ntimes; t++) {
        tp_round_t rd;
        if ((cls = tp_round_counts(&tp, t, &rd)) != MPI_SUCCESS) {
            tp.cls = cls;
            goto out;
        }
        if ((write ? tp_round_write(&tp, t, &rd) : tp_round_read(&tp, t, &rd)) != 0)
            goto out;
        tp_advance(&tp, t, &rd);
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
    tp_free(&tp);
    *eno_out = tp.eno;
    return tp.cls;
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

/* io_access, phase 1: the access is allowed and fits the view; the engine
 * type and the bytes of (count, datatype) in the file's representation.
 * Returns MPI_SUCCESS or what the raise returned (io/io.h: never
 * MPI_SUCCESS, even when a user's handler cleared the code). */
static int access_check(struct ADIOI_FileD *f, int write, io_where_t where, MPI_Offset offset,
                        const void *buf, MPI_Count count, MPI_Datatype datatype, dt_type_t **dt_out,
                        MPI_Offset *bytes_out, const char *fn)
{
    MPI_Offset bytes;
    int err;

    *dt_out = NULL;
    if ((err = io_check_buf(f, buf, count, datatype, fn, dt_out)) != MPI_SUCCESS)
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
    if ((err = io_rep_size(f, *dt_out, datatype, count, bytes_out, fn)) != MPI_SUCCESS)
        return err;
    bytes = *bytes_out;
    if (bytes % f->esize != 0)
        return io_err(f, MPI_ERR_TYPE, fn,
                      "count=%lld of datatype=%#x is %lld bytes, not a whole number of etypes "
                      "(%lld bytes each)",
                      (long long)count, (unsigned)datatype, (long long)bytes, (long long)f->esize);
    if (bytes > 0 && f->fsize == 0)
        return io_err(f, MPI_ERR_IO, fn,
                      "the view of this rank holds no data (its filetype has size 0) but "
                      "count=%lld asks for %lld bytes",
                      (long long)count, (long long)bytes);
    return MPI_SUCCESS;
}

/* The error class a rank that failed alone hands to the others of a
 * collective access: that of its raised code, unless its handler cleared
 * it (io/io.h's IO_HANDLED). */
static int raised_class(int err, const char *fn)
{
    int cls = MPI_ERR_OTHER;
    if (err == IO_HANDLED || mpi_error_class_impl(err, &cls, fn) != MPI_SUCCESS ||
        cls == MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return cls;
}

/* Phase 2: where the access starts, in bytes of the view's stream (the
 * shared pointer moves by the access's etypes; the _ordered forms take
 * consecutive slices in rank order). */
static int access_position(struct ADIOI_FileD *f, io_where_t where, MPI_Offset offset,
                           MPI_Offset etypes, MPI_Offset *pos_out, const char *fn)
{
    int err;

    *pos_out = 0;
    switch (where) {
    case IO_AT:
        *pos_out = offset * f->esize;
        break;
    case IO_IND:
        *pos_out = f->fp_ind * f->esize;
        break;
    case IO_SHARED: {
        MPI_Offset old;
        if ((err = io_shfp_fetch_add(f, etypes, &old)))
            return err;
        *pos_out = old * f->esize;
        break;
    }
    case IO_ORDERED: {
        /* ranks take consecutive slices in rank order */
        long long mine = etypes, before = 0, total = 0, base = 0;
        int own = MPI_SUCCESS; /* rank 0's raise, when it failed itself */
        if (mpi_exscan_impl(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, f->comm, fn) !=
                MPI_SUCCESS ||
            mpi_allreduce_impl(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, f->comm, fn) !=
                MPI_SUCCESS)
            return io_err(f, MPI_ERR_OTHER, fn, "cannot order the ranks' accesses");
        if (f->rank == 0) {
            MPI_Offset old = 0;
            before = 0;
            own = io_shfp_fetch_add(f, total, &old);
            base = old;
        }
        if (mpi_bcast_impl(&base, 1, MPI_LONG_LONG, 0, f->comm, fn) != MPI_SUCCESS ||
            io_agree(f, own != MPI_SUCCESS ? MPI_ERR_IO : 0, fn) != 0)
            return own != MPI_SUCCESS
                       ? own
                       : io_err(f, MPI_ERR_IO, fn, "cannot update the shared file pointer");
        *pos_out = (base + before) * f->esize;
        break;
    }
    }

    return MPI_SUCCESS;
}

/* A data access, every form: check (access_check), find where it starts
 * (access_position), convert to the file's representation, move the bytes
 * (rw_coll or rw_indep), convert back, advance the individual pointer. */
static int io_access(struct ADIOI_FileD *f, int write, int coll, io_where_t where,
                     MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                     io_result_t *res, const char *fn)
{
    dt_type_t *dt;
    MPI_Offset bytes, etypes, pos = 0, got = 0;
    void *stream = NULL;
    int owned = 0, err, cls, eno = 0;

    res->bytes = 0;
    if ((err = access_check(f, write, where, offset, buf, count, datatype, &dt, &bytes, fn)) !=
        MPI_SUCCESS) {
        /* A collective access that fails here still takes part where the
         * others may already be inside the collective: the ordered forms'
         * positions (with no etypes of its own), then the exchange. */
        if (coll &&
            (where != IO_ORDERED || access_position(f, where, 0, 0, &pos, fn) == MPI_SUCCESS))
            coll_fail(f, write, raised_class(err, fn), fn);
        return err;
    }
    etypes = bytes / f->esize;
    if ((err = access_position(f, where, offset, etypes, &pos, fn)) != MPI_SUCCESS)
        return err;

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
    /* (a failed access moved nothing, which a handler that cleared the code may read) */
    status_fill(status, err == MPI_SUCCESS ? res.bytes : 0);
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
    if (r == NULL) {
        *request = MPI_REQUEST_NULL;
        return io_err(f, MPI_ERR_NO_MEM, fn, "out of requests");
    }
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
    status_fill(status, f->split.err == MPI_SUCCESS ? f->split.bytes : 0);
    return f->split.err;
}
