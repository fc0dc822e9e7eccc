/*
 * What a program asks of MPI from its launch line (mpiexec's
 * -memory-alloc-kinds and -initial-errhandler, MPI 4.1 section 11.8.1) or
 * from its parent's spawn info (the reserved keys mpi_memory_alloc_kinds and
 * mpi_initial_errhandler, section 11.8.4): mpiexec sets CANAL_<KEY>, a
 * parent puts the keys of each command into the new job's key-value space
 * ("canal-<key>-<command index>", read by the children through their
 * MPI_APPNUM), so any PMI launcher carries them.
 *
 * Memory allocation kinds (section 11.4.3): Canal supports "system" and
 * "mpi" with the restrictors alloc_mem, win_allocate and
 * win_allocate_shared. The value an object reports is "mpi,system" (always
 * supported) followed by each requested entry Canal supports that is not
 * one of those two, in request order, once; unsupported kinds (cuda, rocm,
 * level_zero, ...) and entries with an unknown restrictor are dropped, so
 * the value is what the program may rely on (as MPICH reports it).
 * MPI_COMM_WORLD and MPI_COMM_SELF report the launch request; a session the
 * one in its MPI_Session_init info (the world's without); communicators,
 * windows and files their parent's, or the one in their creation info.
 */
#include "comm_impl.h"
#include "common/cvar.h"
#include "common/log.h"
#include "pmi/pmi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char memkinds_key[] = "mpi_memory_alloc_kinds";
static const char *const mpi_restrictors[] = {"alloc_mem", "win_allocate", "win_allocate_shared"};

/* Entry [s, s+n) ("kind[:restrictor...]") is one Canal supports. */
static int entry_supported(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t klen = colon != NULL ? (size_t)(colon - s) : n;

    if (klen == 6 && strncmp(s, "system", 6) == 0)
        return colon == NULL;
    if (klen != 3 || strncmp(s, "mpi", 3) != 0)
        return 0;
    while (colon != NULL) {
        const char *r = colon + 1, *end = s + n, *next = memchr(r, ':', (size_t)(end - r));
        size_t rlen = (size_t)((next != NULL ? next : end) - r);
        int known = 0;
        for (size_t i = 0; i < sizeof mpi_restrictors / sizeof mpi_restrictors[0]; i++)
            known |= strlen(mpi_restrictors[i]) == rlen && strncmp(r, mpi_restrictors[i], rlen) == 0;
        if (!known)
            return 0;
        colon = next;
    }
    return 1;
}

/* out already holds entry [s, s+n) as one of its comma-separated entries. */
static int has_entry(const char *out, const char *s, size_t n)
{
    for (const char *p = out; *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0)
            return 1;
        p += len + (comma != NULL);
    }
    return 0;
}

void mpi_memkinds_supported(const char *requested, char *out, size_t outlen)
{
    snprintf(out, outlen, "mpi,system");
    for (const char *p = requested != NULL ? requested : ""; *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p), used = strlen(out);
        if (n > 0 && entry_supported(p, n) && !has_entry(out, p, n) && used + 1 + n < outlen)
            snprintf(out + used, outlen - used, ",%.*s", (int)n, p);
        p += n + (comma != NULL);
    }
}

/* ---------------------------------------------------------------- the launch request */
static char req_kinds[MPI_MAX_INFO_VAL], req_errh[64];
static int have_kinds, have_errh;
static char world_kinds[MPI_MAX_INFO_VAL];
static pthread_once_t launch_once = PTHREAD_ONCE_INIT;

/* The launcher's value of key (CANAL_<NAME>), else the parent's for our command. */
static int launch_value(const char *cvar, const char *key, char *out, size_t len)
{
    const char *v = common_cvar_str(cvar);
    char pkey[96];

    if (v != NULL && *v != '\0') {
        snprintf(out, len, "%s", v);
        return 1;
    }
    snprintf(pkey, sizeof pkey, "canal-%s-%d", key, mpi_pmi.appnum);
    return pmi_spawned() && pmi_get_job(pkey, out, len) >= 0 && *out != '\0';
}

static void launch_read(void)
{
    have_kinds = launch_value("MEMORY_ALLOC_KINDS", memkinds_key, req_kinds, sizeof req_kinds);
    have_errh = launch_value("INITIAL_ERRHANDLER", "mpi_initial_errhandler", req_errh,
                             sizeof req_errh);
    mpi_memkinds_supported(have_kinds ? req_kinds : NULL, world_kinds, sizeof world_kinds);
}

const char *mpi_memkinds_world(void)
{
    pthread_once(&launch_once, launch_read);
    return world_kinds;
}

const char *mpi_memkinds_requested(void)
{
    if (mpi_state == MPI_STATE_PRE_INIT) { /* the parent's keys need PMI: later */
        const char *v = common_cvar_str("MEMORY_ALLOC_KINDS");
        return v != NULL && *v != '\0' ? v : NULL;
    }
    pthread_once(&launch_once, launch_read);
    return have_kinds ? req_kinds : NULL;
}

int mpi_initial_errhandler_parse(const char *name, MPI_Errhandler *out)
{
    static const struct {
        const char *name;
        MPI_Errhandler h;
    } names[] = {{"mpi_errors_are_fatal", MPI_ERRORS_ARE_FATAL},
                 {"mpi_errors_abort", MPI_ERRORS_ABORT},
                 {"mpi_errors_return", MPI_ERRORS_RETURN}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].h;
            return 0;
        }
    return -1;
}

MPI_Errhandler mpi_initial_errhandler(void)
{
    MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;

    pthread_once(&launch_once, launch_read);
    if (have_errh && mpi_initial_errhandler_parse(req_errh, &h) != 0) {
        LOG_WARN("mpi_initial_errhandler '%s' is not mpi_errors_are_fatal, mpi_errors_abort or "
                 "mpi_errors_return: MPI_ERRORS_ARE_FATAL is used",
                 req_errh);
        have_errh = 0;
    }
    return h;
}

/* ---------------------------------------------------------------- objects */
int mpi_memkinds_put(MPI_Info to, const char *inherited, MPI_Info user)
{
    const char *v = user != MPI_INFO_NULL ? mpi_info_lookup(user, memkinds_key) : NULL;
    char buf[MPI_MAX_INFO_VAL];

    if (v != NULL) {
        mpi_memkinds_supported(v, buf, sizeof buf);
        return mpi_info_put(to, memkinds_key, buf);
    }
    return mpi_info_put(to, memkinds_key, inherited != NULL ? inherited : mpi_memkinds_world());
}

const char *mpi_memkinds_of(MPI_Info info)
{
    return info != MPI_INFO_NULL ? mpi_info_lookup(info, memkinds_key) : NULL;
}

int mpi_spawn_keys_preput(MPI_Info info, int cmd, const char **keys, const char **vals, int *n,
                          char (*store)[96], char *why, size_t whylen)
{
    static const char *const reserved[] = {"mpi_memory_alloc_kinds", "mpi_initial_errhandler"};
    MPI_Errhandler h;

    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        const char *v = info != MPI_INFO_NULL ? mpi_info_lookup(info, reserved[i]) : NULL;
        if (v == NULL)
            continue;
        if (i == 1 && mpi_initial_errhandler_parse(v, &h) != 0) {
            snprintf(why, whylen,
                     "info key mpi_initial_errhandler=\"%.100s\" of command %d is not "
                     "mpi_errors_are_fatal, mpi_errors_abort or mpi_errors_return",
                     v, cmd);
            return MPI_ERR_INFO_VALUE;
        }
        snprintf(store[*n], sizeof store[*n], "canal-%s-%d", reserved[i], cmd);
        keys[*n] = store[*n];
        vals[*n] = v;
        (*n)++;
    }
    return MPI_SUCCESS;
}
