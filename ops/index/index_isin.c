/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/index/index_isin.c: isin (Tensor_Tensor, Tensor_Scalar, Scalar_Tensor), the
 * set-membership test of the indexing family.
 *
 * Both sides are promoted to their common dtype and made contiguous (one
 * copy each when they are not already), then every element is compared
 * with every test element: a brute-force loop on the device
 * (ix_isin_<dtype> of cl_kernels/index.cl) and in C on the CPU device.
 * That is O(elements x test elements); PyTorch switches to sorting for
 * large test sets, which clops will do once the device sort lands.
 */
#include <stdio.h>
#include <string.h>

#include "codegen_pointwise/promote.h"
#include "host/host.h"
#include "ops/index/index.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"

/* The C loop on the CPU device. */
static void isin_ref(const clops_tensor *el, const clops_tensor *test, bool invert,
                     clops_tensor *out)
{
    int64_t n = tensor_numel(el), m = tensor_numel(test);
    bool isf = clops_dtype_is_floating(el->dtype);
    clops_dtype ct = isf ? CLOPS_FLOAT64 : CLOPS_INT64;
    uint8_t *o = (uint8_t *)out->storage->host_ptr + out->offset;
    for (int64_t i = 0; i < n; i++) {
        pw_value e = pw_ref_load(el->storage->host_ptr, el->offset + i, el->dtype, ct);
        bool hit = false;
        for (int64_t j = 0; j < m && !hit; j++) {
            pw_value t = pw_ref_load(test->storage->host_ptr, test->offset + j, test->dtype, ct);
            hit = isf ? t.f == e.f : t.i == e.i;
        }
        o[i] = (uint8_t)(hit != invert);
    }
}

/* The device kernel. */
static clops_status isin_device(const clops_tensor *el, const clops_tensor *test, bool invert,
                                clops_tensor *out)
{
    clops_device *d = el->storage->device;
    clops_status st = check_dtype_on_device("isin", el->dtype, d);
    if (st)
        return st;
    host_kkey key = {{(0x22ull << 56) | (uint64_t)el->dtype, 0, 0, 0}};
    host_kernel *k = kit_find(d, &key);
    if (!k) {
        char kname[64];
        snprintf(kname, sizeof kname, "ix_isin_%s", clops_dtype_name(el->dtype));
        st = ix_segment_kernel(d, &key, kname, "isin", &k);
        if (st)
            return st;
    }
    /* Offsets are folded in by sub-views: both tensors are fresh or
     * contiguous at offset 0 here (see ix_fn_isin). */
    cl_mem mo = out->storage->block->mem, me = el->storage->block->mem,
           mt = test->storage->block ? test->storage->block->mem : me;
    cl_long n = tensor_numel(el), m = tensor_numel(test);
    cl_int inv = invert;
    host_arg args[6] = {{sizeof mo, &mo}, {sizeof me, &me}, {sizeof mt, &mt},
                        {sizeof n, &n},   {sizeof m, &m},   {sizeof inv, &inv}};
    return host_launch_items(d, k, 6, args, (uint64_t)n);
}


static clops_status isin_impl(pw_variant variant, clops_tensor *dst, clops_tensor *elements,
                              clops_tensor *test_elements, bool invert, clops_tensor *shape_of,
                              clops_tensor **out)
{
    const char *op = "isin";
    clops_status st = ix_check_same_device(op, elements, test_elements);
    if (st)
        return st;
    clops_dtype dt = pw_promote_types(elements->dtype, test_elements->dtype);
    clops_tensor *e = NULL, *t = NULL;
    st = core_contiguous_as(elements, dt, &e);
    if (st == CLOPS_OK)
        st = core_contiguous_as(test_elements, dt, &t);
    structured_call call;
    bool begun = false;
    if (st == CLOPS_OK) {
        clops_tensor *const inputs[2] = {elements, test_elements};
        st = structured_begin(&call, op, variant, dst, elements->storage->device, CLOPS_BOOL,
                              shape_of->ndim, shape_of->sizes, inputs, 2);
        begun = st == CLOPS_OK;
    }
    clops_tensor *res = NULL;
    if (begun) {
        /* The kernel writes a fresh contiguous bool tensor, copied into the
         * target when that is a view. */
        st = tensor_new(elements->storage->device, CLOPS_BOOL, shape_of->ndim, shape_of->sizes,
                        NULL, &res);
        if (st == CLOPS_OK && tensor_numel(res) > 0) {
            if (kit_is_host(res->storage->device))
                isin_ref(e, t, invert, res);
            else
                st = isin_device(e, t, invert, res);
        }
        if (st == CLOPS_OK)
            st = core_copy_(call.target, res, false);
        st = structured_finish(&call, st, out);
    }
    clops_tensor_release(res);
    clops_tensor_release(e);
    clops_tensor_release(t);
    return st;
}

clops_status ix_fn_isin_tt(pw_variant variant, clops_tensor *dst, clops_tensor *elements,
                           clops_tensor *test_elements, bool assume_unique, bool invert,
                           clops_tensor **out)
{
    (void)assume_unique;
    return isin_impl(variant, dst, elements, test_elements, invert, elements, out);
}

clops_status ix_fn_isin_ts(pw_variant variant, clops_tensor *dst, clops_tensor *elements,
                           clops_scalar test_element, bool assume_unique, bool invert,
                           clops_tensor **out)
{
    (void)assume_unique;
    clops_tensor *t = NULL;
    pw_type_operand ops[2] = {pw_tensor_operand(elements->dtype, elements->ndim),
                              pw_scalar_operand(test_element)};
    clops_status st = clops_full(elements->storage->device, pw_result_type(ops, 2), 0, NULL,
                                 test_element, &t);
    if (st == CLOPS_OK)
        st = isin_impl(variant, dst, elements, t, invert, elements, out);
    clops_tensor_release(t);
    return st;
}

clops_status ix_fn_isin_st(pw_variant variant, clops_tensor *dst, clops_scalar element,
                           clops_tensor *test_elements, bool assume_unique, bool invert,
                           clops_tensor **out)
{
    (void)assume_unique;
    clops_tensor *e = NULL;
    pw_type_operand ops[2] = {pw_scalar_operand(element),
                              pw_tensor_operand(test_elements->dtype, test_elements->ndim)};
    clops_status st = clops_full(test_elements->storage->device, pw_result_type(ops, 2), 0, NULL,
                                 element, &e);
    if (st == CLOPS_OK)
        st = isin_impl(variant, dst, e, test_elements, invert, e, out);
    clops_tensor_release(e);
    return st;
}
