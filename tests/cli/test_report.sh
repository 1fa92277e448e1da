#!/bin/sh
# irt report: HTML, SVG and text reports of result files, directories and sweeps; bad inputs;
# and the reports loaded in a real browser (Debian's headless Chromium) when it is installed.
# Runs beside other tests: reports of its own files; Chromium with a profile of its own.
. "$IRT_TOP/tests/cli/lib.sh"

# ---- inputs: three short probe runs ----
$IRT probe -i 1ms -n 200 -q --format none --json a.json
$IRT probe -i 1ms -n 100 --threads 3 -q --format none --json b.json
$IRT probe --name x -i 1ms -n 100 --name y -i 2ms -n 60 --burn 100us -q --format none --json c.json
check "probe results for the report exist" test -s a.json -a -s b.json -a -s c.json

# ---- reports of result files ----
check_exit 0 "report of three results" $IRT report a.json b.json c.json -o r.html
check_out "wake-up latency \(release -> running\)" "text report on stdout by default"
check_out "^  \[f\] c/y: period 2ms, other, burn 100us" "series list names every thread"
check_out "percentile spectrum of wake-up latency" "ASCII spectrum"
check_out "99\.99%" "spectrum axis labels"
check "html written" test -s r.html
check "html is one document" grep -q '^<!DOCTYPE html>' r.html
for id in wake-hist resp-hist wake-spectrum resp-spectrum; do
	check "html has chart $id" grep -q "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"$id\"" r.html
done
check "html has no script and fetches nothing" sh -c '! grep -Eq "<script|<link|src=|url\((https?:|//)" r.html'
check "html shows the command lines" grep -q 'irt probe --name x -i 1ms -n 100 --name y' r.html
check "html shows the environment" grep -q '<th>clocksource</th>' r.html
check "no temporary files left" sh -c '! ls | grep -q tmp'

check_exit 0 "format none writes only the file" $IRT report a.json --format none -o r2.html
check "format none: stdout empty" test ! -s "$OUT"
check "format none: file written" test -s r2.html
check_exit 0 "format html without -o goes to stdout" $IRT report a.json --format html
check_out "^<!DOCTYPE html>" "html on stdout"
check_exit 0 "format text" $IRT report --format text b.json
check_out "^b/probe0\.2|^probe0\.2" "text report lists the threads"

check_exit 0 "svg directory" $IRT report a.json c.json --svg svgdir --format none
check "one svg per chart" test "$(ls svgdir | wc -l)" -eq 4
check "standalone svg has an XML declaration" sh -c 'head -c 38 svgdir/wake-hist.svg | grep -q "^<?xml version=\"1.0\" encoding=\"UTF-8\"?>"'
check "svg files are well-formed XML" python3 -c '
import sys, glob, xml.etree.ElementTree as ET
for f in glob.glob("svgdir/*.svg"):
    ET.parse(f)
'
check_exit 0 "same input, same svg" $IRT report a.json c.json --svg svgdir2 --format none
check "svg output is deterministic" diff -r svgdir svgdir2

check_exit 0 "probe --format text" $IRT probe -i 1ms -n 30 -q --format text
check_out "percentile spectrum" "probe prints the text report"
check_exit 0 "probe --format html" $IRT probe -i 1ms -n 30 -q --format html
check_out "^<!DOCTYPE html>" "probe prints the HTML report"

# ---- a directory holding a sweep ----
mkdir sw
cp "$IRT_TOP/tests/data/report/sweep.json" sw/
for c in 0 1 2 3 4 5 6 7 8 9 10 11; do mkdir sw/c$c; cp a.json sw/c$c/r0.json; cp a.json sw/c$c/r1.json; done
cp c.json sw/extra.json
check_exit 0 "report of a sweep directory" $IRT report sw -o sw.html --svg swsvg
check_out "^c0 +10000 +-1 +cpu:threads=2 +180us \[150us, 230us\] +0\.095 \[0\.062, 0\.153\] +better \(recommended\) \(Pareto\)" "verdict table row"
check_out "^recommended: c0 \(cpu.cfs_period_us=10000, cpu.cfs_quota_us=-1; load cpu:threads=2\)" "recommendation"
check_out "^ +(\[.\] )?extra/x: period 1ms" "results beside the sweep are series of their own"
check_out "^c0 +400 " "the two repetitions of a cell are merged"
for id in knob-1-cpu-cfs-period-us knob-2-cpu-cfs-quota-us sweep-pareto; do
	check "sweep chart $id" test -s swsvg/$id.svg
	check "sweep html has $id" grep -q "class=\"chart\" id=\"$id\"" sw.html
done
check "verdict table in html" grep -q '<td class="worse">worse</td>' sw.html
check_exit 0 "--metric picks another sweep metric" $IRT report sw --metric resp-p99 --format text
check_out "^cell +cpu.cfs_period_us +cpu.cfs_quota_us +load +resp_p99 " "table judged by resp_p99"
check_usage "--metric the sweep lacks" "^irt: --metric: 'wake_max' is not a metric of sw/sweep.json \(metrics: wake_p99, throughput, resp_p99\)$" \
	$IRT report sw --metric wake-max -o m.html
check "no file after a bad --metric" test ! -e m.html
check_usage "--metric without a sweep" "only applies to a sweep" $IRT report a.json --metric wake-p99
check_usage "compare's options are not report's" "^irt: --resamples: an option of irt compare, not of irt report" \
	$IRT report a.json --resamples 100
check_usage "compare draws no charts" "^irt: --svg: irt compare draws no charts" $IRT compare a.json b.json --svg x

# ---- irt run: CPU accounting and loads ----
$IRT run -i 1ms -n 100 --warmup 0 --load cpu:threads=1 -q --format none --json run.json
check_exit 0 "report of an irt run result" $IRT report run.json -o acct.html
check_out "^CPU accounting" "accounting table in the text report"
check_out "^run +probe0 +probe " "the probe's accounting row"
check_out "^  run: cpu \(cpu:threads=1\): [0-9.e+]+ loops/s" "load throughput"
check "accounting chart in html" grep -q 'class="chart" id="cpu-accounting"' acct.html
check "loads table in html" grep -q '<h2>Background loads</h2>' acct.html

# ---- a simulated sweep's text report: series labels (cell/thread) were cut at 32 columns, so
# 'super-period=100ms fill=10ms/aud' and '.../ho' left the thread to guess ----
check_exit 0 "text report of a simulated sweep" $IRT sim "$IRT_TOP/examples/sim/vm_boot.ini" --duration 1s -f text
check_out "^super-period=100ms fill=10ms vm.quota=40%/timer +[0-9]" "a cell's series label is whole"

# ---- a simulated sweep's cell files (irt sim --json FILE writes FILE-cellNNN.json): labelled by the
# swept values that tell them apart, as irt compare names cells (they were grid-cell000/vm ...),
# with the simulator's own figures (shares, completion, timer windows) ----
$IRT sim "$IRT_TOP/examples/sim/vm_boot.ini" --duration 1s -f none -o grid.json
check_exit 0 "report of a simulated sweep's cell files" $IRT report grid-cell00*.json -o grid.html
check_out "^  \[a\] super-period=1s fill=10ms vm.quota=40%/vm: type oneshot, work 10s" "a cell's series named by its swept values"
check_out "^  \[p\] super-period=100ms fill=1ms vm.quota=0/timer: type timer" "all 16 series have letters (12 had)"
check "no series named by its file" sh -c '! grep -q "grid-cell" "$1"' _ "$OUT"
check_out "^simulated threads \(exact for the model" "the text report's simulation tables"
check_out "^  timer +[0-9.]+% +[0-9.]+m?s +[0-9.]+m?s +[0-9]+ +100.0% +- +[0-9]+/[0-9]+$" "a timer's windows met"
check_out "^  vm +[0-9.]+% .* not done +-$" "a one-shot's completion"
check "html: a simulation section in the navigation" grep -q '<a href="#simulation">Simulation</a>' grid.html
check "html: one table across the cells" \
	grep -q '<tr><th>result</th><th>vm share</th><th>timer share</th><th>be1 share</th><th>be2 share</th><th>be3 share</th><th>vm completion</th><th>timer windows ok</th></tr>' grid.html
check "html: a row per cell, named by its swept values" grep -q '<tr><td>super-period=100ms fill=1ms vm.quota=0</td><td class="n">' grid.html
check "html: each cell's own table" grep -q '<h3>super-period=1s fill=10ms vm.quota=40%</h3>' grid.html
check "html: no label of a file" sh -c '! grep -q "grid-cell" grid.html'
# a sweep of three keys: per vm.quota, a matrix per thread, super period down and fill across,
# each thread by its own figure, the best cell marked (a Genode engineer chooses these two)
check_out "^super-period x fill: each thread by the figure it is judged by" "text: the matrices' heading"
check_out "^vm.quota=0$" "text: one set of matrices per value of the third key"
check_out "^  vm: completion \(boot time\), lower is better$" "text: the one-shot by its completion"
check_out "^    1s +(not done|[0-9.]+s)\*? +(not done|[0-9.]+s)\*? ?$" "text: a row of boot times"
check_out "^    .*[0-9%s]\*( |$)" "text: a best cell marked"
$IRT sim "$IRT_TOP/examples/sim/vm_boot.ini" -f text >full.txt   # its own 120 s: 1200 windows at 100 ms
check "text: a timer's windows whole, however wide (1200/1200 lost a digit)" \
	grep -Eq "^    100ms +1200/1200 +1200/1200 ?$" full.txt
check "html: the matrices' heading" grep -q '<h3 id="sim-pivot">super-period × fill</h3>' grid.html
check "html: the header row, fill across" grep -q '<tr><th>super-period \\ fill</th><th>10ms</th><th>1ms</th></tr>' grid.html
check "html: a set per vm.quota, as the file wrote it" grep -q '<h4>vm.quota=40%</h4>' grid.html
check "html: a best cell marked" grep -q '<td class="n best">[^<]*<span class="better" title="best">★</span>' grid.html
cp grid-cell000.json again.json   # the same cell twice (as another seed of it would be)
$IRT report grid-cell000.json again.json grid-cell002.json grid-cell004.json >twice.txt 2>&1
check "text: a cell given twice, no matrix and why" grep -q "^no matrix of the swept keys: .* are the same cell" twice.txt
# more series than letters a-z: A-Z follow (the spectrum drew 12 and named 12)
cat >many.ini <<'EOI'
[sim]
policy = rr
duration = 200ms
[thread a]
type = periodic
period = 10ms
exec = 1ms
[thread b]
type = periodic
period = 20ms
exec = 1ms
[sweep]
a.exec = 1ms, 2ms, 3ms, 4ms, 5ms, 6ms, 7ms
b.exec = 1ms, 2ms
EOI
$IRT sim many.ini -f none -o many.json
check_exit 0 "report of 28 series" $IRT report many-cell0*.json
check_out "^  \[z\] " "the 26th series has a letter"
check_out "^  \[B\] a.exec=7ms b.exec=2ms/b: " "the 28th has one too"

# ---- a simulated result: no machine, and schedsim's policies record no wake-ups ----
$IRT sim "$IRT_TOP/bench/schedsim/stress_mix.tsv" --sim-policy schedsim-rr --duration 1s -q -f none -o sim.json
check_exit 0 "report of a simulated result" $IRT report sim.json -o sim.html
check_out "^P1 +0 +- +- +- +- +- +- +- +0 +-$" "a series without wake-ups shows dashes, not 0ns"
check_out "^P1 +[1-9][0-9]* +[0-9.]+[mu]s " "its responses are shown"
check_out "^  simulated by irt sim: no machine measured$" "the environment of a simulation"
check "no line of empty machine fields" sh -c '! grep -q "0 CPUs" "$1"' _ "$OUT"
check "html: the environment says simulated, without a table" \
	sh -c 'sed -n "/id=\"environment\"/,/<\/section>/p" sim.html | grep -q "Simulated by <code>irt sim</code>" &&
		! sed -n "/id=\"environment\"/,/<\/section>/p" sim.html | grep -q "<table>"'
check "html: the subtitle names no machine, nor 0 CPUs" grep -q '<p class="sub">1 result, simulated by irt sim; ' sim.html
check "html: the summary shows dashes for missing wake-ups" grep -q '<td>P1</td><td class="n">0</td><td class="n muted">–</td>' sim.html

# ---- bad inputs: one line, exit 2, no output file ----
printf '{"schema": "irt-result/1", "command": ' >trunc.json
printf '{"schema": "irt-result/2"}\n' >newer.json
sed 's/"count": 200,/"count": -1,/' a.json >negcount.json
mkdir empty
mkdir brokensw && printf '{"schema":"irt-sweep/1","metric":"m","cells":[{"id":"a","metrics":{"m":{"median":1,"lo":2,"hi":3}}}]}' >brokensw/sweep.json
mkdir missingrep && sed 's|"c0/r0.json"|"c0/gone.json"|' "$IRT_TOP/tests/data/report/sweep.json" >missingrep/sweep.json
check_usage "missing file" "^irt: nosuch.json: cannot open \(No such file or directory\)$" $IRT report nosuch.json -o bad.html
check_usage "truncated JSON" "^irt: trunc.json:1:[0-9]+: not valid JSON" $IRT report trunc.json -o bad.html
check_usage "newer schema" "^irt: newer.json: \\\$\.schema: 'irt-result/2' is not irt-result/1" $IRT report newer.json -o bad.html
check_usage "bad field" "^irt: negcount.json: \\\$\.threads\[0\]\.wake\.count" $IRT report a.json negcount.json -o bad.html
check_usage "empty directory" "^irt: empty: no result files \(\*\.json\) in it" $IRT report empty -o bad.html
check_usage "broken sweep summary" "^irt: brokensw/sweep.json: \\\$\.cells\[0\]\.metrics\.m: lo <= median <= hi" $IRT report brokensw -o bad.html
check_usage "sweep names a missing result" "^irt: missingrep/sweep.json: \\\$\.cells\[0\]\.repetitions\[0\]: missingrep/c0/gone.json: cannot open" \
	$IRT report missingrep -o bad.html
check_usage "two sweeps" "a second sweep summary" $IRT report sw sw/sweep.json -o bad.html
# a directory is read as irt compare DIR reads a sweep's (docs/hardening.md): no link followed
# in it, only regular files (a planted link or FIFO must not make root read or wait on it)
cp -r sw swl && rm swl/c0/r0.json && ln -s ../../a.json swl/c0/r0.json
check_usage "a run that is a link" "^irt: swl/sweep.json: \\\$\.cells\[0\]\.repetitions\[0\]: swl/c0/r0.json is a symbolic link" \
	$IRT report swl -o bad.html
cp -r sw sws && mv sws/sweep.json sws/sweep.keep && ln -s sweep.keep sws/sweep.json
check_usage "a sweep.json that is a link" "^irt: sws/sweep.json is a symbolic link" $IRT report sws -o bad.html
check_usage "named directly too" "^irt: sws/sweep.json is a symbolic link" $IRT report sws/sweep.json -o bad.html
mkdir rl && cp a.json rl/ && ln -s ../c.json rl/b.json
check_usage "a result beside others that is a link" "^irt: rl/b.json is a symbolic link" $IRT report rl -o bad.html
check_usage "irt compare DIR refuses it too, not passing over it" "^irt: rl/b.json is a symbolic link" $IRT compare rl
# the directory is opened once, first: a link to it is what is refused, not a link in it
ln -s rl rllink
check_usage "a link to a directory holding a link: the outer link is named" \
	"^irt: irt compare rllink: rllink is a symbolic link \(irt does not follow links here\)$" $IRT compare rllink
# irt noise's record beside results: passed over in the directory as irt's other records are;
# named alone, refused saying what it is (not "a newer irt may read it")
mkdir rn && cp a.json rn/ && $IRT noise --cpus 0 -D 300ms --period 100ms -f none -o rn/noise.json
check_exit 0 "report DIR: a noise record beside a result is passed over" $IRT report rn --format text
check_out "^irt report: 1 result" "report DIR: the one result"
check_exit 0 "compare DIR: the noise record passed over too" $IRT compare rn
check_out "^1 result, 1 cell" "compare DIR: the one result"
mkdir -p rnf/m1 && cp a.json rn/noise.json rnf/m1/
check_exit 0 "compare of a fleet's DIR: a machine's noise record passed over" $IRT compare rnf
check_out "^fleet rnf: 1 machine" "compare of a fleet's DIR: its one machine"
check_usage "a noise record named alone" "^irt: rn/noise.json: \\\$\.schema: 'irt-noise/1' is irt noise's record, not a result \(irt-result/1\)$" \
	$IRT report rn/noise.json
mkdir rf && cp a.json c.json rf/ && mkfifo rf/b.json
check_usage "nor waits on a FIFO there" "^irt: rf/b.json: not a regular file" timeout 20 $IRT compare rf
cp -r sw swf && rm swf/c1/r1.json && mkfifo swf/c1/r1.json
check_usage "a FIFO for a run is refused, not waited on" "^irt: swf/sweep.json: .*swf/c1/r1.json: not a regular file" \
	timeout 20 $IRT report swf -o bad.html
ln -s sw swlink
check_usage "a link to the directory" "^irt: irt report swlink: swlink is a symbolic link" $IRT report swlink -o bad.html
sed 's|"c0/r0.json"|"../sw/c0/r0.json"|' sw/sweep.json >swl/sweep.json
check_usage "a run outside the directory" "^irt: swl/sweep.json: .*'../sw/c0/r0.json' is not a file of the directory" \
	$IRT report swl -o bad.html
if is_root; then   # reading is safe: root reports a sweep another user ran (and compares it)
	cp -r sw swo && chown -R 65534:65534 swo && chmod 0777 swo
	check_exit 0 "a sweep directory another user owns, writable by others" $IRT report swo -o swo.html
	check "its report written" test -s swo.html
else
	skip "report DIR: another user's sweep directory (needs root to make one)"
fi
check_usage "no input" "^irt: report: no input" $IRT report -o bad.html
check_usage "seed format is not a report" "^irt: --format: irt report writes no 'seed'" $IRT report a.json --format seed
check_usage "no csv" "^irt: --csv: not an option of 'irt report'" $IRT report a.json --csv x.csv
check_usage "output directory missing" "^irt: -o: cannot write into directory 'nodir'" $IRT report a.json -o nodir/r.html
check "no output file after bad input" test ! -e bad.html
check "no temporary file after bad input" sh -c '! ls | grep -q "bad.html"'

# ---- in a real browser ----
# IRT_CHROMIUM= (empty) tries the skip path
CHROMIUM=${IRT_CHROMIUM-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	skip "browser checks: chromium not installed (apt-get install chromium, or make check as root)"
	finish
fi
browser() {   # browser OUTFILE ARGS... : headless Chromium, stderr with console messages in $T/blog
	out=$1; shift
	prof=$(mktemp -d)
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$prof" --enable-logging=stderr --v=0 \
		--hide-scrollbars "$@" >"$out" 2>"$T/blog"
	rc=$?
	rm -rf "$prof"
	return $rc
}
console_clean() { ! grep -q "CONSOLE" "$T/blog"; }
not_blank() {   # not_blank PNG: many colours and some ink
	set -- $(python3 "$IRT_TOP/tests/cli/pngstat.py" "$1")
	[ "${3:-0}" -ge 16 ] && [ "${4:-0}" -ge 10 ]
}

# the checks themselves must be able to fail
printf '<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>' >broken.html
browser dom.txt --dump-dom "file://$T/broken.html"
check "console error detected" grep -q 'CONSOLE.*boom' "$T/blog"
browser /dev/null --window-size=800,600 --screenshot="$T/blank.png" "file://$T/broken.html"
check "a blank page counts as blank" sh -c '! { set -- $(python3 "$1" "$2"); [ "$3" -ge 16 ] && [ "$4" -ge 10 ]; }' _ \
	"$IRT_TOP/tests/cli/pngstat.py" "$T/blank.png"

for page in r sw acct; do
	browser dom.txt --dump-dom "file://$T/$page.html"
	check "$page.html loads without console messages" console_clean
	case $page in
	r) ids="wake-hist resp-hist wake-spectrum resp-spectrum" ;;
	sw) ids="wake-hist wake-spectrum knob-1-cpu-cfs-period-us knob-2-cpu-cfs-quota-us sweep-pareto" ;;
	acct) ids="wake-hist cpu-accounting" ;;
	esac
	for id in $ids; do
		check "$page.html: chart $id in the rendered DOM" grep -q "<svg[^>]* id=\"$id\"" dom.txt
	done
done
# a simulated sweep's report: its simulation tables in the rendered DOM, the page not blank
browser dom.txt --dump-dom "file://$T/grid.html"
check "grid.html loads without console messages" console_clean
check "grid.html: the simulation section rendered" grep -q '<section id="simulation">' dom.txt
check "grid.html: a cell's completion rendered" grep -q '<td class="n worse">not done<' dom.txt
check "grid.html: the matrices rendered" grep -q '<table class="sim pivot"><caption><b>vm</b>: completion' dom.txt
check "grid.html: a best cell rendered" grep -q '<td class="n best">' dom.txt
browser /dev/null --window-size=1100,1500 --screenshot="$T/grid.png" "file://$T/grid.html#simulation"
check "screenshot of the simulation section (its matrices first) is not blank" not_blank "$T/grid.png"
browser /dev/null --window-size=1100,1500 --screenshot="$T/sw.png" "file://$T/sw.html"
check "screenshot of the sweep report is not blank" not_blank "$T/sw.png"
browser dom.txt --dump-dom "file://$T/swsvg/sweep-pareto.svg"
check "standalone svg renders without errors" sh -c 'grep -q "<svg" dom.txt && ! grep -q parsererror dom.txt'
[ -n "${IRT_KEEP_SCREENSHOTS:-}" ] && cp "$T"/*.png "$IRT_KEEP_SCREENSHOTS"/ 2>/dev/null
finish
