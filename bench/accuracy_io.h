/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/accuracy_io.h: what the accuracy programs (gemm_accuracy.c,
 * attention_accuracy.c) share: their operands' generators (a 64-bit LCG,
 * uniform(0, 1) and N(0, 1) by Box-Muller: the same streams in both) and
 * the raw float32 files they write for their Python halves to read.
 * Header-only, bench programs only.
 */
#ifndef CLOPS_BENCH_ACCURACY_IO_H
#define CLOPS_BENCH_ACCURACY_IO_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static inline double acc_uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static inline double acc_normal(uint64_t *s)
{
    double u0 = acc_uniform(s), u1 = acc_uniform(s);
    return sqrt(-2 * log(u0)) * cos(6.283185307179586 * u1);
}

/* Writes bytes of p to dir/name; 0 on success, else 1 after a message
 * naming the program prog and the path. */
static inline int acc_save(const char *prog, const char *dir, const char *name, const void *p,
                           size_t bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) {
        fprintf(stderr, "%s: cannot write %s\n", prog, path);
        if (f)
            fclose(f);
        return 1;
    }
    return fclose(f) != 0;
}

#endif
