/* MPI 4.1's new functions other than the buffers (those are mpi41_bsend):
 * the status field accessors (also before MPI_Init, as MPICH allows),
 * MPI_Remove_error_class/code/string, MPI_Type_get_value_index,
 * MPI_Request_get_status_any/some/all (which leave the requests alone),
 * MPI_Get_hw_resource_info and MPI_Status_set_elements_c, with their
 * argument errors. */
#include "mtest.h"
#include <stdio.h>
#include <string.h>


static void status_fields(const char *phase)
{
    MPI_Status st;
    int v = 0;
    memset(&st, 0, sizeof st);
    CHECK(MPI_Status_set_source(&st, 7) == MPI_SUCCESS &&
              MPI_Status_set_tag(&st, 42) == MPI_SUCCESS &&
              MPI_Status_set_error(&st, MPI_ERR_TAG) == MPI_SUCCESS,
          "%s: status setters failed", phase);
    CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 42 && st.MPI_ERROR == MPI_ERR_TAG,
          "%s: setters wrote %d %d %d", phase, st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    CHECK(MPI_Status_get_source(&st, &v) == MPI_SUCCESS && v == 7, "%s: get_source %d", phase, v);
    CHECK(MPI_Status_get_tag(&st, &v) == MPI_SUCCESS && v == 42, "%s: get_tag %d", phase, v);
    CHECK(MPI_Status_get_error(&st, &v) == MPI_SUCCESS && v == MPI_ERR_TAG, "%s: get_error %d",
          phase, v);
    EXPECT_CLASS(MPI_Status_get_source(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG,
                 "MPI_Status_get_source(MPI_STATUS_IGNORE)");
    EXPECT_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG, "MPI_Status_get_tag(.., NULL)");
    EXPECT_CLASS(MPI_Status_set_error(NULL, 0), MPI_ERR_ARG, "MPI_Status_set_error(NULL)");
}

static void remove_errors(void)
{
    int cls, code, c = -1, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS &&
              MPI_Add_error_code(cls, &code) == MPI_SUCCESS &&
              MPI_Add_error_string(code, "mine") == MPI_SUCCESS,
          "adding an error class/code failed");
    MPI_Error_string(code, s, &len);
    CHECK(strcmp(s, "mine") == 0, "the code's string is \"%s\"", s);
    EXPECT_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG,
                 "MPI_Remove_error_class of a class with codes");
    EXPECT_CLASS(MPI_Remove_error_code(cls), MPI_ERR_ARG, "MPI_Remove_error_code of a class");
    EXPECT_CLASS(MPI_Remove_error_class(MPI_ERR_TAG), MPI_ERR_ARG,
                 "MPI_Remove_error_class(MPI_ERR_TAG)");
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "MPI_Remove_error_string failed");
    MPI_Error_string(code, s, &len);
    CHECK(strcmp(s, "mine") != 0, "the removed string is still \"%s\"", s);
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "MPI_Remove_error_code failed");
    EXPECT_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG, "MPI_Remove_error_code twice");
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS, "MPI_Remove_error_class failed");
    EXPECT_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG, "MPI_Remove_error_class twice");
    /* the new classes are classes */
    MPI_Error_class(MPI_ERR_ABI, &c);
    CHECK(c == MPI_ERR_ABI && MPI_ERR_ABI == 81 && MPI_ERR_ERRHANDLER == 80 &&
              MPI_T_ERR_NOT_ACCESSIBLE == 79,
          "MPI 4.1/5.0 classes: MPI_ERR_ABI's class is %d", c);
    CHECK(MPI_Error_string(MPI_ERR_ERRHANDLER, s, &len) == MPI_SUCCESS && len > 0,
          "MPI_ERR_ERRHANDLER has no string");
}

static void value_index(void)
{
    static const struct {
        MPI_Datatype v, i, pair;
    } t[] = {{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
             {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
             {MPI_LONG, MPI_INT, MPI_LONG_INT},
             {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
             {MPI_INT, MPI_INT, MPI_2INT},
             {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
             {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
             {MPI_REAL, MPI_REAL, MPI_2REAL},
             {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
             {MPI_INT, MPI_FLOAT, MPI_DATATYPE_NULL},
             {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL}};
    MPI_Datatype p, vec;
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        p = MPI_INT;
        CHECK(MPI_Type_get_value_index(t[k].v, t[k].i, &p) == MPI_SUCCESS && p == t[k].pair,
              "MPI_Type_get_value_index pair %zu: %#x, expected %#x", k, (unsigned)p,
              (unsigned)t[k].pair);
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK(MPI_Type_get_value_index(vec, MPI_INT, &p) == MPI_SUCCESS && p == MPI_DATATYPE_NULL,
          "a derived value type gives %#x", (unsigned)p);
    MPI_Type_free(&vec);
    EXPECT_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &p), MPI_ERR_TYPE,
                 "MPI_Type_get_value_index(MPI_DATATYPE_NULL, ..)");
    EXPECT_CLASS(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG,
                 "MPI_Type_get_value_index(.., NULL)");
}

static void get_status_multi(int rank, int size)
{
    MPI_Request r[3];
    MPI_Status st[3];
    int flag = -1, idx = -2, out = -2, ind[3], buf = 0, val = 5;
    int peer = size > 1 ? 1 - rank : rank;

    if (size > 2 && rank > 1) { /* ranks 0 and 1 pair up; the others only meet the barrier */
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    /* all null: any -> true with MPI_UNDEFINED, some -> MPI_UNDEFINED, all -> true */
    r[0] = r[1] = MPI_REQUEST_NULL;
    CHECK(MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]) == MPI_SUCCESS && flag &&
              idx == MPI_UNDEFINED,
          "get_status_any of null requests: flag %d index %d", flag, idx);
    CHECK(MPI_Request_get_status_some(2, r, &out, ind, st) == MPI_SUCCESS && out == MPI_UNDEFINED,
          "get_status_some of null requests: outcount %d", out);
    CHECK(MPI_Request_get_status_all(2, r, &flag, st) == MPI_SUCCESS && flag,
          "get_status_all of null requests: flag %d", flag);

    /* a receive that cannot complete yet, a null one, then it completes */
    MPI_Irecv(&buf, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    CHECK(MPI_Request_get_status_all(2, r, &flag, st) == MPI_SUCCESS && !flag,
          "get_status_all before the message: flag %d", flag);
    CHECK(MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]) == MPI_SUCCESS && !flag &&
              idx == MPI_UNDEFINED,
          "get_status_any before the message: flag %d index %d", flag, idx);
    CHECK(MPI_Request_get_status_some(2, r, &out, ind, st) == MPI_SUCCESS && out == 0,
          "get_status_some before the message: outcount %d", out);
    if (size > 1)
        MPI_Barrier(MPI_COMM_WORLD); /* both receives posted: no message arrived yet */
    MPI_Send(&val, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    do
        MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]);
    while (!flag);
    CHECK(idx == 0 && st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 3,
          "get_status_any: index %d source %d tag %d", idx, st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(r[0] != MPI_REQUEST_NULL, "get_status_any freed the request");
    CHECK(MPI_Request_get_status_some(2, r, &out, ind, st) == MPI_SUCCESS && out == 1 &&
              ind[0] == 0 && st[0].MPI_SOURCE == peer,
          "get_status_some: outcount %d index %d", out, ind[0]);
    CHECK(MPI_Request_get_status_all(2, r, &flag, st) == MPI_SUCCESS && flag &&
              st[0].MPI_TAG == 3 && st[1].MPI_TAG == MPI_ANY_TAG,
          "get_status_all: flag %d tags %d %d", flag, st[0].MPI_TAG, st[1].MPI_TAG);
    CHECK(MPI_Request_get_status_all(2, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag,
          "get_status_all with MPI_STATUSES_IGNORE");
    CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS && buf == 5,
          "the request could not be completed after the queries (buf %d)", buf);

    /* errors */
    r[0] = (MPI_Request)0x12345;
    EXPECT_CLASS(MPI_Request_get_status_any(1, r, &idx, &flag, &st[0]), MPI_ERR_REQUEST,
                 "get_status_any of an invalid request");
    EXPECT_CLASS(MPI_Request_get_status_all(-1, r, &flag, st), MPI_ERR_COUNT,
                 "get_status_all with count -1");
    r[0] = MPI_REQUEST_NULL;
    EXPECT_CLASS(MPI_Request_get_status_some(1, r, NULL, ind, st), MPI_ERR_ARG,
                 "get_status_some with outcount NULL");
    EXPECT_CLASS(MPI_Request_get_status_any(1, r, &idx, NULL, &st[0]), MPI_ERR_ARG,
                 "get_status_any with flag NULL");
}

static void hw_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[MPI_MAX_INFO_VAL];
    int n = 0, flag = 0, len = sizeof v;
    CHECK(MPI_Get_hw_resource_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL,
          "MPI_Get_hw_resource_info failed");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n >= 1, "MPI_Get_hw_resource_info: %d keys", n);
    MPI_Info_get_string(info, "mpi_shared_memory", &len, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "mpi_shared_memory is %s", flag ? v : "absent");
    MPI_Info_free(&info);
    EXPECT_CLASS(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG, "MPI_Get_hw_resource_info(NULL)");
}

static void set_elements_c(void)
{
    MPI_Status st;
    MPI_Count c = 0;
    CHECK(MPI_Status_set_elements_c(&st, MPI_INT, (MPI_Count)3 << 32) == MPI_SUCCESS,
          "MPI_Status_set_elements_c failed");
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == (MPI_Count)3 << 32, "MPI_Get_elements_c after set_elements_c: %lld", (long long)c);
    EXPECT_CLASS(MPI_Status_set_elements_c(&st, MPI_INT, -1), MPI_ERR_COUNT,
                 "MPI_Status_set_elements_c(count -1)");
}

int main(int argc, char **argv)
{
    int rank, size;
    status_fields("before MPI_Init");
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    status_fields("while MPI runs");
    remove_errors();
    value_index();
    get_status_multi(rank, size);
    hw_info();
    set_elements_c();
    MPI_Allreduce(MPI_IN_PLACE, &mtest_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && mtest_errors == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return mtest_errors != 0;
}
