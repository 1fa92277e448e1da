/* knob settings: "NAME=VALUE" as --apply and sweeps take them, split by knob_parse_setting
 * and checked by knob_validate (which reads, never writes, kernel files). A value that
 * validates must parse (knob_parse_value) and format to a value that parses to the same. */
#include "fuzz.h"
#include "linux/knob.h"

static struct knob_ctx ctx;
static int ctx_ready;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;
	if (!ctx_ready) {
		struct err e = {0};
		knob_ctx_init(&ctx, &e);   /* without a cpu controller the cgroup knobs still validate */
		ctx_ready = 1;
	}
	char *s = fuzz_str(data, size);
	ctx.allow_rt_unthrottled = size && (data[0] & 1);
	const struct knob *k;
	char value[128];
	struct err e = {0};
	if (knob_parse_setting(s, &k, value, sizeof(value), &e)) {
		fuzz_check_err(&e, EXIT_USAGE);
	} else if (knob_validate(k, &ctx, value, &e)) {
		fuzz_check_parse_err(&e);   /* a well-formed value may be beyond this user's privilege */
	} else if (k->type != KT_CHOICE || k->scope == KNOB_THREAD) {
		int64_t v, back;
		char text[128];
		struct err e2 = {0};
		FUZZ_ASSERT(knob_parse_value(k, value, &v, &e2) == 0, "%s: '%s' validated, then refused: %s", k->name,
		            value, e2.msg);
		knob_format_value(k, v, text, sizeof(text));
		FUZZ_ASSERT(knob_parse_value(k, text, &back, &e2) == 0 && back == v, "%s: '%s' -> '%s' -> %s", k->name,
		            value, text, e2.msg);
	}
	free(s);
	return 0;
}
