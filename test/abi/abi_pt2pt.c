/*
 * Point to point through the standard ABI: wildcards (MPI_ANY_SOURCE,
 * MPI_ANY_TAG), MPI_PROC_NULL, statuses and MPI_Get_count (MPI_UNDEFINED
 * when the bytes are no whole number of elements), request arrays
 * (MPI_Waitall, MPI_Testsome, MPI_Waitany), probes, and the ABI queries.
 */
#include <mpi.h>
#include <string.h>

#include "abi_util.h"

int main(int argc, char **argv)
{
    int rank, size, provided, major, minor, len, count, flag;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Status st;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
          provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE);
    MPI_Query_thread(&flag);
    CHECK(flag == provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Abi_get_version(&major, &minor);
    CHECK(major == 1 && minor == 0);
    MPI_Get_library_version(version, &len);
    CHECK(len > 0 && (int)strlen(version) == len);

    /* MPI_PROC_NULL: an empty status with MPI_PROC_NULL and MPI_ANY_TAG */
    MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(st.MPI_TAG == MPI_ANY_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0);
    MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);

    /* everyone sends to rank 0, which receives with wildcards */
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            int v[4];
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size);
            CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == st.MPI_SOURCE % 4 + 1);
            /* the probed message (another may have arrived meanwhile) */
            MPI_Recv(v, 4, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == st.MPI_SOURCE % 4 + 1);
            CHECK(v[0] == st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == ((1 << size) - 2));
        MPI_Barrier(MPI_COMM_WORLD); /* the second round after the first */
        seen = 0;
        for (int i = 1; i < size; i++) {
            int v[4];
            MPI_Recv(v, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size);
            CHECK(st.MPI_TAG == 200 + st.MPI_SOURCE);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == st.MPI_SOURCE % 4 + 1);
            CHECK(v[0] == -st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == ((1 << size) - 2));
    } else {
        int v[4] = {rank, rank, rank, rank}, w[4] = {-rank, -rank, -rank, -rank};
        MPI_Send(v, rank % 4 + 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(w, rank % 4 + 1, MPI_INT, 0, 200 + rank, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* no later message meets rank 0's wildcards */

    /* 5 bytes are no whole number of ints: MPI_UNDEFINED */
    if (size > 1 && rank < 2) {
        char b[8] = "abcde";
        if (rank == 0) {
            MPI_Send(b, 5, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        } else {
            MPI_Recv(b, 8, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == MPI_UNDEFINED);
            MPI_Get_count(&st, MPI_CHAR, &count);
            CHECK(count == 5);
            CHECK(st.MPI_ERROR == MPI_SUCCESS || st.MPI_ERROR != MPI_ERR_TRUNCATE);
        }
    }

    /* a ring of nonblocking operations: Waitall, then Testsome, then Waitany */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
        MPI_Request req[6];
        MPI_Status sts[6];
        int idx[6], outcount, done = 0, index;

        for (int i = 0; i < 3; i++) {
            MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]);
            MPI_Isend(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD, &req[3 + i]);
        }
        MPI_Waitall(6, req, sts);
        for (int i = 0; i < 6; i++)
            CHECK(req[i] == MPI_REQUEST_NULL);
        for (int i = 0; i < 3; i++) {
            CHECK(sts[i].MPI_SOURCE == left);
            CHECK(sts[i].MPI_TAG == i);
            CHECK(in[i] == left * (i + 1));
        }
        for (int i = 0; i < 3; i++) {
            MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, 10 + i, MPI_COMM_WORLD, &req[i]);
            MPI_Isend(&out[i], 1, MPI_INT, right, 10 + i, MPI_COMM_WORLD, &req[3 + i]);
        }
        while (done < 6) {
            MPI_Testsome(6, req, &outcount, idx, sts);
            if (outcount == MPI_UNDEFINED)
                break;
            for (int i = 0; i < outcount; i++)
                if (idx[i] < 3)
                    CHECK(sts[i].MPI_SOURCE == left && sts[i].MPI_TAG == 10 + idx[i]);
            done += outcount;
        }
        CHECK(done == 6);
        MPI_Testsome(6, req, &outcount, idx, sts);
        CHECK(outcount == MPI_UNDEFINED);
        MPI_Waitany(6, req, &index, &st);
        CHECK(index == MPI_UNDEFINED);
        MPI_Testall(6, req, &flag, MPI_STATUSES_IGNORE);
        CHECK(flag);
    }

    /* sendrecv with MPI_STATUS_IGNORE, and the integer forms of handles */
    {
        int a = rank, b = -1;
        MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % size, 3, &b, 1, MPI_INT,
                     (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(b == (rank + size - 1) % size);
        CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
        CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE);
    }
    return abi_finish();
}
