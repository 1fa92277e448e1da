#!/bin/sh
# Runs the unit tests (cmocka) and CLI tests (tests/cli/*.sh) for each build variant given
# (release, asan) and ends with one summary line "check: N passed, M failed, K skipped".
#   IRT_TESTS=pattern   run only tests whose file name contains pattern
#   IRT_TEST_LANES=1    every test one after the other; default 2: two lanes (below), which take
#   make check on these 2-core machines from 12-13 min to about 8.
#
# With two lanes, both run at the same time. The machine lane runs, one at a time and in order, every CLI
# test that changes or checks the machine's state (tunables, cgroups, tracefs, PM QoS, Slurm
# daemons, users) or that measures against it. The shared lane runs, one at a time, the tests
# that touch nothing outside their own temporary directories: every unit test (fake /proc and
# /sys trees, their own state directories) and the CLI test files whose header says
# "# Runs beside other tests: WHY" (tests/cli/lib.sh). So no two tests that touch the machine
# ever overlap. A machine test whose header says "# Runs alone: WHY" (one that measures what a
# known blocker does) waits for the shared test in progress, and the shared lane waits for it.
# Each test's output is printed as one block when it ends, with its line
# "unit|cli VARIANT NAME: ..."; the summary adds up every test's own count file.
#   IRT_LATER_BUILD=CMD  a build command (make check: the asan variant and the libFuzzer
#   binaries) run beside the first tests: the asan jobs and test_fuzz (its smoke round runs the
#   libFuzzer binaries) wait for it, and fail if it fails. The release tests wait on timers and
#   processes more than on the CPU, so make check no longer builds three variants before it tests
#   one.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pattern=${IRT_TESTS:-}
lanes=${IRT_TEST_LANES:-2}
command -v flock >/dev/null 2>&1 || lanes=1   # (util-linux) the lanes take turns with it
work=$(mktemp -d /tmp/irt-check.XXXXXX)
lane_pids=""
later=${IRT_LATER_BUILD:-}
trap 'rm -rf "$work"' EXIT
trap 'for p in $lane_pids; do kill "$p" 2>/dev/null; done; exit 130' INT TERM

# the jobs, in the order one lane runs them: "MODE KIND VARIANT PATH", MODE machine, alone or
# shared; into machine.jobs and shared.jobs
n=0
for variant in "$@"; do
	for src in tests/unit/test_*.c; do   # (from the sources: a later build makes the binaries)
		t=build/$variant/tests/$(basename "$src" .c)
		case $t in *"$pattern"*) ;; *) continue ;; esac
		echo "shared unit $variant $t"
	done
	for t in tests/cli/test_*.sh; do
		[ -f "$t" ] || continue
		case $t in *"$pattern"*) ;; *) continue ;; esac
		lane=machine
		grep -q '^# Runs beside other tests: ' "$t" && lane=shared
		grep -q '^# Runs alone: ' "$t" && lane=alone
		echo "$lane cli $variant $t"
	done
done | while read -r lane kind variant t; do
	n=$((n + 1))
	mode=$lane
	[ "$lane" = shared ] || lane=machine
	[ "$lanes" = 1 ] && lane=machine
	printf '%04d %s %s %s %s\n' "$n" "$mode" "$kind" "$variant" "$t" >>"$work/$lane.jobs"
done

# show FILE: prints a finished test's output as one block (the lanes take turns)
show() {
	if [ "$lanes" = 1 ]; then cat "$1"; else flock "$work/print.lock" cat "$1"; fi
}

run_unit() {   # run_unit ID VARIANT PATH: counts into ID.counts, output into ID.out
	id=$1 variant=$2 t=$3
	t0=$(date +%s)
	out=$(CMOCKA_MESSAGE_OUTPUT=stdout timeout 600 "$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or timed out
	{
		echo "unit $variant $(basename "$t"): $p passed, $f failed, $s skipped ($(($(date +%s) - t0)) s)"
		[ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error' | head -20
	} >"$work/$id.out"
	i=0; while [ $i -lt "$p" ]; do echo pass; i=$((i + 1)); done >"$work/$id.counts"
	i=0; while [ $i -lt "$f" ]; do echo fail; i=$((i + 1)); done >>"$work/$id.counts"
	i=0; while [ $i -lt "$s" ]; do echo skip; i=$((i + 1)); done >>"$work/$id.counts"
}

run_cli() {   # run_cli ID VARIANT PATH
	id=$1 variant=$2 t=$3 counts=$work/$id.counts
	: >"$counts"
	t0=$(date +%s)
	IRT="$top/build/$variant/irt" IRT_VARIANT=$variant IRT_TOP="$top" IRT_COUNTS="$counts" \
		timeout 900 sh "$t" >"$work/$id.out" 2>&1
	rc=$?
	cases=$(wc -l <"$counts")
	echo "cli $variant $(basename "$t"): $cases cases ($(($(date +%s) - t0)) s)" >>"$work/$id.out"
	if [ "$rc" -ne 0 ] && [ "$cases" -eq 0 ]; then
		echo "FAIL $t (exit $rc, no cases ran)" >>"$work/$id.out"; echo fail >>"$counts"
	elif [ "$rc" -ne 0 ] && ! grep -q fail "$counts"; then
		echo "FAIL $t (exit $rc)" >>"$work/$id.out"; echo fail >>"$counts"
	fi
}

# later_built ID VARIANT PATH: waits for the later build if the job needs it; false (the job
# counted as failed) if that build failed
later_built() {
	[ -n "$later" ] || return 0
	case $2:$3 in asan:* | *test_fuzz.sh) ;; *) return 0 ;; esac
	flock -s "$work/build.lock" true
	[ "$(cat "$work/build.rc")" = 0 ] && return 0
	echo "FAIL $3 ($2): not run, the build it needs failed: $later" >"$work/$1.out"
	echo fail >"$work/$1.counts"
	return 1
}

run_lane() {   # run_lane LANE: its jobs, one after the other (the list on fd 3: tests keep stdin)
	[ -f "$work/$1.jobs" ] || return 0
	while read -r id mode kind variant t <&3; do
		if ! later_built "$id" "$variant" "$t"; then show "$work/$id.out"; continue; fi
		# (the test gets neither the list nor the lock: a process it leaves would hold them)
		if [ "$lanes" = 1 ]; then
			"run_$kind" "$id" "$variant" "$t" 3<&-
		else   # a shared test holds the turn lock shared, a test that runs alone exclusively
			lock=-s
			[ "$mode" = alone ] && lock=-x
			[ "$mode" = machine ] && lock=""
			(
				[ -z "$lock" ] || flock $lock 9
				"run_$kind" "$id" "$variant" "$t" 3<&- 9>&-
			) 9>>"$work/alone.lock"
		fi
		show "$work/$id.out"
	done 3<"$work/$1.jobs"
}

if [ -n "$later" ] && ! command -v flock >/dev/null 2>&1; then   # no lock to wait on: build first
	$later || exit 1
	later=""
fi
if [ -n "$later" ]; then   # the build holds build.lock (fd 8, inherited) until it ends
	exec 8>"$work/build.lock"
	flock -x 8
	(
		echo "=== building beside the first tests: $later"
		$later >"$work/build.out" 2>&1
		rc=$?
		echo $rc >"$work/build.rc"
		grep -v '^  [CL][CD] ' "$work/build.out" >"$work/build.msg"
		echo "=== built (exit $rc)" >>"$work/build.msg"
		show "$work/build.msg"
	) &
	lane_pids="$!"
	exec 8>&-
fi

if [ "$lanes" = 1 ]; then
	echo "=== $*: one test at a time"
	run_lane machine
else
	echo "=== $*: the machine's tests one at a time; beside them the shared ones (scripts/run-tests.sh)"
	run_lane machine &
	lane_pids="$lane_pids $!"
	run_lane shared &
	lane_pids="$lane_pids $!"
fi
wait

# every test's counts, in the order of the job lists; a test that never ran is a failure
: >"$work/all"
for id in $(cat "$work"/*.jobs 2>/dev/null | sort | cut -d' ' -f1); do
	if [ -f "$work/$id.counts" ]; then cat "$work/$id.counts" >>"$work/all"
	else echo "FAIL $(grep -h "^$id " "$work"/*.jobs | cut -d' ' -f4-): did not run"; echo fail >>"$work/all"; fi
done
passed=$(grep -c '^pass' "$work/all")
failed=$(grep -c '^fail' "$work/all")
skipped=$(grep -c '^skip' "$work/all")
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
