/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/dtype.c: the accessors of the dtype table (ops/kit/dtypes.def)
 * and the load/store spellings of generated kernels (ops/kit/kit.h).
 */
#include <string.h>

#include "ops/kit/kit.h"

typedef struct kit_dtype_row {
    const char *tag, *storage, *bits, *compute, *uns;
    clops_dtype compute_dt;
    kit_ls ls;
} kit_dtype_row;

static const kit_dtype_row rows[CLOPS_DTYPE_COUNT] = {
#define KIT_DTYPE(dt, tag, c_type, storage, bits, compute, uns, compute_dt, ls)                \
    [CLOPS_##dt] = {tag, storage, bits, compute, uns, CLOPS_##compute_dt, KIT_LS_##ls},
#include "ops/kit/dtypes.def"
#undef KIT_DTYPE
};

/* The C type column: one element of each dtype is its size in
 * CLOPS_DTYPE_LIST (include/clops/dtype.h) bytes. */
#define KIT__SIZE(e, name, size) enum { CLOPS__DTYPE_SIZE_##e = size };
CLOPS_DTYPE_LIST(KIT__SIZE)
#undef KIT__SIZE
#define KIT_DTYPE(dt, tag, c_type, storage, bits, compute, uns, compute_dt, ls)                \
    _Static_assert(sizeof(c_type) == CLOPS__DTYPE_SIZE_##dt, "dtypes.def: C type of " #dt);
#include "ops/kit/dtypes.def"
#undef KIT_DTYPE

static const kit_dtype_row *row(clops_dtype dt)
{
    return (dt >= 0 && dt < CLOPS_DTYPE_COUNT) ? &rows[dt] : NULL;
}

const char *kit_dtype_tag(clops_dtype dt)
{
    return row(dt) ? row(dt)->tag : "xx";
}

const char *kit_cl_storage(clops_dtype dt)
{
    return row(dt) ? row(dt)->storage : "void";
}

const char *kit_cl_bits(clops_dtype dt)
{
    return row(dt) ? row(dt)->bits : "void";
}

const char *kit_cl_compute(clops_dtype dt)
{
    return row(dt) ? row(dt)->compute : "void";
}

const char *kit_cl_unsigned(clops_dtype dt)
{
    return row(dt) ? row(dt)->uns : "void";
}

clops_dtype kit_compute_dtype(clops_dtype dt)
{
    return row(dt) ? row(dt)->compute_dt : dt;
}

kit_ls kit_load_store(clops_dtype dt)
{
    return row(dt) ? row(dt)->ls : KIT_LS_PLAIN;
}

void kit_cl_load(strbuf *sb, clops_dtype dt, const char *ptr, const char *idx)
{
    switch (kit_load_store(dt)) {
    case KIT_LS_HALF:
        sb_printf(sb, "vload_half(0, %s + %s)", ptr, idx);
        break;
    case KIT_LS_BF16:
        sb_printf(sb, "clops_bf16_to_float(%s[%s])", ptr, idx);
        break;
    default:
        sb_printf(sb, "%s[%s]", ptr, idx);
        break;
    }
}

void kit_cl_store(strbuf *sb, clops_dtype dt, const char *ptr, const char *idx, const char *val)
{
    switch (kit_load_store(dt)) {
    case KIT_LS_HALF:
        sb_printf(sb, "vstore_half_rte(%s, 0, %s + %s)", val, ptr, idx);
        break;
    case KIT_LS_BF16:
        sb_printf(sb, "%s[%s] = clops_float_to_bf16(%s)", ptr, idx, val);
        break;
    default:
        sb_printf(sb, "%s[%s] = %s", ptr, idx, val);
        break;
    }
}

void kit_cl_vload(strbuf *sb, clops_dtype dt, int n, const char *at)
{
    switch (kit_load_store(dt)) {
    case KIT_LS_HALF:
        sb_printf(sb, "vload_half%d(0, %s)", n, at);
        break;
    case KIT_LS_BF16:
        sb_printf(sb, "clops_bf16_to_float%d(vload%d(0, %s))", n, n, at);
        break;
    default:
        sb_printf(sb, "vload%d(0, %s)", n, at);
        break;
    }
}
