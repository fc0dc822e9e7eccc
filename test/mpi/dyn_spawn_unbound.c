/*
 * Spawned processes are not pinned by mpiexec's -bind-to auto (the default):
 * the parents (a job of 2 or more ranks that auto may pin to a core each, or
 * a singleton that starts mpiexec at its first spawn) gather the union of
 * their CPU masks and send it to the 2 children they spawn; every child's
 * own mask must hold every CPU of that union. A child pinned to one core
 * (as a singleton's first spawn was, before the fix) fails it. Where the
 * parents' union has a single CPU (taskset) nothing can tell, and the test
 * says so and passes on the other checks.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "mtest.h"

enum { WORDS = CPU_SETSIZE / (8 * sizeof(unsigned long)) };

static void mask_words(unsigned long *w)
{
    cpu_set_t set;
    memset(w, 0, sizeof(unsigned long) * WORDS);
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity failed");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            w[c / (8 * sizeof(unsigned long))] |= 1UL << (c % (8 * sizeof(unsigned long)));
}

static int count(const unsigned long *w)
{
    int n = 0;
    for (int i = 0; i < WORDS; i++)
        n += __builtin_popcountl(w[i]);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    unsigned long mine[WORDS], all[WORDS];

    mtest_init(&argc, &argv);
    OK(MPI_Comm_get_parent(&parent));
    mask_words(mine);
    if (parent == MPI_COMM_NULL) {
        int codes[2];
        char *args[] = {"child", NULL};
        OK(MPI_Allreduce(mine, all, WORDS, MPI_UNSIGNED_LONG, MPI_BOR, MPI_COMM_WORLD));
        if (mtest_rank == 0 && count(all) < 2)
            printf("dyn_spawn_unbound: the parents have %d CPU: nothing to tell\n", count(all));
        OK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
        OK(MPI_Bcast(all, WORDS, MPI_UNSIGNED_LONG, mtest_rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                     inter));
        int bad = 0;
        OK(MPI_Reduce(NULL, &bad, 1, MPI_INT, MPI_SUM, mtest_rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                      inter));
        CHECK(bad == 0, "%d spawned processes were pinned to fewer CPUs than their parents had",
              bad);
        OK(MPI_Comm_disconnect(&inter));
    } else {
        int pinned = 0;
        CHECK(argc == 2 && strcmp(argv[1], "child") == 0, "a child without its argument");
        OK(MPI_Bcast(all, WORDS, MPI_UNSIGNED_LONG, 0, parent));
        for (int i = 0; i < WORDS; i++)
            if ((all[i] & ~mine[i]) != 0)
                pinned = 1;
        if (pinned)
            fprintf(stderr, "dyn_spawn_unbound: child %d has %d CPUs, its parents %d\n",
                    mtest_rank, count(mine), count(all));
        OK(MPI_Reduce(&pinned, NULL, 1, MPI_INT, MPI_SUM, 0, parent));
        OK(MPI_Comm_disconnect(&parent));
    }
    return mtest_finish();
}
