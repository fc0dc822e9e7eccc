/*
 * mpiexec's binding plan (mpiexec/bind.c) on machines this one is not: the
 * slots made of a topology (cores with two hardware threads, packages whose
 * core ids repeat, -map-by socket's round robin) and the blocks -bind-to auto
 * gives ranks when there are more free cores than ranks, which the launch
 * test (test/launch/mpiexec.sh) can only skip on a machine of 2 CPUs; then
 * mpx_bind_auto itself over a private lock directory: cores another plan
 * holds are not taken, and the cases that stay unbound.
 */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"

/* "0,4" for a set holding CPUs 0 and 4 */
static const char *set_str(const cpu_set_t *s)
{
    static char buf[4][256];
    static int k;
    char *b = buf[k++ & 3];
    size_t n = 0;
    b[0] = '\0';
    for (int c = 0; c < 64; c++)
        if (CPU_ISSET(c, s))
            n += (size_t)snprintf(b + n, 256 - n, "%s%d", n ? "," : "", c);
    return b;
}

/* One package of 4 cores with 2 threads each, numbered as Linux does: CPU c
 * and c + 4 are siblings. */
static void smt_host(int *cpus, int *core, int *pkg)
{
    for (int c = 0; c < 8; c++) {
        cpus[c] = c;
        core[c] = c % 4;
        pkg[c] = 0;
    }
}

/* Two packages of 4 cores, one thread each, core ids 0-3 in both. */
static void two_pkg_host(int *cpus, int *core, int *pkg)
{
    for (int c = 0; c < 8; c++) {
        cpus[c] = c;
        core[c] = c % 4;
        pkg[c] = c / 4;
    }
}

START_TEST(cores_join_hardware_threads)
{
    int cpus[8], core[8], pkg[8];
    cpu_set_t sets[8];

    smt_host(cpus, core, pkg);
    ck_assert_int_eq(mpx_bind_cores(8, cpus, core, pkg, 0, 0, sets), 4);
    ck_assert_str_eq(set_str(&sets[0]), "0,4");
    ck_assert_str_eq(set_str(&sets[3]), "3,7");
    /* -bind-to hwthread: a slot per CPU */
    ck_assert_int_eq(mpx_bind_cores(8, cpus, core, pkg, 1, 0, sets), 8);
    ck_assert_str_eq(set_str(&sets[5]), "5");
    ck_assert_int_eq(mpx_bind_cores(0, cpus, core, pkg, 0, 0, sets), 0);
}
END_TEST

START_TEST(cores_of_two_packages_stay_apart)
{
    int cpus[8], core[8], pkg[8];
    cpu_set_t sets[8];

    two_pkg_host(cpus, core, pkg);
    /* core 0 of package 0 and core 0 of package 1 are two cores */
    ck_assert_int_eq(mpx_bind_cores(8, cpus, core, pkg, 0, 0, sets), 8);
    ck_assert_str_eq(set_str(&sets[0]), "0");
    ck_assert_str_eq(set_str(&sets[4]), "4");
    /* -map-by socket: packages take turns */
    ck_assert_int_eq(mpx_bind_cores(8, cpus, core, pkg, 0, 1, sets), 8);
    ck_assert_str_eq(set_str(&sets[0]), "0");
    ck_assert_str_eq(set_str(&sets[1]), "4");
    ck_assert_str_eq(set_str(&sets[2]), "1");
    ck_assert_str_eq(set_str(&sets[7]), "7");
}
END_TEST

START_TEST(cores_of_a_sparse_mask)
{
    /* mpiexec started under taskset -c 2,3,6,7 on the SMT host: two cores */
    int cpus[4] = {2, 3, 6, 7}, core[4] = {2, 3, 2, 3}, pkg[4] = {0, 0, 0, 0};
    cpu_set_t sets[4];

    ck_assert_int_eq(mpx_bind_cores(4, cpus, core, pkg, 0, 0, sets), 2);
    ck_assert_str_eq(set_str(&sets[0]), "2,6");
    ck_assert_str_eq(set_str(&sets[1]), "3,7");
}
END_TEST

static void one_cpu_cores(cpu_set_t *cores, int n)
{
    for (int c = 0; c < n; c++) {
        CPU_ZERO(&cores[c]);
        CPU_SET(c, &cores[c]);
    }
}

START_TEST(blocks_split_the_free_cores)
{
    cpu_set_t cores[8], blocks[8];
    int all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int holes[6] = {0, 2, 3, 5, 6, 7};

    one_cpu_cores(cores, 8);
    mpx_bind_blocks(cores, all, 8, 2, 0, blocks);
    ck_assert_str_eq(set_str(&blocks[0]), "0,1,2,3");
    ck_assert_str_eq(set_str(&blocks[1]), "4,5,6,7");
    /* 8 over 3: every core used, blocks differ by at most one, apart */
    mpx_bind_blocks(cores, all, 8, 3, 0, blocks);
    ck_assert_int_eq(CPU_COUNT(&blocks[0]) + CPU_COUNT(&blocks[1]) + CPU_COUNT(&blocks[2]), 8);
    for (int r = 0; r < 3; r++) {
        ck_assert_int_ge(CPU_COUNT(&blocks[r]), 2);
        ck_assert_int_le(CPU_COUNT(&blocks[r]), 3);
    }
    ck_assert_str_eq(set_str(&blocks[0]), "0,1,2");
    ck_assert_str_eq(set_str(&blocks[2]), "6,7");
    /* a core each */
    mpx_bind_blocks(cores, all, 8, 8, 0, blocks);
    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(CPU_COUNT(&blocks[r]), 1);
    /* cores 1 and 4 held by another job: blocks of the free ones only */
    mpx_bind_blocks(cores, holes, 6, 2, 0, blocks);
    ck_assert_str_eq(set_str(&blocks[0]), "0,2,3");
    ck_assert_str_eq(set_str(&blocks[1]), "5,6,7");
}
END_TEST

START_TEST(blocks_by_socket_stay_in_a_package)
{
    int cpus[8], core[8], pkg[8], all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    cpu_set_t cores[8], blocks[4];

    two_pkg_host(cpus, core, pkg);
    ck_assert_int_eq(mpx_bind_cores(8, cpus, core, pkg, 0, 1, cores), 8);
    mpx_bind_blocks(cores, all, 8, 2, 1, blocks);
    ck_assert_str_eq(set_str(&blocks[0]), "0,1,2,3");
    ck_assert_str_eq(set_str(&blocks[1]), "4,5,6,7");
    /* 4 ranks: two per package, alternating */
    mpx_bind_blocks(cores, all, 8, 4, 1, blocks);
    ck_assert_str_eq(set_str(&blocks[0]), "0,2");
    ck_assert_str_eq(set_str(&blocks[1]), "4,6");
    ck_assert_str_eq(set_str(&blocks[2]), "1,3");
    ck_assert_str_eq(set_str(&blocks[3]), "5,7");
}
END_TEST

/* A plan of 8 one-CPU cores, as mpx_bind_plan makes on such a host. */
static void plan8(mpx_bind_plan_t *plan)
{
    plan->n = 8;
    plan->sets = calloc(8, sizeof *plan->sets);
    ck_assert_ptr_nonnull(plan->sets);
    one_cpu_cores(plan->sets, 8);
}

START_TEST(auto_takes_free_cores_only)
{
    char dir[] = "/tmp/canal-bind-test-XXXXXX", dir2[64];
    mpx_opts_t o;
    mpx_bind_plan_t a, b;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("MPIEXEC_BIND_DIR", dir, 1);
    memset(&o, 0, sizeof o);
    o.bind = MPX_BIND_AUTO;

    /* the cases that stay unbound */
    plan8(&a);
    mpx_bind_auto(&o, &a, 1, 0, 1);
    ck_assert_int_eq(a.n, 0);
    plan8(&a);
    mpx_bind_auto(&o, &a, 9, 0, 1);
    ck_assert_int_eq(a.n, 0);
    plan8(&a);
    mpx_bind_auto(&o, &a, 2, 1, 1);
    ck_assert_int_eq(a.n, 0);

    /* a first job of 3 ranks: blocks of 3, 3 and 2 cores */
    plan8(&a);
    mpx_bind_auto(&o, &a, 3, 0, 1);
    ck_assert_int_eq(a.n, 3);
    ck_assert_str_eq(set_str(&a.sets[0]), "0,1,2");
    ck_assert_str_eq(set_str(&a.sets[1]), "3,4,5");
    ck_assert_str_eq(set_str(&a.sets[2]), "6,7");
    /* it holds every core: a second job runs unbound */
    plan8(&b);
    mpx_bind_auto(&o, &b, 2, 0, 1);
    ck_assert_int_eq(b.n, 0);
    ck_assert_ptr_null(b.sets);
    free(a.sets);
    /* OpenMP threads the free cores cannot hold apart: unbound (3 ranks of
     * 3 threads on 8 cores); 2 ranks of 4 threads fill 8 free cores (over
     * a second lock directory: this one's cores stay held) */
    snprintf(dir2, sizeof dir2, "%s/b", dir);
    ck_assert_int_eq(mkdir(dir2, 0700), 0);
    setenv("MPIEXEC_BIND_DIR", dir2, 1);
    plan8(&a);
    mpx_bind_auto(&o, &a, 3, 0, 3);
    ck_assert_int_eq(a.n, 0);
    plan8(&a);
    mpx_bind_auto(&o, &a, 2, 0, 4);
    ck_assert_int_eq(a.n, 2);
    ck_assert_str_eq(set_str(&a.sets[0]), "0,1,2,3");
    ck_assert_str_eq(set_str(&a.sets[1]), "4,5,6,7");
    free(a.sets);
    unsetenv("MPIEXEC_BIND_DIR");
    /* (the lock files stay until the test ends; its directory with them) */
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* The threads a rank asks for: OMP_NUM_THREADS of any segment, its first
 * level; 1 without it or when it is not a number. */
START_TEST(threads_from_env)
{
    char a0[] = "PATH=/bin", a1[] = "OMP_NUM_THREADS=4,2", b0[] = "OMP_NUM_THREADS=6",
         c0[] = "OMP_NUM_THREADS=many", d0[] = "XOMP_NUM_THREADS=9";
    char *ka[] = {a0, a1}, *kb[] = {b0}, *kc[] = {c0}, *kd[] = {d0};
    mpx_env_t e[2] = {{ka, 2, 2}, {kb, 1, 1}}, bad[2] = {{kc, 1, 1}, {kd, 1, 1}};

    ck_assert_int_eq(mpx_bind_threads(e, 1), 4);
    ck_assert_int_eq(mpx_bind_threads(e, 2), 6); /* (MPMD: the most) */
    ck_assert_int_eq(mpx_bind_threads(bad, 2), 1);
    ck_assert_int_eq(mpx_bind_threads(e, 0), 1);
}
END_TEST

static Suite *bind_suite(void)
{
    Suite *s = suite_create("mpiexec_bind");
    TCase *plan = tcase_create("plan");
    tcase_add_test(plan, cores_join_hardware_threads);
    tcase_add_test(plan, cores_of_two_packages_stay_apart);
    tcase_add_test(plan, cores_of_a_sparse_mask);
    tcase_add_test(plan, blocks_split_the_free_cores);
    tcase_add_test(plan, blocks_by_socket_stay_in_a_package);
    tcase_add_test(plan, auto_takes_free_cores_only);
    tcase_add_test(plan, threads_from_env);
    suite_add_tcase(s, plan);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(bind_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
