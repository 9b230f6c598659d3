/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_json.h: helpers for PyTorch golden data files
 * (tests/data/golden_NAME.json, written by tests/data/gen_golden_NAME.py).
 */
#ifndef CLOPS_TESTS_SUPPORT_CT_JSON_H
#define CLOPS_TESTS_SUPPORT_CT_JSON_H

#include <cjson/cJSON.h>

#include "clops_test.h"

/* The parsed file tests/data/<name>, or NULL when absent or unparsable
 * (free with cJSON_Delete). */
cJSON *ct_json_load(const char *name);
/* The dtype named "float32" etc.; CLOPS_DTYPE_NONE when unknown. */
clops_dtype ct_dtype_named(const char *s);
/* A JSON array of encoded values (numbers; "nan", "inf", "-inf", "-0";
 * decimal strings for large integers) as a malloc'd row-major buffer of
 * dtype dt. */
void *ct_json_values(const cJSON *arr, clops_dtype dt);
/* torch.testing's default tolerance for a dtype (exact for integers);
 * zeros must have PyTorch's sign for float32 and float64. */
ct_tol ct_torch_tol(clops_dtype dt);

/* Replays every case (array element) of tests/data/<name> on every device
 * under test through fn, with the device context set; skips the cmocka
 * test, saying so, when the file is absent. */
void ct_json_replay(const char *name, void (*fn)(clops_device *dev, const cJSON *c));

#endif /* CLOPS_TESTS_SUPPORT_CT_JSON_H */
