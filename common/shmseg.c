/*
 * POSIX shared-memory segments shared by the processes of one node
 * (common/shmseg.h): shm_open, posix_fallocate, mmap, shm_unlink.
 */
#include "common/shmseg.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"

void *common_shm_create(const char *what, size_t len, char *name)
{
    static unsigned counter;
    unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    void *p = MAP_FAILED;
    int fd;

    snprintf(name, COMMON_SHM_NAME_MAX, "/canal-%s-%d-%u", what, (int)getpid(), n);
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0 && (ftruncate(fd, (off_t)len) != 0 || posix_fallocate(fd, 0, (off_t)len) != 0)) {
        LOG_DEBUG("no room for a %zu-byte shared segment %s", len, name);
        close(fd);
        shm_unlink(name);
        fd = -1;
    }
    if (fd >= 0) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            shm_unlink(name);
    }
    if (p == MAP_FAILED) {
        name[0] = '\0';
        return NULL;
    }
    return p;
}

void *common_shm_attach(const char *name, size_t len)
{
    void *p = MAP_FAILED;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd >= 0) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    return p == MAP_FAILED ? NULL : p;
}

void common_shm_unlink(const char *name)
{
    if (name[0] != '\0')
        shm_unlink(name);
}
