/*
 * Unit tests of the configuration registry (common/cvar.c): every name is
 * unique, every default parses as its type, the environment overrides the
 * default under CANAL_ and MPIR_CVAR_ names, bad values fall back.
 */
#include "common/cvar.h"
#include "test/unit/unit_limits.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(names_unique_and_defaults_parse)
{
    for (int i = 0; i < common_cvar_count(); i++) {
        const common_cvar_desc_t *d = common_cvar_at(i);
        long long v;
        int b;
        ck_assert_msg(common_cvar_find(d->name) == i, "%s is registered twice", d->name);
        ck_assert_msg(d->desc != NULL && d->desc[0] != '\0', "%s has no description", d->name);
        for (int k = 0; k < 2; k++) {
            const char *def = k == 0 ? d->defval : d->defval_intel;
            if (def == NULL)
                continue;
            if (d->type == CVAR_TYPE_SIZE)
                ck_assert_msg(common_parse_size(def, &v) == 0, "%s: bad size default", d->name);
            if (d->type == CVAR_TYPE_BOOL)
                ck_assert_msg(common_parse_bool(def, &b) == 0, "%s: bad bool default", d->name);
        }
    }
}
END_TEST

START_TEST(environment_overrides)
{
    setenv("CANAL_EAGER_LIMIT", "64K", 1);
    ck_assert_int_eq(common_cvar_int("EAGER_LIMIT"), 65536);
    ck_assert_str_eq(common_cvar_source("EAGER_LIMIT"), "CANAL_EAGER_LIMIT");
    unsetenv("CANAL_EAGER_LIMIT");
    ck_assert_str_eq(common_cvar_source("EAGER_LIMIT"), "default");
    setenv("MPIR_CVAR_POLLS_BEFORE_YIELD", "77", 1);
    ck_assert_int_eq(common_cvar_int("SPIN_COUNT"), 77);
    unsetenv("MPIR_CVAR_POLLS_BEFORE_YIELD");
    setenv("CANAL_SPIN_COUNT", "many", 1); /* bad: the default applies */
    ck_assert_int_eq(common_cvar_int("SPIN_COUNT"), 2000);
    unsetenv("CANAL_SPIN_COUNT");
    setenv("CANAL_SUMMARY", "yes", 1);
    ck_assert_int_eq(common_cvar_bool("SUMMARY"), 1);
    unsetenv("CANAL_SUMMARY");
}
END_TEST

/* A row with an Intel default has it on an Intel CPU (cpuid's vendor
 * string, read here from /proc/cpuinfo) and the other default elsewhere. */
START_TEST(default_by_cpu)
{
    char line[256];
    int intel = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    const common_cvar_desc_t *d = common_cvar_at(common_cvar_find("SHM_EAGER_LIMIT"));

    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "vendor_id", 9) == 0) {
            intel = strstr(line, "GenuineIntel") != NULL;
            break;
        }
    if (f != NULL)
        fclose(f);
    ck_assert_ptr_nonnull(d->defval_intel);
    ck_assert_str_eq(common_cvar_default(d), intel ? d->defval_intel : d->defval);
    ck_assert_int_eq(common_cvar_int("SHM_EAGER_LIMIT"), intel ? 4096 : 16384);
    ck_assert_int_eq(common_cvar_int("SHM_SOFT_WRAP"), intel ? 0 : 8192);
    ck_assert_int_eq(common_cvar_int("EAGER_LIMIT"), 16384); /* (no Intel default) */
}
END_TEST

START_TEST(size_parser)
{
    long long v;
    ck_assert_int_eq(common_parse_size("1G", &v), 0);
    ck_assert_int_eq(v, 1LL << 30);
    ck_assert_int_eq(common_parse_size("12kb", &v), 0);
    ck_assert_int_eq(v, 12 * 1024);
    ck_assert_int_eq(common_parse_size("", &v), -1);
    ck_assert_int_eq(common_parse_size("12x", &v), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cvar");
    TCase *tc = tcase_create("registry");
    tcase_set_timeout(tc, unit_case_timeout_s());
    SRunner *sr;
    int failed;

    tcase_add_test(tc, names_unique_and_defaults_parse);
    tcase_add_test(tc, environment_overrides);
    tcase_add_test(tc, default_by_cpu);
    tcase_add_test(tc, size_parser);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
