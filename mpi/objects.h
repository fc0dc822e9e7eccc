/*
 * The MPI objects that the MPI-level layers beside mpi/ -- rma/ (windows)
 * and io/ (files) -- build theirs from: groups (mpi/group.c), communicator
 * construction (mpi/comm.c: a window or a file owns a private
 * communicator), info objects (mpi/info.c) and attribute lists
 * (mpi/attr.c). With mpiimpl.h (handles, the communicator, errors and
 * error handlers) and the generated mpi/api_impl.h (the mpi_*_impl
 * functions, collectives included), this is all of mpi/ that rma/ and io/
 * may include (test/check_layers.sh). mpi/comm_impl.h includes it.
 */
#ifndef CANAL_MPI_OBJECTS_H
#define CANAL_MPI_OBJECTS_H

#include "mpiimpl.h"

/* ---------------------------------------------------------------- groups */
/* A group is an ordered set of job ranks. Where the members form an
 * arithmetic progression (MPI_COMM_WORLD, a range, every other rank) only
 * first/stride are kept, so such a group costs O(1) memory whatever the job
 * size; otherwise the members are listed, with an index sorted by job rank
 * so that "which rank has job rank j" is a binary search. */
struct mpi_group {
    int refcount;     /* user references + communicators holding it */
    int user_refs;    /* references held through the handle */
    MPI_Group handle; /* while user_refs > 0 (0 otherwise) */
    int size;
    int rank;          /* this process's rank in the group, or MPI_UNDEFINED */
    int first, stride; /* list == NULL: member i is job rank first + i * stride */
    int *list;         /* explicit job ranks, or NULL */
    int *order;        /* list form: indices into list sorted by job rank */
    MPI_Session session; /* MPI_Group_from_session_pset's session, or 0 (buffered sends) */
};

static inline int mpi_group_member(const mpi_group_t *g, int i)
{
    return g->list != NULL ? g->list[i] : g->first + i * g->stride;
}

mpi_group_t *mpi_group_get(MPI_Group h); /* NULL if not a live group */
mpi_group_t *mpi_group_empty(void);      /* the object of MPI_GROUP_EMPTY */
/* New groups with one reference (NULL when out of memory). A list that is an
 * arithmetic progression is stored in the compact form. */
mpi_group_t *mpi_group_new_stride(int first, int stride, int n);
mpi_group_t *mpi_group_new_list(const int *job_ranks, int n);
/* Rank in g of the process with job rank j, or MPI_UNDEFINED. */
int mpi_group_rank_of(const mpi_group_t *g, int job_rank);
void mpi_group_retain(mpi_group_t *g);
void mpi_group_release(mpi_group_t *g);
/* Give the user a reference to g as a handle (MPI_GROUP_EMPTY for an empty
 * group); consumes the caller's reference. MPI error class on failure. */
int mpi_group_to_handle(mpi_group_t *g, MPI_Group *out);
/* The members as a malloc'ed array of job ranks; NULL with *identity_out = 1
 * when g is 0..world-1 in order (the communicator convention), NULL with
 * *identity_out = 0 when out of memory. */
int *mpi_group_job_array(const mpi_group_t *g, int world_size, int *identity_out);
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int mpi_group_compare(const mpi_group_t *a, const mpi_group_t *b);

/* The local (and remote) group of a communicator, built on first use and kept
 * by the communicator (the pointer is borrowed; retain to keep it). */
mpi_group_t *mpi_comm_local_group(mpi_comm_t *c);
mpi_group_t *mpi_comm_remote_group(mpi_comm_t *c);

/* ---------------------------------------------------------------- comm helpers */
/* The duplicate of c as MPI_Comm_dup makes it, raising nothing (for a
 * library object's communicator, whose errors are its call's: io/'s files):
 * MPI_SUCCESS, else an MPI error class (MPI_ERR_OTHER for an attribute copy
 * callback's failure) and *why, what failed. */
int mpi_comm_dup_quiet(mpi_comm_t *c, mpi_comm_t **out, const char **why);
/* Make an intracommunicator over g (this process must be a member) with the
 * given context; attributes, topology and info are left empty. On failure
 * the context is NOT freed. Returns an MPI error class. */
int mpi_comm_new_intra(mpi_comm_t *parent, int context, mpi_group_t *g, mpi_comm_t **out);
/* An intercommunicator over the local group lg (this process is a member)
 * and the remote group rg with the two agreed contexts (dyn/,
 * whose rg names processes of another job). MPI error class; on failure the
 * contexts are NOT freed. */
int mpi_comm_new_inter(mpi_comm_t *parent, int context, mpi_group_t *lg, mpi_group_t *rg,
                       int local_context, mpi_comm_t **out);
/* Free everything of c (no attribute callbacks). */
void mpi_comm_destroy(mpi_comm_t *c);
/* References beyond the user's handle (a pending MPI_Comm_idup): the
 * communicator is destroyed when the last one goes, so MPI_Comm_free may
 * come first (MPI 4.0 7.4.3: freeing marks it for deallocation). */
void mpi_comm_retain(mpi_comm_t *c);
void mpi_comm_release(mpi_comm_t *c);
/* MPI_Comm_split over an intracommunicator, usable by the topology code. */
int mpi_comm_split_intra(mpi_comm_t *parent, int color, int key, mpi_comm_t **out, const char *fn);
/* Called by MPI_Comm_free on every communicator before it is destroyed
 * (for per-communicator state of other layers, e.g. coll/). */
void mpi_comm_add_free_hook(void (*hook)(mpi_comm_t *c));

/* ---------------------------------------------------------------- info */
/* Internal access to info objects: NULL or -1 when h is not a valid info. */
int mpi_info_valid(MPI_Info h);
const char *mpi_info_lookup(MPI_Info h, const char *key);
int mpi_comm_hw_level(int i, const char **name_out); /* mpi/comm.c */
/* Create an empty info (MPI error class on failure). */
int mpi_info_new(MPI_Info *out);
int mpi_info_put(MPI_Info h, const char *key, const char *value);
int mpi_info_nkeys(MPI_Info h);
const char *mpi_info_nth(MPI_Info h, int n, const char **value_out);
void mpi_info_release(MPI_Info h);

/* mpi/envkeys.c: the memory allocation kinds of an info (NULL without),
 * and mpi_memory_alloc_kinds put into `to`: the supported part of user's
 * value when user has the key, else `inherited` (the world's when NULL). */
const char *mpi_memkinds_of(MPI_Info info);
int mpi_memkinds_put(MPI_Info to, const char *inherited, MPI_Info user);

/* ---------------------------------------------------------------- attributes */
/* Delete the attributes of MPI_COMM_SELF then MPI_COMM_WORLD (MPI_Finalize). */
int mpi_attr_finalize(void);
/* The pieces of the attribute functions, for every object kind (objtype
 * MPI_OBJ_COMM, MPI_OBJ_DATATYPE or MPI_OBJ_WIN), so that the owner of
 * windows can write MPI_Win_*_attr/keyval around them. Each returns
 * MPI_SUCCESS or an error code that is NOT raised yet (argument errors carry
 * a message naming fn; a failing callback's own code is passed through): the
 * caller raises it with the handler of its object. */
int mpi_keyval_create(int objtype, void (*copy_fn)(void), void (*delete_fn)(void),
                      void *extra_state, int *keyval_out, const char *fn);
int mpi_keyval_free(int objtype, int *keyval, const char *fn);
int mpi_attr_set(int objtype, int handle, mpi_attr_t **list, int keyval, void *value,
                 const char *fn);
/* Stores the value in *(void **)attribute_val. */
int mpi_attr_get(int objtype, mpi_attr_t *list, int keyval, void *attribute_val, int *flag,
                 const char *fn);
int mpi_attr_delete(int objtype, int handle, mpi_attr_t **list, int keyval, const char *fn);

#endif
