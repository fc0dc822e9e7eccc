/*
 * Windows of mid-size messages, as osu_bw and halo exchanges send them: a
 * receiver that matches several rendezvous messages in one poll reads them
 * from each sender together (canal_rndv_batched counts them). Rank 0
 * receives from every other rank windows of W messages (W = 1, 2, 7, 64,
 * 100: more than one poll gathers) at sizes on both sides of the eager
 * limit and of the batch's 64 KiB, into
 * - contiguous buffers posted before the senders start,
 * - the same posted late (the rendezvous requests wait unexpected, and
 *   MPI_Irecv matches them outside a poll),
 * - a vector type (not read in a batch) every third message,
 * - MPI_ANY_SOURCE;
 * every byte is checked. Then, where canal_rndv_pulled moved (the receiver
 * read from the senders' memory at all: CMA works), canal_rndv_batched must
 * have moved too; args=none says it must not (CANAL_SHM_CMA=no, sock).
 * args=mt runs it under MPI_THREAD_MULTIPLE (the device lock held through
 * the poll that gathers the reads, as mpi4py runs).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { WMAX = 100, TAG = 5, TAG_GO = 6 };
static const int sizes[] = {4097, 8192, 20000, 65536, 65537};
static const int wins[] = {1, 2, 7, 64, 100};
enum { NSIZES = sizeof sizes / sizeof sizes[0], NWINS = sizeof wins / sizeof wins[0] };

static unsigned char pat(int src, int msg, int i) { return (unsigned char)(src * 37 + msg * 11 + i); }

/* MPI_T counters, started once (rank 0) */
static MPI_T_pvar_session ses;
static MPI_T_pvar_handle h_pulled, h_batched;

static MPI_T_pvar_handle pvar_start(const char *name)
{
    MPI_T_pvar_handle h;
    int idx = -1, count = 0;

    OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
    OK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h, &count));
    OK(MPI_T_pvar_start(ses, h));
    return h;
}

static unsigned long long pvar_read(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;

    OK(MPI_T_pvar_read(ses, h, &v));
    return v;
}

/* rank 0: one window of w messages of n bytes from each sender; mode 0
 * posted first, 1 posted after the senders sent, 2 from MPI_ANY_SOURCE */
static void recv_window(MPI_Comm comm, unsigned char *buf, int n, int w, int mode, int round)
{
    int senders = mtest_size - 1, total = senders * w;
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)total);
    MPI_Status *sts = malloc(sizeof *sts * (size_t)total);
    MPI_Datatype vec;
    int *msgno = calloc((size_t)mtest_size, sizeof(int));

    /* every other byte of 2n: n bytes, not contiguous */
    OK(MPI_Type_vector(n, 1, 2, MPI_BYTE, &vec));
    OK(MPI_Type_commit(&vec));
    if (mode == 1)
        for (int s = 1; s < mtest_size; s++) /* go, then the RTSs wait unexpected */
            OK(MPI_Send(&round, 1, MPI_INT, s, TAG_GO, comm));
    if (mode == 1) {
        /* let their RTSs arrive first: the receives then match in MPI_Irecv */
        OK(MPI_Probe(mtest_size - 1, TAG, comm, MPI_STATUS_IGNORE));
    }
    for (int s = 1, k = 0; s < mtest_size; s++)
        for (int m = 0; m < w; m++, k++) {
            unsigned char *b = buf + (size_t)k * 2 * (size_t)n;
            int src = mode == 2 ? MPI_ANY_SOURCE : s;
            memset(b, 0, 2 * (size_t)n);
            if (mode != 2 && m % 3 == 2)
                OK(MPI_Irecv(b, 1, vec, src, TAG, comm, &reqs[k]));
            else
                OK(MPI_Irecv(b, n, MPI_BYTE, src, TAG, comm, &reqs[k]));
        }
    if (mode != 1)
        for (int s = 1; s < mtest_size; s++)
            OK(MPI_Send(&round, 1, MPI_INT, s, TAG_GO, comm));
    OK(MPI_Waitall(total, reqs, sts));
    for (int s = 1, k = 0; s < mtest_size; s++)
        for (int m = 0; m < w; m++, k++) {
            unsigned char *b = buf + (size_t)k * 2 * (size_t)n;
            int from = sts[k].MPI_SOURCE, got = -1, stride = (mode != 2 && m % 3 == 2) ? 2 : 1;
            int msg = mode == 2 ? msgno[from]++ : m; /* (one sender's messages arrive in order) */
            MPI_Get_count(&sts[k], MPI_BYTE, &got);
            CHECK(from == s || mode == 2, "window %d x %d B: message %d from %d, expected %d", w,
                  n, k, from, s);
            CHECK(got == n, "window %d x %d B mode %d: count %d", w, n, mode, got);
            for (int i = 0; i < n; i++)
                if (b[(size_t)i * stride] != pat(from, msg, i)) {
                    CHECK(0, "window %d x %d B mode %d: message %d of %d, byte %d is %u, expected %u",
                          w, n, mode, msg, from, i, b[(size_t)i * stride], pat(from, msg, i));
                    break;
                }
        }
    OK(MPI_Type_free(&vec));
    free(msgno);
    free(sts);
    free(reqs);
}

static void send_window(MPI_Comm comm, unsigned char *buf, int n, int w)
{
    MPI_Request reqs[WMAX];
    int go;

    for (int m = 0; m < w; m++)
        for (int i = 0; i < n; i++)
            buf[(size_t)m * (size_t)n + (size_t)i] = pat(mtest_rank, m, i);
    OK(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, comm, MPI_STATUS_IGNORE));
    for (int m = 0; m < w; m++)
        OK(MPI_Isend(buf + (size_t)m * (size_t)n, n, MPI_BYTE, 0, TAG, comm, &reqs[m]));
    OK(MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    int none = argc > 1 && strcmp(argv[1], "none") == 0, prov, round = 0;
    int mt = argc > 1 && strcmp(argv[1], "mt") == 0;
    size_t big;
    unsigned long long pulled0 = 0, batched0 = 0;
    unsigned char *buf;
    MPI_Comm comm;

    if (mt)
        mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    else
        mtest_init(&argc, &argv);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    big = (size_t)WMAX * 2 * 65537 * (size_t)(mtest_size > 1 ? mtest_size - 1 : 1);
    buf = malloc(big);
    CHECK(buf != NULL, "malloc of %zu bytes", big);
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (mtest_rank == 0) {
        OK(MPI_T_pvar_session_create(&ses));
        h_pulled = pvar_start("canal_rndv_pulled");
        h_batched = pvar_start("canal_rndv_batched");
        pulled0 = pvar_read(h_pulled);
        batched0 = pvar_read(h_batched);
    }
    for (int si = 0; si < NSIZES; si++)
        for (int wi = 0; wi < NWINS; wi++)
            for (int mode = 0; mode < 3; mode++, round++) {
                if (mtest_size < 2)
                    continue;
                if (mtest_rank == 0)
                    recv_window(comm, buf, sizes[si], wins[wi], mode, round);
                else
                    send_window(comm, buf, sizes[si], wins[wi]);
            }
    if (mtest_rank == 0 && mtest_size > 1) {
        unsigned long long pulled = pvar_read(h_pulled) - pulled0;
        unsigned long long batched = pvar_read(h_batched) - batched0;
        if (none)
            CHECK(batched == 0, "%llu messages read in batches, expected none", batched);
        else if (pulled > 0)
            CHECK(batched > 0 && batched <= pulled,
                  "%llu messages read in batches of %llu pulled", batched, pulled);
    }
    if (mtest_rank == 0) {
        OK(MPI_T_pvar_handle_free(ses, &h_pulled));
        OK(MPI_T_pvar_handle_free(ses, &h_batched));
        OK(MPI_T_pvar_session_free(&ses));
    }
    free(buf);
    OK(MPI_Comm_free(&comm));
    OK(MPI_T_finalize());
    return mtest_finish();
}
