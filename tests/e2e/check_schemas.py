"""Every command's --json document on a copy of examples/softmax validated against its schema
in docs/schemas/ (stage: docs/report-schema.json through stage.schema.json).

Usage: check_schemas.py OPDEV_BIN SOURCE_DIR KB_ROOT
Runs in a temporary workspace (examples/ is never written); exits 1 listing every violation."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonschema_subset import validate  # noqa: E402


def main():
    opdev, source, kb = sys.argv[1:4]
    schemas = os.path.join(source, "docs", "schemas")
    failures = []
    seen = set()

    def doc(schema, *args, statuses=(0,)):
        cli = subprocess.run([opdev, *args, "--json"], capture_output=True, text=True)
        where = "opdev " + " ".join(args)
        if cli.returncode not in statuses:
            failures.append("%s: exit %d (expected %s): %s" % (where, cli.returncode, statuses, cli.stderr[-500:]))
        try:
            document = json.loads(cli.stdout)
        except ValueError as e:
            failures.append("%s: not JSON (%s)" % (where, e))
            return {}
        errors = validate(document, os.path.join(schemas, schema + ".schema.json"))
        failures.extend("%s: %s" % (where, e) for e in errors)
        seen.add(schema)
        return document

    with tempfile.TemporaryDirectory(prefix="opdev_schemas_") as ws:
        op = os.path.join(ws, "custom", "softmax")
        shutil.copytree(os.path.join(source, "examples", "softmax"), op)
        doc("check", "check", op, "--kb-root", kb)
        doc("check", "check", os.path.join(ws, "absent"), statuses=(2,))
        doc("plan", "plan", op, "--snapshot-out", os.path.join(ws, "snap.json"))
        doc("plan", "plan", op, "--module-k", "2", statuses=(1,))
        doc("plan-snapshot-check", "plan", "--snapshot-check", os.path.join(ws, "snap.json"))
        gen = doc("gen", "gen", op)
        kernel = gen.get("written") or os.path.join(op, "test_softmax.py")
        doc("budget", "budget", op)
        doc("budget", "budget", kernel)
        doc("lint", "lint", kernel, statuses=(0, 1))
        doc("selfcheck", "selfcheck", op, "--kb-root", kb, statuses=(0, 1))
        doc("run", "run", op, "--backend", "sim", statuses=(0, 1))  # the test file on the CPU device
        doc("run", "run", op, "--backend", "sim", "--design-cases", statuses=(0, 1))
        sim_dir = os.path.join(op, "reports", "opdev", "run", "sim")
        case = "test_softmax_aligned"
        wrapper = (gen.get("file") or {}).get("wrapper", "softmax_wrapper")
        inputs = sorted(f for f in os.listdir(sim_dir) if f.startswith(case + ".in"))
        out_dir = os.path.join(ws, "sim_out")
        sim_args = ["sim", kernel, "--entry", wrapper, "--out-dir", out_dir]
        for f in inputs:
            sim_args += ["--in", os.path.join(sim_dir, f)]
        doc("sim", *sim_args, statuses=(0, 1))
        actual = os.path.join(out_dir, sorted(os.listdir(out_dir))[0]) if os.path.isdir(out_dir) else "absent"
        golden = os.path.join(sim_dir, case + ".golden.0.npy")
        doc("compare", "compare", actual, golden, statuses=(0, 1))
        doc("compare", "compare", actual, golden, "none", "none", "--tile", "8,64", statuses=(0, 1))
        doc("error", "compare", actual, golden, "--tile", "8", statuses=(2,))
        doc("usage", "usage", "generate", op, "--kb-root", kb)
        doc("usage", "usage", "check", op, "--kb-root", kb)
        doc("stage", "stage", op, "--kb-root", kb, statuses=(0, 1))

    # The validator itself must reject a wrong document (the test can fail).
    broken = {"op_dir": 1, "kb_root": "", "target": "a9", "status": "clean", "errors": -1,
              "warnings": 0, "diagnostics": [{"code": "X"}]}
    if len(validate(broken, os.path.join(schemas, "check.schema.json"))) < 4:
        failures.append("the validator accepted a broken check document")

    expected = {"check", "plan", "plan-snapshot-check", "gen", "budget", "lint", "sim", "run",
                "compare", "usage", "selfcheck", "stage", "error"}
    missing = expected - seen
    if missing:
        failures.append("not validated: %s" % sorted(missing))
    for f in failures:
        print(f)
    print("%d schema(s) exercised, %d violation(s)" % (len(seen), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
