"""scripts/frontend-suite's traced verdicts: the file is well formed, a verdict applies only to
the failure it describes (its code at its line), and, when the hicann/pypto mirror is present,
every verdict's line in the sample at the suite's revision is a PyPTO-Pro statement.

    frontend_suite_verdicts.py SCRIPTS_DIR [MIRROR_GIT_DIR]
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys

SUITE = "python/tests/st/pypto_pro/frontend"
REVISION = "883e7dfb0"
CLASSES = {"sample defect", "sample relies on undefined behaviour", "docs and sample disagree"}


def load_script(scripts):
    loader = importlib.machinery.SourceFileLoader("frontend_suite", os.path.join(scripts, "frontend-suite"))
    spec = importlib.util.spec_from_loader("frontend_suite", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def main():
    scripts = sys.argv[1]
    mirror = sys.argv[2] if len(sys.argv) > 2 else ""
    fs = load_script(scripts)
    verdicts = fs.load_verdicts(os.path.join(scripts, "frontend-suite-verdicts.json"))
    assert verdicts, "no verdicts loaded"
    failures = []
    for key, v in verdicts.items():
        file, _, name = key.partition("::")
        if not name or not file.endswith(".py"):
            failures.append("%s: not FILE::TEST" % key)
        if v["class"] not in CLASSES:
            failures.append("%s: class %r" % (key, v["class"]))
        if not (isinstance(v["line"], int) and v["line"] > 0) or not v["code"].startswith("SIM-"):
            failures.append("%s: bad code/line" % key)
        # The verdict applies to exactly its finding, and to nothing else.
        base = os.path.basename(file)
        test = {"file": file, "name": name}
        test["message"] = "E  /tmp/x/%s:%d: error[%s]: ..." % (base, v["line"], v["code"])
        if fs.apply_verdict(test, verdicts) is not v:
            failures.append("%s: does not apply to its own finding" % key)
        for other in ("%s:%d: error[%s]" % (base, v["line"] + 1, v["code"]),
                      "%s:%d: error[SIM-OTHER]" % (base, v["line"])):
            test["message"] = "E  /tmp/x/" + other
            if fs.apply_verdict(test, verdicts) is not None:
                failures.append("%s: applies to %s" % (key, other))
        if mirror and os.path.isdir(mirror):
            text = subprocess.run(["git", "-C", mirror, "show", "%s:%s/%s" % (REVISION, SUITE, file)],
                                  stdout=subprocess.PIPE, check=True).stdout.decode("utf-8").splitlines()
            line = text[v["line"] - 1] if v["line"] <= len(text) else ""
            if "pl." not in line:
                failures.append("%s: line %d is not a pl.* statement: %r" % (key, v["line"], line))
            func = name.split("[", 1)[0]  # a parametrised test: NAME[params]
            if ("def %s(" % func) not in "\n".join(text):
                failures.append("%s: no test function %s" % (key, func))
    for f in failures:
        print("FAIL", f)
    print("%d verdicts checked%s" % (len(verdicts), "" if mirror and os.path.isdir(mirror) else " (no mirror: lines not checked)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
