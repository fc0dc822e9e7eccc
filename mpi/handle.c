/*
 * Handle tables: MPICH-ABI integer handles <-> Canal objects, one table per
 * object type. Builtin handles (kind 1) map through a small array indexed by
 * the handle's low byte (checked against the full handle); created objects
 * get direct handles (kind 2) whose index addresses a two-level table whose
 * blocks never move, so lookups need no lock. Freed indices are reused.
 * Requests do not live here: their handles come from the device's indices.
 */
#include "mpiimpl.h"
#include "adi/lock.h"

#include <stdlib.h>

enum { HBLOCK = MPI_HANDLE_BLOCK, HBLOCKS = MPI_HANDLE_BLOCKS, HBUILTIN = 256 };

typedef struct {
    int handle;
    void *obj;
} builtin_slot_t;

typedef struct {
    builtin_slot_t builtin[HBUILTIN];
    builtin_slot_t *extra;     /* builtins whose low byte collides */
    int nextra;
    int next_index;            /* never-used indices start here */
    int *free_list;            /* reusable indices */
    int nfree, free_cap;
} handle_table_t;

static handle_table_t tables[MPI_OBJ_NTYPES];
void **mpi_handle_blocks[MPI_OBJ_NTYPES][MPI_HANDLE_BLOCKS]; /* (mpi_handle_direct) */
int mpi_dt_predefined[256];
void *mpi_dt_predefined_obj[256];
size_t mpi_dt_predefined_size[256];

/* Creating and deleting handles (an MPI_Message per MPI_Mprobe): the
 * device's one-word mutex, inline, where glibc's are two calls of 30-40
 * instructions each (a sixth of mpi4py's comm.recv of a small object). */
static adi_mutex_t handle_lock = ADI_MUTEX_INIT;

void mpi_handle_builtin(mpi_objtype_t objtype, int h, void *obj)
{
    handle_table_t *t = &tables[objtype];
    builtin_slot_t *s = &t->builtin[h & 0xff];

    if (s->handle == 0 || s->handle == h) {
        s->handle = h;
        s->obj = obj;
        if (objtype == MPI_OBJ_DATATYPE && mpi_handle_kind(h) == MPI_HKIND_BUILTIN) {
            mpi_dt_predefined_obj[h & 0xff] = obj; /* (mpi_dt_get) */
            mpi_dt_predefined[h & 0xff] = h;       /* (mpi_dt_is_predefined) */
            mpi_dt_predefined_size[h & 0xff] = dt_size(obj); /* (MPI_Get_count) */
        }
        return;
    }
    t->extra = realloc(t->extra, sizeof *t->extra * (size_t)(t->nextra + 1));
    if (t->extra == NULL)
        abort(); /* only at MPI_Init, with a few hundred bytes */
    t->extra[t->nextra].handle = h;
    t->extra[t->nextra].obj = obj;
    t->nextra++;
}

void *mpi_handle_get(mpi_objtype_t objtype, int h)
{
    handle_table_t *t;
    int idx;
    void **blk;

    if (mpi_handle_objtype(h) != (int)objtype)
        return NULL;
    t = &tables[objtype];
    switch (mpi_handle_kind(h)) {
    case MPI_HKIND_BUILTIN:
        if (t->builtin[h & 0xff].handle == h)
            return t->builtin[h & 0xff].obj;
        for (int i = 0; i < t->nextra; i++)
            if (t->extra[i].handle == h)
                return t->extra[i].obj;
        return NULL;
    case MPI_HKIND_DIRECT:
        idx = mpi_handle_index(h);
        if (idx / HBLOCK >= HBLOCKS)
            return NULL;
        blk = __atomic_load_n(&mpi_handle_blocks[objtype][idx / HBLOCK], __ATOMIC_ACQUIRE);
        return blk == NULL ? NULL : blk[idx % HBLOCK];
    default:
        return NULL;
    }
}

void mpi_handle_reserve(mpi_objtype_t objtype, int h, void *obj)
{
    handle_table_t *t = &tables[objtype];
    int idx = mpi_handle_index(h);

    adi_mutex_take(&handle_lock);
    if (mpi_handle_blocks[objtype][idx / HBLOCK] == NULL)
        mpi_handle_blocks[objtype][idx / HBLOCK] = calloc(HBLOCK, sizeof(void *));
    if (mpi_handle_blocks[objtype][idx / HBLOCK] == NULL)
        abort(); /* only at MPI_Init */
    mpi_handle_blocks[objtype][idx / HBLOCK][idx % HBLOCK] = obj;
    if (t->next_index <= idx)
        t->next_index = idx + 1;
    adi_mutex_drop(&handle_lock);
}

int mpi_handle_new(mpi_objtype_t objtype, void *obj)
{
    handle_table_t *t = &tables[objtype];
    int idx, h = 0;

    adi_mutex_take(&handle_lock);
    if (t->nfree > 0) {
        idx = t->free_list[--t->nfree];
    } else {
        idx = t->next_index;
        if (idx / HBLOCK >= HBLOCKS)
            goto out_unlock;
        if (mpi_handle_blocks[objtype][idx / HBLOCK] == NULL) {
            void **blk = calloc(HBLOCK, sizeof *blk);
            if (blk == NULL)
                goto out_unlock;
            __atomic_store_n(&mpi_handle_blocks[objtype][idx / HBLOCK], blk, __ATOMIC_RELEASE);
        }
        t->next_index++;
    }
    mpi_handle_blocks[objtype][idx / HBLOCK][idx % HBLOCK] = obj;
    h = mpi_handle_make(MPI_HKIND_DIRECT, objtype, idx);
out_unlock:
    adi_mutex_drop(&handle_lock);
    return h;
}

void mpi_handle_del(mpi_objtype_t objtype, int h)
{
    handle_table_t *t = &tables[objtype];
    int idx = mpi_handle_index(h);

    if (mpi_handle_kind(h) != MPI_HKIND_DIRECT || mpi_handle_objtype(h) != (int)objtype)
        return;
    adi_mutex_take(&handle_lock);
    void **blk = mpi_handle_blocks[objtype][idx / HBLOCK];
    if (blk != NULL && blk[idx % HBLOCK] != NULL) {
        blk[idx % HBLOCK] = NULL;
        if (t->nfree == t->free_cap) {
            int cap = t->free_cap ? 2 * t->free_cap : 64;
            int *fl = realloc(t->free_list, sizeof *fl * (size_t)cap);
            if (fl == NULL)
                goto out_unlock; /* the index is simply not reused */
            t->free_list = fl;
            t->free_cap = cap;
        }
        t->free_list[t->nfree++] = idx;
    }
out_unlock:
    adi_mutex_drop(&handle_lock);
}

adi_request_t mpi_request_done_obj;     /* (set up by mpi_request_shared_init, */
adi_request_t mpi_request_nullproc_obj; /*  called by mpi/coll.c's init hook) */

void mpi_request_shared_init(void)
{
    /* (the same values at every init: threads of an earlier session may
     * still read them, and nothing of them changes) */
    if (mpi_request_done_obj.index != MPI_REQUEST_DONE_INDEX)
        adi_request_init_done(&mpi_request_done_obj, ADI_REQ_COLL, MPI_REQUEST_DONE_INDEX);
    if (mpi_request_nullproc_obj.index != MPI_REQUEST_NULLPROC_INDEX) {
        adi_request_init_done(&mpi_request_nullproc_obj, ADI_REQ_OTHER, MPI_REQUEST_NULLPROC_INDEX);
        mpi_request_nullproc_obj.status.source = MPI_PROC_NULL;
    }
}

adi_request_t *mpi_request_get_other(MPI_Request h)
{
    adi_request_t *r = mpi_request_shared_of(h);
    if (r != NULL && r->index != mpi_handle_index(h))
        r = NULL; /* (a shared request not set up yet) */
    return r;
}
