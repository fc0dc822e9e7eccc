/*
 * libFuzzer target: the PMI-1 and PMI-2 clients (pmi/pmi1.c, pmi/pmi2.c,
 * pmi/conn.c) reading the answers of a server that says whatever the input
 * says. The input (after one selector byte) is written into one end of a
 * socketpair, that end is shut for writing, and the client runs init, put,
 * fence, get, lookup and finalize on the other end (as if started with
 * PMI_FD); its requests pile up unread in the socket buffer. The process
 * mapping a successful init returns is parsed as pmi/pmi.c would.
 * Selector bit 0: PMI-1 or PMI-2. The PMI_PORT path (connect + initack) is
 * not covered: it needs a listening socket per input.
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmi/pmi_impl.h"
#include "fuzz.h"

static void check_mapping(const pmi_boot_t *b)
{
    int size = b->size < 4096 ? b->size : 4096, nnodes;
    int *node_of;

    if (b->mapping[0] == '\0' || size <= 0)
        return;
    node_of = malloc(sizeof *node_of * (size_t)size);
    if (pmi_wire_parse_mapping(b->mapping, size, node_of, &nnodes) == CANAL_OK)
        for (int i = 0; i < size; i++)
            if (node_of[i] < 0 || node_of[i] >= nnodes)
                abort();
    free(node_of);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    size_t off = 0;
    pmi_endpoint_t ep;
    pmi_boot_t boot;
    char val[PMI_VAL_MAX + 1];
    int v2;

    if (size < 1)
        return 0;
    v2 = data[0] & 1;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    while (off < size - 1) {
        ssize_t n = write(sv[0], data + 1 + off, size - 1 - off);
        if (n <= 0)
            abort(); /* the inputs are far smaller than a socket buffer */
        off += (size_t)n;
    }
    shutdown(sv[0], SHUT_WR);
    memset(&ep, 0, sizeof ep);
    ep.fd = sv[1];
    ep.id = -1;
    ep.env_rank = 0;
    ep.env_size = 2;
    memset(&boot, 0, sizeof boot);
    if (!v2) {
        if (pmi1_init(&ep, &boot) == CANAL_OK) {
            if (boot.rank < 0 || boot.rank >= boot.size)
                abort();
            check_mapping(&boot);
            (void)pmi1_put("key", "value");
            (void)pmi1_fence();
            (void)pmi1_get(1, "key", val, sizeof val);
            (void)pmi1_lookup("service", val, sizeof val);
            (void)pmi1_finalize(); /* closes sv[1] */
        }
    } else {
        if (pmi2_init(&ep, &boot) == CANAL_OK) {
            if (boot.rank < 0 || boot.rank >= boot.size)
                abort();
            check_mapping(&boot);
            (void)pmi2_put("key", "value");
            (void)pmi2_fence();
            (void)pmi2_get(1, "key", val, sizeof val);
            (void)pmi2_node_get("node", 0, val, sizeof val);
            (void)pmi2_lookup("service", val, sizeof val);
            (void)pmi2_finalize();
        }
    }
    /* init closed sv[1] on failure, finalize on success */
    close(sv[0]);
    return 0;
}
