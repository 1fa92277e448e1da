/* sweep_summary_read: irt-sweep/1 summaries, then the report renderers that read them. */
#include "fuzz.h"
#include "out/html.h"
#include "out/report.h"
#include "sweep_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	FILE *f = fuzz_stream(data, size);
	struct sweep_summary s;
	struct err e = {0};
	int rc = sweep_summary_read_stream(&s, f, "sweep.json", &e);
	fclose(f);
	if (rc) {
		fuzz_check_err(&e, EXIT_USAGE);
		FUZZ_ASSERT(strncmp(e.msg, "sweep.json", 10) == 0, "the message does not name the file: %s", e.msg);
		return 0;
	}
	/* as irt report does: the metric first, then the renderers */
	struct report_in in = {.sw = &s};
	const char *metric;
	struct err e2 = {0};
	if (report_metric(&in, &metric, &e2) == 0) {
		report_text(fuzz_sink(), &in, &e2);
		struct sbuf html = {0};
		report_html_render(&in, &html, &e2);
		sb_free(&html);
	} else {
		fuzz_check_err(&e2, EXIT_USAGE);
	}
	sweep_summary_free(&s);
	return 0;
}
