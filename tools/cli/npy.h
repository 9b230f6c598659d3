/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/npy.h: reading and writing NumPy .npy files.
 *
 * `clops run` takes its inputs and writes its outputs as .npy files so that a
 * single failing case can be reproduced on any device and compared in
 * Python.  This module handles the format alone (no tensors, no devices):
 * a file becomes an npy_array of host memory in C order and host byte order,
 * and an npy_array becomes a file.
 *
 * What is read:
 *   - format versions 1.0, 2.0 and 3.0 (3.0 differs only by a UTF-8 header);
 *   - descrs b1, u1, i1, i2, i4, i8, f2, f4, f8 with byte order '<', '>',
 *     '=' or '|' (big-endian data is byte-swapped to host order);
 *   - fortran_order True (the data is transposed into C order);
 *   - '<u2' as bfloat16 bits, when the file carries clops' bfloat16 marker
 *     or the caller passes NPY_READ_U2_AS_BFLOAT16 (clops has no uint16).
 * What is written: version 1.0 (2.0 or 3.0 on request), C order,
 * little-endian descrs, header padded so the data starts at a multiple of
 * 64 bytes, as numpy does.
 *
 * bfloat16 convention: numpy has no bfloat16, so a bfloat16 array is stored
 * as '<u2' holding the raw bits (the upper half of the float32), and the
 * header's padding carries the Python comment "# clops-dtype: bfloat16".
 * numpy ignores the comment and loads a uint16 array, which converts
 * exactly with `(a.astype(np.uint32) << 16).view(np.float32)` or
 * `a.view(ml_dtypes.bfloat16)`; clops reads the marker back as bfloat16, so
 * the round trip is bit-exact, and an ordinary uint16 file is never silently
 * taken for bfloat16.
 *
 * Every malformed input (wrong magic, truncated header or data, unsupported
 * dtype, bad shape text, absurd sizes, trailing bytes) gives a clops_status
 * with a message that starts with the file's name; nothing here aborts.
 */
#ifndef CLOPS_TOOLS_CLI_NPY_H
#define CLOPS_TOOLS_CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "clops/dtype.h"
#include "clops/status.h"
#include "clops/tensor.h"

/* An array in host memory: C order, host byte order. */
typedef struct npy_array {
    clops_dtype dtype;
    int ndim;                        /* 0 .. CLOPS_MAX_DIMS */
    int64_t shape[CLOPS_MAX_DIMS];
    size_t nbytes;                   /* numel * element size */
    void *data;                      /* malloc'd; NULL when nbytes == 0 */
} npy_array;

#define NPY_ARRAY_INIT {CLOPS_DTYPE_NONE, 0, {0}, 0, NULL}

/* Read flags. */
#define NPY_READ_U2_AS_BFLOAT16 1u /* take an unmarked '<u2' file as bfloat16 bits */

/* Largest header accepted when reading (numpy writes well under 1 KiB for the
 * dtypes clops uses). */
#define NPY_MAX_HEADER_LEN (1u << 20)

/*
 * Reads a .npy file.  On success *out owns its data (npy_free); on failure
 * *out is left empty and the message names the file.  Statuses:
 * CLOPS_IO_ERROR (cannot open/read, truncated header or data, trailing
 * bytes), CLOPS_INVALID_ARGUMENT (not a .npy file, malformed header),
 * CLOPS_INVALID_DTYPE (dtype clops lacks), CLOPS_INVALID_SHAPE (bad or
 * absurd shape), CLOPS_HOST_OUT_OF_MEMORY.
 */
clops_status npy_read_file(const char *path, unsigned flags, npy_array *out);

/* The same for a file image in memory; `name` is used in messages. */
clops_status npy_parse(const char *name, const void *buf, size_t len, unsigned flags,
                       npy_array *out);

/*
 * Encodes an array as a file image: *buf is malloc'd (the caller frees it),
 * *len its size.  version is 1, 2 or 3, or 0 for the smallest that fits
 * (always 1.0 for CLOPS_MAX_DIMS dimensions).  The array's data must hold
 * nbytes = numel * element size bytes.
 */
clops_status npy_encode(const npy_array *a, int version, unsigned char **buf, size_t *len);

/* Writes an array to a file (version 1.0), through a temporary file renamed
 * into place.  CLOPS_IO_ERROR naming the path on failure. */
clops_status npy_write_file(const char *path, const npy_array *a);

/* Fills a: dtype, shape, nbytes computed and checked (overflow ->
 * CLOPS_INVALID_SHAPE), data allocated (uninitialised) when nbytes > 0. */
clops_status npy_alloc(npy_array *a, clops_dtype dtype, int ndim, const int64_t *shape);

/* Number of elements (1 for 0-d). */
int64_t npy_numel(const npy_array *a);

/* Frees the data and empties the record; NULL and empty records are fine. */
void npy_free(npy_array *a);

/* The .npy descr clops writes for a dtype ("<f4", "|b1"); "<u2" for
 * bfloat16.  Never NULL. */
const char *npy_descr_for(clops_dtype dtype);

#endif /* CLOPS_TOOLS_CLI_NPY_H */
