// Gives a bare `swift test` the parallelization width CI uses.
//
// Swift Testing starts every test at once unless SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH says otherwise.
// On Linux the cooperative executor is Dispatch's global queue (one thread per core), so with some 1,500 tests
// in flight a test that awaits a peer's 30 s deadline or a sync's pace window waits behind all the others and
// its deadline expires on a busy two-core machine. Twelve at a time gives each test the machine it was written
// for and finishes no later.
//
// Swift Testing reads the variable when its entry point starts, after every object in the test executable has
// been loaded, so a constructor here runs first. A value already in the environment (a developer's or CI's
// choice) is kept.
#include "CTestRunDefaults.h"

#include <stdlib.h>

static int setWidth = 0;

__attribute__((constructor))
static void applyTestRunDefaults(void) {
    if (getenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH") == NULL) {
        setWidth = setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH",
                          CLOUDANT_TEST_DEFAULT_PARALLELIZATION_WIDTH, 0) == 0;
    }
}

int cloudant_test_run_defaults_set_width(void) {
    return setWidth;
}
