/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_size_fuzz.c: hostile sizes through every registered schema
 * (issue 33).
 *
 * For every op of the registry the check engine builds its first valid
 * case (tools/check/, the `ci` set: the first dtype of float32, int64,
 * int32, bool, ... that the op takes), and this test derives calls from it
 * that change one argument to a hostile value:
 *
 *   int          -1, 0, 2^31, INT64_MAX, INT64_MIN, -2^62 (dims, k,
 *                groups, kernel sizes, strides, paddings, ...);
 *   int[]        one entry (the first and the last) set to each of those,
 *                every entry 0, the list emptied, CLOPS_MAX_DIMS + 1
 *                entries of 1 (longer than any shape), [2^31, 2^31, 4] (a
 *                product that overflows int64) and [2^62, 2^62] (one that
 *                overflows a byte count);
 *   float        NaN, +-inf, 1e300, 0 (scale factors, steps, epsilons);
 *   Scalar       the same, INT64_MAX and INT64_MIN (arange's end and step,
 *                fill values, alpha);
 *   Tensor       a zero-size first or last dim, zero dims, one more dim
 *                (a rank the op does not take), and a stride-0 expanded
 *                view of just over 2^31 elements over a one-element base
 *                (metadata only; CLOPS_SIZE_FUZZ=all only, on the OpenCL
 *                devices only and not for out= variants: ops that read
 *                every element work for seconds, the CPU device's
 *                reference kernels for a minute).
 *
 * Each call runs on the CPU device and on every OpenCL device.  Oracle: the
 * call returns, with CLOPS_OK or an error status with a message; it never
 * crashes, aborts, trips a sanitizer (the CI's ASan + UBSan build runs this
 * test), hangs (a watchdog kills a call after CLOPS_SIZE_FUZZ_TIMEOUT
 * seconds, 60 by default, naming the case) or allocates absurd memory (every
 * storage above CAP_BYTES is refused as out of memory by a wrapper around
 * core's memory hooks, and outside the sanitizers the process's data limit
 * is RLIMIT_BYTES, so a host malloc of an overflowed size fails instead of
 * overcommitting).  The legitimate results of zero-size cases are the check
 * suites' business (every family's `ci` cases have zero-size shapes); here a
 * call's status must be the same on every device, as PyTorch's errors are.
 *
 * The CI run takes a deterministic sample of MUTATIONS_CI derived calls per
 * op (seeded by the op's name); CLOPS_SIZE_FUZZ=all runs every derived call
 * (minutes).  CLOPS_SIZE_FUZZ_OPS=GLOB restricts the ops.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clops/ops.h"
#include "core/debug.h"
#include "core/hooks.h"
#include "core/tensor_impl.h"
#include "dispatch/dispatch.h"
#include "support/clops_test.h"
#include "tools/check/check.h"
#include "tools/check/check_random.h"

/* Largest storage the test lets any call allocate. */
#define CAP_BYTES ((size_t)256 << 20)
/* The process's data limit outside the sanitizers. */
#define RLIMIT_BYTES ((rlim_t)6 << 30)
/* Derived calls per op in the CI run. */
#define MUTATIONS_CI 3
/* Derived calls per op at most. */
#define MAX_MUTATIONS 256

#if defined(__SANITIZE_ADDRESS__)
/* An allocation above the cap returns NULL (the library must report it as
 * out of memory) instead of aborting the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=2048";
}
#endif

/* --- the allocation cap ------------------------------------------------------------ */

static const core_memory_hooks *real_memory;
static core_memory_hooks capped_memory;
static int refused_allocations;

/* Refuses storages above CAP_BYTES, else allocates as the runtime does. */
static clops_status capped_alloc(clops_storage *s)
{
    if (s->nbytes > CAP_BYTES) {
        refused_allocations++;
        return clops__fail(CLOPS_OUT_OF_MEMORY,
                           "size fuzz: a storage of %zu bytes is above the test's cap of %zu",
                           s->nbytes, CAP_BYTES);
    }
    return real_memory->alloc(s);
}

static void cap_memory(void)
{
    clops_device *cpu = ct_cpu(); /* starts the runtime, which installs the hooks */
    (void)cpu;
    real_memory = core_memory();
    CT_ASSERT(real_memory != NULL);
    capped_memory = *real_memory;
    capped_memory.alloc = capped_alloc;
    core_set_memory_hooks(&capped_memory);
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit rl;
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY ||
                                               rl.rlim_cur > RLIMIT_BYTES)) {
        rl.rlim_cur = RLIMIT_BYTES;
        setrlimit(RLIMIT_DATA, &rl);
    }
#endif
}

/* --- the watchdog -------------------------------------------------------------------- */

static char current_case[512];

static void on_alarm(int sig)
{
    (void)sig;
    static const char head[] = "\ntest_size_fuzz: a call did not return in time (hang): ";
    ssize_t w = write(2, head, sizeof head - 1);
    w = write(2, current_case, strlen(current_case));
    w = write(2, "\n", 1);
    (void)w;
    _exit(3);
}

static unsigned watchdog_seconds(void)
{
    const char *v = getenv("CLOPS_SIZE_FUZZ_TIMEOUT");
    long s = v && *v ? strtol(v, NULL, 10) : 60;
    return s > 0 ? (unsigned)s : 60;
}

/* --- derived calls ------------------------------------------------------------------ */

static const int64_t hostile_ints[] = {
    -1, 0, (int64_t)1 << 31, INT64_MAX, INT64_MIN, -((int64_t)1 << 62),
};
static const double hostile_floats[] = {NAN, INFINITY, -INFINITY, 1e300, 0.0};

typedef struct mutation {
    chk_case c;
    char what[160];
    bool heavy; /* legitimate work over 2^31 elements: CLOPS_SIZE_FUZZ=all only */
} mutation;

typedef struct mutations {
    mutation *m;
    int n;
} mutations;

/* Appends a copy of base (to be changed by the caller), or NULL when full. */
static chk_case *add(mutations *ms, const chk_case *base, const char *fmt, ...)
    CLOPS__PRINTF(3, 4);
static chk_case *add(mutations *ms, const chk_case *base, const char *fmt, ...)
{
    if (ms->n >= MAX_MUTATIONS)
        return NULL;
    mutation *m = &ms->m[ms->n++];
    m->c = *base;
    m->heavy = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->what, sizeof m->what, fmt, ap);
    va_end(ap);
    return &m->c;
}

/* Tensor mutations of spec t (found again in the copy by locate). */
typedef chk_tspec *(*locate_fn)(chk_case *c, int arg, int k);

static chk_tspec *locate_arg(chk_case *c, int arg, int k)
{
    (void)k;
    return &c->args[arg].t;
}

static chk_tspec *locate_list(chk_case *c, int arg, int k)
{
    return &c->args[arg].list[k];
}

static void tensor_mutations(mutations *ms, const chk_case *base, const char *name, int arg,
                             int k, locate_fn locate)
{
    const chk_tspec *t = locate((chk_case *)base, arg, k);
    chk_case *c;
    if (t->none)
        return;
    if (t->ndim > 0 && (c = add(ms, base, "%s: first dim 0", name))) {
        locate(c, arg, k)->sizes[0] = 0;
        locate(c, arg, k)->layout = CHK_CONTIGUOUS;
    }
    if (t->ndim > 1 && (c = add(ms, base, "%s: last dim 0", name))) {
        locate(c, arg, k)->sizes[t->ndim - 1] = 0;
        locate(c, arg, k)->layout = CHK_CONTIGUOUS;
    }
    if (t->ndim > 0 && (c = add(ms, base, "%s: zero dims", name))) {
        locate(c, arg, k)->ndim = 0;
        locate(c, arg, k)->layout = CHK_CONTIGUOUS;
    }
    if (t->ndim < CLOPS_MAX_DIMS && (c = add(ms, base, "%s: one more dim (3)", name))) {
        chk_tspec *s = locate(c, arg, k);
        memmove(&s->sizes[1], &s->sizes[0], sizeof(int64_t) * (size_t)s->ndim);
        s->sizes[0] = 3;
        s->ndim++;
    }
    /* A stride-0 view of just over 2^31 elements over a base of one element
     * in dim 0 (the other dims keep their sizes, the count is spread over
     * dim 0): 32-bit element indices overflow, and a result of that size is
     * above the allocation cap.  Ops that legitimately read every element
     * (reductions, scatter of a value) work for seconds, so this one runs
     * with CLOPS_SIZE_FUZZ=all only. */
    if (t->ndim > 0 && (c = add(ms, base, "%s: dim 0 expanded to (2^31 + 2^20) / rest", name))) {
        chk_tspec *s = locate(c, arg, k);
        int64_t rest = 1;
        for (int d = 1; d < s->ndim; d++)
            rest *= s->sizes[d] > 0 ? s->sizes[d] : 1;
        s->sizes[0] = (((int64_t)1 << 31) + ((int64_t)1 << 20) + rest - 1) / rest;
        s->layout = CHK_EXPANDED;
        ms->m[ms->n - 1].heavy = true;
    }
}

static void int_list_mutations(mutations *ms, const chk_case *base, const char *name, int arg)
{
    const chk_argval *a = &base->args[arg];
    chk_case *c;
    for (size_t v = 0; v < CT_COUNT(hostile_ints); v++) {
        if (a->nints > 0 && (c = add(ms, base, "%s[0] = %" PRId64, name, hostile_ints[v]))) {
            c->args[arg].ints[0] = hostile_ints[v];
        }
        if (a->nints > 1 &&
            (c = add(ms, base, "%s[%d] = %" PRId64, name, a->nints - 1, hostile_ints[v]))) {
            c->args[arg].ints[a->nints - 1] = hostile_ints[v];
        }
    }
    if (a->nints > 0 && (c = add(ms, base, "%s = all 0", name))) {
        for (int j = 0; j < a->nints; j++)
            c->args[arg].ints[j] = 0;
    }
    if (a->nints > 0 && (c = add(ms, base, "%s = []", name)))
        c->args[arg].nints = 0;
    if ((c = add(ms, base, "%s = %d entries of 1", name, CLOPS_MAX_DIMS + 1))) {
        c->args[arg].tag = CLOPS_V_INT_LIST;
        c->args[arg].nints = CLOPS_MAX_DIMS + 1;
        for (int j = 0; j < CLOPS_MAX_DIMS + 1; j++)
            c->args[arg].ints[j] = 1;
    }
    if ((c = add(ms, base, "%s = [2^31, 2^31, 4]", name))) {
        c->args[arg].tag = CLOPS_V_INT_LIST;
        c->args[arg].nints = 3;
        c->args[arg].ints[0] = c->args[arg].ints[1] = (int64_t)1 << 31;
        c->args[arg].ints[2] = 4;
    }
    if ((c = add(ms, base, "%s = [2^62, 2^62]", name))) {
        c->args[arg].tag = CLOPS_V_INT_LIST;
        c->args[arg].nints = 2;
        c->args[arg].ints[0] = c->args[arg].ints[1] = (int64_t)1 << 62;
    }
}

/* Every derived call of base. */
static void derive(const chk_opinfo *info, const chk_case *base, mutations *ms)
{
    ms->n = 0;
    for (int i = 0; i < base->nargs; i++) {
        const chk_argval *a = &base->args[i];
        const schema_arg *sa = &info->schema->args[i];
        const char *name = sa->name;
        chk_case *c;
        switch (a->role) {
        case CHK_ROLE_INPUT:
        case CHK_ROLE_MUTATED:
            tensor_mutations(ms, base, name, i, 0, locate_arg);
            break;
        case CHK_ROLE_LIST:
            for (int k = 0; k < a->nlist && k < 2; k++)
                tensor_mutations(ms, base, name, i, k, locate_list);
            break;
        case CHK_ROLE_VALUE:
            if (a->tag == CLOPS_V_INT ||
                (a->tag == CLOPS_V_NONE && sa->type.base == SCHEMA_INT && !sa->type.is_list)) {
                for (size_t v = 0; v < CT_COUNT(hostile_ints); v++)
                    if ((c = add(ms, base, "%s = %" PRId64, name, hostile_ints[v]))) {
                        c->args[i].tag = CLOPS_V_INT;
                        c->args[i].i = hostile_ints[v];
                    }
            } else if (a->tag == CLOPS_V_INT_LIST ||
                       (a->tag == CLOPS_V_NONE && sa->type.base == SCHEMA_INT &&
                        sa->type.is_list)) {
                int_list_mutations(ms, base, name, i);
            } else if (a->tag == CLOPS_V_SCALAR) {
                /* Scalars size results too (arange's end and step). */
                for (size_t v = 0; v < CT_COUNT(hostile_floats); v++)
                    if ((c = add(ms, base, "%s = %g", name, hostile_floats[v])))
                        c->args[i].s = clops_scalar_float(hostile_floats[v]);
                if ((c = add(ms, base, "%s = INT64_MAX", name)))
                    c->args[i].s = clops_scalar_int(INT64_MAX);
                if ((c = add(ms, base, "%s = INT64_MIN", name)))
                    c->args[i].s = clops_scalar_int(INT64_MIN);
            } else if (a->tag == CLOPS_V_FLOAT ||
                       (a->tag == CLOPS_V_NONE && sa->type.base == SCHEMA_FLOAT &&
                        !sa->type.is_list)) {
                for (size_t v = 0; v < CT_COUNT(hostile_floats); v++)
                    if ((c = add(ms, base, "%s = %g", name, hostile_floats[v]))) {
                        c->args[i].tag = CLOPS_V_FLOAT;
                        c->args[i].f = hostile_floats[v];
                    }
            }
            break;
        default:
            break;
        }
    }
}

/* --- the run ---------------------------------------------------------------------------- */

static const clops_dtype dtype_order[] = {
    CLOPS_FLOAT32, CLOPS_INT64, CLOPS_INT32, CLOPS_BOOL, CLOPS_FLOAT16, CLOPS_UINT8,
};

/* The first case of op in the first dtype of dtype_order that has one.
 * An op the engine does not check by value (info->skip: an uninitialised
 * result, inputs that must come from another op) still gets its calls
 * built: only the outcome of a call counts here. */
static bool template_case(chk_opinfo *info, chk_case *out)
{
    info->skip[0] = '\0';
    for (size_t d = 0; d < CT_COUNT(dtype_order); d++) {
        if (!(info->dtypes & (1u << dtype_order[d])))
            continue;
        chk_case *cases = NULL;
        int n = 0;
        if (chk_cases(info, CHK_SET_CI, dtype_order[d], &cases, &n, NULL, 0) == CLOPS_OK &&
            n > 0) {
            *out = cases[0];
            free(cases);
            return true;
        }
        free(cases);
    }
    return false;
}

typedef struct totals {
    int ops, templated, calls, ok, refused, host_oom, limits, mismatched, no_message;
} totals;

/* CLOPS_SIZE_FUZZ: unset, the CI sample; "light", every derived call but
 * the heavy ones; "all", every derived call. */
enum { MODE_CI, MODE_LIGHT, MODE_ALL };

static int fuzz_mode(void)
{
    const char *v = getenv("CLOPS_SIZE_FUZZ");
    if (v && strcmp(v, "all") == 0)
        return MODE_ALL;
    return v && strcmp(v, "light") == 0 ? MODE_LIGHT : MODE_CI;
}

/* Runs one derived call on every device; the statuses must agree. */
static void run_mutation(const chk_opinfo *info, const mutation *m, clops_device *const *devs,
                         int ndev, totals *tot)
{
    clops_status first = CLOPS_OK;
    char first_msg[256] = "";
    /* A heavy call runs on the OpenCL devices only: the CPU device's
     * reference kernels take about a minute per pass over 2^31 elements
     * (and so would the CPU run that sizes an out= argument: those ops are
     * left out). */
    if (m->heavy && info->nouts > 0)
        return;
    for (int k = m->heavy ? 1 : 0; k < ndev; k++) {
        snprintf(current_case, sizeof current_case, "%s (%s, %s) on %s", info->name,
                 m->c.dtype_label, m->what, ct_device_name(devs[k]));
        ct_set_case("%s", current_case);
        alarm(watchdog_seconds());
        clops_status st = chk_call_case(info, &m->c, devs[k], NULL);
        alarm(0);
        tot->calls++;
        if (st == CLOPS_OK) {
            tot->ok++;
        } else {
            tot->refused++;
            /* Storages above the cap are OUT_OF_MEMORY; a host allocation that
             * failed (the data limit) is a temporary sized from an argument. */
            if (st == CLOPS_HOST_OUT_OF_MEMORY && tot->host_oom++ < 40)
                print_message("host out of memory: %s: %s\n", current_case, clops_last_error());
            if (!clops_last_error()[0]) {
                tot->no_message++;
                print_error("no message: %s: %s\n", current_case, clops_status_name(st));
            }
        }
        if (k == 0 || (m->heavy && k == 1)) {
            first = st;
            snprintf(first_msg, sizeof first_msg, "%s", st ? clops_last_error() : "");
        } else if (st == CLOPS_UNSUPPORTED && first == CLOPS_OK) {
            /* A documented capability limit of the device (a dtype, the
             * 32-bit geometry of some kernels), reported as such. */
            if (tot->limits++ < 20)
                print_message("device limit: %s: %s\n", current_case, clops_last_error());
        } else if ((st == CLOPS_OK) != (first == CLOPS_OK)) {
            tot->mismatched++;
            print_error("devices disagree: %s: %s (%s) but %s on %s (%s)\n", current_case,
                        clops_status_name(st), st ? clops_last_error() : "",
                        clops_status_name(first), ct_device_name(devs[0]), first_msg);
        }
    }
    ct_clear_context();
}

static void test_hostile_sizes_through_every_schema(void **state)
{
    (void)state;
    cap_memory();
    signal(SIGALRM, on_alarm);
    clops_device *devs[CT_MAX_DEVICES];
    devs[0] = ct_cpu();
    int ndev = 1 + ct_opencl_devices(devs + 1, CT_MAX_DEVICES - 1);
    const char *glob = getenv("CLOPS_SIZE_FUZZ_OPS");
    int mode = fuzz_mode();

    chk_selection sel = {CHK_SET_CI, NULL, NULL};
    const clops_op **ops = NULL;
    int nops = 0;
    CT_OK(chk_select_ops(&sel, &ops, &nops));
    mutations ms = {calloc(MAX_MUTATIONS, sizeof(mutation)), 0};
    CT_ASSERT(ms.m != NULL);
    totals tot = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < nops && ms.m; i++) {
        const char *name = clops_op_name(ops[i]);
        if (glob && *glob && fnmatch(glob, name, 0) != 0)
            continue;
        tot.ops++;
        chk_opinfo info;
        if (chk_opinfo_init(ops[i], &info) != CLOPS_OK) {
            chk_opinfo_free(&info);
            continue;
        }
        chk_case base;
        if (!template_case(&info, &base)) {
            print_message("no case to derive from: %s\n", name);
            chk_opinfo_free(&info);
            continue;
        }
        tot.templated++;
        derive(&info, &base, &ms);
        chk_rng r = chk_rng_seeded(chk_hash_str(0x51e5f022u, name));
        /* The CI sample: MUTATIONS_CI light derived calls picked by the
         * op's name (selection sampling). */
        int light = 0, picked = 0, seen = 0;
        for (int j = 0; j < ms.n; j++)
            light += !ms.m[j].heavy;
        for (int j = 0; j < ms.n; j++) {
            if (ms.m[j].heavy && mode != MODE_ALL)
                continue;
            if (mode == MODE_CI && light > MUTATIONS_CI) {
                int64_t left = light - seen++, need = MUTATIONS_CI - picked;
                if (chk_rng_range(&r, 0, left - 1) >= need)
                    continue;
            }
            picked++;
            run_mutation(&info, &ms.m[j], devs, ndev, &tot);
        }
        chk_opinfo_free(&info);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(ms.m);
    free(ops);
    print_message("size fuzz (%s): %d ops, %d with a template case, %d calls on %d device(s) "
                  "in %.1f s: %d returned OK, %d refused (%d storages above the cap, %d host "
                  "allocations failed), "
                  "%d device limits (UNSUPPORTED where the CPU device computes), %d device "
                  "disagreements, %d errors without a message\n",
                  mode == MODE_ALL ? "all derived calls" : mode == MODE_LIGHT ? "light derived calls" : "CI sample", tot.ops, tot.templated, tot.calls,
                  ndev, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
                  tot.ok, tot.refused, refused_allocations, tot.host_oom, tot.limits, tot.mismatched, tot.no_message);
    CT_ASSERT_MSG(tot.templated > 0 || (glob && *glob), "no op had a template case");
    CT_ASSERT_MSG(tot.mismatched == 0 && tot.no_message == 0,
                  "%d derived call(s) gave different statuses on different devices and %d "
                  "error(s) had no message (listed above)",
                  tot.mismatched, tot.no_message);
}

/* --- what the fuzz found, one regression test each ------------------------------ */

#define I64 CT_I64

/* 0, 1, ..., 15: the values of the small inputs below. */
static const float xv[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* t (float32) holds want in row-major order, exactly. */
static void expect_f32(const clops_tensor *t, const float *want)
{
    CT_ASSERT(t != NULL);
    void *got = t ? ct_to_host(t) : NULL;
    if (got)
        CT_ASSERT_CLOSE_HOST(got, want, CLOPS_FLOAT32, clops_tensor_ndim(t),
                             clops_tensor_sizes(t), CT_TOL_EXACT);
    free(got);
}

/* Scattering into a dim of size 0: every index value is out of bounds.  The
 * OpenCL short-line path (ix_scatter_lines) returned OK without looking at
 * the index; the CPU device and PyTorch refuse it. */
static void test_scatter_into_an_empty_dim_refuses_the_index(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t iv[3] = {0, 1, 0};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *self = NULL, *src = NULL, *y = NULL;
        CT_OK(clops_full(devs[di], CLOPS_FLOAT32, 2, I64(0, 3), clops_scalar_float(0), &self));
        CT_OK(clops_full(devs[di], CLOPS_FLOAT32, 2, I64(1, 3), clops_scalar_float(1), &src));
        clops_tensor *idx = ct_from_values(devs[di], CLOPS_INT64, 2, I64(1, 3), CT_CONTIGUOUS, iv);
        ct_set_case("scatter.src into [0, 3] along dim 0");
        CT_STATUS(clops_scatter_src(self, 0, idx, src, &y), CLOPS_INDEX_OUT_OF_RANGE);
        CT_ERROR_CONTAINS("index 0 is out of bounds for dimension 0 with size 0");
        ct_set_case("scatter.value into [0, 3] along dim 0");
        CT_STATUS(clops_scatter_value(self, 0, idx, clops_scalar_float(2), &y),
                  CLOPS_INDEX_OUT_OF_RANGE);
        ct_set_case("scatter_add into [0, 3] along dim 0");
        CT_STATUS(clops_scatter_add(self, 0, idx, src, &y), CLOPS_INDEX_OUT_OF_RANGE);
        ct_set_case("scatter_reduce.two (amax) into [0, 3] along dim 0");
        CT_STATUS(clops_scatter_reduce_two(self, 0, idx, src, "amax", true, &y),
                  CLOPS_INDEX_OUT_OF_RANGE);
        CT_ASSERT(y == NULL);
        clops_tensor_release(self);
        clops_tensor_release(src);
        clops_tensor_release(idx);
    }
    ct_clear_context();
}

/* Pooling with a stride of 2^31 or INT64_MAX along dims of one output:
 * PyTorch computes the one window; the OpenCL kernels' 32-bit geometry
 * refused it as UNSUPPORTED while the CPU device computed. */
static void test_pooling_with_a_huge_stride_computes_the_one_window(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t k[2] = {2, 2}, st[2] = {(int64_t)1 << 31, INT64_MAX}, pad[2] = {0, 0},
                  dil[2] = {1, 1};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 4, I64(1, 1, 4, 4),
                                         CT_CONTIGUOUS, xv);
        clops_tensor *y = NULL, *ix = NULL, *gi = NULL;
        ct_set_case("max_pool2d_with_indices, kernel 2, stride [2^31, INT64_MAX]");
        CT_OK(clops_max_pool2d_with_indices(x, k, 2, st, 2, pad, 2, dil, 2, false, &y, &ix));
        expect_f32(y, (const float[]){5});
        int64_t *got = ix ? ct_to_host(ix) : NULL;
        CT_ASSERT_MSG(got && got[0] == 5, "index %lld, expected 5", got ? (long long)got[0] : -1LL);
        free(got);
        clops_tensor_release(y);
        clops_tensor_release(ix);
        y = NULL;
        ct_set_case("avg_pool2d, kernel 2, stride [2^31, INT64_MAX]");
        CT_OK(clops_avg_pool2d(x, k, 2, st, 2, pad, 2, false, true, NULL, &y));
        expect_f32(y, (const float[]){2.5f});
        ct_set_case("avg_pool2d_backward, kernel 2, stride [2^31, INT64_MAX]");
        if (y)
            CT_OK(clops_avg_pool2d_backward(y, x, k, 2, st, 2, pad, 2, false, true, NULL, &gi));
        float want[16] = {0};
        want[0] = want[1] = want[4] = want[5] = 2.5f / 4;
        expect_f32(gi, want);
        clops_tensor_release(y);
        clops_tensor_release(gi);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* avg_pool2d/3d (and backward) with a divisor_override outside int32:
 * PyTorch divides by the int64; the OpenCL kernels took it in their int8
 * geometry and refused it as UNSUPPORTED (it is a long argument of its
 * own now).  And a window volume past 2^31 (count_include_pad), which the
 * kernels multiplied in int.  Powers of two keep every quotient exact. */
static void test_avg_pool_divides_by_an_int64_divisor_override(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t k[3] = {2, 2, 1}, pad[3] = {0, 0, 0};
    const int64_t dvs[3] = {(int64_t)1 << 33, -((int64_t)1 << 32), (int64_t)1 << 62};
    /* 1 channel, and 64 (enough planes for CPU devices' plane kernels);
     * every channel holds xv. */
    enum { CMAX = 64 };
    float *xs = malloc(sizeof(float) * 16 * CMAX), *want = malloc(sizeof(float) * 4 * CMAX),
          *wg = malloc(sizeof(float) * 16 * CMAX);
    for (int i = 0; i < 16 * CMAX; i++)
        xs[i] = xv[i % 16];
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        for (int64_t C = 1; C <= CMAX; C *= CMAX) {
            clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 4, I64(1, C, 4, 4),
                                             CT_CONTIGUOUS, xs);
            for (int v = 0; v < 3; v++) {
                const double dv = (double)dvs[v], sums[4] = {10, 18, 42, 50};
                for (int i = 0; i < 4 * C; i++)
                    want[i] = (float)(sums[i % 4] / dv);
                for (int i = 0; i < 16 * C; i++)
                    wg[i] = (float)((double)want[(i % 16) / 8 * 2 + (i % 4) / 2] / dv);
                clops_tensor *y = NULL, *gi = NULL, *x3 = NULL, *y3 = NULL;
                ct_set_case("avg_pool2d of [1, %lld, 4, 4], kernel 2, stride 2, "
                            "divisor_override %lld", (long long)C, (long long)dvs[v]);
                CT_OK(clops_avg_pool2d(x, k, 2, k, 2, pad, 2, false, true, &dvs[v], &y));
                expect_f32(y, want);
                ct_set_case("avg_pool2d_backward of [1, %lld, 4, 4], divisor_override %lld",
                            (long long)C, (long long)dvs[v]);
                if (y)
                    CT_OK(clops_avg_pool2d_backward(y, x, k, 2, k, 2, pad, 2, false, true,
                                                    &dvs[v], &gi));
                expect_f32(gi, wg);
                ct_set_case("avg_pool3d of [%lld, 4, 4, 1], kernel [2, 2, 1], "
                            "divisor_override %lld", (long long)C, (long long)dvs[v]);
                CT_OK(clops_view(x, I64(C, 4, 4, 1), 4, &x3));
                if (x3)
                    CT_OK(clops_avg_pool3d(x3, k, 3, k, 3, pad, 3, false, true, &dvs[v], &y3));
                expect_f32(y3, want);
                clops_tensor_release(y);
                clops_tensor_release(gi);
                clops_tensor_release(x3);
                clops_tensor_release(y3);
            }
            clops_tensor_release(x);
            /* A padded window of 2^16 x 2^16 over one element: the divisor
             * of count_include_pad, 2^32, wrapped to 0 in the kernels' int. */
            const int64_t kb[2] = {65536, 65536}, pb[2] = {32768, 32768};
            clops_tensor *one = NULL, *y = NULL, *gi = NULL;
            CT_OK(clops_full(devs[di], CLOPS_FLOAT32, 4, I64(1, C, 1, 1),
                             clops_scalar_float(8589934592.0), &one));
            ct_set_case("avg_pool2d of [1, %lld, 1, 1], kernel 2^16, padding 2^15, "
                        "count_include_pad (divisor 2^32)", (long long)C);
            CT_OK(clops_avg_pool2d(one, kb, 2, kb, 2, pb, 2, false, true, NULL, &y));
            for (int i = 0; i < C; i++) {
                want[i] = 2;
                wg[i] = 0x1p-31f;
            }
            expect_f32(y, want);
            ct_set_case("avg_pool2d_backward of [1, %lld, 1, 1], kernel 2^16, padding 2^15",
                        (long long)C);
            if (y)
                CT_OK(clops_avg_pool2d_backward(y, one, kb, 2, kb, 2, pb, 2, false, true, NULL,
                                                &gi));
            expect_f32(gi, wg);
            clops_tensor_release(one);
            clops_tensor_release(y);
            clops_tensor_release(gi);
        }
    }
    free(xs);
    free(want);
    free(wg);
    ct_clear_context();
}

/* The results of t and u are the same bytes (same dtype and shape). */
static void expect_same_bytes(const clops_tensor *t, const clops_tensor *u, const char *what)
{
    CT_ASSERT(t != NULL && u != NULL);
    if (!t || !u)
        return;
    size_t nb = (size_t)clops_tensor_numel(t) * clops_dtype_size(clops_tensor_dtype(t));
    void *a = ct_to_host(t), *b = ct_to_host(u);
    CT_ASSERT_MSG(clops_tensor_numel(t) == clops_tensor_numel(u) && memcmp(a, b, nb) == 0,
                  "%s: 64-bit positions give other results than 32-bit ones", what);
    free(a);
    free(b);
}

/* Lines longer than 2^31-1 elements sort with 64-bit positions (POS long,
 * cl_kernels/sort.cl; the 32-bit ones refused them as UNSUPPORTED).  The
 * sort.wide_positions setting takes that path on every line, so here it
 * runs on lines of 20,000 (several blocks and merge passes on every
 * device, strided lines too) and must give the 32-bit path's bytes: sort
 * (values and indices, ascending and descending), argsort and topk (the
 * CPU devices' heap).  tests/test_big.c sorts a line of 2^31 + 2^20. */
static void test_sort_with_64_bit_positions_matches_32_bit(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    enum { LEN = 20000 };
    float *v = malloc(sizeof(float) * 2 * LEN);
    uint32_t r = 12345;
    for (int i = 0; i < 2 * LEN; i++) {
        r = r * 1664525u + 1013904223u;
        v[i] = (float)((r >> 8) % 997) - 400.0f; /* many equal keys: stability shows */
    }
    const bool stable = true;
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x = ct_from_values(devs[di], CLOPS_FLOAT32, 2, I64(2, LEN), CT_CONTIGUOUS, v);
        clops_tensor *xt = NULL;
        CT_OK(clops_view(x, I64(LEN, 2), 2, &xt)); /* lines of LEN along dim 0: stride 2 */
        clops_tensor *res[2][7] = {{NULL}};
        for (int w = 0; w < 2; w++) {
            CT_OK(clops_debug_set("sort.wide_positions", w));
            ct_set_case("sort.stable along dim 1 of [2, %d], %s positions", (int)LEN,
                        w ? "64-bit" : "32-bit");
            CT_OK(clops_sort_stable(x, &stable, 1, false, &res[w][0], &res[w][1]));
            ct_set_case("sort.stable descending along dim 0 of [%d, 2], %s positions", (int)LEN,
                        w ? "64-bit" : "32-bit");
            CT_OK(clops_sort_stable(xt, &stable, 0, true, &res[w][2], &res[w][3]));
            ct_set_case("argsort along dim 1, %s positions", w ? "64-bit" : "32-bit");
            CT_OK(clops_argsort(x, 1, true, &res[w][4]));
            ct_set_case("topk 7 along dim 1, %s positions", w ? "64-bit" : "32-bit");
            CT_OK(clops_topk(x, 7, 1, true, true, &res[w][5], &res[w][6]));
        }
        CT_OK(clops_debug_set("sort.wide_positions", 0));
        static const char *const what[7] = {"sort values",          "sort indices",
                                            "strided sort values",  "strided sort indices",
                                            "argsort",              "topk values",
                                            "topk indices"};
        for (int k = 0; k < 7; k++) {
            ct_set_case("%s", what[k]);
            expect_same_bytes(res[0][k], res[1][k], what[k]);
            clops_tensor_release(res[0][k]);
            clops_tensor_release(res[1][k]);
        }
        clops_tensor_release(xt);
        clops_tensor_release(x);
    }
    free(v);
    ct_clear_context();
}

/* topk of lines longer than a GPU selects in one work-group (4,096
 * elements; k <= 256) selects per chunk of 4,096 and then among the
 * candidates (topk_tournament, ops/sort/sort_ops.c), where it sorted the
 * line (24 bytes an element): on every OpenCL device (under
 * test_size_fuzz_gpu_kernels, CLOPS_CPU_LAUNCH=gridstride, POCL takes the
 * GPUs' path) the values and indices are the stable sort's first k (many
 * equal keys; lines of 4,096 q + r with r = 0, r < k and r > k; largest
 * and smallest; a strided line; float32, int32 and uint8), and a line of
 * 2^20 float32 takes less than 1 MiB of device memory beyond its result
 * (the sort took 24 MiB). */
static void test_topk_of_long_lines_is_the_stable_sorts_first_k(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    enum { BIG = 1 << 20 };
    float *v = malloc(sizeof(float) * BIG);
    uint32_t r = 4242;
    for (int i = 0; v && i < BIG; i++) {
        r = r * 1664525u + 1013904223u;
        v[i] = (float)((r >> 8) % 251); /* many equal keys: the tie order shows */
    }
    const int64_t lens[4] = {8192, 4099, 20000, 3 * 4096 + 200};
    const int64_t ks[3] = {1, 7, 256};
    const clops_dtype dts[3] = {CLOPS_FLOAT32, CLOPS_INT32, CLOPS_UINT8};
    const bool stable = true;
    for (int di = 0; v && di < nd; di++) {
        ct_set_device(devs[di]);
        for (int t = 0; t < 3; t++) {
            clops_tensor *xf = ct_from_values(devs[di], CLOPS_FLOAT32, 2, I64(2, 20000),
                                              CT_CONTIGUOUS, v), *x = NULL;
            CT_OK(clops__to_copy(xf, dts[t], -1, NULL, NULL, false, -1, &x));
            for (int li = 0; x && li < 4; li++)
                for (int ki = 0; ki < 3; ki++)
                    for (int dir = 0; dir < 2; dir++) {
                        int64_t len = lens[li], k = ks[ki];
                        bool strided = li == 2;
                        ct_set_case("topk %lld of %s lines of %lld, %s%s", (long long)k,
                                    clops_dtype_name(dts[t]), (long long)len,
                                    dir ? "largest" : "smallest", strided ? ", strided" : "");
                        clops_tensor *line = NULL, *sv = NULL, *si = NULL, *tv = NULL,
                                     *ti = NULL, *fv = NULL, *fi = NULL;
                        int dim = strided ? 0 : 1;
                        if (strided) /* [20000, 2]: lines of 20000 along dim 0, stride 2 */
                            CT_OK(clops_view(x, I64(20000, 2), 2, &line));
                        else
                            CT_OK(clops_narrow(x, 1, 0, len, &line));
                        CT_OK(clops_topk(line, k, dim, dir, true, &tv, &ti));
                        CT_OK(clops_sort_stable(line, &stable, dim, dir, &sv, &si));
                        CT_OK(clops_narrow(sv, dim, 0, k, &fv));
                        CT_OK(clops_narrow(si, dim, 0, k, &fi));
                        expect_same_bytes(tv, fv, "topk values");
                        expect_same_bytes(ti, fi, "topk indices");
                        clops_tensor *const all[] = {line, sv, si, tv, ti, fv, fi};
                        for (size_t j = 0; j < sizeof all / sizeof all[0]; j++)
                            clops_tensor_release(all[j]);
                    }
            clops_tensor_release(x);
            clops_tensor_release(xf);
        }
        /* memory: a line of 2^20 */
        ct_set_case("topk 7 of a line of 2^20 float32: extra device memory");
        clops_tensor *big = ct_from_values(devs[di], CLOPS_FLOAT32, 1, I64(BIG), CT_CONTIGUOUS, v);
        clops_tensor *tv = NULL, *ti = NULL;
        size_t used = 0, cached = 0, peak = 0;
        CT_OK(clops_memory_stats(devs[di], &used, &cached));
        CT_OK(clops_memory_peak(devs[di], true, &peak));
        CT_OK(clops_topk(big, 7, 0, true, true, &tv, &ti));
        CT_OK(clops_memory_peak(devs[di], false, &peak));
        CT_ASSERT_MSG(peak < used + ((size_t)1 << 20),
                      "topk 7 of 2^20 elements took %zu bytes beyond the %zu alive before it",
                      peak - used, used);
        clops_tensor_release(tv);
        clops_tensor_release(ti);
        clops_tensor_release(big);
    }
    free(v);
    ct_clear_context();
}

/* histc over more than 2^31 - 1 elements (refused as UNSUPPORTED before:
 * its counts were 32-bit) counts on OpenCL devices in chunks of at most
 * 2^31 - 1 elements, each into its own row of 32-bit counts, and adds the
 * rows in 64 bits (sort_histc_sum).  The sort.histc_chunk setting makes the
 * chunks small, so here 10,007 elements count in 1, 997 and 10,007-element
 * chunks (10,007, 11 with the last one short, and 1 row) on every device,
 * contiguous and as a strided view, and every count must be the one computed here: value v
 * of [0, 100) falls in bin v / 10 of histc(bins=10, min=0, max=100).
 * tests/test_big.c counts 2^31 + 10^6 elements, most of them in one bin. */
static void test_histc_counts_in_chunks_of_32_bit_counts(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    enum { LEN = 10007, BINS = 10 };
    float *v = malloc(sizeof(float) * 2 * LEN); /* v[2i]: the elements; v[2i+1]: 50 */
    int64_t want[BINS] = {0};
    uint32_t r = 777;
    for (int i = 0; i < LEN; i++) {
        r = r * 1664525u + 1013904223u;
        int k = (int)((r >> 8) % 120) - 10; /* some outside [0, 100] */
        v[2 * i] = (float)k;
        v[2 * i + 1] = 50.0f;
        if (k >= 0 && k <= 100)
            want[k == 100 ? BINS - 1 : k / 10]++;
    }
    static const int64_t chunks[3] = {997, 1, 0};
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        clops_tensor *x2 =
            ct_from_values(devs[di], CLOPS_FLOAT32, 2, I64(LEN, 2), CT_CONTIGUOUS, v);
        clops_tensor *xt = NULL, *x = NULL;
        const int64_t zero = 0, one = 1;
        CT_OK(clops_slice(x2, 1, &zero, &one, 1, &xt)); /* [LEN, 1], strides [2, 1] */
        if (xt)
            CT_OK(clops_contiguous(xt, 0, &x));
        for (int c = 0; c < 3; c++) {
            CT_OK(clops_debug_set("sort.histc_chunk", chunks[c]));
            for (int tr = 0; tr < 2; tr++) {
                ct_set_case("histc of %d float32 (%s), chunks of %lld", (int)LEN,
                            tr ? "a strided view" : "contiguous", (long long)chunks[c]);
                clops_tensor *h = NULL;
                CT_OK(clops_histc(tr ? xt : x, BINS, clops_scalar_float(0), clops_scalar_float(100),
                                  &h));
                float *got = h ? ct_to_host(h) : NULL;
                for (int b = 0; got && b < BINS; b++)
                    CT_ASSERT_MSG(got[b] == (float)want[b], "bin %d: %g, expected %lld", b,
                                  (double)got[b], (long long)want[b]);
                free(got);
                clops_tensor_release(h);
            }
        }
        CT_OK(clops_debug_set("sort.histc_chunk", 0));
        clops_tensor_release(xt);
        clops_tensor_release(x2);
        clops_tensor_release(x);
    }
    free(v);
    ct_clear_context();
}

/* Geometries that only metadata can describe: shapes whose element or byte
 * count overflows, a storage just above the device's largest allocation,
 * views whose extent overflows or leaves the storage, and a legitimate
 * stride-0 view of 2^62 elements that nothing may copy.  Each is refused
 * with a status before anything of that size is touched. */
static void test_hostile_geometries_are_refused_before_allocation(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t big = (int64_t)1 << 62;
    for (int di = 0; di < nd; di++) {
        clops_device *dev = devs[di];
        ct_set_device(dev);
        clops_tensor *t = NULL;
        ct_set_case("empty [2^31, 2^31, 4] (numel past int64)");
        CT_STATUS(clops_empty(dev, CLOPS_FLOAT32, 3, I64((int64_t)1 << 31, (int64_t)1 << 31, 4),
                              &t),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("overflows");
        ct_set_case("empty int64 [2^31, 2^31] (bytes past int64)");
        CT_STATUS(clops_empty(dev, CLOPS_INT64, 2, I64((int64_t)1 << 31, (int64_t)1 << 31), &t),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("empty of the largest allocation + 1 byte");
        int64_t over = (int64_t)clops_device_get_info(dev)->max_alloc_bytes + 1;
        clops_status st = clops_empty(dev, CLOPS_UINT8, 1, &over, &t);
        CT_ASSERT_MSG(st == CLOPS_OUT_OF_MEMORY || st == CLOPS_HOST_OUT_OF_MEMORY,
                      "%lld bytes: %s (%s)", (long long)over, clops_status_name(st),
                      clops_last_error());
        CT_ASSERT(t == NULL);

        clops_storage *sto = NULL;
        CT_OK(clops_storage_new(dev, 64, &sto));
        if (!sto)
            continue;
        ct_set_case("view [2, 2] with strides [2^62, 2^62] over 64 bytes");
        CT_STATUS(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 2, I64(2, 2), I64(big, big), 0,
                                            &t),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("view [3, 3] with strides [INT64_MAX, 1]");
        CT_STATUS(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 2, I64(3, 3), I64(INT64_MAX, 1), 0,
                                            &t),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("view [2] with stride -1 at offset 0");
        CT_STATUS(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 1, I64(2), I64(-1), 0, &t),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("view [1] at offset INT64_MAX");
        CT_STATUS(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 1, I64(1), I64(1), INT64_MAX, &t),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("view [INT64_MAX, 2] with stride 0");
        CT_STATUS(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 2, I64(INT64_MAX, 2), I64(0, 0), 0,
                                            &t),
                  CLOPS_INVALID_SHAPE);
        CT_ASSERT(t == NULL);
        /* A stride-0 view of 2^62 elements is legitimate (PyTorch's expand);
         * a contiguous copy of it (2^64 bytes) is not. */
        ct_set_case("contiguous() of a stride-0 view of 2^62 float32 elements");
        CT_OK(clops_tensor_from_storage(sto, CLOPS_FLOAT32, 1, &big, I64(0), 0, &t));
        clops_tensor *c = NULL;
        if (t) {
            st = clops_contiguous(t, 0, &c);
            CT_ASSERT_MSG(st == CLOPS_INVALID_SHAPE || st == CLOPS_OUT_OF_MEMORY ||
                              st == CLOPS_HOST_OUT_OF_MEMORY,
                          "%s (%s)", clops_status_name(st), clops_last_error());
            CT_ASSERT(c == NULL);
            ct_set_case("x + 1 of a stride-0 view of 2^62 float32 elements");
            st = clops_add_scalar(t, clops_scalar_int(1), clops_scalar_int(1), &c);
            CT_ASSERT_MSG(st == CLOPS_INVALID_SHAPE || st == CLOPS_OUT_OF_MEMORY ||
                              st == CLOPS_HOST_OUT_OF_MEMORY,
                          "%s (%s)", clops_status_name(st), clops_last_error());
            CT_ASSERT(c == NULL);
        }
        clops_tensor_release(t);
        t = NULL;
        clops_storage_release(sto);
    }
    ct_clear_context();
}

/* Refused as out of memory by the result's allocation: the message names
 * the result ("empty([...])"), not a host buffer. */
static void expect_result_refused(clops_status st)
{
    CT_ASSERT_MSG(st == CLOPS_OUT_OF_MEMORY || st == CLOPS_HOST_OUT_OF_MEMORY, "%s (%s)",
                  clops_status_name(st), clops_last_error());
    CT_ERROR_CONTAINS("empty([");
}

/* Ops that built host vectors as long as their result before allocating
 * it: replication/reflection padding (index vectors), linspace/logspace
 * (the values), repeat_interleave (the index).  A padding of 2^31 made a
 * 16 GiB host vector, a length past 2^61 wrapped the byte count of a
 * malloc that the loop then overran, repeats adding up past int64
 * overflowed a signed sum.  Now the sums are checked and the result (or
 * the device index) is allocated first. */
static void test_results_are_allocated_before_host_vectors_of_their_length(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    const int64_t t40 = (int64_t)1 << 40, past61 = ((int64_t)1 << 61) + 1;
    for (int di = 0; di < nd; di++) {
        clops_device *dev = devs[di];
        ct_set_device(dev);
        clops_tensor *x = NULL, *y = NULL;
        CT_OK(clops_ones(dev, CLOPS_FLOAT32, 2, I64(2, 3), &x));
        if (!x)
            continue;
        ct_set_case("replication_pad1d, padding (2^40, 0)");
        expect_result_refused(clops_replication_pad1d(x, I64(t40, 0), 2, &y));
        ct_set_case("replication_pad1d, padding (INT64_MAX, 1)");
        CT_STATUS(clops_replication_pad1d(x, I64(INT64_MAX, 1), 2, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("overflows int64");
        ct_set_case("linspace, 2^40 steps");
        expect_result_refused(clops_linspace(clops_scalar_int(0), clops_scalar_int(1), t40,
                                             CLOPS_FLOAT32, -1, dev, NULL, &y));
        ct_set_case("logspace, 2^61 + 1 steps");
        CT_STATUS(clops_logspace(clops_scalar_int(0), clops_scalar_int(1), past61, 10.0,
                                 CLOPS_FLOAT32, -1, dev, NULL, &y),
                  CLOPS_INVALID_SHAPE);
        const int64_t rmax = INT64_MAX, r61 = ((int64_t)1 << 61) / 3 + 1;
        ct_set_case("repeat_interleave, repeats INT64_MAX over 6 elements");
        CT_STATUS(clops_repeat_interleave_self_int(x, &rmax, NULL, NULL, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("more than int64");
        ct_set_case("repeat_interleave, repeats 2^61 / 3 + 1 over 6 elements");
        CT_STATUS(clops_repeat_interleave_self_int(x, &r61, NULL, NULL, &y), CLOPS_INVALID_SHAPE);
        ct_set_case("repeat_interleave, repeats 2^38 over 6 elements");
        const int64_t r38 = (int64_t)1 << 38;
        expect_result_refused(clops_repeat_interleave_self_int(x, &r38, NULL, NULL, &y));
        CT_ASSERT(y == NULL);
        clops_tensor_release(x);
    }
    ct_clear_context();
}

/* The signed overflows and out-of-bounds reads the fuzz found under UBSan
 * and ASan (CI's sanitizer build fails on each without its fix): split and
 * chunk by INT64_MAX (ceil division), split_with_sizes whose sum overflows,
 * unbind into more pieces than an int counts, repeat by INT64_MAX or with
 * more repeat dims than a tensor has, diag_embed at offset INT64_MIN/MAX,
 * native_group_norm with HxW = INT64_MAX, pooling with a dilated kernel
 * past int64 or a ceil-mode stride of INT64_MAX, layer norm's backward
 * with a normalized_shape longer than the input. */
static void test_size_arithmetic_found_by_the_sanitizers(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        clops_device *dev = devs[di];
        ct_set_device(dev);
        clops_tensor *v4 = ct_from_values(dev, CLOPS_FLOAT32, 1, I64(4), CT_CONTIGUOUS, xv);
        clops_tensor *m = ct_from_values(dev, CLOPS_FLOAT32, 2, I64(2, 3), CT_CONTIGUOUS, xv);
        clops_tensor *img = ct_from_values(dev, CLOPS_FLOAT32, 4, I64(1, 1, 4, 4), CT_CONTIGUOUS,
                                           xv);
        clops_tensor *y = NULL, *o1 = NULL, *o2 = NULL;
        clops_tensor_list l = {NULL, 0};

        ct_set_case("split([4], INT64_MAX): one piece");
        CT_OK(clops_split(v4, INT64_MAX, 0, &l));
        CT_ASSERT(l.len == 1 && clops_tensor_numel(l.data[0]) == 4);
        clops_tensor_list_free(&l);
        ct_set_case("chunk([4], INT64_MAX): four pieces of one");
        CT_OK(clops_chunk(v4, INT64_MAX, 0, &l));
        CT_ASSERT(l.len == 4);
        clops_tensor_list_free(&l);
        ct_set_case("split_with_sizes([4], [INT64_MAX, INT64_MAX, 2])");
        CT_STATUS(clops_split_with_sizes(v4, I64(INT64_MAX, INT64_MAX, 2), 3, 0, &l),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("overflows");
        ct_set_case("unbind of a stride-0 view of 2^31 elements");
        clops_tensor *wide = NULL;
        const int64_t two31 = (int64_t)1 << 31;
        CT_OK(clops_tensor_from_storage(clops_tensor_storage(v4), CLOPS_FLOAT32, 1, &two31,
                                        I64(0), 0, &wide));
        CT_STATUS(clops_unbind(wide, 0, &l), CLOPS_INVALID_ARGUMENT);
        clops_tensor_release(wide);

        ct_set_case("repeat([2, 3], [INT64_MAX, 1])");
        CT_STATUS(clops_repeat(m, I64(INT64_MAX, 1), 2, &y), CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("overflows int64");
        int64_t ones[CLOPS_MAX_DIMS + 1];
        for (int i = 0; i <= CLOPS_MAX_DIMS; i++)
            ones[i] = 1;
        ct_set_case("repeat([2, 3], %d ones)", CLOPS_MAX_DIMS + 1);
        CT_STATUS(clops_repeat(m, ones, CLOPS_MAX_DIMS + 1, &y), CLOPS_INVALID_ARGUMENT);
        ct_set_case("diag_embed([4], offset INT64_MIN)");
        CT_STATUS(clops_diag_embed(v4, INT64_MIN, 0, 1, &y), CLOPS_INVALID_SHAPE);
        ct_set_case("diag_embed([4], offset INT64_MAX)");
        CT_STATUS(clops_diag_embed(v4, INT64_MAX, 0, 1, &y), CLOPS_INVALID_SHAPE);
        ct_set_case("native_group_norm([2, 3], HxW INT64_MAX)");
        CT_STATUS(clops_native_group_norm(m, NULL, NULL, 2, 3, INT64_MAX, 1, 1e-5, &y, &o1, &o2),
                  CLOPS_INVALID_SHAPE);

        ct_set_case("max_pool2d_with_indices, kernel 2, dilation INT64_MAX");
        CT_STATUS(clops_max_pool2d_with_indices(img, I64(2, 2), 2, I64(1, 1), 2, I64(0, 0), 2,
                                                I64(INT64_MAX, 1), 2, false, &y, &o1),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("effective kernel size");
        ct_set_case("avg_pool2d, kernel 2, stride INT64_MAX, ceil_mode");
        CT_OK(clops_avg_pool2d(img, I64(2, 2), 2, I64(INT64_MAX, INT64_MAX), 2, I64(0, 0), 2, true,
                               true, NULL, &y));
        expect_f32(y, (const float[]){2.5f});
        clops_tensor_release(y);
        y = NULL;

        ct_set_case("native_layer_norm_backward, normalized_shape of 3 dims on a 2-D input");
        clops_tensor *stat = NULL;
        CT_OK(clops_zeros(dev, CLOPS_FLOAT32, 2, I64(1, 1), &stat));
        CT_STATUS(clops_native_layer_norm_backward(m, m, I64(1, 2, 3), 3, stat, stat, NULL, NULL,
                                                   (const bool[]){true, false, false}, 3, &y, &o1,
                                                   &o2),
                  CLOPS_INVALID_SHAPE);
        ct_set_case("_fused_rms_norm_backward, normalized_shape of 3 dims on a 2-D input");
        CT_STATUS(clops__fused_rms_norm_backward(m, m, I64(1, 2, 3), 3, stat, NULL,
                                                 (const bool[]){true, false}, 2, &y, &o1),
                  CLOPS_INVALID_SHAPE);
        clops_tensor_release(stat);
        CT_ASSERT(y == NULL && o1 == NULL && o2 == NULL);
        clops_tensor_release(v4);
        clops_tensor_release(m);
        clops_tensor_release(img);
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_geometries_are_refused_before_allocation),
        cmocka_unit_test(test_results_are_allocated_before_host_vectors_of_their_length),
        cmocka_unit_test(test_size_arithmetic_found_by_the_sanitizers),
        cmocka_unit_test(test_scatter_into_an_empty_dim_refuses_the_index),
        cmocka_unit_test(test_pooling_with_a_huge_stride_computes_the_one_window),
        cmocka_unit_test(test_avg_pool_divides_by_an_int64_divisor_override),
        cmocka_unit_test(test_sort_with_64_bit_positions_matches_32_bit),
        cmocka_unit_test(test_topk_of_long_lines_is_the_stable_sorts_first_k),
        cmocka_unit_test(test_histc_counts_in_chunks_of_32_bit_counts),
        cmocka_unit_test(test_hostile_sizes_through_every_schema),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
