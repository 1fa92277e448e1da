# irt knobs / irt restore: listing, applying for a while, the crash journal (kill -9, then
# any irt command restores), the lock, signals, unprivileged messages; against a fake
# /proc + /sys tree (IRT_SYSROOT) always, against the real /proc/sys and cgroup when root.
. "$IRT_TOP/tests/cli/lib.sh"

json_get() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# mkfake DIR: a cgroup-v1 machine like this one (cpu controller at /sys/fs/cgroup/cpu).
mkfake() {
	r=$1
	mkdir -p "$r/proc/self" "$r/proc/sys/kernel" "$r/sys/fs/cgroup/cpu" "$r/sys/kernel/debug/sched/fair_server/cpu0"
	printf '30 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n' >"$r/proc/self/mountinfo"
	printf '1:cpu:/\n0::/\n' >"$r/proc/self/cgroup"
	echo 100 >"$r/proc/sys/kernel/sched_rr_timeslice_ms"
	echo 950000 >"$r/proc/sys/kernel/sched_rt_runtime_us"
	echo 1000000 >"$r/proc/sys/kernel/sched_rt_period_us"
	echo 1 >"$r/proc/sys/kernel/sched_autogroup_enabled"
	for f in cgroup.procs tasks; do : >"$r/sys/fs/cgroup/cpu/$f"; done
	echo -1 >"$r/sys/fs/cgroup/cpu/cpu.cfs_quota_us"
	echo 100000 >"$r/sys/fs/cgroup/cpu/cpu.cfs_period_us"
	echo 0 >"$r/sys/fs/cgroup/cpu/cpu.cfs_burst_us"
	echo 1024 >"$r/sys/fs/cgroup/cpu/cpu.shares"
	echo 0 >"$r/sys/fs/cgroup/cpu/cpu.idle"
	echo 3000000 >"$r/sys/kernel/debug/sched/base_slice_ns"
	echo 500000 >"$r/sys/kernel/debug/sched/migration_cost_ns"
	echo 50000000 >"$r/sys/kernel/debug/sched/fair_server/cpu0/runtime"
}

# wait_for TEST...: polls up to 5 s for a condition (the background irt got going).
wait_for() {
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.05
	done
}
has_journal() { [ -s "$IRT_STATE_DIR/journal" ] && grep -q cgroup "$IRT_STATE_DIR/journal"; }
no_cgroup() { ! ls -d "$1"/irt-* >/dev/null 2>&1; }

F="$T/root"
mkfake "$F"
export IRT_SYSROOT="$F"
RR="$F/proc/sys/kernel/sched_rr_timeslice_ms"
CG="$F/sys/fs/cgroup/cpu"

# ---- listing ----
check_exit 0 "knobs lists" "$IRT" knobs
check_out "^cpu controller: cgroup v1 at $F/sys/fs/cgroup/cpu" "controller named"
check_out "^KNOB +SCOPE +VALUE +STATE" "table header"
check_out "^kernel.sched_rr_timeslice_ms +system +100ms +available" "sysctl value"
check_out "^kernel.sched_rt_runtime_us +system +950ms" "rt runtime in time units"
check_out "^sched.base_slice_ns +system +3ms +available" "debugfs knob where writable"
check_out "^sched.fair_server_runtime_ns +system +50ms" "fair server"
check_out "^cgroup.quota +cgroup +max +available \(cpu.cfs_quota_us\)" "v1 quota"
check_out "^cgroup.weight +cgroup +- +unavailable: cgroup v1 has no cpu.weight file \(use cgroup.shares\)" "v2-only knob on v1"
check_out "^cgroup.rt_runtime +cgroup .*unavailable: the kernel has no RT group scheduling" "rt group knob without RT_GROUP_SCHED"
check_out "^policy +thread +[a-z]+ +available \(probe option --policy\)" "thread knob"
check_exit 0 "knobs --json" "$IRT" knobs --json "$T/k.json" --format none
check "json has every knob" [ "$(json_get "$T/k.json" "len(r['knobs'])")" -ge 21 ]
check "json schema" [ "$(json_get "$T/k.json" "r['schema']")" = "irt-knobs/1" ]
check "json reason" [ "$(json_get "$T/k.json" "[k['reason'] for k in r['knobs'] if k['name']=='cgroup.weight'][0]")" = "cgroup v1 has no cpu.weight file (use cgroup.shares)" ]
check "json value" [ "$(json_get "$T/k.json" "[k['value'] for k in r['knobs'] if k['name']=='kernel.sched_rr_timeslice_ms'][0]")" = "100ms" ]
check "json no output on stdout with --format none" [ ! -s "$OUT" ]
check_exit 0 "help knobs" "$IRT" help knobs
check_out "--allow-rt-unthrottled" "help names the rt guard"

# ---- bad input ----
check_usage "unknown knob" "--apply: kernel.bogus: unknown knob" "$IRT" knobs --apply kernel.bogus=1
check_usage "not a setting" "is not a setting \(expected KNOB=VALUE" "$IRT" knobs --apply cgroup.quota
check_usage "bad value" "cgroup.period: '2s' is out of range" "$IRT" knobs --apply cgroup.period=2s --hold 1ms
check_usage "not whole ms" "not a whole number of ms" "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=4500us
check_usage "rt unthrottled refused" "turns RT throttling off.*--allow-rt-unthrottled" "$IRT" knobs --apply kernel.sched_rt_runtime_us=-1 --hold 1ms
check "refused before any change" [ ! -e "$IRT_STATE_DIR/journal" ] && [ "$(cat "$F/proc/sys/kernel/sched_rt_runtime_us")" = 950000 ]
# the kernel refuses a period below the runtime as it refuses a runtime above the period: both
# are refused before any change, each against the other's value at its turn (an earlier --apply
# of the command, else the file's)
PER="$F/proc/sys/kernel/sched_rt_period_us"
check_usage "rt period below the runtime refused" "^irt: --apply: kernel.sched_rt_period_us: '500ms' is below kernel.sched_rt_runtime_us \(950ms" \
	"$IRT" knobs --apply kernel.sched_rt_period_us=500ms --hold 1ms
check "rt period: refused before any change" [ ! -e "$IRT_STATE_DIR/journal" ] && [ "$(cat "$PER")" = 1000000 ]
check_usage "rt period below a runtime applied before it" "kernel.sched_rt_period_us: '500ms' is below kernel.sched_rt_runtime_us \(600ms" \
	"$IRT" knobs --apply kernel.sched_rt_runtime_us=600ms --apply kernel.sched_rt_period_us=500ms --hold 1ms
check "rt period: nothing applied" [ ! -e "$IRT_STATE_DIR/journal" ] && [ "$(cat "$F/proc/sys/kernel/sched_rt_runtime_us")" = 950000 ]
check_exit 0 "rt runtime lowered first, then the period" "$IRT" knobs --apply kernel.sched_rt_runtime_us=400ms --apply kernel.sched_rt_period_us=500ms --hold 1ms
check_exit 0 "rt period raised first, then a runtime above the old period" "$IRT" knobs --apply kernel.sched_rt_period_us=2s --apply kernel.sched_rt_runtime_us=1500ms --hold 1ms
check_out "^kernel.sched_rt_runtime_us = 1500ms \(was 950ms\)" "runtime above the old period applied"
check "rt pair back" [ "$(cat "$PER")" = 1000000 ] && [ "$(cat "$F/proc/sys/kernel/sched_rt_runtime_us")" = 950000 ]
# a write the kernel refuses changed nothing: not reported as restored, nothing left to undo. The
# fake file is a link to a real file that takes no number (as root: sysfs refuses '5' there)
THP=/sys/kernel/mm/transparent_hugepage/enabled
if [ "$(id -u)" = 0 ] && [ -w "$THP" ]; then
	mkdir -p "$T/refusing/proc/sys/kernel" "$T/refusing/proc/self"
	cp "$F/proc/self/"* "$T/refusing/proc/self/"
	ln -s "$THP" "$T/refusing/proc/sys/kernel/sched_rr_timeslice_ms"
	IRT_SYSROOT="$T/refusing" run "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=5 --hold 1ms
	check_rc 1 "refused write: exit 1"
	check "refused write: one stderr line, the kernel's refusal" sh -c "[ \$(wc -l <'$ERR') -eq 1 ] && \
		grep -q \"cannot write '5' to .*: Invalid argument\" '$ERR'"
	check "refused write: not reported as restored" sh -c "! grep -q restored '$OUT'"
	check "refused write: no journal left" [ ! -e "$IRT_STATE_DIR/journal" ]
else
	skip "refused write: needs root and $THP"
fi
check_usage "thread knob not applicable" "policy is a per-thread setting" "$IRT" knobs --apply policy=batch
check_usage "hold without apply" "--hold: only with --apply" "$IRT" knobs --hold 1s
check_usage "extra argument" "unexpected argument 'x'" "$IRT" knobs x

# ---- apply for a while ----
check_exit 0 "apply and hold" "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --apply cgroup.quota=20ms --apply sched.base_slice_ns=1ms --hold 50ms
check_out "^kernel.sched_rr_timeslice_ms = 10ms \(was 100ms\)" "says what it set"
check_out "^cgroup.quota = 20ms \(was max\)" "cgroup quota set"
check_out "^removed cgroup $CG/irt-[0-9]+-probes" "cgroup removed"
check_out "^restored kernel.sched_rr_timeslice_ms = 100ms \($RR\)$" "says what it restored, in the apply line's units"
check_out "^restored sched.base_slice_ns = 3ms \(" "a debugfs value restored in the apply line's units"
check "sysctl back" [ "$(cat "$RR")" = 100 ]
check "debugfs back" [ "$(cat "$F/sys/kernel/debug/sched/base_slice_ns")" = 3000000 ]
check "no cgroup left" no_cgroup "$CG"
check "no journal left" [ ! -e "$IRT_STATE_DIR/journal" ]
check_exit 0 "rt unthrottled with consent" "$IRT" knobs --allow-rt-unthrottled --apply kernel.sched_rt_runtime_us=-1 --hold 1ms
check_out "kernel.sched_rt_runtime_us = max \(was 950ms\)" "unthrottled applied"
check_out "^restored kernel.sched_rt_runtime_us = 950ms \(" "restored as the apply line's 'was' gave it"
check "rt runtime back" [ "$(cat "$F/proc/sys/kernel/sched_rt_runtime_us")" = 950000 ]
check_exit 0 "loads' cgroup" "$IRT" knobs --cgroup-of loads --apply cgroup.shares=100 --hold 1ms
check_out "irt-[0-9]+-loads" "named for the loads"

# ---- an RT budget above what the parent cgroup leaves: refused before anything runs ----
# (a fake v1 tree with RT group scheduling: the root has 950ms of 1s, a sibling takes 500ms)
R="$T/rtg"
mkfake "$R"
RCG="$R/sys/fs/cgroup/cpu"
mkdir "$RCG/other"
for d in "$RCG" "$RCG/other"; do echo 1000000 >"$d/cpu.rt_period_us"; done
echo 950000 >"$RCG/cpu.rt_runtime_us"
echo 500000 >"$RCG/other/cpu.rt_runtime_us"
rt_over="cgroup.rt_runtime: '460ms' is more realtime budget than the parent cgroup leaves: at most 450ms of every 1s \($RCG has 950ms of every 1s, its other cgroups take 500ms of it; with RT group scheduling the kernel refuses more\)$"
check_usage "RT budget above the parent's: refused" "^irt: --apply: $rt_over" \
	env IRT_SYSROOT="$R" "$IRT" knobs --apply cgroup.rt_runtime=460ms --hold 1ms
check "RT budget above the parent's: no cgroup made" no_cgroup "$RCG"
check_usage "RT budget above the parent's, one microsecond" "at most 450ms of every 1s" \
	env IRT_SYSROOT="$R" "$IRT" knobs --apply cgroup.rt_runtime=450001us --hold 1ms
check_exit 0 "RT budget the parent leaves: applied" env IRT_SYSROOT="$R" "$IRT" knobs --apply cgroup.rt_runtime=450ms --hold 1ms
check_usage "RT budget above the parent's in a sweep: refused before the first cell" "^irt: --sweep: $rt_over" \
	env IRT_SYSROOT="$R" "$IRT" sweep --sweep cgroup.rt_runtime=10ms,460ms -D 0.2s --dir "$T/rtsweep"
check "RT budget sweep: nothing run" [ ! -e "$T/rtsweep" ]

# ---- SIGTERM and SIGHUP while holding: restored, exit 3 ----
for sig in TERM HUP; do
	"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=12 --apply cgroup.idle=1 --hold 30s >"$T/bg.out" 2>"$T/bg.err" &
	pid=$!
	check "SIG$sig: applied" wait_for has_journal
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig: exit 3" [ $rc -eq 3 ]
	check "SIG$sig: sysctl back" [ "$(cat "$RR")" = 100 ]
	check "SIG$sig: cgroup removed" no_cgroup "$CG"
	check "SIG$sig: says interrupted" grep -q "interrupted; every setting restored" "$T/bg.err"
done

# ---- kill -9: the next irt command restores; the lock refuses a second irt meanwhile ----
"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=7 --apply cgroup.quota=20ms --hold 60s >"$T/bg.out" 2>&1 &
pid=$!
check "crash: applied" wait_for has_journal
check "crash: value changed" [ "$(cat "$RR")" = 7 ]
check "crash: journal holds the original" grep -q "sched_rr_timeslice_ms	100	" "$IRT_STATE_DIR/journal"
check "crash: lock holds the pid" [ "$(cat "$IRT_STATE_DIR/lock")" = "$pid" ]
check_exit 1 "second irt refused" "$IRT" knobs --apply kernel.sched_autogroup_enabled=0 --hold 1ms
check_err "^irt: another irt \(pid $pid\) is changing tunables; wait for it or run irt restore after it died$" "refusal names the pid"
check "second irt changed nothing" [ "$(cat "$F/proc/sys/kernel/sched_autogroup_enabled")" = 1 ]
check_exit 1 "restore refused while it runs" "$IRT" restore
check_exit 0 "listing works meanwhile" "$IRT" knobs
check "listing left the live journal alone" [ "$(cat "$RR")" = 7 ]
kill -KILL $pid
wait $pid 2>/dev/null
check "crash: still changed after kill -9" [ "$(cat "$RR")" = 7 ]
check_exit 0 "next command restores" "$IRT" version
check_err "^irt: restored 1 setting left changed by a crashed irt \(pid $pid\) and removed 1 cgroup$" "says it restored"
check "crash: sysctl restored" [ "$(cat "$RR")" = 100 ]
check "crash: cgroup removed" no_cgroup "$CG"
check "crash: journal gone" [ ! -e "$IRT_STATE_DIR/journal" ]
check_exit 0 "restore with nothing to do" "$IRT" restore
check_out "^nothing to restore" "restore says there was nothing"

# irt restore after a crash says what it did
"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=9 --apply cgroup.shares=50 --hold 60s >/dev/null 2>&1 &
pid=$!
check "crash 2: applied" wait_for has_journal
kill -KILL $pid
wait $pid 2>/dev/null
check_exit 0 "irt restore" "$IRT" restore
check_out "^restored kernel.sched_rr_timeslice_ms = 100ms \($RR\)$" "restore lists the setting"
check_out "^removed cgroup $CG/irt-$pid-probes" "restore lists the cgroup"
check_out "^restored 1 setting and removed 1 cgroup left by irt pid $pid" "restore sums up"
check "crash 2: restored" [ "$(cat "$RR")" = 100 ]

# ---- a relative IRT_STATE_DIR would be another directory wherever irt runs: refused ----
mkdir "$T/wd"
for cmd in version "knobs --apply kernel.sched_rr_timeslice_ms=9 --hold 1ms" restore; do
	(cd "$T/wd" && IRT_STATE_DIR=relative-st check_usage "relative IRT_STATE_DIR: $cmd" \
		"^irt: IRT_STATE_DIR: 'relative-st' is not an absolute path" "$IRT" $cmd)
	check "relative IRT_STATE_DIR: $cmd: nothing made" [ -z "$(ls -A "$T/wd")" ]
done
check "relative IRT_STATE_DIR: nothing changed" [ "$(cat "$RR")" = 100 ]

# ---- unprivileged: the message names the privilege ----
if is_root && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	mkdir -p "$T/ustate" && chown 65534:65534 "$T/ustate"   # the user's own state directory
	run env IRT_STATE_DIR="$T/ustate" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1ms
	check "unprivileged: exit 1" [ "$RC" -eq 1 ]
	check_err "kernel.sched_rr_timeslice_ms: unavailable here: .* is not writable \(needs root \(or CAP_SYS_ADMIN\)\)" "unprivileged sysctl"
	# a knob that cannot change here says so before the journal is locked, and creates nothing
	run env IRT_STATE_DIR="$T/ustate/new" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --apply cgroup.quota=1ms --hold 1ms
	check_err "^irt: kernel.sched_rr_timeslice_ms: unavailable here: .*\(needs root" "unprivileged: the knob's reason, not the lock's"
	check "unprivileged: no state directory made for nothing" [ ! -e "$T/ustate/new" ]
	# a knob this user may change (made writable here), but a state directory it may not create
	chmod o+w "$RR"
	run env IRT_STATE_DIR=/var/lib/irt-test-unwritable setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1ms
	chmod o-w "$RR"
	check_err "journal: cannot create /var/lib/irt-test-unwritable: Permission denied \(changing tunables needs root" "unprivileged state dir"
	# a journal a crashed root irt left: only root can undo it, and another IRT_STATE_DIR would hide it
	"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=9 --hold 60s >/dev/null 2>&1 &
	pid=$!
	check "root crash: applied" wait_for grep -qs sched_rr_timeslice_ms "$IRT_STATE_DIR/journal"
	kill -KILL $pid
	wait $pid 2>/dev/null
	root_left='\(a root irt left changes here to restore: run irt restore as root\)$'
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$IRT" restore
	check "unprivileged restore of root's journal: exit 1" [ "$RC" -eq 1 ]
	check_err "^irt: restore: cannot lock $IRT_STATE_DIR/lock: Permission denied $root_left" "unprivileged restore: run it as root"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$IRT" version
	check_err "^irt: warning: journal: a crashed irt \(pid $pid\) left 1 change in $IRT_STATE_DIR/journal that could not be undone: Permission denied $root_left" \
		"unprivileged command beside root's journal: run restore as root"
	check "root's journal kept" [ "$(cat "$RR")" = 9 ]
	check_exit 0 "root restores it" "$IRT" restore
	check "root crash: restored" [ "$(cat "$RR")" = 100 ]
	run env IRT_STATE_DIR="$T/ustate" setpriv --reuid=65534 --regid=65534 --clear-groups "$IRT" knobs
	check "unprivileged listing works" [ "$RC" -eq 0 ]
	check_out "^cgroup.quota .*unavailable: cannot create a cgroup in .* \(needs root" "unprivileged cgroup reason"
else
	skip "unprivileged knobs: need root (to become nobody) and setpriv"
fi

# ---- the real /proc/sys and cgroup, when root: kill -9 and recovery ----
unset IRT_SYSROOT
REAL=/proc/sys/kernel/sched_rr_timeslice_ms
if is_root && [ -w $REAL ] && { [ -d /sys/fs/cgroup/cpu ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; }; then
	orig=$(cat $REAL)
	new=$((orig == 20 ? 40 : 20))
	rtg=""
	[ -f /sys/fs/cgroup/cpu/cpu.rt_runtime_us ] && rtg="--apply cgroup.rt_runtime=10ms"
	"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=$new --apply cgroup.quota=50ms $rtg --hold 60s >"$T/real.out" 2>&1 &
	pid=$!
	check "real: applied" wait_for has_journal
	check "real: value changed" [ "$(cat $REAL)" = "$new" ]
	cgdir=$(sed -n 's/^cgroup	\([^	]*\)	.*/\1/p' "$IRT_STATE_DIR/journal")
	check "real: cgroup exists" [ -d "$cgdir" ]
	check "real: quota set" grep -Eq '^(50000|50000 100000)$' "$cgdir/cpu.cfs_quota_us" "$cgdir/cpu.max" 2>/dev/null
	kill -KILL $pid
	wait $pid 2>/dev/null
	check_exit 0 "real: next command restores" "$IRT" version
	check_err "restored 1 setting left changed by a crashed irt \(pid $pid\) and removed 1 cgroup" "real: says so"
	check "real: value restored" [ "$(cat $REAL)" = "$orig" ]
	check "real: cgroup removed" [ ! -d "$cgdir" ]
	# the state lock covers one IRT_STATE_DIR; root irts with another still share the machine's
	# tunables: the machine-wide lock (/run/irt.lock) refuses them alike
	"$IRT" knobs --apply kernel.sched_rr_timeslice_ms=$new --hold 60s >"$T/real2.out" 2>&1 &
	pid=$!
	check "real: held again" wait_for grep -q holding "$T/real2.out"
	run env IRT_STATE_DIR="$T/state2" "$IRT" knobs --apply kernel.sched_rr_timeslice_ms=$orig --hold 1ms
	check_rc 1 "real: another state directory is refused too"
	check_err "^irt: another irt \(pid $pid\) is changing tunables" "real: refused as by the state lock"
	check "real: the other state directory journaled nothing" [ ! -e "$T/state2/journal" ]
	kill -TERM $pid
	wait $pid
	check "real: value restored after the second hold" [ "$(cat $REAL)" = "$orig" ]
	# an RT budget above the parent's: refused before anything runs, with the largest allowed
	rtroot=/sys/fs/cgroup/cpu/cpu.rt_runtime_us
	if [ -f $rtroot ] && [ "$(cat $rtroot)" -ge 0 ] && [ "$(cat $rtroot)" -lt 999000 ] &&
		[ "$(cat /sys/fs/cgroup/cpu/cpu.rt_period_us)" = 1000000 ]; then
		before=$(irt_cgroups)
		check_usage "real: an RT budget above the root cgroup's is refused before it is written" \
			"^irt: --apply: cgroup.rt_runtime: '$(($(cat $rtroot) + 1000))us' is more realtime budget than the parent cgroup leaves: at most [0-9.]+m?s of every 1s \(/sys/fs/cgroup/cpu has " \
			"$IRT" knobs --apply cgroup.rt_runtime=$(($(cat $rtroot) + 1000))us --hold 1ms
		check "real: no cgroup made for it" no_new_cgroups "$before"
	else
		skip "real: RT budget above the parent's: needs a v1 root cgroup with cpu.rt_runtime_us below 999ms of 1s"
	fi
else
	skip "real /proc/sys and cgroups: need root, a writable kernel.sched_rr_timeslice_ms and a cgroup cpu controller"
fi
finish
