/*
 * Caching (MPI 4.0 section 7.7): keyvals and the attributes they name on
 * communicators and datatypes (windows reuse the same pieces through
 * comm_impl.h), the predefined attributes of MPI_COMM_WORLD, and the MPI-1
 * names MPI_Keyval_create/free and MPI_Attr_put/get/delete.
 *
 * A keyval remembers which object kind it was made for, its copy and delete
 * callbacks and the extra state. It is reference counted: the user's handle
 * holds one reference until MPI_*_free_keyval, and every attribute holds one,
 * so a freed keyval lives on until its last attribute is deleted (as the
 * standard asks). An object's attributes are a singly linked list, newest
 * first: deletion (at free, and at MPI_Finalize for MPI_COMM_SELF) runs the
 * delete callbacks newest first, which is the reverse order of setting the
 * standard requires for MPI_COMM_SELF; duplication calls the copy callbacks
 * oldest first and keeps the order in the copy.
 *
 * Called by the MPI functions below, by mpi/comm.c (dup, free) and by the
 * datatype code (mpi_attr_dup_all/delete_all through mpiimpl.h).
 *
 * MPICH's Fortran and C++ libraries (mpi/mpich_lang.c) add two things, with
 * MPICH's semantics: a value has a kind (MPI_ATTR_KIND_PTR from C, _AINT or
 * _INT when Fortran set it: an integer, not an address), and a keyval may
 * have a language proxy through which its callbacks are called (the
 * library's thunk, given the user's function, the kind and the raw value).
 * C callbacks see an integer-kind value by address, as MPICH passes it.
 */
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef int(attr_copy_fn_t)(int oldhandle, int keyval, void *extra, void *in, void *out, int *flag);
typedef int(attr_delete_fn_t)(int handle, int keyval, void *value, void *extra);

typedef struct {
    int objtype;
    int handle;
    attr_copy_fn_t *copy;  /* NULL: the attribute is not copied */
    attr_delete_fn_t *del; /* NULL: nothing to call */
    mpi_attr_copy_proxy_t *copy_proxy;  /* NULL: C's convention */
    mpi_attr_delete_proxy_t *del_proxy;
    void *extra;
    int refcount; /* user handle + attributes */
    int freed;    /* MPI_*_free_keyval was called */
} keyval_t;

struct mpi_attr {
    struct mpi_attr *next;
    keyval_t *kv;
    int keyval;
    void *value;
    mpi_attr_kind_t kind; /* how value was set */
};

/* Protects the attribute lists; callbacks run without it (they may call
 * attribute functions themselves). */
static pthread_mutex_t attr_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *objname(int objtype)
{
    switch (objtype) {
    case MPI_OBJ_COMM:
        return "communicator";
    case MPI_OBJ_DATATYPE:
        return "datatype";
    case MPI_OBJ_WIN:
        return "window";
    default:
        return "unknown";
    }
}

static int code_new(int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int code_new(int cls, const char *fn, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return mpi_err_code_new(cls, fn, detail);
}

/* ---------------------------------------------------------------- predefined */
/* Fortran's mpif.h names each predefined keyval by the C value + 1 (MPICH
 * accepts both forms from either language). */
static int predefined_index(int keyval)
{
    if (mpi_handle_kind(keyval) == MPI_HKIND_BUILTIN && (keyval & 1) == 0)
        keyval -= 1;
    switch (keyval) {
    case MPI_TAG_UB:
        return 0;
    case MPI_HOST:
        return 1;
    case MPI_IO:
        return 2;
    case MPI_WTIME_IS_GLOBAL:
        return 3;
    case MPI_UNIVERSE_SIZE:
        return 4;
    case MPI_LASTUSEDCODE:
        return 5;
    case MPI_APPNUM:
        return 6;
    default:
        return -1;
    }
}

static const char *const predefined_names[] = {
    "MPI_TAG_UB",        "MPI_HOST",         "MPI_IO",     "MPI_WTIME_IS_GLOBAL",
    "MPI_UNIVERSE_SIZE", "MPI_LASTUSEDCODE", "MPI_APPNUM",
};

/* The values live here and the user gets their addresses, as C asks. */
static int predefined_values[7];

static int *predefined_value(int idx)
{
    int v = 0;
    switch (idx) {
    case 0:
        v = MPI_CANAL_TAG_UB;
        break;
    case 1:
        v = MPI_PROC_NULL;
        break;
    case 2:
        v = MPI_ANY_SOURCE;
        break;
    case 3:
        v = 0;
        break;
    case 4:
        v = mpi_pmi.universe_size > 0 ? mpi_pmi.universe_size : mpi_pmi.size;
        break;
    case 5:
        v = mpi_err_lastusedcode();
        break;
    case 6:
        v = mpi_pmi.appnum;
        break;
    }
    __atomic_store_n(&predefined_values[idx], v, __ATOMIC_RELAXED);
    return &predefined_values[idx];
}

/* ---------------------------------------------------------------- keyvals */
static keyval_t *keyval_lookup(int h)
{
    if (mpi_handle_kind(h) != MPI_HKIND_DIRECT)
        return NULL;
    return mpi_handle_get(MPI_OBJ_KEYVAL, h);
}

/* The handle stays reserved until the last reference goes, so that a
 * new keyval never gets the number of one that attributes still use. */
static void keyval_release(keyval_t *kv)
{
    if (__atomic_sub_fetch(&kv->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        mpi_handle_del(MPI_OBJ_KEYVAL, kv->handle);
        free(kv);
    }
}

/* The keyval named by h for objects of kind objtype, or an error code.
 * A keyval freed by the user but still used by attributes (alive) may be
 * named by get, delete and free, as in MPICH (its tests attr/fkeyval and
 * keyval_double_free rely on it); setting a new attribute needs a keyval
 * that was not freed. */
static int keyval_check(int objtype, int h, const char *fn, int allow_freed, keyval_t **out)
{
    keyval_t *kv = NULL;
    if (h == MPI_KEYVAL_INVALID)
        return code_new(MPI_ERR_KEYVAL, fn, "keyval is MPI_KEYVAL_INVALID");
    kv = keyval_lookup(h);
    if (kv == NULL || (kv->freed && !allow_freed))
        return code_new(MPI_ERR_KEYVAL, fn, "keyval=%#x is not a valid (or is a freed) keyval",
                        (unsigned)h);
    if (kv->objtype != objtype)
        return code_new(MPI_ERR_KEYVAL, fn, "keyval=%#x was created for %ss, not for %ss",
                        (unsigned)h, objname(kv->objtype), objname(objtype));
    *out = kv;
    return MPI_SUCCESS;
}

int mpi_keyval_create(int objtype, void (*copy_fn)(void), void (*delete_fn)(void),
                      void *extra_state, int *keyval_out, const char *fn)
{
    keyval_t *kv = NULL;

    if (keyval_out == NULL)
        return code_new(MPI_ERR_ARG, fn, "the keyval argument is NULL");
    kv = calloc(1, sizeof *kv);
    if (kv == NULL)
        return code_new(MPI_ERR_NO_MEM, fn, "out of memory for a keyval");
    kv->objtype = objtype;
    kv->copy = (attr_copy_fn_t *)(void *)copy_fn;
    kv->del = (attr_delete_fn_t *)(void *)delete_fn;
    kv->extra = extra_state;
    kv->refcount = 1;
    kv->handle = mpi_handle_new(MPI_OBJ_KEYVAL, kv);
    if (kv->handle == 0) {
        free(kv);
        return code_new(MPI_ERR_NO_MEM, fn, "out of keyval handles");
    }
    *keyval_out = kv->handle;
    return MPI_SUCCESS;
}

int mpi_keyval_free(int objtype, int *keyval, const char *fn)
{
    keyval_t *kv = NULL;
    int err;

    if (keyval == NULL)
        return code_new(MPI_ERR_ARG, fn, "the keyval argument is NULL");
    if (predefined_index(*keyval) >= 0)
        return code_new(MPI_ERR_KEYVAL, fn, "keyval %s is predefined and cannot be freed",
                        predefined_names[predefined_index(*keyval)]);
    if ((err = keyval_check(objtype, *keyval, fn, 1, &kv)) != MPI_SUCCESS)
        return err;
    /* Attributes that use the keyval keep it alive (and its callbacks run).
     * Freeing it again while it lives (e.g. from a delete callback, which
     * gets its own copy of the handle) releases nothing more. */
    if (!__atomic_exchange_n(&kv->freed, 1, __ATOMIC_ACQ_REL))
        keyval_release(kv);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- attributes */
static mpi_attr_t *attr_find(mpi_attr_t *list, const keyval_t *kv)
{
    for (; list != NULL; list = list->next)
        if (list->kv == kv)
            return list;
    return NULL;
}

static int call_delete(int handle, const mpi_attr_t *a)
{
    void *value = a->value;
    if (a->kv->del == NULL)
        return MPI_SUCCESS;
    if (a->kv->del_proxy != NULL)
        return a->kv->del_proxy((MPI_Comm_delete_attr_function *)(void *)a->kv->del, handle,
                                a->keyval, a->kind, a->value, a->kv->extra);
    /* C's convention: an integer set from Fortran is passed by address */
    return a->kv->del(handle, a->keyval, a->kind == MPI_ATTR_KIND_PTR ? value : (void *)&value,
                      a->kv->extra);
}

static int call_copy(int handle, const mpi_attr_t *a, void **newval, int *flag)
{
    void *value = a->value;
    if (a->kv->copy_proxy != NULL)
        return a->kv->copy_proxy((MPI_Comm_copy_attr_function *)(void *)a->kv->copy, handle,
                                 a->keyval, a->kv->extra, a->kind, a->value, newval, flag);
    return a->kv->copy(handle, a->keyval, a->kv->extra,
                       a->kind == MPI_ATTR_KIND_PTR ? value : (void *)&value, newval, flag);
}

int mpi_attr_keyval_set_proxy(int keyval, mpi_attr_copy_proxy_t *copy_proxy,
                              mpi_attr_delete_proxy_t *delete_proxy)
{
    keyval_t *kv = keyval_lookup(keyval);
    if (kv == NULL || kv->freed)
        return -1;
    kv->copy_proxy = copy_proxy;
    kv->del_proxy = delete_proxy;
    return 0;
}

int mpi_attr_set(int objtype, int handle, mpi_attr_t **list, int keyval, void *value,
                 const char *fn)
{
    return mpi_attr_set_kind(objtype, handle, list, keyval, value, MPI_ATTR_KIND_PTR, fn);
}

int mpi_attr_set_kind(int objtype, int handle, mpi_attr_t **list, int keyval, void *value,
                      mpi_attr_kind_t kind, const char *fn)
{
    keyval_t *kv = NULL;
    mpi_attr_t *a = NULL;
    int err;

    if (predefined_index(keyval) >= 0)
        return code_new(MPI_ERR_KEYVAL, fn, "keyval %s is predefined and cannot be set",
                        predefined_names[predefined_index(keyval)]);
    if ((err = keyval_check(objtype, keyval, fn, 0, &kv)) != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&attr_lock);
    a = attr_find(*list, kv);
    pthread_mutex_unlock(&attr_lock);
    if (a != NULL) {
        /* The old value is deleted first; if that fails it stays. */
        if ((err = call_delete(handle, a)) != MPI_SUCCESS)
            return err;
        pthread_mutex_lock(&attr_lock);
        a->value = value;
        a->kind = kind;
        pthread_mutex_unlock(&attr_lock);
        return MPI_SUCCESS;
    }
    a = malloc(sizeof *a);
    if (a == NULL)
        return code_new(MPI_ERR_NO_MEM, fn, "out of memory for an attribute");
    __atomic_add_fetch(&kv->refcount, 1, __ATOMIC_RELAXED);
    a->kv = kv;
    a->keyval = keyval;
    a->value = value;
    a->kind = kind;
    pthread_mutex_lock(&attr_lock);
    a->next = *list;
    *list = a;
    pthread_mutex_unlock(&attr_lock);
    return MPI_SUCCESS;
}

int mpi_attr_get(int objtype, mpi_attr_t *list, int keyval, void *attribute_val, int *flag,
                 const char *fn)
{
    return mpi_attr_get_kind(objtype, list, keyval, attribute_val, flag, MPI_ATTR_KIND_PTR, fn);
}

/* As MPICH: a caller of kind PTR (C, C++) gets a value set from C as it was
 * set and an integer set from Fortran by address; a Fortran caller gets the
 * stored word as an integer (so a C pointer reads as its address), and a
 * predefined attribute's value itself. */
int mpi_attr_get_kind(int objtype, mpi_attr_t *list, int keyval, void *attribute_val, int *flag,
                      mpi_attr_kind_t kind, const char *fn)
{
    keyval_t *kv = NULL;
    mpi_attr_t *a = NULL;
    int err, idx = predefined_index(keyval);

    if (attribute_val == NULL || flag == NULL)
        return code_new(MPI_ERR_ARG, fn, "%s is NULL",
                        attribute_val == NULL ? "attribute_val" : "flag");
    if (idx >= 0 && objtype == MPI_OBJ_COMM) {
        int *v = predefined_value(idx);
        if (kind == MPI_ATTR_KIND_PTR)
            *(void **)attribute_val = v;
        else
            *(intptr_t *)attribute_val = *v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if ((err = keyval_check(objtype, keyval, fn, 1, &kv)) != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&attr_lock);
    a = attr_find(list, kv);
    if (a != NULL)
        *(void **)attribute_val = kind == MPI_ATTR_KIND_PTR && a->kind != MPI_ATTR_KIND_PTR
                                      ? (void *)&a->value
                                      : a->value;
    pthread_mutex_unlock(&attr_lock);
    *flag = a != NULL;
    return MPI_SUCCESS;
}

int mpi_attr_delete(int objtype, int handle, mpi_attr_t **list, int keyval, const char *fn)
{
    keyval_t *kv = NULL;
    mpi_attr_t *a = NULL, **pp;
    int err;

    if (predefined_index(keyval) >= 0)
        return code_new(MPI_ERR_KEYVAL, fn, "keyval %s is predefined and cannot be deleted",
                        predefined_names[predefined_index(keyval)]);
    if ((err = keyval_check(objtype, keyval, fn, 1, &kv)) != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&attr_lock);
    a = attr_find(*list, kv);
    pthread_mutex_unlock(&attr_lock);
    if (a == NULL)
        return MPI_SUCCESS; /* nothing cached under this keyval: nothing to do */
    if ((err = call_delete(handle, a)) != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&attr_lock);
    for (pp = list; *pp != NULL; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    pthread_mutex_unlock(&attr_lock);
    keyval_release(a->kv);
    free(a);
    return MPI_SUCCESS;
}

int mpi_attr_dup_all(int objtype, int old_handle, mpi_attr_t *src, mpi_attr_t **dst_out)
{
    mpi_attr_t **all;
    int n = 0, err = MPI_SUCCESS;

    *dst_out = NULL;
    pthread_mutex_lock(&attr_lock);
    for (mpi_attr_t *a = src; a != NULL; a = a->next)
        n++;
    all = malloc(sizeof *all * (size_t)(n > 0 ? n : 1));
    if (all == NULL) {
        pthread_mutex_unlock(&attr_lock);
        return code_new(MPI_ERR_NO_MEM, "attribute copy", "out of memory");
    }
    n = 0;
    for (mpi_attr_t *a = src; a != NULL; a = a->next) {
        /* hold the values and keyvals while callbacks run unlocked */
        mpi_attr_t *copy = malloc(sizeof *copy);
        if (copy == NULL) {
            err = code_new(MPI_ERR_NO_MEM, "attribute copy", "out of memory");
            break;
        }
        *copy = *a;
        __atomic_add_fetch(&a->kv->refcount, 1, __ATOMIC_RELAXED);
        all[n++] = copy;
    }
    pthread_mutex_unlock(&attr_lock);

    /* all[] is newest first: copy oldest first, prepending keeps the order. */
    for (int i = n - 1; i >= 0; i--) {
        mpi_attr_t *a = all[i];
        void *newval = NULL;
        int flag = 0;

        all[i] = NULL;
        if (err == MPI_SUCCESS && a->kv->copy != NULL) {
            int rc = call_copy(old_handle, a, &newval, &flag);
            if (rc != MPI_SUCCESS)
                err = rc;
        }
        if (err == MPI_SUCCESS && flag) {
            a->value = newval;
            a->next = *dst_out;
            *dst_out = a;
        } else {
            keyval_release(a->kv);
            free(a);
        }
    }
    free(all);
    return err;
}

int mpi_attr_delete_all(int objtype, int handle, mpi_attr_t **list)
{
    for (;;) {
        mpi_attr_t *a = NULL;
        int err;

        pthread_mutex_lock(&attr_lock);
        a = *list;
        if (a != NULL)
            *list = a->next;
        pthread_mutex_unlock(&attr_lock);
        if (a == NULL)
            return MPI_SUCCESS;
        if ((err = call_delete(handle, a)) != MPI_SUCCESS) {
            pthread_mutex_lock(&attr_lock);
            a->next = *list;
            *list = a;
            pthread_mutex_unlock(&attr_lock);
            return err;
        }
        keyval_release(a->kv);
        free(a);
    }
}

int mpi_attr_finalize(void)
{
    int e1 = mpi_attr_delete_all(MPI_OBJ_COMM, MPI_COMM_SELF, &mpi_comm_self_obj.attrs);
    int e2 = mpi_attr_delete_all(MPI_OBJ_COMM, MPI_COMM_WORLD, &mpi_comm_world_obj.attrs);
    return e1 != MPI_SUCCESS ? e1 : e2;
}

/* ---------------------------------------------------------------- communicator fronts */
/* The implementations of the generated entry points (mpi/api/07-communicators.api;
 * MPI_Attr_* and MPI_Keyval_free of chapter 16 share them). */
int mpi_comm_create_keyval_impl(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                int *comm_keyval, void *extra_state, const char *fn)
{
    int err = mpi_keyval_create(MPI_OBJ_COMM, (void (*)(void))comm_copy_attr_fn,
                                (void (*)(void))comm_delete_attr_fn, extra_state, comm_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_keyval_create_impl(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                           void *extra_state, const char *fn)
{
    int err = mpi_keyval_create(MPI_OBJ_COMM, (void (*)(void))copy_fn, (void (*)(void))delete_fn,
                                extra_state, keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_comm_free_keyval_impl(int *comm_keyval, const char *fn)
{
    int err = mpi_keyval_free(MPI_OBJ_COMM, comm_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_comm_set_attr_impl(mpi_comm_t *c, int comm_keyval, void *attribute_val, const char *fn)
{
    int err = mpi_attr_set(MPI_OBJ_COMM, c->handle, &c->attrs, comm_keyval, attribute_val, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(c, err, fn);
}

int mpi_comm_get_attr_impl(mpi_comm_t *c, int comm_keyval, void *attribute_val, int *flag,
                           const char *fn)
{
    int err = mpi_attr_get(MPI_OBJ_COMM, c->attrs, comm_keyval, attribute_val, flag, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(c, err, fn);
}

int mpi_comm_delete_attr_impl(mpi_comm_t *c, int comm_keyval, const char *fn)
{
    int err = mpi_attr_delete(MPI_OBJ_COMM, c->handle, &c->attrs, comm_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(c, err, fn);
}

/* ---------------------------------------------------------------- datatype fronts */
/* mpi/type.c provides the attribute list of a datatype; weak so that the
 * library links (and the type attribute functions fail cleanly) before it. */
#pragma weak mpi_type_attr_list

/* The datatype comes checked by the entry point (kind type: valid, committed
 * or not), so its list exists. */
static int type_list(MPI_Datatype t, const char *fn, mpi_attr_t ***out)
{
    if (mpi_type_attr_list == NULL)
        return mpi_err_fail(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "datatype attributes need mpi/type.c, which is not built in");
    *out = mpi_type_attr_list(t);
    return MPI_SUCCESS;
}

int mpi_type_create_keyval_impl(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                MPI_Type_delete_attr_function *type_delete_attr_fn,
                                int *type_keyval, void *extra_state, const char *fn)
{
    int err = mpi_keyval_create(MPI_OBJ_DATATYPE, (void (*)(void))type_copy_attr_fn,
                                (void (*)(void))type_delete_attr_fn, extra_state, type_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_type_free_keyval_impl(int *type_keyval, const char *fn)
{
    int err = mpi_keyval_free(MPI_OBJ_DATATYPE, type_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_type_set_attr_impl(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                           const char *fn)
{
    mpi_attr_t **l = NULL;
    int err;
    if ((err = type_list(datatype, fn, &l)))
        return err;
    err = mpi_attr_set(MPI_OBJ_DATATYPE, datatype, l, type_keyval, attribute_val, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_type_get_attr_impl(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag,
                           const char *fn)
{
    mpi_attr_t **l = NULL;
    int err;
    if ((err = type_list(datatype, fn, &l)))
        return err;
    err = mpi_attr_get(MPI_OBJ_DATATYPE, *l, type_keyval, attribute_val, flag, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}

int mpi_type_delete_attr_impl(MPI_Datatype datatype, int type_keyval, const char *fn)
{
    mpi_attr_t **l = NULL;
    int err;
    if ((err = type_list(datatype, fn, &l)))
        return err;
    err = mpi_attr_delete(MPI_OBJ_DATATYPE, datatype, l, type_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_fail_code(NULL, err, fn);
}
