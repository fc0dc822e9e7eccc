/*
 * managed_stress: 2..8 ranks exchange managed objects of the toy runtime
 * (toyrt.h) in rounds while its copying collector runs at every safepoint,
 * between operations and under allocation pressure. Each round every rank
 * sends a window of messages to (rank + k) and receives from (rank - k), with
 * one of several shapes: blocking/nonblocking sends and receives by
 * reference, synchronous sends, receives whose object is allocated once the
 * size is known, gather sends (native header + managed pieces + an old
 * object) and scatter receives. Sizes straddle the eager limit and reach
 * rendezvous sizes. Every byte is checked, the collector checks that Canal
 * never holds the address of an unpinned movable object, and at the end
 * every pin must have been matched by an unpin.
 *
 * Environment: MANAGED_ROUNDS (default 48), TOYRT_MODE=motor (the collector
 * releases pins itself after querying MPIX_Managed_inflight),
 * TOYRT_REFUSE=N (the runtime refuses every Nth pin: Canal must copy),
 * TOYRT_ENTRY=1 (safepoint at the entry of blocking calls).
 */
#include "mtest.h"
#include "toyrt.h"

enum { WMAX = 4, NVARIANTS = 8 };

static int rank, size;

static const size_t size_table[] = {0,     1,     7,     100,   1000,   4096,   16000,
                                    16384, 16385, 30000, 65536, 100000, 250000, 700000};
enum { NSIZE_TABLE = sizeof size_table / sizeof size_table[0] };

static uint32_t mix(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t x =
        a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA6Bu ^ (c + 0x165667B1u) * 0xC2B2AE35u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return x;
}

/* Size and content seed of message j of round r sent by rank `from`. */
static size_t msg_size(int r, int from, int j)
{
    return size_table[mix((uint32_t)r, (uint32_t)from, (uint32_t)j) % NSIZE_TABLE];
}
static unsigned msg_seed(int r, int from, int j)
{
    return mix((uint32_t)r + 1000u, (uint32_t)from, (uint32_t)j);
}

static void garbage(int r)
{
    size_t n = mix((uint32_t)r, (uint32_t)rank, 77u) % 400000u;
    toy_free(toy_alloc(n, 0));
    if (mix((uint32_t)r, (uint32_t)rank, 78u) % 2)
        toy_collect();
}

/* A sender's object: pattern at a random offset. */
static toy_obj_t *make_sendobj(size_t n, unsigned seed, size_t *off)
{
    toy_obj_t *o;
    *off = seed % 64;
    o = toy_alloc(*off + n + seed % 32, (seed % 11 == 0) ? TOY_OLD : 0);
    toy_fill(o, *off, n, seed);
    return o;
}

/* ---- the receive-alloc callback: an object of the right size, allocated
 * inside progress where no collection may run (TOY_NOGC). */
typedef struct {
    toy_obj_t *obj;
    int want_source;
    long count;
} alloc_slot_t;

static int alloc_cb(MPI_Count count, int source, int tag, void *extra, MPIX_Target *t)
{
    alloc_slot_t *s = extra;
    (void)tag;
    if (source != s->want_source)
        return MPI_ERR_RANK;
    s->count = (long)count;
    s->obj = toy_alloc((size_t)count + 8, TOY_NOGC);
    t->ref = s->obj;
    t->offset = 8;
    return MPI_SUCCESS;
}

/* ---- gather/scatter: a message is split into pieces whose concatenation
 * carries the pattern. Sender side: a native header, two managed objects
 * and an old object; receiver side: three managed objects. */
typedef struct {
    unsigned char hdr[16];
    toy_obj_t *a, *b, *c;
    size_t na, nb, nc, nh;
} pieces_t;

static void split(size_t n, unsigned seed, size_t *parts, int k)
{
    size_t left = n;
    for (int i = 0; i < k - 1; i++) {
        parts[i] = left ? mix(seed, (uint32_t)i, 5u) % (left + 1) : 0;
        left -= parts[i];
    }
    parts[k - 1] = left;
}

static void make_gather(pieces_t *p, size_t n, unsigned seed, MPIX_Segment seg[4])
{
    size_t parts[4];
    unsigned char *tmp = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        tmp[i] = toy_pattern(seed, i);
    split(n, seed, parts, 4);
    p->nh = parts[0] < sizeof p->hdr ? parts[0] : sizeof p->hdr;
    parts[1] += parts[0] - p->nh;
    p->na = parts[1];
    p->nb = parts[2];
    p->nc = parts[3];
    p->a = toy_alloc(p->na + 5, 0);
    p->b = toy_alloc(p->nb, 0);
    p->c = toy_alloc(p->nc, TOY_OLD);
    memcpy(p->hdr, tmp, p->nh);
    memcpy(p->a->addr + 5, tmp + p->nh, p->na);
    memcpy(p->b->addr, tmp + p->nh + p->na, p->nb);
    memcpy(p->c->addr, tmp + p->nh + p->na + p->nb, p->nc);
    memset(seg, 0, 4 * sizeof *seg);
    seg[0].addr = p->hdr;
    seg[0].length = (MPI_Aint)p->nh;
    seg[1].ref = p->a;
    seg[1].offset = 5;
    seg[1].length = (MPI_Aint)p->na;
    seg[2].ref = p->b;
    seg[2].length = (MPI_Aint)p->nb;
    seg[3].ref = p->c;
    seg[3].length = (MPI_Aint)p->nc;
    free(tmp);
}

static void make_scatter(pieces_t *p, size_t n, unsigned seed, MPIX_Segment seg[3])
{
    size_t parts[3];
    split(n, seed ^ 0x5555u, parts, 3);
    p->na = parts[0];
    p->nb = parts[1];
    p->nc = parts[2];
    p->a = toy_alloc(p->na, 0);
    p->b = toy_alloc(p->nb + 3, 0);
    p->c = toy_alloc(p->nc, 0);
    memset(seg, 0, 3 * sizeof *seg);
    seg[0].ref = p->a;
    seg[0].length = (MPI_Aint)p->na;
    seg[1].ref = p->b;
    seg[1].offset = 3;
    seg[1].length = (MPI_Aint)p->nb;
    seg[2].ref = p->c;
    seg[2].length = (MPI_Aint)p->nc;
}

static long verify_scatter(pieces_t *p, unsigned seed)
{
    long bad = 0;
    size_t i = 0;
    for (size_t k = 0; k < p->na; k++, i++)
        bad += (unsigned char)p->a->addr[k] != toy_pattern(seed, i);
    for (size_t k = 0; k < p->nb; k++, i++)
        bad += (unsigned char)p->b->addr[3 + k] != toy_pattern(seed, i);
    for (size_t k = 0; k < p->nc; k++, i++)
        bad += (unsigned char)p->c->addr[k] != toy_pattern(seed, i);
    if (bad)
        fprintf(stderr, "[rank %d] scatter receive: %ld wrong bytes of %zu\n", rank, bad, i);
    return bad;
}

static void free_pieces(pieces_t *p)
{
    toy_free(p->a);
    toy_free(p->b);
    toy_free(p->c);
}

static void round_run(int r)
{
    int k = 1 + r % (size - 1), dest = (rank + k) % size, src = (rank - k + size) % size;
    int variant = r % NVARIANTS, w = 1 + (int)(mix((uint32_t)r, 3u, 4u) % WMAX);
    toy_obj_t *sobj[WMAX] = {0}, *robj[WMAX] = {0};
    size_t soff[WMAX], sn[WMAX], rn[WMAX];
    unsigned sseed[WMAX], rseed[WMAX];
    MPI_Request sreq[WMAX], rreq[WMAX];
    alloc_slot_t slots[WMAX];
    pieces_t sp[WMAX], rp[WMAX];
    MPIX_Segment sseg[WMAX][4], rseg[WMAX][3];
    MPI_Status st;
    int rc;

    for (int j = 0; j < w; j++) {
        sn[j] = msg_size(r, rank, j);
        sseed[j] = msg_seed(r, rank, j);
        rn[j] = msg_size(r, src, j);
        rseed[j] = msg_seed(r, src, j);
        sreq[j] = rreq[j] = MPI_REQUEST_NULL;
    }
    switch (variant) {
    case 0: /* posted receives, blocking sends */
    case 7: /* the same with synchronous sends */
        for (int j = 0; j < w; j++) {
            robj[j] = toy_alloc(rn[j], 0);
            rc = MPIX_Irecv_ref(robj[j], 0, (MPI_Count)rn[j], MPI_BYTE, src, j, MPI_COMM_WORLD,
                                &rreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d irecv: %d", r, rc);
            garbage(r + j);
        }
        for (int j = 0; j < w; j++) {
            sobj[j] = make_sendobj(sn[j], sseed[j], &soff[j]);
            rc = variant == 0 ? MPIX_Send_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j],
                                              MPI_BYTE, dest, j, MPI_COMM_WORLD)
                              : MPIX_Ssend_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j],
                                               MPI_BYTE, dest, j, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "round %d send: %d", r, rc);
        }
        rc = MPI_Waitall(w, rreq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d waitall: %d", r, rc);
        break;
    case 1: /* posted sends, blocking receives */
        for (int j = 0; j < w; j++) {
            sobj[j] = make_sendobj(sn[j], sseed[j], &soff[j]);
            rc = MPIX_Isend_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j], MPI_BYTE, dest, j,
                                MPI_COMM_WORLD, &sreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d isend: %d", r, rc);
            garbage(r + j);
        }
        for (int j = 0; j < w; j++) {
            robj[j] = toy_alloc(rn[j] + 16, 0);
            rc =
                MPIX_Recv_ref(robj[j], 16, (MPI_Count)rn[j], MPI_BYTE, src, j, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS, "round %d recv: %d", r, rc);
        }
        break;
    case 2: /* everything nonblocking, collections while in flight */
        for (int j = 0; j < w; j++) {
            robj[j] = toy_alloc(rn[j], 0);
            rc = MPIX_Irecv_ref(robj[j], 0, (MPI_Count)rn[j], MPI_BYTE, src, j, MPI_COMM_WORLD,
                                &rreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d irecv: %d", r, rc);
            sobj[j] = make_sendobj(sn[j], sseed[j], &soff[j]);
            rc = MPIX_Isend_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j], MPI_BYTE, dest, j,
                                MPI_COMM_WORLD, &sreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d isend: %d", r, rc);
            toy_collect();
            garbage(r + j);
        }
        for (int i = 0; i < 3; i++) {
            int flag;
            toy_collect();
            MPI_Testall(w, rreq, &flag, MPI_STATUSES_IGNORE);
        }
        rc = MPI_Waitall(w, rreq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d waitall: %d", r, rc);
        break;
    case 3: /* receives whose object is allocated when the size is known */
        for (int j = 0; j < w; j++) {
            sobj[j] = make_sendobj(sn[j], sseed[j], &soff[j]);
            rc = MPIX_Isend_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j], MPI_BYTE, dest, j,
                                MPI_COMM_WORLD, &sreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d isend: %d", r, rc);
        }
        for (int j = 0; j < w; j++) {
            slots[j].obj = NULL;
            slots[j].want_source = src;
            slots[j].count = -1;
            if (j % 2 == 0) {
                rc = MPIX_Recv_alloc(alloc_cb, &slots[j], MPI_BYTE, src, j, MPI_COMM_WORLD, &st);
            } else {
                rc = MPIX_Irecv_alloc(alloc_cb, &slots[j], MPI_BYTE, src, j, MPI_COMM_WORLD,
                                      &rreq[j]);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Wait(&rreq[j], &st);
            }
            CHECK(rc == MPI_SUCCESS, "round %d recv_alloc: %d", r, rc);
            CHECK(slots[j].count == (long)rn[j], "round %d: callback saw %ld, expected %zu", r,
                  slots[j].count, rn[j]);
            toy_collect();
        }
        break;
    case 4: /* gather sends into size-known receives */
        for (int j = 0; j < w; j++) {
            slots[j].obj = NULL;
            slots[j].want_source = src;
            slots[j].count = -1;
            rc = MPIX_Irecv_alloc(alloc_cb, &slots[j], MPI_BYTE, src, j, MPI_COMM_WORLD, &rreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d irecv_alloc: %d", r, rc);
        }
        for (int j = 0; j < w; j++) {
            make_gather(&sp[j], sn[j], sseed[j], sseg[j]);
            toy_collect();
            rc = MPIX_Sendv(sseg[j], 4, dest, j, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "round %d sendv: %d", r, rc);
        }
        rc = MPI_Waitall(w, rreq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d waitall: %d", r, rc);
        break;
    case 5: /* gather sends (nonblocking), blocking scatter receives */
        for (int j = 0; j < w; j++) {
            make_gather(&sp[j], sn[j], sseed[j], sseg[j]);
            rc = MPIX_Isendv(sseg[j], 4, dest, j, MPI_COMM_WORLD, &sreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d isendv: %d", r, rc);
            garbage(r + j);
        }
        for (int j = 0; j < w; j++) {
            make_scatter(&rp[j], rn[j], rseed[j], rseg[j]);
            rc = MPIX_Recvv(rseg[j], 3, src, j, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS, "round %d recvv: %d", r, rc);
        }
        break;
    case 6: /* nonblocking scatter receives, typed sends */
        for (int j = 0; j < w; j++) {
            make_scatter(&rp[j], rn[j], rseed[j], rseg[j]);
            rc = MPIX_Irecvv(rseg[j], 3, src, j, MPI_COMM_WORLD, &rreq[j]);
            CHECK(rc == MPI_SUCCESS, "round %d irecvv: %d", r, rc);
            toy_collect();
        }
        for (int j = 0; j < w; j++) {
            sobj[j] = make_sendobj(sn[j], sseed[j], &soff[j]);
            rc = MPIX_Send_ref(sobj[j], (MPI_Aint)soff[j], (MPI_Count)sn[j], MPI_BYTE, dest, j,
                               MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "round %d send: %d", r, rc);
        }
        rc = MPI_Waitall(w, rreq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "round %d waitall: %d", r, rc);
        break;
    }
    rc = MPI_Waitall(w, sreq, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "round %d send waitall: %d", r, rc);
    toy_collect();

    /* check and free */
    for (int j = 0; j < w; j++) {
        char what[64];
        snprintf(what, sizeof what, "round %d variant %d message %d", r, variant, j);
        switch (variant) {
        case 0:
        case 2:
        case 7:
            mtest_errors += toy_verify(robj[j], 0, rn[j], rseed[j], what) != 0;
            break;
        case 1:
            mtest_errors += toy_verify(robj[j], 16, rn[j], rseed[j], what) != 0;
            break;
        case 3:
        case 4:
            CHECK(slots[j].obj != NULL || rn[j] == 0, "%s: no object allocated", what);
            if (slots[j].obj != NULL)
                mtest_errors += toy_verify(slots[j].obj, 8, rn[j], rseed[j], what) != 0;
            toy_free(slots[j].obj);
            break;
        case 5:
        case 6:
            mtest_errors += verify_scatter(&rp[j], rseed[j]) != 0;
            free_pieces(&rp[j]);
            break;
        }
        if (sobj[j] != NULL) {
            mtest_errors += toy_verify(sobj[j], soff[j], sn[j], sseed[j], "sent object") != 0;
            toy_free(sobj[j]);
        }
        toy_free(robj[j]);
        if (variant == 4 || variant == 5)
            free_pieces(&sp[j]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = getenv("TOYRT_MODE"), *refuse = getenv("TOYRT_REFUSE");
    const char *entry = getenv("TOYRT_ENTRY"), *env_rounds = getenv("MANAGED_ROUNDS");
    int rounds = env_rounds ? atoi(env_rounds) : 48, flags = 0, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (mode != NULL && strcmp(mode, "motor") == 0)
        flags |= MPIX_MANAGED_RUNTIME_UNPINS;
    if (entry != NULL && atoi(entry))
        flags |= MPIX_MANAGED_SAFEPOINT_AT_ENTRY;
    rc = toy_init(24u << 20, flags);
    CHECK(rc == MPI_SUCCESS, "toy_init: %d", rc);
    if (refuse != NULL)
        toy.refuse_pins = atoi(refuse);
    if (size > 1)
        for (int r = 0; r < rounds; r++)
            round_run(r);
    toy_report("managed_stress");
    if (size > 1) {
        MPIX_Managed_stats st;
        MPIX_Managed_stats_get(&st);
        CHECK(toy.moved > 0, "the collector moved nothing");
        if (toy.refuse_pins > 0)
            CHECK(st.copies > 0, "pins were refused but Canal never copied");
    }
    mtest_errors += (int)toy_finish_checks();
    return mtest_finish();
}
