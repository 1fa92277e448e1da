#!/bin/sh
# irt watch --all (docs/watch.md): every task's run-queue latency, as bcc's runqlat. Known
# competitors the test starts (two busy shells pinned to one CPU, and a sleeper on that CPU)
# are in the table of worst tasks under their own command names, and so are new tasks (their
# first wait, from sched_wakeup_new); the all-task histogram counts each wait once (the
# tasks' counts + the others kept + dropped; the CPUs' counts);
# irt's own threads are left out unless asked; --top-of process makes a threaded process one
# row; the result compares and reports as any watch; a sweep of a knob over --all compares
# the all-task thread by wake-p99 and restores the knob; tracefs is left as found. No timing
# is asserted.
# Runs alone: the competitors must be on their CPU by themselves, and it traces the scheduler.
. "$IRT_TOP/tests/cli/lib.sh"

TR=/sys/kernel/tracing
ncpu=$(nproc)
CPU=$((ncpu - 1))
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT

# ---- bad input, refused before anything runs (root or not)
check_usage "--all with a selection" "^irt: --all: watches every task; --pid, --comm and --cgroup select some" \
	"$IRT" watch --all --comm x
check_usage "--top without --all" "^irt: --top: shapes what --all records of every task" \
	"$IRT" watch --comm x --top 3
check_usage "--by-cpu without --all" "^irt: --by-cpu: shapes what --all records" "$IRT" watch --pid 1 --by-cpu
check_usage "--all with --explain" "^irt: --explain: not with --all" "$IRT" watch --all --explain
check_usage "--top-by: a metric it lacks" "^irt: --top-by: .*p99.*max" "$IRT" watch --all --top-by p50
check_usage "--top-of: a grouping it lacks" "^irt: --top-of: .*thread, process" "$IRT" watch --all --top-of cgroup
check_usage "--top-of without --all" "^irt: --top-of: shapes what --all records" "$IRT" watch --pid 1 --top-of process
check_usage "--top: out of range" "^irt: --top: '5000' is out of range" "$IRT" watch --all --top 5000
check_usage "no selection names --all" "or --all$" "$IRT" watch --watch-for 1s
check_usage "--all is not a probe option" "^irt: --all: not an option of 'irt probe'" "$IRT" probe --all

# ---- a watch --all result's labels (tests/data/watch-all.json, a real one: unprivileged): its
# "wake" histograms hold every wait for a CPU, after a preemption too, so compare and report
# call them run-queue waits; JSON keys keep their names, and a result of another kind mixed in
# keeps the wake-up labels
WA=$IRT_TOP/tests/data/watch-all.json
python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
r['settings']['watch-for'] = '400ms'
json.dump(r, open(sys.argv[2], 'w'))
" "$WA" "$T/wa2.json"
check_exit 0 "watch --all results: compare" "$IRT" compare "$WA" "$T/wa2.json" --metric wake-p99 -o "$T/wacmp.json"
check_out "^  run-queue wait p99 +A " "compare of watch --all results: the rows are run-queue waits"
check_out "^recommendation: lowest run-queue wait p99 " "compare of watch --all results: the recommendation's metric"
check "compare of watch --all results: no wake-up label" sh -c "! grep -q 'wake-up' '$OUT'"
check "compare of watch --all results: JSON metric names unchanged" python3 -c "
import json
c = json.load(open('$T/wacmp.json'))
assert c['recommendation']['metric'] == 'wake-p99', c['recommendation']
assert {r['metric'] for r in c['rows']} == {'wake-p50', 'wake-p99', 'wake-p99.9', 'wake-max'}, c['rows']
"
check_exit 0 "watch --all and probe results: compare" "$IRT" compare "$WA" "$IRT_TOP/tests/golden/result-minimal.json"
check_out "^  wake-up p99 " "compare of mixed results: wake-up labels"
check "compare of mixed results: no run-queue label" sh -c "! grep -q 'run-queue wait' '$OUT'"
check_exit 0 "watch --all result: report" "$IRT" report "$WA" -o "$T/wa.html"
check_out "^percentile spectrum of run-queue latency " "report of a watch --all result: the text spectrum"
check "report of a watch --all result: no wake-up label in the text" sh -c "! grep -qi 'wake-up' '$OUT'"
check "report of a watch --all result: HTML labels" sh -c "grep -q '<th>run-queue wait p99</th>' '$T/wa.html' &&
	grep -q 'Run-queue latency histogram' '$T/wa.html' && grep -q 'Run-queue latency percentile spectrum' '$T/wa.html' &&
	grep -q '<h3>Run-queue latency (wake-up or preemption to running)</h3>' '$T/wa.html' &&
	! grep -Eq 'wake-up (p50|p99|max|latenc)|Wake-up latency' '$T/wa.html'"
check_exit 0 "watch --all and probe results: report" "$IRT" report "$WA" "$IRT_TOP/tests/golden/result-minimal.json" -o "$T/mix.html"
check_out "^percentile spectrum of wake-up latency " "report of mixed results: wake-up labels"
check "report of mixed results: HTML wake-up labels" sh -c "grep -q '<th>wake-up p99</th>' '$T/mix.html' &&
	grep -q 'Wake-up latency histogram' '$T/mix.html' && ! grep -q 'run-queue wait' '$T/mix.html'"

if ! is_root; then
	skip "watch --all needs root (tracefs): competitors, counts, exclusion, compare and cleanup cases"
	finish
fi
if [ ! -d "$TR" ]; then
	skip "watch --all: no $TR here (kernel without tracefs)"
	finish
fi
mounted_before=no
grep -q " $TR tracefs " /proc/mounts && mounted_before=yes

# ---- competitors: two busy shells and a sleeper, on one CPU, under names of their own
hog=rqhog$$
cp /bin/sh "$T/$hog"
for i in 1 2; do
	taskset -c "$CPU" "$T/$hog" -c 'while :; do :; done' &
	pids="$pids $!"
done
slp=rqslp$$
cat >"$T/sleeper.py" <<'PY'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
os.sched_setaffinity(0, {int(sys.argv[2])})
while True:
    time.sleep(0.005)
PY
python3 "$T/sleeper.py" "$slp" "$CPU" &
pids="$pids $!"
i=0   # python takes a while to start on a busy machine: wait for its name
while ! pgrep -x "$slp" >/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done

# run_own CMD...: run, and OWN = the command's threads (other irts may run), every thread seen
# while it runs: on a loaded machine its trace reader may start well after its main thread
run_own() {
	"$@" >"$OUT" 2>"$ERR" &
	_p=$!
	OWN="" OWNPID=$_p
	while kill -0 $_p 2>/dev/null; do
		for _t in $(ls /proc/$_p/task 2>/dev/null); do
			case " $OWN " in *" $_t "*) ;; *) OWN="$OWN $_t" ;; esac
		done
		sleep 0.05
	done
	wait $_p
	RC=$?
}
run_own "$IRT" watch --all --by-cpu --top 1024 --watch-for 1s -o "$T/all.json"
check_rc 0 "watch --all: exit 0"
check_out "^run-queue latency of every task \(sched_waking or preemption -> running\)$" \
	"watch --all: the table says what it measures"
check_out "^all tasks +[0-9]+ " "watch --all: the all-task row"
check_out "^$hog\[[0-9]+\] +[1-9]" "watch --all: a busy shell is in the table by its name"
check_out "^$slp\[[0-9]+\] +[1-9]" "watch --all: the sleeper is in the table by its name"
check_out "^every task: [0-9]+ waits for a CPU \([0-9]+ after a wake-up, [0-9]+ after a preemption\)" \
	"watch --all: the counts line"
check "watch --all: no response-time table (a wait, not a response)" sh -c "! grep -q '^response time' '$OUT'"
check "watch --all: the result holds each wait once" python3 -c "
import json, sys
r = json.load(open('$T/all.json'))
th, q = r['threads'], r['runq']
assert r['command'] == 'watch' and r['settings']['watch.all'] == '1', r['settings']
a = [t for t in th if t['role'] == 'watch']
assert len(a) == 1 and a[0]['name'] == 'all tasks', [t['name'] for t in a]
n = a[0]['samples']
tasks = [t for t in th if t['role'] == 'watch-task']
cpus = [t for t in th if t['role'] == 'watch-cpu']
assert n == sum(t['samples'] for t in tasks) + q['other'] + q['dropped'], (n, q)
assert n == sum(t['samples'] for t in cpus), (n, [t['samples'] for t in cpus])
assert n == q['woken'] + q['preempted'], (n, q)
assert q['tasks'] == len(tasks) and q['other'] == 0, q   # --top as large as the table: every task shown
hogs = [t for t in tasks if t['name'].startswith('$hog[')]
assert len(hogs) == 2, [t['name'] for t in tasks]
assert all(h['settings']['pid'] == str(h['tid']) for h in hogs), hogs   # a process of one thread
assert q['preempted'] > 0 and q['woken'] > 0, q
own = [int(x) for x in '$OWN'.split()]
assert len(own) >= 2, own   # irt and its trace reader
assert not [t for t in tasks if t['tid'] in own], ([t['name'] for t in tasks], own)   # irt left out
assert q['excluded'] > 0, q
for k in ('events', 'events_lost', 'lost', 'untimed', 'evicted', 'table'):
    assert k in q, k
"
# new tasks: a task's first wait (sched_wakeup_new -> its first run) counts, as runqlat's does:
# 50 children forked in the window that name themselves and exit (no exec, no sleep: most are
# neither woken nor preempted, so that first wait is all they have) all show. Forked on one CPU:
# on kernels that do not record a switch out of idle (this project's KVM guests), a child
# placed on an idle CPU has its first switch-in put in by irt at a time before its wake-up
new=rqnew$$
cat >"$T/forker.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None)
for i in range(50):
    pid = os.fork()
    if pid == 0:
        libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)
        os._exit(0)
    os.waitpid(pid, 0)
PY
"$IRT" watch --all --top 1024 --watch-for 3s -q -o "$T/new.json" >"$OUT" 2>"$ERR" &
ipid=$!
sleep 0.8
taskset -c 0 python3 "$T/forker.py" "$new"
wait $ipid
RC=$?
check_rc 0 "watch --all, new tasks: exit 0"
if [ -f "$T/new.json" ] && python3 -c "import json,sys; sys.exit(json.load(open('$T/new.json'))['runq']['dropped'] != 0)"; then
	check "watch --all: each new task's first wait is recorded" python3 -c "
import json
r = json.load(open('$T/new.json'))
new = [t for t in r['threads'] if t['role'] == 'watch-task' and t['name'].startswith('$new[')]
assert len(new) == 50, (len(new), [t['name'] for t in new])
"
elif [ -f "$T/new.json" ]; then
	skip "watch --all, new tasks: the table overflowed on this busy machine (waits dropped)"
fi
# few rows: the rest of the table in 'other', the sum rule still holds; worst first by max
run "$IRT" watch --all --top 2 --top-by max --watch-for 500ms -o "$T/top2.json"
check_rc 0 "watch --all --top 2: exit 0"
check "watch --all --top 2 --top-by max: two rows, worst first, the others counted" python3 -c "
import json
r = json.load(open('$T/top2.json'))
q, th = r['runq'], r['threads']
tasks = [t for t in th if t['role'] == 'watch-task']
assert len(tasks) == 2 and tasks[0]['wake']['max'] >= tasks[1]['wake']['max'], tasks
assert q['other'] > 0 and q['top_by'] == 'max', q
n = [t for t in th if t['role'] == 'watch'][0]['samples']
assert n == sum(t['samples'] for t in tasks) + q['other'] + q['dropped'], (n, q)
assert not [t for t in th if t['role'] == 'watch-cpu']   # no --by-cpu
"
check_out "; the 2 worst tasks by max \([0-9]+ waits\) are above, [0-9]+ waits of the other [0-9]+ tasks kept, " \
	"watch --all --top 2: the counts line names the rows above"
# --top 0: no task row, and the counts line says so (not "the 0 worst tasks ... are above")
run "$IRT" watch --all --top 0 --watch-for 300ms
check_rc 0 "watch --all --top 0: exit 0"
check_out "; no task listed, [0-9]+ waits of [0-9]+ tasks kept, [0-9]+ dropped" "watch --all --top 0: the counts line"
# --top-of process (runqlat -P): a process of three threads that sleep briefly on the busy CPU
# (so they wait behind the shells) is one row under its pid, named after its main thread, and
# none of its threads is a row of its own; the sum rule holds with processes as the table's
mt=rqmt$$
cat >"$T/threads.py" <<'PY'
import ctypes, os, sys, threading, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
os.sched_setaffinity(0, {int(sys.argv[2])})
def loop():
    while True:
        time.sleep(0.002)
for i in range(3):
    threading.Thread(target=loop, daemon=True).start()
time.sleep(3600)
PY
python3 "$T/threads.py" "$mt" "$CPU" &
mtpid=$!
pids="$pids $mtpid"
i=0
while [ "$(ls /proc/$mtpid/task 2>/dev/null | wc -l)" -lt 4 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
MTTIDS=$(ls /proc/$mtpid/task | tr '\n' ' ')
run "$IRT" watch --all --top-of process --top-by total --top 1024 --watch-for 1s -o "$T/proc.json"
check_rc 0 "watch --all --top-of process: exit 0"
check_out "^process +samples " "watch --all --top-of process: the rows are processes"
check_out "^$mt\[$mtpid\] +[1-9]" "watch --all --top-of process: the threaded process is a row under its pid"
check_out "the [0-9]+ worst process(es)? by total " "watch --all --top-of process: the counts line names processes"
check "watch --all --top-of process: one row per process, its threads within, each wait once" python3 -c "
import json
r = json.load(open('$T/proc.json'))
q, th = r['runq'], r['threads']
assert q['top_of'] == 'process' and q['top_by'] == 'total', q
rows = [t for t in th if t['role'] == 'watch-task']
mine = [t for t in rows if t['tid'] == $mtpid]
assert len(mine) == 1 and mine[0]['name'] == '$mt[$mtpid]' and mine[0]['settings']['pid'] == '$mtpid', mine
tids = [int(x) for x in '$MTTIDS'.split() if int(x) != $mtpid]
assert len(tids) == 3, tids
assert not [t for t in rows if t['tid'] in tids], [t['name'] for t in rows]
assert all(rows[i - 1]['wake']['sum'] >= rows[i]['wake']['sum'] for i in range(1, len(rows))), 'worst first by total'
n = [t for t in th if t['role'] == 'watch'][0]['samples']
assert n == sum(t['samples'] for t in rows) + q['other'] + q['dropped'], (n, q)
assert q['tasks'] == len(rows) and q['other'] == 0, q
hogs = [t for t in rows if t['name'].startswith('$hog[')]
assert len(hogs) == 2, [t['name'] for t in rows]   # a process of one thread: the same row as by thread
"
# --include-irt: irt's own threads are recorded too (its trace reader wakes 20 times a second)
run_own "$IRT" watch --all --include-irt --top 1024 --watch-for 500ms -o "$T/irt.json"
check_rc 0 "watch --all --include-irt: exit 0"
check "watch --all --include-irt: irt's threads in the table, none excluded" python3 -c "
import json
r = json.load(open('$T/irt.json'))
own = [int(x) for x in '$OWN'.split()]
assert r['runq']['excluded'] == 0, r['runq']
mine = [t for t in r['threads'] if t['role'] == 'watch-task' and t['tid'] in own]
assert mine, own
# their process is irt (when the thread still lived at the end: its trace reader has stopped)
assert all(t['settings'].get('pid', '$OWNPID') == '$OWNPID' for t in mine), mine
assert r['settings']['watch.include-irt'] == '1'
"
# as any watch: compare and report read it
check_exit 0 "watch --all results compare" "$IRT" compare "$T/all.json" "$T/top2.json"
check_exit 0 "watch --all result reports" "$IRT" report "$T/all.json"
check_out "^all tasks +[0-9]+ " "watch --all report: the all-task row"
check_out "^run-queue latency of every task" "watch --all report: the table says what it measures"
check "watch --all report: no response-time table" sh -c "! grep -q '^response time' '$OUT'"
# lost events: with a small buffer and a busy machine the kernel may overwrite some; then said
run "$IRT" watch --all --explain-buffer 64K --watch-for 500ms --load pipe:groups=2 --warmup 0 -o "$T/small.json"
check_rc 0 "watch --all, small buffer: exit 0"
if python3 -c "import json,sys; sys.exit(json.load(open('$T/small.json'))['runq']['events_lost'] == 0)"; then
	check_err "^irt: note: watch: [0-9]+ scheduler events lost" "watch --all, events lost: said on stderr"
	check_out "^LOST [0-9]+ of [0-9]+ scheduler events" "watch --all, events lost: in the summary"
else
	skip "watch --all: no event lost with a 64 KiB buffer here (the loss lines are not exercised)"
fi
# ---- a sweep of a knob over the whole machine: each cell's runs watch --all beside irt's loads;
# the verdicts are on the all-task thread alone (tasks differ from run to run), ranked by the
# waits' p99 (no response time), and the knob is restored. Structure only, no timing.
check_usage "sweep --all: a response-time metric" \
	"^irt: --metric resp-p99: watch --all records waits for a CPU, no response time \(use wake-p50" \
	"$IRT" sweep --all --sweep kernel.sched_rr_timeslice_ms=8,12 --metric resp-p99 --dir "$T/nosweep"
check "sweep --all, refused: no directory made" test ! -e "$T/nosweep"
if [ -w /proc/sys/kernel/sched_rr_timeslice_ms ]; then
	orig=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)
	run "$IRT" sweep --all --sweep kernel.sched_rr_timeslice_ms=8,12 --load cpu:threads=1 --warmup 100ms \
		--watch-for 300ms --repeat 3 -q --dir "$T/asweep"
	check_rc 0 "sweep --all: exit 0"
	check "sweep --all: every run a watch --all result, the summary and verdicts on 'all tasks' by wake-p99" python3 -c "
import json
for c, v in (0, '8ms'), (1, '12ms'):
    for rep in 0, 1, 2:
        r = json.load(open('$T/asweep/c%d/r%d.json' % (c, rep)))
        assert r['command'] == 'watch' and r['settings']['watch.all'] == '1', r['settings']
        assert r['settings']['knob.kernel.sched_rr_timeslice_ms'] == v, r['settings']
        assert r['runq']['woken'] + r['runq']['preempted'] > 0, r['runq']
s = json.load(open('$T/asweep/sweep.json'))
assert s['metric'] == 'wake_p99' and [c['id'] for c in s['cells']] == ['c0', 'c1'], s
assert all('wake_p99' in c['metrics'] and 'resp_p99' not in c['metrics'] and c['verdict'] for c in s['cells']), s['cells']
c = json.load(open('$T/asweep/compare.json'))
assert {r.get('thread') for r in c['rows'] if 'load' not in r} == {'all tasks'}, c['rows']
b = [r for r in c['rows'] if r.get('thread') == 'all tasks' and r['metric'] == 'wake-p99' and r['cell'] == 'B']
assert len(b) == 1 and b[0]['verdict'] and b[0]['runs'] == 3, b
assert c['recommendation']['metric'] == 'wake-p99' and c['recommendation']['cell'] in ('A', 'B'), c['recommendation']
"
	check_out "^all tasks$" "sweep --all: the summary's table is the all-task thread's"
	check_out "^recommendation: lowest run-queue wait p99 " "sweep --all: the recommendation ranks by the waits' p99"
	check_exit 0 "sweep --all: irt compare DIR reads it (the sweep's metric)" "$IRT" compare "$T/asweep"
	check_out "^recommendation: lowest run-queue wait p99 " "sweep --all: irt compare DIR ranks by the sweep's metric"
	check_exit 0 "sweep --all: irt report DIR" "$IRT" report "$T/asweep"
	i=0   # another irt may hold the knob a while (as test_explain's watch sweep)
	while [ "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" != "$orig" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "sweep --all: the knob is restored" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$orig"
else
	skip "sweep --all: kernel.sched_rr_timeslice_ms not writable"
fi
# tracefs as found: no instance of a dead irt (ours are done), and a mount irt made is gone
# unless another irt uses it
left=""
for d in "$TR"/instances/irt-[0-9]*; do
	[ -d "$d" ] && ! kill -0 "${d##*/irt-}" 2>/dev/null && left="$left $d"
done
check "watch --all: no instance left behind ($left)" test -z "$left"
if [ $mounted_before = no ] && grep -q " $TR tracefs " /proc/mounts && ! ls -d "$TR"/instances/irt-[0-9]* >/dev/null 2>&1
then fail "watch --all: tracefs left mounted (it was not before)"; else pass; fi
finish
