/*
 * Partitioned communication between ranks 0 (sender) and 1 (receiver):
 * several rounds with partitions readied in a shuffled order, by range and
 * by list; small (eager) and large (rendezvous) partitions; MPI_Parrived;
 * a derived datatype; MPI_PROC_NULL; and bad input with MPI_ERRORS_RETURN
 * (MPI_Pready on an inactive request, out-of-range partition, twice the
 * same partition, MPI_Parrived on a send request, ANY_SOURCE).
 */
#include "mtest.h"

static void shuffle(int *a, int n, unsigned *seed)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rand_r(seed) % (unsigned)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static void run(int rank, int parts, int count, int rounds, int mode)
{
    int n = parts * count, order[4096];
    double *buf = malloc(sizeof(double) * (size_t)n);
    MPI_Request r;
    unsigned seed = 17u + (unsigned)parts;

    if (rank == 0)
        MPI_Psend_init(buf, parts, count, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    else
        MPI_Precv_init(buf, parts, count, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n; i++)
            buf[i] = rank == 0 ? round * 1e6 + i : -1;
        MPI_Start(&r);
        if (rank == 0) {
            for (int p = 0; p < parts; p++)
                order[p] = p;
            shuffle(order, parts, &seed);
            if (mode == 0) {
                for (int p = 0; p < parts; p++)
                    CHECK(MPI_Pready(order[p], r) == MPI_SUCCESS, "pready %d", order[p]);
            } else if (mode == 1) {
                MPI_Pready_range(parts / 2, parts - 1, r);
                if (parts / 2 > 0)
                    MPI_Pready_range(0, parts / 2 - 1, r);
            } else {
                MPI_Pready_list(parts, order, r);
            }
        } else {
            int left = parts, flag;
            char *seen = calloc((size_t)parts, 1);
            while (left > 0) {
                for (int p = 0; p < parts; p++) {
                    if (seen[p])
                        continue;
                    MPI_Parrived(r, p, &flag);
                    if (flag) {
                        seen[p] = 1;
                        left--;
                        CHECK(buf[p * count] == round * 1e6 + p * count,
                              "partition %d arrived with %g", p, buf[p * count]);
                    }
                }
            }
            free(seen);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 1)
            for (int i = 0; i < n; i++)
                if (buf[i] != round * 1e6 + i) {
                    CHECK(0, "parts %d count %d round %d: buf[%d] = %g", parts, count, round, i,
                          buf[i]);
                    break;
                }
    }
    MPI_Request_free(&r);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, err, cls, flag;
    MPI_Request r;
    int buf[16];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    run(rank, 8, 100, 4, 0);
    run(rank, 1, 10, 2, 0);
    run(rank, 16, 1, 3, 1);
    run(rank, 4, 50000, 3, 2); /* 400 KB partitions: rendezvous */
    run(rank, 100, 3, 2, 2);

    /* a vector type: every other int */
    {
        MPI_Datatype v;
        int data[32];
        MPI_Type_vector(2, 1, 2, MPI_INT, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 32; i++)
            data[i] = rank == 0 ? i : -1;
        if (rank == 0)
            MPI_Psend_init(data, 4, 2, v, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        else
            MPI_Precv_init(data, 4, 2, v, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        if (rank == 0)
            MPI_Pready_range(0, 3, r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
        MPI_Type_free(&v);
        if (rank == 1) {
            int want[32];
            for (int i = 0; i < 32; i++)
                want[i] = -1;
            for (int k = 0; k < 8; k++) /* element k: ints 3k and 3k+2 */
                want[3 * k] = 3 * k, want[3 * k + 2] = 3 * k + 2;
            for (int i = 0; i < 32; i++)
                CHECK(data[i] == want[i], "vector data[%d] = %d, want %d", i, data[i], want[i]);
        }
    }

    /* different partitioning on the two sides (only the totals agree):
     * 3 sender partitions of 8 ints, 4 receiver partitions of 6 ints into a
     * vector type (every other int), readied in reverse order; and a total
     * that differs is MPI_ERR_TRUNCATE (MPICH's part/start_pready -spart -rpart) */
    {
        MPI_Datatype v;
        int data[96], ok = 1;
        MPI_Type_vector(6, 1, 2, MPI_INT, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 96; i++)
            data[i] = rank == 0 ? i * 7 : -1;
        if (rank == 0)
            MPI_Psend_init(data, 3, 8, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        else
            MPI_Precv_init(data, 4, 1, v, 0, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int round = 0; round < 2; round++) {
            MPI_Start(&r);
            if (rank == 0)
                for (int p = 2; p >= 0; p--)
                    MPI_Pready(p, r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (rank == 1) {
                for (int q = 0; q < 4; q++) {
                    MPI_Parrived(r, q, &flag);
                    ok &= flag;
                }
                for (int k = 0; k < 24; k++) /* element k lands at int 2k (stride 2, extent 11 ints) */
                    ok &= data[(k / 6) * 11 + (k % 6) * 2] == k * 7;
                CHECK(ok, "repartitioned data wrong in round %d", round);
                for (int i = 0; i < 96; i++)
                    data[i] = -1;
            }
        }
        MPI_Request_free(&r);
        MPI_Type_free(&v);
        if (rank == 0)
            MPI_Psend_init(data, 2, 8, MPI_INT, 1, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        else
            MPI_Precv_init(data, 2, 7, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        if (rank == 0)
            MPI_Pready_range(0, 1, r);
        err = MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 1)
            CHECK(mtest_error_class(err) == MPI_ERR_TRUNCATE, "different totals: class %d",
                  mtest_error_class(err));
        MPI_Request_free(&r);
    }

    /* bad input */
    if (rank == 0) {
        MPI_Psend_init(buf, 4, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        err = MPI_Pready(0, r);
        CHECK(mtest_error_class(err) == MPI_ERR_REQUEST, "pready inactive: class %d",
              mtest_error_class(err));
        MPI_Start(&r);
        err = MPI_Pready(4, r);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "partition 4: %d", mtest_error_class(err));
        CHECK(MPI_Pready(1, r) == MPI_SUCCESS, "pready 1");
        err = MPI_Pready(1, r);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "twice: %d", mtest_error_class(err));
        err = MPI_Parrived(r, 0, &flag);
        CHECK(mtest_error_class(err) == MPI_ERR_REQUEST, "parrived on send: %d",
              mtest_error_class(err));
        err = MPI_Pready_range(2, 1, r);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "range: %d", mtest_error_class(err));
        MPI_Pready_range(2, 3, r);
        MPI_Pready(0, r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
        err = MPI_Precv_init(buf, 4, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "any source: %d", mtest_error_class(err));
        err = MPI_Psend_init(buf, 0, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "0 partitions: %d", mtest_error_class(err));
        err = MPI_Pready(0, MPI_REQUEST_NULL);
        CHECK(mtest_error_class(err) == MPI_ERR_REQUEST, "null request: %d",
              mtest_error_class(err));
    }
    return mtest_finish();
}
