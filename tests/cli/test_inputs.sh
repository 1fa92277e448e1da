# Files named on the command line (docs/hardening.md: results, job files, workloads, step
# scripts): read as given, but a FIFO no one writes to must not hang irt in open(), and a
# device or a directory is refused; a pipe with a writer (`<(cmd)`, `cmd | irt ... /dev/stdin`,
# a FIFO whose writer is waiting) reads normally. Every refusal: exit 2, one stderr line.
# `timeout` only guards against the hang being tested for (irt waits 2 s for a FIFO's writer).
# Runs beside other tests: it reads files in its own directory; run and sweep are refused before anything runs.
. "$IRT_TOP/tests/cli/lib.sh"

R="$IRT_TOP/tests/golden/result-minimal.json"
L="$IRT_TOP/tests/data/sim-like-run.json"
W="$IRT_TOP/examples/sim/interactive.ini"
S="$IRT_TOP/tests/sim/step/hwquota_basics.step"
mkfifo fifo
printf '[sim]\nimport = fifo\n' >imports.ini
printf '[global]\nduration = 1s\n' >job.ini

# refused NAME REGEX CMD...: exit 2 (124 would be the hang), one stderr line matching REGEX
refused() {
	name=$1 re=$2; shift 2
	run timeout 60 "$@"
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$ERR"; then pass; else
		fail "$name: exit $RC (124: it hung), $lines stderr lines, wanted 2 and one line /$re/"
		head -3 "$ERR" | sed 's/^/    | /'
	fi
}

# ---- a FIFO with no writer: read as empty, the reader's own one-line error
refused "fifo: compare's first result" '^irt: fifo:1:0: not valid JSON' "$IRT" compare fifo "$R"
refused "fifo: compare's second result" '^irt: fifo:1:0: not valid JSON' "$IRT" compare "$R" fifo
refused "fifo: report's input" '^irt: fifo:1:0: not valid JSON' "$IRT" report fifo -f text
refused "fifo: sim --like" '^irt: fifo:1:0: not valid JSON' "$IRT" sim --like fifo -f none
refused "fifo: sim's workload" '^irt: fifo: no threads' "$IRT" sim fifo -f none
refused "fifo: sim --import" '^irt: fifo: empty' "$IRT" sim "$W" --import fifo -f none
refused "fifo: a workload's import =" '^irt: fifo: empty' "$IRT" sim imports.ini -f none
refused "fifo: sim --step" "^irt: fifo: no 'policy' line" "$IRT" sim --step fifo
refused "fifo: run's job file" '^irt: fifo: no section' "$IRT" run fifo -o "$T/r.json"
refused "fifo: sweep's job file" '^irt: fifo: no section' "$IRT" sweep fifo --dir "$T/sw"
refused "fifo: a fleet's job file" '^irt: fifo: no section' "$IRT" fleet slurm "$T/fl" --dry-run -- run fifo
check "fifo: nothing was written" test ! -e "$T/r.json" -a ! -e "$T/sw" -a ! -e "$T/fl"

# ---- a device (read forever: /dev/zero) or a directory: refused by name
refused "device: compare" '^irt: /dev/zero: is a device \(expected a result file\)$' "$IRT" compare "$R" /dev/zero
refused "device: report" '^irt: /dev/zero: is a device \(expected a result file\)$' "$IRT" report /dev/zero -f text
refused "device: sim --like" '^irt: /dev/zero: is a device \(expected a result file\)$' "$IRT" sim --like /dev/zero
refused "device: sim's workload" '^irt: /dev/zero: is a device \(expected a workload file\)$' "$IRT" sim /dev/zero
refused "device: sim --import" '^irt: --import: /dev/zero: is a device \(expected a workload file\)$' \
	"$IRT" sim "$W" --import /dev/zero
refused "device: sim --step" '^irt: /dev/zero: is a device \(expected a step script\)$' "$IRT" sim --step /dev/zero
refused "device: run's job file" '^irt: /dev/zero: is a device \(expected a job file\)$' "$IRT" run /dev/zero
refused "device: sweep's job file" '^irt: /dev/zero: is a device \(expected a job file\)$' "$IRT" sweep /dev/zero
refused "directory: sim --like" '^irt: \.: is a directory \(expected a result file\)$' "$IRT" sim --like .
refused "directory: sim --import" '^irt: --import: \.: is a directory \(expected a workload file\)$' \
	"$IRT" sim "$W" --import .

# ---- pipes with a writer read normally
timeout 60 sh -c 'cat "$1" | "$2" compare "$1" /dev/stdin' sh "$R" "$IRT" >"$OUT" 2>"$ERR"
RC=$?
check_rc 0 "pipe: compare reads /dev/stdin from cat"
check_out '2 runs: .*/dev/stdin' "pipe: compare lists the piped run"
# '-' is standard input for report as for compare (result_read's "-")
timeout 60 sh -c 'cat "$1" | "$2" compare - "$1"' sh "$R" "$IRT" >"$OUT" 2>"$ERR"
RC=$?
check_rc 0 "pipe: compare reads - from cat"
timeout 60 sh -c 'cat "$1" | "$2" report -' sh "$R" "$IRT" >"$OUT" 2>"$ERR"
RC=$?
check_rc 0 "pipe: report reads - from cat"
check_out '^irt report: 1 result' "pipe: report shows the piped result"
timeout 60 sh -c 'cat "$1" >fifo & exec "$2" compare "$1" fifo' sh "$R" "$IRT" >"$OUT" 2>"$ERR"
RC=$?
check_rc 0 "fifo with its writer waiting: compare reads it"
# substituted NAME FILE IRT-ARGS...: bash runs irt with <(cat FILE), kept open as /dev/fd/3, in
# place of the word FILE
substituted() {
	name=$1 file=$2; shift 2
	if ! command -v bash >/dev/null; then
		skip "<(cat FILE): $name: needs bash"
		return
	fi
	run timeout 60 bash -c 'f=$1 irt=$2; shift 2; exec 3< <(cat "$f")
		for a; do [ "$a" = "$f" ] && a=/dev/fd/3; set -- "$@" "$a"; shift; done; exec "$irt" "$@"' bash "$file" "$IRT" "$@"
	check_rc 0 "<(cat FILE): $name"
}
substituted compare "$R" compare "$IRT_TOP/fuzz/corpus/result/probe.json" "$R"
substituted report "$R" report "$R" -f text
substituted "sim --like" "$L" sim --like "$L" -f none
substituted "sim's workload" "$W" sim "$W" --sim-duration 100ms -f none
substituted "sim --step" "$S" sim --step "$S"
substituted "run's job file" "$T/job.ini" run "$T/job.ini" -n 3 -q -o r2.json
finish
