#!/bin/sh
# The libFuzzer side of irt's fuzz targets (fuzz/fuzz_*.c; docs/hardening.md).
#   fuzz.sh have-runtime CC       exit 0 if CC links -fsanitize=fuzzer programs
#   fuzz.sh run SECONDS NAME...   fuzz each target for SECONDS, then print a table of
#                                 executions/s and runs per target; fails if any crashed
#   fuzz.sh smoke NAME...         a short round each (make check): seed corpus, then a few
#                                 thousand runs; prints one line per target
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
what=${1:-}
[ $# -gt 0 ] && shift

case $what in
have-runtime)
	cc=${1:-clang}
	command -v "$cc" >/dev/null 2>&1 || exit 1
	tmp=$(mktemp -d)
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
	"$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1
	rc=$?
	rm -rf "$tmp"
	exit $rc
	;;
run|smoke) ;;
*) echo "usage: fuzz.sh have-runtime CC | run SECONDS NAME... | smoke NAME..." >&2; exit 2 ;;
esac

if [ "$what" = run ]; then
	secs=$1; shift
fi
failed=0
summary=""
for name in "$@"; do
	bin=build/fuzz/$name
	seeds=fuzz/corpus/${name#fuzz_}
	[ -x "$bin" ] || { echo "fuzz: $bin is missing" >&2; failed=1; continue; }
	mkdir -p "$seeds"
	if [ "$what" = run ]; then
		work=build/fuzz/corpus/${name#fuzz_} crashes=build/fuzz/crashes/${name#fuzz_}
		mkdir -p "$work" "$crashes"
		set -- -max_total_time="$secs" -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/"
	else
		work=$(mktemp -d) crashes=$work/crash-
		set -- -runs=3000 -max_total_time=5 -timeout=10 -print_final_stats=1 -artifact_prefix="$work/"
	fi
	dict=fuzz/${name#fuzz_}.dict
	[ -f "$dict" ] && set -- "$@" -dict="$dict"
	log=$(mktemp)
	"$bin" "$@" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	line=$(printf '%-14s %10s runs %8s exec/s' "${name#fuzz_}" "${runs:-?}" "${eps:-?}")
	if [ $rc -ne 0 ]; then
		failed=1
		line="$line  CRASH (exit $rc)"
		grep -E 'ERROR|runtime error|property failed|Test unit written|ParseDictionaryFile' "$log" | head -8 | sed 's/^/    | /' >&2
	fi
	if [ "$what" = smoke ]; then
		echo "fuzz smoke: $line"
		rm -rf "$work"
	else
		echo "fuzz: $line"
		summary="$summary$line
"
	fi
	rm -f "$log"
done
if [ "$what" = run ]; then
	echo "== fuzz summary (${secs}s per target)"
	printf '%s' "$summary"
fi
exit $failed
