# The default check: irt with no arguments (and make demo).
. "$IRT_TOP/tests/cli/lib.sh"

# its own copy of irt: the processes it looks for afterwards are its own, not those of a test
# that runs beside it (scripts/run-tests.sh)
cp "$IRT" "$T/irt-check" && chmod 755 "$T/irt-check"
IRTC=$T/irt-check
check_exit 0 "irt with no arguments runs the default check" "$IRTC"
check_out "^idle " "idle row"
check_out "^under load, default policy " "loaded row"
check_out "^under load, better setting " "better-setting row"
check_out "Under load your interactive p99 wake-up latency (grows|goes) from [0-9.]+[mun]?s to [0-9.]+[mun]?s; .* brings it to [0-9.]+[mun]?s\." "verdict sentence"
if is_root && [ -w /dev/cpu_dma_latency ]; then
	check_out "^idle, PM QoS held at 0us " "fourth row: idle with PM QoS held at 0 us"
	check_out "^PM QoS: idle wake-up p50 [0-9.]+[mun]?s without a hold, [0-9.]+[mun]?s held at 0us: " "what the hold changes, measured"
	check "the report has the fourth phase" grep -q 'idle+pmqos' irt-report.html
	check "the report flags the unlike PM QoS" grep -q 'conditions differ: PM QoS not held in idle' irt-report.html
else
	check_out "^PM QoS: not held; whether idle states shape these figures needs a hold to measure" "says why there is no fourth row"
	skip "no PM QoS hold here: no fourth phase in the report"
	skip "no PM QoS hold here: no fourth phase in the report"
	skip "no PM QoS hold here: no fourth phase in the report"
fi
check "report written" test -s irt-report.html
check "report has charts" test "$(grep -c '<svg' irt-report.html)" -ge 4
check "report names the phases" grep -q 'loaded+setting' irt-report.html
check "no load left behind" test -z "$(pgrep -f "^$IRTC" | grep -v "^$$\$")"
finish
