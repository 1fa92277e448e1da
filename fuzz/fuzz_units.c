/* units.c: every parser on the same text; whatever parses must print back to a form that
 * parses to the same value (the exact formatters promise that). */
#include <inttypes.h>

#include "fuzz.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256)
		return 0;
	char *s = fuzz_str(data, size), buf[64];
	int64_t v, back;

	if (units_parse_duration(s, &v) == 0) {
		FUZZ_ASSERT(v >= 0, "'%s' -> %" PRId64, s, v);
		units_format_duration(buf, sizeof(buf), v);
		FUZZ_ASSERT(units_parse_duration(buf, &back) == 0 && back == v, "'%s' -> %" PRId64 " -> '%s'", s, v, buf);
		units_human_duration(buf, sizeof(buf), v);
		units_human_duration(buf, sizeof(buf), -v);
	}
	if (units_parse_size(s, &v) == 0) {
		FUZZ_ASSERT(v >= 0, "'%s' -> %" PRId64, s, v);
		units_format_size(buf, sizeof(buf), v);
		FUZZ_ASSERT(units_parse_size(buf, &back) == 0 && back == v, "'%s' -> %" PRId64 " -> '%s'", s, v, buf);
	}
	if (units_parse_percent(s, &v) == 0) {
		FUZZ_ASSERT(v >= 0, "'%s' -> %" PRId64, s, v);
		units_format_percent(buf, sizeof(buf), v);
		FUZZ_ASSERT(units_parse_percent(buf, &back) == 0 && back == v, "'%s' -> %" PRId64 " -> '%s'", s, v, buf);
	}
	if (units_parse_int(s, &v) == 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, v);
		FUZZ_ASSERT(units_parse_int(buf, &back) == 0 && back == v, "'%s' -> %" PRId64, s, v);
	}
	free(s);
	return 0;
}
