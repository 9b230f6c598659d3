/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/cli.h: the framework shared by every `clops` subcommand.
 *
 * The program is a table of subcommands.  Each lives in one file
 * (tools/cli/cmd_<name>.c) that defines a `const cli_command cli_cmd_<name>`
 * (name, one-line summary, usage, help text, option table, handler), and is
 * listed once in CLI_COMMAND_LIST below; main.c expands that list into the
 * command table, so adding a command is one new file and one line here.
 *
 * Options are declared per command as a table of cli_option; cli_parse()
 * turns argv into a cli_args (long options `--name VALUE` or `--name=VALUE`,
 * short `-x VALUE`, flags, repeatable options, positionals, `--` ends the
 * options) and every command gets `--help` for free.  The helpers after it
 * turn the common option values into what commands need: device selectors
 * into devices, dtype lists into a mask, op globs into a match test, a JSON
 * document into a file or stdout.
 *
 * Exit codes are the same for every command: 0 success, 1 the command ran and
 * found failures (a check failed), 2 usage error (bad option, unknown device,
 * op or dtype, unreadable input named on the command line), 3 runtime error
 * (OpenCL failure, I/O error while writing, out of memory).
 *
 * Human output goes to stdout; errors, warnings and progress go to stderr,
 * so `--json -` always yields clean JSON on stdout.
 */
#ifndef CLOPS_TOOLS_CLI_CLI_H
#define CLOPS_TOOLS_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clops/device.h"
#include "clops/dtype.h"
#include "clops/status.h"
#include "clops/tensor.h"
#include "core/error.h"

#include <cjson/cJSON.h>

/* --- exit codes ---------------------------------------------------------- */

enum {
    CLI_EXIT_OK = 0,       /* success */
    CLI_EXIT_FAILURES = 1, /* ran to the end, but something failed (check) */
    CLI_EXIT_USAGE = 2,    /* bad command line */
    CLI_EXIT_RUNTIME = 3   /* the library, the driver or the system failed */
};

/* --- options -------------------------------------------------------------- */

typedef enum cli_opt_kind {
    CLI_OPT_FLAG,  /* no value; repeating it changes nothing */
    CLI_OPT_VALUE, /* one value; given twice is an error */
    CLI_OPT_LIST   /* one value per occurrence; repeatable */
} cli_opt_kind;

/* One option of a command.  Tables end with an entry whose name is NULL. */
typedef struct cli_option {
    const char *name;    /* long name without "--" */
    char short_name;     /* 'd' for -d, or 0 */
    cli_opt_kind kind;
    const char *metavar; /* "SEL", "FILE"; NULL for flags */
    const char *help;    /* one line for `--help` */
} cli_option;

/* The options most commands share, with their standard help lines. */
#define CLI_OPTION_DEVICE                                                                 \
    {"device", 'd', CLI_OPT_LIST, "SEL",                                                  \
     "device: index, 'cpu', 'opencl:K', a name/vendor substring or 'all'; repeatable, "   \
     "comma lists allowed"}
#define CLI_OPTION_JSON                                                                   \
    {"json", 0, CLI_OPT_VALUE, "FILE", "also write the results as JSON to FILE ('-': stdout " \
                                       "only, no table)"}
#define CLI_OPTION_OP                                                                     \
    {"op", 0, CLI_OPT_LIST, "GLOB",                                                       \
     "only ops whose name (add.Tensor) or base name (add) matches GLOB; repeatable, comma " \
     "lists allowed"}
#define CLI_OPTION_DTYPE                                                                  \
    {"dtype", 0, CLI_OPT_LIST, "LIST",                                                    \
     "only these dtypes: comma list of names or aliases (float32,f16,int64) or 'all'"}
#define CLI_OPTION_OUT {"out", 0, CLI_OPT_VALUE, "DIR", "write the output files into DIR"}
#define CLI_OPTION_END {NULL, 0, CLI_OPT_FLAG, NULL, NULL}

/* A parsed command line.  Values point into argv. */
typedef struct cli_args {
    const struct cli_command *cmd;
    int nocc;              /* occurrences of options, in command-line order */
    int *occ_opt;          /* index into cmd->options */
    const char **occ_val;  /* value, or NULL for flags */
    int npos;
    const char **pos;      /* positional arguments */
} cli_args;

/* --- commands --------------------------------------------------------------- */

typedef struct cli_command {
    const char *name;
    const char *summary;     /* one line for `clops --help` */
    const char *usage;       /* "clops devices [--json FILE] [--brief]" */
    const char *help;        /* description paragraphs for `clops help CMD` */
    const cli_option *options;
    int min_pos, max_pos;    /* positional argument counts; max -1: unlimited */
    /* Runs the command; returns an exit code.  args are valid during the
     * call only. */
    int (*run)(const cli_args *args);
} cli_command;

/*
 * Every command, in the order `clops --help` lists them.  X(name) refers to
 * `cli_cmd_<name>` defined in tools/cli/cmd_<name>.c.
 */
#define CLI_COMMAND_LIST(X) \
    X(devices)              \
    X(cache)                \
    X(ops)                  \
    X(check)                \
    X(bench)                \
    X(compare)              \
    X(report)               \
    X(run)                  \
    X(warmup)               \
    X(tune)

#define CLI__DECLARE_COMMAND(name) extern const cli_command cli_cmd_##name;
CLI_COMMAND_LIST(CLI__DECLARE_COMMAND)
#undef CLI__DECLARE_COMMAND

/* The command table (NULL-terminated) and lookup by name (NULL: unknown). */
extern const cli_command *const cli_commands[];
const cli_command *cli_find_command(const char *name);

/* --- parsing ------------------------------------------------------------- */

/* Result of cli_parse besides an exit code. */
#define CLI_PARSE_HELP (-1) /* --help was given: help printed, exit 0 */

/*
 * Parses argv[0..argc) (the words after the command name) against cmd's
 * options.  Returns CLI_EXIT_OK, CLI_PARSE_HELP (help was printed to
 * stdout) or CLI_EXIT_USAGE (the error was printed).  cli_args_free
 * releases what it allocated, also after a failure.
 */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);

/* `clops --version`: clops, CLBlast, the ICD loader and each OpenCL
 * platform's version (tools/cli/version.c). */
void cli_print_version(FILE *f);
void cli_args_free(cli_args *a);

/* True when the flag was given. */
bool cli_flag(const cli_args *a, const char *name);
/* The value of a CLI_OPT_VALUE option (or the last of a list), or NULL. */
const char *cli_value(const cli_args *a, const char *name);
/* The n-th value of an option (0-based) in command-line order, or NULL. */
const char *cli_value_at(const cli_args *a, const char *name, int n);
/* How many times an option was given. */
int cli_count(const cli_args *a, const char *name);

/* Prints the full help of a command (usage, text, options) to f. */
void cli_print_command_help(const cli_command *cmd, FILE *f);

/* --- typed helpers ----------------------------------------------------------- */

/* What cli_select_devices returns when no --device was given. */
typedef enum cli_device_default {
    CLI_DEVICES_ALL,     /* every device, the CPU included */
    CLI_DEVICES_OPENCL,  /* every OpenCL device; the CPU when there is none */
    CLI_DEVICES_DEFAULT  /* clops_device_default() (CLOPS_DEVICE or first GPU) */
} cli_device_default;

/*
 * The devices named by every --device value (comma lists allowed, 'all' for
 * every device), in the order given, without duplicates; `def` when none
 * was given.  *out is malloc'd (free it).  Returns CLI_EXIT_OK,
 * CLI_EXIT_USAGE (unknown device: message with the device list printed) or
 * CLI_EXIT_RUNTIME.
 */
int cli_select_devices(const cli_args *a, cli_device_default def, clops_device ***out, int *n);

/*
 * Parses every --dtype value into a mask of bits (1u << dtype).  No --dtype
 * gives `def`.  'all' selects every dtype.  Returns CLI_EXIT_OK or
 * CLI_EXIT_USAGE (unknown name, printed).
 */
int cli_select_dtypes(const cli_args *a, uint32_t def, uint32_t *mask);

/*
 * True when op_name is selected by the --op globs (every op when none was
 * given).  A glob matches the qualified name ("add.Tensor") or the base name
 * before the dot ("add"); globs use fnmatch syntax (* ? [..]).
 */
bool cli_op_selected(const cli_args *a, const char *op_name);
/* "no operator matches 'GLOB'; did you mean ...?" for the first --op glob
 * that matches no registered operator, or "" when each matches one. */
void cli_op_glob_hint(const cli_args *a, char *out, size_t cap);

/* --- output ------------------------------------------------------------------ */

/* "clops: error: <message>" on stderr. */
void cli_error(const char *fmt, ...) CLOPS__PRINTF(1, 2);
/* "clops: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) CLOPS__PRINTF(1, 2);
/* Prints "clops CMD: <message>" and a pointer to --help; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...) CLOPS__PRINTF(2, 3);

/* --- "did you mean" (tools/cli/suggest.c) ---------------------------------- */

/* Levenshtein distance of two names of up to 31 characters (99 beyond). */
int cli_edit_distance(const char *a, const char *b);
/* Writes "; did you mean 'x', 'y'?" naming up to three of names[] closest
 * to typed (within two edits, or that typed is a prefix of), or "" when
 * none is close. */
void cli_suggest(const char *typed, const char *const *names, int n, char *out, size_t cap);
/* The same over the registered operator names (base names for a typed name
 * without '.', qualified names otherwise). */
void cli_suggest_op(const char *typed, char *out, size_t cap);
/* The same over the dtype names. */
void cli_suggest_dtype(const char *typed, char *out, size_t cap);
/* Prints "clops: error: <what>: <clops_last_error() or the status text>"
 * and returns CLI_EXIT_RUNTIME (CLI_EXIT_USAGE for statuses that mean bad
 * user input: unknown op/device/dtype, invalid argument or shape). */
int cli_status_error(clops_status st, const char *what, ...) CLOPS__PRINTF(2, 3);

/* Whether f is a terminal, and whether to use colour on it (a terminal,
 * NO_COLOR unset, TERM not "dumb"). */
bool cli_isatty(FILE *f);
bool cli_color(FILE *f);
/* Terminal width of f ($COLUMNS, else the terminal's, else 80). */
int cli_term_width(FILE *f);

/* "1.5 GiB", "512 B" into buf; returns buf. */
char *cli_fmt_bytes(uint64_t bytes, char *buf, size_t cap);
/* "850 ms", "12.3 s", "4m05s" into buf; returns buf. */
char *cli_fmt_seconds(double seconds, char *buf, size_t cap);
/* Monotonic clock in seconds. */
double cli_now(void);

/*
 * A JSON document as every --json file starts: clops_version, command, an
 * empty devices array and an empty results array.  NULL on out-of-memory.
 */
cJSON *cli_json_document(const char *command);
/* Writes the document to path ("-": stdout) through a temporary file and a
 * rename.  Returns CLI_EXIT_OK or CLI_EXIT_RUNTIME (error printed). */
int cli_json_write(const cJSON *doc, const char *path);
/* Writes text to path atomically (temp + rename); false with errno set. */
bool cli_write_file(const char *path, const char *data, size_t len);

/* --- text tables ---------------------------------------------------------------- */

/* Columns of text, aligned when printed.  Alignment per column: 'l' or 'r'. */
typedef struct cli_table {
    int ncols;
    const char *align;
    char **cells;   /* rows * ncols, the header row first */
    int nrows, cap;
    bool failed;
} cli_table;

/* Starts a table with a header row of ncols names (ncols <= 16). */
void cli_table_init(cli_table *t, const char *align, int ncols, const char *const *headers);
/* Adds a row of ncols cells (copied; NULL prints as empty). */
void cli_table_row(cli_table *t, const char *const *cells);
/* Prints with two spaces between columns, the header bold on a colour
 * terminal and underlined with dashes otherwise. */
void cli_table_print(const cli_table *t, FILE *f, const char *indent);
void cli_table_free(cli_table *t);

#endif /* CLOPS_TOOLS_CLI_CLI_H */
