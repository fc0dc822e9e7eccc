/*
 * The native half of Canal's Java binding (bindings/java/src/canal/mpi):
 * JNI functions behind canal.mpi.MPI, built against an installed Canal
 * (mpi.h + mpi_ext.h, libmpi).
 *
 * The JVM may move arrays whenever a thread is in native code, except inside
 * a JNI critical region (GetPrimitiveArrayCritical), where the thread must
 * not block or call JNI. So the binding pins an array only for as long as an
 * operation is known to complete quickly, and never waits inside a critical
 * region for something that may take long:
 *  - blocking sends of at most zc_send_max bytes (eager: complete once
 *    handed to the channel) run inside a critical region; larger ones copy
 *    into this thread's registered bounce buffer (an MPIX_Buffer, so the
 *    network registration is made once) and wait outside;
 *  - a blocking receive posts into the pinned array and polls for at most
 *    spin_us microseconds; if nothing matched it cancels, unpins and waits
 *    for the message with MPI_Mprobe outside the critical region, then pins
 *    again only to take the matched message (MPI_Mrecv, which for
 *    rendezvous pulls the data straight into the array);
 *  - nonblocking operations on arrays go through native copies;
 *  - direct ByteBuffers never move: they are MPIX_Buffer registrations,
 *    cached by address, released with MPIX_Buffer_release (which waits for
 *    the last operation using them) after the Java buffer became
 *    unreachable (a Cleaner enqueues it; the next MPI call drains the queue,
 *    so the Cleaner thread never calls MPI).
 */
#include <jni.h>
#include <mpi.h>
#include <mpi_ext.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long zc_send_max = 16384; /* CANAL_JAVA_ZEROCOPY_MAX */
static long spin_us = 20;        /* CANAL_JAVA_SPIN_US */
static long long st_zc_send, st_copy_send, st_zc_recv, st_copy_recv, st_registered;

static const int elem_size[] = {1, 2, 2, 4, 8, 4, 8};
enum { K_BYTE, K_CHAR, K_SHORT, K_INT, K_LONG, K_FLOAT, K_DOUBLE, K_N };

/* ---------------------------------------------------------------- errors */
static void throw_mpi(JNIEnv *env, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING + 128], estr[MPI_MAX_ERROR_STRING];
    int len = 0, cls = MPI_ERR_OTHER;
    jclass c;
    jmethodID ctor;
    jstring s;
    jobject ex;

    if ((*env)->ExceptionCheck(env))
        return;
    estr[0] = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, estr, &len);
    snprintf(msg, sizeof msg, "%s: %s", what, estr);
    c = (*env)->FindClass(env, "canal/mpi/MPIException");
    if (c == NULL)
        return;
    ctor = (*env)->GetMethodID(env, c, "<init>", "(ILjava/lang/String;)V");
    s = (*env)->NewStringUTF(env, msg);
    ex = (*env)->NewObject(env, c, ctor, cls, s);
    if (ex != NULL)
        (*env)->Throw(env, ex);
}

static void throw_java(JNIEnv *env, const char *cls, const char *msg)
{
    jclass c = (*env)->FindClass(env, cls);
    if (c != NULL)
        (*env)->ThrowNew(env, c, msg);
}

/* Valid (array, kind, offset, count)? Sets *bytes. */
static int check_array(JNIEnv *env, jobject a, jint kind, jint off, jint count, size_t *bytes)
{
    jsize len;
    char msg[160];
    if (a == NULL) {
        throw_java(env, "java/lang/NullPointerException", "array is null");
        return 0;
    }
    if (kind < 0 || kind >= K_N) {
        throw_java(env, "java/lang/IllegalArgumentException", "unknown element kind");
        return 0;
    }
    len = (*env)->GetArrayLength(env, (jarray)a);
    if (off < 0 || count < 0 || off > len || count > len - off) {
        snprintf(msg, sizeof msg, "offset %d and count %d do not fit an array of %d", (int)off,
                 (int)count, (int)len);
        throw_java(env, "java/lang/IndexOutOfBoundsException", msg);
        return 0;
    }
    *bytes = (size_t)count * (size_t)elem_size[kind];
    return 1;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void status_out(JNIEnv *env, jintArray out, const MPI_Status *s)
{
    MPI_Count n = 0;
    jint v[4];
    if (out == NULL)
        return;
    MPI_Get_count_c(s, MPI_BYTE, &n);
    v[0] = s->MPI_SOURCE;
    v[1] = s->MPI_TAG;
    v[2] = (jint)(n & 0xffffffff);
    v[3] = (jint)(n >> 32);
    (*env)->SetIntArrayRegion(env, out, 0, 4, v);
}

/* ---------------------------------------------------------------- registered buffers */
typedef struct {
    void *base;
    size_t len;
    MPIX_Buffer h;
} reg_t;

static reg_t *regs;
static int nregs, capregs;
static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pend {
    void *base;
    size_t len;
} * pending;
static int npending, cappending;
static pthread_mutex_t pend_mutex = PTHREAD_MUTEX_INITIALIZER;

static void drain_releases(void)
{
    struct pend *todo;
    int n;
    if (__atomic_load_n(&npending, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&pend_mutex);
    todo = pending;
    n = npending;
    pending = NULL;
    npending = cappending = 0;
    pthread_mutex_unlock(&pend_mutex);
    pthread_mutex_lock(&reg_mutex);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < nregs; i++)
            if (regs[i].base == todo[k].base && regs[i].len == todo[k].len) {
                /* deregistered when the last operation on it completes */
                MPIX_Buffer_release(&regs[i].h, NULL, NULL);
                regs[i] = regs[--nregs];
                break;
            }
    pthread_mutex_unlock(&reg_mutex);
    free(todo);
}

static MPIX_Buffer reg_lookup(void *base, size_t len, int *created)
{
    MPIX_Buffer h = MPIX_BUFFER_NULL;
    *created = 0;
    pthread_mutex_lock(&reg_mutex);
    for (int i = 0; i < nregs; i++)
        if (regs[i].base == base && regs[i].len == len) {
            h = regs[i].h;
            break;
        }
    if (h == MPIX_BUFFER_NULL && MPIX_Buffer_register(base, (MPI_Aint)len, &h) == MPI_SUCCESS) {
        if (nregs == capregs) {
            int cap = capregs ? capregs * 2 : 16;
            reg_t *t = realloc(regs, sizeof *t * (size_t)cap);
            if (t != NULL) {
                regs = t;
                capregs = cap;
            }
        }
        if (nregs < capregs) {
            regs[nregs].base = base;
            regs[nregs].len = len;
            regs[nregs].h = h;
            nregs++;
            *created = 1;
            st_registered++;
        }
    }
    pthread_mutex_unlock(&reg_mutex);
    return h;
}

static MPIX_Buffer buffer_of(JNIEnv *env, jobject b, jint off, jint bytes)
{
    void *base;
    jlong cap;
    int created;
    MPIX_Buffer h;
    if (b == NULL) {
        throw_java(env, "java/lang/NullPointerException", "buffer is null");
        return MPIX_BUFFER_NULL;
    }
    base = (*env)->GetDirectBufferAddress(env, b);
    cap = (*env)->GetDirectBufferCapacity(env, b);
    if (base == NULL || cap <= 0) {
        throw_java(env, "java/lang/IllegalArgumentException", "not a direct buffer");
        return MPIX_BUFFER_NULL;
    }
    if (off < 0 || bytes < 0 || off > cap || bytes > cap - off) {
        throw_java(env, "java/lang/IndexOutOfBoundsException",
                   "offset and length do not fit the buffer");
        return MPIX_BUFFER_NULL;
    }
    h = reg_lookup(base, (size_t)cap, &created);
    if (h == MPIX_BUFFER_NULL)
        throw_java(env, "java/lang/IllegalStateException", "MPIX_Buffer_register failed");
    return h;
}

/* This thread's registered bounce buffer for large copied sends. */
static __thread struct {
    void *mem;
    size_t cap;
    MPIX_Buffer h;
} bounce;

static MPIX_Buffer bounce_get(size_t bytes)
{
    if (bounce.cap < bytes) {
        size_t cap = bounce.cap ? bounce.cap : 65536;
        while (cap < bytes)
            cap *= 2;
        if (bounce.mem != NULL) {
            MPIX_Buffer_release(&bounce.h, NULL, NULL);
            free(bounce.mem); /* no operation is in flight: sends from it are blocking */
        }
        bounce.mem = malloc(cap);
        bounce.cap = bounce.mem ? cap : 0;
        if (bounce.mem == NULL || MPIX_Buffer_register(bounce.mem, (MPI_Aint)cap, &bounce.h))
            return MPIX_BUFFER_NULL;
    }
    return bounce.h;
}

/* ---------------------------------------------------------------- life cycle */
JNIEXPORT void JNICALL Java_canal_mpi_MPI_nConstants(JNIEnv *env, jclass c, jintArray out)
{
    jint v[4] = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, (jint)MPI_COMM_WORLD};
    (*env)->SetIntArrayRegion(env, out, 0, 4, v);
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nInit(JNIEnv *env, jclass c, jint required)
{
    int provided = 0, rc;
    const char *e;
    if ((e = getenv("CANAL_JAVA_ZEROCOPY_MAX")) != NULL)
        zc_send_max = atol(e);
    if ((e = getenv("CANAL_JAVA_SPIN_US")) != NULL)
        spin_us = atol(e);
    rc = MPI_Init_thread(NULL, NULL, required, &provided);
    if (rc != MPI_SUCCESS) {
        throw_mpi(env, rc, "MPI_Init_thread");
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return provided;
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nFinalize(JNIEnv *env, jclass c)
{
    int rc;
    drain_releases();
    if (bounce.mem != NULL) {
        MPIX_Buffer_deregister(&bounce.h);
        free(bounce.mem);
        bounce.mem = NULL;
        bounce.cap = 0;
    }
    rc = MPI_Finalize();
    if (rc != MPI_SUCCESS)
        throw_mpi(env, rc, "MPI_Finalize");
}

JNIEXPORT jdouble JNICALL Java_canal_mpi_MPI_nWtime(JNIEnv *env, jclass c)
{
    return MPI_Wtime();
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nProgress(JNIEnv *env, jclass c)
{
    int flag = 0;
    drain_releases();
    MPIX_Progress(&flag);
    return flag;
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nStats(JNIEnv *env, jclass c, jlongArray out)
{
    jlong v[5] = {st_zc_send, st_copy_send, st_zc_recv, st_copy_recv, st_registered};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT jlong JNICALL Java_canal_mpi_MPI_nRegister(JNIEnv *env, jclass c, jobject b)
{
    void *base = (*env)->GetDirectBufferAddress(env, b);
    jlong cap = (*env)->GetDirectBufferCapacity(env, b);
    int created = 0;
    drain_releases();
    if (base == NULL || cap <= 0) {
        throw_java(env, "java/lang/IllegalArgumentException", "not a direct buffer");
        return 0;
    }
    if (reg_lookup(base, (size_t)cap, &created) == MPIX_BUFFER_NULL) {
        throw_java(env, "java/lang/IllegalStateException", "MPIX_Buffer_register failed");
        return 0;
    }
    return created ? (jlong)(uintptr_t)base : 0;
}

/* Runs in the Cleaner's thread: only queues the release. */
JNIEXPORT void JNICALL Java_canal_mpi_MPI_nEnqueueRelease(JNIEnv *env, jclass c, jlong addr,
                                                          jlong cap)
{
    pthread_mutex_lock(&pend_mutex);
    if (npending == cappending) {
        int n = cappending ? cappending * 2 : 16;
        struct pend *t = realloc(pending, sizeof *t * (size_t)n);
        if (t == NULL) {
            pthread_mutex_unlock(&pend_mutex);
            return; /* the registration lives on until MPI_Finalize */
        }
        pending = t;
        cappending = n;
    }
    pending[npending].base = (void *)(uintptr_t)addr;
    pending[npending].len = (size_t)cap;
    __atomic_store_n(&npending, npending + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pend_mutex);
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nRank(JNIEnv *env, jclass c, jint comm)
{
    int r = -1, rc = MPI_Comm_rank((MPI_Comm)comm, &r);
    if (rc)
        throw_mpi(env, rc, "MPI_Comm_rank");
    return r;
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nSize(JNIEnv *env, jclass c, jint comm)
{
    int s = -1, rc = MPI_Comm_size((MPI_Comm)comm, &s);
    if (rc)
        throw_mpi(env, rc, "MPI_Comm_size");
    return s;
}

/* ---------------------------------------------------------------- blocking, arrays */
JNIEXPORT void JNICALL Java_canal_mpi_MPI_nSendArray(JNIEnv *env, jclass c, jobject a, jint kind,
                                                     jint off, jint count, jint dest, jint tag,
                                                     jint comm)
{
    size_t bytes;
    char *p;
    int rc;

    drain_releases();
    if (!check_array(env, a, kind, off, count, &bytes))
        return;
    if ((long)bytes <= zc_send_max) {
        /* zero-copy: an eager send is complete once the channel has it */
        p = (*env)->GetPrimitiveArrayCritical(env, (jarray)a, NULL);
        if (p == NULL)
            return;
        rc = MPI_Send(p + (size_t)off * (size_t)elem_size[kind], (int)bytes, MPI_BYTE, dest, tag,
                      (MPI_Comm)comm);
        (*env)->ReleasePrimitiveArrayCritical(env, (jarray)a, p, JNI_ABORT);
        st_zc_send++;
    } else {
        MPIX_Buffer h = bounce_get(bytes);
        if (h == MPIX_BUFFER_NULL) {
            throw_java(env, "java/lang/OutOfMemoryError", "no bounce buffer");
            return;
        }
        p = (*env)->GetPrimitiveArrayCritical(env, (jarray)a, NULL);
        if (p == NULL)
            return;
        memcpy(bounce.mem, p + (size_t)off * (size_t)elem_size[kind], bytes);
        (*env)->ReleasePrimitiveArrayCritical(env, (jarray)a, p, JNI_ABORT);
        /* waits outside the critical region: the collector runs meanwhile */
        rc = MPIX_Send_buffer(h, 0, (MPI_Count)bytes, MPI_BYTE, dest, tag, (MPI_Comm)comm);
        st_copy_send++;
    }
    if (rc != MPI_SUCCESS)
        throw_mpi(env, rc, "send");
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nRecvArray(JNIEnv *env, jclass c, jobject a, jint kind,
                                                     jint off, jint count, jint source, jint tag,
                                                     jint comm, jintArray status)
{
    size_t bytes, at;
    MPI_Request req;
    MPI_Message msg;
    MPI_Status st;
    char *p;
    int rc, flag = 0, cancelled = 0;
    double t0;

    drain_releases();
    if (!check_array(env, a, kind, off, count, &bytes))
        return;
    at = (size_t)off * (size_t)elem_size[kind];
    /* 1. pin briefly: most messages of a busy exchange arrive within the spin */
    p = (*env)->GetPrimitiveArrayCritical(env, (jarray)a, NULL);
    if (p == NULL)
        return;
    rc = MPI_Irecv(p + at, (int)bytes, MPI_BYTE, source, tag, (MPI_Comm)comm, &req);
    if (rc == MPI_SUCCESS) {
        t0 = now_us();
        do
            rc = MPI_Test(&req, &flag, &st);
        while (rc == MPI_SUCCESS && !flag && now_us() - t0 < (double)spin_us);
        if (rc == MPI_SUCCESS && !flag) {
            MPI_Cancel(&req);
            rc = MPI_Wait(&req, &st); /* a receive that matched meanwhile finishes here */
            MPI_Test_cancelled(&st, &cancelled);
        }
    }
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)a, p, 0);
    if (rc != MPI_SUCCESS) {
        throw_mpi(env, rc, "receive");
        return;
    }
    if (!cancelled) {
        st_zc_recv++;
        status_out(env, status, &st);
        return;
    }
    /* 2. wait outside any critical region, then pin only to take the message */
    rc = MPI_Mprobe(source, tag, (MPI_Comm)comm, &msg, &st);
    if (rc != MPI_SUCCESS) {
        throw_mpi(env, rc, "MPI_Mprobe");
        return;
    }
    p = (*env)->GetPrimitiveArrayCritical(env, (jarray)a, NULL);
    if (p == NULL)
        return;
    rc = MPI_Mrecv(p + at, (int)bytes, MPI_BYTE, &msg, &st);
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)a, p, 0);
    st_copy_recv++;
    if (rc != MPI_SUCCESS) {
        throw_mpi(env, rc, "receive");
        return;
    }
    status_out(env, status, &st);
}

/* ---------------------------------------------------------------- nonblocking */
typedef struct {
    MPI_Request req;
    void *tmp; /* copy of the array's data (send) or landing area (receive) */
    size_t bytes;
    int is_recv;
    int kind, off;
} jreq_t;

JNIEXPORT jlong JNICALL Java_canal_mpi_MPI_nIsendArray(JNIEnv *env, jclass c, jobject a, jint kind,
                                                       jint off, jint count, jint dest, jint tag,
                                                       jint comm)
{
    size_t bytes;
    jreq_t *r;
    char *p;
    int rc;

    drain_releases();
    if (!check_array(env, a, kind, off, count, &bytes))
        return 0;
    r = calloc(1, sizeof *r);
    if (r == NULL || (r->tmp = malloc(bytes ? bytes : 1)) == NULL) {
        free(r);
        throw_java(env, "java/lang/OutOfMemoryError", "isend copy");
        return 0;
    }
    p = (*env)->GetPrimitiveArrayCritical(env, (jarray)a, NULL);
    if (p == NULL) {
        free(r->tmp);
        free(r);
        return 0;
    }
    memcpy(r->tmp, p + (size_t)off * (size_t)elem_size[kind], bytes);
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)a, p, JNI_ABORT);
    r->bytes = bytes;
    rc = MPI_Isend(r->tmp, (int)bytes, MPI_BYTE, dest, tag, (MPI_Comm)comm, &r->req);
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        throw_mpi(env, rc, "isend");
        return 0;
    }
    st_copy_send++;
    return (jlong)(uintptr_t)r;
}

JNIEXPORT jlong JNICALL Java_canal_mpi_MPI_nIrecvArray(JNIEnv *env, jclass c, jobject a, jint kind,
                                                       jint off, jint count, jint source, jint tag,
                                                       jint comm)
{
    size_t bytes;
    jreq_t *r;
    int rc;

    drain_releases();
    if (!check_array(env, a, kind, off, count, &bytes))
        return 0;
    r = calloc(1, sizeof *r);
    if (r == NULL || (r->tmp = malloc(bytes ? bytes : 1)) == NULL) {
        free(r);
        throw_java(env, "java/lang/OutOfMemoryError", "irecv landing area");
        return 0;
    }
    r->bytes = bytes;
    r->is_recv = 1;
    r->kind = kind;
    r->off = off;
    rc = MPI_Irecv(r->tmp, (int)bytes, MPI_BYTE, source, tag, (MPI_Comm)comm, &r->req);
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        throw_mpi(env, rc, "irecv");
        return 0;
    }
    st_copy_recv++;
    return (jlong)(uintptr_t)r;
}

static jlong buffer_op(JNIEnv *env, jobject b, jint off, jint bytes, jint peer, jint tag, jint comm,
                       int is_recv)
{
    MPIX_Buffer h;
    jreq_t *r;
    int rc;

    drain_releases();
    if ((h = buffer_of(env, b, off, bytes)) == MPIX_BUFFER_NULL)
        return 0;
    r = calloc(1, sizeof *r);
    if (r == NULL) {
        throw_java(env, "java/lang/OutOfMemoryError", "request");
        return 0;
    }
    r->is_recv = is_recv;
    r->kind = -1;
    rc = is_recv ? MPIX_Irecv_buffer(h, off, bytes, MPI_BYTE, peer, tag, (MPI_Comm)comm, &r->req)
                 : MPIX_Isend_buffer(h, off, bytes, MPI_BYTE, peer, tag, (MPI_Comm)comm, &r->req);
    if (rc != MPI_SUCCESS) {
        free(r);
        throw_mpi(env, rc, is_recv ? "irecv" : "isend");
        return 0;
    }
    return (jlong)(uintptr_t)r;
}

JNIEXPORT jlong JNICALL Java_canal_mpi_MPI_nIsendBuffer(JNIEnv *env, jclass c, jobject b, jint off,
                                                        jint bytes, jint dest, jint tag, jint comm)
{
    return buffer_op(env, b, off, bytes, dest, tag, comm, 0);
}

JNIEXPORT jlong JNICALL Java_canal_mpi_MPI_nIrecvBuffer(JNIEnv *env, jclass c, jobject b, jint off,
                                                        jint bytes, jint source, jint tag,
                                                        jint comm)
{
    return buffer_op(env, b, off, bytes, source, tag, comm, 1);
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nSendBuffer(JNIEnv *env, jclass c, jobject b, jint off,
                                                      jint bytes, jint dest, jint tag, jint comm)
{
    MPIX_Buffer h;
    int rc;
    drain_releases();
    if ((h = buffer_of(env, b, off, bytes)) == MPIX_BUFFER_NULL)
        return;
    rc = MPIX_Send_buffer(h, off, bytes, MPI_BYTE, dest, tag, (MPI_Comm)comm);
    if (rc != MPI_SUCCESS)
        throw_mpi(env, rc, "send");
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nRecvBuffer(JNIEnv *env, jclass c, jobject b, jint off,
                                                      jint bytes, jint source, jint tag, jint comm,
                                                      jintArray status)
{
    MPIX_Buffer h;
    MPI_Status st;
    int rc;
    drain_releases();
    if ((h = buffer_of(env, b, off, bytes)) == MPIX_BUFFER_NULL)
        return;
    rc = MPIX_Recv_buffer(h, off, bytes, MPI_BYTE, source, tag, (MPI_Comm)comm, &st);
    if (rc != MPI_SUCCESS) {
        throw_mpi(env, rc, "receive");
        return;
    }
    status_out(env, status, &st);
}

/* A completed request: copy a receive into its array, report, free. */
static void finish_req(JNIEnv *env, jreq_t *r, jobject target, MPI_Status *st, jintArray status)
{
    if (r->is_recv && r->kind >= 0 && target != NULL) {
        MPI_Count n = 0;
        char *p;
        MPI_Get_count_c(st, MPI_BYTE, &n);
        if ((size_t)n > r->bytes)
            n = (MPI_Count)r->bytes;
        p = (*env)->GetPrimitiveArrayCritical(env, (jarray)target, NULL);
        if (p != NULL) {
            memcpy(p + (size_t)r->off * (size_t)elem_size[r->kind], r->tmp, (size_t)n);
            (*env)->ReleasePrimitiveArrayCritical(env, (jarray)target, p, 0);
        }
    }
    status_out(env, status, st);
    free(r->tmp);
    free(r);
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nWait(JNIEnv *env, jclass c, jlong h, jobject target,
                                                jintArray status)
{
    jreq_t *r = (jreq_t *)(uintptr_t)h;
    MPI_Status st;
    int rc;
    if (r == NULL)
        return 0;
    rc = MPI_Wait(&r->req, &st); /* outside any critical region */
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        throw_mpi(env, rc, "wait");
        return 0;
    }
    finish_req(env, r, target, &st, status);
    return 0;
}

JNIEXPORT jint JNICALL Java_canal_mpi_MPI_nTest(JNIEnv *env, jclass c, jlong h, jobject target,
                                                jintArray status)
{
    jreq_t *r = (jreq_t *)(uintptr_t)h;
    MPI_Status st;
    int rc, flag = 0;
    if (r == NULL)
        return 1;
    drain_releases();
    rc = MPI_Test(&r->req, &flag, &st);
    if (rc != MPI_SUCCESS) {
        free(r->tmp);
        free(r);
        throw_mpi(env, rc, "test");
        return 1;
    }
    if (!flag)
        return 0;
    finish_req(env, r, target, &st, status);
    return 1;
}

/* ---------------------------------------------------------------- collectives */
JNIEXPORT void JNICALL Java_canal_mpi_MPI_nBarrier(JNIEnv *env, jclass c, jint comm)
{
    int rc;
    drain_releases();
    rc = MPI_Barrier((MPI_Comm)comm);
    if (rc != MPI_SUCCESS)
        throw_mpi(env, rc, "MPI_Barrier");
}

JNIEXPORT void JNICALL Java_canal_mpi_MPI_nAllreduce(JNIEnv *env, jclass c, jobject in, jobject out,
                                                     jint kind, jint count, jint op, jint comm)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    MPI_Datatype dt;
    size_t bytes, obytes;
    void *a, *b;
    char *p;
    int rc;

    drain_releases();
    if (!check_array(env, in, kind, 0, count, &bytes) ||
        !check_array(env, out, kind, 0, count, &obytes))
        return;
    switch (kind) {
    case K_INT:
        dt = MPI_INT32_T;
        break;
    case K_LONG:
        dt = MPI_INT64_T;
        break;
    case K_FLOAT:
        dt = MPI_FLOAT;
        break;
    case K_DOUBLE:
        dt = MPI_DOUBLE;
        break;
    default:
        throw_java(env, "java/lang/IllegalArgumentException",
                   "allreduce: int, long, float or double");
        return;
    }
    if (op < 0 || op > 3) {
        throw_java(env, "java/lang/IllegalArgumentException", "allreduce: unknown op");
        return;
    }
    a = malloc(bytes ? bytes : 1);
    b = malloc(bytes ? bytes : 1);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        throw_java(env, "java/lang/OutOfMemoryError", "allreduce");
        return;
    }
    p = (*env)->GetPrimitiveArrayCritical(env, (jarray)in, NULL);
    if (p != NULL) {
        memcpy(a, p, bytes);
        (*env)->ReleasePrimitiveArrayCritical(env, (jarray)in, p, JNI_ABORT);
    }
    /* a collective waits for every rank: never inside a critical region */
    rc = MPI_Allreduce(a, b, count, dt, ops[op], (MPI_Comm)comm);
    if (rc == MPI_SUCCESS && (p = (*env)->GetPrimitiveArrayCritical(env, (jarray)out, NULL))) {
        memcpy(p, b, bytes);
        (*env)->ReleasePrimitiveArrayCritical(env, (jarray)out, p, 0);
    }
    free(a);
    free(b);
    if (rc != MPI_SUCCESS)
        throw_mpi(env, rc, "MPI_Allreduce");
}
