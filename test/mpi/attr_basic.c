/* Attribute caching: keyvals with copy and delete callbacks (called at dup,
 * set-over, delete and free), MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN, a
 * keyval freed while an attribute still uses it, a failing copy callback,
 * the predefined attributes of MPI_COMM_WORLD, the MPI-1 names, datatype
 * attributes, keyvals of the wrong kind, and the delete callbacks of
 * MPI_COMM_SELF running in reverse order of setting inside MPI_Finalize, with
 * MPI_Finalized still 0 in them. */
#include "mtest.h"

static int rank, size;
static int log_copy[32], ncopy, log_del[32], ndel;

static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    log_copy[ncopy++ % 32] = (int)(long)extra;
    *(void **)out = (void *)((char *)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    log_del[ndel++ % 32] = (int)(long)extra;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return MPI_ERR_OTHER;
}

/* MPI_COMM_SELF's delete callbacks record here; MPI_Finalize must call
 * them in reverse order of setting. */
static int self_order[3], nself, self_finalized;
static int self_del(MPI_Comm comm, int keyval, void *val, void *extra)
{
    int fin = -1;
    if (nself < 3)
        self_order[nself] = (int)(long)extra;
    nself++;
    /* MPI_Finalize has not completed yet: MPI_Finalized must say 0 here */
    MPI_Finalized(&fin);
    if (fin != 0)
        self_finalized++;
    return MPI_SUCCESS;
}

static int tdel_called;
static int type_del(MPI_Datatype t, int keyval, void *val, void *extra)
{
    tdel_called++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Comm dup, dup2;
    int k[3], knull, kdup, kfail, kold, kt, flag, err, *ip;
    void *v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* predefined attributes */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
    CHECK(flag && *ip >= 32767, "MPI_TAG_UB");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag);
    CHECK(flag && *ip == MPI_PROC_NULL, "MPI_HOST");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag);
    CHECK(flag && (*ip == MPI_ANY_SOURCE || (*ip >= 0 && *ip < size)), "MPI_IO");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag);
    CHECK(!flag || *ip == 0 || *ip == 1, "MPI_WTIME_IS_GLOBAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag);
    CHECK(!flag || *ip >= size, "MPI_UNIVERSE_SIZE %d", flag ? *ip : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag);
    CHECK(!flag || *ip == 0, "MPI_APPNUM");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &ip, &flag);
    CHECK(flag && *ip >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
    {
        int cls, code;
        MPI_Add_error_class(&cls);
        MPI_Add_error_code(cls, &code);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &ip, &flag);
        CHECK(flag && *ip >= code, "MPI_LASTUSEDCODE %d after adding code %d", *ip, code);
    }
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
    CHECK(flag && *ip >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
    err = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d",
          mtest_error_class(err));

    /* copy and delete callbacks */
    for (int i = 0; i < 3; i++)
        MPI_Comm_create_keyval(copy_cb, del_cb, &k[i], (void *)(long)(i + 1));
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_cb, &knull, (void *)100L);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 3; i++)
        MPI_Comm_set_attr(dup, k[i], (void *)(long)(10 * (i + 1)));
    MPI_Comm_set_attr(dup, knull, (void *)7L);
    MPI_Comm_set_attr(dup, kdup, (void *)8L);
    MPI_Comm_get_attr(dup, k[1], &v, &flag);
    CHECK(flag && v == (void *)20L, "get k1: %d %p", flag, v);

    ncopy = 0;
    MPI_Comm_dup(dup, &dup2);
    CHECK(ncopy == 3, "copy callbacks called %d times", ncopy);
    for (int i = 0; i < 3; i++) {
        MPI_Comm_get_attr(dup2, k[i], &v, &flag);
        CHECK(flag && v == (void *)(long)(10 * (i + 1) + 1), "copied k%d: %d %p", i, flag, v);
    }
    MPI_Comm_get_attr(dup2, knull, &v, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    MPI_Comm_get_attr(dup2, kdup, &v, &flag);
    CHECK(flag && v == (void *)8L, "MPI_COMM_DUP_FN attribute: %d %p", flag, v);

    /* set over an existing value calls delete on the old one */
    ndel = 0;
    MPI_Comm_set_attr(dup2, k[0], (void *)99L);
    CHECK(ndel == 1 && log_del[0] == 1, "set-over: %d deletes", ndel);
    MPI_Comm_get_attr(dup2, k[0], &v, &flag);
    CHECK(flag && v == (void *)99L, "set-over value %p", v);
    /* delete_attr */
    ndel = 0;
    MPI_Comm_delete_attr(dup2, k[2]);
    CHECK(ndel == 1 && log_del[0] == 3, "delete_attr: %d deletes", ndel);
    MPI_Comm_get_attr(dup2, k[2], &v, &flag);
    CHECK(!flag, "deleted attribute still there");
    /* free calls the remaining delete callbacks, newest first */
    ndel = 0;
    MPI_Comm_free(&dup2);
    CHECK(ndel == 2 && log_del[0] == 2 && log_del[1] == 1, "free: %d deletes (%d, %d)", ndel,
          log_del[0], log_del[1]);

    /* a keyval freed while in use: the attribute lives on until the free */
    MPI_Comm_free_keyval(&k[1]);
    CHECK(k[1] == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    ndel = 0;
    MPI_Comm_free(&dup);
    CHECK(ndel == 4, "free after free_keyval: %d deletes", ndel);
    err = MPI_Comm_free_keyval(&k[1]);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "freeing MPI_KEYVAL_INVALID: class %d",
          mtest_error_class(err));

    /* MPICH semantics its tests rely on (attr/fkeyval, keyval_double_free):
     * a freed keyval that an attribute still uses can be read, deleted with,
     * and freed again (a no-op), but not used to set new attributes */
    {
        int kv, saved, k2;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
        saved = kv;
        MPI_Comm_set_attr(dup2, kv, (void *)7L);
        MPI_Comm_free_keyval(&kv);
        MPI_Comm_get_attr(dup2, saved, &v, &flag);
        CHECK(flag && v == (void *)7L, "get through a freed, live keyval");
        err = MPI_Comm_set_attr(MPI_COMM_WORLD, saved, (void *)8L);
        CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "set with a freed keyval: class %d",
              mtest_error_class(err));
        k2 = saved;
        CHECK(MPI_Comm_free_keyval(&k2) == MPI_SUCCESS, "second free of a live keyval");
        CHECK(MPI_Comm_delete_attr(dup2, saved) == MPI_SUCCESS, "delete through a freed keyval");
        k2 = saved;
        err = MPI_Comm_free_keyval(&k2);
        CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "free of a dead keyval: class %d",
              mtest_error_class(err));
        MPI_Comm_free(&dup2);
    }

    /* a failing copy callback fails the dup */
    MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, kfail, (void *)1L);
    dup2 = MPI_COMM_NULL;
    err = MPI_Comm_dup(dup, &dup2);
    CHECK(err != MPI_SUCCESS && dup2 == MPI_COMM_NULL, "dup with a failing copy: %d", err);
    MPI_Comm_delete_attr(dup, kfail);
    MPI_Comm_free_keyval(&kfail);

    /* MPI-1 names */
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kold, NULL);
    MPI_Attr_put(dup, kold, (void *)5L);
    MPI_Attr_get(dup, kold, &v, &flag);
    CHECK(flag && v == (void *)5L, "MPI_Attr_get");
    MPI_Attr_delete(dup, kold);
    MPI_Attr_get(dup, kold, &v, &flag);
    CHECK(!flag, "MPI_Attr_delete");
    MPI_Keyval_free(&kold);

    /* datatype attributes (when the datatype layer provides them) */
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_del, &kt, NULL);
    err = MPI_Comm_set_attr(dup, kt, (void *)1L);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "type keyval on a communicator: class %d",
          mtest_error_class(err));
    err = MPI_Type_set_attr(MPI_INT, kt, (void *)3L);
    if (err == MPI_SUCCESS) {
        MPI_Type_get_attr(MPI_INT, kt, &v, &flag);
        CHECK(flag && v == (void *)3L, "type attribute %p", v);
        MPI_Type_delete_attr(MPI_INT, kt);
        CHECK(tdel_called == 1, "type delete callback: %d", tdel_called);
        MPI_Type_get_attr(MPI_INT, kt, &v, &flag);
        CHECK(!flag, "type attribute not deleted");
    } else {
        CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "type attr: class %d",
              mtest_error_class(err));
    }
    err = MPI_Type_set_attr(MPI_INT, k[0], NULL);
    CHECK(err != MPI_SUCCESS, "communicator keyval on a datatype accepted");
    MPI_Type_free_keyval(&kt);
    err = MPI_Comm_get_attr(dup, 0x12345678, &v, &flag);
    CHECK(mtest_error_class(err) == MPI_ERR_KEYVAL, "bogus keyval: class %d",
          mtest_error_class(err));
    MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&k[0]);
    MPI_Comm_free_keyval(&k[2]);
    MPI_Comm_free_keyval(&knull);
    MPI_Comm_free_keyval(&kdup);

    /* MPI_COMM_SELF: three attributes whose deletes MPI_Finalize runs */
    for (int i = 0; i < 3; i++) {
        int ks;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &ks, (void *)(long)(i + 1));
        MPI_Comm_set_attr(MPI_COMM_SELF, ks, NULL);
        MPI_Comm_free_keyval(&ks);
    }
    CHECK(nself == 0, "self deletes ran early");
    /* mtest_finish finalizes after printing; check the order here by hand */
    {
        int total = mtest_errors, e;
        if (rank == 0) {
            for (int i = 1; i < size; i++) {
                MPI_Recv(&e, 1, MPI_INT, i, 32767, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                total += e;
            }
        } else {
            MPI_Send(&mtest_errors, 1, MPI_INT, 0, 32767, MPI_COMM_WORLD);
        }
        MPI_Finalize();
        if (nself != 3 || self_order[0] != 3 || self_order[1] != 2 || self_order[2] != 1) {
            fprintf(stderr, "[rank %d] MPI_COMM_SELF deletes: %d calls, order %d %d %d\n", rank,
                    nself, self_order[0], self_order[1], self_order[2]);
            total++;
        }
        if (self_finalized) {
            fprintf(stderr, "[rank %d] MPI_Finalized was 1 in %d MPI_COMM_SELF deletes\n", rank,
                    self_finalized);
            total++;
        }
        if (rank == 0)
            printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
        return total != 0;
    }
}
