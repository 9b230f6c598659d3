/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cmd_run.c: `clops run`, one operator on .npy inputs with .npy
 * outputs: the way to reproduce a single case on any device and to compare
 * with NumPy or PyTorch.
 *
 *     clops run OP [--device SEL] [--arg NAME=VALUE]... [--bf16-bits]
 *               INPUT.npy... -o OUT.npy [-o OUT.npy]...
 *
 * The inputs bind in order to the schema's tensor arguments (Tensor,
 * Tensor?, in-place targets; `none` passes None); out= arguments are
 * allocated empty in the dtype of the functional op's result and resized by
 * the op; every other argument comes from --arg NAME=VALUE parsed by its
 * schema type, or its default; Device arguments are the selected device.
 * The op is called boxed through the dispatcher, like any other call.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dispatch/dispatch.h"
#include "tools/check/check.h"
#include "tools/cli/cli.h"
#include "tools/cli/npy.h"

static const cli_option run_options[] = {
    CLI_OPTION_DEVICE,
    {"arg", 'a', CLI_OPT_LIST, "NAME=VALUE", "a non-tensor argument, parsed by its schema type"},
    {"output", 'o', CLI_OPT_LIST, "OUT.npy", "where to write the next tensor result"},
    {"bf16-bits", 0, CLI_OPT_FLAG, NULL, "read plain '<u2' inputs as bfloat16 bits"},
    CLI_OPTION_END,
};

#define RUN_MAX_ARGS 64

/* Storage for parsed values (lists and strings the clops_values point to). */
typedef struct parsed {
    int64_t ints[RUN_MAX_ARGS][CLOPS_MAX_DIMS];
    char strs[RUN_MAX_ARGS][256];
} parsed;

/* Whether s spells None. */
static bool is_none(const char *s)
{
    return strcmp(s, "none") == 0 || strcmp(s, "None") == 0 || strcmp(s, "null") == 0;
}

/* Parses a bool; false when s is not one. */
static bool parse_bool(const char *s, bool *out)
{
    if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

/* Parses a whole-string integer. */
static bool parse_int(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (!*s || !end || *end || errno)
        return false;
    *out = v;
    return true;
}

/* Parses a whole-string number (inf, nan, -inf included). */
static bool parse_double(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!*s || !end || *end)
        return false;
    *out = v;
    return true;
}

/* Parses "[0,1]", "0,1" or "3" into ints; returns the count or -1. */
static int parse_int_list(const char *s, int64_t *ints)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    char *p = buf;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '[' || *p == '(')
        p++;
    size_t len = strlen(p);
    while (len && (isspace((unsigned char)p[len - 1]) || p[len - 1] == ']' || p[len - 1] == ')'))
        p[--len] = '\0';
    int n = 0;
    if (!*p)
        return 0;
    for (char *save = NULL, *tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        if (n >= CLOPS_MAX_DIMS || !parse_int(tok, &ints[n]))
            return -1;
        n++;
    }
    return n;
}

/* Parses the text of --arg for schema argument a into v; false with a
 * message in why. */
static bool parse_value(const schema_arg *a, const char *text, int slot, parsed *pv,
                        clops_value *v, char *why, size_t cap)
{
    const schema_type *ty = &a->type;
    if (is_none(text) && ty->optional) {
        *v = clops_value_none();
        return true;
    }
    int64_t i;
    double f;
    bool b;
    switch (ty->base) {
    case SCHEMA_SCALAR:
        if (parse_bool(text, &b) && !isdigit((unsigned char)text[0]))
            *v = clops_value_scalar(clops_scalar_bool(b));
        else if (parse_int(text, &i))
            *v = clops_value_scalar(clops_scalar_int(i));
        else if (parse_double(text, &f))
            *v = clops_value_scalar(clops_scalar_float(f));
        else
            break;
        return true;
    case SCHEMA_INT:
    case SCHEMA_SYMINT:
    case SCHEMA_LAYOUT:
    case SCHEMA_MEMORY_FORMAT:
        if (ty->is_list) {
            int n = parse_int_list(text, pv->ints[slot]);
            if (n < 0)
                break;
            *v = clops_value_ints(pv->ints[slot], n);
            return true;
        }
        if (!parse_int(text, &i))
            break;
        *v = clops_value_int(i);
        if (ty->base == SCHEMA_LAYOUT || ty->base == SCHEMA_MEMORY_FORMAT)
            v->tag = CLOPS_V_ENUM;
        return true;
    case SCHEMA_FLOAT:
        if (!parse_double(text, &f))
            break;
        *v = clops_value_float(f);
        return true;
    case SCHEMA_BOOL:
        if (!parse_bool(text, &b))
            break;
        *v = clops_value_bool(b);
        return true;
    case SCHEMA_STR:
        snprintf(pv->strs[slot], sizeof pv->strs[slot], "%s", text);
        *v = clops_value_string(pv->strs[slot]);
        return true;
    case SCHEMA_SCALAR_TYPE: {
        clops_dtype dt;
        if (clops_dtype_from_name(text, &dt) != CLOPS_OK)
            break;
        *v = clops_value_dtype(dt);
        return true;
    }
    default:
        snprintf(why, cap, "argument '%s': this type cannot be given on the command line",
                 a->name);
        return false;
    }
    snprintf(why, cap, "argument '%s': '%s' is not a valid value for its type", a->name, text);
    return false;
}

/* Reads one .npy file onto dev. */
static int load_input(const char *path, unsigned flags, clops_device *dev, clops_tensor **out)
{
    npy_array a = NPY_ARRAY_INIT;
    clops_status st = npy_read_file(path, flags, &a);
    if (st) {
        cli_error("%s", clops_last_error());
        return CLI_EXIT_USAGE;
    }
    st = clops_from_host(dev, a.dtype, a.ndim, a.shape, a.data, a.nbytes, out);
    npy_free(&a);
    if (st)
        return cli_status_error(st, "copying %s to %s", path, clops_device_label(dev));
    return CLI_EXIT_OK;
}

/* Writes a tensor to a .npy file. */
static int save_output(const char *path, const clops_tensor *t)
{
    npy_array a = NPY_ARRAY_INIT;
    clops_status st = npy_alloc(&a, clops_tensor_dtype(t), clops_tensor_ndim(t),
                                clops_tensor_sizes(t));
    if (st == CLOPS_OK && a.nbytes)
        st = clops_tensor_to_host(t, a.data, a.nbytes);
    if (st == CLOPS_OK)
        st = npy_write_file(path, &a);
    npy_free(&a);
    return st ? cli_status_error(st, "writing %s", path) : CLI_EXIT_OK;
}

/* Prints "name: float32[5, 7] on opencl:0" for a tensor. */
static void describe(const char *what, const clops_tensor *t)
{
    char shape[CLOPS_MAX_DIMS * 22 + 4];
    printf("  %-12s %s%s\n", what, clops_dtype_name(clops_tensor_dtype(t)),
           clops__fmt_shape(shape, sizeof shape, clops_tensor_ndim(t), clops_tensor_sizes(t)));
}

/* The schema's arguments as "name: type" text for usage messages. */
static void list_args(const clops_op *op, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", clops_op_schema(op));
}

/* Creates the empty out= tensors of a call: the dtypes of the functional
 * op's results when there is one (run once on dev), else the first
 * input's dtype. */
static void make_outs(const clops_op *op, clops_value *vals, int nargs, clops_device *dev,
                      clops_tensor **owned)
{
    const op_schema *s = op->schema;
    const clops_op *fn = chk_functional_of(op);
    clops_dtype dts[RUN_MAX_ARGS];
    clops_dtype first = CLOPS_FLOAT32;
    for (int i = 0; i < nargs; i++) {
        dts[i] = CLOPS_DTYPE_NONE;
        if (vals[i].tag == CLOPS_V_TENSOR && first == CLOPS_FLOAT32)
            first = clops_tensor_dtype(vals[i].v.t);
    }
    if (fn && fn != op && fn->schema->nargs <= RUN_MAX_ARGS && fn->schema->nrets <= 8) {
        clops_value fargs[RUN_MAX_ARGS], rets[8];
        bool ok = true;
        for (int j = 0; j < fn->schema->nargs && ok; j++) {
            ok = false;
            for (int i = 0; i < nargs; i++)
                if (strcmp(s->args[i].name, fn->schema->args[j].name) == 0) {
                    fargs[j] = vals[i];
                    ok = true;
                }
        }
        for (int r = 0; r < fn->schema->nrets; r++)
            rets[r] = clops_value_none();
        if (ok && clops_call_boxed(fn, fargs, fn->schema->nargs, rets, fn->schema->nrets) ==
                      CLOPS_OK) {
            int r = 0;
            for (int i = 0; i < nargs; i++)
                if (s->args[i].type.base == SCHEMA_TENSOR && s->args[i].alias.is_write &&
                    s->args[i].kwarg_only && r < fn->schema->nrets) {
                    if (rets[r].tag == CLOPS_V_TENSOR)
                        dts[i] = clops_tensor_dtype(rets[r].v.t);
                    r++;
                }
        }
        for (int r = 0; r < fn->schema->nrets; r++)
            clops_value_clear(&rets[r]);
        clops_clear_error();
    }
    for (int i = 0; i < nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (a->type.base != SCHEMA_TENSOR || !a->alias.is_write || !a->kwarg_only)
            continue;
        clops_dtype dt = dts[i] != CLOPS_DTYPE_NONE ? dts[i] : first;
        if (clops_empty(dev, dt, 1, (const int64_t[]){0}, &owned[i]) == CLOPS_OK)
            vals[i] = clops_value_tensor(owned[i]);
    }
}

/* Runs `clops run`. */
static int run_run(const cli_args *args)
{
    const cli_command *cmd = args->cmd;
    const clops_op *op = NULL;
    if (clops_op_find(args->pos[0], &op) != CLOPS_OK)
        return cli_usage_error(cmd, "%s", clops_last_error());
    const op_schema *s = op->schema;
    if (s->nargs > RUN_MAX_ARGS)
        return cli_usage_error(cmd, "%s has too many arguments for clops run", args->pos[0]);
    clops_device **devs = NULL;
    int ndev = 0;
    int rc = cli_select_devices(args, CLI_DEVICES_DEFAULT, &devs, &ndev);
    if (rc)
        return rc;
    if (ndev != 1) {
        free(devs);
        return cli_usage_error(cmd, "clops run takes one device, %d were selected", ndev);
    }
    clops_device *dev = devs[0];
    free(devs);

    parsed *pv = calloc(1, sizeof *pv);
    clops_value vals[RUN_MAX_ARGS];
    clops_tensor *owned[RUN_MAX_ARGS] = {0};
    bool given[RUN_MAX_ARGS] = {0};
    char schema_text[2048];
    list_args(op, schema_text, sizeof schema_text);
    if (!pv) {
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    unsigned flags = cli_flag(args, "bf16-bits") ? NPY_READ_U2_AS_BFLOAT16 : 0;
    /* Tensor inputs from the files, in order. */
    int next = 1;
    for (int i = 0; i < s->nargs && rc == CLI_EXIT_OK; i++) {
        const schema_arg *a = &s->args[i];
        vals[i] = clops_value_none();
        if (a->type.base != SCHEMA_TENSOR || (a->alias.is_write && a->kwarg_only))
            continue;
        if (a->type.is_list) {
            rc = cli_usage_error(cmd, "%s takes a tensor list ('%s'), which clops run cannot "
                                      "pass", clops_op_name(op), a->name);
            break;
        }
        if (next >= args->npos) {
            rc = cli_usage_error(cmd, "%s needs an input file for tensor argument '%s' "
                                      "(schema: %s)", clops_op_name(op), a->name, schema_text);
            break;
        }
        const char *path = args->pos[next++];
        given[i] = true;
        if (is_none(path)) {
            if (!a->type.optional)
                rc = cli_usage_error(cmd, "tensor argument '%s' cannot be None", a->name);
            continue;
        }
        rc = load_input(path, flags, dev, &owned[i]);
        if (rc == CLI_EXIT_OK)
            vals[i] = clops_value_tensor(owned[i]);
    }
    if (rc == CLI_EXIT_OK && next < args->npos)
        rc = cli_usage_error(cmd, "%d more input file(s) than tensor arguments (schema: %s)",
                             args->npos - next, schema_text);
    /* Other arguments from --arg. */
    for (int k = 0; rc == CLI_EXIT_OK && k < cli_count(args, "arg"); k++) {
        const char *text = cli_value_at(args, "arg", k);
        const char *eq = strchr(text, '=');
        int found = -1;
        for (int i = 0; eq && i < s->nargs; i++)
            if (strlen(s->args[i].name) == (size_t)(eq - text) &&
                strncmp(s->args[i].name, text, (size_t)(eq - text)) == 0)
                found = i;
        if (!eq || found < 0) {
            rc = cli_usage_error(cmd, "--arg '%s' names no argument of %s (schema: %s)", text,
                                 clops_op_name(op), schema_text);
            break;
        }
        const schema_arg *a = &s->args[found];
        if (a->type.base == SCHEMA_TENSOR || a->type.base == SCHEMA_DEVICE) {
            rc = cli_usage_error(cmd, "argument '%s' is a %s: give it as %s", a->name,
                                 a->type.base == SCHEMA_TENSOR ? "tensor" : "device",
                                 a->type.base == SCHEMA_TENSOR ? "an input file" : "--device");
            break;
        }
        char why[256];
        if (!parse_value(a, eq + 1, found, pv, &vals[found], why, sizeof why)) {
            rc = cli_usage_error(cmd, "%s", why);
            break;
        }
        given[found] = true;
    }
    /* Defaults, devices, and what is missing. */
    for (int i = 0; rc == CLI_EXIT_OK && i < s->nargs; i++) {
        const schema_arg *a = &s->args[i];
        if (given[i] || (a->type.base == SCHEMA_TENSOR && a->alias.is_write && a->kwarg_only))
            continue;
        if (a->type.base == SCHEMA_DEVICE) {
            vals[i] = clops_value_device(dev);
        } else if (op->has_default && op->has_default[i]) {
            vals[i] = op->defaults[i];
        } else if (a->type.optional) {
            vals[i] = clops_value_none();
        } else {
            rc = cli_usage_error(cmd, "missing argument '%s' (give --arg %s=VALUE; schema: %s)",
                                 a->name, a->name, schema_text);
        }
    }
    int nout_given = cli_count(args, "output");
    int nrets = s->nrets;
    clops_value rets[16];
    for (int r = 0; r < 16; r++)
        rets[r] = clops_value_none();
    if (rc == CLI_EXIT_OK && nrets > 16)
        rc = cli_usage_error(cmd, "%s returns too many values", clops_op_name(op));
    double secs = 0;
    char kernel[96] = "";
    chk_kernel kind = CHK_KERNEL_NONE;
    if (rc == CLI_EXIT_OK) {
        make_outs(op, vals, s->nargs, dev, owned);
        kind = chk_resolve_kernel(op, dev, kernel, sizeof kernel);
        uint64_t fb = clops_fallback_count(op);
        double t0 = cli_now();
        clops_status st = clops_call_boxed(op, vals, s->nargs, rets, nrets);
        if (st == CLOPS_OK)
            st = clops_device_synchronize(dev);
        secs = cli_now() - t0;
        if (clops_fallback_count(op) > fb)
            kind = CHK_KERNEL_FALLBACK;
        /* The command line was fine; the op refused its inputs or failed
         * while running: exit 3 whatever the status (docs/cli.md). */
        if (st) {
            cli_status_error(st, "%s on %s", clops_op_name(op), clops_device_label(dev));
            rc = CLI_EXIT_RUNTIME;
        }
    }
    if (rc == CLI_EXIT_OK) {
        printf("%s\n  device       %s (%s)\n  kernel       %s %s\n", clops_op_schema(op),
               clops_device_label(dev), clops_device_get_info(dev)->name, chk_kernel_name(kind),
               kernel);
        for (int i = 0; i < s->nargs; i++)
            if (vals[i].tag == CLOPS_V_TENSOR && !(s->args[i].alias.is_write &&
                                                   s->args[i].kwarg_only))
                describe(s->args[i].name, vals[i].v.t);
        int written = 0;
        for (int r = 0; r < nrets && rc == CLI_EXIT_OK; r++) {
            char what[32];
            snprintf(what, sizeof what, "result %d", r);
            if (rets[r].tag == CLOPS_V_TENSOR) {
                describe(what, rets[r].v.t);
                if (written < nout_given)
                    rc = save_output(cli_value_at(args, "output", written++), rets[r].v.t);
            } else if (rets[r].tag == CLOPS_V_TENSOR_LIST) {
                for (int k = 0; k < rets[r].v.tensors.len && rc == CLI_EXIT_OK; k++) {
                    if (!rets[r].v.tensors.data[k])
                        continue;
                    snprintf(what, sizeof what, "result %d[%d]", r, k);
                    describe(what, rets[r].v.tensors.data[k]);
                    if (written < nout_given) {
                        char path[4200];
                        const char *base = cli_value_at(args, "output", written);
                        const char *dot = strstr(base, ".npy");
                        snprintf(path, sizeof path, "%.*s_%d.npy",
                                 (int)(dot ? (size_t)(dot - base) : strlen(base)), base, k);
                        rc = save_output(path, rets[r].v.tensors.data[k]);
                    }
                }
                written++;
            } else if (rets[r].tag == CLOPS_V_SCALAR) {
                clops_scalar sc = rets[r].v.s;
                if (sc.kind == CLOPS_SCALAR_FLOAT)
                    printf("  %-12s %.17g\n", what, sc.v.f);
                else if (sc.kind == CLOPS_SCALAR_INT)
                    printf("  %-12s %lld\n", what, (long long)sc.v.i);
                else
                    printf("  %-12s %s\n", what, sc.v.b ? "True" : "False");
            }
        }
        char t[32];
        printf("  time         %s\n", cli_fmt_seconds(secs, t, sizeof t));
        if (rc == CLI_EXIT_OK && nout_given > written)
            rc = cli_usage_error(cmd, "%d output file(s) given, %s has %d tensor result(s)",
                                 nout_given, clops_op_name(op), written);
    }
    for (int r = 0; r < 16; r++)
        clops_value_clear(&rets[r]);
    for (int i = 0; i < s->nargs; i++)
        clops_tensor_release(owned[i]);
    free(pv);
    return rc;
}

const cli_command cli_cmd_run = {
    .name = "run",
    .summary = "one op on .npy inputs, .npy outputs: reproduce a single case anywhere",
    .usage = "clops run OP [--device SEL] [--arg NAME=VALUE]... [--bf16-bits] INPUT.npy... "
             "-o OUT.npy [-o OUT.npy]...",
    .help = "Runs one operator (its qualified name: add.Tensor, relu) on the selected device "
            "(default: CLOPS_DEVICE, else the first GPU, else the first OpenCL device, else "
            "the CPU).  The input files bind in order to the schema's tensor arguments "
            "(Tensor, Tensor?, in-place targets; the word 'none' passes None); out= "
            "arguments are allocated by clops.  Every other argument comes from --arg "
            "NAME=VALUE parsed by its schema type (Scalar/float: 2.5, -inf, nan; int: 3; "
            "bool: true/false; int[]: [0,1] or 0,1; ScalarType: float16; str) or takes its "
            "default.  One -o per tensor result, in order (a Tensor[] result writes OUT_0.npy, "
            "OUT_1.npy, ...).  Prints the schema, the device, the kernel that ran (device, "
            "override, fallback), the shapes and the time.  Exit 2: the command line is wrong "
            "before the op is called (unknown op, option, device or argument, a value that "
            "does not parse, a bad .npy file: wrong magic, truncated data, unsupported dtype; "
            "more -o than results).  Exit 3: the op was called and refused its inputs (shapes "
            "that do not broadcast, a dtype it does not take, an unsupported value such as "
            "approximate='cubic', int64 mm on OpenCL) or failed while running.",
    .options = run_options,
    .min_pos = 1,
    .max_pos = -1,
    .run = run_run,
};
