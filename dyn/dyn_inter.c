/*
 * The intercommunicator of an introduction, once the roots have swapped
 * their groups: every member gathers at its root (dyn_gather_members), the
 * root's verdict and the remote members reach the group (dyn_share_remote),
 * and every member makes every remote member a device peer and builds the
 * intercommunicator (dyn_build_inter). A member is named by its job rank
 * when both groups are of one job, else by its card for other jobs (the
 * sock address + a random id), and connected with the pair secret
 * (adi_dyn_peer_connect). The context is agreed like any other (both
 * groups AND their free-context masks, the roots over a bridge on
 * MPI_COMM_WORLD's collective context with a reserved tag and a source rank
 * drawn from the pair secret), so its remote group may hold device indices
 * >= the job size: group operations see them as processes outside
 * MPI_COMM_WORLD. Also the bootstrap messages over a link (dyn_blob_*) and
 * MPI_Intercomm_create between groups of two jobs.
 *
 * Byte order: the bootstrap messages are native structs; jobs on machines
 * of another byte order cannot connect (Canal assumes homogeneous nodes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/random.h"
#include "dyn/dyn.h"
#include "dyn_impl.h"
#include "mpi/api_impl.h"

/* The bridge between the roots: MPI_COMM_WORLD's collective context, a tag
 * the collectives (below 0x3ff00000) and comm construction (0x3ffffff0..3)
 * do not use, and a source rank no communicator has (>= 2^30), drawn from
 * the pair secret: the device matches on (context, source, tag), not on the
 * process a packet came from, so two introductions a process runs at once
 * (threads accepting on two ports) must not share a source. */
enum { DYN_TAG_BRIDGE = 0x3fffcfff, DYN_BRIDGE_RANK_BASE = 0x40000000 };

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
int dyn_comm_mixes_jobs(mpi_comm_t *c)
{
    mpi_group_t *g = mpi_comm_local_group(c);
    for (int i = 0; g != NULL && i < g->size; i++)
        if (mpi_group_member(g, i) >= mpi_pmi.size)
            return 1;
    return 0;
}

/* cross: cards are needed (a failure to make one is logged); 2: they are
 * wanted in case the other side needs them (a failure is quiet). */
int dyn_gather_members(mpi_comm_t *c, int root, int cross, dyn_member_t **all_out,
                          const char *fn)
{
    dyn_member_t me;
    dyn_member_t *all = NULL;
    unsigned cleared;
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
    cleared = mpi_err_cleared;
    err = mpi_coll_step(
        mpi_gather_impl(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, root, c, fn), cleared);
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
int dyn_build_inter(mpi_comm_t *c, int root, const dyn_hello_t *hdr, const dyn_member_t *remote,
                       MPI_Comm *newcomm, const char *fn)
{
    int *idx = malloc(sizeof *idx * (size_t)(hdr->n > 0 ? hdr->n : 1));
    mpi_group_t *rg = NULL;
    mpi_comm_t *n = NULL;
    mpi_dom_t d, ld;
    canal_status_t st;
    int ctx, lctx, err;

    if (idx == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < hdr->n; i++) {
        if (!hdr->cross || remote[i].job_hash == job_hash(mpi_pmi.jobid)) {
            idx[i] = remote[i].job_rank;
            continue;
        }
        if ((st = adi_dyn_peer_connect(remote[i].card, hdr->secret, &idx[i])) < 0) {
            free(idx);
            return mpi_err_fail(c, mpi_err_class_of_status(st), fn,
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
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((st = mpi_comm_context_agree(&d, &ctx)) < 0) {
        mpi_group_release(rg);
        return mpi_err_fail_status(c, st, fn);
    }
    if ((st = mpi_comm_context_agree(&ld, &lctx)) < 0) {
        mpi_comm_context_free(ctx);
        mpi_group_release(rg);
        return mpi_err_fail_status(c, st, fn);
    }
    err = mpi_comm_new_inter(c, ctx, mpi_comm_local_group(c), rg, lctx, &n);
    mpi_group_release(rg);
    if (err != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        mpi_comm_context_free(lctx);
        return mpi_err_fail(c, err, fn, "cannot create the intercommunicator");
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int dyn_bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root, mpi_comm_t *c,
              const char *fn)
{
    unsigned cleared = mpi_err_cleared;

    return mpi_coll_step(mpi_bcast_impl(buf, count, datatype, root, c, fn), cleared);
}

/* The root's verdict reaches the group, then the remote members; a failed
 * verdict is raised everywhere (the root's message at the root). */
int dyn_share_remote(mpi_comm_t *c, int root, dyn_hello_t *hdr, dyn_member_t **remote,
                        const char *fn)
{
    int err = dyn_bcast(hdr, sizeof *hdr, MPI_BYTE, root, c, fn);

    if (err != MPI_SUCCESS)
        return err;
    if (hdr->status != MPI_SUCCESS) {
        if (c->rank == root)
            return mpi_err_fail(c, hdr->status, fn, "%s", hdr->why);
        return mpi_err_fail(c, hdr->status, fn, "the root (rank %d) failed: %s", root, hdr->why);
    }
    if (c->rank != root && (*remote = calloc((size_t)hdr->n, sizeof **remote)) == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    return dyn_bcast(*remote, (MPI_Count)(sizeof **remote * (size_t)hdr->n), MPI_BYTE, root, c,
                          fn);
}

/* A bootstrap message: hdr then n members. */
canal_status_t dyn_blob_send(int link, const dyn_hello_t *hdr, const dyn_member_t *m, int n)
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
canal_status_t dyn_blob_recv(int link, const char magic[8], double timeout, dyn_hello_t *hdr,
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

int dyn_cards_complete(const dyn_member_t *m, int n, char *why, size_t len)
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
static const char magic_icc[8] = "CNLICRT";

/* The local leader's message to the remote group: a head (with its half of
 * the pair secret, or the local group's failure) and the members (mine). */
static int icc_leader_blob(mpi_comm_t *lc, int leader, const dyn_member_t *mine, dyn_hello_t *hdr,
                           unsigned char **blob, size_t *len)
{
    canal_status_t st;

    memcpy(hdr->magic, magic_icc, 8);
    hdr->n = lc->size;
    hdr->root = leader;
    hdr->cross = 1;
    snprintf(hdr->jobid, sizeof hdr->jobid, "%s", mpi_pmi.jobid);
    if ((st = common_random_bytes(hdr->secret, DYN_SECRET)) < 0) {
        hdr->status = mpi_err_class_of_status(st);
        snprintf(hdr->why, sizeof hdr->why, "%s", common_err_detail());
    } else if (!dyn_cards_complete(mine, lc->size, hdr->why, sizeof hdr->why)) {
        hdr->status = MPI_ERR_OTHER;
    }
    *len = sizeof *hdr + (hdr->status == MPI_SUCCESS ? sizeof *mine * (size_t)lc->size : 0);
    if ((*blob = malloc(*len)) == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(*blob, hdr, sizeof *hdr);
    if (*len > sizeof *hdr)
        memcpy(*blob + sizeof *hdr, mine, *len - sizeof *hdr);
    return MPI_SUCCESS;
}

/* Every member: the remote leader's message (theirs, tlen bytes) checked
 * against this group's head hdr; the remote head in rhdr (its secret made
 * the pair's) and the remote members in *remote. */
static int icc_remote_group(mpi_comm_t *lc, const dyn_hello_t *hdr, const unsigned char *theirs,
                            size_t tlen, dyn_hello_t *rhdr, dyn_member_t **remote, const char *fn)
{
    if (tlen < sizeof *rhdr)
        return mpi_err_fail(lc, MPI_ERR_INTERN, fn, "the remote leader sent %zu bytes", tlen);
    memcpy(rhdr, theirs, sizeof *rhdr);
    rhdr->why[sizeof rhdr->why - 1] = '\0';
    if (hdr->status != MPI_SUCCESS || rhdr->status != MPI_SUCCESS) {
        int local = hdr->status != MPI_SUCCESS;
        return mpi_err_fail(lc, local ? hdr->status : rhdr->status, fn, "the %s group failed: %s",
                            local ? "local" : "remote", local ? hdr->why : rhdr->why);
    }
    if (memcmp(rhdr->magic, magic_icc, 8) != 0 || rhdr->n < 1 || rhdr->root < 0 ||
        rhdr->root >= rhdr->n || tlen != sizeof *rhdr + sizeof **remote * (size_t)rhdr->n)
        return mpi_err_fail(lc, MPI_ERR_INTERN, fn,
                            "malformed group from the remote leader (%zu bytes)", tlen);
    if ((*remote = malloc(sizeof **remote * (size_t)rhdr->n)) == NULL)
        return mpi_err_fail(lc, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(*remote, theirs + sizeof *rhdr, sizeof **remote * (size_t)rhdr->n);
    for (int i = 0; i < rhdr->n; i++)
        (*remote)[i].card[ADI_DYN_CARD_MAX - 1] = '\0';
    for (int i = 0; i < DYN_SECRET; i++)
        rhdr->secret[i] ^= hdr->secret[i];
    return MPI_SUCCESS;
}

/* The groups gather their members at their leaders, the leaders swap their
 * messages over the bridge d (the remote one reaches every member, then the
 * local head: the pair secret is both leaders' halves together), and
 * everybody builds the intercommunicator. */
int mpi_dyn_intercomm_cross(mpi_comm_t *lc, int leader, const mpi_dom_t *d, MPI_Comm *newcomm,
                            const char *fn)
{
    dyn_hello_t hdr, rhdr;
    dyn_member_t *mine = NULL, *remote = NULL;
    unsigned char *blob = NULL, *theirs = NULL;
    size_t len = 0, tlen = 0;
    canal_status_t st;
    int err;

    if ((err = dyn_gather_members(lc, leader, 1, &mine, fn)) != MPI_SUCCESS)
        return err;
    memset(&hdr, 0, sizeof hdr);
    if (lc->rank == leader && icc_leader_blob(lc, leader, mine, &hdr, &blob, &len) != MPI_SUCCESS) {
        free(mine);
        return mpi_err_fail(lc, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    free(mine);
    st = mpi_dom_bridge_swap(d, blob, len, (void **)&theirs, &tlen);
    free(blob);
    if (st < 0)
        return mpi_err_fail_status(lc, st, fn);
    if ((err = dyn_bcast(&hdr, sizeof hdr, MPI_BYTE, leader, lc, fn)) != MPI_SUCCESS) {
        free(theirs);
        return err;
    }
    err = icc_remote_group(lc, &hdr, theirs, tlen, &rhdr, &remote, fn);
    free(theirs);
    if (err != MPI_SUCCESS)
        return err;
    err = dyn_build_inter(lc, leader, &rhdr, remote, newcomm, fn);
    free(remote);
    return err;
}
