/*
 * Derived datatypes between ranks: a vector received as contiguous doubles,
 * a struct with gaps, a 2-D halo exchange with subarray types, a darray
 * gathered on rank 0, a type freed while its send is in flight, large
 * messages through the rendezvous path, and MPI_Get_elements on a partial
 * message.
 */
#include <stddef.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;

    if (peer < size) {
        /* vector of doubles -> contiguous, small and large (rendezvous) */
        for (int n = 4; n <= 1 << 18; n *= 64) {
            MPI_Datatype v;
            double *a = malloc(sizeof(double) * 3 * n), *b = malloc(sizeof(double) * n);
            for (int i = 0; i < 3 * n; i++)
                a[i] = rank * 1e6 + i;
            MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &v);
            MPI_Type_commit(&v);
            MPI_Sendrecv(a, 1, v, peer, 1, b, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                if (b[i] != peer * 1e6 + 3 * i) {
                    CHECK(0, "vector n=%d element %d: %g", n, i, b[i]);
                    break;
                }
            /* and contiguous -> vector */
            for (int i = 0; i < 3 * n; i++)
                a[i] = -1;
            for (int i = 0; i < n; i++)
                b[i] = rank + i;
            MPI_Sendrecv(b, n, MPI_DOUBLE, peer, 2, a, 1, v, peer, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            for (int i = 0; i < 3 * n; i++)
                if (a[i] != (i % 3 == 0 ? peer + i / 3 : -1)) {
                    CHECK(0, "unpack vector n=%d at %d: %g", n, i, a[i]);
                    break;
                }
            MPI_Type_free(&v);
            free(a);
            free(b);
        }

        /* struct with gaps, count 3 */
        {
            struct rec { char c; double d; int i[2]; } s[3], r[3];
            int bl[3] = {1, 1, 2};
            MPI_Aint ds[3] = {offsetof(struct rec, c), offsetof(struct rec, d),
                              offsetof(struct rec, i)};
            MPI_Datatype ts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, st;
            MPI_Type_create_struct(3, bl, ds, ts, &st);
            MPI_Type_commit(&st);
            for (int k = 0; k < 3; k++) {
                s[k].c = (char)('a' + k + rank);
                s[k].d = k + 0.5 + rank;
                s[k].i[0] = k;
                s[k].i[1] = -k - rank;
            }
            memset(r, 0, sizeof r);
            MPI_Sendrecv(s, 3, st, peer, 3, r, 3, st, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < 3; k++)
                CHECK(r[k].c == 'a' + k + peer && r[k].d == k + 0.5 + peer && r[k].i[0] == k &&
                      r[k].i[1] == -k - peer, "struct element %d", k);
            /* partial message: 1 full struct (4 elements) + char + double = 6 */
            {
                MPI_Status status;
                int cnt, elems;
                char buf[64];
                int pos = 0;
                if (rank % 2 == 0) {
                    MPI_Pack(s, 1, st, buf, sizeof buf, &pos, MPI_COMM_WORLD);
                    MPI_Pack(&s[1].c, 1, MPI_CHAR, buf, sizeof buf, &pos, MPI_COMM_WORLD);
                    MPI_Pack(&s[1].d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
                    MPI_Send(buf, pos, MPI_PACKED, peer, 4, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(r, 3, st, peer, 4, MPI_COMM_WORLD, &status);
                    MPI_Get_count(&status, st, &cnt);
                    MPI_Get_elements(&status, st, &elems);
                    CHECK(cnt == MPI_UNDEFINED && elems == 6, "count %d elements %d", cnt, elems);
                }
            }
            MPI_Type_free(&st);
        }

        /* a type freed while its nonblocking send is in flight */
        {
            MPI_Datatype v;
            MPI_Request rq;
            int n = 100000, *a = malloc(sizeof(int) * 2 * n), *b = malloc(sizeof(int) * n);
            for (int i = 0; i < 2 * n; i++)
                a[i] = i;
            MPI_Type_vector(n, 1, 2, MPI_INT, &v);
            MPI_Type_commit(&v);
            MPI_Isend(a, 1, v, peer, 5, MPI_COMM_WORLD, &rq);
            MPI_Type_free(&v);
            MPI_Recv(b, n, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                if (b[i] != 2 * i) {
                    CHECK(0, "freed-type send at %d: %d", i, b[i]);
                    break;
                }
            free(a);
            free(b);
        }
    }

    /* halo exchange on a ring of 2-D tiles (columns are strided) */
    {
        enum { NX = 6, NY = 5 };
        int t[NY + 2][NX + 2], left = (rank + size - 1) % size, right = (rank + 1) % size;
        int sizes[2] = {NY + 2, NX + 2}, sub[2] = {NY, 1};
        int s_r[2] = {1, NX}, s_l[2] = {1, 1}, h_l[2] = {1, 0}, h_r[2] = {1, NX + 1};
        MPI_Datatype send_r, send_l, halo_l, halo_r;
        for (int y = 0; y < NY + 2; y++)
            for (int x = 0; x < NX + 2; x++)
                t[y][x] = (y >= 1 && y <= NY && x >= 1 && x <= NX) ? rank * 1000 + y * 10 + x : -1;
        MPI_Type_create_subarray(2, sizes, sub, s_r, MPI_ORDER_C, MPI_INT, &send_r);
        MPI_Type_create_subarray(2, sizes, sub, s_l, MPI_ORDER_C, MPI_INT, &send_l);
        MPI_Type_create_subarray(2, sizes, sub, h_l, MPI_ORDER_C, MPI_INT, &halo_l);
        MPI_Type_create_subarray(2, sizes, sub, h_r, MPI_ORDER_C, MPI_INT, &halo_r);
        MPI_Type_commit(&send_r);
        MPI_Type_commit(&send_l);
        MPI_Type_commit(&halo_l);
        MPI_Type_commit(&halo_r);
        MPI_Sendrecv(t, 1, send_r, right, 6, t, 1, halo_l, left, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(t, 1, send_l, left, 7, t, 1, halo_r, right, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int y = 1; y <= NY; y++) {
            CHECK(t[y][0] == left * 1000 + y * 10 + NX, "left halo row %d: %d", y, t[y][0]);
            CHECK(t[y][NX + 1] == right * 1000 + y * 10 + 1, "right halo row %d: %d", y,
                  t[y][NX + 1]);
        }
        CHECK(t[0][0] == -1 && t[NY + 1][NX + 1] == -1, "corners untouched");
        MPI_Type_free(&send_r);
        MPI_Type_free(&send_l);
        MPI_Type_free(&halo_l);
        MPI_Type_free(&halo_r);
    }

    /* darray: every rank sends its block-cyclic part of a global array to 0 */
    {
        enum { GY = 7, GX = 9 };
        int gs[2] = {GY, GX}, di[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
        int da[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {1, size};
        int global[GY][GX], mine, *part;
        MPI_Datatype dt;
        MPI_Type_create_darray(size, rank, 2, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &dt);
        MPI_Type_commit(&dt);
        MPI_Type_size(dt, &mine);
        mine /= (int)sizeof(int);
        part = malloc(sizeof(int) * (mine + 1));
        for (int y = 0; y < GY; y++)
            for (int x = 0; x < GX; x++)
                global[y][x] = y * 100 + x;
        /* pack my part of the (replicated) global array */
        {
            int pos = 0;
            MPI_Pack(global, 1, dt, part, (int)sizeof(int) * (mine + 1), &pos, MPI_COMM_WORLD);
        }
        if (rank != 0) {
            MPI_Send(part, mine, MPI_INT, 0, 8, MPI_COMM_WORLD);
        } else {
            int result[GY][GX];
            memset(result, 0xff, sizeof result);
            for (int src = 0; src < size; src++) {
                MPI_Datatype sdt;
                MPI_Type_create_darray(size, src, 2, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &sdt);
                MPI_Type_commit(&sdt);
                if (src == 0)
                    MPI_Sendrecv(part, mine, MPI_INT, 0, 9, result, 1, sdt, 0, 9, MPI_COMM_SELF,
                                 MPI_STATUS_IGNORE);
                else
                    MPI_Recv(result, 1, sdt, src, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Type_free(&sdt);
            }
            for (int y = 0; y < GY; y++)
                for (int x = 0; x < GX; x++)
                    CHECK(result[y][x] == y * 100 + x, "darray gather at %d,%d: %d", y, x,
                          result[y][x]);
        }
        free(part);
        MPI_Type_free(&dt);
    }
    return mtest_finish();
}
