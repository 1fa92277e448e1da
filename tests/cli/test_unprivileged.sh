#!/bin/sh
# Every command as an ordinary user (docs/hardening.md, "privileges"): it works, or it fails
# with exit status 1 and one stderr line saying which privilege it lacks and what to do, and
# leaves no file behind. As root the commands run as nobody (setpriv); as an ordinary user
# they run as that user.
. "$IRT_TOP/tests/cli/lib.sh"

# a directory nobody may enter, with a copy of the binary and the inputs
W=$(mktemp -d /tmp/irt-unpriv.XXXXXX)
trap 'rm -rf "$T" "$W"' EXIT
chmod 1777 "$W"
mkdir -m 0755 "$W/bin"
cp "$IRT" "$W/bin/irt"
chmod 0755 "$W/bin/irt"
cp "$IRT_TOP/fuzz/corpus/result/probe.json" "$W/a.json"
cp "$IRT_TOP/examples/sim/cpu_quota.ini" "$W/quota.ini"
cp "$IRT_TOP/examples/sim/interactive.ini" "$W/interactive.ini"
cp "$IRT_TOP/tests/sim/step/hwquota_basics.step" "$W/basics.step"
chmod 0644 "$W/a.json" "$W/quota.ini" "$W/interactive.ini" "$W/basics.step"
mkdir -m 1777 "$W/work"
mkdir -m 0755 "$W/state"   # the user's own state directory: irt refuses one others can write
if is_root; then
	if ! command -v setpriv >/dev/null; then
		skip "every case: setpriv (util-linux) is missing, cannot run as nobody"
		finish
	fi
	chown 65534:65534 "$W/state"
	AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
else
	AS_USER=""
fi
as_user() { $AS_USER "$@"; }

# The default state directory /var/lib/irt, absent (a machine where irt never ran as root) or
# present (root-owned, as root irt leaves it). As root each case runs in a private mount
# namespace with an empty tmpfs over /var/lib, so both states are tested whatever this machine
# has, and the machine's own /var/lib/irt is neither seen nor touched. As an ordinary user only
# the state this machine is in can be tested.
have_mntns=false
if is_root && command -v unshare >/dev/null &&
	unshare -m sh -c 'mount -t tmpfs -o size=64k irt-test /var/lib' 2>/dev/null; then
	have_mntns=true
fi
in_default() {   # in_default absent|present CMD...
	want=$1; shift
	if $have_mntns; then
		unshare -m sh -c 'mount -t tmpfs -o mode=0755,size=1m irt-test /var/lib || exit 99
			if [ "$0" = present ]; then mkdir -m 0755 /var/lib/irt || exit 99; fi
			exec "$@"' "$want" "$@"
	else
		"$@"
	fi
}
# default_state_ok absent|present: can this state be tested here? (else says why, counted skip)
default_state_ok() {
	$have_mntns && return 0
	now=absent
	[ -d /var/lib/irt ] && now=present
	[ "$now" = "$1" ] && return 0
	skip "$2: /var/lib/irt $1 needs root and a private mount namespace (unshare -m); it is $now here"
	return 1
}

# u [absent|present] ARGS...: irt as the user in $W/work; absent or present: IRT_STATE_DIR
# unset, the default state directory in that state
u() {
	case $1 in
	absent | present)
		st=$1; shift
		(cd "$W/work" && in_default "$st" $AS_USER env -u IRT_STATE_DIR "$W/bin/irt" "$@") >"$OUT" 2>"$ERR" ;;
	*)   # ULIM: ulimit -l (KiB) for this command, when set
		(cd "$W/work" && { [ -z "${ULIM:-}" ] || ulimit -l "$ULIM"; } &&
			as_user env IRT_STATE_DIR="$W/state" "$W/bin/irt" "$@") >"$OUT" 2>"$ERR" ;;
	esac
	RC=$?
}
# works NAME ARGS...: exit 0
works() {
	name=$1; shift
	u "$@"
	if [ "$RC" -eq 0 ]; then pass; else fail "$name: exit $RC, wanted 0"; head -3 "$ERR" | sed 's/^/    | /'; fi
}
# refused NAME REGEX ARGS...: exit 1, one stderr line matching REGEX, nothing written in work/
# (a missing privilege is exit 1 whenever it is found: before anything runs or during the run)
refused() {
	want=1 name=$1 re=$2; shift 2
	u "$@"
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$ERR" && [ -z "$(ls -A "$W/work")" ]; then pass
	else fail "$name: exit $RC, $lines stderr lines, files: $(ls -A "$W/work" | tr '\n' ' '), wanted $want and one line /$re/"
		head -3 "$ERR" | sed 's/^/    | /'
	fi
	rm -rf "${W:?}/work/"*
}

P="-i 1ms -n 20 -q -f none"

# ---- probe: a plain probe needs nothing; what needs a privilege says which and what to do
works "probe, defaults (mlock of a small process fits RLIMIT_MEMLOCK)" probe $P
works "probe --no-mlock" probe $P --no-mlock
works "probe --no-mlock --touch 16M" probe $P --no-mlock --touch 16M
works "probe --nice 5 --policy batch --slice 1ms" probe $P --nice 5 --policy batch --slice 1ms
works "probe --policy idle" probe $P --policy idle
works "probe -o FILE" probe $P -o out.json
check "probe -o wrote the result" [ -s "$W/work/out.json" ]
rm -f "$W/work/out.json"
refused "probe --policy fifo" '^irt: probe0: --policy fifo --prio 80: sched_setattr failed: Operation not permitted \(needs root or CAP_SYS_NICE, or a raised RLIMIT_RTPRIO' \
	probe $P --policy fifo --no-mlock -o out.json
refused "probe --policy rr" 'sched_setattr failed: Operation not permitted \(needs root or CAP_SYS_NICE' probe $P --policy rr --no-mlock
refused "probe --policy deadline (no --cpus given: none to drop)" '^irt: probe0: --policy deadline .*sched_setattr failed: Operation not permitted \(needs root; deadline tasks also need the full CPU set, which irt.s affinity or cpuset' \
	probe $P --policy deadline --no-mlock
refused "probe --policy deadline --cpus 0" 'Operation not permitted \(needs root; deadline tasks also need the full CPU set, so drop --cpus\)$' \
	probe $P --policy deadline --cpus 0 --no-mlock
refused "probe --nice -5" '^irt: probe0: --policy other --nice -5: sched_setattr failed: .*\(lowering nice needs root or CAP_SYS_NICE' \
	probe $P --nice -5 --no-mlock

# ---- locked memory within RLIMIT_MEMLOCK (ulimit -l), set per case: 8 MiB, the usual
# default, and 64 KiB, older systems'. Commands that measure several times in one process (a
# run with several probes, a sweep, the default check) lock only the probe threads' memory
# and release it after each measurement: memory_lock "working-set" in the result. Below what
# they need they measure unlocked, say so once, and record "none-rlimit". (ASan's mlock does
# nothing, so there only what irt decides and records is seen; test_bounds checks VmLck.)
mlock_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("memory_lock", "-"))' "$1"; }
locks_of() { for f in "$@"; do mlock_of "$f"; done | sort | uniq -c | awk '{print $1 "*" $2}' | tr '\n' ' ' | sed 's/ $//'; }
note='^irt: note: RLIMIT_MEMLOCK \(ulimit -l\) is 64KiB, below the [0-9.]+[KM]iB the probe threads need locked: measuring without locking memory'
if (ulimit -l 8192) 2>/dev/null; then
	ULIM=8192
	works "8MiB: run, three probes of 1MiB working sets" run $P -w 0 --name a --touch 1M --name b --touch 1M --name c --touch 1M -o r.json
	check "8MiB: run: the probes' memory was locked" [ "$(mlock_of "$W/work/r.json")" = working-set ]
	check "8MiB: run: no note" [ ! -s "$ERR" ]
	works "8MiB: sweep of probe options, 4MiB working sets (two at once would not fit)" \
		sweep --sweep period=1ms,2ms,3ms --touch 4M -n 3 -w 0 --repeat 1 -q -f none -d sw
	check "8MiB: sweep: every run locked its probe's memory ($(locks_of "$W"/work/sw/c*/r*.json))" \
		[ "$(locks_of "$W"/work/sw/c*/r*.json)" = "3*working-set" ]
	works "8MiB: probe --touch 16M, more than the limit: measured unlocked" probe $P --touch 16M -o big.json
	check "8MiB: probe --touch 16M: recorded" [ "$(mlock_of "$W/work/big.json")" = none-rlimit ]
	check_err '^irt: note: RLIMIT_MEMLOCK \(ulimit -l\) is 8MiB, below the 1[67]\.?[0-9]*MiB the probe threads need locked' "8MiB: probe --touch 16M: says so"
	# compared with a locked run of the same probe, the unlocked one is named, not silently mixed
	works "8MiB: probe --touch 1M: locked" probe $P --touch 1M -o small.json
	works "8MiB: compare the locked and the unlocked run" compare small.json big.json
	check_out "^conditions differ: memory lock working-set in A, none-rlimit in B$" \
		"8MiB: compare names the memory lock that differs"
	works "8MiB: monitor --touch 16M, unlocked" monitor --touch 16M --interval 100ms --for 200ms --textfile m.prom -q
	check "8MiB: monitor: the textfile says the probes ran unlocked" grep -q 'memory_lock="none-rlimit"' "$W/work/m.prom"
	works "8MiB: probe --touch 16M --no-mlock" probe $P --touch 16M --no-mlock -o nolock.json
	check "8MiB: --no-mlock: recorded, no note" [ "$(mlock_of "$W/work/nolock.json")" = none ] && [ ! -s "$ERR" ]
	works "8MiB: irt sim sweep" sim "$W/interactive.ini" --duration 1s -f none -o sim.json
	check "8MiB: irt sim sweep wrote every cell" [ "$(ls "$W"/work/sim-cell*.json | wc -l)" -ge 6 ]
	rm -rf "${W:?}/work/"*
	# (the default check takes 20-30 s: once, in the release pass; at 64 KiB the sweep below
	# covers several measurements in one process)
	if [ "${IRT_VARIANT:-release}" = release ]; then
		works "8MiB: the default check" check
		check_out '^under load, better setting ' "8MiB: the default check ran all three phases"
		check_out '^SCHED_FIFO: not measured \(--policy fifo --prio 50 needs root \(or CAP_SYS_NICE, or RLIMIT_RTPRIO 50: ulimit -r\)\); the better setting is an EEVDF slice instead\.$' \
			"8MiB: the default check says why it measured no real-time setting"
		check "8MiB: the default check: no note" [ -z "$(grep note "$ERR")" ]
		check "8MiB: the default check wrote its report" [ -s "$W/work/irt-report.html" ]
		rm -rf "${W:?}/work/"*
	fi

	ULIM=64
	works "64KiB: probe" probe $P -o p.json
	check "64KiB: probe: recorded" [ "$(mlock_of "$W/work/p.json")" = none-rlimit ]
	check_err "$note" "64KiB: probe: says so"
	works "64KiB: run, three probes" run $P -w 0 --name a --touch 1M --name b --name c -o r.json
	check "64KiB: run: recorded" [ "$(mlock_of "$W/work/r.json")" = none-rlimit ]
	works "64KiB: sweep of probe options" sweep --sweep period=1ms,2ms,3ms --touch 1M -n 3 -w 0 --repeat 1 -f none -d sw
	check "64KiB: sweep: every run recorded it ($(locks_of "$W"/work/sw/c*/r*.json))" \
		[ "$(locks_of "$W"/work/sw/c*/r*.json)" = "3*none-rlimit" ]
	check "64KiB: sweep: said once, not per run" [ "$(grep -cE "$note" "$ERR")" = 1 ]
	works "64KiB: irt sim sweep" sim "$W/interactive.ini" --duration 1s -f none
	rm -rf "${W:?}/work/"*
	ULIM=""
else
	skip "locked memory: cannot set ulimit -l 8192 here (hard limit $(ulimit -H -l) KiB)"
fi

# ---- run: each placement
works "run --placement same, cpu load" run $P -w 0 --load cpu:threads=1 --placement same
works "run --placement session, cpu load" run $P -w 0 --load cpu:threads=1 --placement session
# a missing privilege is exit 1, as for probe --policy fifo and a sweep's placement=split cell,
# though it is known before anything runs; "needs root" said once
split_re='^irt: --placement split: cannot create a cgroup in [^ ]* \(needs root \(or write access to the cgroup directory\)\); use --placement same or session$'
refused "run --placement split" "$split_re" run $P -w 0 --placement split -o out.json
for st in absent present; do
	default_state_ok $st "run --placement split, /var/lib/irt $st" &&
		refused "run --placement split, /var/lib/irt $st" "$split_re" $st run $P -w 0 --placement split
done
# user= naming the user irt runs as changes nothing, so it needs no privilege; another user does
if is_root; then me=nobody; else me=$(id -un); fi
works "run, a load with user=$me, the user irt runs as" run $P -w 0 --load cpu:threads=1,user=$me
refused "run, a load as another user" "^irt: --load: load 'cpu:threads=1,user=0': user=0 needs root" \
	run $P -w 0 --load cpu:threads=1,user=0
# a load's dir= this user cannot write: bad input, said before anything runs
if is_root; then   # root's own directory
	mkdir -m 0700 "$W/private"
	u run $P -w 0 --load io:1,dir="$W/private" -o out.json
	if [ "$RC" -eq 2 ] && [ "$(wc -l <"$ERR")" -eq 1 ] && [ -z "$(ls -A "$W/work")" ] &&
		grep -Eq "^irt: load io: load 'io:1,dir=$W/private': dir=$W/private: Permission denied \(a directory this user may write and enter: choose another dir=\)$" "$ERR"
	then pass; else fail "run, an io load in a directory this user cannot write: exit $RC, wanted 2 and one line"; head -3 "$ERR" | sed 's/^/    | /'; fi
	rm -rf "${W:?}/work/"*
else
	skip "run, an io load in a directory this user cannot write: needs root to make one"
fi
refused "run, a fifo load" "^irt: load cpu: load 'cpu:policy=fifo': cannot set policy=fifo \(needs root or CAP_SYS_NICE" \
	run $P -w 0 --load cpu:policy=fifo -o out.json
refused "run, a load at nice -5" "^irt: load cpu: load 'cpu:nice=-5': cannot set nice=-5 \(lowering nice needs root or CAP_SYS_NICE" \
	run $P -w 0 --load cpu:nice=-5

# ---- watch: tracing needs root, said before any load is started
wre='^irt: watch: irt watch needs root \(it reads the scheduler.s events through tracefs; run it as root, or use irt probe or irt run\)$'
refused "watch" "$wre" watch --comm irt --watch-for 100ms -o out.json
refused "watch beside a load" "$wre" \
	watch --comm irt --watch-for 100ms --load cpu:threads=1 -o out.json
refused "watch --all (every task)" "$wre" watch --all --by-cpu --watch-for 100ms -o out.json

# ---- knobs and restore
works "knobs lists" knobs
check_out '^kernel.sched_rr_timeslice_ms +system +[0-9]' "knobs shows the values it can read"
if is_root; then check_out 'not writable \(needs root' "knobs says why a sysctl is unavailable"
else skip "knobs says why a sysctl is unavailable: as an ordinary user irt cannot tell the lack of root from a read-only sysctl"; fi
works "knobs --json" knobs --json k.json -f none
rm -f "$W/work/k.json"
refused "knobs --apply a sysctl" '^irt: kernel.sched_rr_timeslice_ms: unavailable here: .* is not writable \(needs root' \
	knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1s
refused "knobs --apply a cgroup knob" '^irt: cgroup.quota: unavailable here: .*\(needs root' knobs --apply cgroup.quota=10ms --hold 1s
# whether the default state directory exists or not, a knob this user cannot change says why
# before the journal is locked (the lock's privilege would be the wrong remedy); each kind
for st in absent present; do
	default_state_ok $st "knobs --apply, /var/lib/irt $st" || continue
	for k in kernel.sched_rr_timeslice_ms=10 cgroup.quota=10ms cgroup.shares=50 cgroup.weight=50 smt=off \
		cpuidle.max_state=0 pm.dma_latency=0; do
		refused "knobs --apply $k, /var/lib/irt $st" "^irt: ${k%%=*}: unavailable here: " $st knobs --apply $k --hold 1s
	done
done
works "restore with nothing to restore" restore
check_out '^nothing to restore' "restore says there was nothing"

# ---- results: compare, report, sweeps
works "compare" compare "$W/a.json" "$W/a.json"
works "report -o" report "$W/a.json" -o r.html -f none
check "report wrote the HTML" [ -s "$W/work/r.html" ]
rm -f "$W/work/r.html"
works "sweep of probe options" sweep --sweep period=1ms,2ms -n 3 -w 0 --repeat 1 -q -f none -d sw
check "the sweep wrote its summary" [ -s "$W/work/sw/sweep.json" ]
rm -rf "$W/work/sw"
# a cell's probe privileges are checked before the sweep starts, as knobs are: no partial sweep
refused "sweep of policy, fifo needs a privilege" '^irt: cell policy=fifo: --policy fifo --prio 80 needs root \(or CAP_SYS_NICE, or RLIMIT_RTPRIO' \
	sweep --sweep policy=other,batch,fifo --load cpu:1 -n 3 -w 0 --repeat 1 -q -d sw
refused "sweep of policy, deadline" '^irt: cell policy=deadline: --policy deadline needs root \(or CAP_SYS_NICE\)' \
	sweep --sweep policy=other,deadline -n 3 -w 0 --repeat 1 -q -d sw
refused "sweep of a negative nice" '^irt: cell nice=-5: --nice -5 needs root \(or CAP_SYS_NICE, or RLIMIT_NICE' \
	sweep --sweep nice=0,-5 -n 3 -w 0 --repeat 1 -q -d sw
refused "sweep of placement split" '^irt: cell placement=split: --placement split: ' \
	sweep --sweep placement=same,split --load cpu:1 -n 3 -w 0 --repeat 1 -q -d sw
refused "sweep of a sysctl" '^irt: kernel.sched_rr_timeslice_ms: unavailable here: .*\(needs root' \
	sweep --sweep kernel.sched_rr_timeslice_ms=10,20 -n 3 -w 0 --repeat 1 -d sw
for st in absent present; do
	default_state_ok $st "sweep of a cgroup knob, /var/lib/irt $st" &&
		refused "sweep of a cgroup knob, /var/lib/irt $st" '^irt: (cgroup.quota: unavailable here|journal: cannot (lock|create)).*needs root' \
			$st sweep --sweep cgroup.quota=10ms,20ms -n 3 -w 0 --repeat 1 -d sw
done
# where a user looks first, irt --help: a missing privilege is exit 1, the status every case above has
u --help
check "irt --help: exit 1 is also a missing privilege" grep -q '^Exit status: 0 ok, 1 runtime failure or a missing privilege' "$OUT"

# ---- the simulator needs nothing
works "sim" sim "$W/quota.ini" --duration 1s -o sim.json
check "sim wrote its result" [ -s "$W/work/sim.json" ]
rm -f "$W/work/sim.json"
works "sim --step" sim --step "$W/basics.step"
finish
