#!/usr/bin/python3
"""Runs one jschlatow/schedsim scenario under one of its policies and prints, per thread, the
numbers bench/schedsim-parity compares: completed jobs, response min/mean/median/max, maximum
scheduling latency, share (schedsim's own definitions, integer us as its schedule.py prints
them). Also prints the CPU time of execute() alone.

usage: schedsim_ref.py SCHEDSIM_DIR POLICY FILE.tsv [MAX_TIME_US]"""
import contextlib
import io
import os
import sys
import time

top, policy, path = sys.argv[1], sys.argv[2], sys.argv[3]
max_time = int(sys.argv[4]) if len(sys.argv) > 4 else 10 * 1000 * 1000
if not os.path.exists(os.path.join(top, "sched", "__init__.py")):
    sys.exit("schedsim_ref: %s/sched/__init__.py is missing; without it Python's own sched module "
             "shadows schedsim's (touch it)" % top)
sys.path.insert(0, top)
import numpy as np  # noqa: E402
from sched import reader, scheduler, bvt_standalone  # noqa: E402

make = {
    "rr": scheduler.RoundRobin,
    "stride": scheduler.Stride,
    "base-hw": scheduler.BaseHw,
    "bvt": lambda: scheduler.BVT(warp=True),
    "bvt-nowarp": lambda: scheduler.BVT(warp=False),
    "bvt-sculpt": scheduler.BVTSculpt,
    "sa-bvt": lambda: bvt_standalone.BVT(warp=True),
    "sa-bvt-sculpt": bvt_standalone.BVTSculpt,
}[policy]

trace = reader.WorkloadReader(path)
s = make()
sink = io.StringIO()
with contextlib.redirect_stdout(sink):
    t0 = time.process_time()
    try:
        s.execute(trace, max_time=max_time)
        failed = None
    except Exception as ex:  # schedsim raises on some inputs; say so instead of a number
        failed = "%s: %s" % (type(ex).__name__, ex)
    cpu = time.process_time() - t0
print("execute_cpu_s %.6f" % cpu)
print("end_us %d" % s.time)
if failed:
    print("error %s" % failed.replace("\n", " "))
    sys.exit(0)
resp = s.response_times()
lat = s.sched_latencies()
try:
    shares = s.cpu_shares()
except Exception as ex:
    shares = {}
for th in sorted(resp):
    r = resp[th]
    if len(r) == 0:
        print("thread %s jobs 0 - - - - - %s" % (th, "%f" % shares[th] if th in shares else "-"))
        continue
    print("thread %s jobs %d %d %d %d %d %d %s" % (
        th, len(r), min(r), np.mean(r), np.median(r), max(r), max(lat[th]),
        "%f" % shares[th] if th in shares else "-"))
