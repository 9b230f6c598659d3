/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/device.c: device discovery, capability records and selection.
 *
 * On first use the library lists every OpenCL platform and device, creates
 * one context and one in-order queue per device, and records what each device
 * can do.  Device 0 is the host CPU, which needs no OpenCL.  Nothing is
 * compiled here: programs are built lazily on first launch.
 *
 * A platform or device that fails to answer is skipped and the reason is kept
 * in the discovery note, so `clops devices` can say why a device is missing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <xxhash.h>

#include "core/tensor_impl.h"
#include "host/host.h"

#ifndef CLOPS_VERSION_STRING
#define CLOPS_VERSION_STRING "0.0.0"
#endif

#define MAX_DEVICES 64

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool initialized;
static atomic_uint generation; /* bumped by each host_shutdown */
static clops_device *devices[MAX_DEVICES];
static int device_count;
/* Wrapped devices (host_device_wrap), kept apart from the enumerated list,
 * which stays fixed after discovery; guarded by init_lock. */
#define MAX_WRAPPED 64
static clops_device *wrapped[MAX_WRAPPED];
static int wrapped_count;
static char discovery_note[2048];

/* Appends a sentence to the discovery note. */
static void note_append(const char *fmt, ...) CLOPS__PRINTF(1, 2);
static void note_append(const char *fmt, ...)
{
    size_t len = strlen(discovery_note);
    if (len + 3 >= sizeof discovery_note)
        return;
    if (len) {
        discovery_note[len++] = ';';
        discovery_note[len++] = ' ';
        discovery_note[len] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(discovery_note + len, sizeof discovery_note - len, fmt, ap);
    va_end(ap);
}

const char *clops_vendor_name(clops_vendor vendor)
{
    static const char *const names[] = {
#define VENDOR_NAME(e, name) name,
        CLOPS_VENDOR_LIST(VENDOR_NAME)
#undef VENDOR_NAME
    };
    if ((int)vendor < 0 || vendor >= CLOPS_VENDOR_COUNT)
        return "invalid";
    return names[vendor];
}

const char *host_env(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : NULL;
}

/* Case-insensitive substring test. */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return true;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* Reads a string property of a platform into buf (truncating). */
static void platform_str(cl_platform_id p, cl_platform_info what, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return;
    char *tmp = malloc(n);
    if (!tmp)
        return;
    if (clGetPlatformInfo(p, what, n, tmp, NULL) == CL_SUCCESS)
        snprintf(buf, cap, "%s", tmp);
    free(tmp);
}

/* Reads a string property of a device into buf (truncating). */
static void device_str(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return;
    char *tmp = malloc(n);
    if (!tmp)
        return;
    if (clGetDeviceInfo(d, what, n, tmp, NULL) == CL_SUCCESS)
        snprintf(buf, cap, "%s", tmp);
    free(tmp);
    /* Drivers pad some strings with spaces. */
    size_t len = strlen(buf);
    while (len && buf[len - 1] == ' ')
        buf[--len] = '\0';
}

/* True when the device's extension string lists ext. */
static bool device_has_extension(cl_device_id d, const char *ext)
{
    size_t n = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return false;
    char *exts = malloc(n + 2);
    if (!exts)
        return false;
    bool found = false;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, n, exts, NULL) == CL_SUCCESS) {
        exts[n] = '\0';
        size_t len = strlen(ext);
        for (const char *p = exts; (p = strstr(p, ext)) != NULL; p += len) {
            bool start = p == exts || p[-1] == ' ';
            bool end = p[len] == '\0' || p[len] == ' ';
            if (start && end) {
                found = true;
                break;
            }
        }
    }
    free(exts);
    return found;
}

/* Vendor family from the platform and device strings.  POCL is checked
 * first: its CPU device reports the CPU maker as vendor. */
static clops_vendor detect_vendor(const char *platform, const char *vendor, const char *name)
{
    if (contains_ci(platform, "portable computing language") || contains_ci(platform, "pocl"))
        return CLOPS_VENDOR_POCL;
    if (contains_ci(vendor, "nvidia") || contains_ci(platform, "nvidia"))
        return CLOPS_VENDOR_NVIDIA;
    if (contains_ci(vendor, "advanced micro devices") || contains_ci(vendor, "amd") ||
        contains_ci(platform, "amd"))
        return CLOPS_VENDOR_AMD;
    if (contains_ci(vendor, "intel") || contains_ci(platform, "intel") || contains_ci(name, "intel"))
        return CLOPS_VENDOR_INTEL;
    return CLOPS_VENDOR_OTHER;
}

/* Hash of everything that makes a compiled binary valid for this device, and
 * the cache folder name derived from it. */
void host_device_refresh_identity(clops_device *d)
{
    XXH3_state_t *st = XXH3_createState();
    const char *parts[] = {d->info.platform_name, d->info.platform_version, d->info.name,
                           d->info.driver_version, d->info.device_version, CLOPS_VERSION_STRING};
    if (st) {
        XXH3_64bits_reset(st);
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
            XXH3_64bits_update(st, parts[i], strlen(parts[i]) + 1);
        d->identity_hash = XXH3_64bits_digest(st);
        XXH3_freeState(st);
    }
    char clean[48];
    size_t j = 0;
    for (const char *p = d->info.name; *p && j + 1 < sizeof clean; p++)
        clean[j++] = (isalnum((unsigned char)*p) || *p == '-') ? *p : '_';
    clean[j] = '\0';
    snprintf(d->cache_tag, sizeof d->cache_tag, "%s-%08x", clean, (unsigned)(d->identity_hash >> 32));
}

/* Fills the CPU device record from the operating system. */
static clops_device *make_cpu_device(void)
{
    clops_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->info.type = CLOPS_DEVICE_CPU;
    d->info.vendor = CLOPS_VENDOR_HOST;
    d->cl_index = -1;
    snprintf(d->label, sizeof d->label, "cpu");
    snprintf(d->info.name, sizeof d->info.name, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    snprintf(d->info.name, sizeof d->info.name, "%s", c);
                    d->info.name[strcspn(d->info.name, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    snprintf(d->info.vendor_name, sizeof d->info.vendor_name, "host");
    snprintf(d->info.platform_name, sizeof d->info.platform_name, "clops reference (C)");
    snprintf(d->info.platform_version, sizeof d->info.platform_version, "clops %s",
             CLOPS_VERSION_STRING);
    snprintf(d->info.driver_version, sizeof d->info.driver_version, "%s", CLOPS_VERSION_STRING);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES);
    long psize = sysconf(_SC_PAGESIZE);
    d->info.compute_units = ncpu > 0 ? (uint32_t)ncpu : 1;
    d->info.global_mem_bytes = (pages > 0 && psize > 0) ? (uint64_t)pages * (uint64_t)psize : 0;
    d->info.max_alloc_bytes = d->info.global_mem_bytes;
    d->info.max_work_group_size = 1;
    d->info.max_parameter_size = SIZE_MAX;
    d->info.mem_base_addr_align = 512;
    d->hw_fp64 = d->info.fp64 = true;
    d->hw_fp16 = d->info.fp16 = false;
    host_device_refresh_identity(d);
    return d;
}

/* Creates the record, context and queue of one OpenCL device, or, for a
 * wrapped device (ctx and queue given), retains the caller's.  On failure
 * returns NULL and adds the reason to the discovery note. */
static clops_device *make_cl_device(cl_platform_id p, cl_device_id id, int cl_index,
                                    cl_context ctx, cl_command_queue queue)
{
    clops_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->info.type = CLOPS_DEVICE_OPENCL;
    d->platform = p;
    d->id = id;
    d->cl_index = cl_index;
    snprintf(d->label, sizeof d->label, "opencl:%d", cl_index);
    clops_device_info *in = &d->info;
    platform_str(p, CL_PLATFORM_NAME, in->platform_name, sizeof in->platform_name);
    platform_str(p, CL_PLATFORM_VERSION, in->platform_version, sizeof in->platform_version);
    device_str(id, CL_DEVICE_NAME, in->name, sizeof in->name);
    device_str(id, CL_DEVICE_VENDOR, in->vendor_name, sizeof in->vendor_name);
    device_str(id, CL_DEVICE_VERSION, in->device_version, sizeof in->device_version);
    device_str(id, CL_DRIVER_VERSION, in->driver_version, sizeof in->driver_version);
    device_str(id, CL_DEVICE_OPENCL_C_VERSION, in->opencl_c_version, sizeof in->opencl_c_version);
    in->vendor = detect_vendor(in->platform_name, in->vendor_name, in->name);

    cl_device_type type = 0;
    cl_uint cu = 0, clock = 0, align = 0;
    cl_ulong gmem = 0, maxalloc = 0, lmem = 0;
    size_t maxwg = 0, maxparam = 0;
    clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
    clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
    clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof maxparam, &maxparam, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL);
    in->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    in->compute_units = cu;
    in->max_clock_mhz = clock;
    in->global_mem_bytes = gmem;
    in->max_alloc_bytes = maxalloc;
    in->local_mem_bytes = lmem;
    in->max_work_group_size = maxwg ? maxwg : 1;
    in->max_parameter_size = maxparam;
    in->mem_base_addr_align = align;
    cl_device_fp_config dcfg = 0;
    clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dcfg, &dcfg, NULL);
    d->hw_fp64 = device_has_extension(id, "cl_khr_fp64") || dcfg != 0;
    d->hw_fp16 = device_has_extension(id, "cl_khr_fp16");
    cl_device_fp_config scfg = 0;
    clGetDeviceInfo(id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof scfg, &scfg, NULL);
    d->exact_div_sqrt = (scfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    in->fp64 = d->hw_fp64;
    in->fp16 = d->hw_fp16;
    /* NVIDIA's compute capability: which matrix-unit instructions its
     * OpenCL C accepts through inline PTX (the GEMM engine's mma atoms). */
    if (device_has_extension(id, "cl_nv_device_attribute_query")) {
        cl_uint ccmaj = 0, ccmin = 0;
        if (clGetDeviceInfo(id, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */,
                            sizeof ccmaj, &ccmaj, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(id, 0x4001 /* CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV */,
                            sizeof ccmin, &ccmin, NULL) == CL_SUCCESS) {
            d->nv_cc_major = (int)ccmaj;
            d->nv_cc_minor = (int)ccmin;
        }
    }
    const char *force = host_env("CLOPS_CACHE_POCL");
    d->cache_binaries = in->vendor != CLOPS_VENDOR_POCL || (force && strcmp(force, "0") != 0);
    host_device_refresh_identity(d);

    /* Launch geometry: 256-wide groups where allowed; enough groups in
     * flight to fill a GPU, few on CPU devices where each group is a loop. */
    d->wg_size = in->max_work_group_size < 256 ? in->max_work_group_size : 256;
    d->max_groups = (size_t)(cu ? cu : 1) * (in->is_gpu ? 32 : 4);
    /* CPU devices: chunked kernels (host.h), 4 chunks per compute unit.
     * CLOPS_CPU_LAUNCH=gridstride keeps the GPU policy there (for A/B runs of
     * bench_pointwise). */
    const char *policy = host_env("CLOPS_CPU_LAUNCH");
    d->chunked = (type & CL_DEVICE_TYPE_CPU) && !(policy && strcmp(policy, "gridstride") == 0);
    d->max_chunks = (size_t)(cu ? cu : 1) * 4;

    if (ctx) {
        d->wrapped = true;
        d->context = ctx;
        d->queue = queue;
        clRetainContext(ctx);
        clRetainCommandQueue(queue);
        return d;
    }
    cl_int err = CL_SUCCESS;
    d->context = clCreateContext(NULL, 1, &id, NULL, NULL, &err);
    if (!d->context || err != CL_SUCCESS) {
        note_append("device '%s' skipped: clCreateContext: %s", in->name, host_cl_error_name(err));
        free(d);
        return NULL;
    }
    /* Profiling on, so a caller's marker events carry timestamps (the
     * PyTorch bridge's timing events, torch.clops.Event(enable_timing=True));
     * its cost on a chain of small kernels is below the noise
     * (docs/torch.md, "Streams and events").  CLOPS_QUEUE_PROFILING=0 turns
     * it off (for A/B runs). */
    const char *prof = host_env("CLOPS_QUEUE_PROFILING");
    cl_command_queue_properties qprops =
        prof && strcmp(prof, "0") == 0 ? 0 : CL_QUEUE_PROFILING_ENABLE;
    d->queue = clCreateCommandQueue(d->context, id, qprops, &err);
    if ((!d->queue || err != CL_SUCCESS) && qprops) /* profiling is mandatory in 1.2; still */
        d->queue = clCreateCommandQueue(d->context, id, 0, &err);
    if (!d->queue || err != CL_SUCCESS) {
        note_append("device '%s' skipped: clCreateCommandQueue: %s", in->name,
                    host_cl_error_name(err));
        clReleaseContext(d->context);
        free(d);
        return NULL;
    }
    return d;
}

/* Frees one device record and its OpenCL objects. */
static void destroy_device(clops_device *d)
{
    if (!d)
        return;
    if (d->queue)
        clFinish(d->queue);
    host_kcache_destroy(d);
    host_alloc_destroy(d);
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    free(d);
}

/* Sets up allocator and kernel cache of a device; false on failure. */
static bool device_runtime_create(clops_device *d)
{
    if (host_alloc_create(d) != CLOPS_OK)
        return false;
    if (host_kcache_create(d) != CLOPS_OK) {
        host_alloc_destroy(d);
        return false;
    }
    return true;
}

/*
 * POCL keeps its own cache of built programs and compiled kernels.  Unless
 * the user configured it, put it inside clops' cache folder (so `clops cache
 * clear` clears it) and switch it off with CLOPS_CACHE=0 (so a cold start is
 * really cold).  A cache folder this user cannot write (a cache filled by
 * root when a container image was built) or refuses as unsafe leaves POCL's
 * cache where POCL puts it by default, with one warning: pointing POCL into
 * a read-only folder makes every build fail.  Must run before the ICD loader
 * initialises POCL.
 */
static void configure_pocl_cache(void)
{
    char dir[1024], pocl[1100];
    if (!host_cache_dir(dir, sizeof dir)) {
        setenv("POCL_KERNEL_CACHE", "0", 0);
        return;
    }
    if (getenv("POCL_CACHE_DIR"))
        return;
    errno = 0;
    bool made = host_cache_subdir("pocl", true, pocl, sizeof pocl);
    if (made && access(pocl, W_OK | X_OK) == 0) {
        setenv("POCL_CACHE_DIR", pocl, 0);
        return;
    }
    if (made || errno) /* (an unsafe folder was reported already) */
        fprintf(stderr, "clops: warning: the kernel cache folder %s is not writable (%s); POCL "
                        "keeps its own cache in its default place\n",
                dir, strerror(made ? EACCES : errno));
}

/*
 * Some driver stacks change the ICD loader's variables while they load: on
 * our H100 machines (Ubuntu 24.04, POCL 5.0 and NVIDIA 580) the process has
 * OCL_ICD_FILENAMES=libpocl.so.2 after discovery, so every child process --
 * `clops compare`'s first-call runs, a user's own subprocesses -- saw POCL
 * and lost the GPU.  Discovery puts these variables back as it found them.
 */
static const char *const icd_vars[] = {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"};
#define N_ICD_VARS (sizeof icd_vars / sizeof icd_vars[0])

static void icd_env_save(char **saved)
{
    for (size_t i = 0; i < N_ICD_VARS; i++) {
        const char *v = getenv(icd_vars[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
}

static void icd_env_restore(char **saved)
{
    for (size_t i = 0; i < N_ICD_VARS; i++) {
        const char *now = getenv(icd_vars[i]);
        if (saved[i] && (!now || strcmp(now, saved[i]) != 0))
            setenv(icd_vars[i], saved[i], 1);
        else if (!saved[i] && now)
            unsetenv(icd_vars[i]);
        free(saved[i]);
    }
}

/* Lists the devices of every OpenCL platform. */
static void discover_platforms(void)
{
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err != CL_SUCCESS || nplat == 0) {
        note_append("no OpenCL platform found (clGetPlatformIDs: %s); only the CPU device is "
                    "available",
                    err != CL_SUCCESS ? host_cl_error_name(err) : "0 platforms");
        return;
    }
    cl_platform_id *plats = calloc(nplat, sizeof *plats);
    if (!plats) {
        note_append("out of host memory while listing platforms");
        return;
    }
    clGetPlatformIDs(nplat, plats, NULL);
    int cl_index = 0;
    for (cl_uint p = 0; p < nplat; p++) {
        char pname[128];
        platform_str(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
        cl_uint ndev = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
        if (err != CL_SUCCESS || ndev == 0) {
            note_append("platform '%s' has no usable device (clGetDeviceIDs: %s)", pname,
                        host_cl_error_name(err));
            continue;
        }
        cl_device_id *ids = calloc(ndev, sizeof *ids);
        if (!ids)
            break;
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL);
        for (cl_uint i = 0; i < ndev && device_count < MAX_DEVICES; i++) {
            clops_device *d = make_cl_device(plats[p], ids[i], cl_index, NULL, NULL);
            if (!d)
                continue;
            if (!device_runtime_create(d)) {
                note_append("device '%s' skipped: out of host memory", d->info.name);
                clReleaseCommandQueue(d->queue);
                clReleaseContext(d->context);
                free(d);
                continue;
            }
            d->info.index = device_count;
            devices[device_count++] = d;
            cl_index++;
        }
        free(ids);
    }
    free(plats);
}

/*
 * The process-wide environment changes of discovery, done once per process
 * (pthread_once) during the first initialisation, before clops has created
 * any thread (it creates none of its own): POCL's cache variables are set
 * and the ICD loader's variables are put back after the loader has loaded
 * its vendors (the first clGetPlatformIDs).  setenv races with getenv in
 * other threads, so a program whose own threads may read the environment
 * then calls clops_init() before starting them, or sets CLOPS_NO_SETENV=1:
 * clops then changes no variable (POCL uses its own cache settings and the
 * ICD variables stay as the drivers leave them).  docs/architecture.md
 * describes this.
 */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void setup_process_env(void)
{
    const char *off = getenv("CLOPS_NO_SETENV");
    if (off && *off && strcmp(off, "0") != 0)
        return;
    char *saved[N_ICD_VARS];
    icd_env_save(saved);
    configure_pocl_cache();
    cl_uint n = 0;
    clGetPlatformIDs(0, NULL, &n); /* the ICD loader loads its vendors now */
    icd_env_restore(saved);
}

/* Lists every OpenCL device after the CPU device. */
static void discover_opencl(void)
{
    pthread_once(&env_once, setup_process_env);
    discover_platforms();
}

clops_status host_init(void)
{
    if (atomic_load_explicit(&initialized, memory_order_acquire))
        return CLOPS_OK;
    pthread_mutex_lock(&init_lock);
    clops_status st = CLOPS_OK;
    if (!atomic_load_explicit(&initialized, memory_order_relaxed)) {
        discovery_note[0] = '\0';
        host_install_memory_hooks();
        clops_device *cpu = make_cpu_device();
        if (!cpu || !device_runtime_create(cpu)) {
            free(cpu);
            st = CLOPS__HOST_OOM("device list");
        } else {
            devices[0] = cpu;
            device_count = 1;
            if (!host_env("CLOPS_NO_OPENCL"))
                discover_opencl();
            else
                note_append("OpenCL disabled by CLOPS_NO_OPENCL; only the CPU device is "
                            "available");
            atomic_store_explicit(&initialized, true, memory_order_release);
        }
    }
    pthread_mutex_unlock(&init_lock);
    return st;
}

void host_shutdown(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&initialized)) {
        for (int i = wrapped_count - 1; i >= 0; i--) {
            destroy_device(wrapped[i]);
            wrapped[i] = NULL;
        }
        wrapped_count = 0;
        for (int i = device_count - 1; i >= 0; i--) {
            destroy_device(devices[i]);
            devices[i] = NULL;
        }
        device_count = 0;
        atomic_fetch_add(&generation, 1);
        atomic_store(&initialized, false);
    }
    pthread_mutex_unlock(&init_lock);
}

unsigned host_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_acquire);
}

int host_device_count(void)
{
    return device_count;
}

clops_device *host_device_at(int index)
{
    return devices[index];
}

clops_status host_device_wrap(cl_platform_id platform, cl_device_id id, cl_context context,
                              cl_command_queue queue, clops_device **out)
{
    clops_status st = host_init();
    if (st)
        return st;
    pthread_mutex_lock(&init_lock);
    for (int i = 0; i < wrapped_count; i++)
        if (wrapped[i]->context == context && wrapped[i]->queue == queue) {
            *out = wrapped[i];
            pthread_mutex_unlock(&init_lock);
            return CLOPS_OK;
        }
    clops_device *d = NULL;
    if (wrapped_count >= MAX_WRAPPED)
        st = clops__fail(CLOPS_UNSUPPORTED,
                         "clops_opencl_wrap_device: %d queues are wrapped already, the most "
                         "one process may wrap before clops_shutdown",
                         MAX_WRAPPED);
    else if (!(d = make_cl_device(platform, id, -1, context, queue)))
        st = CLOPS__HOST_OOM("wrapped device");
    else if (!device_runtime_create(d)) {
        destroy_device(d);
        st = CLOPS__HOST_OOM("wrapped device");
    }
    if (st == CLOPS_OK) {
        /* Indices past the enumerated list (per-device slots such as the
         * GEMM tuning's see a distinct device); clops_device_get does not
         * return it. */
        d->info.index = device_count + wrapped_count;
        snprintf(d->label, sizeof d->label, "wrapped:%d", wrapped_count);
        wrapped[wrapped_count++] = d;
        *out = d;
    }
    pthread_mutex_unlock(&init_lock);
    return st;
}

/* ---- public API ---------------------------------------------------------- */

clops_status clops_init(void)
{
    return host_init();
}

clops_status clops_device_count(int *count)
{
    if (!count)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_count: count is NULL");
    clops_status st = host_init();
    if (st)
        return st;
    *count = device_count;
    return CLOPS_OK;
}

/* Lists the devices into the error message (for "no such device"). */
static void append_device_list(void)
{
    clops__error_append(" (devices:");
    for (int i = 0; i < device_count; i++) {
        char line[400];
        snprintf(line, sizeof line, "%s %d=%s '%s'", i ? "," : "", i, devices[i]->label,
                 devices[i]->info.name);
        clops__error_append(line);
    }
    clops__error_append(")");
}

clops_status clops_device_get(int index, clops_device **device)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_get: device is NULL");
    clops_status st = host_init();
    if (st)
        return st;
    if (index < 0 || index >= device_count) {
        clops__fail(CLOPS_NO_DEVICE, "no device with index %d", index);
        append_device_list();
        return CLOPS_NO_DEVICE;
    }
    *device = devices[index];
    return CLOPS_OK;
}

/* Parses a whole string as a non-negative decimal integer. */
static bool parse_index(const char *s, int *out)
{
    if (!*s)
        return false;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 100000)
            return false;
        v = v * 10 + (*p - '0');
    }
    *out = (int)v;
    return true;
}

clops_status clops_device_find(const char *selector, clops_device **device)
{
    if (!selector || !device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_find: NULL argument");
    if (!*selector)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_device_find: the selector is empty (give an index, 'cpu', "
                           "'opencl:K' or a name substring)");
    clops_status st = host_init();
    if (st)
        return st;
    int idx;
    if (parse_index(selector, &idx)) {
        if (idx < device_count) {
            *device = devices[idx];
            return CLOPS_OK;
        }
    } else if (strcasecmp(selector, "cpu") == 0 || strcasecmp(selector, "host") == 0) {
        *device = devices[0];
        return CLOPS_OK;
    } else if (strncasecmp(selector, "opencl:", 7) == 0 && parse_index(selector + 7, &idx)) {
        for (int i = 1; i < device_count; i++)
            if (devices[i]->cl_index == idx) {
                *device = devices[i];
                return CLOPS_OK;
            }
    } else {
        for (int i = 1; i < device_count; i++) {
            const clops_device_info *in = &devices[i]->info;
            if (contains_ci(in->name, selector) || contains_ci(in->vendor_name, selector) ||
                contains_ci(in->platform_name, selector) ||
                strcasecmp(clops_vendor_name(in->vendor), selector) == 0) {
                *device = devices[i];
                return CLOPS_OK;
            }
        }
    }
    clops__fail(CLOPS_NO_DEVICE, "no device matches '%s'", selector);
    append_device_list();
    if (discovery_note[0]) {
        clops__error_append("; ");
        clops__error_append(discovery_note);
    }
    return CLOPS_NO_DEVICE;
}

clops_status clops_device_default(clops_device **device)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_default: device is NULL");
    clops_status st = host_init();
    if (st)
        return st;
    const char *sel = host_env("CLOPS_DEVICE");
    if (sel) {
        st = clops_device_find(sel, device);
        if (st)
            return clops__error_prefix(st, "CLOPS_DEVICE");
        return CLOPS_OK;
    }
    for (int i = 1; i < device_count; i++)
        if (devices[i]->info.is_gpu) {
            *device = devices[i];
            return CLOPS_OK;
        }
    *device = device_count > 1 ? devices[1] : devices[0];
    return CLOPS_OK;
}

/* core/ resolves a NULL device argument through this hook (core/hooks.h):
 * installed when the library is loaded (before main, or at dlopen), so no
 * tensor can be made before it is set. */
static const core_device_hooks device_hooks = {.default_device = clops_device_default};

__attribute__((constructor)) static void install_device_hooks(void)
{
    core_set_device_hooks(&device_hooks);
}

const clops_device_info *clops_device_get_info(const clops_device *device)
{
    return device ? &device->info : NULL;
}

const char *clops_device_label(const clops_device *device)
{
    return device ? device->label : "(null)";
}

const char *clops_device_discovery_note(void)
{
    host_init();
    return discovery_note;
}

clops_status clops_device_set_capability(clops_device *device, clops_capability cap, bool enable)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_set_capability: device is NULL");
    bool *flag;
    bool hw;
    const char *name;
    switch (cap) {
    case CLOPS_CAP_FP64:
        flag = &device->info.fp64;
        hw = device->hw_fp64;
        name = "fp64";
        break;
    case CLOPS_CAP_FP16:
        flag = &device->info.fp16;
        hw = device->hw_fp16;
        name = "fp16";
        break;
    default:
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_set_capability: unknown capability %d",
                           (int)cap);
    }
    if (enable && !hw)
        return clops__fail(CLOPS_UNSUPPORTED, "device %s (%s) has no %s support to enable",
                           device->label, device->info.name, name);
    *flag = enable;
    return CLOPS_OK;
}

clops_status clops_device_synchronize(clops_device *device)
{
    if (!device)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_device_synchronize: device is NULL");
    return host_finish(device);
}

clops_status clops_device_get_counters(clops_device *device, clops_device_counters *out)
{
    if (!device || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "clops_device_get_counters: device and out are required");
    memset(out, 0, sizeof *out);
    out->launches = atomic_load_explicit(&device->launches, memory_order_relaxed);
    if (device->kcache) {
        host_kcache_stats s;
        host_kcache_get_stats(device, &s);
        out->programs_built = s.programs_built;
        out->programs_loaded = s.programs_loaded;
        out->build_seconds = s.build_seconds;
    }
    return CLOPS_OK;
}

clops_status clops_empty_cache(clops_device *device)
{
    clops_status st = host_init();
    if (st)
        return st;
    if (device) {
        host_alloc_trim(device);
        return CLOPS_OK;
    }
    for (int i = 0; i < device_count; i++)
        host_alloc_trim(devices[i]);
    return CLOPS_OK;
}

clops_status check_dtype_on_device(const char *op, clops_dtype dtype, const clops_device *device)
{
    if ((dtype == CLOPS_FLOAT64 || dtype == CLOPS_COMPLEX128) && !device->info.fp64)
        return clops__fail(CLOPS_UNSUPPORTED,
                           "%s: %s is not supported on device %s (%s): it lacks cl_khr_fp64; "
                           "use %s or another device",
                           op, clops_dtype_name(dtype), device->label, device->info.name,
                           dtype == CLOPS_FLOAT64 ? "float32" : "complex64");
    return CLOPS_OK;
}
