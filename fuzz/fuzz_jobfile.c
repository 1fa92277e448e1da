/* jobfile.c: job files as `irt run` (and sweeps) read them, through the same code path
 * (jobfile_parse_stream), then what irt run does with them: probe definitions, load specs. */
#include "config.h"
#include "fuzz.h"
#include "jobfile.h"
#include "linux/load.h"
#include "probe_cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	FILE *f = fuzz_stream(data, size);
	struct job job;
	struct err e = {0};
	unsigned scopes = SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_SWEEP;
	int rc = jobfile_parse_stream(f, "job.ini", NULL, scopes, &job, &e);
	fclose(f);
	if (rc) {
		fuzz_check_err(&e, EXIT_USAGE);
		FUZZ_ASSERT(strncmp(e.msg, "job.ini", 7) == 0, "the message does not name the file: %s", e.msg);
		return 0;
	}
	struct probe_cfg *cfgs = NULL;
	int n = 0;
	struct err e2 = {0};
	if (probe_cfgs_build(&job.args, &cfgs, &n, &e2) == 0) {
		for (int i = 0; i < n; i++) {
			struct err e3 = {0};
			if (probe_cfg_finish(&cfgs[i], &e3))
				fuzz_check_parse_err(&e3);
		}
		free(cfgs);
	} else {
		fuzz_check_err(&e2, EXIT_USAGE);
	}
	for (int i = 0; i < job.nloads; i++) {
		struct load_spec ls;
		struct err e4 = {0};
		if (load_parse(job.loads[i].spec, &ls, &e4))
			fuzz_check_parse_err(&e4);
	}
	jobfile_free(&job);
	return 0;
}
