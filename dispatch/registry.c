/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispatch/registry.c: the operator registry and kernel tables.
 *
 * On first use the registry creates one clops_op per entry of the generated
 * inventory (parsing its schema with dispatch/schema.c) and installs its
 * kernels.  Users may add operators (clops_op_define) and kernels
 * (clops_kernel_register) at any time; every change recomputes the op's
 * resolved kernels under the registry lock and publishes them with atomic
 * stores, so calls never take a lock.
 *
 * Kernel records are never freed while the library is up: a thread may be
 * running a kernel at the moment another thread removes it.  They are freed
 * at clops_shutdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dispatch/dispatch.h"
#include "host/host.h"

#define MAX_USER_OPS 4096

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_bool dispatch_ready;
static struct clops_op **ops;
static int nops;
static int ops_cap;
/* Every kernel record ever made, for freeing at shutdown. */
static dispatch_kernel **all_kernels;
static int nkernels, kernels_cap;

struct clops_override {
    dispatch_kernel *kernel;
};

const char *clops_dispatch_key_name(clops_dispatch_key key)
{
    static const char *const names[] = {
#define KEY_NAME(e, name) name,
        CLOPS_DISPATCH_KEY_LIST(KEY_NAME)
#undef KEY_NAME
    };
    if ((int)key < 0 || key >= CLOPS_KEY_COUNT)
        return "invalid";
    return names[key];
}

clops_status clops_dispatch_key_from_name(const char *name, clops_dispatch_key *out)
{
    if (!name || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_dispatch_key_from_name: NULL argument");
    for (int k = 0; k < CLOPS_KEY_COUNT; k++)
        if (strcasecmp(name, clops_dispatch_key_name((clops_dispatch_key)k)) == 0) {
            *out = (clops_dispatch_key)k;
            return CLOPS_OK;
        }
    if (strcasecmp(name, "other") == 0) {
        *out = CLOPS_KEY_OTHER;
        return CLOPS_OK;
    }
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "unknown dispatch key '%s' (CPU, OpenCL, NVIDIA, AMD, Intel, POCL, "
                       "OtherVendor, Fallback)",
                       name);
}

const char *clops_provenance_name(clops_provenance p)
{
    static const char *const names[] = {"missing", "kernel", "structured", "override",
                                        "fallback"};
    if ((int)p < 0 || p > CLOPS_PROV_FALLBACK)
        return "invalid";
    return names[p];
}

int dispatch_target_of(const clops_device *d)
{
    switch (d->info.vendor) {
    case CLOPS_VENDOR_HOST:
        return CLOPS_KEY_CPU;
    case CLOPS_VENDOR_NVIDIA:
        return CLOPS_KEY_NVIDIA;
    case CLOPS_VENDOR_AMD:
        return CLOPS_KEY_AMD;
    case CLOPS_VENDOR_INTEL:
        return CLOPS_KEY_INTEL;
    case CLOPS_VENDOR_POCL:
        return CLOPS_KEY_POCL;
    default:
        return CLOPS_KEY_OTHER;
    }
}

/* Remembers a kernel record for freeing at shutdown (lock held). */
static clops_status track_kernel(dispatch_kernel *k)
{
    if (nkernels == kernels_cap) {
        int cap = kernels_cap ? kernels_cap * 2 : 1024;
        dispatch_kernel **p = realloc(all_kernels, (size_t)cap * sizeof *p);
        if (!p)
            return CLOPS__HOST_OOM("kernel list");
        all_kernels = p;
        kernels_cap = cap;
    }
    all_kernels[nkernels++] = k;
    return CLOPS_OK;
}

/* The kernel a call from `target` resolves to, starting below `from`
 * (-1: from the top).  Priority: vendor key, OpenCL, Fallback. */
static dispatch_kernel *resolve_from(const struct clops_op *op, int target, int from)
{
    if (target == CLOPS_KEY_CPU)
        return from < 0 ? op->slots[CLOPS_KEY_CPU] : NULL;
    const int order[] = {target, CLOPS_KEY_OPENCL, CLOPS_KEY_FALLBACK};
    int start = 0;
    if (from >= 0) {
        for (int i = 0; i < 3; i++)
            if (order[i] == from)
                start = i + 1;
    }
    for (int i = start; i < 3; i++)
        if (op->slots[order[i]])
            return op->slots[order[i]];
    /* The CPU fallback needs a CPU kernel to run. */
    if (op->slots[CLOPS_KEY_CPU])
        return &dispatch_fallback_kernel;
    return NULL;
}

/* The kernel an override's fallback call reaches.  The stacks are read
 * under the registry lock: another thread may be registering or removing a
 * kernel of the same op (calls through the resolved table never lock; only
 * this redispatch path does). */
dispatch_kernel *dispatch_next_kernel(const struct clops_op *op, const dispatch_kernel *k,
                                      int target)
{
    if (k->flags & CLOPS_OVERRIDE_UNCONDITIONAL)
        return NULL;
    if (k == &dispatch_fallback_kernel)
        return NULL;
    pthread_mutex_lock(&reg_lock);
    dispatch_kernel *next = k->below ? k->below : resolve_from(op, target, k->key);
    pthread_mutex_unlock(&reg_lock);
    return next;
}

void dispatch_resolve_op(struct clops_op *op)
{
    for (int t = 0; t < DISPATCH_NTARGETS; t++)
        atomic_store_explicit(&op->resolved[t], resolve_from(op, t, -1), memory_order_release);
}

void dispatch_keys_with_kernels(const struct clops_op *op, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int k = 0; k < CLOPS_KEY_COUNT && pos < cap; k++)
        if (op->slots[k])
            pos += (size_t)snprintf(buf + pos, cap - pos, "%s%s", pos ? ", " : "",
                                    clops_dispatch_key_name((clops_dispatch_key)k));
    if (!buf[0])
        snprintf(buf, cap, "none");
}

/* Frees one op record. */
static void free_op(struct clops_op *op)
{
    if (!op)
        return;
    schema_free(op->schema);
    free(op->name);
    free(op->text);
    free(op->tags);
    free(op->defaults);
    free(op->has_default);
    free(op->default_ints);
    free(op);
}

/* Creates an op from schema text (lock held).  No name check. */
static clops_status make_op(const char *text, const char *tags, dispatch_adapter adapter,
                            struct clops_op **out)
{
    struct clops_op *op = calloc(1, sizeof *op);
    if (!op)
        return CLOPS__HOST_OOM("operator record");
    clops_status st = schema_parse(text, &op->schema);
    if (st)
        goto fail;
    op->name = schema_qualified_name(op->schema);
    op->text = schema_to_string(op->schema);
    op->tags = malloc(strlen(tags ? tags : "") + 1);
    if (!op->name || !op->text || !op->tags) {
        st = CLOPS__HOST_OOM("operator record");
        goto fail;
    }
    strcpy(op->tags, tags ? tags : "");
    op->adapter = adapter;
    op->takes_complex = clops_op_has_tag(op, "complex");
    for (int k = 0; k < op->schema->nrets; k++)
        if (op->schema->rets[k].alias.present && !op->schema->rets[k].alias.is_write)
            op->takes_complex = true;
    st = dispatch_build_defaults(op);
    if (st)
        goto fail;
    *out = op;
    return CLOPS_OK;
fail:
    free_op(op);
    return st;
}

/* Installs a builtin kernel at its key (lock held). */
static clops_status install_builtin(struct clops_op *op, const dispatch_builtin_kernel *bk)
{
    dispatch_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return CLOPS__HOST_OOM("kernel record");
    k->typed = bk->typed;
    k->name = bk->name;
    k->provenance = bk->provenance;
    k->key = bk->key;
    k->op = op;
    clops_status st = track_kernel(k);
    if (st) {
        free(k);
        return st;
    }
    k->below = op->slots[bk->key];
    op->slots[bk->key] = k;
    return CLOPS_OK;
}

/* Builds the registry from the generated table (lock held). */
static clops_status build_registry(void)
{
    ops_cap = dispatch_builtin_op_count + MAX_USER_OPS;
    ops = calloc((size_t)ops_cap, sizeof *ops);
    if (!ops)
        return CLOPS__HOST_OOM("operator table");
    for (int i = 0; i < dispatch_builtin_op_count; i++) {
        const dispatch_builtin_op *b = &dispatch_builtin_ops[i];
        struct clops_op *op = NULL;
        clops_status st = make_op(b->schema, b->tags, b->adapter, &op);
        if (st)
            return clops__error_prefix(st, "registering builtin operator %d", i);
        op->id = i;
        op->check = b->check;
        op->family = b->family;
        op->no_device_check = b->no_device_check;
        ops[nops++] = op;
        for (int k = 0; k < b->nkernels; k++) {
            st = install_builtin(op, &b->kernels[k]);
            if (st)
                return st;
        }
        dispatch_resolve_op(op);
    }
    return CLOPS_OK;
}

/* Frees everything (lock held). */
static void free_registry(void)
{
    for (int i = 0; i < nops; i++)
        free_op(ops[i]);
    free(ops);
    ops = NULL;
    nops = ops_cap = 0;
    for (int i = 0; i < nkernels; i++) {
        if (all_kernels[i]->owns_name)
            free((char *)all_kernels[i]->name);
        free(all_kernels[i]);
    }
    free(all_kernels);
    all_kernels = NULL;
    nkernels = kernels_cap = 0;
}

clops_status dispatch_ensure_init(void)
{
    if (atomic_load_explicit(&dispatch_ready, memory_order_acquire))
        return CLOPS_OK;
    clops_status st = host_init();
    if (st)
        return st;
    pthread_mutex_lock(&reg_lock);
    if (!atomic_load_explicit(&dispatch_ready, memory_order_relaxed)) {
        const char *t = host_env("CLOPS_TRACE");
        if (t && strcmp(t, "0") != 0)
            atomic_store(&dispatch_tracing, true);
        st = build_registry();
        if (st)
            free_registry();
        else
            atomic_store_explicit(&dispatch_ready, true, memory_order_release);
    }
    pthread_mutex_unlock(&reg_lock);
    if (st == CLOPS_OK)
        dispatch_fallback_after_init();
    return st;
}

void dispatch_shutdown(void)
{
    pthread_mutex_lock(&reg_lock);
    if (atomic_load(&dispatch_ready)) {
        free_registry();
        atomic_store(&dispatch_ready, false);
    }
    pthread_mutex_unlock(&reg_lock);
}

struct clops_op *dispatch_op(int id)
{
    return ops[id];
}

/* ---- public: operators ---------------------------------------------------- */

clops_status clops_op_find(const char *qualified_name, const clops_op **op)
{
    if (!qualified_name || !op)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_op_find: NULL argument");
    clops_status st = dispatch_ensure_init();
    if (st)
        return st;
    pthread_mutex_lock(&reg_lock);
    struct clops_op *found = NULL;
    for (int i = 0; i < nops && !found; i++)
        if (strcmp(ops[i]->name, qualified_name) == 0)
            found = ops[i];
    /* "add" finds "add.Tensor" when the base name is unambiguous... no:
     * PyTorch requires the overload; suggest candidates instead. */
    char hints[512] = "";
    if (!found) {
        size_t pos = 0, n = strcspn(qualified_name, ".");
        for (int i = 0; i < nops && pos < sizeof hints - 64; i++)
            if (strncmp(ops[i]->name, qualified_name, n) == 0 &&
                (ops[i]->name[n] == '.' || ops[i]->name[n] == '\0'))
                pos += (size_t)snprintf(hints + pos, sizeof hints - pos, "%s%s", pos ? ", " : "",
                                        ops[i]->name);
    }
    pthread_mutex_unlock(&reg_lock);
    if (!found)
        return clops__fail(CLOPS_UNKNOWN_OP, "unknown operator '%s'%s%s%s", qualified_name,
                           hints[0] ? " (did you mean: " : "", hints, hints[0] ? ")" : "");
    *op = found;
    return CLOPS_OK;
}

int clops_op_count(void)
{
    if (dispatch_ensure_init())
        return 0;
    return nops;
}

const clops_op *clops_op_at(int index)
{
    if (dispatch_ensure_init() || index < 0 || index >= nops)
        return NULL;
    return ops[index];
}

const char *clops_op_name(const clops_op *op)
{
    return op ? op->name : "(null)";
}

const char *clops_op_schema(const clops_op *op)
{
    return op ? op->text : "";
}

const char *clops_op_tags(const clops_op *op)
{
    return op ? op->tags : "";
}

bool clops_op_has_tag(const clops_op *op, const char *tag)
{
    if (!op || !tag)
        return false;
    size_t n = strlen(tag);
    for (const char *p = op->tags; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, tag, n) == 0)
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

const char *dispatch_op_check_hints(const clops_op *op)
{
    return op ? op->check : NULL;
}

/* Index of the op in the registry. */
int dispatch_op_id(const clops_op *op)
{
    return op ? op->id : -1;
}

const char *dispatch_op_family(const clops_op *op)
{
    return op ? op->family : NULL;
}

int clops_op_num_args(const clops_op *op)
{
    return op ? op->schema->nargs : 0;
}

int clops_op_num_returns(const clops_op *op)
{
    return op ? op->schema->nrets : 0;
}

clops_status clops_op_define(const char *schema, const char *tags, const clops_op **out)
{
    if (!schema)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_op_define: schema is NULL");
    clops_status st = dispatch_ensure_init();
    if (st)
        return st;
    pthread_mutex_lock(&reg_lock);
    struct clops_op *op = NULL;
    st = make_op(schema, tags, NULL, &op);
    if (st == CLOPS_OK) {
        for (int i = 0; i < nops; i++)
            if (strcmp(ops[i]->name, op->name) == 0) {
                st = clops__fail(CLOPS_ALREADY_REGISTERED, "clops_op_define: operator %s exists",
                                 op->name);
                break;
            }
    }
    if (st == CLOPS_OK && nops == ops_cap)
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "clops_op_define: too many operators (%d)",
                         ops_cap);
    if (st == CLOPS_OK) {
        op->id = nops;
        dispatch_resolve_op(op);
        dispatch_fallback_on_define(op);
        ops[nops++] = op;
        if (out)
            *out = op;
    } else {
        free_op(op);
    }
    pthread_mutex_unlock(&reg_lock);
    return st;
}

/* ---- public: kernels -------------------------------------------------------- */

clops_status clops_kernel_register(const clops_op *cop, clops_dispatch_key key,
                                   clops_boxed_kernel fn, void *data, const char *name,
                                   unsigned flags, clops_override **handle)
{
    if (!cop || !fn || (int)key < 0 || key >= CLOPS_KEY_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_kernel_register: bad op, key or function");
    struct clops_op *op = (struct clops_op *)cop;
    clops_override *h = handle ? calloc(1, sizeof *h) : NULL;
    dispatch_kernel *k = calloc(1, sizeof *k);
    char *nm = malloc(strlen(name ? name : "user kernel") + 1);
    if (!k || !nm || (handle && !h)) {
        free(h);
        free(k);
        free(nm);
        return CLOPS__HOST_OOM("kernel record");
    }
    strcpy(nm, name ? name : "user kernel");
    k->boxed = fn;
    k->data = data;
    k->name = nm;
    k->owns_name = true;
    k->key = key;
    k->flags = flags;
    k->op = op;
    pthread_mutex_lock(&reg_lock);
    clops_status st = CLOPS_OK;
    dispatch_kernel *top = op->slots[key];
    if (top && top->provenance == CLOPS_PROV_OVERRIDE && !(flags & CLOPS_OVERRIDE_ALLOW_MULTIPLE))
        st = clops__fail(CLOPS_ALREADY_REGISTERED,
                         "%s: an override ('%s') is already registered for key %s; pass "
                         "CLOPS_OVERRIDE_ALLOW_MULTIPLE to stack another",
                         op->name, top->name, clops_dispatch_key_name(key));
    if (st == CLOPS_OK)
        st = track_kernel(k);
    if (st) {
        pthread_mutex_unlock(&reg_lock);
        free(h);
        free(nm);
        free(k);
        return st;
    }
    k->provenance = top ? CLOPS_PROV_OVERRIDE : CLOPS_PROV_KERNEL;
    /* Even the first kernel at a vendor key overrides what the key below
     * would run: it is an override for the purpose of fallback calls. */
    if (!top && key != CLOPS_KEY_CPU && key != CLOPS_KEY_OPENCL)
        k->provenance = CLOPS_PROV_OVERRIDE;
    k->below = top;
    op->slots[key] = k;
    dispatch_resolve_op(op);
    pthread_mutex_unlock(&reg_lock);
    if (h) {
        h->kernel = k;
        *handle = h;
    }
    return CLOPS_OK;
}

clops_status clops_kernel_remove(clops_override *handle)
{
    if (!handle)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_kernel_remove: NULL handle");
    dispatch_kernel *k = handle->kernel;
    struct clops_op *op = k->op;
    pthread_mutex_lock(&reg_lock);
    clops_status st = CLOPS_OK;
    if (k->removed) {
        st = clops__fail(CLOPS_INVALID_ARGUMENT, "clops_kernel_remove: already removed");
    } else {
        /* Unlink k from its key's stack, wherever it sits. */
        dispatch_kernel **pp = &op->slots[k->key];
        while (*pp && *pp != k)
            pp = &(*pp)->below;
        if (*pp)
            *pp = k->below;
        k->removed = true;
        dispatch_resolve_op(op);
    }
    pthread_mutex_unlock(&reg_lock);
    free(handle);
    return st;
}

clops_status clops_op_kernel_info(const clops_op *cop, clops_dispatch_key key,
                                  clops_kernel_info *out)
{
    if (!cop || !out || (int)key < 0 || key >= CLOPS_KEY_COUNT)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_op_kernel_info: bad argument");
    pthread_mutex_lock(&reg_lock);
    const dispatch_kernel *k = cop->slots[key];
    out->key = key;
    out->depth = 0;
    for (const dispatch_kernel *p = k; p; p = p->below)
        out->depth++;
    if (k) {
        out->provenance = k->provenance;
        out->name = k->name;
    } else if (key == CLOPS_KEY_FALLBACK && cop->slots[CLOPS_KEY_CPU]) {
        out->provenance = CLOPS_PROV_FALLBACK;
        out->name = dispatch_fallback_kernel.name;
    } else {
        out->provenance = CLOPS_PROV_MISSING;
        out->name = NULL;
    }
    pthread_mutex_unlock(&reg_lock);
    return CLOPS_OK;
}

clops_status clops_op_resolve(const clops_op *cop, const clops_device *device,
                              clops_kernel_info *out)
{
    if (!cop || !device || !out)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "clops_op_resolve: NULL argument");
    const dispatch_kernel *k =
        atomic_load_explicit(&((struct clops_op *)cop)->resolved[dispatch_target_of(device)],
                             memory_order_acquire);
    memset(out, 0, sizeof *out);
    if (!k) {
        out->provenance = CLOPS_PROV_MISSING;
        out->key = CLOPS_KEY_FALLBACK;
        return CLOPS_OK;
    }
    out->key = k->key;
    out->provenance = k->provenance;
    out->name = k->name;
    out->depth = 1;
    return CLOPS_OK;
}
