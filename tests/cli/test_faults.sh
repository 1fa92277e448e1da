#!/bin/sh
# Faults from outside (docs/hardening.md): a load killed during irt run, output directories
# that cannot be written, a full disk, a cgroup removed under irt. irt reports each on one
# line, keeps what it measured, and leaves no partial file and no tunable changed. Parts that
# need root (mounts, cgroups) are counted skips when not root. No timing is asserted: runs are long
# enough for the fault to land, and every wait polls.
. "$IRT_TOP/tests/cli/lib.sh"

R=$IRT_TOP/fuzz/corpus/result/probe.json R2=$IRT_TOP/fuzz/corpus/result/probe2.json   # two different runs
# wait_for CMD...: polls CMD for up to 20 s
wait_for() {
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -ge 200 ] && return 1
		sleep 0.1
	done
}
cgroup_dir() { find /sys/fs/cgroup -maxdepth 3 -type d -name "$1" 2>/dev/null | head -n 1; }
has_tasks() { d=$(cgroup_dir "$1") && [ -n "$d" ] && [ -n "$(cat "$d/cgroup.procs" 2>/dev/null)" ]; }
# removes a cgroup from outside: its tasks to the parent first, as an administrator would
remove_cgroup() {
	d=$1 parent=${1%/*}
	f=cgroup.procs
	[ -f "$d/tasks" ] && f=tasks
	for t in $(cat "$d/$f"); do echo "$t" >"$parent/$f" 2>/dev/null; done
	rmdir "$d"
}
sysctls() { cat /proc/sys/kernel/sched_rr_timeslice_ms /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null; }

# ---- a load killed from outside: reported (exit 1), the other load and the probes kept
worker="" sups=""
find_worker() {
	sups=$(pgrep -P $irt)   # the loads' supervisors: irt's children
	for sup in $sups; do
		worker=$(pgrep -P "$sup" | head -n 1)
		# the worker makes its process group itself, just after the fork: wait for it. The cpu
		# load's worker is the one with threads (pipe's has processes): pids wrap, so the order
		# of the supervisors' pids does not tell the loads apart
		[ -n "$worker" ] && [ "$(ps -o pgid= -p "$worker" | tr -d ' ')" = "$worker" ] &&
			[ "$(ls "/proc/$worker/task" 2>/dev/null | wc -l)" -ge 2 ] && return 0
	done
	return 1
}
ended() { case $(ps -o stat= -p $irt) in Z* | "") return 0 ;; esac; return 1; }
worker_or_end() { find_worker || ended; }
split_or_end() { has_tasks "irt-$irt-loads" || ended; }
gone() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
# The kill must land inside irt's run. A starved shell polls slowly (2-6 s a poll seen with this
# shell at nice 19 beside four busy processes, against a 4 s run), so a run that ended whole
# before the kill landed (exit 0, nothing on stderr) is run again, twice as long; anything else
# irt does is judged below.
for d in 4 8 16; do
	"$IRT" run -D ${d}s -i 10ms -w 0 -q --load cpu:threads=1 --load pipe:groups=1,fds=1 -o "$T/killed.json" \
		>"$T/killed.out" 2>"$T/killed.err" &
	irt=$!
	worker="" sups="" killed="" state="still running"
	if wait_for worker_or_end && ! ended; then
		kill -9 "-$worker" 2>/dev/null && killed=1   # the cpu load's whole process group
	fi
	if [ -z "$killed" ]; then
		ended && state="already ended"
		kill $irt 2>/dev/null   # still running after 20 s without a load process
	fi
	wait $irt
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/killed.err" ] && [ $d -lt 16 ] || break
done
if [ -n "$killed" ]; then
	check "killed load: exit 1 (a load failed; the measurements are kept)" [ $rc -eq 1 ]
	check "killed load: one stderr line naming the load and the signal" \
		sh -c "[ \$(wc -l <'$T/killed.err') -eq 1 ] && grep -q \"load 'cpu:threads=1': load process was killed by signal 9\" '$T/killed.err'"
	check "killed load: the summary is printed" grep -Eq '^probe0 +[0-9]+' "$T/killed.out"
	check "killed load: the table shows the failed and the stopped load" \
		sh -c "grep -q 'failed: load process was killed by signal 9' '$T/killed.out' && grep -Eq '^pipe .*stopped' '$T/killed.out'"
	check "killed load: the record keeps the probe's samples and both loads" python3 -c "
import json, sys
d = json.load(open('$T/killed.json'))
ends = [l['end'] for l in d['loads']]
sys.exit(not (d['threads'][0]['samples'] > 0 and ends == ['failed', 'stopped'] and d['loads'][1]['ops'] > 0))"
else
	# say why: irt ended before a poll saw the worker (exit $rc; its stderr) or was still
	# running without one after 20 s
	fail "killed load: no load process was killed in a ${d} s run (irt $state, exit $rc; children: $sups)"
	sed 's/^/    | /' "$T/killed.err" | head -3
fi
check "killed load: no process of the loads is left" gone $sups $worker

# ---- output directories that cannot be written: refused before anything is measured
ro=$T/ro
mkdir -p "$ro"
if is_root; then
	if mount -t tmpfs -o ro,size=64k irt-ro "$ro" 2>/dev/null; then unmount_ro=1; else unmount_ro=""; fi
else
	chmod 0555 "$ro"
	unmount_ro=""
fi
if is_root && [ -z "$unmount_ro" ]; then
	skip "unwritable directories: cannot mount a read-only tmpfs"
else
	d=$ro/sub   # a directory inside the read-only one (for --svg and --dir)
	check_usage "unwritable: probe --json" "^irt: --json: cannot write into directory '$ro'" "$IRT" probe -n 2 -o "$ro/r.json"
	check_usage "unwritable: probe --csv" "^irt: --csv: cannot write into directory '$ro'" "$IRT" probe -n 2 --csv "$ro/r.csv"
	check_usage "unwritable: run --json" "^irt: --json: cannot write into directory '$ro'" "$IRT" run -n 2 -o "$ro/r.json"
	check_usage "unwritable: run --csv" "^irt: --csv: cannot write into directory '$ro'" "$IRT" run -n 2 --csv "$ro/r.csv"
	check_usage "unwritable: compare --json" "^irt: --json: cannot write into directory '$ro'" "$IRT" compare "$R" -o "$ro/c.json"
	check_usage "unwritable: compare --csv" "^irt: --csv: cannot write into directory '$ro'" "$IRT" compare "$R" --csv "$ro/c.csv"
	check_usage "unwritable: report -o" "^irt: -o: cannot write into directory '$ro'" "$IRT" report "$R" -o "$ro/r.html"
	check_usage "unwritable: report --svg" "^irt: --svg: cannot write into directory '$ro'" "$IRT" report "$R" --svg "$d"
	check_usage "unwritable: knobs --json" "^irt: --json: cannot write into directory '$ro'" "$IRT" knobs --json "$ro/k.json"
	check_usage "unwritable: sweep --dir" "^irt: --dir $d: cannot create or write it" \
		"$IRT" sweep --sweep period=1ms,2ms -n 2 -w 0 --repeat 1 -d "$d"
	check "unwritable: nothing was created" [ -z "$(ls -A "$ro")" ]
	[ -n "$unmount_ro" ] && umount "$ro"
fi

# a file where the output's directory should be: said so (root's access() said "Permission denied")
: >notadir
check_usage "a file as the output's directory" "^irt: --json: cannot write into directory 'notadir': Not a directory \(choose a writable place\)$" \
	"$IRT" probe -n 2 -o notadir/r.json
check_usage "a file as irt monitor's directory" "^irt: --textfile: cannot write into directory 'notadir': Not a directory" \
	"$IRT" monitor --textfile notadir/irt.prom --for 1s
rm -f notadir

# ---- a full disk: the write fails with ENOSPC, no partial file, stdout keeps the measurement
if ! is_root; then
	skip "full disk: mounting a small tmpfs needs root"
else
	full=$T/full
	mkdir -p "$full"
	if ! mount -t tmpfs -o size=64k,nr_inodes=256 irt-full "$full"; then
		skip "full disk: cannot mount a tmpfs"
	else
		dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null   # until ENOSPC
		nospace() {
			name=$1; shift
			run "$@"
			lines=$(wc -l <"$ERR")
			if [ "$RC" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q 'No space left on device' "$ERR" &&
				[ "$(ls -A "$full")" = fill ]; then pass
			else fail "full disk: $name: exit $RC, $lines stderr lines, files: $(ls -A "$full" | tr '\n' ' ')"
				head -3 "$ERR" | sed 's/^/    | /'
			fi
		}
		nospace "probe --json" "$IRT" probe -i 1ms -n 50 -q -o "$full/r.json"
		check_out '^probe0 +50 ' "full disk: probe printed its measurement"
		nospace "probe --csv" "$IRT" probe -i 1ms -n 20 -q --csv "$full/r.csv"
		nospace "run --json" "$IRT" run -i 1ms -n 50 -w 0 -q -o "$full/r.json"
		check_out '^probe0 +50 ' "full disk: run printed its measurement"
		nospace "compare --json" "$IRT" compare "$R" "$R2" -o "$full/c.json"
		nospace "compare --csv" "$IRT" compare "$R" "$R2" --csv "$full/c.csv"
		nospace "report -o" "$IRT" report "$R" -o "$full/r.html" -f none
		nospace "report --svg" "$IRT" report "$R" --svg "$full/svg" -f none
		nospace "knobs --json" "$IRT" knobs --json "$full/k.json" -f none
		umount "$full"
	fi
fi

# ---- --svg after a failed write removes the directory it made, in the directory it made it in
# and only while its name is still that directory (never by path): tests/cli/svg_swap.c fails
# the first chart's rename (ENOSPC) and, just before, swaps the parent directory for a link to
# one that holds another empty svg/, which must stay. Any user: the swap is made inside irt.
if ! ${CC:-cc} -shared -fPIC -o "$T/svg_swap.so" "$IRT_TOP/tests/cli/svg_swap.c" -ldl 2>"$ERR"; then
	skip "svg-swap: cannot build the LD_PRELOAD library ($(head -c 200 "$ERR"))"
else
	mkdir -p "$T/swap/out" "$T/swap/victim/svg"
	run env LD_PRELOAD="$T/svg_swap.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		IRT_SWAP_DIR="$T/swap/out" IRT_SWAP_TO="$T/swap/victim" "$IRT" report "$R" --svg "$T/swap/out/svg" -f none
	if [ "$RC" -eq 1 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -q 'No space left on device' "$ERR" &&
		[ -L "$T/swap/out" ] && [ -d "$T/swap/out.old" ]; then pass
	else fail "svg-swap: the fault did not land: exit $RC, $(head -c 300 "$ERR")"; fi
	check "svg-swap: the other empty directory at the path is left alone" test -d "$T/swap/victim/svg"
	check "svg-swap: the directory irt made is removed" test ! -e "$T/swap/out.old/svg"
fi

# ---- a cgroup removed under irt: reported, and everything is still removed afterwards
if ! is_root || [ -z "$(cgroup_dir cpu)$(grep -s cpu /sys/fs/cgroup/cgroup.controllers)" ]; then
	skip "removed cgroups: needs root and a cgroup cpu controller"
else
	before=$(sysctls)
	# irt run --placement split: the loads' cgroup vanishes during the run. As for the killed
	# load above, a run that ended whole before a starved shell's poll saw its cgroup is run
	# again, twice as long (secs, not d: has_tasks sets d).
	for secs in 4 8 16; do
		"$IRT" run -D ${secs}s -i 10ms -w 0 -q --placement split --load cpu:threads=1 -o "$T/split.json" \
			>"$T/split.out" 2>"$T/split.err" &
		irt=$!
		removed=""
		if wait_for split_or_end && ! ended; then
			remove_cgroup "$(cgroup_dir "irt-$irt-loads")" && removed=1
		fi
		[ -n "$removed" ] && break
		ended || kill $irt 2>/dev/null   # still running after 20 s without its cgroup
		wait $irt
		rc=$?
		[ $rc -eq 0 ] && [ ! -s "$T/split.err" ] && [ $secs -lt 16 ] || break
	done
	if [ -n "$removed" ]; then
		wait $irt
		rc=$?
		check "split: exit 1 (the placement did not hold)" [ $rc -eq 1 ]
		check "split: one stderr line naming the cgroup" sh -c "[ \$(wc -l <'$T/split.err') -eq 1 ] && \
			grep -q 'irt-$irt-loads was removed from outside irt during the run' '$T/split.err'"
		check "split: the measurement is printed and saved" sh -c "grep -Eq '^probe0 +[0-9]+' '$T/split.out' && \
			python3 -c \"import json; assert json.load(open('$T/split.json'))['threads'][0]['samples'] > 0\""
	else
		fail "split: the loads' cgroup never held the load in a ${secs} s run (irt exit $rc)"
		sed 's/^/    | /' "$T/split.err" | head -3
	fi
	check "split: no cgroup of that irt is left" [ -z "$(cgroup_dir "irt-$irt-*")" ]
	check "split: the journal is empty" [ ! -s "$IRT_STATE_DIR/journal" ]

	# irt knobs --apply cgroup.quota --hold: the knob's cgroup vanishes during the hold
	"$IRT" knobs --apply cgroup.quota=10ms --hold 60s >"$T/hold.out" 2>"$T/hold.err" &
	irt=$!
	if wait_for sh -c "[ -n \"\$(find /sys/fs/cgroup -maxdepth 3 -type d -name 'irt-$irt-probes')\" ] && grep -q holding '$T/hold.out'"; then
		remove_cgroup "$(cgroup_dir "irt-$irt-probes")"
		kill -TERM $irt
		wait $irt
		rc=$?
		check "hold: exit 1 (the setting did not hold)" [ $rc -eq 1 ]
		check "hold: one stderr line saying so" sh -c "[ \$(wc -l <'$T/hold.err') -eq 1 ] && \
			grep -q '^irt: knobs: 1 cgroup was removed from outside irt during the hold' '$T/hold.err'"
		check "hold: the restore report names the vanished cgroup" grep -q "irt-$irt-probes was gone already" "$T/hold.out"
	else
		fail "hold: the knob's cgroup never appeared"
		kill $irt 2>/dev/null
		wait $irt
	fi
	check "hold: no cgroup of that irt is left" [ -z "$(cgroup_dir "irt-$irt-*")" ]
	check "hold: the journal is empty" [ ! -s "$IRT_STATE_DIR/journal" ]

	# the same, but irt is killed: the next irt restore copes with the vanished cgroup
	"$IRT" knobs --apply cgroup.quota=10ms --apply kernel.sched_rr_timeslice_ms=20 --hold 60s >"$T/k9.out" 2>&1 &
	irt=$!
	if wait_for sh -c "grep -q holding '$T/k9.out'"; then
		remove_cgroup "$(cgroup_dir "irt-$irt-probes")"
		kill -9 $irt
		wait $irt 2>/dev/null
		check "kill -9: the journal holds what to undo" [ -s "$IRT_STATE_DIR/journal" ]
		run "$IRT" restore
		check "kill -9: irt restore succeeds" [ "$RC" -eq 0 ]
		check_out "irt-$irt-probes was gone already" "kill -9: irt restore reports the vanished cgroup"
		check_out "restored kernel.sched_rr_timeslice_ms" "kill -9: irt restore puts the sysctl back"
	else
		fail "kill -9: the hold never started"; cat "$T/k9.out" | head -3
		kill -9 $irt 2>/dev/null
		wait $irt 2>/dev/null
	fi
	check "kill -9: no cgroup of that irt is left" [ -z "$(cgroup_dir "irt-$irt-*")" ]
	check "kill -9: the journal is empty" [ ! -s "$IRT_STATE_DIR/journal" ]
	check "the scheduler sysctls are as before" [ "$(sysctls)" = "$before" ]
fi
# ---- stdout's reader gone (irt ... | head): SIGPIPE is ignored, so irt saves its files, restores
# every tunable, says so on one line and exits 1. The reader is closed before irt starts (no race
# with it), and SIGPIPE is back to its default for irt, as a shell would leave it.
closed_pipe() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w) & 255)' "$@" 2>"$ERR"
	RC=$?
}
# the line names the errno of the write that failed (stdio keeps only ferror: src/util.c
# stdout_track keeps it)
pipe_line="^irt: standard output: write failed \(Broken pipe\): only what irt printed is lost \(output files are saved\)$"
closed_pipe "$IRT" probe -D 300ms -q -o "$T/pipe.json"
check_rc 1 "closed stdout: probe exits 1"
check "closed stdout: probe: one stderr line, naming the broken pipe" sh -c "[ \$(wc -l <'$ERR') -eq 1 ] && grep -Eq '$pipe_line' '$ERR'"
check "closed stdout: probe saves a valid -o file" python3 -c "
import json; assert json.load(open('$T/pipe.json'))['threads'][0]['samples'] > 0"
# a document irt writes to stdout whole (report --format html/text, compare --csv -) fails
# there too: said once, by the same line, not first by the writer
for args in "report $T/pipe.json --format html" "report $T/pipe.json --format text" \
	"compare $T/pipe.json -f none --csv -"; do
	closed_pipe "$IRT" $args
	check_rc 1 "closed stdout: $args exits 1"
	check "closed stdout: $args: one stderr line, naming the broken pipe" \
		sh -c "[ \$(wc -l <'$ERR') -eq 1 ] && grep -Eq '$pipe_line' '$ERR'"
done
# a fake /proc (IRT_SYSROOT, as in test_knobs.sh): the real sysctls are never touched
mkdir -p "$T/fk/proc/sys/kernel" "$T/fk/proc/self"
echo 100 >"$T/fk/proc/sys/kernel/sched_rr_timeslice_ms"
: >"$T/fk/proc/self/mountinfo"
echo 0::/ >"$T/fk/proc/self/cgroup"
IRT_SYSROOT="$T/fk" closed_pipe "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=40 --hold 1s
check_rc 1 "closed stdout: knobs --hold exits 1"
check "closed stdout: knobs: the value is restored" [ "$(cat "$T/fk/proc/sys/kernel/sched_rr_timeslice_ms")" = 100 ]
check "closed stdout: knobs: no journal left" [ ! -e "$IRT_STATE_DIR/journal" ]
closed_pipe timeout 60 "$IRT" monitor --interval 200ms --textfile "$T/pipe.prom" --format openmetrics -q
check_rc 1 "closed stdout: monitor stops (its reader is gone) and exits 1"
check "closed stdout: monitor wrote its textfile" grep -q '^irt_' "$T/pipe.prom"
closed_pipe timeout 60 "$IRT" monitor --interval 200ms --textfile - -q
check_rc 1 "closed stdout: monitor --textfile - stops (its reader is gone) and exits 1"
check "closed stdout: monitor --textfile -: says it once, by the broken pipe's line" \
	sh -c "grep -Eq '$pipe_line' '$ERR' && ! grep -q 'cannot write to stdout' '$ERR'"
# a full disk under stdout (/dev/full refuses every write with ENOSPC): the same, naming it
if [ -c /dev/full ]; then
	"$IRT" probe -D 300ms -q -o "$T/full.json" >/dev/full 2>"$ERR"
	RC=$?
	check_rc 1 "stdout on a full disk: probe exits 1"
	check "stdout on a full disk: one stderr line, naming ENOSPC" sh -c "[ \$(wc -l <'$ERR') -eq 1 ] && grep -Eq \
		'^irt: standard output: write failed \(No space left on device\): only what irt printed is lost' '$ERR'"
	check "stdout on a full disk: probe saves a valid -o file" python3 -c "
import json; assert json.load(open('$T/full.json'))['threads'][0]['samples'] > 0"
	"$IRT" help sweep >/dev/full 2>"$ERR"
	RC=$?
	check_rc 1 "stdout on a full disk: irt help exits 1"
	check_err "^irt: standard output: write failed \(No space left on device\)" "stdout on a full disk: irt help names ENOSPC"
else
	skip "no /dev/full here: stdout on a full disk"
fi

finish
