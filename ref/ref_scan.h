/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ref/ref_scan.h: the CPU reference of the scan family (ref/scan.c): the
 * CPU device's kernels and the oracle of the OpenCL ones.  ops/scan/scan.h
 * builds the family on it.
 */
#ifndef CLOPS_REF_REF_SCAN_H
#define CLOPS_REF_REF_SCAN_H

#include "core/tensor_impl.h"

/* The combine of a scan.  MAX/MIN also produce int64 indices, as
 * cummax/cummin: the later element wins ties, a NaN wins over numbers and
 * the last NaN's index is kept (PyTorch's CPU and CUDA rule). */
typedef enum scan_op { SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN, SCAN_LOGSUMEXP, SCAN_NOPS } scan_op;

/* Sequential inclusive scan of CPU-device tensors along dim (the contract
 * of scan_run in ops/scan/scan.h): floating values accumulate in double, as
 * PyTorch's CPU kernels do for float32; integers wrap as int64. */
clops_status ref_scan(scan_op kind, const clops_tensor *src, int dim, clops_tensor *dst,
                      clops_tensor *idx);

#endif /* CLOPS_REF_REF_SCAN_H */
