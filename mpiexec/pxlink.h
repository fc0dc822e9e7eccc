/*
 * Frames between mpiexec and its proxies (see mpiexec/pxlink.c), and the
 * frame types. Down (mpiexec -> proxy): MPX_F_JOB, MPX_F_ADDJOB (a spawned
 * PMI job), MPX_F_FENCE (the puts of all hosts), MPX_F_SPAWN (the answer to
 * a spawn), MPX_F_STDIN, MPX_F_SYNC, MPX_F_KILL, MPX_F_SIGNAL. Up (proxy ->
 * mpiexec): MPX_F_HELLO, MPX_F_STARTED, MPX_F_OUTPUT, MPX_F_EXIT, MPX_F_FENCE
 * (this host's puts), MPX_F_ABORT, MPX_F_SPAWN (a rank's request), MPX_F_SYNC
 * (answer: every rank that was dying here has been reported), MPX_F_STDIN
 * (bytes of rank 0's stdin passed on), MPX_F_ERROR; both ways MPX_F_NAME (a
 * rank's name publishing request, and mpiexec's answer).
 * Ranks are named by their index in mpiexec's list of all ranks of all PMI
 * jobs (the command line's job first), PMI jobs by their number.
 */
#ifndef CANAL_MPIEXEC_PXLINK_H
#define CANAL_MPIEXEC_PXLINK_H

#include <stddef.h>

enum { MPX_FRAME_MAX = 16 << 20 };

enum {
    MPX_F_HELLO = 'H',   /* hostname */
    MPX_F_JOB = 'J',     /* the job: see remote.c send_job() */
    MPX_F_STARTED = 'S', /* rank pid */
    MPX_F_OUTPUT = 'O',  /* rank stream(1|2) then raw bytes */
    MPX_F_EXIT = 'X',    /* rank wait-status initialized finalized */
    MPX_F_FENCE = 'F',   /* npairs key value ... */
    MPX_F_ABORT = 'A',   /* rank code message */
    MPX_F_ERROR = 'E',   /* message */
    MPX_F_KILL = 'K',    /* end the ranks (SIGTERM, SIGKILL after a grace) */
    MPX_F_SIGNAL = 'G',  /* signal number to forward */
    MPX_F_ADDJOB = 'N',  /* a spawned PMI job: see remote.c rm_job_part() */
    MPX_F_SPAWN = 'P',   /* up: rank plan (see remote.c); down: rank jobid|"" errmsg */
    MPX_F_STDIN = 'I',   /* down: raw bytes for rank 0's stdin, none: end of file;
                          * up: how many bytes of it left the proxy's queue */
    MPX_F_SYNC = 'Y',    /* down: report the ranks that are dying now; up: done */
    MPX_F_NAME = 'M',    /* up: rank op(p|l|u) service port; down: rank op status port */
    /* The proxy tree (fan-out, see remote.c): */
    MPX_F_TREE = 'T',  /* down: launcher launcher-exec n {host parent}: the proxies below */
    MPX_F_ROUTE = 'R', /* host, then a whole frame body: down, for that host's proxy;
                        * up, from it (a relay wraps what its children send) */
    MPX_F_GONE = 'Z',  /* up (routed): this host's proxy is gone: why */
};

typedef struct {
    char *buf;
    size_t len, cap;
    int bad;
} mpx_frame_t;

void mpx_frame_begin(mpx_frame_t *f, int type);
void mpx_frame_raw(mpx_frame_t *f, const void *p, size_t n);
void mpx_frame_str(mpx_frame_t *f, const char *s);
void mpx_frame_int(mpx_frame_t *f, long long v);
void mpx_frame_free(mpx_frame_t *f);
/* out = frame body (type byte first, len bytes) as a frame of its own. */
void mpx_frame_copy(mpx_frame_t *out, const char *body, size_t len);
/* out = MPX_F_ROUTE for host around frame body. */
void mpx_frame_wrap(mpx_frame_t *out, const char *host, const char *body, size_t len);
/* An MPX_F_ROUTE body: its host and the frame body inside; 0, or -1 when malformed. */
int mpx_frame_unwrap(const char *body, size_t len, const char **host, const char **inner,
                     size_t *inner_len);
/* Split a body (type byte first) into up to max fields; *rest is the offset
 * after the last one. The number of fields, or -1 if one is not terminated. */
int mpx_frame_fields(const char *body, size_t len, const char **fields, int max, size_t *rest);
/* A decimal field in lo..hi; sets *bad otherwise. */
long long mpx_field_int(const char *s, long long lo, long long hi, int *bad);

/* Reading the fields of a frame in order; bad is set when one is missing or
 * out of range (then "" and lo are returned). */
typedef struct {
    const char **fl;
    int nf, k, bad;
} mpx_fields_t;
const char *mpx_fields_str(mpx_fields_t *c);
long long mpx_fields_int(mpx_fields_t *c, long long lo, long long hi);
/* All fields of a frame body into a cursor (fl allocated, freed by the caller). */
int mpx_fields_split(const char *body, size_t len, mpx_fields_t *c, size_t *rest);

typedef struct {
    int rfd, wfd;
    char *in;
    size_t in_len, in_off, in_cap;
    char *out;
    size_t out_len, out_cap;
    int broken; /* a write failed: the other side is gone */
} mpx_link_t;

void mpx_link_init(mpx_link_t *l, int rfd, int wfd);
/* Queue a frame and write what the pipe takes. 0, or -1 when the link is broken. */
int mpx_link_send(mpx_link_t *l, mpx_frame_t *f);
int mpx_link_flush(mpx_link_t *l);
/* Read what is there: 0, 1 at end of file, -1 on error. */
int mpx_link_read(mpx_link_t *l);
/* Next whole frame: 1 (body valid until the next read), 0 none yet, -1 malformed. */
int mpx_link_take(mpx_link_t *l, const char **body, size_t *len);

#endif
