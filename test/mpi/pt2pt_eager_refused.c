/*
 * The eager limit to a peer on this node after single-copy writes (CMA)
 * turn out refused at run time. Run with CANAL_SHM_EAGER_LIMIT=4K (below
 * CANAL_EAGER_LIMIT's 16 KiB) and the test knob CANAL_SHM_CMA_WRITE_FAIL:
 * rank 0 sends rank 1 an 8 KiB message (by rendezvous: CMA works, the
 * limit is 4 KiB), then a 1 MiB one, whose part rank 1 asks rank 0 to
 * write fails, then 8 KiB again. With "denied" (=eperm) that failure turns
 * CMA off in rank 0, whose rendezvous then streams through the ring: the
 * second 8 KiB message goes eagerly (CANAL_EAGER_LIMIT's value, as if CMA
 * had never worked). With "refused" (=efault: that message's alone) it
 * stays a rendezvous. Rank 1's own reads still work, so its 8 KiB message
 * to rank 0 goes by rendezvous throughout. The protocol is read from the
 * MPI_T counter canal_rndv_sent at the sender; every byte is checked.
 * 2 ranks or more (the others idle).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { SMALL = 8192, BIG = 1 << 20 };

/* `from` sends n bytes to `to`, whose receive is posted first; returns 1
 * if the send went by rendezvous (at `from`; -1 elsewhere). */
static int send_is_rndv(unsigned char *buf, int n, int from, int to, int seed)
{
    MPI_Request r;
    unsigned long long before;
    int rndv = -1;

    if (mtest_rank == to) {
        memset(buf, 0, (size_t)n);
        OK(MPI_Irecv(buf, n, MPI_BYTE, from, seed, MPI_COMM_WORLD, &r));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mtest_rank == from) {
        for (int i = 0; i < n; i++)
            buf[i] = (unsigned char)(i * 7 + seed);
        before = mtest_counter("canal_rndv_sent");
        OK(MPI_Send(buf, n, MPI_BYTE, to, seed, MPI_COMM_WORLD));
        rndv = mtest_counter("canal_rndv_sent") > before;
    } else if (mtest_rank == to) {
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(buf[i] == (unsigned char)(i * 7 + seed),
                  "message %d of %d bytes: byte %d is %d, expected %d", seed, n, i, buf[i],
                  (unsigned char)(i * 7 + seed));
    }
    return rndv;
}

/* Checks at `from` that message `seed` of n bytes went as `want` says. */
static void expect_proto(unsigned char *buf, int n, int from, int to, int seed, int want,
                         const char *when)
{
    int rndv = send_is_rndv(buf, n, from, to, seed);

    if (mtest_rank == from)
        CHECK(rndv == want, "%s: rank %d's %d-byte message to rank %d went %s, expected %s",
              when, from, n, to, rndv ? "by rendezvous" : "eagerly",
              want ? "by rendezvous" : "eagerly");
}

int main(int argc, char **argv)
{
    int denied = argc > 1 && strcmp(argv[1], "denied") == 0;
    unsigned char *buf = malloc(BIG);

    mtest_init(&argc, &argv);
    CHECK(buf != NULL, "no memory");
    CHECK(argc > 1 && (denied || strcmp(argv[1], "refused") == 0),
          "usage: pt2pt_eager_refused denied|refused");
    expect_proto(buf, SMALL, 0, 1, 1, 1, "while CMA works");
    expect_proto(buf, SMALL, 1, 0, 2, 1, "while CMA works");
    send_is_rndv(buf, BIG, 0, 1, 3); /* rank 0's write of its part fails */
    expect_proto(buf, SMALL, 0, 1, 4, !denied,
                 denied ? "after rank 0's CMA was denied" : "after a refused write");
    expect_proto(buf, SMALL, 1, 0, 5, 1, "rank 1's CMA still works");
    /* (and the large message after it: streamed, or pulled) */
    send_is_rndv(buf, BIG, 0, 1, 6);
    expect_proto(buf, SMALL, 0, 1, 7, !denied, "at the end");
    free(buf);
    return mtest_finish();
}
