#!/usr/bin/env python3
"""Writes a synthetic irt-result/1 file for the compare tests: one probe result whose
wake-up latencies are 20 us + Exp(mean), response = wake-up + 100 us, deadline 300 us.
Deterministic for a given --seed.

usage: synth_result.py OUT --slice 1ms --mean 100us-in-ns --samples N --seed S [--threads K]
                        [--host NAME] [--machine-id ID]
                        [--load NAME:OPS_PER_S[:SPEC]]...   (a cpu load that did that much work)
                        [--setting KEY=VALUE]...   (a run setting beside the seed: warmup=1s)
"""
import argparse
import json
import random

SUB_BITS = 10


def bucket_lo(v):
    """Lower edge of the irt histogram bucket holding v (src/hist.h)."""
    if v < (1 << SUB_BITS):
        return v
    shift = v.bit_length() - SUB_BITS
    return (v >> shift) << shift


def hist(values):
    buckets = {}
    for v in values:
        lo = bucket_lo(v)
        buckets[lo] = buckets.get(lo, 0) + 1
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "sum": sum(values),
        "sumsq": float(sum(v * v for v in values)),
        "saturated": 0,
        "buckets": [[lo, n] for lo, n in sorted(buckets.items())],
    }


def make_result(wakes, seed=1, slice_="0ns", host="host1", machine_id="", settings=()):
    """An irt-result/1 probe result with one thread per list of wake-up latencies (ns);
    response = wake-up + 100 us, deadline 300 us. Also used by bench/stats-trial."""
    threads = []
    for t, wake in enumerate(wakes):
        resp = [w + 100000 for w in wake]
        met = sum(1 for r in resp if r <= 300000)
        threads.append({
            "name": "probe%d" % t, "role": "probe", "tid": 0,
            "settings": {"name": "probe%d" % t, "period": "1ms", "slice": slice_},
            "samples": len(wake), "overruns": 0,
            "deadlines_met": met, "deadlines_missed": len(wake) - met,
            "timer_slack_ns": 1, "burn_ns_per_kloop": 0,
            "wake": hist(wake), "resp": hist(resp),
        })
    return {
        "schema": "irt-result/1", "tool_version": "0.1.0", "command": "probe",
        "cmdline": "synthetic", "start_ns": 0, "start_utc": "1970-01-01T00:00:00.000000000Z",
        "end_ns": 1, "end_utc": "1970-01-01T00:00:00.000000001Z", "duration_ns": 1,
        "interrupted": False,
        "env": {"hostname": host, "machine_id": machine_id, "kernel": "6.18.0", "kernel_version": "#1", "machine": "x86_64",
                "cpu_model": "synthetic", "online_cpus": 2, "clocksource": "tsc",
                "preemption": "full", "hz": 250, "root": False},
        "settings": dict([("seed", str(seed))] + [kv.split("=", 1) for kv in settings]),
        "threads": threads,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--slice", default="0ns")
    ap.add_argument("--mean", type=float, default=100e3)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--host", default="host1")
    ap.add_argument("--machine-id", default="")
    ap.add_argument("--load", action="append", default=[])
    ap.add_argument("--setting", action="append", default=[])
    a = ap.parse_args()
    rng = random.Random(a.seed)
    wakes = [[20000 + int(rng.expovariate(1.0 / a.mean)) for _ in range(a.samples)]
             for _ in range(a.threads)]
    result = make_result(wakes, a.seed, a.slice, a.host, a.machine_id, a.setting)
    loads = []
    for spec in a.load:
        name, ops, how = (spec.split(":", 2) + ["cpu"])[:3]
        ops = float(ops) * (1 + 0.01 * rng.gauss(0, 1))
        loads.append({
            "name": name, "type": "cpu", "spec": how, "settings": {},
            "ops": int(ops * 10), "bytes": 0, "errors": 0, "elapsed_ns": 10 ** 10,
            "ops_per_s": ops, "bytes_per_s": 0.0, "ops_unit": "loops", "bytes_unit": "",
            "end": "stopped", "failure": "",
        })
    if loads:
        result["loads"] = loads
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
