/*
 * What the tests of MPICH's error classes share (err_check_order,
 * err_zero_count): errs, the number of calls that returned another class
 * than expected, and expect(call, err, want), which counts and prints a call
 * whose error code err is not of class want (MPI_SUCCESS: no error). The
 * calls run under MPI_ERRORS_RETURN. Include after mpi.h and stdio.h.
 */
#ifndef ERR_CLASS_EXPECT_H
#define ERR_CLASS_EXPECT_H

static int errs;

static void expect(const char *call, int err, int want)
{
    int cls = MPI_SUCCESS;
    char got[MPI_MAX_ERROR_STRING], wanted[MPI_MAX_ERROR_STRING];
    int len;

    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    if (cls == want)
        return;
    errs++;
    got[0] = wanted[0] = '\0';
    if (err != MPI_SUCCESS)
        MPI_Error_string(err, got, &len);
    if (want != MPI_SUCCESS)
        MPI_Error_string(want, wanted, &len);
    printf("%s: class %d (%s), expected %d (%s)\n", call, cls, cls ? got : "MPI_SUCCESS", want,
           want ? wanted : "MPI_SUCCESS");
}

#endif
