/*
 * The native half of Canal's Java binding (package mpi, the API of Open MPI's
 * Java bindings): every native method of mpi.Jni. It calls only the public C
 * API (mpi.h, mpi_ext.h). Handles travel to Java as longs; MPI_Status as a
 * long[6] {source, tag, error, cancelled, bytes, index}.
 *
 * Java memory (doc/managed.md, "A real runtime"): the JVM may move an array
 * whenever the thread is in native code, except inside a JNI critical region,
 * where the thread must not block. So
 *  - a blocking send of an array pins it (critical region) only when it is
 *    eager (at most zc_send_max bytes, completes at once); a larger one is
 *    copied into this thread's bounce buffer, a registered MPIX_Buffer, and
 *    waits outside the critical region;
 *  - a blocking receive into an array pins it and polls for spin_us; if no
 *    message matched it cancels, waits with MPI_Mprobe unpinned, and pins
 *    again only to take the matched message (MPI_Mrecv pulls a rendezvous
 *    message straight into the array: no copy);
 *  - collectives, sendrecv, file and pack operations on arrays copy the
 *    span the datatype touches into native memory and back;
 *  - direct buffers never move; nonblocking operations take only direct
 *    buffers (as in Open MPI) and the Java Request keeps them reachable.
 *    Direct buffers used by point-to-point calls are registered once with
 *    MPIX_Buffer_register (cached by address) and released with
 *    MPIX_Buffer_release when the Java buffer became unreachable.
 */
#include <jni.h>
#include <mpi.h>
#include <mpi_ext.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static JavaVM *jni_vm;
static long jni_zc_send_max = 16384; /* CANAL_JAVA_ZEROCOPY_MAX */
static long jni_spin_us = 20;        /* CANAL_JAVA_SPIN_US */
/* Collectives with a user operation in flight. Their operation may run in
 * the progress of any MPI call, in any thread, and calls Java: no thread may
 * then hold an array pinned (a JNI critical region forbids JNI calls and
 * allocation), so while this is nonzero arrays are copied, never pinned. */
static int jni_user_colls;

static int jni_may_pin(void)
{
    return __atomic_load_n(&jni_user_colls, __ATOMIC_ACQUIRE) == 0;
}
/* counters for mpi.CanalExt.stats() */
static long long st_send_pinned, st_send_copied, st_recv_pinned, st_recv_probed,
    st_array_copies, st_registered, st_op_pinned;
static __thread int jni_pinned; /* this thread holds an array pinned */

/* ---------------------------------------------------------------- errors */
static void jni_throw_mpi(JNIEnv *env, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING + 160], estr[MPI_MAX_ERROR_STRING];
    int len = 0, cls = MPI_ERR_OTHER;
    jclass c;
    jmethodID ctor;
    jstring s;
    jobject ex;

    if ((*env)->ExceptionCheck(env))
        return;
    estr[0] = 0;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = MPI_ERR_UNKNOWN;
    MPI_Error_string(rc, estr, &len);
    snprintf(msg, sizeof msg, "%s: %s", what, estr);
    c = (*env)->FindClass(env, "mpi/MPIException");
    if (c == NULL)
        return;
    ctor = (*env)->GetMethodID(env, c, "<init>", "(IILjava/lang/String;)V");
    s = (*env)->NewStringUTF(env, msg);
    ex = (*env)->NewObject(env, c, ctor, rc, cls, s);
    if (ex != NULL)
        (*env)->Throw(env, ex);
}

/* An MPI error raised by the binding itself (bad Java arguments). */
static void jni_throw_class(JNIEnv *env, int cls, const char *msg)
{
    jclass c;
    jmethodID ctor;
    jobject ex;
    if ((*env)->ExceptionCheck(env))
        return;
    c = (*env)->FindClass(env, "mpi/MPIException");
    if (c == NULL)
        return;
    ctor = (*env)->GetMethodID(env, c, "<init>", "(IILjava/lang/String;)V");
    ex = (*env)->NewObject(env, c, ctor, cls, cls, (*env)->NewStringUTF(env, msg));
    if (ex != NULL)
        (*env)->Throw(env, ex);
}

static void jni_throw_java(JNIEnv *env, const char *cls, const char *msg)
{
    jclass c;
    if ((*env)->ExceptionCheck(env))
        return;
    c = (*env)->FindClass(env, cls);
    if (c != NULL)
        (*env)->ThrowNew(env, c, msg);
}

/* rc != MPI_SUCCESS: throw and return 1. */
static int jni_fail(JNIEnv *env, int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return (*env)->ExceptionCheck(env) ? 1 : 0;
    jni_throw_mpi(env, rc, what);
    return 1;
}

static void jni_status_out(JNIEnv *env, jlongArray out, const MPI_Status *s, int index)
{
    MPI_Count n = 0;
    int cancelled = 0;
    jlong v[6];
    if (out == NULL)
        return;
    MPI_Get_elements_x(s, MPI_BYTE, &n);
    MPI_Test_cancelled(s, &cancelled);
    v[0] = s->MPI_SOURCE;
    v[1] = s->MPI_TAG;
    v[2] = s->MPI_ERROR;
    v[3] = cancelled;
    v[4] = n;
    v[5] = index;
    (*env)->SetLongArrayRegion(env, out, 0, 6, v);
}

/* ---------------------------------------------------------------- Java memory */
/* The bytes [lo, hi) relative to the buffer's start that count elements of
 * dt touch (true bounds, so holes at either end are not copied). */
static int jni_span(MPI_Count count, MPI_Datatype dt, MPI_Aint at, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Count tlb, text, lb, ext;
    int rc;
    if (count <= 0)
        return MPI_SUCCESS;
    if ((rc = MPI_Type_get_true_extent_x(dt, &tlb, &text)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_extent_x(dt, &lb, &ext)) != MPI_SUCCESS)
        return rc;
    if (text == 0)
        return MPI_SUCCESS;
    {
        MPI_Aint a = at + (MPI_Aint)tlb + (ext < 0 ? (MPI_Aint)((count - 1) * ext) : 0);
        MPI_Aint b = at + (MPI_Aint)(tlb + text) + (ext > 0 ? (MPI_Aint)((count - 1) * ext) : 0);
        if (*lo == *hi) {
            *lo = a;
            *hi = b;
        } else {
            if (a < *lo)
                *lo = a;
            if (b > *hi)
                *hi = b;
        }
    }
    return MPI_SUCCESS;
}

enum { JB_IN = 1, JB_OUT = 2, JB_PIN = 4, JB_CHECK = 8 /* bounds check only */ };

typedef struct {
    jarray arr;    /* non-NULL: a Java array */
    char *crit;    /* the array's pinned address (JB_PIN) */
    char *tmp;     /* the copy of [off+lo, off+hi) */
    MPI_Aint off, lo, hi;
    int flags;
} jni_buf;

/* Where MPI reads/writes the buffer (obj, off bytes into it, cap bytes long)
 * for the span [lo, hi). NULL with an exception pending on error; *ok tells
 * a legal NULL (nothing to touch) from an error. */
static char *jni_buf_open(JNIEnv *env, jni_buf *b, jobject obj, jint off, jint cap, MPI_Aint lo,
                          MPI_Aint hi, int flags, const char *call, int *ok)
{
    char msg[256];
    memset(b, 0, sizeof *b);
    *ok = 0;
    if (obj == NULL) {
        if (hi > lo) {
            snprintf(msg, sizeof msg, "%s: the buffer is null but the count and datatype need %ld bytes",
                     call, (long)(hi - lo));
            jni_throw_class(env, MPI_ERR_BUFFER, msg);
            return NULL;
        }
        *ok = 1;
        return NULL;
    }
    if (hi > lo && ((MPI_Aint)off + lo < 0 || (MPI_Aint)off + hi > (MPI_Aint)cap)) {
        snprintf(msg, sizeof msg,
                 "%s: the buffer (%d bytes from offset %d) is too small: the count and datatype "
                 "touch bytes %ld to %ld",
                 call, (int)(cap - off), (int)off, (long)lo, (long)hi);
        jni_throw_class(env, MPI_ERR_BUFFER, msg);
        return NULL;
    }
    b->off = off;
    b->lo = lo;
    b->hi = hi;
    b->flags = flags;
    {
        char *addr = (*env)->GetDirectBufferAddress(env, obj);
        if (addr != NULL) {
            *ok = 1;
            return addr + off;
        }
    }
    b->arr = (jarray)obj;
    if (flags & JB_CHECK) {
        *ok = 1;
        return NULL;
    }
    if (flags & JB_PIN) {
        b->crit = (*env)->GetPrimitiveArrayCritical(env, b->arr, NULL);
        if (b->crit == NULL)
            return NULL;
        jni_pinned++;
        *ok = 1;
        return b->crit + off;
    }
    if (hi <= lo) {
        *ok = 1;
        return NULL;
    }
    b->tmp = malloc((size_t)(hi - lo));
    if (b->tmp == NULL) {
        jni_throw_java(env, "java/lang/OutOfMemoryError", "copy of a Java array");
        return NULL;
    }
    st_array_copies++;
    /* a written span is copied in too: the holes of a derived datatype
     * inside it keep the array's values when it is copied back */
    if (flags & (JB_IN | JB_OUT)) {
        char *p = (*env)->GetPrimitiveArrayCritical(env, b->arr, NULL);
        if (p == NULL) {
            free(b->tmp);
            b->tmp = NULL;
            return NULL;
        }
        memcpy(b->tmp, p + off + lo, (size_t)(hi - lo));
        (*env)->ReleasePrimitiveArrayCritical(env, b->arr, p, JNI_ABORT);
    }
    *ok = 1;
    return b->tmp - lo;
}

/* Unpin or copy back (when commit and the buffer was written), free. */
static void jni_buf_close(JNIEnv *env, jni_buf *b, int commit)
{
    if (b->crit != NULL) {
        (*env)->ReleasePrimitiveArrayCritical(env, b->arr, b->crit,
                                              (b->flags & JB_OUT) ? 0 : JNI_ABORT);
        b->crit = NULL;
        jni_pinned--;
    }
    if (b->tmp != NULL) {
        if (commit && (b->flags & JB_OUT)) {
            jthrowable pending = (*env)->ExceptionOccurred(env);
            char *p;
            if (pending != NULL)
                (*env)->ExceptionClear(env);
            p = (*env)->GetPrimitiveArrayCritical(env, b->arr, NULL);
            if (p != NULL) {
                memcpy(p + b->off + b->lo, b->tmp, (size_t)(b->hi - b->lo));
                (*env)->ReleasePrimitiveArrayCritical(env, b->arr, p, 0);
            }
            if (pending != NULL)
                (*env)->Throw(env, pending);
        }
        free(b->tmp);
        b->tmp = NULL;
    }
}

/* Convenience: open a buffer for count elements of dt. */
static char *jni_buf_open_n(JNIEnv *env, jni_buf *b, jobject obj, jint off, jint cap, MPI_Count count,
                            jlong dt, int flags, const char *call, int *ok)
{
    MPI_Aint lo = 0, hi = 0;
    int rc = jni_span(count, (MPI_Datatype)dt, 0, &lo, &hi);
    if (rc != MPI_SUCCESS) {
        *ok = 0;
        memset(b, 0, sizeof *b);
        jni_throw_mpi(env, rc, call);
        return NULL;
    }
    return jni_buf_open(env, b, obj, off, cap, lo, hi, flags, call, ok);
}

/* This thread's registered bounce buffer for large blocking sends of arrays. */
static __thread struct {
    char *mem;
    size_t cap;
    MPIX_Buffer h;
} jni_bounce;

static char *jni_bounce_get(size_t bytes)
{
    if (jni_bounce.cap < bytes) {
        size_t cap = jni_bounce.cap ? jni_bounce.cap : 65536;
        while (cap < bytes)
            cap *= 2;
        if (jni_bounce.mem != NULL) {
            MPIX_Buffer_deregister(&jni_bounce.h); /* sends from it are blocking: idle */
            free(jni_bounce.mem);
        }
        jni_bounce.mem = malloc(cap);
        jni_bounce.cap = jni_bounce.mem ? cap : 0;
        jni_bounce.h = MPIX_BUFFER_NULL;
        if (jni_bounce.mem != NULL)
            MPIX_Buffer_register(jni_bounce.mem, (MPI_Aint)cap, &jni_bounce.h);
    }
    return jni_bounce.mem;
}

/* ---------------------------------------------------------------- registered direct buffers */
typedef struct {
    void *base;
    size_t len;
    MPIX_Buffer h;
} jni_reg;

static jni_reg *jni_regs;
static int jni_nregs, jni_capregs;
static pthread_mutex_t jni_reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static jni_reg *jni_pending;
static int jni_npending, jni_cappending;
static pthread_mutex_t jni_pend_mutex = PTHREAD_MUTEX_INITIALIZER;

static void jni_drain_releases(void)
{
    jni_reg *todo;
    int n;
    if (__atomic_load_n(&jni_npending, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&jni_pend_mutex);
    todo = jni_pending;
    n = jni_npending;
    jni_pending = NULL;
    jni_npending = jni_cappending = 0;
    pthread_mutex_unlock(&jni_pend_mutex);
    pthread_mutex_lock(&jni_reg_mutex);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < jni_nregs; i++)
            if (jni_regs[i].base == todo[k].base && jni_regs[i].len == todo[k].len) {
                MPIX_Buffer_release(&jni_regs[i].h, NULL, NULL); /* after its last operation */
                jni_regs[i] = jni_regs[--jni_nregs];
                break;
            }
    pthread_mutex_unlock(&jni_reg_mutex);
    free(todo);
}

/* The registration of a direct buffer (created: the Java side must arrange
 * its release); MPIX_BUFFER_NULL when the buffer is not direct or Canal
 * refuses (the caller then uses the plain address). */
static MPIX_Buffer jni_reg_lookup(void *base, size_t len, int *created)
{
    MPIX_Buffer h = MPIX_BUFFER_NULL;
    *created = 0;
    pthread_mutex_lock(&jni_reg_mutex);
    for (int i = 0; i < jni_nregs; i++)
        if (jni_regs[i].base == base && jni_regs[i].len == len) {
            h = jni_regs[i].h;
            break;
        }
    if (h == MPIX_BUFFER_NULL && MPIX_Buffer_register(base, (MPI_Aint)len, &h) == MPI_SUCCESS) {
        if (jni_nregs == jni_capregs) {
            int cap = jni_capregs ? jni_capregs * 2 : 16;
            jni_reg *t = realloc(jni_regs, sizeof *t * (size_t)cap);
            if (t != NULL) {
                jni_regs = t;
                jni_capregs = cap;
            }
        }
        if (jni_nregs < jni_capregs) {
            jni_regs[jni_nregs].base = base;
            jni_regs[jni_nregs].len = len;
            jni_regs[jni_nregs].h = h;
            jni_nregs++;
            *created = 1;
            st_registered++;
        } else {
            MPIX_Buffer_deregister(&h);
            h = MPIX_BUFFER_NULL;
        }
    }
    pthread_mutex_unlock(&jni_reg_mutex);
    return h;
}

/* Registers a direct buffer of bytes bytes; returns its address when a
 * registration was created (Java then arranges enqueueRelease), 0 otherwise. */
JNIEXPORT jlong JNICALL Java_mpi_Jni_registerBytes(JNIEnv *env, jclass c, jobject b, jint bytes)
{
    void *base = (*env)->GetDirectBufferAddress(env, b);
    int created = 0;
    jni_drain_releases();
    if (base == NULL || bytes <= 0)
        return 0;
    if (jni_reg_lookup(base, (size_t)bytes, &created) == MPIX_BUFFER_NULL)
        return 0;
    return created ? (jlong)(uintptr_t)base : 0;
}

/* Runs in the Cleaner's thread: only queues the release. */
JNIEXPORT void JNICALL Java_mpi_Jni_enqueueRelease(JNIEnv *env, jclass c, jlong addr, jint bytes)
{
    pthread_mutex_lock(&jni_pend_mutex);
    if (jni_npending == jni_cappending) {
        int n = jni_cappending ? jni_cappending * 2 : 16;
        jni_reg *t = realloc(jni_pending, sizeof *t * (size_t)n);
        if (t == NULL) {
            pthread_mutex_unlock(&jni_pend_mutex);
            return; /* the registration lives until MPI_Finalize */
        }
        jni_pending = t;
        jni_cappending = n;
    }
    jni_pending[jni_npending].base = (void *)(uintptr_t)addr;
    jni_pending[jni_npending].len = (size_t)bytes;
    __atomic_store_n(&jni_npending, jni_npending + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&jni_pend_mutex);
}

/* A registration covering the bytes [addr + lo, addr + hi) of a direct
 * buffer, and the offset of addr in it (MPIX_BUFFER_NULL: none; the caller
 * then uses the address). */
static MPIX_Buffer jni_reg_find(char *addr, MPI_Aint lo, MPI_Aint hi, MPI_Aint *offset)
{
    MPIX_Buffer h = MPIX_BUFFER_NULL;
    if (addr == NULL)
        return h;
    pthread_mutex_lock(&jni_reg_mutex);
    for (int i = 0; i < jni_nregs; i++)
        if (addr + lo >= (char *)jni_regs[i].base &&
            addr + (hi > lo ? hi : lo + 1) <= (char *)jni_regs[i].base + jni_regs[i].len) {
            h = jni_regs[i].h;
            *offset = (char *)addr - (char *)jni_regs[i].base;
            break;
        }
    pthread_mutex_unlock(&jni_reg_mutex);
    return h;
}

/* ---------------------------------------------------------------- life cycle */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    jni_vm = vm;
    return JNI_VERSION_1_8;
}

#define K(x) {#x, (jlong)(x)}
static const struct {
    const char *name;
    jlong value;
} jni_constants[] = {
    K(MPI_COMM_WORLD), K(MPI_COMM_SELF), K(MPI_COMM_NULL), K(MPI_THREAD_SINGLE),
    K(MPI_THREAD_FUNNELED), K(MPI_THREAD_SERIALIZED), K(MPI_THREAD_MULTIPLE), K(MPI_GRAPH),
    K(MPI_DIST_GRAPH), K(MPI_CART), K(MPI_ANY_SOURCE), K(MPI_ANY_TAG), K(MPI_MAX), K(MPI_MIN),
    K(MPI_SUM), K(MPI_PROD), K(MPI_LAND), K(MPI_BAND), K(MPI_LOR), K(MPI_BOR), K(MPI_LXOR),
    K(MPI_BXOR), K(MPI_REPLACE), K(MPI_NO_OP), K(MPI_MINLOC), K(MPI_MAXLOC), K(MPI_OP_NULL),
    K(MPI_DATATYPE_NULL), K(MPI_BYTE), K(MPI_UNSIGNED_SHORT), K(MPI_SHORT), K(MPI_C_BOOL),
    K(MPI_INT32_T), K(MPI_INT64_T), K(MPI_FLOAT), K(MPI_DOUBLE), K(MPI_PACKED),
    K(MPI_C_FLOAT_COMPLEX), K(MPI_C_DOUBLE_COMPLEX), K(MPI_2INT), K(MPI_SHORT_INT),
    K(MPI_LONG_INT), K(MPI_FLOAT_INT), K(MPI_DOUBLE_INT), K(MPI_GROUP_EMPTY), K(MPI_GROUP_NULL),
    K(MPI_INFO_ENV), K(MPI_INFO_NULL), K(MPI_PROC_NULL), K(MPI_UNDEFINED), K(MPI_IDENT),
    K(MPI_CONGRUENT), K(MPI_SIMILAR), K(MPI_UNEQUAL), K(MPI_TAG_UB), K(MPI_HOST), K(MPI_IO),
    K(MPI_WTIME_IS_GLOBAL), K(MPI_APPNUM), K(MPI_LASTUSEDCODE), K(MPI_UNIVERSE_SIZE),
    K(MPI_WIN_BASE), K(MPI_WIN_SIZE), K(MPI_WIN_DISP_UNIT), K(MPI_VERSION), K(MPI_SUBVERSION),
    K(MPI_ROOT), K(MPI_KEYVAL_INVALID), K(MPI_BSEND_OVERHEAD), K(MPI_MAX_OBJECT_NAME),
    K(MPI_MAX_PORT_NAME), K(MPI_MAX_DATAREP_STRING), K(MPI_MAX_INFO_KEY), K(MPI_MAX_INFO_VAL),
    K(MPI_ORDER_C), K(MPI_ORDER_FORTRAN), K(MPI_DISTRIBUTE_BLOCK), K(MPI_DISTRIBUTE_CYCLIC),
    K(MPI_DISTRIBUTE_NONE), K(MPI_DISTRIBUTE_DFLT_DARG), K(MPI_MODE_CREATE), K(MPI_MODE_RDONLY),
    K(MPI_MODE_WRONLY), K(MPI_MODE_RDWR), K(MPI_MODE_DELETE_ON_CLOSE), K(MPI_MODE_UNIQUE_OPEN),
    K(MPI_MODE_EXCL), K(MPI_MODE_APPEND), K(MPI_MODE_SEQUENTIAL), K(MPI_DISPLACEMENT_CURRENT),
    K(MPI_SEEK_SET), K(MPI_SEEK_CUR), K(MPI_SEEK_END), K(MPI_MODE_NOCHECK), K(MPI_MODE_NOPRECEDE),
    K(MPI_MODE_NOPUT), K(MPI_MODE_NOSTORE), K(MPI_MODE_NOSUCCEED), K(MPI_LOCK_EXCLUSIVE),
    K(MPI_LOCK_SHARED), K(MPI_ERRORS_ARE_FATAL), K(MPI_ERRORS_RETURN), K(MPI_ERRHANDLER_NULL),
    K(MPI_SUCCESS), K(MPI_ERR_BUFFER), K(MPI_ERR_COUNT), K(MPI_ERR_TYPE), K(MPI_ERR_TAG),
    K(MPI_ERR_COMM), K(MPI_ERR_RANK), K(MPI_ERR_REQUEST), K(MPI_ERR_ROOT), K(MPI_ERR_GROUP),
    K(MPI_ERR_OP), K(MPI_ERR_TOPOLOGY), K(MPI_ERR_DIMS), K(MPI_ERR_ARG), K(MPI_ERR_UNKNOWN),
    K(MPI_ERR_TRUNCATE), K(MPI_ERR_OTHER), K(MPI_ERR_INTERN), K(MPI_ERR_IN_STATUS),
    K(MPI_ERR_PENDING), K(MPI_ERR_ACCESS), K(MPI_ERR_AMODE), K(MPI_ERR_ASSERT),
    K(MPI_ERR_BAD_FILE), K(MPI_ERR_BASE), K(MPI_ERR_CONVERSION), K(MPI_ERR_DISP),
    K(MPI_ERR_DUP_DATAREP), K(MPI_ERR_FILE_EXISTS), K(MPI_ERR_FILE_IN_USE), K(MPI_ERR_FILE),
    K(MPI_ERR_INFO_KEY), K(MPI_ERR_INFO_NOKEY), K(MPI_ERR_INFO_VALUE), K(MPI_ERR_INFO),
    K(MPI_ERR_IO), K(MPI_ERR_KEYVAL), K(MPI_ERR_LOCKTYPE), K(MPI_ERR_NAME), K(MPI_ERR_NO_MEM),
    K(MPI_ERR_NOT_SAME), K(MPI_ERR_NO_SPACE), K(MPI_ERR_NO_SUCH_FILE), K(MPI_ERR_PORT),
    K(MPI_ERR_QUOTA), K(MPI_ERR_READ_ONLY), K(MPI_ERR_RMA_CONFLICT), K(MPI_ERR_RMA_SYNC),
    K(MPI_ERR_SERVICE), K(MPI_ERR_SIZE), K(MPI_ERR_SPAWN), K(MPI_ERR_UNSUPPORTED_DATAREP),
    K(MPI_ERR_UNSUPPORTED_OPERATION), K(MPI_ERR_WIN), K(MPI_ERR_LASTCODE),
    K(MPI_COMM_TYPE_SHARED), K(MPI_MESSAGE_NULL), K(MPI_MESSAGE_NO_PROC), K(MPI_WIN_NULL),
    K(MPI_MAX_PROCESSOR_NAME), K(MPI_MAX_ERROR_STRING),
};
#undef K

JNIEXPORT jlong JNICALL Java_mpi_Jni_constant(JNIEnv *env, jclass c, jstring jname)
{
    const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
    jlong v = 0;
    int found = 0;
    if (name == NULL)
        return 0;
    for (size_t i = 0; i < sizeof jni_constants / sizeof jni_constants[0]; i++)
        if (strcmp(jni_constants[i].name, name) == 0) {
            v = jni_constants[i].value;
            found = 1;
            break;
        }
    if (!found) {
        char msg[128];
        snprintf(msg, sizeof msg, "no MPI constant %s", name);
        jni_throw_java(env, "java/lang/IllegalArgumentException", msg);
    }
    (*env)->ReleaseStringUTFChars(env, jname, name);
    return v;
}

JNIEXPORT jint JNICALL Java_mpi_Jni_init(JNIEnv *env, jclass c, jint required)
{
    int provided = 0, rc;
    const char *e;
    if ((e = getenv("CANAL_JAVA_ZEROCOPY_MAX")) != NULL)
        jni_zc_send_max = atol(e);
    if ((e = getenv("CANAL_JAVA_SPIN_US")) != NULL)
        jni_spin_us = atol(e);
    rc = MPI_Init_thread(NULL, NULL, required, &provided);
    if (jni_fail(env, rc, "MPI_Init_thread"))
        return 0;
    return provided;
}

JNIEXPORT void JNICALL Java_mpi_Jni_finalizeMPI(JNIEnv *env, jclass c)
{
    int rc;
    jni_drain_releases();
    if (jni_bounce.mem != NULL) {
        if (jni_bounce.h != MPIX_BUFFER_NULL)
            MPIX_Buffer_deregister(&jni_bounce.h);
        free(jni_bounce.mem);
        jni_bounce.mem = NULL;
        jni_bounce.cap = 0;
    }
    rc = MPI_Finalize();
    jni_fail(env, rc, "MPI_Finalize");
}

JNIEXPORT jint JNICALL Java_mpi_Jni_flags(JNIEnv *env, jclass c)
{
    int init = 0, fin = 0, thr = 0, main = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        MPI_Query_thread(&thr);
        MPI_Is_thread_main(&main);
    }
    return init | fin << 1 | main << 2 | thr << 8;
}

JNIEXPORT jdouble JNICALL Java_mpi_Jni_wtime(JNIEnv *env, jclass c, jint tick)
{
    return tick ? MPI_Wtick() : MPI_Wtime();
}

JNIEXPORT jstring JNICALL Java_mpi_Jni_processorName(JNIEnv *env, jclass c)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0, rc = MPI_Get_processor_name(name, &len);
    if (jni_fail(env, rc, "MPI_Get_processor_name"))
        return NULL;
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT jstring JNICALL Java_mpi_Jni_libVersion(JNIEnv *env, jclass c)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return (*env)->NewStringUTF(env, v);
}

JNIEXPORT void JNICALL Java_mpi_Jni_stats(JNIEnv *env, jclass c, jlongArray out)
{
    jlong v[7] = {st_send_pinned, st_send_copied, st_recv_pinned, st_recv_probed,
                  st_array_copies, st_registered, st_op_pinned};
    (*env)->SetLongArrayRegion(env, out, 0, 7, v);
}

JNIEXPORT jint JNICALL Java_mpi_Jni_errorClass(JNIEnv *env, jclass c, jint code)
{
    int cls = MPI_ERR_UNKNOWN;
    MPI_Error_class(code, &cls);
    return cls;
}

static char *jni_bsend_buf;
JNIEXPORT void JNICALL Java_mpi_Jni_bufferAttach(JNIEnv *env, jclass c, jint bytes)
{
    int rc;
    char *p = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (p == NULL) {
        jni_throw_java(env, "java/lang/OutOfMemoryError", "MPI_Buffer_attach");
        return;
    }
    rc = MPI_Buffer_attach(p, bytes);
    if (jni_fail(env, rc, "MPI_Buffer_attach")) {
        free(p);
        return;
    }
    free(jni_bsend_buf);
    jni_bsend_buf = p;
}

JNIEXPORT void JNICALL Java_mpi_Jni_bufferDetach(JNIEnv *env, jclass c)
{
    void *p = NULL;
    int size = 0, rc = MPI_Buffer_detach(&p, &size);
    if (jni_fail(env, rc, "MPI_Buffer_detach"))
        return;
    free(jni_bsend_buf);
    jni_bsend_buf = NULL;
}

/* ---------------------------------------------------------------- communicators */
JNIEXPORT jint JNICALL Java_mpi_Jni_commInt(JNIEnv *env, jclass c, jint what, jlong comm)
{
    int v = 0, rc;
    const char *name = "MPI_Comm_rank";
    switch (what) {
    case 0:
        rc = MPI_Comm_rank((MPI_Comm)comm, &v);
        break;
    case 1:
        name = "MPI_Comm_size";
        rc = MPI_Comm_size((MPI_Comm)comm, &v);
        break;
    case 2:
        name = "MPI_Comm_test_inter";
        rc = MPI_Comm_test_inter((MPI_Comm)comm, &v);
        break;
    case 3:
        name = "MPI_Comm_remote_size";
        rc = MPI_Comm_remote_size((MPI_Comm)comm, &v);
        break;
    case 4:
        name = "MPI_Topo_test";
        rc = MPI_Topo_test((MPI_Comm)comm, &v);
        break;
    default:
        name = "MPI_Cartdim_get";
        rc = MPI_Cartdim_get((MPI_Comm)comm, &v);
        break;
    }
    jni_fail(env, rc, name);
    return v;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commDup(JNIEnv *env, jclass c, jlong comm, jlong info)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = info ? MPI_Comm_dup_with_info((MPI_Comm)comm, (MPI_Info)info, &n)
                  : MPI_Comm_dup((MPI_Comm)comm, &n);
    jni_fail(env, rc, info ? "MPI_Comm_dup_with_info" : "MPI_Comm_dup");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commFree(JNIEnv *env, jclass c, jlong comm)
{
    MPI_Comm h = (MPI_Comm)comm;
    int rc = MPI_Comm_free(&h);
    jni_fail(env, rc, "MPI_Comm_free");
    return (jlong)h;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commSplit(JNIEnv *env, jclass c, jlong comm, jint color,
                                               jint key, jint type, jlong info)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = type < 0 ? MPI_Comm_split((MPI_Comm)comm, color, key, &n)
                      : MPI_Comm_split_type((MPI_Comm)comm, type, key, (MPI_Info)info, &n);
    jni_fail(env, rc, type < 0 ? "MPI_Comm_split" : "MPI_Comm_split_type");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commCreate(JNIEnv *env, jclass c, jlong comm, jlong group,
                                                jint tag, jboolean bygroup)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = bygroup ? MPI_Comm_create_group((MPI_Comm)comm, (MPI_Group)group, tag, &n)
                     : MPI_Comm_create((MPI_Comm)comm, (MPI_Group)group, &n);
    jni_fail(env, rc, bygroup ? "MPI_Comm_create_group" : "MPI_Comm_create");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commGroup(JNIEnv *env, jclass c, jlong comm, jboolean remote)
{
    MPI_Group g = MPI_GROUP_NULL;
    int rc = remote ? MPI_Comm_remote_group((MPI_Comm)comm, &g) : MPI_Comm_group((MPI_Comm)comm, &g);
    jni_fail(env, rc, remote ? "MPI_Comm_remote_group" : "MPI_Comm_group");
    return (jlong)g;
}

JNIEXPORT jint JNICALL Java_mpi_Jni_commCompare(JNIEnv *env, jclass c, jlong a, jlong b)
{
    int r = 0, rc = MPI_Comm_compare((MPI_Comm)a, (MPI_Comm)b, &r);
    jni_fail(env, rc, "MPI_Comm_compare");
    return r;
}

JNIEXPORT void JNICALL Java_mpi_Jni_commSetErrhandler(JNIEnv *env, jclass c, jint kind, jlong obj,
                                                      jlong eh)
{
    int rc;
    switch (kind) {
    case 0:
        rc = MPI_Comm_set_errhandler((MPI_Comm)obj, (MPI_Errhandler)eh);
        break;
    case 1:
        rc = MPI_Win_set_errhandler((MPI_Win)obj, (MPI_Errhandler)eh);
        break;
    default:
        rc = MPI_File_set_errhandler((MPI_File)(uintptr_t)obj, (MPI_Errhandler)eh);
        break;
    }
    jni_fail(env, rc, "MPI_*_set_errhandler");
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commGetErrhandler(JNIEnv *env, jclass c, jint kind, jlong obj)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc;
    switch (kind) {
    case 0:
        rc = MPI_Comm_get_errhandler((MPI_Comm)obj, &eh);
        break;
    case 1:
        rc = MPI_Win_get_errhandler((MPI_Win)obj, &eh);
        break;
    default:
        rc = MPI_File_get_errhandler((MPI_File)(uintptr_t)obj, &eh);
        break;
    }
    if (jni_fail(env, rc, "MPI_*_get_errhandler"))
        return 0;
    /* predefined handlers are returned as such; freeing them is a no-op */
    return (jlong)eh;
}

JNIEXPORT void JNICALL Java_mpi_Jni_callErrhandler(JNIEnv *env, jclass c, jint kind, jlong obj,
                                                   jint code)
{
    int rc = kind == 0   ? MPI_Comm_call_errhandler((MPI_Comm)obj, code)
             : kind == 1 ? MPI_Win_call_errhandler((MPI_Win)obj, code)
                         : MPI_File_call_errhandler((MPI_File)(uintptr_t)obj, code);
    /* with ERRORS_RETURN the call returns the code: the Java side throws it */
    if (rc == MPI_SUCCESS && code != MPI_SUCCESS)
        rc = code;
    jni_fail(env, rc, "MPI_Comm_call_errhandler");
}

JNIEXPORT void JNICALL Java_mpi_Jni_abort(JNIEnv *env, jclass c, jlong comm, jint code)
{
    int rc = MPI_Abort((MPI_Comm)comm, code);
    jni_fail(env, rc, "MPI_Abort");
}

/* A predefined attribute: null when not set. */
JNIEXPORT jobject JNICALL Java_mpi_Jni_commGetAttr(JNIEnv *env, jclass c, jlong comm, jint key)
{
    void *v = NULL;
    int flag = 0, rc = MPI_Comm_get_attr((MPI_Comm)comm, key, &v, &flag);
    jclass ic;
    if (jni_fail(env, rc, "MPI_Comm_get_attr") || !flag)
        return NULL;
    ic = (*env)->FindClass(env, "java/lang/Integer");
    return (*env)->CallStaticObjectMethod(env, ic,
                                          (*env)->GetStaticMethodID(env, ic, "valueOf",
                                                                    "(I)Ljava/lang/Integer;"),
                                          *(int *)v);
}

JNIEXPORT jint JNICALL Java_mpi_Jni_keyval(JNIEnv *env, jclass c, jint kind, jint key)
{
    int k = key, rc;
    if (key == MPI_KEYVAL_INVALID) {
        rc = kind == 0   ? MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k,
                                                  NULL)
             : kind == 1 ? MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k,
                                                 NULL)
                         : MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN,
                                                  &k, NULL);
        jni_fail(env, rc, "MPI_*_create_keyval");
        return k;
    }
    rc = kind == 0   ? MPI_Comm_free_keyval(&k)
         : kind == 1 ? MPI_Win_free_keyval(&k)
                     : MPI_Type_free_keyval(&k);
    jni_fail(env, rc, "MPI_*_free_keyval");
    return k;
}

JNIEXPORT void JNICALL Java_mpi_Jni_setName(JNIEnv *env, jclass c, jint kind, jlong obj,
                                            jstring jname)
{
    const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
    int rc;
    if (name == NULL)
        return;
    rc = kind == 0   ? MPI_Comm_set_name((MPI_Comm)obj, name)
         : kind == 1 ? MPI_Win_set_name((MPI_Win)obj, name)
                     : MPI_Type_set_name((MPI_Datatype)obj, name);
    (*env)->ReleaseStringUTFChars(env, jname, name);
    jni_fail(env, rc, "MPI_*_set_name");
}

JNIEXPORT jstring JNICALL Java_mpi_Jni_getName(JNIEnv *env, jclass c, jint kind, jlong obj)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    int rc = kind == 0   ? MPI_Comm_get_name((MPI_Comm)obj, name, &len)
             : kind == 1 ? MPI_Win_get_name((MPI_Win)obj, name, &len)
                         : MPI_Type_get_name((MPI_Datatype)obj, name, &len);
    if (jni_fail(env, rc, "MPI_*_get_name"))
        return NULL;
    return (*env)->NewStringUTF(env, name);
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_intercommCreate(JNIEnv *env, jclass c, jlong local,
                                                     jint lleader, jlong peer, jint rleader,
                                                     jint tag)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = MPI_Intercomm_create((MPI_Comm)local, lleader, (MPI_Comm)peer, rleader, tag, &n);
    jni_fail(env, rc, "MPI_Intercomm_create");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_intercommMerge(JNIEnv *env, jclass c, jlong comm,
                                                    jboolean high)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = MPI_Intercomm_merge((MPI_Comm)comm, high, &n);
    jni_fail(env, rc, "MPI_Intercomm_merge");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_commParent(JNIEnv *env, jclass c)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = MPI_Comm_get_parent(&n);
    jni_fail(env, rc, "MPI_Comm_get_parent");
    return (jlong)n;
}

/* ---------------------------------------------------------------- point to point */
static int jni_send_mode(int mode, const void *p, MPI_Count n, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm)
{
    switch (mode) {
    case 1:
        return MPI_Ssend_c(p, n, dt, dest, tag, comm);
    case 2:
        return MPI_Bsend_c(p, n, dt, dest, tag, comm);
    case 3:
        return MPI_Rsend_c(p, n, dt, dest, tag, comm);
    default:
        return MPI_Send_c(p, n, dt, dest, tag, comm);
    }
}

static const char *jni_send_name[] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"};

JNIEXPORT void JNICALL Java_mpi_Jni_send(JNIEnv *env, jclass c, jint mode, jobject buf, jint off,
                                         jint cap, jint count, jlong dt, jint dest, jint tag,
                                         jlong comm)
{
    MPI_Aint lo = 0, hi = 0, roff = 0;
    jni_buf b;
    char *p;
    int rc, ok;
    const char *name = jni_send_name[mode & 3];

    jni_drain_releases();
    if (count < 0) {
        jni_throw_class(env, MPI_ERR_COUNT, "send: negative count");
        return;
    }
    if ((rc = jni_span(count, (MPI_Datatype)dt, 0, &lo, &hi)) != MPI_SUCCESS) {
        jni_throw_mpi(env, rc, name);
        return;
    }
    if (buf != NULL && (*env)->GetDirectBufferAddress(env, buf) != NULL) {
        MPIX_Buffer h;
        p = jni_buf_open(env, &b, buf, off, cap, lo, hi, 0, name, &ok);
        if (!ok)
            return;
        if (mode == 0 && (h = jni_reg_find(p, lo, hi, &roff)) != MPIX_BUFFER_NULL)
            rc = MPIX_Send_buffer(h, roff, count, (MPI_Datatype)dt, dest, tag, (MPI_Comm)comm);
        else
            rc = jni_send_mode(mode, p, count, (MPI_Datatype)dt, dest, tag, (MPI_Comm)comm);
        jni_fail(env, rc, name);
        return;
    }
    if (hi - lo <= jni_zc_send_max && mode != 1 && jni_may_pin()) {
        /* eager: complete once the channel has it, so it may run pinned */
        p = jni_buf_open(env, &b, buf, off, cap, lo, hi, JB_PIN, name, &ok);
        if (!ok)
            return;
        rc = jni_send_mode(mode, p, count, (MPI_Datatype)dt, dest, tag, (MPI_Comm)comm);
        jni_buf_close(env, &b, 0);
        st_send_pinned++;
    } else {
        /* may wait for the receiver: copy into the registered bounce buffer,
         * wait outside the critical region while the collector runs */
        char *bounce, *a;
        jni_buf_open(env, &b, buf, off, cap, lo, hi, JB_CHECK, name, &ok);
        if (!ok)
            return;
        if ((bounce = jni_bounce_get((size_t)(hi - lo))) == NULL) {
            jni_throw_java(env, "java/lang/OutOfMemoryError", "send bounce buffer");
            return;
        }
        if ((a = (*env)->GetPrimitiveArrayCritical(env, (jarray)buf, NULL)) == NULL)
            return;
        memcpy(bounce, a + off + lo, (size_t)(hi - lo));
        (*env)->ReleasePrimitiveArrayCritical(env, (jarray)buf, a, JNI_ABORT);
        if (mode == 0 && lo == 0 && jni_bounce.h != MPIX_BUFFER_NULL)
            rc = MPIX_Send_buffer(jni_bounce.h, 0, count, (MPI_Datatype)dt, dest, tag,
                                  (MPI_Comm)comm);
        else
            rc = jni_send_mode(mode, bounce - lo, count, (MPI_Datatype)dt, dest, tag,
                               (MPI_Comm)comm);
        st_send_copied++;
    }
    jni_fail(env, rc, name);
}

/* MPI_Wtime is the library's monotonic clock (common_now_s); the binding
 * sees only the public API. */
static double jni_now_us(void)
{
    return MPI_Wtime() * 1e6;
}

JNIEXPORT void JNICALL Java_mpi_Jni_recv(JNIEnv *env, jclass c, jobject buf, jint off, jint cap,
                                         jint count, jlong dt, jint source, jint tag, jlong comm,
                                         jlongArray status)
{
    MPI_Aint lo = 0, hi = 0, roff = 0;
    MPI_Request req;
    MPI_Message msg;
    MPI_Status st;
    jni_buf b;
    char *p;
    int rc, ok, flag = 0, cancelled = 0;
    double t0;

    jni_drain_releases();
    if (count < 0) {
        jni_throw_class(env, MPI_ERR_COUNT, "MPI_Recv: negative count");
        return;
    }
    if ((rc = jni_span(count, (MPI_Datatype)dt, 0, &lo, &hi)) != MPI_SUCCESS) {
        jni_throw_mpi(env, rc, "MPI_Recv");
        return;
    }
    if (buf == NULL || (*env)->GetDirectBufferAddress(env, buf) != NULL) {
        MPIX_Buffer h;
        p = jni_buf_open(env, &b, buf, off, cap, lo, hi, 0, "MPI_Recv", &ok);
        if (!ok)
            return;
        if ((h = jni_reg_find(p, lo, hi, &roff)) != MPIX_BUFFER_NULL)
            rc = MPIX_Recv_buffer(h, roff, count, (MPI_Datatype)dt, source, tag, (MPI_Comm)comm,
                                  &st);
        else
            rc = MPI_Recv_c(p, count, (MPI_Datatype)dt, source, tag, (MPI_Comm)comm, &st);
        if (!jni_fail(env, rc, "MPI_Recv"))
            jni_status_out(env, status, &st, 0);
        return;
    }
    if (!jni_may_pin()) {
        /* a user operation may run inside this wait: receive into a copy */
        p = jni_buf_open(env, &b, buf, off, cap, lo, hi, JB_OUT, "MPI_Recv", &ok);
        if (!ok)
            return;
        rc = MPI_Recv_c(p, count, (MPI_Datatype)dt, source, tag, (MPI_Comm)comm, &st);
        jni_buf_close(env, &b, rc == MPI_SUCCESS);
        if (!jni_fail(env, rc, "MPI_Recv"))
            jni_status_out(env, status, &st, 0);
        return;
    }
    /* 1. pinned, briefly: in a busy exchange most messages arrive within the spin */
    p = jni_buf_open(env, &b, buf, off, cap, lo, hi, JB_PIN | JB_OUT, "MPI_Recv", &ok);
    if (!ok)
        return;
    rc = MPI_Irecv_c(p, count, (MPI_Datatype)dt, source, tag, (MPI_Comm)comm, &req);
    if (rc == MPI_SUCCESS) {
        t0 = jni_now_us();
        do
            rc = MPI_Test(&req, &flag, &st);
        while (rc == MPI_SUCCESS && !flag && jni_now_us() - t0 < (double)jni_spin_us);
        if (rc == MPI_SUCCESS && !flag) {
            MPI_Cancel(&req);
            rc = MPI_Wait(&req, &st); /* one that matched meanwhile completes here */
            if (rc == MPI_SUCCESS)
                MPI_Test_cancelled(&st, &cancelled);
        }
    }
    jni_buf_close(env, &b, 1);
    if (jni_fail(env, rc, "MPI_Recv"))
        return;
    if (!cancelled) {
        st_recv_pinned++;
        jni_status_out(env, status, &st, 0);
        return;
    }
    /* 2. wait unpinned, then pin only to take the matched message */
    rc = MPI_Mprobe(source, tag, (MPI_Comm)comm, &msg, &st);
    if (jni_fail(env, rc, "MPI_Recv (MPI_Mprobe)"))
        return;
    p = jni_buf_open(env, &b, buf, off, cap, lo, hi, jni_may_pin() ? JB_PIN | JB_OUT : JB_OUT,
                     "MPI_Recv", &ok);
    if (!ok)
        return;
    rc = MPI_Mrecv_c(p, count, (MPI_Datatype)dt, &msg, &st);
    jni_buf_close(env, &b, 1);
    st_recv_probed++;
    if (!jni_fail(env, rc, "MPI_Recv"))
        jni_status_out(env, status, &st, 0);
}

JNIEXPORT void JNICALL Java_mpi_Jni_sendrecv(JNIEnv *env, jclass c, jobject sbuf, jint soff,
                                             jint scap, jint scount, jlong stype, jint dest,
                                             jint stag, jobject rbuf, jint roff, jint rcap,
                                             jint rcount, jlong rtype, jint source, jint rtag,
                                             jlong comm, jboolean replace, jlongArray status)
{
    jni_buf sb, rb;
    char *sp = NULL, *rp;
    MPI_Status st;
    int rc, ok;
    jni_drain_releases();
    if (replace) {
        rp = jni_buf_open_n(env, &rb, rbuf, roff, rcap, rcount, rtype, JB_IN | JB_OUT,
                            "MPI_Sendrecv_replace", &ok);
        if (!ok)
            return;
        rc = MPI_Sendrecv_replace_c(rp, rcount, (MPI_Datatype)rtype, dest, stag, source, rtag,
                                    (MPI_Comm)comm, &st);
    } else {
        sp = jni_buf_open_n(env, &sb, sbuf, soff, scap, scount, stype, JB_IN, "MPI_Sendrecv", &ok);
        if (!ok)
            return;
        rp = jni_buf_open_n(env, &rb, rbuf, roff, rcap, rcount, rtype, JB_OUT, "MPI_Sendrecv", &ok);
        if (!ok) {
            jni_buf_close(env, &sb, 0);
            return;
        }
        rc = MPI_Sendrecv_c(sp, scount, (MPI_Datatype)stype, dest, stag, rp, rcount,
                            (MPI_Datatype)rtype, source, rtag, (MPI_Comm)comm, &st);
        jni_buf_close(env, &sb, 0);
    }
    jni_buf_close(env, &rb, rc == MPI_SUCCESS);
    if (!jni_fail(env, rc, replace ? "MPI_Sendrecv_replace" : "MPI_Sendrecv"))
        jni_status_out(env, status, &st, 0);
}

/* Requests: the Java handle is a pointer to this. */
typedef struct {
    MPI_Request req;
    void *keep[4]; /* native copies of count/displacement arrays, freed at the end */
    int persistent;
    int user_coll; /* counted in jni_user_colls until complete */
} jni_req;

static jlong jni_req_new(JNIEnv *env, MPI_Request r, int persistent, void **keep, int nkeep)
{
    jni_req *q = calloc(1, sizeof *q);
    if (q == NULL) {
        jni_throw_java(env, "java/lang/OutOfMemoryError", "request");
        return 0;
    }
    q->req = r;
    q->persistent = persistent;
    for (int i = 0; i < nkeep && i < 4; i++)
        q->keep[i] = keep[i];
    return (jlong)(uintptr_t)q;
}

static void jni_req_free(jni_req *q)
{
    if (q->user_coll)
        __atomic_sub_fetch(&jni_user_colls, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++)
        free(q->keep[i]);
    free(q);
}

/* The address of a direct buffer argument of a nonblocking call. */
static char *jni_direct(JNIEnv *env, jobject buf, jint off, jint cap, MPI_Count count, jlong dt,
                        const char *call, int *ok)
{
    jni_buf b;
    char *p;
    if (buf != NULL && (*env)->GetDirectBufferAddress(env, buf) == NULL) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: the buffer must be a direct buffer", call);
        *ok = 0;
        jni_throw_java(env, "java/lang/IllegalArgumentException", msg);
        return NULL;
    }
    p = jni_buf_open_n(env, &b, buf, off, cap, count, dt, 0, call, ok);
    return p;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_isend(JNIEnv *env, jclass c, jint mode, jboolean persistent,
                                           jobject buf, jint off, jint cap, jint count, jlong dt,
                                           jint peer, jint tag, jlong comm)
{
    static const char *names[2][5] = {
        {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv"},
        {"MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Recv_init"}};
    const char *name = names[persistent ? 1 : 0][mode];
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm cm = (MPI_Comm)comm;
    MPI_Datatype t = (MPI_Datatype)dt;
    MPI_Aint roff = 0, lo = 0, hi = 0;
    MPIX_Buffer h;
    char *p;
    int rc, ok;

    jni_drain_releases();
    if (count < 0) {
        jni_throw_class(env, MPI_ERR_COUNT, "nonblocking operation: negative count");
        return 0;
    }
    p = jni_direct(env, buf, off, cap, count, dt, name, &ok);
    if (!ok)
        return 0;
    if (!persistent && (mode == 0 || mode == 4) && jni_span(count, t, 0, &lo, &hi) == MPI_SUCCESS &&
        (h = jni_reg_find(p, lo, hi, &roff)) != MPIX_BUFFER_NULL)
        rc = mode == 0 ? MPIX_Isend_buffer(h, roff, count, t, peer, tag, cm, &r)
                       : MPIX_Irecv_buffer(h, roff, count, t, peer, tag, cm, &r);
    else if (!persistent)
        switch (mode) {
        case 1:
            rc = MPI_Issend_c(p, count, t, peer, tag, cm, &r);
            break;
        case 2:
            rc = MPI_Ibsend_c(p, count, t, peer, tag, cm, &r);
            break;
        case 3:
            rc = MPI_Irsend_c(p, count, t, peer, tag, cm, &r);
            break;
        case 4:
            rc = MPI_Irecv_c(p, count, t, peer, tag, cm, &r);
            break;
        default:
            rc = MPI_Isend_c(p, count, t, peer, tag, cm, &r);
        }
    else
        switch (mode) {
        case 1:
            rc = MPI_Ssend_init_c(p, count, t, peer, tag, cm, &r);
            break;
        case 2:
            rc = MPI_Bsend_init_c(p, count, t, peer, tag, cm, &r);
            break;
        case 3:
            rc = MPI_Rsend_init_c(p, count, t, peer, tag, cm, &r);
            break;
        case 4:
            rc = MPI_Recv_init_c(p, count, t, peer, tag, cm, &r);
            break;
        default:
            rc = MPI_Send_init_c(p, count, t, peer, tag, cm, &r);
        }
    if (jni_fail(env, rc, name))
        return 0;
    return jni_req_new(env, r, persistent, NULL, 0);
}

JNIEXPORT jboolean JNICALL Java_mpi_Jni_probe(JNIEnv *env, jclass c, jboolean blocking,
                                              jint source, jint tag, jlong comm, jlongArray status)
{
    MPI_Status st;
    int flag = 1, rc;
    jni_drain_releases();
    rc = blocking ? MPI_Probe(source, tag, (MPI_Comm)comm, &st)
                  : MPI_Iprobe(source, tag, (MPI_Comm)comm, &flag, &st);
    if (jni_fail(env, rc, blocking ? "MPI_Probe" : "MPI_Iprobe"))
        return 0;
    if (flag)
        jni_status_out(env, status, &st, 0);
    return flag != 0;
}

/* Returns the message handle; *found (status[5] = 1) says whether one matched. */
JNIEXPORT jlong JNICALL Java_mpi_Jni_mprobe(JNIEnv *env, jclass c, jboolean blocking, jint source,
                                            jint tag, jlong comm, jlongArray status)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    int flag = 1, rc;
    rc = blocking ? MPI_Mprobe(source, tag, (MPI_Comm)comm, &m, &st)
                  : MPI_Improbe(source, tag, (MPI_Comm)comm, &flag, &m, &st);
    if (jni_fail(env, rc, blocking ? "MPI_Mprobe" : "MPI_Improbe"))
        return (jlong)MPI_MESSAGE_NULL;
    jni_status_out(env, status, &st, flag);
    return (jlong)m;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_mrecv(JNIEnv *env, jclass c, jlong msg, jobject buf, jint off,
                                           jint cap, jint count, jlong dt, jboolean blocking,
                                           jlongArray status)
{
    MPI_Message m = (MPI_Message)msg;
    MPI_Status st;
    MPI_Request r;
    jni_buf b;
    char *p;
    int rc, ok;
    if (!blocking) {
        p = jni_direct(env, buf, off, cap, count, dt, "MPI_Imrecv", &ok);
        if (!ok)
            return msg;
        rc = MPI_Imrecv_c(p, count, (MPI_Datatype)dt, &m, &r);
        if (jni_fail(env, rc, "MPI_Imrecv"))
            return msg;
        (*env)->SetLongArrayRegion(env, status, 0, 1,
                                   (jlong[]){jni_req_new(env, r, 0, NULL, 0)});
        return (jlong)m;
    }
    /* the message is here: pinning for the transfer does not wait for a peer */
    p = jni_buf_open_n(env, &b, buf, off, cap, count, dt,
                       jni_may_pin() && (*env)->GetDirectBufferAddress(env, buf) == NULL
                           ? JB_PIN | JB_OUT
                           : JB_OUT,
                       "MPI_Mrecv", &ok);
    if (!ok)
        return msg;
    rc = MPI_Mrecv_c(p, count, (MPI_Datatype)dt, &m, &st);
    jni_buf_close(env, &b, 1);
    if (!jni_fail(env, rc, "MPI_Mrecv"))
        jni_status_out(env, status, &st, 0);
    return (jlong)m;
}

/* ---------------------------------------------------------------- requests */
/* what: 0 wait, 1 test. Returns the new handle (0 once inactive and not
 * persistent); status[5] = 1 when complete (test). */
JNIEXPORT jlong JNICALL Java_mpi_Jni_wait(JNIEnv *env, jclass c, jlong h, jboolean test,
                                          jlongArray status)
{
    jni_req *q = (jni_req *)(uintptr_t)h;
    MPI_Status st;
    int flag = 1, rc;
    if (q == NULL) {
        MPI_Status empty;
        MPI_Request nul = MPI_REQUEST_NULL;
        MPI_Wait(&nul, &empty);
        jni_status_out(env, status, &empty, 1);
        return 0;
    }
    jni_drain_releases();
    rc = test ? MPI_Test(&q->req, &flag, &st) : MPI_Wait(&q->req, &st);
    if (rc != MPI_SUCCESS) {
        if (!q->persistent && q->req == MPI_REQUEST_NULL) {
            jni_req_free(q);
            h = 0;
        }
        jni_throw_mpi(env, rc, test ? "MPI_Test" : "MPI_Wait");
        return h;
    }
    if (!flag) {
        jlong z = 0;
        (*env)->SetLongArrayRegion(env, status, 5, 1, &z);
        return h;
    }
    jni_status_out(env, status, &st, 1);
    if (!q->persistent) {
        jni_req_free(q);
        return 0;
    }
    return h;
}

JNIEXPORT jboolean JNICALL Java_mpi_Jni_getStatus(JNIEnv *env, jclass c, jlong h,
                                                  jlongArray status)
{
    jni_req *q = (jni_req *)(uintptr_t)h;
    MPI_Status st;
    int flag = 0, rc;
    MPI_Request r = q ? q->req : MPI_REQUEST_NULL;
    rc = MPI_Request_get_status(r, &flag, &st);
    if (jni_fail(env, rc, "MPI_Request_get_status"))
        return 0;
    if (flag)
        jni_status_out(env, status, &st, 0);
    return flag != 0;
}

/* Many requests. what: 0 waitall, 1 testall, 2 waitany, 3 testany, 4 waitsome, 5 testsome.
 * handles is updated in place; statuses gets 6 longs per request (or per
 * completion for any/some, index in [5]). Returns: all: 1 when complete;
 * any: index or MPI_UNDEFINED; some: count or MPI_UNDEFINED. */
JNIEXPORT jint JNICALL Java_mpi_Jni_waitMany(JNIEnv *env, jclass c, jint what, jlongArray handles,
                                             jlongArray statuses)
{
    static const char *names[] = {"MPI_Waitall",  "MPI_Testall",  "MPI_Waitany",
                                  "MPI_Testany",  "MPI_Waitsome", "MPI_Testsome"};
    jsize n = (*env)->GetArrayLength(env, handles);
    jlong *hs = malloc(sizeof *hs * (size_t)(n ? n : 1));
    MPI_Request *rs = malloc(sizeof *rs * (size_t)(n ? n : 1));
    MPI_Status *sts = malloc(sizeof *sts * (size_t)(n ? n : 1));
    int *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
    int rc = MPI_SUCCESS, flag = 0, outcount = 0, index = MPI_UNDEFINED, ret = 0;

    if (hs == NULL || rs == NULL || sts == NULL || idx == NULL) {
        jni_throw_java(env, "java/lang/OutOfMemoryError", names[what]);
        goto out;
    }
    jni_drain_releases();
    (*env)->GetLongArrayRegion(env, handles, 0, n, hs);
    for (jsize i = 0; i < n; i++)
        rs[i] = hs[i] ? ((jni_req *)(uintptr_t)hs[i])->req : MPI_REQUEST_NULL;
    switch (what) {
    case 0:
        rc = MPI_Waitall(n, rs, sts);
        flag = 1;
        break;
    case 1:
        rc = MPI_Testall(n, rs, &flag, sts);
        break;
    case 2:
        rc = MPI_Waitany(n, rs, &index, sts);
        break;
    case 3:
        rc = MPI_Testany(n, rs, &index, &flag, sts);
        break;
    case 4:
        rc = MPI_Waitsome(n, rs, &outcount, idx, sts);
        break;
    default:
        rc = MPI_Testsome(n, rs, &outcount, idx, sts);
        break;
    }
    /* requests that completed: free the wrapper of non-persistent ones */
    for (jsize i = 0; i < n; i++) {
        jni_req *q = (jni_req *)(uintptr_t)hs[i];
        if (q == NULL)
            continue;
        q->req = rs[i];
        if (rs[i] == MPI_REQUEST_NULL && !q->persistent) {
            jni_req_free(q);
            hs[i] = 0;
        }
    }
    (*env)->SetLongArrayRegion(env, handles, 0, n, hs);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
        jni_throw_mpi(env, rc, names[what]);
        goto out;
    }
    if (what <= 1) {
        ret = flag;
        if (flag && statuses != NULL)
            for (jsize i = 0; i < n; i++) {
                jlong v[6];
                MPI_Count bytes = 0;
                int canc = 0;
                MPI_Get_elements_x(&sts[i], MPI_BYTE, &bytes);
                MPI_Test_cancelled(&sts[i], &canc);
                v[0] = sts[i].MPI_SOURCE;
                v[1] = sts[i].MPI_TAG;
                v[2] = rc == MPI_ERR_IN_STATUS ? sts[i].MPI_ERROR : MPI_SUCCESS;
                v[3] = canc;
                v[4] = bytes;
                v[5] = i;
                (*env)->SetLongArrayRegion(env, statuses, 6 * i, 6, v);
            }
    } else if (what <= 3) {
        ret = index;
        if (statuses != NULL && index != MPI_UNDEFINED)
            jni_status_out(env, statuses, &sts[0], index);
        if (what == 3 && !flag)
            ret = -2; /* nothing completed */
    } else {
        ret = outcount;
        if (outcount != MPI_UNDEFINED && statuses != NULL)
            for (int k = 0; k < outcount; k++) {
                jlong v[6];
                MPI_Count bytes = 0;
                int canc = 0;
                MPI_Get_elements_x(&sts[k], MPI_BYTE, &bytes);
                MPI_Test_cancelled(&sts[k], &canc);
                v[0] = sts[k].MPI_SOURCE;
                v[1] = sts[k].MPI_TAG;
                v[2] = rc == MPI_ERR_IN_STATUS ? sts[k].MPI_ERROR : MPI_SUCCESS;
                v[3] = canc;
                v[4] = bytes;
                v[5] = idx[k];
                (*env)->SetLongArrayRegion(env, statuses, 6 * k, 6, v);
            }
    }
    if (rc == MPI_ERR_IN_STATUS)
        jni_throw_mpi(env, rc, names[what]);
out:
    free(hs);
    free(rs);
    free(sts);
    free(idx);
    return ret;
}

JNIEXPORT void JNICALL Java_mpi_Jni_cancel(JNIEnv *env, jclass c, jlong h)
{
    jni_req *q = (jni_req *)(uintptr_t)h;
    int rc;
    if (q == NULL)
        return;
    rc = MPI_Cancel(&q->req);
    jni_fail(env, rc, "MPI_Cancel");
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_requestFree(JNIEnv *env, jclass c, jlong h)
{
    jni_req *q = (jni_req *)(uintptr_t)h;
    int rc;
    if (q == NULL)
        return 0;
    if (q->req != MPI_REQUEST_NULL) {
        rc = MPI_Request_free(&q->req);
        if (jni_fail(env, rc, "MPI_Request_free"))
            return h;
        /* the operation goes on and may still read its count arrays:
         * those (a few ints) are left to the process */
        free(q);
        return 0;
    }
    jni_req_free(q);
    return 0;
}

JNIEXPORT void JNICALL Java_mpi_Jni_start(JNIEnv *env, jclass c, jlongArray handles)
{
    jsize n = (*env)->GetArrayLength(env, handles);
    jlong *hs = (*env)->GetLongArrayElements(env, handles, NULL);
    MPI_Request *rs = malloc(sizeof *rs * (size_t)(n ? n : 1));
    int rc;
    if (hs == NULL || rs == NULL) {
        free(rs);
        if (hs)
            (*env)->ReleaseLongArrayElements(env, handles, hs, JNI_ABORT);
        jni_throw_java(env, "java/lang/OutOfMemoryError", "MPI_Startall");
        return;
    }
    for (jsize i = 0; i < n; i++)
        rs[i] = hs[i] ? ((jni_req *)(uintptr_t)hs[i])->req : MPI_REQUEST_NULL;
    rc = MPI_Startall(n, rs);
    for (jsize i = 0; i < n; i++)
        if (hs[i])
            ((jni_req *)(uintptr_t)hs[i])->req = rs[i];
    (*env)->ReleaseLongArrayElements(env, handles, hs, JNI_ABORT);
    free(rs);
    jni_fail(env, rc, "MPI_Startall");
}

/* ---------------------------------------------------------------- collectives */
enum {
    C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER, C_ALLGATHERV,
    C_ALLTOALL, C_ALLTOALLV, C_REDUCE, C_ALLREDUCE, C_REDSCAT, C_REDSCAT_BLOCK, C_SCAN, C_EXSCAN,
    C_NALLGATHER, C_NALLGATHERV, C_NALLTOALL, C_NALLTOALLV, C_REDUCE_LOCAL
};
static const char *jni_coll_names[] = {
    "MPI_Barrier",       "MPI_Bcast",           "MPI_Gather",
    "MPI_Gatherv",       "MPI_Scatter",         "MPI_Scatterv",
    "MPI_Allgather",     "MPI_Allgatherv",      "MPI_Alltoall",
    "MPI_Alltoallv",     "MPI_Reduce",          "MPI_Allreduce",
    "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan",
    "MPI_Exscan",        "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv", "MPI_Reduce_local"};

static __thread jthrowable jni_op_error; /* an exception thrown by a user op */

/* A native copy of a Java int[] (NULL stays NULL). */
static int *jni_ints(JNIEnv *env, jintArray a, int *n)
{
    int *p;
    jsize len;
    *n = 0;
    if (a == NULL)
        return NULL;
    len = (*env)->GetArrayLength(env, a);
    p = malloc(sizeof(int) * (size_t)(len ? len : 1));
    if (p == NULL)
        return NULL;
    (*env)->GetIntArrayRegion(env, a, 0, len, (jint *)p);
    *n = len;
    return p;
}

/* The span of a v-buffer: blocks at displs[i]*extent of counts[i] elements. */
static int jni_span_v(const int *counts, const int *displs, int n, MPI_Datatype dt, MPI_Aint *lo,
                      MPI_Aint *hi)
{
    MPI_Aint lb, ext;
    int rc = MPI_Type_get_extent(dt, &lb, &ext);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (counts[i] > 0)
            rc = jni_span(counts[i], dt, (MPI_Aint)displs[i] * ext, lo, hi);
    return rc;
}

/* One side (send or receive) of a collective call from Java: the buffer as
 * Java passed it, the count arrays copied to native memory, and what the
 * call will touch of it (need, [lo, hi) from the buffer's offset). */
typedef struct {
    jobject buf;
    jint off, cap, count;
    int *counts, *displs;
    int ncounts, ndispls;
    MPI_Datatype type;
    MPI_Aint lo, hi;
    int need;
    char *p;
    jni_buf jb;
} jni_coll_side;

/* A collective call in progress: which one, the communicator's shape seen
 * from this rank, and its two sides. */
typedef struct {
    int which, nb, inplace;
    const char *name;
    MPI_Comm comm;
    MPI_Op op;
    int root, rank, size, lsize, inter, is_root, npeers;
    jni_coll_side s, r;
} jni_coll_call;

/* The communicator's shape: size (remote size for an intercommunicator),
 * local size, rank, whether this rank is the root, and the number of peers
 * the count arrays cover (in-/out-degree for neighbourhood collectives). */
static int jni_coll_shape(jni_coll_call *k)
{
    int rc;
    if (k->which == C_REDUCE_LOCAL)
        return MPI_SUCCESS;
    if ((rc = MPI_Comm_test_inter(k->comm, &k->inter)) != MPI_SUCCESS ||
        (rc = k->inter ? MPI_Comm_remote_size(k->comm, &k->size)
                       : MPI_Comm_size(k->comm, &k->size)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(k->comm, &k->lsize)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(k->comm, &k->rank)) != MPI_SUCCESS)
        return rc;
    k->is_root = k->inter ? k->root == MPI_ROOT : k->rank == k->root;
    k->npeers = k->size;
    if (k->which >= C_NALLGATHER && k->which <= C_NALLTOALLV) {
        int topo = MPI_UNDEFINED, indeg = 0, outdeg = 0, w = 0;
        MPI_Topo_test(k->comm, &topo);
        if (topo == MPI_CART) {
            MPI_Cartdim_get(k->comm, &indeg);
            indeg = outdeg = 2 * indeg;
        } else if (topo == MPI_GRAPH) {
            MPI_Graph_neighbors_count(k->comm, k->rank, &indeg);
            outdeg = indeg;
        } else if (topo == MPI_DIST_GRAPH) {
            MPI_Dist_graph_neighbors_count(k->comm, &indeg, &outdeg, &w);
        }
        k->npeers = indeg > outdeg ? indeg : outdeg;
    }
    return MPI_SUCCESS;
}

/* The single buffer of an "in place" rooted collective plays the non-root's
 * part: send for gather and reduce, receive for scatter. */
static void jni_coll_inplace_role(jni_coll_call *k)
{
    jni_coll_side *from, *to;
    int w = k->which;
    if (!k->inplace || k->is_root ||
        !(w == C_GATHER || w == C_GATHERV || w == C_REDUCE || w == C_SCATTER || w == C_SCATTERV))
        return;
    k->inplace = 0;
    from = w == C_SCATTER || w == C_SCATTERV ? &k->s : &k->r;
    to = from == &k->s ? &k->r : &k->s;
    to->buf = from->buf, to->off = from->off, to->cap = from->cap;
    to->count = from->count, to->type = from->type;
    from->buf = NULL;
}

/* Which buffers this rank touches. */
static void jni_coll_needs(jni_coll_call *k)
{
    int inter = k->inter, root = k->root, is_root = k->is_root, inplace = k->inplace;
    k->s.need = k->r.need = 1;
    switch (k->which) {
    case C_GATHER:
    case C_GATHERV:
        k->r.need = is_root;
        k->s.need = !(inplace && is_root) && !(inter && root == MPI_PROC_NULL) &&
                    !(inter && is_root);
        break;
    case C_SCATTER:
    case C_SCATTERV:
        k->s.need = is_root;
        k->r.need = !(inplace && is_root) && !(inter && (is_root || root == MPI_PROC_NULL));
        break;
    case C_REDUCE:
        k->r.need = is_root;
        k->s.need = !(inplace && is_root);
        break;
    case C_BARRIER:
        k->s.need = k->r.need = 0;
        break;
    case C_BCAST:
        k->s.need = 0;
        break;
    default:
        k->s.need = !inplace;
        break;
    }
}

/* NULL when the count and displacement arrays cover every peer, else the
 * message of the exception to throw. */
static const char *jni_coll_short_arrays(const jni_coll_call *k)
{
    int w = k->which, nv = k->npeers;
    if ((w == C_GATHERV || w == C_ALLGATHERV || w == C_NALLGATHERV || w == C_ALLTOALLV ||
         w == C_NALLTOALLV) &&
        k->r.need && (k->r.ncounts < nv || k->r.ndispls < nv))
        return "the receive counts or displacements array is shorter than the number of processes";
    if ((w == C_SCATTERV || w == C_ALLTOALLV || w == C_NALLTOALLV) && k->s.need &&
        (k->s.ncounts < nv || k->s.ndispls < nv))
        return "the send counts or displacements array is shorter than the number of processes";
    if (w == C_REDSCAT && k->r.ncounts < k->lsize)
        return "MPI_Reduce_scatter: the counts array is shorter than the communicator's size";
    return NULL;
}

static int jni_coll_span(jni_coll_side *d, MPI_Count count)
{
    return d->need ? jni_span(count, d->type, 0, &d->lo, &d->hi) : MPI_SUCCESS;
}

static int jni_coll_span_v(jni_coll_side *d, int n)
{
    return d->need ? jni_span_v(d->counts, d->displs, n, d->type, &d->lo, &d->hi) : MPI_SUCCESS;
}

/* The bytes each side's call reads or writes, relative to its offset. The
 * reductions' send side has the receive side's count and type. */
static int jni_coll_spans(jni_coll_call *k)
{
    jni_coll_side *s = &k->s, *r = &k->r;
    int rc = MPI_SUCCESS, nr;
    MPI_Count total = 0;
    switch (k->which) {
    case C_BCAST:
        return jni_span(r->count, r->type, 0, &r->lo, &r->hi);
    case C_GATHER:
    case C_ALLGATHER:
    case C_ALLTOALL:
    case C_NALLGATHER:
    case C_NALLTOALL:
        nr = k->which == C_NALLGATHER || k->which == C_NALLTOALL ? k->npeers : k->size;
        rc = jni_coll_span(s, (MPI_Count)s->count *
                                  (k->which == C_ALLTOALL || k->which == C_NALLTOALL ? nr : 1));
        if (rc == MPI_SUCCESS)
            rc = jni_coll_span(r, (MPI_Count)r->count * nr);
        if (k->inplace && k->which == C_ALLTOALL)
            s->need = 0;
        return rc;
    case C_GATHERV:
    case C_ALLGATHERV:
    case C_NALLGATHERV:
        rc = jni_coll_span(s, s->count);
        return rc == MPI_SUCCESS ? jni_coll_span_v(r, k->npeers) : rc;
    case C_SCATTER:
        rc = jni_coll_span(s, (MPI_Count)s->count * k->size);
        return rc == MPI_SUCCESS ? jni_coll_span(r, r->count) : rc;
    case C_SCATTERV:
        rc = jni_coll_span_v(s, k->size);
        return rc == MPI_SUCCESS ? jni_coll_span(r, r->count) : rc;
    case C_ALLTOALLV:
    case C_NALLTOALLV:
        rc = jni_coll_span_v(s, k->npeers);
        return rc == MPI_SUCCESS ? jni_span_v(r->counts, r->displs, k->npeers, r->type, &r->lo,
                                              &r->hi)
                                 : rc;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
    case C_REDUCE_LOCAL:
        if (s->need)
            rc = jni_span(r->count, r->type, 0, &s->lo, &s->hi);
        return rc == MPI_SUCCESS ? jni_coll_span(r, r->count) : rc;
    case C_REDSCAT:
        for (int i = 0; i < k->lsize; i++)
            total += r->counts[i];
        if (s->need)
            rc = jni_span(total, r->type, 0, &s->lo, &s->hi);
        return rc == MPI_SUCCESS ? jni_span(k->inplace ? total : r->counts[k->rank], r->type, 0,
                                            &r->lo, &r->hi)
                                 : rc;
    case C_REDSCAT_BLOCK:
        if (s->need)
            rc = jni_span((MPI_Count)r->count * k->size, r->type, 0, &s->lo, &s->hi);
        return rc == MPI_SUCCESS ? jni_span(k->inplace ? (MPI_Count)r->count * k->size : r->count,
                                            r->type, 0, &r->lo, &r->hi)
                                 : rc;
    default:
        return MPI_SUCCESS;
    }
}

/* The MPI call itself, blocking or not (then *req is its request). */
static int jni_coll_invoke(const jni_coll_call *k, MPI_Request *req)
{
    void *sp = k->s.p, *rp = k->r.p;
    MPI_Count sc = k->s.count, rcn = k->r.count;
    const int *scs = k->s.counts, *sds = k->s.displs, *rcs = k->r.counts, *rds = k->r.displs;
    MPI_Datatype st = k->s.type, rt = k->r.type;
    MPI_Comm cm = k->comm;
    MPI_Op op = k->op;
    int root = k->root, nb = k->nb;
    switch (k->which) {
    case C_BARRIER:
        return nb ? MPI_Ibarrier(cm, req) : MPI_Barrier(cm);
    case C_BCAST:
        return nb ? MPI_Ibcast_c(rp, rcn, rt, root, cm, req) : MPI_Bcast_c(rp, rcn, rt, root, cm);
    case C_GATHER:
        return nb ? MPI_Igather_c(sp, sc, st, rp, rcn, rt, root, cm, req)
                  : MPI_Gather_c(sp, sc, st, rp, rcn, rt, root, cm);
    case C_GATHERV:
        return nb ? MPI_Igatherv(sp, (int)sc, st, rp, rcs, rds, rt, root, cm, req)
                  : MPI_Gatherv(sp, (int)sc, st, rp, rcs, rds, rt, root, cm);
    case C_SCATTER:
        return nb ? MPI_Iscatter_c(sp, sc, st, rp, rcn, rt, root, cm, req)
                  : MPI_Scatter_c(sp, sc, st, rp, rcn, rt, root, cm);
    case C_SCATTERV:
        return nb ? MPI_Iscatterv(sp, scs, sds, st, rp, (int)rcn, rt, root, cm, req)
                  : MPI_Scatterv(sp, scs, sds, st, rp, (int)rcn, rt, root, cm);
    case C_ALLGATHER:
        return nb ? MPI_Iallgather_c(sp, sc, st, rp, rcn, rt, cm, req)
                  : MPI_Allgather_c(sp, sc, st, rp, rcn, rt, cm);
    case C_ALLGATHERV:
        return nb ? MPI_Iallgatherv(sp, (int)sc, st, rp, rcs, rds, rt, cm, req)
                  : MPI_Allgatherv(sp, (int)sc, st, rp, rcs, rds, rt, cm);
    case C_ALLTOALL:
        return nb ? MPI_Ialltoall_c(sp, sc, st, rp, rcn, rt, cm, req)
                  : MPI_Alltoall_c(sp, sc, st, rp, rcn, rt, cm);
    case C_ALLTOALLV:
        return nb ? MPI_Ialltoallv(sp, scs, sds, st, rp, rcs, rds, rt, cm, req)
                  : MPI_Alltoallv(sp, scs, sds, st, rp, rcs, rds, rt, cm);
    case C_REDUCE:
        return nb ? MPI_Ireduce_c(sp, rp, rcn, rt, op, root, cm, req)
                  : MPI_Reduce_c(sp, rp, rcn, rt, op, root, cm);
    case C_ALLREDUCE:
        return nb ? MPI_Iallreduce_c(sp, rp, rcn, rt, op, cm, req)
                  : MPI_Allreduce_c(sp, rp, rcn, rt, op, cm);
    case C_REDSCAT:
        return nb ? MPI_Ireduce_scatter(sp, rp, rcs, rt, op, cm, req)
                  : MPI_Reduce_scatter(sp, rp, rcs, rt, op, cm);
    case C_REDSCAT_BLOCK:
        return nb ? MPI_Ireduce_scatter_block_c(sp, rp, rcn, rt, op, cm, req)
                  : MPI_Reduce_scatter_block_c(sp, rp, rcn, rt, op, cm);
    case C_SCAN:
        return nb ? MPI_Iscan_c(sp, rp, rcn, rt, op, cm, req) : MPI_Scan_c(sp, rp, rcn, rt, op, cm);
    case C_EXSCAN:
        return nb ? MPI_Iexscan_c(sp, rp, rcn, rt, op, cm, req)
                  : MPI_Exscan_c(sp, rp, rcn, rt, op, cm);
    case C_NALLGATHER:
        return nb ? MPI_Ineighbor_allgather_c(sp, sc, st, rp, rcn, rt, cm, req)
                  : MPI_Neighbor_allgather_c(sp, sc, st, rp, rcn, rt, cm);
    case C_NALLGATHERV:
        return nb ? MPI_Ineighbor_allgatherv(sp, (int)sc, st, rp, rcs, rds, rt, cm, req)
                  : MPI_Neighbor_allgatherv(sp, (int)sc, st, rp, rcs, rds, rt, cm);
    case C_NALLTOALL:
        return nb ? MPI_Ineighbor_alltoall_c(sp, sc, st, rp, rcn, rt, cm, req)
                  : MPI_Neighbor_alltoall_c(sp, sc, st, rp, rcn, rt, cm);
    case C_NALLTOALLV:
        return nb ? MPI_Ineighbor_alltoallv(sp, scs, sds, st, rp, rcs, rds, rt, cm, req)
                  : MPI_Neighbor_alltoallv(sp, scs, sds, st, rp, rcs, rds, rt, cm);
    case C_REDUCE_LOCAL:
        return MPI_Reduce_local_c(sp, rp, rcn, rt, op);
    default:
        return MPI_ERR_INTERN;
    }
}

/* Opens the buffers the call touches (a copy or a pinned array; direct
 * buffers only for the nonblocking forms); 0 when an exception is thrown. */
static int jni_coll_open(JNIEnv *env, jni_coll_call *k)
{
    jni_coll_side *s = &k->s, *r = &k->r;
    int ok, w = k->which;
    if (k->nb && ((s->need && s->buf != NULL && (*env)->GetDirectBufferAddress(env, s->buf) == NULL) ||
                  (r->need && r->buf != NULL && (*env)->GetDirectBufferAddress(env, r->buf) == NULL))) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s (nonblocking): the buffers must be direct buffers", k->name);
        jni_throw_java(env, "java/lang/IllegalArgumentException", msg);
        return 0;
    }
    if (s->need) {
        s->p = jni_buf_open(env, &s->jb, s->buf, s->off, s->cap, s->lo, s->hi, JB_IN, k->name, &ok);
        if (!ok)
            return 0;
    }
    if (r->need) {
        int fl = JB_OUT;
        if (k->inplace || w == C_BCAST || w == C_REDUCE_LOCAL || w == C_ALLGATHER ||
            w == C_ALLGATHERV || w == C_GATHERV || w == C_ALLTOALLV)
            fl |= JB_IN; /* the parts this rank does not receive keep their values */
        r->p = jni_buf_open(env, &r->jb, r->buf, r->off, r->cap, r->lo, r->hi, fl, k->name, &ok);
        if (!ok) {
            jni_buf_close(env, &s->jb, 0);
            return 0;
        }
    }
    if (k->inplace && (w == C_SCATTER || w == C_SCATTERV))
        r->p = MPI_IN_PLACE;
    else if (k->inplace)
        s->p = MPI_IN_PLACE;
    if (w == C_BCAST && k->is_root)
        r->jb.flags &= ~JB_OUT; /* the root's buffer is only read: nothing to copy back */
    return 1;
}

/* Copies the count arrays Java passed; 0 (OutOfMemoryError thrown) if one
 * could not be. */
static int jni_coll_arrays(JNIEnv *env, jni_coll_call *k, jintArray sc, jintArray sd,
                           jintArray rc, jintArray rd)
{
    k->s.counts = jni_ints(env, sc, &k->s.ncounts);
    k->s.displs = jni_ints(env, sd, &k->s.ndispls);
    k->r.counts = jni_ints(env, rc, &k->r.ncounts);
    k->r.displs = jni_ints(env, rd, &k->r.ndispls);
    if ((sc && !k->s.counts) || (sd && !k->s.displs) || (rc && !k->r.counts) ||
        (rd && !k->r.displs)) {
        jni_throw_java(env, "java/lang/OutOfMemoryError", k->name);
        return 0;
    }
    return 1;
}

/* One entry for every collective. inplace: the call's MPI_IN_PLACE form.
 * For the nonblocking forms (nb) buffers must be direct and the count arrays
 * are kept until the request completes. Returns the request (nb) or 0. */
JNIEXPORT jlong JNICALL Java_mpi_Jni_coll(JNIEnv *env, jclass c, jint which, jboolean nb,
                                          jboolean inplace, jobject sbuf, jint soff, jint scap,
                                          jint scount, jintArray jscounts, jintArray jsdispls,
                                          jlong stype, jobject rbuf, jint roff, jint rcap,
                                          jint rcount, jintArray jrcounts, jintArray jrdispls,
                                          jlong rtype, jlong op, jint root, jlong comm,
                                          jboolean user_op)
{
    jni_coll_call k;
    MPI_Request req = MPI_REQUEST_NULL;
    const char *why;
    int rc;
    jlong result = 0;

    memset(&k, 0, sizeof k);
    k.which = which, k.nb = nb, k.inplace = inplace, k.name = jni_coll_names[which];
    k.comm = (MPI_Comm)comm, k.op = (MPI_Op)op, k.root = root;
    k.s.buf = sbuf, k.s.off = soff, k.s.cap = scap, k.s.count = scount;
    k.s.type = (MPI_Datatype)stype;
    k.r.buf = rbuf, k.r.off = roff, k.r.cap = rcap, k.r.count = rcount;
    k.r.type = (MPI_Datatype)rtype;
    jni_drain_releases();
    if ((rc = jni_coll_shape(&k)) != MPI_SUCCESS) {
        jni_throw_mpi(env, rc, k.name);
        return 0;
    }
    jni_coll_inplace_role(&k);
    if (!jni_coll_arrays(env, &k, jscounts, jsdispls, jrcounts, jrdispls))
        goto out;
    jni_coll_needs(&k);
    if ((why = jni_coll_short_arrays(&k)) != NULL) {
        jni_throw_class(env, MPI_ERR_ARG, why);
        goto out;
    }
    if ((rc = jni_coll_spans(&k)) != MPI_SUCCESS) {
        jni_throw_mpi(env, rc, k.name);
        goto out;
    }
    if (!jni_coll_open(env, &k))
        goto out;
    if (user_op)
        __atomic_add_fetch(&jni_user_colls, 1, __ATOMIC_ACQ_REL);
    rc = jni_coll_invoke(&k, &req);
    if (user_op && (!nb || rc != MPI_SUCCESS))
        __atomic_sub_fetch(&jni_user_colls, 1, __ATOMIC_RELEASE);
    jni_buf_close(env, &k.s.jb, 0);
    if (k.r.need)
        jni_buf_close(env, &k.r.jb, rc == MPI_SUCCESS && jni_op_error == NULL);
    if (jni_op_error != NULL) {
        jthrowable t = jni_op_error;
        jni_op_error = NULL;
        if (!(*env)->ExceptionCheck(env))
            (*env)->Throw(env, t);
        (*env)->DeleteGlobalRef(env, t);
        goto out;
    }
    if (jni_fail(env, rc, k.name))
        goto out;
    if (nb) {
        void *keep[4] = {k.s.counts, k.s.displs, k.r.counts, k.r.displs};
        result = jni_req_new(env, req, 0, keep, 4);
        if (result != 0) {
            ((jni_req *)(uintptr_t)result)->user_coll = user_op;
            return result;
        }
        /* no wrapper (out of memory): the operation runs on unseen, so its
         * count in jni_user_colls stays (arrays are copied from now on) */
    }
out:
    free(k.s.counts);
    free(k.s.displs);
    free(k.r.counts);
    free(k.r.displs);
    return 0;
}

/* ---------------------------------------------------------------- pack */
JNIEXPORT jint JNICALL Java_mpi_Jni_pack(JNIEnv *env, jclass c, jboolean unpack, jobject buf,
                                         jint off, jint cap, jint count, jlong dt,
                                         jbyteArray packed, jint position, jlong comm)
{
    jni_buf b;
    char *p, *pk;
    jsize plen = (*env)->GetArrayLength(env, packed);
    int pos = position, rc, ok;
    const char *name = unpack ? "MPI_Unpack" : "MPI_Pack";
    p = jni_buf_open_n(env, &b, buf, off, cap, count, dt, unpack ? JB_OUT : JB_IN, name, &ok);
    if (!ok)
        return position;
    pk = malloc(plen ? (size_t)plen : 1);
    if (pk == NULL) {
        jni_buf_close(env, &b, 0);
        jni_throw_java(env, "java/lang/OutOfMemoryError", name);
        return position;
    }
    (*env)->GetByteArrayRegion(env, packed, 0, plen, (jbyte *)pk);
    rc = unpack ? MPI_Unpack(pk, plen, &pos, p, count, (MPI_Datatype)dt, (MPI_Comm)comm)
                : MPI_Pack(p, count, (MPI_Datatype)dt, pk, plen, &pos, (MPI_Comm)comm);
    if (rc == MPI_SUCCESS && !unpack)
        (*env)->SetByteArrayRegion(env, packed, 0, plen, (jbyte *)pk);
    free(pk);
    jni_buf_close(env, &b, rc == MPI_SUCCESS);
    jni_fail(env, rc, name);
    return pos;
}

JNIEXPORT jint JNICALL Java_mpi_Jni_packSize(JNIEnv *env, jclass c, jint count, jlong dt,
                                             jlong comm)
{
    int size = 0, rc = MPI_Pack_size(count, (MPI_Datatype)dt, (MPI_Comm)comm, &size);
    jni_fail(env, rc, "MPI_Pack_size");
    return size;
}

/* ---------------------------------------------------------------- datatypes */
/* kind: 0 contiguous, 1 vector, 2 hvector, 3 indexed, 4 hindexed, 5 struct,
 * 6 resized, 7 dup, 8 indexed_block */
JNIEXPORT jlong JNICALL Java_mpi_Jni_typeCreate(JNIEnv *env, jclass c, jint kind, jint count,
                                                jint blen, jint stride, jintArray jblens,
                                                jintArray jdispls, jlongArray jtypes, jlong old)
{
    MPI_Datatype n = MPI_DATATYPE_NULL, o = (MPI_Datatype)old;
    int nb = 0, nd = 0, rc = MPI_SUCCESS;
    int *bl = jni_ints(env, jblens, &nb), *dp = jni_ints(env, jdispls, &nd);
    MPI_Aint *ad = NULL;
    MPI_Datatype *ts = NULL;
    static const char *names[] = {"MPI_Type_contiguous",     "MPI_Type_vector",
                                  "MPI_Type_create_hvector", "MPI_Type_indexed",
                                  "MPI_Type_create_hindexed", "MPI_Type_create_struct",
                                  "MPI_Type_create_resized", "MPI_Type_dup",
                                  "MPI_Type_create_indexed_block"};
    if ((kind >= 3 && kind <= 5) && nb != nd) {
        jni_throw_class(env, MPI_ERR_ARG, "datatype constructor: the block lengths and "
                                          "displacements arrays differ in length");
        goto out;
    }
    if (kind == 4 || kind == 5) {
        ad = malloc(sizeof *ad * (size_t)(nd ? nd : 1));
        if (ad == NULL)
            goto oom;
        for (int i = 0; i < nd; i++)
            ad[i] = dp[i];
    }
    if (kind == 5) {
        jsize nt = (*env)->GetArrayLength(env, jtypes);
        jlong *tl = (*env)->GetLongArrayElements(env, jtypes, NULL);
        if (nt != nb) {
            if (tl)
                (*env)->ReleaseLongArrayElements(env, jtypes, tl, JNI_ABORT);
            jni_throw_class(env, MPI_ERR_ARG, "MPI_Type_create_struct: the types array differs "
                                              "in length from the block lengths");
            goto out;
        }
        ts = malloc(sizeof *ts * (size_t)(nt ? nt : 1));
        if (ts == NULL || tl == NULL) {
            if (tl)
                (*env)->ReleaseLongArrayElements(env, jtypes, tl, JNI_ABORT);
            goto oom;
        }
        for (int i = 0; i < nt; i++)
            ts[i] = (MPI_Datatype)tl[i];
        (*env)->ReleaseLongArrayElements(env, jtypes, tl, JNI_ABORT);
    }
    switch (kind) {
    case 0:
        rc = MPI_Type_contiguous(count, o, &n);
        break;
    case 1:
        rc = MPI_Type_vector(count, blen, stride, o, &n);
        break;
    case 2:
        rc = MPI_Type_create_hvector(count, blen, stride, o, &n);
        break;
    case 3:
        rc = MPI_Type_indexed(nb, bl, dp, o, &n);
        break;
    case 4:
        rc = MPI_Type_create_hindexed(nb, bl, ad, o, &n);
        break;
    case 5:
        rc = MPI_Type_create_struct(nb, bl, ad, ts, &n);
        break;
    case 6:
        rc = MPI_Type_create_resized(o, blen, stride, &n);
        break;
    case 7:
        rc = MPI_Type_dup(o, &n);
        break;
    default:
        rc = MPI_Type_create_indexed_block(nd, blen, dp, o, &n);
        break;
    }
    jni_fail(env, rc, names[kind]);
    goto out;
oom:
    jni_throw_java(env, "java/lang/OutOfMemoryError", names[kind]);
out:
    free(bl);
    free(dp);
    free(ad);
    free(ts);
    return (jlong)n;
}

/* what: 0 commit, 1 free (returns the new handle) */
JNIEXPORT jlong JNICALL Java_mpi_Jni_typeOp(JNIEnv *env, jclass c, jint what, jlong dt)
{
    MPI_Datatype t = (MPI_Datatype)dt;
    int rc = what == 0 ? MPI_Type_commit(&t) : MPI_Type_free(&t);
    jni_fail(env, rc, what == 0 ? "MPI_Type_commit" : "MPI_Type_free");
    return (jlong)t;
}

/* {lb, extent, true lb, true extent, size} in bytes */
JNIEXPORT void JNICALL Java_mpi_Jni_typeExtent(JNIEnv *env, jclass c, jlong dt, jlongArray out)
{
    MPI_Count v[5] = {0, 0, 0, 0, 0};
    jlong o[5];
    int rc;
    if ((rc = MPI_Type_get_extent_x((MPI_Datatype)dt, &v[0], &v[1])) != MPI_SUCCESS ||
        (rc = MPI_Type_get_true_extent_x((MPI_Datatype)dt, &v[2], &v[3])) != MPI_SUCCESS ||
        (rc = MPI_Type_size_x((MPI_Datatype)dt, &v[4])) != MPI_SUCCESS) {
        jni_throw_mpi(env, rc, "MPI_Type_get_extent");
        return;
    }
    for (int i = 0; i < 5; i++)
        o[i] = v[i];
    (*env)->SetLongArrayRegion(env, out, 0, 5, o);
}

/* MPI_Get_count (elements = 0) or MPI_Get_elements for a status that received bytes. */
JNIEXPORT jint JNICALL Java_mpi_Jni_statusCount(JNIEnv *env, jclass c, jlong bytes, jlong dt,
                                                jboolean elements)
{
    MPI_Status st;
    MPI_Count n = 0;
    int rc;
    memset(&st, 0, sizeof st);
    MPI_Status_set_elements_x(&st, MPI_BYTE, bytes);
    rc = elements ? MPI_Get_elements_x(&st, (MPI_Datatype)dt, &n)
                  : MPI_Get_count_c(&st, (MPI_Datatype)dt, &n);
    if (jni_fail(env, rc, elements ? "MPI_Get_elements" : "MPI_Get_count"))
        return 0;
    return n == MPI_UNDEFINED || n > 0x7fffffff ? MPI_UNDEFINED : (jint)n;
}

/* ---------------------------------------------------------------- groups */
/* what: 0 size, 1 rank */
JNIEXPORT jint JNICALL Java_mpi_Jni_groupInt(JNIEnv *env, jclass c, jint what, jlong g)
{
    int v = 0, rc = what == 0 ? MPI_Group_size((MPI_Group)g, &v) : MPI_Group_rank((MPI_Group)g, &v);
    jni_fail(env, rc, what == 0 ? "MPI_Group_size" : "MPI_Group_rank");
    return v;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_groupFree(JNIEnv *env, jclass c, jlong g)
{
    MPI_Group h = (MPI_Group)g;
    int rc = MPI_Group_free(&h);
    jni_fail(env, rc, "MPI_Group_free");
    return (jlong)h;
}

/* what: 0 union, 1 intersection, 2 difference, 3 compare (returns result) */
JNIEXPORT jlong JNICALL Java_mpi_Jni_groupPair(JNIEnv *env, jclass c, jint what, jlong a, jlong b)
{
    MPI_Group n = MPI_GROUP_NULL;
    int r = 0, rc;
    static const char *names[] = {"MPI_Group_union", "MPI_Group_intersection",
                                  "MPI_Group_difference", "MPI_Group_compare"};
    switch (what) {
    case 0:
        rc = MPI_Group_union((MPI_Group)a, (MPI_Group)b, &n);
        break;
    case 1:
        rc = MPI_Group_intersection((MPI_Group)a, (MPI_Group)b, &n);
        break;
    case 2:
        rc = MPI_Group_difference((MPI_Group)a, (MPI_Group)b, &n);
        break;
    default:
        rc = MPI_Group_compare((MPI_Group)a, (MPI_Group)b, &r);
        jni_fail(env, rc, names[3]);
        return r;
    }
    jni_fail(env, rc, names[what]);
    return (jlong)n;
}

/* what: 0 incl, 1 excl, 2 range incl, 3 range excl (ranks: triplets) */
JNIEXPORT jlong JNICALL Java_mpi_Jni_groupSub(JNIEnv *env, jclass c, jint what, jlong g,
                                              jintArray jranks)
{
    MPI_Group n = MPI_GROUP_NULL;
    int len = 0, rc;
    int *r = jni_ints(env, jranks, &len);
    static const char *names[] = {"MPI_Group_incl", "MPI_Group_excl", "MPI_Group_range_incl",
                                  "MPI_Group_range_excl"};
    switch (what) {
    case 0:
        rc = MPI_Group_incl((MPI_Group)g, len, r, &n);
        break;
    case 1:
        rc = MPI_Group_excl((MPI_Group)g, len, r, &n);
        break;
    case 2:
        rc = MPI_Group_range_incl((MPI_Group)g, len / 3, (int(*)[3])r, &n);
        break;
    default:
        rc = MPI_Group_range_excl((MPI_Group)g, len / 3, (int(*)[3])r, &n);
        break;
    }
    free(r);
    jni_fail(env, rc, names[what]);
    return (jlong)n;
}

JNIEXPORT jintArray JNICALL Java_mpi_Jni_groupTranslate(JNIEnv *env, jclass c, jlong a,
                                                        jintArray jranks, jlong b)
{
    int n = 0, rc;
    int *r = jni_ints(env, jranks, &n);
    int *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
    jintArray res = NULL;
    rc = MPI_Group_translate_ranks((MPI_Group)a, n, r, (MPI_Group)b, out);
    if (!jni_fail(env, rc, "MPI_Group_translate_ranks")) {
        res = (*env)->NewIntArray(env, n);
        if (res != NULL)
            (*env)->SetIntArrayRegion(env, res, 0, n, (jint *)out);
    }
    free(r);
    free(out);
    return res;
}

/* ---------------------------------------------------------------- topologies */
JNIEXPORT jlong JNICALL Java_mpi_Jni_cartCreate(JNIEnv *env, jclass c, jlong comm, jintArray jdims,
                                                jbooleanArray jperiods, jboolean reorder)
{
    int nd = 0, rc;
    int *dims = jni_ints(env, jdims, &nd);
    jsize np = (*env)->GetArrayLength(env, jperiods);
    int *per = calloc((size_t)(nd ? nd : 1), sizeof(int));
    MPI_Comm n = MPI_COMM_NULL;
    jboolean *pb = (*env)->GetBooleanArrayElements(env, jperiods, NULL);
    if (np != nd) {
        jni_throw_class(env, MPI_ERR_ARG,
                        "MPI_Cart_create: dims and periods differ in length");
        goto out;
    }
    for (int i = 0; i < nd; i++)
        per[i] = pb[i];
    rc = MPI_Cart_create((MPI_Comm)comm, nd, dims, per, reorder, &n);
    jni_fail(env, rc, "MPI_Cart_create");
out:
    if (pb)
        (*env)->ReleaseBooleanArrayElements(env, jperiods, pb, JNI_ABORT);
    free(dims);
    free(per);
    return (jlong)n;
}

/* dims, periods (0/1), coords of this rank, each ndims long, concatenated */
JNIEXPORT jintArray JNICALL Java_mpi_Jni_cartGet(JNIEnv *env, jclass c, jlong comm)
{
    int nd = 0, rc = MPI_Cartdim_get((MPI_Comm)comm, &nd);
    int *v;
    jintArray res = NULL;
    if (jni_fail(env, rc, "MPI_Cartdim_get"))
        return NULL;
    v = malloc(sizeof(int) * (size_t)(3 * nd + 1));
    rc = MPI_Cart_get((MPI_Comm)comm, nd, v, v + nd, v + 2 * nd);
    if (!jni_fail(env, rc, "MPI_Cart_get") && (res = (*env)->NewIntArray(env, 3 * nd)) != NULL)
        (*env)->SetIntArrayRegion(env, res, 0, 3 * nd, (jint *)v);
    free(v);
    return res;
}

JNIEXPORT jint JNICALL Java_mpi_Jni_cartRank(JNIEnv *env, jclass c, jlong comm, jintArray jcoords)
{
    int n = 0, r = 0, rc;
    int *co = jni_ints(env, jcoords, &n);
    rc = MPI_Cart_rank((MPI_Comm)comm, co, &r);
    free(co);
    jni_fail(env, rc, "MPI_Cart_rank");
    return r;
}

JNIEXPORT jintArray JNICALL Java_mpi_Jni_cartCoords(JNIEnv *env, jclass c, jlong comm, jint rank)
{
    int nd = 0, rc = MPI_Cartdim_get((MPI_Comm)comm, &nd);
    int *v;
    jintArray res = NULL;
    if (jni_fail(env, rc, "MPI_Cartdim_get"))
        return NULL;
    v = malloc(sizeof(int) * (size_t)(nd + 1));
    rc = MPI_Cart_coords((MPI_Comm)comm, rank, nd, v);
    if (!jni_fail(env, rc, "MPI_Cart_coords") && (res = (*env)->NewIntArray(env, nd)) != NULL)
        (*env)->SetIntArrayRegion(env, res, 0, nd, (jint *)v);
    free(v);
    return res;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_cartShift(JNIEnv *env, jclass c, jlong comm, jint dir,
                                               jint disp)
{
    int src = 0, dst = 0, rc = MPI_Cart_shift((MPI_Comm)comm, dir, disp, &src, &dst);
    jni_fail(env, rc, "MPI_Cart_shift");
    return ((jlong)(uint32_t)src << 32) | (uint32_t)dst;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_cartSub(JNIEnv *env, jclass c, jlong comm,
                                             jbooleanArray jremain)
{
    jsize n = (*env)->GetArrayLength(env, jremain);
    jboolean *rb = (*env)->GetBooleanArrayElements(env, jremain, NULL);
    int *rem = calloc((size_t)(n ? n : 1), sizeof(int));
    MPI_Comm nc = MPI_COMM_NULL;
    int rc;
    for (jsize i = 0; i < n; i++)
        rem[i] = rb[i];
    (*env)->ReleaseBooleanArrayElements(env, jremain, rb, JNI_ABORT);
    rc = MPI_Cart_sub((MPI_Comm)comm, rem, &nc);
    free(rem);
    jni_fail(env, rc, "MPI_Cart_sub");
    return (jlong)nc;
}

JNIEXPORT jint JNICALL Java_mpi_Jni_cartMap(JNIEnv *env, jclass c, jlong comm, jintArray jdims,
                                            jbooleanArray jperiods)
{
    int nd = 0, r = 0, rc;
    int *dims = jni_ints(env, jdims, &nd);
    int *per = calloc((size_t)(nd ? nd : 1), sizeof(int));
    jboolean *pb = (*env)->GetBooleanArrayElements(env, jperiods, NULL);
    for (int i = 0; i < nd && i < (*env)->GetArrayLength(env, jperiods); i++)
        per[i] = pb[i];
    (*env)->ReleaseBooleanArrayElements(env, jperiods, pb, JNI_ABORT);
    rc = MPI_Cart_map((MPI_Comm)comm, nd, dims, per, &r);
    free(dims);
    free(per);
    jni_fail(env, rc, "MPI_Cart_map");
    return r;
}

JNIEXPORT void JNICALL Java_mpi_Jni_dimsCreate(JNIEnv *env, jclass c, jint nnodes, jintArray jdims)
{
    int nd = 0, rc;
    int *dims = jni_ints(env, jdims, &nd);
    rc = MPI_Dims_create(nnodes, nd, dims);
    if (!jni_fail(env, rc, "MPI_Dims_create"))
        (*env)->SetIntArrayRegion(env, jdims, 0, nd, (jint *)dims);
    free(dims);
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_graphCreate(JNIEnv *env, jclass c, jlong comm,
                                                 jintArray jindex, jintArray jedges,
                                                 jboolean reorder)
{
    int ni = 0, ne = 0, rc;
    int *index = jni_ints(env, jindex, &ni), *edges = jni_ints(env, jedges, &ne);
    MPI_Comm n = MPI_COMM_NULL;
    rc = MPI_Graph_create((MPI_Comm)comm, ni, index, edges, reorder, &n);
    free(index);
    free(edges);
    jni_fail(env, rc, "MPI_Graph_create");
    return (jlong)n;
}

/* what: 0 -> index then edges (graph_get); 1 -> neighbors of rank; 2 -> graph_map */
JNIEXPORT jintArray JNICALL Java_mpi_Jni_graphQuery(JNIEnv *env, jclass c, jint what, jlong comm,
                                                    jint rank, jintArray jindex, jintArray jedges)
{
    int nn = 0, ne = 0, rc, *v = NULL, len = 0;
    jintArray res = NULL;
    if (what == 0) {
        rc = MPI_Graphdims_get((MPI_Comm)comm, &nn, &ne);
        if (jni_fail(env, rc, "MPI_Graphdims_get"))
            return NULL;
        v = malloc(sizeof(int) * (size_t)(nn + ne + 2));
        v[0] = nn;
        rc = MPI_Graph_get((MPI_Comm)comm, nn, ne, v + 1, v + 1 + nn);
        len = nn + ne + 1;
        if (jni_fail(env, rc, "MPI_Graph_get"))
            goto out;
    } else if (what == 1) {
        rc = MPI_Graph_neighbors_count((MPI_Comm)comm, rank, &nn);
        if (jni_fail(env, rc, "MPI_Graph_neighbors_count"))
            return NULL;
        v = malloc(sizeof(int) * (size_t)(nn + 1));
        rc = MPI_Graph_neighbors((MPI_Comm)comm, rank, nn, v);
        len = nn;
        if (jni_fail(env, rc, "MPI_Graph_neighbors"))
            goto out;
    } else {
        int *index = jni_ints(env, jindex, &nn), *edges = jni_ints(env, jedges, &ne), r = 0;
        rc = MPI_Graph_map((MPI_Comm)comm, nn, index, edges, &r);
        free(index);
        free(edges);
        if (jni_fail(env, rc, "MPI_Graph_map"))
            return NULL;
        v = malloc(sizeof(int));
        v[0] = r;
        len = 1;
    }
    if ((res = (*env)->NewIntArray(env, len)) != NULL)
        (*env)->SetIntArrayRegion(env, res, 0, len, (jint *)v);
out:
    free(v);
    return res;
}

/* ---------------------------------------------------------------- user operations */
/* MPI_User_function has no user argument: one trampoline per slot. */
#define JNI_OP_SLOTS 32
static jclass jni_op_class;
static jmethodID jni_op_call;

static void jni_op_invoke(int slot, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    JNIEnv *env = NULL;
    MPI_Aint lb, ext;
    jobject a, b;
    int attached = 0;
    if (jni_op_error != NULL)
        return; /* an earlier call of this operation threw: the result is discarded */
    if (jni_pinned)
        st_op_pinned++; /* must never happen: see jni_user_colls */
    if ((*jni_vm)->GetEnv(jni_vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) {
        if ((*jni_vm)->AttachCurrentThreadAsDaemon(jni_vm, (void **)&env, NULL) != JNI_OK)
            return;
        attached = 1;
    }
    MPI_Type_get_extent(*dt, &lb, &ext);
    a = (*env)->NewDirectByteBuffer(env, in, (jlong)*len * ext);
    b = (*env)->NewDirectByteBuffer(env, inout, (jlong)*len * ext);
    if (a != NULL && b != NULL)
        (*env)->CallStaticVoidMethod(env, jni_op_class, jni_op_call, slot, a, b, *len, (jlong)*dt);
    if ((*env)->ExceptionCheck(env)) {
        jthrowable t = (*env)->ExceptionOccurred(env);
        (*env)->ExceptionClear(env);
        jni_op_error = (*env)->NewGlobalRef(env, t);
    }
    if (a)
        (*env)->DeleteLocalRef(env, a);
    if (b)
        (*env)->DeleteLocalRef(env, b);
    (void)attached;
}

#define JNI_OP_TRAMPOLINE(n)                                                                       \
    static void jni_op_##n(void *in, void *inout, int *len, MPI_Datatype *dt)                      \
    {                                                                                              \
        jni_op_invoke(n, in, inout, len, dt);                                                      \
    }
JNI_OP_TRAMPOLINE(0) JNI_OP_TRAMPOLINE(1) JNI_OP_TRAMPOLINE(2) JNI_OP_TRAMPOLINE(3)
JNI_OP_TRAMPOLINE(4) JNI_OP_TRAMPOLINE(5) JNI_OP_TRAMPOLINE(6) JNI_OP_TRAMPOLINE(7)
JNI_OP_TRAMPOLINE(8) JNI_OP_TRAMPOLINE(9) JNI_OP_TRAMPOLINE(10) JNI_OP_TRAMPOLINE(11)
JNI_OP_TRAMPOLINE(12) JNI_OP_TRAMPOLINE(13) JNI_OP_TRAMPOLINE(14) JNI_OP_TRAMPOLINE(15)
JNI_OP_TRAMPOLINE(16) JNI_OP_TRAMPOLINE(17) JNI_OP_TRAMPOLINE(18) JNI_OP_TRAMPOLINE(19)
JNI_OP_TRAMPOLINE(20) JNI_OP_TRAMPOLINE(21) JNI_OP_TRAMPOLINE(22) JNI_OP_TRAMPOLINE(23)
JNI_OP_TRAMPOLINE(24) JNI_OP_TRAMPOLINE(25) JNI_OP_TRAMPOLINE(26) JNI_OP_TRAMPOLINE(27)
JNI_OP_TRAMPOLINE(28) JNI_OP_TRAMPOLINE(29) JNI_OP_TRAMPOLINE(30) JNI_OP_TRAMPOLINE(31)
#undef JNI_OP_TRAMPOLINE

static MPI_User_function *const jni_op_fns[JNI_OP_SLOTS] = {
    jni_op_0,  jni_op_1,  jni_op_2,  jni_op_3,  jni_op_4,  jni_op_5,  jni_op_6,  jni_op_7,
    jni_op_8,  jni_op_9,  jni_op_10, jni_op_11, jni_op_12, jni_op_13, jni_op_14, jni_op_15,
    jni_op_16, jni_op_17, jni_op_18, jni_op_19, jni_op_20, jni_op_21, jni_op_22, jni_op_23,
    jni_op_24, jni_op_25, jni_op_26, jni_op_27, jni_op_28, jni_op_29, jni_op_30, jni_op_31};

JNIEXPORT jlong JNICALL Java_mpi_Jni_opCreate(JNIEnv *env, jclass c, jint slot, jboolean commute)
{
    MPI_Op op = MPI_OP_NULL;
    int rc;
    if (jni_op_class == NULL) {
        jclass k = (*env)->FindClass(env, "mpi/Op");
        if (k == NULL)
            return 0;
        jni_op_class = (*env)->NewGlobalRef(env, k);
        jni_op_call = (*env)->GetStaticMethodID(env, jni_op_class, "callUser",
                                                "(ILjava/nio/ByteBuffer;Ljava/nio/ByteBuffer;IJ)V");
        if (jni_op_call == NULL)
            return 0;
    }
    if (slot < 0 || slot >= JNI_OP_SLOTS) {
        jni_throw_class(env, MPI_ERR_OTHER, "MPI_Op_create: the Java binding supports at most "
                                            "32 user operations at a time");
        return 0;
    }
    rc = MPI_Op_create(jni_op_fns[slot], commute, &op);
    jni_fail(env, rc, "MPI_Op_create");
    return (jlong)op;
}

/* what: 0 free (returns new handle), 1 commutative */
JNIEXPORT jlong JNICALL Java_mpi_Jni_opQuery(JNIEnv *env, jclass c, jint what, jlong op)
{
    MPI_Op o = (MPI_Op)op;
    int v = 0, rc = what == 0 ? MPI_Op_free(&o) : MPI_Op_commutative(o, &v);
    jni_fail(env, rc, what == 0 ? "MPI_Op_free" : "MPI_Op_commutative");
    return what == 0 ? (jlong)o : v;
}

/* ---------------------------------------------------------------- info */
JNIEXPORT jlong JNICALL Java_mpi_Jni_infoCreate(JNIEnv *env, jclass c, jlong dupof)
{
    MPI_Info n = MPI_INFO_NULL;
    int rc = dupof ? MPI_Info_dup((MPI_Info)dupof, &n) : MPI_Info_create(&n);
    jni_fail(env, rc, dupof ? "MPI_Info_dup" : "MPI_Info_create");
    return (jlong)n;
}

JNIEXPORT jlong JNICALL Java_mpi_Jni_infoFree(JNIEnv *env, jclass c, jlong info)
{
    MPI_Info i = (MPI_Info)info;
    int rc = MPI_Info_free(&i);
    jni_fail(env, rc, "MPI_Info_free");
    return (jlong)i;
}

/* what: 0 set, 1 get (value or null), 2 delete */
JNIEXPORT jstring JNICALL Java_mpi_Jni_infoKey(JNIEnv *env, jclass c, jint what, jlong info,
                                               jstring jkey, jstring jval)
{
    const char *key = (*env)->GetStringUTFChars(env, jkey, NULL), *val = NULL;
    char buf[MPI_MAX_INFO_VAL + 1];
    int rc, flag = 0;
    jstring res = NULL;
    if (key == NULL)
        return NULL;
    if (what == 0) {
        if ((val = (*env)->GetStringUTFChars(env, jval, NULL)) == NULL)
            goto out;
        rc = MPI_Info_set((MPI_Info)info, key, val);
        (*env)->ReleaseStringUTFChars(env, jval, val);
        jni_fail(env, rc, "MPI_Info_set");
    } else if (what == 1) {
        rc = MPI_Info_get((MPI_Info)info, key, MPI_MAX_INFO_VAL, buf, &flag);
        if (!jni_fail(env, rc, "MPI_Info_get") && flag)
            res = (*env)->NewStringUTF(env, buf);
    } else {
        rc = MPI_Info_delete((MPI_Info)info, key);
        jni_fail(env, rc, "MPI_Info_delete");
    }
out:
    (*env)->ReleaseStringUTFChars(env, jkey, key);
    return res;
}

/* n < 0: number of keys (as a string); else the n-th key */
JNIEXPORT jstring JNICALL Java_mpi_Jni_infoNth(JNIEnv *env, jclass c, jlong info, jint n)
{
    char key[MPI_MAX_INFO_KEY + 1];
    int rc, nkeys = 0;
    if (n < 0) {
        rc = MPI_Info_get_nkeys((MPI_Info)info, &nkeys);
        if (jni_fail(env, rc, "MPI_Info_get_nkeys"))
            return NULL;
        snprintf(key, sizeof key, "%d", nkeys);
        return (*env)->NewStringUTF(env, key);
    }
    rc = MPI_Info_get_nthkey((MPI_Info)info, n, key);
    if (jni_fail(env, rc, "MPI_Info_get_nthkey"))
        return NULL;
    return (*env)->NewStringUTF(env, key);
}

/* ---------------------------------------------------------------- one-sided */
JNIEXPORT jlong JNICALL Java_mpi_Jni_winCreate(JNIEnv *env, jclass c, jobject base, jint bytes,
                                               jint disp, jlong info, jlong comm)
{
    MPI_Win w = MPI_WIN_NULL;
    void *p = base ? (*env)->GetDirectBufferAddress(env, base) : NULL;
    int rc;
    if (base != NULL && p == NULL) {
        jni_throw_java(env, "java/lang/IllegalArgumentException",
                       "MPI_Win_create: the window must be a direct buffer");
        return 0;
    }
    rc = MPI_Win_create(p, bytes, disp, (MPI_Info)info, (MPI_Comm)comm, &w);
    jni_fail(env, rc, "MPI_Win_create");
    return (jlong)w;
}

/* what: 0 put, 1 get, 2 accumulate, 3 get_accumulate, 4 fetch_and_op, 5 compare_and_swap */
JNIEXPORT void JNICALL Java_mpi_Jni_rma(JNIEnv *env, jclass c, jint what, jlong win,
                                        jobject origin, jint ooff, jint ocap, jint ocount,
                                        jlong otype, jobject result, jint resoff, jint rescap,
                                        jint rescount, jlong restype, jobject compare, jint ccap,
                                        jint target,
                                        jlong tdisp, jint tcount, jlong ttype, jlong op)
{
    static const char *names[] = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate",
                                  "MPI_Fetch_and_op", "MPI_Compare_and_swap"};
    const char *name = names[what];
    MPI_Win w = (MPI_Win)win;
    char *op_ = NULL, *rp = NULL, *cp = NULL;
    int ok = 1, rc;
    if (origin != NULL)
        op_ = jni_direct(env, origin, ooff, ocap, what >= 4 ? 1 : ocount, what >= 4 ? ttype : otype,
                         name, &ok);
    if (!ok)
        return;
    if (result != NULL)
        rp = jni_direct(env, result, resoff, rescap, what >= 4 ? 1 : rescount,
                        what >= 4 ? ttype : restype, name, &ok);
    if (!ok)
        return;
    if (compare != NULL)
        cp = jni_direct(env, compare, 0, ccap, 1, ttype, name, &ok);
    if (!ok)
        return;
    switch (what) {
    case 0:
        rc = MPI_Put(op_, ocount, (MPI_Datatype)otype, target, tdisp, tcount, (MPI_Datatype)ttype, w);
        break;
    case 1:
        rc = MPI_Get(op_, ocount, (MPI_Datatype)otype, target, tdisp, tcount, (MPI_Datatype)ttype, w);
        break;
    case 2:
        rc = MPI_Accumulate(op_, ocount, (MPI_Datatype)otype, target, tdisp, tcount,
                            (MPI_Datatype)ttype, (MPI_Op)op, w);
        break;
    case 3:
        rc = MPI_Get_accumulate(op_, ocount, (MPI_Datatype)otype, rp, rescount,
                                (MPI_Datatype)restype, target, tdisp, tcount, (MPI_Datatype)ttype,
                                (MPI_Op)op, w);
        break;
    case 4:
        rc = MPI_Fetch_and_op(op_, rp, (MPI_Datatype)ttype, target, tdisp, (MPI_Op)op, w);
        break;
    default:
        rc = MPI_Compare_and_swap(op_, cp, rp, (MPI_Datatype)ttype, target, tdisp, w);
        break;
    }
    jni_fail(env, rc, name);
}

/* what: 0 fence(a), 1 lock(type=a, rank=b, assert=c), 2 unlock(b), 3 lock_all(a),
 * 4 unlock_all, 5 flush(b), 6 flush_all, 7 flush_local(b), 8 flush_local_all, 9 sync,
 * 10 free, 11 start(group=g, a), 12 complete, 13 post(g, a), 14 wait, 15 test,
 * 16 get_group */
JNIEXPORT jlong JNICALL Java_mpi_Jni_winSync(JNIEnv *env, jclass c, jint what, jlong win, jint a,
                                             jint b, jint cc, jlong g)
{
    MPI_Win w = (MPI_Win)win;
    MPI_Group grp = MPI_GROUP_NULL;
    int rc, flag = 0;
    static const char *names[] = {
        "MPI_Win_fence",      "MPI_Win_lock",        "MPI_Win_unlock",    "MPI_Win_lock_all",
        "MPI_Win_unlock_all", "MPI_Win_flush",       "MPI_Win_flush_all", "MPI_Win_flush_local",
        "MPI_Win_flush_local_all", "MPI_Win_sync",   "MPI_Win_free",      "MPI_Win_start",
        "MPI_Win_complete",   "MPI_Win_post",        "MPI_Win_wait",      "MPI_Win_test",
        "MPI_Win_get_group"};
    switch (what) {
    case 0: rc = MPI_Win_fence(a, w); break;
    case 1: rc = MPI_Win_lock(a, b, cc, w); break;
    case 2: rc = MPI_Win_unlock(b, w); break;
    case 3: rc = MPI_Win_lock_all(a, w); break;
    case 4: rc = MPI_Win_unlock_all(w); break;
    case 5: rc = MPI_Win_flush(b, w); break;
    case 6: rc = MPI_Win_flush_all(w); break;
    case 7: rc = MPI_Win_flush_local(b, w); break;
    case 8: rc = MPI_Win_flush_local_all(w); break;
    case 9: rc = MPI_Win_sync(w); break;
    case 10: rc = MPI_Win_free(&w); break;
    case 11: rc = MPI_Win_start((MPI_Group)g, a, w); break;
    case 12: rc = MPI_Win_complete(w); break;
    case 13: rc = MPI_Win_post((MPI_Group)g, a, w); break;
    case 14: rc = MPI_Win_wait(w); break;
    case 15: rc = MPI_Win_test(w, &flag); break;
    default: rc = MPI_Win_get_group(w, &grp); break;
    }
    if (jni_fail(env, rc, names[what]))
        return 0;
    return what == 10 ? (jlong)w : what == 15 ? flag : what == 16 ? (jlong)grp : 0;
}

/* ---------------------------------------------------------------- files */
JNIEXPORT jlong JNICALL Java_mpi_Jni_fileOpen(JNIEnv *env, jclass c, jlong comm, jstring jname,
                                              jint amode, jlong info)
{
    const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
    MPI_File f = MPI_FILE_NULL;
    int rc;
    if (name == NULL)
        return 0;
    rc = MPI_File_open((MPI_Comm)comm, name, amode, (MPI_Info)info, &f);
    (*env)->ReleaseStringUTFChars(env, jname, name);
    jni_fail(env, rc, "MPI_File_open");
    return (jlong)(uintptr_t)f;
}

JNIEXPORT void JNICALL Java_mpi_Jni_fileDelete(JNIEnv *env, jclass c, jstring jname, jlong info)
{
    const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
    int rc;
    if (name == NULL)
        return;
    rc = MPI_File_delete(name, (MPI_Info)info);
    (*env)->ReleaseStringUTFChars(env, jname, name);
    jni_fail(env, rc, "MPI_File_delete");
}

/* what: 0 close, 1 set_size(v), 2 preallocate(v), 3 get_size, 4 seek(v, whence=a),
 * 5 get_position, 6 sync, 7 get_amode, 8 set_atomicity(a), 9 get_atomicity,
 * 10 get_byte_offset(v), 11 seek_shared(v, a), 12 get_position_shared, 13 get_group */
JNIEXPORT jlong JNICALL Java_mpi_Jni_fileCtl(JNIEnv *env, jclass c, jint what, jlong fh, jlong v,
                                             jint a)
{
    MPI_File f = (MPI_File)(uintptr_t)fh;
    MPI_Offset o = 0;
    MPI_Group g = MPI_GROUP_NULL;
    int rc, i = 0;
    static const char *names[] = {
        "MPI_File_close",         "MPI_File_set_size",     "MPI_File_preallocate",
        "MPI_File_get_size",      "MPI_File_seek",         "MPI_File_get_position",
        "MPI_File_sync",          "MPI_File_get_amode",    "MPI_File_set_atomicity",
        "MPI_File_get_atomicity", "MPI_File_get_byte_offset", "MPI_File_seek_shared",
        "MPI_File_get_position_shared", "MPI_File_get_group"};
    switch (what) {
    case 0: rc = MPI_File_close(&f); break;
    case 1: rc = MPI_File_set_size(f, v); break;
    case 2: rc = MPI_File_preallocate(f, v); break;
    case 3: rc = MPI_File_get_size(f, &o); break;
    case 4: rc = MPI_File_seek(f, v, a); break;
    case 5: rc = MPI_File_get_position(f, &o); break;
    case 6: rc = MPI_File_sync(f); break;
    case 7: rc = MPI_File_get_amode(f, &i); o = i; break;
    case 8: rc = MPI_File_set_atomicity(f, a); break;
    case 9: rc = MPI_File_get_atomicity(f, &i); o = i; break;
    case 10: rc = MPI_File_get_byte_offset(f, v, &o); break;
    case 11: rc = MPI_File_seek_shared(f, v, a); break;
    case 12: rc = MPI_File_get_position_shared(f, &o); break;
    default: rc = MPI_File_get_group(f, &g); o = (MPI_Offset)g; break;
    }
    jni_fail(env, rc, names[what]);
    return what == 0 ? (jlong)(uintptr_t)f : (jlong)o;
}

JNIEXPORT void JNICALL Java_mpi_Jni_fileSetView(JNIEnv *env, jclass c, jlong fh, jlong disp,
                                                jlong etype, jlong ftype, jstring jrep, jlong info)
{
    const char *rep = (*env)->GetStringUTFChars(env, jrep, NULL);
    int rc;
    if (rep == NULL)
        return;
    rc = MPI_File_set_view((MPI_File)(uintptr_t)fh, disp, (MPI_Datatype)etype,
                           (MPI_Datatype)ftype, rep, (MPI_Info)info);
    (*env)->ReleaseStringUTFChars(env, jrep, rep);
    jni_fail(env, rc, "MPI_File_set_view");
}

/* what: bit 0 write, bit 1 explicit offset, bit 2 collective, bit 3 shared, bit 4 ordered */
JNIEXPORT void JNICALL Java_mpi_Jni_fileIO(JNIEnv *env, jclass c, jint what, jlong fh,
                                           jlong offset, jobject buf, jint off, jint cap,
                                           jint count, jlong dt, jlongArray status)
{
    MPI_File f = (MPI_File)(uintptr_t)fh;
    MPI_Datatype t = (MPI_Datatype)dt;
    int wr = what & 1, at = what & 2, all = what & 4, shared = what & 8, ordered = what & 16;
    MPI_Status st;
    jni_buf b;
    char *p;
    int rc, ok;
    const char *name = wr ? "MPI_File_write" : "MPI_File_read";
    p = jni_buf_open_n(env, &b, buf, off, cap, count, dt, wr ? JB_IN : JB_OUT, name, &ok);
    if (!ok)
        return;
    if (ordered)
        rc = wr ? MPI_File_write_ordered(f, p, count, t, &st) : MPI_File_read_ordered(f, p, count, t, &st);
    else if (shared)
        rc = wr ? MPI_File_write_shared(f, p, count, t, &st) : MPI_File_read_shared(f, p, count, t, &st);
    else if (at && all)
        rc = wr ? MPI_File_write_at_all(f, offset, p, count, t, &st)
                : MPI_File_read_at_all(f, offset, p, count, t, &st);
    else if (at)
        rc = wr ? MPI_File_write_at(f, offset, p, count, t, &st)
                : MPI_File_read_at(f, offset, p, count, t, &st);
    else if (all)
        rc = wr ? MPI_File_write_all(f, p, count, t, &st) : MPI_File_read_all(f, p, count, t, &st);
    else
        rc = wr ? MPI_File_write(f, p, count, t, &st) : MPI_File_read(f, p, count, t, &st);
    jni_buf_close(env, &b, rc == MPI_SUCCESS);
    if (!jni_fail(env, rc, name))
        jni_status_out(env, status, &st, 0);
}
