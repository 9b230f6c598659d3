/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cli_npy.c: the .npy reader and writer of the clops program
 * (tools/cli/npy.c).
 *
 * Round trips for every dtype over shapes from 0-d to 16-d (zero-size
 * included), through memory and through files; byte-exact agreement with
 * files numpy 1.24 wrote (embedded below); Fortran order, big-endian data
 * and format versions 2.0 and 3.0; the bfloat16 convention; one test per
 * malformed-input error, each checking the status and that the message
 * names the file; and a short deterministic mutation fuzz of valid files.
 *
 * Built either against the clops_cli_lib library (CLOPS_CLI_LIB defined) or,
 * until the build has it, by including the module's source.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#ifdef CLOPS_CLI_LIB
#include "tools/cli/npy.h"
#else
#include "tools/cli/npy.c"
#endif

/* np.save(np.arange(6, dtype='<i4').reshape(2, 3)), numpy 1.24. */
static const char np_i4_2x3[] =
    "\x93NUMPY\x01\x00\x76\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"
    "\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"
    "\x04\x00\x00\x00\x05\x00\x00\x00";
#define NP_I4_2X3_LEN 152

/* np.save(np.asfortranarray(np.arange(24, dtype='<f8').reshape(2, 3, 4))). */
static const char np_f8_fortran_head[] =
    "\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3, 4), }"
    "                                                        \n";

/* True when needle occurs in the first len bytes of hay. */
static bool has_bytes(const unsigned char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(hay + i, needle, n) == 0)
            return true;
    return false;
}

/* A test file path in a private temporary folder. */
static char tmpdir[256];

static int setup_tmpdir(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clops-test-npy-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Builds a file image the way numpy pads it: prefix, dict, spaces, '\n' to
 * a multiple of 64, then the data.  Returns a malloc'd buffer. */
static char *make_npy(int major, const char *dict, const void *data, size_t n, size_t *len)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
    char *b = malloc(total + n + 1);
    assert_non_null(b);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (char)major;
    b[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (char)(hlen >> (8 * i));
    memcpy(b + pre, dict, dl);
    memset(b + pre + dl, ' ', total - pre - dl - 1);
    b[total - 1] = '\n';
    if (n)
        memcpy(b + total, data, n);
    *len = total + n;
    return b;
}

/* Parses an image expecting `want`; checks the message names the file. */
static void expect_error(const char *img, size_t len, clops_status want, const char *needle)
{
    npy_array a;
    clops_status st = npy_parse("bad.npy", img, len, 0, &a);
    if (st != want)
        fail_msg("expected %s, got %s: %s", clops_status_name(want), clops_status_name(st),
                 clops_last_error());
    assert_null(a.data);
    const char *msg = clops_last_error();
    assert_non_null(strstr(msg, "bad.npy"));
    if (needle && !strstr(msg, needle))
        fail_msg("message '%s' lacks '%s'", msg, needle);
}

/* Same through make_npy with a header dict. */
static void expect_dict_error(const char *dict, size_t ndata, clops_status want,
                              const char *needle)
{
    char zeros[64] = {0};
    size_t len;
    char *img = make_npy(1, dict, zeros, ndata, &len);
    expect_error(img, len, want, needle);
    free(img);
}

/* Fills an array with a pattern that differs per element and byte. */
static void fill_pattern(npy_array *a)
{
    unsigned char *p = a->data;
    for (size_t i = 0; i < a->nbytes; i++)
        p[i] = (unsigned char)(i * 37u + 11u);
    if (a->dtype == CLOPS_BOOL)
        for (size_t i = 0; i < a->nbytes; i++)
            p[i] &= 1;
}

/* --- round trips ---------------------------------------------------------------- */

static void round_trip_every_dtype_and_shape(void **state)
{
    static const int64_t shapes[][5] = {{0}, {1, 0}, {1, 7}, {2, 3, 4}, {3, 2, 0, 5},
                                        {4, 1, 1, 1, 1}, {2, 5, 7}};
    static const int ndims[] = {0, 1, 1, 2, 3, 4, 3};
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++)
        for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; s++) {
            const int64_t *shape = ndims[s] == 0 ? NULL : &shapes[s][1];
            npy_array a, b;
            assert_int_equal(npy_alloc(&a, (clops_dtype)dt, ndims[s], shape), CLOPS_OK);
            fill_pattern(&a);
            for (int version = 1; version <= 3; version++) {
                unsigned char *img;
                size_t len;
                assert_int_equal(npy_encode(&a, version, &img, &len), CLOPS_OK);
                assert_int_equal(len % 64, a.nbytes % 64); /* data starts 64-aligned */
                assert_int_equal(npy_parse("rt.npy", img, len, 0, &b), CLOPS_OK);
                assert_int_equal(b.dtype, dt);
                assert_int_equal(b.ndim, a.ndim);
                assert_memory_equal(b.shape, a.shape, sizeof a.shape);
                assert_int_equal(b.nbytes, a.nbytes);
                if (a.nbytes)
                    assert_memory_equal(b.data, a.data, a.nbytes);
                else
                    assert_null(b.data);
                npy_free(&b);
                free(img);
            }
            npy_free(&a);
        }
}

static void round_trip_through_files_up_to_16_dims(void **state)
{
    int64_t shape[CLOPS_MAX_DIMS];
    for (int i = 0; i < CLOPS_MAX_DIMS; i++)
        shape[i] = i % 5 == 0 ? 2 : 1;
    char path[300];
    snprintf(path, sizeof path, "%s/sixteen.npy", tmpdir);
    for (int dt = 0; dt < CLOPS_DTYPE_COUNT; dt++) {
        npy_array a, b;
        assert_int_equal(npy_alloc(&a, (clops_dtype)dt, CLOPS_MAX_DIMS, shape), CLOPS_OK);
        fill_pattern(&a);
        assert_int_equal(npy_write_file(path, &a), CLOPS_OK);
        assert_int_equal(npy_read_file(path, 0, &b), CLOPS_OK);
        assert_int_equal(b.dtype, dt);
        assert_int_equal(b.ndim, CLOPS_MAX_DIMS);
        assert_memory_equal(b.data, a.data, a.nbytes);
        npy_free(&a);
        npy_free(&b);
    }
}

static void writes_what_numpy_writes(void **state)
{
    npy_array a;
    int64_t shape[2] = {2, 3};
    assert_int_equal(npy_alloc(&a, CLOPS_INT32, 2, shape), CLOPS_OK);
    for (int i = 0; i < 6; i++)
        ((int32_t *)a.data)[i] = i;
    unsigned char *img;
    size_t len;
    assert_int_equal(npy_encode(&a, 0, &img, &len), CLOPS_OK);
    assert_int_equal(len, NP_I4_2X3_LEN);
    assert_memory_equal(img, np_i4_2x3, len);
    free(img);
    npy_free(&a);
}

static void reads_numpy_fortran_order_into_c_order(void **state)
{
    /* numpy stored arange(24).reshape(2,3,4) column-major. */
    double f[24];
    size_t k = 0;
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 2; x++)
                f[k++] = x * 12 + y * 4 + z;
    size_t hl = sizeof np_f8_fortran_head - 1;
    assert_int_equal(hl, 128);
    char img[128 + sizeof f];
    memcpy(img, np_f8_fortran_head, hl);
    memcpy(img + hl, f, sizeof f);
    npy_array a;
    assert_int_equal(npy_parse("f.npy", img, sizeof img, 0, &a), CLOPS_OK);
    assert_int_equal(a.ndim, 3);
    assert_int_equal(a.shape[0], 2);
    assert_int_equal(a.shape[2], 4);
    for (int i = 0; i < 24; i++)
        assert_true(((double *)a.data)[i] == i);
    npy_free(&a);
}

static void byte_swaps_big_endian_data(void **state)
{
    const unsigned char be16[] = {0xff, 0xfe, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02};
    size_t len;
    char *img = make_npy(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (5,), }", be16,
                         sizeof be16, &len);
    npy_array a;
    assert_int_equal(npy_parse("be.npy", img, len, 0, &a), CLOPS_OK);
    assert_int_equal(a.dtype, CLOPS_INT16);
    for (int i = 0; i < 5; i++)
        assert_int_equal(((int16_t *)a.data)[i], i - 2);
    npy_free(&a);
    free(img);
    const unsigned char be64[] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0}; /* 1.5 */
    img = make_npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (), }", be64, 8, &len);
    assert_int_equal(npy_parse("be.npy", img, len, 0, &a), CLOPS_OK);
    assert_int_equal(a.ndim, 0);
    assert_true(*(double *)a.data == 1.5);
    npy_free(&a);
    free(img);
}

static void reads_versions_2_and_3_and_zero_size(void **state)
{
    const unsigned char u8[] = {1, 2, 3};
    size_t len;
    char *img = make_npy(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", u8, 3,
                         &len);
    npy_array a;
    assert_int_equal(npy_parse("v2.npy", img, len, 0, &a), CLOPS_OK);
    assert_int_equal(a.dtype, CLOPS_UINT8);
    assert_memory_equal(a.data, u8, 3);
    npy_free(&a);
    free(img);
    img = make_npy(3, "{\"descr\": \"<i8\", \"shape\": (2, 0), \"fortran_order\": False}", NULL,
                   0, &len);
    assert_int_equal(npy_parse("v3.npy", img, len, 0, &a), CLOPS_OK);
    assert_int_equal(a.dtype, CLOPS_INT64);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.nbytes, 0);
    assert_null(a.data);
    npy_free(&a);
    free(img);
}

static void normalises_bool_bytes(void **state)
{
    const unsigned char b[] = {0, 2, 255, 1};
    size_t len;
    char *img = make_npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", b, 4,
                         &len);
    npy_array a;
    assert_int_equal(npy_parse("b.npy", img, len, 0, &a), CLOPS_OK);
    const unsigned char want[] = {0, 1, 1, 1};
    assert_memory_equal(a.data, want, 4);
    npy_free(&a);
    free(img);
}

static void bfloat16_round_trips_as_marked_u2(void **state)
{
    npy_array a, b;
    int64_t n = 3;
    assert_int_equal(npy_alloc(&a, CLOPS_BFLOAT16, 1, &n), CLOPS_OK);
    uint16_t bits[3] = {0x3fc0, 0xbf80, 0x7fc0}; /* 1.5, -1, NaN */
    memcpy(a.data, bits, sizeof bits);
    unsigned char *img;
    size_t len;
    assert_int_equal(npy_encode(&a, 1, &img, &len), CLOPS_OK);
    assert_true(has_bytes(img, len, "'<u2'"));
    assert_true(has_bytes(img, len, "# clops-dtype: bfloat16"));
    assert_int_equal(npy_parse("bf.npy", img, len, 0, &b), CLOPS_OK);
    assert_int_equal(b.dtype, CLOPS_BFLOAT16);
    assert_memory_equal(b.data, bits, sizeof bits);
    npy_free(&b);
    free(img);
    npy_free(&a);
}

static void plain_u2_is_refused_unless_asked(void **state)
{
    const uint16_t v[2] = {0x3f80, 0x4000};
    size_t len;
    char *img = make_npy(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", v,
                         sizeof v, &len);
    expect_error(img, len, CLOPS_INVALID_DTYPE, "bfloat16");
    npy_array a;
    assert_int_equal(npy_parse("u2.npy", img, len, NPY_READ_U2_AS_BFLOAT16, &a), CLOPS_OK);
    assert_int_equal(a.dtype, CLOPS_BFLOAT16);
    npy_free(&a);
    free(img);
}

/* --- malformed files --------------------------------------------------------------- */

static void refuses_wrong_magic(void **state)
{
    expect_error("PK\x03\x04 this is a zip", 20, CLOPS_INVALID_ARGUMENT, "not a .npy file");
    expect_error("\x93NUMPZ\x01\x00\x76\x00", 10, CLOPS_INVALID_ARGUMENT, "not a .npy file");
}

static void refuses_truncated_headers(void **state)
{
    expect_error("", 0, CLOPS_IO_ERROR, "truncated");
    expect_error("\x93NUM", 4, CLOPS_IO_ERROR, "truncated");
    expect_error("\x93NUMPY\x01", 7, CLOPS_IO_ERROR, "truncated");
    expect_error("\x93NUMPY\x01\x00\x76", 9, CLOPS_IO_ERROR, "truncated");
    expect_error(np_i4_2x3, 100, CLOPS_IO_ERROR, "truncated header");
}

static void refuses_truncated_data_and_trailing_bytes(void **state)
{
    expect_error(np_i4_2x3, NP_I4_2X3_LEN - 1, CLOPS_IO_ERROR, "truncated data");
    char img[NP_I4_2X3_LEN + 3] = {0};
    memcpy(img, np_i4_2x3, NP_I4_2X3_LEN);
    expect_error(img, sizeof img, CLOPS_IO_ERROR, "unexpected bytes");
}

static void refuses_unsupported_versions(void **state)
{
    char img[NP_I4_2X3_LEN];
    memcpy(img, np_i4_2x3, sizeof img);
    img[6] = 4;
    expect_error(img, sizeof img, CLOPS_INVALID_ARGUMENT, "version 4.0");
    img[6] = 1;
    img[7] = 1;
    expect_error(img, sizeof img, CLOPS_INVALID_ARGUMENT, "version 1.1");
}

static void refuses_unsupported_dtypes(void **state)
{
    static const char *const descrs[] = {"<c8", "<u4", "<u8", "|O", "<U3", "|V2", "<f16",
                                         "<M8[ns]", "|f4", "", "<i3"};
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++) {
        char dict[200];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (0,), }",
                 descrs[i]);
        expect_dict_error(dict, 0, CLOPS_INVALID_DTYPE, descrs[i]);
    }
    expect_dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4,
                      CLOPS_INVALID_DTYPE, "structured");
}

static void refuses_bad_shape_text(void **state)
{
    static const char *const shapes[] = {"(3", "(a,)", "(-1,)", "(3)", "(3,,4)", "[3, 4]",
                                         "(3 4)", "(,)", "3"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char dict[200];
        snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                 shapes[i]);
        expect_dict_error(dict, 0, CLOPS_INVALID_SHAPE, "shape");
    }
}

static void refuses_absurd_sizes(void **state)
{
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, "
                      "4294967296, 4294967296), }",
                      0, CLOPS_INVALID_SHAPE, "absurd");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': "
                      "(99999999999999999999999,), }",
                      0, CLOPS_INVALID_SHAPE, "absurd");
    /* A plausible count the file does not hold is a truncation, found
     * before anything is allocated. */
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
                      0, CLOPS_IO_ERROR, "truncated data");
    expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, "
                      "1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }",
                      4, CLOPS_INVALID_SHAPE, "dimensions");
    expect_error("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13, CLOPS_INVALID_ARGUMENT,
                 "header length");
}

static void refuses_malformed_dicts(void **state)
{
    struct {
        const char *dict;
        const char *needle;
    } cases[] = {
        {"'descr': '<f4'", "dictionary"},
        {"{'descr': '<f4', 'shape': (1,), }", "missing key 'fortran_order'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected key"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "repeated"},
        {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,)}", "True or False"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "expected ','"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}", "':'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", "after the dict"},
        {"{descr: '<f4'}", "quoted"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_dict_error(cases[i].dict, 4, CLOPS_INVALID_ARGUMENT, cases[i].needle);
}

static void file_errors_name_the_file(void **state)
{
    char path[300];
    npy_array a;
    snprintf(path, sizeof path, "%s/missing.npy", tmpdir);
    assert_int_equal(npy_read_file(path, 0, &a), CLOPS_IO_ERROR);
    assert_non_null(strstr(clops_last_error(), path));
    assert_int_equal(npy_read_file(tmpdir, 0, &a), CLOPS_IO_ERROR); /* a directory */
    snprintf(path, sizeof path, "%s/short.npy", tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(np_i4_2x3, 1, NP_I4_2X3_LEN - 4, f);
    fclose(f);
    assert_int_equal(npy_read_file(path, 0, &a), CLOPS_IO_ERROR);
    assert_non_null(strstr(clops_last_error(), "truncated data"));
    assert_non_null(strstr(clops_last_error(), path));
    assert_null(a.data);
    snprintf(path, sizeof path, "%s/no/such/dir/out.npy", tmpdir);
    int64_t n = 1;
    assert_int_equal(npy_alloc(&a, CLOPS_FLOAT32, 1, &n), CLOPS_OK);
    assert_int_equal(npy_write_file(path, &a), CLOPS_IO_ERROR);
    assert_non_null(strstr(clops_last_error(), path));
    npy_free(&a);
}

/* --- fuzz --------------------------------------------------------------------------- */

/* xorshift64* for reproducible mutations. */
static uint64_t fuzz_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void survives_mutated_files(void **state)
{
    npy_array seed;
    int64_t shape[3] = {2, 3, 4};
    assert_int_equal(npy_alloc(&seed, CLOPS_FLOAT32, 3, shape), CLOPS_OK);
    fill_pattern(&seed);
    unsigned char *img;
    size_t len;
    assert_int_equal(npy_encode(&seed, 1, &img, &len), CLOPS_OK);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    unsigned char buf[512];
    int ok = 0, refused = 0;
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = len < sizeof buf ? len : sizeof buf;
        memcpy(buf, img, n);
        int edits = 1 + (int)(fuzz_next(&rng) % 4);
        for (int e = 0; e < edits; e++) {
            uint64_t r = fuzz_next(&rng);
            size_t pos = (size_t)(r >> 8) % (n ? n : 1);
            switch (r % 5) {
            case 0: buf[pos] = (unsigned char)(r >> 40); break;          /* random byte */
            case 1: buf[pos] ^= (unsigned char)(1u << ((r >> 32) % 8)); break; /* bit flip */
            case 2: n = pos; break;                                        /* truncate */
            case 3: buf[pos] = "(),:'{} 0123456789-L#TrueFalse<>|"[(r >> 33) % 33]; break;
            default:                                                       /* insert */
                if (n < sizeof buf) {
                    memmove(buf + pos + 1, buf + pos, n - pos);
                    buf[pos] = (unsigned char)(r >> 48);
                    n++;
                }
            }
        }
        npy_array a;
        clops_status st = npy_parse("fuzz.npy", buf, n, (unsigned)(iter & 1), &a);
        if (st == CLOPS_OK) {
            ok++;
            assert_true(a.ndim >= 0 && a.ndim <= CLOPS_MAX_DIMS);
            npy_free(&a);
        } else {
            refused++;
            assert_null(a.data);
            assert_non_null(strstr(clops_last_error(), "fuzz.npy"));
        }
    }
    assert_true(refused > 0);
    free(img);
    npy_free(&seed);
    (void)ok;
}

/* A descr with a NUL byte inside its quotes ('<f4\0') is not '<f4': numpy
 * would not read it, and neither does clops. */
static void refuses_a_nul_byte_inside_the_descr(void **state)
{
    (void)state;
    char zeros[64] = {0};
    size_t len;
    char *img = make_npy(1, "{'descr': '<f4@', 'fortran_order': False, 'shape': (2,), }", zeros, 8,
                         &len);
    char *at = memchr(img, '@', len);
    assert_non_null(at);
    *at = '\0';
    expect_error(img, len, CLOPS_INVALID_ARGUMENT, "NUL");
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_dtype_and_shape),
        cmocka_unit_test(round_trip_through_files_up_to_16_dims),
        cmocka_unit_test(writes_what_numpy_writes),
        cmocka_unit_test(reads_numpy_fortran_order_into_c_order),
        cmocka_unit_test(byte_swaps_big_endian_data),
        cmocka_unit_test(reads_versions_2_and_3_and_zero_size),
        cmocka_unit_test(normalises_bool_bytes),
        cmocka_unit_test(bfloat16_round_trips_as_marked_u2),
        cmocka_unit_test(plain_u2_is_refused_unless_asked),
        cmocka_unit_test(refuses_wrong_magic),
        cmocka_unit_test(refuses_truncated_headers),
        cmocka_unit_test(refuses_truncated_data_and_trailing_bytes),
        cmocka_unit_test(refuses_unsupported_versions),
        cmocka_unit_test(refuses_unsupported_dtypes),
        cmocka_unit_test(refuses_bad_shape_text),
        cmocka_unit_test(refuses_absurd_sizes),
        cmocka_unit_test(refuses_malformed_dicts),
        cmocka_unit_test(refuses_a_nul_byte_inside_the_descr),
        cmocka_unit_test(file_errors_name_the_file),
        cmocka_unit_test(survives_mutated_files),
    };
    return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
