/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_golden.c: replays a file of PyTorch golden cases
 * (tests/data/golden_*.json, format in tests/data/gen_golden_reduce.py)
 * through clops_call_boxed on the CPU device and on every OpenCL device
 * (ct_replay_golden in clops_test.h).  Each case must:
 *   - fail where PyTorch raised, and succeed where it did not;
 *   - give as many results, with the same dtypes and shapes;
 *   - give equal integers and bools (indices included), NaN where NaN,
 *     equal infinities, and floats within a tolerance that grows with the
 *     input's length (PyTorch and clops sum in different orders):
 *     float32 rtol 1e-5, float64 1e-12, float16 2e-3, bfloat16 1.6e-2,
 *     times sqrt(length), with an absolute floor of that times the largest
 *     finite input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clops/dispatch.h"
#include "clops_test.h"

#define MAX_ARGS 12
#define MAX_VALS 4096

/* Parses a value string of the JSON ("nan", "-inf", "3", "0.5"). */
static double parse_val(const char *s)
{
    if (strcmp(s, "nan") == 0)
        return NAN;
    if (strcmp(s, "inf") == 0)
        return INFINITY;
    if (strcmp(s, "-inf") == 0)
        return -INFINITY;
    return strtod(s, NULL);
}

/* Host bytes of dtype dt holding the JSON values. */
static void *pack(const cJSON *values, clops_dtype dt, int64_t *n)
{
    int cnt = cJSON_GetArraySize(values);
    void *buf = calloc((size_t)(cnt > 0 ? cnt : 1), 8);
    int i = 0;
    for (const cJSON *v = values->child; v; v = v->next, i++) {
        const char *s = v->valuestring;
        switch (dt) {
        case CLOPS_BOOL:
        case CLOPS_UINT8: ((uint8_t *)buf)[i] = (uint8_t)strtoll(s, NULL, 10); break;
        case CLOPS_INT8: ((int8_t *)buf)[i] = (int8_t)strtoll(s, NULL, 10); break;
        case CLOPS_INT16: ((int16_t *)buf)[i] = (int16_t)strtoll(s, NULL, 10); break;
        case CLOPS_INT32: ((int32_t *)buf)[i] = (int32_t)strtoll(s, NULL, 10); break;
        case CLOPS_INT64: ((int64_t *)buf)[i] = strtoll(s, NULL, 10); break;
        case CLOPS_FLOAT16: ((uint16_t *)buf)[i] = clops_float_to_half((float)parse_val(s)); break;
        case CLOPS_BFLOAT16:
            ((uint16_t *)buf)[i] = clops_float_to_bfloat16((float)parse_val(s));
            break;
        case CLOPS_FLOAT32: ((float *)buf)[i] = (float)parse_val(s); break;
        default: ((double *)buf)[i] = parse_val(s); break;
        }
    }
    *n = cnt;
    return buf;
}

/* Element i of host data of dtype dt as a double. */
static double elem(const void *p, clops_dtype dt, int64_t i)
{
    switch (dt) {
    case CLOPS_BOOL:
    case CLOPS_UINT8: return ((const uint8_t *)p)[i];
    case CLOPS_INT8: return ((const int8_t *)p)[i];
    case CLOPS_INT16: return ((const int16_t *)p)[i];
    case CLOPS_INT32: return ((const int32_t *)p)[i];
    case CLOPS_INT64: return (double)((const int64_t *)p)[i];
    case CLOPS_FLOAT16: return clops_half_to_float(((const uint16_t *)p)[i]);
    case CLOPS_BFLOAT16: return clops_bfloat16_to_float(((const uint16_t *)p)[i]);
    case CLOPS_FLOAT32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static clops_dtype dtype_of(const char *name)
{
    clops_dtype dt = CLOPS_DTYPE_NONE;
    CT_OK(clops_dtype_from_name(name, &dt));
    return dt;
}

/* Relative tolerance of a float dtype. */
static double rtol_of(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT16: return 2e-3;
    case CLOPS_BFLOAT16: return 1.6e-2;
    case CLOPS_FLOAT32: return 1e-5;
    default: return 1e-12;
    }
}

typedef struct replay {
    clops_value args[MAX_ARGS];
    int nargs;
    int64_t ints[MAX_ARGS][8];
    bool bools[MAX_ARGS][8];
    double scale; /* largest |finite input| */
    int64_t len;  /* input elements */
} replay;

/* Builds the boxed arguments of a case on dev. */
static void build_args(const cJSON *jargs, clops_device *dev, replay *r)
{
    r->nargs = 0;
    r->scale = 1;
    r->len = 1;
    for (const cJSON *a = jargs->child; a; a = a->next) {
        clops_value *v = &r->args[r->nargs];
        const cJSON *it;
        if ((it = cJSON_GetObjectItem(a, "t"))) {
            clops_dtype dt = dtype_of(cJSON_GetObjectItem(it, "dtype")->valuestring);
            const cJSON *shape = cJSON_GetObjectItem(it, "shape");
            int64_t sizes[CLOPS_MAX_DIMS];
            int nd = 0;
            for (const cJSON *s = shape->child; s; s = s->next)
                sizes[nd++] = (int64_t)s->valuedouble;
            int64_t n;
            void *buf = pack(cJSON_GetObjectItem(it, "values"), dt, &n);
            for (int64_t i = 0; i < n; i++)
                if (isfinite(elem(buf, dt, i)))
                    r->scale = fmax(r->scale, fabs(elem(buf, dt, i)));
            r->len = n > 0 ? n : 1;
            *v = clops_value_tensor(ct_from_values(dev, dt, nd, sizes, CT_CONTIGUOUS, buf));
            free(buf);
        } else if ((it = cJSON_GetObjectItem(a, "ints"))) {
            int n = 0;
            for (const cJSON *s = it->child; s; s = s->next)
                r->ints[r->nargs][n++] = (int64_t)s->valuedouble;
            *v = clops_value_ints(r->ints[r->nargs], n);
        } else if ((it = cJSON_GetObjectItem(a, "bools"))) {
            int n = 0;
            for (const cJSON *s = it->child; s && n < 8; s = s->next)
                r->bools[r->nargs][n++] = cJSON_IsTrue(s);
            v->tag = CLOPS_V_BOOL_LIST;
            v->v.bools.data = r->bools[r->nargs];
            v->v.bools.len = n;
        } else if ((it = cJSON_GetObjectItem(a, "int"))) {
            *v = clops_value_int((int64_t)it->valuedouble);
        } else if ((it = cJSON_GetObjectItem(a, "bool"))) {
            *v = clops_value_bool(cJSON_IsTrue(it));
        } else if ((it = cJSON_GetObjectItem(a, "scalar"))) {
            const char *s = it->valuestring;
            bool fl = strpbrk(s, ".eni") != NULL;
            *v = clops_value_scalar(fl ? clops_scalar_float(parse_val(s))
                                       : clops_scalar_int(strtoll(s, NULL, 10)));
        } else if ((it = cJSON_GetObjectItem(a, "dtype"))) {
            *v = clops_value_dtype(dtype_of(it->valuestring));
        } else {
            *v = clops_value_none();
        }
        r->nargs++;
    }
}

/* Checks one result against the expected JSON output. */
static void check_output(const clops_tensor *got, const cJSON *exp, const replay *r)
{
    clops_dtype dt = dtype_of(cJSON_GetObjectItem(exp, "dtype")->valuestring);
    CT_ASSERT_MSG(clops_tensor_dtype(got) == dt, "result dtype %s, PyTorch gives %s",
                  clops_dtype_name(clops_tensor_dtype(got)), clops_dtype_name(dt));
    const cJSON *shape = cJSON_GetObjectItem(exp, "shape");
    int nd = cJSON_GetArraySize(shape);
    CT_ASSERT_MSG(clops_tensor_ndim(got) == nd, "result has %d dims, PyTorch's %d",
                  clops_tensor_ndim(got), nd);
    int k = 0;
    for (const cJSON *s = shape->child; s; s = s->next, k++)
        CT_ASSERT_MSG(clops_tensor_size(got, k) == (int64_t)s->valuedouble,
                      "result size %d differs from PyTorch's", k);
    int64_t n;
    void *want = pack(cJSON_GetObjectItem(exp, "values"), dt, &n);
    void *have = ct_to_host(got);
    bool fl = clops_dtype_is_floating(dt);
    double rtol = fl ? rtol_of(dt) * fmax(1.0, sqrt((double)r->len)) : 0;
    for (int64_t i = 0; i < n; i++) {
        double a = elem(have, dt, i), e = elem(want, dt, i);
        bool ok = fl ? ((isnan(a) && isnan(e)) || a == e ||
                        (isfinite(e) && fabs(a - e) <= rtol * (fabs(e) + r->scale)))
                     : a == e;
        CT_ASSERT_MSG(ok, "element %lld: got %.9g, PyTorch %.9g", (long long)i, a, e);
    }
    free(want);
    free(have);
}

void ct_replay_golden(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CLOPS_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skipped: %s is absent (see its generator in tests/data/)\n", path);
        skip();
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)sz + 1);
    size_t got = fread(text, 1, (size_t)sz, f);
    fclose(f);
    text[got] = 0;
    cJSON *root = cJSON_Parse(text);
    free(text);
    CT_ASSERT(root && cJSON_IsArray(root));
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < nd; di++) {
        ct_set_device(devs[di]);
        int idx = 0;
        for (const cJSON *c = root->child; c; c = c->next, idx++) {
            const char *func = cJSON_GetObjectItem(c, "func")->valuestring;
            const cJSON *jargs = cJSON_GetObjectItem(c, "args");
            const cJSON *t0 = cJSON_GetObjectItem(jargs->child, "t");
            const char *dtn = t0 ? cJSON_GetObjectItem(t0, "dtype")->valuestring : "float32";
            if (!ct_device_supports(devs[di], dtype_of(dtn)))
                continue;
            ct_set_case("case %d: %s on %s", idx, func, dtn);
            const clops_op *op = NULL;
            CT_OK(clops_op_find(func, &op));
            replay r;
            build_args(jargs, devs[di], &r);
            const cJSON *outs = cJSON_GetObjectItem(c, "outputs");
            bool err = cJSON_GetObjectItem(c, "error") != NULL;
            int nrets = (int)cJSON_GetObjectItem(c, "nrets")->valuedouble;
            clops_value rets[8]; /* _native_batch_norm_legit_functional returns 5 */
            CT_ASSERT_MSG(nrets >= 0 && nrets <= (int)CT_COUNT(rets), "case %d: %d returns", idx,
                          nrets);
            memset(rets, 0, sizeof rets);
            clops_status st = clops_call_boxed(op, r.args, r.nargs, rets, nrets);
            if (err) {
                CT_ASSERT_MSG(st != CLOPS_OK, "PyTorch raised but clops succeeded");
            } else {
                CT_ASSERT_MSG(st == CLOPS_OK, "failed: %s", clops_last_error());
                int j = 0;
                for (const cJSON *o = outs->child; o && st == CLOPS_OK; o = o->next, j++) {
                    bool none = cJSON_GetObjectItem(o, "none") != NULL;
                    CT_ASSERT_MSG(none == (rets[j].tag == CLOPS_V_NONE),
                                  "result %d: PyTorch gives %s", j, none ? "None" : "a tensor");
                    if (rets[j].tag == CLOPS_V_TENSOR)
                        check_output(rets[j].v.t, o, &r);
                }
            }
            for (int j = 0; j < nrets; j++)
                clops_value_clear(&rets[j]);
            for (int j = 0; j < r.nargs; j++)
                clops_value_clear(&r.args[j]);
        }
    }
    ct_clear_context();
    cJSON_Delete(root);
}

