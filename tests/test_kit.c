/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_kit.c: the family kit (ops/kit/kit.h): the dtype table agrees
 * with the dtypes' sizes and kinds, the program assembler writes the parts
 * of a program in its documented order, the device-kind seam picks a
 * family's launch with its fallbacks, and on every OpenCL device the
 * prelude's CLOPS_LD/CLOPS_ST load and store every dtype as the host's
 * conversions do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "ops/kit/kit.h"
#include "support/clops_test.h"

/* Bytes of an OpenCL scalar type named in the table. */
static size_t cl_type_size(const char *t)
{
    static const struct {
        const char *name;
        size_t size;
    } types[] = {{"uchar", 1}, {"char", 1},   {"ushort", 2}, {"short", 2}, {"half", 2},
                 {"uint", 4},  {"int", 4},    {"float", 4},  {"ulong", 8}, {"long", 8},
                 {"double", 8}};
    for (size_t i = 0; i < CT_COUNT(types); i++)
        if (strcmp(types[i].name, t) == 0)
            return types[i].size;
    return 0;
}

static void test_dtype_table_matches_sizes_kinds_and_tags(void **state)
{
    (void)state;
    for (int i = 0; i < CLOPS_DTYPE_COUNT; i++) {
        clops_dtype dt = (clops_dtype)i;
        ct_set_case("%s", clops_dtype_name(dt));
        size_t size = clops_dtype_size(dt);
        CT_ASSERT(cl_type_size(kit_cl_storage(dt)) == size);
        CT_ASSERT(cl_type_size(kit_cl_bits(dt)) == size);
        CT_ASSERT(strcmp(kit_cl_bits(dt), "half") != 0);
        clops_dtype cd = kit_compute_dtype(dt);
        CT_ASSERT(strcmp(kit_cl_compute(dt), kit_cl_storage(cd)) == 0);
        CT_ASSERT(clops_dtype_is_floating(cd) == clops_dtype_is_floating(dt));
        CT_ASSERT(clops_dtype_size(cd) >= size);
        CT_ASSERT(cl_type_size(kit_cl_unsigned(dt)) == clops_dtype_size(cd));
        kit_ls ls = kit_load_store(dt);
        CT_ASSERT((ls == KIT_LS_HALF) == (dt == CLOPS_FLOAT16));
        CT_ASSERT((ls == KIT_LS_BF16) == (dt == CLOPS_BFLOAT16));
        for (int j = 0; j < i; j++)
            CT_ASSERT(strcmp(kit_dtype_tag(dt), kit_dtype_tag((clops_dtype)j)) != 0);
    }
    ct_set_case(NULL);
    CT_ASSERT(strcmp(kit_cl_storage(CLOPS_DTYPE_NONE), "void") == 0);
    CT_ASSERT(strcmp(kit_dtype_tag(CLOPS_DTYPE_COUNT), "xx") == 0);
}

static void test_load_and_store_spellings_follow_the_table(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    kit_cl_load(&sb, CLOPS_FLOAT16, "p", "i");
    kit_cl_store(&sb, CLOPS_BFLOAT16, "q", "j", "v");
    kit_cl_vload(&sb, CLOPS_INT32, 4, "p + k");
    CT_ASSERT(strcmp(sb_str(&sb), "vload_half(0, p + i)q[j] = clops_float_to_bf16(v)"
                                  "vload4(0, p + k)") == 0);
    sb_free(&sb);
}

/* write(): the program's defines. */
static clops_status write_test_defines(const void *ctx, const clops_device *d, strbuf *sb)
{
    (void)d;
    sb_printf(sb, "#define KIT_TEST %d\n", *(const int *)ctx);
    return CLOPS_OK;
}

/* copy(): copies 0 and 2 of the file, not 1. */
static bool write_test_copy(const void *ctx, int i, strbuf *sb)
{
    (void)ctx;
    if (i == 1)
        return false;
    sb_printf(sb, "#define KIT_COPY %d\n", i);
    return true;
}

/* Position of needle in hay (-1 when absent), and how often it occurs. */
static long find_at(const char *hay, const char *needle, int *count)
{
    const char *first = strstr(hay, needle);
    *count = 0;
    for (const char *p = first; p; p = strstr(p + 1, needle))
        (*count)++;
    return first ? (long)(first - hay) : -1;
}

/* Position of needle in hay, failing unless it occurs exactly once. */
static long find_once(const char *hay, const char *needle)
{
    int n;
    long at = find_at(hay, needle, &n);
    CT_ASSERT_MSG(n == 1, "'%s' occurs %d times", needle, n);
    return at;
}

static void test_program_source_has_its_parts_in_order(void **state)
{
    (void)state;
    int value = 7;
    kit_program p = {.name = "test/kit",
                     .title = "kit test program",
                     .headers = {"items.clh"},
                     .write = write_test_defines,
                     .file = "scan.cl",
                     .copies = 3,
                     .copy = write_test_copy,
                     .ctx = &value};
    strbuf sb = STRBUF_INIT;
    CT_OK(kit_program_source(&p, NULL, &sb));
    const char *s = sb_str(&sb);
    int n;
    CT_ASSERT(strncmp(s, "/* kit test program */\n", 23) == 0);
    long prelude = find_once(s, "#line 1 \"pw_prelude.clh\"\n");
    long items = find_once(s, "#line 1 \"items.clh\"\n");
    long defs = find_once(s, "#define KIT_TEST 7\n");
    long copy0 = find_once(s, "#define KIT_COPY 0\n");
    long copy2 = find_once(s, "#define KIT_COPY 2\n");
    find_once(s, "#define CLOPS_LD(ls, CT, p, i)");
    long file = find_at(s, "#line 1 \"scan.cl\"\n", &n);
    CT_ASSERT(n == 2);
    find_at(s, "#define KIT_COPY 1\n", &n);
    CT_ASSERT(n == 0);
    CT_ASSERT(prelude > 0 && prelude < items && items < defs && defs < copy0 && copy0 < file &&
              file < copy2);
    sb_free(&sb);

    /* bare: no prelude; no file: only what write() appends */
    kit_program bare = {.name = "test/bare", .bare = true, .write = write_test_defines,
                        .ctx = &value};
    CT_OK(kit_program_source(&bare, NULL, &sb));
    CT_ASSERT(strcmp(sb_str(&sb), "#define KIT_TEST 7\n") == 0);
    sb_free(&sb);

    /* a missing file is an error naming it */
    kit_program missing = {.name = "test/missing", .file = "no_such_file.cl"};
    CT_ASSERT(kit_program_source(&missing, NULL, &sb) != CLOPS_OK);
    CT_ERROR_CONTAINS("no_such_file.cl");
    sb_free(&sb);
}

static int launched;

static clops_status launch_host(void *plan)
{
    (void)plan;
    launched = KIT_HOST;
    return CLOPS_OK;
}

static clops_status launch_cpu(void *plan)
{
    (void)plan;
    launched = KIT_CPU;
    return CLOPS_OK;
}

static clops_status launch_gpu(void *plan)
{
    *(int *)plan += 1;
    launched = KIT_GPU;
    return CLOPS_OK;
}

static void test_kind_seam_picks_the_launch_of_the_device_kind(void **state)
{
    (void)state;
    clops_device host, cpu, gpu;
    memset(&host, 0, sizeof host);
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    snprintf(host.label, sizeof host.label, "cpu");
    snprintf(cpu.label, sizeof cpu.label, "opencl:0");
    snprintf(gpu.label, sizeof gpu.label, "opencl:1");
    host.info.type = CLOPS_DEVICE_CPU;
    cpu.info.type = gpu.info.type = CLOPS_DEVICE_OPENCL;
    cpu.chunked = true;
    CT_ASSERT(kit_kind_of(&host) == KIT_HOST && kit_is_host(&host));
    CT_ASSERT(kit_kind_of(&cpu) == KIT_CPU && kit_is_cpu(&cpu));
    CT_ASSERT(kit_kind_of(&gpu) == KIT_GPU && !kit_is_cpu(&gpu) && !kit_is_host(&gpu));

    const kit_launches all = {
        "test", {[KIT_HOST] = launch_host, [KIT_CPU] = launch_cpu, [KIT_GPU] = launch_gpu}};
    int plan = 0;
    CT_OK(kit_run(&all, &host, &plan));
    CT_ASSERT(launched == KIT_HOST);
    CT_OK(kit_run(&all, &cpu, &plan));
    CT_ASSERT(launched == KIT_CPU);
    CT_OK(kit_run(&all, &gpu, &plan));
    CT_ASSERT(launched == KIT_GPU && plan == 1);

    /* no CPU launch: CPU-like devices run the GPU one; no host launch: an
     * error naming the family and the device */
    const kit_launches gpu_only = {"testfamily", {[KIT_GPU] = launch_gpu}};
    CT_ASSERT(kit_pick(&gpu_only, &cpu) == launch_gpu);
    CT_ASSERT(kit_pick(&gpu_only, &host) == NULL);
    CT_STATUS(kit_run(&gpu_only, &host, &plan), CLOPS_UNSUPPORTED);
    CT_ERROR_CONTAINS("testfamily");
    CT_ERROR_CONTAINS("cpu");
}

/* The kernel of the load/store test: y[i] = 3 * x[i] through CLOPS_LD and
 * CLOPS_ST, and f[i] = the loaded value as float. */
static clops_status write_ldst_kernel(const void *ctx, const clops_device *d, strbuf *sb)
{
    (void)d;
    clops_dtype dt = *(const clops_dtype *)ctx;
    sb_printf(sb,
              "#define T %s\n#define CT %s\n#define LS %d\n"
              "__kernel void kit_ldst(__global const T *x, __global T *y, __global float *f)\n"
              "{\n"
              "    size_t i = get_global_id(0);\n"
              "    CT v = CLOPS_LD(LS, CT, x, i);\n"
              "    f[i] = (float)v;\n"
              "    CLOPS_ST(LS, T, CT, y, i, v * (CT)3);\n"
              "}\n",
              kit_cl_storage(dt), kit_cl_compute(dt), (int)kit_load_store(dt));
    return CLOPS_OK;
}

/* Element i of a host array of dtype dt as float, and 3 * it stored back
 * in dt (the host's conversions). */
static float host_value(const void *buf, clops_dtype dt, int64_t i)
{
    switch (dt) {
    case CLOPS_FLOAT16: return clops_half_to_float(((const uint16_t *)buf)[i]);
    case CLOPS_BFLOAT16: return clops_bfloat16_to_float(((const uint16_t *)buf)[i]);
    case CLOPS_FLOAT32: return ((const float *)buf)[i];
    case CLOPS_FLOAT64: return (float)((const double *)buf)[i];
    default: return (float)((const int32_t *)buf)[i];
    }
}

static bool host_doubled_equal(const void *x, const void *y, clops_dtype dt, int64_t i)
{
    switch (dt) {
    case CLOPS_FLOAT16: {
        uint16_t want =
            clops_float_to_half(3.0f * clops_half_to_float(((const uint16_t *)x)[i]));
        return ((const uint16_t *)y)[i] == want || (isnan(host_value(y, dt, i)) &&
                                                    isnan(clops_half_to_float(want)));
    }
    case CLOPS_BFLOAT16: {
        uint16_t want =
            clops_float_to_bfloat16(3.0f * clops_bfloat16_to_float(((const uint16_t *)x)[i]));
        return ((const uint16_t *)y)[i] == want || (isnan(host_value(y, dt, i)) &&
                                                    isnan(clops_bfloat16_to_float(want)));
    }
    case CLOPS_FLOAT32: {
        float want = 3.0f * ((const float *)x)[i], got = ((const float *)y)[i];
        return got == want || (isnan(got) && isnan(want));
    }
    case CLOPS_FLOAT64: {
        double want = 3.0 * ((const double *)x)[i], got = ((const double *)y)[i];
        return got == want || (isnan(got) && isnan(want));
    }
    default:
        return ((const int32_t *)y)[i] == 3 * ((const int32_t *)x)[i];
    }
}

static void test_every_device_loads_and_stores_through_the_prelude(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const clops_dtype dts[] = {CLOPS_FLOAT16, CLOPS_BFLOAT16, CLOPS_FLOAT32,
                                      CLOPS_FLOAT64, CLOPS_INT32};
    enum { N = 4096 };
    for (int di = 0; di < nd; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        for (size_t t = 0; t < CT_COUNT(dts); t++) {
            clops_dtype dt = dts[t];
            if (!ct_device_supports(d, dt))
                continue;
            ct_set_case("%s", clops_dtype_name(dt));
            size_t es = clops_dtype_size(dt);
            unsigned char *x = malloc(N * es), *y = malloc(N * es);
            float *f = malloc(N * sizeof *f);
            CT_ASSERT(x && y && f);
            /* 16-bit types: one random pattern of every block of 16 (every
             * exponent, NaN and infinity); others: random values (int32 in
             * +-1e6, so tripling does not overflow) */
            ct_rng r = ct_rng_seeded(28 + t);
            for (int64_t i = 0; i < N; i++) {
                uint64_t u = ct_rng_next(&r);
                if (es == 2) {
                    uint16_t b = (uint16_t)(i * 16 + (int64_t)(u & 15));
                    memcpy(x + i * es, &b, 2);
                } else if (dt == CLOPS_INT32) {
                    int32_t v = (int32_t)(u % 2000001u) - 1000000;
                    memcpy(x + i * es, &v, 4);
                } else if (dt == CLOPS_FLOAT32) {
                    float v = (float)((double)(int64_t)(u >> 11) * 0x1p-40);
                    memcpy(x + i * es, &v, 4);
                } else {
                    double v = (double)(int64_t)(u >> 11) * 0x1p-40;
                    memcpy(x + i * es, &v, 8);
                }
            }
            host_kkey key = {{0x7E57ull << 48 | (uint64_t)dt, 0, 0, 0x6b6974ull}};
            char name[48];
            snprintf(name, sizeof name, "test/kit_ldst_%s", clops_dtype_name(dt));
            kit_program p = {.name = name, .write = write_ldst_kernel, .ctx = &dt};
            host_kernel *k = NULL;
            host_block *bx = NULL, *by = NULL, *bf = NULL;
            CT_OK(kit_kernel(d, &key, &p, "kit_ldst", 0, "kit test", &k));
            CT_OK(host_alloc(d, N * es, &bx));
            CT_OK(host_alloc(d, N * es, &by));
            CT_OK(host_alloc(d, N * sizeof *f, &bf));
            if (k && bx && by && bf) {
                CT_OK(host_write(d, bx->mem, 0, x, N * es));
                host_arg args[3] = {{sizeof(cl_mem), &bx->mem},
                                    {sizeof(cl_mem), &by->mem},
                                    {sizeof(cl_mem), &bf->mem}};
                CT_OK(host_launch(d, k, 3, args, N));
                CT_OK(host_read(d, by->mem, 0, y, N * es));
                CT_OK(host_read(d, bf->mem, 0, f, N * sizeof *f));
                CT_OK(host_finish(d));
                int bad = 0;
                for (int64_t i = 0; i < N && bad < 5; i++) {
                    float want = host_value(x, dt, i);
                    bool load_ok = f[i] == want || (isnan(f[i]) && isnan(want));
                    if (!load_ok || !host_doubled_equal(x, y, dt, i)) {
                        ct_fail("element %lld: loaded %a (host %a)%s", (long long)i,
                                (double)f[i], (double)want,
                                load_ok ? ", stored 3x differs from the host's" : "");
                        bad++;
                    }
                }
            }
            host_free(bx);
            host_free(by);
            host_free(bf);
            free(x);
            free(y);
            free(f);
        }
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_table_matches_sizes_kinds_and_tags),
        cmocka_unit_test(test_load_and_store_spellings_follow_the_table),
        cmocka_unit_test(test_program_source_has_its_parts_in_order),
        cmocka_unit_test(test_kind_seam_picks_the_launch_of_the_device_kind),
        cmocka_unit_test(test_every_device_loads_and_stores_through_the_prelude),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
