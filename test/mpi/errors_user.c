/*
 * errors_user: user error classes, codes and strings (MPI_Add_error_*) and
 * their removal with MPICH's MPIX_Delete_error_class/code/string, as MPICH's
 * errhan/adderr does: adding and deleting in a loop many more times than
 * the table holds never runs out, strings and classes read back right,
 * MPI_LASTUSEDCODE follows, and wrong deletions (a class that still has
 * codes, a code deleted twice, a predefined class) are MPI_ERR_ARG errors.
 * A code added to a predefined class takes a string.
 */
#include "mtest.h"

enum { NCLASSES = 8, NCODES = 4, ROUNDS = 3000 };

static int lastused(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    return flag ? *v : -1;
}

int main(int argc, char **argv)
{
    int cls[NCLASSES], code[NCLASSES][NCODES], i, j, k, err, out, len, base;
    char s[MPI_MAX_ERROR_STRING], got[MPI_MAX_ERROR_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    base = lastused();

    for (k = 0; k < ROUNDS; k++) {
        for (i = 0; i < NCLASSES; i++) {
            err = MPI_Add_error_class(&cls[i]);
            CHECK(err == MPI_SUCCESS, "round %d: MPI_Add_error_class failed", k);
            for (j = 0; j < NCODES; j++) {
                err = MPI_Add_error_code(cls[i], &code[i][j]);
                CHECK(err == MPI_SUCCESS, "round %d: MPI_Add_error_code failed", k);
                MPI_Add_error_string(code[i][j], "scratch");
            }
        }
        for (i = 0; i < NCLASSES; i++) {
            for (j = 0; j < NCODES; j++) {
                CHECK(MPIX_Delete_error_string(code[i][j]) == MPI_SUCCESS, "delete string");
                CHECK(MPIX_Delete_error_code(code[i][j]) == MPI_SUCCESS, "delete code");
            }
            CHECK(MPIX_Delete_error_class(cls[i]) == MPI_SUCCESS, "delete class");
        }
        if (mtest_errors)
            break;
    }
    CHECK(lastused() == base, "MPI_LASTUSEDCODE is %d after deleting everything, was %d",
          lastused(), base);

    /* What stays must read back. */
    for (i = 0; i < NCLASSES; i++) {
        MPI_Add_error_class(&cls[i]);
        for (j = 0; j < NCODES; j++) {
            MPI_Add_error_code(cls[i], &code[i][j]);
            snprintf(s, sizeof s, "class %d code %d", i, j);
            MPI_Add_error_string(code[i][j], s);
        }
    }
    for (i = 0; i < NCLASSES; i++)
        for (j = 0; j < NCODES; j++) {
            MPI_Error_class(code[i][j], &out);
            CHECK(out == cls[i], "code %d has class %d, expected %d", code[i][j], out, cls[i]);
            snprintf(s, sizeof s, "class %d code %d", i, j);
            MPI_Error_string(code[i][j], got, &len);
            CHECK(strcmp(s, got) == 0, "string of code %d is '%s', expected '%s'", code[i][j],
                  got, s);
        }
    CHECK(lastused() >= code[NCLASSES - 1][NCODES - 1], "MPI_LASTUSEDCODE %d below code %d",
          lastused(), code[NCLASSES - 1][NCODES - 1]);

    /* A code of a predefined class takes a string too (MPI 4.0 9.5). */
    {
        int pcode;
        CHECK(MPI_Add_error_code(MPI_ERR_UNSUPPORTED_OPERATION, &pcode) == MPI_SUCCESS,
              "MPI_Add_error_code of a predefined class");
        err = MPI_Add_error_string(pcode, "predefined class, user code");
        CHECK(err == MPI_SUCCESS, "MPI_Add_error_string of a predefined class's code gave %d", err);
        MPI_Error_string(pcode, got, &len);
        CHECK(strcmp(got, "predefined class, user code") == 0, "its string reads '%s'", got);
        MPI_Error_class(pcode, &out);
        CHECK(out == MPI_ERR_UNSUPPORTED_OPERATION, "its class is %d", out);
        CHECK(MPIX_Delete_error_code(pcode) == MPI_SUCCESS, "delete it");
    }

    /* Wrong deletions. */
    err = MPIX_Delete_error_class(cls[0]);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "deleting a class with codes gave %d", err);
    err = MPIX_Delete_error_class(code[0][0]);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "deleting a code as a class gave %d", err);
    err = MPIX_Delete_error_code(cls[0]);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "deleting a class as a code gave %d", err);
    err = MPIX_Delete_error_class(MPI_ERR_TYPE);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "deleting MPI_ERR_TYPE gave %d", err);
    CHECK(MPIX_Delete_error_string(code[0][1]) == MPI_SUCCESS, "delete string");
    MPI_Error_string(code[0][1], got, &len);
    CHECK(len == 0, "deleted string reads '%s'", got);
    CHECK(MPIX_Delete_error_code(code[0][1]) == MPI_SUCCESS, "delete code");
    err = MPIX_Delete_error_code(code[0][1]);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "deleting a code twice gave %d", err);
    err = MPI_Error_class(code[0][1], &out);
    CHECK(err != MPI_SUCCESS, "MPI_Error_class accepted a deleted code");

    return mtest_finish();
}
