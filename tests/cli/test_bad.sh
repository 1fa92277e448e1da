#!/bin/sh
# The bad-input catalogue (tests/bad/cases, docs/hardening.md): every case must be refused with
# exit status 2 and exactly one stderr line matching its pattern, print nothing on stdout,
# create no file (neither in $OUT, where the case points its outputs, nor in the working
# directory), and change no tunable: the scheduler sysctls, irt's cgroups (irt-PID-*), the
# journal. IRT_BAD=pattern runs only the cases whose name contains pattern.
. "$IRT_TOP/tests/cli/lib.sh"

TOP=$IRT_TOP IN=$IRT_TOP/tests/bad/inputs GEN=$T/gen
sysctls="sched_rr_timeslice_ms sched_rt_runtime_us sched_rt_period_us sched_autogroup_enabled"
sysctl_files=""
for s in $sysctls; do sysctl_files="$sysctl_files /proc/sys/kernel/$s"; done
# tunables: "FILE:VALUE" lines of them into $tunables_now, in one process (a fork per file took
# a third of each case's time; the shell's read builtin cannot be used: it reads a byte at a time,
# and an integer sysctl file reads as empty at any offset past 0)
tunables() {
	# shellcheck disable=SC2086
	tunables_now=$(grep -H '' $sysctl_files 2>/dev/null)
}

# empty DIR: DIR holds no entry (shell globs: the catalogue runs some 600 cases, and each
# process started per case costs a few ms on these machines)
empty() {
	for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		if [ -e "$f" ] || [ -L "$f" ]; then return 1; fi
	done
}

# run_case NAME REGEX ARGS: one attempt; sets why="" on success, else the reason.
run_case() {
	name=$1 re=$2 args=$3
	OUT=$T/out/$name cwd=$T/cwd/$name
	if [ -e "$OUT" ] || [ -e "$cwd" ] || [ -e "$IRT_STATE_DIR" ]; then rm -rf "$OUT" "$cwd" "$IRT_STATE_DIR"; fi
	mkdir "$OUT" "$cwd"
	tunables; before=$tunables_now
	eval "set -- $args"
	(cd "$cwd" && exec sh -c 'echo $$ >"$0.pid"; exec "$@"' "$T/irt" timeout 60 "$IRT" "$@") >"$OUT.stdout" 2>"$ERR"
	RC=$?
	pid="" first=""
	read -r pid <"$T/irt.pid"
	tunables; after=$tunables_now
	why=""
	lines=0   # as wc -l counts them: a last line without its newline is not one
	while IFS= read -r _line; do lines=$((lines + 1)); done <"$ERR"
	IFS= read -r first <"$ERR"
	if [ "$RC" -ne 2 ]; then why="exit $RC, wanted 2"
	elif [ "$lines" -ne 1 ]; then why="$lines stderr lines, wanted 1"
	elif ! grep -Eq -- "$re" "$ERR"; then why="stderr does not match /$re/"
	elif [ "${first#irt: irt }" != "$first" ]; then why="the 'irt: ' prefix twice"
	elif [ -s "$OUT.stdout" ]; then why="wrote to stdout"
	elif ! empty "$OUT"; then why="created in \$OUT: $(ls -A "$OUT" | head -3 | tr '\n' ' ')"
	elif ! empty "$cwd"; then why="created in the working directory: $(ls -A "$cwd" | head -3 | tr '\n' ' ')"
	elif [ "$before" != "$after" ]; then why="tunables changed: $(echo $before) -> $(echo $after)"
	elif [ -n "$(find /sys/fs/cgroup -maxdepth 4 -type d -name "irt-$pid-*" 2>/dev/null)" ]; then why="left cgroups irt-$pid-*"
	elif [ -s "$IRT_STATE_DIR/journal" ]; then why="left a journal"
	fi
}

# The bad result files: the golden result with one edit each (tests/bad/results). The golden
# itself must be accepted, so that each case is refused for its edit alone.
golden=$IRT_TOP/tests/golden/result-minimal.json
mkdir -p "$GEN" "$T/out" "$T/cwd"
mkfifo "$GEN/fifo"   # an output name that is a pipe (a file in git cannot be one)
check "the golden result that tests/bad/results edits is accepted" \
	"$IRT" compare "$golden" --format none -o "$T/golden-compare.json"
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	name=$(echo ${line%% :: *}) script=${line#* :: }
	sed -e "$script" "$golden" >"$GEN/$name.json"
	if cmp -s "$golden" "$GEN/$name.json"; then
		fail "tests/bad/results: the edit of $name changed nothing"
	fi
done <"$IRT_TOP/tests/bad/results"

n=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	name=${line%% :: *} rest=${line#* :: }
	re=${rest%% :: *} args=${rest#* :: }
	name=$(echo $name)
	case $name in *"${IRT_BAD:-}"*) ;; *) continue ;; esac
	n=$((n + 1))
	run_case "$name" "$re" "$args"
	# another irt on this shared machine may change a sysctl meanwhile: retry such a case
	tries=1
	while [ "${why#tunables changed}" != "$why" ] && [ $tries -lt 3 ]; do
		sleep 1
		run_case "$name" "$re" "$args"
		tries=$((tries + 1))
	done
	if [ -z "$why" ]; then pass; else
		fail "bad/$name: $why"
		head -3 "$ERR" | sed 's/^/    | /'
	fi
done <"${IRT_BAD_CASES:-$IRT_TOP/tests/bad/cases}"
check "the catalogue has at least 60 cases ($n)" [ -n "${IRT_BAD:-}" -o "$n" -ge 60 ]
finish
