#!/usr/bin/python3
"""Torch baseline of the scheme-A comparison for bench/bench_precision.cpp: the same
algorithm written the straightforward vectorised way (whole-tensor float64 copies, masks).

  precision_torch_baseline.py ACTUAL.npy GOLDEN.npy REPEATS
prints one JSON object: {"seconds": [...], "passed": bool, "matched_ratio": float, ...}.
Loading the files is not timed; each repeat times one full comparison. 2-byte raw ('V2')
files are bfloat16.
"""

import json
import sys
import time

import numpy as np
import torch

THRESHOLDS = {
    torch.float16: (2.0 ** -9, 2.0 ** -9, 0.1),
    torch.bfloat16: (2.0 ** -6, 2.0 ** -6, 1.0),
    torch.float32: (2.0 ** -10, 2.0 ** -16, 0.01),
    torch.float64: (2.0 ** -10, 2.0 ** -16, 0.01),
}


def load(path):
    arr = np.load(path)
    if arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
        return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16).reshape(arr.shape)
    return torch.from_numpy(arr)


def ulp(dtype):
    try:
        one = torch.tensor(1.0, dtype=dtype)
        return (torch.nextafter(one, torch.tensor(2.0, dtype=dtype)) - one).item()
    except (TypeError, RuntimeError):
        return torch.finfo(dtype).eps


def compare(a, g):
    rtol, atol, fixed = THRESHOLDS[a.dtype]
    limit = max(fixed, 32.0 * ulp(a.dtype))
    total = a.numel()
    af, gf = a.to(torch.float64), g.to(torch.float64)
    an, gn = torch.isnan(af), torch.isnan(gf)
    if (an != gn).sum().item():
        return {"passed": False}
    ai, gi = torch.isinf(af), torch.isinf(gf)
    both = ai & gi
    if (both & (torch.sign(af) != torch.sign(gf))).any().item():
        return {"passed": False}
    fi = torch.finfo(a.dtype)
    ac, gc = af.clone(), gf.clone()
    ac[ai & ~gi & (af > 0)] = fi.max
    ac[ai & ~gi & (af < 0)] = fi.min
    gc[gi & ~ai & (gf > 0)] = fi.max
    gc[gi & ~ai & (gf < 0)] = fi.min
    match = (both & (torch.sign(af) == torch.sign(gf))) | an | gn
    comp = ~match
    diff = (ac - gc).abs()
    ok = diff <= atol + rtol * gc.abs()
    ratio = ((ok & comp).sum().item() + match.sum().item()) / total
    dc = diff[comp]
    max_abs = dc.max().item()
    mean_abs = dc.mean().item()
    gabs = gc.abs()[comp]
    nz = gabs > 0
    mean_rel = (dc[nz] / gabs[nz]).mean().item() if nz.any().item() else 0.0
    passed = mean_abs <= atol and mean_rel <= rtol and ratio >= 0.99 and max_abs <= limit
    return {"passed": passed, "matched_ratio": ratio, "max_abs_error": max_abs,
            "mean_abs_error": mean_abs, "mean_rel_error": mean_rel}


def main():
    a, g = load(sys.argv[1]), load(sys.argv[2])
    repeats = int(sys.argv[3])
    seconds, result = [], None
    compare(a, g)  # warm-up
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = compare(a, g)
        seconds.append(time.perf_counter() - t0)
    result["seconds"] = seconds
    result["threads"] = torch.get_num_threads()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
