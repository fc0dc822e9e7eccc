/*
 * The one table of configuration variables (see common/cvar.h). To add a
 * tunable, add a row here, keep the rows sorted by layer, and read it with
 * common_cvar_int/bool/str where it is used.
 */
#include "common/cvar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static const common_cvar_desc_t cvar_table[] = {
    /* common */
    {"DEBUG", CVAR_TYPE_INT, "1", NULL,
     "log verbosity: 0 errors only, 1 warnings, 2 info, 3 debug"},
    {"SUMMARY", CVAR_TYPE_BOOL, "0", NULL,
     "rank 0 prints the chosen PMI, channels, thresholds and algorithms at MPI_Init"},
    /* pmi */
    {"PMI", CVAR_TYPE_STRING, "auto", NULL,
     "process-management interface: auto, pmix, pmi2, pmi1 or singleton"},
    {"PMI_WATCH", CVAR_TYPE_BOOL, "1", NULL,
     "PMI-1/PMI-2: a thread watches the connection to the launcher, so that a process whose "
     "launcher died (kill -9 of mpiexec) says so and ends instead of waiting for ever"},
    {"FAILURE_GRACE", CVAR_TYPE_INT, "1", NULL,
     "seconds a rank that must end the job because another process failed waits for the "
     "launcher to end it with the cause (the dead rank's signal or exit code) before it "
     "aborts the job itself; Canal's mpiexec sets 0 (it judges the dead rank first)"},
    {"QMPI_TOOL_LIST", CVAR_TYPE_STRING, "", "QMPI_TOOL_LIST",
     "QMPI tools to stack, in order, as NAME:NAME:...; each must have registered itself with "
     "QMPI_Register_tool_name before MPI_Init (mpi/qmpi.c)"},
    {"MEMORY_ALLOC_KINDS", CVAR_TYPE_STRING, "", NULL,
     "memory allocation kinds the program requests (MPI 4.1 section 11.4.3), as the value of "
     "the info key mpi_memory_alloc_kinds: mpiexec -memory-alloc-kinds sets it"},
    {"INITIAL_ERRHANDLER", CVAR_TYPE_STRING, "", NULL,
     "the error handler of MPI_COMM_WORLD and MPI_COMM_SELF at MPI_Init (MPI 4.0 section "
     "9.3): mpi_errors_are_fatal, mpi_errors_abort or mpi_errors_return; mpiexec "
     "-initial-errhandler sets it"},
    {"MPIEXEC", CVAR_TYPE_STRING, "", NULL,
     "the mpiexec a singleton (a program started without a launcher) starts on its first "
     "MPI_Comm_spawn; default: the mpiexec installed with this library"},
    /* adi */
    {"EAGER_LIMIT", CVAR_TYPE_SIZE, "16K", "CH4_SHM_POSIX_EAGER_MAX_MSG_SIZE",
     "messages up to this size are sent eagerly; larger ones use rendezvous"},
    {"UNEXPECTED_LIMIT", CVAR_TYPE_SIZE, "256M", NULL,
     "memory for buffered unexpected eager messages; beyond it senders use rendezvous"},
    {"RNDV_CHUNK", CVAR_TYPE_SIZE, "64K", NULL,
     "chunk size of the pipelined rendezvous when the channel cannot read remote memory"},
    {"DETACH_KEEP_MAX", CVAR_TYPE_SIZE, "64M", NULL,
     "bytes of sends left by abandoned collectives (a mismatch) that a process keeps copied at "
     "once, for receivers that may still ask for them; a send beyond is dropped (its receive "
     "fails)"},
    {"DETACH_WAIT_MS", CVAR_TYPE_INT, "5000", NULL,
     "milliseconds a send left by an abandoned collective, whose RTS offered its buffer's "
     "address, waits at most for the receiver to say that nothing reads there any more before "
     "its caller may free the buffer (a receiver already in MPI_Finalize never says it); and "
     "after which a receive left so, whose sender still writes or serves its bytes, warns "
     "(it waits on until they land or the sender finalizes)"},
    {"FINALIZE_WAIT_MS", CVAR_TYPE_INT, "30000", NULL,
     "milliseconds MPI_Finalize waits at most, before the fence with the other ranks, for "
     "packets still queued, messages still coming into receives that abandoned collectives "
     "left, and messages abandoned collectives left still being sent (a warning past it)"},
    {"FAULT_DETACH_NOMEM", CVAR_TYPE_BOOL, "0", NULL,
     "testing: a send that an abandoned collective leaves finds no memory to copy its bytes "
     "into (adi_send_detach), as if malloc failed; the send is dropped"},
    {"RNDV_HALVES_MIN", CVAR_TYPE_SIZE, "128K", NULL,
     "a contiguous message of at least this size pulled from a peer on this node is copied by "
     "both sides at once (the receiver pulls half, the sender pushes the rest), unless the node "
     "is oversubscribed; 0: the receiver copies it all"},
    {"RNDV_STREAM_MAX", CVAR_TYPE_SIZE, "8M", NULL,
     "on an oversubscribed node, a rendezvous message below this size to a peer on this node "
     "is streamed through the channel (the sender copies in, the receiver out) instead of read "
     "by the receiver alone (CMA), unless a collective sends it with others at once (a "
     "broadcast's root); 0: read from the eager limit up"},
    {"SPIN_COUNT", CVAR_TYPE_INT, "2000", "POLLS_BEFORE_YIELD",
     "progress polls a blocked wait spins at least before it starts yielding the CPU"},
    {"SPIN_US", CVAR_TYPE_INT, "200", NULL,
     "microseconds a blocked wait spins before it starts yielding (unless oversubscribed)"},
    {"SLEEP_AFTER_US", CVAR_TYPE_INT, "20000", NULL,
     "microseconds of idle waiting after which a wait sleeps in the channel until woken"},
    {"WAIT_SLEEP_US", CVAR_TYPE_INT, "1000", NULL,
     "the longest one sleep of a blocked wait in the channel lasts before the wait polls again "
     "(a wake-up ends it earlier)"},
    {"THREAD_WAIT_SLEEP_US", CVAR_TYPE_INT, "200", NULL,
     "the longest one sleep of a thread waiting while another thread polls lasts when its "
     "wait cannot name what it waits for (MPI_THREAD_MULTIPLE; a wait on a request or an "
     "arrival sleeps until woken, with a guard of THREAD_WAIT_GUARD_US or this when longer)"},
    {"THREAD_WAIT_GUARD_US", CVAR_TYPE_INT, "1000000", NULL,
     "the guard of a sleep of a thread waiting on a request or an arrival while another thread "
     "polls (MPI_THREAD_MULTIPLE): every change it waits for wakes it, the guard only bounds a "
     "lost wake-up, counted in canal_thread_wait_missed_wakes (tests set it small)"},
    {"THREAD_BIAS", CVAR_TYPE_BOOL, "1", NULL,
     "MPI_THREAD_MULTIPLE: the thread that initialized takes the device's locks without atomic "
     "instructions until a second thread takes one (then once membarrier, and real locks for "
     "good); 0: real locks from the start"},
    {"WAIT_PREEMPTED_US", CVAR_TYPE_INT, "200", NULL,
     "a wait that finds itself descheduled for longer than this many microseconds marks the "
     "machine as contended and waits sleep after 50 us for a second (0: never)"},
    {"OWN_THREADS_LOOK_US", CVAR_TYPE_INT, "100000", NULL,
     "the least time between two looks at the process's runnable threads by a bound rank's "
     "waits (0: every wait that reads the clock looks; a test's knob)"},
    {"OVERSUBSCRIBED", CVAR_TYPE_STRING, "auto", NULL,
     "auto, yes or no: with yes a blocked wait yields at once (auto: more local ranks than "
     "the CPUs of their affinity masks together)"},
    /* coll: CANAL_COLL_<COLLECTIVE>=<algorithm> forces an algorithm (auto: coll/select.c) */
    {"COLL_BARRIER", CVAR_TYPE_STRING, "auto", "BARRIER_INTRA_ALGORITHM",
     "barrier algorithm: auto, dissemination, tree or node"},
    {"COLL_BCAST", CVAR_TYPE_STRING, "auto", "BCAST_INTRA_ALGORITHM",
     "bcast algorithm: auto, binomial, knomial, linear, scatter_ring or node"},
    {"COLL_GATHER", CVAR_TYPE_STRING, "auto", "GATHER_INTRA_ALGORITHM",
     "gather algorithm: auto, binomial or linear"},
    {"COLL_GATHERV", CVAR_TYPE_STRING, "auto", "GATHERV_INTRA_ALGORITHM",
     "gatherv algorithm: auto or linear"},
    {"COLL_SCATTER", CVAR_TYPE_STRING, "auto", "SCATTER_INTRA_ALGORITHM",
     "scatter algorithm: auto, binomial or linear"},
    {"COLL_SCATTERV", CVAR_TYPE_STRING, "auto", "SCATTERV_INTRA_ALGORITHM",
     "scatterv algorithm: auto or linear"},
    {"COLL_ALLGATHER", CVAR_TYPE_STRING, "auto", "ALLGATHER_INTRA_ALGORITHM",
     "allgather algorithm: auto, ring, recursive_doubling, bruck, gather_bcast or linear"},
    {"COLL_ALLGATHERV", CVAR_TYPE_STRING, "auto", "ALLGATHERV_INTRA_ALGORITHM",
     "allgatherv algorithm: auto, ring or recursive_doubling"},
    {"COLL_ALLTOALL", CVAR_TYPE_STRING, "auto", "ALLTOALL_INTRA_ALGORITHM",
     "alltoall algorithm: auto, pairwise, linear or bruck"},
    {"COLL_ALLTOALLV", CVAR_TYPE_STRING, "auto", "ALLTOALLV_INTRA_ALGORITHM",
     "alltoallv algorithm: auto, pairwise or linear"},
    {"COLL_ALLTOALLW", CVAR_TYPE_STRING, "auto", "ALLTOALLW_INTRA_ALGORITHM",
     "alltoallw algorithm: auto, pairwise or linear"},
    {"COLL_REDUCE", CVAR_TYPE_STRING, "auto", "REDUCE_INTRA_ALGORITHM",
     "reduce algorithm: auto, binomial, knomial, linear or node"},
    {"COLL_ALLREDUCE", CVAR_TYPE_STRING, "auto", "ALLREDUCE_INTRA_ALGORITHM",
     "allreduce algorithm: auto, recursive_doubling, rabenseifner, ring, reduce_bcast, node, "
     "linear or linear_blocks"},
    {"COLL_REDUCE_SCATTER", CVAR_TYPE_STRING, "auto", "REDUCE_SCATTER_INTRA_ALGORITHM",
     "reduce_scatter algorithm: auto, halving, ring, reduce_scatterv or linear"},
    {"COLL_REDUCE_SCATTER_BLOCK", CVAR_TYPE_STRING, "auto",
     "REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
     "reduce_scatter_block algorithm: auto, halving, ring, reduce_scatterv or linear"},
    {"COLL_SCAN", CVAR_TYPE_STRING, "auto", "SCAN_INTRA_ALGORITHM",
     "scan algorithm: auto, recursive_doubling or linear"},
    {"COLL_EXSCAN", CVAR_TYPE_STRING, "auto", "EXSCAN_INTRA_ALGORITHM",
     "exscan algorithm: auto, recursive_doubling or linear"},
    {"COLL_CHECK", CVAR_TYPE_BOOL, "0", NULL,
     "check that all ranks call each collective alike (collective, root, op, counts and "
     "datatype sizes) and fail with a message naming the ranks that disagree; costs an "
     "allgather per call"},
    {"COLL_KNOMIAL_RADIX", CVAR_TYPE_INT, "4", NULL,
     "radix of the k-nomial trees of the knomial bcast and reduce, 2..64"},
    {"COLL_SHM", CVAR_TYPE_BOOL, "1", NULL,
     "blocking MPI_Barrier, MPI_Allreduce, MPI_Reduce_scatter(_block), MPI_Allgather and "
     "MPI_Alltoall of at most 512 bytes (a rank's vector or what it receives) and MPI_Bcast of "
     "at most 64 KiB on a communicator whose ranks are all on one node go through a block of "
     "shared memory made at its 3rd such call; 0: always messages"},
    {"COLL_SHM_RING", CVAR_TYPE_BOOL, "1", NULL,
     "blocking MPI_Bcast of more than 64 KiB on a communicator that uses the shared block "
     "(COLL_SHM) streams through a ring of 4 MiB of shared memory made at its first such call: "
     "the root copies the message in, the others copy it out; a blocking MPI_Allreduce of 32 KiB "
     "or more of a predefined type on more than 2 ranks, and MPI_Reduce of 256 KiB or more on "
     "more than 4, run there too (each rank reduces its share); 0: all by messages"},
    {"COLL_SHM_ROOT_LAST", CVAR_TYPE_BOOL, "1", NULL,
     "on a node with more ranks than CPUs, rank 0 leaves a barrier through the shared block "
     "after the others (instead of first) when the call before it was a gather, gatherv or "
     "reduce, so that the root of a loop of gathers and barriers finds the others' blocks sent; 0: "
     "always first"},
    {"FAULT_BCAST_PIECE_US", CVAR_TYPE_INT, "0", NULL,
     "testing: microseconds the root of an MPI_Bcast through the node's shared block waits "
     "after each 16 KiB piece of the message it publishes, so that the others copy pieces "
     "while it writes the next ones"},
    {"FAULT_SHM_NOT_LAST", CVAR_TYPE_INT, "-1", NULL,
     "testing: the rank (of each communicator) that decides, at a barrier through the node's "
     "shared block, not to say it left where rank 0 leaves last (COLL_SHM_ROOT_LAST), as if its "
     "last call had been another; -1: none"},
    {"FAULT_COLL_REQS_NOMEM", CVAR_TYPE_INT, "-1", NULL,
     "testing: the job rank that finds no memory for the requests a linear gather or scatter "
     "keeps on its communicator (as if malloc failed when they are first needed); -1: none"},
    {"COLL_FAKE_NODES", CVAR_TYPE_INT, "0", NULL,
     "testing: pretend each communicator's ranks are spread over this many nodes (blocks of "
     "consecutive ranks), so node-aware collectives run on one machine; 0 or 1: real nodes"},
    /* rma */
    {"RMA_DIRECT", CVAR_TYPE_BOOL, "1", NULL,
     "MPI_Win_allocate windows whose ranks share a node live in one shared segment: operations are loads and stores"},
    {"RMA_CMA", CVAR_TYPE_BOOL, "1", NULL,
     "MPI_Win_create windows whose ranks share a node reach each other's memory with "
     "process_vm_readv/writev (single copy) instead of active messages, when CMA works"},
    {"RMA_MAP", CVAR_TYPE_BOOL, "1", NULL,
     "MPI_Alloc_mem memory is a mappable (memfd) region; an MPI_Win_create window "
     "over such memory on one node maps every rank's region and uses loads and stores"},
    {"RMA_MBOX", CVAR_TYPE_BOOL, "1", NULL,
     "on such windows (up to 64 ranks) a lone small get or accumulate goes through a mailbox that "
     "the target serves when it is polling inside MPI, else (or not answered in 4 us) by CMA"},
    {"RMA_MBOX_FRESH_US", CVAR_TYPE_INT, "20", NULL,
     "a target counts as polling if its progress ran within this many microseconds"},
    {"RMA_MBOX_WAIT_US", CVAR_TYPE_INT, "4", NULL,
     "microseconds an origin waits for a mailbox answer before it takes the request back"},
    {"RMA_INLINE_MAX", CVAR_TYPE_SIZE, "15K", NULL,
     "puts up to this size travel in the operation's message; larger ones follow it"},
    {"RMA_PROGRESS_THREAD", CVAR_TYPE_STRING, "auto", NULL,
     "auto, 1 or 0: a thread serves passive-target operations while the process computes. auto: "
     "while windows exist whose targets need it (not node-shared MPI_Win_allocate(_shared) "
     "windows, not no_locks=true); 1: while any window exists; 0: never. Works at every thread level"},
    {"RMA_PROGRESS_INTERVAL", CVAR_TYPE_INT, "50", NULL,
     "microseconds the RMA progress thread sleeps between polls while operations arrive"},
    {"RMA_PROGRESS_IDLE_INTERVAL", CVAR_TYPE_INT, "1000", NULL,
     "longest sleep (microseconds) of the RMA progress thread when nothing arrives; it backs off "
     "to this from RMA_PROGRESS_INTERVAL"},
    /* channels */
    {"CHANNEL", CVAR_TYPE_STRING, "auto", NULL,
     "force the channel for remote peers: auto, shm, sock or ofi"},
    {"SHM_CMA", CVAR_TYPE_STRING, "auto", NULL,
     "single-copy large messages with process_vm_readv: auto, yes (MPI_Init fails if CMA "
     "cannot work; a copy that fails later warns once, and that message goes through the ring) "
     "or no"},
    {"SHM_CMA_WRITE_FAIL", CVAR_TYPE_STRING, "no", NULL,
     "testing: shm's process_vm_writev (the sender's part of a large message, "
     "CANAL_RNDV_HALVES_MIN) fails as if with efault or eperm, so that the receiver reads that "
     "part itself; no: it works"},
    {"SHM_CMA_FAIL_AFTER", CVAR_TYPE_STRING, "no", NULL,
     "testing: N[,efault][,partial][,first|,last][,probe]: shm's single-copy reads (each "
     "message of a batch one) succeed N times, then the next fails as process_vm_readv would with EPERM (CMA "
     "then off in the process) or EFAULT (that read only), after copying half its bytes with "
     "partial; first/last: when that read is in a batch, the batch's first/last read fails "
     "instead; probe: the init probes fail with that errno too; no: they work"},
    {"SOCK_IFACE", CVAR_TYPE_STRING, "auto", NULL,
     "sock: where to listen: an interface name (eth0), a CIDR subnet (10.1.0.0/16, fd00::/64) "
     "or one address; auto: loopback when the job is on one node, else the first non-loopback "
     "interface (IPv4 first)"},
    {"SOCK_MAX_PAYLOAD", CVAR_TYPE_SIZE, "256K", NULL,
     "sock: largest packet payload (the channel's max_payload), 1K..64M; equal on every rank"},
    {"SOCK_OUTBUF_LIMIT", CVAR_TYPE_SIZE, "4M", NULL,
     "sock: bytes queued per peer above which sendv says again (back-pressure to the device)"},
    {"SOCK_HANDSHAKE_TIMEOUT", CVAR_TYPE_INT, "120", NULL,
     "sock: seconds an incoming connection has to prove it belongs to the job before it is "
     "dropped (garbage and wrong proofs are dropped at once); generous because a rank that "
     "computes without calling MPI answers only when it calls MPI again; also how long a "
     "rank's own attempts to reach a peer are retried before the peer is declared failed"},
    {"SPAWN_CHECK", CVAR_TYPE_BOOL, "1", NULL,
     "MPI_Comm_spawn: the root checks that each command is an executable it can find (wdir, the "
     "info key path, PATH) before asking the launcher, which may not report a failed start; "
     "0 for launchers that start programs found only on other nodes"},
    {"SPAWN_TIMEOUT", CVAR_TYPE_INT, "600", NULL,
     "MPI_Comm_spawn: seconds the parent waits for the spawned processes to connect before it "
     "fails with MPI_ERR_SPAWN; 0 waits as long as it takes"},
    {"CONNECT_TIMEOUT", CVAR_TYPE_INT, "180", "CH4_COMM_CONNECT_TIMEOUT",
     "MPI_Comm_connect: seconds the connecting root waits for an MPI_Comm_accept on the port "
     "before the call fails with MPI_ERR_PORT (as MPICH); the info key \"timeout\" of the "
     "call overrides it; 0 waits as long as it takes"},
    {"DYNAMIC_PEERS", CVAR_TYPE_INT, "1024", NULL,
     "processes of other jobs (MPI_Comm_connect/accept, spawn, join) one process may talk to; "
     "room for them is reserved in the device's and the sock channel's peer tables"},
    {"SHM_CELL_SIZE", CVAR_TYPE_SIZE, "16K", NULL,
     "shm: the largest packet's payload (the channel's max_payload), 1K..1M"},
    {"SHM_CELLS", CVAR_TYPE_INT, "16", NULL,
     "shm: ring size in largest packets (one ring per ordered pair of local ranks; "
     "small packets share it byte by byte), 2..1024"},
    {"SHM_SOFT_WRAP", CVAR_TYPE_SIZE, "8K", NULL,
     "shm: a sender whose reader has caught up goes back to the ring's start on crossing a "
     "multiple of this many bytes (a ping-pong then reuses the ring's first lines); 0: only at "
     "the ring's end; 1K..1M, used when the ring holds at least four times as much (default 0 "
     "on Intel CPUs, where writing lines the peer's core holds costs more than fresh ones)",
     "0"},
    {"SHM_EAGER_LIMIT", CVAR_TYPE_SIZE, "16K", NULL,
     "shm: the eager limit to a peer on this node while single-copy reads (CMA) work, unless "
     "CANAL_EAGER_LIMIT is set; larger messages use rendezvous, one copy instead of two "
     "(default 4K on Intel CPUs, where the copy out of lines the sender's core just wrote is "
     "the slower); on an oversubscribed node, where rendezvous below CANAL_RNDV_STREAM_MAX "
     "streams (two copies too), not below CANAL_EAGER_LIMIT",
     "4K"},
    {"SHM_SEGMENT_MAX", CVAR_TYPE_SIZE, "64M", NULL,
     "shm: bound on the node's segment; cells and cell size shrink to fit it"},
    {"SHM_MEMBARRIER", CVAR_TYPE_BOOL, "1", NULL,
     "shm: sleeping ranks use membarrier() so senders need no fence (0: fences on both sides)"},
    {"SHM_TURNS", CVAR_TYPE_BOOL, "1", NULL,
     "shm: a small MPI_Send with no receive posted (a ping-pong's turn) goes through the line "
     "each pair of local ranks shares, when the peer answered the last one so (0: always the "
     "ring)"},
    {"OFI_PROVIDER", CVAR_TYPE_STRING, "", NULL,
     "ofi: libfabric provider to use (e.g. tcp;ofi_rxm, verbs;ofi_rxm, shm); empty: FI_PROVIDER "
     "or libfabric's first choice"},
    {"OFI_LIBRARY", CVAR_TYPE_STRING, "libfabric.so.1", NULL,
     "ofi: the libfabric shared library the ofi channel loads when it is opened (a dlopen "
     "name or path)"},
    {"OFI_CQ_WAIT", CVAR_TYPE_STRING, "auto", NULL,
     "ofi: give the completion queue a wait descriptor (fd: waits sleep in the kernel; none: "
     "about 1 us less per message, idle waits nap 100 us; auto: fd only when ranks outnumber "
     "cores)"},
    {"OFI_MAX_PAYLOAD", CVAR_TYPE_SIZE, "64K", NULL,
     "ofi: payload bytes per packet (size of each send and receive buffer), 1K..16M"},
    {"OFI_RX_BUFS", CVAR_TYPE_INT, "64", NULL,
     "ofi: receive buffers kept posted, 2..65536"},
    {"OFI_TX_BUFS", CVAR_TYPE_INT, "128", NULL,
     "ofi: registered send buffers; when all are in flight sendv says try again, 2..65536"},
    {"OFI_MR_CACHE", CVAR_TYPE_STRING, "auto", NULL,
     "ofi: keep memory registrations after their last user: auto (only where registration "
     "pins nothing), yes or no"},
    {"OFI_MR_CACHE_ENTRIES", CVAR_TYPE_INT, "128", NULL,
     "ofi: most registrations without users kept in the cache"},
    {"OFI_PEER_LOST_S", CVAR_TYPE_INT, "10", NULL,
     "ofi: seconds a peer may refuse every liveness probe (with nothing else in flight to it) "
     "before it is reported lost, when its process cannot be seen alive (a rank on this node "
     "whose pid still runs, or one that said it is finalizing, never is); 1..86400 (tests set "
     "it small)"},
    {"OFI_PROBE_ALL_MAX", CVAR_TYPE_INT, "64", NULL,
     "ofi: in a job of at most this many ranks an idle rank probes every peer; in a larger "
     "one, only those it is connected to and the 4 ranks after it (a probe opens a "
     "connection: not one from every rank to every other), 0..100000000"},
};

int common_cvar_count(void) { return (int)(sizeof cvar_table / sizeof cvar_table[0]); }

const common_cvar_desc_t *common_cvar_at(int i)
{
    if (i < 0 || i >= common_cvar_count())
        return NULL;
    return &cvar_table[i];
}

int common_cvar_find(const char *name)
{
    for (int i = 0; i < common_cvar_count(); i++)
        if (strcmp(cvar_table[i].name, name) == 0)
            return i;
    return -1;
}

static const common_cvar_desc_t *cvar_lookup(const char *name)
{
    int i = common_cvar_find(name);
    if (i < 0) {
        fprintf(stderr, "canal: internal error: configuration variable %s is not registered\n",
                name);
        abort();
    }
    return &cvar_table[i];
}

/* 1 on an Intel CPU (cpuid's vendor string), read once. */
static int cpu_is_intel(void)
{
    static int known = -1; /* (a race writes the same value) */
#if defined(__x86_64__) || defined(__i386__)
    if (known < 0) {
        unsigned a, b, c, d;
        known = __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547 /* "Genu" */ &&
                d == 0x49656e69 /* "ineI" */ && c == 0x6c65746e; /* "ntel" */
    }
#else
    known = 0;
#endif
    return known;
}

const char *common_cvar_default(const common_cvar_desc_t *d)
{
    return d->defval_intel != NULL && cpu_is_intel() ? d->defval_intel : d->defval;
}

/* Returns the environment value and the name it was found under, or NULL. */
static const char *cvar_env(const common_cvar_desc_t *d, char *which, size_t which_len)
{
    char key[128];
    const char *v;

    snprintf(key, sizeof key, "CANAL_%s", d->name);
    v = getenv(key);
    if (v == NULL && d->mpich_name != NULL) {
        snprintf(key, sizeof key, "MPIR_CVAR_%s", d->mpich_name);
        v = getenv(key);
    }
    if (v != NULL && which != NULL)
        snprintf(which, which_len, "%s", key);
    return v;
}

const char *common_cvar_str(const char *name)
{
    const common_cvar_desc_t *d = cvar_lookup(name);
    const char *v = cvar_env(d, NULL, 0);
    return v != NULL ? v : common_cvar_default(d);
}

const char *common_cvar_source(const char *name)
{
    static _Thread_local char which[128];
    const common_cvar_desc_t *d = cvar_lookup(name);
    if (cvar_env(d, which, sizeof which) == NULL)
        return "default";
    return which;
}

int common_parse_size(const char *s, long long *out)
{
    char *end;
    long long v;

    if (s == NULL || *s == '\0')
        return -1;
    v = strtoll(s, &end, 0);
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

int common_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "yes", "on", "true", "y"};
    static const char *const no[] = {"0", "no", "off", "false", "n"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(s, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

long long common_cvar_int(const char *name)
{
    const common_cvar_desc_t *d = cvar_lookup(name);
    const char *v = cvar_env(d, NULL, 0);
    long long x = 0;

    if (v != NULL) {
        if (d->type == CVAR_TYPE_SIZE ? common_parse_size(v, &x) == 0
                                      : (x = strtoll(v, (char **)&v, 0), *v == '\0'))
            return x;
        fprintf(stderr, "canal: ignoring bad value of CANAL_%s, using the default %s\n", d->name,
                common_cvar_default(d));
    }
    if (d->type == CVAR_TYPE_SIZE)
        common_parse_size(common_cvar_default(d), &x);
    else
        x = strtoll(common_cvar_default(d), NULL, 0);
    return x;
}

int common_cvar_bool(const char *name)
{
    const common_cvar_desc_t *d = cvar_lookup(name);
    const char *v = cvar_env(d, NULL, 0);
    int b = 0;

    if (v != NULL && common_parse_bool(v, &b) == 0)
        return b;
    if (v != NULL)
        fprintf(stderr, "canal: ignoring bad value of CANAL_%s, using the default %s\n", d->name,
                common_cvar_default(d));
    common_parse_bool(common_cvar_default(d), &b);
    return b;
}
