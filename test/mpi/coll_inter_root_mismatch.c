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
 * bytes (adi_mdiscard; its sender gets a FIN). args=remoteroots R: no
 * rank passes MPI_ROOT, each group names rank R of the other as the root:
 * no message of the call is sent, each group's rank 0 waits for the other
 * group's rank R, pokes it after a second, and rank R, whose call sends
 * nothing across, fails with the mismatch; its notice stops the rest (R 0:
 * the rank poked waits for the same message; R 1: it waits in its group's
 * local part). args=reduce (4 ranks): an MPI_Reduce of 1 MiB whose root is
 * group 0's rank 1 while group 1 names rank 0: group 1's rank 0 sends the
 * result to group 0's rank 0, which passed MPI_PROC_NULL and left; its
 * rendezvous send waits, and the root's poke reaches it: its call does not
 * send to the root, so it fails so, and its notice stops the root. On
 * b37dee7 all hung. args=reduce 1024: the same, 1 KiB: the sender's
 * message goes eagerly and it returns, keeping a record of the call (its
 * part across was one send, to group 0's rank 0: coll_sched_set_sent_only);
 * the root pokes it after a second, and it answers from the record at its
 * next look (MPI_Barrier on MPI_COMM_WORLD): the root fails (hung on
 * 5daf538). args=allnull: group 0 all pass MPI_PROC_NULL (no
 * MPI_ROOT), group 1 names rank 0: group 0 returns at once keeping a
 * record of the call (coll_sched_set_absent); group 1's rank 0 waits,
 * pokes group 0's rank 0 after a second, and that rank, waiting in
 * MPI_Barrier on MPI_COMM_WORLD, answers from its record: group 1 fails
 * (MPI_ERR_OTHER) saying the groups disagree about the root (hung on
 * bd7ae39). args=nullgroup: group 0's rank 0 passes MPI_ROOT (1 MiB: a
 * rendezvous), group 1 all pass MPI_PROC_NULL and return at once keeping
 * the record: the root's send waits for a CTS; after a second it pokes
 * its receiver (a send across that waits pokes too), which answers from
 * its record at its next look (MPI_Barrier on MPI_COMM_WORLD): the root
 * fails (MPI_ERR_OTHER) saying the groups disagree about the root (hung
 * on 5daf538: a waiting send poked nobody). args=nullgroup 1024: the
 * same, eager: the root's send completes and every rank returns
 * MPI_SUCCESS (no rank can tell at the call, doc/design.md); the receiver
 * of the root's message warns when it frees the intercommunicator. Then MPI_COMM_WORLD works,
 * the intercommunicator is freed, and a correct MPI_Bcast runs on a new
 * one. The runner's timeout turns a hang into a failure.
 */
#include "mtest.h"
#include "coll_mismatch_expect.h"

int main(int argc, char **argv)
{
    int tworoots = argc > 1 && strcmp(argv[1], "tworoots") == 0;
    int remote = argc > 1 && strcmp(argv[1], "remoteroots") == 0;
    int n = argc > 2 && !remote ? atoi(argv[2]) : 1 << 20;
    int named = remote && argc > 2 ? atoi(argv[2]) : 0;
    int reduce = argc > 1 && strcmp(argv[1], "reduce") == 0;
    int allnull = argc > 1 && strcmp(argv[1], "allnull") == 0;
    int nullgroup = argc > 1 && strcmp(argv[1], "nullgroup") == 0;
    MPI_Comm local, inter;
    int lr, color, root, rc;
    char *buf, msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    mtest_init(&argc, &argv);
    if (mtest_size < (tworoots || remote ? 2 : 4)) {
        mtest_skipped("needs more ranks");
        return mtest_finish();
    }
    color = mtest_rank < mtest_size / 2 ? 0 : 1;
    inter = halves_inter(&local);
    MPI_Comm_rank(local, &lr);
    buf = calloc((size_t)n, 1);
    if (remote)
        root = named; /* (no MPI_ROOT anywhere) */
    else if (allnull)
        root = color == 0 ? MPI_PROC_NULL : 0; /* (group 0 has no MPI_ROOT) */
    else if (nullgroup) /* (group 1 names no root) */
        root = color == 0 && lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    else if (reduce)
        root = color == 1 ? 0 : lr == 1 ? MPI_ROOT : MPI_PROC_NULL;
    else if (color == 0)
        root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    else if (tworoots)
        root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    else
        root = 1; /* (group 0's root is its rank 0) */
    if (reduce)
        rc = MPI_Reduce(buf, buf, n / 4, MPI_INT, MPI_SUM, root, inter);
    else
        rc = MPI_Bcast(buf, n, MPI_BYTE, root, inter);
    msg[0] = '\0';
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        msg[len] = '\0';
    }
    if (getenv("COLL_MISMATCH_VERBOSE"))
        printf("[%d] rc %d %s\n", mtest_rank, rc, msg);
    if (allnull) {
        /* (group 1 waits for group 0's rank 0, which passed MPI_PROC_NULL
         * and returned; it answers the poke at its next look) */
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (color == 1)
            CHECK(cls == MPI_ERR_OTHER && strstr(msg, "disagree about the root") != NULL &&
                      strstr(msg, "MPI_Bcast") != NULL,
                  "rank %d (root 0, group 0 all MPI_PROC_NULL): MPI_Bcast returned %d: %s",
                  mtest_rank, rc, msg);
        else
            CHECK(rc == MPI_SUCCESS, "rank %d (MPI_PROC_NULL): MPI_Bcast returned %d: %s",
                  mtest_rank, rc, msg);
    } else if (nullgroup) {
        /* (the root's send waits for group 1's rank 0, which passed
         * MPI_PROC_NULL and returned; it answers the poke at its next look) */
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (root == MPI_ROOT && n <= 4096)
            /* (eager: the send completes and the root leaves; nobody can
             * tell at the call, the receiver warns when it frees the
             * intercommunicator: doc/design.md) */
            CHECK(rc == MPI_SUCCESS, "rank %d (MPI_ROOT, eager, the other group all "
                  "MPI_PROC_NULL): MPI_Bcast returned %d: %s", mtest_rank, rc, msg);
        else if (root == MPI_ROOT)
            CHECK(cls == MPI_ERR_OTHER && strstr(msg, "disagree about the root") != NULL &&
                      strstr(msg, "MPI_Bcast") != NULL,
                  "rank %d (MPI_ROOT, the other group all MPI_PROC_NULL): MPI_Bcast returned "
                  "%d: %s",
                  mtest_rank, rc, msg);
        else
            CHECK(rc == MPI_SUCCESS, "rank %d (MPI_PROC_NULL): MPI_Bcast returned %d: %s",
                  mtest_rank, rc, msg);
    } else if (reduce && n <= 4096 && color == 1 && lr == 0) {
        /* (small: the sender's message went eagerly, and it left) */
        CHECK(rc == MPI_SUCCESS, "rank %d (MPI_Reduce of %d bytes, sent): returned %d: %s",
              mtest_rank, n, rc, msg);
    } else if (reduce) {
        /* (the root, and the sender the root waits for) */
        if (root == MPI_ROOT || (color == 1 && lr == 0))
            CHECK(rc != MPI_SUCCESS && strstr(msg, "disagree about the root") != NULL,
                  "rank %d (MPI_Reduce, root %d): returned %d: %s", mtest_rank, root, rc, msg);
    } else if (root != MPI_PROC_NULL && (color == 1 || tworoots))
        /* (the ranks that see the other group's message, or take the notice) */
        CHECK(rc != MPI_SUCCESS && strstr(msg, "disagree about the root") != NULL,
              "rank %d (root %d): MPI_Bcast returned %d: %s", mtest_rank, root, rc, msg);
    if (color == 1 && !tworoots && !reduce && !allnull && !nullgroup)
        CHECK(rc != MPI_SUCCESS, "rank %d: MPI_Bcast naming the wrong root succeeded",
              mtest_rank);
    if (remote) /* (every rank waits: the finder's notice, or its own error) */
        CHECK(rc != MPI_SUCCESS && strstr(msg, "disagree about the root") != NULL,
              "rank %d (both groups name a remote root %d): MPI_Bcast returned %d: %s",
              mtest_rank, named, rc, msg);
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
