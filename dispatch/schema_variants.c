/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/schema_variants.c: the schemas of an op's in-place and out
 * variants, derived from its functional schema by PyTorch's conventions:
 *
 *   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 *   add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 *   add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 *
 * Used by the build-time generator (inventory entries with `variants`) and by
 * clops_pointwise_register at run time, so both derive the same text.
 */
#include <stdio.h>
#include <string.h>

#include "dispatch/schema.h"

void schema_out_overload(const op_schema *f, char *buf, size_t cap)
{
    if (!f->overload[0] || strcmp(f->overload, "Tensor") == 0)
        snprintf(buf, cap, "out");
    else
        snprintf(buf, cap, "%s_out", f->overload);
}

void schema_derive_variant(strbuf *sb, const op_schema *f, bool inplace, const char *out_overload)
{
    if (inplace) {
        sb_printf(sb, "%s_", f->name);
        if (f->overload[0])
            sb_printf(sb, ".%s", f->overload);
    } else {
        char ov[128];
        if (out_overload)
            snprintf(ov, sizeof ov, "%s", out_overload);
        else
            schema_out_overload(f, ov, sizeof ov);
        sb_printf(sb, "%s.%s", f->name, ov);
    }
    sb_putc(sb, '(');
    bool kw = false;
    for (int i = 0; i < f->nargs; i++) {
        const schema_arg *a = &f->args[i];
        if (i)
            sb_append(sb, ", ");
        if (a->kwarg_only && !kw) {
            sb_append(sb, "*, ");
            kw = true;
        }
        if (inplace && i == 0) {
            schema_alias al;
            memset(&al, 0, sizeof al);
            al.present = true;
            snprintf(al.set, sizeof al.set, "a");
            al.is_write = true;
            schema_type_print(sb, &a->type, &al);
        } else {
            schema_type_print(sb, &a->type, &a->alias);
        }
        sb_printf(sb, " %s", a->name);
        if (a->def.kind != SCHEMA_DEFAULT_NONE_GIVEN && a->def.text)
            sb_printf(sb, "=%s", a->def.text);
    }
    if (!inplace)
        sb_append(sb, f->nargs ? (kw ? ", Tensor(a!) out" : ", *, Tensor(a!) out")
                               : "*, Tensor(a!) out");
    sb_append(sb, ") -> Tensor(a!)");
}
