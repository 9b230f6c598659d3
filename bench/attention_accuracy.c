/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/attention_accuracy.c: clops' float32 attention forwards on one
 * OpenCL device on the same random inputs, written out for
 * bench/attention_accuracy.py, which compares them (and PyTorch's
 * memory-efficient kernel's) with a float64 reference (issue 30, attn14:
 * the 3xTF32 forward may replace the FMA kernel only where its error is no
 * worse than PyTorch's own float32 kernel's; docs/attention.md "The
 * float32 forward on the tensor cores").
 *
 *     attention_accuracy [--device SEL] [--b B] [--hq H] [--hkv H] [--l L] [--d D]
 *                        [--name NAME] --out DIR
 *
 * Query [B, Hq, L, D], key and value [B, Hkv, L, D] (N(0, 1), Box-Muller
 * from a fixed seed) go to DIR/q.f32, k.f32, v.f32; the causal forward
 * (scale 1/sqrt(D)) with attn_fwd_tf32 off (the FMA kernel, attn_fwd) to
 * DIR/o_fma.f32 and on (attention_set_tf32) to DIR/o_tf32.f32, with the
 * launch counters printed (a forward that fell back shows).  --name NAME:
 * only the 3xTF32 forward, to DIR/o_NAME.f32 (a run under other
 * CLOPS_ATTN_TF32_* settings beside the first, on the same inputs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_io.h"
#include "clops/ops.h"
#include "core/tensor_impl.h"
#include "host/host.h"
#include "ops/attention/attention.h"

#define PROG "attention_accuracy"

int main(int argc, char **argv)
{
    const char *sel = "nvidia", *out = NULL, *only = NULL;
    int64_t b = 8, hq = 12, hkv = 12, l = 1024, dh = 64;
    for (int i = 1; i < argc; i++) {
        int64_t *dst = strcmp(argv[i], "--b") == 0     ? &b
                       : strcmp(argv[i], "--hq") == 0  ? &hq
                       : strcmp(argv[i], "--hkv") == 0 ? &hkv
                       : strcmp(argv[i], "--l") == 0   ? &l
                       : strcmp(argv[i], "--d") == 0   ? &dh
                                                       : NULL;
        if (dst && i + 1 < argc)
            *dst = atoll(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            sel = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc && strlen(argv[i + 1]) < 16)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: attention_accuracy [--device SEL] [--b B] [--hq H] [--hkv H] "
                            "[--l L] [--d D] [--name NAME] --out DIR\n");
            return 2;
        }
    }
    if (!out || b < 1 || hq < 1 || hkv < 1 || hq % hkv || l < 1 || dh < 1 || b > 64 ||
        hq > 256 || l > 65536 || dh > 256 || b * hq * l * dh > ((int64_t)1 << 28)) {
        fprintf(stderr, "attention_accuracy: --out DIR and sizes within bounds (Hq a multiple of "
                        "Hkv, at most 2^28 query elements) needed\n");
        return 2;
    }
    clops_device *d = NULL;
    if (clops_device_find(sel, &d) != CLOPS_OK) {
        fprintf(stderr, "attention_accuracy: %s: %s\n", sel, clops_last_error());
        return 3;
    }
    size_t nq = (size_t)(b * hq * l * dh), nk = (size_t)(b * hkv * l * dh);
    float *q = malloc(nq * 4), *k = malloc(nk * 4), *v = malloc(nk * 4), *o = malloc(nq * 4);
    if (!q || !k || !v || !o)
        return 4;
    uint64_t s = 30;
    for (size_t i = 0; i < nq; i++)
        q[i] = (float)acc_normal(&s);
    for (size_t i = 0; i < nk; i++)
        k[i] = (float)acc_normal(&s);
    for (size_t i = 0; i < nk; i++)
        v[i] = (float)acc_normal(&s);
    if (acc_save(PROG, out, "q.f32", q, nq * 4) || acc_save(PROG, out, "k.f32", k, nk * 4) ||
        acc_save(PROG, out, "v.f32", v, nk * 4))
        return 5;
    int64_t sq[4] = {b, hq, l, dh}, sk[4] = {b, hkv, l, dh};
    clops_tensor *tq = NULL, *tk = NULL, *tv = NULL;
    clops_status st = clops_from_host(d, CLOPS_FLOAT32, 4, sq, q, nq * 4, &tq);
    if (!st)
        st = clops_from_host(d, CLOPS_FLOAT32, 4, sk, k, nk * 4, &tk);
    if (!st)
        st = clops_from_host(d, CLOPS_FLOAT32, 4, sk, v, nk * 4, &tv);
    if (st) {
        fprintf(stderr, "attention_accuracy: %s\n", clops_last_error());
        return 6;
    }
    printf("attention_accuracy: %s (%s), B %lld, Hq %lld, Hkv %lld, L %lld, D %lld, causal, "
           "N(0, 1) inputs\n",
           d->label, d->info.name, (long long)b, (long long)hq, (long long)hkv, (long long)l,
           (long long)dh);
    const char *const names[2] = {"fma", only ? only : "tf32"};
    for (int r = only ? 1 : 0; r < 2; r++) {
        attention_set_tf32(r);
        attn_stats s0, s1;
        attention_stats(&s0);
        clops_tensor *to = NULL, *tl = NULL, *tr = NULL;
        st = clops__fused_attention(tq, tk, tv, NULL, 0.0, true, NULL, NULL, false, &to, &tl, &tr);
        if (!st)
            st = clops_tensor_to_host(to, o, nq * 4);
        attention_stats(&s1);
        clops_tensor_release(to);
        clops_tensor_release(tl);
        clops_tensor_release(tr);
        if (st) {
            fprintf(stderr, "attention_accuracy: %s: %s\n", names[r], clops_last_error());
            return 7;
        }
        printf("%s: attn_fwd_tf32 %llu launches, its checks %llu (failed %llu)\n", names[r],
               (unsigned long long)(s1.fwd_tf32 - s0.fwd_tf32),
               (unsigned long long)(s1.tf32_checks - s0.tf32_checks),
               (unsigned long long)(s1.tf32_fails - s0.tf32_fails));
        char name[32];
        snprintf(name, sizeof name, "o_%s.f32", names[r]);
        if (acc_save(PROG, out, name, o, nq * 4))
            return 5;
    }
    attention_set_tf32(-1);
    clops_tensor_release(tq);
    clops_tensor_release(tk);
    clops_tensor_release(tv);
    free(q), free(k), free(v), free(o);
    clops_shutdown();
    return 0;
}
