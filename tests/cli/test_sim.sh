# irt sim: step scripts (format, exit codes), workloads (table, JSON, sweeps, overrides,
# schedsim TSV), and bad input (one stderr line, file:line, exit 2).
# Runs beside other tests: the simulator reads and writes its files only.
. "$IRT_TOP/tests/cli/lib.sh"

S="$IRT_TOP/tests/sim/step"
X="$IRT_TOP/examples/sim"
json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- help: the [sim] and [thread] keys come from the option table ----
check_exit 0 "help sim" "$IRT" help sim
check_out "--super-period DURATION" "help lists [sim] keys"
check_out "^ +quota = TIME\|PERCENT" "help lists [thread] keys as keys"
check "not as options" sh -c "! grep -Eq -- '--(quota|weight|type|exec) ' '$OUT'"
check_out "irt sim --step FILE" "usage shows the step form"

# ---- step scripts ----
check_exit 0 "step script passes" "$IRT" sim --step "$S/hwquota_basics.step"
check_out "^14 update 30 \| head=a quota=230 time=40$" "one line per op: head, quota, time"
check "step output equals its golden file" sh -c "sed '/^exit:/,\$d' '$S/hwquota_basics.out' | cmp -s - '$OUT'"
# the example of docs/sim.md "Step scripts" runs as printed, every expect holding
sed -n '/^## Step scripts/,/^## /p' "$IRT_TOP/docs/sim.md" | sed -n '/^```$/,/^```$/p' | sed '/^```$/d' >doc.step
check "docs/sim.md's step example is there" grep -q '^policy hwquota' doc.step
check_exit 0 "docs/sim.md's step example runs as printed" "$IRT" sim --step doc.step
check_exit 1 "failed expectation exits 1" "$IRT" sim --step "$S/hwquota_expect_fails.step"
check_err "hwquota_expect_fails.step:7: expected head=idle, got head=a" "names line, expected and actual"
check_usage "malformed step line" "bad_op.step:4: unknown op 'jump'" "$IRT" sim --step "$S/bad_op.step"
check_usage "step parameter of another policy" "bad_param.step:1: 'slice' is not a parameter of policy hwquota" \
	"$IRT" sim --step "$S/bad_param.step"
check_usage "missing step file" "nope.step: cannot open" "$IRT" sim --step nope.step
check_usage "step with extra arguments" "b cannot go with --step" "$IRT" sim --step a b
check_usage "step without a script" "expected exactly one step script" "$IRT" sim --step
printf 'policy rr\nshare a prio=1\ncreate a\nready-check a expect true\nupdate 5 expect head=a quota=inf\n' >stdin.step
check_exit 1 "step from stdin" sh -c "'$IRT' sim --step - <stdin.step"
check_err "-:5: expected quota=inf, got quota=100000000" "stdin scripts are named '-'"

# ---- workloads ----
check_exit 0 "cpu_quota example" "$IRT" sim "$X/cpu_quota.ini"
check_out "^c10 +hwquota +13\.33%" "claim 10% + a third of the unclaimed 10%"
check_out "^be +hwquota +3\.33%" "best effort gets a third of the unclaimed 10%"
check_exit 0 "override a [sim] key" "$IRT" sim "$X/cpu_quota.ini" --duration 3s --fill=1ms
check_out "duration=3s .*fill=1ms .*; 3.00s simulated" "overrides apply (--duration is a probe name too)"
check_exit 0 "json" "$IRT" sim "$X/cpu_quota.ini" --duration 2s --json r.json
check "json is a sim result" test "$(json_get r.json "r['command'], r['threads'][0]['role'], r['settings']['policy']")" = "sim sim hwquota"
check_exit 0 "sweep runs every cell" "$IRT" sim "$X/interactive.ini" --duration 2s --json cells.json -f none
check "one result per cell" test "$(ls cells-cell00[0-5].json | wc -l)" = 6
check "cell records its sweep values" test "$(json_get cells-cell003.json "r['settings']['sweep-cell']")" = "policy=edf"
check_exit 0 "sweep without --json" "$IRT" sim "$X/interactive.ini" --duration 1s -f none
check "writes no files" test ! -e ./-cell000
check_exit 0 "same seed, same result" "$IRT" sim "$X/interactive.ini" --duration 2s --seed 9
cp "$OUT" first.txt
check_exit 0 "again" "$IRT" sim "$X/interactive.ini" --duration 2s --seed 9
check "deterministic output" cmp -s first.txt "$OUT"

printf 'thread\tstart\truntime\tweight\tpriority\nE\tevery 50ms\t10ms\t20\t1\nA\t0s\t1s\t10\t0\n' >s.tsv
check_exit 0 "schedsim TSV directly" "$IRT" sim s.tsv --duration 2s
check_out "end=idle .*; 1\.26s simulated" "a TSV ends by schedsim's rule: idle once the last row arrived (A done at 1.26 s)"
check_out "^E +hwquota +20\.63% .* 100\.0%" "weight = quota % when priority > 0 (share of the 1.26 s)"
check_usage "TSV periodic rows count in the work estimate" "s.tsv: about 4.1e\+04 thread activations" \
	"$IRT" sim s.tsv --duration 1000s --max-work 10000
printf '[sim]\nduration=1s\n[thread ünïcødé]\ntype=cpu-bound\n[thread 表示]\ntype=periodic\nperiod=10ms\nexec=1ms\n' >mb.ini
check_exit 0 "multibyte thread names" "$IRT" sim mb.ini -q
check "multibyte names keep the sim table's columns" columns_line_up "$OUT"
printf '[sim]\nduration=10s\n[thread a]\ntype=cpu-bound\n[thread b]\ntype=cpu-bound\n' >hogs.ini
check_usage "a tiny fill counts in the work estimate (10^10 decisions, not 2 activations)" \
	"hogs.ini: about 1e\+10 scheduler decisions .*shortest quantum \(fill\)" "$IRT" sim hogs.ini --fill 1ns
check_usage "a tiny slice counts in the work estimate" "ui_hog_io.ini: about .* scheduler decisions .*\(slice\)" \
	"$IRT" sim "$X/ui_hog_io.ini" --sim-policy cfsbw --sim-slice 1ns
# a sweep in a document format prints one document over all its cells
"$IRT" sim "$X/interactive.ini" -q --format openmetrics >om.txt
check "sweep openmetrics: one exposition" test "$(grep -c '^# EOF' om.txt)" = 1
check "sweep openmetrics: every series has its cell" test "$(grep -v '^#' om.txt | grep -vc 'cell="policy=')" = 0
check "sweep openmetrics: each family once" test "$(grep -c '^# TYPE irt_overruns ' om.txt)" = 1
# its HELP says what an overrun is (result-schema.md: work ended after the next release)
check "openmetrics: irt_overruns' HELP is the overrun's definition" \
	grep -q '^# HELP irt_overruns Wake-ups whose work ended after the next release' om.txt
"$IRT" sim "$X/interactive.ini" -q --format html >sw.html
check "sweep html: one document" test "$(grep -c '<!DOCTYPE' sw.html)" = 1
"$IRT" sim "$X/interactive.ini" -q --format text >sw.txt
check "sweep text: one report over the 6 cells" grep -q 'interactive.ini: 6 results' sw.txt
check "sweep text: cells labelled" grep -q '^policy=bvt/ui ' sw.txt
# the simulator's own figures in the documents, per cell (the reports showed latency only)
check "sweep text: a table of simulated threads per cell" sh -c \
	'grep -q "^simulated threads (exact for the model" sw.txt && grep -A2 "^policy=edf$" sw.txt | grep -Eq "^  ui +[0-9.]+% "'
check "sweep html: the simulation section, a table across the cells" sh -c \
	'grep -q "<section id=\"simulation\">" sw.html && grep -q "<h3>Across the results</h3>" sw.html &&
	 grep -q "<tr><td>policy=fair</td><td class=\"n\">[0-9.]*%</td>" sw.html'
# memory: a thread's four histograms (572 KB) are only touched where values land, so 5000
# periodic threads take far less than the 2.8 GB their full histograms would
# (release only: under asan the resident memory is its allocator's, and 5000 threads take 80 s)
if [ "${IRT_VARIANT:-release}" = release ]; then
	python3 -c "open('n5000.ini','w').write('[sim]\\nduration=2s\\n'+''.join('[thread t%d]\\ntype=periodic\\nperiod=100ms\\nexec=10us\\n' % i for i in range(5000)))"
	rss=$(python3 -c "
import resource, subprocess, sys
subprocess.run([sys.argv[1], 'sim', 'n5000.ini', '-q', '--format', 'none'], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$IRT")
	check "5000 simulated threads stay under 1 GB resident (${rss} KB)" test "${rss:-9999999}" -lt 1000000
else
	skip "5000 simulated threads' resident memory: release variant only (asan's allocator holds its own)"
fi
# schedsim-* results follow the schema: share_ppm = spent / duration, activations_min -1 (not a timer)
check_exit 0 "schedsim-bvt-sculpt result" "$IRT" sim "$IRT_TOP/tests/sim/schedsim/overrun.tsv" -q --sim-policy schedsim-bvt-sculpt --format none -o ss.json
check "schedsim share_ppm is spent / duration" test "$(json_get ss.json "all(t['sim']['share_ppm'] == t['sim']['spent_ns'] * 1000000 // r['duration_ns'] for t in r['threads'])")" = True
check "schedsim activations_min is -1" test "$(json_get ss.json "set(t['sim']['activations_min'] for t in r['threads'])")" = "{-1}"
printf 'thread\tstart\truntime\tweight\nA\t0s\t100h\t1\n' >huge.tsv
check_exit 0 "schedsim thread running the whole run" "$IRT" sim huge.tsv -q --sim-policy schedsim-base-hw --format none -o ss2.json
check "its share_ppm is not 0" test "$(json_get ss2.json "r['threads'][0]['sim']['share_ppm'] > 990000")" = True
# interrupt: the running cell ends at the simulated instant it reached and is printed and saved
# as a run of that duration, marked interrupted; exit 3 and the line every command prints
interrupt_after 1 "$IRT" sim hogs.ini -q --fill 10ns --max-work 1000000000000 -o int.json
check "SIGINT exits 3" test "$RC" = 3
check "SIGINT: one line on stderr" grep -Eqx 'irt: interrupted after [0-9.]+[mun]?s of 10\.0s: the results so far are printed and saved' int.err
check "SIGINT: nothing else on stderr" test "$(wc -l <int.err)" = 1
check "SIGINT: the table says interrupted" grep -Eq '^hogs.ini: .*; [0-9.]+[mun]?s simulated \(interrupted\), [0-9]+ decisions$' int.out
check "SIGINT: the result is saved, marked interrupted, shorter than asked" test "$(json_get int.json \
	"r['interrupted'], 0 < r['duration_ns'] < 10**10, r['settings']['duration'], r['threads'][0]['sim']['used_ns'] > 0")" = "True True 10s True"
check_exit 0 "SIGINT: irt report reads it" "$IRT" report int.json -f html -o int.html
check "SIGINT: the report says interrupted" grep -q 'no: interrupted' int.html
# the partial result is the run of the duration it reached, number for number
reached=$(json_get int.json "r['duration_ns']")
check_exit 0 "a run of the reached duration" "$IRT" sim hogs.ini -q -f none --fill 10ns --max-work 1000000000000 --duration "${reached}ns" -o again.json
check "the interrupted result equals it" test "$(python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
print(a['duration_ns'] == b['duration_ns'] and [{k: v for k, v in t.items() if k != 'settings'} for t in a['threads']] ==
      [{k: v for k, v in t.items() if k != 'settings'} for t in b['threads']])" int.json again.json)" = True
check_exit 0 "SIGINT: irt compare reads it" "$IRT" compare int.json again.json
# schedsim's own loop stops the same way
printf 'thread\tstart\truntime\tweight\nA\tevery 20us\t5us\t1\nB\tevery 30us\t7us\t1\n' >long.tsv
interrupt_after 1 "$IRT" sim long.tsv -q --sim-policy schedsim-rr --duration 100000s --end duration --max-work 1000000000000 -o ssint.json
check "schedsim SIGINT: exit 3, the line" sh -c "test $RC = 3 && grep -Eqx 'irt: interrupted after [0-9.]+([mun]?s|min|h) of 27\.8h: the results so far are printed and saved' int.err"
check "schedsim SIGINT: saved, interrupted, shorter" test "$(json_get ssint.json "r['interrupted'], 0 < r['duration_ns'] < 10**14")" = "True True"
# a sweep: the running cells are kept in part, the others do not start
printf '[sweep]\nfill = 10ns, 11ns, 12ns\n' | cat hogs.ini - >hogs3.ini
interrupt_after 1 "$IRT" sim hogs3.ini -q -f none --max-work 1000000000000 -o sw.json
check "sweep SIGINT: exit 3, the line counts cells" sh -c "test $RC = 3 && grep -Eqx 'irt: interrupted after 0 of 3 cells \([123] more in part\): the results so far are printed and saved' int.err"
inpart=$(sed -n 's/.*(\([0-9]\) more in part).*/\1/p' int.err)
check "sweep SIGINT: the cells that ran (one per worker) are saved, interrupted; no other cell started" test \
	"$(python3 -c "import glob, json; print(sorted(json.load(open(f))['interrupted'] for f in glob.glob('sw-cell*.json')))")" = \
	"$(python3 -c "print([True] * ${inpart:-0})")"
check_exit 0 "schedsim TSV for a fixed duration" "$IRT" sim s.tsv --duration 2s --end duration
check_out "end=duration .*; 2\.00s simulated" "--end duration runs the whole duration"
check_out "^E +hwquota +20\.00% .* 100\.0%" "its share over the 2 s"
# schedsim's own numbers for this scenario (its base-hw, max_time 2 s): A 1 job of 1250000 us,
# latency 10000 us, share 0.800000; E 26 jobs of 10000 us, latency 0, share 0.206349
check_exit 0 "schedsim-base-hw" "$IRT" sim s.tsv --duration 2s --policy schedsim-base-hw
check_out "^E +schedsim-base-hw +26 +10000 +10000 +10000 +10000 +0 +0\.206349 +0$" "E as schedsim has it"
check_out "^A +schedsim-base-hw +1 +1250000 +1250000 +1250000 +1250000 +10000 +0\.800000 +0$" "A as schedsim has it"
printf '[sim]\npolicy = schedsim-rr\n[thread a]\ntype = periodic\nperiod = 10ms\nexec = 1ms\n' >ssini.ini
check_usage "schedsim policy on an INI thread" "ssini.ini:3: thread a: policy schedsim-rr runs schedsim scenarios \(TSV rows\) only" \
	"$IRT" sim ssini.ini
printf 'policy schedsim-rr\n' >ss.step
check_usage "schedsim policy in a step script" "ss.step:1: policy schedsim-rr runs schedsim's job-level model" "$IRT" sim --step ss.step

# ---- --like: a cfsbw workload like a measured run (a real irt sweep cell: probe every 10 ms on
# CPU 0, two cpu hogs on CPU 0 in irt's loads cgroup under quota 5ms / period 10ms) ----
L="$IRT_TOP/tests/data/sim-like-run.json"
check_exit 0 "sim --like a measured run" "$IRT" sim --like "$L" -o like.json
check_out "policy=cfsbw .*cpus=1 " "cfsbw on the one CPU the run used"
check "the result's command line keeps --like FILE (it said 'sim -o like.json')" \
	test "$(json_get like.json "r['cmdline']")" = "sim --like $L -o like.json"
want=$(python3 -c "
import json; r = json.load(open('$L')); t = r['threads'][0]
a = next(a for a in r['accounting'] if a['role'] == 'probe')
print('%dns' % (a['used_ns'] // t['samples']), '%gs' % (t['samples'] / 100))")
check "probe: period, deadline, measured CPU per wake-up; duration: its wake-ups" test "$(json_get like.json \
	"r['threads'][0]['settings']['type'], r['threads'][0]['settings']['period'], r['threads'][0]['settings']['exec'], r['settings']['duration']")" = "periodic 10ms ${want}"
check "hogs: cpu-bound in one group with the run's quota and period, half the weight each" test "$(json_get like.json \
	"len(r['threads']), r['threads'][1]['settings']['type'], r['threads'][2]['settings']['group'], r['threads'][2]['settings']['cfs-quota'], r['threads'][2]['settings']['cfs-period'], r['threads'][1]['settings']['weight']")" = "3 cpu-bound loads 5ms 10ms 512"
check "the measuring kernel's tick, from its HZ (250)" test "$(json_get like.json "r['settings']['tick']")" = 4ms
like_with() {   # like_with KEY VALUE OUT: the measured run with the probe's setting changed
	python3 -c "
import json, sys; r = json.load(open('$L')); r['threads'][0]['settings'][sys.argv[1]] = sys.argv[2]
json.dump(r, open(sys.argv[3], 'w'))" "$@"
}
like_with nice 10 nice10.json
check_exit 0 "--like a probe at nice 10" "$IRT" sim --like nice10.json -q --format none -o likenice.json
check "its nice as Linux's weight (110)" test "$(json_get likenice.json "r['threads'][0]['settings']['weight']")" = 110
like_with policy fifo fifo.json
"$IRT" sim --like fifo.json -q --format none 2>likefifo.err
check "--like a fifo probe: one warning that cfsbw cannot express it" \
	test "$(grep -c "warning: .*probe0 (fifo 0) ran in a real-time or deadline class" likefifo.err)" = 1 -a "$(wc -l <likefifo.err)" = 1
# on two CPUs the threads are spread round robin, the probe first: a load thread's name must not
# read as a CPU ("cpu0" was simulated on CPU 1)
python3 -c "
import json; r = json.load(open('$L')); r['threads'][0]['settings']['cpus'] = '0-1'
r['loads'][0]['settings']['cpus'] = '0-1'; json.dump(r, open('like2cpu.json', 'w'))"
check_exit 0 "--like a run on two CPUs" "$IRT" sim --like like2cpu.json -q --format none -o like2.json
check "load threads named after their load, not a CPU; spread after the probe" test "$(json_get like2.json \
	"' '.join('%s@%d' % (t['name'], t['sim']['cpu']) for t in r['threads'])")" = "probe0@0 cpu-load-0@1 cpu-load-1@0"
python3 -c "
import json; r = json.load(open('$L')); r['threads'][0]['name'] = 'cpu-load-1'; json.dump(r, open('likeclash.json', 'w'))"
check_usage "--like: a probe with a load thread's name" \
	"likeclash.json: probe cpu-load-1 has the name --like gives thread 1 of load cpu \\(load threads are named LOAD-load-N" "$IRT" sim --like likeclash.json

# ---- cfsbw's tick: a slice is kept whole and its end noticed at the next tick. Worked out by
# hand: the hog is picked at 0, its 2 ms slice ends at 2, noticed at the tick at 4, where it is
# picked again (nothing else is ready) for [4, 6). The probe wakes at 5 inside that slice and
# runs at the next tick after it, 8: 3 ms late. It sleeps at 9; the hog's slice from 9 ends at
# 11, noticed at 12; picked again, [12, 14) has passed when the probe wakes at 15, which
# preempts at once. So it goes on: every other wake-up 3 ms late. Without a tick, none. ----
printf '[sim]\npolicy = cfsbw\nslice = 2ms\nduration = 100ms\n[thread hog]\ntype = cpu-bound\n[thread p]\ntype = periodic\nperiod = 10ms\nexec = 1ms\nstart = 5ms\n' >tick.ini
check_exit 0 "cfsbw with a 4 ms tick" "$IRT" sim tick.ini --sim-tick 4ms -f none -o tick.json
check "every other wake-up waits 3 ms for the tick" test "$(json_get tick.json \
	"[(v, c) for t in r['threads'] if t['name'] == 'p' for v, c in t['wake']['buckets']], [t['wake']['max'] for t in r['threads'] if t['name'] == 'p']")" = "[(0, 5), (2998272, 5)] [3000000]"
check_exit 0 "cfsbw without a tick" "$IRT" sim tick.ini -f none -o notick.json
check "the wake-up preempts at once" test "$(json_get notick.json "[t['wake']['max'] for t in r['threads'] if t['name'] == 'p']")" = "[0]"
# a spent pool is noticed at the tick too: the group overruns its 2 ms until the tick at 4 ms
# and pays it back from the next refills (20 ms in 100 ms either way)
printf '[sim]\npolicy = cfsbw\nslice = 100ms\n[thread hog]\ntype = cpu-bound\ngroup = G\ncfs-quota = 2ms\ncfs-period = 10ms\n' >thr.ini
for d in 3ms 100ms; do
	"$IRT" sim thr.ini --sim-duration $d --sim-tick 4ms -f none -o thr-tick-$d.json
	"$IRT" sim thr.ini --sim-duration $d -f none -o thr-$d.json
done
check "with a tick the group runs until the tick after its pool is spent" test "$(json_get thr-tick-3ms.json "r['threads'][0]['sim']['used_ns']")" = 3000000
check "without, exactly its quota" test "$(json_get thr-3ms.json "r['threads'][0]['sim']['used_ns']")" = 2000000
check "the overrun is paid back: 20 ms in 100 ms either way" test "$(json_get thr-tick-100ms.json "r['threads'][0]['sim']['used_ns']") $(json_get thr-100ms.json "r['threads'][0]['sim']['used_ns']")" = "20000000 20000000"

# ---- cfsbw's groups: nested schedules a group as one entity, flat weighs every thread ----
printf '[sim]\npolicy = cfsbw\nduration = 1s\n[thread a]\ntype = cpu-bound\n[thread b1]\ntype = cpu-bound\ngroup = B\n[thread b2]\ntype = cpu-bound\ngroup = B\n' >nest.ini
check_exit 0 "nested groups" "$IRT" sim nest.ini --sim-groups nested -f none -o nest.json
check "a thread beside a group of two gets half the CPU, each of the two a quarter (+-0.2 %)" test "$(json_get nest.json \
	"all(abs(t['sim']['share_ppm'] - e) <= 2000 for t, e in zip(r['threads'], (500000, 250000, 250000)))")" = True
check_exit 0 "flat groups" "$IRT" sim nest.ini -f none -o flat.json
check "flat: a third each" test "$(json_get flat.json "all(abs(t['sim']['share_ppm'] - 333333) <= 2000 for t in r['threads'])")" = True
# a group is one entity: splitting its one thread in two leaves the probe's schedule as it was
# (flat: the second hog takes its own turn before the probe after every refill)
for n in 1 2; do
	{ printf '[sim]\npolicy = cfsbw\nduration = 2s\nslice = 1400us\ntick = 4ms\n[thread p]\ntype = periodic\nperiod = 7100us\nexec = 1400us\n'
	  for i in $(seq 1 $n); do printf '[thread h%d]\ntype = cpu-bound\nweight = %d\ngroup = loads\ncfs-quota = 20ms\ncfs-period = 100ms\n' "$i" $((1024 / n)); done; } >hogs$n.ini
	"$IRT" sim hogs$n.ini --sim-groups nested -f none -o nested$n.json
	"$IRT" sim hogs$n.ini -f none -o flat$n.json
done
check "nested: one hog or two in the group, the same probe" test "$(json_get nested1.json "r['threads'][0]['wake']")" = "$(json_get nested2.json "r['threads'][0]['wake']")"
check "flat: two hogs delay the probe more than one" test "$(json_get flat2.json "r['threads'][0]['wake']['max']")" -gt "$(json_get flat1.json "r['threads'][0]['wake']['max']")"
check "--like: nested groups" test "$(json_get like.json "r['settings']['groups']")" = nested
printf '[sim]\npolicy = rr\ntick = 4ms\n[thread a]\ntype = cpu-bound\n' >tickrr.ini
check_usage "tick is cfsbw's" "tickrr.ini:3: 'tick' is not a parameter of policy rr" "$IRT" sim tickrr.ini

check_usage "--like with a workload file too" "--like takes the place of the workload file" "$IRT" sim --like "$L" s.tsv
check_usage "--like of a simulated result" "like.json: --like needs a result of irt run \(or a sweep cell\), not of irt sim" \
	"$IRT" sim --like like.json

# ---- bad workloads: one line, file:line, exit 2 ----
printf '[sim]\nfil = 10ms\n[thread a]\n' >bad1.ini
check_usage "unknown [sim] key" "bad1.ini:2: unknown \[sim\] key 'fil'" "$IRT" sim bad1.ini
printf '[thread a]\nquota = 70%%\n[thread b]\nquota = 40%%\n' >bad2.ini
check_usage "claims over the super period, at the thread that makes them so" "bad2.ini:3: claims sum to 1100ms, more than the super period 1s" "$IRT" sim bad2.ini
printf '[thread a]\ntype = periodic\nperiod = 0ms\nexec = 1ms\n' >bad3.ini
check_usage "zero period" "bad3.ini:3: thread a: a periodic thread needs period > 0" "$IRT" sim bad3.ini
printf '[sim]\npolicy = rr\nsuper_period = 1s\n[thread a]\n' >bad4.ini
check_usage "parameter of another policy" "bad4.ini:3: 'super-period' is not a parameter of policy rr" "$IRT" sim bad4.ini
check_usage "missing workload" "missing the workload file" "$IRT" sim
check_usage "unreadable workload" "nope.ini: cannot open" "$IRT" sim nope.ini
check_usage "bad override" "--fill: '1 ms' is not valid" "$IRT" sim "$X/cpu_quota.ini" --fill "1 ms"
check_usage "thread key on the command line" "^irt: --quota: not an option of 'irt sim': quota is a \[thread NAME\] key of the workload file" "$IRT" sim "$X/cpu_quota.ini" --quota 5%

# ---- the command line: --KEY VALUE overrides the file's [sim] key, its [sweep] and import ----
printf 'thread\tstart\truntime\tweight\nA\t0s\t1ms\t1\n' >ok.tsv
printf 'thread\tstart\truntime\tweight\nF\t0s\t1ms\t1\n' >f.tsv
check_exit 0 "--import FILE" "$IRT" sim "$X/cpu_quota.ini" --import ok.tsv --duration 1s
check_out "^A +hwquota" "the command line's import adds its threads"
printf '[sim]\nduration = 1s\nimport = f.tsv\n' >imp.ini
check_exit 0 "--import over import =" "$IRT" sim imp.ini --import ok.tsv
check "the command line's import replaces the file's" sh -c "grep -q '^A ' '$OUT' && ! grep -q '^F ' '$OUT'"
check_usage "--import of a missing file" "^irt: --import: nope.tsv: cannot open" "$IRT" sim imp.ini --import nope.tsv
check_exit 0 "--sim-policy over a [sweep] of policies" "$IRT" sim "$X/interactive.ini" --sim-policy rr --duration 1s
check "the swept dimension is fixed: one cell, rr" sh -c "test \$(grep -c 'simulated' '$OUT') = 1 && grep -q 'policy=rr' '$OUT' && ! grep -q '\[policy=' '$OUT'"
check_exit 0 "--fill over a [sweep] of fill" "$IRT" sim "$X/vm_boot.ini" --fill 5ms --duration 1s
check "fill is 5ms in each of the 4 remaining cells" sh -c "test \$(grep -c 'fill=5ms' '$OUT') = 4 && ! grep -q 'fill=1' '$OUT'"
# a smaller sweep into the files of a larger one: its cells 4..7 stay beside the new 0..3
"$IRT" sim "$X/vm_boot.ini" --duration 1s -f none -o stale.json
check_exit 0 "a 4-cell sweep over the files of an 8-cell one" "$IRT" sim "$X/vm_boot.ini" --fill 5ms --duration 1s -f none -o stale.json
check "one warning names the earlier sweep's file" sh -c "test \$(wc -l <'$ERR') = 1 &&
	grep -q '^irt: warning: --json: stale-cell004.json is left from an earlier sweep with more cells (this one has 4)' '$ERR'"
check_exit 0 "the same 4-cell sweep into files of its own" "$IRT" sim "$X/vm_boot.ini" --fill 5ms --duration 1s -f none -o fresh.json
check "no warning then" test ! -s "$ERR"
check_usage "a command-line key of a policy the command line fixed away" "^irt: --fill: not a parameter of policy rr" \
	"$IRT" sim "$X/interactive.ini" --sim-policy rr --fill 1ms
printf '[sim]\nduration = 10s\n[thread a]\ntype = oneshot\nwork = 100ms\n[thread b]\ntype = oneshot\nwork = 50ms\nstart = 500ms\n' >os.ini
check_exit 0 "--end idle waits for a thread's start" "$IRT" sim os.ini --end idle
check_out "; 550ms simulated" "ends when b is done, as the same scenario as a TSV"
check_out "^b +hwquota .* 50\.0ms +-$" "b done"
check_usage "cs-cost is the engine's: schedsim's policies refuse it" "^irt: --cs-cost: not a parameter of policy schedsim-rr" \
	"$IRT" sim s.tsv --sim-policy schedsim-rr --cs-cost 5ms
printf '[sim]\nduration = 1s\n[thread a]\ntype = cpu-bound\nquota = none\nprio = 1\n[thread b]\ntype = cpu-bound\n' >qn.ini
check_exit 0 "quota = none" "$IRT" sim qn.ini
check_out "^a +hwquota +50\.00%" "none is best effort"
printf '[sweep]\na.quota = 40%%, none\n' >>qn.ini
check_exit 0 "quota none in a sweep" "$IRT" sim qn.ini
check_out "a.quota=none" "a cell with none"
check_usage "an option a policy does not read is named as given" "^irt: --sim-tick: not a parameter of policy hwquota" \
	"$IRT" sim "$X/cpu_quota.ini" --sim-tick 1ms
check_exit 0 "--like's cfsbw keys do not count against another policy" "$IRT" sim --like "$L" --sim-policy hwquota -f none
check_usage "--sim-shard is named as given" "^irt: --sim-shard: '0/2' is not a shard" "$IRT" sim "$X/cpu_quota.ini" --sim-shard 0/2
check_usage "one cell, singular" "^irt: --sim-shard 2/2: the workload has only 1 cell \(" "$IRT" sim "$X/cpu_quota.ini" --sim-shard 2/2
check_usage "--step with -q" "^irt: sim --step FILE: -q cannot go with --step" "$IRT" sim --step "$S/hwquota_basics.step" -q
check_usage "--step with --sim-policy" "^irt: sim --step FILE: --sim-policy cannot go with --step" \
	"$IRT" sim --sim-policy rr --step "$S/hwquota_basics.step"
check_usage "--step with --like" "^irt: sim --step FILE: --like cannot go with --step" "$IRT" sim --like "$L" --step "$S/hwquota_basics.step"

# ---- --expect on a simulation: comparisons' metrics refused, a thread without the metric named ----
check_usage "verdict on a simulation" "^irt: --expect 'verdict!=worse': verdict exists only in comparisons" \
	"$IRT" sim "$X/ui_hog_io.ini" -q -f none --expect 'verdict!=worse'
check_usage "a ratio on a simulation" "^irt: --expect 'wake.p99.ratio<=2': wake.p99.ratio exists only in comparisons" \
	"$IRT" sim "$X/ui_hog_io.ini" -q -f none --expect 'wake.p99.ratio<=2'
check_exit 4 "met of a thread without deadlines" "$IRT" sim "$X/ui_hog_io.ini" -q -f none --expect 'hog:met>=1%'
check_err "hog met: nothing to judge \(hog has no deadlines\)" "says the thread has no deadlines, not that it does not exist"
# a simulation knows its threads before it runs: a name it does not have is a typo (exit 2, not
# the unmet 4 that git bisect reads as "bad"), refused before any cell is simulated
rm -f gate.json
check_usage "a thread that does not exist" \
	"^irt: --expect 'nope:met>=1%': no thread 'nope' in .*ui_hog_io.ini \(its threads: ui, hog, io\)$" \
	"$IRT" sim "$X/ui_hog_io.ini" -q -f none -o gate.json --expect 'wake.p99<=1s' --expect 'nope:met>=1%'
check "no cell simulated for a misnamed thread" [ ! -e gate.json ]
check_usage "a sweep's misnamed thread too" "^irt: --expect 'vm2:completion<=9s': no thread 'vm2' in .*vm_boot.ini" \
	"$IRT" sim "$X/vm_boot.ini" -q -f none --expect 'vm2:completion<=9s'

# ---- --expect on the simulator's metrics: share, windows, completion, used, spent, switches ----
# vm_boot: the VM boots in every cell with its 40 % quota, never within 2 min without it at
# super period 1 s and fill 10 ms; the timer meets every window; be1 gets 27-32 %
check_exit 0 "the simulator's metrics met in every cell" "$IRT" sim "$X/vm_boot.ini" -q -f none \
	--expect 'timer:windows>=100%' --expect 'be1:share>=25%' --expect 'share<=35%' --expect 'completion>=1s' \
	--expect 'timer:switches>=100' --expect 'vm:used<=11s' --expect 'vm:spent>=1s'
check_exit 4 "a boot that does not complete is unmet" "$IRT" sim "$X/vm_boot.ini" -q -f none --expect 'vm:completion<=60s'
check_err "^irt: expect: 'vm:completion<=60s' unmet: \[super-period=1s fill=10ms vm.quota=0\] vm completion = not completed within the duration$" \
	"names the cell and says the VM did not complete"
check_exit 4 "a share below the bound is unmet" "$IRT" sim "$X/vm_boot.ini" -q -f none --expect 'be1:share>=30%'
check_err "unmet: \[super-period=100ms .*\] be1 share = 2[0-9]\.[0-9]{3}%$" "the share as a percentage"
check_exit 0 "completion bound met in every cell with a 1 ms fill" "$IRT" sim "$X/vm_boot.ini" -q -f none --fill 1ms \
	--expect 'vm:completion<=50s'
check_exit 4 "a timer window bound on a thread without windows" "$IRT" sim "$X/vm_boot.ini" -q -f none --expect 'be1:windows>=1%'
check_err "be1 windows: nothing to judge \(be1 has no full timer windows\)" "says the thread has no timer windows"
check_usage "a simulator metric with a bad value" "^irt: --expect 'share>=1s': '1s' is not a share" \
	"$IRT" sim "$X/vm_boot.ini" -q -f none --expect 'share>=1s'

# ---- INI headers: a UTF-8 byte order mark before [sim] is read past (inih skips it too) ----
printf '\357\273\277[sim]\nduration = 1s\n[thread a]\ntype = cpu-bound\n' >bom.ini
check_exit 0 "a byte order mark before [sim]" "$IRT" sim bom.ini
check_out "duration=1s" "its [sim] section is read"

finish
