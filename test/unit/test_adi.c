/*
 * Unit tests of the device's packet header check, adi_pkt_check() in
 * adi/pt2pt.c: the first thing adi_on_packet does with what a channel hands
 * up. Each refused header here is a case the adi_packet fuzz target
 * (test/fuzz/fuzz_adi_packet.c) exercises; the check must refuse it with a
 * message naming the field and value, and accept what the device sends.
 *
 * And of the matching queues (adi/match.c): random posts, arrivals,
 * receives and cancels, long enough that the queues get indexed, checked
 * step by step against a plain list searched in order (MPI's rule).
 *
 * And of the locked mode's locks (adi/lock.h, adi_lock in adi/device.c):
 * threads adding under them lose no update, the device lock nests in its
 * holder and keeps other threads out until the last unlock.
 *
 * And of the channel capabilities a push of part of a message needs
 * (adi_caps_push in adi/device.c).
 */
#include "adi/adi_impl.h"
#include "test/unit/unit_limits.h"

#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

static adi_pkt_t pkt(int type)
{
    adi_pkt_t h;
    memset(&h, 0, sizeof h);
    h.type = (uint8_t)type;
    h.context = 4;
    return h;
}

static void refused(const adi_pkt_t *h, size_t hdr_len, size_t len, const char *words)
{
    adi_pkt_t out;
    ck_assert_int_eq(adi_pkt_check(1, 4, h, hdr_len, len, &out), CANAL_ERR_PROTO);
    ck_assert_msg(strstr(common_err_detail(), words) != NULL, "message '%s' does not say '%s'",
                  common_err_detail(), words);
}

START_TEST(valid_packets_pass)
{
    adi_pkt_t h = pkt(PKT_EAGER), out;
    h.size = 10;
    h.flags = PKT_FLAG_SYNC;
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, adi_pkt_len(&h), 10, &out), CANAL_OK);
    ck_assert_int_eq(out.size, 10);
    h.tag = (int32_t)0x80010002u; /* partitioned communication's tags are negative */
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, adi_pkt_len(&h), 10, &out), CANAL_OK);
    h = pkt(PKT_RTS);
    h.size = 1 << 20;
    h.flags = PKT_FLAG_RDMA;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_CTS);
    h.sreq = 7;
    h.rreq = 9;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_DATA);
    h.rreq = 9;
    h.raddr = 4096;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 4096, &out), CANAL_OK);
    h = pkt(PKT_CREDIT);
    h.size = 4096;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_FIN);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_SYNC_ACK);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_PUSH);
    h.flags = PKT_FLAG_RDMA;
    h.sreq = 3;
    h.rreq = 4;
    h.size = 32768;
    h.rkey = 32768;
    h.raddr = 0x7f0000001000;
    ck_assert_int_eq(adi_pkt_len(&h), sizeof h);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_PUSHED);
    h.rreq = 4;
    h.size = 32768;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h.size = 0; /* (could not push: where the receiver reads the bytes itself) */
    h.flags = PKT_FLAG_RDMA;
    h.raddr = 0x7f0000002000;
    h.rkey = 5;
    ck_assert_int_eq(adi_pkt_len(&h), sizeof h);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_PUSHED); /* (the sender dropped its message: send_drop) */
    h.rreq = 4;
    h.flags = PKT_FLAG_DROPPED;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_DATA);
    h.rreq = 4;
    h.flags = PKT_FLAG_DROPPED;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_WITHDRAW); /* (the RTS's address is gone: rts_withdraw) */
    h.context = 3;
    h.sreq = 7;
    ck_assert_int_eq(adi_pkt_len(&h), ADI_PKT_SHORT);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
    h = pkt(PKT_WITHDRAWN); /* (its answer: rts_withdrawn) */
    h.sreq = 7;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, adi_pkt_len(&h), 0, &out), CANAL_OK);
}
END_TEST

START_TEST(bad_headers_refused)
{
    adi_pkt_t h = pkt(PKT_EAGER), out;

    ck_assert_int_eq(adi_pkt_check(4, 4, &h, adi_pkt_len(&h), 0, &out), CANAL_ERR_PROTO);
    ck_assert_int_eq(adi_pkt_check(-1, 4, &h, adi_pkt_len(&h), 0, &out), CANAL_ERR_PROTO);
    refused(&h, sizeof h - 1, 0, "header");
    refused(&h, 0, 0, "0-byte header");
    h.type = 0;
    refused(&h, adi_pkt_len(&h), 0, "unknown type 0");
    h.type = PKT_WITHDRAWN + 1;
    refused(&h, adi_pkt_len(&h), 0, "unknown type");
    h = pkt(PKT_EAGER);
    h.flags = 0x80;
    refused(&h, adi_pkt_len(&h), 0, "flags 0x80");
    /* adi_ctx() used to double its table past INT_MAX for this context */
    h = pkt(PKT_RTS);
    h.context = INT_MAX;
    refused(&h, adi_pkt_len(&h), 0, "context 2147483647");
    h.context = -3;
    refused(&h, adi_pkt_len(&h), 0, "context -3");
    h = pkt(PKT_EAGER);
    h.src_rank = -5;
    refused(&h, adi_pkt_len(&h), 0, "source rank -5");
    h = pkt(PKT_EAGER);
    h.size = 100;
    h.flags = PKT_FLAG_SYNC; /* (a plain eager header has no size: the payload's is used) */
    refused(&h, adi_pkt_len(&h), 99, "header says 100");
    h = pkt(PKT_RTS);
    h.size = 100;
    refused(&h, adi_pkt_len(&h), 8, "payload");
    h = pkt(PKT_CTS);
    h.sreq = 0x80000000u;
    refused(&h, adi_pkt_len(&h), 0, "request 2147483648");
    h = pkt(PKT_FIN);
    refused(&h, adi_pkt_len(&h), 16, "16 bytes of payload");
    h = pkt(PKT_DATA);
    h.rreq = UINT32_MAX;
    refused(&h, adi_pkt_len(&h), 8, "request 4294967295");
    h = pkt(PKT_CREDIT);
    h.size = UINT64_MAX;
    refused(&h, adi_pkt_len(&h), 0, "returns");
    h.size = 0;
    refused(&h, adi_pkt_len(&h), 0, "returns 0");
    h = pkt(PKT_PUSH);
    h.flags = PKT_FLAG_RDMA;
    h.size = 4096;
    h.raddr = 0;
    refused(&h, adi_pkt_len(&h), 0, "to 0");
    h.raddr = 4096;
    h.size = 0;
    refused(&h, adi_pkt_len(&h), 0, "0 bytes");
    h.size = 4096;
    h.rkey = UINT64_MAX;
    refused(&h, adi_pkt_len(&h), 0, "from offset");
    h.rkey = 0;
    refused(&h, adi_pkt_len(&h), 8, "8 bytes of payload");
    h.flags = 0; /* (an address needs the whole header) */
    refused(&h, sizeof h, 0, "header");
    h = pkt(PKT_PUSHED);
    h.rreq = UINT32_MAX;
    refused(&h, adi_pkt_len(&h), 0, "request 4294967295");
    h.rreq = 1;
    h.size = UINT64_MAX;
    refused(&h, adi_pkt_len(&h), 0, "bytes for request 1");
    h = pkt(PKT_WITHDRAW);
    h.context = -1;
    refused(&h, adi_pkt_len(&h), 0, "context -1");
    h.context = 2;
    h.sreq = 0x80000000u;
    refused(&h, adi_pkt_len(&h), 0, "request 2147483648");
}
END_TEST

/* A plain eager message travels with the 16-byte header (its size is the
 * payload's, and it names no request); other packets without an address
 * with the 32-byte header; those with one (DATA, RTS with RDMA) with the
 * whole header. Each length is accepted only for the packets that use it,
 * and a shorter header reads as zero requests, address and key. */
START_TEST(header_lengths)
{
    adi_pkt_t h = pkt(PKT_EAGER), out;

    ck_assert_int_eq(adi_pkt_len(&h), ADI_PKT_TINY);
    h.size = 8;
    h.sreq = 77; /* beyond the tiny header: not sent, not read */
    h.raddr = 0x1234;
    h.rkey = 0x5678;
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, ADI_PKT_TINY, 8, &out), CANAL_OK);
    ck_assert_int_eq(out.size, 8);
    ck_assert_uint_eq(out.sreq, 0);
    ck_assert_uint_eq(out.raddr, 0);
    ck_assert_uint_eq(out.rkey, 0);
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, ADI_PKT_TINY, 0, &out), CANAL_OK);
    ck_assert_int_eq(out.size, 0); /* the size is the payload's */
    refused(&h, sizeof h, 8, "type 1 from rank 1 has a 48-byte header, not 16");
    refused(&h, ADI_PKT_SHORT, 8, "type 1 from rank 1 has a 32-byte header, not 16");
    h.flags = PKT_FLAG_SYNC; /* the acknowledgement names the sender's request */
    ck_assert_int_eq(adi_pkt_len(&h), ADI_PKT_SHORT);
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, ADI_PKT_SHORT, 8, &out), CANAL_OK);
    ck_assert_uint_eq(out.sreq, 77);
    refused(&h, ADI_PKT_TINY, 8, "has a 16-byte header, not 32");
    h = pkt(PKT_RTS);
    h.size = 1 << 20;
    ck_assert_int_eq(adi_pkt_len(&h), ADI_PKT_SHORT);
    h.flags = PKT_FLAG_RDMA;
    ck_assert_int_eq(adi_pkt_len(&h), sizeof h);
    refused(&h, ADI_PKT_SHORT, 0, "has a 32-byte header, not 48");
    h = pkt(PKT_DATA);
    ck_assert_int_eq(adi_pkt_len(&h), sizeof h);
    refused(&h, ADI_PKT_SHORT, 0, "has a 32-byte header, not 48");
    refused(&h, 40, 0, "40-byte header, not 48, 32 or 16");
    for (int t = PKT_CTS; t <= PKT_CREDIT; t++) {
        if (t == PKT_DATA)
            continue;
        h = pkt(t);
        ck_assert_int_eq(adi_pkt_len(&h), ADI_PKT_SHORT);
        refused(&h, ADI_PKT_TINY, 0, "has a 16-byte header, not 32");
    }
}
END_TEST

/* ---------------------------------------------------------------- matching */
/* A model entry: what the queue holds, and the reference list's copy. */
typedef struct {
    adi_mq_entry_t e;
    adi_mq_link_t links[2];
    int src, tag, id;
} tentry_t;

enum { MODEL_MAX = 4096 };

typedef struct {
    tentry_t *v[MODEL_MAX]; /* oldest first */
    int n;
} model_t;

static int wild_match(int want_src, int want_tag, int src, int tag)
{
    return (want_src == ADI_ANY_SOURCE || want_src == src) &&
           (want_tag == ADI_ANY_TAG || want_tag == tag);
}

static void model_remove(model_t *m, int i)
{
    memmove(&m->v[i], &m->v[i + 1], sizeof m->v[0] * (size_t)(m->n - i - 1));
    m->n--;
}

static tentry_t *entry_of(adi_mq_entry_t *e)
{
    return e != NULL ? (tentry_t *)((char *)e - offsetof(tentry_t, e)) : NULL;
}

static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* A pattern (posted) or an envelope (unexpected) from a small space, so
 * that matches are frequent; wildcards with probability wild/8 each. */
static void pick(int wild, int nsrc, int ntag, int *src, int *tag)
{
    *src = wild && rnd(8) < (unsigned)wild ? ADI_ANY_SOURCE : (int)rnd((unsigned)nsrc);
    *tag = wild && rnd(8) < (unsigned)wild ? ADI_ANY_TAG : (int)rnd((unsigned)ntag);
}

/* Random traffic on one queue (posted or unexpected); every search's
 * answer must be the list's. Returns how often the queue was indexed. */
static int mq_by_pair_seen, mq_by_tag_seen; /* unexpected: searches that found those bins */

static int mq_random(int unexpected, int nsrc, int ntag, int wild, int steps, int grow)
{
    static tentry_t pool[MODEL_MAX];
    static model_t m;
    tentry_t *free_list[MODEL_MAX];
    int nfree = 0, indexed = 0, id = 0;
    adi_mq_t q;

    adi_mq_init(&q, unexpected);
    m.n = 0;
    for (int i = MODEL_MAX - 1; i >= 0; i--)
        free_list[nfree++] = &pool[i];
    for (int s = 0; s < steps; s++) {
        unsigned op = rnd(100);
        int src, tag;
        if (op < (unsigned)grow && nfree > 0) {
            /* posted: a receive with a pattern; unexpected: a message */
            tentry_t *t = free_list[--nfree];
            pick(unexpected ? 0 : wild, nsrc, ntag, &src, &tag);
            t->src = src;
            t->tag = tag;
            t->id = id++;
            t->e.extra = t->links;
            adi_mq_add(&q, &t->e, src, tag);
            m.v[m.n++] = t;
        } else if (op < 95) {
            /* posted: a message arrives; unexpected: a receive (or probe) */
            int i;
            tentry_t *got;
            pick(unexpected ? wild : 0, nsrc, ntag, &src, &tag);
            got = entry_of(unexpected ? adi_mq_find_unexpected(&q, src, tag)
                                      : adi_mq_find_posted(&q, src, tag));
            for (i = 0; i < m.n; i++)
                if (unexpected ? wild_match(src, tag, m.v[i]->src, m.v[i]->tag)
                               : wild_match(m.v[i]->src, m.v[i]->tag, src, tag))
                    break;
            ck_assert_msg(got == (i < m.n ? m.v[i] : NULL),
                          "step %d: (%d, %d) found entry %d, the list says %d (queue of %d, %s)",
                          s, src, tag, got ? got->id : -1, i < m.n ? m.v[i]->id : -1, m.n,
                          q.indexed ? "indexed" : "list");
            indexed += q.indexed;
            mq_by_pair_seen += q.by_pair;
            mq_by_tag_seen += q.by_tag;
            if (got != NULL && rnd(4) != 0) { /* a probe leaves it there */
                /* (the oldest entry through the arrival's removal of a head) */
                if (&got->e == adi_mq_first(&q))
                    adi_mq_remove_first(&q, &got->e);
                else
                    adi_mq_remove(&q, &got->e);
                model_remove(&m, i);
                free_list[nfree++] = got;
            }
        } else if (m.n > 0) {
            /* cancel (posted) or matched probe of a given message: any entry */
            int i = (int)rnd((unsigned)m.n);
            tentry_t *t = m.v[i];
            adi_mq_remove(&q, &t->e);
            model_remove(&m, i);
            free_list[nfree++] = t;
        }
        ck_assert_int_eq((int)q.len, m.n);
    }
    while (m.n > 0) {
        adi_mq_remove(&q, &m.v[m.n - 1]->e);
        m.n--;
    }
    ck_assert_int_eq((int)q.len, 0);
    ck_assert_int_eq(q.indexed, 0);
    ck_assert_int_eq((int)q.nbins, 0);
    adi_mq_fini(&q);
    return indexed;
}

START_TEST(mq_posted_random)
{
    /* no wildcards; then some; then many, on few and many tags, with the
     * queue mostly growing (long queues) or mostly draining (short ones) */
    for (int wild = 0; wild <= 4; wild += 2) {
        ck_assert_int_gt(mq_random(0, 3, 50, wild, 20000, 60), 0);
        mq_random(0, 2, 3, wild, 20000, 45);
        mq_random(0, 4, 1000, wild, 20000, 55);
    }
}
END_TEST

START_TEST(mq_unexpected_random)
{
    mq_by_pair_seen = mq_by_tag_seen = 0;
    for (int wild = 0; wild <= 4; wild += 2) {
        ck_assert_int_gt(mq_random(1, 3, 50, wild, 20000, 60), 0);
        mq_random(1, 2, 3, wild, 20000, 45);
        mq_random(1, 4, 1000, wild, 20000, 55);
        mq_random(1, 300, 4, wild, 20000, 60); /* many lanes, few tags */
    }
    /* the (src, tag) and (any source, tag) bins were made, and used */
    ck_assert_int_gt(mq_by_pair_seen, 0);
    ck_assert_int_gt(mq_by_tag_seen, 0);
}
END_TEST

/* The unexpected queue's lanes and bins on demand, past 64K entries: a
 * root's gathers whose ranks ran ahead (each message at its lane's head:
 * no bins), then messages taken tag by tag (the (src, tag) bins, their
 * table grown), then by (any source, tag). */
START_TEST(mq_lanes_and_bins)
{
    enum { NSRC = 70000, PER = 3, NT = 1000, M = 3 * 25000 };
    static tentry_t r[NSRC * PER > M ? NSRC * PER : M];
    adi_mq_t q;

    adi_mq_init(&q, 1);
    /* PER gathers: one message of tag g from every source, sources in
     * reverse order within a gather */
    for (int g = 0; g < PER; g++)
        for (int k = 0; k < NSRC; k++) {
            tentry_t *t = &r[g * NSRC + k];
            t->e.extra = t->links;
            adi_mq_add(&q, &t->e, NSRC - 1 - k, g);
        }
    for (int g = 0; g < PER; g++)
        for (int src = 0; src < NSRC; src++) {
            tentry_t *t = entry_of(adi_mq_find_unexpected(&q, src, g));
            ck_assert_ptr_eq(t, &r[g * NSRC + NSRC - 1 - src]);
            ck_assert_int_eq(q.indexed, 1);
            ck_assert_int_eq(q.by_pair, 0); /* each one its lane's head */
            adi_mq_remove(&q, &t->e);
        }
    ck_assert_int_eq((int)q.len, 0);
    ck_assert_int_eq(q.indexed, 0);
    ck_assert_uint_ge(q.nlanes, NSRC);

    /* three sources, message i of tag i mod NT; taken tag by tag */
    for (int i = 0; i < M; i++) {
        r[i].e.extra = r[i].links;
        adi_mq_add(&q, &r[i].e, i % 3, (i / 3) % NT);
    }
    for (int t = 0; t < NT; t++) {
        for (int src = 0; src < 3; src++)
            for (int i = 3 * t + src; i < M; i += 3 * NT) {
                tentry_t *e = entry_of(adi_mq_find_unexpected(&q, src, t));
                ck_assert_ptr_eq(e, &r[i]);
                adi_mq_remove(&q, &e->e);
            }
        if (t == 0) {
            ck_assert_int_eq(q.by_pair, 1);
            ck_assert_uint_gt(q.tab_mask + 1, 64); /* grown */
        }
        if (t == NT / 2)
            break;
    }
    /* the rest by (any source, tag), from the youngest tag */
    for (int t = NT - 1; t > NT / 2; t--)
        for (int i = 3 * t; i < M; i++) {
            tentry_t *e;
            if ((i / 3) % NT != t)
                continue;
            e = entry_of(adi_mq_find_unexpected(&q, ADI_ANY_SOURCE, t));
            ck_assert_ptr_eq(e, &r[i]);
            ck_assert_int_eq(q.by_tag, 1); /* (the first search walked the list) */
            adi_mq_remove(&q, &e->e);
        }
    ck_assert_int_eq((int)q.len, 0);
    ck_assert_int_eq(q.indexed + q.by_pair + q.by_tag, 0);
    ck_assert_int_eq((int)q.nbins, 0);
    adi_mq_fini(&q);
}
END_TEST

/* The worst case for a list, and the orders MPI fixes: receives posted for
 * tags 0..n-1 take messages sent in tag order n-1..0; a wildcard posted in
 * the middle takes the first message after it that no older receive takes. */
START_TEST(mq_reverse_and_wildcards)
{
    enum { N = 1000 };
    static tentry_t r[N + 3];
    adi_mq_t q;

    adi_mq_init(&q, 0);
    for (int i = 0; i < N; i++) {
        adi_mq_add(&q, &r[i].e, 1, i);
        if (i == N / 2) {
            adi_mq_add(&q, &r[N].e, ADI_ANY_SOURCE, 7);      /* after tag 7's own */
            adi_mq_add(&q, &r[N + 1].e, 1, ADI_ANY_TAG);     /* takes tags > N/2 from 1 */
            adi_mq_add(&q, &r[N + 2].e, ADI_ANY_SOURCE, ADI_ANY_TAG);
        }
    }
    /* the last tag: its own receive is younger than the (1, any) one */
    ck_assert_ptr_eq(entry_of(adi_mq_find_posted(&q, 1, N - 1)), &r[N + 1]);
    ck_assert_int_eq(q.indexed, 1);
    adi_mq_remove(&q, &r[N + 1].e);
    /* now the (any, any) one, older than tag N-1's own */
    ck_assert_ptr_eq(entry_of(adi_mq_find_posted(&q, 1, N - 1)), &r[N + 2]);
    adi_mq_remove(&q, &r[N + 2].e);
    for (int i = N - 1; i >= 0; i--) {
        tentry_t *t = entry_of(adi_mq_find_posted(&q, 1, i));
        ck_assert_ptr_eq(t, &r[i]);
        adi_mq_remove(&q, &t->e);
    }
    /* tag 7 from another source: only the (any, 7) receive is left */
    ck_assert_ptr_eq(entry_of(adi_mq_find_posted(&q, 3, 7)), &r[N]);
    ck_assert_ptr_eq(entry_of(adi_mq_find_posted(&q, 3, 8)), NULL);
    adi_mq_remove(&q, &r[N].e);
    ck_assert_int_eq(q.indexed, 0);
    adi_mq_fini(&q);

    /* unexpected: messages of tags 0..n-1 from sources 0 and 1 alternating,
     * received in reverse tag order, by source, and by (any, any) */
    adi_mq_init(&q, 1);
    for (int i = 0; i < N; i++) {
        r[i].e.extra = r[i].links;
        adi_mq_add(&q, &r[i].e, i % 2, i);
    }
    ck_assert_ptr_eq(entry_of(adi_mq_find_unexpected(&q, ADI_ANY_SOURCE, N - 1)), &r[N - 1]);
    ck_assert_int_eq(q.indexed, 1);
    ck_assert_ptr_eq(entry_of(adi_mq_find_unexpected(&q, 1, N - 2)), NULL); /* from 0 */
    ck_assert_ptr_eq(entry_of(adi_mq_find_unexpected(&q, 1, ADI_ANY_TAG)), &r[1]);
    adi_mq_remove(&q, &r[1].e);
    ck_assert_ptr_eq(entry_of(adi_mq_find_unexpected(&q, 1, ADI_ANY_TAG)), &r[3]);
    ck_assert_ptr_eq(entry_of(adi_mq_find_unexpected(&q, ADI_ANY_SOURCE, ADI_ANY_TAG)), &r[0]);
    for (int i = N - 1; i >= 0; i--) {
        tentry_t *t;
        if (i == 1)
            continue;
        t = entry_of(adi_mq_find_unexpected(&q, i % 2, i));
        ck_assert_ptr_eq(t, &r[i]);
        adi_mq_remove(&q, &t->e);
    }
    ck_assert_int_eq((int)q.len, 0);
    adi_mq_fini(&q);
}
END_TEST

enum { LOCK_THREADS = 4, LOCK_ROUNDS = 100000 };
static adi_mutex_t count_mutex = ADI_MUTEX_INIT;
static volatile long lock_count;

/* The critical section: a read, now and then a yield (so that other threads
 * run into the held lock and sleep on it), a write. */
static void count_one(int i)
{
    long v = lock_count;
    if (i % 64 == 0)
        sched_yield();
    lock_count = v + 1;
}

static void *count_under_mutex(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCK_ROUNDS; i++) {
        adi_mutex_take(&count_mutex);
        count_one(i);
        adi_mutex_drop(&count_mutex);
    }
    return NULL;
}

/* Nested, and every 8th round through the trylock that polling uses. */
static void *count_under_device_lock(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCK_ROUNDS; i++) {
        if (i % 8 == 0) {
            while (!adi_trylock())
                ;
        } else {
            adi_lock();
        }
        adi_lock();
        count_one(i);
        adi_unlock();
        adi_unlock();
    }
    return NULL;
}

static void count_with(void *(*fn)(void *))
{
    pthread_t t[LOCK_THREADS];
    lock_count = 0;
    for (int i = 0; i < LOCK_THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, fn, NULL), 0);
    for (int i = 0; i < LOCK_THREADS; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(lock_count, (long)LOCK_THREADS * LOCK_ROUNDS);
}

START_TEST(mutex_counts)
{
    count_with(count_under_mutex);
}
END_TEST

static void *try_device_lock(void *arg)
{
    int got = adi_trylock();
    if (got)
        adi_unlock();
    *(int *)arg = got;
    return NULL;
}

static int other_thread_gets_device_lock(void)
{
    pthread_t t;
    int got = -1;
    ck_assert_int_eq(pthread_create(&t, NULL, try_device_lock, &got), 0);
    pthread_join(t, NULL);
    return got;
}

START_TEST(device_lock_nests)
{
    adi_lock_enable();
    adi_lock();
    adi_lock();
    ck_assert_int_eq(adi_trylock(), 1); /* the holder's own trylock nests */
    ck_assert_int_eq(other_thread_gets_device_lock(), 0);
    adi_unlock();
    adi_unlock();
    ck_assert_int_eq(other_thread_gets_device_lock(), 0);
    adi_unlock();
    ck_assert_int_eq(other_thread_gets_device_lock(), 1);
    count_with(count_under_device_lock);
}
END_TEST

/* Contended mode's early sleep (50 us) waits while a peer is expected to
 * pull our rendezvous data, and never beyond the normal threshold. */
START_TEST(contended_sleep_waits_for_pulls)
{
    /* no pull expected (0, or one that ended before the wait): 50 us */
    ck_assert_int_eq(adi_wait_contended_after(20000, 50, 1000, 0), 50);
    ck_assert_int_eq(adi_wait_contended_after(20000, 50, 1000, 900), 50);
    ck_assert_int_eq(adi_wait_contended_after(20000, 50, 1000, 1030), 50);
    /* a 4 MiB pull expected to end 1024 us after the wait began */
    ck_assert_int_eq(adi_wait_contended_after(20000, 50, 1000, 2024), 1024);
    /* a window of pulls beyond the normal threshold: the normal one */
    ck_assert_int_eq(adi_wait_contended_after(20000, 50, 1000, 90000), 20000);
    /* a fast-waking channel's normal 50 us stays */
    ck_assert_int_eq(adi_wait_contended_after(50, 50, 1000, 2024), 50);
}
END_TEST

/* A receiver asks for a push (PKT_PUSH) only over a channel that writes the
 * peer's memory and reads synchronously: with an asynchronous read the
 * receive would end at on_rdma_done, before the sender's part is in. */
START_TEST(push_needs_sync_read)
{
    ch_caps_t c;

    memset(&c, 0, sizeof c);
    c.has_rdma = c.has_rdma_write = 1;
    ck_assert_int_eq(adi_caps_push(&c), 0);
    c.rdma_read_sync = 1;
    ck_assert_int_eq(adi_caps_push(&c), 1);
    c.has_rdma_write = 0;
    ck_assert_int_eq(adi_caps_push(&c), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("adi");
    TCase *tc = tcase_create("packet check");
    tcase_set_timeout(tc, unit_case_timeout_s());
    SRunner *sr;
    int failed;

    tcase_add_test(tc, valid_packets_pass);
    tcase_add_test(tc, bad_headers_refused);
    tcase_add_test(tc, header_lengths);
    tcase_add_test(tc, push_needs_sync_read);
    suite_add_tcase(s, tc);
    tc = tcase_create("matching queues");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, mq_posted_random);
    tcase_add_test(tc, mq_unexpected_random);
    tcase_add_test(tc, mq_reverse_and_wildcards);
    tcase_add_test(tc, mq_lanes_and_bins);
    suite_add_tcase(s, tc);
    tc = tcase_create("locks");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, mutex_counts);
    tcase_add_test(tc, device_lock_nests);
    suite_add_tcase(s, tc);
    tc = tcase_create("waits");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, contended_sleep_waits_for_pulls);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
