/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/cli/npy.c: the .npy reader and writer of tools/cli/npy.h.
 *
 * A .npy file is: the magic "\x93NUMPY", a major and minor version byte, the
 * header length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), a
 * header that is a Python dict literal such as
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and ended by '\n', then the raw data.  The header is
 * parsed here by a small strict scanner (not an evaluator): anything that is
 * not exactly the three known keys with well-formed values is refused with a
 * message naming the file and what was wrong.
 */
#include "tools/cli/npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_BF16_MARKER "clops-dtype: bfloat16"

/* What the header says, and where the data starts. */
typedef struct npy_layout {
    clops_dtype dtype;
    size_t elsize;
    bool swap;    /* stored byte order differs from the host's */
    bool fortran; /* data in Fortran (column-major) order */
    bool marked_bf16;
    bool is_u2;   /* descr was u2 (bfloat16 bits, if accepted) */
    int ndim;
    int64_t shape[CLOPS_MAX_DIMS];
    size_t nbytes;
    size_t data_offset;
} npy_layout;

/* True on a little-endian host. */
static bool npy_host_little(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

const char *npy_descr_for(clops_dtype dtype)
{
    switch (dtype) {
    case CLOPS_BOOL: return "|b1";
    case CLOPS_UINT8: return "|u1";
    case CLOPS_INT8: return "|i1";
    case CLOPS_INT16: return "<i2";
    case CLOPS_INT32: return "<i4";
    case CLOPS_INT64: return "<i8";
    case CLOPS_FLOAT16: return "<f2";
    case CLOPS_BFLOAT16: return "<u2";
    case CLOPS_FLOAT32: return "<f4";
    case CLOPS_FLOAT64: return "<f8";
    default: return "?";
    }
}

/* Maps a descr's kind letter and size to a clops dtype (u2 only with the
 * caller's consent, see parse_descr). */
static clops_dtype npy_dtype_from(char kind, unsigned size)
{
    switch (kind) {
    case 'b': return size == 1 ? CLOPS_BOOL : CLOPS_DTYPE_NONE;
    case 'u': return size == 1 ? CLOPS_UINT8 : size == 2 ? CLOPS_BFLOAT16 : CLOPS_DTYPE_NONE;
    case 'i':
        return size == 1   ? CLOPS_INT8
               : size == 2 ? CLOPS_INT16
               : size == 4 ? CLOPS_INT32
               : size == 8 ? CLOPS_INT64
                           : CLOPS_DTYPE_NONE;
    case 'f':
        return size == 2   ? CLOPS_FLOAT16
               : size == 4 ? CLOPS_FLOAT32
               : size == 8 ? CLOPS_FLOAT64
                           : CLOPS_DTYPE_NONE;
    default: return CLOPS_DTYPE_NONE;
    }
}

#define SUPPORTED_DESCRS "b1, u1, i1, i2, i4, i8, f2, f4, f8 (and u2 for bfloat16 bits)"

/* Parses a descr string ("<f4") into the layout. */
static clops_status parse_descr(const char *name, const char *descr, npy_layout *l)
{
    const char *p = descr;
    char order = '=';
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        order = *p++;
    char kind = *p ? *p++ : '\0';
    unsigned size = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 4) {
        size = size * 10 + (unsigned)(*p++ - '0');
        digits++;
    }
    if (*p != '\0' || digits == 0 || npy_dtype_from(kind, size) == CLOPS_DTYPE_NONE)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: unsupported dtype '%s'; clops reads the descrs " SUPPORTED_DESCRS,
                           name, descr);
    if (order == '|' && size > 1)
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: dtype '%s' has no byte order ('|') but is %u bytes wide", name,
                           descr, size);
    l->dtype = npy_dtype_from(kind, size);
    l->is_u2 = kind == 'u' && size == 2;
    l->elsize = size;
    bool little = npy_host_little();
    l->swap = size > 1 && ((order == '<' && !little) || (order == '>' && little));
    return CLOPS_OK;
}

/* Skips Python whitespace. */
static const char *npy_skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

/* Reads a quoted Python string ('...' or "...") into out. */
static clops_status npy_read_string(const char *name, const char **pp, const char *e, char *out,
                                    size_t cap, const char *what)
{
    const char *p = *pp;
    if (p >= e || (*p != '\'' && *p != '"'))
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: malformed header: expected a quoted %s",
                           name, what);
    char q = *p++;
    size_t n = 0;
    while (p < e && *p != q) {
        if (*p == '\0')
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: malformed header: the %s string holds a NUL byte", name, what);
        if (*p == '\\' || *p == '\n' || n + 1 >= cap)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: malformed header: bad or overlong %s string", name, what);
        out[n++] = *p++;
    }
    if (p >= e)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: malformed header: unterminated %s string",
                           name, what);
    out[n] = '\0';
    *pp = p + 1;
    return CLOPS_OK;
}

/* True when the identifier `word` starts at p and is not followed by more
 * identifier characters. */
static bool npy_word(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - p) < n || memcmp(p, word, n) != 0)
        return false;
    if (p + n < e) {
        char c = p[n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
            return false;
    }
    return true;
}

/* Parses a shape tuple "(3, 4)", "(5,)", "()" into l->ndim and l->shape. */
static clops_status npy_read_shape(const char *name, const char **pp, const char *e,
                                   npy_layout *l)
{
    const char *p = *pp, *start = *pp;
    if (p >= e || *p != '(')
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: bad shape: expected a tuple like (3, 4)",
                           name);
    p++;
    int n = 0;
    bool trailing_comma = false;
    for (;;) {
        p = npy_skip_ws(p, e);
        if (p < e && *p == ')') {
            p++;
            break;
        }
        if (p < e && *p == '-')
            return clops__fail(CLOPS_INVALID_SHAPE, "%s: bad shape: negative dimension", name);
        if (p >= e || *p < '0' || *p > '9')
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: bad shape text '%.*s': expected a dimension size", name,
                               (int)(e - start < 40 ? e - start : 40), start);
        int64_t v = 0;
        while (p < e && *p >= '0' && *p <= '9') {
            if (v > ((int64_t)1 << 56))
                return clops__fail(CLOPS_INVALID_SHAPE, "%s: absurd dimension size in shape",
                                   name);
            v = v * 10 + (*p++ - '0');
        }
        if (p < e && (*p == 'L' || *p == 'l')) /* Python 2 long literal */
            p++;
        if (n == CLOPS_MAX_DIMS)
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: shape has more than %d dimensions, the most clops supports",
                               name, CLOPS_MAX_DIMS);
        l->shape[n++] = v;
        p = npy_skip_ws(p, e);
        trailing_comma = false;
        if (p < e && *p == ',') {
            p++;
            trailing_comma = true;
            continue;
        }
        if (p < e && *p == ')') {
            p++;
            break;
        }
        return clops__fail(CLOPS_INVALID_SHAPE, "%s: bad shape text '%.*s'", name,
                           (int)(e - start < 40 ? e - start : 40), start);
    }
    if (n == 1 && !trailing_comma)
        return clops__fail(CLOPS_INVALID_SHAPE,
                           "%s: bad shape: '(%lld)' is not a tuple (a 1-d shape is written "
                           "'(%lld,)')",
                           name, (long long)l->shape[0], (long long)l->shape[0]);
    l->ndim = n;
    *pp = p;
    return CLOPS_OK;
}

/* Parses the header dict text[0..len) into l. */
static clops_status npy_parse_dict(const char *name, const char *text, size_t len, npy_layout *l)
{
    const char *p = text, *e = text + len;
    bool have_descr = false, have_fortran = false, have_shape = false;
    char descr[32] = "";
    p = npy_skip_ws(p, e);
    if (p >= e || *p != '{')
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: malformed header: expected a '{...}' dictionary", name);
    p++;
    for (;;) {
        p = npy_skip_ws(p, e);
        if (p < e && *p == '}') {
            p++;
            break;
        }
        char key[32];
        clops_status st = npy_read_string(name, &p, e, key, sizeof key, "key");
        if (st)
            return st;
        p = npy_skip_ws(p, e);
        if (p >= e || *p != ':')
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: malformed header: expected ':' after '%s'", name, key);
        p = npy_skip_ws(p + 1, e);
        bool *seen;
        if (strcmp(key, "descr") == 0) {
            seen = &have_descr;
            if (p < e && *p == '[')
                return clops__fail(CLOPS_INVALID_DTYPE,
                                   "%s: structured dtypes are not supported; clops reads the "
                                   "descrs " SUPPORTED_DESCRS,
                                   name);
            st = npy_read_string(name, &p, e, descr, sizeof descr, "descr");
        } else if (strcmp(key, "fortran_order") == 0) {
            seen = &have_fortran;
            if (npy_word(p, e, "True")) {
                l->fortran = true;
                p += 4;
            } else if (npy_word(p, e, "False")) {
                l->fortran = false;
                p += 5;
            } else {
                st = clops__fail(CLOPS_INVALID_ARGUMENT,
                                 "%s: malformed header: fortran_order must be True or False",
                                 name);
            }
        } else if (strcmp(key, "shape") == 0) {
            seen = &have_shape;
            st = npy_read_shape(name, &p, e, l);
        } else {
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: malformed header: unexpected key '%s' (a .npy header has "
                               "exactly 'descr', 'fortran_order' and 'shape')",
                               name, key);
        }
        if (st)
            return st;
        if (*seen)
            return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: malformed header: key '%s' repeated",
                               name, key);
        *seen = true;
        p = npy_skip_ws(p, e);
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        if (p < e && *p == '}') {
            p++;
            break;
        }
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: malformed header: expected ',' or '}' after '%s'", name, key);
    }
    if (!have_descr || !have_fortran || !have_shape)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: malformed header: missing key '%s'", name,
                           !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    /* After the dict: padding, optionally a comment (clops' bfloat16 marker). */
    for (;;) {
        p = npy_skip_ws(p, e);
        if (p >= e)
            break;
        if (*p != '#')
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: malformed header: unexpected text after the dictionary", name);
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *end = nl ? nl : e;
        size_t mlen = strlen(NPY_BF16_MARKER);
        for (const char *q = p; q + mlen <= end; q++)
            if (memcmp(q, NPY_BF16_MARKER, mlen) == 0)
                l->marked_bf16 = true;
        p = end;
    }
    return parse_descr(name, descr, l);
}

/* Element count and byte size of the layout, refusing absurd sizes. */
static clops_status npy_layout_size(const char *name, npy_layout *l)
{
    int64_t limit = INT64_MAX / (int64_t)l->elsize;
    if ((uint64_t)limit > SIZE_MAX / l->elsize)
        limit = (int64_t)(SIZE_MAX / l->elsize);
    int64_t numel = 1;
    bool zero = false;
    for (int i = 0; i < l->ndim; i++)
        if (l->shape[i] == 0)
            zero = true;
    for (int i = 0; i < l->ndim && !zero; i++) {
        if (numel > limit / l->shape[i])
            return clops__fail(CLOPS_INVALID_SHAPE,
                               "%s: absurd size: the shape's element count overflows", name);
        numel *= l->shape[i];
    }
    l->nbytes = zero ? 0 : (size_t)numel * l->elsize;
    return CLOPS_OK;
}

/*
 * Checks the fixed prefix (magic, version, header length) of `avail` bytes
 * and returns the total header size (prefix + dict) in *total and the dict
 * offset in *dict_off.
 */
static clops_status npy_parse_prefix(const char *name, const unsigned char *b, size_t avail,
                                     size_t *dict_off, size_t *total, int *major)
{
    if (avail < NPY_MAGIC_LEN || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        if (avail >= NPY_MAGIC_LEN || (avail > 0 && memcmp(b, NPY_MAGIC, avail) != 0))
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "%s: not a .npy file (it does not start with \\x93NUMPY)", name);
        return clops__fail(CLOPS_IO_ERROR, "%s: truncated .npy file (%zu bytes)", name, avail);
    }
    if (avail < NPY_MAGIC_LEN + 2)
        return clops__fail(CLOPS_IO_ERROR, "%s: truncated header (no version)", name);
    *major = b[6];
    int minor = b[7];
    if ((*major != 1 && *major != 2 && *major != 3) || minor != 0)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: unsupported .npy format version %d.%d (clops reads 1.0, 2.0 and "
                           "3.0)",
                           name, *major, minor);
    size_t lenbytes = *major == 1 ? 2 : 4;
    if (avail < NPY_MAGIC_LEN + 2 + lenbytes)
        return clops__fail(CLOPS_IO_ERROR, "%s: truncated header (no header length)", name);
    const unsigned char *q = b + NPY_MAGIC_LEN + 2;
    uint32_t hlen = (uint32_t)q[0] | (uint32_t)q[1] << 8;
    if (lenbytes == 4)
        hlen |= (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    if (hlen > NPY_MAX_HEADER_LEN)
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: absurd header length %u bytes (the limit is %u)", name, hlen,
                           NPY_MAX_HEADER_LEN);
    *dict_off = NPY_MAGIC_LEN + 2 + lenbytes;
    *total = *dict_off + hlen;
    return CLOPS_OK;
}

/* Reverses the bytes of each of n elements of size elsize in place. */
static void npy_byteswap(unsigned char *p, size_t n, size_t elsize)
{
    for (size_t i = 0; i < n; i++, p += elsize)
        for (size_t a = 0, b = elsize - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* Copies Fortran-ordered src into C-ordered dst. */
static void npy_fortran_to_c(const npy_layout *l, const unsigned char *src, unsigned char *dst)
{
    int64_t fstride[CLOPS_MAX_DIMS], idx[CLOPS_MAX_DIMS] = {0};
    int64_t s = 1;
    for (int k = 0; k < l->ndim; k++) {
        fstride[k] = s;
        s *= l->shape[k];
    }
    size_t n = l->nbytes / l->elsize, off = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(dst + i * l->elsize, src + off * l->elsize, l->elsize);
        for (int k = l->ndim - 1; k >= 0; k--) {
            off += (size_t)fstride[k];
            if (++idx[k] < l->shape[k])
                break;
            off -= (size_t)(fstride[k] * l->shape[k]);
            idx[k] = 0;
        }
    }
}

/* Decides whether a u2 file is accepted as bfloat16. */
static clops_status npy_check_u2(const char *name, const npy_layout *l, unsigned flags)
{
    if (l->is_u2 && !l->marked_bf16 && !(flags & NPY_READ_U2_AS_BFLOAT16))
        return clops__fail(CLOPS_INVALID_DTYPE,
                           "%s: dtype uint16 ('u2') is not a clops dtype; if the file holds "
                           "bfloat16 bits, read it as bfloat16 explicitly (clops run "
                           "--bf16-bits)",
                           name);
    return CLOPS_OK;
}

/* Turns raw stored data (l->nbytes at raw, owned by the caller) into the
 * final array: byte order, C order, bool normalisation. */
static clops_status npy_finish(const char *name, const npy_layout *l, unsigned char *raw,
                               npy_array *out)
{
    clops_status st = npy_alloc(out, l->dtype, l->ndim, l->shape);
    if (st)
        return clops__error_prefix(st, "%s", name);
    if (l->nbytes == 0)
        return CLOPS_OK;
    if (l->swap)
        npy_byteswap(raw, l->nbytes / l->elsize, l->elsize);
    if (l->fortran && l->ndim > 1)
        npy_fortran_to_c(l, raw, out->data);
    else
        memcpy(out->data, raw, l->nbytes);
    if (l->dtype == CLOPS_BOOL) {
        unsigned char *b = out->data;
        for (size_t i = 0; i < l->nbytes; i++)
            b[i] = b[i] != 0;
    }
    return CLOPS_OK;
}

clops_status npy_parse(const char *name, const void *buf, size_t len, unsigned flags,
                       npy_array *out)
{
    npy_array empty = NPY_ARRAY_INIT;
    *out = empty;
    if (!name)
        name = "(memory)";
    if (!buf && len)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: NULL buffer", name);
    const unsigned char *b = buf;
    npy_layout l;
    memset(&l, 0, sizeof l);
    size_t dict_off, total;
    int major;
    clops_status st = npy_parse_prefix(name, b, len, &dict_off, &total, &major);
    if (st)
        return st;
    if (len < total)
        return clops__fail(CLOPS_IO_ERROR,
                           "%s: truncated header (%zu bytes promised, %zu present)", name,
                           total - dict_off, len - dict_off);
    st = npy_parse_dict(name, (const char *)b + dict_off, total - dict_off, &l);
    if (!st)
        st = npy_check_u2(name, &l, flags);
    if (!st)
        st = npy_layout_size(name, &l);
    if (st)
        return st;
    size_t have = len - total;
    if (have < l.nbytes)
        return clops__fail(CLOPS_IO_ERROR,
                           "%s: truncated data: the header promises %zu bytes, the file has %zu",
                           name, l.nbytes, have);
    if (have > l.nbytes)
        return clops__fail(CLOPS_IO_ERROR, "%s: %zu unexpected bytes after the data", name,
                           have - l.nbytes);
    unsigned char *raw = NULL;
    if (l.nbytes) {
        raw = malloc(l.nbytes);
        if (!raw)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory (%zu bytes)",
                               name, l.nbytes);
        memcpy(raw, b + total, l.nbytes);
    }
    st = npy_finish(name, &l, raw, out);
    free(raw);
    if (st)
        npy_free(out);
    return st;
}

clops_status npy_read_file(const char *path, unsigned flags, npy_array *out)
{
    npy_array empty = NPY_ARRAY_INIT;
    *out = empty;
    clops_status st = CLOPS_OK;
    unsigned char *hdr = NULL, *raw = NULL;
    npy_layout l;
    memset(&l, 0, sizeof l);
    FILE *f = fopen(path, "rb");
    if (!f)
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = clops__fail(CLOPS_IO_ERROR, "%s: not a regular file", path);
        goto done;
    }
    unsigned char prefix[12];
    size_t got = fread(prefix, 1, sizeof prefix, f);
    size_t dict_off, total;
    int major;
    st = npy_parse_prefix(path, prefix, got, &dict_off, &total, &major);
    if (st)
        goto done;
    if ((uint64_t)sb.st_size < total) {
        st = clops__fail(CLOPS_IO_ERROR, "%s: truncated header (%zu bytes promised, %lld present)",
                         path, total - dict_off, (long long)sb.st_size - (long long)dict_off);
        goto done;
    }
    hdr = malloc(total);
    if (!hdr) {
        st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory", path);
        goto done;
    }
    if (fseek(f, 0, SEEK_SET) != 0 || fread(hdr, 1, total, f) != total) {
        st = clops__fail(CLOPS_IO_ERROR, "%s: read error in the header", path);
        goto done;
    }
    st = npy_parse_dict(path, (const char *)hdr + dict_off, total - dict_off, &l);
    if (!st)
        st = npy_check_u2(path, &l, flags);
    if (!st)
        st = npy_layout_size(path, &l);
    if (st)
        goto done;
    uint64_t have = (uint64_t)sb.st_size - total;
    if (have != l.nbytes) {
        st = have < l.nbytes
                 ? clops__fail(CLOPS_IO_ERROR,
                               "%s: truncated data: the header promises %zu bytes, the file has "
                               "%llu",
                               path, l.nbytes, (unsigned long long)have)
                 : clops__fail(CLOPS_IO_ERROR, "%s: %llu unexpected bytes after the data", path,
                               (unsigned long long)(have - l.nbytes));
        goto done;
    }
    if (l.nbytes) {
        raw = malloc(l.nbytes);
        if (!raw) {
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "%s: out of host memory (%zu bytes)", path,
                             l.nbytes);
            goto done;
        }
        if (fread(raw, 1, l.nbytes, f) != l.nbytes) {
            st = clops__fail(CLOPS_IO_ERROR, "%s: read error in the data", path);
            goto done;
        }
    }
    st = npy_finish(path, &l, raw, out);
done:
    if (st)
        npy_free(out);
    free(hdr);
    free(raw);
    fclose(f);
    return st;
}

clops_status npy_alloc(npy_array *a, clops_dtype dtype, int ndim, const int64_t *shape)
{
    npy_array empty = NPY_ARRAY_INIT;
    *a = empty;
    if ((int)dtype < 0 || dtype >= CLOPS_DTYPE_COUNT)
        return clops__fail(CLOPS_INVALID_DTYPE, "npy: invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_SHAPE, "npy: %d dimensions (0..%d allowed)", ndim,
                           CLOPS_MAX_DIMS);
    npy_layout l;
    memset(&l, 0, sizeof l);
    l.elsize = clops_dtype_size(dtype);
    l.ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return clops__fail(CLOPS_INVALID_SHAPE, "npy: negative dimension %lld",
                               (long long)shape[i]);
        l.shape[i] = shape[i];
    }
    clops_status st = npy_layout_size("npy", &l);
    if (st)
        return st;
    if (l.nbytes) {
        a->data = malloc(l.nbytes);
        if (!a->data)
            return clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "out of host memory (%zu bytes)",
                               l.nbytes);
    }
    a->dtype = dtype;
    a->ndim = ndim;
    memcpy(a->shape, l.shape, sizeof a->shape);
    a->nbytes = l.nbytes;
    return CLOPS_OK;
}

int64_t npy_numel(const npy_array *a)
{
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        n *= a->shape[i];
    return n;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    free(a->data);
    npy_array empty = NPY_ARRAY_INIT;
    *a = empty;
}

/* Builds the padded header (prefix included) for a into hdr[cap]; returns
 * its length, or 0 when the array is invalid (message set). */
static size_t npy_build_header(const npy_array *a, int version, unsigned char *hdr, size_t cap)
{
    char dict[600];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     npy_descr_for(a->dtype));
    for (int i = 0; i < a->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)a->shape[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }%s", a->ndim == 1 ? "," : "",
                  a->dtype == CLOPS_BFLOAT16 ? "  # " NPY_BF16_MARKER : "");
    size_t lenbytes = version == 1 ? 2 : 4;
    size_t prefix = NPY_MAGIC_LEN + 2 + lenbytes;
    size_t total = prefix + (size_t)n + 1;
    size_t padded = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (padded > cap)
        return 0;
    size_t hlen = padded - prefix;
    memcpy(hdr, NPY_MAGIC, NPY_MAGIC_LEN);
    hdr[6] = (unsigned char)version;
    hdr[7] = 0;
    for (size_t i = 0; i < lenbytes; i++)
        hdr[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(hdr + prefix, dict, (size_t)n);
    memset(hdr + prefix + n, ' ', padded - prefix - (size_t)n - 1);
    hdr[padded - 1] = '\n';
    return padded;
}

/* Checks that a is a consistent array before writing it. */
static clops_status npy_check_array(const char *what, const npy_array *a)
{
    if ((int)a->dtype < 0 || a->dtype >= CLOPS_DTYPE_COUNT || a->ndim < 0 ||
        a->ndim > CLOPS_MAX_DIMS)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "%s: invalid array (dtype %d, %d dims)", what,
                           (int)a->dtype, a->ndim);
    npy_layout l;
    memset(&l, 0, sizeof l);
    l.elsize = clops_dtype_size(a->dtype);
    l.ndim = a->ndim;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] < 0)
            return clops__fail(CLOPS_INVALID_SHAPE, "%s: negative dimension", what);
        l.shape[i] = a->shape[i];
    }
    clops_status st = npy_layout_size(what, &l);
    if (st)
        return st;
    if (l.nbytes != a->nbytes || (l.nbytes && !a->data))
        return clops__fail(CLOPS_INVALID_ARGUMENT,
                           "%s: array holds %zu bytes but its shape needs %zu", what, a->nbytes,
                           l.nbytes);
    return CLOPS_OK;
}

/* Copies n bytes of host-order elements to dst in little-endian order. */
static void npy_store_le(unsigned char *dst, const void *src, size_t n, size_t elsize)
{
    memcpy(dst, src, n);
    if (elsize > 1 && !npy_host_little())
        npy_byteswap(dst, n / elsize, elsize);
}

clops_status npy_encode(const npy_array *a, int version, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (version == 0)
        version = 1;
    if (version < 1 || version > 3)
        return clops__fail(CLOPS_INVALID_ARGUMENT, "npy: cannot write format version %d",
                           version);
    clops_status st = npy_check_array("npy", a);
    if (st)
        return st;
    unsigned char hdr[1024];
    size_t hn = npy_build_header(a, version, hdr, sizeof hdr);
    if (!hn)
        return clops__fail(CLOPS_INTERNAL, "npy: header does not fit");
    unsigned char *out = malloc(hn + a->nbytes);
    if (!out)
        return CLOPS__HOST_OOM("npy image");
    memcpy(out, hdr, hn);
    if (a->nbytes)
        npy_store_le(out + hn, a->data, a->nbytes, clops_dtype_size(a->dtype));
    *buf = out;
    *len = hn + a->nbytes;
    return CLOPS_OK;
}

clops_status npy_write_file(const char *path, const npy_array *a)
{
    clops_status st = npy_check_array(path, a);
    if (st)
        return st;
    unsigned char hdr[1024];
    size_t hn = npy_build_header(a, 1, hdr, sizeof hdr);
    if (!hn)
        return clops__fail(CLOPS_INTERNAL, "%s: header does not fit", path);
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n <= 0 || (size_t)n >= sizeof tmp)
        return clops__fail(CLOPS_IO_ERROR, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    bool ok = fwrite(hdr, 1, hn, f) == hn;
    /* The data goes out in chunks so a big-endian host can swap a copy. */
    size_t elsize = clops_dtype_size(a->dtype), chunk = (size_t)1 << 20;
    unsigned char *buf = npy_host_little() ? NULL : malloc(chunk);
    for (size_t off = 0; ok && off < a->nbytes; off += chunk) {
        size_t m = a->nbytes - off < chunk ? a->nbytes - off : chunk;
        const unsigned char *src = (const unsigned char *)a->data + off;
        if (buf) {
            npy_store_le(buf, src, m, elsize);
            src = buf;
        } else if (!npy_host_little()) {
            ok = false; /* no memory for the swap buffer */
            errno = ENOMEM;
            break;
        }
        ok = fwrite(src, 1, m, f) == m;
    }
    free(buf);
    int err = errno;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        if (ok)
            err = errno;
        unlink(tmp);
        return clops__fail(CLOPS_IO_ERROR, "%s: cannot write: %s", path, strerror(err));
    }
    return CLOPS_OK;
}
