/* Genode's own scheduler as an irt policy (policy_genode.c), for bench/hwquota-vs-genode. */
#ifndef IRT_BENCH_POLICY_GENODE_H
#define IRT_BENCH_POLICY_GENODE_H

#include "sim/policy.h"

extern const struct policy_ops policy_genode;

#endif
