# Security regressions (docs/hardening.md, "threat model"): another local user prepares an
# attack as `nobody`, root runs irt, and the target stays as it was; where irt refuses, it does
# so with one stderr line and exit status 2. Needs root (to be root and to become nobody):
# every case is skipped, visibly, otherwise.
. "$IRT_TOP/tests/cli/lib.sh"

CASES="journal-planted journal-entries lock-link lock-link-own-dir state-writable state-dotdot state-long sysroot-foreign sysroot-inner-foreign
out-probe-json out-probe-csv out-run-json out-compare-json out-compare-csv out-report-html out-report-svg
out-knobs-json out-sim-json out-sweep out-svg-link out-dir-link-foreign out-dir-link-root sweep-dir-foreign-parent monitor-dir-swap out-dir-swap out-test-name out-final-link resume-foreign resume-plan-foreign resume-writable
cell-link read-foreign-compare read-foreign-report read-link-run-compare read-link-run-report
read-link-summary-compare read-link-summary-report read-fifo-compare read-fifo-report watch-cgroup-fifo names-report
names-compare names-listing-compare names-listing-report names-fleet-compare name-option watch-comm sim-cap load-user load-user-fifo load-user-not-root cgroup-foreign
cgroup-v2-foreign cgroup-v2-own
out-device out-device-link out-device-nobody fleet-path-sbatch fleet-path-parallel"

if ! is_root || ! command -v setpriv >/dev/null; then
	for c in $CASES; do skip "$c: needs root and setpriv (root irt against files another user prepared)"; done
	finish
fi

# A: a directory the attacker (nobody) owns, next to root's private $T
A=$(mktemp -d /tmp/irt-sec.XXXXXX)
V2=""   # the cgroup2 mount of the v2 cases, undone by v2_cleanup however the file ends
trap 'v2_cleanup; rm -rf "$T" "$A"' EXIT
trap 'exit 130' INT TERM HUP   # the EXIT trap then unmounts
v2_cleanup() { :; }
chmod 0755 "$A"
chown 65534:65534 "$A"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
TARGET=$T/target                     # root's file, mode 0600: must never change
printf 'precious\n' >"$TARGET"
chmod 0600 "$TARGET"
intact() { [ "$(cat "$TARGET")" = precious ] && [ "$(stat -c %a "$TARGET")" = 600 ]; }

# refused NAME REGEX CMD...: exit 2, exactly one stderr line matching REGEX, target intact
refused() {
	name=$1 re=$2; shift 2
	run "$@"
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$ERR" && intact; then pass; else
		fail "$name: exit $RC, $lines stderr lines, target $(cat "$TARGET"), wanted 2 and one line /$re/"
		head -3 "$ERR" | sed 's/^/    | /'
	fi
}

# ---- the state directory and its files
as_nobody sh -c "mkdir $A/state && printf 'pid\t999999\nwrite\t$TARGET\tPWNED\tx\n' >$A/state/journal"
refused "journal-planted: irt version refuses the attacker's state directory" \
	"^irt: IRT_STATE_DIR $A/state: owned by uid 65534, not by root" env IRT_STATE_DIR="$A/state" "$IRT" version

# The same entries in a directory root trusts (a damaged journal): reported once, ignored.
# The core_pattern-style entry names a fake tree's file, so a regression cannot reach the
# real /proc/sys/kernel/core_pattern.
F=$T/fake
mkdir -p "$F/proc/sys/kernel" "$F/proc/self" "$F/sys/fs/cgroup/cpu" "$T/own"
printf '30 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n' >"$F/proc/self/mountinfo"
printf '|/bin/sh -c evil\n' >"$F/proc/sys/kernel/core_pattern"
echo 100 >"$F/proc/sys/kernel/sched_rr_timeslice_ms"
mkdir "$T/etc" && echo keep >"$T/etc/tasks"
printf 'pid\t999999\nwrite\t%s\tPWNED\tx\nwrite\t%s\t|/tmp/x\tkernel.core_pattern\nwrite\t%s\t|/tmp/x\tkernel.sched_rr_timeslice_ms\nwrite\t%s\t1\tkernel.sched_rr_timeslice_ms\nwrite\t%s/proc/sys/kernel/../kernel/sched_rr_timeslice_ms\t5\tkernel.sched_rr_timeslice_ms\nfakecgroup\t%s\ttasks\tcgroup\n' \
	"$TARGET" "$F/proc/sys/kernel/core_pattern" "$F/proc/sys/kernel/sched_rr_timeslice_ms" "$TARGET" "$F" "$T/etc" \
	>"$T/own/journal"
run env IRT_STATE_DIR="$T/own" IRT_SYSROOT="$F" "$IRT" version
if [ "$RC" -eq 0 ] && [ "$(wc -l <"$ERR")" -eq 1 ] &&
	grep -Eq "^irt: warning: journal: ignored 6 entries of $T/own/journal that irt never writes \(line 2: write $TARGET: 'x' is not a system-wide knob" "$ERR" &&
	intact && [ "$(cat "$F/proc/sys/kernel/core_pattern")" = '|/bin/sh -c evil' ] &&
	[ "$(cat "$F/proc/sys/kernel/sched_rr_timeslice_ms")" = 100 ] && [ "$(cat "$T/etc/tasks")" = keep ] &&
	[ ! -e "$T/own/journal" ]; then pass
else fail "journal-entries: exit $RC, $(head -c 300 "$ERR")"; fi

as_nobody sh -c "mkdir $A/lstate && ln -s $TARGET $A/lstate/lock"
refused "lock-link: in the attacker's directory" "^irt: IRT_STATE_DIR $A/lstate: owned by uid 65534" \
	env IRT_STATE_DIR="$A/lstate" "$IRT" knobs --apply cgroup.idle=1 --hold 1ms
mkdir "$T/lstate" && ln -s "$TARGET" "$T/lstate/lock"
refused "lock-link-own-dir: a link is never followed" "^irt: $T/lstate/lock is a symbolic link" \
	env IRT_STATE_DIR="$T/lstate" IRT_SYSROOT="$F" "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1ms

mkdir -m 0777 "$T/wstate"
refused "state-writable: a state directory others can write" "^irt: IRT_STATE_DIR $T/wstate: writable by its group and by others" \
	env IRT_STATE_DIR="$T/wstate" "$IRT" version
# '..' is looked up in a directory checked like any other: out of the attacker's, refused
refused "state-dotdot: '..' out of another user's directory" "^irt: IRT_STATE_DIR $A/state/\.\./\.\.$T/own: owned by uid 65534" \
	env IRT_STATE_DIR="$A/state/../..$T/own" "$IRT" version
refused "state-long: an over-long IRT_STATE_DIR" "^irt: IRT_STATE_DIR: longer than 255 characters" \
	env IRT_STATE_DIR="$T/$(printf 'd%.0s' $(seq 300))" "$IRT" version
as_nobody mkdir "$A/sysroot"
refused "sysroot-foreign: root ignores no IRT_SYSROOT another user owns" "^irt: IRT_SYSROOT $A/sysroot: owned by uid 65534" \
	env IRT_SYSROOT="$A/sysroot" "$IRT" knobs

# a fake tree of root's with a directory of the attacker's inside: a link there would take
# root's write of a tunable to the target
mkdir -p "$T/fake2/proc/sys/kernel" "$T/state3"
chown 65534 "$T/fake2/proc/sys/kernel"
ln -s "$TARGET" "$T/fake2/proc/sys/kernel/sched_rr_timeslice_ms"   # $T is 0700: made for nobody
chown -h 65534 "$T/fake2/proc/sys/kernel/sched_rr_timeslice_ms"
refused "sysroot-inner-foreign: a directory another user owns inside IRT_SYSROOT" \
	"^irt: IRT_SYSROOT $T/fake2: its directory $T/fake2/proc/sys/kernel is owned by uid 65534, not by root" \
	env IRT_STATE_DIR="$T/state3" IRT_SYSROOT="$T/fake2" "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1ms

# ---- outputs in a directory the attacker can write: the old temporary names are links to
# the target (PATH.tmp.PID, and knobs' PATH.tmpPID); irt's shell becomes irt, so $$ is its pid
O=$A/out
as_nobody mkdir -m 1777 "$O"
R=$IRT_TOP/fuzz/corpus/result/probe.json
# planted NAME FILE... -- CMD...: nobody links FILE.tmp.PID and FILE.tmpPID to the target for
# the shell that then becomes CMD (so PID is irt's); afterwards the target and the links are as
# they were, and every FILE is a regular file of root's
cat >"$T/plant.sh" <<'SH'
target=$1; shift
while [ "$1" != -- ]; do
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$target" "$1.tmp.$$"
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$target" "$1.tmp$$"
	shift
done
shift
exec "$@"
SH
planted() {
	name=$1; shift
	files=""
	for a in "$@"; do [ "$a" = -- ] && break; files="$files $a"; done
	sh "$T/plant.sh" "$TARGET" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	ok=true
	for f in $files; do
		{ [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %u "$f")" = 0 ]; } || ok=false
		for l in "$f".tmp*; do [ -L "$l" ] || ok=false; done
	done
	if [ "$RC" -eq 0 ] && $ok && intact; then pass; else
		fail "$name: exit $RC, files ok: $ok, target $(cat "$TARGET")"; head -3 "$ERR" | sed 's/^/    | /'
	fi
	for f in $files; do rm -rf "$f" "$f".tmp*; done
}
planted "out-probe-json" "$O/p.json" -- "$IRT" probe -i 1ms -n 5 -q -f none -o "$O/p.json"
planted "out-probe-csv" "$O/p.csv" -- "$IRT" probe -i 1ms -n 5 -q -f none --csv "$O/p.csv"
planted "out-run-json" "$O/r.json" -- "$IRT" run -i 1ms -n 5 -w 0 -q -f none -o "$O/r.json"
planted "out-compare-json" "$O/c.json" -- "$IRT" compare "$R" "$R" -f none -o "$O/c.json"
planted "out-compare-csv" "$O/c.csv" -- "$IRT" compare "$R" "$R" -f none --csv "$O/c.csv"
planted "out-report-html" "$O/r.html" -- "$IRT" report "$R" -f none -o "$O/r.html"
as_nobody mkdir -m 1777 "$O/svg"
first_svg=$("$IRT" report "$R" -f none --svg "$T/svgs" >/dev/null 2>&1; ls "$T/svgs" | head -1)
planted "out-report-svg" "$O/svg/$first_svg" -- "$IRT" report "$R" -f none --svg "$O/svg"
planted "out-knobs-json" "$O/k.json" -- "$IRT" knobs -f none --json "$O/k.json"
planted "out-sim-json" "$O/s.json" -- "$IRT" sim "$IRT_TOP/examples/sim/cpu_quota.ini" --duration 1s -f none -o "$O/s.json"
# a sweep writes plan.json, sweep.json and compare.json only into a directory it makes itself
# (0755): one prepared by another user is refused
as_nobody sh -c "mkdir $O/sw && ln -s $TARGET $O/sw/plan.json.tmp.1"
refused "out-sweep: --dir another user prepared" "^irt: --dir $O/sw: exists already" \
	"$IRT" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d "$O/sw"
# a link planted at --svg DIR: the charts would go into the directory it names (root's $T/vdir)
mkdir -m 0700 "$T/vdir"
as_nobody ln -s "$T/vdir" "$O/svglink"
refused "out-svg-link: a link at --svg DIR is not followed" "^irt: --svg: '$O/svglink' is a symbolic link" \
	"$IRT" report "$R" -f none --svg "$O/svglink"
check "out-svg-link: nothing written through the link" [ -z "$(ls -A "$T/vdir")" ]
# a link another user planted on an output's way, before irt started, would choose where root
# writes (fs.protected_symlinks guards sticky directories only, and may be off): refused for
# every output, -o, --csv, --svg; a link of root's own is followed
as_nobody ln -s "$T/vdir" "$A/olink"
refused "out-dir-link-foreign: another user's link on the way of -o" "^irt: --json: cannot write into directory '$A/olink': '$A/olink' is a symbolic link of uid 65534" \
	"$IRT" probe -i 1ms -n 3 -q -f none -o "$A/olink/p.json"
refused "out-dir-link-foreign: and of --svg DIR's parent" "^irt: --svg: cannot write into directory '$A/olink': '$A/olink' is a symbolic link of uid 65534" \
	"$IRT" report "$R" -f none --svg "$A/olink/svgs"
check "out-dir-link-foreign: nothing written through the link" [ -z "$(ls -A "$T/vdir")" ]
mkdir "$T/rl" && ln -s ../vdir "$T/rl/own"
run "$IRT" probe -i 1ms -n 3 -q -f none -o "$T/rl/own/p.json"
if [ "$RC" -eq 0 ] && [ -f "$T/vdir/p.json" ]; then pass
else fail "out-dir-link-root: root's own (relative) link is followed: exit $RC"; head -3 "$ERR" | sed 's/^/    | /'; fi
rm -f "$T/vdir/p.json"
# a sweep writes its runs by DIR's path for as long as it runs: in a directory the attacker may
# rename things in ($A), DIR could be swapped for a link to root's $T/vdir once made
refused "sweep-dir-foreign-parent: --dir where another user could swap it" "^irt: --dir $A/swp: owned by uid 65534, not by root \(in $A\)" \
	"$IRT" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d "$A/swp"
check "sweep-dir-foreign-parent: no directory left" [ ! -e "$A/swp" ]
# irt monitor replaces its textfile every interval: once it has written one, the attacker
# renames the directory away and puts a link to root's $T/vdir in its place
as_nobody mkdir "$A/mon"
as_nobody sh -c "while [ ! -e $A/mon/irt.prom ]; do sleep 0.05; done; mv $A/mon $A/mon.old && ln -s $T/vdir $A/mon" &
swapper=$!
run "$IRT" monitor --textfile "$A/mon/irt.prom" --interval 1s --for 4s -q
wait "$swapper"
if [ "$RC" -eq 0 ] && [ -L "$A/mon" ] && [ -z "$(ls -A "$T/vdir")" ] && [ -f "$A/mon.old/irt.prom" ]; then pass
else fail "monitor-dir-swap: exit $RC, the link's target holds: $(ls -A "$T/vdir")"; head -3 "$ERR" | sed 's/^/    | /'; fi
# the same for any output: checked at the start, written at the end of the measurement; the
# attacker swaps the directory a second into the 4 s probe
as_nobody mkdir "$A/o2"
"$IRT" probe -i 1ms -D 4s -q -f none -o "$A/o2/p.json" --csv "$A/o2/p.csv" >"$OUT" 2>"$ERR" &
prober=$!
sleep 1
as_nobody sh -c "mv $A/o2 $A/o2.old && ln -s $T/vdir $A/o2"
wait "$prober"
RC=$?
if [ "$RC" -eq 0 ] && [ -z "$(ls -A "$T/vdir")" ] && [ -f "$A/o2.old/p.json" ] && [ -f "$A/o2.old/p.csv" ]; then pass
else fail "out-dir-swap: exit $RC, the link's target holds: $(ls -A "$T/vdir")"; head -3 "$ERR" | sed 's/^/    | /'; fi
# irt tries an output's directory with a file it creates and removes: a name planted there
# (once .irt-write-test.PID, for the shell that becomes irt) must not make it refuse the output
sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups touch "$1/.irt-write-test.$$" && shift && exec "$@"' sh "$O" \
	"$IRT" probe -i 1ms -n 5 -q -f none -o "$O/t.json" >"$OUT" 2>"$ERR"
RC=$?
if [ "$RC" -eq 0 ] && [ -f "$O/t.json" ] && intact; then pass
else fail "out-test-name: a planted test name refused the output (exit $RC)"; head -3 "$ERR" | sed 's/^/    | /'; fi
as_nobody ln -s "$TARGET" "$O/final.json"
run "$IRT" probe -i 1ms -n 5 -q -f none -o "$O/final.json"
if [ "$RC" -eq 0 ] && [ -f "$O/final.json" ] && [ ! -L "$O/final.json" ] && intact; then pass
else fail "out-final-link: a link at the output name is replaced, not followed (exit $RC)"; fi
# A device at the output name (-o /dev/null) is written into, never replaced by a file: root
# once turned /dev/null into a regular file that way. $T/null is a private /dev/null, so that
# a regression cannot damage the real one; a link to a device is neither followed nor replaced.
mknod -m 0666 "$T/null" c 1 3
run "$IRT" sim "$IRT_TOP/examples/sim/cpu_quota.ini" --duration 1s -f none -o "$T/null"
if [ "$RC" -eq 0 ] && [ -c "$T/null" ] && [ "$(stat -c %t:%T "$T/null")" = 1:3 ]; then pass
else fail "out-device: -o DEVICE exits $RC and leaves $(stat -c %F "$T/null")"; fi
as_nobody ln -s "$T/null" "$O/dev.json"
refused "out-device-link: a link to a device at the output name" \
	"^irt: --json: '$O/dev.json' is a symbolic link to a device or a pipe \(expected a file name, '-' for standard output, or /dev/null\)$" \
	"$IRT" probe -i 1ms -n 5 -q -f none -o "$O/dev.json"
[ -L "$O/dev.json" ] && [ -c "$T/null" ] || fail "out-device-link: the link or the device changed"
run as_nobody "$IRT" sim "$IRT_TOP/examples/sim/cpu_quota.ini" --duration 1s -f none -o /dev/null
if [ "$RC" -eq 0 ] && [ -c /dev/null ]; then pass
else fail "out-device-nobody: a normal user's -o /dev/null exits $RC"; head -3 "$ERR" | sed 's/^/    | /'; fi

# ---- sweep --resume: plan.json is code (it holds the loads a resume starts)
(cd "$A" && as_nobody "$IRT" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d "$A/nsw" \
	--load 'cmd:cmd=id -u >> who' >/dev/null 2>&1)
rm -f "$A/nsw/c1/r0.json"
refused "resume-foreign: a sweep directory another user owns" "^irt: --resume $A/nsw: owned by uid 65534" \
	"$IRT" sweep --resume "$A/nsw"
check "resume-foreign: the plan's command did not run as root" sh -c "! grep -qx 0 '$A/who' 2>/dev/null && ! grep -qx 0 who 2>/dev/null"
"$IRT" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d "$T/sw" >/dev/null 2>&1
cp "$T/sw/plan.json" "$T/plan.keep"
chown 65534:65534 "$T/sw/plan.json"
refused "resume-plan-foreign: plan.json owned by another user" "^irt: $T/sw/plan.json: owned by uid 65534" \
	"$IRT" sweep --resume "$T/sw"
cp "$T/plan.keep" "$T/sw/plan.json" && chown 0:0 "$T/sw/plan.json"
chmod 0777 "$T/sw"
refused "resume-writable: a sweep directory others can write" "^irt: --resume $T/sw: writable by its group and by others" \
	"$IRT" sweep --resume "$T/sw"
chmod 0755 "$T/sw"
as_nobody mkdir "$A/cell"
rm -rf "$T/sw/c1" && ln -s "$A/cell" "$T/sw/c1"
refused "cell-link: a cN that is a link is refused before anything runs" "^irt: $T/sw/c1: a symbolic link" \
	"$IRT" sweep --resume "$T/sw"
check "cell-link: nothing written through the link" [ -z "$(ls -A "$A/cell")" ]

# ---- reading another user's sweep: result files and sweep summaries are parsed strictly, so
# root compares and reports any user's sweep directory; but it follows no link in it and reads
# only regular files, so a planted link or FIFO cannot make it read $TARGET or wait forever
"$IRT" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d "$T/rsw" >/dev/null 2>&1
rm "$T/rsw/plan.json"   # irt sweep --resume's; reading needs sweep.json and the runs
for d in rf rl rs rp; do cp -r "$T/rsw" "$A/$d"; done
chown -R 65534:65534 "$A/rf" "$A/rl" "$A/rs" "$A/rp"
run "$IRT" compare "$A/rf" --resamples 200
if [ "$RC" -eq 0 ] && grep -q "^2 results, 2 cells" "$OUT"; then pass
else fail "read-foreign-compare: root's compare of another user's sweep exits $RC"; head -3 "$ERR" | sed 's/^/    | /'; fi
run "$IRT" report "$A/rf" -f text
if [ "$RC" -eq 0 ] && grep -q "^c1 " "$OUT"; then pass
else fail "read-foreign-report: root's report of another user's sweep exits $RC"; head -3 "$ERR" | sed 's/^/    | /'; fi
as_nobody sh -c "rm $A/rl/c0/r0.json && ln -s $TARGET $A/rl/c0/r0.json"
refused "read-link-run-compare: a run that is a link" "^irt: $A/rl/sweep.json: .*: $A/rl/c0/r0.json is a symbolic link" \
	"$IRT" compare "$A/rl"
refused "read-link-run-report: a run that is a link" "^irt: $A/rl/sweep.json: .*: $A/rl/c0/r0.json is a symbolic link" \
	"$IRT" report "$A/rl" -f text
as_nobody sh -c "rm $A/rs/sweep.json && ln -s $TARGET $A/rs/sweep.json"
refused "read-link-summary-compare: a sweep.json that is a link" "^irt: $A/rs/sweep.json is a symbolic link" \
	"$IRT" compare "$A/rs"
refused "read-link-summary-report: a sweep.json that is a link" "^irt: $A/rs/sweep.json is a symbolic link" \
	"$IRT" report "$A/rs" -f text
as_nobody sh -c "rm $A/rp/c1/r0.json && mkfifo $A/rp/c1/r0.json"
refused "read-fifo-compare: a FIFO for a run is refused, not waited on" "^irt: $A/rp/sweep.json: .*: $A/rp/c1/r0.json: not a regular file" \
	timeout 20 "$IRT" compare "$A/rp"
refused "read-fifo-report: a FIFO for a run is refused, not waited on" "^irt: $A/rp/sweep.json: .*: $A/rp/c1/r0.json: not a regular file" \
	timeout 20 "$IRT" report "$A/rp" -f text

# irt watch --cgroup DIR reads the threads in DIR/cgroup.threads: a FIFO there is refused, not
# waited on (cgroupfs has only regular files)
as_nobody sh -c "mkdir $A/cg && mkfifo $A/cg/cgroup.threads"
refused "watch-cgroup-fifo: a FIFO for cgroup.threads" "^irt: $A/cg/cgroup.threads: not a regular file" \
	timeout 20 "$IRT" watch --cgroup "$A/cg" --watch-for 1s -f none

# ---- control characters in names: escaped on every terminal, refused where irt takes them
python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
r['threads'][0]['name'] = 'x\x1b]0;owned\x07\x1b[2J'
r['cmdline'] = 'irt \x1b[31mred'
json.dump(r, sys.stdout)" "$R" | as_nobody sh -c 'cat >"$1"' sh "$A/evil.json"
run "$IRT" report "$A/evil.json" --format text
if [ "$RC" -eq 0 ] && ! tr -d '\n' <"$OUT" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" && grep -qF 'x\x1b]0;owned\x07\x1b[2J' "$OUT"; then pass
else fail "names-report: report --format text printed a control character (exit $RC)"; fi
run "$IRT" compare "$A/evil.json" "$A/evil.json"
if [ "$RC" -eq 0 ] && ! tr -d '\n' <"$OUT" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" && grep -qF 'x\x1b' "$OUT"; then pass
else fail "names-compare: compare printed a control character (exit $RC)"; fi
# file and directory names are anyone's too: a result named with an escape sequence in a
# directory root compares, and a machine's directory of a fleet, are shown escaped
E=$(printf 'x\033[31mRED')
as_nobody sh -c 'mkdir "$1/ld" "$1/fl" "$1/fl/$2" "$1/fl/m2" && cp "$3/probe.json" "$1/ld/$2.json" && cp "$3/probe2.json" "$1/ld/b.json" &&
	cp "$3/probe2.json" "$1/fl/$2/r.json" && cp "$3/probe.json" "$1/fl/m2/r.json"' sh "$A" "$E" "$IRT_TOP/fuzz/corpus/result"
no_control() {   # NAME CMD...: exit 0, the name shown escaped, no control character on stdout
	name=$1; shift
	run "$@"
	if [ "$RC" -eq 0 ] && ! tr -d '\n' <"$OUT" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" && grep -qF 'x\x1b[31mRED' "$OUT"; then pass
	else fail "$name: a control character of a file name reached the output (exit $RC)"; head -3 "$ERR" | sed 's/^/    | /'; fi
}
no_control names-listing-compare "$IRT" compare "$A/ld"
no_control names-listing-report "$IRT" report "$A/ld" -f text
no_control names-fleet-compare "$IRT" compare "$A/fl"
refused "name-option: --name with an escape sequence" "^irt: --name: 'a\\\\x1b\[2Jb' holds a control character" \
	"$IRT" probe -n 2 -f none --name "$(printf 'a\033[2Jb')"

# another user's thread names (comm) reach root's terminal through irt watch and --explain: a
# thread of nobody's named with an escape sequence is shown escaped, in the tables and the result
cat >"$T/evil.py" <<'PY'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"x\x1b[31mRED\x07", 0, 0, 0)
end = time.time() + 30
while time.time() < end:   # wakes up often, for irt watch to measure
    time.sleep(0.001)
PY
chmod 0644 "$T/evil.py" && chmod 0755 "$T"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$T/evil.py" &   # $! is python's
evil=$!
sleep 0.5
run "$IRT" watch --pid "$evil" --watch-for 1s -o "$T/watch.json"
kill "$evil" 2>/dev/null; wait "$evil" 2>/dev/null
chmod 0700 "$T"
if [ "$RC" -eq 1 ] && grep -q "needs root\|tracefs" "$ERR"; then skip "watch-comm: irt watch cannot trace here ($(head -c 150 "$ERR"))"
elif [ "$RC" -eq 0 ] && ! tr -d '\n' <"$OUT" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" &&
	grep -qF 'x\x1b[31mRED\x07' "$OUT" && ! grep -q 'u001[bB]' "$T/watch.json"; then pass
else fail "watch-comm: a thread name's control characters reached the output (exit $RC)"; head -3 "$ERR" | sed 's/^/    | /'; fi

# ---- the simulator: bounded work
as_nobody sh -c "printf '[sim]\npolicy = rr\nduration = 168h\n\n[thread t]\ntype = periodic\nperiod = 1us\nexec = 100ns\n' >$A/big.ini"
refused "sim-cap: 6e11 activations" "^irt: $A/big.ini: about 6e\+11 thread activations .* more than --max-work 1000000000 allows \(raise it with --max-work N" \
	timeout 60 "$IRT" sim "$A/big.ini" -o "$T/big.json"
check "sim-cap: no result written" [ ! -e "$T/big.json" ]

# ---- children: user= runs a load as another user (root irt only)
as_nobody touch "$A/uid"
run "$IRT" run -i 1ms -n 300 -w 0 -q -f none --load "cmd:user=nobody,cmd=id -u >>$A/uid; id -G >>$A/uid; sleep 1"
if [ "$RC" -eq 0 ] && [ -s "$A/uid" ] && [ "$(sort -u "$A/uid")" = 65534 ]; then pass
else fail "load-user: the load's process did not run as uid 65534 only (exit $RC, ids: $(sort -u "$A/uid" | tr '\n' ' '))"; fi
refused "load-user-fifo: user= with a real-time policy" "^irt: --load: load 'cpu:user=nobody,policy=fifo': user=nobody with a real-time policy" \
	"$IRT" run -n 2 --load cpu:user=nobody,policy=fifo
run env IRT_STATE_DIR="$A/state2" setpriv --reuid=65534 --regid=65534 --clear-groups "$IRT" run -n 2 --load cpu:user=root
if [ "$RC" -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -q "user=root needs root" "$ERR"; then pass
else fail "load-user-not-root: exit $RC, $(head -c 200 "$ERR")"; fi
# ---- programs root runs by name (sudo -E keeps the user's PATH): a fake sbatch or parallel in
# a directory the attacker owns, first in PATH, is refused before anything runs, never run
as_nobody mkdir "$A/bin"
for p in sbatch parallel; do
	as_nobody sh -c 'printf "#!/bin/sh\ntouch %s/ran-%s\necho 1\n" "$1" "$2" >"$1/bin/$2" && chmod 755 "$1/bin/$2"' sh "$A" "$p"
done
refused "fleet-path-sbatch: another user's sbatch first in PATH" \
	"^irt: fleet: sbatch: $A/bin/sbatch \(found through PATH\) is not root's to run: directory $A/bin: owned by uid 65534" \
	env PATH="$A/bin:$PATH" "$IRT" fleet slurm "$T/fl1" -- probe -n 5
[ ! -e "$A/ran-sbatch" ] || fail "fleet-path-sbatch: the fake sbatch ran"
refused "fleet-path-parallel: another user's parallel first in PATH" \
	"^irt: fleet: parallel: $A/bin/parallel \(found through PATH\) is not root's to run" \
	env PATH="$A/bin:$PATH" "$IRT" fleet parallel "$T/fl2" --sshlogin : -- probe -n 5
[ ! -e "$A/ran-parallel" ] || fail "fleet-path-parallel: the fake parallel ran"
# ---- a cgroup another user made under irt's name, where they may make cgroups (a subtree
# delegated to them, and --cgroup-under self): irt refuses it rather than put its tasks and
# knob values in it, and leaves it alone (cgroup v1's cpu hierarchy: a chown delegates there)
CG=/sys/fs/cgroup/cpu
if [ -f "$CG/cpu.shares" ] && mkdir "$CG/irt-sec-$$" 2>/dev/null; then
	D=$CG/irt-sec-$$
	chown 65534 "$D" "$D/cgroup.procs" "$D/tasks"
	sh -c 'echo $$ >"$1/cgroup.procs" && setpriv --reuid=65534 --regid=65534 --clear-groups mkdir "$1/irt-$$-probes" &&
		shift && exec "$@"' sh "$D" "$IRT" knobs --apply cgroup.shares=100 --cgroup-under self --hold 1ms >"$OUT" 2>"$ERR"
	RC=$?
	if [ "$RC" -eq 2 ] && [ "$(wc -l <"$ERR")" -eq 1 ] &&
		grep -Eq "^irt: cgroup.shares: cgroup: $D/irt-[0-9]+-probes exists already, owned by uid 65534, not by root" "$ERR" &&
		[ -d "$D"/irt-*-probes ]; then pass
	else fail "cgroup-foreign: exit $RC, $(head -c 300 "$ERR")"; fi
	rmdir "$D"/irt-* "$D"
else
	skip "cgroup-foreign: needs cgroup v1's cpu hierarchy at $CG, writable"
fi
# ---- the same on cgroup v2, where delegating a subtree is chowning its directory and its
# cgroup.procs, cgroup.threads and cgroup.subtree_control. A cgroup2 hierarchy is mounted on a
# directory of its own (/tmp/irt-cg2.*) and irt is pointed at it by a fake tree: IRT_SYSROOT's
# mountinfo names only that cgroup2 mount, through a link of root's (the tree's own directories
# stay root's, as IRT_SYSROOT wants), and its /proc/self/cgroup puts irt in the delegated
# subtree for --cgroup-under self. The mount is the real cgroupfs (irt-PID-ROLE made with
# mkdir, owners real); irt finds the cpu controller only in cgroup.controllers, so where it is
# bound to v1 (as here) the subtree's cgroup.controllers and cgroup.subtree_control, and the
# root's cgroup.controllers, are covered with a file saying "cpu" (mount --bind): what the
# kernel shows with cpu delegated. The subtree is two levels down (irt-sec-v2-PID/u), out of
# the sight of other tests' irt_cgroups. Unmounted, and every cgroup removed, by v2_cleanup.
v2_cleanup() {
	[ -n "$V2" ] || return 0
	env IRT_SYSROOT="$T/v2fake" IRT_STATE_DIR="$T/v2state" "$IRT" restore >/dev/null 2>&1
	for f in "$V2"/irt-sec-v2-$$/u/cgroup.controllers "$V2"/irt-sec-v2-$$/u/cgroup.subtree_control "$V2"/cgroup.controllers; do
		while mountpoint -q "$f" 2>/dev/null || grep -q " $f " /proc/self/mountinfo; do umount "$f" || break; done
	done
	rmdir "$V2"/irt-sec-v2-$$/u/irt-* "$V2"/irt-sec-v2-$$/u "$V2"/irt-sec-v2-$$ 2>/dev/null
	umount "$V2" && rmdir "$V2"
	V2=""
}
V2=$(mktemp -d /tmp/irt-cg2.XXXXXX) && chmod 0755 "$V2"
if ! mount -t cgroup2 irt-test-v2 "$V2" 2>"$ERR"; then
	rmdir "$V2"
	V2=""
	for c in cgroup-v2-foreign cgroup-v2-own; do skip "$c: cannot mount cgroup2 here ($(head -c 200 "$ERR"))"; done
elif ! mkdir -p "$V2/irt-sec-v2-$$/u"; then
	for c in cgroup-v2-foreign cgroup-v2-own; do skip "$c: cannot make a cgroup in a cgroup2 mount"; done
else
	D=$V2/irt-sec-v2-$$/u
	chown 65534 "$D" "$D/cgroup.procs" "$D/cgroup.threads" "$D/cgroup.subtree_control"
	if grep -qw cpu "$V2/cgroup.controllers"; then   # cpu on v2: delegate it for real
		echo +cpu >"$V2/cgroup.subtree_control"
		echo +cpu >"$V2/irt-sec-v2-$$/cgroup.subtree_control"
	else
		echo cpu >"$T/v2cpu"
		for f in "$V2/cgroup.controllers" "$D/cgroup.controllers" "$D/cgroup.subtree_control"; do
			mount --bind "$T/v2cpu" "$f"
		done
	fi
	mkdir -p "$T/v2fake/proc/self" "$T/v2fake/sys/fs"
	printf '30 25 0:99 / /sys/fs/cgroup rw - cgroup2 irt-test-v2 rw\n' >"$T/v2fake/proc/self/mountinfo"
	printf '0::/irt-sec-v2-%s/u\n' $$ >"$T/v2fake/proc/self/cgroup"
	ln -s "$V2" "$T/v2fake/sys/fs/cgroup"
	CGV=$T/v2fake/sys/fs/cgroup/irt-sec-v2-$$/u   # as irt names it
	v2irt() { env IRT_SYSROOT="$T/v2fake" IRT_STATE_DIR="$T/v2state" "$IRT" "$@"; }
	# a cgroup nobody made at irt's name in their subtree: refused, left alone, nothing journaled
	sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups mkdir "$1/irt-$$-probes" && shift && exec "$@"' sh "$D" \
		env IRT_SYSROOT="$T/v2fake" IRT_STATE_DIR="$T/v2state" "$IRT" knobs --apply cgroup.weight=50 --cgroup-under self --hold 1ms >"$OUT" 2>"$ERR"
	RC=$?
	if [ "$RC" -eq 2 ] && [ "$(wc -l <"$ERR")" -eq 1 ] &&
		grep -Eq "^irt: cgroup.weight: cgroup: $CGV/irt-[0-9]+-probes exists already, owned by uid 65534, not by root" "$ERR" &&
		[ "$(stat -c %u "$D"/irt-*-probes)" = 65534 ] && [ ! -s "$T/v2state/journal" ]; then pass
	else fail "cgroup-v2-foreign: exit $RC, journal '$(cat "$T/v2state/journal" 2>/dev/null)', $(head -c 300 "$ERR")"; fi
	rmdir "$D"/irt-* 2>/dev/null
	# irt's own cgroup in the delegated subtree: made by mkdir on cgroupfs v2, and removed
	# afterwards with the journal emptied, whether the knob could be written (cpu on v2) or not
	# (no cpu.weight where cpu is bound to v1: exit 1, one line)
	run v2irt knobs --apply cgroup.weight=50 --cgroup-under self --hold 1ms
	if grep -Eq "^removed cgroup $CGV/irt-[0-9]+-probes" "$OUT" && ! ls -d "$D"/irt-* >/dev/null 2>&1 &&
		[ ! -s "$T/v2state/journal" ] && { [ "$RC" -eq 0 ] || { [ "$RC" -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] &&
		grep -q "cpu.weight: No such file or directory" "$ERR"; }; }; then pass
	else fail "cgroup-v2-own: exit $RC, left: $(ls -d "$D"/irt-* 2>&1), journal '$(cat "$T/v2state/journal" 2>/dev/null)', $(head -c 300 "$OUT" "$ERR")"; fi
fi
v2_cleanup
finish
