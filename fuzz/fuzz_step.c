/* sim/step.c: step scripts (irt sim --step FILE), read through step_run_file. Exit 0 (every
 * expectation held), 1 (one did not) or 2 (malformed script, naming file:line). */
#include "fuzz.h"
#include "sim/step.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	FILE *f = fuzz_stream(data, size);
	struct err e = {0};
	int rc = step_run_file(f, "s.step", fuzz_sink(), &e);
	fclose(f);
	FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2, "exit %d", rc);
	if (rc)
		fuzz_check_err(&e, rc);
	else
		FUZZ_ASSERT(e.code == 0, "exit 0 with an error: %s", e.msg);
	return 0;
}
