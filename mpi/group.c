/*
 * Process groups (MPI 4.0 section 7.3): the group representation shared by
 * the communicator code (mpi/comm_impl.h) and the MPI_Group_* functions.
 *
 * A group is an ordered set of job ranks (every process of a Canal job has a
 * rank in MPI_COMM_WORLD, and a group names processes by those). Groups that
 * are arithmetic progressions of job ranks -- MPI_COMM_WORLD's, a range, the
 * even ranks -- are stored as (first, stride, size) and cost the same few
 * bytes whatever the job size; other groups list their members, with a
 * permutation sorted by job rank so that finding a process's rank is a
 * binary search. Every constructor tries the compact form first.
 *
 * Groups are reference counted: every reference the user got (through a
 * handle) and every communicator that caches the group holds one. The handle
 * exists while the user holds references: MPI_Comm_group called twice on one
 * communicator returns the same handle with two user references, and when the
 * user has freed them all the handle becomes invalid even though the
 * communicator keeps the group (so a double free is an error, not a crash).
 * MPI_GROUP_EMPTY is a static object that is never freed.
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static mpi_group_t group_empty_obj = {
    .refcount = 1,
    .handle = MPI_GROUP_EMPTY,
    .size = 0,
    .rank = MPI_UNDEFINED,
    .first = 0,
    .stride = 1,
};
static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- representation */
mpi_group_t *mpi_group_empty(void)
{
    return &group_empty_obj;
}

mpi_group_t *mpi_group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &group_empty_obj;
    if (mpi_handle_kind(h) != MPI_HKIND_DIRECT)
        return NULL;
    return mpi_handle_get(MPI_OBJ_GROUP, h);
}

void mpi_group_retain(mpi_group_t *g)
{
    if (g != NULL && g != &group_empty_obj)
        __atomic_add_fetch(&g->refcount, 1, __ATOMIC_RELAXED);
}

void mpi_group_release(mpi_group_t *g)
{
    if (g == NULL || g == &group_empty_obj)
        return;
    if (__atomic_sub_fetch(&g->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (g->handle != 0) /* only if a reference was dropped without MPI_Group_free */
        mpi_handle_del(MPI_OBJ_GROUP, g->handle);
    free(g->list);
    free(g->order);
    free(g);
}

int mpi_group_rank_of(const mpi_group_t *g, int j)
{
    if (g->size == 0)
        return MPI_UNDEFINED;
    if (g->list == NULL) {
        long long d = (long long)j - g->first;
        long long i;
        if (d % g->stride != 0)
            return MPI_UNDEFINED;
        i = d / g->stride;
        return i >= 0 && i < g->size ? (int)i : MPI_UNDEFINED;
    }
    for (int lo = 0, hi = g->size - 1; lo <= hi;) {
        int mid = lo + (hi - lo) / 2;
        int v = g->list[g->order[mid]];
        if (v == j)
            return g->order[mid];
        if (v < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return MPI_UNDEFINED;
}

mpi_group_t *mpi_group_new_stride(int first, int stride, int n)
{
    mpi_group_t *g = NULL;

    if (n <= 0) {
        mpi_group_retain(&group_empty_obj);
        return &group_empty_obj;
    }
    g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->refcount = 1;
    g->size = n;
    g->first = first;
    g->stride = n == 1 ? 1 : stride;
    g->rank = mpi_group_rank_of(g, mpi_pmi.rank);
    return g;
}

typedef struct {
    int value, index;
} pair_t;

static int pair_cmp(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

mpi_group_t *mpi_group_new_list(const int *j, int n)
{
    mpi_group_t *g = NULL;
    pair_t *pairs;
    int stride, arith = 1;

    if (n <= 0)
        return mpi_group_new_stride(0, 1, 0);
    stride = n > 1 ? j[1] - j[0] : 1;
    for (int i = 1; i < n && arith; i++)
        arith = j[i] - j[i - 1] == stride;
    if (arith && stride != 0)
        return mpi_group_new_stride(j[0], stride, n);

    g = calloc(1, sizeof *g);
    pairs = malloc(sizeof *pairs * (size_t)n);
    if (g == NULL || pairs == NULL)
        goto out_free;
    g->list = malloc(sizeof *g->list * (size_t)n);
    g->order = malloc(sizeof *g->order * (size_t)n);
    if (g->list == NULL || g->order == NULL)
        goto out_free;
    memcpy(g->list, j, sizeof *g->list * (size_t)n);
    for (int i = 0; i < n; i++) {
        pairs[i].value = j[i];
        pairs[i].index = i;
    }
    qsort(pairs, (size_t)n, sizeof *pairs, pair_cmp);
    for (int i = 0; i < n; i++)
        g->order[i] = pairs[i].index;
    free(pairs);
    g->refcount = 1;
    g->size = n;
    g->first = 0;
    g->stride = 1;
    g->rank = mpi_group_rank_of(g, mpi_pmi.rank);
    return g;

out_free:
    if (g != NULL) {
        free(g->list);
        free(g->order);
    }
    free(g);
    free(pairs);
    return NULL;
}

int mpi_group_to_handle(mpi_group_t *g, MPI_Group *out)
{
    if (g == &group_empty_obj) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&group_lock);
    if (g->handle == 0)
        g->handle = mpi_handle_new(MPI_OBJ_GROUP, g);
    if (g->handle != 0)
        g->user_refs++;
    *out = g->handle;
    pthread_mutex_unlock(&group_lock);
    if (*out == 0) {
        mpi_group_release(g);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

/* The user gives back one reference obtained through mpi_group_to_handle. */
static void group_user_release(mpi_group_t *g)
{
    if (g == &group_empty_obj)
        return;
    pthread_mutex_lock(&group_lock);
    if (--g->user_refs == 0) {
        mpi_handle_del(MPI_OBJ_GROUP, g->handle);
        g->handle = 0;
    }
    pthread_mutex_unlock(&group_lock);
    mpi_group_release(g);
}

int *mpi_group_job_array(const mpi_group_t *g, int world_size, int *identity_out)
{
    int *a;

    *identity_out = 0;
    if (g->list == NULL && g->first == 0 && g->stride == 1 && g->size == world_size) {
        *identity_out = 1;
        return NULL;
    }
    a = malloc(sizeof *a * (size_t)(g->size > 0 ? g->size : 1));
    if (a == NULL)
        return NULL;
    for (int i = 0; i < g->size; i++)
        a[i] = mpi_group_member(g, i);
    return a;
}

int mpi_group_compare(const mpi_group_t *a, const mpi_group_t *b)
{
    int same_order = 1;

    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    for (int i = 0; i < a->size && same_order; i++)
        same_order = mpi_group_member(a, i) == mpi_group_member(b, i);
    if (same_order)
        return MPI_IDENT;
    for (int i = 0; i < a->size; i++)
        if (mpi_group_rank_of(b, mpi_group_member(a, i)) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}

/* ---------------------------------------------------------------- set algebra */
/* The three set operations share one shape: walk a (then b for the union),
 * keep a member when `keep` says so, and compress the result. */
typedef enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE } set_op_t;

static mpi_group_t *group_set_op(const mpi_group_t *a, const mpi_group_t *b, set_op_t op)
{
    int n = 0, *buf;
    mpi_group_t *g = NULL;
    size_t cap = (size_t)a->size + (op == SET_UNION ? (size_t)b->size : 0);

    buf = malloc(sizeof *buf * (cap > 0 ? cap : 1));
    if (buf == NULL)
        return NULL;
    for (int i = 0; i < a->size; i++) {
        int j = mpi_group_member(a, i);
        int in_b = op == SET_UNION ? 1 : mpi_group_rank_of(b, j) != MPI_UNDEFINED;
        if (op == SET_UNION || (op == SET_INTERSECTION && in_b) || (op == SET_DIFFERENCE && !in_b))
            buf[n++] = j;
    }
    if (op == SET_UNION)
        for (int i = 0; i < b->size; i++) {
            int j = mpi_group_member(b, i);
            if (mpi_group_rank_of(a, j) == MPI_UNDEFINED)
                buf[n++] = j;
        }
    g = mpi_group_new_list(buf, n);
    free(buf);
    return g;
}

/* ---------------------------------------------------------------- argument checks */
static int give_group(mpi_group_t *g, MPI_Group *out, const char *fn)
{
    int err;
    if (g == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory for the new group");
    err = mpi_group_to_handle(g, out);
    if (err != MPI_SUCCESS)
        return mpi_err_fail(NULL, err, fn, "out of group handles");
    return MPI_SUCCESS;
}

/* One bit per rank of a group: duplicates in incl/excl/range arguments. */
static unsigned char *bitmap_new(int n)
{
    return calloc((size_t)n / 8 + 1, 1);
}
static int bitmap_test_set(unsigned char *m, int i)
{
    int was = (m[i / 8] >> (i % 8)) & 1;
    m[i / 8] |= (unsigned char)(1u << (i % 8));
    return was;
}
static int bitmap_test(const unsigned char *m, int i)
{
    return (m[i / 8] >> (i % 8)) & 1;
}

/* Validate the ranks of incl/excl and mark them in *marks_out. */
static int check_rank_list(const mpi_group_t *g, int n, const int ranks[], const char *fn,
                           unsigned char **marks_out)
{
    unsigned char *marks;

    if (n < 0 || n > g->size)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "n=%d is not in [0, %d] (the group size)", n,
                            g->size);
    if (n > 0 && ranks == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "ranks is NULL with n=%d", n);
    marks = bitmap_new(g->size);
    if (marks == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size) {
            free(marks);
            return mpi_err_fail(NULL, MPI_ERR_RANK, fn, "ranks[%d]=%d is not in [0, %d)", i,
                                 ranks[i], g->size);
        }
        if (bitmap_test_set(marks, ranks[i])) {
            free(marks);
            return mpi_err_fail(NULL, MPI_ERR_RANK, fn,
                                "ranks[%d]=%d appears twice in the rank list", i, ranks[i]);
        }
    }
    *marks_out = marks;
    return MPI_SUCCESS;
}

/* Validate range triplets, mark their ranks, and count them. */
static int check_ranges(const mpi_group_t *g, int n, int ranges[][3], const char *fn,
                        unsigned char **marks_out, int *count_out)
{
    unsigned char *marks;
    long long count = 0;

    if (n < 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "n=%d is negative", n);
    if (n > 0 && ranges == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "ranges is NULL with n=%d", n);
    marks = bitmap_new(g->size);
    if (marks == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        const char *bad = NULL;
        int cls = MPI_ERR_ARG;

        if (stride == 0)
            bad = "the stride is 0";
        else if (first < 0 || first >= g->size)
            bad = "first is not a rank of the group", cls = MPI_ERR_RANK;
        else if (last < 0 || last >= g->size)
            bad = "last is not a rank of the group", cls = MPI_ERR_RANK;
        else if ((stride > 0 && first > last) || (stride < 0 && first < last))
            bad = "the stride goes away from last";
        if (bad != NULL) {
            free(marks);
            return mpi_err_fail(NULL, cls, fn,
                                "ranges[%d] = (first=%d, last=%d, stride=%d): %s (group size %d)",
                                i, first, last, stride, bad, g->size);
        }
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (bitmap_test_set(marks, (int)r)) {
                free(marks);
                return mpi_err_fail(NULL, MPI_ERR_RANK, fn,
                                    "rank %lld of ranges[%d] = (%d, %d, %d) is already in an "
                                    "earlier range",
                                    r, i, first, last, stride);
            }
            count++;
        }
    }
    *marks_out = marks;
    *count_out = (int)count;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI functions */
int mpi_group_size_impl(mpi_group_t *g, int *size, const char *fn)
{
    (void)fn;
    *size = g->size;
    return MPI_SUCCESS;
}

int mpi_group_rank_impl(mpi_group_t *g, int *rank, const char *fn)
{
    (void)fn;
    *rank = g->rank;
    return MPI_SUCCESS;
}

int mpi_group_free_impl(MPI_Group *group, const char *fn)
{
    mpi_group_t *g = NULL;
    int err;
    if ((err = mpi_check_group_arg(NULL, *group, fn, "*group", &g)))
        return err;
    /* MPI_GROUP_EMPTY may be freed (a group operation may have returned it). */
    group_user_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int mpi_group_translate_ranks_impl(mpi_group_t *g1, int n, const int ranks1[], mpi_group_t *g2,
                                   int ranks2[], const char *fn)
{
    if (n < 0)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "n=%d is negative", n);
    if (n > 0 && (ranks1 == NULL || ranks2 == NULL))
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "%s is NULL with n=%d",
                            ranks1 == NULL ? "ranks1" : "ranks2", n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return mpi_err_fail(NULL, MPI_ERR_RANK, fn,
                                "ranks1[%d]=%d is not in [0, %d) or MPI_PROC_NULL", i, ranks1[i],
                                 g1->size);
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL
                        ? MPI_PROC_NULL
                        : mpi_group_rank_of(g2, mpi_group_member(g1, ranks1[i]));
    return MPI_SUCCESS;
}

int mpi_group_compare_impl(mpi_group_t *g1, mpi_group_t *g2, int *result, const char *fn)
{
    (void)fn;
    *result = mpi_group_compare(g1, g2);
    return MPI_SUCCESS;
}

static int set_op_front(mpi_group_t *g1, mpi_group_t *g2, MPI_Group *newgroup, set_op_t op,
                        const char *fn)
{
    return give_group(group_set_op(g1, g2, op), newgroup, fn);
}

int mpi_group_union_impl(mpi_group_t *group1, mpi_group_t *group2, MPI_Group *newgroup,
                         const char *fn)
{
    return set_op_front(group1, group2, newgroup, SET_UNION, fn);
}

int mpi_group_intersection_impl(mpi_group_t *group1, mpi_group_t *group2, MPI_Group *newgroup,
                                const char *fn)
{
    return set_op_front(group1, group2, newgroup, SET_INTERSECTION, fn);
}

int mpi_group_difference_impl(mpi_group_t *group1, mpi_group_t *group2, MPI_Group *newgroup,
                              const char *fn)
{
    return set_op_front(group1, group2, newgroup, SET_DIFFERENCE, fn);
}

int mpi_group_incl_impl(mpi_group_t *g, int n, const int ranks[], MPI_Group *newgroup,
                        const char *fn)
{
    mpi_group_t *ng = NULL;
    unsigned char *marks;
    int err, *buf;
    if ((err = check_rank_list(g, n, ranks, fn, &marks)))
        return err;
    free(marks);
    buf = malloc(sizeof *buf * (size_t)(n > 0 ? n : 1));
    if (buf == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++)
        buf[i] = mpi_group_member(g, ranks[i]);
    ng = mpi_group_new_list(buf, n);
    free(buf);
    return give_group(ng, newgroup, fn);
}

int mpi_group_excl_impl(mpi_group_t *g, int n, const int ranks[], MPI_Group *newgroup,
                        const char *fn)
{
    mpi_group_t *ng = NULL;
    unsigned char *marks;
    int err, k = 0, *buf;
    if ((err = check_rank_list(g, n, ranks, fn, &marks)))
        return err;
    buf = malloc(sizeof *buf * (size_t)(g->size - n > 0 ? g->size - n : 1));
    if (buf == NULL) {
        free(marks);
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < g->size; i++)
        if (!bitmap_test(marks, i))
            buf[k++] = mpi_group_member(g, i);
    free(marks);
    ng = mpi_group_new_list(buf, k);
    free(buf);
    return give_group(ng, newgroup, fn);
}

int mpi_group_range_incl_impl(mpi_group_t *g, int n, int ranges[][3], MPI_Group *newgroup,
                              const char *fn)
{
    mpi_group_t *ng = NULL;
    unsigned char *marks;
    int err, count, k = 0, *buf;
    if ((err = check_ranges(g, n, ranges, fn, &marks, &count)))
        return err;
    free(marks);
    if (n == 1 && g->list == NULL) {
        /* A range of a progression is a progression: no list at all. */
        long long first = (long long)g->first + (long long)ranges[0][0] * g->stride;
        return give_group(mpi_group_new_stride((int)first, ranges[0][2] * g->stride, count),
                          newgroup, fn);
    }
    buf = malloc(sizeof *buf * (size_t)(count > 0 ? count : 1));
    if (buf == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            buf[k++] = mpi_group_member(g, (int)r);
    }
    ng = mpi_group_new_list(buf, k);
    free(buf);
    return give_group(ng, newgroup, fn);
}

int mpi_group_range_excl_impl(mpi_group_t *g, int n, int ranges[][3], MPI_Group *newgroup,
                              const char *fn)
{
    mpi_group_t *ng = NULL;
    unsigned char *marks;
    int err, count, k = 0, *buf;
    if ((err = check_ranges(g, n, ranges, fn, &marks, &count)))
        return err;
    buf = malloc(sizeof *buf * (size_t)(g->size - count > 0 ? g->size - count : 1));
    if (buf == NULL) {
        free(marks);
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < g->size; i++)
        if (!bitmap_test(marks, i))
            buf[k++] = mpi_group_member(g, i);
    free(marks);
    ng = mpi_group_new_list(buf, k);
    free(buf);
    return give_group(ng, newgroup, fn);
}
