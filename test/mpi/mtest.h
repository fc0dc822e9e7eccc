/*
 * The one helper header of Canal's MPI test programs (the .c programs of test/mpi).
 *   CHECK(cond, fmt...)  records a failure with its file, line and condition
 *                        (the first 20 are printed; all are counted);
 *   OK(call)             CHECKs that an MPI call returned MPI_SUCCESS and
 *                        prints its error string if not;
 *   mtest_init()         MPI_Init, mtest_rank/mtest_size, and MPI_ERRORS_RETURN
 *                        on MPI_COMM_WORLD and MPI_COMM_SELF (for tests that
 *                        check every call with OK);
 *   mtest_init_thread()  the same with MPI_Init_thread at a required level;
 *                        returns the level provided;
 *   mtest_finish()       adds up the failures of all ranks by point to point
 *                        (so that a broken collective cannot hide its own
 *                        failure), prints "No Errors" from rank 0 when there
 *                        were none (the MPICH test-suite convention the runner
 *                        looks for), finalizes and returns the exit status;
 *   mtest_unsupported(), mtest_skipped(): parts whose MPI functions this build
 *                        does not provide;
 *   mtest_counter(name)  the value of a Canal MPI_T counter (a session and a
 *                        started handle per name, made on first use; OK
 *                        checks each call);
 *   mtest_cvar(name)     the value of an integer MPI_T control variable.
 */
#ifndef CANAL_MTEST_H
#define CANAL_MTEST_H

#include <dirent.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mtest_errors __attribute__((unused));
static int mtest_rank __attribute__((unused)), mtest_size __attribute__((unused));

static inline void mtest_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void mtest_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    int rank = -1, up = 0, down = 0;

    if (++mtest_errors > 20)
        return;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", rank, file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            mtest_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);                                 \
    } while (0)

static inline void mtest_ok_at(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    mtest_fail_at(file, line, call, "failed: %s", msg);
}

#define OK(call) mtest_ok_at((call), #call, __FILE__, __LINE__)

/* What mtest_init and mtest_init_thread do once MPI runs. */
static inline void mtest_setup(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static inline void mtest_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    mtest_setup();
}

static inline int mtest_init_thread(int *argc, char ***argv, int required)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, required, &provided);
    mtest_setup();
    return provided;
}

static inline int mtest_error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

/* An error of class cls was expected from what returned code. */
#define EXPECT_CLASS(code, cls, what) mtest_expect_class_at((code), (cls), (what), __FILE__, __LINE__)
static inline void mtest_expect_class_at(int code, int cls, const char *what, const char *file,
                                         int line)
{
    if (code == MPI_SUCCESS)
        mtest_fail_at(file, line, what, "succeeded, expected error class %d", cls);
    else if (mtest_error_class(code) != cls)
        mtest_fail_at(file, line, what, "error class %d, expected %d", mtest_error_class(code), cls);
}

/* Returns the exit status: 0 when no rank found an error. */
/* The threads of this process now (a library's progress thread shows here);
 * -1 when /proc is not readable. */
static inline int mtest_count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static inline int mtest_finish(void)
{
    int total = mtest_errors, rank, size, e;
    /* point to point only, so that these tests do not depend on collectives */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Recv(&e, 1, MPI_INT, i, 32767, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += e;
        }
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    } else {
        MPI_Send(&mtest_errors, 1, MPI_INT, 0, 32767, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total != 0 || mtest_errors != 0;
}

/* Does this build provide the function? (Call it with MPI_ERRORS_RETURN
 * set; an unimplemented function fails with MPI_ERR_UNSUPPORTED_OPERATION.) */
static inline int mtest_unsupported(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        return 0;
    MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_UNSUPPORTED_OPERATION;
}

/* The value of the integer or size control variable `name` (MPI_T; the
 * caller has called MPI_T_init_thread). */
static inline long long mtest_cvar(const char *name)
{
    int i, count;
    long long v = -1;
    MPI_T_cvar_handle h;

    OK(MPI_T_cvar_get_index(name, &i));
    OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    OK(MPI_T_cvar_read(h, &v));
    OK(MPI_T_cvar_handle_free(&h));
    return v;
}

/* The value of the MPI_T counter `name` (MPI_T_PVAR_CLASS_COUNTER, no
 * binding): the first call for a name opens a session and starts a handle,
 * which later calls read. Up to 8 names. */
static inline unsigned long long mtest_counter(const char *name)
{
    static struct {
        const char *name;
        MPI_T_pvar_session ps;
        MPI_T_pvar_handle h;
    } c[8];
    static int n, t_ready;
    unsigned long long v = 0;
    int i, pi, count, prov;

    for (i = 0; i < n && strcmp(c[i].name, name) != 0; i++)
        ;
    if (i == n) {
        if (n == 8) {
            CHECK(0, "mtest_counter: more than 8 counters (%s)", name);
            return 0;
        }
        if (!t_ready) {
            OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
            t_ready = 1;
        }
        OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &pi));
        OK(MPI_T_pvar_session_create(&c[i].ps));
        OK(MPI_T_pvar_handle_alloc(c[i].ps, pi, NULL, &c[i].h, &count));
        OK(MPI_T_pvar_start(c[i].ps, c[i].h));
        c[i].name = name;
        n++;
    }
    OK(MPI_T_pvar_read(c[i].ps, c[i].h, &v));
    return v;
}

/* Note once that part of a test was skipped. */
static inline void mtest_skipped(const char *what)
{
    if (mtest_rank == 0)
        fprintf(stderr, "note: skipped %s (not in this build)\n", what);
}

#endif
