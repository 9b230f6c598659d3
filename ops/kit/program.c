/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/program.c: the program assembler, a family's program source from
 * the prelude, its headers, its #defines and its cl_kernels/ file, built
 * once per device and cached (ops/kit/kit.h).
 */
#include "ops/kit/kit.h"

/* Appends cl_kernels/<name> after a #line marker naming it. */
static clops_status append_file(strbuf *sb, const char *name)
{
    const char *text = NULL;
    clops_status st = host_cl_source(name, &text);
    if (st)
        return st;
    sb_printf(sb, "#line 1 \"%s\"\n", name);
    sb_append(sb, text);
    sb_append(sb, "\n");
    return CLOPS_OK;
}

clops_status kit_program_source(const kit_program *p, const clops_device *d, strbuf *sb)
{
    clops_status st = CLOPS_OK;
    if (p->title)
        sb_printf(sb, "/* %s */\n", p->title);
    if (!p->bare)
        st = append_file(sb, "pw_prelude.clh");
    for (int i = 0; st == CLOPS_OK && i < 4 && p->headers[i]; i++)
        st = append_file(sb, p->headers[i]);
    if (st == CLOPS_OK && p->write)
        st = p->write(p->ctx, d, sb);
    if (st == CLOPS_OK && p->file) {
        if (p->copies <= 0)
            st = append_file(sb, p->file);
        for (int i = 0; st == CLOPS_OK && i < p->copies; i++)
            if (p->copy(p->ctx, i, sb))
                st = append_file(sb, p->file);
    }
    if (st == CLOPS_OK && sb->failed)
        st = CLOPS__HOST_OOM(p->name);
    return st;
}

/* host_kernel_request's source writer over a kit_program. */
static clops_status gen_source(void *ctx, const clops_device *d, strbuf *sb)
{
    return kit_program_source(ctx, d, sb);
}

clops_status kit_build(clops_device *d, const host_kkey *key, const kit_program *p,
                       const char *kernel, const char *op, host_kernel **out)
{
    host_kernel_request req = {.program_name = p->name,
                               .kernel_name = kernel,
                               .gen_source = gen_source,
                               .ctx = (void *)p,
                               .build_options = p->build_options,
                               .ptx_target = p->ptx_target,
                               .ptx_entry_directives = p->ptx_entry_directives};
    clops_status st = host_kernel_get(d, key, &req, out);
    return st && op ? clops__error_prefix(st, "%s", op) : st;
}

clops_status kit_need_wg(const host_kernel *k, int64_t wg, const clops_device *d, const char *op)
{
    if (wg <= 0 || k->wg_size == (size_t)wg)
        return CLOPS_OK;
    return clops__fail(CLOPS_UNSUPPORTED,
                       "%s: kernel %s needs work-groups of %lld items; %s allows %zu",
                       op ? op : "kernel", k->name, (long long)wg, d->label, k->wg_size);
}

clops_status kit_kernel(clops_device *d, const host_kkey *key, const kit_program *p,
                        const char *kernel, int64_t wg, const char *op, host_kernel **out)
{
    host_kernel *k = kit_find(d, key);
    if (!k) {
        clops_status st = kit_build(d, key, p, kernel, op, &k);
        if (st)
            return st;
    }
    clops_status st = kit_need_wg(k, wg, d, op);
    if (st == CLOPS_OK)
        *out = k;
    return st;
}
