/*
 * canal-info: what this Canal is and how it is configured, in the spirit of
 * MPICH's mpichversion and Open MPI's ompi_info. Prints the version, the
 * configure arguments, the channels and process-management interfaces built
 * in, and every configuration variable of the registry (common/cvar.c) with
 * its default, its current value (from the environment) and description.
 */
#include "config.h"

#include "common/cvar.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "Usage: canal-info [--version | --vars | --help]\n"
               "  (no option)  version, configuration, channels and all variables\n"
               "  --version    the version line only\n"
               "  --vars       the configuration variables only\n"
               "  --help       this text\n");
}

static void print_vars(void)
{
    static const char *const types[] = {"int", "size", "bool", "string"};
    printf("Configuration variables (environment CANAL_<NAME>, or MPIR_CVAR_<NAME> where shown):\n");
    for (int i = 0; i < common_cvar_count(); i++) {
        const common_cvar_desc_t *d = common_cvar_at(i);
        printf("  CANAL_%-22s %-6s default %-8s now %-8s (%s)\n", d->name, types[d->type],
               common_cvar_default(d), common_cvar_str(d->name), common_cvar_source(d->name));
        printf("      %s%s%s\n", d->desc, d->mpich_name ? "; also MPIR_CVAR_" : "",
               d->mpich_name ? d->mpich_name : "");
    }
}

int main(int argc, char **argv)
{
    int vars_only = 0;

    if (argc > 2) {
        usage(stderr);
        return 2;
    }
    if (argc == 2) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[1], "--version") == 0) {
            printf("Canal %s (MPICH ABI 4.0.2, libmpi.so.12)\n", PACKAGE_VERSION);
            return 0;
        }
        if (strcmp(argv[1], "--vars") != 0) {
            fprintf(stderr, "canal-info: unknown option %s\n", argv[1]);
            usage(stderr);
            return 2;
        }
        vars_only = 1;
    }
    if (!vars_only) {
        printf("Canal version:     %s\n", PACKAGE_VERSION);
        printf("MPICH ABI:         4.0.2 (libmpi.so.12, also libmpich.so.12; mpicc)\n");
        printf("Standard ABI:      MPI 5.0 ABI 1.0 (libmpi_abi.so.1, include/abi/mpi.h; mpicc_abi)\n");
        printf("Configure options: %s\n", CANAL_CONFIGURE_ARGS);
        printf("Channels:          self %s\n", CANAL_CHANNELS);
#ifdef CANAL_HAVE_PMIX
        printf("Process managers:  singleton, PMI-1, PMI-2, PMIx\n");
#else
        printf("Process managers:  singleton, PMI-1, PMI-2\n");
#endif
#ifdef CANAL_HAVE_HWLOC
        printf("hwloc:             yes\n");
#else
        printf("hwloc:             no\n");
#endif
        printf("\n");
    }
    print_vars();
    return 0;
}
