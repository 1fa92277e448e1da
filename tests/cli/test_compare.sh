# irt compare: cells, verdicts, baseline choice, JSON/CSV output, bad input. Synthetic results
# (tests/cli/synth_result.py, deterministic) carry known differences; two short real probe runs
# check that what irt probe writes compares.
# Runs beside other tests: synthetic results and two short probes, in its directory.
. "$IRT_TOP/tests/cli/lib.sh"

synth() { python3 "$IRT_TOP/tests/cli/synth_result.py" "$@"; }
# row METRIC CELL: the stdout line of that metric's row for that cell (the metric name is only on
# the first row of a metric, so the row of cell B is the line after it)
row() { awk -v m="$1" -v c="$2" '$0 ~ "^  "m" " {on=1} on && $0 ~ "^ *("m")? +"c" " {print; exit}' "$OUT"; }
check_row() {   # check_row METRIC CELL REGEX NAME
	line=$(row "$1" "$2")
	if printf '%s\n' "$line" | grep -Eq -- "$3"; then pass; else fail "$4: row '$1' '$2' is '$line'"; fi
}

for i in 1 2 3 4 5; do
	synth base$i.json --slice 0ns --mean 100000 --seed $i
	synth fast$i.json --slice 1ms --mean 50000 --seed $((10 + i))
	synth same$i.json --slice 2ms --mean 100000 --seed $((20 + i))
done

# ---- repetitions: a clear improvement, an identical cell, withheld verdicts ----
check_exit 0 "compare three cells" "$IRT" compare --resamples 500 base*.json fast*.json same*.json
check_out "^15 results, 3 cells, baseline A" "header"
check_out "^  B  probe0.slice=1ms  \(5 runs: fast1.json" "cells named by what differs"
check_row "wake-up p50" B "0\.[0-9]+ +\[0\.[0-9]+, 0\.[0-9]+\] +better \(p<0\.0001\)" "halved latency is better"
check_row "response p99" B "better" "response p99 better"
check_row "deadline met" B "better \(misses x0\.[0-9]+" "fewer misses are better"
check_row "wake-up p99.9" B "better" "p99.9 from 5 runs of 2000 samples: 10 beyond it per cell"
check_row "wake-up p50" C "no significant difference|too noisy" "identical law: no verdict of a difference"
if grep -E "^ *(wake|resp|dead).* C .*(better|worse)" "$OUT" >/dev/null; then
	fail "identical distributions got a better/worse verdict"; else pass; fi
check_out "^  B \(probe0.slice=1ms\): 0\.[0-9]+x the baseline \[.*\], better" "recommends the faster cell"

check_exit 0 "three runs a side are too few" "$IRT" compare --resamples 200 base1.json base2.json fast1.json fast2.json
check_row "wake-up p50" B "too few samples \(2 vs 2 runs, needs >= 3 each; ~1 more run per cell would probably decide\)" "two runs withheld, one more would decide"
check_exit 0 "three runs a side" "$IRT" compare --resamples 200 base1.json base2.json base3.json fast1.json fast2.json fast3.json
check_row "wake-up p50" B "better \(p[<=]" "3 against 3 runs decide a clear difference (two-level bootstrap, Welch test)"
check_row "wake-up p99.9" B "too few samples \(p99\.9 needs >= 10 samples beyond it per cell, has 6\.0; ~2 more runs per cell would probably decide\)" "p99.9 withheld, with the runs it needs"
check_row "wake-up max" B "too few samples \(3 vs 3 runs cannot reach p <= 0\.05; ~1 more run per cell" "a maximum still goes by the rank test"

# ---- --margin: "equivalent" when the difference is shown to lie within it (TOST) ----
check_exit 0 "margin" "$IRT" compare --resamples 300 --margin 10% base*.json same*.json
check_row "wake-up p50" B "equivalent \(within ±10 %\)" "the same law is equivalent within 10 %"
check_row "wake-up max" B "no significant difference \(p=[0-9.]+; (~[0-9]+ more runs per cell would probably decide|no run count would probably decide: the runs so far are too unsure of the difference)\)" "undecided rows say how many more runs, or that the runs so far cannot promise any"
check_exit 0 "margin, real difference" "$IRT" compare --resamples 300 --margin 10% base*.json fast*.json
check_row "wake-up p50" B "better" "a halved latency is never equivalent"

# ---- the scenario of docs/statistics.md (issue 15): 3 against 3 simulated runs ----
W="$IRT_TOP/examples/sim/ui_hog_io.ini"
cp "$W" same_law.ini   # the same workload under another name: a second cell of the same law
for s in 1 2 3 4 5 6; do
	"$IRT" sim "$W" --sim-seed $s -f none -o ui_d$s.json
	"$IRT" sim same_law.ini --sim-seed $((s + 6)) -f none -o ui_a$s.json
	"$IRT" sim "$W" --sim-seed $((s + 6)) --sim-slice 12ms -f none -o ui_s$s.json
	"$IRT" sim same_law.ini --sim-seed $((s + 12)) --sim-slice 12ms -f none -o ui_t$s.json
done
verdicts() { python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print(" ".join(x["thread"] + ":" + x["metric"] + "=" + x["verdict"].replace(" ", "_") for x in r["rows"] if x["cell"] != r["baseline"]))' "$1"; }
check_exit 0 "default slice (seeds 1-3) against 12 ms (seeds 7-9)" "$IRT" compare ui_d1.json ui_d2.json ui_d3.json ui_s1.json ui_s2.json ui_s3.json -o ui.json
case " $(verdicts ui.json) " in   # the UI's wake-up p99 is worse with 3 runs per cell
*" ui:wake-p99=worse "*) pass ;;
*) fail "ui wake-p99 not worse: $(verdicts ui.json)" ;;
esac
for pair in "ui_d1 ui_d2 ui_d3 ui_a1 ui_a2 ui_a3" "ui_d4 ui_d5 ui_d6 ui_a4 ui_a5 ui_a6" "ui_s1 ui_s2 ui_s3 ui_t1 ui_t2 ui_t3" "ui_s4 ui_s5 ui_s6 ui_t4 ui_t5 ui_t6"; do
	set -- $pair
	"$IRT" compare $1.json $2.json $3.json $4.json $5.json $6.json -f none -o aa.json
	case " $(verdicts aa.json) " in
	*=better*|*=worse*) fail "A/A $pair: $(verdicts aa.json)" ;;
	*) pass ;;
	esac
done

# ---- cells of a simulated sweep: named by the settings that tell them apart ----
# (not by every differing entry: the sim's own cell label 'sweep-cell=...', and the timer's
# quota, period and deadline, which follow from the super period)
"$IRT" sim "$IRT_TOP/examples/sim/vm_boot.ini" --duration 1s -f none -o vm.json
check_exit 0 "compare a simulated sweep's cells" "$IRT" compare --resamples 200 vm-cell*.json
check_out "^  A  super-period=1s fill=10ms vm.quota=40%  \(1 run: vm-cell000.json\)$" "a cell named by its swept settings, as the file wrote them"
check_out "^  E  super-period=100ms fill=10ms vm.quota=40%  \(1 run: vm-cell004.json\)$" "the quota as written (40%), not resolved (40ms)"
check_out "^  H  super-period=100ms fill=1ms vm.quota=0  \(1 run: vm-cell007.json\)$" "the last cell too"
if grep -Eq "sweep-cell=|timer\." "$OUT"; then fail "sim cells named by their label or derived settings: $(grep -m1 '^  A ' "$OUT")"; else pass; fi
check_exit 0 "two cells of it" "$IRT" compare --resamples 200 vm-cell000.json vm-cell001.json
check_out "^  B  vm.quota=0  \(1 run: vm-cell001.json\)$" "only what differs between the compared files"
# a cpu-bound thread has no wake-ups: one line says so (its table was a header without rows)
check_out "^be1: no wake-up samples in any result" "a thread without samples said in one line"
if grep -A1 '^be1$' "$OUT" | grep -q '^  metric '; then fail "be1: a table header without rows"; else pass; fi
# a deterministic simulation's figures are exact: verdicts by the values, no statistical advice
# (every row was "too few samples (one run each ...)" with "repeat runs", which gives the same numbers)
check_exit 0 "compare deterministic simulated cells" "$IRT" compare --resamples 200 vm-cell*.json
check_row "wake-up p99" C "^ +C +1 +3\.30ms +0\.109 +better \(deterministic simulation: exact values, the model's difference\)$" "an exact difference decides, without a CI"
check_row "wake-up p99" B "no significant difference \(deterministic simulation: equal within the histogram's 0\.2 %\)" "one value in neighbouring buckets is equal"
check_row "wake-up p50" C "no significant difference \(deterministic simulation: equal, exact values\)" "equal values"
check_out "^simulation: deterministic \(the workload draws no random numbers\)" "the note says the figures are exact"
check_out "^  [C-H] \(.*\): 0\.137x the baseline, better$" "recommended by the exact values"
# compare.json marks the rows compared by exact values; a random simulation's rows are not exact
check_exit 0 "json of deterministic simulated cells" "$IRT" compare --resamples 200 -f none --json vmx.json --csv vmx.csv vm-cell*.json
check "every row of deterministic cells is exact in json and csv" /usr/bin/python3 -c '
import csv, json, sys; r = json.load(open("vmx.json"))["rows"]; c = list(csv.DictReader(open("vmx.csv")))
sys.exit(0 if r and all(x["exact"] is True for x in r) and all(x["exact"] == "true" for x in c) else 1)'
if grep -Eq "too few samples|repeat runs|single runs:|more runs? per cell" "$OUT"; then
	fail "a deterministic simulation given statistical advice: $(grep -m1 -E 'too few|repeat|single runs|more run' "$OUT")"; else pass; fi
# a workload with random draws (jitter, exec-dist, block-max): one seed a cell decides nothing, and
# what helps is other seeds, not repeated runs
check_exit 0 "compare single seeds of a random simulation" "$IRT" compare --resamples 200 ui_d1.json ui_s1.json
check_row "wake-up p99" B "too few samples \(one seed each; within-run: " "one seed each, withheld"
check_row "wake-up max" B "too few samples \(one maximum per run: repeat with other --sim-seed values\)" "repeat over seeds"
check_out "repeat each cell with other --sim-seed values\.$" "the note says to repeat over --sim-seed"
if grep -Eq "deterministic|repeat runs" "$OUT"; then fail "a random simulation called deterministic or told to repeat runs"; else pass; fi
check_exit 0 "json of a random simulation" "$IRT" compare --resamples 200 -f none --json uix.json ui_d1.json ui_s1.json
check "no row of a random simulation is exact" /usr/bin/python3 -c '
import json, sys; r = json.load(open("uix.json"))["rows"]; sys.exit(0 if r and all(x["exact"] is False for x in r) else 1)'
# a load told apart before options that differ with it: a watch alone and one beside a load
# (and another --warmup) were named 'warmup=0ns' / 'warmup=1s', the load unmentioned
synth alone.json --setting warmup=0ns
synth beside.json --setting warmup=1s --load cpu:1000:cpu:threads=2
check_exit 0 "compare a run alone with one beside a load" "$IRT" compare --resamples 200 alone.json beside.json
check_out "^  A  load.cpu=-  \(1 run: alone.json\)$" "the cell without the load"
check_out "^  B  load.cpu=cpu:threads=2  \(1 run: beside.json\)$" "the cell named by its load"

# ---- loads: throughput rows, the throughput condition, the Pareto front ----
for i in 1 2 3 4 5; do
	synth lbase$i.json --slice 0ns --mean 100000 --seed $((40 + i)) --load cpu0:1000
	synth lkeep$i.json --slice 1ms --mean 50000 --seed $((50 + i)) --load cpu0:950
	synth lstarve$i.json --slice 2ms --mean 30000 --seed $((60 + i)) --load cpu0:500
done
check_exit 0 "compare with loads" "$IRT" compare --resamples 300 lbase*.json lkeep*.json lstarve*.json
check_out "^loads \(operations per second\)$" "a load table"
check_row "cpu0 loops/s" C "0\.[45][0-9]* +\[.*\] +worse" "halved throughput is worse"
check_out "^  B \(probe0.slice=1ms\): 0\.[0-9]+x the baseline \[.*\], better; throughput 0\.9[0-9]*x$" "recommends the cell that keeps the work"
check_out "^Pareto front \(response p99 vs lowest throughput ratio\): A B C$" "Pareto front"
check_exit 0 "lower throughput bar" "$IRT" compare --resamples 300 --min-throughput 40% lbase*.json lkeep*.json lstarve*.json
check_out "^  C \(probe0.slice=2ms\)" "with 40% the fastest cell qualifies"

# ---- baseline by file, letter, name ----
check_exit 0 "baseline by file" "$IRT" compare --resamples 200 --baseline fast3.json base*.json fast*.json
check_out "baseline B$" "baseline B chosen by file"
check_row "wake-up p50" A "worse \(p[<=]" "the old baseline is now worse"
check_out "keep the baseline B" "nothing beats the faster baseline"
check_exit 0 "baseline by name" "$IRT" compare --resamples 200 --baseline probe0.slice=1ms base*.json fast*.json
check_out "baseline B$" "baseline by name"
check_usage "unknown baseline" "^irt: --baseline: 'nope' is neither one of the files nor a cell \(cells: A = probe0.slice=0ns, B = probe0.slice=1ms\)$" \
	"$IRT" compare --baseline nope base1.json fast1.json

# ---- single runs: within-run resampling ----
synth one_a.json --slice 0ns --mean 100000 --samples 20000 --seed 31 --threads 2
synth one_b.json --slice 1ms --mean 200000 --samples 20000 --seed 32 --threads 2
check_exit 0 "single runs" "$IRT" compare --resamples 300 one_a.json one_b.json
check_out "^all probe threads$" "an all-threads block for several threads"
check_out "^probe1$" "a block per thread"
check_row "wake-up p99.9" B "too few samples \(one run each; within-run: worse, p<0\.0001\)" "single runs: no verdict by default"
check_out "^single runs: the CIs cover the samples within each run" "single-run caveat"
check_exit 0 "single runs with a floor" "$IRT" compare --resamples 300 --single-run-floor 10% one_a.json one_b.json
check_row "wake-up p99.9" B "worse \(p<0\.0001\)" "p99.9 from 20000 samples per run"
check_row "wake-up max" B "too few samples \(one maximum per run: repeat runs\)" "no verdict on a single max"

# ---- output files and determinism ----
check_exit 0 "json and csv" "$IRT" compare --resamples 200 -f none --json cmp.json --csv cmp.csv base*.json fast*.json
check "--format none prints nothing" test ! -s "$OUT"
check "json is valid, with cells, rows, recommendation" python3 -c '
import json; c = json.load(open("cmp.json"))
assert c["schema"] == "irt-compare/1" and c["baseline"] == "A"
assert [x["id"] for x in c["cells"]] == ["A", "B"] and len(c["cells"][1]["files"]) == 5
rows = [r for r in c["rows"] if r["metric"] == "wake-p50" and r["cell"] == "B"]
assert rows[0]["verdict"] == "better" and rows[0]["ratio_ci"][1] < 1 and rows[0]["runs"] == 5
assert c["recommendation"]["cell"] == "B" and c["params"]["resamples"] == 200'
check "csv has a header and one line per json row" python3 -c '
import csv, json; rows = list(csv.DictReader(open("cmp.csv"))); c = json.load(open("cmp.json"))
assert len(rows) == len(c["rows"]) and rows[1]["verdict"] == c["rows"][1]["verdict"]'
run "$IRT" compare --resamples 300 base*.json fast*.json; cp "$OUT" first.txt
run "$IRT" compare --resamples 300 base*.json fast*.json
check "same seed, same output" cmp -s first.txt "$OUT"
run "$IRT" compare --resamples 300 --seed 7 base*.json fast*.json
if cmp -s first.txt "$OUT"; then fail "another seed should move the CIs"; else pass; fi

# ---- bad input: one line, exit 2 ----
check_usage "no files" "^irt: compare: no result files" "$IRT" compare
check_usage "missing file" "^irt: nope.json: cannot open \(No such file or directory\)$" "$IRT" compare base1.json nope.json
echo '{"schema": "irt-result/1"' >broken.json
check_usage "broken json" "^irt: broken.json:[0-9]+:[0-9]+: not valid JSON" "$IRT" compare base1.json broken.json
echo '{}' >empty.json
check_usage "not a result" "^irt: empty.json: \\$\.schema: missing" "$IRT" compare empty.json
check_usage "bad resamples" "^irt: --resamples: '5' is out of range" "$IRT" compare --resamples 5 base1.json
check_usage "bad metric" "^irt: --metric: unknown value 'p99'" "$IRT" compare --metric p99 base1.json
check_usage "format seed" "^irt: -f: irt compare writes no 'seed' \(it accepts table, none\)$" "$IRT" compare -f seed base1.json
check_usage "probe option" "^irt: --period: not an option of 'irt compare'" "$IRT" compare --period 1ms base1.json
check_exit 0 "compare help" "$IRT" compare --help
check_out "--min-throughput PERCENT" "help lists compare options"

# ---- what irt probe writes compares ----
if "$IRT" probe -i 500us -n 300 -q -f none --json p1.json 2>/dev/null &&
	"$IRT" probe -i 500us -n 300 -q -f none --slack 50us --json p2.json 2>/dev/null; then
	check_exit 0 "compare real probe results" "$IRT" compare --resamples 200 p1.json p2.json
	check_out "^  B  probe0.slack=50us  \(1 run: p2.json\)" "real results grouped by their settings"
	check_row "wake-up p99.9" B "too few samples \(p99\.9 needs >= 10000 samples/run, has 300\)" "300 samples cannot give p99.9"
	check "two different runs: no warning" test ! -s "$ERR"
	cp p1.json copy.json
	check_exit 0 "a run given twice still compares" "$IRT" compare --resamples 200 p1.json p2.json copy.json -f none
	check_err "^irt: warning: p1.json and copy.json hold the same run: it counts twice$" "a run given twice is said"
	check "said once" test "$(wc -l <"$ERR")" -eq 1
else
	fail "irt probe could not produce results to compare"
fi
finish
