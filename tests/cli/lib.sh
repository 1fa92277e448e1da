# Helpers for CLI tests. A test file sources this, then calls the checks below; each check is
# one counted case. $IRT is the binary under test, $IRT_TOP the source tree.
# scripts/run-tests.sh runs one test file at a time that touches the machine (tunables, cgroups,
# tracefs, PM QoS, Slurm, other users), and beside it the files whose header has a line
# "# Runs beside other tests: WHY": those touch nothing but their own temporary directory and
# processes, and look for no process but their own. "# Runs alone: WHY" holds the others off.
: "${IRT:=$(pwd)/irt}" "${IRT_TOP:=$(pwd)}" "${IRT_COUNTS:=/dev/null}"
# The tests use Debian's tools, which scripts/deps.sh installs, before whatever a PATH puts
# ahead of them: a pyenv shim for python3 started some 40 processes and took 0.35 s a call (the
# tests make hundreds), and its Python lacks Debian's modules (python3-prometheus-client).
PATH=/usr/bin:$PATH
T=$(mktemp -d /tmp/irt-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
export IRT_STATE_DIR="$T/state"
cd "$T" || exit 1
OUT="$T/out" ERR="$T/err"
_failures=0

pass() { echo pass >>"$IRT_COUNTS"; }
fail() { echo fail >>"$IRT_COUNTS"; echo "FAIL ${0##*/}: $*"; _failures=$((_failures + 1)); }
# skip WHY: one case that could not run here; counted as skipped, never as passed.
skip() { echo skip >>"$IRT_COUNTS"; echo "SKIP ${0##*/}: $*"; }

# run CMD...: runs it, keeps stdout in $OUT, stderr in $ERR and the exit status in $RC.
run() { "$@" >"$OUT" 2>"$ERR"; RC=$?; }

# check_exit CODE NAME CMD...: the command exits with CODE.
check_exit() {
	want=$1 name=$2; shift 2
	run "$@"
	check_rc "$want" "$name"
}
# check_rc CODE NAME: the last run exited with CODE (else its stderr is shown, to tell why).
check_rc() {
	if [ "$RC" -eq "$1" ]; then pass; else
		fail "$2: exit $RC, wanted $1"; sed 's/^/    | /' "$ERR" | head -5; fi
}
# check_out REGEX NAME: the last run's stdout matches the extended regex.
check_out() {
	if grep -Eq -- "$1" "$OUT"; then pass; else fail "$2: stdout lacks /$1/"; head -20 "$OUT" | sed 's/^/    | /'; fi
}
check_err() {
	if grep -Eq -- "$1" "$ERR"; then pass; else fail "$2: stderr lacks /$1/"; head -5 "$ERR" | sed 's/^/    | /'; fi
}
# check_usage NAME REGEX CMD...: bad input: exit 2 and exactly one stderr line matching REGEX.
check_usage() {
	name=$1 re=$2; shift 2
	run "$@"
	lines=$(wc -l <"$ERR")
	if [ "$RC" -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$ERR"; then pass; else
		fail "$name: exit $RC, $lines stderr lines, wanted 2 and one line /$re/"; head -3 "$ERR" | sed 's/^/    | /'; fi
}
# check NAME CMD...: the command (a test expression, usually) succeeds.
check() {
	name=$1; shift
	if "$@"; then pass; else fail "$name"; fi
}
# interrupt_after SECONDS CMD...: CMD in the background (stdout int.out, stderr int.err),
# SIGINT after SECONDS; RC is its exit status
interrupt_after() {
	_secs=$1
	shift
	"$@" >int.out 2>int.err &
	_pid=$!
	sleep "$_secs"
	kill -INT $_pid
	wait $_pid
	RC=$?
}
is_root() { [ "$(id -u)" = 0 ]; }
finish() { exit $((_failures > 0)); }
# irt's cgroups on this machine (irt-PID-ROLE). Other irts may run at the same time (the
# machine is shared), so a test compares against what existed before its own command:
#   before=$(irt_cgroups); ...; check NAME no_new_cgroups "$before"
irt_cgroups() { find /sys/fs/cgroup -maxdepth 3 -type d -name 'irt-[0-9]*-*' 2>/dev/null | sort; }
no_new_cgroups() {
	printf '%s\n' "$1" | sed '/^$/d' >"$T/.cgroups-before"
	new=$(irt_cgroups | comm -23 - "$T/.cgroups-before")
	[ -z "$new" ] || { echo "    left behind: $new"; return 1; }
}
# columns_line_up FILE: in every text table of FILE (a block of lines whose first starts with
# "thread "), each line ends at the same terminal column. Columns are counted as a terminal
# shows them (a wide character 2, a combining mark 0), not in bytes: multibyte names must not
# shift the columns after them. The tables' last columns are right-aligned.
columns_line_up() {
	python3 - "$1" <<'PY'
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in s)
blocks, cur = [], None
for line in open(sys.argv[1], encoding='utf-8').read().split('\n'):
    if line.startswith('thread '):
        cur = [line]
        blocks.append(cur)
    elif cur is not None and line.strip():
        cur.append(line)
    else:
        cur = None
bad = [b for b in blocks if len({width(l.rstrip()) for l in b}) != 1]
for b in bad:
    print('    columns differ:\n' + '\n'.join('    | %3d %s' % (width(l.rstrip()), l) for l in b))
sys.exit(1 if bad or not blocks else 0)
PY
}
