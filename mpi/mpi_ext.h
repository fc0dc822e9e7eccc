/*
 * mpi_ext.h: Canal's MPIX extensions: for managed (garbage-collected) language
 * runtimes, and (at the end) ULFM's MPI-5 era calls. Installed beside mpi.h, which stays identical to MPICH's; a
 * program includes <mpi_ext.h> after (or instead of) <mpi.h>. Every function
 * has a PMPIX_ twin for profiling tools. doc/managed.md is the manual: what
 * each call does, which thread runs the callbacks and what they may call.
 *
 * In short:
 *  1. a runtime registers its hooks once (resolve a reference to the current
 *     address of its object, can it move, pin/unpin, safepoint);
 *  2. it sends and receives (reference, offset, count, datatype) instead of
 *     addresses; Canal pins lazily (the deferred pinning of the Motor paper:
 *     a blocking operation pins its object only if it has not completed when
 *     the waiting thread reaches a safepoint; a nonblocking one pins at start
 *     and unpins at completion);
 *  3. its collector can ask which references incomplete operations still use;
 *  4. memory outside the heap can be registered once as an MPIX_Buffer
 *     (after jbufs) and released when the last operation using it completes;
 *  5. gather/scatter messages, receives whose buffer is allocated once the
 *     size is known, completion upcalls and wait hooks serve runtimes the way
 *     Manta and Ibis need.
 */
#ifndef CANAL_MPI_EXT_H
#define CANAL_MPI_EXT_H

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define CANAL_MPIX_MANAGED 1   /* feature test: this header is present */
#define MPIX_MANAGED_VERSION 1 /* layout of MPIX_Managed_hooks */

/* A managed reference: whatever names an object in the runtime (a handle, a
 * JNI global reference...). Canal never dereferences it; it only passes it
 * back to the hooks. NULL is never a valid reference. */
typedef void *MPIX_Ref;

/* Flags of MPIX_Managed_hooks.flags. RUNTIME_UNPINS: Canal never calls
 * unpin; the collector releases the pins of references MPIX_Managed_inflight
 * no longer lists (Motor's protocol). SAFEPOINT_AT_ENTRY: blocking MPIX calls
 * poll the safepoint when they start. */
#define MPIX_MANAGED_RUNTIME_UNPINS 0x1
#define MPIX_MANAGED_SAFEPOINT_AT_ENTRY 0x2

typedef struct MPIX_Managed_hooks {
    int version; /* MPIX_MANAGED_VERSION */
    int flags;   /* MPIX_MANAGED_* */
    /* Current address of the object's first byte; NULL if ref names no live object. */
    void *(*resolve)(MPIX_Ref ref, void *rt);
    /* Optional (NULL: no bounds checks): size of the object in bytes. */
    MPI_Aint (*size)(MPIX_Ref ref, void *rt);
    /* Optional (NULL: every object may move): 0 if the object will not move
     * as long as it is referenced (old generation, large-object space). */
    int (*can_move)(MPIX_Ref ref, void *rt);
    /* Optional, both or neither: keep the object where it is / let it move
     * again. pin returns 0 on success, nonzero if it cannot pin (Canal then
     * copies). Calls nest: every successful pin is matched by one unpin
     * (unless MPIX_MANAGED_RUNTIME_UNPINS). */
    int (*pin)(MPIX_Ref ref, void *rt);
    void (*unpin)(MPIX_Ref ref, void *rt);
    /* Optional: the collector may run here. Called while a thread waits
     * inside MPI, every safepoint_interval empty polls, after Canal pinned
     * every object whose address an incomplete operation holds. */
    void (*safepoint)(void *rt);
    void *rt;               /* passed back to every hook */
    int safepoint_interval; /* empty polls between safepoints; <= 0: 256 */
} MPIX_Managed_hooks;

/* What MPIX_Managed_inflight reports for one (operation, reference). */
/* PINNED: Canal holds a pin on the object for this operation. ADDRESS_HELD:
 * the device holds the object's address, so it must not move (it is pinned,
 * or cannot move). MOVABLE: can_move said it may move. SEND: the operation
 * reads the object (else it writes it). */
#define MPIX_REF_PINNED 0x1
#define MPIX_REF_ADDRESS_HELD 0x2
#define MPIX_REF_MOVABLE 0x4
#define MPIX_REF_SEND 0x8
typedef struct MPIX_Ref_use {
    MPIX_Ref ref;
    int flags;
} MPIX_Ref_use;

typedef struct MPIX_Managed_stats {
    long long ops;                /* operations on references started */
    long long pins;               /* pins Canal asked for */
    long long unpins;             /* unpins Canal made */
    long long deferred_pins;      /* pins of blocking operations made at a safepoint */
    long long pins_avoided;       /* blocking operations on movable objects that never pinned */
    long long copies;             /* operations that copied because a pin failed */
    long long safepoints;         /* safepoint hook calls */
    long long safepoints_skipped; /* safepoints skipped: a held object could not be pinned */
    long long inflight;           /* operations on references or buffers not complete yet */
} MPIX_Managed_stats;

/* Registered buffers (native memory outside the heap, after jbufs). */
typedef int MPIX_Buffer;
#define MPIX_BUFFER_NULL 0
typedef void MPIX_Buffer_release_function(void *base, MPI_Aint length, void *extra_state);

/* One piece of a gather/scatter message: a managed object (ref + offset), a
 * registered buffer (buffer + offset) or plain memory (addr); length bytes. */
typedef struct MPIX_Segment {
    MPIX_Ref ref;
    MPIX_Buffer buffer;
    void *addr;
    MPI_Aint offset;
    MPI_Aint length;
} MPIX_Segment;

/* Where a receive whose size is known lands: a managed object (ref + offset)
 * or plain memory (addr, when ref is NULL). */
typedef struct MPIX_Target {
    MPIX_Ref ref;
    void *addr;
    MPI_Aint offset;
} MPIX_Target;
/* Supplies the buffer of MPIX_(I)recv_alloc: count elements of the receive's
 * datatype are coming from (source, tag). Returns MPI_SUCCESS after filling
 * *target, or an error class, which fails the receive. Runs inside progress. */
typedef int MPIX_Recv_alloc_function(MPI_Count count, int source, int tag, void *extra_state,
                                     MPIX_Target *target);

/* Completion upcall of a request; runs once, inside progress. */
typedef void MPIX_Request_upcall_function(MPI_Request request, const MPI_Status *status,
                                          void *extra_state);
/* Called while a thread waits inside MPI (park it on the runtime's scheduler). */
typedef void MPIX_Wait_hook_function(void *extra_state);

#if defined(CANAL_BUILDING)
#pragma GCC visibility push(default)
#endif

/* ---- 1. runtime hooks */
int MPIX_Managed_register(const MPIX_Managed_hooks *hooks);
int MPIX_Managed_deregister(void);
int MPIX_Managed_stats_get(MPIX_Managed_stats *stats);

/* ---- 2. operations on managed references */
int MPIX_Send_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm);
int MPIX_Ssend_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm);
int MPIX_Recv_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, MPI_Status *status);
int MPIX_Isend_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Request *request);
int MPIX_Irecv_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                   int source, int tag, MPI_Comm comm, MPI_Request *request);

/* ---- 3. the collector's query */
int MPIX_Managed_inflight(int maxuses, MPIX_Ref_use uses[], int *count);

/* ---- 4. registered buffers */
int MPIX_Buffer_register(void *base, MPI_Aint length, MPIX_Buffer *buffer);
int MPIX_Buffer_deregister(MPIX_Buffer *buffer);
int MPIX_Buffer_release(MPIX_Buffer *buffer, MPIX_Buffer_release_function *fn, void *extra_state);
int MPIX_Buffer_in_use(MPIX_Buffer buffer, MPI_Aint offset, MPI_Aint length, int *flag);
int MPIX_Send_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm);
int MPIX_Recv_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPIX_Isend_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPIX_Irecv_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Request *request);

/* ---- 5. transport primitives for runtimes */
int MPIX_Sendv(const MPIX_Segment segments[], int nsegments, int dest, int tag, MPI_Comm comm);
int MPIX_Recvv(const MPIX_Segment segments[], int nsegments, int source, int tag, MPI_Comm comm,
               MPI_Status *status);
int MPIX_Isendv(const MPIX_Segment segments[], int nsegments, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int MPIX_Irecvv(const MPIX_Segment segments[], int nsegments, int source, int tag, MPI_Comm comm,
                MPI_Request *request);
int MPIX_Recv_alloc(MPIX_Recv_alloc_function *fn, void *extra_state, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPIX_Irecv_alloc(MPIX_Recv_alloc_function *fn, void *extra_state, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Request *request);
int MPIX_Request_set_upcall(MPI_Request request, MPIX_Request_upcall_function *fn,
                            void *extra_state);
int MPIX_Wait_hook_set(MPIX_Wait_hook_function *fn, void *extra_state, int interval);
int MPIX_Progress(int *made_progress);

/* Profiling twins. */
int PMPIX_Managed_register(const MPIX_Managed_hooks *hooks);
int PMPIX_Managed_deregister(void);
int PMPIX_Managed_stats_get(MPIX_Managed_stats *stats);
int PMPIX_Send_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm);
int PMPIX_Ssend_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm);
int PMPIX_Recv_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                   int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPIX_Isend_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Irecv_ref(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Managed_inflight(int maxuses, MPIX_Ref_use uses[], int *count);
int PMPIX_Buffer_register(void *base, MPI_Aint length, MPIX_Buffer *buffer);
int PMPIX_Buffer_deregister(MPIX_Buffer *buffer);
int PMPIX_Buffer_release(MPIX_Buffer *buffer, MPIX_Buffer_release_function *fn, void *extra_state);
int PMPIX_Buffer_in_use(MPIX_Buffer buffer, MPI_Aint offset, MPI_Aint length, int *flag);
int PMPIX_Send_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm);
int PMPIX_Recv_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPIX_Isend_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Irecv_buffer(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                       int source, int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Sendv(const MPIX_Segment segments[], int nsegments, int dest, int tag, MPI_Comm comm);
int PMPIX_Recvv(const MPIX_Segment segments[], int nsegments, int source, int tag, MPI_Comm comm,
                MPI_Status *status);
int PMPIX_Isendv(const MPIX_Segment segments[], int nsegments, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request);
int PMPIX_Irecvv(const MPIX_Segment segments[], int nsegments, int source, int tag, MPI_Comm comm,
                 MPI_Request *request);
int PMPIX_Recv_alloc(MPIX_Recv_alloc_function *fn, void *extra_state, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPIX_Irecv_alloc(MPIX_Recv_alloc_function *fn, void *extra_state, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Request_set_upcall(MPI_Request request, MPIX_Request_upcall_function *fn,
                             void *extra_state);
int PMPIX_Wait_hook_set(MPIX_Wait_hook_function *fn, void *extra_state, int interval);
int PMPIX_Progress(int *made_progress);

#if defined(CANAL_BUILDING)
#pragma GCC visibility pop
#endif

/* ---- ULFM's MPI-5 era calls (doc/design.md, "Failures and ULFM"). MPICH
 * 4.0.2's mpi.h has none of them, so they are declared here, not in mpi.h,
 * which stays MPICH 4.0.2's: a program that uses them says so by including
 * this header (Open MPI's ULFM programs include <mpi-ext.h> for the same
 * calls). MPICH's main branch spells MPIX_Comm_get_failed the same way;
 * MPIX_Comm_ack_failed and MPIX_Comm_iagree follow ULFM (Open MPI). The
 * rest of ULFM (MPIX_Comm_revoke, _shrink, _agree, _failure_ack,
 * _failure_get_acked and the MPIX_ERR_ classes) is in mpi.h, as in MPICH. */
#define CANAL_MPIX_FT 1 /* feature test: the calls below exist */

#if defined(CANAL_BUILDING)
#pragma GCC visibility push(default)
#endif
/* The group of the processes of comm this process knows to have failed,
 * in the order it learnt of them. */
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
/* Acknowledge the first num_to_ack processes of MPIX_Comm_get_failed's
 * group (MPI_ANY_SOURCE receives then ignore them); *num_acked: how many
 * failed processes of comm are acknowledged now. */
int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);
int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);
/* MPIX_Comm_agree, nonblocking: *flag is read now and written at completion. */
int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
#if defined(CANAL_BUILDING)
#pragma GCC visibility pop
#endif

#if defined(__cplusplus)
}
#endif

#endif
