/* sim/workload.c: workload files (INI: [sim], [thread NAME], [sweep]) through the same code
 * as irt sim (workload_load_stream), then what irt sim does next: the checks, the cells, and a
 * short simulation of the first cells (duration overridden to 100us, so a slow input is a real
 * finding, not a long simulated run). */
#include "fuzz.h"
#include "sim/sim.h"
#include "sim/workload.h"

#ifndef FUZZ_WORKLOAD_NAME
#define FUZZ_WORKLOAD_NAME "w.ini"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	FILE *f = fuzz_stream(data, size);
	struct workload w;
	struct err e = {0};
	int rc = workload_load_stream(f, FUZZ_WORKLOAD_NAME, &w, &e);
	fclose(f);
	if (rc) {
		fuzz_check_err(&e, EXIT_USAGE);
		workload_free(&w);
		return 0;
	}
	struct err e2 = {0};
	if (workload_override(&w, sim_opt_find(SCOPE_SIM, "duration"), "100us", "fuzz", &e2) == 0 &&
	    workload_check(&w, &e2) == 0) {
		long cells = workload_cells(&w);
		FUZZ_ASSERT(cells >= 1, "%ld cells", cells);
		for (long c = 0; c < cells && c < 3; c++) {
			struct result r = {0};
			struct sim_totals tot = {0};
			struct err e3 = {0};
			char label[256];
			workload_cell_label(&w, c, label, sizeof(label));
			if (sim_run_cell(&w, c, &r, &tot, NULL, &e3) == 0)
				sim_print_table(fuzz_sink(), &r);
			else
				fuzz_check_err(&e3, EXIT_USAGE);
			result_free(&r);
		}
	} else {
		fuzz_check_err(&e2, EXIT_USAGE);
	}
	workload_free(&w);
	return 0;
}
