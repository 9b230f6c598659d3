/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/test_cli_progress.c: the ETA of the progress display
 * (tools/cli/progress.c) comes from the phase's real progress.
 *
 * The first item of a phase pays its start-up (a cold kernel cache, the
 * first program builds: a minute on POCL where the other items take
 * seconds); an ETA from the average including it said 15 minutes for a
 * phase of 1.5.  The ETA is unknown until two items finished, then the
 * rate of the items after the first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/cli/cli.h"
#include "tools/cli/progress.h"

static void eta_ignores_the_first_items_start_up(void **state)
{
    (void)state;
    cli_progress p;
    cli_progress_start(&p, CLI_PROGRESS_OFF, "check", "ops", 10);
    assert_true(cli_progress_eta(&p) < 0);
    cli_progress_begin(&p, "first");
    cli_progress_end(&p, true, NULL);
    /* One item: no rate yet. */
    assert_true(cli_progress_eta(&p) < 0);
    cli_progress_begin(&p, "second");
    cli_progress_end(&p, true, NULL);
    /* As if the first item took 100 s and the second 1 s. */
    double now = cli_now();
    p.start = now - 101.0;
    p.first_end = now - 1.0;
    double eta = cli_progress_eta(&p);
    /* 8 items left at 1 s each, not at the 50.5 s average */
    assert_true(eta > 7.5 && eta < 9.0);
    for (int i = 2; i < 10; i++) {
        cli_progress_begin(&p, "next");
        cli_progress_end(&p, true, NULL);
    }
    assert_true(cli_progress_eta(&p) == 0.0);
    cli_progress_finish(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eta_ignores_the_first_items_start_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
