#!/bin/sh
# Measurement conditions on the real machine (the fake trees are tests/unit/test_conditions.c):
# the manifest in every real result, the PM QoS hold while held and released after a normal
# exit, SIGINT and SIGKILL, a disabled cpuidle state put back through the journal after
# SIGKILL, compare flagging unlike conditions but not a swept one, and what an ordinary user
# gets. Other engineers' tests may hold PM QoS meanwhile: assertions look at irt's own hold
# (its descriptor) and at values "no higher than ours", never at the machine being quiet.
. "$IRT_TOP/tests/cli/lib.sh"

NONE=2000000000
DEV=/dev/cpu_dma_latency

# the system-wide PM QoS target (root only), or empty
pm_value() { python3 -c "import struct,sys; print(struct.unpack('i', open('$DEV','rb').read(4))[0])" 2>/dev/null; }
# does process $1 hold $DEV open?
holds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q "$DEV"; }
# pids of every process that holds $DEV open
holders() { for d in /proc/[0-9]*; do ls -l "$d/fd" 2>/dev/null | grep -q "$DEV" && echo "${d#/proc/}"; done; }
# waits up to 5 s for process $1 to hold $DEV
wait_hold() { i=0; while ! holds "$1" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; holds "$1"; }
# no request is left without a live holder (a leaked hold would read low with nobody holding it)
released() {
	v=$(pm_value)
	[ "$v" = "$NONE" ] && return 0
	[ -n "$(holders)" ]
}
# json FILE EXPR: prints the Python expression over the loaded JSON as d
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# manifest FILE: its conditions as KEY<TAB>VALUE lines in FILE.txt (one python per file)
manifest() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for k, v in d.get('conditions', {}).items(): print(k + '\t' + v)" "$1" >"$1.txt"
}
# cond FILE KEY: the value of KEY in FILE's manifest
cond() { grep "^$2	" "$1.txt" | cut -f2-; }
# cmatch FILE KEY REGEX: it matches the extended regex
cmatch() { cond "$1" "$2" | grep -Eq -- "$3"; }

# ---- the manifest is in every real result, and sane here
check_exit 0 "probe writes a result" "$IRT" probe -i 1ms -n 50 -q --json r.json
manifest r.json
check_out "^conditions: PM QoS not held \(system-wide: " "the summary says which PM QoS was used"
keys="pm_qos pm_qos.system cpuidle.driver cpuidle.governor cpuidle.states cpufreq.driver cpufreq.governor
cpufreq.min_khz cpufreq.max_khz cpufreq.cur_khz cpufreq.boost smt cmdline hypervisor thp irq_affinity
rt_throttling kernel.config_hash steal"
missing=""
for k in $keys; do grep -q "^$k	" r.json.txt || missing="$missing $k"; done
check "every manifest key is present (missing:$missing)" [ -z "$missing" ]
check "conditions_changed is an object" [ "$(json r.json "type(d['conditions_changed']).__name__")" = dict ]
check "pm_qos: not held by default" [ "$(cond r.json pm_qos)" = "not held" ]
if [ -r /sys/devices/system/cpu/cpuidle/current_driver ]; then
	drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver)
	check "cpuidle.driver is the kernel's ($drv)" [ "$(cond r.json cpuidle.driver)" = "$drv" ]
	name0=$(cat /sys/devices/system/cpu/cpu0/cpuidle/state0/name 2>/dev/null)
	if [ -n "$name0" ]; then
		check "cpuidle.states names state0 ($name0)" \
			cmatch r.json cpuidle.states "$name0 \(exit [0-9]+ µs"
	else   # a driver of "none" has no states
		skip "cpuidle driver $drv has no states"
	fi
else
	skip "no cpuidle here"
	skip "no cpuidle here"
fi
if [ -r /sys/devices/system/cpu/smt/control ]; then
	check "smt is the kernel's control" cmatch r.json smt "^$(cat /sys/devices/system/cpu/smt/control)"
else
	check "smt says why it is missing" cmatch r.json smt "^unavailable: "
fi
if [ -d /sys/devices/system/cpu/cpu0/cpufreq ]; then
	check "cpufreq.governor read" cmatch r.json cpufreq.governor "^(all CPUs|cpu[0-9])"
else
	check "cpufreq says why it is missing" cmatch r.json cpufreq.governor "^unavailable: no "
fi
check "steal over the run" cmatch r.json steal "^[0-9]+\.[0-9]{2}% of CPU time during the run$"
check "irq affinity summarised" cmatch r.json irq_affinity "^[0-9]+ of [0-9]+ IRQs "
check "kernel config hash" cmatch r.json kernel.config_hash "^(crc32 [0-9a-f]{8} of [0-9]+ bytes|unreadable: )"
check "rt throttling" cmatch r.json rt_throttling "(µs of every|^off)"
check_exit 0 "run writes a result" "$IRT" run -i 1ms -D 300ms --warmup 0 -q --cpus 0 --json run.json
manifest run.json
check "run has the manifest, IRQs for its --cpus" cmatch run.json irq_affinity "probe CPUs 0$"

# ---- PM QoS: the hold is the open descriptor
if is_root && [ -w "$DEV" ]; then
	"$IRT" probe -i 1ms -D 2s -q --pm-qos 20 --json held.json >/dev/null 2>&1 &
	pid=$!
	check "irt holds $DEV while it runs" wait_hold $pid
	v=$(pm_value)
	check "the system-wide value reads at most irt's 20 us while held (read $v)" [ "${v:-99}" -le 20 ]
	wait $pid
	check "normal exit: exit 0" [ $? -eq 0 ]
	check "normal exit: no hold left behind" released
	manifest held.json
	check "the result says held at 20 µs" [ "$(cond held.json pm_qos)" = "held at 20 µs" ]
	check "the result records the setting" [ "$(json held.json "d['settings']['pm-qos']")" = "20us" ]
	sysv=$(cond held.json pm_qos.system)
	check "the system value recorded is at most 20 us ($sysv)" [ "${sysv%% *}" -le 20 ]

	"$IRT" probe -i 1ms -D 20s -q --pm-qos 20 >/dev/null 2>&1 &
	pid=$!
	wait_hold $pid
	kill -INT $pid
	wait $pid
	rc=$?
	check "SIGINT: exit 3 (interrupted)" [ $rc -eq 3 ]
	check "SIGINT: no hold left behind" released

	"$IRT" probe -i 1ms -D 20s -q --pm-qos 20 >/dev/null 2>&1 &
	pid=$!
	wait_hold $pid
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "SIGKILL: no hold left behind (the kernel closes the descriptor)" released

	# loads never inherit the hold: only irt itself holds it
	"$IRT" run -i 1ms -D 2s --warmup 0 -q --pm-qos 20 --load cpu:threads=1 --format none >/dev/null 2>&1 &
	pid=$!
	wait_hold $pid
	sleep 0.5
	kids=$(pgrep -P $pid; for k in $(pgrep -P $pid); do pgrep -P "$k"; done)
	leak=""
	for k in $kids; do holds "$k" && leak="$leak $k"; done
	check "run: the load processes do not hold PM QoS ($leak)" [ -z "$leak" ]
	wait $pid
	check "run: released at exit" released
else
	for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "holding PM QoS needs root and $DEV"; done
fi

# ---- a disabled cpuidle state comes back after SIGKILL, through the journal
S1=/sys/devices/system/cpu/cpu0/cpuidle/state1/disable
if is_root && [ -w "$S1" ]; then
	before=$(for f in /sys/devices/system/cpu/cpu*/cpuidle/state*/disable; do printf '%s=%s ' "$f" "$(cat "$f")"; done)
	"$IRT" knobs --apply cpuidle.max_state=0 --hold 30s >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ "$(cat $S1)" != 1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	check "cpuidle.max_state=0 disables state1" [ "$(cat $S1)" = 1 ]
	check "journaled before the change" grep -q "cpuidle/state1/disable" "$IRT_STATE_DIR/journal"
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "after SIGKILL the state is still disabled (nothing ran to restore it)" [ "$(cat $S1)" = 1 ]
	check_exit 0 "irt restore puts it back" "$IRT" restore
	after=$(for f in /sys/devices/system/cpu/cpu*/cpuidle/state*/disable; do printf '%s=%s ' "$f" "$(cat "$f")"; done)
	check "every idle state as before" [ "$before" = "$after" ]
else
	for i in 1 2 3 4 5; do skip "disabling cpuidle states needs root and cpuidle"; done
fi

# ---- compare flags unlike conditions, and not the swept one
python3 - r.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['conditions']['pm_qos'] = 'not held'
# a root run's system-wide target, whoever runs this test (an ordinary user's r.json has none)
d['conditions']['pm_qos.system'] = 'no request (2000000000 µs)'
json.dump(d, open('plain.json', 'w'))
# an unprivileged run's: the system-wide target could not be read
d['conditions']['pm_qos.system'] = 'unreadable: cannot read /dev/cpu_dma_latency: Permission denied (needs root)'
json.dump(d, open('unread.json', 'w'))
d = json.load(open('plain.json'))
d['conditions']['pm_qos'] = 'held at 0 µs'
d['settings']['pm-qos'] = '0us'
json.dump(d, open('held0.json', 'w'))
del d['settings']['pm-qos']
# the same two as cells of a sweep that varied the knob
for name, v, pm in (('sw-a.json', 'none', 'not held'), ('sw-b.json', '0ns', 'held at 0 µs')):
    d['settings']['cell'] = name
    d['settings']['knob.pm.dma_latency'] = v
    d['conditions']['pm_qos'] = pm
    json.dump(d, open(name, 'w'))
EOF
check_exit 0 "compare results taken under different PM QoS" "$IRT" compare held0.json plain.json -o cmp.json
check_out "^conditions differ: PM QoS held at 0 µs in A, not held in B$" "the table flags it"
check "compare.json lists it" grep -q '"conditions differ: PM QoS held at 0 µs in A, not held in B"' cmp.json
check_exit 0 "compare alike results" "$IRT" compare plain.json plain.json
check "nothing flagged between alike results" sh -c "! grep -q 'conditions differ' '$OUT'"
check_exit 0 "compare an unprivileged result with a root one (one cell)" "$IRT" compare unread.json plain.json
check_out "^conditions unknown: system-wide PM QoS unreadable: cannot read /dev/cpu_dma_latency: .* in A, no request .* in A: the comparison cannot rule out a difference$" \
	"an unreadable value is said to be unknown"
check "and not that it differs" sh -c "! grep -q 'conditions differ' '$OUT'"
check_exit 0 "compare the cells of a PM QoS sweep" "$IRT" compare sw-a.json sw-b.json
check "the swept knob is not flagged" sh -c "! grep -q 'conditions differ: PM QoS' '$OUT'"
check_exit 0 "report of results under different PM QoS" "$IRT" report held0.json plain.json --format text
check_out "^  conditions differ: PM QoS held at 0 µs in " "the report's environment section flags it"
if is_root && [ -w "$DEV" ]; then
	check_exit 0 "a real sweep over --pm-qos" "$IRT" sweep --sweep pm-qos=none,20 --repeat 1 -i 1ms -n 30 --warmup 0 -q --dir sw
	check "its comparison does not flag PM QoS" sh -c "! grep -q 'PM QoS' sw/compare.json"
	check "its cells did hold it" sh -c "grep -l 'held at 20 µs' sw/c*/r*.json | grep -q ."
else
	for i in 1 2 3; do skip "holding PM QoS needs root"; done
fi

# ---- an ordinary user: the manifest is still written, what needs root says so
if is_root && command -v setpriv >/dev/null; then
	W=$(mktemp -d /tmp/irt-cond-unpriv.XXXXXX)
	chmod 1777 "$W"
	cp "$IRT" "$W/irt" && chmod 0755 "$W/irt"
	mkdir -m 0755 "$W/state" && chown 65534:65534 "$W/state"
	as_user() { (cd "$W" && IRT_STATE_DIR="$W/state" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"); }
	as_user "$W/irt" probe -i 1ms -n 30 -q --json "$W/u.json" >"$OUT" 2>"$ERR"
	rc=$?
	check "unprivileged probe works" [ $rc -eq 0 ]
	check "and writes its result" [ -s "$W/u.json" ]
	manifest "$W/u.json"
	check "its manifest says the PM QoS value needs root" cmatch "$W/u.json" pm_qos.system "^unreadable: .*needs root"
	check "and still has the idle states" cmatch "$W/u.json" cpuidle.driver "^[^u]"
	as_user "$W/irt" probe -i 1ms -n 30 -q --pm-qos 0 --json "$W/u2.json" >"$OUT" 2>"$ERR"
	rc=$?
	check "unprivileged --pm-qos 0: exit 1" [ $rc -eq 1 ]
	check "one stderr line" [ "$(wc -l <"$ERR")" -eq 1 ]
	check_err "^irt: --pm-qos: PM QoS: cannot open $DEV: .*holding PM QoS needs root" "saying it needs root"
	check "and no result file" [ ! -e "$W/u2.json" ]
	as_user "$W/irt" sweep --sweep pm-qos=none,0 -i 1ms -n 10 --dir "$W/sw" >"$OUT" 2>"$ERR"
	rc=$?
	check "unprivileged sweep of --pm-qos: exit 1" [ $rc -eq 1 ]
	check_err "^irt: --pm-qos: unavailable here: .*holding PM QoS needs root" "before anything is measured, saying why"
	check "and no results directory" [ ! -e "$W/sw" ]
	as_user "$W/irt" knobs >"$OUT" 2>"$ERR"
	check "irt knobs says pm.dma_latency needs root" grep -Eq "^pm.dma_latency +system .*unavailable: .*needs root" "$OUT"
	check "irt knobs says the cpuidle knobs need root" grep -Eq "^cpuidle.max_state +system .*unavailable: .*(needs root|not writable|no cpuidle driver is loaded)" "$OUT"
	rm -rf "$W"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do skip "needs root and setpriv to run as an ordinary user"; done
fi
finish
