/*
 * Matching queues with an index (see adi/match.h). A short queue is a list
 * searched in order, exactly as MPI states the rule. A long one also sorts
 * its entries into bins of a hash table, each bin a FIFO of the entries
 * that one kind of search must look at:
 *
 * - posted receives go into the bin of their own pattern: (src, tag),
 *   (any source, tag), (src, any tag) or (any, any). Every receive in a bin
 *   takes the same messages, so the oldest receive that takes a message
 *   (src, tag) is the oldest of at most four bin heads, compared by the
 *   sequence number each entry got when it was queued (kinds with no
 *   receive posted are not looked up);
 * - unexpected messages go into three bins, (src, tag), (any source, tag)
 *   and (src, any tag), and stay in the queue's list in arrival order: a
 *   receive's pattern names exactly one of these, or the whole list for
 *   (any, any), whose head is the answer.
 *
 * So the first match costs O(1) whatever the queue's length and whatever
 * mix of wildcards it holds, and MPI's ordering (the oldest matching
 * receive, the oldest matching message of a sender) is what the list
 * search would give. A queue is indexed only once a search in order had
 * to step over more than ADI_MQ_LIST_MAX entries, and the index is dropped
 * when the queue empties: a ping-pong, or messages that arrive in the order
 * their receives were posted, never pay for it (the oldest entry is looked
 * at first, and is the answer when it matches). Emptied bins are kept for
 * reuse, up to SPARE_MAX a queue: enough for the unexpected queue of a
 * root whose ranks run ahead through a loop of small gathers (a bin per
 * message's (src, tag), a few hundred to a few thousand; with 64 kept the
 * root malloc'ed and freed about three bins a call). A failed
 * allocation drops the index and the queue is searched in order.
 */
#include "adi/match.h"
#include "adi/adi.h"

#include <stdlib.h>

_Static_assert((int)ADI_MQ_ANY_SOURCE == (int)ADI_ANY_SOURCE && (int)ADI_MQ_ANY_TAG == (int)ADI_ANY_TAG,
               "match.h's wildcards are adi.h's");

enum { KIND_EXACT = 0, KIND_ANY_SRC = 1, KIND_ANY_TAG = 2, KIND_ALL = 3 };
enum { TAB_MIN = 64, SPARE_MAX = 4096 };

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

/* Put e into the bins it belongs to: 0, or -1 without memory (then e may
 * be in some of them; the caller drops the whole index). */
static int index_entry(adi_mq_t *q, adi_mq_entry_t *e)
{
    int src = e->src, tag = e->tag;

    e->seq = q->seq++;
    if (!q->unexpected) {
        int kind = pattern_kind(src, tag);
        q->nkind[kind]++;
        return link_add(q, &e->link, e, kind, kind & KIND_ANY_SRC ? 0 : src,
                        kind & KIND_ANY_TAG ? 0 : tag);
    }
    if (link_add(q, &e->link, e, KIND_EXACT, src, tag) < 0 ||
        link_add(q, &e->extra[0], e, KIND_ANY_SRC, 0, tag) < 0 ||
        link_add(q, &e->extra[1], e, KIND_ANY_TAG, src, 0) < 0)
        return -1;
    return 0;
}

static void unindex_entry(adi_mq_t *q, adi_mq_entry_t *e)
{
    if (!q->unexpected && e->link.bin != NULL)
        q->nkind[pattern_kind(e->src, e->tag)]--;
    link_remove(q, &e->link);
    if (q->unexpected) {
        link_remove(q, &e->extra[0]);
        link_remove(q, &e->extra[1]);
    }
}

/* Forget the index: every entry leaves its bins, which become spares. */
static void index_drop(adi_mq_t *q)
{
    for (adi_mq_entry_t *e = adi_mq_first(q); e != NULL; e = adi_mq_next(e))
        unindex_entry(q, e);
    for (int k = 0; k < 4; k++)
        q->nkind[k] = 0; /* (an entry whose bin could not be made was counted) */
    q->indexed = 0;
}

/* Entries not in any bin yet (list mode leaves their links unset). */
static void links_clear(adi_mq_t *q, adi_mq_entry_t *e)
{
    e->link.bin = NULL;
    if (q->unexpected)
        e->extra[0].bin = e->extra[1].bin = NULL;
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
    adi_mq_init(q, q->unexpected);
}

void adi_mq_index_add(adi_mq_t *q, adi_mq_entry_t *e)
{
    links_clear(q, e);
    if (index_entry(q, e) < 0) {
        index_drop(q);
        q->retry_len = q->len * 2;
    }
}

void adi_mq_index_remove(adi_mq_t *q, adi_mq_entry_t *e)
{
    unindex_entry(q, e);
    if (q->len == 1) {
        /* the last entry: every bin emptied, and went to the spares */
        q->indexed = 0;
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
    if (kind == KIND_ALL)
        return adi_mq_first(q);
    b = bin_find(q, kind, kind & KIND_ANY_SRC ? 0 : src, kind & KIND_ANY_TAG ? 0 : tag);
    return b != NULL ? bin_oldest(b)->entry : NULL;
}
