"""Builds the performance case table and writes it as sorted JSON."""
import json
import math
from functools import reduce
from operator import mul

DTYPES = ("float16", "bfloat16", "float32")
SIZES = {"float16": 2, "bfloat16": 2, "float32": 4}


def case_id(shape, dtype):
    return "_".join(str(d) for d in shape) + "_" + dtype


def make_cases(shapes, dtypes=DTYPES):
    cases = []
    for shape in shapes:
        for dt in dtypes:
            numel = reduce(mul, shape, 1)
            cases.append({
                "id": case_id(shape, dt),
                "shape": list(shape),
                "dtype": dt,
                "bytes": numel * SIZES[dt],
                "log2": round(math.log2(numel), 3) if numel else None,
            })
    cases.sort(key=lambda c: (c["bytes"], c["id"]))
    return cases


def split_priority(cases, budget=1 << 20):
    p0 = [c for c in cases if c["bytes"] <= budget]
    rest = [c for c in cases if c not in p0]
    return {"P0": p0, "P1": rest}


if __name__ == "__main__":
    table = split_priority(make_cases([(1, 4096), (64, 8192), (4096, 4096), (3, 5)]))
    text = json.dumps(table, indent=2, sort_keys=True)
    print(text[:200], len(table["P0"]), len(table["P1"]), sep="\n")
