/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/pw_emit_sources.c: writes the OpenCL programs the pointwise engine
 * generates at run time (codegen_pointwise/emit.c) into DIR/cl_kernels/, so
 * that tools/check_index_width.py can read them like the files of
 * cl_kernels/ (tests/check_pw_index_width.sh; docs/reliability.md).
 *
 * Usage: pw_emit_sources DIR [i64|i32] [all]
 *
 * For one op of each emission shape (a plain unary, a lanewise built-in, a
 * binary with a parameter, three operands with a bool condition or a
 * parameter, the cast; with `all`, every pointwise op: the unary family,
 * the binary family with its ternary ops, the cast), every common dtype it
 * takes among bool, uint8, int64, float16 and float32 (every dtype with
 * `all`), every rank class (0: the contiguous fast path, 1..PW_SPEC_RANKS
 * unrolled, PW_GENERIC_RANK), and every cast pair, it writes the program
 * that holds the kernel, as a CPU device (POCL: one chunked kernel per
 * signature, all dtypes in one program) and as a GPU (the same device record with is_gpu set and
 * chunked cleared: grid-stride kernels, one program per signature) would
 * build it, each program once.  i64 (the default) writes the 64-bit-index
 * kernels, which index any tensor; i32 the 32-bit ones, which the host
 * takes only when every offset fits (pw_make_plan's index64).
 * Prints the number of programs and kernels written.  Needs one OpenCL
 * device (it builds nothing).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clops/device.h"
#include "clops/ops.h"
#include "codegen_pointwise/ops_binary.h"
#include "codegen_pointwise/ops_unary.h"
#include "codegen_pointwise/pw.h"
#include "host/host.h"
#include "ops/kernels_generated.h"
#include "ops/kit/kit.h"

static const char *outdir;
static bool all; /* every op and dtype, not one op of each shape in 5 dtypes */
static int programs, kernels;
static char (*seen)[200];
static int nseen, capseen;

static int write_program(const pw_spec *s, const clops_device *d, const char *tag)
{
    char pname[160], fname[200];
    pw_program_name(s, d, pname, sizeof pname);
    snprintf(fname, sizeof fname, "%s-%s", tag, pname);
    for (char *c = fname; *c; c++)
        if (*c == '/' || *c == ' ')
            *c = '_';
    kernels++;
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i], fname) == 0)
            return 0;
    if (nseen == capseen) {
        capseen = capseen ? 2 * capseen : 256;
        seen = realloc(seen, sizeof *seen * (size_t)capseen);
        if (!seen)
            return 1;
    }
    snprintf(seen[nseen++], sizeof seen[0], "%s", fname);
    strbuf sb = STRBUF_INIT;
    clops_status st = pw_emit_program(s, d, &sb);
    if (st == CLOPS_OK)
        st = sb_finish(&sb, "pointwise source");
    if (st != CLOPS_OK) {
        fprintf(stderr, "pw_emit_sources: %s: %s\n", fname, clops_last_error());
        sb_free(&sb);
        return 1;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/cl_kernels/%s.cl", outdir, fname);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "pw_emit_sources: %s: %s\n", path, strerror(errno));
        sb_free(&sb);
        return 1;
    }
    fputs(sb_str(&sb), f);
    fclose(f);
    sb_free(&sb);
    programs++;
    return 0;
}

/* The dtypes of the sample: every element width (1, 2, 4, 8 bytes), bool,
 * unsigned, signed and floating classes. */
static bool sampled(clops_dtype dt)
{
    return all || dt == CLOPS_BOOL || dt == CLOPS_UINT8 || dt == CLOPS_INT64 ||
           dt == CLOPS_FLOAT16 || dt == CLOPS_FLOAT32;
}

static int emit_op(const pw_op *op, const clops_device *d, const char *tag, bool i64)
{
    static const int ranks[] = {0, 1, 2, 3, 4, PW_GENERIC_RANK};
    int bad = 0;
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
        if ((dt == CLOPS_FLOAT64 && !d->info.fp64) || !(op->dtypes & (1u << dt)) ||
            !sampled((clops_dtype)dt))
            continue;
        for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++) {
            pw_spec s;
            int rank = pw_kernel_rank(d, ranks[r] == 0, ranks[r] == 0 ? 1 : ranks[r]);
            if (!pw_standard_spec(op, (clops_dtype)dt, rank, i64, &s))
                continue;
            if (op->is_cast) {
                for (int to = 0; to < CLOPS_DTYPE_COUNT; to++) {
                    if ((to == CLOPS_FLOAT64 && !d->info.fp64) || !sampled((clops_dtype)to))
                        continue;
                    pw_spec c = s;
                    c.out_dtype = (clops_dtype)to;
                    c.compute = kit_compute_dtype((clops_dtype)to);
                    bad |= write_program(&c, d, tag);
                }
            } else {
                bad |= write_program(&s, d, tag);
            }
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || (argc >= 3 && strcmp(argv[2], "i64") && strcmp(argv[2], "i32")) ||
        (argc == 4 && strcmp(argv[3], "all"))) {
        fprintf(stderr, "usage: pw_emit_sources DIR [i64|i32] [all]\n");
        return 2;
    }
    outdir = argv[1];
    bool i64 = argc < 3 || strcmp(argv[2], "i64") == 0;
    all = argc == 4;
    char kdir[512];
    snprintf(kdir, sizeof kdir, "%s/cl_kernels", outdir);
    mkdir(outdir, 0777);
    mkdir(kdir, 0777);
    clops_device *d = NULL;
    int n = 0;
    if (clops_device_count(&n) != CLOPS_OK || n < 2 || clops_device_get(1, &d) != CLOPS_OK) {
        fprintf(stderr, "pw_emit_sources: no OpenCL device (%s)\n", clops_last_error());
        return 1;
    }
    /* The same record as a GPU would have it: emission reads is_gpu, the
     * chunked flag (KIT_CPU) and the vendor (program grouping). */
    clops_device gpu = *d;
    gpu.chunked = false;
    gpu.info.is_gpu = true;
    gpu.info.vendor = CLOPS_VENDOR_NVIDIA;
    const pw_op *const every[] = {
#define PW_EMIT_ONE(name) &pw_op_##name,
        PW_UNARY_OPS(PW_EMIT_ONE) PW_BINARY_OPS(PW_EMIT_ONE)
#undef PW_EMIT_ONE
            &pw_op_copy};
    /* One op of each emission shape: a plain unary, a lanewise built-in, a
     * binary with a parameter (a vector expression), a float parameter, a
     * bool condition among three operands, three operands with a
     * parameter, and the cast (every pair of the sampled dtypes). */
    const pw_op *const sample[] = {&pw_op_neg,   &pw_op_exp,     &pw_op_add, &pw_op_leaky_relu,
                                   &pw_op_where, &pw_op_addcmul, &pw_op_copy};
    const pw_op *const *ops = all ? every : sample;
    size_t nops = all ? sizeof every / sizeof every[0] : sizeof sample / sizeof sample[0];
    int bad = 0;
    for (size_t i = 0; i < nops; i++) {
        bad |= emit_op(ops[i], d, "cpu", i64);
        bad |= emit_op(ops[i], &gpu, "gpu", i64);
    }
    printf("pw_emit_sources: %d programs (%d kernels) of %zu ops (%s), %s indices, in %s\n",
           programs, kernels, nops, all ? "every op and dtype" : "one of each shape, 5 dtypes",
           i64 ? "64-bit" : "32-bit", kdir);
    free(seen);
    clops_shutdown();
    return bad;
}
