/*
 * abi_reqarrays.c -- arrays of requests and statuses through the standard
 * ABI, more of them than the binding converts on its stack (40): MPI_Waitall
 * and MPI_Startall (the request array is converted in the caller's memory),
 * MPI_Waitsome and MPI_Waitany (only the completed entries may change: the
 * other requests and the statuses past outcount keep the caller's bytes),
 * MPI_Testall that finds nothing complete (statuses untouched), a failed
 * request (MPI_ERR_IN_STATUS with each status's MPI_ERROR) and an invalid
 * handle in the array (MPI_ERR_REQUEST, statuses untouched). Each rank talks
 * to its neighbours on a ring (itself at one rank).
 */
#include <mpi.h>
#include <string.h>

#include "abi_util.h"

enum { N = 40, TAG_TRUNC = 998 };

static void fill(MPI_Status *st, int n)
{
    memset(st, 0x5a, sizeof *st * (size_t)n);
}

static int untouched(const MPI_Status *st, int n)
{
    MPI_Status ref;
    memset(&ref, 0x5a, sizeof ref);
    for (int i = 0; i < n; i++)
        if (memcmp(&st[i], &ref, sizeof ref) != 0)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, right, left, in[N], out[N], cnt, flag, outcount, idx[N], index, err, cls;
    MPI_Request req[2 * N], saved[2 * N];
    MPI_Status st[2 * N];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;

    /* Waitall over 80 requests: every status, every request null */
    for (int i = 0; i < N; i++) {
        out[i] = rank * 1000 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Isend(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD, &req[N + i]);
    CHECK(MPI_Waitall(2 * N, req, st) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        CHECK(req[i] == MPI_REQUEST_NULL && req[N + i] == MPI_REQUEST_NULL);
        CHECK(st[i].MPI_SOURCE == left && st[i].MPI_TAG == i && in[i] == left * 1000 + i);
        CHECK(MPI_Get_count(&st[i], MPI_INT, &cnt) == MPI_SUCCESS && cnt == 1);
    }

    /* Waitsome: the statuses past outcount and the requests not completed keep their bytes */
    for (int i = 0; i < N; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        MPI_Send(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD);
    for (int done = 0; done < N;) {
        fill(st, N);
        memcpy(saved, req, sizeof req[0] * N);
        CHECK(MPI_Waitsome(N, req, &outcount, idx, st) == MPI_SUCCESS);
        CHECK(outcount >= 1 && outcount <= N - done);
        if (outcount < 1 || outcount > N - done)
            break;
        for (int k = 0; k < outcount; k++) {
            CHECK(req[idx[k]] == MPI_REQUEST_NULL && st[k].MPI_TAG == idx[k] && st[k].MPI_SOURCE == left);
            saved[idx[k]] = MPI_REQUEST_NULL;
        }
        CHECK(untouched(&st[outcount], N - outcount));
        CHECK(memcmp(saved, req, sizeof req[0] * N) == 0);
        done += outcount;
    }
    CHECK(MPI_Waitsome(N, req, &outcount, idx, st) == MPI_SUCCESS && outcount == MPI_UNDEFINED);

    /* Waitany: one entry changes */
    for (int i = 0; i < N; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]);
    MPI_Send(&out[N - 1], 1, MPI_INT, right, N - 1, MPI_COMM_WORLD);
    memcpy(saved, req, sizeof req[0] * N);
    CHECK(MPI_Waitany(N, req, &index, &st[0]) == MPI_SUCCESS && index == N - 1);
    CHECK(st[0].MPI_TAG == N - 1 && req[N - 1] == MPI_REQUEST_NULL);
    CHECK(memcmp(saved, req, sizeof req[0] * (N - 1)) == 0);

    /* Testall that finds request 0 incomplete: no status written */
    fill(st, N);
    CHECK(MPI_Testall(N, req, &flag, st) == MPI_SUCCESS);
    CHECK(!flag && untouched(st, N));
    CHECK(memcmp(saved, req, sizeof req[0] * (N - 1)) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N - 1; i++)
        MPI_Send(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD);
    CHECK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);

    /* an invalid handle in the array: MPI_ERR_REQUEST, the statuses untouched */
    {
        MPI_Request bad[2] = {MPI_REQUEST_NULL, (MPI_Request)(void *)&in[0]};
        fill(st, 2);
        err = MPI_Waitall(2, bad, st);
        MPI_Error_class(err, &cls);
        CHECK(err != MPI_SUCCESS && cls == MPI_ERR_REQUEST && untouched(st, 2));
    }

    /* a failed request among good ones: MPI_ERR_IN_STATUS, each status's MPI_ERROR */
    {
        int two[2] = {1, 2}, one = 0;
        MPI_Irecv(&one, 1, MPI_INT, left, TAG_TRUNC, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&in[0], 1, MPI_INT, left, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(two, 2, MPI_INT, right, TAG_TRUNC, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&out[0], 1, MPI_INT, right, 0, MPI_COMM_WORLD, &req[3]);
        fill(st, 4);
        err = MPI_Waitall(4, req, st);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS);
        MPI_Error_class(st[0].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && st[0].MPI_SOURCE == left && st[0].MPI_TAG == TAG_TRUNC);
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS && st[1].MPI_TAG == 0 && st[1].MPI_SOURCE == left);
        CHECK(st[2].MPI_ERROR == MPI_SUCCESS && st[3].MPI_ERROR == MPI_SUCCESS);
        CHECK(req[1] == MPI_REQUEST_NULL && req[3] == MPI_REQUEST_NULL);
    }

    /* persistent requests: Startall twice over 80, the handles stay the same */
    for (int i = 0; i < N; i++) {
        MPI_Recv_init(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]);
        MPI_Send_init(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD, &req[N + i]);
    }
    memcpy(saved, req, sizeof req);
    for (int round = 0; round < 2; round++) {
        memset(in, 0, sizeof in);
        CHECK(MPI_Startall(2 * N, req) == MPI_SUCCESS);
        CHECK(memcmp(saved, req, sizeof req) == 0);
        CHECK(MPI_Waitall(2 * N, req, st) == MPI_SUCCESS);
        CHECK(memcmp(saved, req, sizeof req) == 0);
        for (int i = 0; i < N; i++)
            CHECK(in[i] == left * 1000 + i && st[i].MPI_TAG == i && st[i].MPI_SOURCE == left);
    }
    for (int i = 0; i < 2 * N; i++)
        MPI_Request_free(&req[i]);
    return abi_finish();
}
