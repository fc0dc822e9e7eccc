/*
 * What the files of the "who talks to whom" chapters share among themselves
 * and nobody else needs: the small collective exchanges communicator
 * construction runs over the device (mpi/comm.c), the context agreement,
 * the intercommunicators of dyn/ (dynamic processes) and topology copies
 * (mpi/topo.c); and, through mpi/objects.h, the groups, communicator
 * construction, info and attributes that the MPI-level layers rma/ and io/
 * use too. Other layers use mpiimpl.h (rma/ and io/: mpi/objects.h); this
 * header is included by files of mpi/, dyn/ (whose introductions build
 * communicators with these exchanges) and the group unit test.
 */
#ifndef CANAL_MPI_COMM_IMPL_H
#define CANAL_MPI_COMM_IMPL_H

#include "mpi/objects.h"

/* ---------------------------------------------------------------- exchanges */
/* The processes of one construction step, and how they reach each other: a
 * local group (rank, size, job ranks, the context and tag of its messages,
 * rooted at `root`), and for intercommunicator steps a bridge between the
 * root and the root of another group. Messages go straight to the device, so
 * communicator construction does not depend on coll/. */
typedef struct {
    int rank, size, root;
    const int *job; /* local rank -> job rank, NULL: identity */
    int context, tag;
    int by_job;     /* messages name sender and source by job rank, not local
                     * rank: for domains that are subsets of the communicator
                     * whose context they borrow (MPI_Comm_create_group), where
                     * successive calls over different groups must not take
                     * each other's messages */
    int bridged;
    int b_context, b_tag; /* the bridge between the two roots */
    int b_my_rank;        /* the root's rank as the peer root matches it */
    int b_peer_rank;      /* the peer root's rank, for matching */
    int b_peer_job;       /* the peer root's job rank */
} mpi_dom_t;

/* Tags reserved on collective contexts (context + 1) for these exchanges. */
enum {
    MPI_TAG_CTX_AGREE = 0x3ffffff0,
    MPI_TAG_SPLIT = 0x3ffffff1,
    MPI_TAG_XCHG = 0x3ffffff2,
    MPI_TAG_TOPO = 0x3ffffff3,
};

/* The domain of all members of c (both groups for an intercommunicator). */
void mpi_dom_of_comm(mpi_comm_t *c, int tag, mpi_dom_t *d);
canal_status_t mpi_dom_send(const mpi_dom_t *d, int dest, const void *buf, size_t len);
canal_status_t mpi_dom_recv(const mpi_dom_t *d, int src, void *buf, size_t len);
canal_status_t mpi_dom_bcast(const mpi_dom_t *d, void *buf, size_t len); /* local */
canal_status_t mpi_dom_allgather(const mpi_dom_t *d, const void *mine, void *all, size_t len);
/* Bitwise AND over every process of the domain (both groups if bridged). */
canal_status_t mpi_dom_allreduce_band(const mpi_dom_t *d, uint32_t *words, int n);
/* Byte-oriented all-to-all with per-peer counts and displacements. */
canal_status_t mpi_dom_alltoallv(const mpi_dom_t *d, const void *sbuf, const size_t *scounts,
                                 const size_t *sdispls, void *rbuf, const size_t *rcounts,
                                 const size_t *rdispls);
/* Roots swap a buffer over the bridge; the received one is bcast locally. */
canal_status_t mpi_dom_bridge_swap(const mpi_dom_t *d, const void *mine, size_t mylen,
                                   void **theirs_out, size_t *theirlen_out);

/* A fresh context agreed among the processes of d. */
int mpi_comm_context_agree(const mpi_dom_t *d, int *context_out);

/* ---------------------------------------------------------------- info */
/* mpi/envkeys.c: memory allocation kinds and the initial error handler
 * (mpi_memkinds_of and mpi_memkinds_put are in mpi/objects.h). */
/* "mpi,system" and the entries of `requested` Canal supports, into out. */
void mpi_memkinds_supported(const char *requested, char *out, size_t outlen);
/* The value of MPI_COMM_WORLD and MPI_COMM_SELF; the launch request as
 * given (NULL without one), for MPI_INFO_ENV. */
const char *mpi_memkinds_world(void);
const char *mpi_memkinds_requested(void);
/* MPI_COMM_WORLD's and MPI_COMM_SELF's handler at MPI_Init. */
MPI_Errhandler mpi_initial_errhandler(void);
/* mpi/session.c: a session's memory allocation kinds (NULL: not a session). */
const char *mpi_session_memkinds(MPI_Session h);
int mpi_initial_errhandler_parse(const char *name, MPI_Errhandler *out);
/* The spawn info keys mpi_memory_alloc_kinds and mpi_initial_errhandler of
 * command `cmd` as keys for the new job's key-value space (appended at
 * keys[*n], vals[*n], names kept in store); MPI_ERR_INFO_VALUE with why. */
int mpi_spawn_keys_preput(MPI_Info info, int cmd, const char **keys, const char **vals, int *n,
                          char (*store)[96], char *why, size_t whylen);

/* ---------------------------------------------------------------- topology */
void *mpi_topo_dup(const void *topo);
void mpi_topo_free(void *topo);

#endif
