/*
 * The device side of the managed-runtime extension (mpi/mpi_ext.h): the
 * runtime's hooks, the deferred-pinning policy for operations on managed
 * references, the registry of incomplete operations that the collector can
 * query, and registered buffers (jbufs). mpi/managed.c (the MPIX_ front) is
 * the only caller; it checks arguments and translates ranks, this file
 * decides when to resolve, pin, copy and unpin.
 *
 * The policy, in one place:
 *  - a blocking operation resolves its objects when it starts and hands the
 *    addresses to the device without pinning; if it is still incomplete when
 *    its thread reaches a safepoint (adi_set_wait_hook), every movable object
 *    whose address the device holds is pinned first, then the runtime's
 *    safepoint runs. A blocking receive into one object goes further: the
 *    device asks for the address only when a message matches (alloc_buf), so
 *    an unmatched receive holds no address and is resolved again after every
 *    safepoint;
 *  - a nonblocking operation pins its movable objects at start (or copies
 *    through a bounce buffer when a pin is refused) and unpins at completion;
 *  - completion (the request's on_complete, inside progress) unpins, unless
 *    the runtime asked to release pins itself after querying the registry.
 */
#ifndef CANAL_ADI_MANAGED_H
#define CANAL_ADI_MANAGED_H

#include <stddef.h>

#include "adi/adi.h"

enum {
    ADI_MGD_RUNTIME_UNPINS = 0x1,
    ADI_MGD_SAFEPOINT_AT_ENTRY = 0x2,
};

/* Same meaning as MPIX_Managed_hooks (mpi/mpi_ext.h). */
typedef struct {
    int flags;
    void *(*resolve)(void *ref, void *rt);
    long (*size)(void *ref, void *rt);
    int (*can_move)(void *ref, void *rt);
    int (*pin)(void *ref, void *rt);
    void (*unpin)(void *ref, void *rt);
    void (*safepoint)(void *rt);
    void *rt;
    int interval;
} adi_mgd_hooks_t;

/* One piece of an operation: a managed object (ref), a registered buffer
 * (jbuf, a handle of adi_mgd_buf_register) or plain memory (addr). For
 * gather/scatter `len` bytes at `offset`; for a typed operation the single
 * piece holds count elements of the datatype starting at `offset`. */
typedef struct {
    void *ref;
    int jbuf;
    void *addr;
    size_t offset;
    size_t len;
} adi_mgd_seg_t;

/* Where a receive of adi_mgd_recv_alloc lands (MPIX_Target). */
typedef struct {
    void *ref;
    void *addr;
    size_t offset;
} adi_mgd_target_t;
/* Returns 0 after filling *out, or an MPI error class (> 0) to fail the receive. */
typedef int (*adi_mgd_alloc_fn)(size_t count, int source, int tag, void *arg,
                                adi_mgd_target_t *out);

/* Same meaning as MPIX_Ref_use / MPIX_Managed_stats. */
enum { ADI_MGD_PINNED = 1, ADI_MGD_HELD = 2, ADI_MGD_MOVABLE = 4, ADI_MGD_SEND = 8 };
typedef struct {
    void *ref;
    int flags;
} adi_mgd_use_t;

typedef struct {
    long long ops, pins, unpins, deferred_pins, pins_avoided, copies, safepoints,
        safepoints_skipped, inflight;
} adi_mgd_stats_t;

/* Hooks: set once (CANAL_ERR_PENDING if already set), cleared when no
 * operation on a reference is in flight. */
canal_status_t adi_mgd_hooks_set(const adi_mgd_hooks_t *hooks);
canal_status_t adi_mgd_hooks_clear(void);
int adi_mgd_hooks_active(void);
/* The runtime's wait hook (MPIX_Wait_hook_set): runs after the safepoint. */
void adi_mgd_wait_hook_set(void (*fn)(void *arg), void *arg, int interval);
/* Called by MPI_Finalize: forget hooks, release buffers. */
void adi_mgd_finalize(void);

/* Bytes [lo, hi) relative to the start of (count, dt): where the data lies. */
canal_status_t adi_mgd_span(const dt_type_t *dt, size_t count, ptrdiff_t *lo_out,
                            ptrdiff_t *hi_out);
/* Check that [offset + lo, offset + hi) lies inside the object ref names
 * (CANAL_ERR_NOTFOUND: no live object; CANAL_ERR_ARG: out of bounds; both
 * with a detail). Without a size hook only liveness is checked. */
canal_status_t adi_mgd_ref_check(void *ref, size_t offset, ptrdiff_t lo, ptrdiff_t hi);
/* The same for a registered buffer (CANAL_ERR_NOTFOUND: stale or unknown
 * handle; CANAL_ERR_PENDING: being released; CANAL_ERR_ARG: out of bounds). */
canal_status_t adi_mgd_buf_check(int jbuf, size_t offset, ptrdiff_t lo, ptrdiff_t hi);

/* Start a send. nseg == 1 with dt != NULL: count elements of dt at the one
 * piece; dt == NULL: gather the pieces' bytes into one message. blocking:
 * the caller waits with adi_mgd_wait() and frees the request. */
canal_status_t adi_mgd_send(const adi_mgd_seg_t *segs, int nseg, size_t count, dt_type_t *dt,
                            int blocking, int dest_job_rank, int my_comm_rank, int tag, int context,
                            adi_send_mode_t mode, adi_request_t **req_out);
/* Start a receive; same shapes as adi_mgd_send (dt == NULL: scatter). */
canal_status_t adi_mgd_recv(const adi_mgd_seg_t *segs, int nseg, size_t count, dt_type_t *dt,
                            int blocking, int src_comm_rank, int tag, int context,
                            adi_request_t **req_out);
/* A receive whose buffer fn supplies once the size is known (inside
 * progress). arg_release (may be NULL) is called with arg when the operation
 * is over, whether or not fn ran. */
canal_status_t adi_mgd_recv_alloc(adi_mgd_alloc_fn fn, void *arg, void (*arg_release)(void *),
                                  dt_type_t *dt, int blocking, int src_comm_rank, int tag,
                                  int context, adi_request_t **req_out);
/* Wait for a blocking operation (safepoints and deferred pins happen here);
 * the request is done afterwards and still the caller's to free. */
canal_status_t adi_mgd_wait(adi_request_t *req);

/* The collector's query: fills up to max uses, *count_out is the total. */
canal_status_t adi_mgd_inflight(adi_mgd_use_t *uses, int max, int *count_out);
void adi_mgd_stats(adi_mgd_stats_t *out);

/* Registered buffers (jbufs). Handles are positive ints; a stale handle is
 * detected (CANAL_ERR_NOTFOUND). */
canal_status_t adi_mgd_buf_register(void *base, size_t len, int *handle_out);
/* Drop a reference now; CANAL_ERR_PENDING (nothing changes) when it is the
 * last one and operations still use the buffer. */
canal_status_t adi_mgd_buf_deregister(int handle);
/* Drop a reference; when the last is gone and the last operation using the
 * buffer has completed, the buffer is deregistered and cb runs (at once, or
 * later inside progress). */
canal_status_t adi_mgd_buf_release(int handle, void (*cb)(void *base, size_t len, void *arg),
                                   void *arg);
canal_status_t adi_mgd_buf_in_use(int handle, size_t offset, size_t len, int *flag_out);

#endif
