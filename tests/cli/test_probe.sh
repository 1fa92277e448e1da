# irt probe: options, output formats, open-loop accounting, policies, signals, errors.
# Runs alone: its stall cases count late wake-ups (a late one before the stall once made
# --overrun skip pass over it; the stall now comes at the first wake-up from ITER on).
. "$IRT_TOP/tests/cli/lib.sh"

# json_get FILE EXPR: evaluates a Python expression over the parsed result `r`.
json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- help and the option table ----
check_exit 0 "help" "$IRT" help
check_out "probe" "help lists probe"
check_exit 0 "probe --help" "$IRT" probe --help
check_out "--period DURATION" "probe help shows --period"
check_out "default: 10ms" "probe help shows defaults"
check_exit 0 "help personas" "$IRT" help personas
check_out "audio .*50 ms" "personas are documented"
check_exit 0 "man page" "$IRT" help --man
check_out '^\.TH IRT 1' "man page header"
check "docs/irt.1 is generated from the current table" cmp -s "$OUT" "$IRT_TOP/docs/irt.1"

# ---- bad input: one line, exit 2 ----
check_usage "unknown option" "--bogus: unknown option" "$IRT" probe --bogus
check_usage "bad duration" "--period: '20xs' is not valid \(expected a duration" "$IRT" probe --period 20xs
check_usage "short option bad duration" "-i: '5 parsecs' is not valid" "$IRT" probe -i "5 parsecs"
check_usage "out of range" "--period: '2h' is out of range .*from 1us to 1h" "$IRT" probe --period 2h
check_usage "missing value" "--count: missing value" "$IRT" probe --count
check_usage "bad enum" "--policy: unknown value 'fast' \(expected one of other, batch" "$IRT" probe --policy fast
# cyclictest's options where irt's differ: -p N (its priority), -h N (its histogram)
check_usage "cyclictest's -p 90" "-p: unknown value '90' \(expected one of other, .*; a real-time priority is -p fifo --prio 90\)" \
	"$IRT" probe -p 90
check_usage "cyclictest's -h 400: not help" "-h: takes no value, got '400' \(-h is help; cyclictest's -h N histogram is --format cyclictest --hist-buckets N\)" \
	"$IRT" probe -i 1ms -h 400 -D 2s
check "cyclictest's -h 400: no help on stdout" test ! -s "$OUT"
check_usage "irt -h 400: not help" "-h: takes no value, got '400'" "$IRT" -h 400
check_usage "bad size" "--touch: '8X' is not valid \(expected a size" "$IRT" probe --touch 8X
check_usage "negative count" "--count: '-5' is out of range" "$IRT" probe --count -5
check_usage "flag with value" "--relative: takes no value" "$IRT" probe --relative=1
check_usage "prio without rt policy" "--prio 5 applies only to --policy fifo or rr" "$IRT" probe --prio 5
check_usage "burn does not fit rt period" "does not fit --period 1ms for a real-time probe" "$IRT" probe --policy fifo -i 1ms --burn 990us
check_usage "bad cpu list" "--cpus: '1-' is not a CPU list" "$IRT" probe --cpus 1-
check_usage "nonexistent cpu" "--cpus: CPU 1023 does not exist" "$IRT" probe --cpus 1023 -n 1
check_usage "deadline params need deadline policy" "need --policy deadline" "$IRT" probe --dl-runtime 1ms
check_usage "slice too small" "--slice 50us is below the kernel's minimum" "$IRT" probe --slice 50us
check_usage "duration shorter than period" "--duration 5ms is shorter than --period 10ms" "$IRT" probe -D 5ms
check_usage "stray argument" "unexpected argument 'extra'" "$IRT" probe extra
check_usage "unknown command" "unknown command 'prob'" "$IRT" prob
check_usage "duplicate names" "the name is used twice" "$IRT" probe --name a --name a
check_usage "json into missing dir" "--json: cannot write into directory '/nonexistent/dir'" "$IRT" probe -n 1 --json /nonexistent/dir/x.json
check_usage "bad stall" "--inject-stall: 'x' is not valid" "$IRT" probe --inject-stall x
check "no partial result file on bad input" test ! -e x.json

# ---- a plain run ----
check_exit 0 "plain run" "$IRT" probe -i 1ms -n 200 -q --json plain.json --csv plain.csv
check_out "^probe0 +200 " "table row with 200 samples"
check_out "wake-up latency" "wake-up table"
check_out "response time" "response table"
check "json schema" test "$(json_get plain.json "r['schema']")" = "irt-result/1"
# -n and -D both given: whichever ends first (-n used to win silently: 1000 x 200 ms)
check_exit 0 "count and duration" "$IRT" probe -n 1000 -i 10ms -D 50ms -q -f none --json both.json
check "count and duration: the duration ends it" test "$(json_get both.json "r['threads'][0]['samples']")" = 5
check_exit 0 "count shorter than duration" "$IRT" probe -n 3 -i 10ms -D 10s -q -f none --json both2.json
check "count and duration: the count ends it" test "$(json_get both2.json "r['threads'][0]['samples']")" = 3
check "json samples" test "$(json_get plain.json "r['threads'][0]['samples']")" = 200
check "json wake count" test "$(json_get plain.json "r['threads'][0]['wake']['count']")" = 200
check "json slack 1ns by default" test "$(json_get plain.json "r['threads'][0]['timer_slack_ns']")" = 1
check "json has command line" test "$(json_get plain.json "'-n 200' in r['cmdline']")" = True
check "json env kernel" test -n "$(json_get plain.json "r['env']['kernel']")"
check "csv rows" test "$(wc -l <plain.csv)" = 3
check "csv header" grep -q '^thread,metric,samples,min_ns,p50_ns' plain.csv
check "no temp files left" test -z "$(ls | grep '\.tmp\.')"

# ---- slack is applied and reported ----
check_exit 0 "slack" "$IRT" probe -i 1ms -n 20 --slack 50us -f none --json slack.json
check "slack reported" test "$(json_get slack.json "r['threads'][0]['timer_slack_ns']")" = 50000

# ---- duration, deadline, quiet, the live status line ----
check_exit 0 "duration" "$IRT" probe -i 10ms -D 300ms -f none --json dur.json
check "duration / period wake-ups" test "$(json_get dur.json "r['threads'][0]['samples']")" = 30
check_exit 0 "deadline" "$IRT" probe -i 2ms -n 20 --burn 500us --deadline 100us -f none --json dl1.json
check "every response misses a 100us deadline after 500us of work" test "$(json_get dl1.json "r['threads'][0]['deadlines_missed']")" = 20
check "deadline recorded" test "$(json_get dl1.json "r['threads'][0]['settings']['deadline']")" = 100us
check_exit 0 "deadline default is the period" "$IRT" probe -i 2ms -n 5 -f none --json dl2.json
check "default deadline" test "$(json_get dl2.json "r['threads'][0]['settings']['deadline']")" = 2ms
if command -v script >/dev/null; then
	script -qec "$IRT probe -i 1ms -n 1500 -f none" /dev/null >tty.out 2>&1
	check "a live status line on a terminal" grep -q 'probe0 [0-9]*/1500 max' tty.out
	script -qec "$IRT probe -i 1ms -n 1500 -f none --quiet" /dev/null >tty.out 2>&1
	check "--quiet: no status line" test "$(grep -c 'probe0 [0-9]*/1500 max' tty.out)" = 0
else
	skip "the live status line: script (util-linux) is missing"
fi

# ---- formats ----
check_exit 0 "seed format" "$IRT" probe -i 20ms -n 10 --format seed
check "seed lines look like the script's" test "$(grep -cvE '^[0-9]+\.[0-9]{3}:  [0-9]+$' "$OUT")" = 0
check "seed counts sum to the samples" test "$(awk -F': ' '{s+=$2} END {print s}' "$OUT")" = 10
check "seed keys near the period" grep -q '^0\.02[0-9]:' "$OUT"
check_exit 0 "cyclictest format" "$IRT" probe -i 1ms -n 100 --format cyclictest --hist-buckets 50 --threads 2
check "cyclictest header" test "$(head -1 "$OUT")" = "# Histogram"
check "cyclictest rows" test "$(grep -cE '^[0-9]{6} [0-9]{6}	[0-9]{6}$' "$OUT")" = 50
check_out "^# Total: [0-9]{9} [0-9]{9}$" "cyclictest total"
check_out "^# Max Latencies: [0-9]{5} [0-9]{5}$" "cyclictest max"
check_out "^# Thread 1:" "cyclictest thread lines"
check "cyclictest counts + overflows = samples" test "$(awk '/^[0-9]/ {s+=$2+$3} /^# Histogram Overflows:/ {s+=$4+$5} END {print s}' "$OUT")" = 200
check "cyclictest output ends with an empty line, as cyclictest's" test -z "$(tail -n 1 "$OUT")"
cp "$OUT" ct2.txt
# --hist-sum (cyclictest -H): one more column, the threads summed, in the rows and the Total, Max
# and Overflows lines (tests/golden/cyclictest-hist-sum.txt has the layout)
check_exit 0 "cyclictest format --hist-sum" "$IRT" probe -i 1ms -n 100 --format cyclictest --hist-buckets 50 --threads 2 --hist-sum
check "--hist-sum rows: each thread's count, then their sum" test "$(awk '/^[0-9]/ {n++; if (NF == 4 && $4 == $2 + $3) ok++} END {print n "/" ok}' "$OUT")" = 50/50
check "--hist-sum: Total, Max, Overflows have the summed column, Min and Avg none" test "$(awk '
	/^# Total:/ {t = (NF == 5 && $5 == $3 + $4)} /^# Max Latencies:/ {m = (NF == 6 && $6 == ($4 > $5 ? $4 : $5))}
	/^# Histogram Overflows:/ {o = (NF == 6 && $6 == $4 + $5)} /^# (Min|Avg) Latencies:/ {n += NF}
	END {print t m o n}' "$OUT")" = 11110
check_exit 0 "cyclictest format --hist-sum, one thread" "$IRT" probe -i 1ms -n 20 --format cyclictest --hist-buckets 5 --hist-sum
check "--hist-sum, one thread: no summed column (as cyclictest -H)" test "$(grep -cE '^[0-9]{6} [0-9]{6}$' "$OUT")" = 5
check_usage "--hist-sum: not for sweeps" "--hist-sum: not an option of 'irt sweep'" "$IRT" sweep --sweep period=1ms,2ms --hist-sum
# --explain with --format cyclictest: its findings as comment lines (traced as root, the
# --attribute fallback otherwise: either way a "why late" line), the rest still cyclictest's
check_exit 0 "cyclictest format with --explain" "$IRT" probe -i 1ms -n 100 --format cyclictest --hist-buckets 20 --explain -q
check_out "^# why late \(--explain\): " "cyclictest format carries --explain's findings as comments"
check "cyclictest format with --explain: only rows, comments and the last empty line" \
	test "$(grep -cvE '^([0-9]{6} [0-9]{6}|#.*|)$' "$OUT")" = 0
check_exit 0 "--explain with --format none" "$IRT" probe -i 1ms -n 20 --format none --explain -q
check_err "^irt: note: --explain: --format none does not show its findings and no --json saves them" \
	"--explain's findings not shown: says so"
if is_root; then
	check_exit 0 "cyclictest format, PM QoS held" "$IRT" probe -i 1ms -n 20 --pm-qos 0 --format cyclictest --hist-buckets 5
	check "cyclictest's PM QoS line first" test "$(head -1 "$OUT")" = "# /dev/cpu_dma_latency set to 0us"
else
	skip "cyclictest format, PM QoS held: needs root"
fi
check_exit 0 "format none" "$IRT" probe -i 1ms -n 5 -f none
check "format none prints nothing" test ! -s "$OUT"
check "nothing extra on stderr when piped" test ! -s "$ERR"

# ---- open loop: a stall's backlog shows in the following samples ----
check_exit 0 "injected stall" "$IRT" probe -i 1ms -n 100 --inject-stall 10:20ms -f none --json stall.json
check "no sample skipped" test "$(json_get stall.json "r['threads'][0]['samples']")" = 100
check "overruns counted" test "$(json_get stall.json "r['threads'][0]['overruns']")" -ge 18
check "the stall is in the response" test "$(json_get stall.json "r['threads'][0]['resp']['max']")" -ge 20000000
check "backlog shows: >= 15 late wake-ups of >= 1ms" \
	test "$(json_get stall.json "sum(c for v,c in r['threads'][0]['wake']['buckets'] if v >= 1000000)")" -ge 15
check "deadlines missed" test "$(json_get stall.json "r['threads'][0]['deadlines_missed']")" -ge 18

# ---- --overrun skip: cyclictest's rule, the passed releases are counted, not measured ----
check_exit 0 "stall, skipping" "$IRT" probe -i 1ms -n 100 --inject-stall 10:20ms --overrun skip -f none --json skip.json
check "every release is measured or skipped" \
	test "$(json_get skip.json "r['threads'][0]['samples'] + r['threads'][0]['skipped']")" = 100
check "the stall's passed releases are skipped" test "$(json_get skip.json "r['threads'][0]['skipped']")" -ge 19
check "fewer overruns than catching up" test "$(json_get skip.json "r['threads'][0]['overruns']")" -lt 18
check "the rule is recorded" test "$(json_get skip.json "r['threads'][0]['settings']['overrun']")" = skip
# work longer than the period: every wake-up is late and the skip rule jumps over iterations,
# maybe over the stall's; the stall then comes at the first wake-up after it
check_exit 0 "a stall the skip rule may pass over" "$IRT" probe -i 1ms -n 100 --burn 3ms --overrun skip --inject-stall 11:20ms \
	-f none --json skipover.json
check "the stall still comes" test "$(json_get skipover.json "r['threads'][0]['resp']['max']")" -ge 20000000
check_exit 0 "the summary says what was skipped" "$IRT" probe -i 1ms -n 50 --inject-stall 5:10ms --overrun skip
check_out "^probe0: --overrun skip: [0-9]+ releases passed over after late wake-ups, not measured$" "a line under the tables"
check "catch-up writes no skipped count" test "$(json_get stall.json "'skipped' in r['threads'][0]")" = False
check_exit 0 "the skip count is read back" "$IRT" report skip.json -f text
check_out "probe0: period 1ms, other, --overrun skip: [0-9]+ releases skipped" "and named in the report"
check_exit 0 "compare the two rules" "$IRT" compare stall.json skip.json
check_out "^conditions differ: passed releases catch-up in A, skip in B$" "compare names the unlike rule"
check_usage "bad rule" "--overrun" "$IRT" probe --overrun sometimes
# --format cyclictest after a stall: the rows are not cyclictest's rule, and the output says so
check_exit 0 "cyclictest format, catching up" "$IRT" probe -i 1ms -n 50 --inject-stall 10:5ms --format cyclictest --hist-buckets 20
check_out "^# irt: [0-9]+ overruns?: the releases passed meanwhile were measured back to back \(--overrun catch-up\); cyclictest skips them, as irt --overrun skip does$" \
	"cyclictest format names the catch-up rule"
check_exit 0 "cyclictest format, skipping" "$IRT" probe -i 1ms -n 50 --inject-stall 10:5ms --overrun skip --format cyclictest --hist-buckets 20
check "cyclictest format, skipping: no catch-up line" sh -c "! grep -q '^# irt:' '$OUT'"

# ---- relative sleeps (the seed's method) ----
check_exit 0 "relative" "$IRT" probe --relative -i 2ms -n 20 -f none --json rel.json
check "relative samples" test "$(json_get rel.json "r['threads'][0]['samples']")" = 20
check "relative recorded" test "$(json_get rel.json "r['threads'][0]['settings']['relative']")" = 1

# ---- work: touch and burn ----
check_exit 0 "touch and burn" "$IRT" probe -i 5ms -n 20 --touch 1M --touch-pattern random --burn 1ms -f none --json work.json
check "burn calibration reported" test "$(json_get work.json "r['threads'][0]['burn_ns_per_kloop']")" -gt 0
check "response includes the burn" test "$(json_get work.json "r['threads'][0]['resp']['min']")" -ge 900000
check_exit 0 "work that fits its period" "$IRT" probe -i 5ms -n 20 --burn 1ms
check "no backlog note when the work fits" sh -c "! grep -q 'no release ended within its period' \"\$1\"" - "$OUT"
check_exit 0 "work longer than its period" "$IRT" probe -i 1ms -n 5 --burn 2ms
check_out "^probe0: no release ended within its period \(shortest response [0-9.]+ms, period 1.00ms\): the probe never caught up" \
	"the table says the figures measure the probe's own backlog"
# a probe that falls behind runs past -D (every release of the window is measured, the missed
# ones after it): a note under the results says how far and why, the result records it
check_exit 0 "work longer than its period, -D" "$IRT" probe -i 1ms -D 0.1s --burn 2ms --json behind.json
check_out "^probe0: ran [0-9.]+m?s past its -D/-n window of 100ms: it fell behind \(late wake-ups, or work longer than the period\) and --overrun catch-up measures every release of the window" \
	"a note under the results says it ran past -D, and why"
check "the result records how far past its window it ran" \
	test "$(json_get behind.json "int(r['threads'][0]['past_window_ns'] > 1000000 and r['duration_ns'] > 100000000)")" = 1
check_exit 0 "work that fits a long period" "$IRT" probe -i 50ms -n 4 --burn 1ms --json fits.json
check "within its window: no note" sh -c "! grep -q 'past its -D' \"\$1\"" - "$OUT"
check "within its window: no past_window_ns" test "$(json_get fits.json "'past_window_ns' in r['threads'][0]")" = False

# ---- several threads and definitions, personas ----
check_exit 0 "threads" "$IRT" probe -i 1ms -n 50 --threads 3 -q
check_out "^probe0\.2 +50 " "third thread row"
# --per-cpu (cyclictest -S): one thread per CPU, named and pinned by it (read in /proc while it runs)
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
ncpus=$(python3 -c "import os; print(len(os.sched_getaffinity(0)))")
check_exit 0 "--per-cpu" "$IRT" probe -i 1ms -n 20 --per-cpu -f none --json pcpu.json
check "--per-cpu: a thread per CPU irt may run on, named by it" test "$(json_get pcpu.json \
	"','.join(t['name'] for t in r['threads'])")" = "$(python3 -c "import os; print(','.join('probe0.cpu%d' % c for c in sorted(os.sched_getaffinity(0))))")"
check "--per-cpu: the count is recorded as --threads" test "$(json_get pcpu.json "r['threads'][0]['settings']['threads']")" = "$ncpus"
last=$(python3 -c "import os; print(max(os.sched_getaffinity(0)))")
"$IRT" probe -i 10ms -D 3s --per-cpu --cpus "$last" -q -f none >/dev/null 2>&1 &
pp=$!
pinned=""
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	for tk in /proc/$pp/task/*; do
		[ "$(cat "$tk/comm" 2>/dev/null)" = "probe0.cpu$last" ] &&
			pinned=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$tk/status" 2>/dev/null)
	done
	[ -n "$pinned" ] && break
	sleep 0.1
done
kill -INT $pp 2>/dev/null
wait $pp
check "--per-cpu --cpus $last: its thread is pinned to CPU $last (irt may run on $cpus)" test "$pinned" = "$last"
check_usage "--per-cpu with another --threads" "probe0: --per-cpu runs one thread per CPU \(1 here\), not --threads 3 \(drop --threads\)" \
	"$IRT" probe -n 3 --per-cpu --cpus 0 -t 3
# --stop-above (cyclictest -b): the first recorded wake-up above it ends every probe, the result
# is saved with the window measured, and irt exits 4 as for an unmet --expect
check_exit 4 "--stop-above 1ns: the first wake-up crosses it" "$IRT" probe -i 1ms -D 5s -t 2 --stop-above 1ns -q --json stop.json
check "--stop-above: ended after the first wake-ups (samples <= 3 per thread)" \
	test "$(json_get stop.json "max(t['samples'] for t in r['threads'])")" -le 3
check "--stop-above: ended well before -D (window < 2.5s of 5s)" test "$(json_get stop.json "int(r['duration_ns'] < 2500000000)")" = 1
check_out "^stopped: probe0\.[01]'s wake-up at \+[0-9.]+s was .* late \(--stop-above 1ns\)$" "--stop-above: the note names the wake-up"
cp "$OUT" stop.txt
check "--stop-above: one thread names the crossing in the JSON" test "$(json_get stop.json \
	"sum(1 for t in r['threads'] if 'stopped' in t)")" = 1
check "--stop-above: the JSON holds the threshold and a lateness above it, within the window" test "$(json_get stop.json \
	"[(s['above_ns'], s['wake_ns'] > 1, s['wake_ns'] == t['wake']['max'], s['at_ns'] <= r['duration_ns']) for t in r['threads'] for s in [t.get('stopped')] if s]")" = "[(1, True, True, True)]"
check "--stop-above: recorded as the probe's setting" test "$(json_get stop.json "r['threads'][0]['settings']['stop-above']")" = 1ns
check_exit 0 "--stop-above: the saved result reads back" "$IRT" report stop.json --format text
stopline=$(grep '^stopped: ' "$OUT")
check "irt report (text) prints the stopped line irt probe printed" test -n "$stopline" -a "$stopline" = "$(grep '^stopped: ' stop.txt)"
check_exit 0 "--stop-above: irt report HTML" "$IRT" report stop.json -o stop.html
check "irt report (HTML) says the run was stopped" grep -q "<p class=\"worse\">stopped: probe0\.[01]&#39;s wake-up at +[0-9.]*s was .* late (--stop-above 1ns)</p>" stop.html
python3 -c "import json,sys; r=json.load(open('stop.json')); t=[t for t in r['threads'] if 'stopped' in t][0]
t['stopped']['above_ns'] = 0; json.dump(r, open('stopbad.json', 'w'))"
check_usage "--stop-above: a bad stopped object is refused" 'stopbad.json: \$\.threads\[[01]\]\.stopped\.above_ns: expected an integer >= 1' \
	"$IRT" report stopbad.json --format text
check_exit 0 "--stop-above 10s: never crossed, runs to the end" "$IRT" probe -i 1ms -n 20 --stop-above 10s --json nostop.json
check "--stop-above 10s: every wake-up measured" test "$(json_get nostop.json "r['threads'][0]['samples']")" = 20
check "--stop-above 10s: no note" sh -c "! grep -q '^stopped:' \"\$1\"" - "$OUT"
check "--stop-above 10s: no JSON field" test "$(json_get nostop.json "'stopped' in r['threads'][0]")" = False
check_exit 0 "--stop-above: two results in one report" "$IRT" report stop.json nostop.json --format text
check "irt report of several results labels the stopped one, only it" test "$(grep -c 'stopped: ' "$OUT")/$(grep -c '^stop: stopped: ' "$OUT")" = 1/1
check "without --stop-above it is not recorded" test "$(json_get plain.json "'stop-above' in r['threads'][0]['settings']")" = False
check_usage "--stop-above 0" "--stop-above: '0' is out of range .*from 1ns to 1h" "$IRT" probe --stop-above 0
check_usage "--stop-above -1ms" "--stop-above: '-1ms' is not valid \(expected a duration" "$IRT" probe --stop-above -1ms
check_usage "--stop-above abc" "--stop-above: 'abc' is not valid \(expected a duration" "$IRT" probe --stop-above abc
check_usage "--stop-above: not for sweeps" "--stop-above: not an option of 'irt sweep'" "$IRT" sweep --sweep period=1ms,2ms --stop-above 1ms
check_usage "--stop-above: not for monitor" "--stop-above: not an option of 'irt monitor'" "$IRT" monitor --stop-above 1ms
check_usage "--stop-above: not for sim" "--stop-above: (unknown option|not an option of 'irt sim')" "$IRT" sim x.ini --stop-above 1ms
# --aligned (cyclictest -A): the threads of a definition are released together on the probes'
# common grid, not spread over the period; --aligned-offset D (cyclictest -A USEC) puts thread k
# (of all definitions) k x D after it. The result records each thread's offset (phase_ns)
check_exit 0 "three threads, spread" "$IRT" probe -i 3ms -n 10 -t 3 -q -f none --json spread.json
check "without --aligned the threads are spread over the period" \
	test "$(json_get spread.json "[t.get('phase_ns', 0) for t in r['threads']]")" = "[0, 1000000, 2000000]"
check_exit 0 "--aligned" "$IRT" probe -i 3ms -n 10 -t 3 --aligned -q -f none --json aligned.json
check "--aligned: every thread on the common grid" \
	test "$(json_get aligned.json "[t.get('phase_ns', 0) for t in r['threads']]")" = "[0, 0, 0]"
check "--aligned: recorded as the threads' setting" test "$(json_get aligned.json "r['threads'][2]['settings']['aligned']")" = 1
check "without --aligned it is not recorded" test "$(json_get spread.json "'aligned' in r['threads'][0]['settings']")" = False
check_exit 0 "--aligned-offset" "$IRT" probe -n 10 --name a -i 2ms -t 2 --aligned --name b -i 3ms -t 2 --aligned-offset 100us \
	-q -f none --json aoff.json
check "--aligned-offset: thread k of all k x the offset after the common release (a: none)" \
	test "$(json_get aoff.json "[(t['name'], t.get('phase_ns', 0)) for t in r['threads']]")" = \
	"[('a.0', 0), ('a.1', 0), ('b.0', 200000), ('b.1', 300000)]"
check "--aligned-offset implies --aligned" test "$(json_get aoff.json "r['threads'][3]['settings']['aligned']")" = 1
check_usage "--aligned with --relative" "probe0: --aligned needs the release grid; --relative sleeps from each wake-up \(drop one\)" \
	"$IRT" probe -n 3 --aligned --relative
check_usage "--aligned-offset -1ms" "--aligned-offset: '-1ms' is not valid \(expected a duration" "$IRT" probe --aligned-offset -1ms
check_exit 0 "definitions" "$IRT" probe -n 30 --name fast -i 1ms --name slow -i 3ms -f none --json defs.json
check "definition names" test "$(json_get defs.json "','.join(t['name'] for t in r['threads'])")" = "fast,slow"
check "without --per-cpu it is not recorded (older results stay comparable)" test "$(json_get defs.json "'per-cpu' in r['threads'][0]['settings']")" = False
check "definition periods" test "$(json_get defs.json "','.join(t['settings']['period'] for t in r['threads'])")" = "1ms,3ms"
check "counts alone differ as asked: no note" sh -c "! grep -q 'different times' \"\$1\"" - "$ERR"
# a -D after a --name is that probe's own: before measuring, one note names each probe's time
# and how to give all one; the summary says how long each measured, the JSON each one's duration
check_exit 0 "probes with durations of their own" "$IRT" probe --name ui -i 10ms -D 300ms --name bg -i 50ms -D 100ms --json dur.json
check "one note: each probe's time, and -D before the first --name for one duration" test "$(grep -c \
	"^irt: note: the probes measure for different times: ui 300ms, bg 100ms (a --duration after a --name.*give -D before the first --name" "$ERR")" = 1
check_out "^probes measured for different times \(a -D after a --name is that probe's own\): ui 300ms \(30 wake-ups\), bg 100ms \(2 wake-ups\)$" \
	"the summary shows how long each probe measured"
check "each probe's own duration and wake-ups in the JSON" test "$(json_get dur.json \
	"' '.join('%s=%s/%d' % (t['name'], t['settings']['duration'], t['samples']) for t in r['threads'])")" = "ui=300ms/30 bg=100ms/2"
check_exit 0 "one -D before the first --name" "$IRT" probe -D 200ms --name ui -i 10ms --name bg -i 50ms
check "one duration for all: no note" sh -c "! grep -q 'different times' \"\$1\"" - "$ERR"
check "and no line in the summary" sh -c "! grep -q 'different times' \"\$1\"" - "$OUT"
check_exit 0 "persona" "$IRT" probe --persona audio -n 3 -f none --json pa.json
check "persona values" test "$(json_get pa.json "r['threads'][0]['settings']['burn']")" = 2500us
check_exit 0 "persona override" "$IRT" probe --persona audio --period 20ms -n 3 -f none --json po.json
check "explicit option overrides persona" test "$(json_get po.json "r['threads'][0]['settings']['period']")" = 20ms
check "persona name kept" test "$(json_get po.json "r['threads'][0]['settings']['persona']")" = audio

# ---- interrupt: results so far printed and saved, exit 3 ----
interrupt_after 1 "$IRT" probe -i 1ms -D 60s --json int.json
check "SIGINT exits 3" test "$RC" = 3
check "SIGINT prints the table" grep -q '^probe0 ' int.out
check "SIGINT saves the result" test "$(json_get int.json "r['interrupted']")" = True
check "SIGINT result has samples" test "$(json_get int.json "r['threads'][0]['samples']")" -gt 100
check "SIGINT: says it saved" grep -Eqx 'irt: interrupted after [0-9.]+[mun]?s of 1\.00min: the results so far are printed and saved' int.err
# without --json or --csv nothing is saved, and the line does not claim it
interrupt_after 1 "$IRT" probe -i 1ms -D 60s
check "SIGINT without an output file: exit 3" test "$RC" = 3
check "SIGINT without an output file: says it is not saved" \
	grep -Eqx 'irt: interrupted after [0-9.]+[mun]?s of 1\.00min: the results so far are printed \(no --json or --csv: not saved\)' int.err

# ---- policies (root) ----
if is_root; then
	for p in other batch idle fifo rr; do
		check_exit 0 "policy $p" "$IRT" probe --policy $p -i 1ms -n 20 -f none
	done
	# SCHED_DEADLINE needs the whole root domain: not in a shell confined by taskset or a cpuset
	allowed=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
	dl_ok=false
	[ "$allowed" = "$(cat /sys/devices/system/cpu/online)" ] && dl_ok=true
	if $dl_ok; then
		check_exit 0 "policy deadline" "$IRT" probe --policy deadline -i 2ms --burn 100us -n 20 -f none --json dl.json
		check "deadline runtime derived" test "$(json_get dl.json "r['threads'][0]['settings']['dl-runtime']")" = 220us
	else
		check_exit 1 "policy deadline refused on a confined CPU set" "$IRT" probe --policy deadline -i 2ms --burn 100us -n 20 -f none
		check_err "deadline tasks also need the full CPU set" "and says why"
		skip "SCHED_DEADLINE runs: this shell may use CPUs $allowed of $(cat /sys/devices/system/cpu/online) (taskset or a cpuset); deadline tasks need them all"
	fi
	check_exit 0 "nice" "$IRT" probe --nice 5 -i 1ms -n 10 -f none
	check_exit 0 "slice" "$IRT" probe --slice 3ms -i 1ms -n 10 -f none
	check_exit 0 "cpus" "$IRT" probe --cpus 0 -i 1ms -n 10 -f none
	# each setting really is applied: the probe thread, seen in /proc while it runs
	# (stat: nice, rt_priority, policy; status: affinity; sched: the EEVDF slice)
	sched_of() {   # sched_of PID: what the thread named probe0 runs with, one line
		for d in /proc/$1/task/*; do
			[ "$(cat "$d/comm" 2>/dev/null)" = probe0 ] || continue
			awk '{printf "policy=%s prio=%s nice=%s ", $41, $40, $19}' "$d/stat" 2>/dev/null
			awk '/^Cpus_allowed_list:/ {printf "cpus=%s ", $2}' "$d/status" 2>/dev/null
			awk '$1 == "se.slice" {printf "slice=%s", $3}' "$d/sched" 2>/dev/null
			echo
		done
	}
	# applied NAME REGEX ARGS...: while irt probe ARGS runs, its probe thread matches REGEX
	# (polled for up to 5 s: the thread sets itself up after it starts)
	applied() {
		name=$1 re=$2; shift 2
		"$IRT" probe -i 1ms -D 8s -f none "$@" >/dev/null 2>&1 &
		pid=$!
		seen="" i=0
		while [ $i -lt 50 ] && kill -0 $pid 2>/dev/null; do
			seen=$(sched_of $pid)
			echo "$seen" | grep -Eq -- "$re" && break
			sleep 0.1
			i=$((i + 1))
		done
		kill -INT $pid 2>/dev/null
		wait $pid
		if echo "$seen" | grep -Eq -- "$re"; then pass; else fail "$name: probe0 has '$seen', wanted /$re/"; fi
	}
	# policies: SCHED_OTHER 0, FIFO 1, RR 2, BATCH 3, IDLE 5
	applied "SCHED_FIFO prio 42 applied to the probe thread" '^policy=1 prio=42 nice=0 ' --policy fifo --prio 42
	applied "SCHED_RR prio 30 applied to the probe thread" '^policy=2 prio=30 nice=0 ' --policy rr --prio 30
	applied "SCHED_BATCH applied to the probe thread" '^policy=3 prio=0 nice=0 ' --policy batch
	applied "SCHED_BATCH at nice 4" '^policy=3 prio=0 nice=4 ' --policy batch --nice 4
	applied "SCHED_IDLE applied to the probe thread" '^policy=5 prio=0 ' --policy idle
	applied "nice 7 applied to the probe thread" '^policy=0 prio=0 nice=7 ' --nice 7
	if $dl_ok; then
		applied "SCHED_DEADLINE applied to the probe thread" '^policy=6 ' --policy deadline -i 2ms --burn 100us
	else
		skip "SCHED_DEADLINE applied: this shell's CPU set is confined"
	fi
	applied "--slice 3ms: se.slice is 3 ms" '^policy=0 .* slice=3000000$' --slice 3ms
	applied "--slice 700us: se.slice is 0.7 ms" '^policy=0 .* slice=700000$' --slice 700us
	last=$(($(nproc) - 1))
	applied "--cpus $last: the thread may run on CPU $last only" "^policy=0 .* cpus=$last " --cpus $last
	[ "$last" -ge 1 ] && applied "--cpus 0-1: CPUs 0 and 1" "^policy=0 .* cpus=0-1 " --cpus 0-1
	# the threads of one definition each get the setting
	"$IRT" probe --policy batch --threads 3 -i 1ms -D 8s -f none >/dev/null 2>&1 &
	pid=$!
	n=0 i=0
	while [ $i -lt 50 ] && [ "$n" -lt 3 ]; do
		n=$(for d in /proc/$pid/task/*; do case $(cat "$d/comm" 2>/dev/null) in probe0.*) awk '{print $41}' "$d/stat";; esac; done | grep -c '^3$')
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	check "--threads 3 --policy batch: all three threads are SCHED_BATCH ($n)" [ "$n" = 3 ]
	# a real-time probe never spins without bound
	check_exit 1 "rt guard stops a spinning probe" "$IRT" probe --policy fifo -i 1ms -n 200 --inject-stall 5:50ms --rt-guard 10ms -f none --json guard.json
	check_err "fell .* behind without sleeping" "rt guard message"
	check "rt guard keeps what was measured" test "$(json_get guard.json "r['threads'][0]['samples']")" -ge 5
	check_exit 1 "deadline admission refused" "$IRT" probe --policy deadline -i 1ms --dl-runtime 990us --threads 4 -n 5 -f none
	check_err "sched_setattr failed" "deadline refusal names the call"
else
	skip "policies, nice, slice, cpus: need root"
fi

# ---- unprivileged ----
if is_root && command -v setpriv >/dev/null; then
	asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
	cp "$IRT" "$T/irt-user" && chmod 755 "$T/irt-user" "$T"
	run asuser "$T/irt-user" probe --policy fifo -i 1ms -n 5 -f none
	check "unprivileged fifo refused with exit 1" test "$RC" = 1
	check_err "--policy fifo --prio 80: sched_setattr failed: Operation not permitted \(needs root or CAP_SYS_NICE" "unprivileged fifo message"
	run asuser "$T/irt-user" probe --no-mlock -i 1ms -n 20 -f none
	check "unprivileged default policy works" test "$RC" = 0
else
	skip "unprivileged probes: need root (to become nobody) and setpriv"
fi
finish
