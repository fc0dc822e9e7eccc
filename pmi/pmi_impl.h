/*
 * Internals of the PMI client, shared by pmi/pmi.c (selection, locality,
 * singleton) and the backends pmi/pmi1.c, pmi/pmi2.c, pmi/pmix.c. Nothing
 * outside pmi/ includes this.
 */
#ifndef CANAL_PMI_IMPL_H
#define CANAL_PMI_IMPL_H

#include <stddef.h>

#include <pthread.h>

#include "pmi/pmi.h"
#include "pmi/wire.h"

/* A blocking connection to a PMI-1/PMI-2 server. */
typedef struct {
    int fd;
    int version; /* framing of replies: 1 lines, 2 length-prefixed */
    pmi_wire_reader_t rd;
    int reply_secret; /* the last request named a secret key: redact the reply's trace */
    char scratch[PMI_WIRE_MSG_MAX + 1];
    /* Held from a request to its reply, and by the watch while it reads
     * what the launcher sends unasked (pmi_conn_drain). */
    pthread_mutex_t lock;
} pmi_conn_t;

/* How the server was reached, from the environment. */
typedef struct {
    int use_port;   /* PMI_PORT (+PMI_ID) rather than PMI_FD */
    int fd;         /* PMI_FD */
    char port[256]; /* PMI_PORT: host:port */
    int id;         /* PMI_ID, -1 if unset */
    int env_rank;   /* PMI_RANK, -1 if unset */
    int env_size;   /* PMI_SIZE, -1 if unset */
} pmi_endpoint_t;

/* Open the connection (connect for PMI_PORT, adopt PMI_FD). */
canal_status_t pmi_conn_open(pmi_conn_t *c, const pmi_endpoint_t *ep);
void pmi_conn_close(pmi_conn_t *c);
/* Terminate and send a built message. */
canal_status_t pmi_conn_send(pmi_conn_t *c, pmi_wire_out_t *out);
/* Send bytes as they are (the lines of a PMI-1 "mcmd=spawn"). */
canal_status_t pmi_conn_send_raw(pmi_conn_t *c, const char *buf, size_t len);
/* Receive one message in the connection's framing; when expect is not NULL
 * the command must be that one. */
canal_status_t pmi_conn_recv(pmi_conn_t *c, pmi_wire_msg_t *msg, const char *expect);
/* "cmd=init pmi_version=V ...": returns 0 if the server accepted version V,
 * CANAL_ERR_UNSUPPORTED if it answered with another version or rc != 0. */
canal_status_t pmi_conn_handshake(pmi_conn_t *c, int version);
/* After pmi_abort sent its message: wait a few seconds for the launcher to
 * kill us (it closes the connection), then exit with code. */
void pmi_conn_wait_death(pmi_conn_t *c, int code) __attribute__((noreturn));

/* The watch on the launcher (pmi/watch.c): a thread that ends this process
 * with a message when the PMI connection fd is hung up by the other side.
 * Started by pmi.c once a PMI-1/PMI-2 connection is up (unless
 * CANAL_PMI_WATCH=0); stopped before the connection is expected to close
 * (finalize: join set, the thread is gone on return; abort: join clear). */
canal_status_t pmi_watch_start(pmi_conn_t *c, const char *describe);
void pmi_watch_stop(int join);
/* conn.c, for the watch: read what the launcher sent unasked, if no request
 * holds the connection. 1: read (or nothing to read), 0: the connection is
 * busy (its holder reads), -1: the connection closed. */
int pmi_conn_drain(pmi_conn_t *c);
/* End a request: release the connection; if bytes beyond the reply wait in
 * its buffer (a notice that came with it), the watch reads them. */
void pmi_conn_unlock(pmi_conn_t *c);
void pmi_watch_kick(void);
/* pmi.c: the launcher says that rank `rank` of this job failed. */
void pmi_note_rank_failed(int rank);
/* The launcher's unasked message (Canal's mpiexec -disable-auto-cleanup). */
#define PMI_CMD_RANK_FAILED "canal-rank-failed"

/* What a backend learned at init; pmi.c turns it into pmi_info_t. */
typedef struct {
    int rank, size, appnum, universe_size;
    int spawned; /* started by another job's spawn */
    char jobid[256];
    char mapping[PMI_VAL_MAX]; /* PMI_process_mapping, "" if none */
} pmi_boot_t;

/* PMI-1 and PMI-2 backends: keys are given as the wire key (already made
 * unique per rank by pmi.c). */
canal_status_t pmi1_init(const pmi_endpoint_t *ep, pmi_boot_t *boot_out);
canal_status_t pmi1_put(const char *key, const char *val);
canal_status_t pmi1_fence(void);
canal_status_t pmi1_get(int rank, const char *key, char *val_out, size_t len);
canal_status_t pmi1_publish(const char *service, const char *port);
canal_status_t pmi1_lookup(const char *service, char *port_out, size_t len);
canal_status_t pmi1_unpublish(const char *service);
canal_status_t pmi1_abort(int code, const char *msg);
canal_status_t pmi1_finalize(void);
canal_status_t pmi1_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                          const char *const *keys, const char *const *vals, char *jobid_out,
                          size_t len);
int pmi1_key_max(void);
int pmi1_fd(void);
pmi_conn_t *pmi1_conn_get(void);
int pmi1_val_max(void);

canal_status_t pmi2_init(const pmi_endpoint_t *ep, pmi_boot_t *boot_out);
int pmi2_fd(void);
pmi_conn_t *pmi2_conn_get(void);
canal_status_t pmi2_put(const char *key, const char *val);
canal_status_t pmi2_fence(void);
canal_status_t pmi2_get(int rank, const char *key, char *val_out, size_t len);
canal_status_t pmi2_publish(const char *service, const char *port);
canal_status_t pmi2_lookup(const char *service, char *port_out, size_t len);
canal_status_t pmi2_unpublish(const char *service);
canal_status_t pmi2_abort(int code, const char *msg);
canal_status_t pmi2_finalize(void);
canal_status_t pmi2_node_put(const char *key, const char *val);
canal_status_t pmi2_node_get(const char *key, int wait, char *val_out, size_t len);
canal_status_t pmi2_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                          const char *const *keys, const char *const *vals, char *jobid_out,
                          size_t len);

/* PMIx backend (pmi/pmix.c); without libpmix these return UNSUPPORTED.
 * It fills locality itself (node_of/local_ranks) since PMIx gives it
 * directly; node_of must hold boot->size entries, allocated by the backend. */
int pmix_available(void);
canal_status_t pmix_backend_init(pmi_boot_t *boot_out, int **node_of_out, int *nnodes_out);
canal_status_t pmix_backend_put(const char *key, const char *val);
canal_status_t pmix_backend_fence(void);
canal_status_t pmix_backend_get(int rank, const char *key, char *val_out, size_t len);
canal_status_t pmix_backend_publish(const char *service, const char *port);
canal_status_t pmix_backend_lookup(const char *service, char *port_out, size_t len);
canal_status_t pmix_backend_unpublish(const char *service);
canal_status_t pmix_backend_abort(int code, const char *msg);
canal_status_t pmix_backend_finalize(void);
const char *pmix_backend_version(void);
canal_status_t pmix_backend_spawn(int ncmds, const pmi_spawn_cmd_t *cmds, int npreput,
                                  const char *const *keys, const char *const *vals, char *jobid_out,
                                  size_t len);
/* A key the spawner (parent job, rank 0 of the spawn) put before spawning. */
canal_status_t pmix_backend_get_job(const char *key, char *val_out, size_t len);

/* Copy a value string into a caller buffer, or fail with TRUNCATE. */
canal_status_t pmi_copy_value(const char *val, char *out, size_t len);

#endif
