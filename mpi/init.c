/*
 * Starting and ending MPI (MPI 4.0 chapter 11.2 and the environmental
 * inquiries of chapter 9): MPI_Init(_thread), MPI_Finalize, MPI_Abort, the
 * version and processor-name queries and the clock. MPI_Init brings the
 * layers up bottom to top: logging and configuration, PMI, the builtin
 * objects of mpi/, then the device with its channels.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"
#include "dyn/dyn.h"

#include "common/clock.h"
#include "common/cvar.h"
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

mpi_state_t mpi_state = MPI_STATE_PRE_INIT;
mpi_state_t mpi_world_state = MPI_STATE_PRE_INIT;
int mpi_abi_standard;
int mpi_thread_level = MPI_THREAD_SINGLE;
pmi_info_t mpi_pmi;
static pthread_t main_thread;

typedef struct init_hook {
    int (*init)(void);
    void (*finalize)(void);
} init_hook_t;

/* Layers above the device (collectives, RMA, ...) register here so that
 * init.c need not know them; called in order at init, reversed at finalize. */
enum { MAX_HOOKS = 16 };
static init_hook_t hooks[MAX_HOOKS];
static int nhooks;

void mpi_register_hook(int (*init)(void), void (*finalize)(void))
{
    if (nhooks < MAX_HOOKS) {
        hooks[nhooks].init = init;
        hooks[nhooks].finalize = finalize;
        nhooks++;
    }
}

/* Printed by rank 0 with CANAL_SUMMARY=1; coll/ adds its selection table
 * (weak: the library also links without the collectives' summary). */
void coll_select_describe(FILE *f) __attribute__((weak));

static void print_summary(void)
{
    char dev[2048];
    adi_describe(dev, sizeof dev);
    fprintf(stderr,
            "canal: %s, %d ranks on %d node(s), %d on this node, thread level %d\n"
            "canal: PMI: %s\n%s",
            CANAL_VERSION, mpi_pmi.size, mpi_pmi.nnodes, mpi_pmi.local_size, mpi_thread_level,
            pmi_describe(), dev);
    if (coll_select_describe != NULL)
        coll_select_describe(stderr);
}

int mpi_init_process(int required, int *provided, const char *fn)
{
    canal_status_t st;
    int code;

    if (mpi_state != MPI_STATE_PRE_INIT) {
        code = mpi_err_code_new(MPI_ERR_OTHER, fn,
                                mpi_state == MPI_STATE_INITIALIZED ? "MPI is already initialized"
                                                                   : "MPI was already finalized");
        mpi_err_fatal(code, fn);
    }
    common_log_set_level((int)common_cvar_int("DEBUG"));
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_MULTIPLE < required ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    mpi_thread_level = required;
    main_thread = pthread_self();

    st = pmi_init(&mpi_pmi);
    if (st < 0) {
        fprintf(stderr, "[canal] Fatal error in %s: cannot start: %s\n", fn, common_err_detail());
        exit(1);
    }
    common_log_set_rank(mpi_pmi.rank);
    mpi_errors_init();
    mpi_dt_init();
    if (mpi_comm_init_builtin() != MPI_SUCCESS) {
        fprintf(stderr, "[canal:%d] Fatal error in %s: out of memory\n", mpi_pmi.rank, fn);
        pmi_abort(1, "out of memory in MPI_Init");
        exit(1);
    }
    st = adi_init(&mpi_pmi, mpi_thread_level == MPI_THREAD_MULTIPLE);
    if (st < 0) {
        fprintf(stderr, "[canal:%d] Fatal error in %s: cannot start the device: %s\n",
                mpi_pmi.rank, fn, common_err_detail());
        pmi_abort(1, "device initialization failed");
        exit(1);
    }
    mpi_state = MPI_STATE_INITIALIZED;
    for (int i = 0; i < nhooks; i++) {
        if (hooks[i].init != NULL && (code = hooks[i].init()) != MPI_SUCCESS)
            mpi_err_fatal(code, fn);
    }
    /* A spawned job connects to its parent (dyn/dyn_spawn.c). */
    if ((code = mpi_dyn_init_parent()) != MPI_SUCCESS)
        mpi_err_fatal(code, fn);
    if (provided != NULL)
        *provided = mpi_thread_level;
    if (mpi_pmi.rank == 0 && common_cvar_bool("SUMMARY"))
        print_summary();
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI functions */
/* The implementations of the generated entry points (chapters 9, 11 and
 * MPI_Pcontrol of 15). MPI_Init, MPI_Init_thread and MPI_Finalize are
 * `anytime` entries that keep their own state checks. */
/* MPI_Init and MPI_Init_thread: the World Model starts, and with it the
 * library unless a session started it already (then the thread level is
 * the one the library runs at). */
static int init_world(int required, int *provided, const char *fn)
{
    int err;

    if (mpi_world_state != MPI_STATE_PRE_INIT || mpi_state == MPI_STATE_FINALIZED)
        mpi_err_fatal(mpi_err_code_new(MPI_ERR_OTHER, fn,
                                       mpi_world_state == MPI_STATE_INITIALIZED
                                           ? "MPI is already initialized"
                                           : "MPI was already finalized"),
                      fn);
    if (mpi_state == MPI_STATE_INITIALIZED) {
        if (provided != NULL)
            *provided = mpi_thread_level;
        mpi_world_state = MPI_STATE_INITIALIZED;
        return MPI_SUCCESS;
    }
    if ((err = mpi_init_process(required, provided, fn)) == MPI_SUCCESS)
        mpi_world_state = MPI_STATE_INITIALIZED;
    return err;
}

int mpi_init_impl(int *argc, char ***argv, const char *fn)
{
    const char *env = getenv("MPIR_CVAR_DEFAULT_THREAD_LEVEL");
    int level = MPI_THREAD_SINGLE;
    if (env != NULL && strcmp(env, "MPI_THREAD_MULTIPLE") == 0)
        level = MPI_THREAD_MULTIPLE;
    (void)argc;
    (void)argv;
    return init_world(level, NULL, fn);
}

int mpi_init_thread_impl(int *argc, char ***argv, int required, int *provided, const char *fn)
{
    (void)argc;
    (void)argv;
    return init_world(required, provided, fn);
}

int mpi_finalize_impl(const char *fn)
{
    int err = mpi_enter(fn);
    if (err)
        return err;
    if (mpi_world_state != MPI_STATE_INITIALIZED) /* sessions run, MPI_Init never came */
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn,
                             mpi_world_state == MPI_STATE_FINALIZED
                                 ? "MPI_Finalize was already called"
                                 : "MPI_Init was not called (only sessions are active)");
    return mpi_session_world_finalize(fn);
}

int mpi_finalize_process(const char *fn)
{
    canal_status_t st;

    for (int i = nhooks - 1; i >= 0; i--)
        if (hooks[i].finalize != NULL)
            hooks[i].finalize();
    st = adi_finalize();
    if (st < 0)
        return mpi_err_status(NULL, st, fn);
    mpi_comm_finalize_builtin();
    mpi_state = MPI_STATE_FINALIZED;
    pmi_finalize();
    return MPI_SUCCESS;
}

int mpi_initialized_impl(int *flag, const char *fn)
{
    (void)fn;
    *flag = mpi_world_state != MPI_STATE_PRE_INIT;
    return MPI_SUCCESS;
}

int mpi_finalized_impl(int *flag, const char *fn)
{
    (void)fn;
    *flag = mpi_world_state == MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int mpi_query_thread_impl(int *provided, const char *fn)
{
    (void)fn;
    *provided = mpi_thread_level;
    return MPI_SUCCESS;
}

int mpi_is_thread_main_impl(int *flag, const char *fn)
{
    (void)fn;
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}

int mpi_get_version_impl(int *version, int *subversion, const char *fn)
{
    (void)fn;
    /* the version of the header the program was built with: MPICH 4.0.2's
     * (4.0) for libmpi.so.12, the standard ABI's (5.0) for libmpi_abi.so.1 */
    *version = mpi_abi_standard ? 5 : MPI_VERSION;
    *subversion = mpi_abi_standard ? 0 : MPI_SUBVERSION;
    return MPI_SUCCESS;
}

/* The string starts "MPICH Version:" because tools (Julia's MPI.jl, mpi4py)
 * recognise the MPICH ABI by that prefix; the lines after it say truthfully
 * that this is Canal. */
static const char library_version[] =
    "MPICH Version:\t" MPICH_VERSION "\n"
    "MPICH ABI:\tCanal implements the MPICH " MPICH_VERSION " ABI (libmpi.so.12); it is not MPICH\n"
    "Canal Version:\t" CANAL_VERSION "\n"
    "Canal Channels:\t" CANAL_CHANNELS "\n"
    "Canal Configure:\t" CANAL_CONFIGURE_ARGS;

int mpi_get_library_version_impl(char *version, int *resultlen, const char *fn)
{
    if (version == NULL)
        return mpi_state == MPI_STATE_INITIALIZED
                   ? mpi_err_raise(NULL, MPI_ERR_ARG, fn, "version is NULL")
                   : mpi_err_code_new(MPI_ERR_ARG, fn, "version is NULL");
    if (mpi_abi_standard) /* the standard ABI: no MPICH prefix, tools must not take it for MPICH */
        snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                 "Canal Version:\t" CANAL_VERSION "\n"
                 "Canal ABI:\tMPI 5.0 standard ABI 1.0 (libmpi_abi.so.1)\n"
                 "Canal Channels:\t" CANAL_CHANNELS "\n"
                 "Canal Configure:\t" CANAL_CONFIGURE_ARGS);
    else
        snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", library_version);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int mpi_get_processor_name_impl(char *name, int *resultlen, const char *fn)
{
    if (name == NULL)
        return mpi_state == MPI_STATE_INITIALIZED
                   ? mpi_err_raise(NULL, MPI_ERR_ARG, fn, "name is NULL")
                   : mpi_err_code_new(MPI_ERR_ARG, fn, "name is NULL");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

double mpi_wtime_impl(void)
{
    return common_now_s();
}

double mpi_wtick_impl(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Any communicator handle, at any time: MPI_Abort does not fail. */
int mpi_abort_impl(MPI_Comm comm, int errorcode, const char *fn)
{
    (void)fn;
    char msg[256];
    int rank = mpi_state == MPI_STATE_INITIALIZED ? mpi_pmi.rank : 0;
    int code = errorcode & 0xff;

    mpi_comm_t *c = mpi_state == MPI_STATE_INITIALIZED ? mpi_comm_get(comm) : NULL;

    /* the communicator by name when it has one (MPI_COMM_WORLD, or what
     * MPI_Comm_set_name gave it) */
    if (c != NULL && c->name[0] != '\0')
        snprintf(msg, sizeof msg, "MPI_Abort(comm=%s, errorcode=%d) called by rank %d",
                 c->name, errorcode, rank);
    else
        snprintf(msg, sizeof msg, "MPI_Abort(comm=%#x, errorcode=%d) called by rank %d",
                 (unsigned)comm, errorcode, rank);
    fprintf(stderr, "[canal:%d] %s\n", rank, msg);
    fflush(stderr);
    fflush(stdout);
    if (mpi_state == MPI_STATE_INITIALIZED) /* a singleton's pmi_abort exits */
        pmi_abort(code, msg);
    _exit(code);
}

/* Profiling control: Canal has no built-in profiler, so levels are accepted
 * and ignored, as the standard allows. */
int mpi_pcontrol_impl(const int level, const char *fn)
{
    (void)level;
    (void)fn;
    return MPI_SUCCESS;
}
