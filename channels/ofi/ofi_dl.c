/*
 * libfabric, loaded only when the ofi channel is opened. ofi_init() calls
 * ch_ofi_dl_open() before anything else; the rest of the channel calls
 * libfabric by its usual names.
 *
 * Why: libmpi.so.12 used to link libfabric.so.1, and Debian's libfabric
 * links PSM, whose libinfinipath installs a SIGSEGV backtrace handler from
 * its library constructor. Every Canal program paid for loading a dozen
 * interconnect libraries it mostly never used (single-node jobs run on shm
 * and never open ofi), and JVM ranks, which take SIGSEGV in normal
 * operation, died of that handler. Now libfabric enters the process only
 * when a job actually needs the network channel through it.
 *
 * How: libfabric's API is almost all static inline functions calling
 * through the fid ops tables, so the library itself exports only a handful
 * of entry points the channel reaches: fi_getinfo, fi_freeinfo, fi_dupinfo
 * (also behind the inline fi_allocinfo), fi_fabric and fi_strerror, plus
 * fi_version for the check below. This file defines those names (hidden, as
 * every non-MPI symbol of libmpi) as forwarders to pointers found with
 * dlvsym at the symbol versions a direct link against the headers we were
 * compiled with would have bound (struct fi_info's layout is tied to them);
 * dlsym is the fallback for a libfabric built without symbol versions.
 * CANAL_OFI_LIBRARY names another library file. The library stays loaded
 * until exit: unloading it under providers' threads and destructors is not
 * worth the few megabytes.
 */
#include "channels/ofi/ofi_impl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channels/ofi/ofi.h"
#include "common/cvar.h"

/* Does directory dir hold an entry whose name starts with prefix ("": any)? */
static int ofi_dir_has(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (d == NULL)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        found = e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

int ch_ofi_remote_worth(ch_endpoint_t *ep, char *why, size_t len)
{
    const char *fi_prov = getenv("FI_PROVIDER"), *prov = common_cvar_str("OFI_PROVIDER");
    if (ep->provider[0] != '\0' || (prov != NULL && *prov != '\0') ||
        strcmp(common_cvar_source("OFI_LIBRARY"), "default") != 0 ||
        (fi_prov != NULL && *fi_prov != '\0'))
        return 1; /* asked for by name */
    if (ofi_dir_has("/sys/class/infiniband", "") || ofi_dir_has("/sys/class/cxi", "") ||
        ofi_dir_has("/dev", "hfi1_"))
        return 1;
    snprintf(why, len,
             "no fabric hardware on this node (no /sys/class/infiniband, /sys/class/cxi or "
             "/dev/hfi1_*): libfabric would only offer sockets, slower than the sock channel; "
             "CANAL_CHANNEL=ofi or CANAL_OFI_PROVIDER uses it anyway");
    return 0;
}

typedef struct {
    void *handle;
    char path[256];
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
} ofi_dl_t;

static ofi_dl_t ofi_dl;

/* One entry point: where to store it, its name, and the version a link
 * against libfabric 1.10..1.17 headers binds (objdump -T libfabric.so.1). */
typedef struct {
    void **slot;
    const char *name;
    const char *version;
} ofi_dl_sym_t;

canal_status_t ch_ofi_dl_open(void)
{
    const char *path = common_cvar_str("OFI_LIBRARY");
    /* Filled into a local copy, published only when complete. */
    ofi_dl_t dl = {0};
    const ofi_dl_sym_t syms[] = {
        {(void **)&dl.getinfo, "fi_getinfo", "FABRIC_1.3"},
        {(void **)&dl.freeinfo, "fi_freeinfo", "FABRIC_1.3"},
        {(void **)&dl.dupinfo, "fi_dupinfo", "FABRIC_1.3"},
        {(void **)&dl.fabric, "fi_fabric", "FABRIC_1.1"},
        {(void **)&dl.strerror, "fi_strerror", "FABRIC_1.0"},
        {(void **)&dl.version, "fi_version", "FABRIC_1.0"},
    };
    const char *why;
    uint32_t v;

    if (path == NULL || path[0] == '\0')
        path = "libfabric.so.1";
    if (ofi_dl.handle != NULL) {
        if (strcmp(ofi_dl.path, path) == 0)
            return CANAL_OK;
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "ofi: CANAL_OFI_LIBRARY=%s, but %s is already loaded in this "
                              "process", path, ofi_dl.path);
    }
    dlerror();
    if ((dl.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        why = dlerror();
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "ofi: cannot load libfabric (CANAL_OFI_LIBRARY=%s): %s", path,
                              why != NULL ? why : "dlopen failed");
    }
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlvsym(dl.handle, syms[i].name, syms[i].version);
        if (f == NULL)
            f = dlsym(dl.handle, syms[i].name);
        if (f == NULL) {
            common_err_set(CANAL_ERR_UNSUPPORTED,
                           "ofi: %s (CANAL_OFI_LIBRARY) has no %s: not a usable libfabric",
                           path, syms[i].name);
            goto fail_close;
        }
        *syms[i].slot = f;
    }
    v = dl.version();
    if (FI_MAJOR(v) != FI_MAJOR_VERSION || v < FI_VERSION(1, 10)) {
        common_err_set(CANAL_ERR_UNSUPPORTED,
                       "ofi: %s is libfabric %u.%u; the ofi channel needs 1.10 or later "
                       "with major version %d", path, FI_MAJOR(v), FI_MINOR(v),
                       FI_MAJOR_VERSION);
        goto fail_close;
    }
    snprintf(dl.path, sizeof dl.path, "%s", path);
    ofi_dl = dl;
    return CANAL_OK;

fail_close:
    dlclose(dl.handle);
    return CANAL_ERR_UNSUPPORTED;
}

const char *ch_ofi_dl_path(void)
{
    return ofi_dl.handle != NULL ? ofi_dl.path : NULL;
}

/* ---- the forwarders --------------------------------------------------------
 * Reached only after ch_ofi_dl_open() succeeded (ofi_init() returns before any
 * of them otherwise); the checks keep a mistake from becoming a jump to 0. */

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (ofi_dl.getinfo == NULL)
        return -FI_ENOSYS;
    return ofi_dl.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    if (ofi_dl.freeinfo != NULL)
        ofi_dl.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return ofi_dl.dupinfo != NULL ? ofi_dl.dupinfo(info) : NULL;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (ofi_dl.fabric == NULL)
        return -FI_ENOSYS;
    return ofi_dl.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    return ofi_dl.strerror != NULL ? ofi_dl.strerror(errnum) : "libfabric not loaded";
}

uint32_t fi_version(void) { return ofi_dl.version != NULL ? ofi_dl.version() : 0; }
