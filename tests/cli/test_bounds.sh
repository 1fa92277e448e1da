#!/bin/sh
# irt's own memory stays flat however long it runs (docs/hardening.md): VmRSS of a probe
# recording 10 million samples (1 million under ASan) and of irt run's main loop, read from
# /proc while they run. The probe runs with -i 1us: always overrun, so every iteration
# records at once (open loop) and 10 million samples take seconds, not hours. No timing is
# asserted; a run too short to be observed a few times skips the trend (a counted skip).
# Runs beside other tests: it reads only its own processes' /proc files.
. "$IRT_TOP/tests/cli/lib.sh"

# watch NAME PID: VmRSS (KiB) every 0.2 s until PID ends; then checks that after the first
# two readings (start-up, mlockall) it grew by at most 128 KiB. Unprivileged irt cannot
# mlockall and prefault: pages it first touches later (a probe's two 140 KiB histograms as
# the latencies spread) add up to 288 KiB more, once. Under ASan the sanitizer's own shadow
# and quarantine grow too (root runs read +352 and +420 KiB): 1 MiB there. Any allocation
# leaked per sample is at least 48 bytes under ASan (16 and a redzone), 48 MiB for 1 million.
limit=128
is_root || limit=$((128 + 288))
[ "${IRT_VARIANT:-release}" = asan ] && limit=1024
watch() {
	name=$1 pid=$2 readings=""
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$kb" ] && readings="$readings $kb"
		sleep 0.2
	done
	wait "$pid"
	rc=$?
	set -- $readings
	if [ $# -lt 4 ]; then
		check "$name: exit 0" [ $rc -eq 0 ]
		skip "$name: VmRSS trend: ended after $# readings, too soon to see one"
		return
	fi
	shift 2
	base=$1 max=$1
	for kb in "$@"; do [ "$kb" -gt "$max" ] && max=$kb; done
	echo "    $name: VmRSS $base KiB -> at most $max KiB over $# readings"
	check "$name: exit 0" [ $rc -eq 0 ]
	check "$name: VmRSS grew by at most $limit KiB ($base -> $max KiB)" [ $((max - base)) -le $limit ]
}

n=10000000
[ "${IRT_VARIANT:-release}" = asan ] && n=1000000
# LeakSanitizer's check at exit reads all of irt's memory: +14 MiB of VmRSS for the moment it
# takes, seen when a reading fell into it (a busy machine makes it longer). That is the
# sanitizer's, not irt's growth; the other tests keep the leak check.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# (the summary table only: writing a JSON record at the end allocates, by design, once)
"$IRT" probe -i 1us -n $n -q >"$T/many.out" &
watch "probe, $n samples" $!
check "the table counts all $n samples" grep -Eq "^probe0 +$n " "$T/many.out"

"$IRT" run -D 3s -i 100us -w 0 -q -f none --load cpu:threads=1 --load pipe:groups=1,fds=1 &
watch "run, 3 s with two loads" $!
finish
