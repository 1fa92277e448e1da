# The default check: irt with no arguments (and make demo).
. "$IRT_TOP/tests/cli/lib.sh"

# its own copy of irt: the processes it looks for afterwards are its own, not those of a test
# that runs beside it (scripts/run-tests.sh)
cp "$IRT" "$T/irt-check" && chmod 755 "$T/irt-check"
IRTC=$T/irt-check
# the report's place is checked before anything is measured (it failed after 20 s of runs)
mkdir "$T/ro" && chmod 555 "$T/ro"
if is_root && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	(cd "$T/ro" && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$IRTC") >"$OUT" 2>"$ERR"
	RC=$?
	check_rc 2 "an unwritable working directory is refused at once"
	check_err "^irt: -o irt-report.html \(the default\): cannot write into directory '\.': Permission denied" "names the report, the option and the directory"
else
	skip "needs root and setpriv to run as an ordinary user"
	skip "needs root and setpriv to run as an ordinary user"
fi
check_usage "-o in an unwritable place is refused before measuring" "^irt: -o: cannot write into directory '/proc'" "$IRTC" check -o /proc/r.html
# options and no command: the default check with them (only its options)
check_usage "options without a command go to the check" "^irt: --format: not an option of 'irt check'" "$IRTC" --format text
check_exit 0 "irt with only the check's options runs the default check, -o naming the report" "$IRTC" -o "$T/check.html"
check_out "^idle " "idle row"
check_err "^  1/[34] idle\.\.\.$" "progress lines on stderr"
check_out "^under load, default policy " "loaded row"
check_out "^under load, better setting " "better-setting row"
check_out "Under load your interactive p99 wake-up latency (grows|goes|stays) from [0-9.]+[mun]?s to [0-9.]+[mun]?s; .* (brings it down to [0-9.]+[mun]?s|makes it worse: [0-9.]+[mun]?s|makes no clear difference \([0-9.]+[mun]?s\))\.$" "verdict sentence, worded by the comparison"
check "the report's command lines are the check's, each part saying what it measured" \
	grep -q "irt check -o $T/check.html   # part loaded: --persona x -D 6s --warmup 1s --load cpu:threads=" check.html
check "the report shows no command irt check refuses" test "$(grep -c '<pre>irt check --persona' check.html)" = 0
if is_root && [ -w /dev/cpu_dma_latency ]; then
	check_out "^idle, PM QoS held at 0us " "fourth row: idle with PM QoS held at 0 us"
	check_out "^PM QoS: idle wake-up p50 [0-9.]+[mun]?s without a hold, [0-9.]+[mun]?s held at 0us: " "what the hold changes, measured"
	check "the report has the fourth phase" grep -q 'idle+pmqos' check.html
	check "the report flags the unlike PM QoS" grep -q 'conditions differ: PM QoS not held in idle' check.html
	check "root measures SCHED_FIFO: no line saying it was not" sh -c "! grep -q '^SCHED_FIFO: not measured' '$OUT'"
else
	check_out "^PM QoS: not held; whether idle states shape these figures needs a hold to measure" "says why there is no fourth row"
	skip "no PM QoS hold here: no fourth phase in the report"
	skip "no PM QoS hold here: no fourth phase in the report"
	skip "no PM QoS hold here: no fourth phase in the report"
fi
check_out "^Report: $T/check.html " "the report line names -o FILE"
check "report written" test -s check.html
check "report has charts" test "$(grep -c '<svg' check.html)" -ge 4
check "report names the phases" grep -q 'loaded+setting' check.html
# interrupted: the partial row is marked and stderr says so (it exited 3 silently); -q, as for
# the other commands, leaves out the live status: the check's progress lines
interrupt_after 3 "$IRTC" -q -o "$T/int.html"
check "interrupted check: exit 3" test $RC = 3
check "-q: no progress lines" sh -c "! grep -q '^  1/' int.err"
check "interrupted check: the partial row is marked" grep -Eq '^idle .*  \(interrupted\)$' int.out
check "interrupted check: stderr says so" grep -Eq '^irt: interrupted after 0 of [34] parts: the results so far are printed and saved$' int.err
check "no load left behind" test -z "$(pgrep -f "^$IRTC" | grep -v "^$$\$")"
finish
