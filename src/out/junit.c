/* JUnit XML: the schema most CI systems read (testsuites > testsuite > testcase > failure). */
#include "out/junit.h"

#include <stdlib.h>
#include <unistd.h>

#include "trust.h"
#include "util.h"

/* XML text and attribute values: the five entities; control characters other than tab and
 * newline are not allowed in XML 1.0 at all and become '?' */
static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, f); break;
		}
	}
}

void junit_render(FILE *f, const char *command, const struct expect *x, const struct expect_outcome *out, int n,
                  double elapsed_s)
{
	int failures = 0;
	for (int i = 0; i < n; i++)
		failures += !out[i].met;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"irt\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n", n, failures,
	        elapsed_s);
	fprintf(f, "  <testsuite name=\"irt %s\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"%.3f\" "
	        "hostname=\"", command, n, failures, elapsed_s);
	xml(f, host);
	fprintf(f, "\">\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "    <testcase classname=\"irt.%s\" name=\"", command);
		xml(f, x[i].text);
		fprintf(f, "\" time=\"%.3f\"", n ? elapsed_s / n : 0.0);
		if (out[i].met) {
			fprintf(f, ">\n      <system-out>");
			xml(f, out[i].detail);
			fprintf(f, "</system-out>\n    </testcase>\n");
			continue;
		}
		fprintf(f, ">\n      <failure type=\"%s\" message=\"", out[i].judged ? "unmet" : "not judged");
		xml(f, out[i].detail);
		fprintf(f, "\">expected ");
		xml(f, x[i].text);
		fprintf(f, "; got ");
		xml(f, out[i].detail);
		fprintf(f, "</failure>\n    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

int junit_write(const char *path, const char *command, const struct expect *x, const struct expect_outcome *out,
                int n, double elapsed_s, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		xoom("a memory stream");
	junit_render(m, command, x, out, n, elapsed_s);
	fclose(m);
	int rc = write_atomic(path, buf, len, e);
	if (rc)
		err_prefix(e, "--junit");
	free(buf);
	return rc;
}
