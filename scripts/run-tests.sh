#!/bin/sh
# Runs the unit tests (cmocka) and CLI tests (tests/cli/*.sh) for each build variant given
# (release, asan) and ends with one summary line "check: N passed, M failed, K skipped".
#   IRT_TESTS=pattern   run only tests whose file name contains pattern
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
pattern=${IRT_TESTS:-}

for variant in "$@"; do
	echo "=== $variant build"
	for t in build/"$variant"/tests/test_*; do
		[ -x "$t" ] || continue
		case $t in *"$pattern"*) ;; *) continue ;; esac
		t0=$(date +%s)
		out=$(CMOCKA_MESSAGE_OUTPUT=stdout timeout 600 "$t" 2>&1)
		rc=$?
		p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
		f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
		s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n1)
		p=${p:-0} f=${f:-0} s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or timed out
		echo "unit $variant $(basename "$t"): $p passed, $f failed, $s skipped ($(($(date +%s) - t0)) s)"
		[ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error' | head -20
		i=0; while [ $i -lt "$p" ]; do echo pass >>"$counts"; i=$((i + 1)); done
		i=0; while [ $i -lt "$f" ]; do echo fail >>"$counts"; i=$((i + 1)); done
		i=0; while [ $i -lt "$s" ]; do echo skip >>"$counts"; i=$((i + 1)); done
	done
	for t in tests/cli/test_*.sh; do
		[ -f "$t" ] || continue
		case $t in *"$pattern"*) ;; *) continue ;; esac
		before=$(wc -l <"$counts")
		t0=$(date +%s)
		IRT="$top/build/$variant/irt" IRT_VARIANT=$variant IRT_TOP="$top" IRT_COUNTS="$counts" \
			timeout 900 sh "$t"
		rc=$?
		after=$(wc -l <"$counts")
		echo "cli $variant $(basename "$t"): $((after - before)) cases ($(($(date +%s) - t0)) s)"
		if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
			echo "FAIL $t (exit $rc, no cases ran)"; echo fail >>"$counts"
		elif [ "$rc" -ne 0 ] && ! tail -n $((after - before)) "$counts" | grep -q fail; then
			echo "FAIL $t (exit $rc)"; echo fail >>"$counts"
		fi
	done
done

passed=$(grep -c '^pass' "$counts")
failed=$(grep -c '^fail' "$counts")
skipped=$(grep -c '^skip' "$counts")
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
