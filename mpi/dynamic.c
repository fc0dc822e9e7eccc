/*
 * Process management between communicators (MPI 4.0 chapter 11): ports,
 * MPI_Comm_accept/connect, MPI_Comm_spawn/spawn_multiple and the parent
 * of a spawned job, MPI_Comm_join, MPI_Comm_disconnect and the name service
 * (MPI_Publish_name and friends, over pmi/). Called by applications, and by
 * mpi/init.c (mpi_dyn_init_parent) in a spawned process.
 *
 * One path serves every connect/accept, within a job or between jobs. A
 * port is a capability: "canal-port:<jobid>:<rank>:<num>/<secret>@<addr>",
 * where <addr> is a TCP listener the opening process owns (adi/dynamic.c)
 * and <secret> 32 random bytes in hex. The connecting root dials <addr>
 * and sends a request proving the secret with its group's members; the
 * accepting root checks it (a wrong one is refused, the port stays open),
 * answers with its group's members and a fresh pair secret, and closes the
 * link. A member is named by its job rank when both groups are of one job,
 * else by its card for other jobs (the sock address + a random id), and
 * every member then makes every remote member a device peer with the pair
 * secret (adi_dyn_peer_connect). The intercommunicator's context is agreed
 * like any other (both groups AND their free-context masks, the roots over
 * a bridge on MPI_COMM_WORLD's collective context with a reserved tag and
 * a source rank drawn from the pair secret), so its remote group may hold
 * device indices >= the job size:
 * group operations see them as processes outside MPI_COMM_WORLD.
 * Closing a port closes its listener: a connect waiting there, or coming
 * later, fails with MPI_ERR_PORT instead of hanging.
 *
 * Spawn: the root opens a port, asks the process manager (pmi_spawn) to
 * start the programs with the port preput under "canal-parent-port", and
 * accepts; each child's MPI_Init connects MPI_COMM_WORLD to that port, and
 * the intercommunicator is what MPI_Comm_get_parent returns. Join: the two
 * processes swap their cards and half a secret each over the user's socket.
 *
 * Byte order: the bootstrap messages are native structs; jobs on machines
 * of another byte order cannot connect (Canal assumes homogeneous nodes).
 * A failure after the roots' exchange (a member that cannot reach a remote
 * one) fails that member's calls later, not the construction.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/random.h"
#include "comm_impl.h"
#include "mpiimpl.h"
#include "mpi/api_impl.h"

static const char port_prefix[] = "canal-port:";
static const char parent_port_key[] = "canal-parent-port";

/* The bridge between the roots: MPI_COMM_WORLD's collective context, a tag
 * the collectives (below 0x3ff00000) and comm construction (0x3ffffff0..3)
 * do not use, and a source rank no communicator has (>= 2^30), drawn from
 * the pair secret: the device matches on (context, source, tag), not on the
 * process a packet came from, so two introductions a process runs at once
 * (threads accepting on two ports) must not share a source. */
enum { DYN_TAG_BRIDGE = 0x3fffcfff, DYN_BRIDGE_RANK_BASE = 0x40000000 };

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

static const char magic_req[8] = "CNLPREQ", magic_ans[8] = "CNLPANS", magic_join[8] = "CNLJOIN";

/* The ports this process has open. */
typedef struct dyn_port {
    struct dyn_port *next;
    int64_t num;
    unsigned char secret[DYN_SECRET];
    adi_dyn_listener_t *listener;
} dyn_port_t;

static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
static dyn_port_t *port_list;
static int64_t port_next;

/* The intercommunicator to the parent job (spawned processes), until freed. */
static mpi_comm_t *parent_comm;

/* ---------------------------------------------------------------- helpers */
static int secret_equal(const unsigned char *a, const unsigned char *b)
{
    unsigned char d = 0;
    for (int i = 0; i < DYN_SECRET; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* ---------------------------------------------------------------- port names */
typedef struct {
    char jobid[sizeof mpi_pmi.jobid];
    int rank;
    int64_t num;
    unsigned char secret[DYN_SECRET];
    char addr[ADI_DYN_CARD_MAX];
} port_parts_t;

/* Split "canal-port:<jobid>:<rank>:<num>/<secret hex>@<addr>" (the job id
 * may itself contain ':', so the rest is taken from the right). 0 when
 * well formed. */
static int port_parse(const char *name, port_parts_t *out)
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
static int port_open(char *name, const char *fn, char *why, size_t whylen)
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
static dyn_port_t *port_find(const char *name, int unlink)
{
    port_parts_t pp;
    dyn_port_t *found = NULL;

    if (name == NULL || port_parse(name, &pp) != 0 || strcmp(pp.jobid, mpi_pmi.jobid) != 0 ||
        pp.rank != mpi_comm_world_obj.rank)
        return NULL;
    pthread_mutex_lock(&port_lock);
    for (dyn_port_t **pp2 = &port_list; *pp2 != NULL; pp2 = &(*pp2)->next) {
        if ((*pp2)->num == pp.num && secret_equal((*pp2)->secret, pp.secret)) {
            found = *pp2;
            if (unlink)
                *pp2 = found->next;
            break;
        }
    }
    pthread_mutex_unlock(&port_lock);
    return found;
}

static void port_free(dyn_port_t *p)
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
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if ((err = port_open(port_name, fn, why, sizeof why)) != MPI_SUCCESS)
        return mpi_err_raise(NULL, err, fn, "%s", why);
    return MPI_SUCCESS;
}

int mpi_close_port_impl(const char *port_name, const char *fn)
{
    dyn_port_t *found;

    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    if ((found = port_find(port_name, 1)) == NULL)
        return mpi_err_raise(NULL, MPI_ERR_PORT, fn,
                             "port_name='%.100s' is not a port this process opened (or it was "
                             "closed already)",
                             port_name);
    port_free(found);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- building the intercomm */
/* Every member of c: this process as the other group will know it. */
static uint64_t job_hash(const char *jobid)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *p = jobid; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* Whether c's group holds a process of another job (device index past the
 * job's ranks); all members of c see it alike. */
static int comm_mixes_jobs(mpi_comm_t *c)
{
    mpi_group_t *g = mpi_comm_local_group(c);
    for (int i = 0; g != NULL && i < g->size; i++)
        if (mpi_group_member(g, i) >= mpi_pmi.size)
            return 1;
    return 0;
}

/* cross: cards are needed (a failure to make one is logged); 2: they are
 * wanted in case the other side needs them (a failure is quiet). */
static int gather_members(mpi_comm_t *c, int root, int cross, dyn_member_t **all_out,
                          const char *fn)
{
    dyn_member_t me;
    dyn_member_t *all = NULL;
    int err;

    memset(&me, 0, sizeof me);
    me.job_rank = mpi_pmi.rank;
    me.job_hash = job_hash(mpi_pmi.jobid);
    if (cross && adi_dyn_card(me.card, sizeof me.card) < 0) {
        if (cross == 1)
            LOG_WARN("cannot open a channel to other jobs: %s", common_err_detail());
        me.card[0] = '\0';
    }
    if (c->rank == root && (all = calloc((size_t)c->size, sizeof *all)) == NULL)
        return MPI_ERR_NO_MEM; /* the others wait in the gather: fatal by class */
    err = mpi_gather_impl(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, root, c, fn);
    if (err != MPI_SUCCESS) {
        free(all);
        return err;
    }
    *all_out = all;
    return MPI_SUCCESS;
}

/* The bridge's source rank of one introduction: both roots know the pair
 * secret, and no other introduction has it. */
static int dyn_bridge_rank(const unsigned char secret[DYN_SECRET])
{
    uint32_t v = (uint32_t)secret[0] | (uint32_t)secret[1] << 8 | (uint32_t)secret[2] << 16 |
                 (uint32_t)secret[3] << 24;
    return DYN_BRIDGE_RANK_BASE | (int)(v & 0x3fffffffu);
}

/* Everybody: the remote group is known (hdr: its size, root, the pair
 * secret; remote: its members); make them peers and build the
 * intercommunicator. */
static int build_inter(mpi_comm_t *c, int root, const dyn_hello_t *hdr, const dyn_member_t *remote,
                       MPI_Comm *newcomm, const char *fn)
{
    int *idx = malloc(sizeof *idx * (size_t)(hdr->n > 0 ? hdr->n : 1));
    mpi_group_t *rg = NULL;
    mpi_comm_t *n = NULL;
    mpi_dom_t d, ld;
    canal_status_t st;
    int ctx, lctx, err;

    if (idx == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < hdr->n; i++) {
        if (!hdr->cross || remote[i].job_hash == job_hash(mpi_pmi.jobid)) {
            idx[i] = remote[i].job_rank;
            continue;
        }
        if ((st = adi_dyn_peer_connect(remote[i].card, hdr->secret, &idx[i])) < 0) {
            free(idx);
            return mpi_err_raise(c, mpi_err_class_of_status(st), fn,
                                 "cannot make remote process %d ('%.100s') a peer: %s", i,
                                 remote[i].card, common_err_detail());
        }
    }
    mpi_dom_of_comm(c, MPI_TAG_XCHG, &d);
    d.root = root;
    d.bridged = 1;
    d.b_context = mpi_comm_world_obj.context + 1;
    d.b_tag = DYN_TAG_BRIDGE;
    d.b_my_rank = dyn_bridge_rank(hdr->secret);
    d.b_peer_rank = d.b_my_rank;
    d.b_peer_job = idx[hdr->root];
    mpi_dom_of_comm(c, MPI_TAG_CTX_AGREE, &ld);
    rg = mpi_group_new_list(idx, hdr->n);
    free(idx);
    if (rg == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        mpi_group_release(rg);
        return mpi_err_status(c, st, fn);
    }
    if ((st = mpi_comm_context_agree(&ld, &lctx)) < 0) {
        mpi_comm_context_free(ctx);
        mpi_group_release(rg);
        return mpi_err_status(c, st, fn);
    }
    err = mpi_comm_new_inter(c, ctx, mpi_comm_local_group(c), rg, lctx, &n);
    mpi_group_release(rg);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
        return mpi_err_raise(c, err, fn, "cannot create the intercommunicator");
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* The root's verdict reaches the group, then the remote members; a failed
 * verdict is raised everywhere (the root's message at the root). */
static int share_remote(mpi_comm_t *c, int root, dyn_hello_t *hdr, dyn_member_t **remote,
                        const char *fn)
{
    int err = mpi_bcast_impl(hdr, sizeof *hdr, MPI_BYTE, root, c, fn);

    if (err != MPI_SUCCESS)
        return err;
    if (hdr->status != MPI_SUCCESS) {
        if (c->rank == root)
            return mpi_err_raise(c, hdr->status, fn, "%s", hdr->why);
        return mpi_err_raise(c, hdr->status, fn, "the root (rank %d) failed: %s", root, hdr->why);
    }
    if (c->rank != root && (*remote = calloc((size_t)hdr->n, sizeof **remote)) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "out of memory");
    return mpi_bcast_impl(*remote, (MPI_Count)(sizeof **remote * (size_t)hdr->n), MPI_BYTE, root, c,
                          fn);
}

/* A bootstrap message: hdr then n members. */
static canal_status_t blob_send(int link, const dyn_hello_t *hdr, const dyn_member_t *m, int n)
{
    size_t len = sizeof *hdr + sizeof *m * (size_t)n;
    unsigned char *buf = malloc(len);
    canal_status_t st;

    if (buf == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for %zu bytes", len);
    memcpy(buf, hdr, sizeof *hdr);
    if (n > 0)
        memcpy(buf + sizeof *hdr, m, sizeof *m * (size_t)n);
    st = adi_dyn_send(link, buf, len);
    free(buf);
    return st;
}

/* Receive one; checks the magic and that the members announced are there. */
static canal_status_t blob_recv(int link, const char magic[8], double timeout, dyn_hello_t *hdr,
                                dyn_member_t **m_out)
{
    void *buf;
    size_t len;
    canal_status_t st = adi_dyn_recv(link, &buf, &len, timeout);

    if (st < 0)
        return st;
    if (len < sizeof *hdr) {
        free(buf);
        return common_err_set(CANAL_ERR_PROTO, "a message of %zu bytes is no Canal connect message",
                              len);
    }
    memcpy(hdr, buf, sizeof *hdr);
    hdr->jobid[sizeof hdr->jobid - 1] = '\0';
    hdr->why[sizeof hdr->why - 1] = '\0';
    if (memcmp(hdr->magic, magic, 8) != 0 || hdr->n < 0 || hdr->n > (1 << 22) ||
        len != sizeof *hdr + sizeof **m_out * (size_t)hdr->n ||
        (hdr->status == MPI_SUCCESS && (hdr->root < 0 || hdr->root >= hdr->n))) {
        free(buf);
        return common_err_set(CANAL_ERR_PROTO,
                              "malformed connect message (%zu bytes; a Canal of another version "
                              "or byte order?)",
                              len);
    }
    if ((*m_out = malloc(sizeof **m_out * (size_t)(hdr->n > 0 ? hdr->n : 1))) == NULL) {
        free(buf);
        return common_err_set(CANAL_ERR_NOMEM, "no memory");
    }
    memcpy(*m_out, (unsigned char *)buf + sizeof *hdr, sizeof **m_out * (size_t)hdr->n);
    for (int i = 0; i < hdr->n; i++)
        (*m_out)[i].card[ADI_DYN_CARD_MAX - 1] = '\0';
    free(buf);
    return CANAL_OK;
}

static int cards_complete(const dyn_member_t *m, int n, char *why, size_t len)
{
    for (int i = 0; i < n; i++) {
        if (m[i].card[0] == '\0') {
            snprintf(why, len, "rank %d of the group cannot open a channel to other jobs (see "
                     "its log)", i);
            return 0;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- intercomm_create */
int mpi_dyn_intercomm_cross(mpi_comm_t *lc, int leader, const mpi_dom_t *d, MPI_Comm *newcomm,
                            const char *fn)
{
    static const char magic_icc[8] = "CNLICRT";
    dyn_hello_t hdr, rhdr;
    dyn_member_t *mine = NULL, *remote = NULL;
    unsigned char *blob = NULL, *theirs = NULL;
    size_t len = 0, tlen = 0;
    canal_status_t st;
    int err;

    if ((err = gather_members(lc, leader, 1, &mine, fn)) != MPI_SUCCESS)
        return err;
    memset(&hdr, 0, sizeof hdr);
    if (lc->rank == leader) {
        memcpy(hdr.magic, magic_icc, 8);
        hdr.n = lc->size;
        hdr.root = leader;
        hdr.cross = 1;
        snprintf(hdr.jobid, sizeof hdr.jobid, "%s", mpi_pmi.jobid);
        if ((st = common_random_bytes(hdr.secret, DYN_SECRET)) < 0) {
            hdr.status = mpi_err_class_of_status(st);
            snprintf(hdr.why, sizeof hdr.why, "%s", common_err_detail());
        } else if (!cards_complete(mine, lc->size, hdr.why, sizeof hdr.why)) {
            hdr.status = MPI_ERR_OTHER;
        }
        len = sizeof hdr + (hdr.status == MPI_SUCCESS ? sizeof *mine * (size_t)lc->size : 0);
        if ((blob = malloc(len)) == NULL) {
            free(mine);
            return mpi_err_raise(lc, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        memcpy(blob, &hdr, sizeof hdr);
        if (len > sizeof hdr)
            memcpy(blob + sizeof hdr, mine, len - sizeof hdr);
    }
    free(mine);
    /* the remote leader's blob reaches every member, then this leader's head
     * (the pair secret is both leaders' halves together) */
    st = mpi_dom_bridge_swap(d, blob, len, (void **)&theirs, &tlen);
    free(blob);
    if (st < 0)
        return mpi_err_status(lc, st, fn);
    if ((err = mpi_bcast_impl(&hdr, sizeof hdr, MPI_BYTE, leader, lc, fn)) != MPI_SUCCESS) {
        free(theirs);
        return err;
    }
    if (tlen < sizeof rhdr) {
        free(theirs);
        return mpi_err_raise(lc, MPI_ERR_INTERN, fn, "the remote leader sent %zu bytes", tlen);
    }
    memcpy(&rhdr, theirs, sizeof rhdr);
    rhdr.why[sizeof rhdr.why - 1] = '\0';
    if (hdr.status != MPI_SUCCESS || rhdr.status != MPI_SUCCESS) {
        int local = hdr.status != MPI_SUCCESS;
        free(theirs);
        return mpi_err_raise(lc, local ? hdr.status : rhdr.status, fn, "the %s group failed: %s",
                             local ? "local" : "remote", local ? hdr.why : rhdr.why);
    }
    if (memcmp(rhdr.magic, magic_icc, 8) != 0 || rhdr.n < 1 || rhdr.root < 0 ||
        rhdr.root >= rhdr.n || tlen != sizeof rhdr + sizeof *remote * (size_t)rhdr.n) {
        free(theirs);
        return mpi_err_raise(lc, MPI_ERR_INTERN, fn,
                             "malformed group from the remote leader (%zu bytes)", tlen);
    }
    if ((remote = malloc(sizeof *remote * (size_t)rhdr.n)) == NULL) {
        free(theirs);
        return mpi_err_raise(lc, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    memcpy(remote, theirs + sizeof rhdr, sizeof *remote * (size_t)rhdr.n);
    free(theirs);
    for (int i = 0; i < rhdr.n; i++)
        remote[i].card[ADI_DYN_CARD_MAX - 1] = '\0';
    for (int i = 0; i < DYN_SECRET; i++)
        rhdr.secret[i] ^= hdr.secret[i];
    err = build_inter(lc, leader, &rhdr, remote, newcomm, fn);
    free(remote);
    return err;
}

/* ---------------------------------------------------------------- accept/connect */
/* The checks every process of accept/connect makes. */
static int check_common(const char *fn, MPI_Info info, int root, mpi_comm_t *c)
{
    MPI_Comm comm = c->handle;

    if (c->is_inter)
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator; %s needs an "
                             "intracommunicator", (unsigned)comm, fn);
    if (root < 0 || root >= c->size)
        return mpi_err_raise(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    if (c->rank == root && info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    return MPI_SUCCESS;
}

/* The accepting side, on an open port p (significant at the root only;
 * NULL there means a bad port name, why says so). */
static int accept_on(dyn_port_t *p, const char *why_bad, double timeout_s, int root,
                     mpi_comm_t *c, MPI_Comm *newcomm, const char *fn)
{
    dyn_hello_t hdr, req;
    dyn_member_t *remote = NULL, *mine = NULL;
    int link = -1, err;
    canal_status_t st;

    memset(&hdr, 0, sizeof hdr);
    if (c->rank == root) {
        hdr.status = MPI_ERR_PORT;
        if (p == NULL) {
            snprintf(hdr.why, sizeof hdr.why, "%s", why_bad);
        } else {
            /* Wait for a connect proving this port's secret; others are
             * refused with a reason and the port stays open. */
            for (;;) {
                dyn_hello_t ans;
                if ((st = adi_dyn_accept(p->listener, timeout_s, &link)) < 0) {
                    hdr.status = mpi_err_class_of_status(st);
                    snprintf(hdr.why, sizeof hdr.why, "%s", common_err_detail());
                    if (st == CANAL_ERR_TIMEOUT) {
                        hdr.status = MPI_ERR_SPAWN;
                        snprintf(hdr.why, sizeof hdr.why,
                                 "the spawned processes did not connect within %g s "
                                 "(CANAL_SPAWN_TIMEOUT); did they start, and call MPI_Init?",
                                 timeout_s);
                    }
                    break;
                }
                st = blob_recv(link, magic_req, 30.0, &req, &remote);
                if (st >= 0 && req.port == p->num && secret_equal(req.secret, p->secret) &&
                    req.status == MPI_SUCCESS) {
                    if (!adi_dyn_hung_up(link))
                        break;
                    /* its root gave up waiting (connect timeout) and left */
                    LOG_INFO("%s: dropping a connect whose root stopped waiting", fn);
                    free(remote);
                    remote = NULL;
                    adi_dyn_close(link);
                    link = -1;
                    continue;
                }
                memset(&ans, 0, sizeof ans);
                memcpy(ans.magic, magic_ans, 8);
                ans.status = MPI_ERR_PORT;
                snprintf(ans.why, sizeof ans.why, "%s",
                         st < 0 ? common_err_detail() : "the port's secret does not match");
                LOG_INFO("%s: refusing a connect: %s", fn, ans.why);
                if (st >= 0)
                    blob_send(link, &ans, NULL, 0);
                free(remote);
                remote = NULL;
                adi_dyn_close(link);
                link = -1;
            }
            if (link >= 0) {
                hdr = req;
                hdr.status = MPI_SUCCESS;
                /* cards name the members when a group holds processes of two
                 * jobs (the connecting root's verdict on its group travels in
                 * req.cross, and it sends cards anyway) */
                hdr.cross =
                    strcmp(req.jobid, mpi_pmi.jobid) != 0 || req.cross || comm_mixes_jobs(c);
                if ((st = common_random_bytes(hdr.secret, DYN_SECRET)) < 0) {
                    hdr.status = mpi_err_class_of_status(st);
                    snprintf(hdr.why, sizeof hdr.why, "%s", common_err_detail());
                } else if (hdr.cross && !cards_complete(remote, req.n, hdr.why, sizeof hdr.why)) {
                    hdr.status = MPI_ERR_OTHER;
                }
            }
        }
    }
    if ((err = share_remote(c, root, &hdr, &remote, fn)) != MPI_SUCCESS) {
        free(remote);
        if (link >= 0)
            adi_dyn_close(link);
        return err;
    }
    err = gather_members(c, root, hdr.cross, &mine, fn);
    if (c->rank == root && link >= 0) {
        dyn_hello_t ans;
        memset(&ans, 0, sizeof ans);
        memcpy(ans.magic, magic_ans, 8);
        ans.n = c->size;
        ans.root = root;
        ans.cross = hdr.cross;
        memcpy(ans.secret, hdr.secret, DYN_SECRET);
        snprintf(ans.jobid, sizeof ans.jobid, "%s", mpi_pmi.jobid);
        if (err != MPI_SUCCESS) {
            ans.status = MPI_ERR_OTHER;
            snprintf(ans.why, sizeof ans.why, "the accepting group failed");
        } else if (hdr.cross && !cards_complete(mine, c->size, ans.why, sizeof ans.why)) {
            ans.status = MPI_ERR_OTHER;
        }
        st = blob_send(link, &ans, mine, ans.status == MPI_SUCCESS ? c->size : 0);
        adi_dyn_close(link);
        if (err == MPI_SUCCESS && (ans.status != MPI_SUCCESS || st < 0))
            err = MPI_ERR_OTHER; /* the group learns it below */
    }
    free(mine);
    {
        /* The root tells whether the answer went out. */
        int ok = err == MPI_SUCCESS;
        if (mpi_bcast_impl(&ok, 1, MPI_INT, root, c, fn) != MPI_SUCCESS || !ok) {
            free(remote);
            return mpi_err_raise(c, MPI_ERR_OTHER, fn,
                                 "the connect failed after the port was reached (see the "
                                 "root's log)");
        }
    }
    err = build_inter(c, root, &hdr, remote, newcomm, fn);
    free(remote);
    return err;
}

/* The connecting side. */
/* How long the connecting root waits for an accept (seconds, < 0: for
 * ever): the call's info key "timeout", else CANAL_CONNECT_TIMEOUT
 * (MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT). 0 if the key is not a number of
 * seconds (why says so). A spawned job's connect to its parent (spawned:
 * the parent accepts, and CANAL_SPAWN_TIMEOUT bounds its wait) waits for
 * ever. */
static double connect_timeout(MPI_Info info, int spawned, char *why, size_t len)
{
    const char *v = info != MPI_INFO_NULL ? mpi_info_lookup(info, "timeout") : NULL;
    long long t;

    if (spawned)
        return -1;
    if (v != NULL) {
        char *end;
        errno = 0;
        t = strtoll(v, &end, 10);
        if (end == v || *end != '\0' || errno != 0 || t <= 0 || t > 1000000000) {
            snprintf(why, len, "info key timeout='%.40s' is not a positive number of seconds", v);
            return 0;
        }
        return (double)t;
    }
    t = common_cvar_int("CONNECT_TIMEOUT");
    return t > 0 ? (double)t : -1;
}

static int connect_to(const char *port_name, MPI_Info info, int spawned, int root, mpi_comm_t *c,
                      MPI_Comm *newcomm, const char *fn)
{
    double timeout = -1;
    port_parts_t pp;
    dyn_hello_t hdr, req;
    dyn_member_t *remote = NULL, *mine = NULL;
    int link = -1, err, pre[2] = {MPI_SUCCESS, 0};
    canal_status_t st;
    char why[DYN_WHY] = "";

    memset(&hdr, 0, sizeof hdr);
    if (c->rank == root) {
        pre[0] = MPI_ERR_PORT;
        if (port_name == NULL)
            snprintf(why, sizeof why, "port_name is NULL (at the root)");
        else if (port_parse(port_name, &pp) != 0)
            snprintf(why, sizeof why, "port_name='%.100s' is not a port name of Canal", port_name);
        else if (strcmp(pp.jobid, mpi_pmi.jobid) == 0 && pp.rank == mpi_pmi.rank)
            snprintf(why, sizeof why,
                     "port_name='%.100s' was opened by this very process; connecting a process "
                     "to itself is not supported by Canal",
                     port_name);
        else if ((timeout = connect_timeout(info, spawned, why, sizeof why)) == 0)
            pre[0] = MPI_ERR_INFO;
        else
            pre[0] = MPI_SUCCESS,
            pre[1] = strcmp(pp.jobid, mpi_pmi.jobid) != 0 || comm_mixes_jobs(c);
    }
    if ((err = mpi_bcast_impl(pre, 2, MPI_INT, root, c, fn)) != MPI_SUCCESS)
        return err;
    if (pre[0] != MPI_SUCCESS)
        return mpi_err_raise(c, pre[0], fn, "%s",
                             c->rank == root ? why : "the root failed; see its error");
    /* cards even within one job: the accepting group may mix jobs */
    if ((err = gather_members(c, root, pre[1] ? 1 : 2, &mine, fn)) != MPI_SUCCESS)
        return err;
    if (c->rank == root) {
        hdr.status = MPI_ERR_PORT;
        memset(&req, 0, sizeof req);
        memcpy(req.magic, magic_req, 8);
        req.n = c->size;
        req.root = root;
        req.cross = pre[1];
        req.port = pp.num;
        memcpy(req.secret, pp.secret, DYN_SECRET);
        snprintf(req.jobid, sizeof req.jobid, "%s", mpi_pmi.jobid);
        if (pre[1] && !cards_complete(mine, c->size, hdr.why, sizeof hdr.why)) {
            hdr.status = MPI_ERR_OTHER;
        } else if ((st = adi_dyn_dial(pp.addr, &link)) < 0 ||
                   (st = blob_send(link, &req, mine, c->size)) < 0 ||
                   (st = blob_recv(link, magic_ans, timeout, &hdr, &remote)) < 0) {
            hdr.status = MPI_ERR_PORT;
            if (st == CANAL_ERR_TIMEOUT)
                snprintf(hdr.why, sizeof hdr.why,
                         "port_name='%.100s': nobody accepted within %g s (the info key "
                         "\"timeout\", else CANAL_CONNECT_TIMEOUT or "
                         "MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT)",
                         port_name, timeout);
            else
                snprintf(hdr.why, sizeof hdr.why, "port_name='%.100s': %s", port_name,
                         common_err_detail());
        } else if (hdr.status != MPI_SUCCESS) {
            char w[DYN_WHY];
            snprintf(w, sizeof w, "%s", hdr.why);
            snprintf(hdr.why, sizeof hdr.why, "port_name='%.60s' refused the connect: %.150s",
                     port_name, w);
        }
        adi_dyn_close(link);
    }
    free(mine);
    if ((err = share_remote(c, root, &hdr, &remote, fn)) != MPI_SUCCESS) {
        free(remote);
        return err;
    }
    err = build_inter(c, root, &hdr, remote, newcomm, fn);
    free(remote);
    return err;
}

int mpi_comm_accept_impl(const char *port_name, MPI_Info info, int root, mpi_comm_t *c,
                         MPI_Comm *newcomm, const char *fn)
{
    dyn_port_t *p = NULL;
    char why[DYN_WHY] = "";
    int err;

    if ((err = check_common(fn, info, root, c)))
        return err;
    if (c->rank == root) {
        if (port_name == NULL)
            snprintf(why, sizeof why, "port_name is NULL (at the root)");
        else if ((p = port_find(port_name, 0)) == NULL)
            snprintf(why, sizeof why,
                     "port_name='%.100s' is not an open port of this process (MPI_Open_port "
                     "at the root gives one)",
                     port_name);
    }
    return accept_on(p, why, -1, root, c, newcomm, fn);
}

int mpi_comm_connect_impl(const char *port_name, MPI_Info info, int root, mpi_comm_t *c,
                          MPI_Comm *newcomm, const char *fn)
{
    int err;

    if ((err = check_common(fn, info, root, c)))
        return err;
    return connect_to(port_name, info, 0, root, c, newcomm, fn);
}

int mpi_comm_disconnect_impl(MPI_Comm *comm, const char *fn)
{
    mpi_comm_t *c = NULL;
    int err;

    if ((err = mpi_check_comm(*comm, fn, &c)))
        return err;
    if (c == &mpi_comm_world_obj || c == &mpi_comm_self_obj)
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "%s cannot be disconnected", c->name);
    /* Collective: a barrier over comm, so that both groups are done with it
     * (and what either sent has been taken: Canal's sends complete once the
     * device has handed their data on, receives once matched) before the
     * context can be reused. Requests the user still holds keep their own
     * reference. The device peers of another job stay known (and
     * connected): a later connect to the same processes reuses them. */
    err = mpi_barrier_impl(c, fn);
    if (err != MPI_SUCCESS)
        return err;
    return mpi_comm_free_impl(comm, fn);
}

/* ---------------------------------------------------------------- join */
int mpi_comm_join_impl(int fd, MPI_Comm *intercomm, const char *fn)
{
    mpi_comm_t *c = &mpi_comm_self_obj;
    dyn_hello_t mine, theirs;
    dyn_member_t me, *remote = NULL;
    canal_status_t st;
    int err;

    if (fd < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "fd=%d is not a file descriptor", fd);
    memset(&mine, 0, sizeof mine);
    memset(&me, 0, sizeof me);
    memcpy(mine.magic, magic_join, 8);
    mine.n = 1;
    snprintf(mine.jobid, sizeof mine.jobid, "%s", mpi_pmi.jobid);
    me.job_rank = mpi_pmi.rank;
    /* The card is sent even within one job: the other side decides. */
    if ((st = adi_dyn_card(me.card, sizeof me.card)) < 0 ||
        (st = common_random_bytes(mine.secret, DYN_SECRET)) < 0 ||
        (st = blob_send(fd, &mine, &me, 1)) < 0 ||
        (st = blob_recv(fd, magic_join, -1, &theirs, &remote)) < 0) {
        free(remote);
        return mpi_err_raise(NULL, mpi_err_class_of_status(st) == MPI_ERR_INTERN
                                       ? MPI_ERR_INTERN
                                       : MPI_ERR_OTHER,
                             fn, "fd=%d: the exchange with the other process failed: %s", fd,
                             common_err_detail());
    }
    if (theirs.n != 1) {
        free(remote);
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn, "fd=%d: the other side is no MPI_Comm_join",
                             fd);
    }
    for (int i = 0; i < DYN_SECRET; i++)
        theirs.secret[i] ^= mine.secret[i];
    theirs.root = 0;
    theirs.cross = strcmp(theirs.jobid, mpi_pmi.jobid) != 0;
    if (!theirs.cross && remote[0].job_rank == mpi_pmi.rank) {
        free(remote);
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn,
                             "fd=%d leads back to this very process; join needs two processes",
                             fd);
    }
    err = build_inter(c, 0, &theirs, remote, intercomm, fn);
    free(remote);
    return err;
}

/* ---------------------------------------------------------------- spawn */
/* Where `path` (info key "path": directories separated by ':') has an
 * executable called cmd, or NULL. Commands with a '/' are taken as they are. */
static char *path_resolve(const char *cmd, const char *path)
{
    if (path == NULL || strchr(cmd, '/') != NULL)
        return NULL;
    for (const char *p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        char *full = malloc(n + strlen(cmd) + 2);
        if (full == NULL)
            return NULL;
        snprintf(full, n + strlen(cmd) + 2, "%.*s/%s", (int)n, p, cmd);
        if (n > 0 && access(full, X_OK) == 0)
            return full;
        free(full);
        p += n + (e != NULL);
    }
    return NULL;
}

/* Whether cmd names an executable this process can find: absolute, relative
 * to wdir (or the current directory), or on PATH. */
static int exec_findable(const char *cmd, const char *wdir)
{
    char full[4096];
    const char *path;

    if (strchr(cmd, '/') != NULL) {
        if (cmd[0] == '/' || wdir == NULL)
            return access(cmd, X_OK) == 0;
        snprintf(full, sizeof full, "%s/%s", wdir, cmd);
        return access(full, X_OK) == 0;
    }
    if ((path = getenv("PATH")) == NULL)
        return 0;
    for (const char *p = path; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        snprintf(full, sizeof full, "%.*s/%s", (int)n, n > 0 ? p : ".", cmd);
        if (access(full, X_OK) == 0)
            return 1;
        p += n + (e != NULL);
    }
    return 0;
}

/* The root's part of a spawn: check the commands, start them with the port
 * preput. MPI_SUCCESS, or an error class with why. */
static int spawn_start(int count, char *commands[], char **argvs[], const int maxprocs[],
                       const MPI_Info infos[], const char *port, int *total_out, char *why,
                       size_t whylen)
{
    pmi_spawn_cmd_t *cmds = calloc((size_t)count, sizeof *cmds);
    /* Per command at most two info pairs go on: wdir and (resolved) path. */
    const char **keys = calloc((size_t)count * 2 + 1, sizeof *keys);
    const char **vals = calloc((size_t)count * 2 + 1, sizeof *vals);
    char **resolved = calloc((size_t)count + 1, sizeof *resolved);
    /* Preput: the port, and per command its mpi_memory_alloc_kinds and
     * mpi_initial_errhandler (mpi/envkeys.c) */
    const char **pkey = calloc((size_t)count * 2 + 1, sizeof *pkey);
    const char **pval = calloc((size_t)count * 2 + 1, sizeof *pval);
    char(*pstore)[96] = calloc((size_t)count * 2 + 1, sizeof *pstore);
    char jobid[256];
    int err = MPI_SUCCESS, total = 0, npre = 1;
    canal_status_t st;

    if (cmds == NULL || keys == NULL || vals == NULL || resolved == NULL || pkey == NULL ||
        pval == NULL || pstore == NULL) {
        snprintf(why, whylen, "out of memory");
        err = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 0; i < count; i++) {
        MPI_Info info = infos != NULL ? infos[i] : MPI_INFO_NULL;
        const char *wdir = NULL, *path = NULL, *host = NULL;
        if (commands[i] == NULL || commands[i][0] == '\0') {
            snprintf(why, whylen, "command %d is NULL or empty", i);
            err = MPI_ERR_SPAWN;
            goto out;
        }
        if (maxprocs[i] < 1) {
            snprintf(why, whylen, "maxprocs=%d for command %d ('%.60s') is not positive",
                     maxprocs[i], i, commands[i]);
            err = MPI_ERR_SPAWN;
            goto out;
        }
        if (total > INT32_MAX - maxprocs[i]) {
            snprintf(why, whylen, "too many processes");
            err = MPI_ERR_SPAWN;
            goto out;
        }
        total += maxprocs[i];
        if (info != MPI_INFO_NULL && !mpi_info_valid(info)) {
            snprintf(why, whylen, "info=%#x for command %d is not a valid info object",
                     (unsigned)info, i);
            err = MPI_ERR_INFO;
            goto out;
        }
        /* The reserved keys the launcher can honour: wdir, host (Canal's
         * mpiexec across hosts places the children there), and path (done
         * here); mpi_memory_alloc_kinds and mpi_initial_errhandler reach the
         * children through the key-value space. arch, file and soft are
         * ignored, as the standard allows. */
        if (info != MPI_INFO_NULL) {
            wdir = mpi_info_lookup(info, "wdir");
            path = mpi_info_lookup(info, "path");
            host = mpi_info_lookup(info, "host");
        }
        if ((err = mpi_spawn_keys_preput(info, i, pkey, pval, &npre, pstore, why, whylen)) !=
            MPI_SUCCESS)
            goto out;
        cmds[i].command = commands[i];
        if (path != NULL && (resolved[i] = path_resolve(commands[i], path)) != NULL)
            cmds[i].command = resolved[i];
        /* Some launchers (Hydra) answer a spawn before the programs run, so
         * a missing one would leave the parent waiting: look first. */
        if (common_cvar_bool("SPAWN_CHECK") && !exec_findable(cmds[i].command, wdir)) {
            snprintf(why, whylen,
                     "cannot find an executable '%.100s'%s (command %d; CANAL_SPAWN_CHECK=0 "
                     "leaves the search to the launcher)",
                     cmds[i].command,
                     strchr(cmds[i].command, '/') != NULL ? "" : " in PATH or the info key path",
                     i);
            err = MPI_ERR_SPAWN;
            goto out;
        }
        cmds[i].argv = argvs != NULL ? (const char *const *)argvs[i] : NULL;
        cmds[i].maxprocs = maxprocs[i];
        cmds[i].info_keys = keys + 2 * i;
        cmds[i].info_vals = vals + 2 * i;
        if (wdir != NULL) {
            keys[2 * i + cmds[i].ninfo] = "wdir";
            vals[2 * i + cmds[i].ninfo++] = wdir;
        }
        if (host != NULL) {
            keys[2 * i + cmds[i].ninfo] = "host";
            vals[2 * i + cmds[i].ninfo++] = host;
        }
    }
    adi_lock();
    pkey[0] = parent_port_key;
    pval[0] = port;
    st = pmi_spawn(count, cmds, npre, pkey, pval, jobid, sizeof jobid);
    adi_unlock();
    if (st < 0) {
        snprintf(why, whylen, "%s", common_err_detail());
        err = MPI_ERR_SPAWN;
    }
out:
    for (int i = 0; resolved != NULL && i < count; i++)
        free(resolved[i]);
    free(resolved);
    free(cmds);
    free(keys);
    free(vals);
    free(pkey);
    free(pval);
    free(pstore);
    *total_out = total;
    return err;
}

/* The processes a spawn asked for, as far as maxprocs[] is valid: a failed
 * spawn gives each of them an error code (MPI 4.0 10.3.3), not only those of
 * the commands before the failing one. */
static int spawn_requested(int count, const int maxprocs[])
{
    int total = 0;
    for (int i = 0; i < count && maxprocs[i] >= 1 && total <= INT32_MAX - maxprocs[i]; i++)
        total += maxprocs[i];
    return total;
}

static _Thread_local int spawn_codes;
int mpi_spawn_codes_written(void) { return spawn_codes; }

static int spawn_common(int count, char *commands[], char **argvs[], const int maxprocs[],
                        const MPI_Info infos[], int root, mpi_comm_t *c, MPI_Comm *intercomm,
                        int errcodes[], const char *fn)
{
    MPI_Comm comm = c->handle;
    char port[MPI_MAX_PORT_NAME] = "";
    struct {
        int status, total;
        char why[DYN_WHY];
    } res;
    int err;

    spawn_codes = 0;
    if (c->is_inter)
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator; %s needs an "
                             "intracommunicator", (unsigned)comm, fn);
    if (root < 0 || root >= c->size)
        return mpi_err_raise(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    memset(&res, 0, sizeof res);
    if (c->rank == root) {
        if (count < 1) {
            res.status = MPI_ERR_ARG;
            snprintf(res.why, sizeof res.why, "count=%d is not positive", count);
        } else if (commands == NULL || maxprocs == NULL) {
            res.status = MPI_ERR_ARG;
            snprintf(res.why, sizeof res.why, "%s is NULL",
                     commands == NULL ? "the command array" : "the maxprocs array");
        } else if ((res.status = port_open(port, fn, res.why, sizeof res.why)) == MPI_SUCCESS) {
            res.status = spawn_start(count, commands, argvs, maxprocs, infos, port, &res.total,
                                     res.why, sizeof res.why);
            if (res.status != MPI_SUCCESS)
                res.total = spawn_requested(count, maxprocs);
        }
    }
    if ((err = mpi_bcast_impl(&res, sizeof res, MPI_BYTE, root, c, fn)) != MPI_SUCCESS)
        return err;
    if (errcodes != MPI_ERRCODES_IGNORE) {
        for (int i = 0; i < res.total; i++)
            errcodes[i] = res.status;
        spawn_codes = res.total;
    }
    if (res.status != MPI_SUCCESS) {
        dyn_port_t *p = port[0] ? port_find(port, 1) : NULL;
        if (p != NULL)
            port_free(p);
        *intercomm = MPI_COMM_NULL;
        return mpi_err_raise(c, res.status, fn, "%s",
                             c->rank == root ? res.why : "the root failed to spawn; see its error");
    }
    {
        dyn_port_t *p = c->rank == root ? port_find(port, 1) : NULL;
        long long t = common_cvar_int("SPAWN_TIMEOUT");
        err = accept_on(p, "internal port lost", t > 0 ? (double)t : -1, root, c, intercomm, fn);
        if (p != NULL)
            port_free(p);
        if (err != MPI_SUCCESS && errcodes != MPI_ERRCODES_IGNORE)
            for (int i = 0; i < res.total; i++)
                errcodes[i] = MPI_ERR_SPAWN;
    }
    return err;
}

int mpi_comm_spawn_impl(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                        mpi_comm_t *comm, MPI_Comm *intercomm, int array_of_errcodes[],
                        const char *fn)
{
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    int np[1] = {maxprocs};
    MPI_Info infos[1] = {info};

    return spawn_common(1, cmds, argv != MPI_ARGV_NULL ? argvs : NULL, np, infos, root, comm,
                        intercomm, array_of_errcodes, fn);
}

int mpi_comm_spawn_multiple_impl(int count, char *array_of_commands[], char **array_of_argv[],
                                 const int array_of_maxprocs[], const MPI_Info array_of_info[],
                                 int root, mpi_comm_t *comm, MPI_Comm *intercomm,
                                 int array_of_errcodes[], const char *fn)
{
    return spawn_common(count, array_of_commands,
                        array_of_argv != MPI_ARGVS_NULL ? array_of_argv : NULL, array_of_maxprocs,
                        array_of_info, root, comm, intercomm, array_of_errcodes, fn);
}

/* ---------------------------------------------------------------- the parent */
static void parent_free_hook(mpi_comm_t *c)
{
    if (c == parent_comm)
        parent_comm = NULL;
}

/* Called by MPI_Init once everything else is up: a spawned job connects its
 * MPI_COMM_WORLD to the port its parent preput. */
int mpi_dyn_init_parent(void)
{
    static const char fn[] = "MPI_Init";
    char port[PMI_VAL_MAX];
    MPI_Comm pc = MPI_COMM_NULL;
    int err;

    mpi_comm_add_free_hook(parent_free_hook);
    if (!pmi_spawned())
        return MPI_SUCCESS;
    if (pmi_get_job(parent_port_key, port, sizeof port) < 0) {
        LOG_WARN("this job was spawned, but not by Canal's MPI_Comm_spawn (no %s): "
                 "MPI_Comm_get_parent gives MPI_COMM_NULL",
                 parent_port_key);
        return MPI_SUCCESS;
    }
    err = connect_to(port, MPI_INFO_NULL, 1, 0, &mpi_comm_world_obj, &pc, fn);
    if (err == MPI_SUCCESS) {
        parent_comm = mpi_comm_get(pc);
        /* MPI 4.0 11.8.2: its name, as MPI_COMM_WORLD's is "MPI_COMM_WORLD" */
        snprintf(parent_comm->name, sizeof parent_comm->name, "MPI_COMM_PARENT");
    }
    return err;
}

int mpi_comm_get_parent_impl(MPI_Comm *parent, const char *fn)
{
    *parent = parent_comm != NULL ? parent_comm->handle : MPI_COMM_NULL;
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

int mpi_publish_name_impl(const char *service_name, MPI_Info info, const char *port_name,
                          const char *fn)
{
    canal_status_t st;
    int err;

    if ((err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock(); /* pmi/ is not thread-safe */
    st = pmi_publish(service_name, port_name);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_SERVICE, MPI_ERR_SERVICE, fn) : MPI_SUCCESS;
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
    canal_status_t st;
    int err;

    if ((err = check_name_args(fn, service_name, info)))
        return err;
    if (port_name == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    adi_lock();
    st = pmi_unpublish(service_name);
    adi_unlock();
    return st < 0 ? name_error(st, MPI_ERR_SERVICE, MPI_ERR_SERVICE, fn) : MPI_SUCCESS;
}
