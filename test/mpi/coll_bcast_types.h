/*
 * Checks shared by the MPI_Bcast tests of the node's shared block
 * (coll_shm_bcast.c) and of its ring (coll_shm_ring.c):
 *   bcast_types(c, n)  a vector type (every other int of 2n) at each root in
 *                      turn against n contiguous ints at the others, and the
 *                      other way round (the same type signature), values checked;
 *   bcast_expect(rc, cls, what, needle)  rc is of class cls and its message
 *                      names needle.
 */
#ifndef CANAL_COLL_BCAST_TYPES_H
#define CANAL_COLL_BCAST_TYPES_H

#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static void bcast_types(MPI_Comm c, int n)
{
    int me, p, *v = malloc(sizeof(int) * 2 * (size_t)n);
    MPI_Datatype vec;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < 2 * n; i++)
            v[i] = me == root ? i * 3 + root : -1;
        if (me == root)
            OK(MPI_Bcast(v, 1, vec, root, c));
        else
            OK(MPI_Bcast(v, n, MPI_INT, root, c));
        for (int i = 0; i < n && me != root; i++)
            if (v[i] != 2 * i * 3 + root) {
                CHECK(0, "vector from root %d: [%d] = %d, want %d", root, i, v[i],
                      2 * i * 3 + root);
                break;
            }
        for (int i = 0; i < 2 * n; i++)
            v[i] = me == root ? i + root : -7;
        if (me == root)
            OK(MPI_Bcast(v, n, MPI_INT, root, c));
        else
            OK(MPI_Bcast(v, 1, vec, root, c));
        for (int i = 0; i < 2 * n && me != root; i++) {
            int want = i % 2 == 0 ? i / 2 + root : -7;
            if (v[i] != want) {
                CHECK(0, "into a vector from root %d: [%d] = %d, want %d", root, i, v[i], want);
                break;
            }
        }
    }
    MPI_Type_free(&vec);
    free(v);
}

static void bcast_expect(int rc, int cls, const char *what, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    EXPECT_CLASS(rc, cls, what);
    if (rc == MPI_SUCCESS || needle == NULL)
        return;
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, needle) != NULL, "%s: the message \"%s\" does not say \"%s\"", what, msg,
          needle);
}

#endif
