#!/usr/bin/env bash
# The three L1 rounds of a Vector/Cube fusion through the command, on a copy of
# examples/matmul_softmax in a pipeline workspace (custom/<op>/): `opdev stage --module-k 1`,
# `--module-k 2` and `--finalize`, each CLEAN on the simulator; Module 1's staged file is
# byte-identical after the Module 2 round and both staged files after the finalize; the final
# file is the delivery shape (one @pl.jit, <op>_wrapper, no staged names). A re-run of
# `opdev gen --module-k 2` on the unchanged Module 1 file is byte-identical, and
# `gen --out` aimed at the Module 1 file is refused.
set -euo pipefail
OPDEV="$1"; SOURCE_DIR="$2"; KB_ROOT="$3"; PY="$4"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "l1 rounds: $*" >&2; exit 1; }
json() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

op=matmul_softmax
mkdir -p "$WORK/custom"
cp -r "$SOURCE_DIR/examples/$op" "$WORK/custom/$op"
cd "$WORK"
dir="custom/$op"
m1="$dir/modules/test_${op}_module1.py"
m12="$dir/modules/test_${op}_module12.py"

stage() {
  local tag="$1"; shift
  "$OPDEV" stage "$dir" --kb-root "$KB_ROOT" --probe-python "$PY" "$@" --json > "stage_$tag.json" ||
    { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["verdict"], indent=1)); [print(s) for s in d["steps"]]' "stage_$tag.json" >&2 || true; fail "$tag: stage is not CLEAN"; }
  json "stage_$tag.json" 'd["verdict"]["outcome"] == "CLEAN" and len(d["cases"]) == 6' ||
    fail "$tag: verdict is not CLEAN over the 6 §8 cases"
}

stage module1 --module-k 1
test -f "$m1" || fail "module1: no $m1"
grep -q "with pl.section_cube():" "$m1" || fail "module1: no Cube section"
! grep -q "section_vector\|cross_core" "$m1" || fail "module1: holds Module 2 code or its event"
m1_sha="$(sha256sum "$m1")"

stage module12 --module-k 2
test -f "$m12" || fail "module12: no $m12"
test "$(sha256sum "$m1")" = "$m1_sha" || fail "module12: the Module 1 staged file changed"
grep -q "pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY_EVENT)" "$m12" || fail "module12: no READY set"
grep -q "pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY_EVENT)" "$m12" || fail "module12: no READY wait"
"$OPDEV" gen "$dir" --module-k 2 --stdout > regen.py 2> /dev/null || fail "module12: regeneration failed"
cmp -s regen.py "$m12" || fail "module12: regeneration is not byte-identical"
staged_sha="$(sha256sum "$m1" "$m12")"
# --out cannot aim a round at a historical staged file.
if "$OPDEV" gen "$dir" --module-k 2 --out "$m1" > out_m1.txt 2>&1; then fail "gen --out wrote over $m1"; fi
grep -q "read-only in this round (history)" out_m1.txt || { cat out_m1.txt >&2; fail "gen --out: no history refusal"; }
test "$(sha256sum "$m1")" = "$m1_sha" || fail "gen --out changed the Module 1 staged file"

stage finalize --finalize
final="$dir/test_$op.py"
test -f "$final" || fail "finalize: no $final"
test "$(sha256sum "$m1" "$m12")" = "$staged_sha" || fail "finalize: a staged file changed"
test "$(grep -c "@pl.jit" "$final")" = 1 || fail "finalize: not exactly one @pl.jit"
grep -q "^def ${op}_wrapper(q, k):" "$final" || fail "finalize: no ${op}_wrapper"
! grep -q "_wrapper_module\|_golden_stage" "$final" || fail "finalize: staged names left"
echo "l1 rounds $op: module 1, module 1+2 and finalize CLEAN on the simulator; staged files unchanged"
