/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/compare_torch.h: the PyTorch columns of `clops compare --torch`
 * (compare_torch.c).
 */
#ifndef CLOPS_TOOLS_CLI_COMPARE_TORCH_H
#define CLOPS_TOOLS_CLI_COMPARE_TORCH_H

#include "tools/cli/suite.h"

/* The PyTorch columns asked for (bits of cli_compare_torch's modes):
 * PyTorch held at clops' precision (--torch), and PyTorch with its own
 * defaults, as users run it (--torch-defaults). */
#define CLI_TORCH_CLOPS 1u
#define CLI_TORCH_DEFAULTS 2u
/* With CLI_TORCH_CLOPS, unasked (compare without --torch, --torch-defaults
 * or --no-torch): the column when the interpreter imports torch, and not a
 * word when it or the helper is missing. */
#define CLI_TORCH_AUTO 4u

/*
 * Times the calls the bench of s measured (s->calls, see cli_suite) with
 * PyTorch on each device's peer (CUDA beside an NVIDIA GPU, else the CPU)
 * through the Python helper torch_cases.py, `reps` batches each, and adds
 * one PyTorch column per peer and mode in `modes` to r (devices
 * REPORT_TORCH_INDEX and up, clops' precision first: labelled "torch" and
 * "torch-defaults", with ":cuda" and ":cpu" when there are two peers).
 * When Python, torch or the helper is missing it says so in one line on
 * stderr (with CLI_TORCH_AUTO: nothing) and adds nothing.  Returns an exit code (runtime errors only:
 * out of memory).
 */
int cli_compare_torch(const cli_suite *s, const cJSON *calls, int reps, unsigned modes,
                      report *r);

#endif /* CLOPS_TOOLS_CLI_COMPARE_TORCH_H */
