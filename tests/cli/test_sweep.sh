# irt sweep: plan, shuffled order, results per cell and repetition, knobs restored, resume.
. "$IRT_TOP/tests/cli/lib.sh"

json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
short="-D 300ms --warmup 50ms -i 2ms -q"

# ---- an option sweep ----
check_exit 0 "option sweep" "$IRT" sweep --sweep slice=0,1ms --sweep nice=0,5 --repeat 2 $short --dir s1 --seed 3
check "plan written" test "$(json_get s1/plan.json "r['schema']")" = irt-sweep-plan/1
check "4 cells x 2 repetitions" test "$(ls s1/c*/r*.json | wc -l)" = 8
check "result names its cell" test "$(json_get s1/c3/r1.json "r['settings']['cell']")" = c3
check "result names its repetition" test "$(json_get s1/c3/r1.json "r['settings']['repetition']")" = 1
check "the cell's values are applied" test "$(json_get s1/c3/r1.json "r['threads'][0]['settings']['slice'] + ' ' + r['threads'][0]['settings']['nice']")" = "1ms 5"
check "and recorded" test "$(json_get s1/c3/r1.json "r['settings']['slice']")" = 1ms
check "summary written" test "$(json_get s1/sweep.json "r['schema']")" = irt-sweep/1
check "summary has every cell" test "$(json_get s1/sweep.json "len(r['cells'])")" = 4
check "comparison written" test "$(json_get s1/compare.json "r['schema']")" = irt-compare/1
check_out "recommendation" "verdicts printed"
# compare names a cell as the sweep does (its label, sweep.json's settings), not by its cN and
# the probe thread's copy of each option
check_out "^  D  slice=1ms nice=5  \(2 runs: s1/c3/r0.json s1/c3/r1.json\)$" "cells named by the swept settings"
if grep -Eq "cell=c|probe0\." "$OUT"; then fail "cells named by cN or the thread's settings: $(grep -m1 '^  B ' "$OUT")"; else pass; fi
check "rounds interleave cells: each round holds every cell once" \
	test "$(json_get s1/plan.json "all(sorted(c for c, k in r['order'][i*4:i*4+4]) == [0,1,2,3] for i in range(2))")" = True
check_exit 0 "the report reads the sweep" "$IRT" report s1 -o s1.html
check "report written" test -s s1.html

# ---- irt compare DIR: the sweep's comparison (its compare.json), from its directory ----
check_exit 0 "compare the sweep's directory" "$IRT" compare s1 --seed 3 -f none --json s1-cmp.json
check "the same comparison as the sweep's compare.json" python3 -c '
import json; assert json.load(open("s1/compare.json")) == json.load(open("s1-cmp.json"))'
check_exit 0 "its table" "$IRT" compare s1 --resamples 200
check_out "^8 results, 4 cells, baseline A$" "every run of every cell"
check_out "^  D  slice=1ms nice=5  \(2 runs: s1/c3/r0.json s1/c3/r1.json\)$" "cells as the sweep names them"
check_exit 0 "--baseline by the sweep's cN" "$IRT" compare s1 --resamples 200 --baseline c2 -f none --csv s1-b.csv
check "the baseline is c2 (C)" grep -q '^probe0,,wake-p50,C,2,.*,baseline,' s1-b.csv
check_exit 0 "--expect names cells c0, c1 ..." "$IRT" compare s1 --resamples 200 -f none --expect 'c1:wake.p50.ratio>=0'
check_exit 4 "an unmet one exits 4" "$IRT" compare s1 --resamples 200 -f none --expect 'c3:wake.p50<1ns'
check_err "^irt: expect: 'c3:wake.p50<1ns' unmet: c3 wake.p50 = " "named by its cN"
mkdir nosweep && echo notes >nosweep/notes.txt   # result files in it are compared as given (test_fleet.sh)
check_usage "a directory that is no sweep's" "^irt: nosweep: not a sweep directory \(no sweep.json in it; expected result files, a sweep's directory or a fleet's directory of machines\)$" \
	"$IRT" compare nosweep
ln -s s1 s1link
check_usage "a link to a sweep directory is not followed" "^irt: irt compare s1link: s1link is a symbolic link \(irt does not follow links here\)$" "$IRT" compare s1link
# compare DIR reads a sweep directory as report DIR does (docs/hardening.md): any owner, but no
# link followed inside it and only regular files
cp -r s1 s1f && rm s1f/c2/r1.json && ln -s ../c0/r0.json s1f/c2/r1.json
check_usage "nor a link in it" "^irt: s1f/sweep.json: \\\$.cells\[2\].repetitions\[1\]: s1f/c2/r1.json is a symbolic link" "$IRT" compare s1f
cp -r s1 s1d && mv s1d/c0 s1d/c0real && ln -s c0real s1d/c0
check_usage "nor a cell's directory that is a link" "^irt: s1d/sweep.json: .*: s1d/c0 is a symbolic link \(irt never follows a link" \
	"$IRT" compare s1d
cp -r s1 s1s && mv s1s/sweep.json s1s/sweep.keep && ln -s sweep.keep s1s/sweep.json
check_usage "nor a sweep.json that is a link" "^irt: s1s/sweep.json is a symbolic link" "$IRT" compare s1s
cp -r s1 s1p && rm s1p/c1/r0.json && mkfifo s1p/c1/r0.json
check_usage "a FIFO for a run is refused, not waited on" "^irt: s1p/sweep.json: .*s1p/c1/r0.json: not a regular file" \
	timeout 20 "$IRT" compare s1p
if is_root; then   # reading is safe (result files are parsed strictly): root compares anyone's sweep
	cp -r s1 s1o && chown -R 65534:65534 s1o && chmod 0777 s1o
	check_exit 0 "a sweep directory another user owns, writable by others" "$IRT" compare s1o --resamples 200
	check_out "^8 results, 4 cells, baseline A$" "all its runs are read"
else
	skip "compare DIR: another user's sweep directory (needs root to make one)"
fi

# ---- shuffle determinism by seed ----
check_exit 0 "same seed" "$IRT" sweep --sweep slice=0,1ms,2ms --repeat 3 -n 2 -i 1ms --warmup 0 -q -f none --dir s2 --seed 3
check_exit 0 "same seed again" "$IRT" sweep --sweep slice=0,1ms,2ms --repeat 3 -n 2 -i 1ms --warmup 0 -q -f none --dir s3 --seed 3
check_exit 0 "other seed" "$IRT" sweep --sweep slice=0,1ms,2ms --repeat 3 -n 2 -i 1ms --warmup 0 -q -f none --dir s4 --seed 4
check "same seed, same order" test "$(json_get s2/plan.json "r['order']")" = "$(json_get s3/plan.json "r['order']")"
check "other seed, other order" test "$(json_get s2/plan.json "r['order']")" != "$(json_get s4/plan.json "r['order']")"
check "seed recorded" test "$(json_get s4/plan.json "r['seed']")" = 4

# ---- a -D after a --name is that probe's own: the sweep says so once, not once per cell ----
check_exit 0 "a sweep of probes with durations of their own" "$IRT" sweep --sweep nice=0,1 --repeat 2 --warmup 0 -q -f none \
	--dir sdur --name a -i 10ms -D 100ms --name b -i 10ms -D 50ms
check "one note before it measures" test "$(grep -c "^irt: note: the probes measure for different times: a 100ms, b 50.0ms " "$ERR")" = 1

# ---- a job file with a [sweep] section ----
printf '[global]\nperiod = 2ms\nduration = 200ms\nwarmup = 0\n[probe p]\n[load hog]\nload = cpu:threads=1\n[sweep]\nrepeat = 1\nnice = 0,10\nload = none|cpu:threads=1,nice=5\n' >sweep.ini
check_exit 0 "job file sweep" "$IRT" sweep sweep.ini -q -f none --dir s5
check "2 x 2 cells from the job" test "$(ls s5/c*/r0.json | wc -l)" = 4
check "the load dimension adds a load" test "$(json_get s5/c1/r0.json "len(r['loads'])")" = 2
check "'none' adds nothing" test "$(json_get s5/c0/r0.json "len(r['loads'])")" = 1
check "job repeat used" test "$(json_get s5/plan.json "r['repeat']")" = 1
check "the summary names each cell's loads" test "$(json_get s5/sweep.json "[c['load'] for c in r['cells']]")" = \
	"['cpu:threads=1', 'cpu:threads=1 + cpu:threads=1,nice=5', 'cpu:threads=1', 'cpu:threads=1 + cpu:threads=1,nice=5']"
check "a swept load is the load column, not a knob" test "$(json_get s5/sweep.json "r['knobs']")" = "['nice']"
check_exit 0 "the report of a load sweep" "$IRT" report s5 -f text
check "one load column" test "$(grep '^cell ' "$OUT" | grep -o ' load ' | wc -l)" = 1

# ---- --until-decided: rounds until every cell has a verdict (docs/statistics.md) ----
ud="-D 300ms --warmup 0 -i 5ms -q --metric resp-p50 --repeat 3 --until-decided --max-repeat 5"
check_exit 0 "until decided" "$IRT" sweep --sweep burn=0,2ms $ud --dir u1 --seed 5
check_out "stopped: every cell has a verdict against the baseline" "it says why it stopped"
check_out "c1 burn=2ms: worse at [345] runs per cell" "the clear difference is decided"
check "the stop is in the summary" test "$(json_get u1/sweep.json "r['until_decided']['stopped']")" = "every cell has a verdict against the baseline"
check "the summary's verdict is the decision" test "$(json_get u1/sweep.json "[c['verdict'] for c in r['cells'] if c['id'] == 'c1'][0]")" = worse
check "no rounds beyond the decision" test ! -e u1/c1/r5.json
check_exit 0 "compare DIR ranks by the sweep's --metric" "$IRT" compare u1 --resamples 200
check_out "^recommendation: lowest response p50 " "resp-p50, as sweep.json says"
n_before=$(ls u1/c*/r*.json | wc -l)
check_exit 0 "until decided, resumed when done" "$IRT" sweep --resume u1
check_out "stopped: every cell has a verdict" "the resume re-derives the decisions from the files"
check "and runs nothing" test "$(ls u1/c*/r*.json | wc -l)" = "$n_before"
# a plan.json of an older irt, which took --json, --csv, --hist-buckets and every --format in a
# sweep and did nothing with them: resumed without them, saying so (they are refused now)
python3 -c 'import json, sys
p = json.load(open("u1/plan.json"))
p["argv"][1:1] = ["--json", "old.json", "--format=html", "--csv", "old.csv", "--hist-buckets", "5"]
json.dump(p, open("u1/plan.json", "w"))'
check_exit 0 "an older plan with options refused now resumes" "$IRT" sweep --resume u1
check_err "^irt sweep: --resume u1: left out --json, --format, --csv, --hist-buckets of its plan.json \(an older irt sweep took them" \
	"and says which it left out"
check_out "stopped: every cell has a verdict" "the table, not the html the plan named (the older irt printed it too)"
check "it wrote none of them" test ! -e old.json -a ! -e old.csv
check "and ran nothing" test "$(ls u1/c*/r*.json | wc -l)" = "$n_before"
check_exit 0 "until decided, budget spent" "$IRT" sweep --sweep nice=0,1 $ud --budget 1ns --dir u2
check_out "stopped: (the budget \(1ns\) is spent|every cell has a verdict)" "a spent budget stops it"
check "no round added after the budget" test ! -e u2/c0/r3.json

# ---- bad input ----
check_usage "nothing to vary" "nothing to vary" "$IRT" sweep -n 1
check_usage "unknown key" "'bogus' is neither a knob" "$IRT" sweep --sweep bogus=1,2
check_usage "bad value" "--sweep: slice: '3parsecs' is not valid" "$IRT" sweep --sweep slice=1ms,3parsecs
check_usage "bad knob value" "kernel.sched_rr_timeslice_ms" "$IRT" sweep --sweep kernel.sched_rr_timeslice_ms=-3
check_usage "not KEY=VALUES" "is not KEY=V1,V2" "$IRT" sweep --sweep slice
check_usage "dir exists" "--dir s1: exists already" "$IRT" sweep --sweep slice=0,1ms --dir s1
check_usage "a cell that cannot run" "cell policy=fifo: .*--nice" "$IRT" sweep --sweep policy=other,fifo --nice 5 --dir s6
check "no directory for bad input" test ! -e s6
# what a sweep cannot give is refused as it parses (its command_info in main.c), as every command
# refuses an option it does not take; irt help sweep leaves them out (test_help.sh)
for o in "--json s6.json" "--csv s6.csv" "--hist-buckets 5" "--svg s6svg" "--hold 1s"; do
	check_usage "${o%% *} is refused, not ignored" "^irt: ${o%% *}: not an option of 'irt sweep' \(see irt help sweep\)$" \
		"$IRT" sweep --sweep nice=0,5 --dir s6 $o
done
check_usage "--json=FILE too" "^irt: --json=s6.json: not an option of 'irt sweep'" "$IRT" sweep --sweep nice=0,5 --dir s6 --json=s6.json
check_usage "a format the sweep does not print" "^irt: -f: irt sweep writes no 'html' \(it accepts table, none\)$" \
	"$IRT" sweep --sweep nice=0,5 --dir s6 -f html
# ...and so is a job file's key for them, at its line
printf '[global]\nformat = text\n[sweep]\nnice = 0,5\n' >s6f.ini
check_usage "a job file's format" "^irt: s6f.ini:2: format: irt sweep writes no 'text' \(it accepts table, none\)$" \
	"$IRT" sweep s6f.ini --dir s6
printf '[global]\njson = s6.json\n[sweep]\nnice = 0,5\n' >s6j.ini
check_usage "a job file's json" "^irt: s6j.ini:2: json: not an option of 'irt sweep' \(see irt help sweep\)$" \
	"$IRT" sweep s6j.ini --dir s6
# checked where the job file adds the key: the first bad line is the one named
printf '[global]\njson = s6.json\nduration = bogus\n[sweep]\nnice = 0,5\n' >s6k.ini
check_usage "a job file's json before a later bad value" "^irt: s6k.ini:2: json: not an option of 'irt sweep'" \
	"$IRT" sweep s6k.ini --dir s6
printf '[sweep]\nnice = 0,5\nsvg = s6svg\n' >s6s.ini
check_usage "a [sweep] section's svg" "^irt: s6s.ini:3: svg: not an option of 'irt sweep' \(see irt help sweep\)$" \
	"$IRT" sweep s6s.ini --dir s6
# --baseline: a cell of the plan, checked before anything runs (compare checked it after every run)
tiny="--repeat 1 -D 100ms --warmup 0 -q -f none"
check_usage "a baseline that is no cell" "--baseline: 'Z' is not a cell of this sweep" "$IRT" sweep --sweep nice=0,5 --baseline Z $tiny --dir sbz
check "refused before the directory is made" test ! -e sbz
printf '[sweep]\nnice = 0,5\nbaseline = c2\n' >sbz.ini
check_usage "a job file's baseline too" "--baseline: 'c2' is not a cell" "$IRT" sweep sbz.ini $tiny --dir sbz
check "and nothing made" test ! -e sbz
for b in B c1 nice=5 "cell=c1 nice=5 probe0.nice=5"; do
	rm -rf sbb
	check_exit 0 "baseline '$b'" "$IRT" sweep --sweep nice=0,5 --baseline "$b" $tiny --dir sbb
	check "baseline '$b' is cell c1" test "$(json_get sbb/sweep.json "r['baseline']")" = c1
done
check "nothing made for them" test ! -e s6 -a ! -e s6.json -a ! -e s6.csv -a ! -e s6svg
check_exit 0 "compare DIR takes the sweep's baseline" "$IRT" compare sbb --resamples 200
check_out "^2 results, 2 cells, baseline B$" "c1, as sweep.json says"
"$IRT" sweep --sweep nice=0,5 --repeat 1 -D 100ms --warmup 0 -q -f none --dir s6n >s6n.out 2>/dev/null
check "--format none prints nothing" test ! -s s6n.out

# ---- resume: an interrupted sweep continues without redoing finished runs ----
"$IRT" sweep --sweep slice=0,1ms --repeat 3 -D 400ms --warmup 0 -i 2ms -q -f none --dir s7 >/dev/null 2>s7.err &
pid=$!
for _ in $(seq 1 100); do [ "$(ls s7/c*/r*.json 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
check "interrupted sweep exits 3" test $? = 3
check "it says how to resume, by the real path (--resume refuses '..')" grep -q "irt sweep --resume $(pwd -P)/s7\$" s7.err
before=$(ls s7/c*/r*.json | wc -l)
first=$(ls s7/c*/r*.json | head -1)
stamp=$(stat -c %Y.%y "$first")
check "some runs were kept" test "$before" -ge 2 -a "$before" -lt 6
check_exit 2 "resume refuses --sweep (plan.json fixes the plan)" "$IRT" sweep --resume s7 --sweep slice=0,5ms
check_err "cannot change it" "and says why"
check_exit 2 "resume refuses a probe option" "$IRT" sweep --resume=s7 -D 1s
check_usage "resume refuses --json as a sweep does" "^irt: --json: not an option of 'irt sweep'" "$IRT" sweep --resume s7 --json s7.json
check_usage "and a format it does not print" "^irt: --format: irt sweep writes no 'html'" "$IRT" sweep --resume s7 --format html
check "the refusals ran nothing" test "$(ls s7/c*/r*.json | wc -l)" = "$before"
check_exit 0 "resume, with output options" "$IRT" sweep --resume s7 -q -f none
check "resume completes every run" test "$(ls s7/c*/r*.json | wc -l)" = 6
check "finished runs were not redone" test "$(stat -c %Y.%y "$first")" = "$stamp"
check_err "resuming" "resume says so"
# a resumed run records the sweep's command line and the resume's, not the two run together
check "a first start's run records its command line" sh -c "python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['cmdline'])\" '$first' | grep -Eq -- '--dir s7  # cell c[01], repetition [0-2]\$'"
last=$(ls -t s7/c*/r*.json | head -1)
check "a resumed run records the resume beside it" sh -c "python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['cmdline'])\" '$last' | grep -Eq -- '--dir s7  # resumed: sweep --resume s7 -q -f none  # cell c[01], repetition [0-2]\$'"
# a job file's sweep resumes what its first start read (plan.json keeps the text), whatever the
# file became and wherever the resume runs from
mkdir jobs
printf '[global]\nduration = 400ms\nwarmup = 0\nperiod = 2ms\n[sweep]\nslice = 0,1ms\nrepeat = 3\n' >jobs/swr2.ini
(cd jobs && exec "$IRT" sweep swr2.ini -q -f none --dir ../sjobR2 >/dev/null 2>../sjobR2.err) &
pid=$!
for _ in $(seq 1 100); do [ "$(ls sjobR2/c*/r*.json 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
check "job file sweep interrupted" test $? = 3
check "plan.json keeps the job file" grep -q '"job": "\[global\]' sjobR2/plan.json
printf '[global]\nduration = 400ms\nwarmup = 0\nperiod = 2ms\n[sweep]\nslice = 0,3ms\nrepeat = 3\n' >jobs/swr2.ini
sj=$(pwd -P)/sjobR2
check_exit 0 "resumed from elsewhere, the job file edited" sh -c "cd / && exec \"\$0\" sweep --resume $sj -q -f none" "$IRT"
check "every run done" test "$(ls sjobR2/c*/r*.json | wc -l)" = 6
check "as first started (slice 1ms, not the edit's 3ms)" test "$(python3 -c "import glob,json
print(sorted({json.load(open(f))['settings']['slice'] for f in glob.glob('sjobR2/c1/r*.json')}))")" = "['1ms']"

# ---- knobs (root): applied per run, restored after, and after a crash ----
if is_root && [ -w /proc/sys/kernel/sched_rr_timeslice_ms ]; then
	orig=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)
	check_exit 0 "system knob sweep" "$IRT" sweep --sweep kernel.sched_rr_timeslice_ms=8,12 --policy rr --repeat 1 $short -f none --dir k1
	check "knob value recorded" test "$(json_get k1/c1/r0.json "r['settings']['knob.kernel.sched_rr_timeslice_ms']")" = 12ms
	check "system knob restored" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$orig"
	if [ -d /sys/fs/cgroup/cpu ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		before=$(irt_cgroups)
		check_exit 0 "cgroup knob sweep" "$IRT" sweep --sweep cgroup.quota=5ms,max --sweep cgroup.period=10ms --repeat 1 $short --load cpu:threads=1 -f none --dir k2
		check "quota limits the probes" test "$(json_get k2/c0/r0.json "r['settings']['knob.cgroup.quota']")" != ""
		check "no irt cgroup left" no_new_cgroups "$before"
	else
		skip "cgroup knob sweep: no cgroup cpu controller"
	fi
	# SIGKILL in the middle: the next irt command restores everything
	before=$(irt_cgroups)
	"$IRT" sweep --sweep kernel.sched_rr_timeslice_ms=16 --sweep cgroup.quota=50ms --policy rr -D 20s --warmup 0 --repeat 1 -q -f none --dir k3 &
	pid=$!
	for _ in $(seq 1 50); do [ "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = 16 ] && break; sleep 0.1; done
	changed=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "the sweep had changed the knob" test "$changed" = 16
	run "$IRT" version
	check "next command restores after the crash" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$orig"
	check_err "restored .* left changed by a crashed irt" "it says so"
	sleep 0.5
	check "the crashed sweep's cgroup is gone" no_new_cgroups "$before"
else
	skip "knob sweeps: need root and a writable kernel.sched_rr_timeslice_ms"
fi
finish
