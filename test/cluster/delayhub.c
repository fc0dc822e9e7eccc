/*
 * delayhub: a user-space Ethernet switch that delays frames, for the
 * namespace cluster (test/cluster/netns.sh) on kernels without sch_netem.
 *
 *   delayhub -d DELAY_US [-u UPLINK] [-b] [-e EARLY_US] [-s STATS_FILE] IFACE...
 *
 * Each IFACE (the root-namespace ends of the hosts' veth pairs) is opened
 * with an AF_PACKET socket; a frame read on one port goes out of the port
 * its destination MAC was last seen on (flooded to every other port when
 * the MAC is unknown, broadcast or multicast). A frame between two host
 * ports leaves DELAY_US after the kernel received it (SO_TIMESTAMPNS, so
 * the time this program waits to be scheduled counts inside the delay, not
 * on top of it); frames to or from the UPLINK port (the bridge where
 * mpiexec and Hydra's server live) are not delayed. The delay is fixed, so
 * the queue of delayed frames is a FIFO whose deadlines never decrease; the
 * program sleeps on a timerfd armed EARLY_US (default 20) before the head's
 * deadline (timer slack 1 ns), since a timer wakes a process some 15 µs
 * late on this VM, and spins through the rest; with -b it busy-polls all
 * the time (costs a core). Frames carry a virtio-net header
 * (PACKET_VNET_HDR) both ways, so TSO/GSO frames cross whole and checksum
 * offload survives: the element forwards 64 KiB segments, not 1500-byte
 * ones.
 *
 * On SIGTERM/SIGINT (and SIGUSR1, without exiting) it writes to STATS_FILE
 * (default stderr) the frames forwarded and dropped, and how late the
 * delayed ones left after their deadline: mean, 99th percentile and max in
 * µs, the element's own cost on top of the configured delay.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum {
    HUB_PORTS_MAX = 64,
    HUB_MACS_MAX = 256,
    HUB_QUEUE_MAX = 16384,
    HUB_FRAME_MAX = 65536 + sizeof(struct virtio_net_hdr),
    HUB_LATE_BUCKETS = 10000, /* lateness histogram, 1 µs buckets */
};

typedef struct {
    int64_t deadline; /* ns, CLOCK_REALTIME */
    int out;          /* port */
    size_t len;
    unsigned char *data;
} hub_frame_t;

static struct {
    int nports, uplink, busy;
    int fd[HUB_PORTS_MAX];
    char name[HUB_PORTS_MAX][IF_NAMESIZE];
    int64_t delay_ns, early_ns;
    unsigned char mac[HUB_MACS_MAX][ETH_ALEN];
    int mac_port[HUB_MACS_MAX];
    int nmacs;
    hub_frame_t q[HUB_QUEUE_MAX];
    int qhead, qlen;
    unsigned long long fwd, delayed, dropped_full, dropped_send;
    unsigned long long late[HUB_LATE_BUCKETS + 1];
    double late_sum_us, late_max_us;
    const char *stats_path;
} hub = {.uplink = -1, .early_ns = 20000};

static volatile sig_atomic_t hub_stop, hub_dump;

static void hub_on_signal(int sig)
{
    if (sig == SIGUSR1)
        hub_dump = 1;
    else
        hub_stop = 1;
}

static int64_t hub_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void hub_stats(void)
{
    FILE *f = hub.stats_path != NULL ? fopen(hub.stats_path, "w") : stderr;
    unsigned long long n = 0, want;
    int p99 = 0;
    if (f == NULL)
        return;
    want = hub.delayed - hub.delayed / 100;
    for (int i = 0; i <= HUB_LATE_BUCKETS; i++) {
        n += hub.late[i];
        if (n >= want) {
            p99 = i;
            break;
        }
    }
    fprintf(f, "delayhub: delay %.1f us, %d ports, %s\n", hub.delay_ns / 1e3, hub.nports,
            hub.busy ? "busy-poll" : "timerfd");
    fprintf(f, "frames forwarded %llu (delayed %llu), dropped: queue full %llu, send failed %llu\n",
            hub.fwd, hub.delayed, hub.dropped_full, hub.dropped_send);
    fprintf(f, "late after deadline (us): mean %.2f p99 %s%d max %.1f\n",
            hub.delayed ? hub.late_sum_us / hub.delayed : 0.0, p99 == HUB_LATE_BUCKETS ? ">=" : "",
            p99, hub.late_max_us);
    if (f != stderr)
        fclose(f);
    else
        fflush(f);
}

/* The port that MAC was last seen on, or -1. */
static int hub_mac_port(const unsigned char *mac)
{
    for (int i = 0; i < hub.nmacs; i++)
        if (memcmp(hub.mac[i], mac, ETH_ALEN) == 0)
            return hub.mac_port[i];
    return -1;
}

static void hub_learn(const unsigned char *mac, int port)
{
    if (mac[0] & 1)
        return; /* a multicast source is not an address */
    for (int i = 0; i < hub.nmacs; i++)
        if (memcmp(hub.mac[i], mac, ETH_ALEN) == 0) {
            hub.mac_port[i] = port;
            return;
        }
    if (hub.nmacs < HUB_MACS_MAX) {
        memcpy(hub.mac[hub.nmacs], mac, ETH_ALEN);
        hub.mac_port[hub.nmacs++] = port;
    }
}

static void hub_send(int out, const unsigned char *data, size_t len)
{
    if (send(hub.fd[out], data, len, MSG_DONTWAIT) < 0)
        hub.dropped_send++;
    else
        hub.fwd++;
}

static void hub_enqueue(int out, const unsigned char *data, size_t len, int64_t deadline)
{
    hub_frame_t *fr;
    if (hub.qlen == HUB_QUEUE_MAX) {
        hub.dropped_full++;
        return;
    }
    fr = &hub.q[(hub.qhead + hub.qlen) % HUB_QUEUE_MAX];
    fr->data = malloc(len);
    if (fr->data == NULL) {
        hub.dropped_full++;
        return;
    }
    memcpy(fr->data, data, len);
    fr->len = len;
    fr->out = out;
    fr->deadline = deadline;
    hub.qlen++;
}

/* Send the frames whose deadline has come. */
static void hub_flush(void)
{
    int64_t now = hub_now();
    while (hub.qlen > 0 && hub.q[hub.qhead].deadline <= now) {
        hub_frame_t *fr = &hub.q[hub.qhead];
        double late = (now - fr->deadline) / 1e3;
        int b = late < HUB_LATE_BUCKETS ? (int)late : HUB_LATE_BUCKETS;
        hub_send(fr->out, fr->data, fr->len);
        hub.delayed++;
        hub.late[b]++;
        hub.late_sum_us += late;
        if (late > hub.late_max_us)
            hub.late_max_us = late;
        free(fr->data);
        hub.qhead = (hub.qhead + 1) % HUB_QUEUE_MAX;
        hub.qlen--;
        now = hub_now();
    }
}

/* Route one frame read on port in. */
static void hub_route(int in, const unsigned char *buf, size_t len, int64_t rx_ns)
{
    const unsigned char *eth = buf + sizeof(struct virtio_net_hdr);
    int out;
    if (len < sizeof(struct virtio_net_hdr) + ETH_HLEN)
        return;
    hub_learn(eth + ETH_ALEN, in);
    out = (eth[0] & 1) ? -1 : hub_mac_port(eth);
    for (int p = 0; p < hub.nports; p++) {
        if (p == in || (out >= 0 && p != out))
            continue;
        if (hub.delay_ns > 0 && in != hub.uplink && p != hub.uplink)
            hub_enqueue(p, buf, len, rx_ns + hub.delay_ns);
        else
            hub_send(p, buf, len);
    }
}

/* Read every frame waiting on port p. */
static void hub_drain(int p)
{
    static unsigned char buf[HUB_FRAME_MAX];
    char ctl[CMSG_SPACE(sizeof(struct timespec))];
    for (;;) {
        struct iovec iov = {buf, sizeof buf};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                            .msg_controllen = sizeof ctl};
        int64_t rx = 0;
        ssize_t n = recvmsg(hub.fd[p], &mh, MSG_DONTWAIT);
        if (n < 0)
            return;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                rx = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
            }
        if (rx == 0)
            rx = hub_now();
        hub_route(p, buf, (size_t)n, rx);
    }
}

static int hub_open(const char *name)
{
    int fd, one = 1;
    unsigned idx = if_nametoindex(name);
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
    struct packet_mreq mr = {.mr_type = PACKET_MR_PROMISC};
    if (idx == 0) {
        fprintf(stderr, "delayhub: no interface '%s': %s\n", name, strerror(errno));
        return -1;
    }
    fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (fd < 0) {
        fprintf(stderr, "delayhub: AF_PACKET socket: %s (needs root)\n", strerror(errno));
        return -1;
    }
    sll.sll_ifindex = (int)idx;
    mr.mr_ifindex = (int)idx;
    if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0 ||
        bind(fd, (struct sockaddr *)&sll, sizeof sll) != 0) {
        fprintf(stderr, "delayhub: cannot set up a packet socket on '%s': %s\n", name,
                strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static void hub_usage(void)
{
    fprintf(stderr, "usage: delayhub -d DELAY_US [-u UPLINK_IFACE] [-b] [-e EARLY_US] [-s STATS_FILE] IFACE...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int opt, tfd, rc = 1;
    const char *uplink = NULL;
    char *end;
    double d = -1;
    struct pollfd pfd[HUB_PORTS_MAX + 1];
    struct sigaction sa = {.sa_handler = hub_on_signal};

    while ((opt = getopt(argc, argv, "d:u:be:s:")) != -1) {
        switch (opt) {
        case 'd':
            d = strtod(optarg, &end);
            if (*end != '\0' || d < 0 || d > 1e6) {
                fprintf(stderr, "delayhub: -d '%s': want a delay in µs, 0..1000000\n", optarg);
                return 2;
            }
            break;
        case 'u': uplink = optarg; break;
        case 'b': hub.busy = 1; break;
        case 'e':
            hub.early_ns = (int64_t)(strtod(optarg, &end) * 1000);
            if (*end != '\0' || hub.early_ns < 0 || hub.early_ns > 1000000) {
                fprintf(stderr, "delayhub: -e '%s': want µs, 0..1000\n", optarg);
                return 2;
            }
            break;
        case 's': hub.stats_path = optarg; break;
        default: hub_usage();
        }
    }
    if (d < 0 || optind >= argc || argc - optind > HUB_PORTS_MAX - 1)
        hub_usage();
    hub.delay_ns = (int64_t)(d * 1000);
    for (int i = optind; i < argc; i++) {
        snprintf(hub.name[hub.nports], IF_NAMESIZE, "%s", argv[i]);
        hub.nports++;
    }
    if (uplink != NULL) {
        hub.uplink = hub.nports;
        snprintf(hub.name[hub.nports++], IF_NAMESIZE, "%s", uplink);
    }
    for (int p = 0; p < hub.nports; p++) {
        hub.fd[p] = hub_open(hub.name[p]);
        if (hub.fd[p] < 0)
            return 1;
        pfd[p] = (struct pollfd){.fd = hub.fd[p], .events = POLLIN};
    }
    tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    if (tfd < 0) {
        perror("delayhub: timerfd_create");
        return 1;
    }
    pfd[hub.nports] = (struct pollfd){.fd = tfd, .events = POLLIN};
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    while (!hub_stop) {
        int timeout = -1, n;
        if (hub_dump) {
            hub_dump = 0;
            hub_stats();
        }
        hub_flush();
        if (hub.busy || (hub.qlen > 0 && hub.q[hub.qhead].deadline - hub_now() <= hub.early_ns)) {
            timeout = 0; /* spin the last stretch before a deadline */
        } else if (hub.qlen > 0) {
            struct itimerspec its = {0};
            int64_t dl = hub.q[hub.qhead].deadline - hub.early_ns;
            its.it_value.tv_sec = dl / 1000000000;
            its.it_value.tv_nsec = dl % 1000000000;
            timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        }
        n = poll(pfd, (nfds_t)hub.nports + 1, timeout);
        if (n < 0 && errno != EINTR) {
            perror("delayhub: poll");
            goto out;
        }
        if (n <= 0)
            continue;
        if (pfd[hub.nports].revents & POLLIN) {
            uint64_t ticks;
            if (read(tfd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
                goto out;
        }
        for (int p = 0; p < hub.nports; p++)
            if (pfd[p].revents & POLLIN)
                hub_drain(p);
            else if (pfd[p].revents & (POLLERR | POLLNVAL)) {
                fprintf(stderr, "delayhub: port '%s' failed\n", hub.name[p]);
                goto out;
            }
    }
    rc = 0;
out:
    hub_stats();
    return rc;
}
