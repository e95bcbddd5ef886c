#ifndef C_TEST_RUN_DEFAULTS_H
#define C_TEST_RUN_DEFAULTS_H

/// How many tests Swift Testing runs at once when whoever started `swift test` did not say.
#define CLOUDANT_TEST_DEFAULT_PARALLELIZATION_WIDTH "12"

/// Whether the test process set Swift Testing's parallelization width itself (1) or found one already in its
/// environment (0): the first when a developer types a bare `swift test`.
int cloudant_test_run_defaults_set_width(void);

#endif
