/* Large messages that both sides copy (the receiver pulls the first part,
 * the sender pushes the rest: CANAL_RNDV_HALVES_MIN, adi/pt2pt.c), the way
 * programs send them: ping-pong at sizes around the threshold and odd ones,
 * a window of MPI_Isend/MPI_Irecv both ways at once (osu_bw, osu_bibw), a
 * receive larger than the message, a truncated one (MPI_ERR_TRUNCATE, its
 * first bytes still right), MPI_Ssend, MPI_ANY_SOURCE, and a sender that
 * computes outside MPI between MPI_Isend and MPI_Wait (the receiver's
 * part is done; the sender's comes when it next enters MPI). Every byte is
 * checked. Ranks pair up: 0-1, 2-3, ...; an odd last rank only takes part
 * in the final barrier. With argv[1] "pushed" each rank also checks through
 * the MPI_T counter canal_rndv_pushed that its sends of 128 KiB and more
 * were copied by both sides (the default threshold; without the argument
 * the counter is not looked at: other thresholds, oversubscribed nodes).
 * With "refused" (run with CANAL_SHM_CMA_WRITE_FAIL=efault: every sender's
 * write fails) no send moves canal_rndv_pushed and each receive of 128 KiB
 * and more moves canal_rndv_push_failed by one (the receiver read the
 * sender's part itself); with "denied" (=eperm: the first failed write turns
 * CMA off in the sender, later messages are streamed) no send moves
 * canal_rndv_pushed and some receive in the job read the sender's part. */
#include "mtest.h"

#include <unistd.h>

#define WIN 8

static unsigned long long pushed(void) { return mtest_counter("canal_rndv_pushed"); }
static unsigned long long push_failed(void) { return mtest_counter("canal_rndv_push_failed"); }

/* "refused": a receive of n bytes just ended; from 128 KiB on it read the
 * part its sender failed to write (canal_rndv_push_failed, *f0 before it) */
static int read_itself(int rank, size_t n, unsigned long long *f0)
{
    unsigned long long f1 = push_failed();
    int bad = f1 != *f0 + (n >= 131072);

    if (bad)
        printf("rank %d: a %zu-byte receive moved canal_rndv_push_failed %llu -> %llu\n", rank,
               n, *f0, f1);
    *f0 = f1;
    return bad;
}

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char)((i * 2654435761u) >> 13) ^ (unsigned char)seed;
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(i, seed);
}

static int check(const unsigned char *b, size_t n, int seed, const char *what, size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(i, seed)) {
            printf("%s of %zu bytes: byte %zu is %d, expected %d\n", what, size, i, b[i],
                   pattern(i, seed));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {16385, 65535, 65536, 65537, 69632 + 1, 262144 - 7,
                                   1 << 20, (4 << 20) + 3};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int rank, size, peer, errs = 0, sum = 0, want = argc > 1 && strcmp(argv[1], "pushed") == 0;
    int refused = argc > 1 && strcmp(argv[1], "refused") == 0;
    int denied = argc > 1 && strcmp(argv[1], "denied") == 0;
    unsigned long long p0 = 0, p1, f0 = 0, fstart = 0, pstart = 0, fall = 0;
    size_t max = (4 << 20) + 3 + 4096;
    unsigned char *out, *in, *wout, *win;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    peer = rank ^ 1;
    out = malloc(max);
    in = malloc(max);
    wout = malloc((size_t)WIN * (256 << 10));
    win = malloc((size_t)WIN * (256 << 10));
    if (out == NULL || in == NULL || wout == NULL || win == NULL) {
        printf("rank %d: no memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (peer < size) {
        int lo = rank < peer;
        if (want)
            p0 = pushed();
        if (refused || denied) {
            pstart = pushed();
            fstart = f0 = push_failed();
        }
        /* ping-pong, each size, both directions in turn */
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            for (int rep = 0; rep < 3; rep++) {
                int seed = k * 16 + rep;
                if (lo) {
                    fill(out, n, seed);
                    MPI_Send(out, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
                    memset(in, 0, n);
                    MPI_Recv(in, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
                    errs += check(in, n, seed + 1, "pong", n);
                    if (refused)
                        errs += read_itself(rank, n, &f0);
                    if (want && (p1 = pushed()) != p0 + (n >= 131072))
                        printf("rank %d: a %zu-byte send moved canal_rndv_pushed %llu -> %llu\n",
                               rank, n, p0, p1),
                            errs++;
                    p0 = want ? pushed() : 0;
                } else {
                    memset(in, 0, n);
                    MPI_Recv(in, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st);
                    errs += check(in, n, seed, "ping", n);
                    if (refused)
                        errs += read_itself(rank, n, &f0);
                    fill(out, n, seed + 1);
                    MPI_Send(out, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
                }
            }
        }
        /* a window of 256 KiB messages both ways at once */
        {
            size_t n = 256 << 10;
            MPI_Request rq[2 * WIN];
            for (int i = 0; i < WIN; i++) {
                fill(wout + (size_t)i * n, n, 100 + rank * WIN + i);
                memset(win + (size_t)i * n, 0, n);
                MPI_Irecv(win + (size_t)i * n, (int)n, MPI_BYTE, peer, 50 + i, MPI_COMM_WORLD,
                          &rq[i]);
            }
            for (int i = 0; i < WIN; i++)
                MPI_Isend(wout + (size_t)i * n, (int)n, MPI_BYTE, peer, 50 + i, MPI_COMM_WORLD,
                          &rq[WIN + i]);
            MPI_Waitall(2 * WIN, rq, MPI_STATUSES_IGNORE);
            for (int i = 0; i < WIN; i++)
                errs += check(win + (size_t)i * n, n, 100 + peer * WIN + i, "window", n);
        }
        /* a receive larger than the message; a truncated one; Ssend; ANY_SOURCE */
        {
            size_t n = 300000;
            int count, rc, cls;
            if (lo) {
                fill(out, n, 7);
                MPI_Send(out, (int)n, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
                MPI_Send(out, (int)n, MPI_BYTE, peer, 61, MPI_COMM_WORLD);
                MPI_Ssend(out, (int)n, MPI_BYTE, peer, 62, MPI_COMM_WORLD);
                MPI_Send(out, (int)n, MPI_BYTE, peer, 63, MPI_COMM_WORLD);
            } else {
                memset(in, 0, max);
                MPI_Recv(in, (int)max, MPI_BYTE, peer, 60, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                if (count != (int)n)
                    printf("a larger receive counted %d bytes, not %zu\n", count, n), errs++;
                errs += check(in, n, 7, "larger receive", n);
                if (in[n] != 0)
                    printf("a larger receive wrote past the message\n"), errs++;
                memset(in, 0, max);
                rc = MPI_Recv(in, 200000, MPI_BYTE, peer, 61, MPI_COMM_WORLD, &st);
                MPI_Error_class(rc, &cls);
                if (cls != MPI_ERR_TRUNCATE)
                    printf("a truncated receive gave class %d, not MPI_ERR_TRUNCATE\n", cls),
                        errs++;
                errs += check(in, 200000, 7, "truncated receive", n);
                if (in[200000] != 0)
                    printf("a truncated receive wrote past its buffer\n"), errs++;
                memset(in, 0, n);
                MPI_Recv(in, (int)n, MPI_BYTE, peer, 62, MPI_COMM_WORLD, &st);
                errs += check(in, n, 7, "Ssend", n);
                memset(in, 0, n);
                MPI_Recv(in, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 63, MPI_COMM_WORLD, &st);
                if (st.MPI_SOURCE != peer)
                    printf("ANY_SOURCE said %d, not %d\n", st.MPI_SOURCE, peer), errs++;
                errs += check(in, n, 7, "ANY_SOURCE", n);
            }
        }
        /* the sender computes outside MPI between its Isend and its Wait */
        {
            size_t n = 1 << 20;
            MPI_Request rq;
            if (lo) {
                fill(out, n, 9);
                MPI_Isend(out, (int)n, MPI_BYTE, peer, 70, MPI_COMM_WORLD, &rq);
                usleep(300000);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                memset(in, 0, n);
                MPI_Recv(in, (int)n, MPI_BYTE, peer, 70, MPI_COMM_WORLD, &st);
                errs += check(in, n, 9, "busy sender", n);
            }
        }
    }
    if (peer < size && (refused || denied)) {
        if ((p1 = pushed()) != pstart)
            printf("rank %d: canal_rndv_pushed moved %llu -> %llu, every write failing\n", rank,
                   pstart, p1),
                errs++;
        fall = push_failed() - fstart;
    }
    if (denied) {
        unsigned long long fsum = 0;
        MPI_Allreduce(&fall, &fsum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (fsum == 0 && rank == 0)
            printf("no receive read the part its sender failed to write\n"), errs++;
    }
    errs += mtest_errors; /* (mtest_counter's checks) */
    MPI_Allreduce(&errs, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(sum == 0 ? "No Errors\n" : "%d errors\n", sum);
    free(out);
    free(in);
    free(wout);
    free(win);
    MPI_Finalize();
    return 0;
}
