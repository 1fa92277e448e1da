/* Strict reading of irt's JSON files (results, sweep summaries): one reader per file, and
 * getters that check a member's type and range. Every complaint is EXIT_USAGE and names the
 * file and the JSON path, "FILE: $.env.hz: expected ...", so a user can find what to fix. */
#ifndef IRT_JSON_READ_H
#define IRT_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

struct json_reader {
	const char *file;     /* named in every message */
	const char *schema;   /* named when a required member is missing */
	struct err *e;
};

/* The whole of f as a JSON tree (duplicate keys refused), or NULL with "FILE:LINE:COL: not
 * valid JSON (...)" in e. */
json_t *json_read_load(FILE *f, const char *file, struct err *e);

/* Records "FILE: PATH.KEY: what" (key NULL: "FILE: PATH: what") and returns -1. */
int json_read_bad(struct json_reader *rd, const char *path, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* obj's member key, or NULL after "missing (required by SCHEMA)". */
json_t *json_read_member(struct json_reader *rd, const char *path, const json_t *obj, const char *key);

/* Required members; 0 or -1 after json_read_bad. Text reaches terminals, so strings keep their
 * control characters escaped ("\x1b", err_escape_dup) and must not hold a NUL. */
int json_read_str(struct json_reader *rd, const char *path, const json_t *obj, const char *key, char *dst,
		  size_t cap);
int json_read_strdup(struct json_reader *rd, const char *path, const json_t *obj, const char *key, char **dst);
/* An integer in [min, max]. */
int json_read_int(struct json_reader *rd, const char *path, const json_t *obj, const char *key, int64_t min,
		  int64_t max, int64_t *out);
/* A non-negative integer, as uint64_t or as int (up to INT32_MAX). */
int json_read_count(struct json_reader *rd, const char *path, const json_t *obj, const char *key, uint64_t *out);
int json_read_int32(struct json_reader *rd, const char *path, const json_t *obj, const char *key, int *out);
/* A finite number (integer or real) >= min. */
int json_read_real(struct json_reader *rd, const char *path, const json_t *obj, const char *key, double min,
		   double *out);
int json_read_bool(struct json_reader *rd, const char *path, const json_t *obj, const char *key, bool *out);
/* An object (type JSON_OBJECT) or an array (JSON_ARRAY), or NULL after json_read_bad. */
json_t *json_read_typed(struct json_reader *rd, const char *path, const json_t *obj, const char *key,
			json_type type);

#endif
