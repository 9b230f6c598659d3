/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/scan/scan.h: the scan family's internal API (cumsum, cumprod, cummax,
 * cummin, logcumsumexp) and the scan machinery other families reuse
 * (nonzero, masked_select: an inclusive int64 cumsum of a bool mask gives
 * every selected element its output position, the last value the count).
 *
 * scan_run scans any tensor along one dim on any device: the CPU device
 * runs the reference (ref/scan.c), OpenCL devices the three-phase
 * reduce-then-scan of cl_kernels/scan.cl (docs/scan.md).  Results are
 * bitwise reproducible run to run on one device.
 */
#ifndef CLOPS_OPS_SCAN_H
#define CLOPS_OPS_SCAN_H

#include "codegen_pointwise/pw.h"
#include "core/tensor_impl.h"
#include "ref/ref_scan.h"

/*
 * Inclusive scan of src along dim into dst; for SCAN_MAX/SCAN_MIN also the
 * indices into idx (int64, dst's shape; required for those ops, ignored
 * for the others).  dst has src's shape and the result dtype: src's dtype,
 * or for SUM/PROD any dtype (elements are converted on load and the combine
 * runs in dst's compute type).  dst and idx may have any strides; dst may
 * be src itself (in place).  Borrowed references; `op` names the caller in
 * errors.
 */
clops_status scan_run(const char *op, scan_op kind, clops_tensor *src, int dim, clops_tensor *dst,
                      clops_tensor *idx);

#endif /* CLOPS_OPS_SCAN_H */
