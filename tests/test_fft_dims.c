/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_fft_dims.c: the FFT family (docs/fft.md) on every OpenCL device
 * against the CPU reference over layouts and dims: transposed, sliced and
 * offset inputs; 2-D and 3-D transforms over all or some dims, in any order
 * (the halved dim is the last one listed); 4 dims (two VkFFT passes);
 * complex128 where the device has fp64 (Bluestein's algorithm at 97).
 * The lengths and norm modes are in test_fft.c.
 */
#include "fft_check.h"

#define I64 CT_I64

static void test_layouts_and_dims(void **state)
{
    (void)state;
    clops_device *devs[CT_MAX_DEVICES];
    int ndev = ct_opencl_devices(devs, CT_MAX_DEVICES);
    for (int di = 0; di < ndev; di++) {
        clops_device *d = devs[di];
        ct_set_device(d);
        /* Strided inputs: transposed and sliced (with an offset). */
        for (int l = 0; l < CT_LAYOUT_COUNT; l++) {
            if ((ct_layout)l == CT_EXPANDED)
                continue;
            ct_set_case("layout %s", ct_layout_name((ct_layout)l));
            check_case(d, C2C, CLOPS_FLOAT32, 2, I64(8, 7), (ct_layout)l, I64(0), 1, 0, true, 0,
                       7);
            check_case(d, R2C, CLOPS_FLOAT32, 2, I64(8, 7), (ct_layout)l, I64(-1), 1, 2, true, 0,
                       8);
            check_case(d, C2R, CLOPS_FLOAT32, 2, I64(8, 4), (ct_layout)l, I64(1), 1, 1, false, 7,
                       9);
        }
        ct_set_case("2-D");
        check_case(d, C2C, CLOPS_FLOAT32, 2, I64(8, 7), CT_CONTIGUOUS, I64(0, 1), 2, 0, true, 0,
                   11);
        check_case(d, R2C, CLOPS_FLOAT32, 3, I64(2, 8, 7), CT_CONTIGUOUS, I64(1, 2), 2, 2, true, 0,
                   12);
        /* The halved dim is the last one listed, not the innermost. */
        check_case(d, R2C, CLOPS_FLOAT32, 3, I64(2, 8, 7), CT_CONTIGUOUS, I64(2, 1), 2, 0, true, 0,
                   13);
        check_case(d, C2R, CLOPS_FLOAT32, 3, I64(2, 8, 4), CT_CONTIGUOUS, I64(1, 2), 2, 2, false, 6,
                   14);
        ct_set_case("3-D");
        check_case(d, C2C, CLOPS_FLOAT32, 3, I64(4, 3, 5), CT_CONTIGUOUS, I64(0, 1, 2), 3, 1, false,
                   0, 15);
        check_case(d, C2C, CLOPS_FLOAT32, 3, I64(4, 3, 5), CT_TRANSPOSED, I64(0, 2), 2, 0, true, 0,
                   16);
        check_case(d, R2C, CLOPS_FLOAT32, 3, I64(4, 3, 5), CT_CONTIGUOUS, I64(0, 1, 2), 3, 0, true,
                   0, 17);
        check_case(d, C2R, CLOPS_FLOAT32, 3, I64(4, 3, 3), CT_CONTIGUOUS, I64(0, 1, 2), 3, 2, false,
                   5, 18);
        ct_set_case("4 dims: two passes");
        check_case(d, C2C, CLOPS_FLOAT32, 4, I64(2, 3, 2, 3), CT_CONTIGUOUS, I64(0, 1, 2, 3), 4, 0,
                   true, 0, 19);
        check_case(d, R2C, CLOPS_FLOAT32, 4, I64(2, 3, 2, 3), CT_CONTIGUOUS, I64(3, 0, 1, 2), 4, 0,
                   true, 0, 20);
        check_case(d, C2R, CLOPS_FLOAT32, 4, I64(2, 3, 2, 2), CT_CONTIGUOUS, I64(0, 1, 2, 3), 4, 2,
                   false, 3, 21);
        if (ct_device_supports(d, CLOPS_FLOAT64)) {
            ct_set_case("complex128");
            check_case(d, C2C, CLOPS_FLOAT64, 2, I64(3, 97), CT_CONTIGUOUS, I64(1), 1, 0, true, 0,
                       22);
            check_case(d, R2C, CLOPS_FLOAT64, 2, I64(60, 3), CT_TRANSPOSED, I64(0), 1, 2, true, 0,
                       23);
            check_case(d, C2R, CLOPS_FLOAT64, 2, I64(3, 5), CT_CONTIGUOUS, I64(1), 1, 0, false, 8,
                       24);
        }
    }
    ct_clear_context();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_and_dims),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
