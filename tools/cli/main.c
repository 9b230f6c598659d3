/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/main.c: the `clops` program's entry point: the command table,
 * the top-level help and version, and dispatch to a subcommand.
 *
 *     clops COMMAND [OPTIONS] [ARGS]
 *     clops help [COMMAND]        clops COMMAND --help
 *     clops --help                clops --version
 *
 * Everything a command needs (option parsing, errors, tables, JSON, device
 * selection) is in the framework of tools/cli/cli.h; this file only routes.
 * main() is the only function here that the library and the tests do not
 * need, so every other tools/cli/ file can go into a library that the tests
 * link.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clops/matmul.h"
#include "tools/cli/cli.h"

#define CLI__COMMAND_PTR(name) &cli_cmd_##name,
const cli_command *const cli_commands[] = {CLI_COMMAND_LIST(CLI__COMMAND_PTR) NULL};
#undef CLI__COMMAND_PTR

const cli_command *cli_find_command(const char *name)
{
    for (int i = 0; cli_commands[i]; i++)
        if (strcmp(cli_commands[i]->name, name) == 0)
            return cli_commands[i];
    return NULL;
}

/* Prints the list of commands and the general usage to f. */
static void print_overview(FILE *f)
{
    fprintf(f,
            "clops %s: check and benchmark every clops operator on every OpenCL device.\n\n"
            "Usage: clops COMMAND [OPTIONS] [ARGS]\n"
            "       clops help COMMAND     (or: clops COMMAND --help)\n"
            "       clops --version\n\n"
            "Commands:\n",
            clops_version());
    for (int i = 0; cli_commands[i]; i++)
        fprintf(f, "  %-10s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(f, "\nCommon options: --device SEL (repeatable), --json FILE ('-' for stdout), "
               "--op GLOB,\n--dtype LIST, --out DIR.\n"
               "Environment: CLOPS_DEVICE, CLOPS_CACHE_DIR, CLOPS_CACHE=0, CLOPS_NO_OPENCL=1,\n"
               "CLOPS_PROGRESS=bar|plain|off, NO_COLOR.\n"
               "Before the command: --float32-matmul-precision highest|high|medium (also\n"
               "CLOPS_FLOAT32_MATMUL_PRECISION), as torch.set_float32_matmul_precision.\n"
               "Exit status: 0 ok, 1 failures found, 2 usage error, 3 runtime error.\n"
               "Reference: docs/cli.md.\n");
}

/* Reports an unknown command with the closest names; returns the usage
 * exit code. */
static int unknown_command(const char *name)
{
    const char *names[64];
    int n = 0;
    for (int i = 0; cli_commands[i] && n < 64; i++)
        names[n++] = cli_commands[i]->name;
    char hint[256];
    cli_suggest(name, names, n, hint, sizeof hint);
    fprintf(stderr, "clops: unknown command '%s'%s", name, hint);
    fprintf(stderr, "\nCommands:");
    for (int i = 0; cli_commands[i]; i++)
        fprintf(stderr, " %s", cli_commands[i]->name);
    fprintf(stderr, ".  Run 'clops --help' for usage.\n");
    return CLI_EXIT_USAGE;
}

/* `clops help [COMMAND]`. */
static int run_help(int argc, char **argv)
{
    if (argc == 0) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "clops help: one command name expected\n");
        return CLI_EXIT_USAGE;
    }
    const cli_command *cmd = cli_find_command(argv[0]);
    if (!cmd)
        return unknown_command(argv[0]);
    cli_print_command_help(cmd, stdout);
    return CLI_EXIT_OK;
}

/* Parses a command's arguments and runs it. */
static int run_command(const cli_command *cmd, int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse(cmd, argc, argv, &args);
    if (rc == CLI_PARSE_HELP)
        rc = CLI_EXIT_OK;
    else if (rc == CLI_EXIT_OK)
        rc = cmd->run(&args);
    cli_args_free(&args);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return CLI_EXIT_USAGE;
    }
    /* --float32-matmul-precision MODE before the command: PyTorch's
     * torch.set_float32_matmul_precision for every product the command
     * runs (clops/matmul.h). */
    while (argc >= 3 && strcmp(argv[1], "--float32-matmul-precision") == 0) {
        if (clops_set_float32_matmul_precision(argv[2]) != CLOPS_OK) {
            fprintf(stderr, "clops: %s\n", clops_last_error());
            return CLI_EXIT_USAGE;
        }
        argv += 2;
        argc -= 2;
        if (argc < 2) {
            print_overview(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    const char *first = argv[1];
    int rc;
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_overview(stdout);
        rc = CLI_EXIT_OK;
    } else if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        cli_print_version(stdout);
        rc = CLI_EXIT_OK;
    } else if (strcmp(first, "help") == 0) {
        rc = run_help(argc - 2, argv + 2);
    } else if (first[0] == '-') {
        fprintf(stderr, "clops: unknown option '%s' before the command.  Run 'clops --help' "
                        "for usage.\n",
                first);
        rc = CLI_EXIT_USAGE;
    } else {
        const cli_command *cmd = cli_find_command(first);
        rc = cmd ? run_command(cmd, argc - 2, argv + 2) : unknown_command(first);
    }
    /* Writes pending kernel binaries to the disk cache and frees devices;
     * a no-op when no command touched the library. */
    clops_shutdown();
    if (fflush(stdout) != 0 && rc == CLI_EXIT_OK) {
        perror("clops: stdout");
        rc = CLI_EXIT_RUNTIME;
    }
    return rc;
}
