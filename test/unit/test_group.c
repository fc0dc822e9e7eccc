/*
 * Check unit tests of the group representation (mpi/group.c): arithmetic
 * progressions stored as (first, stride) versus explicit lists, rank lookup
 * both ways, translate_ranks, the set operations, incl/excl and the range
 * forms, comparison, MPI_GROUP_EMPTY, and the error classes of bad
 * arguments. group.c is compiled into this program with small stand-ins for
 * the handle table and the error path, so no MPI job is needed. It calls the
 * implementation functions (mpi_group_*_impl) that the generated entry
 * points call after their own checks.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi/group.c"
#include "test/unit/unit_limits.h"

/* ---------------------------------------------------------------- stand-ins */
pmi_info_t mpi_pmi;
mpi_state_t mpi_state = MPI_STATE_INITIALIZED;
static void *handles[4096];
static int nhandles = 1, nlive;
static int last_class;

int mpi_enter(const char *fn)
{
    return MPI_SUCCESS;
}

int mpi_err_raise(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    last_class = errclass;
    return errclass;
}

/* The entry points check and resolve the groups (mpi/check.c); here the
 * tests resolve them, and MPI_Group_free's check is this stand-in. */
static mpi_group_t *grp(MPI_Group h)
{
    mpi_group_t *g = mpi_group_get(h);
    ck_assert_ptr_nonnull(g);
    return g;
}

int mpi_check_group_arg(mpi_comm_t *c, MPI_Group h, const char *fn, const char *arg,
                        mpi_group_t **out)
{
    (void)c, (void)fn, (void)arg;
    *out = mpi_group_get(h);
    if (*out != NULL)
        return MPI_SUCCESS;
    last_class = MPI_ERR_GROUP;
    return MPI_ERR_GROUP;
}

/* group.c's steps raise with mpi_err_fail (a code the handler cleared is
 * MPI_CANAL_HANDLED); no handler runs here */
int mpi_err_fail(mpi_comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    last_class = errclass;
    return errclass;
}

int mpi_handle_new(mpi_objtype_t objtype, void *obj)
{
    if (nhandles >= 4096)
        return 0;
    handles[nhandles] = obj;
    nlive++;
    return mpi_handle_make(MPI_HKIND_DIRECT, objtype, nhandles++);
}

void *mpi_handle_get(mpi_objtype_t objtype, int h)
{
    int i = mpi_handle_index(h);
    if (mpi_handle_objtype(h) != (int)objtype || i <= 0 || i >= nhandles)
        return NULL;
    return handles[i];
}

void mpi_handle_del(mpi_objtype_t objtype, int h)
{
    int i = mpi_handle_index(h);
    if (i > 0 && i < nhandles && handles[i] != NULL) {
        handles[i] = NULL;
        nlive--;
    }
}

static void setup(void)
{
    mpi_pmi.rank = 3;
    mpi_pmi.size = 16;
}

/* A handle for the group 0..n-1 (like MPI_Comm_group(MPI_COMM_WORLD)). */
static MPI_Group world_group(int n)
{
    MPI_Group h;
    ck_assert_int_eq(mpi_group_to_handle(mpi_group_new_stride(0, 1, n), &h), MPI_SUCCESS);
    return h;
}

static void members(MPI_Group h, int *out, int n)
{
    mpi_group_t *g = mpi_group_get(h);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->size, n);
    for (int i = 0; i < n; i++)
        out[i] = mpi_group_member(g, i);
}

/* ---------------------------------------------------------------- representation */
START_TEST(compact_forms)
{
    static const int evens[] = {0, 2, 4, 6}, down[] = {9, 6, 3}, one[] = {7},
                     mixed[] = {5, 1, 3, 0};
    mpi_group_t *g;

    setup();
    g = mpi_group_new_list(evens, 4);
    ck_assert_ptr_null(g->list);
    ck_assert_int_eq(g->first, 0);
    ck_assert_int_eq(g->stride, 2);
    ck_assert_int_eq(g->rank, MPI_UNDEFINED); /* job rank 3 is odd */
    ck_assert_int_eq(mpi_group_rank_of(g, 6), 3);
    ck_assert_int_eq(mpi_group_rank_of(g, 8), MPI_UNDEFINED);
    ck_assert_int_eq(mpi_group_rank_of(g, -2), MPI_UNDEFINED);
    mpi_group_release(g);

    g = mpi_group_new_list(down, 3);
    ck_assert_ptr_null(g->list);
    ck_assert_int_eq(g->stride, -3);
    ck_assert_int_eq(g->rank, 2);
    ck_assert_int_eq(mpi_group_rank_of(g, 9), 0);
    ck_assert_int_eq(mpi_group_rank_of(g, 0), MPI_UNDEFINED);
    ck_assert_int_eq(mpi_group_rank_of(g, 12), MPI_UNDEFINED);
    mpi_group_release(g);

    g = mpi_group_new_list(one, 1);
    ck_assert_ptr_null(g->list);
    ck_assert_int_eq(mpi_group_member(g, 0), 7);
    ck_assert_int_eq(mpi_group_rank_of(g, 7), 0);
    mpi_group_release(g);

    g = mpi_group_new_list(mixed, 4);
    ck_assert_ptr_nonnull(g->list);
    ck_assert_int_eq(g->rank, 2);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(mpi_group_rank_of(g, mixed[i]), i);
    ck_assert_int_eq(mpi_group_rank_of(g, 2), MPI_UNDEFINED);
    ck_assert_int_eq(mpi_group_rank_of(g, 6), MPI_UNDEFINED);
    mpi_group_release(g);

    g = mpi_group_new_list(NULL, 0);
    ck_assert_ptr_eq(g, mpi_group_empty());
    mpi_group_release(g);
}
END_TEST

START_TEST(job_arrays)
{
    mpi_group_t *g = mpi_group_new_stride(0, 1, 16);
    int identity, *a;

    setup();
    a = mpi_group_job_array(g, 16, &identity);
    ck_assert_ptr_null(a);
    ck_assert_int_eq(identity, 1);
    a = mpi_group_job_array(g, 32, &identity);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(identity, 0);
    ck_assert_int_eq(a[15], 15);
    free(a);
    mpi_group_release(g);
}
END_TEST

/* A million-process world costs nothing for world, ranges and strides. */
START_TEST(large_world_stays_small)
{
    MPI_Group w, evens, top;
    int ranges[1][3] = {{0, 999998, 2}}, r2[1][3] = {{999999, 500000, -1}};
    mpi_group_t *g;

    mpi_pmi.rank = 999999;
    mpi_pmi.size = 1000000;
    w = world_group(1000000);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 1, ranges, &evens, "MPI_Group_range_incl"),
                     MPI_SUCCESS);
    g = mpi_group_get(evens);
    ck_assert_ptr_null(g->list);
    ck_assert_int_eq(g->size, 500000);
    ck_assert_int_eq(g->rank, MPI_UNDEFINED);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 1, r2, &top, "MPI_Group_range_incl"),
                     MPI_SUCCESS);
    g = mpi_group_get(top);
    ck_assert_ptr_null(g->list);
    ck_assert_int_eq(g->size, 500000);
    ck_assert_int_eq(g->rank, 0);
    ck_assert_int_eq(mpi_group_member(g, 499999), 500000);
    mpi_group_free_impl(&evens, "MPI_Group_free");
    mpi_group_free_impl(&top, "MPI_Group_free");
    mpi_group_free_impl(&w, "MPI_Group_free");
}
END_TEST

/* ---------------------------------------------------------------- MPI functions */
START_TEST(translate)
{
    MPI_Group w, g, h;
    int incl[] = {5, 1, 3}, in[] = {0, 1, 2, MPI_PROC_NULL}, out[4], inw[] = {3, 4, 5};

    setup();
    w = world_group(8);
    ck_assert_int_eq(mpi_group_incl_impl(grp(w), 3, incl, &g, "MPI_Group_incl"), MPI_SUCCESS);
    ck_assert_int_eq(mpi_group_translate_ranks_impl(grp(g), 4, in, grp(w), out, "MPI_Group_translate_ranks"),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 5);
    ck_assert_int_eq(out[1], 1);
    ck_assert_int_eq(out[2], 3);
    ck_assert_int_eq(out[3], MPI_PROC_NULL);
    ck_assert_int_eq(mpi_group_translate_ranks_impl(grp(w), 3, inw, grp(g), out, "MPI_Group_translate_ranks"),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 2);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    ck_assert_int_eq(out[2], 0);
    /* to and from the empty group */
    h = MPI_GROUP_EMPTY;
    ck_assert_int_eq(mpi_group_translate_ranks_impl(grp(w), 3, inw, grp(h), out, "MPI_Group_translate_ranks"),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    /* errors */
    in[0] = 3;
    ck_assert_int_eq(mpi_group_translate_ranks_impl(grp(g), 1, in, grp(w), out, "MPI_Group_translate_ranks"),
                     MPI_ERR_RANK);
    ck_assert_int_eq(mpi_group_translate_ranks_impl(grp(g), -1, in, grp(w), out, "MPI_Group_translate_ranks"),
                     MPI_ERR_ARG);
    /* (an invalid group is the entry point's: mpi_check_group_arg, test/mpi/err_check_order) */
    mpi_group_free_impl(&g, "MPI_Group_free");
    mpi_group_free_impl(&w, "MPI_Group_free");
}
END_TEST

START_TEST(set_ops)
{
    MPI_Group w, a, b, u, i, d;
    int ia[] = {1, 2, 3, 4}, ib[] = {6, 4, 2, 0}, m[8];
    int r;

    setup();
    w = world_group(8);
    mpi_group_incl_impl(grp(w), 4, ia, &a, "MPI_Group_incl"); /* 1 2 3 4 (compact) */
    mpi_group_incl_impl(grp(w), 4, ib, &b, "MPI_Group_incl"); /* 6 4 2 0 (compact, stride -2) */
    ck_assert_ptr_null(mpi_group_get(a)->list);
    ck_assert_ptr_null(mpi_group_get(b)->list);

    ck_assert_int_eq(mpi_group_union_impl(grp(a), grp(b), &u, "MPI_Group_union"), MPI_SUCCESS);
    members(u, m, 6);
    ck_assert_int_eq(m[0], 1);
    ck_assert_int_eq(m[3], 4);
    ck_assert_int_eq(m[4], 6);
    ck_assert_int_eq(m[5], 0);
    ck_assert_int_eq(mpi_group_intersection_impl(grp(a), grp(b), &i, "MPI_Group_intersection"), MPI_SUCCESS);
    members(i, m, 2);
    ck_assert_int_eq(m[0], 2);
    ck_assert_int_eq(m[1], 4);
    ck_assert_ptr_null(mpi_group_get(i)->list); /* 2, 4 is a progression */
    ck_assert_int_eq(mpi_group_difference_impl(grp(a), grp(b), &d, "MPI_Group_difference"), MPI_SUCCESS);
    members(d, m, 2);
    ck_assert_int_eq(m[0], 1);
    ck_assert_int_eq(m[1], 3);
    mpi_group_rank_impl(grp(d), &r, "MPI_Group_rank");
    ck_assert_int_eq(r, 1); /* job rank 3 */
    mpi_group_free_impl(&d, "MPI_Group_free");
    /* difference with itself is empty: MPI_GROUP_EMPTY, which may be freed */
    ck_assert_int_eq(mpi_group_difference_impl(grp(a), grp(a), &d, "MPI_Group_difference"), MPI_SUCCESS);
    ck_assert_int_eq(d, MPI_GROUP_EMPTY);
    ck_assert_int_eq(mpi_group_free_impl(&d, "MPI_Group_free"), MPI_SUCCESS);
    ck_assert_int_eq(d, MPI_GROUP_NULL);
    /* union with the empty group */
    mpi_group_free_impl(&u, "MPI_Group_free");
    ck_assert_int_eq(mpi_group_union_impl(grp(MPI_GROUP_EMPTY), grp(b), &u, "MPI_Group_union"), MPI_SUCCESS);
    mpi_group_compare_impl(grp(u), grp(b), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_IDENT);
    mpi_group_free_impl(&u, "MPI_Group_free");
    mpi_group_free_impl(&i, "MPI_Group_free");
    mpi_group_free_impl(&a, "MPI_Group_free");
    mpi_group_free_impl(&b, "MPI_Group_free");
    mpi_group_free_impl(&w, "MPI_Group_free");
}
END_TEST

START_TEST(incl_excl_ranges)
{
    MPI_Group w, g, h;
    int ranges[3][3] = {{0, 2, 1}, {7, 5, -2}, {4, 4, 5}}, m[8], ex[] = {0, 7};
    int r;

    setup();
    w = world_group(8);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 3, ranges, &g, "MPI_Group_range_incl"),
                     MPI_SUCCESS);
    members(g, m, 6); /* 0 1 2 7 5 4 */
    ck_assert_int_eq(m[3], 7);
    ck_assert_int_eq(m[4], 5);
    ck_assert_int_eq(m[5], 4);
    ck_assert_ptr_nonnull(mpi_group_get(g)->list);
    mpi_group_free_impl(&g, "MPI_Group_free");
    ck_assert_int_eq(mpi_group_range_excl_impl(grp(w), 3, ranges, &g, "MPI_Group_range_excl"),
                     MPI_SUCCESS);
    members(g, m, 2); /* 3 6 */
    ck_assert_int_eq(m[0], 3);
    ck_assert_int_eq(m[1], 6);
    mpi_group_rank_impl(grp(g), &r, "MPI_Group_rank");
    ck_assert_int_eq(r, 0);
    mpi_group_free_impl(&g, "MPI_Group_free");
    ck_assert_int_eq(mpi_group_excl_impl(grp(w), 2, ex, &g, "MPI_Group_excl"), MPI_SUCCESS);
    members(g, m, 6);
    ck_assert_int_eq(m[0], 1);
    ck_assert_int_eq(m[5], 6);
    ck_assert_ptr_null(mpi_group_get(g)->list);
    /* a range of a strided group stays strided */
    {
        int rr[1][3] = {{5, 1, -2}};
        ck_assert_int_eq(mpi_group_range_incl_impl(grp(g), 1, rr, &h, "MPI_Group_range_incl"),
                         MPI_SUCCESS);
        members(h, m, 3); /* g = 1..6: ranks 5,3,1 -> 6,4,2 */
        ck_assert_int_eq(m[0], 6);
        ck_assert_int_eq(m[2], 2);
        ck_assert_ptr_null(mpi_group_get(h)->list);
        mpi_group_free_impl(&h, "MPI_Group_free");
    }
    mpi_group_free_impl(&g, "MPI_Group_free");
    /* n = 0 gives the empty group for incl, a copy for excl */
    ck_assert_int_eq(mpi_group_incl_impl(grp(w), 0, NULL, &g, "MPI_Group_incl"), MPI_SUCCESS);
    ck_assert_int_eq(g, MPI_GROUP_EMPTY);
    ck_assert_int_eq(mpi_group_excl_impl(grp(w), 0, NULL, &g, "MPI_Group_excl"), MPI_SUCCESS);
    mpi_group_compare_impl(grp(g), grp(w), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_IDENT);
    mpi_group_free_impl(&g, "MPI_Group_free");
    mpi_group_free_impl(&w, "MPI_Group_free");
}
END_TEST

START_TEST(compare)
{
    MPI_Group w, a, b;
    int ra[] = {0, 1, 2}, rb[] = {2, 1, 0}, r;

    setup();
    w = world_group(4);
    mpi_group_incl_impl(grp(w), 3, ra, &a, "MPI_Group_incl");
    mpi_group_incl_impl(grp(w), 3, rb, &b, "MPI_Group_incl");
    mpi_group_compare_impl(grp(a), grp(a), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_IDENT);
    mpi_group_compare_impl(grp(a), grp(b), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_SIMILAR);
    mpi_group_compare_impl(grp(a), grp(w), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_UNEQUAL);
    mpi_group_compare_impl(grp(MPI_GROUP_EMPTY), grp(MPI_GROUP_EMPTY), &r, "MPI_Group_compare");
    ck_assert_int_eq(r, MPI_IDENT);
    mpi_group_free_impl(&a, "MPI_Group_free");
    mpi_group_free_impl(&b, "MPI_Group_free");
    mpi_group_free_impl(&w, "MPI_Group_free");
}
END_TEST

START_TEST(errors)
{
    MPI_Group w, g = MPI_GROUP_NULL;
    int dup[] = {1, 1}, big[] = {8}, neg[] = {-1};
    int bad_stride[1][3] = {{0, 3, 0}}, bad_first[1][3] = {{9, 3, 1}}, bad_dir[1][3] = {{3, 0, 1}},
        overlap[2][3] = {{0, 3, 1}, {3, 5, 1}};

    setup();
    w = world_group(8);
    ck_assert_int_eq(mpi_group_incl_impl(grp(w), 2, dup, &g, "MPI_Group_incl"), MPI_ERR_RANK);
    ck_assert_int_eq(mpi_group_incl_impl(grp(w), 1, big, &g, "MPI_Group_incl"), MPI_ERR_RANK);
    ck_assert_int_eq(mpi_group_excl_impl(grp(w), 1, neg, &g, "MPI_Group_excl"), MPI_ERR_RANK);
    ck_assert_int_eq(mpi_group_incl_impl(grp(w), 9, dup, &g, "MPI_Group_incl"), MPI_ERR_ARG);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 1, bad_stride, &g, "MPI_Group_range_incl"),
                     MPI_ERR_ARG);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 1, bad_first, &g, "MPI_Group_range_incl"),
                     MPI_ERR_RANK);
    ck_assert_int_eq(mpi_group_range_excl_impl(grp(w), 1, bad_dir, &g, "MPI_Group_range_excl"),
                     MPI_ERR_ARG);
    ck_assert_int_eq(mpi_group_range_incl_impl(grp(w), 2, overlap, &g, "MPI_Group_range_incl"),
                     MPI_ERR_RANK);
    ck_assert_int_eq(g, MPI_GROUP_NULL);
    /* invalid group handles and NULL out-pointers are the generated entry
     * points' checks (mpi/check.c; test/mpi/err_check_order) */
    ck_assert_ptr_null(mpi_group_get(MPI_GROUP_NULL));
    ck_assert_ptr_null(mpi_group_get((MPI_Group)0x12345));
    ck_assert_int_eq(mpi_group_free_impl(&w, "MPI_Group_free"), MPI_SUCCESS);
    /* a freed handle is invalid */
    g = world_group(2);
    {
        MPI_Group copy = g;
        mpi_group_free_impl(&g, "MPI_Group_free");
        ck_assert_int_eq(mpi_group_free_impl(&copy, "MPI_Group_free"), MPI_ERR_GROUP);
    }
}
END_TEST

START_TEST(no_leaks)
{
    MPI_Group w, a, b, u;
    int before, ia[] = {3, 0, 2};

    setup();
    before = nlive;
    w = world_group(8);
    for (int k = 0; k < 100; k++) {
        mpi_group_incl_impl(grp(w), 3, ia, &a, "MPI_Group_incl");
        mpi_group_excl_impl(grp(w), 3, ia, &b, "MPI_Group_excl");
        mpi_group_union_impl(grp(a), grp(b), &u, "MPI_Group_union");
        mpi_group_free_impl(&a, "MPI_Group_free");
        mpi_group_free_impl(&b, "MPI_Group_free");
        mpi_group_free_impl(&u, "MPI_Group_free");
    }
    mpi_group_free_impl(&w, "MPI_Group_free");
    ck_assert_int_eq(nlive, before);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("group");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, unit_case_timeout_s());
    SRunner *sr;
    int failed;

    tcase_add_test(tc, compact_forms);
    tcase_add_test(tc, job_arrays);
    tcase_add_test(tc, large_world_stays_small);
    tcase_add_test(tc, translate);
    tcase_add_test(tc, set_ops);
    tcase_add_test(tc, incl_excl_ranges);
    tcase_add_test(tc, compare);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, no_leaks);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
