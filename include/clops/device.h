/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/device.h: the devices clops can run on.
 *
 * Device 0 is always the host CPU: tensors there live in host memory and run
 * the plain-C reference kernels.  Devices 1..n-1 are the OpenCL devices of
 * every platform, in platform order, then device order.  A machine without an
 * OpenCL platform still has device 0, and clops_device_discovery_note() says
 * why nothing else was found.
 *
 * Devices are discovered once, on the first call that needs them (OpenCL
 * contexts and queues are created then, but no program is compiled).  The
 * clops_device pointers are owned by the library and stay valid until
 * clops_shutdown(); they are never released by the caller.
 */
#ifndef CLOPS_DEVICE_H
#define CLOPS_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clops/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clops_device clops_device;

typedef enum clops_device_type {
    CLOPS_DEVICE_CPU,   /* the host; reference kernels on host memory */
    CLOPS_DEVICE_OPENCL /* any OpenCL device */
} clops_device_type;

/* X(ENUM, name): vendor families, which pick the vendor dispatch key. */
#define CLOPS_VENDOR_LIST(X)                                                        \
    X(HOST, "host")                                                                 \
    X(NVIDIA, "nvidia")                                                             \
    X(AMD, "amd")                                                                   \
    X(INTEL, "intel")                                                               \
    X(POCL, "pocl")                                                                 \
    X(OTHER, "other")

typedef enum clops_vendor {
#define CLOPS__VENDOR_ENUM(e, name) CLOPS_VENDOR_##e,
    CLOPS_VENDOR_LIST(CLOPS__VENDOR_ENUM)
#undef CLOPS__VENDOR_ENUM
    CLOPS_VENDOR_COUNT
} clops_vendor;

/* "nvidia", "pocl", ... */
CLOPS_API const char *clops_vendor_name(clops_vendor vendor);

/* What a device is and can do.  Strings are NUL-terminated and truncated to
 * their buffers. */
typedef struct clops_device_info {
    int index;                 /* position in the device list */
    clops_device_type type;
    clops_vendor vendor;
    bool is_gpu;               /* CL_DEVICE_TYPE_GPU */
    char name[256];            /* "NVIDIA H200", "pthread-skylake-..." */
    char vendor_name[128];     /* CL_DEVICE_VENDOR */
    char platform_name[128];   /* CL_PLATFORM_NAME */
    char platform_version[128];/* CL_PLATFORM_VERSION */
    char device_version[128];  /* CL_DEVICE_VERSION */
    char driver_version[128];  /* CL_DRIVER_VERSION */
    char opencl_c_version[64]; /* CL_DEVICE_OPENCL_C_VERSION */
    uint32_t compute_units;
    uint32_t max_clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;  /* largest single buffer */
    uint64_t local_mem_bytes;
    size_t max_work_group_size;
    size_t max_parameter_size; /* bytes of kernel arguments */
    uint32_t mem_base_addr_align; /* bits, CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    bool fp64;                 /* cl_khr_fp64 (after any capability override) */
    bool fp16;                 /* cl_khr_fp16 arithmetic (storage always works) */
} clops_device_info;

/* Number of devices, the CPU included (so always >= 1). */
CLOPS_API clops_status clops_device_count(int *count);

/* Device by index; CLOPS_NO_DEVICE when out of range. */
CLOPS_API clops_status clops_device_get(int index, clops_device **device);

/*
 * Device by selector: a decimal index ("2"), "cpu", "opencl:K" (the K-th
 * OpenCL device), or a case-insensitive substring of the device name, vendor
 * or platform name ("h200", "nvidia", "pocl").  CLOPS_NO_DEVICE with the list
 * of devices in the message when nothing matches; CLOPS_INVALID_ARGUMENT for
 * an empty selector (which would otherwise match every name).
 */
CLOPS_API clops_status clops_device_find(const char *selector, clops_device **device);

/*
 * The default device: CLOPS_DEVICE if set (an unknown selector is an error,
 * not a silent fallback), else the first OpenCL GPU, else the first OpenCL
 * device, else the CPU.
 */
CLOPS_API clops_status clops_device_default(clops_device **device);

/* Capability record; never NULL for a valid device.  Owned by the device. */
CLOPS_API const clops_device_info *clops_device_get_info(const clops_device *device);

/* "cpu" or "opencl:K" for the device (stable for the process lifetime). */
CLOPS_API const char *clops_device_label(const clops_device *device);

/*
 * Why no (or only some) OpenCL devices were found, e.g. "no OpenCL platform
 * found (clGetPlatformIDs: CL_PLATFORM_NOT_FOUND_KHR)".  Empty when every
 * platform answered.  Owned by the library.
 */
CLOPS_API const char *clops_device_discovery_note(void);

/* Capabilities a caller may switch off, for testing error paths on hardware
 * that has them. */
typedef enum clops_capability {
    CLOPS_CAP_FP64,
    CLOPS_CAP_FP16
} clops_capability;

/*
 * Switches a capability off (enable=false) or restores what the hardware
 * reports (enable=true).  A capability the hardware lacks cannot be turned
 * on: CLOPS_UNSUPPORTED.  Kernels already compiled are unaffected; new calls
 * see the change.  Not meant to be toggled while other threads use the device.
 */
CLOPS_API clops_status clops_device_set_capability(clops_device *device, clops_capability cap,
                                                   bool enable);

/* Waits until every command queued on the device has finished. */
CLOPS_API clops_status clops_device_synchronize(clops_device *device);

/* What a device has done since the process started, for benchmarks and for
 * checking caches: kernel launches enqueued, programs built from source and
 * programs loaded from clops' disk cache (on POCL, which keeps its own
 * cache, clops stores none unless CLOPS_CACHE_POCL=1: a warm program is
 * then "built" from POCL's cache), and seconds spent in builds. */
typedef struct clops_device_counters {
    uint64_t launches;
    uint64_t programs_built;
    uint64_t programs_loaded;
    double build_seconds;
} clops_device_counters;

/* Fills *out; all zero for the CPU device. */
CLOPS_API clops_status clops_device_get_counters(clops_device *device, clops_device_counters *out);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_DEVICE_H */
