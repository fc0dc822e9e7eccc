/*
 * The key-value store of mpiexec's PMI server: a chained hash table of
 * strings with a bound on total memory, so a runaway client gets an error
 * instead of exhausting the machine. Used by mpiexec/server.c for the job's
 * KVS, node attributes and published service names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpiexec/mpiexec.h"

enum { KVS_BYTES_MAX = 256 << 20 };

typedef struct kvs_entry {
    struct kvs_entry *next;
    char *key, *val;
} kvs_entry_t;

struct mpx_kvs {
    kvs_entry_t **bucket;
    size_t nbuckets, count, bytes;
};

static uint64_t kvs_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

mpx_kvs_t *mpx_kvs_create(void)
{
    mpx_kvs_t *kvs = calloc(1, sizeof *kvs);
    if (kvs == NULL)
        return NULL;
    kvs->nbuckets = 256;
    kvs->bucket = calloc(kvs->nbuckets, sizeof *kvs->bucket);
    if (kvs->bucket == NULL) {
        free(kvs);
        return NULL;
    }
    return kvs;
}

static void kvs_grow(mpx_kvs_t *kvs)
{
    size_t n = kvs->nbuckets * 4;
    kvs_entry_t **b = calloc(n, sizeof *b);
    if (b == NULL)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < kvs->nbuckets; i++) {
        kvs_entry_t *e = kvs->bucket[i], *next;
        for (; e != NULL; e = next) {
            size_t h = kvs_hash(e->key) % n;
            next = e->next;
            e->next = b[h];
            b[h] = e;
        }
    }
    free(kvs->bucket);
    kvs->bucket = b;
    kvs->nbuckets = n;
}

int mpx_kvs_put(mpx_kvs_t *kvs, const char *key, const char *val)
{
    size_t h = kvs_hash(key) % kvs->nbuckets;
    size_t klen = strlen(key), vlen = strlen(val);
    kvs_entry_t *e;
    char *v;

    for (e = kvs->bucket[h]; e != NULL; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            if (kvs->bytes - strlen(e->val) + vlen > KVS_BYTES_MAX || (v = strdup(val)) == NULL)
                return -1;
            kvs->bytes = kvs->bytes - strlen(e->val) + vlen;
            free(e->val);
            e->val = v;
            return 0;
        }
    }
    if (kvs->bytes + klen + vlen + sizeof *e > KVS_BYTES_MAX)
        return -1;
    e = calloc(1, sizeof *e);
    if (e == NULL)
        return -1;
    e->key = strdup(key);
    e->val = strdup(val);
    if (e->key == NULL || e->val == NULL) {
        free(e->key);
        free(e->val);
        free(e);
        return -1;
    }
    e->next = kvs->bucket[h];
    kvs->bucket[h] = e;
    kvs->bytes += klen + vlen + sizeof *e;
    if (++kvs->count > kvs->nbuckets * 2)
        kvs_grow(kvs);
    return 0;
}

const char *mpx_kvs_get(const mpx_kvs_t *kvs, const char *key)
{
    for (kvs_entry_t *e = kvs->bucket[kvs_hash(key) % kvs->nbuckets]; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->val;
    return NULL;
}

int mpx_kvs_remove(mpx_kvs_t *kvs, const char *key)
{
    kvs_entry_t **pp = &kvs->bucket[kvs_hash(key) % kvs->nbuckets];
    for (; *pp != NULL; pp = &(*pp)->next) {
        kvs_entry_t *e = *pp;
        if (strcmp(e->key, key) == 0) {
            *pp = e->next;
            kvs->bytes -= strlen(e->key) + strlen(e->val) + sizeof *e;
            kvs->count--;
            free(e->key);
            free(e->val);
            free(e);
            return 0;
        }
    }
    return -1;
}
