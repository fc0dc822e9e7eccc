/* Small messages packed in the shm ring: every rank but 0 posts a window of
 * many tiny nonblocking sends of mixed sizes (0 to 200 bytes, every 97th
 * one 20000 bytes so that it goes by rendezvous between them, every 13th
 * one synchronous) with a few tags, before rank 0 has posted anything (an
 * unexpected flood of records of every length, crossing the ring's end many
 * times). Rank 0 then receives with MPI_ANY_SOURCE and MPI_ANY_TAG in
 * batches of nonblocking receives: every message must arrive intact, with
 * its length, and in order per sender and tag. A second round does the
 * same with the receives posted first. */
#include "mtest.h"

enum { N = 4000, TAGS = 3, BIG = 20000, BATCH = 64 };

static size_t len_of(int i) { return i % 97 == 96 ? BIG : (size_t)(i * 7 % 201); }

static unsigned char byte_of(int src, int i, size_t k) { return (unsigned char)(src * 31 + i * 7 + k); }

/* Posts all N sends (each from a buffer of its own), then the barrier that
 * tells rank 0 they are posted when `barrier_after`, then waits for them. */
static void send_all(int rank, MPI_Request *rq, int barrier_after)
{
    unsigned char **bufs = malloc(sizeof(*bufs) * N);

    for (int i = 0; i < N; i++) {
        size_t len = len_of(i);
        bufs[i] = malloc(len ? len : 1);
        for (size_t k = 0; k < len; k++)
            bufs[i][k] = byte_of(rank, i, k);
        if (i % 13 == 12)
            MPI_Issend(bufs[i], (int)len, MPI_BYTE, 0, i % TAGS, MPI_COMM_WORLD, &rq[i]);
        else
            MPI_Isend(bufs[i], (int)len, MPI_BYTE, 0, i % TAGS, MPI_COMM_WORLD, &rq[i]);
    }
    if (barrier_after)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++)
        free(bufs[i]);
    free(bufs);
}

static void recv_all(int size, unsigned char (*bufs)[BIG], MPI_Request *rq, int posted_first,
                     int round)
{
    int total = N * (size - 1), got = 0;
    int *next = calloc((size_t)size * TAGS, sizeof(int));
    MPI_Status st[BATCH];

    if (!posted_first) /* every sender is done posting: all of it is unexpected or queued */
        MPI_Barrier(MPI_COMM_WORLD);
    while (got < total) {
        int n = total - got < BATCH ? total - got : BATCH;
        for (int j = 0; j < n; j++)
            MPI_Irecv(bufs[j], BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[j]);
        if (posted_first && got == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(n, rq, st);
        for (int j = 0; j < n; j++) {
            int src = st[j].MPI_SOURCE, tag = st[j].MPI_TAG, count, i;
            CHECK(src > 0 && src < size && tag >= 0 && tag < TAGS, "round %d: source %d tag %d",
                  round, src, tag);
            /* the i-th message of (src, tag) is number tag + TAGS * i */
            i = tag + TAGS * next[src * TAGS + tag]++;
            MPI_Get_count(&st[j], MPI_BYTE, &count);
            CHECK((size_t)count == len_of(i), "round %d: from %d tag %d: %d bytes, expected %zu",
                  round, src, tag, count, len_of(i));
            for (int k = 0; k < count; k++)
                if (bufs[j][k] != byte_of(src, i, (size_t)k)) {
                    CHECK(0, "round %d: from %d message %d: byte %d wrong", round, src, i, k);
                    break;
                }
        }
        got += n;
    }
    free(next);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2; round++) {
        if (rank != 0) {
            MPI_Request *rq = malloc(sizeof(MPI_Request) * N);
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has posted its first batch */
            send_all(rank, rq, round == 0);
            free(rq);
        } else {
            unsigned char (*bufs)[BIG] = malloc(sizeof(*bufs) * BATCH);
            MPI_Request rq[BATCH];
            recv_all(size, bufs, rq, round == 1, round);
            free(bufs);
        }
    }
    /* (rank 0's any-tag receives must not meet mtest_finish's message) */
    MPI_Barrier(MPI_COMM_WORLD);
    return mtest_finish();
}
