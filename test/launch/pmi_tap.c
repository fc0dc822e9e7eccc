/*
 * pmi_tap FILE PROGRAM [ARGS...]: run PROGRAM with its PMI connection
 * (PMI_FD) relayed through this process, appending every byte either side
 * sends to FILE.<PMI_RANK>. Used by test/launch/mpiexec.sh to learn the
 * secrets a job puts through PMI, so that it can check they appear in no log.
 * Exits with PROGRAM's exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int relay(int from, int to, int log)
{
    char buf[65536];
    ssize_t n = read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    if (write(log, buf, (size_t)n) != n || write(to, buf, (size_t)n) != n)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *fdv = getenv("PMI_FD"), *rank = getenv("PMI_RANK");
    char path[4096], num[32];
    int sv[2], server, log, status = 0;
    pid_t pid;

    if (argc < 3 || fdv == NULL) {
        fprintf(stderr, "usage: pmi_tap FILE PROGRAM [ARGS...] (under a PMI launcher)\n");
        return 2;
    }
    server = atoi(fdv);
    snprintf(path, sizeof path, "%s.%s", argv[1], rank != NULL ? rank : "x");
    log = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("pmi_tap");
        return 2;
    }
    pid = fork();
    if (pid == 0) {
        close(sv[0]);
        close(server);
        snprintf(num, sizeof num, "%d", sv[1]);
        setenv("PMI_FD", num, 1);
        execvp(argv[2], argv + 2);
        perror("pmi_tap: exec");
        _exit(127);
    }
    close(sv[1]);
    for (;;) {
        struct pollfd p[2] = {{.fd = server, .events = POLLIN}, {.fd = sv[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents && relay(server, sv[0], log) != 0)
            break;
        if (p[1].revents && relay(sv[0], server, log) != 0)
            break;
    }
    close(sv[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
