/*
 * managed_threads: the managed extension under MPI_THREAD_MULTIPLE. Besides
 * the main thread (blocking and nonblocking operations on managed objects of
 * the toy runtime, toyrt.h), a runtime "network thread" drives progress with
 * MPIX_Progress, so completions, unpins and address resolutions run in
 * another thread than the one that started the operation. The toy runtime
 * stops the world the way a real one does: every mutator holds the world
 * lock for reading while it runs (inside MPI too) and lets go only at its
 * safepoints; the collector takes it for writing. Checks every byte, that
 * nothing Canal held moved, and that every pin was matched by an unpin.
 */
#include "mtest.h"
#include "toyrt.h"

#include <pthread.h>
#include <sched.h>

static pthread_rwlock_t world;
static int stop; /* atomic: the network thread polls it */
static long net_polls;

/* The collector runs with every mutator stopped at a safepoint. */
static void world_collect(void)
{
    pthread_rwlock_unlock(&world);
    pthread_rwlock_wrlock(&world);
    toy_collect();
    pthread_rwlock_unlock(&world);
    pthread_rwlock_rdlock(&world);
}

static void mt_safepoint(void *rt)
{
    (void)rt;
    toy.safepoints++;
    world_collect();
}

static void *network_thread(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&world);
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        MPIX_Progress(NULL);
        net_polls++;
        if (net_polls % 8 == 0) { /* the thread's safepoint */
            pthread_rwlock_unlock(&world);
            sched_yield();
            pthread_rwlock_rdlock(&world);
        }
    }
    pthread_rwlock_unlock(&world);
    return NULL;
}

static const size_t sizes[] = {0, 8, 1000, 16384, 16385, 90000, 400000};
enum { NS = sizeof sizes / sizeof sizes[0] };

int main(int argc, char **argv)
{
    pthread_rwlockattr_t attr;
    pthread_t net;
    MPIX_Managed_hooks h;
    int rank, size, peer, first, provided = 0, rc;

    provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    rank = mtest_rank;
    size = mtest_size;
    if (provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf(" No Errors (MPI_THREAD_MULTIPLE not provided; skipped)\n");
        MPI_Finalize();
        return 0;
    }
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&world, &attr);
    pthread_rwlock_rdlock(&world);

    toy_init(24u << 20, 0);
    MPIX_Managed_deregister(); /* again, with the stop-the-world safepoint */
    memset(&h, 0, sizeof h);
    h.version = MPIX_MANAGED_VERSION;
    h.resolve = toy_resolve;
    h.size = toy_size;
    h.can_move = toy_can_move;
    h.pin = toy_pin;
    h.unpin = toy_unpin;
    h.safepoint = mt_safepoint;
    h.safepoint_interval = 8;
    rc = MPIX_Managed_register(&h);
    CHECK(rc == MPI_SUCCESS, "register: %d", rc);
    toy.collect_fn = world_collect;
    pthread_create(&net, NULL, network_thread, NULL);

    peer = rank ^ 1;
    first = (rank & 1) == 0;
    for (int round = 0; round < 30 && peer < size; round++) {
        toy_obj_t *s[NS], *r[NS];
        MPI_Request rq[NS], sq[NS];
        for (int k = 0; k < NS; k++) {
            unsigned seed = (unsigned)(round * 100 + k + (first ? 0 : 50));
            s[k] = toy_alloc(sizes[k], 0);
            r[k] = toy_alloc(sizes[k], 0);
            toy_fill(s[k], 0, sizes[k], seed);
        }
        if (round % 2 == 0) { /* blocking: the network thread may complete them */
            for (int k = 0; k < NS; k++) {
                if (first) {
                    rc = MPIX_Send_ref(s[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k,
                                       MPI_COMM_WORLD);
                    if (rc == MPI_SUCCESS)
                        rc = MPIX_Recv_ref(r[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k,
                                           MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    rc = MPIX_Recv_ref(r[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k,
                                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    world_collect();
                    if (rc == MPI_SUCCESS)
                        rc = MPIX_Send_ref(s[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k,
                                           MPI_COMM_WORLD);
                }
                CHECK(rc == MPI_SUCCESS, "round %d size %zu: %d", round, sizes[k], rc);
            }
        } else { /* nonblocking, completed by whichever thread polls first */
            for (int k = 0; k < NS; k++) {
                MPIX_Irecv_ref(r[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD,
                               &rq[k]);
                MPIX_Isend_ref(s[k], 0, (MPI_Count)sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD,
                               &sq[k]);
                world_collect();
            }
            rc = MPI_Waitall(NS, rq, MPI_STATUSES_IGNORE);
            CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
            rc = MPI_Waitall(NS, sq, MPI_STATUSES_IGNORE);
            CHECK(rc == MPI_SUCCESS, "waitall: %d", rc);
        }
        world_collect();
        for (int k = 0; k < NS; k++) {
            unsigned seed = (unsigned)(round * 100 + k + (first ? 50 : 0));
            mtest_errors += toy_verify(r[k], 0, sizes[k], seed, "threaded receive") != 0;
            toy_free(s[k]);
            toy_free(r[k]);
        }
    }
    /* completions may still be running in the network thread: let it finish */
    pthread_rwlock_unlock(&world);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(net, NULL);
    pthread_rwlock_rdlock(&world);
    toy_report("managed_threads");
    CHECK(peer >= size || toy.moved > 0, "the collector moved nothing");
    mtest_errors += (int)toy_finish_checks();
    /* the safepoint hook needs the world lock: remove it before letting go */
    CHECK(MPIX_Managed_deregister() == MPI_SUCCESS, "deregister");
    pthread_rwlock_unlock(&world);
    return mtest_finish();
}
