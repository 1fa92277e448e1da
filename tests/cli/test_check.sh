# The default check: irt with no arguments (and make demo).
. "$IRT_TOP/tests/cli/lib.sh"

check_exit 0 "irt with no arguments runs the default check" "$IRT"
check_out "^idle " "idle row"
check_out "^under load, default policy " "loaded row"
check_out "^under load, better setting " "better-setting row"
check_out "Under load your interactive p99 wake-up latency (grows|goes) from [0-9.]+[mun]?s to [0-9.]+[mun]?s; .* brings it to [0-9.]+[mun]?s\." "verdict sentence"
check "report written" test -s irt-report.html
check "report has charts" test "$(grep -c '<svg' irt-report.html)" -ge 4
check "report names the phases" grep -q 'loaded+setting' irt-report.html
check "no load left behind" test -z "$(pgrep -f "^$IRT" | grep -v "^$$\$")"
finish
