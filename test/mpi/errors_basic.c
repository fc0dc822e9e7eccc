/* Error classes, strings, user classes and codes, communicator error
 * handlers (MPI_ERRORS_RETURN, user handlers, MPI_Comm_call_errhandler),
 * and the classes the point-to-point boundary returns for bad arguments. */
#include "mtest.h"

static int handler_calls, handler_last;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_last = *code;
}

int main(int argc, char **argv)
{
    int rank, size, err, cls, len, ucls, ucode, buf[4] = {0};
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Errhandler eh, got;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPICH compatibility (its errors/comm/*_nullarg, errors/attr/keyvalmis):
     * objects made before any handler was set follow MPI_COMM_WORLD's
     * handler when it is set later; one set explicitly stays */
    {
        MPI_Comm early, fixed;
        MPI_Win w;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        int kv;
        MPI_Comm_dup(MPI_COMM_WORLD, &early);
        MPI_Comm_dup(MPI_COMM_WORLD, &fixed);
        MPI_Comm_set_errhandler(fixed, MPI_ERRORS_ARE_FATAL);
        MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        err = MPI_Comm_create(early, MPI_GROUP_EMPTY, NULL);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "early dup: class %d", mtest_error_class(err));
        MPI_Comm_get_errhandler(early, &got);
        CHECK(got == MPI_ERRORS_RETURN, "early dup reports handler %#x", (unsigned)got);
        MPI_Comm_get_errhandler(fixed, &got);
        CHECK(got == MPI_ERRORS_ARE_FATAL, "explicitly set handler became %#x", (unsigned)got);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
        err = MPI_Win_set_attr(w, kv, NULL);
        CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "window: class %d", mtest_error_class(err));
        MPI_Comm_free_keyval(&kv);
        MPI_Win_free(&w);
        MPI_Comm_free(&early);
        MPI_Comm_free(&fixed);
        (void)dt;
    }
    /* MPICH's GPU queries answer "no" (their result is the answer, not an
     * error code: runtimes such as mpi4py decide from it where buffers live) */
    {
        int sup = -1;
        CHECK(MPIX_Query_cuda_support() == 0 && MPIX_Query_hip_support() == 0 &&
                  MPIX_Query_ze_support() == 0,
              "a GPU query said yes");
        err = MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &sup);
        CHECK(err == MPI_SUCCESS && sup == 0, "MPIX_GPU_query_support: %d, %d", err, sup);
        err = MPIX_GPU_query_support(42, &sup);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "gpu_type 42: class %d", mtest_error_class(err));
    }
    /* a failed MPI_Cart_create leaves MPI_COMM_NULL (errors/topo/cartsmall) */
    {
        MPI_Comm cart = MPI_COMM_WORLD;
        int dims[2] = {size + 1, 1}, per[2] = {0, 0};
        err = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
        CHECK(err != MPI_SUCCESS && cart == MPI_COMM_NULL, "cart_create too large: %d, %#x", err,
              (unsigned)cart);
    }

    /* class strings */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_LASTCODE && c < 80; c++) {
        if (MPI_Error_string(c, msg, &len) == MPI_SUCCESS)
            CHECK(len == (int)strlen(msg), "len of class %d", c);
    }
    MPI_Error_string(MPI_ERR_TRUNCATE, msg, &len);
    CHECK(strstr(msg, "truncated") != NULL, "MPI_ERR_TRUNCATE string \"%s\"", msg);

    /* bad arguments at the boundary */
    err = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "bad dest gave class %d", mtest_error_class(err));
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "MPI_Send") != NULL && strstr(msg, "dest") != NULL,
          "message does not name the call and argument: \"%s\"", msg);
    err = MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_TAG, "negative tag gave %d", mtest_error_class(err));
    {
        int *tag_ub, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
        CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB attribute");
        if (flag && *tag_ub < 0x7fffffff) {
            err = MPI_Send(buf, 1, MPI_INT, 0, *tag_ub + 1, MPI_COMM_WORLD);
            CHECK(mtest_error_class(err) == MPI_ERR_TAG, "tag above MPI_TAG_UB gave %d",
                  mtest_error_class(err));
        }
    }
    err = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_COUNT, "negative count gave %d", mtest_error_class(err));
    err = MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "null type gave %d", mtest_error_class(err));
    err = MPI_Send(buf, 1, (MPI_Datatype)0x12345, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "garbage type gave %d", mtest_error_class(err));
    err = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_COMM, "null comm gave %d", mtest_error_class(err));
    err = MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "bad source gave %d", mtest_error_class(err));
    err = MPI_Irecv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &req);
    CHECK(mtest_error_class(err) == MPI_ERR_TAG, "bad recv tag gave %d", mtest_error_class(err));
    err = MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(mtest_error_class(err) == MPI_ERR_BUFFER, "NULL buffer gave %d", mtest_error_class(err));
    req = (MPI_Request)0x7777;
    err = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(mtest_error_class(err) == MPI_ERR_REQUEST, "bad request gave %d", mtest_error_class(err));

    /* truncation: the status is filled and the class is MPI_ERR_TRUNCATE */
    {
        int big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small[2];
        MPI_Status st;
        MPI_Request sr;
        MPI_Isend(big, 8, MPI_INT, rank, 3, MPI_COMM_WORLD, &sr);
        err = MPI_Recv(small, 2, MPI_INT, rank, 3, MPI_COMM_WORLD, &st);
        CHECK(mtest_error_class(err) == MPI_ERR_TRUNCATE, "truncation gave %d",
              mtest_error_class(err));
        CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 3, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
    }

    /* user classes, codes and strings */
    MPI_Add_error_class(&ucls);
    MPI_Add_error_code(ucls, &ucode);
    MPI_Add_error_string(ucode, "my special error");
    MPI_Error_class(ucode, &cls);
    CHECK(cls == ucls, "class of user code %d != %d", cls, ucls);
    MPI_Error_string(ucode, msg, &len);
    CHECK(strcmp(msg, "my special error") == 0, "user string \"%s\"", msg);
    CHECK(ucls > MPI_ERR_LASTCODE, "user class %d not above MPI_ERR_LASTCODE", ucls);
    {
        int *lastused, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
        CHECK(flag && *lastused >= ucode, "MPI_LASTUSEDCODE");
    }

    /* user handler */
    MPI_Comm_create_errhandler(my_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == eh, "get_errhandler");
    MPI_Errhandler_free(&got);
    err = MPI_Send(buf, 1, MPI_INT, -9, 0, MPI_COMM_WORLD);
    CHECK(handler_calls == 1 && mtest_error_class(handler_last) == MPI_ERR_RANK,
          "handler calls %d class %d", handler_calls, mtest_error_class(handler_last));
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, ucode);
    CHECK(handler_calls == 2 && handler_last == ucode, "call_errhandler");
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "freed handle not null");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    return mtest_finish();
}
