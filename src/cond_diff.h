/* Which measurement conditions differ between results (the "conditions" manifest of
 * docs/result-schema.md, and preemption, HZ and clocksource from env), phrased for people:
 * "conditions differ: PM QoS held at 0 µs in A, not held in B". Used by irt compare (table
 * and compare.json) and irt report (environment section). No system calls. */
#ifndef IRT_COND_DIFF_H
#define IRT_COND_DIFF_H

#include "opt.h"
#include "result.h"

/* Appends one line per condition that can move latency and differs between the results
 * (labels[i] names rs[i]; results with the same label are one group, e.g. the runs of a
 * cell). Results without a manifest (simulated, or older irt) take no part in manifest
 * entries. With `cells` (the labels are cells of one comparison) and in a sweep (every result
 * has the setting "cell"), a condition set by a knob or option whose value differs between the
 * results is the swept dimension and is not listed; without (the labels are machines, each
 * with its own sweep) every difference is listed, whatever set it. Returns the number of lines
 * added. */
int cond_differences(const struct result *const *rs, const char *const *labels, int n, bool cells,
                     struct strlist *lines);

/* The people's name of a manifest key ("pm_qos" -> "PM QoS"); NULL for entries that move by
 * themselves (cpufreq.cur_khz, steal) and are never compared. */
const char *cond_label(const char *key);

/* One line for people about the conditions that matter most, "" when r has no manifest:
 * "PM QoS not held (system-wide: no request (2000000000 µs)); cpuidle haltpoll, governor
 * haltpoll; changed during the run: pm_qos.system". */
void cond_summary(const struct result *r, char *out, size_t len);

#endif
