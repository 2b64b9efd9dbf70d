"""The three L1 rounds of a Vector/Cube fusion through the Python binding (and so the C ABI)
on a copy of examples/matmul_softmax in a temporary workspace: stage with module_k=1,
module_k=2 and finalize. Each round starts from the same files for both front-ends (the op
dir is restored between them), and its document must equal the one `opdev stage ... --json`
prints for the same request, with the same status. The simulator verdict of every round is
CLEAN. One field is left out of the comparison: a case's `output_line`, its line in the
run's combined log, where stdout and stderr (the staged file's precision_compare warning)
are interleaved in arrival order, so the number can differ between two runs of one file.
Run by CTest with OPDEV_C_LIBRARY, OPDEV_BIN, OPDEV_SOURCE_DIR and OPDEV_KB_ROOT."""

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
EXAMPLE = os.path.join(SOURCE, "examples", "matmul_softmax")


def without_output_lines(doc):
    """`doc` without the `output_line` of its cases (see the module docstring)."""
    if isinstance(doc, dict):
        return {k: without_output_lines(v) for k, v in doc.items() if k != "output_line"}
    if isinstance(doc, list):
        return [without_output_lines(v) for v in doc]
    return doc


class L1RoundsTest(unittest.TestCase):
    def test_three_rounds(self):
        with tempfile.TemporaryDirectory(prefix="opdev_py_l1_") as tmp, \
                opdev.Context(kb_root=KB_ROOT) as ctx:
            op = os.path.join(tmp, "custom", "matmul_softmax")
            shutil.copytree(EXAMPLE, op)
            rounds = [(dict(module_k=1), ["--module-k", "1"]),
                      (dict(module_k=2), ["--module-k", "2"]),
                      (dict(finalize=True), ["--finalize"])]
            for kwargs, flags in rounds:
                with self.subTest(round=flags):
                    before = os.path.join(tmp, "before")
                    shutil.copytree(op, before, symlinks=True)
                    result = ctx.stage(op, **kwargs)
                    shutil.rmtree(op)
                    shutil.move(before, op)
                    cli = subprocess.run([OPDEV_BIN, "stage", op, "--kb-root", KB_ROOT, *flags,
                                          "--json"], capture_output=True, text=True)
                    self.assertEqual(cli.returncode, result.status, cli.stderr)
                    cli_doc, lib_doc = json.loads(cli.stdout), dict(result)
                    self.assertTrue(all("output_line" in c for c in lib_doc["cases"]))
                    self.assertEqual(without_output_lines(cli_doc), without_output_lines(lib_doc))
                    self.assertEqual(result["verdict"]["outcome"], "CLEAN",
                                     json.dumps(result["verdict"], indent=1))
            self.assertTrue(os.path.isfile(os.path.join(op, "test_matmul_softmax.py")))


if __name__ == "__main__":
    unittest.main()
