"""An endless kernel stops by itself, with the default work budget, through every front-end.

The same `while i >= 0` kernel runs (1) under `opdev sim --json`, (2) through the C ABI with
the Python binding (no work_budget given) and (3) as a PyPTO-Pro program under `opdev exec`
(the CPU device). Each must come back on its own with SIM-WORK-BUDGET naming the loop's line
and the iteration it reached; CTest's TIMEOUT is the guard that none of them hangs. The
wall time of each is printed, not asserted (speed targets live in bench/).

usage: endless_kernel.py OPDEV_BIN LIBOPDEV_C SOURCE_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

OPDEV_BIN, LIB, SOURCE = (os.path.abspath(a) for a in sys.argv[1:4])
LOOP_LINE = 8  # the `while` line of KERNEL
KERNEL = ("import pypto_pro.language as pl\n"
          "import torch\n"
          "\n"
          "@pl.jit\n"
          "def k(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):\n"
          "    with pl.section_vector():\n"
          "        i = 0\n"
          "        while i >= 0:\n"
          "            i = i + 1\n"
          "\n"
          "def w(x):\n"
          "    k[None, 1](x)\n"
          "    return x\n")
assert KERNEL.splitlines()[LOOP_LINE - 1].strip() == "while i >= 0:"
DEVICE_PROGRAM = KERNEL.replace("def w(x):\n    k[None, 1](x)\n    return x\n", "") + (
    "\n"
    "import torch_npu  # noqa: F401\n"
    "x = torch.zeros((2, 64), dtype=torch.float32).npu()\n"
    "try:\n"
    "    k[None, 1](x)\n"
    "    print('RETURNED')\n"
    "except Exception as e:  # the device's KernelHazardError\n"
    "    print('HAZARD ' + type(e).__name__ + ' ' + str(e))\n")

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def budget_hazard(hazards):
    return [h for h in hazards if h.get("code") == "SIM-WORK-BUDGET" and h.get("line") == LOOP_LINE]


with tempfile.TemporaryDirectory(prefix="opdev_endless_") as tmp:
    src = os.path.join(tmp, "endless.py")
    with open(src, "w") as f:
        f.write(KERNEL)
    x = os.path.join(tmp, "x.npy")
    np.save(x, np.zeros((2, 64), dtype=np.float32))

    # 1. The command.
    t0 = time.monotonic()
    cli = subprocess.run([OPDEV_BIN, "sim", src, "--entry", "w", "--in", x, "--out-dir",
                          os.path.join(tmp, "out_cli"), "--json"], capture_output=True, text=True)
    print("opdev sim: %.1f s" % (time.monotonic() - t0))
    check(cli.returncode == 1, "opdev sim exits 1 (got %d)" % cli.returncode)
    doc = json.loads(cli.stdout)
    check(doc.get("completed") is False, "opdev sim: completed is false")
    hz = budget_hazard(doc.get("hazards", []))
    check(len(hz) == 1, "opdev sim: one SIM-WORK-BUDGET at line %d" % LOOP_LINE)
    if hz:
        check(re.search(r"the loop at line %d was at iteration \d+" % LOOP_LINE, hz[0]["message"]) is not None,
              "opdev sim: the message names the loop and its iteration")
        check("the default" in hz[0]["message"], "opdev sim: the default budget applied")

    # 2. The C ABI, through the Python binding, without a work budget.
    sys.path.insert(0, os.path.join(SOURCE, "bindings", "python"))
    os.environ["OPDEV_C_LIBRARY"] = LIB
    import opdev  # noqa: E402
    t0 = time.monotonic()
    with opdev.Context() as ctx:
        res = ctx.sim(src, "w", inputs=[x], out_dir=os.path.join(tmp, "out_abi"))
    print("C ABI sim: %.1f s" % (time.monotonic() - t0))
    check(res.status == 1, "C ABI: status 1 (got %d)" % res.status)
    check(res["completed"] is False, "C ABI: completed is false")
    check(len(budget_hazard(res["hazards"])) == 1, "C ABI: one SIM-WORK-BUDGET at line %d" % LOOP_LINE)
    check(dict(res) == doc, "C ABI: the same document as the command")

    # 3. The CPU device: the kernel launch of a PyPTO-Pro program raises and the program goes on.
    prog = os.path.join(tmp, "device_endless.py")
    with open(prog, "w") as f:
        f.write(DEVICE_PROGRAM)
    t0 = time.monotonic()
    dev = subprocess.run([OPDEV_BIN, "exec", "--", sys.executable, prog], capture_output=True, text=True, cwd=tmp)
    print("opdev exec: %.1f s" % (time.monotonic() - t0))
    check(dev.returncode == 0, "opdev exec: the program ends normally (got %d; %s)" % (dev.returncode, dev.stderr[-400:]))
    check("RETURNED" not in dev.stdout, "opdev exec: the launch does not return silently")
    check(re.search(r"HAZARD KernelHazardError .*device_endless\.py:%d: error\[SIM-WORK-BUDGET\]" % LOOP_LINE,
                    dev.stdout, re.S) is not None,
          "opdev exec: KernelHazardError names SIM-WORK-BUDGET at the loop's line")

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
