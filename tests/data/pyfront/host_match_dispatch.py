"""Structural pattern matching over parsed command records."""
from enum import Enum


class Verdict(Enum):
    PASS = "PASS"
    FAIL = "FAIL"


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


def describe(event):
    match event:
        case None:
            return "nothing"
        case True | False as flag:
            return f"flag {flag}"
        case 0 | -1 | 1.5 | 2 + 3j:
            return "special number"
        case "run" | b"run":
            return "run"
        case Verdict.PASS:
            return "passed"
        case [Verdict.FAIL, *rest] if rest:
            return f"failed with {len(rest)} notes"
        case []:
            return "empty list"
        case [x]:
            return f"singleton {x}"
        case [x, y, *_]:
            return f"pair-ish {x} {y}"
        case (a, b) if a == b:
            return "twin"
        case {"op": "load", "dst": dst, **others}:
            return f"load into {dst} ({len(others)} extra)"
        case {"op": str() as op}:
            return f"op {op}"
        case Point(0, 0):
            return "origin"
        case Point(x=0, y=yy):
            return f"on y axis at {yy}"
        case Point(xx, y=0):
            return f"on x axis at {xx}"
        case int(n) | float(n) if n > 100:
            return "big"
        case str(s):
            return s.upper()
        case _:
            return "unknown"


def main():
    samples = [None, True, 0, "run", Verdict.PASS, [Verdict.FAIL, "oom"], [], [1], [1, 2, 3],
               (4, 4), {"op": "load", "dst": "ub", "n": 1}, {"op": "store"}, Point(0, 0),
               Point(0, 5), Point(3, 0), 1000, "x", object()]
    for s in samples:
        print(describe(s))
    match = {"match": 1}
    case = match["match"]
    print(match, case)


if __name__ == "__main__":
    main()
