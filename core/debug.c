/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core/debug.c: the values of the test and debug settings (core/debug.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "core/debug.h"
#include "core/error.h"

static _Atomic int64_t values[CLOPS_DEBUG_COUNT];

#define CLOPS__DEBUG_NAME(e, name, meaning) name,
static const char *const names[CLOPS_DEBUG_COUNT] = {CLOPS_DEBUG_LIST(CLOPS__DEBUG_NAME)};
#undef CLOPS__DEBUG_NAME
#define CLOPS__DEBUG_MEANING(e, name, meaning) meaning,
static const char *const meanings[CLOPS_DEBUG_COUNT] = {CLOPS_DEBUG_LIST(CLOPS__DEBUG_MEANING)};
#undef CLOPS__DEBUG_MEANING
#define CLOPS__DEBUG_LISTED(e, name, meaning) " " name
static const char listed[] = CLOPS_DEBUG_LIST(CLOPS__DEBUG_LISTED);
#undef CLOPS__DEBUG_LISTED

clops_status clops_debug_set(const char *name, int64_t value)
{
    for (int k = 0; name && k < CLOPS_DEBUG_COUNT; k++) {
        if (strcmp(names[k], name) != 0)
            continue;
        if (value < 0)
            return clops__fail(CLOPS_INVALID_ARGUMENT,
                               "clops_debug_set: %s takes a value >= 0 (got %lld)", name,
                               (long long)value);
        atomic_store(&values[k], value);
        return CLOPS_OK;
    }
    return clops__fail(CLOPS_INVALID_ARGUMENT,
                       "clops_debug_set: no setting called '%s' (the settings:%s; "
                       "core/debug.h)",
                       name ? name : "(null)", listed);
}

int64_t clops_debug_get(clops_debug_key key)
{
    return key >= 0 && key < CLOPS_DEBUG_COUNT ? atomic_load(&values[key]) : 0;
}

const char *clops_debug_name(clops_debug_key key)
{
    return key >= 0 && key < CLOPS_DEBUG_COUNT ? names[key] : NULL;
}

const char *clops_debug_meaning(clops_debug_key key)
{
    return key >= 0 && key < CLOPS_DEBUG_COUNT ? meanings[key] : NULL;
}
