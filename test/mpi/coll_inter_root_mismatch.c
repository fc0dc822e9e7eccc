/*
 * The two groups of an intercommunicator disagree about the root of an
 * MPI_Bcast (MPI 4.0 section 6.2.2: MPI_ROOT at the root, MPI_PROC_NULL
 * in the rest of its group, the root's rank in the other group). The
 * halves of MPI_COMM_WORLD make the intercommunicator; group 0's rank 0 is
 * the root. args=named (4 ranks): group 1 names rank 1 of group 0 as the
 * root: its rank 0 gets the root's message from rank 0, which its call
 * never receives from, and fails with the mismatch saying the groups
 * disagree about the root; the notice stops group 1's other ranks and
 * (1 MiB, whose rendezvous send waits) the root. args=tworoots: group 1's
 * rank 0 passes MPI_ROOT too, 1 MiB: each root gets the other's message
 * and fails so. On 08ed5bb both hung (group 1's rank 0 waited for rank 1;
 * the two roots' sends waited for receives that never come), and a
 * rendezvous message taken when the intercommunicator was freed
 * (coll_watch_leftovers) waited for its sender, which could be in
 * MPI_Finalize's fence by then: now it is discarded without moving its
 * bytes (adi_mdiscard; its sender gets a FIN). Then MPI_COMM_WORLD works,
 * the intercommunicator is freed, and a correct MPI_Bcast runs on a new
 * one. The runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    int tworoots = argc > 1 && strcmp(argv[1], "tworoots") == 0;
    int n = argc > 2 ? atoi(argv[2]) : 1 << 20;
    MPI_Comm local, inter;
    int lr, color, root, rc;
    char *buf, msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    mtest_init(&argc, &argv);
    if (mtest_size < (tworoots ? 2 : 4)) {
        mtest_skipped("needs more ranks");
        return mtest_finish();
    }
    color = mtest_rank < mtest_size / 2 ? 0 : 1;
    inter = halves_inter(&local);
    MPI_Comm_rank(local, &lr);
    buf = calloc((size_t)n, 1);
    if (color == 0)
        root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    else if (tworoots)
        root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    else
        root = 1; /* (group 0's root is its rank 0) */
    rc = MPI_Bcast(buf, n, MPI_BYTE, root, inter);
    msg[0] = '\0';
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
    }
    if (getenv("COLL_MISMATCH_VERBOSE"))
        printf("[%d] rc %d %s\n", mtest_rank, rc, msg);
    if (root != MPI_PROC_NULL && (color == 1 || tworoots))
        /* (the ranks that see the other group's message, or take the notice) */
        CHECK(rc != MPI_SUCCESS && strstr(msg, "disagree about the root") != NULL,
              "rank %d (root %d): MPI_Bcast returned %d: %s", mtest_rank, root, rc, msg);
    if (color == 1 && !tworoots)
        CHECK(rc != MPI_SUCCESS, "rank %d: MPI_Bcast naming the wrong root succeeded",
              mtest_rank);
    still_works("the intercommunicator root mismatch");
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
    still_works("the free");
    /* a correct one afterwards */
    inter = halves_inter(&local);
    MPI_Comm_rank(local, &lr);
    memset(buf, color == 0 ? 0x33 : 0, (size_t)n);
    OK(MPI_Bcast(buf, n, MPI_BYTE, color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                 inter));
    if (color == 1)
        CHECK(buf[0] == 0x33 && buf[n - 1] == 0x33, "rank %d: MPI_Bcast gave %#x, want 0x33",
              mtest_rank, (unsigned char)buf[0]);
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
    free(buf);
    return mtest_finish();
}
