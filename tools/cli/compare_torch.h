/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/compare_torch.h: the PyTorch columns of `clops compare --torch`
 * (compare_torch.c).
 */
#ifndef CLOPS_TOOLS_CLI_COMPARE_TORCH_H
#define CLOPS_TOOLS_CLI_COMPARE_TORCH_H

#include "tools/cli/suite.h"

/*
 * Times the calls the bench of s measured (s->calls, see cli_suite) with
 * PyTorch on each device's peer (CUDA beside an NVIDIA GPU, else the CPU)
 * through the Python helper torch_cases.py, `reps` batches each, and adds
 * one PyTorch column per peer to r (devices REPORT_TORCH_INDEX and up,
 * labelled "torch", or "torch:cuda" and "torch:cpu" when there are two).
 * When Python, torch or the helper is missing it says so in one line on
 * stderr and adds nothing.  Returns an exit code (runtime errors only:
 * out of memory).
 */
int cli_compare_torch(const cli_suite *s, const cJSON *calls, int reps, report *r);

#endif /* CLOPS_TOOLS_CLI_COMPARE_TORCH_H */
