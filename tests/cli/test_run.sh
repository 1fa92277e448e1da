# irt run: loads, job files, placement, accounting, attribution, no process left behind.
# Runs beside other tests: it changes nothing outside its directory and its own processes (its
# own copy of irt, so that the processes it looks for are its own).
. "$IRT_TOP/tests/cli/lib.sh"

json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
# processes still running the binary $1 (loads are forked, not exec'ed, so they run it too)
procs_of() { for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"; done; }

cp "$IRT" "$T/irt-run" && chmod 755 "$T/irt-run" "$T"
IRTC="$T/irt-run"
short="-D 1s --warmup 200ms -q"

# ---- every load type starts, yields throughput and leaves nothing behind ----
for spec in cpu:threads=2 cpu:load-avg=3 mem:size=8M pipe:groups=1 fork io:size=8M compile:jobs=2 "cmd:cmd=sleep 0.05"; do
	lt=${spec%%:*}; [ "$spec" = cpu:load-avg=3 ] && lt=cpuavg
	check_exit 0 "run with $spec" "$IRTC" run $short -i 5ms --load "$spec" -f none --json "run-$lt.json"
	check "$spec: throughput > 0" test "$(json_get "run-$lt.json" "int(r['loads'][0]['ops_per_s'] > 0)")" = 1
	check "$spec: load ended as stopped" test "$(json_get "run-$lt.json" "r['loads'][0]['end']")" = stopped
	check "$spec: no process left" test -z "$(procs_of "$IRTC")"
done
check "mem load moves bytes" test "$(json_get run-mem.json "int(r['loads'][0]['bytes_per_s'] > 0)")" = 1
check "load settings recorded" test "$(json_get run-cpu.json "r['loads'][0]['settings']['threads']")" = 2

# ---- accounting is consistent ----
# (cpu:2, a bare count: the cpu type's natural count, threads=2; docs/loads.md)
check_exit 0 "accounting run" "$IRTC" run $short -i 2ms --load cpu:2 --json acct.json
check "cpu:2 is cpu:threads=2, recorded as given" \
	test "$(json_get acct.json "r['loads'][0]['spec'] + ' ' + r['loads'][0]['settings']['threads']")" = "cpu:2 2"
check "cpu:2 ran two load threads" \
	test "$(json_get acct.json "sum(1 for a in r['accounting'] if a['role'] == 'load cpu' and a['name'] == 'irt:cpu')")" = 2
check_out "CPU accounting over the measuring window" "accounting table printed"
check_out "^loads " "loads table printed"
check "every probe and load thread has a row" \
	test "$(json_get acct.json "sum(1 for a in r['accounting'] if a['role'] in ('probe', 'load cpu') and a['kind'] == 'thread')")" -ge 3
check "used + waited <= wall per thread" \
	test "$(json_get acct.json "all(a['used_ns'] + max(a['waited_ns'], 0) <= a['wall_ns'] for a in r['accounting'])")" = True
check "shares sum to at most the CPUs" \
	test "$(json_get acct.json "int(sum(a['run_pct'] for a in r['accounting']) <= 100.0001)")" = 1
check "context recorded" test "$(json_get acct.json "int('steal_pct' in r['context'])")" = 1
# a warm-up longer than the window: the probe's own row counted it, and every row's share was
# divided by warm-up + window (a load's 44 % of a CPU printed as 15 %)
check_exit 0 "accounting run with a long warm-up" "$IRTC" run -D 500ms --warmup 1s -q -i 2ms --load cpu:1 -f none --json acctw.json
check "the probe's accounting row covers the measuring window, not the warm-up" \
	test "$(json_get acctw.json "int(all(a['wall_ns'] < r['context']['wall_ns'] + 500000000 for a in r['accounting'] if a['role'] == 'probe'))")" = 1
check "cpu_pct is used / wall for every row" \
	test "$(json_get acctw.json "int(all(abs(a['cpu_pct'] - 100.0 * a['used_ns'] / a['wall_ns']) <= 0.05 * a['cpu_pct'] + 0.5 for a in r['accounting'] if a['wall_ns'] > 0))")" = 1
check "placement recorded" test "$(json_get acct.json "r['placement']['mode']")" = same

# ---- the window the accounting names is every row's, and a probe's warm-up is not in it ----
# (each row's wall was its own reads' span, the probe's from before its warm-up: with a 1 s
# warm-up it had a 1.3 s wall and its warm-up's sleeps and CPU under a 300 ms window)
check_exit 0 "accounting window" "$IRTC" run -D 300ms --warmup 1s -i 2ms --load cpu:1 -q --json win.json
check "no row's wall exceeds the window" \
	test "$(json_get win.json "all(a['wall_ns'] <= r['context']['wall_ns'] for a in r['accounting'])")" = True
check "probe, irt and load threads cover the whole window" \
	test "$(json_get win.json "all(a['wall_ns'] == r['context']['wall_ns'] for a in r['accounting'] if a['role'] in ('probe', 'irt') or a['name'] == 'irt:cpu')")" = True
check "every row's used + waited fit in the window" \
	test "$(json_get win.json "all(a['used_ns'] + max(a['waited_ns'], 0) <= r['context']['wall_ns'] for a in r['accounting'] if a['kind'] == 'thread')")" = True
# it sleeps once a wake-up at most: 150 recorded, 500 more in the warm-up
check "the probe's row leaves its warm-up out: no more sleeps than recorded wake-ups" \
	test "$(json_get win.json "[a['vol_switches'] <= r['threads'][0]['samples'] + 2 for a in r['accounting'] if a['role'] == 'probe']")" = "[True]"
check_out "^CPU accounting over the measuring window \([0-9.]+m?s\)$" "the accounting header names its window"

# ---- attribution ----
check_exit 0 "attribute" "$IRTC" run $short -i 2ms --load cpu:threads=2 --attribute -f none --json attr.json
check "attribution histograms have every sample" \
	test "$(json_get attr.json "int(r['threads'][0]['attr_runq']['count'] == r['threads'][0]['samples'] == r['threads'][0]['attr_other']['count'])")" = 1
check "runqueue wait never exceeds the lateness" \
	test "$(json_get attr.json "int(r['threads'][0]['attr_runq']['max'] <= r['threads'][0]['wake']['max'])")" = 1
check "backlog, runqueue wait and the rest add up to the lateness" \
	test "$(json_get attr.json "int(sum(r['threads'][0][k]['sum'] for k in ('attr_runq', 'attr_other', 'attr_backlog')) == r['threads'][0]['wake']['sum'])")" = 1
# a probe starved by its own work (--burn longer than the period) wakes late because its previous
# job still runs: that is backlog, not the timer or an IRQ (it was all in "the rest")
check_exit 0 "attribute, starved by its own work" "$IRTC" run -n 30 -i 2ms --burn 3ms -w 0 -q --attribute --json starved.json
check "starved: the lateness is backlog" \
	test "$(json_get starved.json "int(r['threads'][0]['attr_backlog']['sum'] > 0.9 * r['threads'][0]['wake']['sum'])")" = 1
check "starved: the rest is not the backlog" \
	test "$(json_get starved.json "int(r['threads'][0]['attr_other']['sum'] < 0.1 * r['threads'][0]['wake']['sum'])")" = 1
check_out "rest max +backlog p50 +backlog p99 +backlog max$" "starved: the text table has the backlog columns"

# ---- multibyte thread names keep the text tables' columns (summary, split, accounting) ----
check_exit 0 "multibyte names" "$IRTC" run -n 20 -i 2ms -q --attribute --name ünïcødé --name 表示 --name plain
check "the summary shows the names" grep -q '^表示 ' "$OUT"
check "split and accounting tables are shown" test "$(grep -c '^thread ' "$OUT")" -ge 4
check "multibyte names keep the columns" columns_line_up "$OUT"

# ---- warm-up is not recorded ----
check_exit 0 "warmup" "$IRTC" run -i 10ms -n 50 --warmup 200ms -q -f none --json warm.json
check "warm-up comes on top: exactly --count recorded" test "$(json_get warm.json "r['threads'][0]['samples']")" = 50
# measuring starts after the warm-up: start_ns is at least --warmup after the launch, and
# duration_ns does not count it (it did: 3 s for -D 1s --warmup 2s)
launched=$(date +%s%N)
check_exit 0 "warmup longer than the run" "$IRTC" run -D 200ms --warmup 1s -q -f none --json warm2.json
check "start_ns is after the warm-up" test "$(json_get warm2.json "int(r['start_ns'] - $launched >= 10**9)")" = 1
check "duration_ns is the measuring window, not the warm-up" \
	test "$(json_get warm2.json "int(r['duration_ns'] < 10**9)")" = 1

# ---- --stop-above: a crossing after the warm-up ends the run by its normal end (loads
# stopped and reaped, accounting taken), the result saved, exit 4; none: to the end, exit 0
check_exit 4 "--stop-above 1ns" "$IRTC" run -D 5s --warmup 200ms -i 2ms --load cpu:1 --stop-above 1ns -q --json stop.json
check "--stop-above: ended after the first wake-ups" test "$(json_get stop.json "r['threads'][0]['samples']")" -le 3
check "--stop-above: ended well before -D" test "$(json_get stop.json "int(r['duration_ns'] < 2500000000)")" = 1
check "--stop-above: not an interrupt" test "$(json_get stop.json "r['interrupted']")" = False
check "--stop-above: the JSON names the crossing" test "$(json_get stop.json "r['threads'][0]['stopped']['above_ns']")" = 1
check "--stop-above: the load was stopped as at a normal end" test "$(json_get stop.json "r['loads'][0]['end']")" = stopped
check "--stop-above: accounted" test "$(json_get stop.json "int(len(r['accounting']) > 0)")" = 1
check_out "^stopped: probe0's wake-up at \+[0-9.]+s was .* late \(--stop-above 1ns\)$" "--stop-above: the note"
check_exit 0 "--stop-above 10s" "$IRTC" run -n 20 -i 2ms --warmup 100ms --stop-above 10s -q --json nostop.json
check "--stop-above 10s: every wake-up measured, no field" test "$(json_get nostop.json \
	"(r['threads'][0]['samples'], 'stopped' in r['threads'][0])")" = "(20, False)"
check "--stop-above 10s: no note" sh -c "! grep -q '^stopped:' \"\$1\"" - "$OUT"
check_usage "--stop-above 0" "--stop-above: '0' is out of range" "$IRTC" run --stop-above 0

# ---- the accounting table is as wide as its longest name and role (they were cut:
# "irt-load (childr", "load compi")
# (the "(children)" row needs a compiler that ended within the window: on a busy machine none
# may have, so the longest name is whichever rows there are, and the table must line up)
check_exit 0 "compile load" "$IRTC" run -D 300ms --warmup 0 --load compile -q
check_out "^irt(-load|:job) .* +load compile +[0-9]" "accounting: the role is uncut"
check "accounting: no name cut" sh -c "! grep -E '^irt(-load|:job) \(' '$OUT' | grep -Evq '^irt(-load \(children\)|:job \(exited\)) '"
check "accounting: names and roles line up" columns_line_up "$OUT"

# ---- placement ----
check_exit 0 "session placement" "$IRTC" run $short --placement session --load cpu:threads=1 -f none --json sess.json
check "loads in another autogroup" \
	test "$(json_get sess.json "int(r['placement']['load_autogroup'] != r['placement']['probe_autogroup'])")" = 1
# (--placement split creates cgroups: tests/cli/test_split.sh)

# ---- job files: the examples, shortened ----
for f in "$IRT_TOP"/examples/*.ini; do
	check_exit 0 "example $(basename "$f")" "$IRTC" run "$f" -D 1s --count 0 --warmup 100ms -q -f none --json ex.json
	check "example $(basename "$f"): a load ran" test "$(json_get ex.json "len(r['loads'])")" -ge 1
done
printf '[global]\nperiod = 5ms\n[probe a]\n[probe b]\nperiod = 2ms\n[load hog]\nload = cpu:threads=1\n' >job.ini
check_exit 0 "job file" "$IRTC" run job.ini -D 500ms --warmup 0 -q -f none --json job.json
check "job file probes" test "$(json_get job.json "','.join(t['name']+'='+t['settings']['period'] for t in r['threads'])")" = "a=5ms,b=2ms"
check "job file load name" test "$(json_get job.json "r['loads'][0]['name']")" = hog
check "job file recorded" test "$(json_get job.json "r['settings']['job']")" = job.ini

# the trial's trap: -D after the last --name is bg's alone (ui's -n 20 keeps it short here):
# irt run says so before it measures, names each probe's time, records each one's duration
check_exit 0 "-D after the last --name" "$IRTC" run --name ui -i 10ms -n 20 --name bg -i 50ms -D 100ms --load cpu:threads=1 \
	--warmup 0 -q --json d19.json
check "a note names each probe's time" test "$(grep -c "^irt: note: the probes measure for different times: ui 200ms, bg 100ms " "$ERR")" = 1
check_out "^probes measured for different times .*: ui 200ms \(20 wake-ups\), bg 100ms \(2 wake-ups\)$" "the summary too"
check "each probe's own duration and count recorded" test "$(json_get d19.json \
	"' '.join('%s=%s/%s' % (t['name'], t['settings']['duration'], t['settings']['count']) for t in r['threads'])")" = "ui=0ns/20 bg=100ms/0"

check_exit 0 "the command line beats the job's sections" "$IRTC" run job.ini -i 3ms -D 300ms --warmup 0 -q -f none --json job2.json
check "CLI option applied to every job probe" test "$(json_get job2.json "','.join(t['settings']['period'] for t in r['threads'])")" = "3ms,3ms"
printf '[global]\nperiod = 5xs\n' >bad1.ini
check_usage "job: bad value" "bad1.ini:2: '5xs' is not valid" "$IRTC" run bad1.ini
printf '[global]\n\n[loud x]\n' >bad2.ini
check_usage "job: bad section" "bad2.ini:3: unknown section \[loud x\]" "$IRTC" run bad2.ini
printf '[load x]\nload = cpu:threads=0\n' >bad3.ini
check_usage "job: bad load" "bad3.ini:2: load 'cpu:threads=0'" "$IRTC" run bad3.ini
check_usage "bad --load" "--load: load 'disk'" "$IRTC" run --load disk
check_usage "missing job file" "nope.ini: cannot read the job file" "$IRTC" run nope.ini
check_usage "two job files" "unexpected argument 'b.ini'" "$IRTC" run a.ini b.ini
check "no result written on bad input" test ! -e bad.json

# ---- SIGINT: results saved, exit 3, loads gone ----
interrupt_after 1.5 "$IRTC" run -D 30s --warmup 100ms --load cpu:threads=2 --json int.json
check "SIGINT: exit 3" test $RC = 3
check "SIGINT: says so on stderr" grep -Eq '^irt: interrupted after [0-9.]+[mun]?s of 30.0s: the results so far are printed and saved$' int.err
check "SIGINT: result saved" test "$(json_get int.json "r['interrupted']")" = True
check "SIGINT: load throughput kept" test "$(json_get int.json "int(r['loads'][0]['ops'] > 0)")" = 1
check "SIGINT: no process left" test -z "$(procs_of "$IRTC")"

# ---- SIGKILL: loads never outlive irt ----
"$IRTC" run -D 30s --load cpu:threads=2 --load pipe:groups=1 --load "cmd:cmd=sleep 20" -q -f none &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
left=""
for _ in 1 2 3 4 5 6 7 8 9 10; do left=$(procs_of "$IRTC"); [ -z "$left" ] && break; sleep 0.2; done
check "SIGKILL: every load gone within 2 s" test -z "$left"
check "SIGKILL: the cmd load's sleep is gone" test -z "$(pgrep -f 'sleep 20' -P 1 2>/dev/null | head -1)"
finish
