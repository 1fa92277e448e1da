/* JUnit XML for CI systems (Jenkins, GitLab, GitHub actions' test reporters): one test suite
 * per irt command, one test case per --expect, a <failure> for each unmet one. */
#ifndef IRT_OUT_JUNIT_H
#define IRT_OUT_JUNIT_H

#include <stdio.h>

#include "err.h"
#include "expect.h"

/* Renders the suite to f. */
void junit_render(FILE *f, const char *command, const struct expect *x, const struct expect_outcome *out, int n,
                  double elapsed_s);
/* Renders it and writes it to path atomically ("-" = stdout). */
int junit_write(const char *path, const char *command, const struct expect *x, const struct expect_outcome *out,
                int n, double elapsed_s, struct err *e);

#endif
