# Beyond one machine (docs/fleet.md), everything but Slurm itself (tests/cli/test_slurm.sh):
# machine identity, --expect and its exit status, JUnit XML, the OpenMetrics exposition parsed
# back by the Prometheus client's own parser, shards of simulations (merged == unsharded) and
# of sweeps, fleets of machines in irt compare / irt report, irt fleet over GNU parallel with
# --sshlogin : (this host), the Slurm script of --dry-run, and irt monitor's textfile.
. "$IRT_TOP/tests/cli/lib.sh"

PY=/usr/bin/python3   # Debian's, which has python3-prometheus-client (scripts/deps.sh)
synth() { $PY "$IRT_TOP/tests/cli/synth_result.py" "$@"; }
WL=$IRT_TOP/examples/sim/interactive.ini   # a [sweep] of 6 policies
have_prom=false
$PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null && have_prom=true

# ---- machine identity ----
check_exit 0 "probe for the record" "$IRT" probe -i 1ms -n 50 -q --format none --json id.json
want_id=""
[ -r /etc/machine-id ] && want_id=$($PY -c 'import hashlib,sys; print(hashlib.sha256(b"irt:" + open("/etc/machine-id").read().strip().encode()).hexdigest()[:32])')
check "env.machine_id is the hash of /etc/machine-id" $PY -c '
import json, sys
env = json.load(open("id.json"))["env"]
assert env["machine_id"] == sys.argv[1], env
assert env["hostname"] and env["cpu_model"] is not None and env["kernel"]' "$want_id"

# ---- --expect: met 0, unmet 4 (documented), bad 2; --junit ----
check_exit 0 "expectations met" "$IRT" probe -i 1ms -n 50 -q --format none --expect 'wake.p99<=10s' \
	--expect 'probe0:samples==50' --expect 'met>=0%' --junit met.xml
check_exit 4 "an unmet expectation exits 4" "$IRT" probe -i 1ms -n 50 -q --json unmet.json --format none \
	--expect 'wake.max<=1s' --expect 'wake.min<1ns' --junit unmet.xml
check_err "^irt: expect: 'wake.min<1ns' unmet: probe0 wake.min = " "the unmet one is named with its value"
check "the result is saved even when unmet" test -s unmet.json
if grep -q "wake.max<=1s" "$ERR"; then fail "a met expectation was reported unmet"; else pass; fi
check "JUnit XML: one case per expectation, one failure" $PY -c '
import xml.etree.ElementTree as ET
for f, tests, fails in (("met.xml", 3, 0), ("unmet.xml", 2, 1)):
    s = ET.parse(f).getroot().find("testsuite")
    assert s.get("name") == "irt probe" and int(s.get("tests")) == tests and int(s.get("failures")) == fails, f
    cases = s.findall("testcase")
    assert len(cases) == tests and sum(c.find("failure") is not None for c in cases) == fails, f
    if fails:
        bad = [c for c in cases if c.find("failure") is not None][0]
        assert bad.get("name") == "wake.min<1ns" and "probe0 wake.min" in bad.find("failure").get("message")'
check_usage "bad --expect" "^irt: --expect 'wake.p99<=5': '5' is not a duration" "$IRT" probe -n 5 --expect 'wake.p99<=5'
check_usage "unknown metric" "^irt: --expect 'lag<1ms': unknown metric 'lag'" "$IRT" probe -n 5 --expect 'lag<1ms'
# a comparison's metric on a single result could never be met: refused before anything runs
# (it was unmet after the whole run); a comparison (compare, sweep, a fleet's DIR) judges it
check_usage "a verdict on a probe" "^irt: --expect 'verdict==better': verdict exists only in comparisons \(irt compare, irt sweep\), not in irt probe's results \(expected wake" \
	"$IRT" probe -i 1ms -n 20 -q --format none --json nov.json --expect 'verdict==better'
check "nothing measured or written" test ! -e nov.json
check_usage "a ratio on a run" "^irt: --expect 'wake.p99.ratio<=1.1': wake.p99.ratio exists only in comparisons" \
	"$IRT" run -i 1ms -n 20 -q --format none --expect 'wake.p99.ratio<=1.1'
check_usage "a verdict on every node's probe, refused before the job is written" "^irt: --expect 'verdict==better': verdict exists only in comparisons" \
	"$IRT" fleet slurm nov --dry-run -- probe -n 20 --expect 'verdict==better'
check "no fleet directory for it" test ! -e nov
check_exit 0 "a fleet of sweeps keeps its verdicts" "$IRT" fleet slurm nov2 --dry-run -- sweep --sweep nice=0,5 --expect 'verdict==better'

# ---- OpenMetrics: parsed by prometheus_client, checked against the result's histograms ----
check_exit 0 "openmetrics and JSON of one result" "$IRT" probe -i 1ms -n 300 -t 2 -q --format openmetrics --json om.json
cp "$OUT" om.txt
$have_prom || skip "python3-prometheus-client is missing: the OpenMetrics output is not parsed back"
$have_prom && check "OpenMetrics parses and matches the histograms, counts included" $PY - <<'EOF'
import json, math
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open("om.txt").read()
assert text.endswith("# EOF\n")
fams = {f.name: f for f in text_string_to_metric_families(text)}   # raises on any format error
r = json.load(open("om.json"))
for fam, key in (("irt_wake_latency_seconds", "wake"), ("irt_response_time_seconds", "resp")):
    f = fams[fam]
    assert f.type == "histogram" and f.unit == "seconds", (f.type, f.unit)
    for t in r["threads"]:
        h = t[key]
        mine = [s for s in f.samples if s.labels.get("thread") == t["name"]]
        buckets = [s for s in mine if s.name.endswith("_bucket")]
        assert len(buckets) == 23, len(buckets)
        for s in buckets:
            le = float(s.labels["le"])
            want = h["count"] if math.isinf(le) else sum(n for lo, n in h["buckets"] if lo <= round(le * 1e9))
            assert s.value == want, (fam, t["name"], s.labels["le"], s.value, want)
        count = [s.value for s in mine if s.name.endswith("_count")][0]
        total = [s.value for s in mine if s.name.endswith("_sum")][0]
        assert count == h["count"] == 300 and abs(total - h["sum"] / 1e9) < 1e-6, (count, total)
q = {(s.labels["thread"], s.labels["percentile"]): s.value for s in fams["irt_wake_latency_quantile_seconds"].samples}
for t in r["threads"]:
    assert abs(q[(t["name"], "max")] - t["wake"]["max"] / 1e9) < 1e-9
m = {s.labels["thread"]: s.value for s in fams["irt_deadlines_missed"].samples}
assert all(m[t["name"]] == t["deadlines_missed"] for t in r["threads"])
EOF

# ---- shards of a simulation: the shards' files together are the unsharded run's ----
mkdir all shards
check_exit 0 "unsharded simulation" "$IRT" sim "$WL" --duration 1s --format none --json all/s.json
for i in 1 2 3 4; do "$IRT" sim "$WL" --duration 1s --format none --json shards/s.json --shard $i/4 || fail "shard $i/4"; done
check "same cell files" test "$(ls all)" = "$(ls shards)"
check "merged shards equal the unsharded run (all but when and how it ran)" $PY - <<'EOF'
import json, os
files = sorted(os.listdir("all"))
assert len(files) == 6, files
for f in files:
    a, b = (json.load(open(os.path.join(d, f))) for d in ("all", "shards"))
    for x in (a, b):
        for k in ("start_ns", "end_ns", "start_utc", "end_utc", "cmdline"):
            x.pop(k)
    assert a == b, f
EOF
(cd all && "$IRT" compare --format none --json ../all.cmp.json *.json) && (cd shards && "$IRT" compare --format none --json ../shards.cmp.json *.json)
check "and so do their comparisons, byte for byte" cmp -s all.cmp.json shards.cmp.json
# the directory itself, as irt fleet ... -- sim suggests (it was "not a sweep directory")
check_exit 0 "compare the shards' directory" "$IRT" compare shards --json dir.cmp.json
cp "$OUT" dir.cmp.txt
check_exit 0 "compare its files" "$IRT" compare shards/*.json --json files.cmp.json
check "the directory compares as its files" sh -c 'cmp -s dir.cmp.json files.cmp.json && cmp -s dir.cmp.txt out'
check_usage "more shards than cells" "^irt: --shard 7/7: the workload has only 6 cells" "$IRT" sim "$WL" --shard 7/7
check_usage "a malformed shard" "^irt: --shard: '0/4' is not a shard \(expected I/N" "$IRT" sim "$WL" --shard 0/4
check_exit 4 "--expect on a simulated sweep: every cell" "$IRT" sim "$WL" --duration 1s --format none \
	--expect 'ui:resp.max<=1ns'
check_err "^irt: expect: 'ui:resp.max<=1ns' unmet: \[policy=hwquota\] ui resp.max = " "names the first failing cell"

# ---- shards of a sweep into one directory: the last one summarises ----
sweep="--sweep period=1ms,2ms,3ms -n 30 --warmup 0 --repeat 2 --dir sw -q --format none"
check_exit 0 "sweep shard 1/2" "$IRT" sweep $sweep --shard 1/2 --junit sw1.xml --expect 'wake.p99<=10s'
check_err "shard 1/2 done; 4 of 6 runs in sw, the summary comes with the last shard" "an unfinished sweep waits"
check "no summary yet, no JUnit from a shard that cannot judge" test ! -e sw/sweep.json -a ! -e sw1.xml
check_exit 0 "sweep shard 2/2" "$IRT" sweep $sweep --shard 2/2 --junit sw2.xml --expect 'wake.p99<=10s' --expect 'c1:wake.p50<=10s' --expect 'met>=1%'
check "the last shard summarised all 3 cells" $PY -c '
import json, xml.etree.ElementTree as ET
s = json.load(open("sw/sweep.json"))
assert [c["id"] for c in s["cells"]] == ["c0", "c1", "c2"] and all(len(c["repetitions"]) == 2 for c in s["cells"])
assert ET.parse("sw2.xml").getroot().get("failures") == "0"'
check_usage "a shard of another sweep" "^irt: --dir sw: holds another sweep" "$IRT" sweep --sweep period=1ms,4ms -n 5 --dir sw --shard 1/2

# ---- a fleet of machines: irt compare DIR and irt report DIR ----
for m in m1 m2 m3; do
	mkdir -p fleet/$m
	for r in 1 2 3 4 5; do synth fleet/$m/a$r.json --slice 0ns --mean 100000 --seed $r --host $m; done
done
for r in 1 2 3 4 5; do
	synth fleet/m1/b$r.json --slice 1ms --mean 50000 --seed $((10 + r)) --host m1
	synth fleet/m2/b$r.json --slice 1ms --mean 55000 --seed $((20 + r)) --host m2
	synth fleet/m3/b$r.json --slice 1ms --mean 60000 --seed $((30 + r)) --host m3
done
check_exit 0 "compare a fleet" "$IRT" compare fleet --resamples 300 --metric wake-p50 --json fleet.json
check_out "^fleet fleet: 3 machines; metric wake-p50; baseline A \(probe0.slice=0ns\)" "fleet header"
check_out "^m2 +B +5 .* better$" "a per-machine verdict"
check_out "^fleet verdict, B \(probe0.slice=1ms\): better on 3 of 3 machines, worse on 0; pooled ratio 0\.[0-9]+ \[0\.[0-9]+, 0\.[0-9]+\] \(machines as blocks\): better$" "the fleet verdict"
check "the fleet JSON: the pooled ratio is the geometric mean of the machines' ratios" $PY -c '
import json, math
f = json.load(open("fleet.json"))
assert f["schema"] == "irt-fleet/1" and [m["name"] for m in f["machines"]] == ["m1", "m2", "m3"]
r = [c["ratio"]["est"] for m in f["machines"] for c in m["cells"] if c["cell"] == "B"]
b = f["cells"][1]
gm = math.exp(sum(map(math.log, r)) / 3)
assert abs(b["pooled_ratio"]["est"] - gm) < 1e-9 and b["better"] == 3 and b["verdict"] == "better"
assert b["pooled_ratio"]["lo"] < gm < b["pooled_ratio"]["hi"] < 1'
check_exit 0 "fleet gates met" "$IRT" compare fleet --resamples 300 --metric wake-p50 --format none --expect 'verdict==better' \
	--expect 'B:wake.p50.ratio<=0.8'
check_exit 4 "fleet gate unmet" "$IRT" compare fleet --resamples 300 --metric wake-p50 --format none --expect 'B:wake.p50.ratio<=0.3'
# a machine whose own runs were measured under different conditions: its irt compare says so,
# and so does the fleet's, naming the machine (its verdict may be about them)
cp -r fleet fleetc
$PY -c '
import glob, json
for f in glob.glob("fleetc/*/*.json"):
    r = json.load(open(f))
    r["conditions"] = {"cpuidle.governor": "haltpoll" if f == "fleetc/m2/b3.json" else "menu"}
    r["conditions_changed"] = {}
    json.dump(r, open(f, "w"))'
check_exit 0 "compare a fleet with a machine's conditions varying" "$IRT" compare fleetc --resamples 300 --metric wake-p50 \
	--json fleetc.json
check_out "^m2: conditions differ: cpuidle governor menu in A and B, haltpoll in B \(varies within B\)$" \
	"the machine's own differing conditions are named"
check "and listed in the fleet JSON" $PY -c '
import json
assert json.load(open("fleetc.json"))["conditions"] == ["m2: conditions differ: cpuidle governor menu in A and B, haltpoll in B (varies within B)"]'
# one machine disagrees: the block CI no longer excludes 1
mkdir -p fleet2 && cp -r fleet/m1 fleet/m2 fleet2/ && mkdir fleet2/m4
for r in 1 2 3 4 5; do
	synth fleet2/m4/a$r.json --slice 0ns --mean 60000 --seed $((40 + r)) --host m4
	synth fleet2/m4/b$r.json --slice 1ms --mean 100000 --seed $((50 + r)) --host m4
done
check_exit 0 "compare a divided fleet" "$IRT" compare fleet2 --resamples 300 --metric wake-p50
check_out "^m4 +B +5 .* worse$" "m4 is worse"
check_out "better on 2 of 3 machines, worse on 1; .*: no significant difference$" "no fleet verdict when machines disagree"
# too few samples propagates: machines of one run each claim nothing, nor does the fleet
# (it said "better" from a zero-width pooled CI); a copied machine directory is refused
mkdir -p few/m1 few/m2
for m in 1 2; do
	synth few/m$m/a.json --slice 0ns --mean 100000 --seed $m --host m$m --machine-id id$m
	synth few/m$m/b.json --slice 1ms --mean 50000 --seed $((10 + m)) --host m$m --machine-id id$m
done
check_exit 0 "compare a fleet of single runs" "$IRT" compare few --resamples 300 --metric wake-p50 --json few.json
check_out "^m1 +B +1 .* too few samples$" "each machine's own verdict is too few samples"
check_out "^fleet verdict, B .*better on 0 of 2 machines, worse on 0; pooled ratio - \(machines as blocks\): too few samples: 2 of 2 machines have too few samples" "so is the fleet's"
check "and in the fleet JSON" $PY -c '
import json; b = json.load(open("few.json"))["cells"][1]
assert b["verdict"] == "too few samples" and b["pooled_ratio"]["est"] is None, b'
cp -r few/m1 few/m1copy
check_usage "a machine twice" "^irt: few: machines m1 and m1copy are one machine \(the same machine_id in few/m1/a.json and few/m1copy/a.json\)" \
	"$IRT" compare few --resamples 300 --metric wake-p50
check_usage "a machine twice, report" "^irt: few: machines m1 and m1copy are one machine" "$IRT" report few -o few.html
check "no report for it" test ! -e few.html
# every result of a machine names its machine, not only its first: a directory whose first
# result (by name) has no machine_id is still the machine its other results name
mkdir -p ids/m1 ids/m2 ids/m1late
for m in 1 2; do
	synth ids/m$m/a.json --slice 0ns --mean 100000 --seed $((60 + m)) --host m$m --machine-id id$m
	synth ids/m$m/b.json --slice 1ms --mean 50000 --seed $((70 + m)) --host m$m --machine-id id$m
done
synth ids/m1late/a.json --slice 0ns --mean 100000 --seed 81 --host m1
synth ids/m1late/b.json --slice 1ms --mean 50000 --seed 82 --host m1 --machine-id id1
check_usage "a machine twice, named by a later result" \
	"^irt: ids: machines m1 and m1late are one machine \(the same machine_id in ids/m1/a.json and ids/m1late/b.json\)" \
	"$IRT" compare ids --resamples 300 --metric wake-p50
# one directory, two machine_ids: its own verdicts would compare machines; refused, naming both
rm -r ids/m1late
synth ids/m2/c.json --slice 1ms --mean 50000 --seed 83 --host m2 --machine-id id9
check_usage "two machines in one machine's directory" \
	"^irt: ids/m2/c.json: machine_id id9 is not ids/m2/a.json's \(id2\)" "$IRT" compare ids --resamples 300
check_usage "two machines in one machine's directory, report" "^irt: ids/m2/c.json: machine_id id9 is not " \
	"$IRT" report ids -o ids.html
# results of an irt before machine_id: a copied machine is told by its runs (host, start,
# command line, samples); machines of equal settings and seeds but other hosts are not one
mkdir -p old/m1 old/m2
for m in 1 2; do
	synth old/m$m/a.json --slice 0ns --mean 100000 --seed 1 --host m$m
	synth old/m$m/b.json --slice 1ms --mean 50000 --seed 2 --host m$m
done
check_exit 0 "machines without a machine_id" "$IRT" compare old --resamples 300 --metric wake-p50 --format none
cp -r old/m2 old/m2copy
check_usage "a machine without a machine_id twice" \
	"^irt: old/m2/([ab]).json and old/m2copy/\1.json hold the same run \(host, start, command line and samples\): machines m2 and m2copy would count it twice" \
	"$IRT" compare old --resamples 300 --metric wake-p50
check_usage "a machine without a machine_id twice, report" "^irt: old/m2/([ab]).json and old/m2copy/\1.json hold the same run" \
	"$IRT" report old -o old.html
rm -r old/m2copy && mkdir old/m3 && cp old/m1/b.json old/m3/b.json
synth old/m3/a.json --slice 0ns --mean 100000 --seed 3 --host m3
check_usage "one result in two machines' directories" "^irt: old/m1/b.json and old/m3/b.json hold the same run" \
	"$IRT" compare old --resamples 300
rm -r old/m3
# a fleet's directory is read as a sweep's is: no symbolic link followed, each refused in one
# line (they were passed over, or followed); only a regular file with one link is read
ln -s m1 old/m1link
check_usage "a linked machine directory" "^irt: old/m1link is a symbolic link \(irt does not follow links in a fleet's directory" \
	"$IRT" compare old --resamples 300
check_usage "a linked machine directory, report" "^irt: old/m1link is a symbolic link" "$IRT" report old -o old.html
check "no report for them" test ! -e old.html -a ! -e ids.html
rm old/m1link && ln -s ../m1/a.json old/m2/a2.json
check_usage "a linked result" "^irt: old/m2/a2.json is a symbolic link" "$IRT" compare old --resamples 300
rm old/m2/a2.json && mkdir elsewhere && cp old/m1/a.json elsewhere/r0.json && ln -s ../../elsewhere old/m2/sweep-1
check_usage "a linked directory of results" "^irt: old/m2/sweep-1 is a symbolic link" "$IRT" compare old --resamples 300
rm old/m2/sweep-1 && ln old/m2/b.json old/m2/b2.json
check_usage "a result with two names" "^irt: old/m2/b2?.json: a file with more than one hard link" "$IRT" compare old --resamples 300
rm old/m2/b2.json && mkfifo old/m2/c.json
check_usage "a FIFO for a result" "^irt: old/m2/c.json: not a regular file" "$IRT" compare old --resamples 300
rm old/m2/c.json && ln -s old oldlink
check_usage "a linked fleet directory" "^irt: irt compare oldlink: oldlink is a symbolic link" "$IRT" compare oldlink --resamples 300
mkdir linksonly && ln -s ../old/m1 linksonly/m1 && ln -s ../old/m2 linksonly/m2
check_usage "machine directories that are all links: refused as links, not 'no fleet'" \
	"^irt: linksonly/m1 is a symbolic link" "$IRT" compare linksonly --resamples 300
check_exit 0 "without them, the fleet compares" "$IRT" compare old --resamples 300 --format none
if is_root; then   # any owner's fleet is read (results are parsed strictly): root compares nobody's
	chown -R 65534:65534 old
	check_exit 0 "root compares another user's fleet" "$IRT" compare old --resamples 300 --format none
else
	skip "reading another user's fleet as root needs root"
fi
# four machines slightly better, none by its own runs: pooled over them, the effect shows
for m in 1 2 3 4; do
	mkdir -p weak/m$m
	for r in 1 2 3; do
		synth weak/m$m/a$r.json --slice 0ns --mean 100000 --samples 300 --seed $((m * 10 + r)) --host m$m
		synth weak/m$m/b$r.json --slice 1ms --mean 90000 --samples 300 --seed $((m * 10 + r + 100)) --host m$m
	done
done
check_exit 0 "compare a weakly better fleet" "$IRT" compare weak --resamples 300 --metric wake-p50
check_out "better on 0 of 4 machines, worse on 0; pooled ratio 0\.[0-9]+ \[0\.[0-9]+, 0\.[0-9]+\] \(machines as blocks\): better$" \
	"a fleet shows a small effect that no machine shows alone"
check_exit 0 "report a fleet" "$IRT" report fleet -o fleet.html --metric wake-p50 --format none
check "one row per machine, the fleet verdict and a forest plot" $PY -c '
import re
h = open("fleet.html").read()
assert len(re.findall("<tr class=\"machine\">", h)) == 3
assert "Fleet verdicts" in h and "<svg" in h and ">better<" in h and h.rstrip().endswith("</html>")'

# one setting on every machine: each machine's median is --metric's, not its p50 (it was the
# p50 under every metric's name); checked against the machine's own irt compare, text and JSON
mkdir -p one/m1 one/m2
for m in m1 m2; do for r in 1 2 3; do synth one/$m/a$r.json --mean 100000 --seed $r --host $m; done; done
check_exit 0 "every metric of one machine" "$IRT" compare one/m1/a1.json one/m1/a2.json one/m1/a3.json --resamples 200 --format none --json one1.json
for met in wake-p50 wake-p99 resp-p99 resp-max; do
	med=$($PY -c 'import json, sys; print([r["median"] for r in json.load(open("one1.json"))["rows"] if r["metric"] == sys.argv[1]][0])' $met)
	check_exit 0 "a fleet of one setting, --metric $met" "$IRT" compare one --resamples 200 --metric $met --json one-$met.json
	human=$($PY -c 'import sys; v = float(sys.argv[1]) / 1000; print("%.1fus" % v if v < 100 else "%.0fus" % v)' "$med")
	check_out "^m1 +A +3 +$human +$human +baseline$" "$met: the machine's $met in the table ($human)"
	check "$met: the machine's $met in the JSON" $PY -c '
import json, sys
f = json.load(open(sys.argv[1]))
assert f["metric"] == sys.argv[2] and f["machines"][0]["cells"][0]["median"] == float(sys.argv[3]), f' one-$met.json $met "$med"
done
check_exit 0 "report a fleet of one setting" "$IRT" report one -o one.html --metric wake-p99 --format none
check "the report shows each machine's wake-p99, not its p50" $PY -c '
import json
rows = json.load(open("one1.json"))["rows"]
p50, p99 = ([r["median"] for r in rows if r["metric"] == m][0] / 1000 for m in ("wake-p50", "wake-p99"))
h = open("one.html").read()
assert h.count(">%.0f\u00b5s<" % p99) == 2 and "%.1f\u00b5s" % p50 not in h, (p50, p99)'

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then   # the fleet page in a real browser: it renders, its rows and plot are there
	prof=$(mktemp -d)
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$prof" --enable-logging=stderr --v=0 \
		--dump-dom "file://$T/fleet.html" >dom.txt 2>blog.txt
	rm -rf "$prof"
	check "the fleet page loads without console messages" sh -c '! grep -q CONSOLE blog.txt'
	check "the browser's DOM has three machine rows and the forest plot" $PY -c '
import re
d = open("dom.txt").read()
assert len(re.findall("<tr class=\"machine\">", d)) == 3 and d.count("<circle") == 3 and "<path" in d'
else
	skip "the fleet page in a browser: chromium not installed"
fi
# --expect on a plain comparison: cells by id or name, ratios and verdicts on --metric
check_exit 0 "compare gates met" "$IRT" compare fleet/m1/a*.json fleet/m1/b*.json --metric wake-p50 --format none \
	--expect 'B:verdict==better' --expect 'wake.p50.ratio<=0.8' --expect 'probe0.slice=0ns:wake.p50>=10us'
check_exit 4 "compare gate unmet" "$IRT" compare fleet/m1/a*.json fleet/m1/b*.json --metric wake-p50 --format none \
	--expect 'verdict!=better'
check_err "^irt: expect: 'verdict!=better' unmet: B verdict = better" "names the cell and its verdict"

# machines measured under different conditions (the conditions manifest) say so
if is_root; then
	mkdir -p fc/m1 fc/m2
	"$IRT" probe -i 1ms -n 30 -q --format none --pm-qos 0 --json fc/m1/a.json && "$IRT" probe -i 1ms -n 30 -q --format none --json fc/m2/a.json
	# two machines, as far as compare can tell (one machine twice is refused)
	$PY -c 'import json; f = "fc/m2/a.json"; r = json.load(open(f)); r["env"]["machine_id"] = "0" * 32; json.dump(r, open(f, "w"))'
	check_exit 0 "compare machines under different conditions" "$IRT" compare fc --json fc.json
	check_out "^conditions differ: PM QoS .*m1.*m2" "the differing condition is named"
	check "and recorded in the fleet JSON" $PY -c 'import json; assert any("PM QoS" in c for c in json.load(open("fc.json"))["conditions"])'
	# the same machines, each result a sweep's run (settings cell, pm-qos): a setting that
	# differs between machines is no swept dimension, the difference is still named
	$PY -c '
import json
for f in ("fc/m1/a.json", "fc/m2/a.json"):
    r = json.load(open(f)); r["settings"]["cell"] = "c0"; r["settings"]["repetition"] = "0"; json.dump(r, open(f, "w"))'
	check_exit 0 "compare machines of sweeps under different conditions" "$IRT" compare fc --json fc.json
	check_out "^conditions differ: PM QoS .*m1.*m2" "the differing condition is named for sweeps' runs too"
	check "and recorded in that fleet JSON" $PY -c 'import json; assert any("PM QoS" in c for c in json.load(open("fc.json"))["conditions"])'
else
	skip "holding PM QoS (--pm-qos) needs root"
fi

# ---- irt fleet over GNU parallel, this host only (--sshlogin :) ----
if command -v parallel >/dev/null 2>&1; then
	check_exit 0 "fleet parallel: a run on every host" "$IRT" fleet parallel pf -S : -- probe -i 1ms -n 40 -q --format none
	host=$(uname -n)
	check "its result is in DIR/<machine>/" sh -c "ls pf/$host/probe-*.json >/dev/null 2>&1"
	check "the script it ran is kept" sh -c "grep -q -- \"--nonall\" pf/fleet-probe-*.sh"
	check_exit 0 "fleet parallel: a sweep on every host" "$IRT" fleet parallel ps -S : -- sweep --sweep period=1ms,2ms \
		-n 40 --warmup 0 --repeat 3 -q --format none
	check_exit 0 "compare the hosts' sweeps" "$IRT" compare ps
	check_out "^$host +B +3 " "the sweep's second cell, three repetitions, from DIR/<machine>/sweep-*/"
	# a machine's directory of two tasks' sweeps is one machine, not a fleet: said so, with what to do
	s1=$(ls -d ps/$host/sweep-* | head -n1)
	cp -r "$s1" "$s1-again"
	check_usage "a machine's directory of sweeps" "^irt: ps/$host: sweep-.* and sweep-.*-again are sweeps of one machine \(the same machine_id in .*\), not machines: compare their runs together \(irt compare ps/$host/\*/c\*/r\*\.json\), or the fleet directory above it$" \
		"$IRT" compare "ps/$host"
	rm -rf "$s1-again"
	check_exit 0 "fleet parallel: simulation shards" "$IRT" fleet parallel pf -S : --tasks 3 -- sim "$WL" --duration 1s --format none
	check "the shards' files equal the unsharded run" $PY - <<'EOF'
import json, os
for f in sorted(os.listdir("all")):
    a, b = json.load(open("all/" + f)), json.load(open("pf/" + f.replace("s-", "sim-")))
    for x in (a, b):
        for k in ("start_ns", "end_ns", "start_utc", "end_utc", "cmdline"):
            x.pop(k)
    assert a == b, f
EOF
	# an --expect unmet on the hosts is the fleet's 4 (git bisect run: bad), a task that could
	# not measure (a CPU this host lacks, which irt fleet cannot know) its 1 (bisect: skip)
	check_exit 4 "an unmet --expect on every host exits 4" "$IRT" fleet parallel pf -S : -- probe -i 1ms -n 20 -q \
		--format none --expect 'wake.max<1ns' --junit j.xml
	check_err "^irt: fleet: 1 task\(s\) did not meet an --expect \(exit 4" "says the gate was not met"
	# a --stop-above crossing exits 4 too: the fleet says which it was, from the saved result
	check_exit 4 "a --stop-above crossing on every host exits 4" "$IRT" fleet parallel pst -S : -- probe -i 1ms -D 5s -q \
		--format none --stop-above 1ns
	check_err "^irt: fleet: 1 task\(s\) ended at a --stop-above crossing \(exit 4" "says a --stop-above crossing, not an --expect"
	check "and not that an --expect was not met" sh -c "! grep -q 'expect' \"\$1\"" - "$ERR"
	# --junit names one file every host would write: each host's goes next to its result
	check "each host's --junit next to its result, none where irt fleet ran" sh -c \
		"grep -q 'failures=\"1\"' pf/$host/probe-*.xml && test ! -e j.xml"
	# a stop signal to the fleet's process group (Ctrl-C): the engine stops the tasks, irt fleet
	# waits for it and says so, exit 3, not "100 task(s) failed" (exit 1)
	if command -v setsid >/dev/null 2>&1; then
		setsid sh -c 'trap : TERM; "$0" fleet parallel pint -S : -- probe -D 20s -q --format none 2>pint.err; echo $? >pint.rc' \
			"$IRT" &
		sid=$!
		i=0
		while [ ! -d "pint/$host" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
		kill -15 "-$sid"
		i=0
		while [ ! -s pint.rc ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		check "an interrupted fleet exits 3 ($(cat pint.rc 2>/dev/null))" [ "$(cat pint.rc 2>/dev/null)" = 3 ]
		check "and says it was interrupted" grep -q "^irt: fleet: interrupted: GNU parallel stopped the tasks" pint.err
	else
		skip "an interrupted fleet: setsid (util-linux) is missing"
		skip "an interrupted fleet: setsid (util-linux) is missing"
	fi
	check_exit 1 "a failing task fails the fleet" "$IRT" fleet parallel pf -S : -- probe -i 1ms -n 20 -q --format none \
		--cpus 1000 --expect 'wake.max<1ns'
	check_err "^irt: fleet: 1 task\(s\) failed" "names the failures"
else
	skip "GNU parallel is not installed (apt-get install parallel)"
fi

# ---- the Slurm script (no Slurm needed for --dry-run) ----
check_exit 0 "slurm --dry-run" "$IRT" fleet slurm sf --dry-run --tasks 2 --constraint 'quiet&fast' --partition lab \
	--slurm-arg=--time=0:30:00 -- run --persona audio -D 2s
check_out "^#SBATCH --array=0-1$" "an array of two tasks"
check_out "^#SBATCH --exclusive$" "nodes allocated exclusively"
check_out "^#SBATCH --constraint=quiet&fast$" "constraints pass through"
check_out "^#SBATCH --partition=lab$" "the partition"
check_out "^#SBATCH --time=0:30:00$" "more sbatch options"
check_out "--json \"\\\$dir/\\\$machine/run-\\\$\{SLURM_ARRAY_JOB_ID\}_\\\$\{SLURM_ARRAY_TASK_ID\}.json\" " "one result per task in DIR/<machine>/"
check_exit 0 "fleet: --junit and --csv of the command" "$IRT" fleet slurm sf --dry-run --tasks 2 -- probe -n 5 \
	--junit j.xml --csv=c.csv --expect 'wake.p99<1s'
check_out "probe '-n' '5' --junit \"\\\$dir/\\\$machine/probe-\\\$\\{SLURM_ARRAY_JOB_ID\\}_\\\$\\{SLURM_ARRAY_TASK_ID\\}.xml\" --csv \"\\\$dir/\\\$machine/probe-\\\$\\{SLURM_ARRAY_JOB_ID\\}_\\\$\\{SLURM_ARRAY_TASK_ID\\}.csv\" '--expect'" \
	"each task writes its own, next to its result (not one file every task overwrites)"
check_exit 0 "fleet: --junit of sim shards" "$IRT" fleet slurm sf --dry-run --tasks 2 -- sim "$WL" --junit j.xml
check_out "--junit \"\\\$dir/sim-shard\\\$\\(\\(SLURM_ARRAY_TASK_ID \\+ 1\\)\\).xml\"" "each shard its own"
check_out "\\|\\| \\{ rc=\\\$\\?; \\[ \"\\\$rc\" -ge 4 \\] \\|\\| rc=\\\$\\(\\(rc \\+ 100\\)\\)" \
	"irt's 1-3 go above an unmet --expect's 4 (sbatch --wait gives the highest task status)"
check "the script is written too" sh -c 'test -s sf/fleet-run-*.sbatch'
check_usage "fleet: no command" "^irt: fleet: no command after --" "$IRT" fleet slurm sf --dry-run
check_usage "fleet: results are irt fleet's" "^irt: fleet: --json: irt fleet chooses where results go" "$IRT" fleet slurm sf --dry-run -- run --json x.json
# the command every node would run is checked here, in its own words; no script, no DIR
check_usage "fleet: an unknown option of the command" "^irt: --bogus: unknown option \(see irt help run\)$" \
	"$IRT" fleet slurm sbad --dry-run -- run --bogus
check_usage "fleet: a bad value of the command" "^irt: -D: '5' is not valid \(expected a duration" \
	"$IRT" fleet slurm sbad --dry-run -- run -D 5
check_usage "fleet: a probe option out of range" "^irt: --period: '0' is out of range" \
	"$IRT" fleet parallel sbad -S : -- probe --name a --period 0
check_usage "fleet: an option of another command" "^irt: --sshlogin=x: not an option of 'irt sweep'" \
	"$IRT" fleet slurm sbad --dry-run -- sweep --sweep period=1ms,2ms --sshlogin=x
check_usage "fleet: a sweep's watch too short" "^irt: --watch-for: '1ms' is out of range" \
	"$IRT" fleet slurm sbad --dry-run -- sweep --sweep cgroup.quota=10ms,max --comm x --watch-for 1ms
# options that are each valid but not together, as the probe definitions are checked
check_usage "fleet: --nice beside a real-time policy" "^irt: probe0: --nice applies only to --policy other, batch or idle$" \
	"$IRT" fleet slurm sbad --dry-run -- run -p fifo --nice 1 -D 1s
check_usage "fleet: a probe definition's --slice beside deadline" "^irt: a: --slice applies only to --policy other or batch" \
	"$IRT" fleet parallel sbad -S : -- probe --name a -p deadline --slice 1ms --name b
check_usage "fleet: a duration shorter than the period" "^irt: probe0: --duration 1ms is shorter than --period 10ms" \
	"$IRT" fleet slurm sbad --dry-run -- probe -D 1ms
check_usage "fleet: probe takes no job file" "^irt: probe: unexpected argument 'job.ini'" \
	"$IRT" fleet slurm sbad --dry-run -- probe job.ini
check_usage "fleet: a run's job file is read as on the nodes" "^irt: nope.ini: cannot read the job file" \
	"$IRT" fleet slurm sbad --dry-run -- run nope.ini
# a sweep's plan and every cell's probe definitions, as irt sweep checks them; nothing about
# this machine (its privileges, knobs, cgroups): a cell of fifo beside --prio 50 is the nodes'
check_usage "fleet: a sweep with nothing to vary" "^irt: sweep: nothing to vary" \
	"$IRT" fleet slurm sbad --dry-run -- sweep -n 5
check_usage "fleet: a sweep of an unknown key" "^irt: --sweep: 'bogus' is neither a knob \(irt knobs\) nor a probe or run option$" \
	"$IRT" fleet parallel sbad -S : -- sweep --sweep bogus=1,2 -n 5
check_usage "fleet: a sweep's cell that is no valid probe" "^irt: cell slice=50us: probe0: --slice 50us is below the kernel's minimum 100us" \
	"$IRT" fleet slurm sbad --dry-run -- sweep --sweep slice=0,50us -n 5
check_exit 0 "fleet: a sweep whose cells make the options valid" "$IRT" fleet slurm swok --dry-run -- sweep \
	--sweep policy=fifo,rr --prio 50 -n 5
check_exit 0 "fleet: a sweep of knobs, judged by the nodes' kernels" "$IRT" fleet slurm swok --dry-run -- sweep \
	--sweep cgroup.quota=10ms,max -n 5
rm -rf swok
# sim too: its options against its workload's keys, every cell, one shard per task
check_usage "fleet: a sim key's bad value" "^irt: --fill: '0' is out of range" \
	"$IRT" fleet slurm sbad --dry-run -- sim "$WL" --fill 0
check_usage "fleet: a sim key the policy does not read" "^irt: --sim-tick: not a parameter of policy hwquota" \
	"$IRT" fleet parallel sbad -S : -- sim "$WL" --policy hwquota --sim-tick 1ms
check_usage "fleet: an unknown sim option" "^irt: --bogus: unknown option \(see irt help sim\)$" \
	"$IRT" fleet slurm sbad --dry-run -- sim "$WL" --bogus 1
check_usage "fleet: a sim gate of comparisons" "^irt: --expect 'verdict==better': verdict exists only in comparisons" \
	"$IRT" fleet slurm sbad --dry-run -- sim "$WL" --expect verdict==better
check_usage "fleet: a missing workload" "^irt: nope.ini: cannot open" "$IRT" fleet slurm sbad --dry-run -- sim nope.ini
check_usage "fleet: more sim tasks than cells" "^irt: --tasks: 7 shards, but the workload has only 6 cells" \
	"$IRT" fleet slurm sbad --dry-run --tasks 7 -- sim "$WL"
check_usage "fleet: a step script" "^irt: fleet: sim --step runs a step script here" \
	"$IRT" fleet slurm sbad --dry-run -- sim --step "$IRT_TOP/tests/sim/step/hwquota_basics.step"
check "fleet: nothing written for a bad command" test ! -e sbad
check_exit 0 "fleet: a good sim is written" "$IRT" fleet slurm ssim --dry-run --tasks 6 -- sim "$WL" --duration 1s
check_out "sim .*--shard \"\\$\(\(SLURM_ARRAY_TASK_ID \+ 1\)\)/6\"" "six shards"
check_usage "fleet: parallel needs hosts" "^irt: fleet parallel: no --sshlogin" "$IRT" fleet parallel pf -- run
check_usage "fleet: an engine" "^irt: fleet: the engine is slurm or parallel" "$IRT" fleet pbs pf -- run

# ---- irt monitor: a textfile for node_exporter, replaced every interval ----
check_exit 0 "monitor for a second" "$IRT" monitor -i 2ms --interval 300ms --for 1s --textfile mon.prom
check_err "^irt monitor: [0-9]+ intervals in [0-9.]+ s; its own CPU time" "states its own CPU cost"
$have_prom || skip "python3-prometheus-client is missing: the monitor's textfile is not parsed back"
$have_prom && check "the textfile parses and counts every interval's samples" $PY - <<'EOF'
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open("mon.prom").read())}
n = fams["irt_monitor_intervals"].samples[0].value
count = [s.value for s in fams["irt_wake_latency_seconds"].samples if s.name.endswith("_count")][0]
assert n >= 3 and count >= 100 * n, (n, count)   # 150 wake-ups per 300 ms interval
assert fams["irt_monitor_cpu_seconds"].samples[0].value > 0
# counts that only grow are counters, their samples named _total (the parser insists)
for name in ("irt_overruns", "irt_deadlines_met", "irt_deadlines_missed", "irt_monitor_intervals",
             "irt_monitor_cpu_seconds", "irt_monitor_wall_seconds"):
    f = fams[name]
    assert f.type == "counter" and f.samples and all(s.name == name + "_total" for s in f.samples), (name, f)
# the write time to the millisecond, not whole seconds shown as .000
import os
ts = fams["irt_monitor_last_write_timestamp_seconds"].samples[0].value
mtime = os.stat("mon.prom").st_mtime
# (no bound on how much later the file was written: that is timing; the file's mtime comes from
# the kernel's coarse clock, a few ms behind)
assert ts <= mtime + 0.05, (ts, mtime)
assert round(ts % 1, 3) != 0 or mtime % 1 < 0.05, (ts, mtime)   # whole seconds: .000 nearly always
EOF
check_usage "monitor takes no --count" "^irt: -n: not an option of 'irt monitor'" "$IRT" monitor -n 5 --textfile mon.prom

finish
