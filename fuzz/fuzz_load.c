/* load_parse: "TYPE[:key=value,...]" as --load and [load NAME] take it. What parses must
 * report settings (load_settings) that, joined back into a spec, parse to the same settings. */
#include <stdbool.h>

#include "fuzz.h"
#include "linux/load.h"

struct joined {
	char spec[2 * LOAD_TEXTLEN];
	size_t len;
	int n;
	bool derived;   /* load-avg= given: it sets threads= and duty= itself */
};

static void join(void *ctx, const char *key, const char *value)
{
	struct joined *j = ctx;
	if (j->derived && (strcmp(key, "threads") == 0 || strcmp(key, "duty") == 0))
		return;
	if (strcmp(key, "type") == 0)
		j->len += (size_t)snprintf(j->spec + j->len, sizeof(j->spec) - j->len, "%s", value);
	else if (strcmp(key, "cpus") != 0 || value[0])
		j->len += (size_t)snprintf(j->spec + j->len, sizeof(j->spec) - j->len, "%s%s=%s",
		                           j->n++ ? "," : ":", key, value);
	if (j->len >= sizeof(j->spec))
		j->len = sizeof(j->spec) - 1;
}

static void collect(void *ctx, const char *key, const char *value)
{
	struct joined *j = ctx;
	j->len += (size_t)snprintf(j->spec + j->len, sizeof(j->spec) - j->len, "%s=%s;", key, value);
	if (j->len >= sizeof(j->spec))
		j->len = sizeof(j->spec) - 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 2 * LOAD_TEXTLEN)
		return 0;
	char *s = fuzz_str(data, size);
	struct load_spec ls;
	struct err e = {0};
	if (load_parse(s, &ls, &e)) {
		fuzz_check_parse_err(&e);
	} else {
		FUZZ_ASSERT(ls.type != NULL, "parsed without a type");
		load_type_name(&ls);
		load_ops_unit(&ls);
		load_bytes_unit(&ls);
		struct joined spec = {0}, a = {0}, b = {0};
		load_settings(&ls, collect, &a);
		spec.derived = strstr(a.spec, "load-avg=") != NULL;
		load_settings(&ls, join, &spec);
		/* cmd= takes the rest of the spec, so only specs without cmd= can be rebuilt */
		if (strcmp(load_type_name(&ls), "cmd") != 0 && strlen(spec.spec) < LOAD_TEXTLEN) {
			struct load_spec again;
			struct err e2 = {0};
			FUZZ_ASSERT(load_parse(spec.spec, &again, &e2) == 0, "'%s' -> '%s' refused: %s", s, spec.spec, e2.msg);
			load_settings(&again, collect, &b);
			FUZZ_ASSERT(strcmp(a.spec, b.spec) == 0, "'%s': settings %s, then %s", s, a.spec, b.spec);
		}
	}
	free(s);
	return 0;
}
