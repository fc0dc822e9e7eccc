/*
 * What the files of dyn/ share among themselves and nobody else sees (the
 * rest of the tree sees dyn/dyn.h, and the generated entry points of
 * chapter 11 the mpi_*_impl functions declared in mpi/api_impl.h):
 *   - the bootstrap messages the roots (and the two sides of a join) swap
 *     over a link of adi/dynamic.c: a head (dyn_hello_t), then its group's
 *     members (dyn_member_t);
 *   - ports (dyn_port.c): open, find by name, parse, free;
 *   - building the intercommunicator once the remote group is known
 *     (dyn_inter.c);
 *   - the accepting and the connecting side of an introduction
 *     (dyn_connect.c), which spawn and the spawned job's MPI_Init use too
 *     (dyn_spawn.c).
 */
#ifndef CANAL_DYN_IMPL_H
#define CANAL_DYN_IMPL_H

#include <stdint.h>

#include "mpiimpl.h"
#include "mpi/comm_impl.h"

enum { DYN_SECRET = ADI_DYN_SECRET_LEN, DYN_WHY = 256 };

/* A bootstrap message's head: a request (connector root -> acceptor root),
 * an answer (back), the root's broadcast to its group, a join's half. */
typedef struct {
    char magic[8];
    int32_t status;       /* MPI_SUCCESS or an MPI error class */
    int32_t n;            /* members that follow */
    int32_t root;         /* the sender group's root, as a rank in that group */
    int32_t cross;        /* the two groups are of different jobs */
    int64_t port;         /* request: the port's number */
    unsigned char secret[DYN_SECRET]; /* request: the port's; answer: the pair's */
    char jobid[256];
    char why[DYN_WHY];    /* status != MPI_SUCCESS: the reason */
} dyn_hello_t;

typedef struct {
    int32_t job_rank;
    uint64_t job_hash; /* of its job id: a member of the receiver's own job is named by job_rank */
    char card[ADI_DYN_CARD_MAX];
} dyn_member_t;

/* ---------------------------------------------------------------- ports (dyn_port.c) */
/* A port this process has open. */
typedef struct dyn_port {
    struct dyn_port *next;
    int64_t num;
    unsigned char secret[DYN_SECRET];
    adi_dyn_listener_t *listener;
} dyn_port_t;

/* The parts of a port name. */
typedef struct {
    char jobid[sizeof mpi_pmi.jobid];
    int rank;
    int64_t num;
    unsigned char secret[DYN_SECRET];
    char addr[ADI_DYN_CARD_MAX];
} dyn_port_parts_t;

/* Compares two secrets in constant time; 1 if equal. */
int dyn_secret_equal(const unsigned char *a, const unsigned char *b);
/* 0 when name is a well-formed port name of Canal (its parts in out). */
int dyn_port_parse(const char *name, dyn_port_parts_t *out);
/* Opens a port (a listener and a secret) and writes its name (at most
 * MPI_MAX_PORT_NAME characters); an MPI error class with why. */
int dyn_port_open(char *name, const char *fn, char *why, size_t whylen);
/* The open port of this process that name names (taken off the list when
 * unlink), or NULL. */
dyn_port_t *dyn_port_find(const char *name, int unlink);
/* Closes the listener of a port taken off the list, and frees it. */
void dyn_port_free(dyn_port_t *p);

/* mpi_bcast_impl on the user's communicator, whose caller goes on only when
 * it delivered: MPI_CANAL_HANDLED when the user's handler cleared a code it
 * raised (mpi_coll_step), as for every other step of dyn/. */
int dyn_bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, mpi_comm_t *c,
              const char *fn);

/* ---------------------------------------------------------------- the intercommunicator (dyn_inter.c) */
/* Whether c's group holds a process of another job. */
int dyn_comm_mixes_jobs(mpi_comm_t *c);
/* Gathers every member of c at root (*all_out, significant there). cross:
 * cards are needed (a failure to make one is logged); 2: wanted in case
 * the other side needs them (a failure is quiet). */
int dyn_gather_members(mpi_comm_t *c, int root, int cross, dyn_member_t **all_out,
                       const char *fn);
/* At the root the verdict hdr and the remote members are known: they reach
 * the group (a failed verdict is raised everywhere). */
int dyn_share_remote(mpi_comm_t *c, int root, dyn_hello_t *hdr, dyn_member_t **remote,
                     const char *fn);
/* Everybody: makes the remote members peers and builds the intercommunicator. */
int dyn_build_inter(mpi_comm_t *c, int root, const dyn_hello_t *hdr, const dyn_member_t *remote,
                    MPI_Comm *newcomm, const char *fn);
/* A bootstrap message over a link: hdr then n members. */
canal_status_t dyn_blob_send(int link, const dyn_hello_t *hdr, const dyn_member_t *m, int n);
/* Receives one, checking its magic and that the members it announces are
 * there (*m_out: malloc'ed). */
canal_status_t dyn_blob_recv(int link, const char magic[8], double timeout, dyn_hello_t *hdr,
                             dyn_member_t **m_out);
/* 1 if every member has a card; else 0 and why names the first without. */
int dyn_cards_complete(const dyn_member_t *m, int n, char *why, size_t len);

/* ---------------------------------------------------------------- introductions (dyn_connect.c) */
/* The accepting side on an open port p (significant at the root only; NULL
 * there means a bad port name, why_bad says so); timeout_s < 0: for ever. */
int dyn_accept_on(dyn_port_t *p, const char *why_bad, double timeout_s, int root, mpi_comm_t *c,
                  MPI_Comm *newcomm, const char *fn);
/* The connecting side (spawned: a spawned job's connect to its parent). */
int dyn_connect_to(const char *port_name, MPI_Info info, int spawned, int root, mpi_comm_t *c,
                   MPI_Comm *newcomm, const char *fn);

#endif
