/*
 * The MPII_* hooks of libmpich.so.12 called from C the way MPICH's Fortran
 * and C++ libraries call them (they declare the hooks themselves, as here),
 * to check what those libraries cannot show from one language alone:
 *   - attribute kinds across languages: a value set as a Fortran integer
 *     (MPIR_ATTR_AINT) reads from C as its address and reaches C copy and
 *     delete callbacks by address; the copy keeps the kind; predefined
 *     attributes read as values with a Fortran kind, and C accepts their
 *     Fortran names (C's value + 1);
 *   - a keyval proxy gets the user's function, the kind and the raw value;
 *   - an operation proxy gets the count by value; an error-handler proxy runs
 *     once per error even when the caller hands the code back through
 *     MPI_Comm_call_errhandler (as the C++ wrapper does), but a later
 *     explicit call is delivered; MPIR_ERRORS_THROW_EXCEPTIONS returns;
 *   - generalized-request callbacks in Fortran's convention;
 *   - bad arguments: an unknown kind, an invalid communicator, datatype or
 *     window, setting a predefined window attribute; hooks given handles
 *     that are not user objects change nothing.
 */
#include "mtest.h"

#include <stdint.h>

int MPII_Comm_set_attr(MPI_Comm, int, void *, int);
int MPII_Comm_get_attr(MPI_Comm, int, void *, int *, int);
int MPII_Type_set_attr(MPI_Datatype, int, void *, int);
int MPII_Type_get_attr(MPI_Datatype, int, void *, int *, int);
int MPII_Win_set_attr(MPI_Win, int, void *, int);
int MPII_Win_get_attr(MPI_Win, int, void *, int *, int);
typedef int copy_proxy_t(MPI_Comm_copy_attr_function *, int, int, void *, int, void *, void **,
                         int *);
typedef int delete_proxy_t(MPI_Comm_delete_attr_function *, int, int, int, void *, void *);
void MPII_Keyval_set_proxy(int, copy_proxy_t *, delete_proxy_t *);
void MPII_Op_set_cxx(MPI_Op, void (*)(void));
void MPII_Errhandler_set_cxx(MPI_Errhandler, void (*)(void));
void MPII_Grequest_set_lang_f77(MPI_Request);

enum { PTR = 0, AINT = 1, INT = 3 };

/* ---- C callbacks on integer-kind values */
static MPI_Aint c_copy_in = -1, c_deleted = -1;
static int c_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    c_copy_in = *(MPI_Aint *)in; /* by address */
    *(void **)out = (void *)(intptr_t)(c_copy_in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}
static int c_delete(MPI_Comm c, int k, void *val, void *extra)
{
    c_deleted = *(MPI_Aint *)val;
    return MPI_SUCCESS;
}

/* ---- a language proxy and the "user function" it is given */
static int proxy_kind = -1, proxy_copies = 0, proxy_deletes = 0;
static void *proxy_value, *proxy_fn;
static int user_marker(void) { return 0; }
static int my_copy_proxy(MPI_Comm_copy_attr_function *fn, int h, int k, void *extra, int kind,
                         void *value, void **newval, int *flag)
{
    proxy_copies++;
    proxy_fn = (void *)fn;
    proxy_kind = kind;
    proxy_value = value;
    *newval = (void *)((intptr_t)value * 10);
    *flag = 1;
    return MPI_SUCCESS;
}
static int my_delete_proxy(MPI_Comm_delete_attr_function *fn, int h, int k, int kind,
                           void *value, void *extra)
{
    proxy_deletes++;
    proxy_kind = kind;
    proxy_value = value;
    return MPI_SUCCESS;
}

/* ---- C++ conventions for operations and error handlers */
static int op_proxy_calls;
static void cxx_sum(void) {}
static void op_proxy(void *in, void *inout, int len, MPI_Datatype dt, void (*user)(void))
{
    op_proxy_calls++;
    if (user == cxx_sum && dt == MPI_INT)
        for (int i = 0; i < len; i++)
            ((int *)inout)[i] += ((int *)in)[i];
}
static int eh_calls, eh_kind = -1, eh_code;
static MPI_Comm eh_comm;
static void cxx_handler(void) {}
static void eh_proxy(int kind, int *handle, int *code, void (*user)(void))
{
    eh_calls++;
    eh_kind = kind;
    eh_comm = *(MPI_Comm *)handle;
    eh_code = user == cxx_handler ? *code : -1;
}

/* ---- Fortran-convention generalized request callbacks */
static int fq, ff, fc, fcomplete = -1;
static void f_query(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr)
{
    fq++;
    status[2] = (MPI_Fint)*extra; /* MPI_SOURCE */
    *ierr = MPI_SUCCESS;
}
static void f_free(MPI_Aint *extra, MPI_Fint *ierr) { ff++; *ierr = MPI_SUCCESS; }
static void f_cancel(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr)
{
    fc++;
    fcomplete = *complete;
    *ierr = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Comm comm, dup;
    MPI_Aint v = 0, *p = NULL;
    int flag = 0, key, pkey, err, *ip = NULL, size;
    char msg[MPI_MAX_ERROR_STRING];
    int len;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* predefined attributes: values for Fortran, addresses for C, both names */
    err = MPII_Comm_get_attr(comm, MPI_TAG_UB + 1, &v, &flag, AINT);
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ip, &flag);
    CHECK(err == MPI_SUCCESS && flag && ip != NULL && v == *ip && v >= 32767,
          "Fortran MPI_TAG_UB %ld, C %d", (long)v, ip ? *ip : -1);
    ip = NULL;
    err = MPI_Comm_get_attr(comm, MPI_TAG_UB + 1, &ip, &flag);
    CHECK(err == MPI_SUCCESS && flag && ip != NULL && *ip == v,
          "C with Fortran's name of MPI_TAG_UB");
    v = -1;
    MPII_Comm_get_attr(comm, MPI_TAG_UB, &v, &flag, INT);
    CHECK(flag && v == *ip, "MPI_Attr_get's kind of MPI_TAG_UB: %ld", (long)v);

    /* a Fortran-set value seen from C and by C callbacks */
    MPI_Comm_create_keyval(c_copy, c_delete, &key, NULL);
    err = MPII_Comm_set_attr(comm, key, (void *)(intptr_t)42, AINT);
    CHECK(err == MPI_SUCCESS, "MPII_Comm_set_attr");
    MPI_Comm_get_attr(comm, key, &p, &flag);
    CHECK(flag && p != NULL && *p == 42, "C reads a Fortran-set value by address");
    MPII_Comm_get_attr(comm, key, &v, &flag, AINT);
    CHECK(flag && v == 42, "Fortran reads its value back: %ld", (long)v);
    MPI_Comm_dup(comm, &dup);
    CHECK(c_copy_in == 42, "the C copy function got the value by address: %ld", (long)c_copy_in);
    MPII_Comm_get_attr(dup, key, &v, &flag, AINT);
    CHECK(flag && v == 43, "the copy keeps the Fortran kind: %ld", (long)v);
    MPI_Comm_free(&dup);
    CHECK(c_deleted == 43, "the C delete function got the value by address: %ld", (long)c_deleted);
    MPI_Comm_delete_attr(comm, key);
    CHECK(c_deleted == 42, "delete of the original");
    /* a C pointer read from Fortran is the pointer as an integer */
    MPI_Comm_set_attr(comm, key, &size);
    MPII_Comm_get_attr(comm, key, &v, &flag, AINT);
    CHECK(flag && v == (MPI_Aint)(intptr_t)&size, "Fortran reads a C pointer as an integer");
    MPI_Comm_delete_attr(comm, key);
    MPI_Comm_free_keyval(&key);

    /* a keyval with a language proxy */
    MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)(void *)user_marker,
                           (MPI_Comm_delete_attr_function *)(void *)user_marker, &pkey, NULL);
    MPII_Keyval_set_proxy(pkey, my_copy_proxy, my_delete_proxy);
    MPII_Comm_set_attr(comm, pkey, (void *)(intptr_t)5, INT);
    MPI_Comm_dup(comm, &dup);
    CHECK(proxy_copies == 1 && proxy_kind == INT && proxy_value == (void *)5 &&
              proxy_fn == (void *)user_marker,
          "copy proxy: kind %d value %p", proxy_kind, proxy_value);
    MPII_Comm_get_attr(dup, pkey, &v, &flag, INT);
    CHECK(flag && v == 50, "the proxy's copy: %ld", (long)v);
    MPI_Comm_free(&dup);
    CHECK(proxy_deletes == 1 && proxy_value == (void *)50, "delete proxy on free");
    MPI_Comm_free_keyval(&pkey);
    MPII_Keyval_set_proxy(pkey, my_copy_proxy, my_delete_proxy); /* invalid: nothing happens */

    /* datatype and window attributes with a kind */
    {
        MPI_Datatype t;
        int tkey, buf[4];
        MPI_Win win;
        MPI_Type_contiguous(2, MPI_INT, &t);
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL);
        MPII_Type_set_attr(t, tkey, (void *)(intptr_t)7, AINT);
        MPI_Type_get_attr(t, tkey, &p, &flag);
        CHECK(flag && *p == 7, "type attribute by address");
        err = MPII_Type_get_attr(MPI_DATATYPE_NULL, tkey, &v, &flag, AINT);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
        MPI_Type_free(&t);
        MPI_Type_free_keyval(&tkey);

        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, comm, &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPII_Win_get_attr(win, MPI_WIN_SIZE + 1, &v, &flag, AINT);
        CHECK(flag && v == (MPI_Aint)sizeof buf, "MPI_WIN_SIZE as a value: %ld", (long)v);
        MPII_Win_get_attr(win, MPI_WIN_BASE + 1, &v, &flag, AINT);
        CHECK(flag && v == (MPI_Aint)(intptr_t)buf, "MPI_WIN_BASE as an address");
        MPII_Win_get_attr(win, MPI_WIN_DISP_UNIT, &ip, &flag, PTR);
        CHECK(flag && *ip == (int)sizeof(int), "MPI_WIN_DISP_UNIT for C");
        err = MPII_Win_set_attr(win, MPI_WIN_SIZE + 1, (void *)1, AINT);
        CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "setting MPI_WIN_SIZE");
        err = MPII_Win_set_attr(win, 0x12345, (void *)1, AINT);
        CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "setting with a bad keyval");
        MPI_Win_free(&win);
        err = MPII_Win_get_attr(MPI_WIN_NULL, MPI_WIN_SIZE, &v, &flag, AINT);
        CHECK(mtest_error_class(err) == MPI_ERR_WIN, "MPI_WIN_NULL");
    }

    /* bad arguments */
    err = MPII_Comm_set_attr(comm, MPI_TAG_UB, (void *)1, 7);
    MPI_Error_string(err, msg, &len);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG && strstr(msg, "kind 7") != NULL,
          "unknown kind: %s", msg);
    err = MPII_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag, INT);
    MPI_Error_string(err, msg, &len);
    CHECK(mtest_error_class(err) == MPI_ERR_COMM && strstr(msg, "MPI_Attr_get") != NULL,
          "MPI_COMM_NULL: %s", msg);
    err = MPII_Comm_set_attr(comm, MPI_TAG_UB + 1, (void *)1, AINT);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "setting Fortran's MPI_TAG_UB");

    /* a C++ operation */
    {
        MPI_Op op;
        int in[3] = {1, 2, 3}, out[3];
        MPI_Op_create((MPI_User_function *)(void *)cxx_sum, 1, &op);
        MPII_Op_set_cxx(op, (void (*)(void))op_proxy);
        MPI_Allreduce(in, out, 3, MPI_INT, op, comm);
        CHECK(out[0] == size && out[2] == 3 * size, "sum through the op proxy: %d", out[2]);
        MPI_Reduce_local(in, out, 3, MPI_INT, op);
        CHECK(out[2] == 3 * size + 3 && op_proxy_calls > 0,
              "MPI_Reduce_local through the op proxy");
        MPI_Op_free(&op);
        MPII_Op_set_cxx(MPI_SUM, (void (*)(void))op_proxy); /* predefined: nothing happens */
        MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, comm);
        CHECK(out[0] == size, "MPI_SUM is unchanged");
    }

    /* a C++ error handler */
    {
        MPI_Errhandler eh;
        int x = 0;
        MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)cxx_handler, &eh);
        MPII_Errhandler_set_cxx(eh, (void (*)(void))eh_proxy);
        MPI_Comm_set_errhandler(comm, eh);
        err = MPI_Send(&x, 1, MPI_INT, size, 0, comm);
        CHECK(err != MPI_SUCCESS && eh_calls == 1 && eh_kind == 0 && eh_comm == comm &&
                  eh_code == err && mtest_error_class(err) == MPI_ERR_RANK,
              "the C++ handler proxy: calls %d kind %d", eh_calls, eh_kind);
        /* what the C++ wrapper does next: not delivered again */
        MPI_Comm_call_errhandler(comm, err);
        CHECK(eh_calls == 1, "handed back: calls %d", eh_calls);
        /* a program's own call: delivered */
        MPI_Comm_call_errhandler(comm, err);
        CHECK(eh_calls == 2, "explicit call: calls %d", eh_calls);
        MPI_Comm_call_errhandler(comm, err);
        CHECK(eh_calls == 3, "explicit call again: calls %d", eh_calls);
        MPI_Errhandler_free(&eh);
        MPII_Errhandler_set_cxx(MPI_ERRORS_RETURN, (void (*)(void))eh_proxy); /* nothing */

        MPI_Comm_set_errhandler(comm, MPIR_ERRORS_THROW_EXCEPTIONS);
        err = MPI_Send(&x, 1, MPI_INT, size, 0, comm);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK && eh_calls == 3,
              "MPIR_ERRORS_THROW_EXCEPTIONS returns the code");
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }

    /* a generalized request with Fortran callbacks */
    {
        MPI_Request req;
        MPI_Status st;
        MPI_Aint extra = 9;
        MPI_Grequest_start((MPI_Grequest_query_function *)(void *)f_query,
                           (MPI_Grequest_free_function *)(void *)f_free,
                           (MPI_Grequest_cancel_function *)(void *)f_cancel, &extra, &req);
        MPII_Grequest_set_lang_f77(req);
        MPI_Cancel(&req);
        CHECK(fc == 1 && fcomplete == 0, "Fortran cancel: complete=%d", fcomplete);
        MPI_Grequest_complete(req);
        MPI_Wait(&req, &st);
        CHECK(fq == 1 && ff == 1 && st.MPI_SOURCE == 9, "Fortran query/free: %d %d source %d", fq,
              ff, st.MPI_SOURCE);
        MPII_Grequest_set_lang_f77(MPI_REQUEST_NULL); /* nothing */
    }

    MPI_Comm_free(&comm);
    return mtest_finish();
}
