/*
 * Process management between communicators (MPI 4.0 chapter 11): ports,
 * MPI_Comm_accept/MPI_Comm_connect, MPI_Comm_disconnect, MPI_Comm_get_parent
 * and the name service (MPI_Publish_name and friends, over pmi/). Called by
 * applications only.
 *
 * What works today is connect/accept between groups of the SAME job (the
 * usual server/client pattern inside one mpiexec): a port name carries the
 * job id, the MPI_COMM_WORLD rank that opened it and a port number. The
 * connecting root sends a request to that rank on MPI_COMM_WORLD's
 * collective context with a tag reserved for the port, the owner (the root
 * of an accept) answers, and both groups then build the intercommunicator
 * with MPI_Intercomm_create over MPI_COMM_WORLD. Connecting to another job
 * needs connections between jobs, which the device does not have yet, so
 * such ports are refused with a clear message. MPI_Comm_spawn,
 * MPI_Comm_spawn_multiple and MPI_Comm_join stay stubs (mpi/stubs.c).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "mpiimpl.h"

static const char port_prefix[] = "canal-port:";

/* Tags on MPI_COMM_WORLD's collective context (context + 1). The
 * collectives stay below 0x3ff00000 (coll/sched.c) and comm construction
 * uses 0x3ffffff0..3 (comm_impl.h), so these do not meet anybody else's.
 * Requests and answers carry the low 12 bits of the port number in the tag
 * so that several ports of one process do not take each other's requests. */
enum {
    DYN_TAG_REQ = 0x3fffe000,    /* + (port & 0xfff): connect request */
    DYN_TAG_ANSWER = 0x3fffd000, /* + (port & 0xfff): accepted or refused */
    DYN_TAG_BRIDGE = 0x3fffcfff, /* MPI_Intercomm_create between the roots */
    DYN_PORT_MASK = 0xfff,
};

/* A connect request, and the answer to it. */
typedef struct {
    int64_t port;   /* the full port number, to recognise stale requests */
    int32_t source; /* the connecting root's rank in MPI_COMM_WORLD */
    int32_t pad;
} dyn_request_t;

enum { DYN_REFUSED = 0, DYN_ACCEPTED = 1 };

/* The ports this process has open. */
typedef struct dyn_port {
    struct dyn_port *next;
    int64_t num;
} dyn_port_t;

static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
static dyn_port_t *port_list;
static int64_t port_next;

/* ---------------------------------------------------------------- port names */
/* Split "canal-port:<jobid>:<rank>:<num>" (the job id may itself contain
 * ':', so the numbers are taken from the right). 0 when well formed. */
static int port_parse(const char *name, char *jobid_out, size_t len, int *rank_out,
                      int64_t *num_out)
{
    const char *c2, *c1, *job;
    char *end;
    long r;
    long long n;
    size_t jl;

    if (strncmp(name, port_prefix, sizeof port_prefix - 1) != 0)
        return -1;
    job = name + sizeof port_prefix - 1;
    if ((c2 = strrchr(job, ':')) == NULL || c2 == job)
        return -1;
    for (c1 = c2 - 1; c1 > job && *c1 != ':'; c1--)
        ;
    if (*c1 != ':')
        return -1;
    r = strtol(c1 + 1, &end, 10);
    if (end != c2 || end == c1 + 1 || r < 0 || r > 0x7fffffffL)
        return -1;
    n = strtoll(c2 + 1, &end, 10);
    if (*end != '\0' || end == c2 + 1 || n < 0)
        return -1;
    jl = (size_t)(c1 - job);
    if (jl >= len)
        return -1;
    memcpy(jobid_out, job, jl);
    jobid_out[jl] = '\0';
    *rank_out = (int)r;
    *num_out = n;
    return 0;
}

static int port_is_open(int64_t num)
{
    int found = 0;
    pthread_mutex_lock(&port_lock);
    for (dyn_port_t *p = port_list; p != NULL; p = p->next)
        if (p->num == num)
            found = 1;
    pthread_mutex_unlock(&port_lock);
    return found;
}

/* ---------------------------------------------------------------- messages */
static canal_status_t dyn_send(const void *buf, size_t len, int dest, int tag)
{
    adi_request_t *r;
    canal_status_t st = adi_isend(buf, len, dt_builtin(DT_BYTE), dest, mpi_comm_world_obj.rank,
                                  tag, mpi_comm_world_obj.context + 1, ADI_MODE_STANDARD, &r);
    if (st < 0)
        return st;
    st = adi_wait(r);
    if (st >= 0 && r->status.error < 0)
        st = common_err_set(r->status.error, "sending a connect message to rank %d failed (%s)",
                            dest, common_status_name(r->status.error));
    adi_request_free(r);
    return st;
}

static canal_status_t dyn_recv(void *buf, size_t len, int src, int tag, int *source_out)
{
    adi_request_t *r;
    canal_status_t st = adi_irecv(buf, len, dt_builtin(DT_BYTE), src, tag,
                                  mpi_comm_world_obj.context + 1, &r);
    if (st < 0)
        return st;
    st = adi_wait(r);
    if (st >= 0 && r->status.error < 0)
        st = common_err_set(r->status.error, "receiving a connect message failed (%s)",
                            common_status_name(r->status.error));
    else if (st >= 0 && r->status.bytes != len)
        st = common_err_set(CANAL_ERR_PROTO,
                            "connect message of %zu bytes from rank %d, expected %zu",
                            r->status.bytes, r->status.source, len);
    if (st >= 0 && source_out != NULL)
        *source_out = r->status.source;
    adi_request_free(r);
    return st;
}

/* Answer every request already waiting on a port that is being closed, so
 * that those connects fail instead of waiting forever. */
static void port_refuse_pending(int64_t num)
{
    int tag = DYN_TAG_REQ + (int)(num & DYN_PORT_MASK);
    for (;;) {
        int flag = 0, src;
        adi_status_t as;
        dyn_request_t q;
        int32_t answer = DYN_REFUSED;

        if (adi_iprobe(ADI_ANY_SOURCE, tag, mpi_comm_world_obj.context + 1, &flag, &as) < 0 ||
            !flag)
            return;
        if (dyn_recv(&q, sizeof q, as.source, tag, &src) < 0)
            return;
        dyn_send(&answer, sizeof answer, src, DYN_TAG_ANSWER + (int)(num & DYN_PORT_MASK));
    }
}

/* ---------------------------------------------------------------- ports */
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Open_port";
    dyn_port_t *p;
    int err, n;

    if ((err = mpi_enter(fn)))
        return err;
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    if ((p = calloc(1, sizeof *p)) == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory for a port");
    pthread_mutex_lock(&port_lock);
    p->num = port_next;
    n = snprintf(port_name, MPI_MAX_PORT_NAME, "%s%s:%d:%" PRId64, port_prefix, mpi_pmi.jobid,
                 mpi_comm_world_obj.rank, p->num);
    if (n < 0 || n >= MPI_MAX_PORT_NAME) {
        pthread_mutex_unlock(&port_lock);
        free(p);
        port_name[0] = '\0';
        return mpi_err_raise(NULL, MPI_ERR_INTERN, fn,
                             "the job id '%.60s...' makes the port name longer than "
                             "MPI_MAX_PORT_NAME=%d",
                             mpi_pmi.jobid, MPI_MAX_PORT_NAME);
    }
    port_next++;
    p->next = port_list;
    port_list = p;
    pthread_mutex_unlock(&port_lock);
    return MPI_SUCCESS;
}
#pragma weak MPI_Open_port = PMPI_Open_port

int PMPI_Close_port(const char *port_name)
{
    static const char fn[] = "MPI_Close_port";
    char job[sizeof mpi_pmi.jobid];
    int rank, err;
    int64_t num;
    dyn_port_t *found = NULL;

    if ((err = mpi_enter(fn)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    if (port_parse(port_name, job, sizeof job, &rank, &num) == 0 &&
        strcmp(job, mpi_pmi.jobid) == 0 && rank == mpi_comm_world_obj.rank) {
        pthread_mutex_lock(&port_lock);
        for (dyn_port_t **pp = &port_list; *pp != NULL; pp = &(*pp)->next) {
            if ((*pp)->num == num) {
                found = *pp;
                *pp = found->next;
                break;
            }
        }
        pthread_mutex_unlock(&port_lock);
    }
    if (found == NULL)
        return mpi_err_raise(NULL, MPI_ERR_PORT, fn,
                             "port_name='%.100s' is not a port this process opened (or it was "
                             "closed already)",
                             port_name);
    free(found);
    port_refuse_pending(num);
    return MPI_SUCCESS;
}
#pragma weak MPI_Close_port = PMPI_Close_port

/* ---------------------------------------------------------------- accept/connect */
/* The checks every process of accept/connect makes. */
static int check_common(const char *fn, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm,
                        mpi_comm_t **c_out)
{
    mpi_comm_t *c;
    int err;

    if ((err = mpi_check_comm(comm, fn, &c)))
        return err;
    if (c->is_inter)
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator; %s needs an "
                             "intracommunicator", (unsigned)comm, fn);
    if (root < 0 || root >= c->size)
        return mpi_err_raise(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    if (newcomm == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (c->rank == root && info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    *c_out = c;
    return MPI_SUCCESS;
}

/* The root tells its group whether it found a peer (peer >= 0, its rank in
 * MPI_COMM_WORLD) or failed (-1 - error class); then everybody builds the
 * intercommunicator or raises. why is the root's message. */
static int finish(mpi_comm_t *c, MPI_Comm comm, int root, int peer, const char *why,
                  MPI_Comm *newcomm, const char *fn)
{
    int err = PMPI_Bcast(&peer, 1, MPI_INT, root, comm);

    if (err != MPI_SUCCESS)
        return err;
    if (peer < 0) {
        if (c->rank == root)
            return mpi_err_raise(c, -1 - peer, fn, "%s", why);
        return mpi_err_raise(c, -1 - peer, fn, "the root (rank %d) failed; see its error", root);
    }
    return PMPI_Intercomm_create(comm, root, MPI_COMM_WORLD, c->rank == root ? peer : 0,
                                 DYN_TAG_BRIDGE, newcomm);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_accept";
    mpi_comm_t *c = NULL;
    char job[sizeof mpi_pmi.jobid], why[400] = "";
    int err, rank, peer = -1 - MPI_ERR_PORT;
    int64_t num;

    if ((err = mpi_enter(fn)) || (err = check_common(fn, info, root, comm, newcomm, &c)))
        return err;
    if (c->rank == root) {
        if (port_name == NULL) {
            snprintf(why, sizeof why, "port_name is NULL (at the root)");
        } else if (port_parse(port_name, job, sizeof job, &rank, &num) != 0 ||
                   strcmp(job, mpi_pmi.jobid) != 0 || rank != mpi_comm_world_obj.rank ||
                   !port_is_open(num)) {
            snprintf(why, sizeof why,
                     "port_name='%.100s' is not an open port of this process (MPI_Open_port "
                     "at the root gives one)",
                     port_name);
        } else {
            /* Wait for a connect on this port; requests left over from a
             * closed port that had the same tag are refused. */
            for (;;) {
                dyn_request_t q;
                int src, tag = (int)(num & DYN_PORT_MASK);
                int32_t answer;
                canal_status_t st = dyn_recv(&q, sizeof q, ADI_ANY_SOURCE, DYN_TAG_REQ + tag, &src);

                if (st < 0) {
                    peer = -1 - mpi_err_class_of_status(st);
                    snprintf(why, sizeof why, "%s", common_err_detail());
                    break;
                }
                answer = q.port == num ? DYN_ACCEPTED : DYN_REFUSED;
                if ((st = dyn_send(&answer, sizeof answer, src, DYN_TAG_ANSWER + tag)) < 0) {
                    peer = -1 - mpi_err_class_of_status(st);
                    snprintf(why, sizeof why, "%s", common_err_detail());
                    break;
                }
                if (answer == DYN_ACCEPTED) {
                    peer = src;
                    break;
                }
            }
        }
    }
    return finish(c, comm, root, peer, why, newcomm, fn);
}
#pragma weak MPI_Comm_accept = PMPI_Comm_accept

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_connect";
    mpi_comm_t *c = NULL;
    char job[sizeof mpi_pmi.jobid], why[400] = "";
    int err, owner, peer = -1 - MPI_ERR_PORT;
    int64_t num;

    if ((err = mpi_enter(fn)) || (err = check_common(fn, info, root, comm, newcomm, &c)))
        return err;
    if (c->rank == root) {
        if (port_name == NULL) {
            snprintf(why, sizeof why, "port_name is NULL (at the root)");
        } else if (port_parse(port_name, job, sizeof job, &owner, &num) != 0) {
            snprintf(why, sizeof why, "port_name='%.100s' is not a port name of Canal",
                     port_name);
        } else if (strcmp(job, mpi_pmi.jobid) != 0) {
            snprintf(why, sizeof why,
                     "port_name='%.100s' belongs to job '%.60s', not this one ('%.60s'): "
                     "connecting to another job is not supported by Canal yet",
                     port_name, job, mpi_pmi.jobid);
        } else if (owner >= mpi_comm_world_obj.size) {
            snprintf(why, sizeof why, "port_name='%.100s' names rank %d, but the job has %d",
                     port_name, owner, mpi_comm_world_obj.size);
        } else if (owner == mpi_comm_world_obj.rank) {
            snprintf(why, sizeof why,
                     "port_name='%.100s' was opened by this very process; connecting a "
                     "process to itself is not supported by Canal yet",
                     port_name);
        } else {
            dyn_request_t q = {.port = num, .source = mpi_comm_world_obj.rank};
            int tag = (int)(num & DYN_PORT_MASK);
            int32_t answer = DYN_REFUSED;
            canal_status_t st = dyn_send(&q, sizeof q, owner, DYN_TAG_REQ + tag);

            if (st >= 0)
                st = dyn_recv(&answer, sizeof answer, owner, DYN_TAG_ANSWER + tag, NULL);
            if (st < 0) {
                peer = -1 - mpi_err_class_of_status(st);
                snprintf(why, sizeof why, "%s", common_err_detail());
            } else if (answer != DYN_ACCEPTED) {
                snprintf(why, sizeof why, "port_name='%.100s' was closed before it was accepted",
                         port_name);
            } else {
                peer = owner;
            }
        }
    }
    return finish(c, comm, root, peer, why, newcomm, fn);
}
#pragma weak MPI_Comm_connect = PMPI_Comm_connect

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    mpi_comm_t *c = NULL;
    int err;

    if ((err = mpi_enter(fn)))
        return err;
    if (comm == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "comm is NULL");
    if ((err = mpi_check_comm(*comm, fn, &c)))
        return err;
    if (c == &mpi_comm_world_obj || c == &mpi_comm_self_obj)
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "%s cannot be disconnected", c->name);
    /* Canal's sends complete only once the device has handed their data on
     * and receives once matched, and the requests the user still holds keep
     * their own reference, so freeing is what disconnect needs here. */
    return PMPI_Comm_free(comm);
}
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char fn[] = "MPI_Comm_get_parent";
    int spawned;
    int err;

    if ((err = mpi_enter(fn)))
        return err;
    if (parent == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "parent is NULL");
    adi_lock();
    spawned = pmi_spawned();
    adi_unlock();
    if (spawned)
        return mpi_err_raise(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                             "this job was spawned by another one, but Canal cannot connect to "
                             "the parent job yet");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

/* ---------------------------------------------------------------- name service */
/* The MPI class of a failed name service call: `missing` for an unknown
 * name, `bad` for a rejected one. */
static int name_error(canal_status_t st, int missing, int bad, const char *fn)
{
    const char *detail = common_err_detail();

    switch (st) {
    case CANAL_ERR_NOTFOUND:
        return mpi_err_raise(NULL, missing, fn, "%s", detail);
    case CANAL_ERR_ARG:
    case CANAL_ERR_LIMIT:
        return mpi_err_raise(NULL, bad, fn, "%s", detail);
    case CANAL_ERR_UNSUPPORTED:
        return mpi_err_raise(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                             "the process manager (%s) has no name service: %s", pmi_describe(),
                             detail);
    default:
        return mpi_err_status(NULL, st, fn);
    }
}

static int check_name_args(const char *fn, const char *service_name, MPI_Info info)
{
    if (service_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "service_name is NULL");
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    return MPI_SUCCESS;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    canal_status_t st;
    int err;

    if ((err = mpi_enter(fn)) || (err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock(); /* pmi/ is not thread-safe */
    st = pmi_publish(service_name, port_name);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_SERVICE, MPI_ERR_SERVICE, fn) : MPI_SUCCESS;
}
#pragma weak MPI_Publish_name = PMPI_Publish_name

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    canal_status_t st;
    int err;

    if ((err = mpi_enter(fn)) || (err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock();
    st = pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_NAME, MPI_ERR_NAME, fn) : MPI_SUCCESS;
}
#pragma weak MPI_Lookup_name = PMPI_Lookup_name

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    canal_status_t st;
    int err;

    if ((err = mpi_enter(fn)) || (err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock();
    st = pmi_unpublish(service_name);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_SERVICE, MPI_ERR_SERVICE, fn) : MPI_SUCCESS;
}
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
