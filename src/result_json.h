/* The result record's JSON parts, for other records that share them (irt noise's irt-noise/1):
 * the same histogram, environment and settings objects, and the same atomic, indented write. */
#ifndef IRT_RESULT_JSON_H
#define IRT_RESULT_JSON_H

#include <jansson.h>

#include "result.h"

json_t *result_jstr(const char *s);   /* invalid UTF-8 bytes become '?' */
json_t *result_hist_json(const struct hist *h);
json_t *result_env_json(const struct result_env *env);
json_t *result_kv_json(const struct kvlist *l);
/* The fields a record begins with: schema, tool_version, command, cmdline, start and end (ns
 * and UTC), duration_ns, interrupted. */
json_t *result_head_json(const char *schema, const char *tool_version, const char *command, const char *cmdline,
                         int64_t start_ns, int64_t end_ns, int64_t duration_ns, bool interrupted);
/* root as result_write lays it out, written atomically to path ("-" = stdout) */
int result_json_write(const json_t *root, const char *path, struct err *e);

#endif
