/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/host.h: the OpenCL runtime inside clops.
 *
 * This is the only layer that talks to OpenCL directly.  It owns
 *   - discovery of platforms and devices and the clops_device records
 *     (host/device.c),
 *   - one context and one in-order queue per device,
 *   - the caching buffer allocator (host/alloc.c),
 *   - program builds, the in-memory kernel cache and the on-disk binary
 *     cache (host/program.c, host/diskcache.c),
 *   - kernel launches and host<->device transfers (host/launch.c),
 *   - mapping OpenCL error codes to clops statuses (host/cl_errors.c),
 *   - the embedded cl_kernels/ sources (host/cl_source.c),
 *   - the device memory behind core's storage records (host/storage.c).
 *
 * It sits above core/ and below dispatch/ (docs/architecture.md): it
 * includes nothing from dispatch/, the kernels or generated code.
 *
 * Threading: every function here may be called from several threads at
 * once.  A cl_kernel's arguments are not thread-safe in OpenCL, so a
 * host_kernel carries a lock that host_launch holds from the first
 * clSetKernelArg to the enqueue.
 */
#ifndef CLOPS_HOST_HOST_H
#define CLOPS_HOST_HOST_H

#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "clops/device.h"
#include "clops/status.h"
#include "core/error.h"
#include "core/strbuf.h"

typedef struct host_allocator host_allocator;
typedef struct host_kernel_cache host_kernel_cache;

/* The library's record of one device (CPU or OpenCL). */
struct clops_device {
    clops_device_info info; /* info.fp64/fp16 reflect capability overrides */
    bool hw_fp64;           /* what the hardware reports */
    bool hw_fp16;
    /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: programs are built with
     * -cl-fp32-correctly-rounded-divide-sqrt. */
    bool exact_div_sqrt;
    /* NVIDIA compute capability (cl_nv_device_attribute_query), e.g. 9.0
     * on an H100; 0.0 where the device does not report one. */
    int nv_cc_major, nv_cc_minor;
    char label[24];         /* "cpu", "opencl:0" */
    int cl_index;           /* K of "opencl:K", -1 for the CPU */

    /* OpenCL objects; NULL for the CPU device. */
    cl_platform_id platform;
    cl_device_id id;
    cl_context context;
    cl_command_queue queue;

    /* Identity for the disk cache: hash of platform name and version, device
     * name, driver version and the clops version; and the per-device cache
     * folder name derived from it ("NVIDIA_H200-3fa2c1d0"). */
    uint64_t identity_hash;
    char cache_tag[96];
    /* Whether compiled programs go to clops' disk cache (see
     * host/program.c for why POCL is left to its own cache). */
    bool cache_binaries;

    /* Launch geometry chosen for this device. */
    size_t wg_size;     /* work-group size for 1-D elementwise kernels */
    size_t max_groups;  /* grid-stride loops use at most this many groups */
    /* CPU launch policy (CL_DEVICE_TYPE_CPU, e.g. POCL): kernels written for
     * it give each work item one contiguous chunk walked by a serial loop
     * (host_chunk_grid), instead of GPU-style grid-stride loops, which POCL
     * runs as one strided walk per work item (issue 19: 10-30x slower). */
    bool chunked;
    size_t max_chunks;  /* work items of a chunked launch at most */

    host_allocator *alloc;
    host_kernel_cache *kcache;
    /* Kernels enqueued (clops_device_get_counters). */
    _Atomic uint64_t launches;
    /* A caller's context and queue wrapped by clops_opencl_wrap_device
     * (host/interop.c): retained, not created; not in the device list. */
    bool wrapped;
};

/* --- lifetime (host/device.c) ------------------------------------------ */

/* Discovers devices once (thread-safe); later calls return the first
 * result. */
clops_status host_init(void);
void host_shutdown(void);
int host_device_count(void);
/* Recomputes identity_hash and cache_tag from the info strings (after a
 * test changed, e.g., driver_version). */
void host_device_refresh_identity(clops_device *d);
/* Device by index without checks (index must be valid, init done). */
clops_device *host_device_at(int index);
/* A device record over a caller's context and queue (retained here; their
 * match was checked by host/interop.c).  Wrapping the same context and
 * queue again returns the first record.  The record lives until
 * host_shutdown. */
clops_status host_device_wrap(cl_platform_id platform, cl_device_id id, cl_context context,
                              cl_command_queue queue, clops_device **out);

static inline bool host_is_cpu(const clops_device *d)
{
    return d->info.type == CLOPS_DEVICE_CPU;
}

/* --- storage memory (host/storage.c) ----------------------------------- */

/* Installs core's memory hooks (core/hooks.h); host_init calls it. */
void host_install_memory_hooks(void);

/* --- errors (host/cl_errors.c) ------------------------------------------ */

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" when unknown. */
const char *host_cl_error_name(cl_int err);
/* Records "<what> failed: CL_X (n) on <device label> (<device name>)" and
 * returns the clops status for err (memory errors -> CLOPS_OUT_OF_MEMORY,
 * build errors -> CLOPS_BUILD_FAILURE, else CLOPS_OPENCL_ERROR). */
clops_status host_cl_fail(cl_int err, const char *what, const clops_device *d);

/* --- allocator (host/alloc.c) ------------------------------------------- */

/* A device buffer handed out by the caching allocator. */
typedef struct host_block {
    cl_mem mem;
    size_t size;      /* rounded size actually allocated */
    clops_device *device;    /* not to be used once generation is stale */
    unsigned generation;     /* host_generation() when allocated */
    struct host_block *next; /* free-list link while cached */
    /* A caller's cl_mem (clops_opencl_tensor_from_buffer): clops holds one
     * retain and host_free drops it; never cached or counted. */
    bool borrowed;
} host_block;

clops_status host_alloc_create(clops_device *d);
void host_alloc_destroy(clops_device *d);
/* A buffer of at least nbytes (> 0).  Errors name the request, the device's
 * limits and what is in use. */
clops_status host_alloc(clops_device *d, size_t nbytes, host_block **out);
/* Returns the block to the device's cache.  NULL is a no-op.  A block of
 * an earlier generation (allocated before clops_shutdown) is released to
 * the driver directly: its device record and allocator are gone. */
void host_free(host_block *b);
/* Counts clops_shutdown calls: devices of an older generation are freed. */
unsigned host_generation(void);
/* Releases cached (unused) blocks to the driver. */
void host_alloc_trim(clops_device *d);
/* Bytes handed out and bytes cached, for diagnostics and tests. */
void host_alloc_stats(clops_device *d, size_t *in_use, size_t *cached);
/* The most bytes handed out at once since the device started or the last
 * reset; `reset` (after reading) makes it the bytes handed out now. */
size_t host_alloc_peak(clops_device *d, bool reset);

/* --- programs and kernels (host/program.c) ------------------------------ */

/*
 * A specialisation key: what makes one compiled kernel differ from another.
 * Callers pack their choices (family, op, dtypes, rank, index width, fast
 * path) into these words; a lookup hashes the words, it never builds a
 * string.  Two different kernels must never share a key.
 */
typedef struct host_kkey {
    uint64_t w[4];
} host_kkey;

/* A ready kernel and the lock that makes setting its arguments and
 * enqueueing one atomic step. */
typedef struct host_kernel {
    cl_kernel kernel;
    pthread_mutex_t lock;
    struct host_program *program;
    size_t wg_size;       /* work-group size to launch with */
    char name[64];
} host_kernel;

/*
 * How to make a kernel on a cache miss.  The program groups several kernels
 * (program_name identifies the group; its source must be the same whichever
 * kernel of the group asked first, so the disk cache sees one program).
 */
typedef struct host_kernel_request {
    const char *program_name;  /* e.g. "pointwise/add"; used in dumps, errors */
    const char *kernel_name;   /* entry point inside the program */
    /* Writes the whole program source into sb.  Called only on a miss. */
    clops_status (*gen_source)(void *ctx, const clops_device *d, strbuf *sb);
    void *ctx;
    const char *build_options; /* extra options after the defaults; may be NULL */
    /* NULL, or the PTX route's target ("sm_90a"; NVIDIA devices only): the
     * program is built from source, its PTX read back, the `.target` line
     * made this target and every "//@" removed (instructions the driver's
     * own target rejects, written as PTX comments), and the PTX built again;
     * that program is the one kept and cached (host/program.c).  One token
     * ("sm_90a"), shorter than 32 characters. */
    const char *ptx_target;
    /* NULL (the driver's own), or, with ptx_target only, the performance
     * directives of the entry kernel_name in the routed PTX, one a line
     * (".maxntid 384, 1, 1\n.minnctapersm 1\n"; PTX ISA "Performance-Tuning
     * Directives": .maxntid, .reqntid, .minnctapersm, .maxnreg): they
     * replace every such directive the driver wrote for that entry (it
     * writes .reqntid for reqd_work_group_size).  Part of the program's
     * disk-cache key.  CLOPS_PTX_VERBOSE prints them with ptxas's log. */
    const char *ptx_entry_directives;
} host_kernel_request;

/* The options every program of device d is built with, then extra (may be
 * NULL): -cl-std=CL1.2, -DCLOPS_HAS_FP64=1 with fp64, and
 * -cl-fp32-correctly-rounded-divide-sqrt where the device offers it. */
void host_build_options(const clops_device *d, const char *extra, char *buf, size_t cap);

clops_status host_kcache_create(clops_device *d);
void host_kcache_destroy(clops_device *d);
/* O(1) lookup; NULL on a miss. */
host_kernel *host_kernel_lookup(clops_device *d, const host_kkey *key);
/* Lookup, and on a miss build (or load from disk) the program and create
 * the kernel.  Never builds the same program twice, even when several
 * threads miss at once. */
clops_status host_kernel_get(clops_device *d, const host_kkey *key, const host_kernel_request *req,
                             host_kernel **out);
/* Counters for tests and `clops cache info`. */
typedef struct host_kcache_stats {
    uint64_t kernel_hits, kernel_misses;
    uint64_t programs_built, programs_loaded; /* built from source / from disk */
    uint64_t disk_rejected; /* corrupt, truncated or unloadable cache files */
    double build_seconds;   /* total time in clBuildProgram */
} host_kcache_stats;
void host_kcache_get_stats(clops_device *d, host_kcache_stats *out);
/* The name of the program k belongs to ("gemm/mma/float16/a-k/b-n/..."). */
const char *host_kernel_program_name(const host_kernel *k);

/* Which kernels the calling thread launches while a log is open (what
 * `clops bench` names as the engine path of a row): the distinct
 * "program:kernel" names in launch order, the first HOST_LOG_MAX of them
 * (`more` counts the rest).  One log per thread; closing it stops the
 * recording.  Launches from other threads are not recorded. */
#define HOST_LOG_MAX 8
typedef struct host_launch_log {
    int n, more;
    char names[HOST_LOG_MAX][160];
} host_launch_log;
void host_launch_log_open(host_launch_log *log);
void host_launch_log_close(void);

/* --- source limits (host/source_check.c) ------------------------------ */

/* Bracket nesting and statement length beyond which a program source is not
 * handed to the driver (deeper sources crash compilers in clBuildProgram). */
#define HOST_SOURCE_MAX_DEPTH 200
#define HOST_SOURCE_MAX_STATEMENT 20000
/* CLOPS_BUILD_FAILURE naming the program and the line when src is deeper or
 * longer than those limits; comments and literals are skipped. */
clops_status host_source_check(const char *program_name, const char *src);

/* --- disk cache (host/diskcache.c) -------------------------------------- */

/* The cache directory (CLOPS_CACHE_DIR, else $XDG_CACHE_HOME/clops, else
 * ~/.cache/clops) into buf; false when CLOPS_CACHE=0 or no home is known.
 * Read from the environment on each call (only miss paths call it). */
bool host_cache_dir(char *buf, size_t cap);
/* mkdir -p with mode 0755 (report folders and the like); false on failure
 * (errno set). */
bool host_make_dirs(const char *path);
/* mkdir -p with the given mode for the folders it creates. */
bool host_make_dirs_mode(const char *path, mode_t mode);
/* Whether a cache folder may be trusted: a folder owned by the user or by
 * root, not writable by others unless sticky.  *why says what is wrong. */
bool host_dir_is_safe(const char *path, const char **why);
/* <cache root>/<sub> into buf ("" or NULL: the root).  Every folder from the
 * root down is checked with host_dir_is_safe (an unsafe one: one warning per
 * process and false, errno 0); with create, missing folders are made 0700
 * (false with errno set when that fails).  Without create a missing folder
 * is fine (lookups just miss).  False too when there is no cache. */
bool host_cache_subdir(const char *sub, bool create, char *buf, size_t cap);
/* The folder holding one device's kernel binaries into buf (checked, not
 * created). */
bool host_cache_device_dir(const clops_device *d, char *buf, size_t cap);
/* Opens a new temporary file "<final_path>.tmp.XXXXXX" (mkstemp: created
 * with O_EXCL and mode 0600, so a planted symlink is never followed) for
 * writing; its name goes to tmp.  Write, fclose, then rename it to
 * final_path (rename replaces a link, never writes through it).  NULL with
 * errno set on failure. */
FILE *host_create_temp(const char *final_path, char *tmp, size_t cap);
/* 128-bit key of a program binary: source, options, device identity. */
typedef struct host_dkey {
    uint64_t lo, hi;
} host_dkey;
host_dkey host_disk_key(const clops_device *d, const char *source, size_t source_len,
                        const char *options);
/* Loads a cached binary (malloc'd into *data).  CLOPS_OK with *data NULL on
 * a miss; a corrupt or truncated file is deleted, counted and reported as a
 * miss. */
clops_status host_disk_load(const clops_device *d, host_dkey key, unsigned char **data,
                            size_t *size, bool *rejected);
/* Deletes a key's cache file (a binary the driver accepted but that does
 * not hold what its key promises). */
void host_disk_remove(const clops_device *d, host_dkey key);
/* Stores a binary atomically (temp file + rename) with a checksum.  Failing
 * to write the cache is not an error for the caller (returns CLOPS_OK and
 * warns once). */
clops_status host_disk_store(const clops_device *d, host_dkey key, const unsigned char *data,
                             size_t size);

/* --- launches and transfers (host/launch.c) ----------------------------- */

/* One kernel argument: size bytes at value (a cl_mem is passed by address). */
typedef struct host_arg {
    size_t size;
    const void *value;
} host_arg;

/* Sets the arguments and enqueues a 1-D range of `global` work items in
 * groups of k->wg_size (global is rounded up to a multiple).  Returns without
 * waiting. */
clops_status host_launch(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                         size_t global);
/* The same with an explicit work-group size (global rounded up to a
 * multiple of local); for test hooks that vary the launch geometry. */
clops_status host_launch_local(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                               size_t global, size_t local);
/* Work items for an elementwise kernel over n elements with a grid-stride
 * loop: at most d->max_groups groups. */
size_t host_grid_size(const clops_device *d, const host_kernel *k, uint64_t n);
/* Work items for a chunked kernel (d->chunked) over n units of work: each
 * item takes a contiguous run of at least HOST_MIN_CHUNK units, and there
 * are at most d->max_chunks items (a few per compute unit, so a thread that
 * is descheduled leaves little work behind).  Launch with local size 1
 * (host_launch_chunked). */
#define HOST_MIN_CHUNK 4096
size_t host_chunk_grid(const clops_device *d, uint64_t n);
/* Enqueues a chunked kernel over n units of work (host_chunk_grid items in
 * work groups of one). */
clops_status host_launch_chunked(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                                 uint64_t n);
/* Enqueues a kernel whose loop is CLOPS_ITEMS (cl_kernels/items.clh) over n
 * items: chunked on CPU devices, a grid-stride grid elsewhere. */
clops_status host_launch_items(clops_device *d, host_kernel *k, int nargs, const host_arg *args,
                               uint64_t n);


clops_status host_write(clops_device *d, cl_mem dst, size_t offset, const void *src, size_t n);
clops_status host_read(clops_device *d, cl_mem src, size_t offset, void *dst, size_t n);
clops_status host_copy_buffer(clops_device *d, cl_mem src, size_t src_off, cl_mem dst,
                              size_t dst_off, size_t n);
/* Enqueues zeroing n bytes of dst at offset (clEnqueueFillBuffer); does
 * not wait. */
clops_status host_fill_zero(clops_device *d, cl_mem dst, size_t offset, size_t n);
clops_status host_finish(clops_device *d);

/* --- embedded sources (host/cl_source.c) -------------------------------- */

/* The text of cl_kernels/<name> (NUL-terminated), from the embedded copy or,
 * in a CLOPS_KERNELS_FROM_DISK build or when CLOPS_KERNEL_DIR is set, read
 * from disk.  CLOPS_IO_ERROR if absent. */
clops_status host_cl_source(const char *name, const char **text);

/* --- versions (host/versions.c) --------------------------------------- */

/* The ICD loader: "OpenCL ICD Loader 2.3.1 (OpenCL 3.0), /usr/lib/...",
 * from ocl-icd's clGetICDLoaderInfoOCLICD where the loader has it, and the
 * loader's file.  False when neither is known. */
bool host_icd_loader_info(char *buf, size_t cap);
/* The real path of the shared object that holds symbol (dladdr); false for
 * a symbol linked into the executable's own image lookups cannot name. */
bool host_library_path(const void *symbol, char *buf, size_t cap);

/* --- environment -------------------------------------------------------- */

/* getenv wrapper that treats "" as unset. */
const char *host_env(const char *name);

#endif /* CLOPS_HOST_HOST_H */
