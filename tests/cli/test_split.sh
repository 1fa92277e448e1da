# irt run --placement split (docs/loads.md): the probes and the loads each in a cgroup of their
# own, recorded in the result and removed when irt ends. (Apart from tests/cli/test_run.sh: this
# one creates cgroups, so it never runs beside another test that touches the machine.)
. "$IRT_TOP/tests/cli/lib.sh"

if is_root && { [ -d /sys/fs/cgroup/cpu ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; }; then
	before=$(irt_cgroups)
	check_exit 0 "split placement" "$IRT" run -D 1s --warmup 200ms -q --placement split --load cpu:threads=1 --policy fifo \
		-f none --json split.json
	check "split: probe cgroup recorded" grep -q 'irt-[0-9]*-probes' split.json
	check "split: irt cgroups removed" no_new_cgroups "$before"
else
	skip "split placement: needs root and a cgroup cpu controller"
fi
finish
