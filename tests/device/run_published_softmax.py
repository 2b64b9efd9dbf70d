#!/usr/bin/env python3
"""Runs a published delivered softmax test file unmodified under opdev's CPU device.

    run_published_softmax.py OPDEV DIR

DIR holds the files a real Stage 4 run delivered (test_softmax.py, softmax_golden.py,
softmax_golden_cpu.py, precision_compare.py); they are not part of this tree. They are copied
to a temporary directory (DIR is never written) and `opdev exec -- python3 test_softmax.py`
runs there. Passes when the command exits 0 and prints exactly eight `[label] PASS (...)`
lines with eight distinct labels and no FAIL line. Exit 77 (skipped) when DIR is empty or
does not hold the files.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

FILES = ("test_softmax.py", "softmax_golden.py", "softmax_golden_cpu.py", "precision_compare.py")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    opdev, src = sys.argv[1], sys.argv[2]
    if not src or not all(os.path.isfile(os.path.join(src, f)) for f in FILES):
        print("skipped: OPDEV_PUBLISHED_SOFTMAX_DIR does not name a directory with %s" % ", ".join(FILES))
        return 77
    with tempfile.TemporaryDirectory(prefix="opdev-published-softmax-") as tmp:
        for f in FILES:
            shutil.copy(os.path.join(src, f), tmp)
        p = subprocess.run([opdev, "exec", "--", sys.executable, "test_softmax.py"], cwd=tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    out = p.stdout.decode("utf-8", "replace")
    print(out)
    passes = re.findall(r"^\[(.+?)\] PASS \(", out, re.M)
    fails = re.findall(r"^\[(.+?)\].*FAIL", out, re.M)
    if p.returncode != 0 or len(passes) != 8 or len(set(passes)) != 8 or fails:
        print("FAILED: exit %d, %d PASS lines (%d distinct), %d FAIL lines" % (
            p.returncode, len(passes), len(set(passes)), len(fails)), file=sys.stderr)
        return 1
    print("the eight PASS lines: %s" % ", ".join(passes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
