/*
 * attr_dup_err: a duplication whose attribute copy callback fails returns the
 * callback's error and leaves the null handle in the output, as MPICH does
 * (MPI_COMM_NULL from MPI_Comm_dup and MPI_Comm_dup_with_info,
 * MPI_DATATYPE_NULL from MPI_Type_dup), so a program that tests the handle
 * after the error does not use or free a stale one. A callback that succeeds
 * still copies.
 */
#include "mtest.h"

static int copy_fails(void)
{
    return MPI_ERR_OTHER;
}

static int comm_copy_fail(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra; (void)in; (void)out;
    *flag = 0;
    return copy_fails();
}

static int type_copy_fail(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)k; (void)extra; (void)in; (void)out;
    *flag = 0;
    return copy_fails();
}

int main(int argc, char **argv)
{
    int key, tkey, err, cls;
    MPI_Comm dup = MPI_COMM_WORLD;
    MPI_Datatype tdup = MPI_INT;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm_create_keyval(comm_copy_fail, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)1);
    err = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    cls = mtest_error_class(err);
    CHECK(err != MPI_SUCCESS, "MPI_Comm_dup succeeded although the copy callback failed");
    CHECK(cls == MPI_ERR_OTHER, "MPI_Comm_dup error class %d, expected MPI_ERR_OTHER", cls);
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_dup left newcomm=%#x, expected MPI_COMM_NULL",
          (unsigned)dup);

    dup = MPI_COMM_WORLD;
    MPI_Info_create(&info);
    err = MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup);
    CHECK(err != MPI_SUCCESS, "MPI_Comm_dup_with_info succeeded although the copy failed");
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_dup_with_info left newcomm=%#x", (unsigned)dup);
    MPI_Info_free(&info);

    /* Without the failing attribute the duplicate works again. */
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    err = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(err == MPI_SUCCESS && dup != MPI_COMM_NULL, "MPI_Comm_dup after delete_attr failed");
    if (err == MPI_SUCCESS)
        MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&key);

    MPI_Type_create_keyval(type_copy_fail, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL);
    {
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Type_set_attr(vec, tkey, (void *)1);
        tdup = MPI_INT;
        err = MPI_Type_dup(vec, &tdup);
        CHECK(err != MPI_SUCCESS, "MPI_Type_dup succeeded although the copy callback failed");
        CHECK(tdup == MPI_DATATYPE_NULL, "MPI_Type_dup left newtype=%#x, expected MPI_DATATYPE_NULL",
              (unsigned)tdup);
        MPI_Type_delete_attr(vec, tkey);
        MPI_Type_free(&vec);
    }
    MPI_Type_free_keyval(&tkey);

    return mtest_finish();
}
