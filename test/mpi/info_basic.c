/* Info objects: create (also before MPI_Init, as MPI 4.0 allows), set, get,
 * get_valuelen, get_string (truncation and buflen), nkeys/nthkey order,
 * delete, dup, free; MPI_INFO_ENV and MPI_Info_create_env; and the error
 * classes of bad keys, values and objects. */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Info pre, info, dup;
    char key[MPI_MAX_INFO_KEY + 2], val[MPI_MAX_INFO_VAL + 2], longkey[MPI_MAX_INFO_KEY + 8];
    char *longval;
    int flag, n, len, err, buflen;

    /* before MPI_Init */
    err = MPI_Info_create(&pre);
    MPI_Info_set(pre, "early", "bird");

    MPI_Init(&argc, &argv);
    CHECK(err == MPI_SUCCESS, "MPI_Info_create before MPI_Init: %d", err);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info_get(pre, "early", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "bird") == 0, "info made before MPI_Init");
    MPI_Info_free(&pre);
    CHECK(pre == MPI_INFO_NULL, "free did not reset the handle");

    MPI_Info_create(&info);
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 0, "new info has %d keys", n);
    MPI_Info_set(info, "b", "2");
    MPI_Info_set(info, "a", "1");
    MPI_Info_set(info, "c", "three");
    MPI_Info_set(info, "a", "one"); /* replaces, keeps its place */
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 3, "nkeys %d", n);
    MPI_Info_get_nthkey(info, 0, key);
    CHECK(strcmp(key, "b") == 0, "key 0 is \"%s\"", key);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK(strcmp(key, "a") == 0, "key 1 is \"%s\"", key);
    MPI_Info_get(info, "a", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "one") == 0, "a = \"%s\"", val);
    MPI_Info_get(info, "zz", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(!flag, "missing key found");
    MPI_Info_get_valuelen(info, "c", &len, &flag);
    CHECK(flag && len == 5, "valuelen %d", len);
    /* MPI_Info_get with a short valuelen truncates */
    MPI_Info_get(info, "c", 2, val, &flag);
    CHECK(flag && strcmp(val, "th") == 0, "truncated get \"%s\"", val);
    /* get_string */
    buflen = 3;
    MPI_Info_get_string(info, "c", &buflen, val, &flag);
    CHECK(flag && buflen == 6 && strcmp(val, "th") == 0, "get_string short: %d \"%s\"", buflen,
          val);
    buflen = 0;
    MPI_Info_get_string(info, "c", &buflen, NULL, &flag);
    CHECK(flag && buflen == 6, "get_string length query %d", buflen);
    buflen = sizeof val;
    MPI_Info_get_string(info, "c", &buflen, val, &flag);
    CHECK(flag && buflen == 6 && strcmp(val, "three") == 0, "get_string full");
    buflen = 17;
    MPI_Info_get_string(info, "nope", &buflen, val, &flag);
    CHECK(!flag && buflen == 17, "get_string of a missing key");

    /* dup is deep */
    MPI_Info_dup(info, &dup);
    MPI_Info_delete(info, "b");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "after delete: %d keys", n);
    MPI_Info_get_nkeys(dup, &n);
    CHECK(n == 3, "dup: %d keys", n);
    MPI_Info_get(dup, "b", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "2") == 0, "dup lost b");
    MPI_Info_free(&dup);

    /* limits: a key of MPI_MAX_INFO_KEY characters is fine, one more is not */
    memset(longkey, 'k', MPI_MAX_INFO_KEY);
    longkey[MPI_MAX_INFO_KEY] = '\0';
    err = MPI_Info_set(info, longkey, "v");
    CHECK(err == MPI_SUCCESS, "longest key refused: %d", err);
    MPI_Info_get_nthkey(info, 2, key);
    CHECK(strlen(key) == MPI_MAX_INFO_KEY, "longest key came back with %zu chars", strlen(key));
    longkey[MPI_MAX_INFO_KEY] = 'k';
    longkey[MPI_MAX_INFO_KEY + 1] = '\0';
    err = MPI_Info_set(info, longkey, "v");
    CHECK(mtest_error_class(err) == MPI_ERR_INFO_KEY, "key too long: class %d",
          mtest_error_class(err));
    err = MPI_Info_set(info, "", "v");
    CHECK(mtest_error_class(err) == MPI_ERR_INFO_KEY, "empty key: class %d",
          mtest_error_class(err));
    longval = malloc(MPI_MAX_INFO_VAL + 2);
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL + 1] = '\0';
    err = MPI_Info_set(info, "k", longval);
    CHECK(mtest_error_class(err) == MPI_ERR_INFO_VALUE, "value too long: class %d",
          mtest_error_class(err));
    longval[MPI_MAX_INFO_VAL] = '\0';
    err = MPI_Info_set(info, "k", longval);
    CHECK(err == MPI_SUCCESS, "longest value refused");
    free(longval);
    err = MPI_Info_delete(info, "not-there");
    CHECK(mtest_error_class(err) == MPI_ERR_INFO_NOKEY, "delete missing: class %d",
          mtest_error_class(err));
    err = MPI_Info_get_nthkey(info, 99, key);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "nthkey out of range: class %d",
          mtest_error_class(err));
    err = MPI_Info_get(info, "a", -1, val, &flag);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "negative valuelen: class %d",
          mtest_error_class(err));
    err = MPI_Info_set(MPI_INFO_NULL, "a", "b");
    CHECK(mtest_error_class(err) == MPI_ERR_INFO, "MPI_INFO_NULL: class %d",
          mtest_error_class(err));
    MPI_Info_free(&info);
    err = MPI_Info_get_nkeys(info, &n);
    CHECK(mtest_error_class(err) == MPI_ERR_INFO, "freed info: class %d", mtest_error_class(err));

    /* MPI_INFO_ENV */
    MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strstr(val, "info_basic") != NULL, "command \"%s\"", flag ? val : "");
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag);
    {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK(flag && atoi(val) == size, "maxprocs \"%s\"", flag ? val : "");
    }
    MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strncmp(val, "MPI_THREAD_", 11) == 0, "thread_level");
    MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && val[0] == '/', "wdir");
    err = MPI_Info_set(MPI_INFO_ENV, "x", "y");
    CHECK(err != MPI_SUCCESS, "MPI_INFO_ENV is writable");
    {
        MPI_Info env = MPI_INFO_ENV;
        err = MPI_Info_free(&env);
        CHECK(err != MPI_SUCCESS, "MPI_INFO_ENV could be freed");
    }
    MPI_Info_dup(MPI_INFO_ENV, &dup);
    MPI_Info_set(dup, "x", "y"); /* a copy is an ordinary info */
    MPI_Info_free(&dup);
    {
        char *args[] = {"prog", "-a", "b c", NULL};
        MPI_Info_create_env(3, args, &dup);
        MPI_Info_get(dup, "command", MPI_MAX_INFO_VAL, val, &flag);
        CHECK(flag && strcmp(val, "prog") == 0, "create_env command \"%s\"", val);
        MPI_Info_get(dup, "argv", MPI_MAX_INFO_VAL, val, &flag);
        CHECK(flag && strcmp(val, "-a b c") == 0, "create_env argv \"%s\"", val);
        MPI_Info_free(&dup);
    }
    return mtest_finish();
}
