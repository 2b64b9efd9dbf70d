"""The whole Stage 4 round through the Python binding: check -> plan -> gen -> budget ->
selfcheck -> run(sim) -> compare -> usage generate/check -> stage on a copy of
examples/softmax (in a temporary workspace; examples/ is never written). Every document must
equal the one `opdev <step> --json` prints for the same request, with the same status.

Nothing is normalised: every path is the copy's, and no document carries a time or a
process id. Run by CTest with OPDEV_C_LIBRARY, OPDEV_BIN, OPDEV_SOURCE_DIR and OPDEV_KB_ROOT."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import opdev

SOURCE = os.environ.get("OPDEV_SOURCE_DIR", "")
KB_ROOT = os.environ.get("OPDEV_KB_ROOT", "")
OPDEV_BIN = os.environ.get("OPDEV_BIN", "")
SOFTMAX = os.path.join(SOURCE, "examples", "softmax")


class RoundTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="opdev_py_round_")
        cls.op = os.path.join(cls.tmp.name, "custom", "softmax")
        shutil.copytree(SOFTMAX, cls.op)
        cls.ctx = opdev.Context(kb_root=KB_ROOT)

    @classmethod
    def tearDownClass(cls):
        cls.ctx.close()
        cls.tmp.cleanup()

    def same(self, result, *args, status=0):
        """`result` (from the binding) equals `opdev ARGS --json` and has `status` (None: 0
        or 1, for verdicts that depend on the simulator rather than on the binding)."""
        cli = subprocess.run([OPDEV_BIN, *args, "--json"], capture_output=True, text=True)
        self.assertEqual(cli.returncode, result.status, cli.stderr)
        if status is None:
            self.assertIn(result.status, (0, 1))
        else:
            self.assertEqual(result.status, status)
        self.assertEqual(json.loads(cli.stdout), dict(result))
        return result

    def test_round(self):
        op, ctx = self.op, self.ctx
        r = self.same(ctx.check(op), "check", op, "--kb-root", KB_ROOT)
        self.assertEqual(r["status"], "clean")

        r = self.same(ctx.plan(op), "plan", op)
        self.assertEqual(r["plan"]["mode"], "L0")
        # A bad Module number is a finding of the dispatch, the same through both front-ends.
        self.same(ctx.plan(op, module_k="two"), "plan", op, "--module-k", "two", status=1)
        with self.assertRaises(opdev.OpdevError):
            ctx.plan(op, module_k=[2])  # not an integer: the call fails

        r = self.same(ctx.gen(op), "gen", op)
        self.assertTrue(os.path.isfile(os.path.join(op, "test_softmax.py")))
        self.same(ctx.budget(op), "budget", op)
        self.same(ctx.selfcheck(op), "selfcheck", op, "--kb-root", KB_ROOT, status=None)

        # The DESIGN §8 runner: a deterministic document (the test file's run on the CPU
        # device reports wall times; tests/device and tests/stage cover that path).
        r = self.same(ctx.run(op, backend="sim", design_cases=True), "run", op, "--backend", "sim",
                      "--design-cases", status=None)
        self.assertEqual(len(r["cases"]), 8)

        kernel = os.path.join(op, "test_softmax.py")
        r = self.same(ctx.lint(kernel), "lint", kernel)
        self.assertEqual(r["status"], "clean")
        self.assertIn("SIM-GM-OOB", [h["code"] for h in ctx.hazards().document])

        # sim on the inputs the run wrote for one case, then compare its output against the
        # CPU golden the run computed.
        sim_dir = os.path.join(op, "reports", "opdev", "run", "sim")
        out_dir = os.path.join(self.tmp.name, "simout")
        case_in = os.path.join(sim_dir, "test_softmax_aligned.in0.npy")
        r = self.same(ctx.sim(kernel, "softmax_wrapper", [case_in], out_dir), "sim", kernel,
                      "--entry", "softmax_wrapper", "--in", case_in, "--out-dir", out_dir)
        self.assertTrue(r["clean"])
        actual = os.path.join(out_dir, os.listdir(out_dir)[0])
        golden = os.path.join(sim_dir, "test_softmax_aligned.golden.0.npy")
        r = self.same(ctx.compare(actual, golden, tile=(1, 64)), "compare", actual, golden,
                      "--tile", "1,64", status=None)
        self.assertIn(r["verdict"], ("PASS", "FAIL"))

        # usage generate keeps what an earlier generate wrote: both start from the same files.
        before = os.path.join(self.tmp.name, "before")
        shutil.copytree(op, before, symlinks=True)
        usage = ctx.usage_generate(op)
        shutil.rmtree(op)
        shutil.move(before, op)
        self.same(usage, "usage", "generate", op, "--kb-root", KB_ROOT)
        r = self.same(ctx.usage_check(op), "usage", "check", op, "--kb-root", KB_ROOT)
        self.assertEqual(r["status"], "ok")

        # The DESIGN §8 runner, as for run above: the test file's combined output (each case's
        # output_line) depends on how its stdout and stderr interleave.
        r = self.same(ctx.stage(op, design_cases=True), "stage", op, "--design-cases", "--kb-root", KB_ROOT,
                      status=None)
        self.assertEqual(r["schema"], "opdev.stage-report/1")

    def test_log_callback_receives_progress(self):
        lines = []
        op = os.path.join(self.tmp.name, "log", "custom", "softmax")
        shutil.copytree(SOFTMAX, op)
        with opdev.Context(kb_root=KB_ROOT, log=lambda level, msg: lines.append(msg)) as ctx:
            self.assertEqual(ctx.gen(op).status, 0)
            r = ctx.run(op, backend="sim", case="test_softmax_aligned")
        self.assertTrue(any("case 1/1" in line for line in lines), lines)
        self.assertIn(r.status, (0, 1))
        self.assertEqual(len(r["cases"]), 1)


if __name__ == "__main__":
    unittest.main()
