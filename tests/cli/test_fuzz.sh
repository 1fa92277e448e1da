#!/bin/sh
# Fuzz targets in make check (docs/hardening.md):
#  - every variant replays tests/fuzz-regressions/TARGET/ (inputs that once crashed a target or
#    broke a property) and the seed corpus fuzz/corpus/TARGET/ through the target built with
#    fuzz/replay.c, so they run under the plain and the ASan/UBSan build with any compiler;
#  - the release pass also runs a short libFuzzer round of each target (scripts/fuzz.sh smoke:
#    the corpus, then 3000 mutations), or says visibly why it cannot.
# Runs beside other tests: the targets read the corpora and write temporary directories only.
. "$IRT_TOP/tests/cli/lib.sh"

variant=${IRT_VARIANT:-release}
bins=$IRT_TOP/build/$variant/fuzz-replay
for src in "$IRT_TOP"/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c) target=${name#fuzz_}
	bin=$bins/$name
	if [ ! -x "$bin" ]; then fail "fuzz $target: $bin not built (make check builds it)"; continue; fi
	set -- "$IRT_TOP/fuzz/corpus/$target"
	[ -d "$IRT_TOP/tests/fuzz-regressions/$target" ] && set -- "$@" "$IRT_TOP/tests/fuzz-regressions/$target"
	if "$bin" "$@" >"$OUT" 2>"$ERR"; then pass; else
		fail "fuzz $target: replay of corpus and regressions failed"; grep -E 'property|ERROR|runtime error' "$ERR" | head -5 | sed 's/^/    | /'
	fi
done

if [ "$variant" = release ]; then
	names=""
	for src in "$IRT_TOP"/fuzz/fuzz_*.c; do names="$names $(basename "$src" .c)"; done
	missing=""
	for n in $names; do [ -x "$IRT_TOP/build/fuzz/$n" ] || missing="$missing $n"; done
	if [ -n "$missing" ]; then
		skip "libFuzzer round: not built:$missing (needs clang-14 and libclang-rt-14-dev; make fuzz-bins)"
	else
		# shellcheck disable=SC2086
		if sh "$IRT_TOP/scripts/fuzz.sh" smoke $names >"$OUT" 2>&1; then pass; else
			fail "libFuzzer smoke round"; grep -v '^fuzz smoke: .*exec/s$' "$OUT" | head -20 | sed 's/^/    | /'
		fi
		sed 's/^/    /' "$OUT" | grep 'fuzz smoke' | tr '\n' ' ' | sed 's/  */ /g; s/^/    /'
		echo
	fi
fi
finish
