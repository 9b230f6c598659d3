/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_debug.c: the test and debug settings (core/debug.h): set by
 * name, read by key, every listed setting named and documented, unknown
 * names and negative values refused with a message naming the settings.
 * What each setting does to its family is tested there (test_norm.c:
 * norm.streaming; test_random.c: random.wg and random.groups).
 */
#include <string.h>

#include "core/debug.h"
#include "support/clops_test.h"

/* A value set by name is what the family reads by key, until reset. */
static void set_by_name_reads_by_key(void **state)
{
    (void)state;
    for (int k = 0; k < CLOPS_DEBUG_COUNT; k++) {
        const char *name = clops_debug_name((clops_debug_key)k);
        CT_ASSERT(name != NULL);
        CT_ASSERT(clops_debug_get((clops_debug_key)k) == 0);
        CT_OK(clops_debug_set(name, 7));
        for (int j = 0; j < CLOPS_DEBUG_COUNT; j++)
            CT_ASSERT_MSG(clops_debug_get((clops_debug_key)j) == (j == k ? 7 : 0),
                          "setting %s changed %s", name, clops_debug_name((clops_debug_key)j));
        CT_OK(clops_debug_set(name, 0));
        CT_ASSERT(clops_debug_get((clops_debug_key)k) == 0);
    }
}

/* Every setting has a distinct dotted name and a meaning in the list. */
static void every_setting_is_named_and_documented(void **state)
{
    (void)state;
    for (int k = 0; k < CLOPS_DEBUG_COUNT; k++) {
        const char *name = clops_debug_name((clops_debug_key)k);
        const char *meaning = clops_debug_meaning((clops_debug_key)k);
        CT_ASSERT(name && strchr(name, '.') && meaning && strlen(meaning) > 20);
        for (int j = 0; j < k; j++)
            CT_ASSERT(strcmp(name, clops_debug_name((clops_debug_key)j)) != 0);
    }
    CT_ASSERT(clops_debug_name(CLOPS_DEBUG_COUNT) == NULL);
    CT_ASSERT(clops_debug_meaning((clops_debug_key)-1) == NULL);
    CT_ASSERT(clops_debug_get(CLOPS_DEBUG_COUNT) == 0);
}

/* An unknown name or a negative value changes nothing and says why. */
static void unknown_names_and_negative_values_are_refused(void **state)
{
    (void)state;
    CT_STATUS(clops_debug_set("norm.streamin", 1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("no setting called 'norm.streamin'");
    CT_ERROR_CONTAINS("norm.streaming");
    CT_ERROR_CONTAINS("random.groups");
    CT_STATUS(clops_debug_set(NULL, 1), CLOPS_INVALID_ARGUMENT);
    CT_STATUS(clops_debug_set("random.wg", -1), CLOPS_INVALID_ARGUMENT);
    CT_ERROR_CONTAINS("random.wg takes a value >= 0");
    for (int k = 0; k < CLOPS_DEBUG_COUNT; k++)
        CT_ASSERT(clops_debug_get((clops_debug_key)k) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_by_name_reads_by_key),
        cmocka_unit_test(every_setting_is_named_and_documented),
        cmocka_unit_test(unknown_names_and_negative_values_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, ct_teardown_group);
}
