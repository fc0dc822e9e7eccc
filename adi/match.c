/*
 * Matching queues with an index (see adi/match.h). A short queue is a list
 * searched in order, exactly as MPI states the rule. A long one is indexed
 * once a search in order had to step over more than ADI_MQ_LIST_MAX
 * entries, and the index is dropped when the queue empties: a ping-pong,
 * or messages that arrive in the order their receives were posted, never
 * pay for it (the oldest entry is looked at first, and is the answer when
 * it matches).
 *
 * - Posted receives go into bins of a hash table, each bin a FIFO of the
 *   receives of one pattern: (src, tag), (any source, tag), (src, any tag)
 *   or (any, any). Every receive in a bin takes the same messages, so the
 *   oldest receive that takes a message (src, tag) is the oldest of at
 *   most four bin heads, compared by the sequence number each entry got
 *   when it was queued (kinds with no receive posted are not looked up).
 * - Unexpected messages go into their source's lane, a FIFO in an array
 *   indexed by the source (no hash, no allocation per message), and stay
 *   in the queue's list in arrival order. A receive (src, any tag) takes
 *   its lane's head, (any, any) the list's head; (src, tag) is the first of
 *   its lane with that tag, and (any source, tag) the first of the list:
 *   each of these two searches in order until one of its searches steps
 *   over more than ADI_MQ_LIST_MAX entries, and from then on until the
 *   queue empties the queue also keeps that kind's bins, (src, tag) or
 *   (any source, tag), whose heads are the answers. A root whose ranks run
 *   ahead through a loop of gathers (each rank's messages in its lane in
 *   the order of the calls) finds every one at its lane's head; a message
 *   costs its lane's append and removal (about 20 instructions each: the
 *   three bins of every message that this replaced cost about 400 a
 *   message, doc/bench.md "Stop 44 (helper lat14)").
 *
 * So the first match costs O(1) whatever the queue's length and whatever
 * mix of wildcards it holds (after at most one search in order of each
 * kind), and MPI's ordering (the oldest matching receive, the oldest
 * matching message of a sender) is what the list search would give.
 * Emptied bins are kept for reuse, up to SPARE_MAX a queue, and the lanes
 * until the queue is freed. A failed allocation drops the index and the
 * queue is searched in order.
 */
#include "adi/match.h"
#include "adi/adi.h"

#include <stdlib.h>

_Static_assert((int)ADI_MQ_ANY_SOURCE == (int)ADI_ANY_SOURCE && (int)ADI_MQ_ANY_TAG == (int)ADI_ANY_TAG,
               "match.h's wildcards are adi.h's");

enum { KIND_EXACT = 0, KIND_ANY_SRC = 1, KIND_ANY_TAG = 2, KIND_ALL = 3 };
enum { TAB_MIN = 64, SPARE_MAX = 4096, LANES_MIN = 16 };

struct adi_mq_bin {
    adi_mq_bin_t *hnext; /* hash chain */
    int kind, src, tag;  /* the key; a wildcard part is 0 */
    common_list_t links; /* of adi_mq_link_t.l, oldest first */
};

static adi_mq_link_t *bin_oldest(const adi_mq_bin_t *b)
{
    return common_list_entry(b->links.head, adi_mq_link_t, l);
}

static int pattern_kind(int src, int tag)
{
    return (src == ADI_ANY_SOURCE ? KIND_ANY_SRC : 0) | (tag == ADI_ANY_TAG ? KIND_ANY_TAG : 0);
}

static unsigned bin_hash(int kind, int src, int tag)
{
    uint32_t h = (uint32_t)src * 0x9e3779b1u ^ (uint32_t)tag * 0x85ebca77u ^ (uint32_t)kind;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    return h ^ (h >> 13);
}

static adi_mq_bin_t *bin_find(const adi_mq_t *q, int kind, int src, int tag)
{
    adi_mq_bin_t *b = q->tab[bin_hash(kind, src, tag) & q->tab_mask];
    while (b != NULL && (b->kind != kind || b->src != src || b->tag != tag))
        b = b->hnext;
    return b;
}

/* Twice the buckets when the bins outnumber them two to one; when memory
 * is short the chains just get longer. */
static void tab_grow(adi_mq_t *q)
{
    unsigned n = (q->tab_mask + 1) * 2;
    adi_mq_bin_t **t = calloc(n, sizeof *t);

    if (t == NULL)
        return;
    for (unsigned i = 0; i <= q->tab_mask; i++) {
        for (adi_mq_bin_t *b = q->tab[i], *next; b != NULL; b = next) {
            unsigned h = bin_hash(b->kind, b->src, b->tag) & (n - 1);
            next = b->hnext;
            b->hnext = t[h];
            t[h] = b;
        }
    }
    free(q->tab);
    q->tab = t;
    q->tab_mask = n - 1;
}

/* The bin of (kind, src, tag), created when missing; NULL without memory. */
static adi_mq_bin_t *bin_get(adi_mq_t *q, int kind, int src, int tag)
{
    adi_mq_bin_t *b = bin_find(q, kind, src, tag);
    unsigned h;

    if (b != NULL)
        return b;
    if (q->spare != NULL) {
        b = q->spare;
        q->spare = b->hnext;
        q->nspare--;
    } else if ((b = malloc(sizeof *b)) == NULL) {
        return NULL;
    }
    b->kind = kind;
    b->src = src;
    b->tag = tag;
    b->links = (common_list_t){NULL, NULL};
    h = bin_hash(kind, src, tag) & q->tab_mask;
    b->hnext = q->tab[h];
    q->tab[h] = b;
    if (++q->nbins > 2 * ((size_t)q->tab_mask + 1))
        tab_grow(q);
    return b;
}

static void bin_drop(adi_mq_t *q, adi_mq_bin_t *b)
{
    adi_mq_bin_t **pp = &q->tab[bin_hash(b->kind, b->src, b->tag) & q->tab_mask];

    while (*pp != b)
        pp = &(*pp)->hnext;
    *pp = b->hnext;
    q->nbins--;
    if (q->nspare < SPARE_MAX) {
        b->hnext = q->spare;
        q->spare = b;
        q->nspare++;
    } else {
        free(b);
    }
}

static int link_add(adi_mq_t *q, adi_mq_link_t *l, adi_mq_entry_t *e, int kind, int src, int tag)
{
    adi_mq_bin_t *b = bin_get(q, kind, src, tag);

    if (b == NULL)
        return -1;
    l->entry = e;
    l->bin = b;
    common_list_push_back(&b->links, &l->l);
    return 0;
}

static void link_remove(adi_mq_t *q, adi_mq_link_t *l)
{
    adi_mq_bin_t *b = l->bin;

    if (b == NULL)
        return;
    common_list_remove(&b->links, &l->l);
    l->bin = NULL;
    if (common_list_empty(&b->links))
        bin_drop(q, b);
}

/* The lane of source src, the lanes grown to hold it: NULL without memory. */
static common_list_t *lane_get(adi_mq_t *q, int src)
{
    if (src < 0)
        return NULL;
    if ((unsigned)src >= q->nlanes) {
        size_t n = q->nlanes ? q->nlanes : LANES_MIN;
        common_list_t *l;

        while (n <= (size_t)src)
            n *= 2;
        if ((l = realloc(q->lanes, n * sizeof *l)) == NULL)
            return NULL;
        for (size_t i = q->nlanes; i < n; i++)
            l[i] = (common_list_t){NULL, NULL};
        q->lanes = l;
        q->nlanes = (unsigned)n;
    }
    return &q->lanes[src];
}

static adi_mq_entry_t *lane_entry(common_link_t *l)
{
    return l != NULL ? common_list_entry(l, adi_mq_link_t, l)->entry : NULL;
}

/* The unexpected message e into the bins the queue keeps (by_pair, by_tag). */
static __attribute__((noinline)) int bins_add(adi_mq_t *q, adi_mq_entry_t *e)
{
    if ((q->by_pair && link_add(q, &e->link, e, KIND_EXACT, e->src, e->tag) < 0) ||
        (q->by_tag && link_add(q, &e->extra[0], e, KIND_ANY_SRC, 0, e->tag) < 0))
        return -1;
    return 0;
}

/* Put e into its lane or its bins: 0, or -1 without memory (then e may be
 * in some of them; the caller drops the whole index). */
static int index_entry(adi_mq_t *q, adi_mq_entry_t *e)
{
    int src = e->src, tag = e->tag;
    common_list_t *lane;

    if (!q->unexpected) {
        int kind = pattern_kind(src, tag);
        e->seq = q->seq++;
        q->nkind[kind]++;
        return link_add(q, &e->link, e, kind, kind & KIND_ANY_SRC ? 0 : src,
                        kind & KIND_ANY_TAG ? 0 : tag);
    }
    e->link.bin = e->extra[0].bin = NULL;
    if ((lane = lane_get(q, src)) == NULL)
        return -1;
    e->extra[1].entry = e;
    common_list_push_back(lane, &e->extra[1].l);
    return q->by_pair | q->by_tag ? bins_add(q, e) : 0;
}

/* (posted, or unexpected in its lane) */
static void unindex_entry(adi_mq_t *q, adi_mq_entry_t *e)
{
    if (q->unexpected) {
        common_list_remove(&q->lanes[e->src], &e->extra[1].l);
        if (e->link.bin == NULL && e->extra[0].bin == NULL)
            return;
        link_remove(q, &e->extra[0]);
    } else if (e->link.bin != NULL) {
        q->nkind[pattern_kind(e->src, e->tag)]--;
    }
    link_remove(q, &e->link);
}

/* Forget the index: every entry leaves its bins, which become spares, and
 * the lanes are emptied (an entry that failed may not be in its own). */
static void index_drop(adi_mq_t *q)
{
    for (adi_mq_entry_t *e = adi_mq_first(q); e != NULL; e = adi_mq_next(e)) {
        if (!q->unexpected) {
            unindex_entry(q, e);
            continue;
        }
        link_remove(q, &e->link);
        link_remove(q, &e->extra[0]);
        if ((unsigned)e->src < q->nlanes)
            q->lanes[e->src] = (common_list_t){NULL, NULL};
    }
    for (int k = 0; k < 4; k++)
        q->nkind[k] = 0; /* (an entry whose bin could not be made was counted) */
    q->indexed = q->by_tag = q->by_pair = 0;
}

/* Entries not in any bin yet (list mode leaves their links unset). */
static void links_clear(adi_mq_t *q, adi_mq_entry_t *e)
{
    e->link.bin = NULL;
    if (q->unexpected)
        e->extra[0].bin = NULL; /* (the lane's link is set when it is added) */
}

static void index_build(adi_mq_t *q)
{
    for (adi_mq_entry_t *e = adi_mq_first(q); e != NULL; e = adi_mq_next(e))
        links_clear(q, e);
    if (q->tab == NULL) {
        if ((q->tab = calloc(TAB_MIN, sizeof *q->tab)) == NULL)
            goto fail;
        q->tab_mask = TAB_MIN - 1;
    }
    q->indexed = 1;
    for (adi_mq_entry_t *e = adi_mq_first(q); e != NULL; e = adi_mq_next(e))
        if (index_entry(q, e) < 0)
            goto fail;
    return;
fail:
    if (q->indexed)
        index_drop(q);
    q->retry_len = q->len * 2;
}

void adi_mq_init(adi_mq_t *q, int unexpected)
{
    *q = (adi_mq_t){.unexpected = unexpected};
}

void adi_mq_fini(adi_mq_t *q)
{
    if (q->indexed)
        index_drop(q);
    while (q->spare != NULL) {
        adi_mq_bin_t *b = q->spare;
        q->spare = b->hnext;
        free(b);
    }
    free(q->tab);
    free(q->lanes);
    adi_mq_init(q, q->unexpected);
}

void adi_mq_index_add(adi_mq_t *q, adi_mq_entry_t *e)
{
    if (!q->unexpected)
        e->link.bin = NULL; /* (an unexpected one's index_entry clears its links) */
    if (index_entry(q, e) < 0) {
        index_drop(q);
        q->retry_len = q->len * 2;
    }
}

void adi_mq_index_remove(adi_mq_t *q, adi_mq_entry_t *e)
{
    unindex_entry(q, e);
    if (q->len == 1) {
        /* the last entry: every bin and lane emptied, the bins went to the
         * spares */
        q->indexed = q->by_tag = q->by_pair = 0;
        q->retry_len = 0;
    }
}

static int matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == ADI_ANY_SOURCE || want_src == src) &&
           (want_tag == ADI_ANY_TAG || want_tag == tag);
}

/* The oldest of the current best and the head of bin (kind, src, tag). */
static adi_mq_entry_t *older_head(const adi_mq_t *q, adi_mq_entry_t *best, int kind, int src,
                                  int tag)
{
    adi_mq_bin_t *b = bin_find(q, kind, src, tag);

    if (b == NULL)
        return best;
    if (best == NULL || bin_oldest(b)->entry->seq < best->seq)
        return bin_oldest(b)->entry;
    return best;
}

/* A search in order looked at `steps` entries: past ADI_MQ_LIST_MAX, the
 * next one would too, so index the queue (found is what the search found). */
static adi_mq_entry_t *searched(adi_mq_t *q, size_t steps, adi_mq_entry_t *found)
{
    if (steps > ADI_MQ_LIST_MAX && q->len >= q->retry_len)
        index_build(q);
    return found;
}

/* The head did not match (adi_mq_find_posted looked). */
adi_mq_entry_t *adi_mq_search_posted(adi_mq_t *q, int src, int tag)
{
    adi_mq_entry_t *best;
    size_t steps = 0;

    if (!q->indexed) {
        for (adi_mq_entry_t *e = adi_mq_next(adi_mq_first(q)); e != NULL; e = adi_mq_next(e), steps++)
            if (matches(e->src, e->tag, src, tag))
                return searched(q, steps, e);
        return searched(q, steps, NULL);
    }
    best = q->nkind[KIND_EXACT] ? older_head(q, NULL, KIND_EXACT, src, tag) : NULL;
    if (q->nkind[KIND_ANY_SRC])
        best = older_head(q, best, KIND_ANY_SRC, 0, tag);
    if (q->nkind[KIND_ANY_TAG])
        best = older_head(q, best, KIND_ANY_TAG, src, 0);
    if (q->nkind[KIND_ALL])
        best = older_head(q, best, KIND_ALL, 0, 0);
    return best;
}

/* Keep the bins of kind (KIND_EXACT: by_pair, KIND_ANY_SRC: by_tag) too,
 * from now on until the queue empties (unexpected, indexed). */
static void bins_build(adi_mq_t *q, int kind)
{
    for (adi_mq_entry_t *e = adi_mq_first(q); e != NULL; e = adi_mq_next(e)) {
        if (kind == KIND_EXACT ? link_add(q, &e->link, e, KIND_EXACT, e->src, e->tag) < 0
                               : link_add(q, &e->extra[0], e, KIND_ANY_SRC, 0, e->tag) < 0) {
            index_drop(q);
            q->retry_len = q->len * 2;
            return;
        }
    }
    if (kind == KIND_EXACT)
        q->by_pair = 1;
    else
        q->by_tag = 1;
}

/* The first entry from link l on with tag (a search in order of a lane or
 * of the list after its head; kind is the search's): past ADI_MQ_LIST_MAX steps, the kind's bins
 * are built for the next searches. */
static adi_mq_entry_t *unexpected_walk(adi_mq_t *q, int kind, int tag, adi_mq_entry_t *e)
{
    size_t steps = 0;

    for (; e != NULL; steps++) {
        if (e->tag == tag)
            break;
        e = kind == KIND_EXACT ? lane_entry(e->extra[1].l.next) : adi_mq_next(e);
    }
    if (steps > ADI_MQ_LIST_MAX)
        bins_build(q, kind);
    return e;
}

/* The head did not match (adi_mq_find_unexpected looked). */
adi_mq_entry_t *adi_mq_search_unexpected(adi_mq_t *q, int src, int tag)
{
    int kind = pattern_kind(src, tag);
    adi_mq_bin_t *b;
    size_t steps = 0;

    if (!q->indexed) {
        for (adi_mq_entry_t *e = adi_mq_next(adi_mq_first(q)); e != NULL; e = adi_mq_next(e), steps++)
            if (matches(src, tag, e->src, e->tag))
                return searched(q, steps, e);
        return searched(q, steps, NULL);
    }
    switch (kind) {
    case KIND_ALL:
        return adi_mq_first(q);
    case KIND_ANY_TAG:
        return (unsigned)src < q->nlanes ? lane_entry(q->lanes[src].head) : NULL;
    case KIND_EXACT:
        if (!q->by_pair)
            return (unsigned)src < q->nlanes
                       ? unexpected_walk(q, kind, tag, lane_entry(q->lanes[src].head))
                       : NULL;
        b = bin_find(q, kind, src, tag);
        break;
    default: /* KIND_ANY_SRC */
        if (!q->by_tag)
            return unexpected_walk(q, kind, tag, adi_mq_next(adi_mq_first(q)));
        b = bin_find(q, kind, 0, tag);
        break;
    }
    return b != NULL ? bin_oldest(b)->entry : NULL;
}
