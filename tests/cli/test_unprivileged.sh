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
cp "$IRT_TOP/tests/sim/step/hwquota_basics.step" "$W/basics.step"
chmod 0644 "$W/a.json" "$W/quota.ini" "$W/basics.step"
mkdir -m 1777 "$W/work"
mkdir -m 0755 "$W/state"   # the user's own state directory: irt refuses one others can write
if is_root; then
	if ! command -v setpriv >/dev/null; then
		echo "SKIP test_unprivileged.sh: setpriv (util-linux) is missing"
		
# ---- the simulator needs nothing
works "sim" sim "$W/quota.ini" --duration 1s -o sim.json
check "sim wrote its result" [ -s "$W/work/sim.json" ]
rm -f "$W/work/sim.json"
works "sim --step" sim --step "$W/basics.step"
finish
	fi
	chown 65534:65534 "$W/state"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
else
	as_user() { "$@"; }
fi

# u [STATE] ARGS...: irt as the user in $W/work; STATE "default" leaves IRT_STATE_DIR unset
u() {
	if [ "$1" = default ]; then
		shift
		(cd "$W/work" && as_user env -u IRT_STATE_DIR "$W/bin/irt" "$@") >"$OUT" 2>"$ERR"
	else
		(cd "$W/work" && as_user env IRT_STATE_DIR="$W/state" "$W/bin/irt" "$@") >"$OUT" 2>"$ERR"
	fi
	RC=$?
}
# works NAME ARGS...: exit 0
works() {
	name=$1; shift
	u "$@"
	if [ "$RC" -eq 0 ]; then pass; else fail "$name: exit $RC, wanted 0"; head -3 "$ERR" | sed 's/^/    | /'; fi
}
# refused NAME REGEX ARGS...: exit 1, one stderr line matching REGEX, nothing written in work/
refused() {
	name=$1 re=$2; shift 2
	u "$@"
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq 1 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$ERR" && [ -z "$(ls -A "$W/work")" ]; then pass
	else fail "$name: exit $RC, $lines stderr lines, files: $(ls -A "$W/work" | tr '\n' ' '), wanted 1 and one line /$re/"
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
lim=$(ulimit -l)   # KiB, inherited by the user's irt
if [ "$lim" != unlimited ] && [ "$lim" -lt 131072 ]; then
	refused "probe --touch beyond RLIMIT_MEMLOCK" \
		'^irt: --touch: locking working sets of 128MiB in all exceeds RLIMIT_MEMLOCK, .*\(needs root or CAP_IPC_LOCK, a raised ulimit -l, or --no-mlock\)$' \
		probe $P --touch 128M -o out.json
else
	echo "SKIP test_unprivileged.sh: RLIMIT_MEMLOCK is $lim KiB, the --touch refusal needs less than 128 MiB"
fi
refused "probe --policy fifo" '^irt: probe0: --policy fifo --prio 80: sched_setattr failed: Operation not permitted \(needs root or CAP_SYS_NICE, or a raised RLIMIT_RTPRIO' \
	probe $P --policy fifo --no-mlock -o out.json
refused "probe --policy rr" 'sched_setattr failed: Operation not permitted \(needs root or CAP_SYS_NICE' probe $P --policy rr --no-mlock
refused "probe --policy deadline" '^irt: probe0: --policy deadline .*sched_setattr failed: Operation not permitted \(needs root' \
	probe $P --policy deadline --no-mlock
refused "probe --nice -5" '^irt: probe0: --policy other --nice -5: sched_setattr failed: .*\(lowering nice needs root or CAP_SYS_NICE' \
	probe $P --nice -5 --no-mlock

# ---- run: each placement
works "run --placement same, cpu load" run $P -w 0 --load cpu:threads=1 --placement same
works "run --placement session, cpu load" run $P -w 0 --load cpu:threads=1 --placement session
refused "run --placement split" '^irt: --placement split \(needs root to create cgroups; use same or session\): .*needs root' \
	run $P -w 0 --placement split -o out.json
refused "run --placement split, default state dir" '^irt: --placement split \(needs root to create cgroups; use same or session\)' \
	default run $P -w 0 --placement split
refused "run, a fifo load" "^irt: load cpu: load 'cpu:policy=fifo': cannot set policy=fifo \(needs root or CAP_SYS_NICE" \
	run $P -w 0 --load cpu:policy=fifo -o out.json
refused "run, a load at nice -5" "^irt: load cpu: load 'cpu:nice=-5': cannot set nice=-5 \(lowering nice needs root or CAP_SYS_NICE" \
	run $P -w 0 --load cpu:nice=-5

# ---- knobs and restore
works "knobs lists" knobs
check_out '^kernel.sched_rr_timeslice_ms +system +[0-9]' "knobs shows the values it can read"
if is_root; then check_out 'not writable \(needs root' "knobs says why a sysctl is unavailable"; fi
works "knobs --json" knobs --json k.json -f none
rm -f "$W/work/k.json"
refused "knobs --apply a sysctl" '^irt: kernel.sched_rr_timeslice_ms: unavailable here: .* is not writable \(needs root' \
	knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1s
refused "knobs --apply a cgroup knob" '^irt: cgroup.quota: unavailable here: .*\(needs root' knobs --apply cgroup.quota=10ms --hold 1s
refused "knobs --apply, default state dir" '^irt: journal: cannot (lock|create) .*\(changing tunables needs root .*or set IRT_STATE_DIR to a writable directory\)$' \
	default knobs --apply kernel.sched_rr_timeslice_ms=10 --hold 1s
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
refused "sweep of a sysctl" '^irt: kernel.sched_rr_timeslice_ms: unavailable here: .*\(needs root' \
	sweep --sweep kernel.sched_rr_timeslice_ms=10,20 -n 3 -w 0 --repeat 1 -d sw
refused "sweep of a cgroup knob, default state dir" '^irt: (cgroup.quota: unavailable here|journal: cannot lock).*needs root' \
	default sweep --sweep cgroup.quota=10ms,20ms -n 3 -w 0 --repeat 1 -d sw

# ---- the simulator needs nothing
works "sim" sim "$W/quota.ini" --duration 1s -o sim.json
check "sim wrote its result" [ -s "$W/work/sim.json" ]
rm -f "$W/work/sim.json"
works "sim --step" sim --step "$W/basics.step"
finish
