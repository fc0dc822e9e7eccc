/*
 * abi_reqsmall.c -- small arrays of requests and statuses through the
 * standard ABI, the path where the core completes the caller's 8-byte
 * requests and 32-byte statuses in place (MPI_Waitall, MPI_Testall):
 * MPI_REQUEST_NULL entries and inactive persistent requests among active
 * ones (empty statuses with the standard's MPI_ANY_SOURCE and MPI_ANY_TAG,
 * the persistent handle kept), MPI_STATUSES_IGNORE, a Testall that finds
 * nothing complete (requests and statuses keep the caller's bytes), a failed
 * request (MPI_ERR_IN_STATUS, the standard's error code in its status), and
 * entries that are no request (a predefined handle of another kind, a
 * pointer): MPI_ERR_REQUEST, nothing written, and the message names the
 * caller's value. Also MPI_Waitsome and MPI_Testany on arrays of nulls.
 * Each rank talks to its neighbours on a ring (itself at one rank).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "abi_util.h"

enum { TAG_TRUNC = 997 };

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

static int is_empty(MPI_Status *st)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_INT, &cnt);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
           st->MPI_ERROR == MPI_SUCCESS && cnt == 0;
}

/* MPI_Waitall on an invalid entry: MPI_ERR_REQUEST, nothing written, the message names it */
static void bad_entry(MPI_Request bad, const char *value)
{
    MPI_Request a[2] = {MPI_REQUEST_NULL, bad};
    MPI_Status st[2];
    char msg[MPI_MAX_ERROR_STRING];
    int err, cls, len;

    fill(st, 2);
    err = MPI_Waitall(2, a, st);
    MPI_Error_class(err, &cls);
    CHECK(err != MPI_SUCCESS && cls == MPI_ERR_REQUEST && untouched(st, 2));
    CHECK(a[0] == MPI_REQUEST_NULL && a[1] == bad);
    MPI_Error_string(err, msg, &len);
    if (strstr(msg, value) == NULL) {
        fprintf(stderr, "message \"%s\" does not name %s\n", msg, value);
        CHECK(0);
    }
}

int main(int argc, char **argv)
{
    int rank, size, right, left, in[4], out[4], flag, outcount, idx[4], index, err, cls, cnt;
    MPI_Request req[6], pers, saved[6];
    MPI_Status st[6];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (int i = 0; i < 4; i++)
        out[i] = rank * 100 + i;

    /* nulls and an inactive persistent request among active ones */
    MPI_Recv_init(&in[3], 1, MPI_INT, left, 3, MPI_COMM_WORLD, &pers);
    req[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&in[0], 1, MPI_INT, left, 0, MPI_COMM_WORLD, &req[1]);
    req[2] = pers;
    MPI_Isend(&out[0], 1, MPI_INT, right, 0, MPI_COMM_WORLD, &req[3]);
    req[4] = MPI_REQUEST_NULL;
    fill(st, 5);
    CHECK(MPI_Waitall(5, req, st) == MPI_SUCCESS);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL && req[2] == pers &&
          req[3] == MPI_REQUEST_NULL && req[4] == MPI_REQUEST_NULL);
    CHECK(is_empty(&st[0]) && is_empty(&st[2]) && is_empty(&st[4]));
    CHECK(st[1].MPI_SOURCE == left && st[1].MPI_TAG == 0 && st[1].MPI_ERROR == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st[1], MPI_INT, &cnt) == MPI_SUCCESS && cnt == 1 && in[0] == left * 100);
    CHECK(st[3].MPI_ERROR == MPI_SUCCESS);

    /* the persistent request started, completed by Testall; its handle stays */
    CHECK(MPI_Start(&pers) == MPI_SUCCESS);
    req[0] = pers;
    req[1] = MPI_REQUEST_NULL;
    fill(st, 2);
    memcpy(saved, req, sizeof req[0] * 2);
    CHECK(MPI_Testall(2, req, &flag, st) == MPI_SUCCESS);
    CHECK(!flag && untouched(st, 2) && memcmp(saved, req, sizeof req[0] * 2) == 0);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends before every rank tested */
    MPI_Send(&out[3], 1, MPI_INT, right, 3, MPI_COMM_WORLD);
    for (flag = 0; !flag;)
        CHECK(MPI_Testall(2, req, &flag, st) == MPI_SUCCESS);
    CHECK(req[0] == pers && req[1] == MPI_REQUEST_NULL);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 3 && in[3] == left * 100 + 3 && is_empty(&st[1]));
    MPI_Request_free(&pers);

    /* MPI_STATUSES_IGNORE */
    MPI_Irecv(&in[1], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&out[1], 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL && in[1] == left * 100 + 1);

    /* a failed request: MPI_ERR_IN_STATUS, the standard's codes and sentinels in the statuses */
    {
        int two[2] = {1, 2}, one = 0;
        MPI_Irecv(&one, 1, MPI_INT, left, TAG_TRUNC, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(two, 2, MPI_INT, right, TAG_TRUNC, MPI_COMM_WORLD, &req[1]);
        req[2] = MPI_REQUEST_NULL;
        fill(st, 3);
        err = MPI_Waitall(3, req, st);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS);
        MPI_Error_class(st[0].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && st[0].MPI_SOURCE == left && st[0].MPI_TAG == TAG_TRUNC);
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS && req[1] == MPI_REQUEST_NULL);
        CHECK(is_empty(&st[2]));
    }

    /* entries that are no request */
    {
        char value[40];
        snprintf(value, sizeof value, "%#llx", (unsigned long long)(uintptr_t)(void *)&in[0]);
        bad_entry((MPI_Request)(void *)&in[0], value);
        snprintf(value, sizeof value, "%#llx", (unsigned long long)(uintptr_t)(void *)MPI_COMM_WORLD);
        bad_entry((MPI_Request)(void *)MPI_COMM_WORLD, value);
    }

    /* Waitsome and Testany on arrays of nulls */
    for (int i = 0; i < 4; i++)
        req[i] = MPI_REQUEST_NULL;
    CHECK(MPI_Waitsome(4, req, &outcount, idx, st) == MPI_SUCCESS && outcount == MPI_UNDEFINED);
    fill(st, 1);
    CHECK(MPI_Testany(4, req, &index, &flag, &st[0]) == MPI_SUCCESS);
    CHECK(flag && index == MPI_UNDEFINED && is_empty(&st[0]));
    return abi_finish();
}
