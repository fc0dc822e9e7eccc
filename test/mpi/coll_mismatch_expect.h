/*
 * What the mismatched-collective tests (coll_kind_mismatch, coll_block_mismatch,
 * coll_nb_mismatch, coll_step_mismatch ...) check of an erroneous call's return
 * code: class MPI_ERR_OTHER and a message that names both calls (or says the
 * communicator is out of step) (with
 * COLL_MISMATCH_VERBOSE set, each rank prints it); and whether Canal's node
 * block serves blocking barriers in this run (not on sock, not with
 * CANAL_COLL_SHM=0); still_works(), run after each mismatch on
 * MPI_COMM_WORLD (coll_kind_mismatch, coll_nb_mismatch); and fresh(), the
 * communicator each pair runs on, kept until free_fresh() at the end; and
 * the tests' common start and end (mismatch_init, mismatch_finish: who makes
 * the odd call, two buffers of ints); exchange_pulled (whether CMA still
 * serves ranks 0 and 1) and halves_inter (an intercommunicator of the two
 * halves of MPI_COMM_WORLD). Include after mtest.h.
 */
#ifndef CANAL_COLL_MISMATCH_EXPECT_H
#define CANAL_COLL_MISMATCH_EXPECT_H

/* rc is the mismatch error of the call `what`: class MPI_ERR_OTHER, and a
 * message holding a and b (b NULL: a alone). */
static void expect_mismatch(int rc, const char *what, const char *a, const char *b)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = MPI_SUCCESS, len = 0;

    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
    }
    msg[len] = '\0';
    CHECK(cls == MPI_ERR_OTHER, "%s: rank %d got class %d, want MPI_ERR_OTHER (%s)", what,
          mtest_rank, cls, msg);
    if (cls != MPI_SUCCESS)
        CHECK(strstr(msg, a) != NULL && (b == NULL || strstr(msg, b) != NULL),
              "%s: rank %d's message does not say %s%s%s: %s", what, mtest_rank, a,
              b != NULL ? " and " : "", b != NULL ? b : "", msg);
    if (getenv("COLL_MISMATCH_VERBOSE") || getenv("COLL_KIND_MISMATCH_VERBOSE"))
        printf("[%d] %s: %s\n", mtest_rank, what, msg);
}

/* rc of a pair of a call on the block against one by messages: the
 * mismatch naming both calls or, where the notice of a rank that found
 * the mismatch first (and so stepped the communicator out, of this very
 * call) came before this rank saw it itself, the out-of-step error. */
static void __attribute__((unused))
expect_block_pair(int rc, const char *what, const char *a, const char *b)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    msg[len] = '\0';
    if (strstr(msg, "out of step") != NULL)
        expect_mismatch(rc, what, "out of step", NULL);
    else
        expect_mismatch(rc, what, a, b);
}

/* MPI_COMM_WORLD still works after the mismatch called what: a barrier and
 * an allreduce. */
static void __attribute__((unused)) still_works(const char *what)
{
    int one = 1, sum = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == mtest_size, "after %s: allreduce gave %d, want %d", what, sum, mtest_size);
}

static int __attribute__((unused)) block_used(void)
{
    const char *ch = getenv("CANAL_CHANNEL"), *shm = getenv("CANAL_COLL_SHM");
    return !(ch != NULL && strcmp(ch, "sock") == 0) && !(shm != NULL && strcmp(shm, "0") == 0);
}

/* The communicators of fresh(): freed only at the end by free_fresh(), as
 * a new communicator may take a freed one's context, where the mismatched
 * calls' messages still wait. */
static MPI_Comm fresh_comms[16];
static int fresh_n;

/* A duplicate of MPI_COMM_WORLD whose node block is made (at the third
 * barrier), for one mismatched pair. */
static MPI_Comm __attribute__((unused)) fresh(void)
{
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < 3; i++)
        OK(MPI_Barrier(c));
    if (fresh_n < 16)
        fresh_comms[fresh_n++] = c;
    return c;
}

static void __attribute__((unused)) free_fresh(void)
{
    for (int i = 0; i < fresh_n; i++)
        MPI_Comm_free(&fresh_comms[i]);
    fresh_n = 0;
}

/* The rank that makes the odd call: rank 0, or with the argument "split"
 * the even ranks. a, b: the buffers of the calls (mismatch_init). */
static int odd_one, *a, *b;

/* Start the test: MPI, odd_one, a and b of `ints` zeroed ints each (times
 * the number of ranks when per_rank). 0 on a single rank (nothing to
 * mismatch: the test has finished), else 1. */
static int __attribute__((unused)) mismatch_init(int *argc, char ***argv, size_t ints,
                                                 int per_rank)
{
    mtest_init(argc, argv);
    odd_one = *argc > 1 && strcmp((*argv)[1], "split") == 0 ? mtest_rank % 2 == 0
                                                             : mtest_rank == 0;
    if (mtest_size < 2) {
        mtest_finish();
        return 0;
    }
    if (per_rank)
        ints *= (size_t)mtest_size;
    a = calloc(ints, sizeof(int));
    b = calloc(ints, sizeof(int));
    CHECK(a != NULL && b != NULL, "no memory for two buffers of %zu ints", ints);
    return 1;
}

/* End the test: the communicators of fresh(), the buffers, MPI. */
static void __attribute__((unused)) mismatch_finish(void)
{
    free_fresh();
    free(a);
    free(b);
    mtest_finish();
}

/* A 4 MiB exchange between ranks 0 and 1 of MPI_COMM_WORLD (static
 * buffers, no malloc; the other ranks do nothing): whether this rank's
 * receive was pulled by CMA (canal_rndv_pulled), so that a test can check
 * that a mismatch did not turn CMA to the peer off (coll_drop_mismatch,
 * coll_withdraw_race). */
static int __attribute__((unused)) exchange_pulled(void)
{
    enum { BIG = 4 << 20 };
    static char out[BIG], in[BIG];
    unsigned long long before = mtest_counter("canal_rndv_pulled");
    int peer = 1 - mtest_rank;

    if (mtest_rank > 1)
        return 0;
    memset(out, mtest_rank + 7, sizeof out);
    OK(MPI_Sendrecv(out, BIG, MPI_BYTE, peer, 0, in, BIG, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK(in[0] == peer + 7 && in[BIG - 1] == peer + 7, "exchange: got %d %d, want %d", in[0],
          in[BIG - 1], peer + 7);
    return mtest_counter("canal_rndv_pulled") > before;
}

/* The intercommunicator of MPI_COMM_WORLD's two halves (group 0: the lower
 * ranks), under MPI_ERRORS_RETURN; *local is this rank's half. */
static MPI_Comm __attribute__((unused)) halves_inter(MPI_Comm *local)
{
    MPI_Comm inter;
    int color = mtest_rank < mtest_size / 2 ? 0 : 1;
    OK(MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, local));
    OK(MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, color == 0 ? mtest_size / 2 : 0, 7,
                            &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    return inter;
}

#endif
