/*
 * Check unit tests of datatype/: every constructor against a hand-computed
 * layout (size, bounds, true bounds, packed bytes), MPI-1 markers and
 * resized types, subarray and darray against an element-by-element model,
 * random type trees packed by the engine and by a naive byte-by-byte model
 * written here (with the cursor split at every byte, seeks and the iovec
 * view), reductions for every operation and type class, element counting,
 * external32, envelopes, reference counting and bad input.
 */
#include <check.h>
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/dt.h"
#include "test/unit/unit_limits.h"

#define B(x) dt_builtin(DT_##x)

/* ------------------------------------------------------------ helpers */
static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131u + seed * 7u + 1u);
}

/* Pack an int-array layout: the packed ints must be the listed indices. */
static void check_int_elems(dt_type_t *t, size_t count, const int *idx, size_t n)
{
    int buf[256], out[256];
    size_t bytes;
    for (int i = 0; i < 256; i++)
        buf[i] = i;
    ck_assert_int_eq(dt_commit(t), CANAL_OK);
    ck_assert_int_eq(dt_pack(buf + 64, count, t, out, sizeof out, &bytes), CANAL_OK);
    ck_assert_uint_eq(bytes, n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == 64 + idx[i], "element %zu: got %d want %d", i, out[i] - 64,
                      idx[i]);
}

static void check_bounds(const dt_type_t *t, size_t size, ptrdiff_t lb, ptrdiff_t extent,
                         ptrdiff_t tlb, ptrdiff_t text)
{
    ck_assert_uint_eq(dt_size(t), size);
    ck_assert_int_eq(dt_lb(t), lb);
    ck_assert_int_eq(dt_extent(t), extent);
    ck_assert_int_eq(dt_ub(t), lb + extent);
    ck_assert_int_eq(dt_true_lb(t), tlb);
    ck_assert_int_eq(dt_true_extent(t), text);
}

/* ------------------------------------------------------------ builtins */
START_TEST(builtin_sizes)
{
    ck_assert_uint_eq(dt_size(B(INT)), 4);
    ck_assert_int_eq(dt_extent(B(INT)), 4);
    ck_assert_uint_eq(dt_size(B(LONG_DOUBLE)), sizeof(long double));
    ck_assert_uint_eq(dt_size(B(DOUBLE_INT)), 12);
    ck_assert_int_eq(dt_extent(B(DOUBLE_INT)), 16);
    ck_assert_uint_eq(dt_size(B(SHORT_INT)), 6);
    ck_assert_int_eq(dt_extent(B(SHORT_INT)), 8);
    ck_assert_int_eq(dt_true_extent(B(SHORT_INT)), 8);
    ck_assert_uint_eq(dt_size(B(LONG_DOUBLE_INT)), sizeof(long double) + 4);
    ck_assert_uint_eq(dt_size(B(2INT)), 8);
    ck_assert_uint_eq(dt_size(B(C_DOUBLE_COMPLEX)), 16);
    ck_assert_uint_eq(dt_size(B(LB)), 0);
    ck_assert_str_eq(dt_builtin_name(DT_DOUBLE), "MPI_DOUBLE");
    ck_assert_str_eq(dt_get_name(B(FLOAT_INT)), "MPI_FLOAT_INT");
    ck_assert_ptr_null(dt_builtin(DT_NBUILTIN));
    ck_assert(dt_is_contig(B(DOUBLE)));
    ck_assert(!dt_is_contig(B(DOUBLE_INT)));
    ck_assert(dt_is_contig_count(B(DOUBLE_INT), 1));
    ck_assert_uint_eq(dt_elements(B(DOUBLE_INT)), 2);
    ck_assert_int_eq(dt_contents(B(INT))->combiner, DT_COMBINER_NAMED);
    ck_assert_int_eq(dt_match_size('r', 8), DT_REAL8);
    ck_assert_int_eq(dt_match_size('i', 4), DT_INTEGER4);
    ck_assert_int_eq(dt_match_size('c', 16), DT_COMPLEX16);
    ck_assert_int_eq(dt_match_size('i', 3), DT_NBUILTIN);
    /* retain/release of builtins are no-ops */
    dt_release(B(INT));
    dt_release(B(INT));
    ck_assert_uint_eq(dt_size(B(INT)), 4);
}
END_TEST

START_TEST(builtin_pair_pack)
{
    struct { short v; int i; } a[2] = {{7, 100}, {-3, 200}};
    unsigned char out[12];
    short v;
    int i;
    size_t bytes;
    ck_assert_int_eq(dt_pack(a, 2, B(SHORT_INT), out, sizeof out, &bytes), CANAL_OK);
    ck_assert_uint_eq(bytes, 12);
    memcpy(&v, out, 2);
    memcpy(&i, out + 2, 4);
    ck_assert_int_eq(v, 7);
    ck_assert_int_eq(i, 100);
    memcpy(&v, out + 6, 2);
    memcpy(&i, out + 8, 4);
    ck_assert_int_eq(v, -3);
    ck_assert_int_eq(i, 200);
}
END_TEST

/* ------------------------------------------------------------ constructors */
START_TEST(ctor_contiguous)
{
    dt_type_t *t;
    static const int idx[] = {0, 1, 2, 3, 4, 5};
    ck_assert_int_eq(dt_create_contiguous(3, B(INT), &t), CANAL_OK);
    check_bounds(t, 12, 0, 12, 0, 12);
    check_int_elems(t, 2, idx, 6);
    ck_assert(dt_is_contig(t));
    ck_assert_uint_eq(dt_block_count(t), 1);
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_CONTIGUOUS);
    ck_assert_uint_eq(dt_contents(t)->nints, 1);
    ck_assert_int_eq(dt_contents(t)->ints[0], 3);
    ck_assert_ptr_eq(dt_contents(t)->types[0], B(INT));
    dt_release(t);
    ck_assert_int_eq(dt_create_contiguous(0, B(INT), &t), CANAL_OK);
    check_bounds(t, 0, 0, 0, 0, 0);
    dt_release(t);
}
END_TEST

/* The head the device reads inline (dt.h: dt_is_contig, dt_contig_size,
 * dt_contig_lb) says what the out-of-line queries say, from the commit on,
 * and says "not contiguous" before it (as dt_is_contig always did). */
START_TEST(head_follows_commit)
{
    dt_type_t *t, *d;
    size_t bl[1] = {3};
    ptrdiff_t disp[1] = {16};

    ck_assert(dt_is_contig(B(DOUBLE)));
    ck_assert_uint_eq(dt_contig_size(B(DOUBLE)), 8);
    ck_assert_int_eq(dt_contig_lb(B(DOUBLE)), 0);
    ck_assert(!dt_is_contig(B(DOUBLE_INT)));
    ck_assert_int_eq(dt_create_hindexed(1, bl, disp, B(INT), &t), CANAL_OK);
    ck_assert(!dt_is_contig(t)); /* not committed yet */
    ck_assert_int_eq(dt_commit(t), CANAL_OK);
    ck_assert(dt_is_contig(t));
    ck_assert_uint_eq(dt_contig_size(t), dt_size(t));
    ck_assert_uint_eq(dt_contig_size(t), 12);
    ck_assert_int_eq(dt_contig_lb(t), dt_true_lb(t));
    ck_assert_int_eq(dt_contig_lb(t), 16);
    ck_assert_int_eq(dt_create_dup(t, &d), CANAL_OK); /* committed as its original */
    ck_assert(dt_is_contig(d));
    ck_assert_uint_eq(dt_contig_size(d), 12);
    ck_assert_int_eq(dt_contig_lb(d), 16);
    dt_release(d);
    dt_release(t);
}
END_TEST

START_TEST(ctor_vector)
{
    dt_type_t *t;
    static const int idx[] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
    ck_assert_int_eq(dt_create_vector(3, 2, 4, B(INT), &t), CANAL_OK);
    check_bounds(t, 24, 0, 40, 0, 40);
    check_int_elems(t, 2, idx, 12);
    ck_assert(!dt_is_contig(t));
    ck_assert_uint_eq(dt_block_count(t), 3);
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_VECTOR);
    ck_assert_int_eq(dt_contents(t)->ints[2], 4);
    dt_release(t);
    /* stride == blocklength: contiguous */
    ck_assert_int_eq(dt_create_vector(4, 2, 2, B(DOUBLE), &t), CANAL_OK);
    ck_assert_int_eq(dt_commit(t), CANAL_OK);
    ck_assert(dt_is_contig(t));
    dt_release(t);
    /* negative stride */
    {
        static const int nidx[] = {0, 1, -3, -2};
        ck_assert_int_eq(dt_create_vector(2, 2, -3, B(INT), &t), CANAL_OK);
        check_bounds(t, 16, -12, 20, -12, 20);
        check_int_elems(t, 1, nidx, 4);
        dt_release(t);
    }
}
END_TEST

START_TEST(ctor_hvector)
{
    dt_type_t *t;
    static const int idx[] = {0, 5, 10, 15};
    ck_assert_int_eq(dt_create_hvector(4, 1, 20, B(INT), &t), CANAL_OK);
    check_bounds(t, 16, 0, 64, 0, 64);
    check_int_elems(t, 1, idx, 4);
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_HVECTOR);
    ck_assert_uint_eq(dt_contents(t)->naddrs, 1);
    ck_assert_int_eq(dt_contents(t)->addrs[0], 20);
    dt_release(t);
    ck_assert_int_eq(dt_create_hvector(2, 1, -16, B(DOUBLE), &t), CANAL_OK);
    check_bounds(t, 16, -16, 24, -16, 24);
    dt_release(t);
}
END_TEST

START_TEST(ctor_indexed)
{
    dt_type_t *t;
    size_t bl[] = {2, 1, 3};
    ptrdiff_t d[] = {0, 5, 10};
    static const int idx[] = {0, 1, 5, 10, 11, 12, 13, 14, 18, 23, 24, 25};
    ck_assert_int_eq(dt_create_indexed(3, bl, d, B(INT), &t), CANAL_OK);
    check_bounds(t, 24, 0, 52, 0, 52);
    check_int_elems(t, 2, idx, 12);
    ck_assert_uint_eq(dt_contents(t)->nints, 7);
    ck_assert_int_eq(dt_contents(t)->ints[4], 0);
    ck_assert_int_eq(dt_contents(t)->ints[6], 10);
    dt_release(t);
    /* out of order and touching blocks */
    {
        size_t bl2[] = {2, 2, 1};
        ptrdiff_t d2[] = {6, 8, 1};
        static const int idx2[] = {6, 7, 8, 9, 1};
        ck_assert_int_eq(dt_create_indexed(3, bl2, d2, B(INT), &t), CANAL_OK);
        check_bounds(t, 20, 4, 36, 4, 36);
        check_int_elems(t, 1, idx2, 5);
        ck_assert_uint_eq(dt_block_count(t), 2);
        dt_release(t);
    }
}
END_TEST

START_TEST(ctor_hindexed)
{
    dt_type_t *t;
    size_t bl[] = {1, 2};
    ptrdiff_t d[] = {8, 32};
    static const int idx[] = {2, 8, 9};
    ck_assert_int_eq(dt_create_hindexed(2, bl, d, B(INT), &t), CANAL_OK);
    check_bounds(t, 12, 8, 32, 8, 32);
    check_int_elems(t, 1, idx, 3);
    ck_assert_uint_eq(dt_contents(t)->nints, 3);
    ck_assert_uint_eq(dt_contents(t)->naddrs, 2);
    dt_release(t);
}
END_TEST

START_TEST(ctor_indexed_block)
{
    dt_type_t *t;
    ptrdiff_t d[] = {1, 4, 8};
    static const int idx[] = {1, 2, 4, 5, 8, 9};
    ck_assert_int_eq(dt_create_indexed_block(3, 2, d, B(INT), &t), CANAL_OK);
    check_bounds(t, 24, 4, 36, 4, 36);
    check_int_elems(t, 1, idx, 6);
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_INDEXED_BLOCK);
    ck_assert_uint_eq(dt_contents(t)->nints, 5);
    dt_release(t);
    /* equally spaced: becomes a loop */
    {
        ptrdiff_t e[] = {0, 3, 6, 9};
        static const int idx2[] = {0, 3, 6, 9};
        ck_assert_int_eq(dt_create_indexed_block(4, 1, e, B(INT), &t), CANAL_OK);
        check_int_elems(t, 1, idx2, 4);
        dt_release(t);
    }
    ck_assert_int_eq(dt_create_hindexed_block(2, 3, (ptrdiff_t[]){0, 40}, B(INT), &t), CANAL_OK);
    check_bounds(t, 24, 0, 52, 0, 52);
    {
        static const int idx3[] = {0, 1, 2, 10, 11, 12};
        check_int_elems(t, 1, idx3, 6);
    }
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_HINDEXED_BLOCK);
    ck_assert_uint_eq(dt_contents(t)->nints, 2);
    dt_release(t);
}
END_TEST

START_TEST(ctor_struct)
{
    struct s { char c; double d; int i; } v[2] = {{'a', 1.5, 7}, {'b', -2.5, 9}};
    size_t bl[] = {1, 1, 1};
    ptrdiff_t d[] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
    dt_type_t *types[] = {B(CHAR), B(DOUBLE), B(INT)};
    dt_type_t *t;
    unsigned char out[26], back[sizeof v];
    size_t bytes;
    double x;

    ck_assert_int_eq(dt_create_struct(3, bl, d, types, &t), CANAL_OK);
    /* data ends at 20; the extent is padded to the alignment of double */
    check_bounds(t, 13, 0, sizeof(struct s), 0, 20);
    ck_assert_int_eq(dt_extent(t), 24);
    ck_assert_int_eq(dt_commit(t), CANAL_OK);
    ck_assert_int_eq(dt_pack(v, 2, t, out, sizeof out, &bytes), CANAL_OK);
    ck_assert_uint_eq(bytes, 26);
    ck_assert_int_eq(out[0], 'a');
    memcpy(&x, out + 1, 8);
    ck_assert(x == 1.5);
    ck_assert_int_eq(out[13], 'b');
    memset(back, 0, sizeof back);
    ck_assert_int_eq(dt_unpack(out, bytes, back, 2, t, &bytes), CANAL_OK);
    ck_assert_int_eq(((struct s *)back)[1].i, 9);
    ck_assert(((struct s *)back)[1].d == -2.5);
    ck_assert_uint_eq(dt_contents(t)->ntypes, 3);
    ck_assert_uint_eq(dt_contents(t)->naddrs, 3);
    ck_assert_int_eq(dt_basic_type(t), DT_NBUILTIN);
    dt_release(t);

    /* struct { int; char; } pads to 8 */
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 4},
                                      (dt_type_t *[]){B(INT), B(CHAR)}, &t), CANAL_OK);
    check_bounds(t, 5, 0, 8, 0, 5);
    dt_release(t);
    /* zero blocklength entries do not count */
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){0, 2}, (ptrdiff_t[]){-100, 8},
                                      (dt_type_t *[]){B(DOUBLE), B(INT)}, &t), CANAL_OK);
    check_bounds(t, 8, 8, 8, 8, 8);
    dt_release(t);
    /* empty struct */
    ck_assert_int_eq(dt_create_struct(0, NULL, NULL, NULL, &t), CANAL_OK);
    check_bounds(t, 0, 0, 0, 0, 0);
    dt_release(t);
}
END_TEST

START_TEST(ctor_markers)
{
    dt_type_t *t, *u;
    /* MPI_LB at -8, MPI_UB at 32 set the bounds of the struct */
    ck_assert_int_eq(dt_create_struct(3, (size_t[]){1, 1, 1}, (ptrdiff_t[]){-8, 0, 32},
                                      (dt_type_t *[]){B(LB), B(INT), B(UB)}, &t), CANAL_OK);
    check_bounds(t, 4, -8, 40, 0, 4);
    ck_assert_int_eq(dt_create_contiguous(2, t, &u), CANAL_OK);
    check_bounds(u, 8, -8, 80, 0, 44);
    {
        static const int idx[] = {0, 10};
        check_int_elems(u, 1, idx, 2);
    }
    dt_release(u);
    /* as in MPICH 4 the bounds are not sticky beyond the struct that has
     * the markers: data further out extends the next struct (then padded) */
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 100},
                                      (dt_type_t *[]){t, B(DOUBLE)}, &u), CANAL_OK);
    check_bounds(u, 12, -8, 120, 0, 108);
    dt_release(u);
    dt_release(t);
    /* the last marker of each kind wins; markers alone give no data */
    ck_assert_int_eq(dt_create_struct(3, (size_t[]){1, 1, 1}, (ptrdiff_t[]){4, 0, 8},
                                      (dt_type_t *[]){B(LB), B(INT), B(LB)}, &t), CANAL_OK);
    check_bounds(t, 4, 8, -4, 0, 4);
    dt_release(t);
    ck_assert_int_eq(dt_create_struct(1, (size_t[]){1}, (ptrdiff_t[]){12},
                                      (dt_type_t *[]){B(LB)}, &t), CANAL_OK);
    check_bounds(t, 0, 12, -12, 0, 0);
    dt_release(t);
    /* an UB marker stops the padding, a LB marker does not */
    ck_assert_int_eq(dt_create_struct(3, (size_t[]){1, 1, 1}, (ptrdiff_t[]){0, 8, 20},
                                      (dt_type_t *[]){B(DOUBLE), B(CHAR), B(UB)}, &t), CANAL_OK);
    check_bounds(t, 9, 0, 20, 0, 9);
    dt_release(t);
    ck_assert_int_eq(dt_create_struct(3, (size_t[]){1, 1, 1}, (ptrdiff_t[]){0, 8, 0},
                                      (dt_type_t *[]){B(DOUBLE), B(CHAR), B(LB)}, &t), CANAL_OK);
    check_bounds(t, 9, 0, 16, 0, 9);
    dt_release(t);
}
END_TEST

START_TEST(ctor_struct_padding)
{
    /* MPICH pads a struct only when its members are of different types;
     * integers of one size count as one type */
    dt_type_t *t;
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 6},
                                      (dt_type_t *[]){B(INT), B(UNSIGNED)}, &t), CANAL_OK);
    check_bounds(t, 8, 0, 10, 0, 10);
    dt_release(t);
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 6},
                                      (dt_type_t *[]){B(FLOAT), B(INT)}, &t), CANAL_OK);
    check_bounds(t, 8, 0, 12, 0, 10);
    dt_release(t);
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 9},
                                      (dt_type_t *[]){B(DOUBLE), B(DOUBLE_PRECISION)}, &t),
                     CANAL_OK);
    check_bounds(t, 16, 0, 17, 0, 17);
    dt_release(t);
    {
        dt_type_t *r;
        /* resized members are not sticky either */
        ck_assert_int_eq(dt_create_resized(B(DOUBLE), 0, 12, &r), CANAL_OK);
        ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 12},
                                          (dt_type_t *[]){r, B(CHAR)}, &t), CANAL_OK);
        check_bounds(t, 9, 0, 16, 0, 13);
        dt_release(t);
        dt_release(r);
    }
    /* empty blocks in block-indexed types keep their place, not in indexed */
    ck_assert_int_eq(dt_create_indexed_block(2, 0, (ptrdiff_t[]){1, 5}, B(INT), &t), CANAL_OK);
    check_bounds(t, 0, 4, 16, 0, 0);
    dt_release(t);
    ck_assert_int_eq(dt_create_indexed(3, (size_t[]){0, 2, 0}, (ptrdiff_t[]){-5, 3, 20}, B(INT), &t),
                     CANAL_OK);
    check_bounds(t, 8, 12, 8, 12, 8);
    dt_release(t);
    /* an empty old type or count 0: the empty type */
    {
        dt_type_t *z, *rz;
        ck_assert_int_eq(dt_create_contiguous(0, B(INT), &z), CANAL_OK);
        ck_assert_int_eq(dt_create_resized(z, -5, 10, &rz), CANAL_OK);
        check_bounds(rz, 0, -5, 10, 0, 0);
        ck_assert_int_eq(dt_create_vector(2, 1, 2, rz, &t), CANAL_OK);
        check_bounds(t, 0, 0, 0, 0, 0);
        dt_release(t);
        ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 20},
                                          (dt_type_t *[]){rz, B(CHAR)}, &t), CANAL_OK);
        check_bounds(t, 1, -5, 26, 20, 1); /* MPICH: true lb 0, text 21 */
        dt_release(t);
        ck_assert_int_eq(dt_create_struct(1, (size_t[]){1}, (ptrdiff_t[]){8},
                                          (dt_type_t *[]){rz}, &t), CANAL_OK);
        check_bounds(t, 0, 0, 0, 0, 0);
        dt_release(t);
        dt_release(rz);
        dt_release(z);
    }
}
END_TEST

START_TEST(ctor_resized)
{
    dt_type_t *r, *c;
    ck_assert_int_eq(dt_create_resized(B(INT), -4, 12, &r), CANAL_OK);
    check_bounds(r, 4, -4, 12, 0, 4);
    ck_assert_int_eq(dt_create_contiguous(3, r, &c), CANAL_OK);
    check_bounds(c, 12, -4, 36, 0, 28);
    {
        static const int idx[] = {0, 3, 6, 9, 12, 15};
        check_int_elems(c, 2, idx, 6);
    }
    ck_assert_int_eq(dt_commit(r), CANAL_OK);
    ck_assert(!dt_is_contig(r));
    ck_assert(dt_is_contig_count(r, 1));
    ck_assert_int_eq(dt_contents(r)->combiner, DT_COMBINER_RESIZED);
    ck_assert_int_eq(dt_contents(r)->addrs[0], -4);
    ck_assert_int_eq(dt_contents(r)->addrs[1], 12);
    dt_release(c);
    dt_release(r);
    /* resized to the same extent with lb shifted stays contiguous */
    ck_assert_int_eq(dt_create_resized(B(DOUBLE), -4, 8, &r), CANAL_OK);
    ck_assert_int_eq(dt_commit(r), CANAL_OK);
    ck_assert(dt_is_contig(r));
    dt_release(r);
}
END_TEST

START_TEST(ctor_dup)
{
    dt_type_t *v, *d;
    ck_assert_int_eq(dt_create_vector(2, 1, 3, B(INT), &v), CANAL_OK);
    ck_assert_int_eq(dt_commit(v), CANAL_OK);
    ck_assert_int_eq(dt_create_dup(v, &d), CANAL_OK);
    ck_assert(dt_is_committed(d));
    check_bounds(d, dt_size(v), dt_lb(v), dt_extent(v), dt_true_lb(v), dt_true_extent(v));
    ck_assert_int_eq(dt_contents(d)->combiner, DT_COMBINER_DUP);
    ck_assert_ptr_eq(dt_contents(d)->types[0], v);
    dt_release(v); /* d keeps v alive */
    {
        static const int idx[] = {0, 3};
        check_int_elems(d, 1, idx, 2);
    }
    dt_release(d);
}
END_TEST

START_TEST(ctor_clone)
{
    dt_type_t *v, *c;
    ck_assert_int_eq(dt_create_indexed_block(2, 2, (ptrdiff_t[]){0, 5}, B(INT), &v), CANAL_OK);
    dt_set_name(v, "named");
    *dt_user_slot(v) = (void *)v;
    ck_assert_int_eq(dt_create_clone(v, &c), CANAL_OK);
    /* same envelope and layout, own name and user slot */
    ck_assert_int_eq(dt_contents(c)->combiner, DT_COMBINER_INDEXED_BLOCK);
    ck_assert_uint_eq(dt_contents(c)->nints, 4);
    ck_assert_int_eq(dt_contents(c)->ints[3], 5);
    ck_assert_ptr_eq(dt_contents(c)->types[0], B(INT));
    ck_assert_str_eq(dt_get_name(c), "");
    ck_assert_ptr_null(*dt_user_slot(c));
    check_bounds(c, dt_size(v), dt_lb(v), dt_extent(v), dt_true_lb(v), dt_true_extent(v));
    dt_release(v);
    {
        static const int idx[] = {0, 1, 5, 6};
        check_int_elems(c, 1, idx, 4);
    }
    dt_release(c);
    ck_assert_int_eq(dt_create_clone(NULL, &c), CANAL_ERR_TYPE);
}
END_TEST

START_TEST(ctor_subarray)
{
    dt_type_t *t;
    size_t sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
    static const int cidx[] = {7, 8, 9, 12, 13, 14};
    static const int fidx[] = {9, 10, 13, 14, 17, 18};

    ck_assert_int_eq(dt_create_subarray(2, sizes, sub, starts, DT_ORDER_C, B(INT), &t), CANAL_OK);
    check_bounds(t, 24, 0, 80, 28, 32);
    check_int_elems(t, 1, cidx, 6);
    ck_assert_int_eq(dt_contents(t)->combiner, DT_COMBINER_SUBARRAY);
    ck_assert_uint_eq(dt_contents(t)->nints, 8);
    ck_assert_int_eq(dt_contents(t)->ints[7], DT_ORDER_C);
    {
        /* two of them: the second starts one full array later */
        static const int idx2[] = {7, 8, 9, 12, 13, 14, 27, 28, 29, 32, 33, 34};
        check_int_elems(t, 2, idx2, 12);
    }
    dt_release(t);
    ck_assert_int_eq(dt_create_subarray(2, sizes, sub, starts, DT_ORDER_FORTRAN, B(INT), &t),
                     CANAL_OK);
    check_bounds(t, 24, 0, 80, 36, 40);
    check_int_elems(t, 1, fidx, 6);
    dt_release(t);
    /* 3-D faces of a 4x4x4 block */
    {
        size_t s3[] = {4, 4, 4}, face[] = {4, 4, 1}, st3[] = {0, 0, 3};
        int exp[16];
        for (int i = 0; i < 16; i++)
            exp[i] = i * 4 + 3;
        ck_assert_int_eq(dt_create_subarray(3, s3, face, st3, DT_ORDER_C, B(INT), &t), CANAL_OK);
        check_int_elems(t, 1, exp, 16);
        ck_assert_uint_eq(dt_block_count(t), 16);
        dt_release(t);
        face[0] = 1;
        face[2] = 4;
        st3[0] = 2;
        st3[2] = 0;
        for (int i = 0; i < 16; i++)
            exp[i] = 32 + i;
        ck_assert_int_eq(dt_create_subarray(3, s3, face, st3, DT_ORDER_C, B(INT), &t), CANAL_OK);
        check_int_elems(t, 1, exp, 16);
        ck_assert_uint_eq(dt_block_count(t), 1);
        dt_release(t);
    }
    /* bad input */
    sub[0] = 5;
    ck_assert_int_eq(dt_create_subarray(2, sizes, sub, starts, DT_ORDER_C, B(INT), &t),
                     CANAL_ERR_ARG);
    sub[0] = 2;
    starts[1] = 3;
    ck_assert_int_eq(dt_create_subarray(2, sizes, sub, starts, DT_ORDER_C, B(INT), &t),
                     CANAL_ERR_ARG);
    starts[1] = 2;
    ck_assert_int_eq(dt_create_subarray(2, sizes, sub, starts, 3, B(INT), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_subarray(0, sizes, sub, starts, DT_ORDER_C, B(INT), &t),
                     CANAL_ERR_ARG);
}
END_TEST

/* Model of darray: every global index this rank owns, in array order. */
static size_t darray_model(int size, int rank, int ndims, const size_t *gs, const int *dist,
                           const int *darg, const int *ps, int order, int *out)
{
    int coords[8], procs = size, r = rank;
    size_t total = 1, n = 0;
    for (int i = 0; i < ndims; i++) {
        procs /= ps[i];
        coords[i] = r / procs;
        r %= procs;
        total *= gs[i];
    }
    for (size_t lin = 0; lin < total; lin++) {
        size_t rest = lin;
        int mine = 1;
        for (int k = 0; k < ndims; k++) {
            int d = order == DT_ORDER_FORTRAN ? k : ndims - 1 - k;
            size_t g = rest % gs[d];
            size_t blk;
            rest /= gs[d];
            if (dist[d] == DT_DISTRIBUTE_BLOCK) {
                blk = darg[d] == DT_DISTRIBUTE_DFLT_DARG ? (gs[d] + (size_t)ps[d] - 1) / (size_t)ps[d]
                                                         : (size_t)darg[d];
                mine &= (int)(g / blk) == coords[d];
            } else if (dist[d] == DT_DISTRIBUTE_CYCLIC) {
                blk = darg[d] == DT_DISTRIBUTE_DFLT_DARG ? 1 : (size_t)darg[d];
                mine &= (int)((g / blk) % ps[d]) == coords[d];
            }
        }
        if (mine)
            out[n++] = (int)lin;
    }
    return n;
}

static void darray_case(int size, int ndims, const size_t *gs, const int *dist, const int *darg,
                        const int *ps, int order)
{
    size_t total = 1, sum = 0;
    for (int i = 0; i < ndims; i++)
        total *= gs[i];
    for (int rank = 0; rank < size; rank++) {
        dt_type_t *t;
        int exp[256];
        size_t n = darray_model(size, rank, ndims, gs, dist, darg, ps, order, exp);
        ck_assert_int_eq(dt_create_darray(size, rank, ndims, gs, dist, darg, ps, order, B(INT), &t),
                         CANAL_OK);
        ck_assert_uint_eq(dt_size(t), n * 4);
        ck_assert_int_eq(dt_lb(t), 0);
        ck_assert_int_eq(dt_extent(t), (ptrdiff_t)(total * 4));
        check_int_elems(t, 1, exp, n);
        sum += n;
        dt_release(t);
    }
    ck_assert_uint_eq(sum, total);
}

START_TEST(ctor_darray)
{
    dt_type_t *t;
    {
        size_t gs[] = {10};
        int dist[] = {DT_DISTRIBUTE_BLOCK}, darg[] = {DT_DISTRIBUTE_DFLT_DARG}, ps[] = {3};
        static const int r1[] = {4, 5, 6, 7};
        darray_case(3, 1, gs, dist, darg, ps, DT_ORDER_C);
        ck_assert_int_eq(dt_create_darray(3, 1, 1, gs, dist, darg, ps, DT_ORDER_C, B(INT), &t),
                         CANAL_OK);
        check_int_elems(t, 1, r1, 4);
        dt_release(t);
    }
    {
        size_t gs[] = {10};
        int dist[] = {DT_DISTRIBUTE_CYCLIC}, darg[] = {2}, ps[] = {3};
        static const int r0[] = {0, 1, 6, 7};
        darray_case(3, 1, gs, dist, darg, ps, DT_ORDER_FORTRAN);
        ck_assert_int_eq(dt_create_darray(3, 0, 1, gs, dist, darg, ps, DT_ORDER_C, B(INT), &t),
                         CANAL_OK);
        check_int_elems(t, 1, r0, 4);
        dt_release(t);
    }
    {
        size_t gs[] = {5, 7};
        int dist[] = {DT_DISTRIBUTE_CYCLIC, DT_DISTRIBUTE_BLOCK};
        int darg[] = {DT_DISTRIBUTE_DFLT_DARG, 3}, ps[] = {2, 3};
        darray_case(6, 2, gs, dist, darg, ps, DT_ORDER_C);
        darray_case(6, 2, gs, dist, darg, ps, DT_ORDER_FORTRAN);
    }
    {
        size_t gs[] = {6, 5, 4};
        int dist[] = {DT_DISTRIBUTE_BLOCK, DT_DISTRIBUTE_NONE, DT_DISTRIBUTE_CYCLIC};
        int darg[] = {DT_DISTRIBUTE_DFLT_DARG, DT_DISTRIBUTE_DFLT_DARG, 3}, ps[] = {2, 1, 2};
        darray_case(4, 3, gs, dist, darg, ps, DT_ORDER_C);
        darray_case(4, 3, gs, dist, darg, ps, DT_ORDER_FORTRAN);
    }
    {
        size_t gs[] = {10};
        int dist[] = {DT_DISTRIBUTE_BLOCK}, darg[] = {2}, ps[] = {3};
        /* 2 * 3 < 10 */
        ck_assert_int_eq(dt_create_darray(3, 0, 1, gs, dist, darg, ps, DT_ORDER_C, B(INT), &t),
                         CANAL_ERR_ARG);
        ps[0] = 2;
        ck_assert_int_eq(dt_create_darray(3, 0, 1, gs, dist, darg, ps, DT_ORDER_C, B(INT), &t),
                         CANAL_ERR_ARG);
    }
}
END_TEST

START_TEST(ctor_nested)
{
    /* vector of struct {double, char} (padded to 16), then resized */
    dt_type_t *s, *v, *r, *c;
    double buf[64];
    unsigned char out[256];
    size_t bytes;
    for (int i = 0; i < 64; i++)
        buf[i] = i;
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 8},
                                      (dt_type_t *[]){B(DOUBLE), B(CHAR)}, &s), CANAL_OK);
    check_bounds(s, 9, 0, 16, 0, 9);
    ck_assert_int_eq(dt_create_vector(2, 2, 3, s, &v), CANAL_OK);
    check_bounds(v, 36, 0, 80, 0, 73);
    ck_assert_int_eq(dt_create_resized(v, 0, 96, &r), CANAL_OK);
    ck_assert_int_eq(dt_create_contiguous(2, r, &c), CANAL_OK);
    check_bounds(c, 72, 0, 192, 0, 96 + 73);
    ck_assert_int_eq(dt_commit(c), CANAL_OK);
    ck_assert_int_eq(dt_pack(buf, 1, c, out, sizeof out, &bytes), CANAL_OK);
    ck_assert_uint_eq(bytes, 72);
    /* element k of the packed stream: doubles at 0, 2, 6, 8 then 12, 14, 18, 20 */
    {
        static const int dbl[] = {0, 2, 6, 8, 12, 14, 18, 20};
        for (int k = 0; k < 8; k++) {
            double x;
            memcpy(&x, out + 9 * k, 8);
            ck_assert_msg(x == dbl[k], "k=%d x=%g", k, x);
        }
    }
    dt_release(c);
    dt_release(r);
    dt_release(v);
    dt_release(s);
}
END_TEST

START_TEST(ctor_bad_input)
{
    dt_type_t *t;
    ck_assert_int_eq(dt_create_contiguous(1, NULL, &t), CANAL_ERR_TYPE);
    ck_assert_int_eq(dt_create_contiguous((size_t)1 << 62, B(DOUBLE), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_contiguous(SIZE_MAX, B(INT), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_vector(2, 1, PTRDIFF_MAX / 2, B(DOUBLE), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_hvector(3, 1, PTRDIFF_MAX / 2, B(DOUBLE), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_hindexed(1, (size_t[]){1}, (ptrdiff_t[]){PTRDIFF_MAX - 2},
                                        B(DOUBLE), &t), CANAL_ERR_ARG);
    ck_assert_int_eq(dt_create_struct(1, (size_t[]){1}, (ptrdiff_t[]){0}, (dt_type_t *[]){NULL},
                                      &t), CANAL_ERR_TYPE);
    ck_assert_int_eq(dt_create_resized(B(INT), PTRDIFF_MAX, 10, &t), CANAL_ERR_ARG);
    {
        dt_type_t *big;
        ck_assert_int_eq(dt_create_contiguous((size_t)1 << 40, B(DOUBLE), &big), CANAL_OK);
        ck_assert_int_eq(dt_create_contiguous((size_t)1 << 30, big, &t), CANAL_ERR_ARG);
        dt_release(big);
    }
    ck_assert_int_eq(dt_commit(NULL), CANAL_ERR_TYPE);
}
END_TEST

/* ------------------------------------------------------------ random trees */
/* Reference model: the byte offsets one instance packs, in order, and the
 * bounds by MPICH 4's rules, computed instance by instance. */
typedef struct {
    size_t n;
    ptrdiff_t *off;
    ptrdiff_t lb, ub;
    size_t align;
    long id; /* builtins: their number; derived types: unique */
} ref_t;

static long ref_next_id = 1000;

static ref_t ref_builtin(dt_builtin_t b)
{
    ref_t r = {0};
    dt_type_t *t = dt_builtin(b);
    size_t s = dt_size(t);
    r.off = malloc((s ? s : 1) * sizeof *r.off);
    if (b == DT_SHORT_INT) {
        r.off[0] = 0;
        r.off[1] = 1;
        for (int i = 0; i < 4; i++)
            r.off[2 + i] = 4 + i;
    } else
        for (size_t i = 0; i < s; i++)
            r.off[i] = (ptrdiff_t)i;
    r.n = s;
    r.lb = 0;
    r.ub = dt_extent(t);
    r.align = b == DT_CHAR ? 1 : b == DT_SHORT_INT || b == DT_INT ? 4 : 8;
    r.id = b;
    return r;
}

typedef struct {
    int set;
    ptrdiff_t lb, ub;
    size_t align;
} racc_t;

static void racc_point(racc_t *a, ptrdiff_t lb, ptrdiff_t ub)
{
    if (!a->set || lb < a->lb)
        a->lb = lb;
    if (!a->set || ub > a->ub)
        a->ub = ub;
    a->set = 1;
}

/* nb blocks of bl[i] instances of ch[i] at byte displacement d[i]. kind 0:
 * vector-like (an empty block keeps its place), 1: indexed (empty blocks
 * skipped), 2: struct (also padded when the members differ). */
static ref_t ref_blocks(size_t nb, const size_t *bl, const ptrdiff_t *d, ref_t *const *ch,
                        int kind)
{
    ref_t r = {0};
    racc_t a = {0};
    size_t total = 0;
    int data = 0, mixed = 0;
    for (size_t i = 0; i < nb; i++) {
        total += bl[i] * ch[i]->n;
        if (ch[i]->id != ch[0]->id)
            mixed = 1;
    }
    r.id = ref_next_id++;
    r.off = malloc((total ? total : 1) * sizeof *r.off);
    for (size_t i = 0; i < nb; i++) {
        ptrdiff_t e = ch[i]->ub - ch[i]->lb;
        if (bl[i] == 0 && kind == 0)
            racc_point(&a, d[i] + ch[i]->lb, d[i] + ch[i]->lb);
        for (size_t j = 0; j < bl[i]; j++) {
            ptrdiff_t base = d[i] + (ptrdiff_t)j * e;
            for (size_t k = 0; k < ch[i]->n; k++)
                r.off[r.n++] = base + ch[i]->off[k];
            racc_point(&a, ch[i]->lb + base, ch[i]->ub + base);
            if (ch[i]->align > a.align)
                a.align = ch[i]->align;
            data |= ch[i]->n > 0;
        }
    }
    if (nb == 0 || (total == 0 && (kind == 2 || ch[0]->n == 0)) || !a.set) {
        r.lb = r.ub = 0; /* the empty type */
        r.align = 1;
        return r;
    }
    r.lb = a.lb;
    r.ub = a.ub;
    r.align = a.align ? a.align : 1;
    if (kind == 2 && mixed && (r.ub - r.lb) % (ptrdiff_t)r.align)
        r.ub += (ptrdiff_t)r.align - (r.ub - r.lb) % (ptrdiff_t)r.align;
    (void)data;
    return r;
}

static void ref_free(ref_t *r) { free(r->off); }

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

/* A random type of depth <= depth, with its model. */
static dt_type_t *random_type(int depth, ref_t *ref)
{
    static const dt_builtin_t leaves[] = {DT_CHAR, DT_INT, DT_DOUBLE, DT_SHORT_INT, DT_DOUBLE_INT};
    dt_type_t *t = NULL, *c;
    ref_t rc;
    unsigned kind = depth <= 0 ? 0 : rnd(10);

    if (kind == 0) {
        dt_builtin_t b = leaves[rnd(5)];
        *ref = ref_builtin(b);
        return dt_builtin(b);
    }
    if (kind == 8) { /* struct of up to 3 random children */
        size_t n = 1 + rnd(3), bl[3];
        ptrdiff_t d[3];
        dt_type_t *tt[3];
        ref_t rr[3], *rp[3];
        for (size_t i = 0; i < n; i++) {
            tt[i] = random_type(depth - 1, &rr[i]);
            rp[i] = &rr[i];
            bl[i] = rnd(3);
            d[i] = (ptrdiff_t)rnd(64) - 16;
        }
        ck_assert_int_eq(dt_create_struct(n, bl, d, tt, &t), CANAL_OK);
        *ref = ref_blocks(n, bl, d, rp, 2);
        for (size_t i = 0; i < n; i++) {
            dt_release(tt[i]);
            ref_free(&rr[i]);
        }
        return t;
    }
    c = random_type(depth - 1, &rc);
    {
        ptrdiff_t e = rc.ub - rc.lb;
        switch (kind) {
        case 1: {
            size_t n = rnd(4);
            ck_assert_int_eq(dt_create_contiguous(n, c, &t), CANAL_OK);
            *ref = ref_blocks(1, &n, (ptrdiff_t[]){0}, (ref_t *[]){&rc}, 1);
            break;
        }
        case 2:
        case 3: {
            size_t n = 1 + rnd(4), bl = rnd(3), i;
            ptrdiff_t stride = (ptrdiff_t)rnd(7) - 2;
            size_t *bls = malloc(n * sizeof *bls);
            ptrdiff_t *ds = malloc(n * sizeof *ds);
            ref_t **rp = malloc(n * sizeof *rp);
            if (kind == 2)
                ck_assert_int_eq(dt_create_vector(n, bl, stride, c, &t), CANAL_OK);
            else {
                stride = stride * 8 + (ptrdiff_t)rnd(3);
                ck_assert_int_eq(dt_create_hvector(n, bl, stride, c, &t), CANAL_OK);
            }
            for (i = 0; i < n; i++) {
                bls[i] = bl;
                ds[i] = (ptrdiff_t)i * (kind == 2 ? stride * e : stride);
                rp[i] = &rc;
            }
            *ref = ref_blocks(n, bls, ds, rp, 0);
            free(bls);
            free(ds);
            free(rp);
            break;
        }
        case 4:
        case 5:
        case 6: {
            size_t n = 1 + rnd(4), bls[4], blk = rnd(3);
            ptrdiff_t ds[4], bd[4];
            ref_t *rp[4] = {&rc, &rc, &rc, &rc};
            for (size_t i = 0; i < n; i++) {
                bls[i] = kind == 6 ? blk : rnd(3);
                ds[i] = (ptrdiff_t)rnd(9) - 2;
                bd[i] = kind == 5 ? ds[i] * 5 : ds[i] * e;
            }
            if (kind == 4)
                ck_assert_int_eq(dt_create_indexed(n, bls, ds, c, &t), CANAL_OK);
            else if (kind == 5) {
                for (size_t i = 0; i < n; i++)
                    ds[i] *= 5;
                ck_assert_int_eq(dt_create_hindexed(n, bls, ds, c, &t), CANAL_OK);
            } else if (rnd(2))
                ck_assert_int_eq(dt_create_indexed_block(n, blk, ds, c, &t), CANAL_OK);
            else {
                for (size_t i = 0; i < n; i++)
                    ds[i] *= e;
                ck_assert_int_eq(dt_create_hindexed_block(n, blk, ds, c, &t), CANAL_OK);
            }
            *ref = ref_blocks(n, bls, bd, rp, kind == 6 ? 0 : 1);
            break;
        }
        case 7: {
            ptrdiff_t lb = (ptrdiff_t)rnd(16) - 8, ext = (ptrdiff_t)rnd(40);
            size_t one = 1;
            ck_assert_int_eq(dt_create_resized(c, lb, ext, &t), CANAL_OK);
            *ref = ref_blocks(1, &one, (ptrdiff_t[]){0}, (ref_t *[]){&rc}, 1);
            ref->lb = lb;
            ref->ub = lb + ext;
            ref->align = rc.align;
            break;
        }
        default: {
            size_t one = 1;
            ck_assert_int_eq(dt_create_dup(c, &t), CANAL_OK);
            *ref = ref_blocks(1, &one, (ptrdiff_t[]){0}, (ref_t *[]){&rc}, 1);
            ref->lb = rc.lb;
            ref->ub = rc.ub;
            ref->align = rc.align;
            break;
        }
        }
    }
    dt_release(c);
    ref_free(&rc);
    return t;
}

/* Everything about (t, count) against the model. */
static void check_against_model(dt_type_t *t, const ref_t *ref, size_t count, int every_split)
{
    ptrdiff_t e = ref->ub - ref->lb, lo = 0, hi = 0, base;
    size_t total = ref->n * count, bytes, k;
    unsigned char *buf, *exp, *out, *back, *mark;
    int overlap = 0;
    dt_cursor_t c;

    ck_assert_int_eq(dt_lb(t), ref->lb);
    ck_assert_int_eq(dt_ub(t), ref->ub);
    ck_assert_uint_eq(dt_size(t), ref->n);
    ck_assert_int_eq(dt_commit(t), CANAL_OK);
    for (size_t r = 0; r < count; r++)
        for (k = 0; k < ref->n; k++) {
            ptrdiff_t o = (ptrdiff_t)r * e + ref->off[k];
            if (o < lo)
                lo = o;
            if (o + 1 > hi)
                hi = o + 1;
        }
    if (ref->n > 0) {
        ptrdiff_t tlo = PTRDIFF_MAX, thi = PTRDIFF_MIN;
        for (k = 0; k < ref->n; k++) {
            if (ref->off[k] < tlo)
                tlo = ref->off[k];
            if (ref->off[k] + 1 > thi)
                thi = ref->off[k] + 1;
        }
        ck_assert_int_eq(dt_true_lb(t), tlo);
        ck_assert_int_eq(dt_true_extent(t), thi - tlo);
    }
    base = -lo;
    buf = malloc((size_t)(hi - lo) + 1);
    back = calloc((size_t)(hi - lo) + 1, 1);
    mark = calloc((size_t)(hi - lo) + 1, 1);
    exp = malloc(total + 1);
    out = malloc(total + 1);
    fill_pattern(buf, (size_t)(hi - lo), 3);
    for (size_t r = 0, n = 0; r < count; r++)
        for (k = 0; k < ref->n; k++, n++) {
            ptrdiff_t o = base + (ptrdiff_t)r * e + ref->off[k];
            exp[n] = buf[o];
            if (mark[o]++)
                overlap = 1;
        }
    /* whole */
    ck_assert_int_eq(dt_pack(buf + base, count, t, out, total, &bytes), CANAL_OK);
    ck_assert_uint_eq(bytes, total);
    ck_assert_mem_eq(out, exp, total);
    if (total > 0)
        ck_assert_int_eq(dt_pack(buf + base, count, t, out, total - 1, &bytes), CANAL_ERR_TRUNCATE);
    /* split at every byte, resumed by the same cursor, and by a seek */
    for (size_t split = 0; split <= total; split += every_split ? 1 : 1 + total / 7) {
        memset(out, 0, total + 1);
        ck_assert_int_eq(dt_cursor_init(&c, t, count), CANAL_OK);
        ck_assert_uint_eq(dt_cursor_total(&c), total);
        bytes = dt_pack_next(&c, buf + base, out, split);
        ck_assert_uint_eq(bytes, split);
        bytes = dt_pack_next(&c, buf + base, out + split, total - split + 5);
        ck_assert_uint_eq(bytes, total - split);
        ck_assert_uint_eq(dt_pack_next(&c, buf + base, out, 10), 0);
        ck_assert_mem_eq(out, exp, total);
        memset(out, 0, total + 1);
        ck_assert_int_eq(dt_cursor_seek(&c, split), CANAL_OK);
        bytes = dt_pack_next(&c, buf + base, out + split, total);
        ck_assert_uint_eq(bytes, total - split);
        ck_assert_mem_eq(out + split, exp + split, total - split);
        dt_cursor_fini(&c);
    }
    /* small random chunks */
    ck_assert_int_eq(dt_cursor_init(&c, t, count), CANAL_OK);
    for (size_t pos = 0; pos < total;) {
        size_t want = 1 + rnd(13);
        bytes = dt_pack_next(&c, buf + base, out + pos, want);
        ck_assert_uint_eq(bytes, want < total - pos ? want : total - pos);
        pos += bytes;
    }
    ck_assert_mem_eq(out, exp, total);
    dt_cursor_fini(&c);
    /* the iovec view, 3 pieces at a time */
    ck_assert_int_eq(dt_cursor_init(&c, t, count), CANAL_OK);
    for (size_t pos = 0; pos < total;) {
        struct iovec iov[3];
        int niov;
        size_t want = 1 + rnd(40);
        bytes = dt_iov_next(&c, buf + base, iov, 3, want, &niov);
        ck_assert_uint_gt(bytes, 0);
        ck_assert_uint_le(bytes, want);
        for (int i = 0; i < niov; i++) {
            memcpy(out + pos, iov[i].iov_base, iov[i].iov_len);
            pos += iov[i].iov_len;
        }
    }
    ck_assert_mem_eq(out, exp, total);
    dt_cursor_fini(&c);
    /* unpack round trip, whole and split, when the typemap has no overlap */
    if (!overlap) {
        for (size_t split = 0; split <= total; split += every_split ? 1 : 1 + total / 5) {
            memset(back, 0, (size_t)(hi - lo));
            ck_assert_int_eq(dt_cursor_init(&c, t, count), CANAL_OK);
            ck_assert_uint_eq(dt_unpack_next(&c, back + base, exp, split), split);
            ck_assert_uint_eq(dt_unpack_next(&c, back + base, exp + split, total), total - split);
            dt_cursor_fini(&c);
            {
                /* one assertion, not one per byte (each costs a syscall) */
                ptrdiff_t bad = -1;
                for (ptrdiff_t o = 0; o < hi - lo && bad < 0; o++)
                    if (back[o] != (mark[o] ? buf[o] : 0))
                        bad = o;
                ck_assert_msg(bad < 0, "unpack split %zu: byte %td is %d", split, bad,
                              bad < 0 ? 0 : back[bad]);
            }
        }
    }
    free(buf);
    free(back);
    free(mark);
    free(exp);
    free(out);
}

START_TEST(random_trees)
{
    rng_state = 1000u + (unsigned)_i;
    for (int iter = 0; iter < 40; iter++) {
        ref_t ref;
        dt_type_t *t = random_type(1 + (int)rnd(4), &ref);
        size_t count = rnd(4);
        if (ref.n * count < 400)
            check_against_model(t, &ref, count, ref.n * count < 150);
        dt_release(t);
        ref_free(&ref);
    }
}
END_TEST

START_TEST(model_fixed_types)
{
    /* types whose programs take every path: loops of loops, periodic
     * merges, struct with children, deep nesting beyond the inline frames */
    ref_t r0 = ref_builtin(DT_DOUBLE), r1, r2;
    dt_type_t *t = dt_builtin(DT_DOUBLE), *u;
    dt_retain(t);
    r1 = r0;
    r1.off = malloc(8 * sizeof *r1.off);
    memcpy(r1.off, r0.off, 8 * sizeof *r1.off);
    /* 18 levels: deeper than the cursor's inline frames */
    for (int level = 0; level < 18; level++) {
        /* each level doubles the data with a gap, so nothing merges */
        ptrdiff_t stride = (r1.ub - r1.lb) + 8 * (1 + level % 2);
        size_t bls[2] = {1, 1};
        ptrdiff_t ds[2] = {0, stride};
        ref_t *rp[2] = {&r1, &r1};
        ck_assert_int_eq(dt_create_hvector(2, 1, stride, t, &u), CANAL_OK);
        r2 = ref_blocks(2, bls, ds, rp, 0);
        dt_release(t);
        ref_free(&r1);
        t = u;
        r1 = r2;
        if (level < 8 || level == 17)
            check_against_model(t, &r1, level == 17 ? 1 : 2, level < 6);
    }
    dt_release(t);
    ref_free(&r1);
    ref_free(&r0);
}
END_TEST

/* ------------------------------------------------------------ refcount */
START_TEST(refcount_cursor)
{
    dt_type_t *v;
    dt_cursor_t c;
    int buf[16], out[8];
    for (int i = 0; i < 16; i++)
        buf[i] = i;
    ck_assert_int_eq(dt_create_vector(4, 1, 2, B(INT), &v), CANAL_OK);
    ck_assert_int_eq(dt_commit(v), CANAL_OK);
    dt_retain(v); /* the message's reference, as the device takes it */
    ck_assert_int_eq(dt_cursor_init(&c, v, 2), CANAL_OK);
    ck_assert_uint_eq(dt_pack_next(&c, buf, out, 8), 8);
    dt_release(v); /* the user frees it; the message's reference keeps it */
    ck_assert_uint_eq(dt_pack_next(&c, buf, (char *)out + 8, 100), 24);
    {
        static const int want[] = {0, 2, 4, 6, 7, 9, 11, 13}; /* extent is 7 ints */
        for (int i = 0; i < 8; i++)
            ck_assert_int_eq(out[i], want[i]);
    }
    dt_cursor_fini(&c);
    dt_release(v); /* the message completes: now it is freed */
}
END_TEST

START_TEST(cursor_uncommitted_and_empty)
{
    dt_type_t *v;
    dt_cursor_t c;
    char out[4];
    ck_assert_int_eq(dt_create_contiguous(0, B(INT), &v), CANAL_OK);
    ck_assert_int_eq(dt_cursor_init(&c, v, 5), CANAL_OK);
    ck_assert_uint_eq(dt_cursor_total(&c), 0);
    ck_assert_uint_eq(dt_pack_next(&c, NULL, out, 4), 0);
    ck_assert_int_eq(dt_cursor_seek(&c, 1), CANAL_ERR_ARG);
    dt_cursor_fini(&c);
    dt_release(v);
    ck_assert_int_eq(dt_create_contiguous((size_t)1 << 40, B(DOUBLE), &v), CANAL_OK);
    ck_assert_int_eq(dt_cursor_init(&c, v, (size_t)1 << 30), CANAL_ERR_ARG);
    ck_assert_uint_eq(dt_pack_next(&c, NULL, out, 4), 0);
    dt_cursor_fini(&c);
    dt_release(v);
}
END_TEST

/* ------------------------------------------------------------ reductions */
typedef struct {
    dt_builtin_t b;
    char cls; /* i C integer, f Fortran integer, r real, c complex, l logical, b byte,
                 m multi-language, p pair, h char (MPICH extension), o other */
} tclass_t;

static const tclass_t classes[] = {
    {DT_CHAR, 'h'}, {DT_SIGNED_CHAR, 'i'}, {DT_UNSIGNED_CHAR, 'i'}, {DT_BYTE, 'b'},
    {DT_SHORT, 'i'}, {DT_UNSIGNED_SHORT, 'i'}, {DT_INT, 'i'}, {DT_UNSIGNED, 'i'},
    {DT_LONG, 'i'}, {DT_UNSIGNED_LONG, 'i'}, {DT_LONG_LONG, 'i'}, {DT_UNSIGNED_LONG_LONG, 'i'},
    {DT_FLOAT, 'r'}, {DT_DOUBLE, 'r'}, {DT_LONG_DOUBLE, 'r'}, {DT_WCHAR, 'o'},
    {DT_C_BOOL, 'l'}, {DT_INT8_T, 'i'}, {DT_INT16_T, 'i'}, {DT_INT32_T, 'i'}, {DT_INT64_T, 'i'},
    {DT_UINT8_T, 'i'}, {DT_UINT16_T, 'i'}, {DT_UINT32_T, 'i'}, {DT_UINT64_T, 'i'},
    {DT_C_FLOAT_COMPLEX, 'c'}, {DT_C_DOUBLE_COMPLEX, 'c'}, {DT_C_LONG_DOUBLE_COMPLEX, 'c'},
    {DT_AINT, 'm'}, {DT_OFFSET, 'm'}, {DT_COUNT, 'm'}, {DT_PACKED, 'o'},
    {DT_FLOAT_INT, 'p'}, {DT_DOUBLE_INT, 'p'}, {DT_LONG_INT, 'p'}, {DT_2INT, 'p'},
    {DT_SHORT_INT, 'p'}, {DT_LONG_DOUBLE_INT, 'p'},
    {DT_INTEGER, 'f'}, {DT_REAL, 'r'}, {DT_DOUBLE_PRECISION, 'r'}, {DT_COMPLEX, 'c'},
    {DT_DOUBLE_COMPLEX, 'c'}, {DT_LOGICAL, 'l'}, {DT_CHARACTER, 'h'}, {DT_2INTEGER, 'p'},
    {DT_2REAL, 'p'}, {DT_2DOUBLE_PRECISION, 'p'}, {DT_INTEGER1, 'f'}, {DT_INTEGER2, 'f'},
    {DT_INTEGER4, 'f'}, {DT_INTEGER8, 'f'}, {DT_INTEGER16, 'f'}, {DT_REAL4, 'r'},
    {DT_REAL8, 'r'}, {DT_REAL16, 'r'}, {DT_COMPLEX8, 'c'}, {DT_COMPLEX16, 'c'},
    {DT_COMPLEX32, 'c'}, {DT_CXX_BOOL, 'l'}, {DT_CXX_FLOAT_COMPLEX, 'c'},
    {DT_CXX_DOUBLE_COMPLEX, 'c'}, {DT_CXX_LONG_DOUBLE_COMPLEX, 'c'}, {DT_C_FLOAT16, 'r'},
    {DT_LOGICAL1, 'l'}, {DT_LOGICAL2, 'l'}, {DT_LOGICAL4, 'l'}, {DT_LOGICAL8, 'l'},
    {DT_LOGICAL16, 'l'}, {DT_REAL2, 'r'}, {DT_COMPLEX4, 'c'},
};

/* MPI 4.0 section 6.9.2, written out again independently of the engine,
 * with MPICH 4.0.2's additions (src/include/mpir_op_util.h there): char
 * types wherever integers go; logical operations on Fortran integers,
 * MPI_AINT/OFFSET/COUNT and floating types. */
static int allowed(dt_op_t op, char cls)
{
    switch (op) {
    case DT_OP_MAX: case DT_OP_MIN: return strchr("ifrmh", cls) != NULL;
    case DT_OP_SUM: case DT_OP_PROD: return strchr("ifrcmh", cls) != NULL;
    case DT_OP_LAND: case DT_OP_LOR: case DT_OP_LXOR: return strchr("ilfmhr", cls) != NULL;
    case DT_OP_BAND: case DT_OP_BOR: case DT_OP_BXOR: return strchr("ifbmh", cls) != NULL;
    case DT_OP_MINLOC: case DT_OP_MAXLOC: return cls == 'p';
    default: return 1;
    }
}

START_TEST(reduce_table)
{
    ck_assert_uint_eq(sizeof classes / sizeof classes[0], DT_NBUILTIN - 2);
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        dt_type_t *t = dt_builtin(classes[i].b);
        unsigned char in[4 * 64], io[4 * 64];
        fill_pattern(in, sizeof in, 1);
        for (int op = 0; op < DT_OP_N; op++) {
            canal_status_t st = dt_op_check((dt_op_t)op, t);
            int ok = allowed((dt_op_t)op, classes[i].cls);
            ck_assert_msg((st == CANAL_OK) == ok, "%s on %s: got %d", dt_op_name((dt_op_t)op),
                          dt_builtin_name(classes[i].b), st);
            fill_pattern(io, sizeof io, 2);
            st = dt_reduce((dt_op_t)op, in, io, 3, t);
            ck_assert_int_eq(st, ok ? CANAL_OK : CANAL_ERR_OP);
        }
    }
    ck_assert_int_eq(dt_op_check(DT_OP_N, B(INT)), CANAL_ERR_OP);
}
END_TEST

START_TEST(reduce_ints)
{
    int8_t a8[4] = {100, -128, 5, 0}, b8[4] = {100, -1, -7, 0};
    ck_assert_int_eq(dt_reduce(DT_OP_SUM, a8, b8, 4, B(INT8_T)), CANAL_OK);
    ck_assert_int_eq(b8[0], -56); /* wraps */
    ck_assert_int_eq(b8[1], 127);
    ck_assert_int_eq(b8[2], -2);
    {
        int a[5] = {1, -5, 7, 0, 3}, b[5] = {2, -6, 7, 9, -3};
        int mx[5], mn[5], pr[5], la[5], lo[5], lx[5], ba[5], bo[5], bx[5];
        for (int k = 0; k < 5; k++) {
            mx[k] = a[k] > b[k] ? a[k] : b[k];
            mn[k] = a[k] < b[k] ? a[k] : b[k];
            pr[k] = a[k] * b[k];
            la[k] = a[k] && b[k];
            lo[k] = a[k] || b[k];
            lx[k] = !a[k] != !b[k];
            ba[k] = a[k] & b[k];
            bo[k] = a[k] | b[k];
            bx[k] = a[k] ^ b[k];
        }
        struct { dt_op_t op; int *want; } cases[] = {
            {DT_OP_MAX, mx}, {DT_OP_MIN, mn}, {DT_OP_PROD, pr}, {DT_OP_LAND, la},
            {DT_OP_LOR, lo}, {DT_OP_LXOR, lx}, {DT_OP_BAND, ba}, {DT_OP_BOR, bo},
            {DT_OP_BXOR, bx}, {DT_OP_REPLACE, a},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int io[5];
            memcpy(io, b, sizeof io);
            ck_assert_int_eq(dt_reduce(cases[c].op, a, io, 5, B(INT)), CANAL_OK);
            ck_assert_mem_eq(io, cases[c].want, sizeof io);
        }
        {
            int io[5];
            memcpy(io, b, sizeof io);
            ck_assert_int_eq(dt_reduce(DT_OP_NO_OP, a, io, 5, B(INT)), CANAL_OK);
            ck_assert_mem_eq(io, b, sizeof io);
        }
    }
    {
        unsigned long long a[2] = {~0ULL, 3}, b[2] = {2, 5};
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 2, B(UNSIGNED_LONG_LONG)), CANAL_OK);
        ck_assert(b[0] == 1 && b[1] == 8);
        ck_assert_int_eq(dt_reduce(DT_OP_MAX, a, b, 2, B(UNSIGNED_LONG_LONG)), CANAL_OK);
        ck_assert(b[0] == ~0ULL && b[1] == 8);
    }
    {
        uint16_t a[1] = {65535}, b[1] = {65535};
        ck_assert_int_eq(dt_reduce(DT_OP_PROD, a, b, 1, B(UINT16_T)), CANAL_OK);
        ck_assert_int_eq(b[0], 1);
    }
    {
        unsigned char a[2] = {0xf0, 0x0f}, b[2] = {0xff, 0xff};
        ck_assert_int_eq(dt_reduce(DT_OP_BXOR, a, b, 2, B(BYTE)), CANAL_OK);
        ck_assert(b[0] == 0x0f && b[1] == 0xf0);
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 2, B(BYTE)), CANAL_ERR_OP);
    }
    {
        ptrdiff_t a[2] = {-4, 10}, b[2] = {3, 3};
        ck_assert_int_eq(dt_reduce(DT_OP_MIN, a, b, 2, B(AINT)), CANAL_OK);
        ck_assert(b[0] == -4 && b[1] == 3);
    }
    {
        __int128 a[1] = {(__int128)1 << 100}, b[1] = {1};
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 1, B(INTEGER16)), CANAL_OK);
        ck_assert(b[0] == ((__int128)1 << 100) + 1);
    }
}
END_TEST

START_TEST(reduce_floats_logicals)
{
    double a[3] = {1.5, -2, 8}, b[3] = {2, -3, 0.5};
    ck_assert_int_eq(dt_reduce(DT_OP_PROD, a, b, 3, B(DOUBLE)), CANAL_OK);
    ck_assert(b[0] == 3 && b[1] == 6 && b[2] == 4);
    ck_assert_int_eq(dt_reduce(DT_OP_MAX, a, b, 3, B(DOUBLE)), CANAL_OK);
    ck_assert(b[0] == 3 && b[1] == 6 && b[2] == 8);
    ck_assert_int_eq(dt_reduce(DT_OP_BAND, a, b, 3, B(DOUBLE)), CANAL_ERR_OP);
    {
        float fa[2] = {1, 2}, fb[2] = {3, 4};
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, fa, fb, 2, B(REAL)), CANAL_OK);
        ck_assert(fb[0] == 4 && fb[1] == 6);
    }
    {
        long double la[1] = {1.25L}, lb[1] = {2};
        ck_assert_int_eq(dt_reduce(DT_OP_MIN, la, lb, 1, B(LONG_DOUBLE)), CANAL_OK);
        ck_assert(lb[0] == 1.25L);
    }
    {
        double complex ca[2] = {1 + 2 * I, 3}, cb[2] = {3 - I, 2 * I};
        ck_assert_int_eq(dt_reduce(DT_OP_PROD, ca, cb, 2, B(C_DOUBLE_COMPLEX)), CANAL_OK);
        ck_assert(creal(cb[0]) == 5 && cimag(cb[0]) == 5);
        ck_assert(creal(cb[1]) == 0 && cimag(cb[1]) == 6);
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, ca, cb, 2, B(DOUBLE_COMPLEX)), CANAL_OK);
        ck_assert(creal(cb[0]) == 6 && cimag(cb[0]) == 7);
        ck_assert_int_eq(dt_reduce(DT_OP_MAX, ca, cb, 2, B(C_DOUBLE_COMPLEX)), CANAL_ERR_OP);
    }
    {
        float complex fa[1] = {2 + I}, fb[1] = {1 + I};
        ck_assert_int_eq(dt_reduce(DT_OP_PROD, fa, fb, 1, B(COMPLEX)), CANAL_OK);
        ck_assert(crealf(fb[0]) == 1 && cimagf(fb[0]) == 3);
    }
    {
        /* quad complex: (1+2i)(3+4i) = -5+10i */
        unsigned char qa[32], qb[32];
        long double out[2];
#ifdef __SIZEOF_FLOAT128__
        __float128 v[2] = {1, 2}, w[2] = {3, 4};
        memcpy(qa, v, 32);
        memcpy(qb, w, 32);
        ck_assert_int_eq(dt_reduce(DT_OP_PROD, qa, qb, 1, B(COMPLEX32)), CANAL_OK);
        memcpy(w, qb, 32);
        out[0] = (long double)w[0];
        out[1] = (long double)w[1];
        ck_assert(out[0] == -5 && out[1] == 10);
#else
        (void)qa; (void)qb; (void)out;
#endif
    }
    {
        bool ba[4] = {true, true, false, false}, bb[4] = {true, false, true, false};
        ck_assert_int_eq(dt_reduce(DT_OP_LXOR, ba, bb, 4, B(C_BOOL)), CANAL_OK);
        ck_assert(!bb[0] && bb[1] && bb[2] && !bb[3]);
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, ba, bb, 4, B(C_BOOL)), CANAL_ERR_OP);
    }
    {
        int32_t la[3] = {1, 0, 5}, lb[3] = {1, 1, 0};
        ck_assert_int_eq(dt_reduce(DT_OP_LAND, la, lb, 3, B(LOGICAL)), CANAL_OK);
        ck_assert(lb[0] == 1 && lb[1] == 0 && lb[2] == 0);
        ck_assert_int_eq(dt_reduce(DT_OP_BAND, la, lb, 3, B(LOGICAL)), CANAL_ERR_OP);
    }
    {
        _Float16 ha[2] = {1.5f16, 2}, hb[2] = {0.5f16, 3};
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, ha, hb, 2, B(C_FLOAT16)), CANAL_OK);
        ck_assert(hb[0] == 2 && hb[1] == 5);
    }
}
END_TEST

START_TEST(reduce_loc)
{
    struct { double v; int i; } a[4] = {{1, 5}, {2, 9}, {3, 1}, {4, 4}},
                                b[4] = {{1, 3}, {5, 2}, {3, 7}, {0, 0}};
    ck_assert_int_eq(dt_reduce(DT_OP_MINLOC, a, b, 4, B(DOUBLE_INT)), CANAL_OK);
    ck_assert(b[0].v == 1 && b[0].i == 3);
    ck_assert(b[1].v == 2 && b[1].i == 9);
    ck_assert(b[2].v == 3 && b[2].i == 1);
    ck_assert(b[3].v == 0 && b[3].i == 0);
    ck_assert_int_eq(dt_reduce(DT_OP_MAXLOC, a, b, 4, B(DOUBLE_INT)), CANAL_OK);
    ck_assert(b[3].v == 4 && b[3].i == 4);
    ck_assert(b[0].v == 1 && b[0].i == 3);
    {
        struct { short v; int i; } sa[2] = {{-1, 8}, {7, 2}}, sb[2] = {{-1, 4}, {6, 1}};
        ck_assert_int_eq(dt_reduce(DT_OP_MAXLOC, sa, sb, 2, B(SHORT_INT)), CANAL_OK);
        ck_assert(sb[0].v == -1 && sb[0].i == 4);
        ck_assert(sb[1].v == 7 && sb[1].i == 2);
    }
    {
        int ia[4] = {5, 1, 5, 0}, ib[4] = {5, 2, 6, 3}; /* two MPI_2INT */
        ck_assert_int_eq(dt_reduce(DT_OP_MINLOC, ia, ib, 2, B(2INT)), CANAL_OK);
        ck_assert(ib[0] == 5 && ib[1] == 1 && ib[2] == 5 && ib[3] == 0);
    }
    {
        float fa[2] = {2, 10}, fb[2] = {2, 4};
        ck_assert_int_eq(dt_reduce(DT_OP_MAXLOC, fa, fb, 1, B(2REAL)), CANAL_OK);
        ck_assert(fb[0] == 2 && fb[1] == 4);
    }
    {
        struct { long double v; int i; } la[1] = {{-1, 3}}, lb[1] = {{-2, 5}};
        ck_assert_int_eq(dt_reduce(DT_OP_MAXLOC, la, lb, 1, B(LONG_DOUBLE_INT)), CANAL_OK);
        ck_assert(lb[0].v == -1 && lb[0].i == 3);
    }
    {
        struct { long v; int i; } la[1] = {{9, 3}}, lb[1] = {{9, 5}};
        ck_assert_int_eq(dt_reduce(DT_OP_MINLOC, la, lb, 1, B(LONG_INT)), CANAL_OK);
        ck_assert(lb[0].v == 9 && lb[0].i == 3);
    }
    ck_assert_int_eq(dt_reduce(DT_OP_MINLOC, a, b, 1, B(DOUBLE)), CANAL_ERR_OP);
    ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 1, B(DOUBLE_INT)), CANAL_ERR_OP);
}
END_TEST

START_TEST(reduce_derived)
{
    dt_type_t *v, *s, *p;
    int a[12], b[12], want[12];
    for (int i = 0; i < 12; i++) {
        a[i] = i;
        b[i] = 100 * i;
        want[i] = b[i];
    }
    /* vector(2, 2, 3) of int: elements 0,1,3,4; count 2 (extent 5 ints) */
    ck_assert_int_eq(dt_create_vector(2, 2, 3, B(INT), &v), CANAL_OK);
    ck_assert_int_eq(dt_commit(v), CANAL_OK);
    ck_assert_int_eq(dt_basic_type(v), DT_INT);
    ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 2, v), CANAL_OK);
    {
        static const int idx[] = {0, 1, 3, 4, 5, 6, 8, 9};
        for (int k = 0; k < 8; k++)
            want[idx[k]] += idx[k];
    }
    ck_assert_mem_eq(b, want, sizeof b);
    /* a struct of int and double cannot be reduced, except by replacement */
    ck_assert_int_eq(dt_create_struct(2, (size_t[]){1, 1}, (ptrdiff_t[]){0, 8},
                                      (dt_type_t *[]){B(INT), B(DOUBLE)}, &s), CANAL_OK);
    ck_assert_int_eq(dt_reduce(DT_OP_SUM, a, b, 1, s), CANAL_ERR_OP);
    ck_assert_int_eq(dt_reduce(DT_OP_REPLACE, a, b, 1, s), CANAL_OK);
    ck_assert_int_eq(b[0], 0);
    ck_assert_int_eq(b[2], 2);
    ck_assert_int_eq(b[3], 3);
    /* contiguous of pairs keeps MINLOC */
    ck_assert_int_eq(dt_create_contiguous(2, B(2INT), &p), CANAL_OK);
    {
        int ia[4] = {1, 1, 9, 9}, ib[4] = {2, 2, 3, 3};
        ck_assert_int_eq(dt_reduce(DT_OP_MINLOC, ia, ib, 1, p), CANAL_OK);
        ck_assert(ib[0] == 1 && ib[1] == 1 && ib[2] == 3 && ib[3] == 3);
        ck_assert_int_eq(dt_reduce(DT_OP_SUM, ia, ib, 1, p), CANAL_ERR_OP);
    }
    dt_release(p);
    dt_release(s);
    dt_release(v);
}
END_TEST

/* ------------------------------------------------------------ elements */
START_TEST(count_elements)
{
    dt_type_t *s;
    size_t n;
    ck_assert_int_eq(dt_count_elements(B(INT), 12, &n), CANAL_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(dt_count_elements(B(INT), 6, &n), CANAL_OK);
    ck_assert_uint_eq(n, SIZE_MAX);
    ck_assert_int_eq(dt_count_elements(B(DOUBLE_INT), 24, &n), CANAL_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(dt_count_elements(B(DOUBLE_INT), 20, &n), CANAL_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(dt_count_elements(B(DOUBLE_INT), 22, &n), CANAL_OK);
    ck_assert_uint_eq(n, 3); /* as MPICH: the partial index is not counted */
    ck_assert_int_eq(dt_count_elements(B(DOUBLE_INT), 7, &n), CANAL_OK);
    ck_assert_uint_eq(n, 0);
    /* struct {char, double, int}: 13 bytes, 3 elements each */
    ck_assert_int_eq(dt_create_struct(3, (size_t[]){1, 1, 1}, (ptrdiff_t[]){0, 8, 16},
                                      (dt_type_t *[]){B(CHAR), B(DOUBLE), B(INT)}, &s), CANAL_OK);
    ck_assert_uint_eq(dt_elements(s), 3);
    ck_assert_int_eq(dt_count_elements(s, 13 + 9, &n), CANAL_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_int_eq(dt_count_elements(s, 13 + 1, &n), CANAL_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(dt_count_elements(s, 13 + 5, &n), CANAL_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(dt_count_elements(s, 0, &n), CANAL_OK);
    ck_assert_uint_eq(n, 0);
    dt_release(s);
}
END_TEST

/* ------------------------------------------------------------ external32 */
START_TEST(external32)
{
    struct { int i; long l; double d; short s; long double ld; } v = {0x01020304, -2, 1.0, 0x0506,
                                                                      -0.5L};
    size_t bl[] = {1, 1, 1, 1, 1};
    ptrdiff_t d[] = {offsetof(__typeof__(v), i), offsetof(__typeof__(v), l),
                     offsetof(__typeof__(v), d), offsetof(__typeof__(v), s),
                     offsetof(__typeof__(v), ld)};
    dt_type_t *types[] = {B(INT), B(LONG), B(DOUBLE), B(SHORT), B(LONG_DOUBLE)};
    dt_type_t *t;
    unsigned char out[64];
    size_t n, used;
    __typeof__(v) back;
    static const unsigned char want[] = {
        1, 2, 3, 4,                                     /* int */
        0xff, 0xff, 0xff, 0xfe,                         /* long: 4 bytes */
        0x3f, 0xf0, 0, 0, 0, 0, 0, 0,                   /* 1.0 */
        5, 6,                                           /* short */
        0xbf, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* -0.5 as binary128 */
    };
    ck_assert_int_eq(dt_create_struct(5, bl, d, types, &t), CANAL_OK);
    ck_assert_int_eq(dt_external32_size(t, 1, &n), CANAL_OK);
    ck_assert_uint_eq(n, sizeof want);
    ck_assert_int_eq(dt_pack_external32(&v, 1, t, out, sizeof out, &used), CANAL_OK);
    ck_assert_uint_eq(used, sizeof want);
    ck_assert_mem_eq(out, want, sizeof want);
    memset(&back, 0, sizeof back);
    ck_assert_int_eq(dt_unpack_external32(out, used, &back, 1, t, &n), CANAL_OK);
    ck_assert_uint_eq(n, used);
    ck_assert_int_eq(back.i, v.i);
    ck_assert_int_eq(back.l, -2);
    ck_assert(back.d == 1.0);
    ck_assert_int_eq(back.s, 0x0506);
    ck_assert(back.ld == -0.5L);
    ck_assert_int_eq(dt_pack_external32(&v, 1, t, out, 10, &used), CANAL_ERR_TRUNCATE);
    dt_release(t);
    {
        struct { float v; int i; } p = {2.0f, 7};
        static const unsigned char pw[] = {0x40, 0, 0, 0, 0, 0, 0, 7};
        ck_assert_int_eq(dt_pack_external32(&p, 1, B(FLOAT_INT), out, sizeof out, &used),
                         CANAL_OK);
        ck_assert_uint_eq(used, 8);
        ck_assert_mem_eq(out, pw, 8);
    }
}
END_TEST

/* ------------------------------------------------------------ contents */
START_TEST(contents_set)
{
    dt_type_t *t;
    int64_t counts[3] = {4, 2, 80};
    ck_assert_int_eq(dt_create_hvector(4, 2, 80, B(INT), &t), CANAL_OK);
    ck_assert_int_eq(dt_contents_set(t, DT_COMBINER_HVECTOR, 0, NULL, 0, NULL, 3, counts, 1,
                                     (dt_type_t *[]){B(INT)}), CANAL_OK);
    ck_assert_uint_eq(dt_contents(t)->ncounts, 3);
    ck_assert_int_eq(dt_contents(t)->counts[2], 80);
    ck_assert_uint_eq(dt_contents(t)->nints, 0);
    ck_assert_int_eq(dt_contents_set(B(INT), DT_COMBINER_DUP, 0, NULL, 0, NULL, 0, NULL, 0, NULL),
                     CANAL_ERR_TYPE);
    dt_set_name(t, "my vector");
    ck_assert_str_eq(dt_get_name(t), "my vector");
    dt_release(t);
}
END_TEST

static Suite *datatype_suite(void)
{
    Suite *s = suite_create("datatype");
    TCase *tc = tcase_create("constructors");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, builtin_sizes);
    tcase_add_test(tc, builtin_pair_pack);
    tcase_add_test(tc, ctor_contiguous);
    tcase_add_test(tc, head_follows_commit);
    tcase_add_test(tc, ctor_vector);
    tcase_add_test(tc, ctor_hvector);
    tcase_add_test(tc, ctor_indexed);
    tcase_add_test(tc, ctor_hindexed);
    tcase_add_test(tc, ctor_indexed_block);
    tcase_add_test(tc, ctor_struct);
    tcase_add_test(tc, ctor_markers);
    tcase_add_test(tc, ctor_struct_padding);
    tcase_add_test(tc, ctor_resized);
    tcase_add_test(tc, ctor_dup);
    tcase_add_test(tc, ctor_clone);
    tcase_add_test(tc, ctor_subarray);
    tcase_add_test(tc, ctor_darray);
    tcase_add_test(tc, ctor_nested);
    tcase_add_test(tc, ctor_bad_input);
    tcase_add_test(tc, contents_set);
    suite_add_tcase(s, tc);

    tc = tcase_create("pack");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_loop_test(tc, random_trees, 0, 25);
    tcase_add_test(tc, model_fixed_types);
    tcase_add_test(tc, refcount_cursor);
    tcase_add_test(tc, cursor_uncommitted_and_empty);
    tcase_add_test(tc, count_elements);
    tcase_add_test(tc, external32);
    suite_add_tcase(s, tc);

    tc = tcase_create("reduce");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, reduce_table);
    tcase_add_test(tc, reduce_ints);
    tcase_add_test(tc, reduce_floats_logicals);
    tcase_add_test(tc, reduce_loc);
    tcase_add_test(tc, reduce_derived);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;
    SRunner *sr = srunner_create(datatype_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
