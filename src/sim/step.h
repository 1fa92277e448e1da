/* Step scripts (`irt sim --step FILE`): drive one policy op by op, print each decision and
 * check `expect` clauses. Exit codes: 0 all expectations held, 1 the first that did not
 * (e names the line, expected and actual value), 2 malformed script (e names file:line). */
#ifndef IRT_SIM_STEP_H
#define IRT_SIM_STEP_H

#include <stdio.h>

#include "err.h"

/* path "-" reads stdin. Returns the exit code; e is set when it is not 0. */
int step_run(const char *path, FILE *out, struct err *e);
int step_run_file(FILE *in, const char *path, FILE *out, struct err *e);

#endif
