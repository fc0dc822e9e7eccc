/*
 * LD_PRELOAD shim that prints, at MPI_Finalize, how many messages each rank
 * received and how many of them arrived before their receive (Canal's MPI_T
 * counters canal_unexpected_messages and canal_<channel>_messages_received),
 * so that an unmodified benchmark (the real OSU, IMB) says what share of its
 * messages paid the unexpected queue in a run without any instrumentation:
 * the counters are always kept, the shim only reads them once at the end.
 *
 * Build with Canal's (or MPICH's: the ABI agrees) header:
 *   mpicc.mpich -shared -fPIC -o unexp_preload.so bench/unexp_preload.c
 * Run: mpiexec -n 2 env LD_PRELOAD=$PWD/unexp_preload.so ./osu_bibw -m 8:8
 * Each rank prints "# unexp_preload: rank R: U unexpected of M received
 * (P%)" to stderr; a library without the counter prints that it has none.
 */
#include <mpi.h>
#include <stdio.h>

static const char *const names[] = {"canal_unexpected_messages",
                                     "canal_self_messages_received",
                                     "canal_shm_messages_received",
                                     "canal_sock_messages_received",
                                     "canal_ofi_messages_received"};
enum { NNAMES = sizeof names / sizeof names[0] };
static MPI_T_pvar_session ses;
static MPI_T_pvar_handle hnd[NNAMES];
static int have[NNAMES], started;

/* Counters count from their start: start them all once MPI is up. */
static void counters_start(void)
{
    int provided, idx, count;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_pvar_session_create(&ses) != MPI_SUCCESS)
        return;
    started = 1;
    for (int i = 0; i < NNAMES; i++)
        have[i] = MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS &&
                  MPI_T_pvar_handle_alloc(ses, idx, NULL, &hnd[i], &count) == MPI_SUCCESS &&
                  count == 1 && MPI_T_pvar_start(ses, hnd[i]) == MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);

    if (rc == MPI_SUCCESS)
        counters_start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);

    if (rc == MPI_SUCCESS)
        counters_start();
    return rc;
}

int MPI_Finalize(void)
{
    unsigned long long v[NNAMES] = {0}, recvd = 0;
    int rank = 0;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (started) {
        for (int i = 0; i < NNAMES; i++)
            if (have[i] && MPI_T_pvar_read(ses, hnd[i], &v[i]) != MPI_SUCCESS)
                have[i] = 0;
        for (int i = 1; i < NNAMES; i++)
            recvd += v[i];
        if (!have[0])
            fprintf(stderr, "# unexp_preload: rank %d: no canal_unexpected_messages counter\n",
                    rank);
        else
            fprintf(stderr,
                    "# unexp_preload: rank %d: %llu unexpected of %llu received (%.1f%%)\n", rank,
                    v[0], recvd, recvd > 0 ? 100.0 * (double)v[0] / (double)recvd : 0.0);
        MPI_T_pvar_session_free(&ses);
        MPI_T_finalize();
    }
    return PMPI_Finalize();
}
