/* Strict JSON reading shared by the result reader (result_read.c) and the sweep summary
 * reader (sweep_summary.c): the same checks give the same messages in both. */
#include "json_read.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

json_t *json_read_load(FILE *f, const char *file, struct err *e)
{
	json_error_t je;
	json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		err_set(e, EXIT_USAGE, "%s:%d:%d: not valid JSON (%s)", file, je.line, je.column, je.text);
	return root;
}

int json_read_bad(struct json_reader *rd, const char *path, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key)
		return err_set(rd->e, EXIT_USAGE, "%s: %s.%s: %s", rd->file, path, key, what);
	return err_set(rd->e, EXIT_USAGE, "%s: %s: %s", rd->file, path, what);
}

json_t *json_read_member(struct json_reader *rd, const char *path, const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		json_read_bad(rd, path, key, "missing (required by %s)", rd->schema);
	return v;
}

/* Text from a file reaches terminals (report --format text, compare): it keeps its control
 * characters escaped ("\x1b", err_escape_dup), as irt's own messages show them. */
int json_read_str(struct json_reader *rd, const char *path, const json_t *obj, const char *key, char *dst, size_t cap)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_string(v))
		return json_read_bad(rd, path, key, "expected a string");
	const char *s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return json_read_bad(rd, path, key, "contains a NUL character");
	char *text = err_escape_dup(s);
	size_t n = strlen(text);
	if (n < cap)
		memcpy(dst, text, n + 1);
	free(text);
	if (n >= cap)
		return json_read_bad(rd, path, key, "longer than %zu characters", cap - 1);
	return 0;
}

int json_read_strdup(struct json_reader *rd, const char *path, const json_t *obj, const char *key, char **dst)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_string(v))
		return json_read_bad(rd, path, key, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return json_read_bad(rd, path, key, "contains a NUL character");
	*dst = err_escape_dup(json_string_value(v));
	return 0;
}

int json_read_int(struct json_reader *rd, const char *path, const json_t *obj, const char *key, int64_t min,
		  int64_t max, int64_t *out)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (!v)
		return -1;
	int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
	if (!json_is_integer(v) || x < min || x > max) {
		if (min == 0 && max == INT64_MAX)
			return json_read_bad(rd, path, key, "expected a non-negative integer");
		if (max == INT64_MAX)
			return json_read_bad(rd, path, key, "expected an integer >= %" PRId64, min);
		return json_read_bad(rd, path, key, "expected an integer from %" PRId64 " to %" PRId64, min, max);
	}
	*out = x;
	return 0;
}

int json_read_count(struct json_reader *rd, const char *path, const json_t *obj, const char *key, uint64_t *out)
{
	int64_t x;
	if (json_read_int(rd, path, obj, key, 0, INT64_MAX, &x))
		return -1;
	*out = (uint64_t)x;
	return 0;
}

int json_read_int32(struct json_reader *rd, const char *path, const json_t *obj, const char *key, int *out)
{
	int64_t x;
	if (json_read_int(rd, path, obj, key, 0, INT32_MAX, &x))
		return -1;
	*out = (int)x;
	return 0;
}

int json_read_real(struct json_reader *rd, const char *path, const json_t *obj, const char *key, double min, double *out)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (!v)
		return -1;
	double x = json_number_value(v);
	if (!json_is_number(v) || !isfinite(x) || x < min)
		return json_read_bad(rd, path, key, "expected a number >= %g", min);
	*out = x;
	return 0;
}

int json_read_bool(struct json_reader *rd, const char *path, const json_t *obj, const char *key, bool *out)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_boolean(v))
		return json_read_bad(rd, path, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

json_t *json_read_typed(struct json_reader *rd, const char *path, const json_t *obj, const char *key,
			json_type type)
{
	json_t *v = json_read_member(rd, path, obj, key);
	if (v && json_typeof(v) != type) {
		json_read_bad(rd, path, key, type == JSON_OBJECT ? "expected an object" : "expected an array");
		return NULL;
	}
	return v;
}
