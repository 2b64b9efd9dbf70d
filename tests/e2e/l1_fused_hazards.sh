#!/usr/bin/env bash
# A race and a deadlock planted in copies of the generated fused staged file of
# examples/matmul_softmax (Module 1+2: the Cube section stores S to GM and sets READY, the Vector
# section waits for READY and reads S): without the wait the AIVs' loads of S race the AIC's
# stores (SIM-GM-RACE at the load, naming the store) and the set stays counted
# (SIM-XCORE-UNCONSUMED at the set); waiting for another event deadlocks (SIM-XCORE-DEADLOCK at
# the wait, the run ends by itself). Both through `opdev sim` on the wrapper and through
# `opdev run --backend sim --file` (the run step of `opdev stage`, the test file's own cases on
# the CPU device), whose case error names the hazard at its line.
set -euo pipefail
OPDEV="$1"; SOURCE_DIR="$2"; PY="$3"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "l1 fused hazards: $*" >&2; exit 1; }

op=matmul_softmax
mkdir -p "$WORK/custom"
cp -r "$SOURCE_DIR/examples/$op" "$WORK/custom/$op"
cd "$WORK"
dir="custom/$op"
"$OPDEV" gen "$dir" --module-k 1 > gen1.txt 2>&1 || { cat gen1.txt >&2; fail "gen --module-k 1 failed"; }
"$OPDEV" gen "$dir" --module-k 2 > gen2.txt 2>&1 || { cat gen2.txt >&2; fail "gen --module-k 2 failed"; }
fused="$dir/modules/test_${op}_module12.py"
test -f "$fused" || fail "no $fused"
"$PY" - <<'PY'
import numpy as np, torch
torch.manual_seed(0)
np.save("q.npy", torch.rand(200, 64).half().numpy())   # 2 M tiles, a tail on M
np.save("k.npy", torch.rand(100, 64).half().numpy())   # a tail on N
PY

wait_line='        pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY_EVENT)'
grep -qxF "$wait_line" "$fused" || fail "the fused file has no READY wait line"
race="$dir/modules/mutant_race.py"
deadlock="$dir/modules/mutant_deadlock.py"
"$PY" - "$fused" "$race" "$deadlock" "$wait_line" <<'PY'
import sys
src = open(sys.argv[1]).read()
wait = sys.argv[4] + "\n"
assert src.count(wait) == 1
open(sys.argv[2], "w").write(src.replace(wait, "        pass\n"))
open(sys.argv[3], "w").write(src.replace(wait, wait.replace("event_id=READY_EVENT)", "event_id=READY_EVENT + 1)")))
PY
line_of() { grep -nF "$2" "$1" | head -1 | cut -d: -f1; }
load_line="$(line_of "$race" 'pl.load(s_tile, s, [r0, 0])')"
store_line="$(line_of "$race" 'pl.store(s, s_acc, [m_off, 0])')"
set_line="$(line_of "$race" 'pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY_EVENT)')"
dl_line="$(line_of "$deadlock" 'event_id=READY_EVENT + 1)')"

# opdev sim on the wrapper: codes, lines and the other core's line.
sim() { "$OPDEV" sim "$1" --entry ${op}_wrapper_module12 --in q.npy --in k.npy --out-dir "out_$2" --json > "sim_$2.json" || true; }
sim "$race" race
"$PY" - sim_race.json "$load_line" "$store_line" "$set_line" <<'PY' || fail "sim: the race is not flagged at its lines"
import json, sys
d = json.load(open(sys.argv[1])); load, store, st = (int(x) for x in sys.argv[2:5])
hz = d["hazards"]
race = [h for h in hz if h["code"] == "SIM-GM-RACE" and h["line"] == load and f"line {store}" in h["message"]]
unc = [h for h in hz if h["code"] == "SIM-XCORE-UNCONSUMED" and h["line"] == st]
print("sim race:", [(h["code"], h["line"]) for h in hz])
sys.exit(0 if race and unc else 1)
PY
sim "$deadlock" deadlock
"$PY" - sim_deadlock.json "$dl_line" <<'PY' || fail "sim: the deadlock is not flagged at the wait or the run did not end"
import json, sys
d = json.load(open(sys.argv[1])); line = int(sys.argv[2])
hz = d["hazards"]
print("sim deadlock:", d["completed"], [(h["code"], h["line"]) for h in hz])
sys.exit(0 if not d["completed"] and any(h["code"] == "SIM-XCORE-DEADLOCK" and h["line"] == line for h in hz) else 1)
PY

# opdev run --file (the stage's run step): the file's first case fails with the hazard at its line.
run() {
  local rc=0
  timeout 600 "$OPDEV" run "$dir" --backend sim --file "modules/$1" --json > "run_$1.json" || rc=$?
  test "$rc" = 1 || fail "run $1: exit status $rc, not 1"
}
run mutant_race.py
"$PY" - run_mutant_race.py.json "$load_line" <<'PY' || fail "run: the race is not reported at the load"
import json, sys
d = json.load(open(sys.argv[1])); c = d["cases"][0]
sys.exit(0 if c["status"] != "PASS" and f"mutant_race.py:{sys.argv[2]}: error[SIM-GM-RACE]" in c.get("error", "") else 1)
PY
run mutant_deadlock.py
"$PY" - run_mutant_deadlock.py.json "$dl_line" <<'PY' || fail "run: the deadlock is not reported at the wait"
import json, sys
d = json.load(open(sys.argv[1])); c = d["cases"][0]
sys.exit(0 if c["status"] != "PASS" and f"mutant_deadlock.py:{sys.argv[2]}: error[SIM-XCORE-DEADLOCK]" in c.get("error", "") else 1)
PY
# The unmutated fused file is clean on the same inputs.
sim "$fused" clean
"$PY" -c 'import json,sys; d=json.load(open("sim_clean.json")); sys.exit(0 if d["completed"] and not [h for h in d["hazards"] if h["severity"]=="error"] else 1)' ||
  fail "the unmutated fused file is not clean"
echo "l1 fused hazards: race (lines $load_line/$store_line) and deadlock (line $dl_line) flagged by sim and run"
