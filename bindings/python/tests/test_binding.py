"""Tests of the ctypes binding (bindings/python/opdev) over libopdev_c.

Run by CTest with OPDEV_C_LIBRARY, OPDEV_BIN, OPDEV_SOURCE_DIR and OPDEV_KB_ROOT set."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import opdev

SOURCE = os.environ.get("OPDEV_SOURCE_DIR", "")
KB_ROOT = os.environ.get("OPDEV_KB_ROOT", "")
OPDEV_BIN = os.environ.get("OPDEV_BIN", "")
SOFTMAX = os.path.join(SOURCE, "examples", "softmax")

try:
    import numpy as np
except ImportError:  # the binding works without NumPy; array tests need it
    np = None


class BindingTest(unittest.TestCase):
    def test_versions(self):
        self.assertEqual(opdev.abi_version(), 1)
        self.assertRegex(opdev.version(), r"^\d+\.\d+\.\d+$")

    def test_versions_agree(self):
        self.assertEqual(opdev.__version__, opdev.version())

    @unittest.skipIf(np is None, "needs NumPy")
    def test_endless_kernel_returns_with_work_budget_hazard(self):
        # The CPU device calls the simulator through this ABI: an endless loop must come back
        # as a result carrying SIM-WORK-BUDGET (the loop's line), not hang the caller.
        src = ("import pypto_pro.language as pl\nimport torch\n\n"
               "@pl.jit\n"
               "def k(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):\n"
               "    with pl.section_vector():\n"
               "        i = 0\n"
               "        while i >= 0:\n"
               "            i = i + 1\n\n"
               "def w(x):\n    k[None, 1](x)\n    return x\n")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "endless.py")
            with open(path, "w") as f:
                f.write(src)
            x = os.path.join(tmp, "x.npy")
            np.save(x, np.zeros((2, 64), dtype=np.float32))
            with opdev.Context() as ctx:
                res = ctx.sim(path, "w", inputs=[x], out_dir=os.path.join(tmp, "out"), work_budget=50000)
            self.assertEqual(res.status, 1)
            self.assertFalse(res["completed"])
            codes = [(h["code"], h["line"]) for h in res["hazards"]]
            self.assertIn(("SIM-WORK-BUDGET", 8), codes)
            self.assertEqual(res["stats"]["work_budget"], 50000)

    def test_bad_context_options_raise(self):
        with self.assertRaises(opdev.OpdevError) as cm:
            opdev.Context(target="a9")
        self.assertIn("a9", str(cm.exception))

    def test_check_matches_command(self):
        with opdev.Context(kb_root=KB_ROOT) as ctx:
            result = ctx.check(SOFTMAX)
        self.assertTrue(result.ok)
        self.assertEqual(result["status"], "clean")
        cli = subprocess.run([OPDEV_BIN, "check", SOFTMAX, "--kb-root", KB_ROOT, "--json"],
                             capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0)
        self.assertEqual(json.loads(cli.stdout), dict(result))

    def test_call_errors_raise_with_document(self):
        with opdev.Context() as ctx:
            with self.assertRaises(opdev.OpdevError) as cm:
                ctx.check(os.path.join(SOURCE, "no-such-op-dir"))
            self.assertEqual(cm.exception.status, 2)

    @unittest.skipIf(np is None, "NumPy is not installed")
    def test_compare_arrays_zero_copy(self):
        golden = np.linspace(-2, 2, 4096, dtype=np.float32).reshape(64, 64)
        actual = golden.copy()
        with opdev.Context() as ctx:
            result = ctx.compare(actual, golden)
            self.assertTrue(result.ok)
            self.assertEqual(result["verdict"], "PASS")
            actual[40:, :] += 0.5  # rows 40..63 fail: matched_ratio 0.625
            result = ctx.compare(actual, golden, tile=(16, 16))
            self.assertEqual(result.status, 1)
            self.assertEqual(result["verdict"], "FAIL")
            self.assertIn("matched_ratio   : 0.6250", result["summary"])
            # Read-only arrays are read in place too.
            golden.setflags(write=False)
            self.assertEqual(ctx.compare(golden.copy(), golden)["verdict"], "PASS")
            with self.assertRaises(opdev.OpdevError):
                ctx.compare(np.asfortranarray(actual), golden)

    @unittest.skipIf(np is None, "NumPy is not installed")
    def test_compare_npy_paths_match_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = os.path.join(tmp, "a.npy")
            g = os.path.join(tmp, "g.npy")
            x = np.arange(300, dtype=np.float16).reshape(3, 100) / np.float16(64)
            np.save(g, x)
            y = x.copy()
            y[2, 99] = np.float16(100)
            np.save(a, y)
            with opdev.Context() as ctx:
                result = ctx.compare(a, g)
            cli = subprocess.run([OPDEV_BIN, "compare", a, g, "--json"], capture_output=True, text=True)
            self.assertEqual(cli.returncode, 1)
            self.assertEqual(result.status, 1)
            self.assertEqual(json.loads(cli.stdout), dict(result))

    @unittest.skipIf(np is None, "NumPy is not installed")
    def test_contexts_on_threads(self):
        errors = []

        def work(i):
            try:
                with opdev.Context(target="a3" if i % 2 else "a5") as ctx:
                    g = np.full((32, 32), float(i), dtype=np.float32)
                    for _ in range(20):
                        if ctx.compare(g.copy(), g)["verdict"] != "PASS":
                            errors.append(i)
            except Exception as e:  # pragma: no cover - reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_embedding_doc_examples(self):
        """The Python and C examples of docs/embedding.md run as written, from the source
        tree's root (they only write into temporary directories)."""
        with open(os.path.join(SOURCE, "docs", "embedding.md"), encoding="utf-8") as f:
            text = f.read()
        blocks = re.findall(r"```(python|c)\n(.*?)```", text, re.S)
        self.assertGreaterEqual(len([b for b in blocks if b[0] == "python"]), 2)
        self.assertEqual(len([b for b in blocks if b[0] == "c"]), 1)
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "bindings", "python"))
        with tempfile.TemporaryDirectory() as tmp:
            for i, (lang, code) in enumerate(blocks):
                if lang == "python":
                    r = subprocess.run([sys.executable, "-c", code], cwd=SOURCE, env=env,
                                       capture_output=True, text=True)
                else:
                    exe = os.path.join(tmp, "example_%d" % i)
                    src = exe + ".c"
                    with open(src, "w") as f:
                        f.write(code)
                    lib = os.environ["OPDEV_C_LIBRARY"]
                    cc = subprocess.run(["cc", "-o", exe, src, "-I", os.path.join(SOURCE, "bindings", "c"),
                                         lib, "-Wl,-rpath," + os.path.dirname(lib)],
                                        capture_output=True, text=True)
                    self.assertEqual(cc.returncode, 0, cc.stderr)
                    r = subprocess.run([exe], cwd=SOURCE, capture_output=True, text=True)
                    self.assertIn("check: status 0, clean: yes", r.stdout)
                    self.assertIn("compare: status 2, error: missing.npy", r.stdout)
                self.assertEqual(r.returncode, 0, "%s example %d:\n%s%s" % (lang, i, r.stdout, r.stderr))

    def test_log_callback_can_be_set_and_removed(self):
        lines = []
        with opdev.Context(log=lambda level, msg: lines.append((level, msg))) as ctx:
            ctx.set_log(None)
            self.assertEqual(ctx.last_error, "")


if __name__ == "__main__":
    unittest.main()
