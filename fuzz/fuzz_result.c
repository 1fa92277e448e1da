/* result_read: result files (irt-result/1) from any source. What the reader accepts must be
 * safe for every consumer: the text renderers, the text and HTML reports. */
#include "cli.h"
#include "fuzz.h"
#include "out/html.h"
#include "out/report.h"
#include "out/text.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	FILE *f = fuzz_stream(data, size);
	struct result r;
	struct err e = {0};
	int rc = result_read_stream(&r, f, "r.json", &e);
	fclose(f);
	if (rc) {
		fuzz_check_err(&e, EXIT_USAGE);
		FUZZ_ASSERT(strncmp(e.msg, "r.json", 6) == 0, "the message does not name the file: %s", e.msg);
		return 0;
	}
	FILE *sink = fuzz_sink();
	out_summary(sink, &r);
	out_run_sections(sink, &r);
	out_seed(sink, &r);
	out_cyclictest(sink, &r, 50, false);
	out_cyclictest(sink, &r, 50, true);   /* --hist-sum */
	const struct result *one[1] = {&r};
	struct report_in in = {.rs = one, .n = 1};
	struct err e2 = {0};
	report_text(sink, &in, &e2);
	struct sbuf html = {0};
	struct err e3 = {0};
	report_html_render(&in, &html, &e3);
	sb_free(&html);
	result_free(&r);
	return 0;
}
