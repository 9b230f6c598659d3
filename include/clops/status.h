/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clops/status.h: status codes and the thread-local error message.
 *
 * Every fallible clops function returns a clops_status.  CLOPS_OK is zero and
 * every failure is negative, so `if (st) ...` and `if (st < 0) ...` both work.
 * The code says what kind of failure happened; the detail (which op, which
 * shapes, dtypes and device, the OpenCL error name, a build log) is kept in a
 * per-thread message that clops_last_error() returns until the next failing
 * call on the same thread replaces it.
 *
 * The list of codes is written once, in CLOPS_STATUS_LIST, and expanded into
 * the enum, the name table and the message table so they cannot drift apart.
 */
#ifndef CLOPS_STATUS_H
#define CLOPS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && !defined(CLOPS_STATIC)
#ifdef CLOPS_BUILDING
#define CLOPS_API __declspec(dllexport)
#else
#define CLOPS_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLOPS_API __attribute__((visibility("default")))
#else
#define CLOPS_API
#endif

/* X(NAME, value, message) */
#define CLOPS_STATUS_LIST(X)                                                        \
    X(OK, 0, "success")                                                             \
    X(INVALID_ARGUMENT, -1, "invalid argument")                                     \
    X(INVALID_SHAPE, -2, "invalid shape")                                           \
    X(INVALID_DTYPE, -3, "unsupported or invalid dtype")                            \
    X(DEVICE_MISMATCH, -4, "tensors are on different devices")                      \
    X(UNSUPPORTED, -5, "the device does not support this")                          \
    X(OUT_OF_MEMORY, -6, "out of device memory")                                    \
    X(HOST_OUT_OF_MEMORY, -7, "out of host memory")                                 \
    X(OPENCL_ERROR, -8, "OpenCL runtime error")                                     \
    X(BUILD_FAILURE, -9, "OpenCL program build failed")                             \
    X(NOT_IMPLEMENTED, -10, "no kernel for this op on this device")                 \
    X(NO_DEVICE, -11, "no such device")                                             \
    X(IO_ERROR, -12, "file input/output error")                                     \
    X(INDEX_OUT_OF_RANGE, -13, "index out of range")                                \
    X(MEMORY_OVERLAP, -14, "unsupported memory overlap")                            \
    X(BLAS_ERROR, -15, "CLBlast error")                                             \
    X(SCHEMA_ERROR, -16, "malformed operator schema")                               \
    X(UNKNOWN_OP, -17, "unknown operator")                                          \
    X(ALREADY_REGISTERED, -18, "a kernel is already registered there")             \
    X(FALLBACK_DENIED, -19, "CPU fallback refused by policy")                       \
    X(INTERNAL, -20, "internal error")

typedef enum clops_status {
#define CLOPS__STATUS_ENUM(name, value, msg) CLOPS_##name = value,
    CLOPS_STATUS_LIST(CLOPS__STATUS_ENUM)
#undef CLOPS__STATUS_ENUM
} clops_status;

/* Number of status codes (CLOPS_OK included). */
#define CLOPS_STATUS_COUNT 21

/* Short fixed message for a status code ("out of device memory").  Never
 * NULL; an unknown code gives "unknown status". */
CLOPS_API const char *clops_status_string(clops_status status);

/* Name of the code without prefix ("OUT_OF_MEMORY"). Never NULL. */
CLOPS_API const char *clops_status_name(clops_status status);

/*
 * Detailed message of the last failure on the calling thread, for example
 * "add.Tensor: shapes [3, 4] and [5] cannot be broadcast (device 1: pthread
 * CPU, POCL)".  Empty string when nothing failed yet.  The pointer stays valid
 * until the next clops call on this thread.
 */
CLOPS_API const char *clops_last_error(void);

/* Clears the calling thread's last error message. */
CLOPS_API void clops_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif /* CLOPS_STATUS_H */
