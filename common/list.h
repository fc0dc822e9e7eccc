/*
 * The intrusive doubly linked list of the library: an object that can be on
 * a list embeds a common_link_t, the list is a head and a tail, and nothing
 * allocates. Ends are NULL (not a ring), so a walk reads
 *     for (common_link_t *l = list.head; l != NULL; l = l->next)
 * and common_list_entry(l, type, member) gives the object back. Not thread
 * safe: the owner of the list holds whatever lock guards it.
 */
#ifndef CANAL_COMMON_LIST_H
#define CANAL_COMMON_LIST_H

#include <stddef.h>

typedef struct common_link {
    struct common_link *prev, *next;
} common_link_t;

typedef struct {
    common_link_t *head, *tail;
} common_list_t;

/* The object that embeds link `l` as `member` (NULL for NULL). */
#define common_list_entry(l, type, member)                                                        \
    ((l) != NULL ? (type *)(void *)((char *)(l) - offsetof(type, member)) : (type *)NULL)

static inline int common_list_empty(const common_list_t *list)
{
    return list->head == NULL;
}

static inline void common_list_push_front(common_list_t *list, common_link_t *n)
{
    n->prev = NULL;
    n->next = list->head;
    if (list->head != NULL)
        list->head->prev = n;
    else
        list->tail = n;
    list->head = n;
}

static inline void common_list_push_back(common_list_t *list, common_link_t *n)
{
    n->next = NULL;
    n->prev = list->tail;
    if (list->tail != NULL)
        list->tail->next = n;
    else
        list->head = n;
    list->tail = n;
}

/* Takes n (which is on `list`) off it. */
static inline void common_list_remove(common_list_t *list, common_link_t *n)
{
    if (n->prev != NULL)
        n->prev->next = n->next;
    else
        list->head = n->next;
    if (n->next != NULL)
        n->next->prev = n->prev;
    else
        list->tail = n->prev;
    n->prev = n->next = NULL;
}

#endif
