/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_interop.c: bring your own OpenCL (clops/opencl.h).
 *
 * On every OpenCL device the test acts as an application with its own
 * OpenCL objects: it creates its own context and in-order queue, fills a
 * buffer with its own kernel, wraps context, queue and buffer for clops,
 * runs clops ops on them (pointwise, a reduction, a GEMM on a transposed
 * view, a narrow view written into the caller's second buffer), reads the
 * results back with its own clEnqueueReadBuffer -- on the same queue, with
 * no synchronisation call, which is the documented contract -- and checks
 * every value against a host computation.  Then the error cases: NULLs, a
 * buffer too small for its geometry, a buffer or queue of another context,
 * an out-of-order queue, resizing a wrapped buffer; and the lifetime rules:
 * clops holds exactly one reference to a wrapped buffer while a tensor
 * over it lives, and none after.  The error test fills its buffers with a
 * write rather than a kernel, so that it compiles nothing and
 * tests/run_valgrind.sh can run it on every device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/opencl.h"
#include "clops/ops.h"
#include "support/clops_test.h"

#define M 6
#define K 8
#define OFF 4              /* element offset of the matrix in the buffer */
#define NBUF (OFF + M * K) /* floats in the caller's buffer */

static const char fill_src[] =
    "__kernel void fill(__global float *a) {\n"
    "    int i = get_global_id(0);\n"
    "    a[i] = (float)(i % 13) * 0.25f - 1.5f;\n"
    "}\n";

/* What the caller's fill kernel writes at index i. */
static float fill_value(int i)
{
    return (float)(i % 13) * 0.25f - 1.5f;
}

/* The application's own OpenCL objects on one device. */
typedef struct app {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queue;
    cl_program prog;
    cl_kernel fill;
    cl_mem a;   /* NBUF floats, filled by the caller's kernel */
    cl_mem out; /* M * 4 floats for a result clops writes */
} app;

/* Creates the application's context, queue and buffers on the OpenCL
 * device behind clops device d, and fills a: with its own kernel when
 * own_kernel, else with a write (no compiler: cheap under valgrind). */
static void app_open(clops_device *d, app *p, bool own_kernel)
{
    memset(p, 0, sizeof *p);
    CT_OK(clops_opencl_device_objects(d, NULL, &p->dev, NULL));
    cl_int err = CL_SUCCESS;
    p->ctx = clCreateContext(NULL, 1, &p->dev, NULL, NULL, &err);
    CT_ASSERT_MSG(err == CL_SUCCESS, "clCreateContext: %d", (int)err);
    p->queue = clCreateCommandQueue(p->ctx, p->dev, 0, &err);
    CT_ASSERT_MSG(err == CL_SUCCESS, "clCreateCommandQueue: %d", (int)err);
    p->a = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, NBUF * sizeof(float), NULL, &err);
    CT_ASSERT(err == CL_SUCCESS);
    p->out = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, M * 4 * sizeof(float), NULL, &err);
    CT_ASSERT(err == CL_SUCCESS);
    if (!own_kernel) {
        float v[NBUF];
        for (int i = 0; i < NBUF; i++)
            v[i] = fill_value(i);
        CT_ASSERT(clEnqueueWriteBuffer(p->queue, p->a, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL) ==
                  CL_SUCCESS);
        return;
    }
    const char *src = fill_src;
    p->prog = clCreateProgramWithSource(p->ctx, 1, &src, NULL, &err);
    CT_ASSERT(err == CL_SUCCESS);
    err = clBuildProgram(p->prog, 1, &p->dev, "", NULL, NULL);
    CT_ASSERT_MSG(err == CL_SUCCESS, "clBuildProgram: %d", (int)err);
    p->fill = clCreateKernel(p->prog, "fill", &err);
    CT_ASSERT(err == CL_SUCCESS);
    size_t global = NBUF;
    CT_ASSERT(clSetKernelArg(p->fill, 0, sizeof p->a, &p->a) == CL_SUCCESS);
    CT_ASSERT(clEnqueueNDRangeKernel(p->queue, p->fill, 1, NULL, &global, NULL, 0, NULL, NULL) ==
              CL_SUCCESS);
}

/* Releases what app_open created. */
static void app_close(app *p)
{
    if (p->out)
        clReleaseMemObject(p->out);
    if (p->a)
        clReleaseMemObject(p->a);
    if (p->fill)
        clReleaseKernel(p->fill);
    if (p->prog)
        clReleaseProgram(p->prog);
    if (p->queue)
        clReleaseCommandQueue(p->queue);
    if (p->ctx)
        clReleaseContext(p->ctx);
}

/* The caller's blocking read of n floats at byte offset off of buf. */
static void app_read(const app *p, cl_mem buf, size_t off, float *dst, size_t n)
{
    cl_int err = clEnqueueReadBuffer(p->queue, buf, CL_TRUE, off, n * sizeof(float), dst, 0,
                                     NULL, NULL);
    CT_ASSERT_MSG(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", (int)err);
}

/* Fails unless got[i] is within tol of want[i] for every i. */
static void expect_close(const char *what, const float *got, const float *want, int n, float tol)
{
    for (int i = 0; i < n; i++)
        CT_ASSERT_MSG(fabsf(got[i] - want[i]) <= tol, "%s[%d]: got %g, expected %g", what, i,
                      (double)got[i], (double)want[i]);
}

/* The buffer's OpenCL reference count. */
static cl_uint refcount(cl_mem m)
{
    cl_uint n = 0;
    clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

/* Host copy of the matrix the fill kernel wrote (M x K at OFF). */
static void host_matrix(float *a)
{
    for (int i = 0; i < M * K; i++)
        a[i] = fill_value(OFF + i);
}

static void test_clops_ops_run_on_the_callers_context_queue_and_buffer(void **state)
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        app p;
        app_open(devs[di], &p, true);
        clops_device *w = NULL, *again = NULL;
        CT_OK(clops_opencl_wrap_device(p.ctx, p.dev, p.queue, &w));
        CT_OK(clops_opencl_wrap_device(p.ctx, p.dev, p.queue, &again));
        CT_ASSERT(w == again && w != devs[di]);
        CT_ASSERT(strncmp(clops_device_label(w), "wrapped:", 8) == 0);
        cl_command_queue q = NULL;
        CT_OK(clops_opencl_device_objects(w, NULL, NULL, &q));
        CT_ASSERT(q == p.queue);

        float a[M * K], got[M * M], want[M * M];
        host_matrix(a);
        clops_tensor *ta = NULL, *sum = NULL, *tt = NULL, *mm = NULL, *nar = NULL,
                     *tout = NULL;
        CT_OK(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT32, 2, CT_I64(M, K), NULL, OFF,
                                              &ta));
        /* Pointwise in place on the caller's buffer: a += 2 * a. */
        CT_OK(clops_add_(ta, ta, clops_scalar_int(2)));
        for (int i = 0; i < M * K; i++)
            a[i] *= 3.0f;
        float buf[NBUF];
        app_read(&p, p.a, 0, buf, NBUF);
        for (int i = 0; i < OFF; i++) /* before the offset: untouched */
            CT_ASSERT_MSG(buf[i] == fill_value(i), "element %d before the view changed", i);
        expect_close("a*3", buf + OFF, a, M * K, 0.0f);
        /* A reduction, read through the result's own cl_mem and offset. */
        CT_OK(clops_sum(ta, CLOPS_DTYPE_NONE, &sum));
        cl_mem sm = NULL;
        size_t soff = 1;
        CT_OK(clops_opencl_tensor_buffer(sum, &sm, &soff));
        float s = 0.0f, swant = 0.0f;
        for (int i = 0; i < M * K; i++)
            swant += a[i];
        app_read(&p, sm, soff, &s, 1);
        CT_ASSERT_MSG(fabsf(s - swant) <= 1e-3f, "sum: got %g, expected %g", (double)s,
                      (double)swant);
        /* GEMM with a transposed view of the caller's buffer: a @ a^T. */
        CT_OK(clops_transpose(ta, 0, 1, &tt));
        CT_OK(clops_mm(ta, tt, &mm));
        for (int i = 0; i < M; i++)
            for (int j = 0; j < M; j++) {
                double acc = 0;
                for (int k = 0; k < K; k++)
                    acc += (double)a[i * K + k] * a[j * K + k];
                want[i * M + j] = (float)acc;
            }
        cl_mem mmem = NULL;
        size_t moff = 0;
        CT_OK(clops_opencl_tensor_buffer(mm, &mmem, &moff));
        CT_ASSERT(clops_tensor_is_contiguous(mm));
        app_read(&p, mmem, moff, got, M * M);
        expect_close("mm", got, want, M * M, 1e-3f);
        /* A view written into the caller's second buffer: columns 2..5. */
        CT_OK(clops_narrow(ta, 1, 2, 4, &nar));
        CT_OK(clops_opencl_tensor_from_buffer(w, p.out, CLOPS_FLOAT32, 2, CT_I64(M, 4), NULL, 0,
                                              &tout));
        CT_OK(clops_copy_(tout, nar, false));
        float o[M * 4], owant[M * 4];
        for (int i = 0; i < M; i++)
            for (int j = 0; j < 4; j++)
                owant[i * 4 + j] = a[i * K + 2 + j];
        app_read(&p, p.out, 0, o, M * 4);
        expect_close("narrow", o, owant, M * 4, 0.0f);

        clops_tensor_release(nar);
        clops_tensor_release(mm);
        clops_tensor_release(tt);
        clops_tensor_release(sum);
        clops_tensor_release(ta);
        clops_tensor_release(tout);
        clFinish(p.queue);             /* (enqueued commands hold buffers too) */
        CT_ASSERT(refcount(p.a) == 1); /* clops' one reference is gone */
        app_close(&p);
    }
    ct_clear_context();
}

static void test_interop_errors_name_what_is_wrong(void **state)
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    clops_tensor *t = NULL;
    clops_device *w = NULL;
    /* NULL arguments. */
    CT_STATUS(clops_opencl_wrap_device(NULL, NULL, NULL, &w), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("context=NULL");
    CT_STATUS(clops_opencl_tensor_buffer(NULL, NULL, NULL), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_opencl_device_objects(ct_cpu(), NULL, NULL, NULL), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("not an OpenCL device");
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        app p, p2;
        app_open(devs[di], &p, false);
        app_open(devs[di], &p2, false);
        CT_STATUS(clops_opencl_wrap_device(p.ctx, p.dev, p.queue, NULL), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("out=NULL");
        /* A queue of another context. */
        CT_STATUS(clops_opencl_wrap_device(p.ctx, p.dev, p2.queue, &w), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("another context");
        CT_ASSERT(w == NULL);
        cl_int err = CL_SUCCESS;
        cl_command_queue ooo = clCreateCommandQueue(p.ctx, p.dev,
                                                    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        if (ooo) { /* devices without out-of-order queues refuse to make one */
            CT_STATUS(clops_opencl_wrap_device(p.ctx, p.dev, ooo, &w), CLOPS_INVALID_ARGUMENT);
            CT_ERROR_CONTAINS("out-of-order");
            clReleaseCommandQueue(ooo);
        }
        CT_OK(clops_opencl_wrap_device(p.ctx, p.dev, p.queue, &w));
        CT_STATUS(clops_opencl_tensor_from_buffer(w, NULL, CLOPS_FLOAT32, 1, CT_I64(4), NULL, 0, &t),
                  CLOPS_INVALID_ARGUMENT);
        /* A buffer of another context. */
        CT_STATUS(clops_opencl_tensor_from_buffer(w, p2.a, CLOPS_FLOAT32, 1, CT_I64(4), NULL, 0,
                                                  &t),
                  CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("another OpenCL context");
        /* The CPU device has no cl_mem. */
        CT_STATUS(clops_opencl_tensor_from_buffer(ct_cpu(), p.a, CLOPS_FLOAT32, 1, CT_I64(4), NULL,
                                                  0, &t),
                  CLOPS_INVALID_ARGUMENT);
        /* Too small: by size, by offset and by stride; one byte fits exactly. */
        CT_STATUS(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT32, 2, CT_I64(8, 8), NULL, 0,
                                                  &t),
                  CLOPS_INVALID_SHAPE);
        CT_ERROR_CONTAINS("holds 208 bytes but float32 needs 256");
        CT_STATUS(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT32, 1, CT_I64(NBUF), NULL, 1,
                                                  &t),
                  CLOPS_INVALID_SHAPE);
        CT_STATUS(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT32, 2, CT_I64(2, 2),
                                                  CT_I64(NBUF, 1), 0, &t),
                  CLOPS_INVALID_SHAPE);
        CT_STATUS(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT64, 1, CT_I64(4), NULL, -1,
                                                  &t),
                  CLOPS_INVALID_SHAPE);
        CT_ASSERT(t == NULL);
        clFinish(p.queue); /* (the fill kernel holds the buffer until it ran) */
        CT_ASSERT(refcount(p.a) == 1); /* no failed call kept a reference */
        CT_OK(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_UINT8, 1, CT_I64(NBUF * 4), NULL, 0,
                                              &t));
        CT_ASSERT(refcount(p.a) == 2); /* clops holds exactly one */
        /* A wrapped buffer has a fixed size, as PyTorch's from_blob storage. */
        CT_STATUS(clops_resize_(t, CT_I64(NBUF * 4 + 1), 1, -1), CLOPS_INVALID_ARGUMENT);
        CT_ERROR_CONTAINS("fixed");
        CT_OK(clops_resize_(t, CT_I64(8), 1, -1)); /* shrinking keeps the buffer */
        cl_mem m = NULL;
        CT_OK(clops_opencl_tensor_buffer(t, &m, NULL));
        CT_ASSERT(m == p.a);
        clops_tensor_release(t);
        t = NULL;
        clFinish(p.queue);
        CT_ASSERT(refcount(p.a) == 1);
        app_close(&p2);
        app_close(&p);
    }
    ct_clear_context();
}

/* The caller releases its own references first; clops' retains keep the
 * objects alive, and clops_shutdown (the group teardown) releases them. */
static void test_the_caller_may_release_its_objects_while_clops_uses_them(void **state)
{
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        app p;
        app_open(devs[di], &p, true);
        clops_device *w = NULL;
        clops_tensor *t = NULL, *u = NULL;
        CT_OK(clops_opencl_wrap_device(p.ctx, p.dev, p.queue, &w));
        CT_OK(clops_opencl_tensor_from_buffer(w, p.a, CLOPS_FLOAT32, 1, CT_I64(NBUF), NULL, 0, &t));
        app_close(&p); /* the caller's references are gone */
        CT_OK(clops_neg(t, &u));
        float got[NBUF];
        CT_OK(clops_tensor_to_host(u, got, sizeof got));
        for (int i = 0; i < NBUF; i++)
            CT_ASSERT_MSG(got[i] == -fill_value(i), "neg[%d]: got %g", i, (double)got[i]);
        clops_tensor_release(u);
        clops_tensor_release(t);
    }
    ct_clear_context();
}

/* CLOPS_TEST_FILTER (a cmocka glob) runs a subset: tests/run_valgrind.sh
 * runs the error test, which compiles no kernel, on every device. */
int main(void)
{
    const char *filter = getenv("CLOPS_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clops_ops_run_on_the_callers_context_queue_and_buffer),
        cmocka_unit_test(test_interop_errors_name_what_is_wrong),
        cmocka_unit_test(test_the_caller_may_release_its_objects_while_clops_uses_them),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
