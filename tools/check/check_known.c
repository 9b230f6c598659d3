/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_known.c: check hints the engine carries for operators
 * whose inventory entry has none, in the inventory's own format
 * (docs/operator-inventory.md, "Check hints").
 *
 * The inventory is the place for this knowledge; these entries exist
 * because the matrix family (dispatch/inventory/gemm.yaml) was written before the
 * check engine and its schemas say nothing about compatible shapes.  A hint
 * in the inventory always wins over an entry here, so moving an entry into
 * the YAML file is a no-op for the checks.  Keys are base names (the name
 * before the overload, without a trailing underscore), so one entry serves
 * the functional, in-place and out variants; `shapes` list the shapes of
 * the op's input tensors in schema order (out= tensors take the
 * reference's result shape).
 *
 * Why each entry says what it says:
 *   - shapes: the matrix products need compatible sizes; each list has an
 *     ordinary case, a zero-size case with K = 0 (the result is beta * self
 *     or zeros) and, where the op broadcasts self, a broadcast self;
 *   - domain small: products of special values (inf * 0, max * max) make
 *     NaN or inf in one summation order and finite numbers in another, and
 *     the reference accumulates in double;
 *   - reduction [arg, dim]: the tolerance grows with the length K of the
 *     dot products (dim `dim` of argument `arg`), see chk_tolerance;
 *   - atol 1e-5 for addr: beta * self + alpha * vec1 * vec2 adds terms up
 *     to about 20 that may cancel, so the error is a few float32 ULPs of
 *     20 (2e-6 each), not of the result;
 *   - unread [self]: copy_, fill_ and zero_ overwrite self without reading
 *     it (the functional forms use only its shape), so a benchmark counts
 *     no read of it (copy_ moves 2 x its bytes, not 3 x);
 *   - dtypes: OpenCL devices run floating matrix products only (CLBlast;
 *     integer products are refused there and run on the CPU device, as
 *     CUDA refuses them in PyTorch), so the cross-device check covers the
 *     floating dtypes.
 */
#include <string.h>

#include "tools/check/check_internal.h"

#define FLOATS "\"dtypes\":[\"float16\",\"bfloat16\",\"float32\",\"float64\"],\"domain\":\"small\""

static const struct {
    const char *base;
    const char *hints;
} known[] = {
    {"mm", "{\"shapes\":[[[5,7],[7,3]],[[4,0],[0,3]]],\"reduction\":[0,1]," FLOATS "}"},
    {"bmm", "{\"shapes\":[[[2,5,7],[2,7,3]],[[2,4,0],[2,0,3]]],\"reduction\":[0,2]," FLOATS "}"},
    {"addmm", "{\"shapes\":[[[5,3],[5,7],[7,3]],[[3],[5,7],[7,3]],[[4,3],[4,0],[0,3]]],"
              "\"reduction\":[1,1],\"args\":{\"beta\":[1,0.5],\"alpha\":[1,2]}," FLOATS "}"},
    {"addmv", "{\"shapes\":[[[5],[5,7],[7]],[[1],[5,7],[7]]],\"reduction\":[1,1],"
              "\"args\":{\"beta\":[1,0.5],\"alpha\":[1,2]}," FLOATS "}"},
    {"mv", "{\"shapes\":[[[5,7],[7]],[[4,0],[0]]],\"reduction\":[0,1]," FLOATS "}"},
    {"dot", "{\"shapes\":[[[7],[7]],[[0],[0]]],\"reduction\":[0,0]," FLOATS "}"},
    {"outer", "{\"shapes\":[[[5],[3]],[[0],[3]]]," FLOATS "}"},
    {"ger", "{\"shapes\":[[[5],[3]]]," FLOATS "}"},
    {"addr", "{\"shapes\":[[[5,3],[5],[3]],[[3],[5],[3]]],\"atol\":1e-5,"
             "\"args\":{\"beta\":[1,0.5],\"alpha\":[1,2]}," FLOATS "}"},
    {"baddbmm", "{\"shapes\":[[[2,5,3],[2,5,7],[2,7,3]],[[5,3],[2,5,7],[2,7,3]]],"
                "\"reduction\":[1,2],\"args\":{\"beta\":[1,0.5],\"alpha\":[1,2]}," FLOATS "}"},
    {"addbmm", "{\"shapes\":[[[5,3],[2,5,7],[2,7,3]],[[3],[2,5,7],[2,7,3]]],"
               "\"reduction\":[1,2],\"args\":{\"beta\":[1,0.5],\"alpha\":[1,2]}," FLOATS "}"},
    {"matmul", "{\"shapes\":[[[5,7],[7,3]],[[7],[7]],[[7],[7,3]],[[5,7],[7]],[[2,5,7],[7,3]],"
               "[[2,1,5,7],[3,7,4]]],\"reduction\":[0,-1]," FLOATS "}"},
    {"linear", "{\"shapes\":[[[5,7],[3,7],[3]],[[2,5,7],[3,7],[3]],[[5,7],[3,7],null]],"
               "\"reduction\":[0,-1]," FLOATS "}"},
    /* Ops that overwrite self: its values are never read. */
    {"copy", "{\"unread\":[\"self\"]}"},
    {"fill", "{\"unread\":[\"self\"]}"},
    {"zero", "{\"unread\":[\"self\"]}"},
    {"zeros_like", "{\"unread\":[\"self\"]}"},
    {"ones_like", "{\"unread\":[\"self\"]}"},
    {"full_like", "{\"unread\":[\"self\"]}"},
    /* Factories whose result is uninitialised memory: nothing to compare. */
    {"empty", "{\"skip\":\"uninitialised result\"}"},
    {"empty_strided", "{\"skip\":\"uninitialised result\"}"},
};

const char *chk_known_hints(const char *op_name)
{
    char base[96];
    size_t len = strcspn(op_name, ".");
    if (len >= sizeof base)
        return NULL;
    memcpy(base, op_name, len);
    base[len] = '\0';
    if (len > 1 && base[len - 1] == '_' && base[len - 2] != '_')
        base[len - 1] = '\0';
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].base, base) == 0)
            return known[i].hints;
    return NULL;
}
