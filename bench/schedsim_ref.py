#!/usr/bin/python3
"""schedsim's numbers for one scenario under one of its policies, as bench/schedsim-parity
compares them: per thread completed jobs, response min/mean/median/max, maximum scheduling
latency (integer us, as its schedule.py prints them) and CPU share; and the CPU time of
execute() alone. Needs a jschlatow/schedsim checkout with an empty sched/__init__.py (else
Python's own sched module shadows schedsim's) and Debian's python3-numpy, -pandas, -seaborn,
-sortedcontainers and -matplotlib.

usage: schedsim_ref.py SCHEDSIM_DIR POLICY FILE.tsv [MAX_TIME_US]"""
import contextlib
import io
import os
import sys
import time
import warnings

POLICIES = ["rr", "stride", "base-hw", "bvt", "bvt-nowarp", "bvt-sculpt"]
_mods = None


def load(top):
    global _mods
    if _mods:
        return _mods
    if not os.path.exists(os.path.join(top, "sched", "__init__.py")):
        sys.exit("schedsim_ref: %s/sched/__init__.py is missing; without it Python's own sched "
                 "module shadows schedsim's (touch it)" % top)
    sys.path.insert(0, top)
    import numpy as np
    from sched import reader, scheduler
    _mods = (np, reader, scheduler)
    return _mods


def shares_of(np, s):
    """schedsim's cpu_shares. It raises KeyError for a thread that never ran and
    ZeroDivisionError (or, with numpy times, gives inf) for one whose span minus idle time is
    0: such a thread's share is undefined ("-"); ask again without it for the others."""
    saved, out = {}, {}
    while True:
        try:
            out = s.cpu_shares()
            break
        except (KeyError, ZeroDivisionError) as ex:
            bad = ex.args[0] if isinstance(ex, KeyError) else None
            if bad is None:  # the thread that divided by zero: the one with an empty span
                for th, series in s.latency_trace.items():
                    if th not in saved and series[-1] == series[0]:
                        bad = th
                        break
            if bad is None or bad not in s.latency_trace:
                break
            saved[bad] = s.latency_trace.pop(bad)
    s.latency_trace.update(saved)
    return {th: v for th, v in out.items() if np.isfinite(v)}


def run(top, policy, path, max_time=10 * 1000 * 1000):
    """-> (execute() CPU seconds, the numbers' CPU seconds, end time us, error or None,
           {thread: (jobs, min, mean, median, max, lat max, share)} as strings)"""
    np, reader, scheduler = load(top)
    make = {
        "rr": scheduler.RoundRobin,
        "stride": scheduler.Stride,
        "base-hw": scheduler.BaseHw,
        "bvt": lambda: scheduler.BVT(warp=True),
        "bvt-nowarp": lambda: scheduler.BVT(warp=False),
        "bvt-sculpt": scheduler.BVTSculpt,
    }[policy]
    trace = reader.WorkloadReader(path)
    s = make()
    failed = None
    with contextlib.redirect_stdout(io.StringIO()):   # it prints every decision
        t0 = time.process_time()
        try:
            s.execute(trace, max_time=max_time)
        except Exception as ex:  # schedsim raises on some inputs: say so instead of numbers
            failed = "%s: %s" % (type(ex).__name__, ex)
        cpu = time.process_time() - t0
    if failed:
        return cpu, 0, int(s.time), failed, {}
    t0 = time.process_time()  # the numbers from execute()'s trace, as irt's summary makes them
    resp = s.response_times()
    lat = s.sched_latencies()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shares = shares_of(np, s)
    out = {}
    for th in sorted(resp):
        r = resp[th]
        share = "%f" % shares[th] if th in shares else "-"
        if len(r) == 0:
            out[th] = ("0", "-", "-", "-", "-", "-", share)
        else:
            out[th] = tuple("%d" % v for v in (len(r), min(r), np.mean(r), np.median(r), max(r), max(lat[th]))) + (share,)
    return cpu, time.process_time() - t0, int(s.time), None, out


if __name__ == "__main__":
    top, policy, path = sys.argv[1], sys.argv[2], sys.argv[3]
    max_time = int(sys.argv[4]) if len(sys.argv) > 4 else 10 * 1000 * 1000
    cpu, numbers_cpu, end, err, out = run(top, policy, path, max_time)
    print("execute_cpu_s %.6f" % cpu)
    print("numbers_cpu_s %.6f" % numbers_cpu)
    print("end_us %d" % end)
    if err:
        print("error %s" % err)
    for th, v in out.items():
        print("thread %s %s" % (th, " ".join(v)))
