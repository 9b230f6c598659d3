/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_random.c: the random family's streams (docs/random.md):
 * Philox4x32-10 known answers, the generator API, bit-identity of every op
 * and dtype across the CPU reference and every OpenCL device, reproducible
 * sequences through get_state/set_state, the documented offset advance, and
 * independence from the launch geometry.  Distributions and errors are in
 * tests/test_random_stats.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clops/generator.h"
#include "clops/ops.h"
#include "core/debug.h"
#include "support/clops_test.h"
#include "ref/random_math.clh"
#include "ops/random/random.h"

#define SEED 20261124ull

/* --- Philox known answers -------------------------------------------------------------- */

/* Random123's kat_vectors for philox4x32-10: counter, key, result. */
static const uint32_t KAT[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
     0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
     0x5001e420, 0x24126ea1},
};

static void philox_known_answers_in_c(void **state)
{
    (void)state;
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        rnd_philox4(KAT[v][0], KAT[v][1], KAT[v][2], KAT[v][3], KAT[v][4], KAT[v][5], out);
        for (int j = 0; j < 4; j++)
            CT_ASSERT_MSG(out[j] == KAT[v][6 + j], "vector %d word %d: %08x, expected %08x", v, j,
                          out[j], KAT[v][6 + j]);
    }
}

/* random_(from=INT64_MIN) on int64 returns the raw words: element i is
 * (w[2(i%2)] << 32 | w[2(i%2)+1]) - 2^63 of counter offset + i/2.  With seed
 * 0 and offset 0 the first counter is the first known-answer vector. */
static void philox_known_answer_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int i = 0; i < nd; i++) {
        ct_set_device(devs[i]);
        clops_generator *g = NULL;
        clops_tensor *t = NULL;
        CT_OK(clops_generator_create(devs[i], &g));
        CT_OK(clops_generator_manual_seed(g, 0));
        CT_OK(clops_empty(devs[i], CLOPS_INT64, 1, CT_I64(2), &t));
        CT_OK(clops_random_from_(t, INT64_MIN, NULL, g));
        int64_t *v = ct_to_host(t);
        uint64_t w0 = (uint64_t)v[0] ^ 0x8000000000000000ull,
                 w1 = (uint64_t)v[1] ^ 0x8000000000000000ull;
        CT_ASSERT(w0 == (((uint64_t)KAT[0][6] << 32) | KAT[0][7]));
        CT_ASSERT(w1 == (((uint64_t)KAT[0][8] << 32) | KAT[0][9]));
        CT_ASSERT(clops_generator_offset(g) == 1);
        free(v);
        clops_tensor_release(t);
        clops_generator_release(g);
    }
    ct_clear_context();
}

/* --- generator API ---------------------------------------------------------------------- */

static void generator_state_layout_is_seed_then_offset(void **state)
{
    (void)state;
    clops_generator *g = NULL;
    CT_OK(clops_generator_create(ct_cpu(), &g));
    CT_ASSERT(clops_generator_initial_seed(g) == CLOPS_DEFAULT_SEED);
    CT_OK(clops_generator_manual_seed(g, 0x0102030405060708ull));
    clops_tensor *t = NULL;
    CT_OK(clops_empty(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(10), &t));
    CT_OK(clops_uniform_(t, 0.0, 1.0, g)); /* 10 float32: ceil(10 / 4) = 3 counters */
    unsigned char s[CLOPS_GENERATOR_STATE_SIZE];
    CT_OK(clops_generator_get_state(g, s, sizeof s));
    static const unsigned char expect[16] = {8, 7, 6, 5, 4, 3, 2, 1, 3, 0, 0, 0, 0, 0, 0, 0};
    CT_ASSERT(memcmp(s, expect, 16) == 0);
    CT_STATUS(clops_generator_set_state(g, s, 15), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("16 bytes");
    CT_STATUS(clops_generator_get_state(g, s, 8), CLOPS_INVALID_ARGUMENT);
    uint64_t seed = 0;
    CT_OK(clops_generator_seed(g, &seed));
    CT_ASSERT(clops_generator_initial_seed(g) == seed && clops_generator_offset(g) == 0);
    clops_tensor_release(t);
    clops_generator_release(g);
    clops_generator_release(NULL);
}

static void default_generators_are_per_device_and_seeded_together(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    CT_OK(clops_manual_seed(99));
    clops_generator *first = NULL;
    for (int i = 0; i < nd; i++) {
        clops_generator *g = NULL, *again = NULL;
        CT_OK(clops_generator_default(devs[i], &g));
        CT_OK(clops_generator_default(devs[i], &again));
        CT_ASSERT(g == again);
        CT_ASSERT(clops_generator_initial_seed(g) == 99 && clops_generator_offset(g) == 0);
        CT_ASSERT(clops_generator_device(g) == devs[i]);
        if (i == 0)
            first = g;
        else
            CT_ASSERT(g != first);
        clops_generator_release(g); /* a default generator: ignored */
    }
    /* NULL generator = the device's default: it advances. */
    clops_tensor *t = NULL;
    CT_OK(clops_empty(ct_cpu(), CLOPS_FLOAT64, 1, CT_I64(5), &t));
    CT_OK(clops_normal_(t, 0.0, 1.0, NULL));
    clops_generator *g = NULL;
    CT_OK(clops_generator_default(ct_cpu(), &g));
    CT_ASSERT(clops_generator_offset(g) == 3); /* float64: 2 per counter */
    clops_tensor_release(t);
}

/* A boxed call passes a generator as CLOPS_V_GENERATOR; another tag where
 * a Generator is expected is refused with the schema type in the message. */
static void boxed_calls_take_a_generator_value(void **state)
{
    (void)state;
    const clops_op *op = NULL;
    CT_OK(clops_op_find("normal_", &op));
    clops_generator *g1 = NULL, *g2 = NULL;
    CT_OK(clops_generator_create(ct_cpu(), &g1));
    CT_OK(clops_generator_create(ct_cpu(), &g2));
    clops_tensor *a = ct_empty_layout(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(9), CT_CONTIGUOUS);
    clops_tensor *b = ct_empty_layout(ct_cpu(), CLOPS_FLOAT32, 1, CT_I64(9), CT_CONTIGUOUS);
    clops_value args[4] = {clops_value_tensor(a), clops_value_float(0.0), clops_value_float(1.0),
                           clops_value_generator(g1)};
    clops_value ret = clops_value_none();
    CT_OK(clops_call_boxed(op, args, 4, &ret, 1));
    clops_value_clear(&ret);
    CT_OK(clops_normal_(b, 0.0, 1.0, g2));
    CT_ASSERT_CLOSE(a, b, CT_TOL_EXACT);
    CT_ASSERT(clops_generator_offset(g1) == 3);
    args[3] = clops_value_int(5);
    CT_STATUS(clops_call_boxed(op, args, 4, &ret, 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("must be Generator?, not int");
    clops_tensor_release(a);
    clops_tensor_release(b);
    clops_generator_release(g1);
    clops_generator_release(g2);
}

/* --- the op cases ---------------------------------------------------------------------- */

/* One op run: fills *out (new tensor(s)) on device d from generator g. */
typedef struct rcase {
    const char *name;
    clops_dtype dtype;
    int kind;
    double a, b;
} rcase;

enum {
    K_RAND,
    K_RANDN,
    K_UNIFORM_T,
    K_NORMAL_T,
    K_LOG_NORMAL,
    K_EXPONENTIAL,
    K_CAUCHY,
    K_GEOMETRIC,
    K_RANDOM,
    K_RANDOM_FROM,
    K_RANDOM_FULL,
    K_RANDINT,
    K_BERNOULLI_P,
    K_BERNOULLI_T,
    K_DROPOUT,
    K_DROPOUT_MASK,
    K_MULTINOMIAL,
    K_MULTINOMIAL_R,
    K_RANDPERM,
    K_NORMAL_TT,
    K_RANDN_LIKE
};

static const int64_t SHAPE[2] = {17, 59};

/* Runs case c on device d with generator g; returns a new tensor. */
static clops_tensor *run_case(const rcase *c, clops_device *d, clops_generator *g)
{
    clops_tensor *t = NULL, *x = NULL, *y = NULL;
    switch (c->kind) {
    case K_RAND:
        CT_OK(clops_rand_generator(SHAPE, 2, g, c->dtype, -1, d, NULL, &t));
        break;
    case K_RANDN:
        CT_OK(clops_randn_generator(SHAPE, 2, g, c->dtype, -1, d, NULL, &t));
        break;
    case K_RANDN_LIKE:
        x = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_randn_like_generator(x, g, CLOPS_DTYPE_NONE, -1, NULL, NULL, -1, &t));
        break;
    case K_UNIFORM_T:
        /* In place on a transposed view: row-major logical order. */
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_TRANSPOSED);
        CT_OK(clops_uniform_(t, c->a, c->b, g));
        break;
    case K_NORMAL_T:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_SLICED);
        CT_OK(clops_normal_(t, c->a, c->b, g));
        break;
    case K_LOG_NORMAL:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_log_normal_(t, c->a, c->b, g));
        break;
    case K_EXPONENTIAL:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_exponential_(t, c->a, g));
        break;
    case K_CAUCHY:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_cauchy_(t, c->a, c->b, g));
        break;
    case K_GEOMETRIC:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_geometric_(t, c->a, g));
        break;
    case K_RANDOM:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_random_(t, g));
        break;
    case K_RANDOM_FROM: {
        int64_t to = (int64_t)c->b;
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_random_from_(t, (int64_t)c->a, &to, g));
        break;
    }
    case K_RANDOM_FULL:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_random_from_(t, INT64_MIN, NULL, g));
        break;
    case K_RANDINT:
        CT_OK(clops_randint_low_generator((int64_t)c->a, (int64_t)c->b, SHAPE, 2, g, c->dtype, -1,
                                          d, NULL, &t));
        break;
    case K_BERNOULLI_P:
        t = ct_empty_layout(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS);
        CT_OK(clops_bernoulli_float_(t, c->a, g));
        break;
    case K_BERNOULLI_T:
        x = ct_random(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS, PW_DOMAIN_PROB, 5);
        CT_OK(clops_bernoulli(x, g, &t));
        break;
    case K_DROPOUT:
    case K_DROPOUT_MASK: {
        bool train = true;
        x = ct_random(d, c->dtype, 2, SHAPE, CT_TRANSPOSED, PW_DOMAIN_ANY, 6);
        CT_OK(clops_native_dropout(x, c->a, &train, &t, &y));
        if (c->kind == K_DROPOUT_MASK) {
            clops_tensor_release(t);
            t = y;
            y = NULL;
        }
        break;
    }
    case K_MULTINOMIAL:
    case K_MULTINOMIAL_R:
        x = ct_random(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS, PW_DOMAIN_POSITIVE, 7);
        CT_OK(clops_multinomial(x, 20, c->kind == K_MULTINOMIAL_R, g, &t));
        break;
    case K_RANDPERM:
        CT_OK(clops_randperm_generator(1001, g, c->dtype, -1, d, NULL, &t));
        break;
    case K_NORMAL_TT:
        x = ct_random(d, c->dtype, 2, SHAPE, CT_CONTIGUOUS, PW_DOMAIN_ANY, 8);
        y = ct_random(d, c->dtype, 1, SHAPE + 1, CT_CONTIGUOUS, PW_DOMAIN_POSITIVE, 9);
        CT_OK(clops_normal_tensor_tensor(x, y, g, &t));
        break;
    }
    clops_tensor_release(x);
    clops_tensor_release(y);
    return t;
}

#define F4(name, kind, a, b)                                                                       \
    {name, CLOPS_FLOAT32, kind, a, b}, {name, CLOPS_FLOAT64, kind, a, b},                          \
        {name, CLOPS_FLOAT16, kind, a, b},                                                         \
    {                                                                                              \
        name, CLOPS_BFLOAT16, kind, a, b                                                           \
    }
#define ALL10(name, kind, a, b)                                                                    \
    {name, CLOPS_BOOL, kind, a, b}, {name, CLOPS_UINT8, kind, a, b},                               \
        {name, CLOPS_INT8, kind, a, b}, {name, CLOPS_INT16, kind, a, b},                           \
        {name, CLOPS_INT32, kind, a, b}, {name, CLOPS_INT64, kind, a, b}, F4(name, kind, a, b)

static const rcase CASES[] = {
    F4("rand", K_RAND, 0, 0),
    F4("randn", K_RANDN, 0, 0),
    F4("randn_like", K_RANDN_LIKE, 0, 0),
    F4("uniform_(-2, 3) transposed", K_UNIFORM_T, -2.0, 3.0),
    F4("normal_(1, 2) sliced", K_NORMAL_T, 1.0, 2.0),
    F4("log_normal_(0.5, 0.7)", K_LOG_NORMAL, 0.5, 0.7),
    F4("exponential_(1.5)", K_EXPONENTIAL, 1.5, 0),
    F4("cauchy_(1, 2)", K_CAUCHY, 1.0, 2.0),
    ALL10("random_", K_RANDOM, 0, 0),
    {"geometric_(0.3)", CLOPS_INT32, K_GEOMETRIC, 0.3, 0},
    {"geometric_(0.3)", CLOPS_INT64, K_GEOMETRIC, 0.3, 0},
    F4("geometric_(0.3)", K_GEOMETRIC, 0.3, 0),
    {"random_(-50, 77)", CLOPS_INT8, K_RANDOM_FROM, -50, 77},
    {"random_(-50, 77)", CLOPS_INT64, K_RANDOM_FROM, -50, 77},
    {"random_(-50, 77)", CLOPS_FLOAT16, K_RANDOM_FROM, -50, 77},
    {"random_(0, 2^40)", CLOPS_INT64, K_RANDOM_FROM, 0, 1099511627776.0},
    {"random_(0, 2^40)", CLOPS_FLOAT64, K_RANDOM_FROM, 0, 1099511627776.0},
    {"random_(int64 min)", CLOPS_INT64, K_RANDOM_FULL, 0, 0},
    {"randint(-3, 10)", CLOPS_INT64, K_RANDINT, -3, 10},
    {"randint(-3, 10)", CLOPS_INT16, K_RANDINT, -3, 10},
    {"randint(-3, 10)", CLOPS_FLOAT32, K_RANDINT, -3, 10},
    ALL10("bernoulli_(0.3)", K_BERNOULLI_P, 0.3, 0),
    F4("bernoulli(p tensor)", K_BERNOULLI_T, 0, 0),
    F4("native_dropout(0.1) output", K_DROPOUT, 0.1, 0),
    F4("native_dropout(0.5) mask", K_DROPOUT_MASK, 0.5, 0),
    {"multinomial(20)", CLOPS_FLOAT32, K_MULTINOMIAL, 0, 0},
    {"multinomial(20, replacement)", CLOPS_FLOAT64, K_MULTINOMIAL_R, 0, 0},
    {"randperm(1001)", CLOPS_INT64, K_RANDPERM, 0, 0},
    {"randperm(1001)", CLOPS_FLOAT32, K_RANDPERM, 0, 0},
    {"normal(Tensor, Tensor)", CLOPS_FLOAT32, K_NORMAL_TT, 0, 0},
    {"normal(Tensor, Tensor)", CLOPS_FLOAT64, K_NORMAL_TT, 0, 0},
};

/* FNV-1a of a tensor's elements in row-major order. */
/* FNV-1a of the tensor's bytes, with every NaN read as the one quiet NaN:
 * a NaN's sign and payload are the hardware's (NVIDIA GPUs return a single
 * canonical NaN from arithmetic, x86 keeps the operand's), as in PyTorch. */
static uint64_t tensor_hash(const clops_tensor *t)
{
    unsigned char *v = ct_to_host(t);
    clops_dtype dt = clops_tensor_dtype(t);
    size_t numel = (size_t)clops_tensor_numel(t);
    size_t n = numel * clops_dtype_size(dt);
    for (size_t i = 0; i < numel; i++) {
        if (dt == CLOPS_FLOAT32) {
            uint32_t u;
            memcpy(&u, v + 4 * i, 4);
            if ((u & 0x7fffffffu) > 0x7f800000u)
                memcpy(v + 4 * i, &(uint32_t){0x7fc00000u}, 4);
        } else if (dt == CLOPS_FLOAT64) {
            uint64_t u;
            memcpy(&u, v + 8 * i, 8);
            if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
                memcpy(v + 8 * i, &(uint64_t){0x7ff8000000000000ull}, 8);
        } else if (dt == CLOPS_FLOAT16 || dt == CLOPS_BFLOAT16) {
            uint16_t u, inf = dt == CLOPS_FLOAT16 ? 0x7c00 : 0x7f80;
            memcpy(&u, v + 2 * i, 2);
            if ((u & 0x7fff) > inf)
                memcpy(v + 2 * i, &(uint16_t){dt == CLOPS_FLOAT16 ? 0x7e00 : 0x7fc0}, 2);
        }
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ v[i]) * 0x100000001b3ull;
    free(v);
    return h;
}

/* Runs a case from a fresh generator (seed SEED, offset 3) on d; the
 * device's default generator (native_dropout has no generator argument)
 * gets the same state. */
static clops_tensor *run_fresh(const rcase *c, clops_device *d)
{
    clops_generator *g = NULL, *dflt = NULL;
    CT_OK(clops_generator_create(d, &g));
    CT_OK(clops_generator_default(d, &dflt));
    unsigned char s[16] = {0};
    for (int i = 0; i < 8; i++)
        s[i] = (unsigned char)(SEED >> (8 * i));
    s[8] = 3;
    CT_OK(clops_generator_set_state(g, s, sizeof s));
    CT_OK(clops_generator_set_state(dflt, s, sizeof s));
    clops_tensor *t = run_case(c, d, g);
    clops_generator_release(g);
    return t;
}

static void same_bits_on_every_device(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (size_t ci = 0; ci < CT_COUNT(CASES); ci++) {
        const rcase *c = &CASES[ci];
        ct_set_case("%s %s", c->name, clops_dtype_name(c->dtype));
        uint64_t ref = 0;
        bool have_ref = false;
        for (int i = 0; i < nd; i++) {
            if (!ct_device_supports(devs[i], c->dtype))
                continue;
            ct_set_device(devs[i]);
            clops_tensor *t = run_fresh(c, devs[i]);
            uint64_t h = tensor_hash(t);
            if (!have_ref) {
                ref = h;
                have_ref = true;
            } else if (h != ref) {
                clops_tensor *cpu_t = run_fresh(c, devs[0]);
                CT_ASSERT_CLOSE(t, cpu_t, CT_TOL_EXACT);
                clops_tensor_release(cpu_t);
                ct_fail("output hash %016llx differs from the first device's %016llx",
                        (unsigned long long)h, (unsigned long long)ref);
            }
            clops_tensor_release(t);
        }
    }
    ct_clear_context();
}

/* --- sequences ------------------------------------------------------------------------- */

/* Hash of M mixed calls on d from g. */
static uint64_t run_sequence(clops_device *d, clops_generator *g, int m)
{
    uint64_t h = 0;
    for (int k = 0; k < m; k++) {
        const rcase *c = &CASES[(size_t)(k * 7) % CT_COUNT(CASES)];
        if (!ct_device_supports(d, c->dtype))
            continue;
        clops_tensor *t = run_case(c, d, g);
        h = h * 31 + tensor_hash(t);
        clops_tensor_release(t);
    }
    return h;
}

static void get_state_set_state_replays_the_sequence(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    uint64_t first = 0;
    for (int i = 0; i < nd; i++) {
        ct_set_device(devs[i]);
        clops_generator *g = NULL;
        CT_OK(clops_generator_create(devs[i], &g));
        CT_OK(clops_generator_manual_seed(g, 7));
        run_sequence(devs[i], g, 5);
        unsigned char s[16];
        CT_OK(clops_generator_get_state(g, s, sizeof s));
        uint64_t a = run_sequence(devs[i], g, 6);
        uint64_t b = run_sequence(devs[i], g, 6);
        CT_ASSERT(a != b);
        CT_OK(clops_generator_set_state(g, s, sizeof s));
        CT_ASSERT(run_sequence(devs[i], g, 6) == a);
        if (i == 0)
            first = a;
        else
            CT_ASSERT_MSG(first == a || !ct_device_supports(devs[i], CLOPS_FLOAT64),
                          "the sequence differs from the CPU reference's");
        clops_generator_release(g);
    }
    ct_clear_context();
}

static void offset_advances_by_the_documented_counters(void **state)
{
    (void)state;
    clops_generator *g = NULL;
    CT_OK(clops_generator_create(ct_cpu(), &g));
    struct {
        int kind;
        clops_dtype dt;
        uint64_t counters;
    } cases[] = {
        {K_RAND, CLOPS_FLOAT32, (1003 + 3) / 4},   {K_RAND, CLOPS_FLOAT64, (1003 + 1) / 2},
        {K_RANDN, CLOPS_FLOAT16, (1003 + 3) / 4},  {K_RANDOM_FULL, CLOPS_INT64, (1003 + 1) / 2},
        {K_RANDINT, CLOPS_INT64, (1003 + 3) / 4},  {K_DROPOUT, CLOPS_FLOAT64, (1003 + 3) / 4},
        {K_RANDPERM, CLOPS_INT64, (1001 + 1) / 2},
    };
    clops_generator *dflt = NULL;
    CT_OK(clops_generator_default(ct_cpu(), &dflt));
    for (size_t i = 0; i < CT_COUNT(cases); i++) {
        rcase c = {"advance", cases[i].dt, cases[i].kind, 0.5, 9};
        /* native_dropout draws from the device's default generator. */
        clops_generator *used = cases[i].kind == K_DROPOUT ? dflt : g;
        uint64_t before = clops_generator_offset(used);
        clops_tensor *t = run_case(&c, ct_cpu(), g);
        CT_ASSERT_MSG(clops_generator_offset(used) - before == cases[i].counters,
                      "case %zu advanced %llu counters, expected %llu", i,
                      (unsigned long long)(clops_generator_offset(used) - before),
                      (unsigned long long)cases[i].counters);
        clops_tensor_release(t);
    }
    clops_generator_release(g);
}

/* --- launch geometry -------------------------------------------------------------------- */

/* A dropped element is x * 0, as PyTorch multiplies by the mask: -0 for a
 * negative x, NaN for an infinite or NaN x; a kept one is x * (1 / (1 - p)). */
static void dropout_multiplies_by_the_mask(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    static const double vals[] = {-1.5, -0.0, 2.0, INFINITY, -INFINITY, NAN, -3e-3, 0.0};
    enum { N = 256 };
    const clops_dtype dts[] = {CLOPS_FLOAT32, CLOPS_FLOAT64};
    for (int i = 0; i < nd; i++) {
        ct_set_device(devs[i]);
        for (size_t di = 0; di < CT_COUNT(dts); di++) {
            if (!ct_device_supports(devs[i], dts[di]))
                continue;
            ct_set_case("native_dropout(0.5) %s", clops_dtype_name(dts[di]));
            float xf[N];
            double xd[N];
            for (int j = 0; j < N; j++) {
                xd[j] = vals[j % (int)CT_COUNT(vals)];
                xf[j] = (float)xd[j];
            }
            int64_t n = N;
            clops_tensor *x = ct_from_values(devs[i], dts[di], 1, &n, CT_CONTIGUOUS,
                                             dts[di] == CLOPS_FLOAT32 ? (void *)xf : (void *)xd);
            clops_tensor *out = NULL, *mask = NULL;
            bool train = true;
            CT_OK(clops_native_dropout(x, 0.5, &train, &out, &mask));
            void *ho = ct_to_host(out);
            uint8_t *hm = ct_to_host(mask);
            int dropped = 0, kept = 0;
            for (int j = 0; j < N; j++) {
                double o = dts[di] == CLOPS_FLOAT32 ? (double)((float *)ho)[j] : ((double *)ho)[j];
                double v = dts[di] == CLOPS_FLOAT32 ? (double)xf[j] : xd[j];
                if (hm[j]) {
                    kept++;
                    if (isnan(v) ? !isnan(o) : o != v * 2.0)
                        ct_fail("element %d = %g kept: %g, expected %g", j, v, o, v * 2.0);
                } else {
                    dropped++;
                    bool ok = isfinite(v) ? (o == 0.0 && !signbit(o) == !signbit(v)) : isnan(o);
                    if (!ok)
                        ct_fail("element %d = %g dropped: %g, expected %s", j, v, o,
                                isfinite(v) ? (signbit(v) ? "-0" : "+0") : "nan");
                }
            }
            assert_true(dropped > 0 && kept > 0);
            free(ho);
            free(hm);
            clops_tensor_release(x);
            clops_tensor_release(out);
            clops_tensor_release(mask);
        }
    }
    ct_clear_context();
}

static void values_do_not_depend_on_the_work_group_size(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_opencl_devices(devs, CT_MAX_DEVICES);
    static const rcase picks[] = {
        {"rand", CLOPS_FLOAT32, K_RAND, 0, 0},
        /* CPU devices: one item (geometry {1, 1}) takes the 8-counter
         * vector loop of uniform, 64-item groups the scalar one. */
        {"rand", CLOPS_FLOAT16, K_RAND, 0, 0},
        {"rand", CLOPS_BFLOAT16, K_RAND, 0, 0},
        {"uniform_(-2, 3) transposed", CLOPS_FLOAT32, K_UNIFORM_T, -2.0, 3.0},
        {"randn", CLOPS_FLOAT16, K_RANDN, 0, 0},
        {"randint", CLOPS_INT64, K_RANDINT, -3, 1000},
        {"random_ full", CLOPS_INT64, K_RANDOM_FULL, 0, 0},
        {"dropout", CLOPS_FLOAT32, K_DROPOUT, 0.1, 0},
    };
    /* {work-group size, groups}; 0: the default.  Set through the library's
     * debug settings (core/debug.h), not setenv: POCL's worker threads read
     * the environment. */
    static const size_t geometries[][2] = {{1, 1}, {13, 3}, {64, 0}, {0, 2}};
    for (int i = 0; i < nd; i++) {
        ct_set_device(devs[i]);
        for (size_t p = 0; p < CT_COUNT(picks); p++) {
            ct_set_case("%s", picks[p].name);
            clops_tensor *base = run_fresh(&picks[p], devs[i]);
            for (size_t gi = 0; gi < CT_COUNT(geometries); gi++) {
                CT_OK(clops_debug_set("random.wg", (int64_t)geometries[gi][0]));
                CT_OK(clops_debug_set("random.groups", (int64_t)geometries[gi][1]));
                clops_tensor *t = run_fresh(&picks[p], devs[i]);
                CT_OK(clops_debug_set("random.wg", 0));
                CT_OK(clops_debug_set("random.groups", 0));
                CT_ASSERT_CLOSE(t, base, CT_TOL_EXACT);
                clops_tensor_release(t);
            }
            clops_tensor_release(base);
        }
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(philox_known_answers_in_c),
        cmocka_unit_test(philox_known_answer_on_every_device),
        cmocka_unit_test(generator_state_layout_is_seed_then_offset),
        cmocka_unit_test(default_generators_are_per_device_and_seeded_together),
        cmocka_unit_test(boxed_calls_take_a_generator_value),
        cmocka_unit_test(same_bits_on_every_device),
        cmocka_unit_test(get_state_set_state_replays_the_sequence),
        cmocka_unit_test(offset_advances_by_the_documented_counters),
        cmocka_unit_test(values_do_not_depend_on_the_work_group_size),
        cmocka_unit_test(dropout_multiplies_by_the_mask),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
