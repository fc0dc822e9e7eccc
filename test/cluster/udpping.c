/*
 * udpping: a UDP ping-pong between two hosts of the namespace cluster, to
 * check the delay of test/cluster/delayhub.c (this machine has no ping).
 *
 *   udpping -s PORT                 echo every datagram back (until killed)
 *   udpping ADDR PORT [COUNT]       COUNT round trips of 8 bytes (default
 *                                   1000, 20 warm-up first); prints the
 *                                   minimum, median and 90th percentile
 *                                   round trip in µs
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static double ping_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int ping_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    char buf[64];
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("udpping: socket");
        return 1;
    }
    if (argc == 3 && strcmp(argv[1], "-s") == 0) {
        sa.sin_port = htons((unsigned short)atoi(argv[2]));
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            perror("udpping: bind");
            return 1;
        }
        for (;;) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
            if (n > 0)
                sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
        }
    }
    if (argc < 3 || argc > 4 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
        fprintf(stderr, "usage: udpping -s PORT | udpping ADDR PORT [COUNT]\n");
        return 2;
    }
    sa.sin_port = htons((unsigned short)atoi(argv[2]));
    int count = argc == 4 ? atoi(argv[3]) : 1000;
    if (count < 1)
        count = 1;
    double *rtt = calloc((size_t)count, sizeof *rtt);
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (rtt == NULL || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("udpping: connect");
        return 1;
    }
    int got = 0, lost = 0;
    for (int i = -20; i < count; i++) {
        double t0 = ping_now_us();
        if (send(fd, "pingpong", 8, 0) != 8 || recv(fd, buf, sizeof buf, 0) != 8) {
            lost++;
            continue;
        }
        if (i >= 0)
            rtt[got++] = ping_now_us() - t0;
    }
    if (got == 0) {
        fprintf(stderr, "udpping: no answer from %s:%s\n", argv[1], argv[2]);
        free(rtt);
        return 1;
    }
    qsort(rtt, (size_t)got, sizeof *rtt, ping_cmp);
    printf("rtt_us min %.1f median %.1f p90 %.1f (%d round trips, %d lost)\n", rtt[0],
           rtt[got / 2], rtt[got * 9 / 10], got, lost);
    free(rtt);
    return 0;
}
