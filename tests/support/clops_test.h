/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/clops_test.h: the helpers every clops test links
 * (libclops_test_support, built from every .c file in tests/support/).
 *
 * What is here, and the habit each supports:
 *
 *   context     every failure message says where it happened: the device
 *               under test and the case ("[opencl:0 'pthread-...' |
 *               float32 -> int8, transposed]").  ct_set_device / ct_set_case
 *               set it (per thread); CT_OK, CT_STATUS, CT_ASSERT and the
 *               comparison helpers print it, with clops_last_error() where a
 *               clops call failed.  A failure clears it (the next test
 *               starts without one); a test that sets it clears it at its end.
 *   devices     ct_devices() lists the devices to test: the CPU device and
 *               every OpenCL device, narrowed by CLOPS_TEST_DEVICES, a comma
 *               list of selectors ("cpu", "opencl" for every OpenCL device,
 *               "all", or anything clops_device_find accepts: "opencl:0",
 *               "2", "pocl", a name substring).
 *   values      a deterministic generator (ct_rng, seeded per test, and
 *               reseeded by CLOPS_TEST_SEED when set) and ct_fill(), which
 *               writes values of any dtype from a pw_domain: ANY mixes
 *               [-10, 10] with specials (0, -0.0, +-inf, nan, the largest
 *               finite value, the smallest subnormal and normal; integer
 *               extremes for integer dtypes) at a rate of 1 in 16.
 *   tensors     ct_random() makes a tensor of any shape, dtype and layout
 *               (contiguous, transposed, step-sliced with a storage offset,
 *               expanded) filled from the generator; ct_empty_layout()
 *               makes an uninitialised one of a layout.
 *   guards      ct_guarded_new() makes an output view inside a larger
 *               storage whose every byte starts as a sentinel pattern:
 *               before the first element, after the last and in the gaps of
 *               a strided layout; CT_GUARDS_INTACT() fails if an op wrote
 *               any byte outside the view's elements.
 *   The generator, the layouts, the guards and the comparison are the check
 *   engine's (tools/check/, library clops_check), so the tests and `clops
 *   check` share one implementation; these helpers add cmocka failures.
 *
 *   comparison  ct_compare() compares two tensors of any devices and
 *               layouts elementwise under a tolerance (ulp.h's rule: exact
 *               for integer and bool; ULPs of the dtype with an absolute
 *               floor, NaN parity and equal infinities for floats, optional
 *               signed zeros) and reports the max abs and ULP errors and the
 *               first mismatches with their multi-index; CT_ASSERT_CLOSE
 *               turns a mismatch into a test failure with that report.
 *   lifetime    ct_teardown_group() ends a cmocka group with
 *               clops_shutdown(), so every test binary exits with nothing
 *               allocated (tests/run_valgrind.sh relies on it).
 *
 * Helpers that build things fail the current test (cmocka) when a clops
 * call fails, so tests read as specifications without status plumbing.
 * They must run on the cmocka thread: worker threads of a test may use the
 * pure functions (ct_rng, ct_fill, ct_compare_host without asserting) only.
 */
#ifndef CLOPS_TESTS_SUPPORT_CLOPS_TEST_H
#define CLOPS_TESTS_SUPPORT_CLOPS_TEST_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clops/tensor.h"
#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "tools/check/check_compare.h"
#include "tools/check/check_guard.h"
#include "tools/check/check_random.h"
#include "tools/check/ulp.h"

#define CT_MAX_DEVICES 64

/* An int64 array literal, for sizes and strides: CT_I64(5, 7). */
#define CT_I64(...) ((const int64_t[]){__VA_ARGS__})
/* Number of elements of a static array. */
#define CT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* --- context and failures (tests/support/ct_context.c) ------------------ */

/* Sets the device part of the calling thread's failure context (NULL
 * clears it). */
void ct_set_device(const clops_device *d);
/* Sets the case part ("float32 -> int8, transposed"); NULL or "" clears. */
void ct_set_case(const char *fmt, ...) CLOPS__PRINTF(1, 2);
/* Clears both parts. */
void ct_clear_context(void);
/* "[opencl:0 'pthread-...' | float32 -> int8]", or "" when no context is
 * set.  Valid until the context changes. */
const char *ct_context(void);

/* Prints "file:line: [context] message" and fails the current test. */
void ct_fail_at(const char *file, int line, const char *fmt, ...) CLOPS__PRINTF(3, 4);
#define ct_fail(...) ct_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Fails unless expr returns CLOPS_OK; prints the status and last error. */
void ct_check_ok_at(clops_status st, const char *expr, const char *file, int line);
#define CT_OK(expr) ct_check_ok_at((expr), #expr, __FILE__, __LINE__)

/* Fails unless expr returns `expected`. */
void ct_check_status_at(clops_status st, clops_status expected, const char *expr,
                        const char *file, int line);
#define CT_STATUS(expr, expected) ct_check_status_at((expr), (expected), #expr, __FILE__, __LINE__)

/* Fails with the condition's text (and an optional printf message). */
#define CT_ASSERT(cond)                                                                   \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ct_fail_at(__FILE__, __LINE__, "assertion failed: %s", #cond);                \
    } while (0)
#define CT_ASSERT_MSG(cond, ...)                                                          \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ct_fail_at(__FILE__, __LINE__, __VA_ARGS__);                                  \
    } while (0)

/* Fails unless clops_last_error() contains needle. */
void ct_check_error_contains_at(const char *needle, const char *file, int line);
#define CT_ERROR_CONTAINS(needle) ct_check_error_contains_at((needle), __FILE__, __LINE__)

/* cmocka group teardown: clops_shutdown().  Use as
 * cmocka_run_group_tests(tests, NULL, ct_teardown_group). */
int ct_teardown_group(void **state);

/* --- devices (tests/support/ct_devices.c) -------------------------------- */

/*
 * The devices under test, in device order without duplicates: by default
 * the CPU device and every OpenCL device; with CLOPS_TEST_DEVICES set, the
 * devices its selectors name.  A selector that matches nothing fails the
 * test (a typo must not make a test pass by testing nothing).  Writes at
 * most cap devices into out and returns their number.
 */
int ct_devices(clops_device **out, int cap);
/* The OpenCL devices among ct_devices(). */
int ct_opencl_devices(clops_device **out, int cap);
/* The CPU device (device 0). */
clops_device *ct_cpu(void);
/* "opencl:0 'pthread-skylake...'" (static buffer per thread). */
const char *ct_device_name(const clops_device *d);
/* Whether dtype can be used on d (float64 needs fp64). */
bool ct_device_supports(const clops_device *d, clops_dtype dt);

/* --- deterministic values (tests/support/ct_random.c) --------------------- */

/* The check engine's splitmix64 generator (tools/check/check_random.h). */
typedef chk_rng ct_rng;

/* A generator for `seed`, mixed with CLOPS_TEST_SEED when that is set (to
 * rerun a suite with other values). */
ct_rng ct_rng_seeded(uint64_t seed);
uint64_t ct_rng_next(ct_rng *r);
/* Uniform in [0, 1). */
double ct_rng_uniform(ct_rng *r);
/* Uniform integer in [lo, hi]. */
int64_t ct_rng_range(ct_rng *r, int64_t lo, int64_t hi);

/* One in how many ANY-domain values is a special value. */
#define CT_SPECIAL_RATE CHK_SPECIAL_RATE

/*
 * Writes n elements of dtype dt into buf (row-major host memory), drawn from
 * dom.  Floating values are rounded to the dtype and stay inside open
 * domains after rounding; integer dtypes get the rounded values of the
 * domain clamped to the dtype's range (uint8 uses |x|); bool gets x != 0.
 */
void ct_fill(void *buf, int64_t n, clops_dtype dt, pw_domain dom, ct_rng *r);

/* Fill for conversion tests: like ct_fill with PW_DOMAIN_ANY, but when the
 * values will be converted from floating `dt` to integer `to`, they are
 * finite and within [-100, 100] (float-to-integer conversion of values out
 * of the target's range is undefined in C, OpenCL and PyTorch alike). */
void ct_fill_for_cast(void *buf, int64_t n, clops_dtype dt, clops_dtype to, ct_rng *r);

/* --- tensors (tests/support/ct_tensors.c) --------------------------------- */

/* The check engine's layouts (tools/check/check_guard.h):
 *   CT_CONTIGUOUS  row-major at storage offset 0
 *   CT_TRANSPOSED  every dim reversed in memory (a permuted view, dense)
 *   CT_SLICED      elements 1, 3, 5, ... of each dim of a larger base:
 *                  step-2 strides and a storage offset, gaps between
 *   CT_EXPANDED    every other dim (0, 2, ...) has stride 0; read-only
 *   CT_OFFSET      row-major at a storage offset of CHK_ODD_OFFSET (3)
 *                  elements: aligned to no vector width */
typedef chk_layout ct_layout;
#define CT_CONTIGUOUS CHK_CONTIGUOUS
#define CT_TRANSPOSED CHK_TRANSPOSED
#define CT_SLICED CHK_SLICED
#define CT_EXPANDED CHK_EXPANDED
#define CT_OFFSET CHK_OFFSET
#define CT_LAYOUT_COUNT CHK_LAYOUT_COUNT

/* "contiguous", "transposed", "sliced", "expanded", "offset". */
const char *ct_layout_name(ct_layout layout);

/* Number of elements of a shape. */
int64_t ct_numel(int ndim, const int64_t *sizes);

/* An uninitialised tensor of the layout on dev (an expanded one is a view
 * of a smaller storage). */
clops_tensor *ct_empty_layout(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                              ct_layout layout);

/*
 * A tensor of the layout on dev holding values from dom, generated from
 * seed.  For every layout but CT_EXPANDED the logical (row-major) values
 * are those of ct_fill(numel) with ct_rng_seeded(seed), so equal seeds give
 * equal tensors in every layout.  An expanded tensor repeats the values of
 * its smaller base.
 */
clops_tensor *ct_random(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                        ct_layout layout, pw_domain dom, uint64_t seed);

/* A tensor of the layout on dev holding row-major host data (numel
 * elements of dt); CT_EXPANDED is not allowed here. */
clops_tensor *ct_from_values(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                             ct_layout layout, const void *values);

/* The tensor's elements in row-major order as malloc'd host memory (free()
 * it); at least one byte is allocated. */
void *ct_to_host(const clops_tensor *t);

/* A contiguous copy of t on the CPU device (the reference's input). */
clops_tensor *ct_to_cpu(const clops_tensor *t);

/* --- guard regions (tests/support/ct_guard.c) ------------------------------ */

/* Elements of sentinel before the first and after the last element. */
#define CT_GUARD_ELEMS CHK_GUARD_ELEMS

/* The check engine's guarded tensor: t (the view an op writes into), bytes
 * (uint8 view of the whole storage), nbytes. */
typedef chk_guarded ct_guarded;

/*
 * An output view of the layout (contiguous, transposed or sliced; not
 * expanded) inside a storage of sentinel bytes: CT_GUARD_ELEMS elements
 * before and after, and the gaps of a sliced layout.  The view's own
 * elements hold the sentinel too, so an element an op forgets to write
 * shows up in the comparison.
 */
ct_guarded ct_guarded_new(clops_device *dev, clops_dtype dt, int ndim, const int64_t *sizes,
                          ct_layout layout);
/* Fails the test when any byte of the storage outside the view's elements
 * lost its sentinel value, naming the first such byte and where it is. */
void ct_guarded_check_at(const ct_guarded *g, const char *file, int line);
#define CT_GUARDS_INTACT(g) ct_guarded_check_at((g), __FILE__, __LINE__)
void ct_guarded_release(ct_guarded *g);

/* --- comparison (tests/support/ct_compare.c) -------------------------------- */

typedef ulp_tol ct_tol;

/* Bit-exact for every dtype (NaN payloads aside), signed zeros included. */
#define CT_TOL_EXACT ((ct_tol){0.0, 0.0, true})
/* ulp ULPs of the dtype, no absolute floor, zeros of either sign equal. */
ct_tol ct_tol_ulp(double ulp);
/* ulp ULPs with an absolute floor of atol. */
ct_tol ct_tol_ulp_atol(double ulp, double atol);

/* How many mismatches the report lists. */
#define CT_REPORT_MISMATCHES CHK_CMP_MISMATCHES

/* The check engine's comparison report (tools/check/check_compare.h):
 * numel, mismatches, max_abs_err, max_ulp_err (over finite pairs) and
 * detail ("mismatch at [1, 2]: got 1.5 expected 1.25 (2 ULP)..."). */
typedef chk_cmp ct_report;

/*
 * Compares actual with expected elementwise in row-major order: same dtype
 * and shape required (reported as a mismatch otherwise), any devices and
 * layouts.  Integer dtypes compare exactly, bool compares the stored bytes
 * (so a 2 where 1 was expected is caught), floats follow ulp_close.
 * Returns true when everything matches; rep may be NULL.
 */
bool ct_compare(const clops_tensor *actual, const clops_tensor *expected, ct_tol tol,
                ct_report *rep);
/* The same on row-major host buffers of dtype dt and the given shape. */
bool ct_compare_host(const void *actual, const void *expected, clops_dtype dt, int ndim,
                     const int64_t *sizes, ct_tol tol, ct_report *rep);

/* Fails the test with the context and the report when they differ. */
void ct_assert_close_at(const clops_tensor *actual, const clops_tensor *expected, ct_tol tol,
                        const char *file, int line);
#define CT_ASSERT_CLOSE(actual, expected, tol)                                            \
    ct_assert_close_at((actual), (expected), (tol), __FILE__, __LINE__)
void ct_assert_close_host_at(const void *actual, const void *expected, clops_dtype dt, int ndim,
                             const int64_t *sizes, ct_tol tol, const char *file, int line);
#define CT_ASSERT_CLOSE_HOST(actual, expected, dt, ndim, sizes, tol)                      \
    ct_assert_close_host_at((actual), (expected), (dt), (ndim), (sizes), (tol), __FILE__,   \
                            __LINE__)

/* "[1, 0, 3]": the multi-index of row-major position `linear` in a shape. */
char *ct_format_index(char *buf, size_t cap, int ndim, const int64_t *sizes, int64_t linear);

/* --- the operator suite (tests/support/ct_check.c) -------------------------- */

/* Runs the check engine's `ci` cases of every op of one inventory family
 * (dispatch/inventory/<family>.yaml) in part `part` (0-based) of `nparts`
 * on the OpenCL devices under test (the CPU device against itself when
 * there is none), printing each failing case; fails the test when a case
 * failed or errored, or when the part holds no op.  Parts split the
 * family's runs of same-base-name ops round-robin (ct_check.c). */
void ct_check_ops_family(const char *family, int part, int nparts);

/* --- golden files (tests/support/ct_golden.c) ------------------------------ */

/* Replays every case of tests/data/<name> (PyTorch's results, the format of
 * tests/data/gen_golden_reduce.py) on every device under test; skips the
 * test, saying so, when the file is absent. */
void ct_replay_golden(const char *name);

/* --- files (tests/support/ct_files.c) ---------------------------------------- */

/* Creates a fresh directory under $TMPDIR (or /tmp) named
 * clops-test-<tag>-XXXXXX into buf; fails the test on error. */
void ct_temp_dir(const char *tag, char *buf, size_t cap);
/* Removes a directory tree (rm -r); missing paths are fine. */
void ct_remove_tree(const char *path);
/* Number of regular files under path (recursively) whose name contains
 * `contains` (NULL: every file). */
int ct_count_files(const char *path, const char *contains);

#endif /* CLOPS_TESTS_SUPPORT_CLOPS_TEST_H */
