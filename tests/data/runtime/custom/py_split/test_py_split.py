# A case line printed to stdout in two pieces with a warning written to stderr between them (as
# a warning raised while the line is being formatted): the combined log keeps each stream's
# lines whole, so the case still parses.
import sys
import time


def test_py_split_case():
    sys.stdout.write("[case [2,64]] PASS (matched_ratio=1.000000 (req>=0.99), ")
    sys.stdout.flush()
    time.sleep(0.3)
    sys.stderr.write("test_py_split.py:12: UserWarning: a warning between the pieces\n")
    sys.stderr.flush()
    time.sleep(0.3)
    sys.stdout.write("max_abs_error=0.000000e+00 (limit=1.000000e-01))\n")
    sys.stdout.flush()


if __name__ == "__main__":
    test_py_split_case()
