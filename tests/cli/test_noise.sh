#!/bin/sh
# irt noise (docs/noise.md): bad input refused with one line; the summary's structure and its
# invariants (noise within the runtime, % available from both, the histogram's count and sum
# are the events and the noise, the spinner sleeps the rest of every period); unprivileged runs
# (and a refused real-time policy); SIGINT saves; as root with tracefs (--explain), a CPU load
# pinned to the spinner's CPU (SCHED_OTHER, so it preempts the spinner) shows up as "thread"
# gaps named by its comm, the causes add up to the noise, and the instance is removed. No
# timing is asserted: only relations between the record's own figures.
# Runs alone: it spins on CPUs for seconds and pins a load beside a spinner.
. "$IRT_TOP/tests/cli/lib.sh"

TR=/sys/kernel/tracing
hogs=""
W=""
cleanup() { for h in $hogs; do kill "$h" 2>/dev/null; done; rm -rf "$T" $W; }
trap cleanup EXIT

# ---- bad input: one line, exit 2
check_usage "runtime not shorter than the period" "--runtime 1s: must be shorter than --period 1s" \
	"$IRT" noise --runtime 1s
check_usage "runtime above a given period" "--runtime 200ms: must be shorter than --period 100ms" \
	"$IRT" noise --period 100ms --runtime 200ms
check_usage "threshold not shorter than the runtime" "--threshold 10ms: must be shorter than --runtime 9ms" \
	"$IRT" noise --period 10ms --threshold 10ms
check_usage "deadline policy" "--policy deadline: irt noise spins with other, fifo or rr" "$IRT" noise --policy deadline
check_usage "a probe option it does not take" "--count: not an option of 'irt noise'" "$IRT" noise --count 5
check_usage "explain-threshold is not its option" "--explain-threshold: not an option of 'irt noise'" \
	"$IRT" noise --explain-threshold 1ms
check_usage "a CPU that does not exist" "--cpus: CPU 999 does not exist here" "$IRT" noise --cpus 999
check_usage "a format it does not write" "irt noise writes no 'html'" "$IRT" noise --format html
check_usage "an argument" "unexpected argument" "$IRT" noise extra
run "$IRT" help noise
check_out "--threshold DURATION .*\[default: 1us\]" "help: --threshold and its default"
check_out "--period DURATION .*\[default: 1s\]" "help: irt noise's own default period (1s, not the probe's 10ms)"
run "$IRT" help --man
check_out "^\.B noise$" "the man page lists irt noise"

# invariants NAME FILE [EXPECT_CPUS]: the record's figures agree with each other
invariants() {
	python3 - "$2" "${3:-}" <<'PY' >"$T/inv" 2>&1
import json, math, sys
r = json.load(open(sys.argv[1]))
bad = []
def need(ok, what):
    if not ok:
        bad.append(what)
need(r['schema'] == 'irt-noise/1' and r['command'] == 'noise', 'schema/command')
s = r['settings']
def ns(v):   # a duration as irt writes it: 900ms, 1s, 1min
    import re
    m = re.fullmatch(r'([0-9.]+)(ns|us|ms|s|min|h)', v)
    return int(float(m.group(1)) * {'ns': 1, 'us': 10**3, 'ms': 10**6, 's': 10**9, 'min': 60 * 10**9, 'h': 3600 * 10**9}[m.group(2)])
period, runtime, thr = ns(s['period']), ns(s['runtime']), ns(s['threshold'])
need(runtime < period, 'runtime < period')
if sys.argv[2]:
    need([c['cpu'] for c in r['cpus']] == [int(x) for x in sys.argv[2].split(',')], 'the CPUs asked for')
need(len(r['cpus']) >= 1, 'a CPU')
cycles = math.ceil(ns(s['duration']) / period)
for c in r['cpus']:
    g = c['gaps']
    need(0 <= c['noise_ns'] <= c['runtime_ns'], 'cpu %d: noise <= runtime' % c['cpu'])
    need(c['runtime_ns'] <= r['duration_ns'], 'cpu %d: runtime within the run' % c['cpu'])
    # the duty cycle: at most one window per period, each at most --runtime but for the interval
    # that ends it (a gap, or one at most the threshold long); irt's own bookkeeping left out
    need(1 <= c['windows'] <= cycles, 'cpu %d: at most one window per period (%d, %d)' % (c['cpu'], c['windows'], cycles))
    need(c['runtime_ns'] <= c['windows'] * (runtime + thr) + c['noise_ns'] + c['excluded_ns'],
         'cpu %d: each window lasts --runtime, then it sleeps the rest' % c['cpu'])
    need(0 <= c['excluded_ns'] <= c['runtime_ns'] - c['noise_ns'], 'cpu %d: excluded within the rest' % c['cpu'])
    want = 100.0 * (c['runtime_ns'] - c['noise_ns']) / c['runtime_ns'] if c['runtime_ns'] else 100.0
    need(abs(c['available_pct'] - want) < 1e-6, 'cpu %d: available %% = (runtime - noise) / runtime' % c['cpu'])
    need(g['count'] == c['events'], 'cpu %d: histogram count == events' % c['cpu'])
    need(sum(b[1] for b in g['buckets']) == c['events'], 'cpu %d: bucket counts == events' % c['cpu'])
    need(g['sum'] == c['noise_ns'], 'cpu %d: histogram sum == noise' % c['cpu'])
    need(c['events'] == 0 or (g['min'] > thr and g['max'] == c['max_ns']), 'cpu %d: gaps above the threshold, max' % c['cpu'])
    need(c['steal_ns'] >= -1, 'cpu %d: steal' % c['cpu'])
    if 'causes' in c:
        k = c['causes']
        need(sum(k[x]['ns'] for x in ('nmi', 'irq', 'softirq', 'thread', 'kernel', 'hw', 'lost')) == c['noise_ns'],
             'cpu %d: the causes add up to the noise' % c['cpu'])
        need(all(k[x]['gaps'] <= c['events'] for x in k if x != 'sources'), 'cpu %d: cause gaps <= events' % c['cpu'])
print('; '.join(bad))
sys.exit(1 if bad else 0)
PY
	if [ $? -eq 0 ]; then pass; else fail "$1: $(cat "$T/inv")"; fi
}

# ---- a short run: table and record
run "$IRT" noise -D 1s --period 100ms -o n.json
check_rc 0 "a short run"
check_out "^cpu +runtime +noise +% available +max noise +events +gap p99 +steal$" "the summary's header"
check "one row per CPU irt may use" test "$(grep -Ec '^[0-9]+ ' "$OUT")" = "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')"
invariants "a short run" n.json
CPU=$(($(nproc) - 1))
run "$IRT" noise -D 500ms --period 50ms --runtime 20ms --threshold 500ns --cpus "$CPU" -f none -o one.json
check_rc 0 "--cpus, --runtime, --threshold"
check "--format none prints nothing" test ! -s "$OUT"
invariants "one CPU" one.json "$CPU"
check "the settings are recorded" test "$(python3 -c "
import json; s = json.load(open('one.json'))['settings']
print(s['runtime'], s['threshold'], s['period'], s['cpus'])")" = "20ms 500ns 50ms $CPU"

# ---- memory locked while spinning (as irt probe and oslat do), --no-mlock opts out: VmLck of the
# running irt, read once its spinner thread exists, and the record's memory_lock
locked_kb() {   # ARGS...: VmLck (kB) of irt noise ARGS while its spinner runs; -1 if never seen running
	"$IRT" noise --cpus "$CPU" -D 3s --period 100ms -f none "$@" &
	p=$! kb=-1
	for _ in $(seq 300); do
		if grep -qs '^irt:noise' /proc/$p/task/*/comm; then
			kb=$(awk '/^VmLck:/ {print $2}' /proc/$p/status)
			break
		fi
		sleep 0.01
	done
	wait $p
	echo "$kb"
}
kb=$(locked_kb -o lock.json)
if [ "${IRT_VARIANT:-}" = asan ]; then   # ASan's mlock does nothing (as test_unprivileged.sh says)
	skip "VmLck under ASan: its mlock does nothing"
else
	check "memory locked while spinning (VmLck $kb kB)" test "$kb" -gt 0
fi
check "the record says how memory was locked" test "$(python3 -c "
import json; s = json.load(open('lock.json'))['settings']; print(s['memory_lock'], s['no-mlock'])")" = \
	"$(if is_root; then echo all; else echo working-set; fi) 0"
kb=$(locked_kb --no-mlock -o nolock.json)
check "--no-mlock: nothing locked (VmLck $kb kB)" test "$kb" -eq 0
check "--no-mlock: the record says none" test "$(python3 -c "
import json; print(json.load(open('nolock.json'))['settings']['memory_lock'])")" = none

# ---- irt's own threads (the main thread wakes every 100 ms; the trace reader) keep off the
# measured CPUs when irt may run on another, as oslat -C: the Cpus_allowed_list of every thread
# but the spinners, read while the spinner runs
others_cpus() {   # PID: "comm=list" for each of its threads but the spinners, once a spinner runs
	for _ in $(seq 300); do
		grep -qs '^irt:noise' /proc/$1/task/*/comm && break
		sleep 0.01
	done
	for t in /proc/$1/task/*; do
		c=$(cat "$t/comm" 2>/dev/null) || continue
		case $c in irt:noise*) continue ;; esac
		echo "$c=$(awk '/^Cpus_allowed_list:/ {print $2}' "$t/status")"
	done
}
off_cpu() {   # CPU "comm=list"...: true when there is a list and none holds CPU
	python3 -c '
import sys
def cpus(l):
    s = set()
    for r in l.split(","):
        a, _, b = r.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s
cpu, lines = int(sys.argv[1]), sys.argv[2:]
sys.exit(not lines or any(cpu in cpus(l.split("=", 1)[1]) for l in lines))' "$@"
}
reader_off() {   # CPU "comm=list"...: the trace reader is among them, and none holds CPU
	printf '%s\n' "$@" | grep -q '^irt:trace=' && off_cpu "$@"
}
if [ "$(nproc)" -lt 2 ]; then
	skip "irt's threads off the measured CPU: this machine has one CPU"
else
	"$IRT" noise --cpus "$CPU" -D 1s --period 100ms -f none -o aff.json &
	p=$!
	aff=$(others_cpus $p)
	wait $p
	RC=$?
	check_rc 0 "a run with --cpus $CPU"
	check "irt's own threads keep off the measured CPU $CPU ($(echo $aff))" off_cpu "$CPU" $aff
fi

# ---- SIGINT: the record so far, exit 3
# interrupt_spinning SECS CMD...: SIGINT SECS after its first spinner thread exists (a fixed delay
# from the start could fall before any window on a loaded machine: the record's windows were 0)
interrupt_spinning() {
	_secs=$1
	shift
	"$@" >int.out 2>int.err &
	_pid=$!
	_i=0
	while [ $_i -lt 400 ] && ! grep -qs '^irt:noise' /proc/$_pid/task/*/comm; do
		sleep 0.05
		_i=$((_i + 1))
	done
	sleep "$_secs"
	kill -INT $_pid
	wait $_pid
	RC=$?
}
interrupt_spinning 0.5 "$IRT" noise -D 60s --period 100ms -o int.json
check "SIGINT: exit 3" test "$RC" = 3
check "SIGINT: the record says interrupted" test "$(python3 -c "import json; print(json.load(open('int.json'))['interrupted'])")" = True
invariants "interrupted" int.json
# SIGINT in the sleep of a long period: the spinner stops sleeping at once, not at the period's
# end (it slept out the period before: 30 s here). The relation asserted: the run ended within
# its first period, which the SIGINT fell in.
interrupt_spinning 0.5 "$IRT" noise --cpus "$CPU" -D 60s --period 30s --runtime 100ms -o sleep.json
check "SIGINT while sleeping: exit 3" test "$RC" = 3
check "SIGINT while sleeping ends the run within its period" test "$(python3 -c "
import json; d = json.load(open('sleep.json')); print(d['interrupted'] and d['duration_ns'] < 30 * 10**9)")" = True

# ---- unprivileged (as nobody when root): it measures; a real-time policy is refused in one line
if is_root; then
	if command -v setpriv >/dev/null; then
		W=$(mktemp -d /tmp/irt-noise.XXXXXX)
		chmod 0755 "$W"
		cp "$IRT" "$W/irt"
		mkdir -m 1777 "$W/work"
		mkdir -m 0755 "$W/work/state"
		chown 65534:65534 "$W/work/state"
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all env IRT_STATE_DIR=$W/work/state"
	else
		AS=""
		skip "unprivileged cases: setpriv (util-linux) is missing"
	fi
else
	W=$(mktemp -d /tmp/irt-noise.XXXXXX)
	mkdir "$W/work"
	cp "$IRT" "$W/irt"
	AS="env"
fi
if [ -n "$AS" ]; then
	run $AS "$W/irt" noise -D 500ms --period 100ms -o "$W/work/u.json"
	check_rc 0 "unprivileged: it measures"
	invariants "unprivileged" "$W/work/u.json"
	check "unprivileged: the spinners' records locked within RLIMIT_MEMLOCK" test "$(python3 -c "
import json; print(json.load(open('$W/work/u.json'))['settings']['memory_lock'])")" = working-set
	run $AS "$W/irt" noise -D 500ms --policy fifo
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q -- "--policy fifo --prio 80: needs root or CAP_SYS_NICE" "$ERR"; then pass; else
		fail "unprivileged --policy fifo: exit $RC, $lines lines"; head -3 "$ERR" | sed 's/^/    | /'; fi
	run $AS "$W/irt" noise -D 500ms --period 100ms --explain -o "$W/work/ux.json"
	check_rc 0 "unprivileged --explain still measures"
	check_err "needs root.*the gaps are measured but not attributed" "unprivileged --explain says why"
	check "unprivileged --explain: the record says why" test "$(python3 -c "
import json; x = json.load(open('$W/work/ux.json'))['explain']; print(x['source'], 'root' in x['reason'])")" = "none True"
fi

if ! is_root; then
	skip "--explain and --policy fifo need root: the pinned load's thread gaps"
	finish
fi
if [ ! -d "$TR" ]; then
	skip "no $TR: kernel without tracefs"
	finish
fi

# ---- as root: fifo spinner (it still sleeps the rest of each period)
run "$IRT" noise -D 1s --period 100ms --policy fifo --prio 10 --cpus "$CPU" -o fifo.json
check_rc 0 "--policy fifo as root"
invariants "fifo" fifo.json "$CPU"
check "fifo within the kernel's real-time share: no note" test ! -s "$ERR"
# a duty cycle at the kernel's real-time share (95 % by default) is throttled: said in one line
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
if [ "$rt" -ge 0 ] && [ "$rt" -lt 990000 ] && [ "$(cat /proc/sys/kernel/sched_rt_period_us)" = 1000000 ]; then
	run "$IRT" noise -D 200ms --period 100ms --runtime 99ms --policy fifo --prio 10 --cpus "$CPU" -f none
	check_rc 0 "--policy fifo at the real-time share still measures"
	check_err "^irt: note: --runtime 99ms of every --period 100ms reaches the kernel's real-time share \(sched_rt_runtime_us $rt of 1000000\)" \
		"fifo at the real-time share: the note"
	run "$IRT" noise -D 200ms --period 100ms --runtime 99ms --cpus "$CPU" -f none
	check "other at 99 %: no note (the share bounds real-time tasks only)" test ! -s "$ERR"
else
	skip "the real-time share note: sched_rt_runtime_us $rt is not a share below 99 % of 1 s"
fi

# ---- a CPU load pinned beside the spinner (SCHED_OTHER): its preemptions are "thread" gaps with
# its comm. Another irt changing tunables holds the journal for a moment: tried up to 3 times.
mounted() { grep -q " $TR tracefs " /proc/mounts; }
mounted_before=no
mounted && mounted_before=yes
taskset -c "$CPU" python3 -c '
import ctypes
ctypes.CDLL(None).prctl(15, b"irtnoisehog", 0, 0, 0)
while True:
    pass' &
hog=$!
hogs=$hog
for try in 1 2 3; do
	"$IRT" noise -D 2s --period 200ms --cpus "$CPU" --explain -o x.json >"$OUT" 2>"$ERR" &
	irt=$!
	xaff=$(others_cpus $irt)
	wait $irt
	RC=$?
	grep -q "another irt" "$ERR" || break
	sleep 20
done
kill "$hog"
wait "$hog" 2>/dev/null
hogs=""
check_rc 0 "--explain beside a pinned load"
check_out "^$CPU +thread +[0-9]+ .*irtnoisehog $hog" "the table names the load's thread"
invariants "--explain" x.json "$CPU"
check "the load's thread gaps are attributed to its comm and pid" test "$(python3 -c "
import json; c = json.load(open('x.json'))['cpus'][0]['causes']
s = [x for x in c['sources'] if x['cause'] == 'thread' and x['name'] == 'irtnoisehog' and x['id'] == $hog]
print(c['thread']['gaps'] > 0 and len(s) == 1 and s[0]['gaps'] > 0 and s[0]['ns'] > 0)")" = True
if [ "$(nproc)" -ge 2 ]; then
	check "--explain: the trace reader and the main thread keep off CPU $CPU ($(echo $xaff))" \
		reader_off "$CPU" $xaff
fi
check "--explain: our instance is removed" test ! -d "$TR/instances/irt-$irt"
if [ $mounted_before = no ]; then
	others=no
	for d in "$TR"/instances/irt-[0-9]*; do [ -d "$d" ] && others=yes; done
	if [ $others = no ]; then check "tracefs unmounted as found" sh -c "! grep -q ' $TR tracefs ' /proc/mounts"; fi
fi
finish
