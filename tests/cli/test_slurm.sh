# irt fleet slurm against a real Slurm: a single-node cluster this test starts and stops itself
# (munge with a generated key, slurmctld and slurmd with a generated slurm.conf naming this host
# as the only node; proctrack/linuxproc and task/none need no cgroup setup). Everything lives in
# the test's private directory: state, spool, logs, pid files, the munge socket, and ports that
# were free. A trap stops every daemon it started, whatever happens.
#
# Only the release variant runs it: it tests Slurm integration (the script, the array, the
# shards, DIR/<machine>/), whose irt code the ASan variant already runs in test_fleet.sh
# (--dry-run, GNU parallel); a second cluster would add ~20 s and find nothing new.
. "$IRT_TOP/tests/cli/lib.sh"

if [ "${IRT_VARIANT:-release}" != release ]; then
	skip "the Slurm cluster test runs in the release variant only (see its header)"
	finish
fi
if ! is_root; then
	skip "starting munged, slurmctld and slurmd needs root"
	finish
fi
for b in munged munge slurmctld slurmd sbatch sinfo; do
	if ! command -v $b >/dev/null 2>&1; then
		skip "$b is missing (apt-get install slurm-wlm munge)"
		finish
	fi
done

PY=/usr/bin/python3
WL=$IRT_TOP/examples/sim/interactive.ini
node=$(uname -n)
C=$T/slurm
mkdir -p "$C/munge" "$C/state" "$C/spool"
chmod 700 "$C/munge"

# (all three at once: each takes 1.5-2 s to stop, and none needs another to do so)
stop_cluster() {
	stopping=""
	for p in "$C/slurmd.pid" "$C/slurmctld.pid" "$C/munge/munged.pid"; do
		[ -s "$p" ] || continue
		pid=$(cat "$p")
		kill "$pid" 2>/dev/null && stopping="$stopping $pid"
	done
	for pid in $stopping; do
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$pid" 2>/dev/null
	done
}
trap 'stop_cluster; rm -rf "$T"' EXIT
trap 'exit 3' INT TERM

# two free TCP ports
free_port() {
	while :; do
		p=$(( ($(od -An -N2 -tu2 /dev/urandom) % 30000) + 20000 ))
		ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return; }
	done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$slurmd_port" = "$ctld_port" ] && slurmd_port=$((ctld_port + 1))

dd if=/dev/urandom of="$C/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$C/munge/munge.key"
munged --force --socket="$C/munge/sock" --key-file="$C/munge/munge.key" --pid-file="$C/munge/munged.pid" \
	--log-file="$C/munge/munged.log" --seed-file="$C/munge/seed" --num-threads=2
check "munged runs with the generated key" sh -c "munge -S '$C/munge/sock' -n | unmunge -S '$C/munge/sock' >/dev/null"

# MinJobAge=4: sbatch --wait polls every 2 s while that is under half of MinJobAge, else backs
# off to 8 s (an array of short tasks then took 10 s to be seen done, now 6 s); the test reads
# nothing from slurmctld about a job once sbatch --wait has returned.
cat >"$C/slurm.conf" <<EOF
ClusterName=irttest$$
SlurmctldHost=$node
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$C/munge/sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=4
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$node CPUs=$(nproc) State=UNKNOWN
PartitionName=irt Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$C/slurm.conf"
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" -N "$node"
i=0
while [ "$(sinfo -h -o %t 2>/dev/null)" != idle ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
if [ "$(sinfo -h -o %t 2>/dev/null)" != idle ]; then
	fail "the cluster did not come up (node state '$(sinfo -h -o %t 2>&1)')"
	tail -5 "$C/slurmctld.log" "$C/slurmd.log" | sed 's/^/    | /'
	finish
fi
pass
pids="$(cat "$C/slurmctld.pid") $(cat "$C/slurmd.pid") $(cat "$C/munge/munged.pid")"

# ---- a real array of simulation shards, merged == unsharded ----
mkdir all
"$IRT" sim "$WL" --duration 1s --format none --json all/s.json || fail "the unsharded simulation"
check_exit 0 "an array of 3 simulation shards" "$IRT" fleet slurm sims --tasks 3 --wait -- sim "$WL" --duration 1s --format none
check "three array tasks ran" sh -c 'test $(ls sims/slurm-*_*.out | wc -l) -eq 3'
check "the merged shards equal the unsharded run" $PY - <<'EOF'
import json, os
files = sorted(os.listdir("all"))
assert len(files) == 6
for f in files:
    a, b = json.load(open("all/" + f)), json.load(open("sims/" + f.replace("s-", "sim-")))
    for x in (a, b):
        for k in ("start_ns", "end_ns", "start_utc", "end_utc", "cmdline"):
            x.pop(k)
    assert a == b, f
EOF

# ---- a real measurement array of two tasks, exclusive, into DIR/<machine>/ ----
check_exit 0 "a measurement array of 2 tasks" "$IRT" fleet slurm meas --tasks 2 --wait -- probe -i 1ms -n 100 -q --format none
jobid=$(head -n1 "$OUT")
check "sbatch gave a job id" sh -c "echo '$jobid' | grep -Eq '^[0-9]+$'"
check "both tasks' results in DIR/<machine>/" sh -c "test -s 'meas/$node/probe-${jobid}_0.json' -a -s 'meas/$node/probe-${jobid}_1.json'"
check "the tasks were exclusive" sh -c "grep -q '^#SBATCH --exclusive' meas/fleet-probe-*.sbatch"
check_exit 0 "compare the fleet" "$IRT" compare meas
check_out "^fleet meas: 1 machine; " "one machine"
check_out "^$node +A +2 " "its two runs are one cell"
check_exit 0 "report the fleet" "$IRT" report meas -o meas.html --format none
check "the report has one row for the machine, with both results" $PY -c '
import re, sys
h = open("meas.html").read()
rows = re.findall("<tr class=\"machine\">(.*?)</tr>", h)
assert len(rows) == 1 and sys.argv[1] in rows[0] and "<td class=\"n\">2</td>" in rows[0], rows' "$node"

# ---- node lists pass through: the listed node, the partition's others excluded ----
check_exit 0 "--nodelist of this node" "$IRT" fleet slurm nl --dry-run --nodelist "$node" -- run -D 1s
check_out "^#SBATCH --array=0-0$" "one task per listed node"
if grep -q -- "--exclude" "$OUT"; then fail "no other node to exclude, yet --exclude"; else pass; fi
# an --expect unmet on the nodes is the fleet's 4 (git bisect run: bad); a task that could not
# measure (a CPU the node lacks) its 1 (bisect: skip)
check_exit 4 "an unmet --expect on the nodes exits 4" "$IRT" fleet slurm bad --wait --tasks 2 -- probe -i 1ms -n 20 -q \
	--format none --expect 'wake.max<1ns' --junit j.xml
check_err "^irt: fleet: job [0-9]+: a task's --expect was not met \(exit 4" "says the gate was not met"
check_err "^irt fleet: submitting .*\.sbatch \(2 array tasks\), waiting for them$" "counts the tasks"
check "each task's --junit next to its result (two files, none where irt fleet ran)" sh -c \
	"test \$(grep -l 'failures=\"1\"' bad/$node/probe-*.xml | wc -l) -eq 2 && test ! -e j.xml"
# a --stop-above crossing exits 4 too: the fleet says which it was, from the saved results
check_exit 4 "a --stop-above crossing on the nodes exits 4" "$IRT" fleet slurm stp --wait -- probe -i 1ms -D 5s -q \
	--format none --stop-above 1ns
check_err "^irt: fleet: job [0-9]+: a task exited 4: 1 result\(s\) ended at a --stop-above crossing" \
	"says a --stop-above crossing, not only an --expect"
check_exit 1 "a failing task fails --wait" "$IRT" fleet slurm bad --wait -- probe -i 1ms -n 20 -q --format none \
	--cpus 1000 --expect 'wake.max<1ns'
check_err "a task failed \(irt exit 2, the task's 102" "says a task failed, with irt's status"
check_err "^irt fleet: submitting .*\.sbatch \(1 array task\), waiting for it$" "one task is one task"

stop_cluster
alive=""
for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
check "every daemon it started ($pids) is gone" [ -z "$alive" ]
finish
