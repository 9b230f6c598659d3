/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_json.c: reading PyTorch golden data (tests/data/golden_NAME.json)
 * written by the tests/data/gen_golden_*.py scripts: the file, dtype
 * names, and value arrays in their encoding (numbers; "nan", "inf",
 * "-inf", "-0" for floats; decimal strings for integers beyond 2^53).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_json.h"

cJSON *ct_json_load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CLOPS_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)(len > 0 ? len : 0) + 1);
    size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!text)
        return NULL;
    text[got] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    return root;
}

clops_dtype ct_dtype_named(const char *s)
{
    for (int d = 0; d < CLOPS_DTYPE_COUNT; d++)
        if (s && strcmp(clops_dtype_name((clops_dtype)d), s) == 0)
            return (clops_dtype)d;
    return CLOPS_DTYPE_NONE;
}

/* One encoded value as the reference compute type of a dtype. */
static pw_value decode(const cJSON *j, bool fl)
{
    pw_value v = {0};
    if (cJSON_IsString(j)) {
        const char *s = j->valuestring;
        if (fl)
            v.f = strcmp(s, "nan") == 0    ? NAN
                  : strcmp(s, "inf") == 0  ? INFINITY
                  : strcmp(s, "-inf") == 0 ? -INFINITY
                  : strcmp(s, "-0") == 0   ? -0.0
                                           : strtod(s, NULL);
        else
            v.i = strtoll(s, NULL, 10);
    } else if (fl) {
        v.f = j->valuedouble;
    } else {
        v.i = (int64_t)j->valuedouble;
    }
    return v;
}

void *ct_json_values(const cJSON *arr, clops_dtype dt)
{
    int n = cJSON_GetArraySize(arr);
    bool fl = clops_dtype_is_floating(dt);
    clops_dtype compute = fl ? CLOPS_FLOAT64 : CLOPS_INT64;
    void *buf = calloc((size_t)(n > 0 ? n : 1), clops_dtype_size(dt));
    for (int i = 0; buf && i < n; i++)
        pw_ref_store(buf, i, dt, compute, decode(cJSON_GetArrayItem(arr, i), fl));
    return buf;
}

ct_tol ct_torch_tol(clops_dtype dt)
{
    switch (dt) {
    case CLOPS_FLOAT16:
    case CLOPS_BFLOAT16:
        return (ct_tol){1.0, 1e-5, false};
    case CLOPS_FLOAT32:
        return (ct_tol){16.0, 1e-5, true};
    case CLOPS_FLOAT64:
        return (ct_tol){16.0, 1e-7, true};
    default:
        return CT_TOL_EXACT;
    }
}

void ct_json_replay(const char *name, void (*fn)(clops_device *dev, const cJSON *c))
{
    cJSON *root = ct_json_load(name);
    if (!root) {
        print_message("%s absent: skipped\n", name);
        skip();
    }
    CT_ASSERT(cJSON_IsArray(root));
    clops_device *devs[CT_MAX_DEVICES];
    int nd = ct_devices(devs, CT_MAX_DEVICES);
    for (int d = 0; d < nd; d++) {
        ct_set_device(devs[d]);
        const cJSON *c;
        cJSON_ArrayForEach(c, root)
        {
            fn(devs[d], c);
        }
    }
    cJSON_Delete(root);
    ct_clear_context();
}
