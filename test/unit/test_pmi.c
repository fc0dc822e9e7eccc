/*
 * Check unit tests of pmi/: the wire parser and builder (recorded Hydra
 * transcripts, garbage, oversized input), stream reassembly, the
 * PMI_process_mapping parser, launcher selection (singleton, clear errors),
 * and the PMI-1/PMI-2 clients against a scripted server on a socketpair.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmi/pmi.h"
#include "pmi/wire.h"
#include "test/unit/unit_limits.h"

/* ------------------------------------------------------------ parser */

START_TEST(parse1_transcript)
{
    /* Replies recorded from Debian's Hydra 4.0.2. */
    static const char *const lines[] = {
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
        "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
        "cmd=appnum appnum=0\n",
        "cmd=my_kvsname kvsname=kvs_7283_0_15026064_vm\n",
        "cmd=universe_size size=-1\n",
        "cmd=put_result rc=0 msg=success\n",
        "cmd=barrier_out\n",
        "cmd=get_result rc=0 msg=success value=v0\n",
        "cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown\n",
        "cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n",
        "cmd=lookup_result port=p1 info=ok rc=0 msg=success\n",
    };
    pmi_wire_msg_t m;
    int x;

    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_int_eq(pmi_wire_parse1(lines[i], strlen(lines[i]), &m), 0);
    ck_assert_str_eq(pmi_wire_cmd(&m), "lookup_result");
    ck_assert_str_eq(pmi_wire_get(&m, "port"), "p1");
    ck_assert_int_eq(pmi_wire_get_int(&m, "rc", &x), 0);
    ck_assert_int_eq(x, 0);
    ck_assert_ptr_null(pmi_wire_get(&m, "nothere"));
    ck_assert_int_eq(pmi_wire_get_int(&m, "nothere", &x), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_wire_get_int(&m, "info", &x), CANAL_ERR_PROTO);

    ck_assert_int_eq(pmi_wire_parse1(lines[9], strlen(lines[9]), &m), 0);
    ck_assert_str_eq(pmi_wire_get(&m, "value"), "(vector,(0,1,1))");
    /* a value may contain '=' */
    ck_assert_int_eq(pmi_wire_parse1("cmd=put key=a value=b=c", 23, &m), 0);
    ck_assert_str_eq(pmi_wire_get(&m, "value"), "b=c");
    /* blanks of any kind separate, extra blanks are fine, empty value too */
    ck_assert_int_eq(pmi_wire_parse1("  cmd=x \t a=  b=1 ", 18, &m), 0);
    ck_assert_int_eq(m.npairs, 3);
    ck_assert_str_eq(pmi_wire_get(&m, "a"), "");
    ck_assert_int_eq(pmi_wire_parse1("mcmd=spawn\n", 11, &m), 0);
}
END_TEST

START_TEST(parse1_garbage)
{
    pmi_wire_msg_t m;
    char big[PMI_WIRE_MSG_MAX + 100];
    char many[PMI_WIRE_PAIRS_MAX * 12 + 16];
    size_t n = 0;

    ck_assert_int_eq(pmi_wire_parse1("", 0, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse1("\n", 1, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse1("hello world\n", 12, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse1("key=v cmd=x\n", 12, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse1("cmd=x =v\n", 9, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse1("cmd=x a\0b=c", 11, &m), CANAL_ERR_PROTO);
    memset(big, 'a', sizeof big);
    memcpy(big, "cmd=", 4);
    ck_assert_int_eq(pmi_wire_parse1(big, sizeof big, &m), CANAL_ERR_LIMIT);
    /* exactly at the limit is accepted */
    ck_assert_int_eq(pmi_wire_parse1(big, PMI_WIRE_MSG_MAX, &m), 0);
    n += (size_t)sprintf(many, "cmd=x");
    for (int i = 0; i < PMI_WIRE_PAIRS_MAX; i++)
        n += (size_t)sprintf(many + n, " k%d=v", i);
    ck_assert_int_eq(pmi_wire_parse1(many, n, &m), CANAL_ERR_LIMIT);
    /* random bytes never crash */
    srand(42);
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = (size_t)(rand() % 300);
        for (size_t i = 0; i < len; i++)
            big[i] = (char)(rand() % 4 == 0 ? "=; \n"[rand() % 4] : rand() % 256);
        if (len > 4 && iter % 2)
            memcpy(big, "cmd=", 4);
        (void)pmi_wire_parse1(big, len, &m);
        (void)pmi_wire_parse2(big, len, &m);
    }
}
END_TEST

/* Found by test/fuzz/fuzz_pmi_wire: the error message for a line without
 * cmd= quoted the caller's bytes with %s and read past a line that is not
 * NUL-terminated (ASan: heap-buffer-overflow in common_err_set); and the
 * PMI-1 builder accepted an empty key that no reader accepts back. */
START_TEST(fuzz_findings_wire)
{
    static const char text[] = "\0cmgedr_et=sulp rc=0mg s=success";
    pmi_wire_msg_t m;
    pmi_wire_out_t out;
    size_t n = sizeof text - 2; /* without the leading NUL and the final one */
    char *line = malloc(n);    /* exactly n bytes, so a read past them is caught by ASan */

    memcpy(line, text + 1, n);
    ck_assert_int_eq(pmi_wire_parse1(line, n, &m), CANAL_ERR_PROTO);
    ck_assert_ptr_nonnull(strstr(common_err_detail(), "cmgedr_et"));
    free(line);

    pmi_wire_begin(&out, 1, "get");
    pmi_wire_add(&out, "", "v");
    ck_assert_int_eq(pmi_wire_end(&out), CANAL_ERR_ARG);
}
END_TEST

START_TEST(parse2_transcript)
{
    static const char *const bodies[] = {
        "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=1;size=2;appnum=0;"
        "debugged=FALSE;pmiverbose=FALSE;rc=0;",
        "cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,1));rc=0;",
        "cmd=info-getjobattr-response;found=FALSE;rc=0;",
        "cmd=kvs-put-response;rc=0;",
        "cmd=kvs-fence-response;rc=0;",
        "cmd=job-getid-response;jobid=kvs_7950_0_1908904145_vm;rc=0;",
        "cmd=name-lookup-response;port=p1;found=TRUE;rc=0;",
    };
    pmi_wire_msg_t m;
    int x;

    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        ck_assert_int_eq(pmi_wire_parse2(bodies[i], strlen(bodies[i]), &m), 0);
    ck_assert_int_eq(pmi_wire_parse2(bodies[0], strlen(bodies[0]), &m), 0);
    ck_assert_int_eq(pmi_wire_get_int(&m, "size", &x), 0);
    ck_assert_int_eq(x, 2);
    ck_assert_str_eq(pmi_wire_get(&m, "debugged"), "FALSE");
    /* ";;" is a literal ';' */
    ck_assert_int_eq(pmi_wire_parse2("cmd=kvs-put;key=k;value=v;;x;;;", 31, &m), 0);
    ck_assert_str_eq(pmi_wire_get(&m, "value"), "v;x;");
    ck_assert_int_eq(pmi_wire_parse2("cmd=a;b=;", 9, &m), 0);
    ck_assert_str_eq(pmi_wire_get(&m, "b"), "");
}
END_TEST

START_TEST(parse2_garbage)
{
    pmi_wire_msg_t m;
    ck_assert_int_eq(pmi_wire_parse2("", 0, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse2("cmd=x", 5, &m), CANAL_ERR_PROTO); /* no ';' */
    ck_assert_int_eq(pmi_wire_parse2("cmd=x;;", 7, &m),
                     CANAL_ERR_PROTO); /* escaped, unterminated */
    ck_assert_int_eq(pmi_wire_parse2("cmd=x;novalue;", 14, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse2("key=v;", 6, &m), CANAL_ERR_PROTO);
    ck_assert_int_eq(pmi_wire_parse2("cmd=x;=v;", 9, &m), CANAL_ERR_PROTO);
}
END_TEST

START_TEST(build_roundtrip)
{
    pmi_wire_out_t out;
    pmi_wire_msg_t m;
    char val[PMI_WIRE_MSG_MAX];

    pmi_wire_begin(&out, 1, "put");
    pmi_wire_add(&out, "key", "k");
    pmi_wire_add_int(&out, "n", -12);
    ck_assert_int_eq(pmi_wire_end(&out), 0);
    ck_assert_str_eq(out.buf, "cmd=put key=k n=-12\n");

    pmi_wire_begin(&out, 2, "kvs-put");
    pmi_wire_add(&out, "value", "a;b");
    ck_assert_int_eq(pmi_wire_end(&out), 0);
    ck_assert_str_eq(out.buf, "23    cmd=kvs-put;value=a;;b;");
    ck_assert_int_eq(pmi_wire_parse2(out.buf + 6, out.len - 6, &m), 0);
    ck_assert_str_eq(pmi_wire_get(&m, "value"), "a;b");

    /* PMI-1 values cannot carry blanks; oversized messages are refused */
    pmi_wire_begin(&out, 1, "put");
    pmi_wire_add(&out, "value", "a b");
    ck_assert_int_eq(pmi_wire_end(&out), CANAL_ERR_ARG);
    memset(val, 'x', sizeof val - 1);
    val[sizeof val - 1] = '\0';
    pmi_wire_begin(&out, 2, "kvs-put");
    pmi_wire_add(&out, "value", val);
    ck_assert_int_eq(pmi_wire_end(&out), CANAL_ERR_LIMIT);
    pmi_wire_begin(&out, 1, "put");
    pmi_wire_add(&out, "value", val);
    ck_assert_int_eq(pmi_wire_end(&out), CANAL_ERR_LIMIT);
}
END_TEST

/* ------------------------------------------------------------ reassembly */

static void feed(pmi_wire_reader_t *r, const char *s, size_t n)
{
    size_t room;
    char *p = pmi_wire_reader_space(r, &room);
    ck_assert_uint_ge(room, n);
    memcpy(p, s, n);
    pmi_wire_reader_fill(r, n);
}

START_TEST(reader_frames)
{
    pmi_wire_reader_t r;
    char out[PMI_WIRE_MSG_MAX + 1];
    size_t len;

    pmi_wire_reader_init(&r, 1);
    feed(&r, "cmd=a x=1\ncmd=b", 15);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 1);
    ck_assert_str_eq(out, "cmd=a x=1");
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 0);
    feed(&r, "\n", 1);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 1);
    ck_assert_str_eq(out, "cmd=b");

    /* switching to PMI-2 framing; headers padded left or right */
    r.version = 2;
    feed(&r, "    14cmd=kvs-fence;14    cmd=kvs-", 34);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 1);
    ck_assert_str_eq(out, "cmd=kvs-fence;");
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 0);
    feed(&r, "fence;", 6);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), 1);
    ck_assert_int_eq(len, 14);

    pmi_wire_reader_init(&r, 2);
    feed(&r, "1 2   cmd=x;", 12);
    ck_assert_int_lt(pmi_wire_reader_take(&r, out, sizeof out, &len), 0);
    pmi_wire_reader_init(&r, 2);
    feed(&r, "abcdef", 6);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), CANAL_ERR_PROTO);
    pmi_wire_reader_init(&r, 2);
    feed(&r, "999999", 6);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), CANAL_ERR_LIMIT);
    pmi_wire_reader_init(&r, 2);
    feed(&r, "      ", 6);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), CANAL_ERR_PROTO);
}
END_TEST

START_TEST(reader_overlong_line)
{
    pmi_wire_reader_t r;
    char out[64], chunk[1000];
    size_t len, room;
    canal_status_t st = 0;

    pmi_wire_reader_init(&r, 1);
    memset(chunk, 'a', sizeof chunk);
    /* a peer that never sends a newline is cut off at the limit, not buffered forever */
    for (int i = 0; i < PMI_WIRE_MSG_MAX / (int)sizeof chunk + 5 && st == 0; i++) {
        pmi_wire_reader_space(&r, &room);
        if (room == 0)
            break;
        feed(&r, chunk, room < sizeof chunk ? room : sizeof chunk);
        st = pmi_wire_reader_take(&r, out, sizeof out, &len);
    }
    ck_assert_int_eq(st, CANAL_ERR_LIMIT);
    /* a message larger than the caller's buffer is dropped with TRUNCATE */
    pmi_wire_reader_init(&r, 1);
    feed(&r, "cmd=0123456789012345678901234567890123456789012345678901234567890123456789\n", 75);
    ck_assert_int_eq(pmi_wire_reader_take(&r, out, sizeof out, &len), CANAL_ERR_TRUNCATE);
    ck_assert_uint_eq(r.len, 0);
}
END_TEST

/* ------------------------------------------------------------ mapping */

START_TEST(mapping_formats)
{
    int node_of[16], nn;

    ck_assert_int_eq(pmi_wire_parse_mapping("(vector,(0,1,1))", 3, node_of, &nn), 0);
    ck_assert_int_eq(nn, 1);
    ck_assert_int_eq(node_of[2], 0);
    /* two nodes of 4 ranks each, block placement */
    ck_assert_int_eq(pmi_wire_parse_mapping("(vector,(0,2,4))", 8, node_of, &nn), 0);
    ck_assert_int_eq(nn, 2);
    ck_assert_int_eq(node_of[3], 0);
    ck_assert_int_eq(node_of[4], 1);
    /* cyclic: the vector repeats */
    ck_assert_int_eq(pmi_wire_parse_mapping("(vector,(0,2,1))", 5, node_of, &nn), 0);
    ck_assert_int_eq(node_of[0], 0);
    ck_assert_int_eq(node_of[1], 1);
    ck_assert_int_eq(node_of[4], 0);
    /* several blocks, with blanks */
    ck_assert_int_eq(pmi_wire_parse_mapping(" ( vector, (0,1,3), (1, 2, 2) )", 7, node_of, &nn), 0);
    ck_assert_int_eq(node_of[2], 0);
    ck_assert_int_eq(node_of[3], 1);
    ck_assert_int_eq(node_of[5], 2);
    ck_assert_int_eq(node_of[6], 2);
    ck_assert_int_eq(nn, 3);
}
END_TEST

START_TEST(mapping_garbage)
{
    static const char *const bad[] = {
        "",
        "(",
        "vector",
        "(vector)",
        "(vector,)",
        "(vector,(0,1))",
        "(vector,(0,1,1)",
        "(vector,(0,1,1)) x",
        "(vector,(a,1,1))",
        "(vector,(0,0,0))",
        "(vector,(-1,1,1))",
        "(vector,(0,1,99999999999))",
        "(scalar,(0,1,1))",
        "(vector;(0,1,1))",
    };
    int node_of[8], nn;
    char big[20000];
    size_t n;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(pmi_wire_parse_mapping(bad[i], 8, node_of, &nn) < 0, "accepted '%s'", bad[i]);
    /* too many blocks */
    n = (size_t)sprintf(big, "(vector");
    for (int i = 0; i < 1000; i++)
        n += (size_t)sprintf(big + n, ",(%d,1,1)", i);
    sprintf(big + n, ")");
    ck_assert_int_lt(pmi_wire_parse_mapping(big, 8, node_of, &nn), 0);
}
END_TEST

/* ------------------------------------------------------------ selection */

static void clear_launcher_env(void)
{
    static const char *const vars[] = {"PMI_FD",
                                       "PMI_PORT",
                                       "PMI_ID",
                                       "PMI_RANK",
                                       "PMI_SIZE",
                                       "PMI_JOBID",
                                       "PMIX_NAMESPACE",
                                       "PMIX_RANK",
                                       "PMIX_SERVER_URI41",
                                       "SLURM_STEP_NUM_TASKS",
                                       "SLURM_JOB_ID",
                                       "OMPI_COMM_WORLD_SIZE",
                                       "CANAL_PMI"};
    extern char **environ;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    /* drop any PMIX_* a surrounding launcher left */
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e != NULL; e++) {
            if (strncmp(*e, "PMIX_", 5) == 0) {
                char name[256];
                size_t k = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)k, *e);
                unsetenv(name);
                again = 1;
                break;
            }
        }
    }
}

START_TEST(singleton_kvs)
{
    pmi_info_t info;
    char v[PMI_VAL_MAX + 1];

    clear_launcher_env();
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(info.kind, PMI_KIND_SINGLETON);
    ck_assert_int_eq(info.size, 1);
    ck_assert_int_eq(info.local_size, 1);
    ck_assert_int_eq(info.local_ranks[0], 0);
    ck_assert_int_eq(info.nnodes, 1);
    ck_assert(strncmp(info.jobid, "singleton-", 10) == 0);
    ck_assert_int_eq(pmi_put("card", "tcp://1.2.3.4:5"), 0);
    ck_assert_int_eq(pmi_fence(), 0);
    ck_assert_int_eq(pmi_get(0, "card", v, sizeof v), 0);
    ck_assert_str_eq(v, "tcp://1.2.3.4:5");
    ck_assert_int_eq(pmi_get(0, "card", v, 4), CANAL_ERR_TRUNCATE);
    ck_assert_int_eq(pmi_get(1, "card", v, sizeof v), CANAL_ERR_ARG);
    ck_assert_int_eq(pmi_get(0, "nope", v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_put("bad key", "v"), CANAL_ERR_ARG);
    ck_assert_int_eq(pmi_put("k", "bad value"), CANAL_ERR_ARG);
    ck_assert_int_eq(pmi_put("k", "semi;colon"), CANAL_ERR_ARG);
    ck_assert_int_eq(pmi_put("k", "tab\there"), CANAL_ERR_ARG);
    ck_assert_int_eq(pmi_put("k", "a=b,c:d/e+f"), 0);
    memset(v, 'x', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    ck_assert_int_eq(pmi_put("k", v), CANAL_ERR_LIMIT);
    ck_assert_int_eq(pmi_node_get("na", 0, v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_node_put("na", "1"), 0);
    ck_assert_int_eq(pmi_node_get("na", 1, v, sizeof v), 0);
    ck_assert_str_eq(v, "1");
    ck_assert_int_eq(pmi_publish("svc", "port"), 0);
    ck_assert_int_eq(pmi_lookup("svc", v, sizeof v), 0);
    ck_assert_str_eq(v, "port");
    ck_assert_int_eq(pmi_unpublish("svc"), 0);
    ck_assert_int_eq(pmi_lookup("svc", v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_finalize(), 0);
    pmi_info_free(&info);
}
END_TEST

static void expect_refusal(const char *var, const char *val, const char *words)
{
    pmi_info_t info;
    canal_status_t st;
    clear_launcher_env();
    setenv(var, val, 1);
    st = pmi_init(&info);
    ck_assert_msg(st < 0, "%s=%s gave a silent singleton", var, val);
    ck_assert_msg(strstr(common_err_detail(), words) != NULL, "message '%s' does not name '%s'",
                  common_err_detail(), words);
}

START_TEST(launcher_refusals)
{
    pmi_info_t info;
    expect_refusal("SLURM_STEP_NUM_TASKS", "4", "srun");
    expect_refusal("OMPI_COMM_WORLD_SIZE", "2", "Open MPI");
    expect_refusal("PMI_SIZE", "4", "PMI_FD");
    expect_refusal("PMIX_RANK", "1", "PMIX_NAMESPACE");
    expect_refusal("CANAL_PMI", "pmi2", "PMI_FD");
    expect_refusal("CANAL_PMI", "bogus", "CANAL_PMI");
    /* one task under srun without PMI is a legitimate singleton */
    clear_launcher_env();
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(pmi_finalize(), 0);
    pmi_info_free(&info);
}
END_TEST

/* ------------------------------------------------------------ scripted server */

/* A fake PMI server in a child: for each step, read one message (PMI-1 line or
 * PMI-2 frame) and answer with the given raw bytes. Returns the child pid; the
 * client end of the socketpair is exported as PMI_FD. */
typedef struct {
    const char *reply; /* PMI-2 replies get their length header, unless it starts with '!' */
} step_t;

static pid_t scripted_server_expect(const step_t *steps, const char *const *expects, int nsteps);

static pid_t scripted_server(const step_t *steps, int nsteps)
{
    return scripted_server_expect(steps, NULL, nsteps);
}

/* As scripted_server; message i must contain expects[i] (when not NULL), or
 * the server exits with status 4. A step whose reply is NULL answers nothing. */
static pid_t scripted_server_expect(const step_t *steps, const char *const *expects, int nsteps)
{
    int sv[2];
    pid_t pid;
    char fdnum[16];

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        pmi_wire_reader_t r;
        char msg[PMI_WIRE_MSG_MAX + 1];
        size_t len;
        close(sv[0]);
        pmi_wire_reader_init(&r, 1);
        for (int i = 0; i < nsteps; i++) {
            for (;;) {
                size_t room;
                char *p;
                ssize_t n;
                canal_status_t st = pmi_wire_reader_take(&r, msg, sizeof msg, &len);
                if (st == 1)
                    break;
                if (st < 0)
                    _exit(2);
                p = pmi_wire_reader_space(&r, &room);
                n = read(sv[1], p, room);
                if (n <= 0)
                    _exit(0);
                pmi_wire_reader_fill(&r, (size_t)n);
            }
            if (expects != NULL && expects[i] != NULL && strstr(msg, expects[i]) == NULL)
                _exit(4);
            if (steps[i].reply != NULL) {
                char frame[PMI_WIRE_MSG_MAX + 8];
                if (steps[i].reply[0] == '!')
                    snprintf(frame, sizeof frame, "%s", steps[i].reply + 1);
                else if (r.version == 2)
                    snprintf(frame, sizeof frame, "%-6zu%s", strlen(steps[i].reply),
                             steps[i].reply);
                else
                    snprintf(frame, sizeof frame, "%s", steps[i].reply);
                if (write(sv[1], frame, strlen(frame)) < 0)
                    _exit(3);
            }
            if (strstr(msg, "pmi_version=2") != NULL)
                r.version = 2;
        }
        _exit(0);
    }
    close(sv[1]);
    snprintf(fdnum, sizeof fdnum, "%d", sv[0]);
    clear_launcher_env();
    setenv("PMI_FD", fdnum, 1);
    return pid;
}

START_TEST(pmi1_against_script)
{
    static const step_t steps[] = {
        {"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"},
        {"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
        {"cmd=my_kvsname kvsname=kvs_test_1\n"},
        {"cmd=appnum appnum=1\n"},
        {"cmd=universe_size size=8\n"},
        {"cmd=get_result rc=0 msg=success value=(vector,(0,2,2))\n"},
        {"cmd=put_result rc=0 msg=success\n"},
        {"cmd=barrier_out\n"},
        {"cmd=get_result rc=0 msg=success value=hello\n"},
        {"cmd=get_result rc=-1 msg=key_x_not_found value=unknown\n"},
        {"cmd=finalize_ack\n"},
    };
    pmi_info_t info;
    char v[64];
    int status;
    pid_t pid = scripted_server(steps, (int)(sizeof steps / sizeof steps[0]));

    setenv("PMI_RANK", "2", 1);
    setenv("PMI_SIZE", "4", 1);
    setenv("CANAL_PMI", "pmi1", 1);
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(info.kind, PMI_KIND_PMI1);
    ck_assert_int_eq(info.rank, 2);
    ck_assert_int_eq(info.size, 4);
    ck_assert_int_eq(info.appnum, 1);
    ck_assert_int_eq(info.universe_size, 8);
    ck_assert_str_eq(info.jobid, "kvs_test_1");
    ck_assert_int_eq(info.nnodes, 2);
    ck_assert_int_eq(info.local_size, 2);
    ck_assert_int_eq(info.local_ranks[0], 2);
    ck_assert_int_eq(info.local_ranks[1], 3);
    ck_assert_int_eq(info.local_rank, 0);
    ck_assert_int_eq(pmi_put("k", "hello"), 0);
    ck_assert_int_eq(pmi_fence(), 0);
    ck_assert_int_eq(pmi_get(0, "k", v, sizeof v), 0);
    ck_assert_str_eq(v, "hello");
    ck_assert_int_eq(pmi_get(1, "x", v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_finalize(), 0);
    pmi_info_free(&info);
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(pmi2_against_script)
{
    static const step_t steps[] = {
        {"cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"},
        {"cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=1;size=3;appnum=0;"
         "debugged=FALSE;pmiverbose=FALSE;rc=0;"},
        {"cmd=job-getid-response;jobid=job;;semi;rc=0;"},
        {"cmd=info-getjobattr-response;found=FALSE;rc=0;"},
        {"cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,1));rc=0;"},
        {"cmd=kvs-put-response;rc=0;"},
        {"cmd=kvs-fence-response;rc=0;"},
        {"cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;"},
        {"cmd=kvs-get-response;rc=0;found=FALSE;"},
        {"cmd=info-putnodeattr-response;rc=0;"},
        {"cmd=info-getnodeattr-response;rc=0;found=TRUE;value=seg1;"},
        {"cmd=info-getnodeattr-response;rc=0;found=FALSE;"},
        {"cmd=finalize-response;rc=0;"},
    };
    pmi_info_t info;
    char v[64];
    int status;
    pid_t pid = scripted_server(steps, (int)(sizeof steps / sizeof steps[0]));

    setenv("CANAL_PMI", "pmi2", 1);
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(info.kind, PMI_KIND_PMI2);
    ck_assert_int_eq(info.rank, 1);
    ck_assert_int_eq(info.size, 3);
    ck_assert_str_eq(info.jobid, "job;semi");
    ck_assert_int_eq(info.local_size, 3);
    ck_assert_int_eq(pmi_put("k", "v"), 0);
    ck_assert_int_eq(pmi_fence(), 0);
    ck_assert_int_eq(pmi_get(0, "k", v, sizeof v), 0);
    ck_assert_str_eq(v, "a;b");
    ck_assert_int_eq(pmi_get(2, "k", v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_node_put("shm", "seg1"), 0);
    ck_assert_int_eq(pmi_node_get("shm", 1, v, sizeof v), 0);
    ck_assert_str_eq(v, "seg1");
    ck_assert_int_eq(pmi_node_get("none", 0, v, sizeof v), CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(pmi_finalize(), 0);
    pmi_info_free(&info);
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* Boot replies of a PMI-1 server, as pmi1_init asks for them. */
#define PMI1_BOOT                                                                                  \
    {"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"},                                \
        {"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"},                             \
        {"cmd=my_kvsname kvsname=kvs_1\n"}, {"cmd=appnum appnum=0\n"},                             \
        {"cmd=universe_size size=2\n"},                                                            \
    {                                                                                              \
        "cmd=get_result rc=-1 msg=key_not_found\n"                                                 \
    }

START_TEST(pmi1_spawn_wire)
{
    static const step_t steps[] = {
        PMI1_BOOT,
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {NULL},
        {"cmd=spawn_result rc=0 jobid=kvs_2\n"},
        {"cmd=get_result rc=0 msg=success value=tcp://x\n"},
    };
    static const char *const expects[] = {
        "pmi_version=1",
        "get_maxes",
        "get_my_kvsname",
        "get_appnum",
        "get_universe_size",
        "get",
        "mcmd=spawn",
        "nprocs=3",
        "execname=/bin/prog",
        "totspawns=1",
        "spawnssofar=1",
        "argcnt=3",
        "arg1=-x",
        "arg2= y=z; w ",
        "arg3=",
        "preput_num=1",
        "preput_key_0=PORT",
        "preput_val_0=tcp://x",
        "info_num=0",
        "endcmd",
        "key=PORT",
    };
    const char *args[] = {"-x", " y=z; w ", "", NULL};
    const char *k[] = {"PORT"}, *v[] = {"tcp://x"};
    pmi_spawn_cmd_t cmd = {.command = "/bin/prog", .argv = args, .maxprocs = 3};
    pmi_info_t info;
    char job[64], val[64];
    int status;
    pid_t pid = scripted_server_expect(steps, expects, (int)(sizeof steps / sizeof steps[0]));

    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "2", 1);
    setenv("PMI_SPAWNED", "1", 1);
    setenv("CANAL_PMI", "pmi1", 1);
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(pmi_spawned(), 1);
    ck_assert_int_eq(pmi_spawn(1, &cmd, 1, k, v, job, sizeof job), 0);
    ck_assert_str_eq(job, "kvs_2");
    ck_assert_int_eq(pmi_get_job("PORT", val, sizeof val), 0);
    ck_assert_str_eq(val, "tcp://x");
    /* what PMI-1 cannot carry is refused before anything is sent (blanks,
     * ';', '=' and empty arguments travel: a PMI-1 spawn block has one
     * key=value per line), with a message naming the argument */
    args[0] = "a\nb";
    ck_assert_int_eq(pmi_spawn(1, &cmd, 0, NULL, NULL, job, sizeof job), CANAL_ERR_ARG);
    ck_assert_msg(strstr(common_err_detail(), "argument 0 of command 0") != NULL, "%s",
                  common_err_detail());
    cmd.maxprocs = 0;
    ck_assert_int_eq(pmi_spawn(1, &cmd, 0, NULL, NULL, job, sizeof job), CANAL_ERR_ARG);
    (void)pmi_finalize(); /* the script has ended: this only resets the client */
    pmi_info_free(&info);
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server saw a wrong request");
}
END_TEST

START_TEST(pmi2_spawn_wire)
{
    static const step_t steps[] = {
        {"cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"},
        {"cmd=fullinit-response;rank=0;size=1;appnum=0;spawner-jobid=parentjob;rc=0;"},
        {"cmd=job-getid-response;jobid=job1;rc=0;"},
        {"cmd=info-getjobattr-response;found=FALSE;rc=0;"},
        {"cmd=info-getjobattr-response;found=FALSE;rc=0;"},
        {"cmd=spawn-response;rc=0;jobid=job2;nerrs=0;"},
    };
    static const char *const expects[] = {
        "pmi_version=2",
        "cmd=fullinit;",
        "job-getid",
        "universeSize",
        "PMI_process_mapping",
        "cmd=spawn;ncmds=2;preputcount=1;ppkey0=PORT;ppval0=p;subcmd=/bin/a;maxprocs=1;argc=1;"
        "argv0=with blank;infokeycount=1;infokey0=wdir;infoval0=/tmp;subcmd=/bin/b;maxprocs=2;"
        "argc=0;infokeycount=0;",
    };
    const char *args[] = {"with blank", NULL};
    const char *ik[] = {"wdir"}, *iv[] = {"/tmp"};
    const char *k[] = {"PORT"}, *v[] = {"p"};
    pmi_spawn_cmd_t cmds[2] = {
        {.command = "/bin/a",
         .argv = args,
         .maxprocs = 1,
         .ninfo = 1,
         .info_keys = ik,
         .info_vals = iv},
        {.command = "/bin/b", .maxprocs = 2},
    };
    pmi_info_t info;
    char job[64];
    int status;
    pid_t pid = scripted_server_expect(steps, expects, (int)(sizeof steps / sizeof steps[0]));

    setenv("CANAL_PMI", "pmi2", 1);
    ck_assert_int_eq(pmi_init(&info), 0);
    ck_assert_int_eq(pmi_spawned(), 1);
    ck_assert_int_eq(pmi_spawn(2, cmds, 1, k, v, job, sizeof job), 0);
    ck_assert_str_eq(job, "job2");
    (void)pmi_finalize();
    pmi_info_free(&info);
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server saw a wrong request");
}
END_TEST

START_TEST(client_survives_hostile_server)
{
    /* Each script breaks the protocol at some point: the client must report an
     * error, not crash or hang. */
    static const step_t s1[] = {{"garbage without newline and then EOF"}};
    static const step_t s2[] = {{"cmd=response_to_init pmi_version=1 rc=0\n"},
                                {"cmd=wrong_answer\n"}};
    static const step_t s3[] = {{"cmd=response_to_init pmi_version=1 rc=0\n"},
                                {"cmd=maxes vallen_max=1024\n"},
                                {"cmd=my_kvsname\n"}};
    static const step_t s4[] = {{"cmd=response_to_init pmi_version=3 rc=0\n"}};
    static const step_t s5[] = {{"cmd=response_to_init pmi_version=2 rc=0\n"}, {"!999999xxxx"}};
    static const step_t s6[] = {{"cmd=response_to_init pmi_version=2 rc=0\n"},
                                {"cmd=fullinit-response;rank=7;size=3;rc=0;"}};
    struct {
        const step_t *s;
        int n;
        const char *pmi;
    } cases[] = {{s1, 1, "pmi1"}, {s2, 2, "pmi1"}, {s3, 3, "pmi1"},
                 {s4, 1, "pmi1"}, {s5, 2, "pmi2"}, {s6, 2, "pmi2"}};

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pmi_info_t info;
        int status;
        pid_t pid = scripted_server(cases[i].s, cases[i].n);
        setenv("PMI_RANK", "0", 1);
        setenv("PMI_SIZE", "2", 1);
        setenv("CANAL_PMI", cases[i].pmi, 1);
        ck_assert_msg(pmi_init(&info) < 0, "script %zu accepted", i);
        ck_assert_msg(common_err_detail()[0] != '\0', "script %zu: no error detail", i);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
}
END_TEST

/* Secrets never reach a PMI trace: the one list of secret keys, and the
 * redaction of their values in every framing. */
START_TEST(redact_secrets)
{
    static const struct {
        const char *msg;
        int reply_secret, names;
        const char *want;
    } cases[] = {
        {"cmd=kvs-put;key=sock-secret-0;value=abcdef;", 0, 1,
         "cmd=kvs-put;key=sock-secret-0;value=<secret>;"},
        {"42    cmd=kvs-get;jobid=j;srcid=0;key=sock-secret-0;", 0, 1,
         "42    cmd=kvs-get;jobid=j;srcid=0;key=sock-secret-0;"},
        {"cmd=kvs-get-response;rc=0;found=TRUE;value=abcdef;", 1, 0,
         "cmd=kvs-get-response;rc=0;found=TRUE;value=<secret>;"},
        {"cmd=kvs-get-response;rc=0;found=TRUE;value=card;", 0, 0,
         "cmd=kvs-get-response;rc=0;found=TRUE;value=card;"},
        {"cmd=put kvsname=k key=sock-secret-3 value=abcdef\n", 0, 1,
         "cmd=put kvsname=k key=sock-secret-3 value=<secret>\n"},
        {"cmd=get_result rc=0 msg=success value=abcdef\n", 1, 0,
         "cmd=get_result rc=0 msg=success value=<secret>\n"},
        {"cmd=spawn;ncmds=1;preputcount=1;ppkey0=canal-parent-port;ppval0=canal-port:j:0:1/ab@h;"
         "subcmd=/p;argv0=a;;b;",
         0, 1,
         "cmd=spawn;ncmds=1;preputcount=1;ppkey0=canal-parent-port;ppval0=<secret>;"
         "subcmd=/p;argv0=a;;b;"},
        {"mcmd=spawn\narg1=two words\npreput_key_0=canal-parent-port\npreput_val_0=x/ab@h\n", 0, 1,
         "mcmd=spawn\narg1=two words\npreput_key_0=canal-parent-port\npreput_val_0=<secret>\n"},
        {"cmd=publish_name service=s port=canal-port:x/ab@h\n", 0, 0,
         "cmd=publish_name service=s port=<secret>\n"},
        {"cmd=lookup_name service=s\n", 0, 1, "cmd=lookup_name service=s\n"},
        {"cmd=kvs-put;key=sock-0;value=1.2.3.4:5;", 0, 0,
         "cmd=kvs-put;key=sock-0;value=1.2.3.4:5;"},
    };
    char out[512], tiny[8];

    ck_assert(pmi_wire_key_secret("sock-secret"));
    ck_assert(pmi_wire_key_secret("sock-secret-12"));
    ck_assert(pmi_wire_key_secret("canal-parent-port"));
    ck_assert(!pmi_wire_key_secret("sock-secretive"));
    ck_assert(!pmi_wire_key_secret("sock-secret-"));
    ck_assert(!pmi_wire_key_secret("sock-0"));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int names = pmi_wire_redact(cases[i].msg, strlen(cases[i].msg), cases[i].reply_secret, out,
                                    sizeof out);
        ck_assert_msg(strcmp(out, cases[i].want) == 0, "case %zu: '%s'", i, out);
        ck_assert_msg(names == cases[i].names, "case %zu: names %d", i, names);
    }
    /* cut, never overflowed */
    pmi_wire_redact(cases[0].msg, strlen(cases[0].msg), 0, tiny, sizeof tiny);
    ck_assert_str_eq(tiny, "cmd=kvs");
}
END_TEST

static Suite *pmi_suite(void)
{
    Suite *s = suite_create("pmi");
    TCase *wire = tcase_create("wire");
    tcase_set_timeout(wire, unit_case_timeout_s());
    TCase *client = tcase_create("client");

    tcase_add_test(wire, parse1_transcript);
    tcase_add_test(wire, parse1_garbage);
    tcase_add_test(wire, fuzz_findings_wire);
    tcase_add_test(wire, parse2_transcript);
    tcase_add_test(wire, parse2_garbage);
    tcase_add_test(wire, build_roundtrip);
    tcase_add_test(wire, reader_frames);
    tcase_add_test(wire, reader_overlong_line);
    tcase_add_test(wire, mapping_formats);
    tcase_add_test(wire, mapping_garbage);
    tcase_add_test(wire, redact_secrets);
    suite_add_tcase(s, wire);
    tcase_add_test(client, singleton_kvs);
    tcase_add_test(client, launcher_refusals);
    tcase_add_test(client, pmi1_against_script);
    tcase_add_test(client, pmi2_against_script);
    tcase_add_test(client, pmi1_spawn_wire);
    tcase_add_test(client, pmi2_spawn_wire);
    tcase_add_test(client, client_survives_hostile_server);
    tcase_set_timeout(client, unit_case_timeout_s());
    suite_add_tcase(s, client);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pmi_suite());
    int failed;
    /* the scripted servers hang up when their script ends: that is no dead
     * launcher to end the test process for (test/launch/mpiexec.sh tests the watch) */
    setenv("CANAL_PMI_WATCH", "0", 1);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
