/*
 * Datatypes through the MPI interface on one process: constructors and
 * their sizes and bounds, envelope/contents decoding (int and large-count
 * forms), names, dup with attributes, free, match_size, Fortran 90 types,
 * MPI_Pack/Unpack and external32, MPI_Reduce_local with every predefined
 * operation class and a user operation, and the error classes of bad input.
 */
#include "mtest.h"

static int copied;
static int copy_fn(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)inout)[i] * 10 + ((int *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Datatype v, s, r, sub, d, c, types[4];
    int ni, na, nd, comb, ints[32], size, len, kv, flag, err;
    MPI_Aint addrs[8], lb, ext;
    MPI_Count nci, nca, ncc, ncd, counts[8];
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* vector and its envelope */
    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    MPI_Type_size(v, &size);
    MPI_Type_get_extent(v, &lb, &ext);
    CHECK(size == 24 && lb == 0 && ext == 40, "vector size %d lb %ld extent %ld", size, (long)lb,
          (long)ext);
    MPI_Type_get_envelope(v, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    MPI_Type_get_contents(v, 3, 0, 1, ints, addrs, types);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && types[0] == MPI_INT, "vector contents");

    /* struct of the vector: contents hand out a new handle equal to v */
    {
        int bl[3] = {1, 1, 1};
        MPI_Aint ds[3] = {0, 48, 100};
        MPI_Datatype ts[3] = {MPI_CHAR, v, MPI_DOUBLE};
        MPI_Datatype got[3];
        MPI_Type_create_struct(3, bl, ds, ts, &s);
        MPI_Type_get_envelope(s, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3, "struct envelope");
        MPI_Type_get_contents(s, 4, 3, 3, ints, addrs, got);
        CHECK(got[0] == MPI_CHAR && got[2] == MPI_DOUBLE, "struct contents builtins");
        MPI_Type_get_envelope(got[1], &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_VECTOR && ni == 3, "decoded child is a vector (%d)", comb);
        MPI_Type_get_contents(got[1], 3, 0, 1, ints, addrs, types);
        CHECK(ints[1] == 2 && types[0] == MPI_INT, "decoded child contents");
        MPI_Type_free(&got[1]);
        err = MPI_Type_get_contents(s, 2, 3, 3, ints, addrs, got);
        CHECK(mtest_error_class(err) == MPI_ERR_OTHER, "too small contents arrays: %d", err);
        MPI_Type_size(s, &size);
        MPI_Type_get_extent(s, &lb, &ext);
        CHECK(size == 1 + 24 + 8 && lb == 0 && ext == 112, "struct size %d extent %ld", size,
              (long)ext);
    }
    err = MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, types);
    CHECK(err != MPI_SUCCESS, "contents of a predefined type must fail");
    MPI_Type_get_envelope(MPI_DOUBLE_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0, "MPI_DOUBLE_INT is named");

    /* large-count constructors keep their counts as large counts */
    {
        MPI_Count bl[2] = {2, 3}, ds[2] = {0, 100};
        MPI_Datatype h;
        MPI_Type_create_hindexed_c(2, bl, ds, MPI_INT, &h);
        MPI_Type_get_envelope_c(h, &nci, &nca, &ncc, &ncd, &comb);
        CHECK(comb == MPI_COMBINER_HINDEXED && nci == 0 && nca == 0 && ncc == 5 && ncd == 1,
              "hindexed_c envelope %ld %ld %ld %ld", (long)nci, (long)nca, (long)ncc, (long)ncd);
        MPI_Type_get_contents_c(h, 0, 0, 5, 1, ints, addrs, counts, types);
        CHECK(counts[0] == 2 && counts[1] == 2 && counts[2] == 3 && counts[4] == 100,
              "hindexed_c contents");
        err = MPI_Type_get_envelope(h, &ni, &na, &nd, &comb);
        CHECK(err != MPI_SUCCESS, "int envelope of a large-count type must fail");
        MPI_Type_free(&h);
    }

    /* resized, subarray, darray sizes */
    MPI_Type_create_resized(MPI_INT, -4, 12, &r);
    MPI_Type_get_extent(r, &lb, &ext);
    CHECK(lb == -4 && ext == 12, "resized");
    {
        int sizes[2] = {4, 5}, subs[2] = {2, 3}, starts[2] = {1, 2};
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
        MPI_Type_get_true_extent(sub, &lb, &ext);
        CHECK(lb == 28 && ext == 32, "subarray true extent %ld %ld", (long)lb, (long)ext);
        MPI_Type_get_envelope(sub, &ni, &na, &nd, &comb);
        MPI_Type_get_contents(sub, 32, 0, 1, ints, addrs, types);
        CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && ints[7] == MPI_ORDER_C, "subarray env");
        subs[0] = 9;
        err = MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &d);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "bad subarray: %d", err);
    }
    {
        int gs[1] = {10}, di[1] = {MPI_DISTRIBUTE_CYCLIC}, da[1] = {2}, ps[1] = {3};
        MPI_Type_create_darray(3, 0, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &d);
        MPI_Type_size(d, &size);
        MPI_Type_get_extent(d, &lb, &ext);
        CHECK(size == 16 && ext == 40, "darray size %d ext %ld", size, (long)ext);
        MPI_Type_get_envelope(d, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 8, "darray envelope %d", ni);
        MPI_Type_free(&d);
    }

    /* names */
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    CHECK(strcmp(name, "MPI_DOUBLE") == 0, "builtin name %s", name);
    MPI_Type_set_name(v, "my vector");
    MPI_Type_get_name(v, name, &len);
    CHECK(strcmp(name, "my vector") == 0 && len == 9, "set name");

    /* dup copies attributes through the copy callback */
    MPI_Type_create_keyval(copy_fn, MPI_TYPE_NULL_DELETE_FN, &kv, NULL);
    MPI_Type_set_attr(v, kv, (void *)(long)42);
    MPI_Type_dup(v, &c);
    {
        void *val;
        MPI_Type_get_attr(c, kv, &val, &flag);
        CHECK(flag && (long)val == 42 && copied == 1, "dup attribute");
    }
    MPI_Type_get_envelope(c, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup envelope");

    /* free: predefined types cannot be */
    {
        MPI_Datatype t = MPI_INT;
        err = MPI_Type_free(&t);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "free of MPI_INT: %d", err);
        t = MPI_FLOAT_INT;
        err = MPI_Type_free(&t);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "free of MPI_FLOAT_INT: %d", err);
    }
    /* bad input */
    err = MPI_Type_contiguous(-1, MPI_INT, &d);
    CHECK(mtest_error_class(err) == MPI_ERR_COUNT, "negative count: %d", err);
    err = MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &d);
    CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "null oldtype: %d", err);
    err = MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &d);
    if (err == MPI_SUCCESS) {
        MPI_Datatype big;
        err = MPI_Type_contiguous(1 << 30, d, &big);
        CHECK(err != MPI_SUCCESS, "a type of 2^63 bytes must be refused");
        MPI_Type_free(&d);
    }
    {
        int bl[2] = {1, -1};
        int ds[2] = {0, 1};
        err = MPI_Type_indexed(2, bl, ds, MPI_INT, &d);
        CHECK(mtest_error_class(err) == MPI_ERR_COUNT, "negative blocklength: %d", err);
    }

    /* match_size and Fortran 90 types */
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &d);
    CHECK(d == MPI_REAL8, "match_size real 8");
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &d);
    CHECK(d == MPI_INTEGER4, "match_size integer 4");
    {
        MPI_Datatype f1, f2;
        MPI_Type_create_f90_real(10, 100, &f1);
        MPI_Type_create_f90_real(10, 100, &f2);
        MPI_Type_size(f1, &size);
        CHECK(f1 == f2 && size == 8, "f90 real cached, size %d", size);
        MPI_Type_get_envelope(f1, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && nd == 0, "f90 envelope");
        MPI_Type_get_contents(f1, 2, 0, 0, ints, addrs, types);
        CHECK(ints[0] == 10 && ints[1] == 100, "f90 contents");
        err = MPI_Type_free(&f1);
        CHECK(err != MPI_SUCCESS, "f90 types cannot be freed");
        MPI_Type_create_f90_integer(9, &f1);
        MPI_Type_size(f1, &size);
        CHECK(size == 4, "f90 integer(9) size %d", size);
    }

    /* pack / unpack */
    MPI_Type_commit(&v);
    {
        int buf[20], back[20], pos = 0, psize;
        char packed[256];
        for (int i = 0; i < 20; i++)
            buf[i] = i;
        MPI_Pack_size(2, v, MPI_COMM_WORLD, &psize);
        CHECK(psize == 48, "pack size %d", psize);
        MPI_Pack(buf, 1, v, packed, sizeof packed, &pos, MPI_COMM_WORLD);
        MPI_Pack(&buf[19], 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
        CHECK(pos == 28, "position %d", pos);
        memset(back, 0, sizeof back);
        pos = 0;
        MPI_Unpack(packed, 28, &pos, back, 1, v, MPI_COMM_WORLD);
        CHECK(back[0] == 0 && back[1] == 1 && back[4] == 4 && back[9] == 9 && back[2] == 0,
              "unpacked");
        pos = 0;
        err = MPI_Pack(buf, 1, v, packed, 20, &pos, MPI_COMM_WORLD);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "pack buffer too small: %d", err);
        pos = 0;
        err = MPI_Unpack(packed, 20, &pos, back, 1, v, MPI_COMM_WORLD);
        CHECK(err == MPI_SUCCESS && pos == 20 && back[0] == 0 && back[8] == 8, "short input: partial unpack (pos %d)", pos);
    }
    {
        MPI_Datatype nc;
        int pos = 0;
        char packed[64];
        MPI_Type_contiguous(2, MPI_INT, &nc);
        err = MPI_Pack(packed, 1, nc, packed + 8, 32, &pos, MPI_COMM_WORLD);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE, "uncommitted type: %d", err);
        MPI_Type_free(&nc);
    }
    {
        int x[2] = {1, 0x01020304};
        unsigned char out[8];
        MPI_Aint pos = 0, xs;
        MPI_Pack_external_size("external32", 2, MPI_INT, &xs);
        MPI_Pack_external("external32", x, 2, MPI_INT, out, 8, &pos);
        CHECK(xs == 8 && pos == 8 && out[3] == 1 && out[4] == 1 && out[7] == 4, "external32");
        pos = 0;
        x[0] = x[1] = 0;
        MPI_Unpack_external("external32", out, 8, &pos, x, 2, MPI_INT);
        CHECK(x[0] == 1 && x[1] == 0x01020304, "external32 back");
        err = MPI_Pack_external("native", x, 2, MPI_INT, out, 8, &pos);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "bad datarep");
    }

    /* Reduce_local */
    {
        int a[3] = {1, 5, 3}, b[3] = {4, 2, 3};
        MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX);
        CHECK(b[0] == 4 && b[1] == 5 && b[2] == 3, "max");
        MPI_Reduce_local(a, b, 3, MPI_INT, MPI_BXOR);
        CHECK(b[0] == 5 && b[1] == 0 && b[2] == 0, "bxor");
        double x[2] = {1.5, 2}, y[2] = {2, 2};
        MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_PROD);
        CHECK(y[0] == 3 && y[1] == 4, "prod");
        err = MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_BAND);
        CHECK(mtest_error_class(err) == MPI_ERR_OP, "band on double: %d", err);
        struct { double v; int i; } p[2] = {{1, 7}, {3, 1}}, q[2] = {{1, 2}, {2, 9}};
        MPI_Reduce_local(p, q, 2, MPI_DOUBLE_INT, MPI_MAXLOC);
        CHECK(q[0].v == 1 && q[0].i == 2 && q[1].v == 3 && q[1].i == 1, "maxloc");
        MPI_Op op;
        int commute;
        MPI_Op_create(user_sum, 0, &op);
        MPI_Op_commutative(op, &commute);
        CHECK(!commute, "user op not commutative");
        MPI_Reduce_local(a, b, 3, MPI_INT, op);
        CHECK(b[0] == 51 && b[1] == 5 && b[2] == 3, "user op %d %d %d", b[0], b[1], b[2]);
        MPI_Reduce_local(a, b, 1, v, op); /* derived type: elements 0,1,4,5,8,9 */
        MPI_Op_free(&op);
        CHECK(op == MPI_OP_NULL, "op freed");
        err = MPI_Op_free(&op);
        CHECK(mtest_error_class(err) == MPI_ERR_OP, "free of MPI_OP_NULL");
        op = MPI_SUM;
        err = MPI_Op_free(&op);
        CHECK(mtest_error_class(err) == MPI_ERR_OP, "free of MPI_SUM");
        MPI_Op_commutative(MPI_SUM, &commute);
        CHECK(commute, "MPI_SUM commutes");
    }

    MPI_Type_free(&c);
    MPI_Type_free(&v);
    CHECK(v == MPI_DATATYPE_NULL, "freed handle is null");
    MPI_Type_free(&s);
    MPI_Type_free(&r);
    MPI_Type_free(&sub);
    MPI_Type_free_keyval(&kv);
    return mtest_finish();
}
