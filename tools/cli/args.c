/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/args.c: command-line parsing for every `clops` subcommand, and
 * the helpers that turn the shared options (--device, --dtype, --op) into
 * devices, dtype masks and op filters.
 *
 * The parser is deliberately small and strict: options are looked up in the
 * command's table, a value option always takes the next word (so `--json -`
 * works), an unknown option or a missing value is a usage error naming the
 * command, and `--help`/`-h` anywhere prints the command's help.
 */
#include <ctype.h>
#include <stdio.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clops/dispatch.h"
#include "tools/cli/cli.h"

/* Index of the option with this long name in cmd's table, or -1. */
static int find_long(const cli_command *cmd, const char *name, size_t len)
{
    for (int i = 0; cmd->options && cmd->options[i].name; i++)
        if (strlen(cmd->options[i].name) == len && strncmp(cmd->options[i].name, name, len) == 0)
            return i;
    return -1;
}

/* "; did you mean '--x'?" for a mistyped long option, or "". */
static void option_hint(const cli_command *cmd, const char *typed, char *out, size_t cap)
{
    char dashed[64][40];
    const char *names[64];
    char with[80];
    int n = 0;
    for (int i = 0; cmd->options && cmd->options[i].name && n < 64; i++) {
        snprintf(dashed[n], sizeof dashed[n], "--%s", cmd->options[i].name);
        names[n] = dashed[n];
        n++;
    }
    snprintf(with, sizeof with, "--%s", typed);
    cli_suggest(with, names, n, out, cap);
}

/* Index of the option with this short letter, or -1. */
static int find_short(const cli_command *cmd, char c)
{
    for (int i = 0; cmd->options && cmd->options[i].name; i++)
        if (cmd->options[i].short_name == c)
            return i;
    return -1;
}

/* Records one occurrence; usage error for a repeated single-value option
 * (a repeated flag is harmless). */
static int add_occurrence(const cli_command *cmd, cli_args *a, int opt, const char *val)
{
    const cli_option *o = &cmd->options[opt];
    if (o->kind == CLI_OPT_VALUE)
        for (int i = 0; i < a->nocc; i++)
            if (a->occ_opt[i] == opt)
                return cli_usage_error(cmd, "option --%s given more than once", o->name);
    a->occ_opt[a->nocc] = opt;
    a->occ_val[a->nocc] = val;
    a->nocc++;
    return CLI_EXIT_OK;
}

/* True when argv word w is a help request. */
static bool is_help(const char *w)
{
    return strcmp(w, "--help") == 0 || strcmp(w, "-h") == 0;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out)
{
    memset(out, 0, sizeof *out);
    out->cmd = cmd;
    size_t n = (size_t)(argc > 0 ? argc : 1);
    out->occ_opt = calloc(n, sizeof *out->occ_opt);
    out->occ_val = calloc(n, sizeof *out->occ_val);
    out->pos = calloc(n, sizeof *out->pos);
    if (!out->occ_opt || !out->occ_val || !out->pos) {
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (options_done || w[0] != '-' || w[1] == '\0') {
            out->pos[out->npos++] = w; /* "-" alone is a positional (stdin/stdout) */
            continue;
        }
        if (strcmp(w, "--") == 0) {
            options_done = true;
            continue;
        }
        if (is_help(w)) {
            cli_print_command_help(cmd, stdout);
            return CLI_PARSE_HELP;
        }
        int opt;
        const char *inline_val = NULL;
        if (w[1] == '-') {
            const char *name = w + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            opt = find_long(cmd, name, len);
            if (opt < 0) {
                char typed[64], hint[256];
                snprintf(typed, sizeof typed, "%.*s", (int)(len < 63 ? len : 63), name);
                option_hint(cmd, typed, hint, sizeof hint);
                return cli_usage_error(cmd, "unknown option '--%.*s'%s", (int)len, name, hint);
            }
            if (eq)
                inline_val = eq + 1;
        } else {
            opt = w[2] == '\0' ? find_short(cmd, w[1]) : -1;
            if (opt < 0)
                return cli_usage_error(cmd, "unknown option '%s'", w);
        }
        const cli_option *o = &cmd->options[opt];
        const char *val = NULL;
        if (o->kind == CLI_OPT_FLAG) {
            if (inline_val)
                return cli_usage_error(cmd, "option --%s takes no value", o->name);
        } else if (inline_val) {
            val = inline_val;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            return cli_usage_error(cmd, "option --%s needs a value (%s)", o->name,
                                   o->metavar ? o->metavar : "VALUE");
        }
        if (val && o->kind != CLI_OPT_FLAG && val[0] == '\0')
            return cli_usage_error(cmd, "option --%s needs a non-empty value", o->name);
        int rc = add_occurrence(cmd, out, opt, val);
        if (rc)
            return rc;
    }
    if (out->npos < cmd->min_pos)
        return cli_usage_error(cmd, "missing argument (usage: %s)", cmd->usage);
    if (cmd->max_pos >= 0 && out->npos > cmd->max_pos)
        return cli_usage_error(cmd, "unexpected argument '%s'", out->pos[cmd->max_pos]);
    return CLI_EXIT_OK;
}

void cli_args_free(cli_args *a)
{
    if (!a)
        return;
    free(a->occ_opt);
    free(a->occ_val);
    free(a->pos);
    memset(a, 0, sizeof *a);
}

/* Index of the named option in a's command, or -1. */
static int opt_index(const cli_args *a, const char *name)
{
    return find_long(a->cmd, name, strlen(name));
}

bool cli_flag(const cli_args *a, const char *name)
{
    return cli_count(a, name) > 0;
}

int cli_count(const cli_args *a, const char *name)
{
    int opt = opt_index(a, name), n = 0;
    for (int i = 0; i < a->nocc; i++)
        n += a->occ_opt[i] == opt;
    return n;
}

const char *cli_value(const cli_args *a, const char *name)
{
    int opt = opt_index(a, name);
    const char *v = NULL;
    for (int i = 0; i < a->nocc; i++)
        if (a->occ_opt[i] == opt)
            v = a->occ_val[i];
    return v;
}

const char *cli_value_at(const cli_args *a, const char *name, int n)
{
    int opt = opt_index(a, name);
    for (int i = 0; i < a->nocc; i++)
        if (a->occ_opt[i] == opt && n-- == 0)
            return a->occ_val[i];
    return NULL;
}

/* Prints text wrapped at `width` columns; the first line continues at the
 * current column `col`, later lines start at column `indent`. */
static void print_wrapped(FILE *f, const char *text, int col, int indent, int width)
{
    bool line_start = true;
    while (*text) {
        size_t w = strcspn(text, " \n");
        if (!line_start && col + 1 + (int)w > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', f);
            col++;
        }
        fwrite(text, 1, w, f);
        col += (int)w;
        line_start = false;
        text += w;
        if (*text == '\n') {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
            line_start = true;
        }
        while (*text == ' ' || *text == '\n')
            text++;
    }
    fputc('\n', f);
}

void cli_print_command_help(const cli_command *cmd, FILE *f)
{
    fprintf(f, "Usage: %s\n\n%s\n", cmd->usage, cmd->summary);
    if (cmd->help && cmd->help[0])
        fprintf(f, "\n%s\n", cmd->help);
    fprintf(f, "\nOptions:\n");
    for (int i = 0; cmd->options && cmd->options[i].name; i++) {
        const cli_option *o = &cmd->options[i];
        char head[80];
        int n = o->short_name ? snprintf(head, sizeof head, "  -%c, --%s", o->short_name, o->name)
                              : snprintf(head, sizeof head, "      --%s", o->name);
        if (o->metavar && n > 0 && (size_t)n < sizeof head)
            snprintf(head + n, sizeof head - (size_t)n, " %s", o->metavar);
        if (strlen(head) < 26)
            fprintf(f, "%-26s", head);
        else
            fprintf(f, "%s\n%26s", head, "");
        print_wrapped(f, o->help, 26, 26, 79);
    }
    fprintf(f, "%-26s%s\n", "  -h, --help", "show this help");
    fprintf(f, "\nExit status: 0 ok, 1 failures found, 2 usage error, 3 runtime error.\n"
               "See docs/cli.md for the full reference.\n");
}

/* Appends d to the list unless present. */
static void add_unique(clops_device **list, int *n, clops_device *d)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == d)
            return;
    list[(*n)++] = d;
}

int cli_select_devices(const cli_args *a, cli_device_default def, clops_device ***out, int *n)
{
    *out = NULL;
    *n = 0;
    int count = 0;
    clops_status st = clops_device_count(&count);
    if (st)
        return cli_status_error(st, "listing devices");
    clops_device **list = calloc((size_t)count, sizeof *list);
    if (!list) {
        cli_error("out of host memory");
        return CLI_EXIT_RUNTIME;
    }
    int given = cli_count(a, "device");
    for (int k = 0; k < given; k++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cli_value_at(a, "device", k));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            if (strcasecmp(tok, "all") == 0) {
                for (int i = 0; i < count; i++) {
                    clops_device *d;
                    if (clops_device_get(i, &d) == CLOPS_OK)
                        add_unique(list, n, d);
                }
                continue;
            }
            clops_device *d;
            st = clops_device_find(tok, &d);
            if (st) {
                free(list);
                *n = 0;
                return cli_usage_error(a->cmd, "unknown device '%s': %s", tok,
                                       clops_last_error());
            }
            add_unique(list, n, d);
        }
    }
    if (given == 0) {
        clops_device *d;
        if (def == CLI_DEVICES_DEFAULT) {
            st = clops_device_default(&d);
            if (st) {
                free(list);
                return cli_usage_error(a->cmd, "%s", clops_last_error());
            }
            add_unique(list, n, d);
        } else {
            for (int i = def == CLI_DEVICES_ALL ? 0 : 1; i < count; i++)
                if (clops_device_get(i, &d) == CLOPS_OK)
                    add_unique(list, n, d);
            if (*n == 0 && clops_device_get(0, &d) == CLOPS_OK)
                add_unique(list, n, d);
        }
    }
    *out = list;
    return CLI_EXIT_OK;
}

int cli_select_dtypes(const cli_args *a, uint32_t def, uint32_t *mask)
{
    int given = cli_count(a, "dtype");
    *mask = given ? 0 : def;
    for (int k = 0; k < given; k++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cli_value_at(a, "dtype", k));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            if (strcasecmp(tok, "all") == 0) {
                *mask |= (1u << CLOPS_DTYPE_COUNT) - 1;
                continue;
            }
            clops_dtype dt;
            if (clops_dtype_from_name(tok, &dt) != CLOPS_OK) {
                char names[256] = "";
                for (int i = 0; i < CLOPS_DTYPE_COUNT; i++) {
                    strcat(names, i ? ", " : "");
                    strcat(names, clops_dtype_name((clops_dtype)i));
                }
                char hint[256];
                cli_suggest_dtype(tok, hint, sizeof hint);
                return cli_usage_error(a->cmd, "unknown dtype '%s'%s (dtypes: %s)", tok, hint,
                                       names);
            }
            *mask |= 1u << dt;
        }
    }
    return CLI_EXIT_OK;
}

/* True when one glob matches the op's full or base name. */
static bool glob_matches(const char *glob, const char *op_name)
{
    if (fnmatch(glob, op_name, 0) == 0)
        return true;
    char base[256];
    size_t n = strcspn(op_name, ".");
    if (n >= sizeof base || op_name[n] == '\0')
        return false;
    memcpy(base, op_name, n);
    base[n] = '\0';
    return fnmatch(glob, base, 0) == 0;
}

void cli_op_glob_hint(const cli_args *a, char *out, size_t cap)
{
    out[0] = '\0';
    int count = clops_op_count();
    for (int k = 0; k < cli_count(a, "op"); k++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cli_value_at(a, "op", k));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            while (isspace((unsigned char)*tok))
                tok++;
            bool hit = false;
            for (int i = 0; i < count && !hit; i++)
                hit = glob_matches(tok, clops_op_name(clops_op_at(i)));
            if (hit || !*tok)
                continue;
            char hint[256];
            cli_suggest_op(tok, hint, sizeof hint);
            snprintf(out, cap, "no operator matches '%s'%s", tok, hint);
            return;
        }
    }
}

bool cli_op_selected(const cli_args *a, const char *op_name)
{
    int given = cli_count(a, "op");
    if (given == 0)
        return true;
    for (int k = 0; k < given; k++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cli_value_at(a, "op", k));
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            while (isspace((unsigned char)*tok))
                tok++;
            if (*tok && glob_matches(tok, op_name))
                return true;
        }
    }
    return false;
}
