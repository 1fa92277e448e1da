#!/usr/bin/env python3
"""A known blocker for tests/cli/test_explain.sh: named COMM, SCHED_FIFO PRIO, pinned to CPU,
busy BURST_MS every PERIOD_MS until killed; or (--udp) sending loopback UDP during the bursts, so
the NET_RX softirq runs on that CPU. Writes each burst as "release start end cpu" to LOG (CLOCK_MONOTONIC ns and
the thread's CPU time in the burst), flushed per line, so the test can bracket what it gave
the CPU: at most [release, end], at least [start, end] less what it did not run of it (a
burst is written inside the next one, so nothing runs between a burst's end and its sleep).

usage: blocker.py COMM CPU PRIO BURST_MS PERIOD_MS LOG [--udp]"""
import ctypes
import os
import socket
import sys
import time

comm, cpu, prio, burst_ms, period_ms, log = sys.argv[1:7]
udp = "--udp" in sys.argv[7:]
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, comm.encode()[:15], 0, 0, 0)   # PR_SET_NAME: the comm the trace shows
os.sched_setaffinity(0, {int(cpu)})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(prio)))
burst, period = int(float(burst_ms) * 1e6), int(float(period_ms) * 1e6)
if udp:
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.setblocking(False)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dest, payload = rx.getsockname(), b"x" * 512
out = open(log, "w", buffering=1)
release = time.monotonic_ns() + period
last = None
while True:
    now = time.monotonic_ns()
    if now < release:
        time.sleep((release - now) / 1e9)
    start = time.monotonic_ns()
    cpu0 = time.thread_time_ns()
    if last:   # the previous burst, written inside this one: its end is exact
        out.write("%d %d %d %d\n" % last)
    while True:
        if udp:
            tx.sendto(payload, dest)
            try:
                while rx.recv(2048):
                    pass
            except BlockingIOError:
                pass
        end = time.monotonic_ns()
        if end - start >= burst:
            break
    # it may have run from its release on (the wake-up before `start`), and may have lost
    # CPU inside [start, end] (IRQs, other real-time tasks): wall - CPU time says how much
    last = (min(release, start), start, end, time.thread_time_ns() - cpu0)
    release += period
