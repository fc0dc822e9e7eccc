/*
 * Introductions: MPI_Comm_accept/connect, MPI_Comm_join and
 * MPI_Comm_disconnect. One path serves every connect/accept, within a job
 * or between jobs. The connecting root dials the port's address and sends
 * a request proving the port's secret with its group's members; the
 * accepting root checks it (a wrong one is refused, the port stays open),
 * answers with its group's members and a fresh pair secret, and closes the
 * link; both groups then build the intercommunicator (dyn_inter.c). Join:
 * the two processes swap their cards and half a secret each over the
 * user's socket. A failure after the roots' exchange (a member that cannot
 * reach a remote one) fails that member's calls later, not the
 * construction.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cvar.h"
#include "common/log.h"
#include "common/random.h"
#include "dyn_impl.h"
#include "mpi/api_impl.h"

static const char magic_req[8] = "CNLPREQ", magic_ans[8] = "CNLPANS", magic_join[8] = "CNLJOIN";

/* ---------------------------------------------------------------- accept/connect */
/* The checks every process of accept/connect makes. */
static int check_common(const char *fn, MPI_Info info, int root, mpi_comm_t *c)
{
    MPI_Comm comm = c->handle;

    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "comm=%#x is an intercommunicator; %s needs an "
                            "intracommunicator", (unsigned)comm, fn);
    if (root < 0 || root >= c->size)
        return mpi_err_fail(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    if (c->rank == root && info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    return MPI_SUCCESS;
}

/* The accepting root refuses a connect (a wrong secret, a request it could
 * not read): the reason goes back when the request was read; the link is
 * closed and the port stays open. */
static void accept_refuse(int link, canal_status_t st, const char *fn)
{
    dyn_hello_t ans;

    memset(&ans, 0, sizeof ans);
    memcpy(ans.magic, magic_ans, 8);
    ans.status = MPI_ERR_PORT;
    snprintf(ans.why, sizeof ans.why, "%s",
             st < 0 ? common_err_detail() : "the port's secret does not match");
    LOG_INFO("%s: refusing a connect: %s", fn, ans.why);
    if (st >= 0)
        dyn_blob_send(link, &ans, NULL, 0);
    adi_dyn_close(link);
}

/* The accepting root waits on port p for a connect proving the port's
 * secret; others are refused. The link, with the request in req and its
 * group's members in *remote; or -1 with the failure in hdr. */
static int accept_wait(dyn_port_t *p, double timeout_s, dyn_hello_t *req, dyn_member_t **remote,
                       dyn_hello_t *hdr, const char *fn)
{
    canal_status_t st;
    int link;

    for (;;) {
        if ((st = adi_dyn_accept(p->listener, timeout_s, &link)) < 0) {
            hdr->status = mpi_err_class_of_status(st);
            snprintf(hdr->why, sizeof hdr->why, "%s", common_err_detail());
            if (st == CANAL_ERR_TIMEOUT) {
                hdr->status = MPI_ERR_SPAWN;
                snprintf(hdr->why, sizeof hdr->why,
                         "the spawned processes did not connect within %g s "
                         "(CANAL_SPAWN_TIMEOUT); did they start, and call MPI_Init?",
                         timeout_s);
            }
            return -1;
        }
        st = dyn_blob_recv(link, magic_req, 30.0, req, remote);
        if (st >= 0 && req->port == p->num && dyn_secret_equal(req->secret, p->secret) &&
            req->status == MPI_SUCCESS) {
            if (!adi_dyn_hung_up(link))
                return link;
            /* its root gave up waiting (connect timeout) and left */
            LOG_INFO("%s: dropping a connect whose root stopped waiting", fn);
            adi_dyn_close(link);
        } else {
            accept_refuse(link, st, fn);
        }
        free(*remote);
        *remote = NULL;
    }
}

/* The accepting root's verdict on a request (req, its members remote): the
 * head its group and then the connecting root get, with a fresh pair
 * secret. Cards name the members when a group holds processes of two jobs
 * (the connecting root's verdict on its group travels in req->cross, and it
 * sends cards anyway). */
static void accept_verdict(mpi_comm_t *c, const dyn_hello_t *req, const dyn_member_t *remote,
                           dyn_hello_t *hdr)
{
    canal_status_t st;

    *hdr = *req;
    hdr->status = MPI_SUCCESS;
    hdr->cross = strcmp(req->jobid, mpi_pmi.jobid) != 0 || req->cross || dyn_comm_mixes_jobs(c);
    if ((st = common_random_bytes(hdr->secret, DYN_SECRET)) < 0) {
        hdr->status = mpi_err_class_of_status(st);
        snprintf(hdr->why, sizeof hdr->why, "%s", common_err_detail());
    } else if (hdr->cross && !dyn_cards_complete(remote, req->n, hdr->why, sizeof hdr->why)) {
        hdr->status = MPI_ERR_OTHER;
    }
}

/* The accepting root answers over link with its group's members (mine; err:
 * whether gathering them worked) and closes it. MPI_ERR_OTHER when the
 * answer is a refusal or did not go out (the group learns it from the
 * root). */
static int accept_answer(mpi_comm_t *c, int root, int link, const dyn_hello_t *hdr,
                         const dyn_member_t *mine, int err)
{
    dyn_hello_t ans;
    canal_status_t st;

    memset(&ans, 0, sizeof ans);
    memcpy(ans.magic, magic_ans, 8);
    ans.n = c->size;
    ans.root = root;
    ans.cross = hdr->cross;
    memcpy(ans.secret, hdr->secret, DYN_SECRET);
    snprintf(ans.jobid, sizeof ans.jobid, "%s", mpi_pmi.jobid);
    if (err != MPI_SUCCESS) {
        ans.status = MPI_ERR_OTHER;
        snprintf(ans.why, sizeof ans.why, "the accepting group failed");
    } else if (hdr->cross && !dyn_cards_complete(mine, c->size, ans.why, sizeof ans.why)) {
        ans.status = MPI_ERR_OTHER;
    }
    st = dyn_blob_send(link, &ans, mine, ans.status == MPI_SUCCESS ? c->size : 0);
    adi_dyn_close(link);
    if (err == MPI_SUCCESS && (ans.status != MPI_SUCCESS || st < 0))
        err = MPI_ERR_OTHER;
    return err;
}

/* The accepting side, on an open port p (significant at the root only;
 * NULL there means a bad port name, why_bad says so): the root waits for a
 * connect and judges it, the verdict and the remote group reach the group,
 * the root answers with the group's members, and everybody builds the
 * intercommunicator. */
int dyn_accept_on(dyn_port_t *p, const char *why_bad, double timeout_s, int root, mpi_comm_t *c,
                  MPI_Comm *newcomm, const char *fn)
{
    dyn_hello_t hdr, req;
    dyn_member_t *remote = NULL, *mine = NULL;
    int link = -1, err, ok;

    memset(&hdr, 0, sizeof hdr);
    if (c->rank == root) {
        hdr.status = MPI_ERR_PORT;
        if (p == NULL)
            snprintf(hdr.why, sizeof hdr.why, "%s", why_bad);
        else if ((link = accept_wait(p, timeout_s, &req, &remote, &hdr, fn)) >= 0)
            accept_verdict(c, &req, remote, &hdr);
    }
    if ((err = dyn_share_remote(c, root, &hdr, &remote, fn)) != MPI_SUCCESS) {
        free(remote);
        if (link >= 0)
            adi_dyn_close(link);
        return err;
    }
    err = dyn_gather_members(c, root, hdr.cross, &mine, fn);
    if (c->rank == root && link >= 0)
        err = accept_answer(c, root, link, &hdr, mine, err);
    free(mine);
    /* The root tells whether the answer went out. */
    ok = err == MPI_SUCCESS;
    if ((err = dyn_bcast(&ok, 1, MPI_INT, root, c, fn)) != MPI_SUCCESS || !ok) {
        free(remote);
        return err != MPI_SUCCESS ? err /* (raised already) */
                                  : mpi_err_fail(c, MPI_ERR_OTHER, fn,
                                                 "the connect failed after the port was reached "
                                                 "(see the root's log)");
    }
    err = dyn_build_inter(c, root, &hdr, remote, newcomm, fn);
    free(remote);
    return err;
}

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

/* The connecting root's checks of the port name and the info: MPI_SUCCESS
 * (the port's parts in pp, the timeout, whether the groups may be of two
 * jobs in *cross) or an error class with why. */
static int connect_check(const char *port_name, MPI_Info info, int spawned, mpi_comm_t *c,
                         dyn_port_parts_t *pp, double *timeout, int *cross, char *why,
                         size_t whylen)
{
    if (port_name == NULL) {
        snprintf(why, whylen, "port_name is NULL (at the root)");
        return MPI_ERR_PORT;
    }
    if (dyn_port_parse(port_name, pp) != 0) {
        snprintf(why, whylen, "port_name='%.100s' is not a port name of Canal", port_name);
        return MPI_ERR_PORT;
    }
    if (strcmp(pp->jobid, mpi_pmi.jobid) == 0 && pp->rank == mpi_pmi.rank) {
        snprintf(why, whylen,
                 "port_name='%.100s' was opened by this very process; connecting a process "
                 "to itself is not supported by Canal",
                 port_name);
        return MPI_ERR_PORT;
    }
    if ((*timeout = connect_timeout(info, spawned, why, whylen)) == 0)
        return MPI_ERR_INFO;
    *cross = strcmp(pp->jobid, mpi_pmi.jobid) != 0 || dyn_comm_mixes_jobs(c);
    return MPI_SUCCESS;
}

/* The connecting root dials the port, sends its request with its group's
 * members (mine) and waits for the answer: the verdict in hdr, the remote
 * group in *remote. */
static void connect_dial(const char *port_name, const dyn_port_parts_t *pp, double timeout,
                         int cross, int root, mpi_comm_t *c, const dyn_member_t *mine,
                         dyn_hello_t *hdr, dyn_member_t **remote)
{
    dyn_hello_t req;
    canal_status_t st;
    int link = -1;

    hdr->status = MPI_ERR_PORT;
    memset(&req, 0, sizeof req);
    memcpy(req.magic, magic_req, 8);
    req.n = c->size;
    req.root = root;
    req.cross = cross;
    req.port = pp->num;
    memcpy(req.secret, pp->secret, DYN_SECRET);
    snprintf(req.jobid, sizeof req.jobid, "%s", mpi_pmi.jobid);
    if (cross && !dyn_cards_complete(mine, c->size, hdr->why, sizeof hdr->why)) {
        hdr->status = MPI_ERR_OTHER;
    } else if ((st = adi_dyn_dial(pp->addr, &link)) < 0 ||
               (st = dyn_blob_send(link, &req, mine, c->size)) < 0 ||
               (st = dyn_blob_recv(link, magic_ans, timeout, hdr, remote)) < 0) {
        hdr->status = MPI_ERR_PORT;
        if (st == CANAL_ERR_TIMEOUT)
            snprintf(hdr->why, sizeof hdr->why,
                     "port_name='%.100s': nobody accepted within %g s (the info key "
                     "\"timeout\", else CANAL_CONNECT_TIMEOUT or "
                     "MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT)",
                     port_name, timeout);
        else
            snprintf(hdr->why, sizeof hdr->why, "port_name='%.100s': %s", port_name,
                     common_err_detail());
    } else if (hdr->status != MPI_SUCCESS) {
        char w[DYN_WHY];
        snprintf(w, sizeof w, "%s", hdr->why);
        snprintf(hdr->why, sizeof hdr->why, "port_name='%.60s' refused the connect: %.150s",
                 port_name, w);
    }
    adi_dyn_close(link);
}

/* The connecting side: the root checks the port name, the group gathers its
 * members at the root, the root dials and gets the verdict, which reaches
 * the group with the remote members, and everybody builds the
 * intercommunicator. */
int dyn_connect_to(const char *port_name, MPI_Info info, int spawned, int root, mpi_comm_t *c,
                   MPI_Comm *newcomm, const char *fn)
{
    double timeout = -1;
    dyn_port_parts_t pp;
    dyn_hello_t hdr;
    dyn_member_t *remote = NULL, *mine = NULL;
    int err, pre[2] = {MPI_SUCCESS, 0};
    char why[DYN_WHY] = "";

    memset(&hdr, 0, sizeof hdr);
    if (c->rank == root)
        pre[0] = connect_check(port_name, info, spawned, c, &pp, &timeout, &pre[1], why,
                               sizeof why);
    if ((err = dyn_bcast(pre, 2, MPI_INT, root, c, fn)) != MPI_SUCCESS)
        return err;
    if (pre[0] != MPI_SUCCESS)
        return mpi_err_fail(c, pre[0], fn, "%s",
                            c->rank == root ? why : "the root failed; see its error");
    /* cards even within one job: the accepting group may mix jobs */
    if ((err = dyn_gather_members(c, root, pre[1] ? 1 : 2, &mine, fn)) != MPI_SUCCESS)
        return err;
    if (c->rank == root)
        connect_dial(port_name, &pp, timeout, pre[1], root, c, mine, &hdr, &remote);
    free(mine);
    if ((err = dyn_share_remote(c, root, &hdr, &remote, fn)) != MPI_SUCCESS) {
        free(remote);
        return err;
    }
    err = dyn_build_inter(c, root, &hdr, remote, newcomm, fn);
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
        else if ((p = dyn_port_find(port_name, 0)) == NULL)
            snprintf(why, sizeof why,
                     "port_name='%.100s' is not an open port of this process (MPI_Open_port "
                     "at the root gives one)",
                     port_name);
    }
    return dyn_accept_on(p, why, -1, root, c, newcomm, fn);
}

int mpi_comm_connect_impl(const char *port_name, MPI_Info info, int root, mpi_comm_t *c,
                          MPI_Comm *newcomm, const char *fn)
{
    int err;

    if ((err = check_common(fn, info, root, c)))
        return err;
    return dyn_connect_to(port_name, info, 0, root, c, newcomm, fn);
}

int mpi_comm_disconnect_impl(MPI_Comm *comm, const char *fn)
{
    mpi_comm_t *c = NULL;
    unsigned cleared;
    int err;

    if ((err = mpi_check_comm_step(*comm, fn, &c)))
        return err;
    if (c == &mpi_comm_world_obj || c == &mpi_comm_self_obj)
        return mpi_err_fail(c, MPI_ERR_COMM, fn, "%s cannot be disconnected", c->name);
    /* Collective: a barrier over comm, so that both groups are done with it
     * (and what either sent has been taken: Canal's sends complete once the
     * device has handed their data on, receives once matched) before the
     * context can be reused. Requests the user still holds keep their own
     * reference. The device peers of another job stay known (and
     * connected): a later connect to the same processes reuses them. */
    cleared = mpi_err_cleared;
    if ((err = mpi_coll_step(mpi_barrier_impl(c, fn), cleared)) != MPI_SUCCESS)
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
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "fd=%d is not a file descriptor", fd);
    memset(&mine, 0, sizeof mine);
    memset(&me, 0, sizeof me);
    memcpy(mine.magic, magic_join, 8);
    mine.n = 1;
    snprintf(mine.jobid, sizeof mine.jobid, "%s", mpi_pmi.jobid);
    me.job_rank = mpi_pmi.rank;
    /* The card is sent even within one job: the other side decides. */
    if ((st = adi_dyn_card(me.card, sizeof me.card)) < 0 ||
        (st = common_random_bytes(mine.secret, DYN_SECRET)) < 0 ||
        (st = dyn_blob_send(fd, &mine, &me, 1)) < 0 ||
        (st = dyn_blob_recv(fd, magic_join, -1, &theirs, &remote)) < 0) {
        free(remote);
        return mpi_err_fail(NULL, mpi_err_class_of_status(st) == MPI_ERR_INTERN
                                       ? MPI_ERR_INTERN
                                       : MPI_ERR_OTHER,
                            fn, "fd=%d: the exchange with the other process failed: %s", fd,
                            common_err_detail());
    }
    if (theirs.n != 1) {
        free(remote);
        return mpi_err_fail(NULL, MPI_ERR_OTHER, fn, "fd=%d: the other side is no MPI_Comm_join",
                            fd);
    }
    for (int i = 0; i < DYN_SECRET; i++)
        theirs.secret[i] ^= mine.secret[i];
    theirs.root = 0;
    theirs.cross = strcmp(theirs.jobid, mpi_pmi.jobid) != 0;
    if (!theirs.cross && remote[0].job_rank == mpi_pmi.rank) {
        free(remote);
        return mpi_err_fail(NULL, MPI_ERR_OTHER, fn,
                            "fd=%d leads back to this very process; join needs two processes",
                            fd);
    }
    err = dyn_build_inter(c, 0, &theirs, remote, intercomm, fn);
    free(remote);
    return err;
}
