/*
 * Matching queues (private to adi/): one for the posted receives of a
 * context, one for its unexpected messages. Entries are embedded in the
 * request or the message; the queue keeps them in arrival order and, once
 * searching it in order gets long, an index too, so that the first match
 * costs O(1) however many entries wait (adi/match.c says how). The queue's
 * owner locks it (adi_ctx_queues_t.lock); a search may build the index.
 * No operation fails: the index is only an accelerator, and when memory for
 * it runs out the queue is searched in order as a short one is.
 */
#ifndef CANAL_ADI_MATCH_H
#define CANAL_ADI_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/list.h"

/* A queue is indexed once a search in order steps over more entries than this. */
enum { ADI_MQ_LIST_MAX = 8 };
/* adi.h's ADI_ANY_SOURCE and ADI_ANY_TAG (adi.h includes this file). */
enum { ADI_MQ_ANY_SOURCE = -2, ADI_MQ_ANY_TAG = -1 };

typedef struct adi_mq_bin adi_mq_bin_t;
typedef struct adi_mq_entry adi_mq_entry_t;

/* An entry's place in one bin of the index. */
typedef struct adi_mq_link {
    common_link_t l; /* in the bin, oldest first */
    adi_mq_bin_t *bin;
    adi_mq_entry_t *entry;
} adi_mq_link_t;

struct adi_mq_entry {
    common_link_t qlink;         /* in the queue, oldest first */
    uint64_t seq;                /* order in the queue (set while indexed) */
    int src, tag;                /* posted: what to match (wildcards allowed);
                                    unexpected: the message's envelope */
    adi_mq_link_t link;          /* posted: its pattern's bin; unexpected: (src, tag)'s */
    adi_mq_link_t *extra;        /* unexpected only: two more links, the bin of
                                    (any source, tag) and the source's lane */
};

typedef struct {
    common_list_t list;    /* of adi_mq_entry_t.qlink, oldest first */
    size_t len;
    uint64_t seq;
    int unexpected;        /* concrete envelopes (lanes, and bins on demand) or patterns */
    int indexed;           /* posted: the bins below; unexpected: the lanes, are up to date */
    int by_tag, by_pair;   /* unexpected, indexed: the (any source, tag) and the (src, tag)
                              bins are kept too */
    common_list_t *lanes;  /* unexpected: per source, its messages oldest first (nlanes) */
    unsigned nlanes;
    size_t retry_len;      /* after a failed index build: try again at this length */
    adi_mq_bin_t **tab;    /* hash table of non-empty bins */
    unsigned tab_mask;
    size_t nbins;
    size_t nkind[4];       /* posted, while indexed: entries of each wildcard kind */
    adi_mq_bin_t *spare;   /* emptied bins kept for reuse */
    int nspare;
} adi_mq_t;

void adi_mq_init(adi_mq_t *q, int unexpected);
/* Frees the index; the entries belong to their owners. */
void adi_mq_fini(adi_mq_t *q);

/* The index's side of adding and removing (adi/match.c). */
void adi_mq_index_add(adi_mq_t *q, adi_mq_entry_t *e);
void adi_mq_index_remove(adi_mq_t *q, adi_mq_entry_t *e);
adi_mq_entry_t *adi_mq_search_posted(adi_mq_t *q, int src, int tag);
adi_mq_entry_t *adi_mq_search_unexpected(adi_mq_t *q, int src, int tag);

/* The oldest entry of q, the one after e: NULL at the end. */
static inline adi_mq_entry_t *adi_mq_first(const adi_mq_t *q)
{
    return common_list_entry(q->list.head, adi_mq_entry_t, qlink);
}

static inline adi_mq_entry_t *adi_mq_next(const adi_mq_entry_t *e)
{
    return common_list_entry(e->qlink.next, adi_mq_entry_t, qlink);
}

/* Append e with envelope or pattern (src, tag); an unexpected entry's extra
 * must point to two links that live as long as the entry. (Inline, as are
 * the removal and the first look of a search: a short queue costs what a
 * plain list does.) */
static inline void adi_mq_add(adi_mq_t *q, adi_mq_entry_t *e, int src, int tag)
{
    e->src = src;
    e->tag = tag;
    common_list_push_back(&q->list, &e->qlink);
    q->len++;
    if (q->indexed)
        adi_mq_index_add(q, e);
}

static inline void adi_mq_remove(adi_mq_t *q, adi_mq_entry_t *e)
{
    if (q->indexed)
        adi_mq_index_remove(q, e);
    common_list_remove(&q->list, &e->qlink);
    q->len--;
}

/* adi_mq_remove of the oldest entry e (the head of a window of receives
 * posted in the order their messages come: the arrival's usual case). */
static inline void adi_mq_remove_first(adi_mq_t *q, adi_mq_entry_t *e)
{
    common_link_t *next = e->qlink.next;

    if (q->indexed)
        adi_mq_index_remove(q, e);
    q->list.head = next;
    if (next != NULL)
        next->prev = NULL;
    else
        q->list.tail = NULL;
    e->qlink.next = NULL; /* (prev is NULL: e was first) */
    q->len--;
}

/* Posted queue: the oldest receive whose pattern takes a message (src, tag).
 * (The oldest receive is the answer when it matches: messages that arrive
 * in the order their receives were posted.) */
static inline adi_mq_entry_t *adi_mq_find_posted(adi_mq_t *q, int src, int tag)
{
    adi_mq_entry_t *e = adi_mq_first(q);

    if (e == NULL || ((e->src == src || e->src == ADI_MQ_ANY_SOURCE) &&
                      (e->tag == tag || e->tag == ADI_MQ_ANY_TAG)))
        return e;
    return adi_mq_search_posted(q, src, tag);
}

/* Unexpected queue: the oldest message that a receive of (src, tag), each
 * possibly a wildcard, takes. (Indexed, the head of src's lane is looked at
 * here too: a gather's root finds each message there.) */
static inline adi_mq_entry_t *adi_mq_find_unexpected(adi_mq_t *q, int src, int tag)
{
    adi_mq_entry_t *e = adi_mq_first(q);
    common_link_t *l;

    if (e == NULL || ((src == e->src || src == ADI_MQ_ANY_SOURCE) &&
                      (tag == e->tag || tag == ADI_MQ_ANY_TAG)))
        return e;
    if (q->indexed && (unsigned)src < q->nlanes) {
        if ((l = q->lanes[src].head) == NULL)
            return NULL; /* nothing from src */
        e = common_list_entry(l, adi_mq_link_t, l)->entry;
        if (tag == e->tag || tag == ADI_MQ_ANY_TAG)
            return e;
    }
    return adi_mq_search_unexpected(q, src, tag);
}

#endif
