/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_licence.c: the licence is stated everywhere a packager looks.
 *
 * LICENSE at the root holds the Apache License 2.0; the pkg-config file and
 * the CMake package configured by this build name it (License: Apache-2.0,
 * clops_LICENSE); the README says it.  (The per-file SPDX tags are checked
 * by tools/check_spdx.sh.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/clops_test.h"

/* Reads a whole text file (malloc'd); fails the test when it is missing. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    CT_ASSERT_MSG(f != NULL, "%s is missing", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    CT_ASSERT(buf != NULL);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = '\0';
    return buf;
}

static void test_the_license_file_is_apache_2_0(void **state)
{
    (void)state;
    char *text = slurp(CLOPS_SOURCE_DIR "/LICENSE");
    CT_ASSERT(strstr(text, "Apache License") && strstr(text, "Version 2.0, January 2004") &&
              strstr(text, "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"));
    free(text);
}

static void test_package_metadata_names_the_licence(void **state)
{
    (void)state;
    char *pc = slurp(CLOPS_BINARY_DIR "/clops.pc");
    CT_ASSERT_MSG(strstr(pc, "\nLicense: Apache-2.0\n"), "clops.pc:\n%s", pc);
    free(pc);
    char *cfg = slurp(CLOPS_BINARY_DIR "/clopsConfig.cmake");
    CT_ASSERT_MSG(strstr(cfg, "set(clops_LICENSE \"Apache-2.0\")"), "clopsConfig.cmake lacks it");
    free(cfg);
    char *readme = slurp(CLOPS_SOURCE_DIR "/README.md");
    CT_ASSERT(strstr(readme, "## Licence") && strstr(readme, "Apache-2.0"));
    free(readme);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_license_file_is_apache_2_0),
        cmocka_unit_test(test_package_metadata_names_the_licence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
