/*
 * Ports and names of dynamic processes. A port is a capability,
 * "canal-port:<jobid>:<rank>:<num>/<secret>@<addr>": <addr> is a TCP
 * listener the opening process owns (adi/dynamic.c) and <secret> 32 random
 * bytes in hex; MPI_Open_port makes one, MPI_Close_port closes its listener
 * (a connect waiting there, or coming later, fails with MPI_ERR_PORT
 * instead of hanging). The name service (MPI_Publish_name and friends)
 * stores port names in the process manager's (pmi/).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hex.h"
#include "common/random.h"
#include "dyn_impl.h"
#include "mpi/api_impl.h"

static const char port_prefix[] = "canal-port:";

/* The ports this process has open. */
static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
static dyn_port_t *port_list;
static int64_t port_next;

/* ---------------------------------------------------------------- helpers */
int dyn_secret_equal(const unsigned char *a, const unsigned char *b)
{
    unsigned char d = 0;
    for (int i = 0; i < DYN_SECRET; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}


/* Split "canal-port:<jobid>:<rank>:<num>/<secret hex>@<addr>" (the job id
 * may itself contain ':', so the rest is taken from the right). 0 when
 * well formed. */
int dyn_port_parse(const char *name, dyn_port_parts_t *out)
{
    const char *at, *slash, *c2, *c1, *job;
    char *end;
    long r;
    long long n;
    size_t jl;

    if (strncmp(name, port_prefix, sizeof port_prefix - 1) != 0)
        return -1;
    job = name + sizeof port_prefix - 1;
    if ((at = strrchr(job, '@')) == NULL || strlen(at + 1) >= sizeof out->addr ||
        at[1] == '\0')
        return -1;
    for (slash = at; slash > job && *slash != '/'; slash--)
        ;
    if (*slash != '/' || common_hex_decode(slash + 1, (size_t)(at - slash - 1), out->secret, DYN_SECRET) != DYN_SECRET)
        return -1;
    for (c2 = slash - 1; c2 > job && *c2 != ':'; c2--)
        ;
    if (*c2 != ':')
        return -1;
    for (c1 = c2 - 1; c1 > job && *c1 != ':'; c1--)
        ;
    if (*c1 != ':')
        return -1;
    r = strtol(c1 + 1, &end, 10);
    if (end != c2 || end == c1 + 1 || r < 0 || r > 0x7fffffffL)
        return -1;
    n = strtoll(c2 + 1, &end, 10);
    if (end != slash || end == c2 + 1 || n < 0)
        return -1;
    jl = (size_t)(c1 - job);
    if (jl >= sizeof out->jobid)
        return -1;
    memcpy(out->jobid, job, jl);
    out->jobid[jl] = '\0';
    out->rank = (int)r;
    out->num = n;
    snprintf(out->addr, sizeof out->addr, "%s", at + 1);
    return 0;
}

/* Open a port: a listener and a secret. MPI error class. */
int dyn_port_open(char *name, const char *fn, char *why, size_t whylen)
{
    char addr[ADI_DYN_CARD_MAX], hex[2 * DYN_SECRET + 1];
    dyn_port_t *p = calloc(1, sizeof *p);
    canal_status_t st;
    int n;

    if (p == NULL) {
        snprintf(why, whylen, "out of memory for a port");
        return MPI_ERR_NO_MEM;
    }
    if ((st = common_random_bytes(p->secret, DYN_SECRET)) < 0 ||
        (st = adi_dyn_listen(&p->listener, addr, sizeof addr)) < 0) {
        snprintf(why, whylen, "%s: cannot open a port: %s", fn, common_err_detail());
        free(p);
        return mpi_err_class_of_status(st);
    }
    common_hex_encode(p->secret, DYN_SECRET, hex);
    pthread_mutex_lock(&port_lock);
    p->num = port_next++;
    n = snprintf(name, MPI_MAX_PORT_NAME, "%s%s:%d:%" PRId64 "/%s@%s", port_prefix, mpi_pmi.jobid,
                 mpi_comm_world_obj.rank, p->num, hex, addr);
    if (n < 0 || n >= MPI_MAX_PORT_NAME) {
        pthread_mutex_unlock(&port_lock);
        adi_dyn_listener_close(p->listener);
        free(p);
        name[0] = '\0';
        snprintf(why, whylen,
                 "the job id '%.60s...' makes the port name longer than MPI_MAX_PORT_NAME=%d",
                 mpi_pmi.jobid, MPI_MAX_PORT_NAME);
        return MPI_ERR_INTERN;
    }
    p->next = port_list;
    port_list = p;
    pthread_mutex_unlock(&port_lock);
    return MPI_SUCCESS;
}

/* The open port of this process that name names, or NULL. */
dyn_port_t *dyn_port_find(const char *name, int unlink)
{
    dyn_port_parts_t pp;
    dyn_port_t *found = NULL;

    if (name == NULL || dyn_port_parse(name, &pp) != 0 || strcmp(pp.jobid, mpi_pmi.jobid) != 0 ||
        pp.rank != mpi_comm_world_obj.rank)
        return NULL;
    pthread_mutex_lock(&port_lock);
    for (dyn_port_t **pp2 = &port_list; *pp2 != NULL; pp2 = &(*pp2)->next) {
        if ((*pp2)->num == pp.num && dyn_secret_equal((*pp2)->secret, pp.secret)) {
            found = *pp2;
            if (unlink)
                *pp2 = found->next;
            break;
        }
    }
    pthread_mutex_unlock(&port_lock);
    return found;
}

void dyn_port_free(dyn_port_t *p)
{
    adi_dyn_listener_close(p->listener);
    memset(p->secret, 0, sizeof p->secret);
    free(p);
}

int mpi_open_port_impl(MPI_Info info, char *port_name, const char *fn)
{
    char why[DYN_WHY];
    int err;

    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    if ((err = dyn_port_open(port_name, fn, why, sizeof why)) != MPI_SUCCESS)
        return mpi_err_fail(NULL, err, fn, "%s", why);
    return MPI_SUCCESS;
}

int mpi_close_port_impl(const char *port_name, const char *fn)
{
    dyn_port_t *found;

    if (port_name == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    if ((found = dyn_port_find(port_name, 1)) == NULL)
        return mpi_err_fail(NULL, MPI_ERR_PORT, fn,
                            "port_name='%.100s' is not a port this process opened (or it was "
                            "closed already)",
                            port_name);
    dyn_port_free(found);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- name service */
/* The MPI class of a failed name service call: `missing` for an unknown
 * name, `bad` for a rejected one. */
static int name_error(canal_status_t st, int missing, int bad, const char *fn)
{
    const char *detail = common_err_detail();

    switch (st) {
    case CANAL_ERR_NOTFOUND:
        return mpi_err_fail(NULL, missing, fn, "%s", detail);
    case CANAL_ERR_ARG:
    case CANAL_ERR_LIMIT:
        return mpi_err_fail(NULL, bad, fn, "%s", detail);
    case CANAL_ERR_UNSUPPORTED:
        return mpi_err_fail(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "the process manager (%s) has no name service: %s", pmi_describe(),
                            detail);
    default:
        return mpi_err_fail_status(NULL, st, fn);
    }
}

static int check_name_args(const char *fn, const char *service_name, MPI_Info info)
{
    if (service_name == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "service_name is NULL");
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    return MPI_SUCCESS;
}

/* MPI_Publish_name (publish) and MPI_Unpublish_name: the same checks, and
 * the same errors from the process manager. */
static int name_update(const char *service_name, MPI_Info info, const char *port_name,
                       int publish, const char *fn)
{
    canal_status_t st;
    int err;

    if ((err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock(); /* pmi/ is not thread-safe */
    st = publish ? pmi_publish(service_name, port_name) : pmi_unpublish(service_name);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_SERVICE, MPI_ERR_SERVICE, fn) : MPI_SUCCESS;
}

int mpi_publish_name_impl(const char *service_name, MPI_Info info, const char *port_name,
                          const char *fn)
{
    return name_update(service_name, info, port_name, 1, fn);
}

int mpi_lookup_name_impl(const char *service_name, MPI_Info info, char *port_name, const char *fn)
{
    canal_status_t st;
    int err;

    if ((err = check_name_args(fn, service_name, info)))
        return err;
    adi_lock();
    st = pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_NAME, MPI_ERR_NAME, fn) : MPI_SUCCESS;
}

int mpi_unpublish_name_impl(const char *service_name, MPI_Info info, const char *port_name,
                            const char *fn)
{
    return name_update(service_name, info, port_name, 0, fn);
}
