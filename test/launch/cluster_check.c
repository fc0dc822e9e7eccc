/* A job across hosts (test/launch/cluster.sh): run as
 *   cluster_check check NHOSTS CHANNEL   -- hostnames, placement, channels, collectives
 *   cluster_check abort RANK             -- RANK calls MPI_Abort(7), the others wait
 *   cluster_check kill RANK              -- RANK kills itself with SIGKILL, the others wait
 *   cluster_check killcomm RANK          -- every rank exchanges with its ring neighbours and
 *                                           allreduces; RANK kills itself with SIGKILL in the
 *                                           middle; survivors see the failure and end the job
 *   cluster_check hang                   -- every rank waits for a message that never comes
 *   cluster_check spawn HOST             -- the job spawns 4 children with
 *                                           MPI_Comm_spawn_multiple: 1 with info host=HOST,
 *                                           3 without; rank 0 prints "child C of 4 on H"
 *                                           for each; the children allreduce among
 *                                           themselves and with the parents (merged)
 *   cluster_check names HOST             -- name publishing across hosts and jobs: rank 0
 *                                           publishes an open port, a second publish of the
 *                                           name fails (MPI_ERR_SERVICE); the job spawns 2
 *                                           children on HOST (a second PMI job, ranks 0 and 1
 *                                           like the parents'); child 0 looks the name up and
 *                                           connects; child 1 publishes a name that parent 1
 *                                           looks up; after rank 0 unpublishes, a lookup
 *                                           fails with MPI_ERR_NAME
 * "check": every rank prints "rank R of N on HOST"; ranks with the same
 * hostname must form one MPI_COMM_TYPE_SHARED communicator and there must be
 * NHOSTS of them; a message to a rank on the same host must go through shm
 * and one to another host through CHANNEL (sock or ofi), as the MPI_T
 * counters canal_<channel>_messages_sent show; data is checked both ways,
 * then Allreduce, Bcast and Barrier on COMM_WORLD and the node communicator. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void fail(const char *what)
{
    fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* MPI_T counters canal_<channel>_messages_sent, started once (counters
 * count only while started). */
static MPI_T_pvar_session pv_session;
static struct {
    const char *chan;
    MPI_T_pvar_handle h;
    int ok;
} pv[2] = {{"shm"}, {NULL}};

static void pvar_setup(const char *netchan)
{
    int n;
    pv[1].chan = netchan;
    MPI_T_pvar_session_create(&pv_session);
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[256], want[64];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont,
                            &atomic);
        for (int c = 0; c < 2; c++) {
            snprintf(want, sizeof want, "canal_%s_messages_sent", pv[c].chan);
            if (strcmp(name, want) == 0 &&
                MPI_T_pvar_handle_alloc(pv_session, i, NULL, &pv[c].h, &count) == MPI_SUCCESS) {
                if (!cont)
                    MPI_T_pvar_start(pv_session, pv[c].h);
                pv[c].ok = 1;
            }
        }
    }
    if (!pv[0].ok || !pv[1].ok)
        fail("the MPI_T counters canal_<channel>_messages_sent are missing");
}

static long long pvar_read(const char *chan)
{
    unsigned long long v = 0;
    for (int c = 0; c < 2; c++)
        if (strcmp(pv[c].chan, chan) == 0)
            MPI_T_pvar_read(pv_session, pv[c].h, &v);
    return (long long)v;
}

/* Send 64 KiB to peer and back; returns the messages the channel counted. */
static long long exchange(int peer, const char *chan)
{
    long long before, after;
    enum { N = 65536 };
    static unsigned char out[N], in[N];
    before = pvar_read(chan);
    for (int i = 0; i < N; i++)
        out[i] = (unsigned char)(rank * 31 + i);
    MPI_Sendrecv(out, N, MPI_BYTE, peer, 5, in, N, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        if (in[i] != (unsigned char)(peer * 31 + i))
            fail("data from a peer is wrong");
    after = pvar_read(chan);
    return after - before;
}

static void check(int nhosts, const char *netchan)
{
    char host[MPI_MAX_PROCESSOR_NAME], *all;
    int len, nodesize, noderank, nnodes, is_leader, sum;
    MPI_Comm node;

    pvar_setup(netchan);
    MPI_Get_processor_name(host, &len);
    printf("rank %d of %d on %s\n", rank, size, host);
    fflush(stdout);
    all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nodesize);
    MPI_Comm_rank(node, &noderank);
    {
        int same = 0;
        for (int r = 0; r < size; r++)
            same += strcmp(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, host) == 0;
        if (same != nodesize)
            fail("the shared-memory communicator does not hold exactly the ranks with my hostname");
    }
    is_leader = noderank == 0;
    MPI_Allreduce(&is_leader, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nnodes != nhosts)
        fail("the number of shared-memory communicators is not the number of hosts");
    /* every pair of ranks exchanges; the channel it takes is checked */
    for (int step = 1; step < size; step++) {
        int to = (rank + step) % size, from = (rank - step + size) % size;
        /* pair up: rank talks to to and from in a fixed order */
        for (int k = 0; k < 2; k++) {
            int peer = (k == 0) == (rank < to) ? to : from;
            int same;
            long long n;
            if (peer == rank)
                continue;
            same = strcmp(all + (size_t)peer * MPI_MAX_PROCESSOR_NAME, host) == 0;
            n = exchange(peer, same ? "shm" : netchan);
            if (n == 0) {
                char msg[200];
                snprintf(msg, sizeof msg, "the message to rank %d (%s host) did not go through %s",
                         peer, same ? "same" : "another", same ? "shm" : netchan);
                fail(msg);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    {
        int v = rank, buf[4] = {0};
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2)
            fail("Allreduce on COMM_WORLD");
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, node);
        if (rank == size - 1)
            buf[0] = 42, buf[3] = 7;
        MPI_Bcast(buf, 4, MPI_INT, size - 1, MPI_COMM_WORLD);
        if (buf[0] != 42 || buf[3] != 7)
            fail("Bcast from the last rank");
        MPI_Barrier(node);
    }
    MPI_Comm_free(&node);
    free(all);
    for (int c = 0; c < 2; c++)
        MPI_T_pvar_handle_free(pv_session, &pv[c].h);
    MPI_T_pvar_session_free(&pv_session);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("cluster check passed: %d ranks on %d hosts\n", size, nnodes);
}

/* "spawn": the parents' and the children's side. */
static void spawn_check(int argc, char **argv)
{
    MPI_Comm parent, inter, merged;
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len, sum = 0, one = 1, msize;

    MPI_Comm_get_parent(&parent);
    MPI_Get_processor_name(host, &len);
    if (parent != MPI_COMM_NULL) {
        /* a child: its own world works, then it reports to the parents */
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size)
            fail("the children's allreduce");
        if (rank == 0)
            MPI_Send(&size, 1, MPI_INT, 0, 1, parent);
        MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 2, parent);
        inter = parent;
    } else {
        char *cmds[2] = {argv[0], argv[0]};
        char *args[] = {"spawn", "-", NULL};
        char **argvs[2] = {args, args};
        int np[2] = {1, 3}, nchild = 0;
        MPI_Info infos[2];
        MPI_Info_create(&infos[0]);
        MPI_Info_set(infos[0], "host", argc >= 3 ? argv[2] : "");
        infos[1] = MPI_INFO_NULL;
        MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter,
                                MPI_ERRCODES_IGNORE);
        MPI_Info_free(&infos[0]);
        if (rank == 0) {
            MPI_Recv(&nchild, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            for (int c = 0; c < nchild; c++) {
                MPI_Recv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c, 2, inter, MPI_STATUS_IGNORE);
                printf("child %d of %d on %s\n", c, nchild, host);
            }
            fflush(stdout);
        }
    }
    MPI_Intercomm_merge(inter, parent != MPI_COMM_NULL, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (sum != msize)
        fail("the allreduce of parents and children");
    if (parent == MPI_COMM_NULL && rank == 0)
        printf("spawn across hosts passed: %d processes after the merge\n", msize);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
}

/* The class of an MPI error code (MPI_SUCCESS stays). */
static int err_class(int err)
{
    int cls = err;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    return cls;
}

/* "names": published names between two jobs of one mpiexec on several hosts. */
static void names_check(int argc, char **argv)
{
    MPI_Comm parent, inter, conn;
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len, err, one = 1, sum = 0;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_parent(&parent);
    MPI_Get_processor_name(host, &len);
    if (parent == MPI_COMM_NULL) {
        MPI_Info info;
        char *args[] = {"names", "-", NULL};
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            if ((err = MPI_Publish_name("canal-cluster-svc", MPI_INFO_NULL, port)) != MPI_SUCCESS) {
                char msg[MPI_MAX_ERROR_STRING];
                MPI_Error_string(err, msg, &len);
                fprintf(stderr, "rank 0: MPI_Publish_name: %s\n", msg);
                fail("MPI_Publish_name on a job across hosts");
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1 &&
            err_class(MPI_Publish_name("canal-cluster-svc", MPI_INFO_NULL, "other")) != MPI_ERR_SERVICE)
            fail("a second MPI_Publish_name of one name from another host did not fail with MPI_ERR_SERVICE");
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", argc >= 3 ? argv[2] : "");
        MPI_Comm_spawn(argv[0], args, 2, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        MPI_Info_free(&info);
        /* the children look the name up and connect */
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, conn); /* over the children */
        if (sum != 2)
            fail("the allreduce over the connection made by name");
        MPI_Barrier(inter); /* child 1 has published its name */
        if (rank == 1) {
            if (MPI_Lookup_name("canal-cluster-child", MPI_INFO_NULL, found) != MPI_SUCCESS ||
                strcmp(found, "child-1-port") != 0)
                fail("parent rank 1 cannot look up the name child rank 1 published");
            printf("parent rank 1 on %s found the name of child rank 1: %s\n", host, found);
            fflush(stdout);
        }
        if (rank == 0 && MPI_Unpublish_name("canal-cluster-svc", MPI_INFO_NULL, port) != MPI_SUCCESS)
            fail("MPI_Unpublish_name");
        MPI_Barrier(inter); /* unpublished */
        MPI_Barrier(inter); /* the children checked */
        if (rank == 0)
            MPI_Close_port(port);
        if (rank == 0)
            printf("names across hosts passed: parents %d, children 2\n", size);
    } else {
        /* a child: ranks 0 and 1 of a second PMI job */
        if (rank == 0) {
            if ((err = MPI_Lookup_name("canal-cluster-svc", MPI_INFO_NULL, port)) != MPI_SUCCESS)
                fail("child rank 0 cannot look up the parents' name");
            printf("child rank 0 on %s found the parents' port\n", host);
            fflush(stdout);
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, conn); /* over the parents */
        MPI_Comm_remote_size(conn, &len);
        if (sum != len)
            fail("the children's allreduce over the connection");
        if (rank == 1 && MPI_Publish_name("canal-cluster-child", MPI_INFO_NULL, "child-1-port") != MPI_SUCCESS)
            fail("child rank 1 cannot publish");
        MPI_Barrier(parent);
        MPI_Barrier(parent); /* the parents unpublished */
        if (rank == 1) {
            err = MPI_Lookup_name("canal-cluster-svc", MPI_INFO_NULL, found);
            if (err_class(err) != MPI_ERR_NAME)
                fail("a lookup of an unpublished name did not fail with MPI_ERR_NAME");
            if (MPI_Unpublish_name("canal-cluster-child", MPI_INFO_NULL, "child-1-port") != MPI_SUCCESS)
                fail("child rank 1 cannot unpublish");
        }
        MPI_Barrier(parent);
        inter = parent;
    }
    MPI_Comm_disconnect(&conn);
    MPI_Comm_disconnect(&inter);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 4 && strcmp(argv[1], "check") == 0) {
        check(atoi(argv[2]), argv[3]);
    } else if (argc >= 3 && (strcmp(argv[1], "abort") == 0 || strcmp(argv[1], "kill") == 0)) {
        int victim = atoi(argv[2]), x;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == victim) {
            if (argv[1][0] == 'a')
                MPI_Abort(MPI_COMM_WORLD, 7);
            raise(SIGKILL);
        }
        MPI_Recv(&x, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (argc >= 2 && strcmp(argv[1], "spawn") == 0) {
        spawn_check(argc, argv);
    } else if (argc >= 2 && strcmp(argv[1], "names") == 0) {
        names_check(argc, argv);
    } else if (argc >= 3 && strcmp(argv[1], "killcomm") == 0) {
        int victim = atoi(argv[2]);
        for (int it = 0;; it++) {
            int out = rank + it, in = -1, sum = 0;
            if (rank == victim && it == 50)
                raise(SIGKILL);
            MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 5, &in, 1, MPI_INT,
                         (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
    } else if (argc >= 2 && strcmp(argv[1], "hang") == 0) {
        int x;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        if (rank == 0)
            fprintf(stderr,
                    "usage: cluster_check check NHOSTS CHANNEL | abort RANK | kill RANK | "
                    "killcomm RANK | spawn HOST | names HOST | hang\n");
        MPI_Finalize();
        return 2;
    }
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
