/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_dispatch_calls.c: the two calling conventions and the trace
 * (dispatch/boxed.c, dispatch/call.c, dispatch/trace.c, the generated
 * wrappers of clops/ops.h).
 *
 * The specification, one behaviour per test:
 *   - boxed calls: arity, types, defaults, normalisation (int to float; int,
 *     float and bool to Scalar; an int for an int[N]), keyword-only
 *     arguments, and messages that name op, argument and position;
 *   - the typed wrappers on every device: views, copies and casts;
 *   - the trace: one [call] line per dispatched call with op, key, kernel
 *     and device, [redispatch] for an override calling the kernel below it,
 *     indentation for calls made from inside a kernel.
 * Key selection and overrides are in test_dispatch.c.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clops/ops.h"
#include "dispatch/dispatch.h"
#include "host/host.h"
#include "support/clops_test.h"

/* --- helpers ------------------------------------------------------------- */

static clops_override *live[64];
static int nlive;

/* Registers a kernel and remembers the handle for remove_leftovers. */
static clops_status reg(const clops_op *op, clops_dispatch_key key, clops_boxed_kernel fn,
                        void *data, const char *name, unsigned flags, clops_override **h)
{
    clops_override *tmp = NULL;
    clops_status st = clops_kernel_register(op, key, fn, data, name, flags, &tmp);
    if (st == CLOPS_OK) {
        live[nlive++] = tmp;
        if (h)
            *h = tmp;
    }
    return st;
}

/* Test teardown: removes what a failed test left registered (newest
 * first, so stacks unwind in order) and restores stderr and the trace. */
static int saved_stderr = -1;
static int remove_leftovers(void **state)
{
    (void)state;
    while (nlive > 0)
        clops_kernel_remove(live[--nlive]);
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
    clops_set_trace(false);
    return 0;
}

/* Starts sending stderr to a temporary file. */
static char capture_path[64];
static void capture_begin(void)
{
    snprintf(capture_path, sizeof capture_path, "/tmp/clops-test-stderr-XXXXXX");
    int fd = mkstemp(capture_path);
    CT_ASSERT(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* Restores stderr; returns what was written meanwhile (free it). */
static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    saved_stderr = -1;
    FILE *f = fopen(capture_path, "rb");
    CT_ASSERT(f != NULL);
    char *text = calloc(1, 65536);
    CT_ASSERT(text != NULL);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    unlink(capture_path);
    return text;
}

/* The op called name (fails the test when missing). */
static const clops_op *find_op(const char *name)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_find(name, &op));
    return op;
}

/* Defines a user op (fails the test on error). */
static const clops_op *define(const char *schema)
{
    const clops_op *op = NULL;
    CT_OK(clops_op_define(schema, "test", &op));
    return op;
}

/* A float32 tensor on dev holding 0, 1, 2, ... */
static clops_tensor *iota(clops_device *dev, int ndim, const int64_t *sizes)
{
    int64_t n = ct_numel(ndim, sizes);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    CT_ASSERT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)i;
    clops_tensor *t = ct_from_values(dev, CLOPS_FLOAT32, ndim, sizes, CT_CONTIGUOUS, v);
    free(v);
    return t;
}

/* A passthrough override's label and call count. */
typedef struct probe {
    const char *label;
    atomic_int calls;
} probe;

/* Trail of kernel labels in call order ("B,A,"), for stacks. */
static char trail[256];

/* An override that records itself and calls the kernel below it. */
static clops_status passthrough_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                       clops_value *rets, int nrets)
{
    probe *p = clops_kernel_ctx_data(ctx);
    atomic_fetch_add(&p->calls, 1);
    strncat(trail, p->label, sizeof trail - strlen(trail) - 2);
    strcat(trail, ",");
    return clops_kernel_call_fallback(ctx, args, nargs, rets, nrets);
}

/* Calls a one-tensor, one-return op boxed on t; returns the status. */
static clops_status call1(const clops_op *op, clops_tensor *t)
{
    clops_value a[1] = {clops_value_tensor(t)};
    clops_value r[1];
    clops_status st = clops_call_boxed(op, a, 1, r, 1);
    if (st == CLOPS_OK)
        clops_value_clear(&r[0]);
    return st;
}

/* --- boxed calls ----------------------------------------------------------- */

/* What boxed_record saw: tags and values, lists copied. */
static struct {
    int nargs;
    clops_value v[16];
    int64_t ints[16][8];
} seen;

/* A CPU kernel that copies its arguments into `seen` and returns self. */
static clops_status boxed_record(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                 clops_value *rets, int nrets)
{
    (void)ctx;
    seen.nargs = nargs;
    for (int i = 0; i < nargs && i < 16; i++) {
        seen.v[i] = args[i];
        if (args[i].tag == CLOPS_V_INT_LIST) {
            for (int k = 0; k < args[i].v.ints.len && k < 8; k++)
                seen.ints[i][k] = args[i].v.ints.data[k];
            seen.v[i].v.ints.data = seen.ints[i];
        }
    }
    for (int r = 0; r < nrets; r++)
        rets[r] = clops_value_tensor(clops_tensor_retain(args[0].v.t));
    return CLOPS_OK;
}

/* The user op the boxed-call tests share, with a CPU kernel. */
static const clops_op *boxed_op(void)
{
    static const clops_op *op;
    if (!op) {
        op = define("box_probe(Tensor self, float f, Scalar s, int[2] pad, int k=3, "
                    "float g=0.5, bool flag=True, str mode=\"sum\", ScalarType? dtype=None, "
                    "int[] dims=[0,1], Scalar alpha=2, *, int kw, float kwf=1.5, "
                    "MemoryFormat memory_format=contiguous_format) -> Tensor");
        CT_OK(clops_kernel_register(op, CLOPS_KEY_CPU, boxed_record, NULL, "record", 0, NULL));
    }
    return op;
}

/* Calls box_probe boxed with nargs arguments, recording into `seen`. */
static clops_status call_boxed_probe(clops_value *a, int nargs)
{
    clops_value r[1];
    memset(&seen, 0, sizeof seen);
    clops_status st = clops_call_boxed(boxed_op(), a, nargs, r, 1);
    if (st == CLOPS_OK)
        clops_value_clear(&r[0]);
    return st;
}

static void boxed_call_fills_in_every_default(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {4, 5};
    clops_value a[12] = {clops_value_tensor(t), clops_value_float(1.0),
                         clops_value_scalar(clops_scalar_int(1)), clops_value_ints(pad, 2)};
    /* The keyword-only kw has no default, so a call must reach it; the two
     * keyword-only arguments after it are left out and filled in. */
    a[4] = clops_value_int(3);
    a[5] = clops_value_float(0.5);
    a[6] = clops_value_bool(true);
    a[7] = clops_value_string("sum");
    a[8] = clops_value_none();
    int64_t dims[2] = {0, 1};
    a[9] = clops_value_ints(dims, 2);
    a[10] = clops_value_scalar(clops_scalar_int(2));
    a[11] = clops_value_int(7);
    CT_OK(call_boxed_probe(a, 12));
    assert_int_equal(seen.nargs, 14);
    /* kwf=1.5 and memory_format=contiguous_format were filled in. */
    assert_int_equal(seen.v[12].tag, CLOPS_V_FLOAT);
    assert_true(seen.v[12].v.f == 1.5);
    assert_int_equal(seen.v[13].tag, CLOPS_V_ENUM);
    assert_int_equal(seen.v[13].v.i, 0);
    clops_tensor_release(t);
}

static void boxed_call_defaults_have_the_schema_types(void **state)
{
    (void)state;
    /* An op whose every argument after self has a default. */
    const clops_op *op = define("box_defaults(Tensor self, int k=3, float g=0.5, int[2] pad=1, "
                                "bool flag=True, str mode=\"sum\", ScalarType? dtype=None, "
                                "Scalar alpha=2, int[] dims=[0,1], float h=2) -> Tensor");
    CT_OK(reg(op, CLOPS_KEY_CPU, boxed_record, NULL, "record", 0, NULL));
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    clops_value a[1] = {clops_value_tensor(t)};
    clops_value r[1];
    memset(&seen, 0, sizeof seen);
    CT_OK(clops_call_boxed(op, a, 1, r, 1));
    clops_value_clear(&r[0]);
    assert_int_equal(seen.nargs, 10);
    assert_int_equal(seen.v[1].tag, CLOPS_V_INT);
    assert_int_equal(seen.v[1].v.i, 3);
    assert_int_equal(seen.v[2].tag, CLOPS_V_FLOAT);
    assert_true(seen.v[2].v.f == 0.5);
    /* int[2] pad=1 is [1, 1]. */
    assert_int_equal(seen.v[3].tag, CLOPS_V_INT_LIST);
    assert_int_equal(seen.v[3].v.ints.len, 2);
    assert_int_equal(seen.ints[3][0], 1);
    assert_int_equal(seen.ints[3][1], 1);
    assert_int_equal(seen.v[4].tag, CLOPS_V_BOOL);
    assert_true(seen.v[4].v.b);
    assert_int_equal(seen.v[5].tag, CLOPS_V_STRING);
    assert_string_equal(seen.v[5].v.str, "sum");
    assert_int_equal(seen.v[6].tag, CLOPS_V_NONE);
    assert_int_equal(seen.v[7].tag, CLOPS_V_SCALAR);
    assert_int_equal(seen.v[7].v.s.kind, CLOPS_SCALAR_INT);
    assert_int_equal(clops_scalar_to_int64(seen.v[7].v.s), 2);
    assert_int_equal(seen.v[8].v.ints.len, 2);
    assert_int_equal(seen.ints[8][1], 1);
    /* An integer default of a float argument is a float. */
    assert_int_equal(seen.v[9].tag, CLOPS_V_FLOAT);
    assert_true(seen.v[9].v.f == 2.0);
    clops_tensor_release(t);
}

/* Fills a with a valid box_probe call of 12 arguments. */
static void valid_probe_args(clops_value *a, clops_tensor *t, int64_t *pad)
{
    a[0] = clops_value_tensor(t);
    a[1] = clops_value_float(1.0);
    a[2] = clops_value_scalar(clops_scalar_float(1.0));
    a[3] = clops_value_ints(pad, 2);
    a[4] = clops_value_int(3);
    a[5] = clops_value_float(0.5);
    a[6] = clops_value_bool(true);
    a[7] = clops_value_string("sum");
    a[8] = clops_value_none();
    a[9] = clops_value_ints(pad, 2);
    a[10] = clops_value_scalar(clops_scalar_int(2));
    a[11] = clops_value_int(7);
}

static void boxed_call_turns_an_int_into_a_float_for_a_float_argument(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    a[1] = clops_value_int(4);
    a[9] = clops_value_ints(pad, 2);
    CT_OK(call_boxed_probe(a, 12));
    assert_int_equal(seen.v[1].tag, CLOPS_V_FLOAT);
    assert_true(seen.v[1].v.f == 4.0);
    clops_tensor_release(t);
}

static void boxed_call_turns_ints_floats_and_bools_into_scalars(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    a[9] = clops_value_ints(pad, 2);
    const clops_value given[3] = {clops_value_int(-5), clops_value_float(2.5),
                                  clops_value_bool(true)};
    const clops_scalar_kind kinds[3] = {CLOPS_SCALAR_INT, CLOPS_SCALAR_FLOAT, CLOPS_SCALAR_BOOL};
    for (int i = 0; i < 3; i++) {
        a[2] = given[i];
        CT_OK(call_boxed_probe(a, 12));
        assert_int_equal(seen.v[2].tag, CLOPS_V_SCALAR);
        assert_int_equal(seen.v[2].v.s.kind, kinds[i]);
    }
    assert_true(clops_scalar_to_int64(seen.v[2].v.s) == 1);
    clops_tensor_release(t);
}

static void boxed_call_repeats_an_int_for_a_fixed_size_int_list(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    a[3] = clops_value_int(9);
    a[9] = clops_value_ints(pad, 2);
    CT_OK(call_boxed_probe(a, 12));
    assert_int_equal(seen.v[3].tag, CLOPS_V_INT_LIST);
    assert_int_equal(seen.v[3].v.ints.len, 2);
    assert_int_equal(seen.ints[3][0], 9);
    assert_int_equal(seen.ints[3][1], 9);
    /* A one-element list is repeated the same way. */
    int64_t one = 6;
    a[3] = clops_value_ints(&one, 1);
    CT_OK(call_boxed_probe(a, 12));
    assert_int_equal(seen.v[3].v.ints.len, 2);
    assert_int_equal(seen.ints[3][1], 6);
    clops_tensor_release(t);
}

static void boxed_call_rejects_a_fixed_size_list_of_another_length(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[3] = {1, 2, 3};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    a[3] = clops_value_ints(pad, 3);
    CT_STATUS(call_boxed_probe(a, 12), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("box_probe: argument 'pad' (position 3) expects 2 ints, got 3");
    clops_tensor_release(t);
}

static void boxed_call_with_a_wrong_type_names_op_argument_position_and_both_types(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    a[4] = clops_value_tensor(t);
    CT_STATUS(call_boxed_probe(a, 12), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("box_probe: argument 'k' (position 4) must be int, not Tensor");
    valid_probe_args(a, t, pad);
    a[7] = clops_value_int(1);
    CT_STATUS(call_boxed_probe(a, 12), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("argument 'mode' (position 7) must be str, not int");
    /* A builtin op says the same. */
    clops_value v[2] = {clops_value_tensor(t), clops_value_float(2.0)};
    clops_value r[1];
    CT_STATUS(clops_call_boxed(find_op("view"), v, 2, r, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("view: argument 'size' (position 1) must be SymInt[], not float");
    clops_tensor_release(t);
}

static void boxed_call_with_none_for_a_required_tensor_is_refused(void **state)
{
    (void)state;
    int64_t size[1] = {2};
    clops_value v[2] = {clops_value_none(), clops_value_ints(size, 1)};
    clops_value r[1];
    CT_STATUS(clops_call_boxed(find_op("view"), v, 2, r, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("argument 'self' (position 0) must be Tensor, not None");
    v[0] = clops_value_tensor(NULL);
    CT_STATUS(clops_call_boxed(find_op("view"), v, 2, r, 1), CLOPS_INVALID_ARGUMENT);
}

static void boxed_call_with_too_many_arguments_quotes_the_schema(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    clops_value v[3] = {clops_value_tensor(t), clops_value_tensor(t), clops_value_int(0)};
    clops_value r[1];
    CT_STATUS(clops_call_boxed(find_op("alias"), v, 3, r, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("alias: takes 1 arguments but 3 were given (alias(Tensor(a) self) -> "
                      "Tensor(a))");
    clops_tensor_release(t);
}

static void boxed_call_missing_a_required_argument_names_it_and_its_position(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    clops_value v[2] = {clops_value_tensor(t), clops_value_int(0)};
    clops_value r[1];
    CT_STATUS(clops_call_boxed(find_op("transpose.int"), v, 2, r, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("transpose.int: missing argument 'dim1' (position 2)");
    clops_tensor_release(t);
}

static void boxed_call_missing_a_keyword_only_argument_says_it_is_keyword_only(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[12];
    valid_probe_args(a, t, pad);
    CT_STATUS(call_boxed_probe(a, 11), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("box_probe: missing keyword-only argument 'kw' (position 11)");
    clops_tensor_release(t);
}

static void boxed_call_takes_keyword_only_arguments_in_schema_order(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    int64_t pad[2] = {1, 2};
    clops_value a[14];
    valid_probe_args(a, t, pad);
    a[12] = clops_value_int(3); /* kwf: int becomes float */
    a[13] = clops_value_int(1); /* memory_format: int becomes the enum */
    CT_OK(call_boxed_probe(a, 14));
    assert_int_equal(seen.v[11].tag, CLOPS_V_INT);
    assert_int_equal(seen.v[11].v.i, 7);
    assert_int_equal(seen.v[12].tag, CLOPS_V_FLOAT);
    assert_true(seen.v[12].v.f == 3.0);
    assert_int_equal(seen.v[13].tag, CLOPS_V_ENUM);
    assert_int_equal(seen.v[13].v.i, 1);
    clops_tensor_release(t);
}

static void boxed_call_with_a_wrong_number_of_result_slots_is_refused(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    clops_value v[1] = {clops_value_tensor(t)};
    clops_value r[2];
    CT_STATUS(clops_call_boxed(find_op("alias"), v, 1, r, 2), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("alias: returns 1 values, 2 result slots given");
    CT_STATUS(clops_call_boxed(NULL, v, 1, r, 1), CLOPS_INVALID_ARGUMENT);
    clops_tensor_release(t);
}

static void boxed_builtin_view_gives_what_the_typed_wrapper_gives(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 2, CT_I64(4, 6));
        int64_t size[3] = {2, -1, 3};
        clops_value v[2] = {clops_value_tensor(t), clops_value_ints(size, 3)};
        clops_value r[1];
        CT_OK(clops_call_boxed(find_op("view"), v, 2, r, 1));
        clops_tensor *typed = NULL;
        CT_OK(clops_view(t, size, 3, &typed));
        CT_ASSERT(r[0].tag == CLOPS_V_TENSOR);
        CT_ASSERT(r[0].v.t->ndim == 3 && typed->ndim == 3);
        CT_ASSERT(memcmp(r[0].v.t->sizes, typed->sizes, 3 * sizeof(int64_t)) == 0);
        CT_ASSERT(memcmp(r[0].v.t->strides, typed->strides, 3 * sizeof(int64_t)) == 0);
        CT_ASSERT(r[0].v.t->sizes[1] == 4);
        CT_ASSERT(clops_tensor_shares_storage(r[0].v.t, t));
        clops_value_clear(&r[0]);
        clops_tensor_release(typed);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void boxed_local_scalar_dense_returns_a_scalar(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 1, CT_I64(4));
        clops_tensor *e = NULL;
        CT_OK(clops_select(t, 0, 3, &e));
        clops_value v[1] = {clops_value_tensor(e)};
        clops_value r[1];
        CT_OK(clops_call_boxed(find_op("_local_scalar_dense"), v, 1, r, 1));
        CT_ASSERT(r[0].tag == CLOPS_V_SCALAR);
        CT_ASSERT(clops_scalar_to_double(r[0].v.s) == 3.0);
        clops_tensor_release(e);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void boxed_in_place_op_returns_its_self_argument(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(4));
    int64_t size[2] = {2, 5};
    clops_value v[2] = {clops_value_tensor(t), clops_value_ints(size, 2)};
    clops_value r[1];
    CT_OK(clops_call_boxed(find_op("resize_"), v, 2, r, 1));
    CT_ASSERT(r[0].tag == CLOPS_V_TENSOR && r[0].v.t == t);
    CT_ASSERT(clops_tensor_ndim(t) == 2 && clops_tensor_numel(t) == 10);
    clops_value_clear(&r[0]);
    clops_tensor_release(t);
}

/* --- typed wrappers ---------------------------------------------------------- */

static void typed_view_wrappers_share_storage_and_give_pytorch_geometry(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 3, CT_I64(2, 3, 4));
        clops_tensor *v = NULL;
        CT_OK(clops_permute(t, CT_I64(2, 0, 1), 3, &v));
        CT_ASSERT(v->sizes[0] == 4 && v->strides[0] == 1 && v->strides[1] == 12);
        CT_ASSERT(clops_tensor_shares_storage(v, t));
        clops_tensor_release(v);
        CT_OK(clops_transpose(t, 0, -1, &v));
        CT_ASSERT(v->sizes[0] == 4 && v->sizes[2] == 2 && v->strides[2] == 12);
        clops_tensor_release(v);
        CT_OK(clops_select(t, 1, -1, &v));
        CT_ASSERT(v->ndim == 2 && v->offset == 8);
        clops_tensor_release(v);
        CT_OK(clops_slice(t, 2, CT_I64(1), NULL, 2, &v));
        CT_ASSERT(v->sizes[2] == 2 && v->strides[2] == 2 && v->offset == 1);
        clops_tensor_release(v);
        CT_OK(clops_unsqueeze(t, 0, &v));
        CT_ASSERT(v->ndim == 4 && v->sizes[0] == 1);
        clops_tensor_release(v);
        CT_OK(clops_expand(t, CT_I64(5, 2, 3, 4), 4, false, &v));
        CT_ASSERT(v->ndim == 4 && v->strides[0] == 0);
        clops_tensor_release(v);
        CT_OK(clops_flatten(t, 1, -1, &v));
        CT_ASSERT(v->ndim == 2 && v->sizes[1] == 12);
        clops_tensor_release(v);
        CT_OK(clops_diagonal(t, 0, 1, 2, &v));
        CT_ASSERT(v->ndim == 2 && v->sizes[1] == 3 && v->strides[1] == 5);
        clops_tensor_release(v);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void typed_copy_wrappers_move_and_convert_values_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 2, CT_I64(3, 4));
        clops_tensor *tt = NULL, *c = NULL, *cast = NULL, *dst = NULL;
        /* contiguous of a transposed view copies in the view's order. */
        CT_OK(clops_t(t, &tt));
        CT_OK(clops_contiguous(tt, -1, &c));
        CT_ASSERT(clops_tensor_is_contiguous(c) && !clops_tensor_shares_storage(c, t));
        float *h = ct_to_host(c);
        CT_ASSERT(h[1] == 4.0f && h[2] == 8.0f && h[3] == 1.0f);
        free(h);
        /* _to_copy casts. */
        CT_OK(clops__to_copy(t, CLOPS_INT32, -1, NULL, NULL, false, -1, &cast));
        CT_ASSERT(clops_tensor_dtype(cast) == CLOPS_INT32 && clops_tensor_device(cast) == devs[i]);
        int32_t *hi = ct_to_host(cast);
        CT_ASSERT(hi[11] == 11);
        free(hi);
        /* copy_ writes into an existing tensor, converting. */
        dst = ct_empty_layout(devs[i], CLOPS_INT32, 2, CT_I64(4, 3), CT_CONTIGUOUS);
        CT_OK(clops_copy_(dst, tt, false));
        hi = ct_to_host(dst);
        CT_ASSERT(hi[1] == 4 && hi[11] == 11);
        free(hi);
        /* clone keeps the values. */
        clops_tensor *cl = NULL;
        CT_OK(clops_clone(t, -1, &cl));
        CT_ASSERT_CLOSE(cl, t, CT_TOL_EXACT);
        clops_tensor_release(cl);
        clops_tensor_release(dst);
        clops_tensor_release(cast);
        clops_tensor_release(c);
        clops_tensor_release(tt);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void boxed_and_typed_calls_of_a_pointwise_op_agree_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *add = find_op("add.Tensor");
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *a = iota(devs[i], 2, CT_I64(2, 3)), *b = iota(devs[i], 1, CT_I64(3));
        clops_tensor *typed = NULL;
        CT_OK(clops_add(a, b, clops_scalar_int(2), &typed));
        /* Boxed, alpha given as a plain int: normalised to a Scalar. */
        clops_value v[3] = {clops_value_tensor(a), clops_value_tensor(b), clops_value_int(2)};
        clops_value r[1];
        CT_OK(clops_call_boxed(add, v, 3, r, 1));
        CT_ASSERT(r[0].tag == CLOPS_V_TENSOR && clops_tensor_device(r[0].v.t) == devs[i]);
        CT_ASSERT_CLOSE(r[0].v.t, typed, CT_TOL_EXACT);
        float *h = ct_to_host(typed);
        CT_ASSERT(h[5] == 5.0f + 2.0f * 2.0f); /* a[1][2] + 2 * b[2] */
        free(h);
        clops_value_clear(&r[0]);
        clops_tensor_release(typed);
        clops_tensor_release(b);
        clops_tensor_release(a);
    }
    ct_clear_context();
}

static void typed_wrappers_refuse_null_tensors_and_result_pointers(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2));
    clops_tensor *out = NULL;
    CT_STATUS(clops_alias(NULL, &out), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("alias: argument 'self' is NULL");
    CT_STATUS(clops_alias(t, NULL), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("alias: result pointer 'out' is NULL");
    clops_tensor_release(t);
}

/* --- trace ---------------------------------------------------------------------- */

static void trace_prints_a_call_line_with_op_key_kernel_and_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        clops_tensor *t = iota(devs[i], 1, CT_I64(2)), *out = NULL;
        capture_begin();
        clops_set_trace(true);
        clops_status st = clops_alias(t, &out);
        clops_set_trace(false);
        char *text = capture_end();
        CT_OK(st);
        char expect[256];
        snprintf(expect, sizeof expect, "[call] op=alias key=%s kernel=core_alias device=%s (",
                 host_is_cpu(devs[i]) ? "CPU" : "OpenCL", clops_device_label(devs[i]));
        CT_ASSERT_MSG(strncmp(text, expect, strlen(expect)) == 0, "trace was '%s'", text);
        CT_ASSERT_MSG(strchr(text, '\n') == text + strlen(text) - 1, "one line: '%s'", text);
        free(text);
        clops_tensor_release(out);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

static void trace_is_silent_when_switched_off(void **state)
{
    (void)state;
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2)), *out = NULL;
    capture_begin();
    CT_OK(clops_alias(t, &out));
    char *text = capture_end();
    assert_string_equal(text, "");
    free(text);
    clops_tensor_release(out);
    clops_tensor_release(t);
}

static void trace_marks_an_override_calling_its_fallback_as_redispatch(void **state)
{
    (void)state;
    const clops_op *op = find_op("alias");
    probe a = {.label = "A"}, b = {.label = "B"};
    CT_OK(reg(op, CLOPS_KEY_CPU, passthrough_kernel, &a, "over-A", 0, NULL));
    CT_OK(reg(op, CLOPS_KEY_CPU, passthrough_kernel, &b, "over-B", CLOPS_OVERRIDE_ALLOW_MULTIPLE,
              NULL));
    clops_tensor *t = iota(ct_cpu(), 1, CT_I64(2)), *out = NULL;
    capture_begin();
    clops_set_trace(true);
    clops_status st = clops_alias(t, &out);
    clops_set_trace(false);
    char *text = capture_end();
    CT_OK(st);
    const char *l1 = "[call] op=alias key=CPU kernel=over-B device=cpu";
    const char *l2 = "\n  [redispatch] op=alias key=CPU kernel=over-A device=cpu";
    const char *l3 = "\n    [redispatch] op=alias key=CPU kernel=core_alias device=cpu";
    CT_ASSERT_MSG(strncmp(text, l1, strlen(l1)) == 0, "trace was '%s'", text);
    CT_ASSERT_MSG(strstr(text, l2) && strstr(text, l3) && strstr(text, l2) < strstr(text, l3),
                  "trace was '%s'", text);
    free(text);
    clops_tensor_release(out);
    clops_tensor_release(t);
    remove_leftovers(NULL);
}

/* A kernel that calls another op through the dispatcher. */
static clops_status nesting_kernel(const clops_kernel_ctx *ctx, clops_value *args, int nargs,
                                   clops_value *rets, int nrets)
{
    (void)ctx;
    (void)nargs;
    (void)nrets;
    clops_tensor *out = NULL;
    clops_status st = clops_alias(args[0].v.t, &out);
    if (st == CLOPS_OK)
        rets[0] = clops_value_tensor(out);
    return st;
}

static void trace_indents_calls_made_from_inside_a_kernel(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int n = ct_devices(devs, CT_MAX_DEVICES);
    const clops_op *op = define("nest_outer(Tensor self) -> Tensor");
    CT_OK(reg(op, CLOPS_KEY_CPU, nesting_kernel, NULL, "outer", 0, NULL));
    CT_OK(reg(op, CLOPS_KEY_OPENCL, nesting_kernel, NULL, "outer", 0, NULL));
    for (int i = 0; i < n; i++) {
        ct_set_device(devs[i]);
        const char *key = host_is_cpu(devs[i]) ? "CPU" : "OpenCL";
        clops_tensor *t = iota(devs[i], 1, CT_I64(2));
        capture_begin();
        clops_set_trace(true);
        clops_status st = call1(op, t);
        /* After the call, depth is back to zero. */
        clops_status st2 = call1(op, t);
        clops_set_trace(false);
        char *text = capture_end();
        CT_OK(st);
        CT_OK(st2);
        char l1[128], l2[128], l3[128];
        snprintf(l1, sizeof l1, "[call] op=nest_outer key=%s kernel=outer device=%s", key,
                 clops_device_label(devs[i]));
        snprintf(l2, sizeof l2, "\n  [call] op=alias key=%s kernel=core_alias device=%s", key,
                 clops_device_label(devs[i]));
        snprintf(l3, sizeof l3, "\n[call] op=nest_outer key=%s", key);
        CT_ASSERT_MSG(strncmp(text, l1, strlen(l1)) == 0, "trace was '%s'", text);
        CT_ASSERT_MSG(strstr(text, l2) != NULL, "trace was '%s'", text);
        CT_ASSERT_MSG(strstr(text, l3) != NULL, "trace was '%s'", text);
        free(text);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

#define T(name) cmocka_unit_test_teardown(name, remove_leftovers)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(boxed_call_fills_in_every_default),
        T(boxed_call_defaults_have_the_schema_types),
        T(boxed_call_turns_an_int_into_a_float_for_a_float_argument),
        T(boxed_call_turns_ints_floats_and_bools_into_scalars),
        T(boxed_call_repeats_an_int_for_a_fixed_size_int_list),
        T(boxed_call_rejects_a_fixed_size_list_of_another_length),
        T(boxed_call_with_a_wrong_type_names_op_argument_position_and_both_types),
        T(boxed_call_with_none_for_a_required_tensor_is_refused),
        T(boxed_call_with_too_many_arguments_quotes_the_schema),
        T(boxed_call_missing_a_required_argument_names_it_and_its_position),
        T(boxed_call_missing_a_keyword_only_argument_says_it_is_keyword_only),
        T(boxed_call_takes_keyword_only_arguments_in_schema_order),
        T(boxed_call_with_a_wrong_number_of_result_slots_is_refused),
        T(boxed_builtin_view_gives_what_the_typed_wrapper_gives),
        T(boxed_local_scalar_dense_returns_a_scalar),
        T(boxed_in_place_op_returns_its_self_argument),
        T(typed_view_wrappers_share_storage_and_give_pytorch_geometry),
        T(typed_copy_wrappers_move_and_convert_values_on_every_device),
        T(boxed_and_typed_calls_of_a_pointwise_op_agree_on_every_device),
        T(typed_wrappers_refuse_null_tensors_and_result_pointers),
        T(trace_prints_a_call_line_with_op_key_kernel_and_device),
        T(trace_is_silent_when_switched_off),
        T(trace_marks_an_override_calling_its_fallback_as_redispatch),
        T(trace_indents_calls_made_from_inside_a_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
