/*
 * MPI_Alloc_mem and MPI_Free_mem (MPI 4.0 section 9.2): memory for windows
 * and messages. Every channel and window in Canal works on any memory, so
 * nothing needs registering; but each allocation is made a mappable region
 * (a memfd mapped shared here), so that an MPI_Win_create window over it
 * whose ranks share a node can map every rank's memory and use loads and
 * stores (rma_cma_setup), as an MPI_Win_allocate window does, instead of
 * a system call per operation. IMB-RMA and many applications allocate
 * window memory this way. CANAL_RMA_MAP=0, a failure of memfd_create, and
 * more than RMA_MEM_MAP_MAX regions at once give heap memory. The region is
 * MAP_SHARED: a child made by fork() shares it with the parent. Kept next
 * to the one-sided code, its main user.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* At most this many mappable regions at once (each holds a descriptor and
 * at least a page); beyond it, heap memory. */
enum { RMA_MEM_MAP_MAX = 256 };

/* The mappable regions, newest first. */
typedef struct rma_mem_region {
    struct rma_mem_region *next;
    char *base;
    size_t len; /* mapped bytes (whole pages) */
    int fd;
} rma_mem_region_t;

static rma_mem_region_t *rma_mem_regions;
static int rma_mem_nregions;
static pthread_mutex_t rma_mem_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *rma_mem_map_new(size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size + (size_t)page - 1) & ~((size_t)page - 1);
    rma_mem_region_t *r = malloc(sizeof *r);
    void *p = MAP_FAILED;
    int fd = -1;

    if (r == NULL)
        return NULL;
    pthread_mutex_lock(&rma_mem_mutex);
    if (rma_mem_nregions >= RMA_MEM_MAP_MAX) {
        pthread_mutex_unlock(&rma_mem_mutex);
        free(r);
        return NULL;
    }
    rma_mem_nregions++; /* (taken back below on failure) */
    pthread_mutex_unlock(&rma_mem_mutex);
    fd = memfd_create("canal-alloc-mem", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0 ||
        (p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        free(r);
        pthread_mutex_lock(&rma_mem_mutex);
        rma_mem_nregions--;
        pthread_mutex_unlock(&rma_mem_mutex);
        return NULL;
    }
    r->base = p;
    r->len = len;
    r->fd = fd;
    pthread_mutex_lock(&rma_mem_mutex);
    r->next = rma_mem_regions;
    rma_mem_regions = r;
    pthread_mutex_unlock(&rma_mem_mutex);
    return p;
}

int rma_mem_lookup(const void *p, size_t len, int *fd_out, size_t *off_out, size_t *maplen_out)
{
    const char *c = p;
    int found = 0;

    pthread_mutex_lock(&rma_mem_mutex);
    for (rma_mem_region_t *r = rma_mem_regions; r != NULL; r = r->next)
        if (c >= r->base && c <= r->base + r->len && len <= (size_t)(r->base + r->len - c)) {
            *fd_out = r->fd;
            *off_out = (size_t)(c - r->base);
            *maplen_out = r->len;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&rma_mem_mutex);
    return found;
}

int mpi_alloc_mem_impl(MPI_Aint size, MPI_Info info, void *baseptr, const char *fn)
{
    void *p = NULL;
    if (size < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "size=%lld is negative", (long long)size);
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_raise(NULL, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if (size > 0 && rma_cvar_bool("RMA_MAP", 1))
        p = rma_mem_map_new((size_t)size);
    if (p == NULL && posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "cannot allocate %lld bytes",
                             (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int mpi_free_mem_impl(void *base, const char *fn)
{
    rma_mem_region_t **pp, *r = NULL;

    (void)fn;
    pthread_mutex_lock(&rma_mem_mutex);
    for (pp = &rma_mem_regions; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->base == base) {
            r = *pp;
            *pp = r->next;
            rma_mem_nregions--;
            break;
        }
    pthread_mutex_unlock(&rma_mem_mutex);
    if (r == NULL) {
        free(base);
        return MPI_SUCCESS;
    }
    munmap(r->base, r->len);
    close(r->fd);
    free(r);
    return MPI_SUCCESS;
}
