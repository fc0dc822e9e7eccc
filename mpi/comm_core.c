/*
 * The predefined communicators and the handle lookup every other file uses
 * (mpi_comm_get). MPI_COMM_WORLD has context 0 (collectives 1) and
 * MPI_COMM_SELF context 2 (collectives 3); mpi/comm.c allocates the rest.
 * Their error handler is the initial one (mpi/envkeys.c); their memory
 * allocation kinds, which no info of theirs holds, the launch request's.
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>
#include <string.h>

mpi_comm_t mpi_comm_world_obj;
mpi_comm_t mpi_comm_self_obj;
static int self_job_rank;

int mpi_comm_init_builtin(void)
{
    mpi_comm_t *w = &mpi_comm_world_obj, *s = &mpi_comm_self_obj;

    memset(w, 0, sizeof *w);
    w->handle = MPI_COMM_WORLD;
    w->refcount = 1;
    w->context = 0;
    w->rank = mpi_pmi.rank;
    w->size = mpi_pmi.size;
    w->peer_size = mpi_pmi.size;
    /* MPI_ERRORS_ARE_FATAL unless the launch asked for another (mpiexec
     * -initial-errhandler, a spawn's mpi_initial_errhandler key). */
    w->errhandler = mpi_initial_errhandler();
    w->errh_default = 1;
    w->info = MPI_INFO_NULL;
    strcpy(w->name, "MPI_COMM_WORLD");

    memset(s, 0, sizeof *s);
    s->handle = MPI_COMM_SELF;
    s->refcount = 1;
    s->context = 2;
    s->rank = 0;
    s->size = 1;
    s->peer_size = 1;
    self_job_rank = mpi_pmi.rank;
    s->peer_job_ranks = &self_job_rank;
    s->local_job_ranks = &self_job_rank;
    s->errhandler = w->errhandler;
    s->errh_default = 1;
    s->info = MPI_INFO_NULL;
    strcpy(s->name, "MPI_COMM_SELF");

    /* (the device copies these: nothing to fail on here but memory) */
    if (adi_ctx_set_ranks(w->context, w->size, NULL) != CANAL_OK ||
        adi_ctx_set_ranks(w->context + 1, w->size, NULL) != CANAL_OK ||
        adi_ctx_set_ranks(s->context, 1, s->peer_job_ranks) != CANAL_OK ||
        adi_ctx_set_ranks(s->context + 1, 1, s->peer_job_ranks) != CANAL_OK)
        return MPI_ERR_NO_MEM;
    mpi_handle_builtin(MPI_OBJ_COMM, MPI_COMM_WORLD, w);
    mpi_handle_builtin(MPI_OBJ_COMM, MPI_COMM_SELF, s);
    return MPI_SUCCESS;
}

void mpi_comm_finalize_builtin(void) {}

mpi_comm_t *mpi_comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return &mpi_comm_world_obj;
    return mpi_handle_get(MPI_OBJ_COMM, h);
}

int mpi_comm_rank_impl(mpi_comm_t *c, int *rank, const char *fn)
{
    (void)fn;
    *rank = c->rank;
    return MPI_SUCCESS;
}

int mpi_comm_size_impl(mpi_comm_t *c, int *size, const char *fn)
{
    (void)fn;
    *size = c->size;
    return MPI_SUCCESS;
}
