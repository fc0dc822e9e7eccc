/*
 * Everything about a window that is not an operation: the predefined
 * attributes (MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL), user
 * keyvals with their delete callback at MPI_Win_free, names, the group,
 * info hints (defaults, values given at creation, MPI_Win_set_info),
 * window error handlers (user handler called with the right class,
 * MPI_Win_call_errhandler, get/set), an invalid window handle, and the _c
 * (large-count) variants of creation and of the operations.
 */
#include "mtest.h"

static int deleted, handler_calls, handler_class;
static MPI_Win handler_win;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win;
    (void)keyval;
    (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void on_error(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_win = *win;
    MPI_Error_class(*code, &handler_class);
}

static void check_info(MPI_Win win, const char *key, const char *want)
{
    MPI_Info info;
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, want) == 0, "info %s = %s, expected %s", key, flag ? v : "(unset)",
          want);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    int rank, size, err, buf[8], flag, keyval, val = 3;
    MPI_Win win, w2;
    MPI_Info info;
    MPI_Errhandler eh, eh2;
    void *base;
    MPI_Aint *sz;
    int *du, *fl, *model;
    char name[MPI_MAX_OBJECT_NAME];
    int len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "same_size", "true");
    MPI_Win_create(buf, sizeof buf, 2, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);

    /* predefined attributes */
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, expected %p", base, (void *)buf);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    CHECK(flag && *sz == sizeof buf, "MPI_WIN_SIZE %ld", (long)*sz);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    CHECK(flag && *du == 2, "MPI_WIN_DISP_UNIT %d", *du);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
    CHECK(flag && *fl == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR %d", *fl);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *model);

    /* user attributes */
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &keyval, NULL);
    MPI_Win_set_attr(win, keyval, &val);
    {
        int *got = NULL;
        MPI_Win_get_attr(win, keyval, &got, &flag);
        CHECK(flag && got == &val, "user attribute not found");
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    err = MPI_Win_set_attr(win, MPI_WIN_BASE, &val);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "setting MPI_WIN_BASE: class %d",
          mtest_error_class(err));

    /* names */
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 0 && name[0] == '\0', "default name is \"%s\"", name);
    MPI_Win_set_name(win, "my window");
    MPI_Win_get_name(win, name, &len);
    CHECK(strcmp(name, "my window") == 0 && len == 9, "name is \"%s\"", name);

    /* group */
    {
        MPI_Group g, wg;
        int res;
        MPI_Win_get_group(win, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_compare(g, wg, &res);
        CHECK(res == MPI_IDENT, "window group compares %d to MPI_COMM_WORLD's", res);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }

    /* info */
    check_info(win, "accumulate_ordering", "none");
    check_info(win, "same_size", "true");
    check_info(win, "accumulate_ops", "same_op_no_op");
    check_info(win, "no_locks", "false");
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    check_info(win, "accumulate_ops", "same_op");

    /* error handlers */
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Win_get_errhandler(win, &eh2);
    CHECK(eh2 == eh, "get_errhandler returned %#x, expected %#x", (unsigned)eh2, (unsigned)eh);
    MPI_Errhandler_free(&eh2);
    MPI_Win_fence(0, win);
    err = MPI_Put(buf, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_RANK && handler_win == win,
          "handler: %d calls, class %d", handler_calls, handler_class);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "bad rank returned class %d",
          mtest_error_class(err));
    err = MPI_Put(buf, 1, MPI_INT, 0, 1000, 1, MPI_INT, win);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_RMA_RANGE, "range: %d calls, class %d",
          handler_calls, handler_class);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(handler_calls == 3 && handler_class == MPI_ERR_OTHER,
          "call_errhandler: %d calls, class %d", handler_calls, handler_class);
    MPI_Win_fence(0, win);
    MPI_Errhandler_free(&eh);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    {
        char msg[MPI_MAX_ERROR_STRING];
        int mlen;
        err = MPI_Get(buf, 1, MPI_INT, 0, -5, 1, MPI_INT, win);
        MPI_Error_string(err, msg, &mlen);
        CHECK(strstr(msg, "MPI_Get") != NULL && strstr(msg, "target_disp") != NULL,
              "error string does not name the call and argument: %s", msg);
    }

    /* an invalid window */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Win_get_name(MPI_WIN_NULL, name, &len);
    CHECK(mtest_error_class(err) == MPI_ERR_WIN, "MPI_WIN_NULL: class %d", mtest_error_class(err));
    err = MPI_Win_fence(0, 12345);
    CHECK(mtest_error_class(err) == MPI_ERR_WIN, "garbage window: class %d",
          mtest_error_class(err));
    err = MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    CHECK(mtest_error_class(err) == MPI_ERR_SIZE, "negative size: class %d",
          mtest_error_class(err));
    err = MPI_Win_create(buf, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    CHECK(mtest_error_class(err) == MPI_ERR_DISP, "zero disp_unit: class %d",
          mtest_error_class(err));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Win_free(&win);
    CHECK(deleted == 3, "the delete callback ran %d times' worth", deleted / 3);
    MPI_Win_free_keyval(&keyval);

    /* MPI_Alloc_mem memory in a window */
    {
        int *am = NULL;
        MPI_Alloc_mem(4 * sizeof(int), MPI_INFO_NULL, &am);
        CHECK(am != NULL, "MPI_Alloc_mem returned NULL");
        am[0] = -1;
        MPI_Win_create(am, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
        MPI_Win_fence(0, w2);
        MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w2);
        MPI_Win_fence(0, w2);
        CHECK(am[0] == (rank + size - 1) % size, "put into MPI_Alloc_mem memory: %d", am[0]);
        MPI_Win_free(&w2);
        MPI_Free_mem(am);
    }

    /* the _c variants */
    {
        long long *mem, v = rank + 1, got = 0;
        MPI_Aint qs, qu;
        void *qb;
        MPI_Win_allocate_c(8 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &w2);
        for (int i = 0; i < 8; i++)
            mem[i] = 0;
        MPI_Win_fence(0, w2);
        MPI_Put_c(&v, 1, MPI_LONG_LONG, (rank + 1) % size, 1, 1, MPI_LONG_LONG, w2);
        MPI_Accumulate_c(&v, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, MPI_SUM, w2);
        MPI_Win_fence(0, w2);
        MPI_Get_c(&got, 1, MPI_LONG_LONG, (rank + 1) % size, 1, 1, MPI_LONG_LONG, w2);
        MPI_Win_fence(0, w2);
        CHECK(got == rank + 1, "_c put/get: %lld", got);
        if (rank == 0)
            CHECK(mem[2] == (long long)size * (size + 1) / 2, "_c accumulate: %lld", mem[2]);
        MPI_Win_free(&w2);
        MPI_Win_create_c(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
        MPI_Win_get_attr(w2, MPI_WIN_DISP_UNIT, &du, &flag);
        CHECK(flag && *du == 4, "MPI_Win_create_c disp_unit %d", *du);
        MPI_Win_free(&w2);
        MPI_Win_allocate_shared_c(16, 8, MPI_INFO_NULL, MPI_COMM_SELF, &mem, &w2);
        MPI_Win_shared_query_c(w2, 0, &qs, &qu, &qb);
        CHECK(qs == 16 && qu == 8 && qb == mem, "shared_query_c: %ld %ld", (long)qs, (long)qu);
        MPI_Win_free(&w2);
    }
    return mtest_finish();
}
