/* What the knob registry (knob.c) shares with the power management knobs (knob_power.c).
 * Not for other modules: they use knob.h. */
#ifndef IRT_LINUX_KNOB_PRIV_H
#define IRT_LINUX_KNOB_PRIV_H

#include "linux/knob.h"

#define VALLEN 128     /* a knob file's value as text */
#define MAX_CPUS 512   /* per-CPU knobs act on at most this many online CPUs */

/* A bare integer, units_parse_int's syntax. */
bool knob_bare_int(const char *s, int64_t *v);
/* The file of SYSTEM knob k under the sysroot. */
int knob_sys_path(const struct knob *k, char *buf, size_t len);
/* Can irt read and write path? 0, or -1 with why->msg. */
int knob_check_file(const struct knob *k, const char *path, struct err *why);
/* The value of a per-CPU knob from its n files (native: converted from the kernel's unit as
 * the knob's own file is), or "VALUE (cpu-dependent)" when the CPUs differ. */
int knob_read_per_cpu(const struct knob *k, char (*paths)[CG_PATHLEN], int n, bool native, char *buf, size_t len,
                      struct err *e);
/* Journals the original of path, then writes the new value. */
int knob_write_journaled(const struct knob *k, const char *path, const char *val, struct err *e);

extern const struct knob_ops knob_pm_ops, knob_idle_ops, knob_freq_ops, knob_smt_ops;

#endif
