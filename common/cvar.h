/*
 * The registry of configuration variables. Every tunable of every layer is one
 * row of the table in common/cvar.c (name, type, default, description), read
 * from the environment as CANAL_<NAME> or, where MPICH has the same knob, as
 * MPIR_CVAR_<NAME>. bin/canal-info prints the table; MPI_T exposes it. A row
 * may have a second default for Intel CPUs (common_cvar_default).
 */
#ifndef CANAL_COMMON_CVAR_H
#define CANAL_COMMON_CVAR_H

#include <stddef.h>

typedef enum {
    CVAR_TYPE_INT,    /* decimal integer */
    CVAR_TYPE_SIZE,   /* byte count, accepts K/M/G suffixes */
    CVAR_TYPE_BOOL,   /* 0/1, yes/no, on/off, true/false */
    CVAR_TYPE_STRING, /* free text or one of a set of words */
} common_cvar_type_t;

typedef struct {
    const char *name;       /* without prefix: "EAGER_LIMIT" */
    common_cvar_type_t type;
    const char *defval;     /* default, as text */
    const char *mpich_name; /* MPIR_CVAR_ suffix with the same meaning, or NULL */
    const char *desc;       /* one line */
    const char *defval_intel; /* the default on Intel CPUs, where it differs (else NULL) */
} common_cvar_desc_t;

/* Number of registered variables and the i-th description (for canal-info, MPI_T). */
int common_cvar_count(void);
const common_cvar_desc_t *common_cvar_at(int i);
/* Index of a variable by name, or -1. */
int common_cvar_find(const char *name);

/* Current value: environment if set (CANAL_ first, then MPIR_CVAR_), else the
 * default. Asking for an unregistered name is a programming error and aborts. */
long long common_cvar_int(const char *name);
int common_cvar_bool(const char *name);
const char *common_cvar_str(const char *name);
/* The default on this machine: defval, or defval_intel on an Intel CPU (a
 * few shm thresholds measured to differ there; doc/design.md, "Defaults by
 * CPU"). */
const char *common_cvar_default(const common_cvar_desc_t *d);
/* Where the value came from: "default", "CANAL_X" or "MPIR_CVAR_X". */
const char *common_cvar_source(const char *name);

/* Parse helpers, shared with tools: return 0 and store, or -1 on bad text. */
int common_parse_size(const char *s, long long *out);
int common_parse_bool(const char *s, int *out);

#endif
