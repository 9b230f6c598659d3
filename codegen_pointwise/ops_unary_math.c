/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codegen_pointwise/ops_unary_math.c: pointwise op records for the unary
 * functions of analysis: sqrt, rsqrt, exp, exp2, expm1, log, log2, log10,
 * log1p, the circular and hyperbolic functions and their inverses, erf,
 * erfc, erfinv, lgamma, digamma and sinc.
 *
 * All of them promote integers and bool to float32 (INT_TO_FLOAT) and accept
 * every dtype.  Most map onto an OpenCL built-in, whose accuracy the OpenCL
 * specification bounds in ulps (full profile, single precision: sqrt 3, exp
 * exp2 expm1 log log2 log10 3, log1p 2, rsqrt 2, sin cos sinh cosh asin acos
 * asinh acosh 4, tan tanh atan atanh 5, erf erfc 16, tgamma 16; lgamma has
 * no bound there).  Each record's `ulp` is that bound plus the half ulp of
 * rounding the double reference, raised where POCL was measured worse.
 *
 * erfinv and digamma are not built-ins; their OpenCL helpers are here:
 *   erfinv: with w = -log((1 - |x|)(1 + |x|)), erfinv(x) / x is a smooth
 *     function of w, fitted (Chebyshev least squares, degree 10, fitted
 *     with mpmath for this file) in t = w - 2.5 for w < 5 and in
 *     t = sqrt(w) - 3 for 5 <= w < 16.2 (the whole float range); relative
 *     error of the fits below 6e-9.  The double version adds a third fit
 *     (t = sqrt(w), up to w = 37.5, the whole double range) and two Newton
 *     steps on erf (or on erfc beyond 1/2, where 1 - x is exact).
 *   digamma: reflection psi(x) = psi(1 - x) - pi / tan(pi x) for negative
 *     x (tanpi keeps the argument exact), the recurrence psi(x) = psi(x + 1)
 *     - 1/x up to x >= 10, then the asymptotic series to x^-14.
 * Both follow PyTorch at the edges: erfinv(+-1) = +-inf, NaN outside
 * [-1, 1]; digamma(+-0) = -+inf, NaN at negative integers.
 */
#include "codegen_pointwise/ops_unary.h"
#include "ref/ref_unary.h"

/* An INT_TO_FLOAT op of every dtype whose device expression is EXPR. */
#define UNARY_FLOAT_OP(NAME, EXPR, DOMAIN, ULP, HELPERS, LANEWISE)                  \
    const pw_op pw_op_##NAME = {                                                    \
        .name = #NAME,                                                              \
        .id = 0,                                                                    \
        .n_in = 1,                                                                  \
        .roles = {PW_ROLE_COMMON},                                                  \
        .promotion = PW_PROMOTE_INT_TO_FLOAT,                                       \
        .dtypes = PW_DT_ALL,                                                        \
        .expr_default = EXPR,                                                       \
        .helpers = HELPERS,                                                         \
        .fixed_result = CLOPS_DTYPE_NONE,                                           \
        .domain = DOMAIN,                                                           \
        .ulp = ULP,                                                                 \
        .lanewise = LANEWISE,                                                       \
    }
#define MATH_OP(NAME, EXPR, DOMAIN, ULP, HELPERS)                                   \
    UNARY_FLOAT_OP(NAME, EXPR, DOMAIN, ULP, HELPERS, false)

/* An op that is one OpenCL built-in applied to `a`: the built-in is
 * overloaded for vectors, so CPU devices evaluate it on whole vectors
 * (pw_op.lanewise, emit.c).  Not sin, cos and tan: POCL 3.1's vector
 * versions reduce large arguments wrongly (sin float32 off by 0.0078 at
 * some inputs of the checks' range, far beyond the 5 ulp bound), so they
 * stay MATH_OP, evaluated lane by lane. */
#define BUILTIN_OP(NAME, DOMAIN, ULP) UNARY_FLOAT_OP(NAME, #NAME "(a)", DOMAIN, ULP, NULL, true)

BUILTIN_OP(sqrt, PW_DOMAIN_POSITIVE, 4);
BUILTIN_OP(rsqrt, PW_DOMAIN_POSITIVE, 3);
BUILTIN_OP(exp, PW_DOMAIN_ANY, 4);
BUILTIN_OP(exp2, PW_DOMAIN_ANY, 4);
BUILTIN_OP(expm1, PW_DOMAIN_ANY, 4);
BUILTIN_OP(log, PW_DOMAIN_POSITIVE, 4);
BUILTIN_OP(log2, PW_DOMAIN_POSITIVE, 4);
BUILTIN_OP(log10, PW_DOMAIN_POSITIVE, 4);
BUILTIN_OP(log1p, PW_DOMAIN_ANY, 3);
MATH_OP(sin, "sin(a)", PW_DOMAIN_ANY, 5, NULL);
MATH_OP(cos, "cos(a)", PW_DOMAIN_ANY, 5, NULL);
MATH_OP(tan, "tan(a)", PW_DOMAIN_ANY, 6, NULL);
BUILTIN_OP(asin, PW_DOMAIN_UNIT, 5);
BUILTIN_OP(acos, PW_DOMAIN_UNIT, 5);
BUILTIN_OP(atan, PW_DOMAIN_ANY, 6);
BUILTIN_OP(sinh, PW_DOMAIN_ANY, 5);
BUILTIN_OP(cosh, PW_DOMAIN_ANY, 5);
BUILTIN_OP(tanh, PW_DOMAIN_ANY, 6);
BUILTIN_OP(asinh, PW_DOMAIN_ANY, 5);
BUILTIN_OP(acosh, PW_DOMAIN_GE1, 5);
BUILTIN_OP(atanh, PW_DOMAIN_UNIT, 6);
BUILTIN_OP(erf, PW_DOMAIN_ANY, 17);
BUILTIN_OP(erfc, PW_DOMAIN_ANY, 17);
BUILTIN_OP(lgamma, PW_DOMAIN_ANY, 17);

/* erfinv(x): see the file comment.  NEWTON is the number of Newton steps
 * after the polynomial (0 for float, whose fit is already below 0.1 ulp). */
static const char erfinv_helpers[] =
    "#define CLOPS_ERFINV(T, NEWTON)                                             \\\n"
    "    T clops_erfinv_##T(T x)                                                 \\\n"
    "    {                                                                       \\\n"
    "        T ax = fabs(x);                                                     \\\n"
    "        if (!(ax <= (T)1))                                                  \\\n"
    "            return (T)NAN;                                                  \\\n"
    "        if (ax == (T)1)                                                     \\\n"
    "            return copysign((T)INFINITY, x);                                \\\n"
    "        T w = -log(((T)1 - ax) * ((T)1 + ax));                              \\\n"
    "        T t, p;                                                             \\\n"
    "        if (w < (T)5) {                                                     \\\n"
    "            t = w - (T)2.5;                                                 \\\n"
    "            p = (T)4.6719325090386651123e-10;                               \\\n"
    "            p = p * t + (T)-8.7390107028301227395e-9;                       \\\n"
    "            p = p * t + (T)1.5984306133900060413e-8;                        \\\n"
    "            p = p * t + (T)4.6541741050231657837e-7;                        \\\n"
    "            p = p * t + (T)-3.4234142742220455037e-6;                       \\\n"
    "            p = p * t + (T)-4.9596917942159360907e-6;                       \\\n"
    "            p = p * t + (T)0.00021825772396383333171;                       \\\n"
    "            p = p * t + (T)-0.001252748502841662676;                        \\\n"
    "            p = p * t + (T)-0.0041773200405401219604;                       \\\n"
    "            p = p * t + (T)0.24664028942745514425;                          \\\n"
    "            p = p * t + (T)1.5014093511107919247;                           \\\n"
    "        } else if (w < (T)16.2) {                                           \\\n"
    "            t = sqrt(w) - (T)3;                                             \\\n"
    "            p = (T)-0.000033361519434491399574;                             \\\n"
    "            p = p * t + (T)0.00016656544307062066064;                       \\\n"
    "            p = p * t + (T)-0.00027334885408425985128;                      \\\n"
    "            p = p * t + (T)-0.000128608329031195736;                        \\\n"
    "            p = p * t + (T)0.0014738469806999276925;                        \\\n"
    "            p = p * t + (T)-0.0035629409051273091539;                       \\\n"
    "            p = p * t + (T)0.0056877868124323665904;                        \\\n"
    "            p = p * t + (T)-0.0076435231288932515096;                       \\\n"
    "            p = p * t + (T)0.0094453046416836934227;                        \\\n"
    "            p = p * t + (T)1.0016752744476462881;                           \\\n"
    "            p = p * t + (T)2.8329768015323213023;                           \\\n"
    "        } else {                                                            \\\n"
    "            t = sqrt(w);                                                    \\\n"
    "            p = (T)-1.0562862090721993564e-6;                               \\\n"
    "            p = p * t + (T)0.000042091162808359953569;                      \\\n"
    "            p = p * t + (T)-0.00072794855280607848035;                      \\\n"
    "            p = p * t + (T)0.007111357743840063978;                         \\\n"
    "            p = p * t + (T)-0.04257661996006641818;                         \\\n"
    "            p = p * t + (T)0.15645683154901005281;                          \\\n"
    "            p = p * t + (T)0.68446099284015210602;                          \\\n"
    "            p = p * t + (T)0.093346719253268204335;                         \\\n"
    "        }                                                                   \\\n"
    "        T y = p * ax;                                                       \\\n"
    "        for (int i = 0; i < NEWTON; i++) {                                  \\\n"
    "            T f = ax <= (T)0.5 ? erf(y) - ax : ((T)1 - ax) - erfc(y);        \\\n"
    "            y -= f / ((T)1.1283791670955125739 * exp(-y * y));               \\\n"
    "        }                                                                   \\\n"
    "        return copysign(y, x);                                              \\\n"
    "    }\n"
    "CLOPS_ERFINV(float, 0)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_ERFINV(double, 2)\n"
    "#endif\n";

MATH_OP(erfinv, "clops_erfinv_$T(a)", PW_DOMAIN_UNIT, 4, erfinv_helpers);

/* digamma(x): see the file comment. */
static const char digamma_helpers[] =
    "#define CLOPS_DIGAMMA(T)                                                    \\\n"
    "    T clops_digamma_##T(T x)                                                \\\n"
    "    {                                                                       \\\n"
    "        if (x == (T)0)                                                      \\\n"
    "            return copysign((T)INFINITY, -x);                               \\\n"
    "        T acc = (T)0;                                                       \\\n"
    "        if (x < (T)0) {                                                     \\\n"
    "            if (x == floor(x))                                              \\\n"
    "                return (T)NAN;                                              \\\n"
    "            acc = -(T)3.14159265358979323846 / tanpi(x);                     \\\n"
    "            x = (T)1 - x;                                                   \\\n"
    "        }                                                                   \\\n"
    "        while (x < (T)10) {                                                 \\\n"
    "            acc -= (T)1 / x;                                                \\\n"
    "            x += (T)1;                                                      \\\n"
    "        }                                                                   \\\n"
    "        T z = (T)1 / (x * x);                                               \\\n"
    "        T s = (T)0.083333333333333333333 - z * ((T)0.0083333333333333333333 \\\n"
    "              - z * ((T)0.0039682539682539682540 - z * ((T)0.0041666666666666666667 \\\n"
    "              - z * ((T)0.0075757575757575757576 - z * ((T)0.021092796092796092796 \\\n"
    "              - z * (T)0.083333333333333333333)))));                           \\\n"
    "        return acc + log(x) - (T)0.5 / x - z * s;                           \\\n"
    "    }\n"
    "CLOPS_DIGAMMA(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_DIGAMMA(double)\n"
    "#endif\n";

MATH_OP(digamma, "clops_digamma_$T(a)", PW_DOMAIN_ANY, 8, digamma_helpers);

/* sinc(x) = sin(pi x) / (pi x), 1 at 0; sinpi keeps the zeros at integers
 * exact where PyTorch's sin(pi * x) rounds pi * x first. */
static const char sinc_helpers[] =
    "#define CLOPS_SINC(T)                                                       \\\n"
    "    T clops_sinc_##T(T x)                                                   \\\n"
    "    {                                                                       \\\n"
    "        if (x == (T)0)                                                      \\\n"
    "            return (T)1;                                                    \\\n"
    "        return sinpi(x) / ((T)3.14159265358979323846 * x);                  \\\n"
    "    }\n"
    "CLOPS_SINC(float)\n"
    "#ifdef CLOPS_HAS_FP64\n"
    "CLOPS_SINC(double)\n"
    "#endif\n";

MATH_OP(sinc, "clops_sinc_$T(a)", PW_DOMAIN_ANY, 8, sinc_helpers);
