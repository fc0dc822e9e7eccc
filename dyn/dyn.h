/*
 * What mpi/ sees of dyn/, the layer of dynamic processes (MPI 4.0 chapter
 * 11: ports, connect/accept, spawn, join, the name service): the parent
 * connection a spawned job's MPI_Init makes, and MPI_Intercomm_create
 * between groups of two jobs. The generated entry points call dyn/'s
 * mpi_*_impl functions (declared in mpi/api_impl.h).
 */
#ifndef CANAL_DYN_H
#define CANAL_DYN_H

#include "mpi/comm_impl.h"

/* In a spawned process, connect MPI_COMM_WORLD to the parent (MPI_Init). */
int mpi_dyn_init_parent(void);
/* MPI_Intercomm_create between groups of two jobs (the leaders' bridge d
 * reaches a process of another job): the groups swap their members' cards
 * over the bridge and connect as connect/accept does. */
int mpi_dyn_intercomm_cross(mpi_comm_t *lc, int leader, const mpi_dom_t *d, MPI_Comm *newcomm,
                            const char *fn);

#endif
