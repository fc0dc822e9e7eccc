/*
 * The resumable cursor over (buf, count, type): packs, unpacks or describes
 * as iovecs any byte range of the packed stream, stopping anywhere (inside a
 * block too) and resuming later. The device packs large messages chunk by
 * chunk with it, channels that gather take the iovec view, and MPI_Pack and
 * MPI_Unpack are whole-buffer runs. State is a small stack of frames (one
 * per program level, inline in the cursor for all but very deep types); the
 * innermost raw loops are copied by specialized strided loops, so a vector
 * of doubles packs at close to memcpy speed.
 */
#include "datatype/dt_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MODE_PACK, MODE_UNPACK, MODE_IOV };

static inline dt_frame_t *frames(dt_cursor_t *c) { return c->heap ? c->heap : c->frames; }

static inline const dt_node_t *node_child(const dt_node_t *n, size_t i)
{
    return n->childv ? n->childv[i] : n->child;
}

static inline size_t node_reps(const dt_node_t *n, size_t i)
{
    return n->blens ? n->blens[i] : n->blen;
}

static inline ptrdiff_t node_off(const dt_node_t *n, size_t i)
{
    return n->kind == DT_NODE_VEC ? n->disp + (ptrdiff_t)i * n->stride : n->offs[i];
}

/* Strided gather/scatter of n blocks of len bytes; small fixed sizes become
 * plain moves. */
static inline void gather(char *restrict dst, const char *restrict src, size_t n, size_t len,
                          ptrdiff_t stride)
{
    size_t k;
    switch (len) {
    case 1: for (k = 0; k < n; k++) dst[k] = src[(ptrdiff_t)k * stride]; break;
    case 2: for (k = 0; k < n; k++) memcpy(dst + 2 * k, src + (ptrdiff_t)k * stride, 2); break;
    case 4: for (k = 0; k < n; k++) memcpy(dst + 4 * k, src + (ptrdiff_t)k * stride, 4); break;
    case 8: for (k = 0; k < n; k++) memcpy(dst + 8 * k, src + (ptrdiff_t)k * stride, 8); break;
    case 12: for (k = 0; k < n; k++) memcpy(dst + 12 * k, src + (ptrdiff_t)k * stride, 12); break;
    case 16: for (k = 0; k < n; k++) memcpy(dst + 16 * k, src + (ptrdiff_t)k * stride, 16); break;
    case 24: for (k = 0; k < n; k++) memcpy(dst + 24 * k, src + (ptrdiff_t)k * stride, 24); break;
    case 32: for (k = 0; k < n; k++) memcpy(dst + 32 * k, src + (ptrdiff_t)k * stride, 32); break;
    default: for (k = 0; k < n; k++) memcpy(dst + len * k, src + (ptrdiff_t)k * stride, len); break;
    }
}

static inline void scatter(char *restrict dst, const char *restrict src, size_t n, size_t len,
                           ptrdiff_t stride)
{
    size_t k;
    switch (len) {
    case 1: for (k = 0; k < n; k++) dst[(ptrdiff_t)k * stride] = src[k]; break;
    case 2: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 2 * k, 2); break;
    case 4: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 4 * k, 4); break;
    case 8: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 8 * k, 8); break;
    case 12: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 12 * k, 12); break;
    case 16: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 16 * k, 16); break;
    case 24: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 24 * k, 24); break;
    case 32: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + 32 * k, 32); break;
    default: for (k = 0; k < n; k++) memcpy(dst + (ptrdiff_t)k * stride, src + len * k, len); break;
    }
}

typedef struct {
    struct iovec *iov;
    int n, max;
} iovs_t;

/* One piece of k bytes between p in the user buffer and offset `at` of the
 * stream s. Returns 0 when an iovec list is full. */
static inline int piece(int mode, char *p, char *s, size_t at, size_t k, iovs_t *v)
{
    if (mode == MODE_PACK) {
        memcpy(s + at, p, k);
    } else if (mode == MODE_UNPACK) {
        memcpy(p, s + at, k);
    } else {
        if (v->n > 0 && (char *)v->iov[v->n - 1].iov_base + v->iov[v->n - 1].iov_len == p) {
            v->iov[v->n - 1].iov_len += k;
            return 1;
        }
        if (v->n == v->max)
            return 0;
        v->iov[v->n].iov_base = p;
        v->iov[v->n].iov_len = k;
        v->n++;
    }
    return 1;
}

/* One whole instance of a raw node (no children) at b <-> stream s. */
static inline void copy_instance(int mode, const dt_node_t *n, char *b, char *s)
{
    if (n->kind == DT_NODE_VEC) {
        if (mode == MODE_PACK)
            gather(s, b + n->disp, n->count, n->blen, n->stride);
        else
            scatter(b + n->disp, s, n->count, n->blen, n->stride);
        return;
    }
    for (size_t i = 0; i < n->count; i++) {
        size_t len = node_reps(n, i);
        if (mode == MODE_PACK)
            gather(s, b + n->offs[i], 1, len, 0);
        else
            scatter(b + n->offs[i], s, 1, len, 0);
        s += len;
    }
}

static inline __attribute__((always_inline)) size_t
xfer(dt_cursor_t *c, char *buf, char *s, size_t max, int mode, iovs_t *v)
{
    dt_frame_t *fr = frames(c);
    int depth = c->depth, full = 0;
    size_t done = 0, leaf_off = c->leaf_off;

    while (depth > 0 && done < max && !full) {
        dt_frame_t *f = &fr[depth - 1];
        const dt_node_t *n = f->node;
        const dt_node_t *ch;
        size_t i = f->i;

        if (i >= n->count) {
            if (--depth == 0)
                break;
            f = &fr[depth - 1];
            if (++f->j >= node_reps(f->node, f->i)) {
                f->j = 0;
                f->i++;
            }
            continue;
        }
        ch = node_child(n, i);
        if (ch != NULL) {
            dt_frame_t *g = &fr[depth++];
            g->node = ch;
            g->base = f->base + node_off(n, i) + (ptrdiff_t)f->j * ch->extent;
            g->i = g->j = 0;
            continue;
        }
        if (mode != MODE_IOV && depth >= 2 && i == 0 && leaf_off == 0 && n->childv == NULL &&
            n->size <= max - done && fr[depth - 2].node->child == n &&
            fr[depth - 2].node->childv == NULL) {
            /* Whole instances of a small raw node repeated by its parent
             * (count of a vector or a struct): loop here instead of popping
             * and pushing a frame per instance. */
            dt_frame_t *p = &fr[depth - 2];
            const dt_node_t *pn = p->node;
            for (;;) {
                copy_instance(mode, n, buf + p->base + node_off(pn, p->i) +
                                           (ptrdiff_t)p->j * n->extent, s + done);
                done += n->size;
                if (++p->j >= node_reps(pn, p->i)) {
                    p->j = 0;
                    if (++p->i >= pn->count)
                        break;
                }
                if (max - done < n->size)
                    break;
            }
            if (p->i >= pn->count)
                depth--; /* the parent is done too; popped next round */
            else
                f->base = p->base + node_off(pn, p->i) + (ptrdiff_t)p->j * n->extent;
            continue;
        }
        if (n->kind == DT_NODE_VEC && mode != MODE_IOV && leaf_off == 0) {
            /* whole blocks in bulk, then a partial last one */
            size_t len = n->blen, nfull = (max - done) / len;
            char *b = buf + f->base + n->disp + (ptrdiff_t)i * n->stride;
            if (nfull > n->count - i)
                nfull = n->count - i;
            if (nfull > 0) {
                if (mode == MODE_PACK)
                    gather(s + done, b, nfull, len, n->stride);
                else
                    scatter(b, s + done, nfull, len, n->stride);
                done += nfull * len;
                i += nfull;
            }
            if (i < n->count && done < max) {
                size_t k = max - done; /* < len */
                piece(mode, buf + f->base + n->disp + (ptrdiff_t)i * n->stride, s, done, k, v);
                done += k;
                leaf_off = k;
            }
            f->i = i;
            continue;
        }
        /* block by block: the iovec view, a partial block, indexed blocks */
        while (i < n->count && done < max) {
            size_t len = node_reps(n, i), k;
            if (n->childv != NULL && n->childv[i] != NULL)
                break;
            k = len - leaf_off < max - done ? len - leaf_off : max - done;
            if (!piece(mode, buf + f->base + node_off(n, i) + leaf_off, s, done, k, v)) {
                full = 1;
                break;
            }
            done += k;
            leaf_off += k;
            if (leaf_off < len)
                break;
            leaf_off = 0;
            i++;
            if (n->kind == DT_NODE_VEC && mode != MODE_IOV)
                break; /* back to the bulk path */
        }
        f->i = i;
    }
    c->depth = depth;
    c->leaf_off = leaf_off;
    c->pos += done;
    return done;
}

size_t dt_pack_next(dt_cursor_t *c, const void *buf, void *out, size_t max)
{
    return xfer(c, (char *)buf, out, max, MODE_PACK, NULL);
}

size_t dt_unpack_next(dt_cursor_t *c, void *buf, const void *in, size_t len)
{
    return xfer(c, buf, (char *)in, len, MODE_UNPACK, NULL);
}

size_t dt_iov_next(dt_cursor_t *c, const void *buf, struct iovec *iov, int max_iov, size_t max,
                   int *niov_out)
{
    iovs_t v = {iov, 0, max_iov};
    size_t done = 0;
    if (max_iov > 0)
        done = xfer(c, (char *)buf, NULL, max, MODE_IOV, &v);
    *niov_out = v.n;
    return done;
}

/* Back to packed offset 0 (frames(c)[0].node is the root). */
static void cursor_reset(dt_cursor_t *c)
{
    dt_frame_t *fr = frames(c);
    c->pos = 0;
    c->leaf_off = 0;
    c->depth = c->total > 0 ? 1 : 0;
    fr[0].base = 0;
    fr[0].i = fr[0].j = 0;
}

canal_status_t dt_cursor_init(dt_cursor_t *c, const dt_type_t *t, size_t count)
{
    const dt_node_t *root;
    canal_status_t st;

    memset(c, 0, offsetof(dt_cursor_t, frames));
    c->type = t;
    c->count = count;
    /* commit is idempotent; a committed type is never modified */
    if ((st = dt_commit((dt_type_t *)t)) != CANAL_OK)
        return st;
    if (__builtin_mul_overflow(count, t->size, &c->total) || c->total > (size_t)PTRDIFF_MAX) {
        c->total = 0;
        return common_err_set(CANAL_ERR_ARG, "%zu elements of a %zu-byte type overflow", count,
                              t->size);
    }
    if (c->total == 0)
        return CANAL_OK;
    root = dt_node_reps(t, count, &c->root);
    if (root == NULL) {
        memset(&c->root, 0, sizeof c->root);
        c->root.kind = DT_NODE_VEC;
        c->root.count = 1;
        c->root.blen = count;
        c->root.child = t->prog;
        c->root.depth = t->prog->depth + 1;
        c->root.size = c->total;
        root = &c->root;
    }
    c->maxdepth = root->depth;
    if (c->maxdepth > DT_CURSOR_DEPTH) {
        c->heap = malloc((size_t)c->maxdepth * sizeof *c->heap);
        if (c->heap == NULL) {
            c->total = 0;
            return common_err_set(CANAL_ERR_NOMEM, "cursor of %d levels", c->maxdepth);
        }
    }
    frames(c)[0].node = root;
    cursor_reset(c);
    return CANAL_OK;
}

void dt_cursor_fini(dt_cursor_t *c)
{
    free(c->heap);
    c->heap = NULL;
    c->type = NULL;
    c->depth = 0;
}

canal_status_t dt_cursor_seek(dt_cursor_t *c, size_t off)
{
    dt_frame_t *fr = frames(c);
    size_t rem = off;
    int depth = 1;

    if (off > c->total)
        return common_err_set(CANAL_ERR_ARG, "cursor seek to %zu beyond the %zu packed bytes", off,
                              c->total);
    c->pos = off;
    c->leaf_off = 0;
    if (off == c->total) {
        c->depth = 0;
        return CANAL_OK;
    }
    fr[0].base = 0;
    for (;;) {
        dt_frame_t *f = &fr[depth - 1];
        const dt_node_t *n = f->node, *ch;
        size_t i, j;

        if (n->psum != NULL) {
            size_t lo = 0, hi = n->count - 1;
            while (lo < hi) { /* largest i with psum[i] <= rem */
                size_t mid = lo + (hi - lo + 1) / 2;
                if (n->psum[mid] <= rem)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            i = lo;
            rem -= n->psum[i];
        } else {
            size_t bsz = n->blen * (n->child ? n->child->size : 1);
            i = rem / bsz;
            rem -= i * bsz;
        }
        f->i = i;
        f->j = 0;
        ch = node_child(n, i);
        if (ch == NULL) {
            c->leaf_off = rem;
            break;
        }
        j = rem / ch->size;
        rem -= j * ch->size;
        f->j = j;
        fr[depth].node = ch;
        fr[depth].base = f->base + node_off(n, i) + (ptrdiff_t)j * ch->extent;
        fr[depth].i = fr[depth].j = 0;
        depth++;
    }
    c->depth = depth;
    return CANAL_OK;
}

canal_status_t dt_pack(const void *buf, size_t count, const dt_type_t *t, void *out,
                       size_t out_size, size_t *bytes_out)
{
    dt_cursor_t c;
    canal_status_t st;
    size_t total;

    if (t->committed && t->contig && !__builtin_mul_overflow(count, t->size, &total)) {
        if (total > out_size)
            return common_err_set(CANAL_ERR_TRUNCATE, "pack: %zu bytes do not fit in %zu", total,
                                  out_size);
        if (total > 0)
            memcpy(out, (const char *)buf + t->true_lb, total);
        *bytes_out = total;
        return CANAL_OK;
    }
    st = dt_cursor_init(&c, t, count);
    if (st == CANAL_OK && c.total > out_size)
        st = common_err_set(CANAL_ERR_TRUNCATE, "pack: %zu bytes do not fit in %zu", c.total,
                            out_size);
    if (st == CANAL_OK)
        *bytes_out = dt_pack_next(&c, buf, out, c.total);
    dt_cursor_fini(&c);
    return st;
}

canal_status_t dt_unpack(const void *in, size_t in_size, void *buf, size_t count,
                         const dt_type_t *t, size_t *bytes_out)
{
    dt_cursor_t c;
    canal_status_t st;
    size_t total;

    if (t->committed && t->contig && !__builtin_mul_overflow(count, t->size, &total)) {
        if (total > in_size)
            total = in_size;
        if (total > 0)
            memcpy((char *)buf + t->true_lb, in, total);
        *bytes_out = total;
        return CANAL_OK;
    }
    st = dt_cursor_init(&c, t, count);
    if (st == CANAL_OK)
        *bytes_out = dt_unpack_next(&c, buf, in, in_size < c.total ? in_size : c.total);
    dt_cursor_fini(&c);
    return st;
}
