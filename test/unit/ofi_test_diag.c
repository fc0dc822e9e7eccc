/*
 * The hang report of the ofi channel tests (see ofi_test_diag.h).
 */
#include "test/unit/ofi_test_diag.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channels/ofi/ofi.h"

enum { DIAG_SOCKS_MAX = 256 };

/* The inodes of this process's sockets; their number. */
static int socket_inodes(unsigned long *ino, int max)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return 0;
    while (n < max && (e = readdir(d)) != NULL) {
        char path[300], link[64];
        ssize_t len;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        len = readlink(path, link, sizeof link - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        if (sscanf(link, "socket:[%lu]", &ino[n]) == 1)
            n++;
    }
    closedir(d);
    return n;
}

static const char *tcp_state(unsigned st)
{
    static const char *const names[] = {"?",          "ESTAB",     "SYN-SENT", "SYN-RECV",
                                        "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "CLOSE",
                                        "CLOSE-WAIT", "LAST-ACK",  "LISTEN",   "CLOSING"};
    return st < sizeof names / sizeof names[0] ? names[st] : "?";
}

void ofi_test_diag_sockets(FILE *f)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    unsigned long ino[DIAG_SOCKS_MAX];
    int nino = socket_inodes(ino, DIAG_SOCKS_MAX), shown = 0;

    fprintf(f, "  TCP sockets of pid %d (ports; bytes queued in the kernel):\n", (int)getpid());
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        FILE *in = fopen(files[k], "r");
        char line[512];
        if (in == NULL)
            continue;
        while (fgets(line, sizeof line, in) != NULL) {
            unsigned lport, rport, st;
            unsigned long txq, rxq, inode;
            if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x %x %lx:%lx %*x:%*x %*x %*u "
                       "%*d %lu", &lport, &rport, &st, &txq, &rxq, &inode) != 6)
                continue;
            for (int i = 0; i < nino; i++)
                if (ino[i] == inode) {
                    fprintf(f, "    %-10s :%u -> :%u  send-q %lu  recv-q %lu\n", tcp_state(st),
                            lport, rport, txq, rxq);
                    shown++;
                    break;
                }
        }
        fclose(in);
    }
    if (shown == 0)
        fprintf(f, "    (none)\n");
}

void ofi_test_diag(FILE *f, ch_endpoint_t *ep, const char *label)
{
    char text[4096];

    ch_ofi_state_text(ep, text, sizeof text);
    fprintf(f, "  %s%s%s", label != NULL ? label : "", label != NULL ? ": " : "", text);
}

void ofi_test_use_loopback(void)
{
    setenv("FI_TCP_IFACE", "lo", 0);
    setenv("FI_NET_IFACE", "lo", 0);
}
