/*
 * The client side of process management, as the rest of Canal sees it: one
 * small interface over PMIx (libpmix), PMI-2 and PMI-1 wire protocols and the
 * singleton case (no launcher). pmi_init() chooses from the environment
 * (CANAL_PMI forces one). Called by mpi/init.c and by channels to exchange
 * address cards. Values are printable strings of at most PMI_VAL_MAX-1 bytes
 * without blanks or ';' (the characters no launcher mangles).
 */
#ifndef CANAL_PMI_H
#define CANAL_PMI_H

#include "common/status.h"

enum { PMI_KEY_MAX = 64, PMI_VAL_MAX = 1024 };

typedef enum {
    PMI_KIND_SINGLETON = 0,
    PMI_KIND_PMI1,
    PMI_KIND_PMI2,
    PMI_KIND_PMIX,
} pmi_kind_t;

typedef struct {
    pmi_kind_t kind;
    int rank;          /* rank in the job (MPI_COMM_WORLD) */
    int size;          /* size of the job */
    int appnum;        /* MPMD application number (0 if unknown) */
    int universe_size; /* MPI_UNIVERSE_SIZE, or size if unknown */
    char jobid[256];   /* kvsname / namespace: unique per job on this node */
    /* Locality: which ranks share this node. node_of[r] is a node index for
     * every rank r (0..nodes-1), local_ranks lists the ranks on this node in
     * increasing order, local_rank is this rank's index in that list. */
    int nnodes;
    int *node_of; /* size entries */
    int local_size;
    int local_rank;
    int *local_ranks; /* local_size entries */
} pmi_info_t;

/* Connect to the process manager (or become a singleton) and fill *info_out.
 * Fails with a message (common_err_detail) naming the launcher and what is
 * missing when the environment shows a launcher that cannot be used. */
canal_status_t pmi_init(pmi_info_t *info_out);
/* Free the arrays pmi_init allocated in *info (node_of, local_ranks). Added
 * by the pmi/ owner; call it after the last use of info. */
void pmi_info_free(pmi_info_t *info);
/* Human-readable name of the PMI in use ("PMI-1 over PMI_FD", "PMIx 4.2", ...). */
const char *pmi_describe(void);

/* Publish key=value for this rank. Visible to others after pmi_fence(). */
canal_status_t pmi_put(const char *key, const char *value);
/* Commit puts and wait for every rank of the job (collective). */
canal_status_t pmi_fence(void);
/* Read the value that `rank` put under `key` (after a fence). */
canal_status_t pmi_get(int rank, const char *key, char *value_out, size_t len);

/* Node attributes (PMI-2 info-putnodeattr/getnodeattr): a value shared by the
 * processes of this node, visible at once without a fence. pmi_node_get with
 * wait set blocks until some process of the node has put the key. Only PMI-2
 * (and a singleton, trivially) has them: other kinds return UNSUPPORTED. */
canal_status_t pmi_node_put(const char *key, const char *value);
canal_status_t pmi_node_get(const char *key, int wait, char *value_out, size_t len);

/* Name service (MPI_Publish_name and friends). */
canal_status_t pmi_publish(const char *service, const char *port);
canal_status_t pmi_lookup(const char *service, char *port_out, size_t len);
canal_status_t pmi_unpublish(const char *service);

/* Dynamic processes (MPI_Comm_spawn). One program of a spawn: */
typedef struct {
    const char *command;     /* the program to run */
    const char *const *argv; /* its arguments after the program, NULL-terminated; may be NULL */
    int maxprocs;            /* how many processes */
    int ninfo;               /* launcher hints ("wdir", "host", ...) */
    const char *const *info_keys;
    const char *const *info_vals;
} pmi_spawn_cmd_t;

/* Start a new job of ncmds programs (called by one process of the parent).
 * Each process of the new job reads the npreput key/value pairs with
 * pmi_get_job(). The new job's id goes to jobid_out when the launcher tells
 * it ("" otherwise). Values follow the pmi_put rules. */
canal_status_t pmi_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                         const char *const *preput_keys, const char *const *preput_vals,
                         char *jobid_out, size_t len);
/* A job-level value: one the spawner preput, or one the launcher provides. */
canal_status_t pmi_get_job(const char *key, char *value_out, size_t len);
/* 1 if this job was started by pmi_spawn of another job, else 0. */
int pmi_spawned(void);

/* Called (from any thread, at most once per rank) when the launcher says
 * that a rank of this job failed (Canal's mpiexec -disable-auto-cleanup);
 * ranks reported before the handler was set are given to it then. */
void pmi_set_rank_failed_handler(void (*fn)(int rank));

/* Tell the process manager to end the job with `code`; may not return. */
canal_status_t pmi_abort(int code, const char *msg);
/* Leave the job cleanly (after MPI_Finalize's last communication). */
canal_status_t pmi_finalize(void);

#endif
