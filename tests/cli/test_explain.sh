#!/bin/sh
# --explain and irt watch (docs/explain.md): a known blocker named as the top blocker with the
# time the test gave it, softirq attribution from loopback UDP, tracefs left as found after a
# normal exit, SIGINT and SIGKILL (only OUR instance irt-PID is checked: other irts may run
# concurrently and share the mount), irt watch on a program with known sleep/run behaviour,
# and the unprivileged fallback. No timing is asserted: the accounting is checked against the
# blocker's own log of its bursts, over the samples irt explained.
# Runs alone: the known blocker must be the worst thing on its CPU, so no other test runs
# meanwhile (scripts/run-tests.sh).
. "$IRT_TOP/tests/cli/lib.sh"

TR=/sys/kernel/tracing
PY=$IRT_TOP/tests/cli/blocker.py
ncpu=$(nproc)
CPU=$((ncpu - 1))
mounted() { grep -q " $TR tracefs " /proc/mounts; }
mounted_before=no
mounted && mounted_before=yes
# other live irt instances (other engineers' irts): the mount may stay for them
others() {
	for d in "$TR"/instances/irt-[0-9]*; do
		[ -d "$d" ] || continue
		p=${d##*/irt-}
		[ "$p" = "$1" ] && continue
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}
# as_found PID NAME: no instance irt-PID, and a mount irt made is gone unless another irt uses it
as_found() {
	if [ -d "$TR/instances/irt-$1" ]; then fail "$2: instance irt-$1 left behind"; return; fi
	if [ $mounted_before = no ] && mounted && ! others "$1"; then
		fail "$2: tracefs left mounted (it was not before, and no other irt uses it)"; return; fi
	pass
}
blockers=""
cleanup() { for b in $blockers; do kill "$b" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT

# ---- bad combinations with a watch (refused before anything runs, root or not)
sh -c 'exit 0' &
gone=$!
wait $gone
check_usage "probe options are not watch options" "--comm: not an option of 'irt probe'" "$IRT" probe --comm x
check_usage "watch with a probe option" "--period: not an option of 'irt watch'" "$IRT" watch --comm x --period 1ms
check_usage "watch with --attribute" "--attribute: not an option of 'irt watch'" "$IRT" watch --comm x --attribute
check_usage "sweep of a probe option over a watch" "cell slice=0: --sweep slice: a probe option" \
	"$IRT" sweep --sweep slice=0,1ms --comm x --dir "$T/bad1"
check_usage "sweep: --watch-for without a selection" "which threads\?" "$IRT" sweep --sweep load=none,cpu --watch-for 1s \
	--dir "$T/bad2"
check_usage "sweep: --pid of a missing process" "cell kernel.sched_rr_timeslice_ms=8: --pid: no process $gone" \
	"$IRT" sweep --sweep kernel.sched_rr_timeslice_ms=8,12 --pid $gone --dir "$T/bad3"
check_usage "sweep: cgroup knobs on irt's cgroup over a watch" "--cgroup-of loads" \
	"$IRT" sweep --sweep cgroup.quota=5ms,max --comm x --dir "$T/bad4"
check "no sweep directory for bad input" test ! -e "$T/bad1" -a ! -e "$T/bad2" -a ! -e "$T/bad3" -a ! -e "$T/bad4"

# ---- a real-time probe delayed by lower-priority tasks: the note says how (the preemption
# model), root or not: crafted results (a probe's record with a traced explain section put in)
run "$IRT" probe -i 1ms -n 5 -q --format none -o rt-base.json
# craft OUT POLICY PRIO PREEMPTION BLOCKER_POLICY
craft() {
	python3 - rt-base.json "$@" <<'PY'
import json, sys
src, out, pol, prio, model, bpol = sys.argv[1:]
r = json.load(open(src))
for t in r['threads']:
    t['settings']['policy'], t['settings']['prio'] = pol, prio
r['env']['preemption'] = model
r['explain'] = {'source': 'tracefs', 'reason': '', 'threshold_ns': 100000, 'trace_start_ns': 1,
    'tail_samples': 1, 'explained': 1, 'lost_samples': 0, 'late_ns': 200000, 'migrations': 0,
    'categories': dict.fromkeys(('timer', 'idle_exit', 'irq', 'softirq', 'migration', 'throttle', 'self', 'unexplained'), 0) | {'task': 200000}, 'worst': [], 'events': 10, 'events_lost': 0, 'events_per_s': 1.0, 'buffer_bytes': 4096, 'memory_bytes': 4096,
    'blockers': [{'kind': 'task', 'name': 'hog', 'id': 4242, 'cgroup': '/', 'policy': bpol,
                  'total_ns': 200000, 'samples': 1, 'share': 1.0}]}
json.dump(r, open(out, 'w'))
PY
}
craft rt-none.json fifo 90 "dynamic (none)" "other nice 0"
run "$IRT" report rt-none.json
check_out "^note: lower-priority tasks \(hog 4242, other nice 0\) ran while real-time probes \(priority 90 and up\) waited: the kernel's preemption model is dynamic \(none\), so a woken real-time task waits until the running task leaves the kernel" \
	"fifo probe behind a fair task, preempt=none: the note names the preemption model"
run "$IRT" report rt-none.json -o rt-none.html
check "the HTML report has the note too" grep -q "the kernel&#39;s preemption model is dynamic (none)\|the kernel's preemption model is dynamic (none)" rt-none.html
craft rt-full.json rr 50 "full" "fifo 10"
run "$IRT" report rt-full.json
check_out "^note: lower-priority tasks \(hog 4242, fifo 10\) .*: they held the CPU with preemption or interrupts disabled" \
	"rr probe behind a lower fifo task, full preemption: preemption disabled"
craft rt-higher.json fifo 50 "dynamic (none)" "fifo 60"
run "$IRT" report rt-higher.json
check "a higher-priority blocker: no note" sh -c "! grep -q '^note: lower-priority' '$OUT'"
craft rt-fair.json other 0 "dynamic (none)" "other nice 0"
run "$IRT" report rt-fair.json
check "a fair probe: no note" sh -c "! grep -q '^note: lower-priority' '$OUT'"

if ! is_root; then
	skip "--explain needs root (tracefs): known blocker, softirq, cleanup and watch cases"
	# ---- unprivileged: says so, falls back to the schedstat split
	run "$IRT" probe -i 1ms -n 100 -q --explain -o u.json
	check_rc 0 "unprivileged --explain still measures"
	check_err "falling back to the schedstat split" "unprivileged --explain says so"
	finish
fi
if [ ! -d "$TR" ]; then
	skip "no $TR: kernel without tracefs"
	finish
fi

# ---- --stop-above: the wake-up that ended the run is the worst, and the tail explained over the
# samples up to the stop covers it
run "$IRT" probe -i 1ms -D 5s --stop-above 1ns --explain -q -f none -o stopx.json
check_rc 4 "--stop-above --explain: the crossing exits 4"
check "--stop-above --explain: the worst explained wake-up is the stopping one" test "$(python3 -c "
import json; r = json.load(open('stopx.json')); s = r['threads'][0]['stopped']; x = r['explain']
print(x['explained'] >= 1 and x['worst'][0]['lateness_ns'] == s['wake_ns'])")" = True
# the stopping wake-up is explained even when --explain-threshold cuts above it: the cut comes
# down to it (a one-thread probe: the samples are all below it but the stopping one)
run "$IRT" probe -i 1ms -D 5s --stop-above 1ns --explain --explain-threshold 1s -q -f none -o stopt.json
check_rc 4 "--stop-above --explain-threshold 1s: the crossing exits 4"
check "--stop-above: the stopping wake-up is explained below --explain-threshold's cut" test "$(python3 -c "
import json; r = json.load(open('stopt.json')); s = r['threads'][0]['stopped']; x = r['explain']
print(x['explained'], x['worst'][0]['lateness_ns'] == s['wake_ns'], x['threshold_ns'] == s['wake_ns'])")" = "1 True True"
# the worst wake-up's time and the stop's count from one origin, the measurement window's start
# (after irt run's warm-up; tracing starts before it): the same wake-up, the same time
run "$IRT" run -i 2ms -D 5s --warmup 300ms --stop-above 1ns --explain -q -o stopr.json
check_rc 4 "irt run --stop-above --explain: the crossing exits 4"
check "--stop-above --explain: the stop and the worst wake-up name one time from one origin" test "$(python3 -c "
import json; r = json.load(open('stopr.json')); s = r['threads'][0]['stopped']; w = r['explain']['worst'][0]
print(w['lateness_ns'] == s['wake_ns'], w['at_ns'] == s['at_ns'])")" = "True True"
check "and the text says so: the worst wake-up at the stop's +time" test "$(sed -n "s/^stopped: probe0's wake-up at \(+[0-9.]*s\) .*/\1/p" "$OUT")" = \
	"$(sed -n 's/^worst wake-up: probe0 at \(+[0-9.]*s\), .*/\1/p' "$OUT")"
check "and the text has both lines" grep -q "^worst wake-up: probe0 at +[0-9.]*s, " "$OUT"

# ---- a known blocker: SCHED_FIFO, pinned to the probe's CPU, 3 ms every 20 ms (the probe's period
# is not a divisor of 20 ms, so its releases fall at every phase of the bursts). The probe runs
# in a session (autogroup) of its own at autogroup nice -20 with a 100 us slice, so that other
# sessions' work (this machine is shared) rarely outweighs the blocker; it stays SCHED_OTHER.
# Other users' real-time or CPU-bound work on the same CPU can still outrank the blocker in one
# run, so a run that does not name it is repeated, up to 3 runs: an implementation that does
# not find or account the blocker fails all of them. The accounting is checked exactly in each.
# The host's steal time on that CPU (/proc/stat, USER_HZ ticks): on a shared VM host the vCPU
# itself can be taken away for milliseconds, which the guest's trace cannot see.
steal() { awk -v c="cpu$CPU" '$1 == c { print $9 }' /proc/stat; }
blocker_run() {
	python3 "$PY" irtblk$$ "$CPU" 50 3 20 "$T/bursts" &
	blk=$!
	blockers="$blk"
	steal0=$(steal)
	setsid sh -c 'echo -20 >/proc/self/autogroup; exec "$@"' sh \
		"$IRT" probe -i 3100us -D 3s --cpus "$CPU" --nice -20 --slice 100us --explain --explain-threshold 500us -q \
		-o "$T/blk.json" >"$OUT" 2>"$ERR" &
	irt=$!
	wait $irt
	RC=$?
	steal1=$(steal)
	kill "$blk"
	wait "$blk" 2>/dev/null
	blockers=""
	python3 - "$T/blk.json" "$T/bursts" "$blk" "$((steal1 - steal0))" "$(getconf CLK_TCK)" >"$T/acct" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["explain"]
bursts = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 4]
pid = int(sys.argv[3])
# how much of the CPU the host took: its steal ticks over the run, and what the blocker lost
# inside its own bursts (wall time less its CPU time)
steal = int(sys.argv[4]) / int(sys.argv[5]) / (r["duration_ns"] / 1e9)
wall = sum(e - s for r_, s, e, c in bursts)
lost = sum(max(0, (e - s) - c) for r_, s, e, c in bursts) / wall if wall else 0.0
noise = "host steal %.1f %% of the run, the blocker lost %.1f %% of its bursts" % (100 * steal, 100 * lost)
# what holds on any machine: the trace was read, and every split adds up exactly
tasks = [b for b in x["blockers"] if b["kind"] == "task"]
assert x["source"] == "tracefs", x["source"]
assert x["explained"] > 0, "nothing explained"
for w in x["worst"]:
    assert sum(p["ns"] for p in w["parts"]) == w["lateness_ns"], "parts do not add up to the lateness"
assert sum(x["categories"].values()) == x["late_ns"], "categories sum != late_ns"
def check():
    assert tasks and tasks[0]["id"] == pid, "top task blocker is %s, not the blocker %d" % (tasks[0] if tasks else None, pid)
    # the accounting: over the explained worst samples, the blocker's part against what its own
    # log says it held the CPU inside each sample's window [release, release + lateness]: at most
    # its bursts from their release to their end, at least from their start less the CPU time it
    # lost inside them and the IRQ, softirq and timer time of those samples (on a busy machine the
    # bracket widens; it never moves)
    def overlap(a, b, lo, hi):
        return max(0, min(b, hi) - max(a, lo))
    part = hi_given = lo_given = 0
    for w in x["worst"]:
        lo = x["origin_ns"] + w["at_ns"]   # the window's start (CLOCK_MONOTONIC), as the bursts' times
        hi = lo + w["lateness_ns"]
        hi_given += sum(overlap(r, e, lo, hi) for r, s, e, c in bursts)
        lo_given += sum(max(0, overlap(s, e, lo, hi) - max(0, (e - s) - c)) for r, s, e, c in bursts
                        if overlap(s, e, lo, hi) > 0)
        part += sum(p["ns"] for p in w["parts"] if p["category"] == "task" and p["id"] == pid)
        # IRQs and softirqs inside a burst count as the blocker's CPU time but are their own parts;
        # so is the time before the probe was woken (its timer: on a VM also the host's steal)
        lo_given -= sum(p["ns"] for p in w["parts"] if p["category"] in ("irq", "softirq", "timer"))
    assert hi_given > 0, "no burst overlapped the worst samples"
    lo_given = max(0, lo_given)
    assert 0.9 * lo_given <= part <= 1.1 * hi_given, "blocker's time %d outside [%d, %d] ns +-10 %%" % (part, lo_given, hi_given)
    return "blocker part %d ns; its bursts gave %d..%d ns in those windows" % (part, lo_given, hi_given)
try:
    print(check() + "; " + noise)
except AssertionError as ex:
    print("categories %s; %d bursts" % (x["categories"], len(bursts)))
    print("%s; %s" % (ex, noise))
    # a vCPU the host took away shows as idle, or its timer fires late on the other CPU
    # while the blocker runs: the worst samples are then the host's, not the blocker's
    sys.exit(3 if steal > 0.05 or lost > 0.05 else 1)
PY
}
# 3 attempts. The invariants (trace read, parts and categories add up) must hold in each. Naming
# the blocker and its accounting may fail only while the host stole more than 5 % of the CPU
# (by its steal count or by what the blocker lost of its own bursts): such a run is noisy, not
# a failure, and 3 noisy runs make a skip that says so.
attempt=1 ok=no noisy=0
while :; do
	blocker_run
	rc=$?
	if [ $rc -eq 0 ]; then ok=yes; break; fi
	[ $rc -eq 3 ] && noisy=$((noisy + 1))
	[ $attempt -ge 3 ] && break
	echo "    known blocker: run $attempt did not pass ($(tail -n 1 "$T/acct")); again"
	attempt=$((attempt + 1))
done
if [ $ok = yes ]; then
	pass; echo "    known blocker (run $attempt): $(tail -n 1 "$T/acct")"
	check_out "irtblk$$ \($blk\) +task" "known blocker: named in the top blockers"
elif [ $noisy -eq 3 ]; then
	skip "known blocker: the host took the CPU in all 3 runs; attribution not checked ($(tail -n 1 "$T/acct"))"
else
	fail "known blocker: accounting (3 runs)"; sed 's/^/    | /' "$T/acct"
	grep -A12 "why late" "$OUT" | sed 's/^/    | /'
fi
check_rc 0 "known blocker: probe --explain exits 0"
as_found $irt "known blocker: normal exit"
check_out "why late \(--explain\)" "known blocker: summary has the explain section"

# ---- softirq: loopback UDP bursts on the probe's CPU (NET_RX runs there)
python3 "$PY" irtudp$$ "$CPU" 40 2 10 "$T/udp" --udp &
blk=$!
blockers="$blk"
setsid sh -c 'echo -20 >/proc/self/autogroup; exec "$@"' sh \
	"$IRT" probe -i 2300us -D 2s --cpus "$CPU" --nice -20 --slice 100us --explain --explain-threshold 200us -q \
	-o "$T/udp.json" >"$OUT" 2>"$ERR" &
irt=$!
wait $irt
RC=$?
kill "$blk"
wait "$blk" 2>/dev/null
blockers=""
check_rc 0 "softirq: probe --explain exits 0"
as_found $irt "softirq: normal exit"
if python3 -c "
import json,sys
x=json.load(open('$T/udp.json'))['explain']
sys.exit(0 if any(b['kind']=='softirq' and b['name']=='NET_RX' and b['total_ns']>0 for b in x['blockers']) else 1)"; then
	pass
else
	fail "softirq: NET_RX not among the blockers"; sed 's/^/    | /' "$OUT" | grep -A30 "why late"
fi
# the text report shows the section as the run's own output did (and the HTML report)
run "$IRT" report "$T/udp.json"
check_out "^why late \(--explain\): [0-9]+ wake-ups? at least .* late; [0-9]+ explained from [0-9]+ scheduler events" \
	"irt report (text) has the explain section"
check_out "^top blockers +kind +share" "irt report (text) lists the blockers"

# ---- SIGINT: interrupted (exit 3), results kept, instance removed
"$IRT" probe -i 10ms -D 60s --explain -q -o "$T/int.json" >"$OUT" 2>"$ERR" &
irt=$!
i=0
while [ ! -d "$TR/instances/irt-$irt" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $irt
wait $irt
RC=$?
check "SIGINT: exit 3" [ "$RC" -eq 3 ]
as_found $irt "SIGINT"
check "SIGINT: result kept with its explain section" python3 -c "
import json; assert json.load(open('$T/int.json'))['explain']['source'] == 'tracefs'"

# ---- SIGKILL: the next irt command (here irt restore) removes what it left
"$IRT" probe -i 10ms -D 60s --explain -q >"$OUT" 2>"$ERR" &
irt=$!
i=0
while [ ! -d "$TR/instances/irt-$irt" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
check "SIGKILL: the instance existed while tracing" [ -d "$TR/instances/irt-$irt" ]
kill -KILL $irt
wait $irt 2>/dev/null
check_exit 0 "SIGKILL: irt restore" "$IRT" restore
as_found $irt "SIGKILL then irt restore"

# ---- irt watch: a program that sleeps 10 ms and then runs 2 ms, by command name and by pid
cat >"$T/sleeper.py" <<'PY'
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
while True:
    time.sleep(0.01)
    t = time.monotonic_ns()
    while time.monotonic_ns() - t < 2000000:
        pass
PY
python3 "$T/sleeper.py" irtslp$$ &
slp=$!
blockers="$slp"
i=0   # python takes a while to start on a busy machine: wait for its name
while [ "$(cat /proc/$slp/comm 2>/dev/null)" != "irtslp$$" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
run "$IRT" watch --comm irtslp$$ --watch-for 1s --explain -o "$T/watch.json"
check_rc 0 "watch --comm: exit 0"
check_out "^irtslp$$ " "watch --comm: the thread is in the table by its name"
check_out "^why late \(--explain\)" "watch --explain: the blockers of the tail"
check_out "^wake-up latency \(sched_waking -> running\)" "watch: its latency table says what it measures (no release)"
check "watch: no probe headings" sh -c "! grep -q 'release ->' '$OUT'"
check "watch --comm: known behaviour (wakes at most every 10 ms, runs >= 2 ms per wake-up)" python3 -c "
import json; r = json.load(open('$T/watch.json'))
t = [t for t in r['threads'] if t['name'] == 'irtslp$$']
assert len(t) == 1 and t[0]['role'] == 'watch' and t[0]['tid'] == $slp, r['threads']
t = t[0]; d = r['duration_ns']
assert 1 <= t['samples'] <= d // 10000000 + 1, (t['samples'], d)
assert t['resp']['min'] >= 2000000, t['resp']['min']
assert t['wake']['min'] >= 0 and r['explain']['source'] == 'tracefs'"
run "$IRT" watch --pid $slp --watch-for 300ms -q -o "$T/watch2.json"
check_rc 0 "watch --pid: exit 0"
check "watch without --explain: no blockers, no explain section, no --explain note" sh -c "
! grep -q 'why late' '$OUT' && ! grep -q -- '--explain' '$ERR' &&
python3 -c \"import json; assert 'explain' not in json.load(open('$T/watch2.json'))\""
# a watch that records nothing fails: exit 1, one line, no (empty) result file
run "$IRT" watch --comm irtnone$$ --watch-for 300ms -o "$T/none.json"
check_rc 1 "watch of nothing: exit 1"
check_err "^irt: watch: no selected thread woke up in .*: no thread named irtnone$$ ran; nothing written$" "watch of nothing: says so"
check "watch of nothing: one error line, no tables, no result file" \
	[ "$(grep -vc '^irt: note:' "$ERR")" = 1 -a ! -s "$OUT" -a ! -e "$T/none.json" ]
# --placement split: a watch has no probes: no probes cgroup claimed (or made), the loads' only
run "$IRT" watch --pid $slp --watch-for 300ms --load cpu:1 --warmup 100ms --placement split -o "$T/wsplit.json"
if [ $RC = 0 ]; then
	check_out "^placement: split; loads in cgroup [^;]*-loads.*; watched threads left where they are$" \
		"watch --placement split: says where the loads and the watched threads are"
	check "watch --placement split: no probes cgroup" sh -c "! grep -q 'probes' '$OUT' &&
python3 -c \"import json; assert json.load(open('$T/wsplit.json'))['placement']['probe_cgroup'] == ''\""
else
	skip "watch --placement split: no cgroup cpu controller here ($(head -1 "$ERR"))"
fi
check_exit 0 "watch results compare" "$IRT" compare "$T/watch.json" "$T/watch2.json"
# an interrupted watch says so on stderr, as probe and run do
"$IRT" watch --pid $slp --watch-for 30s -q -f none -o "$T/watch3.json" 2>"$T/watch3.err" &
wpid=$!
sleep 2
kill -INT $wpid
wait $wpid
check "interrupted watch: exit 3" test $? = 3
check "interrupted watch: says so on stderr" grep -Eq '^irt: interrupted after [0-9.]+[mun]?s of 30.0s: the results so far are printed and saved$' "$T/watch3.err"
check_out "irtslp$$" "watch results compare: the watched thread is compared"
check "watch --pid: the process's CPU accounting (role watch)" python3 -c "
import json; r = json.load(open('$T/watch2.json'))
assert [a for a in r['accounting'] if a['role'] == 'watch' and a['tid'] == $slp], r['accounting']"
# a process asleep the whole window has no wake-up to record: the refusal is right, and says so
# (it asked "is it running, and does it sleep?" of a process that was and did)
sleep 60 &
asleep=$!
run "$IRT" watch --pid $asleep --watch-for 300ms --warmup 0 -o "$T/asleep.json"
check_rc 1 "watch of a process asleep all window: exit 1"
check_err "^irt: watch: no selected thread woke up in [^:]*: the 1 selected thread slept \(or ran\) through the whole window, so there is no wake-up latency to record .*; nothing written$" \
	"watch of a process asleep all window: says it slept through the window"
kill $asleep
# a watched process that exits inside the window: its accounting row is marked exited with its
# figures unknown (it was a row of zeros), and the window the watch names is the accounting's
cat >"$T/quitter.py" <<'PY'
import os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
PY
python3 "$T/quitter.py" "$T/quit" &
qp=$!
"$IRT" watch --pid $qp --watch-for 3s --warmup 0 -o "$T/quit.json" >"$T/quit.out" 2>"$T/quit.err" &
wq=$!
i=0   # the window opens once its trace runs
while [ ! -d "$TR/instances/irt-$wq" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 1
touch "$T/quit"
wait $wq
check "watch of a process that exits in the window: exit 0" test $? = 0
check "exited: its accounting rows are marked, their figures unknown" python3 -c "
import json; r = json.load(open('$T/quit.json'))
a = [a for a in r['accounting'] if a['pid'] == $qp]
assert a and all(x.get('exited') is True and x['used_ns'] == -1 and x['waited_ns'] == -1 for x in a), a"
check "exited: the text table marks it with - for its figures" grep -Eq '^python3 \(exited\) +watch +- +- +- +-$' "$T/quit.out"
check "watch: its window is the accounting's, and no row goes beyond it" python3 -c "
import json; r = json.load(open('$T/quit.json'))
assert r['context']['wall_ns'] == r['duration_ns'], (r['context']['wall_ns'], r['duration_ns'])
assert all(a['wall_ns'] <= r['duration_ns'] and a['used_ns'] + max(a['waited_ns'], 0) <= a['wall_ns']
           for a in r['accounting']), r['accounting']"

# ---- irt watch beside irt's loads: recorded as a run's, and gone afterwards
run "$IRT" watch --comm irtslp$$ --watch-for 500ms --load cpu:1 --warmup 200ms -q -o "$T/watchload.json"
check_rc 0 "watch --load: exit 0"
check_out "^irtslp$$ " "watch --load: the thread is in the table"
check "watch --load: the load and its accounting recorded as a run's" python3 -c "
import json; r = json.load(open('$T/watchload.json'))
assert r['command'] == 'watch' and [t for t in r['threads'] if t['role'] == 'watch'], r['threads']
l = r['loads']; assert len(l) == 1 and l[0]['spec'] == 'cpu:1' and l[0]['end'] == 'stopped' and l[0]['elapsed_ns'] > 0, l
assert [a for a in r['accounting'] if a['role'] == 'load cpu'], r['accounting']
assert r['settings']['warmup'] == '200ms' and r['context']['wall_ns'] > 0, (r['settings'], r['context'])"
check "watch --load: every row's figures fit in the window the watch names" python3 -c "
import json; r = json.load(open('$T/watchload.json'))
d = r['duration_ns']; assert r['context']['wall_ns'] == d, (r['context']['wall_ns'], d)
assert all(a['wall_ns'] <= d and a['used_ns'] + max(a['waited_ns'], 0) <= a['wall_ns'] for a in r['accounting']), r['accounting']"
loadpids=$(python3 -c "
import json; r = json.load(open('$T/watchload.json'))
print(' '.join(str(a['pid']) for a in r['accounting'] if a['role'].startswith('load')))")
alive=""
for p in $loadpids; do [ -d /proc/$p ] && alive="$alive $p"; done
check "watch --load: the load processes are gone afterwards" [ -n "$loadpids" -a -z "$alive" ]
as_found "$(python3 -c "import json; print(json.load(open('$T/watchload.json'))['accounting'][0]['pid'])")" "watch --load"

# ---- a sweep of a harmless knob over the watched program: per-cell watch results, summary, restored
if [ -w /proc/sys/kernel/sched_rr_timeslice_ms ]; then
	orig=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)
	run "$IRT" sweep --sweep kernel.sched_rr_timeslice_ms=8,12 --comm irtslp$$ --watch-for 300ms --repeat 2 -q \
		--dir "$T/wsweep"
	check_rc 0 "watch sweep: exit 0"
	check "watch sweep: every cell and repetition a watch result, the knob recorded" python3 -c "
import json
for c, v in (0, '8ms'), (1, '12ms'):
    for rep in 0, 1:
        r = json.load(open('$T/wsweep/c%d/r%d.json' % (c, rep)))
        assert r['command'] == 'watch' and r['settings']['knob.kernel.sched_rr_timeslice_ms'] == v, r['settings']
        assert [t for t in r['threads'] if t['role'] == 'watch' and t['name'] == 'irtslp$$'], r['threads']
s = json.load(open('$T/wsweep/sweep.json'))
assert [c['id'] for c in s['cells']] == ['c0', 'c1'] and s['baseline'] == 'c0', s
assert all('resp_p99' in c['metrics'] and c['verdict'] for c in s['cells']), s['cells']"
	check_out "irtslp$$" "watch sweep: the summary compares the watched thread"
	# another irt on this shared machine (another test's sweep) may hold the knob changed for a
	# while: ours must be back once no irt holds it, so wait for that rather than read it once
	i=0
	while [ "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" != "$orig" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "watch sweep: the knob is restored" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$orig"
else
	skip "watch sweep: kernel.sched_rr_timeslice_ms not writable"
fi
kill $slp
blockers=""

# ---- unprivileged fallback (as nobody)
W=$(mktemp -d /tmp/irt-explain.XXXXXX)
chmod 1777 "$W"
cp "$IRT" "$W/irt"
chmod 0755 "$W/irt"
if command -v setpriv >/dev/null; then
	(cd "$W" && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all env IRT_STATE_DIR="$W/state" \
		./irt probe -i 1ms -n 200 -q --explain -o "$W/u.json") >"$OUT" 2>"$ERR"
	RC=$?
	check_rc 0 "unprivileged --explain: exit 0"
	check_err "needs root.*falling back to the schedstat split" "unprivileged --explain: says why and falls back"
	check "unprivileged --explain: schedstat split recorded, explain source none" python3 -c "
import json; r = json.load(open('$W/u.json'))
assert r['explain']['source'] == 'none' and r['explain']['reason']
assert 'attr_runq' in r['threads'][0]"
	# the note is said once per process, not once per run (a sweep of two cells, two runs)
	(cd "$W" && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all env IRT_STATE_DIR="$W/state" \
		./irt sweep --sweep period=1ms,2ms -n 20 -w 0 --repeat 1 -q -f none -d "$W/sw" --explain) >"$OUT" 2>"$ERR"
	RC=$?
	check_rc 0 "unprivileged sweep --explain: exit 0"
	check "unprivileged sweep --explain: the fallback note once ($(grep -c 'falling back' "$ERR"))" \
		test "$(grep -c 'falling back to the schedstat split' "$ERR")" = 1
else
	skip "setpriv (util-linux) missing: unprivileged fallback"
	skip "setpriv (util-linux) missing: unprivileged fallback"
	skip "setpriv (util-linux) missing: unprivileged fallback"
fi
rm -rf "$W"
finish
