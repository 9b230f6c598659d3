/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cl_kernels/random.cl: the kernels of the random family (ops/random/random.c).
 *
 * The host builds one program per device from random_math.clh,
 * random_dist.clh and this file, in that order.  Every kernel walks the
 * Philox counters of its output with a grid-stride loop: counter ci serves
 * elements ci*E .. ci*E+E-1 (E = 4 or 2, see random_dist.clh), so the values
 * depend on (seed, offset, element index) only, never on the launch
 * geometry.  Outputs are contiguous: `out + out_off`, n elements.  Kernel
 * names: rnd_<dist>_<storage>; the storage suffixes are the dtype names.
 *
 * Contraction is off (random_math.clh) and no builtin with an error bound is
 * called, so the results equal the CPU reference's bit for bit.
 */
#ifdef CLOPS_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Conversions from the compute value to the storage type. */
#define CV_float32(x) (x)
#define CV_float16(x) ((ushort)rnd_f32_to_f16(x))
#define CV_bfloat16(x) ((ushort)rnd_f32_to_bf16(x))
/* From a 64-bit integer value. */
#define IV_bool(x) ((uchar)((x) != 0))
#define IV_uint8(x) ((uchar)(x))
#define IV_int8(x) ((char)(x))
#define IV_int16(x) ((short)(x))
#define IV_int32(x) ((int)(x))
#define IV_int64(x) ((long)(x))
#define IV_float16(x) ((ushort)rnd_f32_to_f16((float)(x)))
#define IV_bfloat16(x) ((ushort)rnd_f32_to_bf16((float)(x)))
#define IV_float32(x) ((float)(x))
#define IV_float64(x) ((double)(x))

/* Stores 4 (or the remaining) converted values at element base. */
#define RND_STORE4(out, base, n, ST, VT, CONV, v)                                                \
    if ((base) + 4 <= (n)) {                                                                     \
        vstore4((VT)(CONV(v[0]), CONV(v[1]), CONV(v[2]), CONV(v[3])), 0, (out) + (base));        \
    } else {                                                                                     \
        for (int j = 0; j < 4; j++)                                                              \
            if ((base) + (ulong)j < (n))                                                         \
                (out)[(base) + (ulong)j] = CONV(v[j]);                                           \
    }

#define RND_STORE2(out, base, n, ST, VT, CONV, v)                                                \
    if ((base) + 2 <= (n)) {                                                                     \
        vstore2((VT)(CONV(v[0]), CONV(v[1])), 0, (out) + (base));                                \
    } else if ((base) < (n)) {                                                                   \
        (out)[base] = CONV(v[0]);                                                                \
    }

/* A float32-compute distribution into a float32/float16/bfloat16 output. */
#ifdef CLOPS_CHUNKED
/* CPU devices (CLOPS_CHUNKED, cl_kernels/items.clh): the item's contiguous
 * run of counters in two loops, first the counters whose four elements all
 * lie below n, stored without a test, then the last, partial one (float16
 * uniform 50 -> 29 ms, normal 100 -> 87 ms CPU time against one loop with
 * the test, POCL 3.1).  Each element is the same function of its counter
 * as in the GPU loop below (same bits). */
#define RND_FCOUNTER(ci, DIST, DIGITS)                                                           \
    uint w[4];                                                                                   \
    float v[4];                                                                                  \
    rnd_philox(offset + (ci), k0, k1, w);                                                        \
    rnd_blockf(DIST, w, a, b, c, DIGITS, v);
/* Philox4x32-10 of the 8 counters ctr .. ctr+7 as vectors (rnd_philox4,
 * the multiplies' halves from one 64-bit product each), and float32
 * uniform's values of those 32 elements stored in element order: 8
 * counters per step where the scalar loop did one (the compiler does not
 * vectorise that loop across counters). */
void rnd_philox8(ulong ctr, uint k0, uint k1, uint8 *w0, uint8 *w1, uint8 *w2, uint8 *w3)
{
    ulong8 cv = (ulong8)(ctr) + (ulong8)(0, 1, 2, 3, 4, 5, 6, 7);
    uint8 c0 = convert_uint8(cv), c1 = convert_uint8(cv >> 32), c2 = (uint8)(0u), c3 = c2;
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += RND_PHILOX_W0;
            k1 += RND_PHILOX_W1;
        }
        ulong8 p0 = convert_ulong8(c0) * (ulong)RND_PHILOX_M0;
        ulong8 p1 = convert_ulong8(c2) * (ulong)RND_PHILOX_M1;
        c0 = convert_uint8(p1 >> 32) ^ c1 ^ (uint8)(k0);
        c1 = convert_uint8(p1);
        c2 = convert_uint8(p0 >> 32) ^ c3 ^ (uint8)(k1);
        c3 = convert_uint8(p0);
    }
    *w0 = c0;
    *w1 = c1;
    *w2 = c2;
    *w3 = c3;
}

/* rnd_blockf's uniform of 8 words (rnd_u01f, or rnd_u01f_digits for
 * float16/bfloat16, times b plus a; a where that reaches c). */
float8 rnd_uniform8(uint8 w, float a, float b, float c, int digits)
{
    float8 u = digits == 24 ? convert_float8(w >> 8) * 5.9604644775390625e-8f
                            : convert_float8(w >> (uint)(32 - digits)) *
                                  as_float((uint)(127 - digits) << 23);
    float8 x = u * b + a;
    return select(x, (float8)(a), x >= (float8)(c));
}

/* rnd_divf, rnd_sqrtf, rnd_logf, rnd_sincos_quarterf and rnd_normal2f of
 * random_math.clh on 8 lanes: the same operations in the same order per
 * lane (branches as selects), so each lane's value is the scalar
 * function's, bit for bit (contraction is off in this program too). */
RND_FN float8 rnd_divf8(float8 a, float8 b)
{
    float8 r = as_float8((uint8)(0x7EF311C7u) - as_uint8(b));
    for (int i = 0; i < 3; i++) {
        float8 e = fma(-b, r, (float8)(1.0f));
        r = fma(r, e, r);
    }
    float8 q = a * r;
    float8 rem = fma(-b, q, a);
    return fma(rem, r, q);
}

RND_FN float8 rnd_sqrtf8(float8 x)
{
    float8 y = as_float8((uint8)(0x5F3759DFu) - (as_uint8(x) >> 1));
    for (int i = 0; i < 3; i++) {
        float8 t = y * y;
        float8 e = fma(-x, t, (float8)(1.0f));
        y = fma(y * 0.5f, e, y);
    }
    float8 s = x * y;
    float8 r = fma(-s, s, x);
    return fma(r, y * 0.5f, s);
}

RND_FN float8 rnd_logf8(float8 x)
{
    uint8 u = as_uint8(x);
    int8 e = convert_int8(u >> 23) - 127;
    float8 m = as_float8((u & 0x7FFFFFu) | 0x3F800000u);
    int8 big = m > 1.41421356f; /* -1 where true */
    m = select(m, m * 0.5f, big);
    e -= big;
    float8 s = rnd_divf8(m - 1.0f, m + 1.0f);
    float8 z = s * s;
    float8 p = (float8)(0.09090909090909091f);
    p = fma(p, z, (float8)(0.1111111111111111f));
    p = fma(p, z, (float8)(0.14285714285714285f));
    p = fma(p, z, (float8)(0.2f));
    p = fma(p, z, (float8)(0.3333333333333333f));
    float8 s2 = s * 2.0f;
    float8 r = fma(s2 * z, p, s2);
    float8 ef = convert_float8(e);
    return fma(ef, (float8)(0.693145751953125f), fma(ef, (float8)(1.428606820309417e-06f), r));
}

RND_FN void rnd_sincos_quarterf8(uint8 q, float8 f, float8 *s_out, float8 *c_out)
{
    int8 swap = f > 0.5f;
    f = select(f, 1.0f - f, swap);
    float8 x = f * 1.5707963267948966f;
    float8 z = x * x;
    float8 ps = (float8)(2.7557319223985893e-06f);
    ps = fma(ps, z, (float8)(-1.984126984126984e-04f));
    ps = fma(ps, z, (float8)(8.333333333333333e-03f));
    ps = fma(ps, z, (float8)(-0.16666666666666666f));
    float8 s0 = fma(x * z, ps, x);
    float8 pc = (float8)(-2.755731922398589e-07f);
    pc = fma(pc, z, (float8)(2.48015873015873e-05f));
    pc = fma(pc, z, (float8)(-1.388888888888889e-03f));
    pc = fma(pc, z, (float8)(4.1666666666666664e-02f));
    pc = fma(pc, z, (float8)(-0.5f));
    float8 c0 = fma(z, pc, (float8)(1.0f));
    float8 s = select(s0, c0, swap), c = select(c0, s0, swap);
    int8 q0 = q == 0u, q1 = q == 1u, q2 = q == 2u;
    *s_out = select(select(select(-c, -s, q2), c, q1), s, q0);
    *c_out = select(select(select(s, -c, q2), -s, q1), c, q0);
}

/* rnd_blockf's normal (a = mean, b = std) of counters ctr .. ctr+7: words
 * (w0, w1) give elements 0 and 1 of each counter, (w2, w3) 2 and 3. */
RND_FN void rnd_normal8(uint8 w0, uint8 w1, uint8 w2, uint8 w3, float a, float b, float8 *v0,
                        float8 *v1, float8 *v2, float8 *v3)
{
    uint8 wa[2] = {w0, w2}, wb[2] = {w1, w3};
    float8 z[4];
    for (int h = 0; h < 2; h++) {
        float8 u = convert_float8(((wa[h] >> 9) << 1) | 1u) * 5.9604644775390625e-8f;
        float8 r = rnd_sqrtf8(-2.0f * rnd_logf8(u));
        float8 s, c;
        rnd_sincos_quarterf8(wb[h] >> 30, convert_float8((wb[h] >> 6) & 0xFFFFFFu) *
                                              5.9604644775390625e-8f,
                             &s, &c);
        z[2 * h] = r * c;
        z[2 * h + 1] = r * s;
    }
    *v0 = z[0] * b + a;
    *v1 = z[1] * b + a;
    *v2 = z[2] * b + a;
    *v3 = z[3] * b + a;
}

/* The 32 values of counters ctr .. ctr+7 (float32 uniform or normal: DIST)
 * in element order into out (a float32 output, or a private array for the
 * other storages). */
#define RND_VALUES8(out, DIST, ctr, k0, k1, a, b, c, digits)                                     \
    {                                                                                            \
        uint8 w0_, w1_, w2_, w3_;                                                                \
        float8 v0_, v1_, v2_, v3_;                                                               \
        rnd_philox8((ctr), (k0), (k1), &w0_, &w1_, &w2_, &w3_);                                  \
        if (DIST == RND_NORMAL) {                                                                \
            rnd_normal8(w0_, w1_, w2_, w3_, a, b, &v0_, &v1_, &v2_, &v3_);                       \
        } else {                                                                                 \
            v0_ = rnd_uniform8(w0_, a, b, c, digits);                                            \
            v1_ = rnd_uniform8(w1_, a, b, c, digits);                                            \
            v2_ = rnd_uniform8(w2_, a, b, c, digits);                                            \
            v3_ = rnd_uniform8(w3_, a, b, c, digits);                                            \
        }                                                                                        \
        const uint8 lo_ = (uint8)(0, 8, 1, 9, 2, 10, 3, 11);                                     \
        const uint8 hi_ = (uint8)(4, 12, 5, 13, 6, 14, 7, 15);                                   \
        const uint8 pl_ = (uint8)(0, 1, 8, 9, 2, 3, 10, 11);                                     \
        const uint8 ph_ = (uint8)(4, 5, 12, 13, 6, 7, 14, 15);                                   \
        float8 t0_ = shuffle2(v0_, v1_, lo_), t1_ = shuffle2(v2_, v3_, lo_);                     \
        float8 t2_ = shuffle2(v0_, v1_, hi_), t3_ = shuffle2(v2_, v3_, hi_);                     \
        vstore8(shuffle2(t0_, t1_, pl_), 0, out);                                                \
        vstore8(shuffle2(t0_, t1_, ph_), 1, out);                                                \
        vstore8(shuffle2(t2_, t3_, pl_), 2, out);                                                \
        vstore8(shuffle2(t2_, t3_, ph_), 3, out);                                                \
    }

#define RND_FKERNEL(NAME, DIST, ST, VT, CONV, DIGITS)                                            \
    __kernel void NAME(__global ST *out, ulong out_off, ulong n, ulong offset, uint k0, uint k1,  \
                       float a, float b, float c)                                                \
    {                                                                                            \
        out += out_off;                                                                          \
        ulong nc = (n + 3) >> 2, per = (nc + get_global_size(0) - 1) / get_global_size(0);       \
        ulong c0 = min((ulong)get_global_id(0) * per, nc), c1 = min(c0 + per, nc);               \
        ulong f1 = max(min(c1, n >> 2), c0);                                                     \
        if ((DIST == RND_UNIFORM || DIST == RND_NORMAL) && DIGITS == 24 && sizeof(ST) == 4) {   \
            for (; c0 + 8 <= f1; c0 += 8)                                                        \
                RND_VALUES8((__global float *)out + (c0 << 2), DIST, offset + c0, k0, k1, a, b,  \
                            c, 24)                                                               \
        } else if (DIST == RND_UNIFORM || DIST == RND_NORMAL) {                                  \
            for (; c0 + 8 <= f1; c0 += 8) {                                                      \
                float t[32];                                                                     \
                RND_VALUES8(t, DIST, offset + c0, k0, k1, a, b, c, DIGITS)                       \
                for (int e = 0; e < 32; e++)                                                     \
                    out[(c0 << 2) + (ulong)e] = CONV(t[e]);                                      \
            }                                                                                    \
        }                                                                                        \
        for (ulong ci = c0; ci < f1; ci++) {                                                     \
            RND_FCOUNTER(ci, DIST, DIGITS)                                                       \
            for (int j = 0; j < 4; j++)                                                          \
                out[(ci << 2) + (ulong)j] = CONV(v[j]);                                          \
        }                                                                                        \
        for (ulong ci = f1; ci < c1; ci++) {                                                     \
            RND_FCOUNTER(ci, DIST, DIGITS)                                                       \
            ulong base = ci << 2;                                                                \
            RND_STORE4(out, base, n, ST, VT, CONV, v)                                            \
        }                                                                                        \
    }
#else
#define RND_FKERNEL(NAME, DIST, ST, VT, CONV, DIGITS)                                            \
    __kernel void NAME(__global ST *out, ulong out_off, ulong n, ulong offset, uint k0, uint k1,  \
                       float a, float b, float c)                                                \
    {                                                                                            \
        out += out_off;                                                                          \
        ulong nc = (n + 3) >> 2;                                                                 \
        CLOPS_ITEMS(ulong, ci, nc) {                                                            \
            uint w[4];                                                                           \
            float v[4];                                                                          \
            rnd_philox(offset + ci, k0, k1, w);                                                  \
            rnd_blockf(DIST, w, a, b, c, DIGITS, v);                                             \
            ulong base = ci << 2;                                                                \
            RND_STORE4(out, base, n, ST, VT, CONV, v)                                            \
        }                                                                                        \
    }
#endif

/* geometric_ computes in float32 and stores integers (or floats) through
 * a saturating conversion to a 64-bit integer. */
#define GV(IV, x) IV(rnd_f32_to_i64(x))
#define GV_bool(x) GV(IV_bool, x)
#define GV_uint8(x) GV(IV_uint8, x)
#define GV_int8(x) GV(IV_int8, x)
#define GV_int16(x) GV(IV_int16, x)
#define GV_int32(x) GV(IV_int32, x)
#define GV_int64(x) GV(IV_int64, x)
#define GV_float16(x) GV(IV_float16, x)
#define GV_bfloat16(x) GV(IV_bfloat16, x)
#define GV_float32(x) GV(IV_float32, x)

/* An integer distribution (ranges, Bernoulli) into any output. */
#define RND_IKERNEL(NAME, DIST, ST, VT, CONV)                                                    \
    __kernel void NAME(__global ST *out, ulong out_off, ulong n, ulong offset, uint k0, uint k1,  \
                       ulong ia, ulong ib)                                                       \
    {                                                                                            \
        out += out_off;                                                                          \
        int per = DIST == RND_RANGE64 ? 2 : 4;                                                   \
        ulong nc = (n + (ulong)per - 1) / (ulong)per;                                            \
        CLOPS_ITEMS(ulong, ci, nc) {                                                            \
            uint w[4];                                                                           \
            long v[4];                                                                           \
            rnd_philox(offset + ci, k0, k1, w);                                                  \
            rnd_blocki(DIST, w, ia, ib, v);                                                      \
            ulong base = ci * (ulong)per;                                                        \
            if (DIST == RND_RANGE64) {                                                           \
                RND_STORE2(out, base, n, ST, VT##2, CONV, v)                                     \
            } else {                                                                             \
                RND_STORE4(out, base, n, ST, VT##4, CONV, v)                                     \
            }                                                                                    \
        }                                                                                        \
    }

/* native_dropout: out = (in * keep) * scale, mask = keep, with keep = word >=
 * threshold (threshold = floor(p * 2^32)), float32 compute.  Full blocks of
 * 4 use vector loads and stores.  The product with the 0/1 mask is spelled
 * out (RND_KEEP): a dropped -x is -0 and a dropped inf or NaN is NaN, as
 * PyTorch's multiplication gives; written as x * m, NVIDIA's compiler turns
 * it into a select that yields +0 (found by test_random on an H100). */
#define RND_KEEP(keep, x, ZERO) ((keep) ? (x) : (isfinite(x) ? copysign(ZERO, (x)) : (x) * ZERO))
#define RND_DROPOUT_ONE(j, xin, thr, scale, LOAD, CONV, r, mk)                                   \
    {                                                                                            \
        bool k_ = (ulong)w[j] >= (thr);                                                          \
        float x_ = LOAD(xin);                                                                    \
        x_ = RND_KEEP(k_, x_, 0.0f);                                                             \
        r[j] = CONV(x_ * (scale));                                                               \
        mk[j] = (uchar)k_;                                                                       \
    }

#define RND_DROPOUT_KERNEL(NAME, ST, VT, LOAD, CONV)                                             \
    __kernel void NAME(__global const ST *in, ulong in_off, __global ST *out, ulong out_off,     \
                       __global uchar *mask, ulong mask_off, ulong n, ulong offset, uint k0,     \
                       uint k1, ulong thr, float scale)                                          \
    {                                                                                            \
        in += in_off;                                                                            \
        out += out_off;                                                                          \
        mask += mask_off;                                                                        \
        ulong nc = (n + 3) >> 2;                                                                 \
        CLOPS_ITEMS(ulong, ci, nc) {                                                            \
            uint w[4];                                                                           \
            ST r[4];                                                                             \
            uchar mk[4];                                                                         \
            rnd_philox(offset + ci, k0, k1, w);                                                  \
            ulong base = ci << 2;                                                                \
            if (base + 4 <= n) {                                                                 \
                VT x = vload4(0, in + base);                                                     \
                RND_DROPOUT_ONE(0, x.s0, thr, scale, LOAD, CONV, r, mk)                          \
                RND_DROPOUT_ONE(1, x.s1, thr, scale, LOAD, CONV, r, mk)                          \
                RND_DROPOUT_ONE(2, x.s2, thr, scale, LOAD, CONV, r, mk)                          \
                RND_DROPOUT_ONE(3, x.s3, thr, scale, LOAD, CONV, r, mk)                          \
                vstore4((VT)(r[0], r[1], r[2], r[3]), 0, out + base);                            \
                vstore4((uchar4)(mk[0], mk[1], mk[2], mk[3]), 0, mask + base);                   \
            } else {                                                                             \
                for (int j = 0; j < 4; j++) {                                                    \
                    ulong i = base + (ulong)j;                                                   \
                    if (i < n) {                                                                 \
                        RND_DROPOUT_ONE(j, in[i], thr, scale, LOAD, CONV, r, mk)                 \
                        out[i] = r[j];                                                           \
                        mask[i] = mk[j];                                                         \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }

#define LD_float32(x) (x)
#define LD_float16(x) rnd_f16_to_f32(x)
#define LD_bfloat16(x) rnd_bf16_to_f32(x)

/* The float32-compute distributions for each float32-compute storage. */
#define RND_F_FOR(DIST, dname)                                                                   \
    RND_FKERNEL(rnd_##dname##_float32, DIST, float, float4, CV_float32, 24)                      \
    RND_FKERNEL(rnd_##dname##_float16, DIST, ushort, ushort4, CV_float16, 11)                    \
    RND_FKERNEL(rnd_##dname##_bfloat16, DIST, ushort, ushort4, CV_bfloat16, 8)

RND_F_FOR(RND_UNIFORM, uniform)
RND_F_FOR(RND_NORMAL, normal)
RND_F_FOR(RND_LOG_NORMAL, log_normal)
RND_F_FOR(RND_EXPONENTIAL, exponential)
RND_F_FOR(RND_CAUCHY, cauchy)

#define RND_G(st, T, VT) RND_FKERNEL(rnd_geometric_##st, RND_GEOMETRIC, T, VT, GV_##st, 24)
RND_G(bool, uchar, uchar4)
RND_G(uint8, uchar, uchar4)
RND_G(int8, char, char4)
RND_G(int16, short, short4)
RND_G(int32, int, int4)
RND_G(int64, long, long4)
RND_G(float16, ushort, ushort4)
RND_G(bfloat16, ushort, ushort4)
RND_G(float32, float, float4)

#define RND_I_FOR(DIST, dname)                                                                   \
    RND_IKERNEL(rnd_##dname##_bool, DIST, uchar, uchar, IV_bool)                                 \
    RND_IKERNEL(rnd_##dname##_uint8, DIST, uchar, uchar, IV_uint8)                               \
    RND_IKERNEL(rnd_##dname##_int8, DIST, char, char, IV_int8)                                   \
    RND_IKERNEL(rnd_##dname##_int16, DIST, short, short, IV_int16)                               \
    RND_IKERNEL(rnd_##dname##_int32, DIST, int, int, IV_int32)                                   \
    RND_IKERNEL(rnd_##dname##_int64, DIST, long, long, IV_int64)                                 \
    RND_IKERNEL(rnd_##dname##_float16, DIST, ushort, ushort, IV_float16)                         \
    RND_IKERNEL(rnd_##dname##_bfloat16, DIST, ushort, ushort, IV_bfloat16)                       \
    RND_IKERNEL(rnd_##dname##_float32, DIST, float, float, IV_float32)

RND_I_FOR(RND_RANGE32, range32)
RND_I_FOR(RND_RANGE64, range64)
RND_I_FOR(RND_BERNOULLI, bernoulli)

RND_DROPOUT_KERNEL(rnd_dropout_float32, float, float4, LD_float32, CV_float32)
RND_DROPOUT_KERNEL(rnd_dropout_float16, ushort, ushort4, LD_float16, CV_float16)
RND_DROPOUT_KERNEL(rnd_dropout_bfloat16, ushort, ushort4, LD_bfloat16, CV_bfloat16)

#ifdef CLOPS_HAS_FP64
/* float64: 2 elements per counter. */
#define RND_DKERNEL(NAME, DIST)                                                                  \
    __kernel void NAME(__global double *out, ulong out_off, ulong n, ulong offset, uint k0,      \
                       uint k1, double a, double b, double c)                                    \
    {                                                                                            \
        out += out_off;                                                                          \
        ulong nc = (n + 1) >> 1;                                                                 \
        CLOPS_ITEMS(ulong, ci, nc) {                                                            \
            uint w[4];                                                                           \
            double v[2];                                                                         \
            rnd_philox(offset + ci, k0, k1, w);                                                  \
            rnd_blockd(DIST, w, a, b, c, v);                                                     \
            ulong base = ci << 1;                                                                \
            RND_STORE2(out, base, n, double, double2, CV_float32, v)                             \
        }                                                                                        \
    }

RND_DKERNEL(rnd_uniform_float64, RND_UNIFORM)
RND_DKERNEL(rnd_normal_float64, RND_NORMAL)
RND_DKERNEL(rnd_log_normal_float64, RND_LOG_NORMAL)
RND_DKERNEL(rnd_exponential_float64, RND_EXPONENTIAL)
RND_DKERNEL(rnd_cauchy_float64, RND_CAUCHY)
RND_DKERNEL(rnd_geometric_float64, RND_GEOMETRIC)

RND_IKERNEL(rnd_range32_float64, RND_RANGE32, double, double, IV_float64)
RND_IKERNEL(rnd_range64_float64, RND_RANGE64, double, double, IV_float64)
RND_IKERNEL(rnd_bernoulli_float64, RND_BERNOULLI, double, double, IV_float64)

/* dropout on float64 computes in float64. */
__kernel void rnd_dropout_float64(__global const double *in, ulong in_off, __global double *out,
                                  ulong out_off, __global uchar *mask, ulong mask_off, ulong n,
                                  ulong offset, uint k0, uint k1, ulong thr, double scale)
{
    in += in_off;
    out += out_off;
    mask += mask_off;
    ulong nc = (n + 3) >> 2;
    CLOPS_ITEMS(ulong, ci, nc) {
        uint w[4];
        rnd_philox(offset + ci, k0, k1, w);
        ulong base = ci << 2;
        for (int j = 0; j < 4; j++) {
            ulong i = base + (ulong)j;
            if (i < n) {
                bool k_ = (ulong)w[j] >= thr;
                double x_ = in[i];
                out[i] = RND_KEEP(k_, x_, 0.0) * scale;
                mask[i] = (uchar)k_;
            }
        }
    }
}
#endif
