#!/usr/bin/python3
"""Independent torch implementation of the scheme-A precision standard, written from
spec/precision-compare.md, plus the case generator of opdev's differential test.

  reference_compare.py gen OUTDIR [--seed N] [--random N]
      writes OUTDIR/*.npy and OUTDIR/cases.json: for every case the input files, the
      dtype_str, and the verdict, summary, metrics and diagnostics this reference computes.
  reference_compare.py check ACTUAL.npy GOLDEN.npy [DTYPE]
      prints the verdict and summary for one pair.

The implementation is the straightforward vectorised one (whole-tensor float64 copies).
bfloat16 tensors are stored as 2-byte raw ('|V2') .npy files (numpy has no bfloat16).
"""

import json
import math
import os
import sys

import numpy as np
import torch

REQUIRED_RATIO = 0.99
THRESHOLDS = {  # dtype: (rtol, atol, fixed max-abs limit)
    torch.float16: (2.0 ** -9, 2.0 ** -9, 0.1),
    torch.bfloat16: (2.0 ** -6, 2.0 ** -6, 1.0),
    torch.float32: (2.0 ** -10, 2.0 ** -16, 0.01),
    torch.float64: (2.0 ** -10, 2.0 ** -16, 0.01),
}
NAMES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
         "float64": torch.float64, "half": torch.float16, "float": torch.float32,
         "double": torch.float64}
HIST_EDGES = [0.0625, 0.25, 0.5, 1.0, 2.0, 4.0, 16.0]


def ulp(dtype):
    try:
        one = torch.tensor(1.0, dtype=dtype)
        return (torch.nextafter(one, torch.tensor(2.0, dtype=dtype)) - one).item()
    except (TypeError, RuntimeError):
        return torch.finfo(dtype).eps


def row(name, value, thresh, op, failed):
    line = f"    {name:<16}: {value:<10}thresh={thresh:<10}check={op}"
    return line + ("  [CHECK_FAILED]" if failed else "")


def compare_one(a, g, tdtype):
    """Returns (passed, summary, metrics, diagnostics)."""
    if tuple(a.shape) != tuple(g.shape):
        return False, f"shape mismatch: actual={tuple(a.shape)} vs golden={tuple(g.shape)}", {}, {}
    cmp = tdtype or a.dtype
    total = a.numel()
    if cmp not in THRESHOLDS:
        if a.dtype != g.dtype:
            return (False, f"dtype mismatch for exact comparison: actual={a.dtype}, golden={g.dtype}",
                    {}, {})
        if a.is_floating_point():
            return False, f"unsupported floating dtype: {cmp}", {}, {}
        if total == 0:
            return True, "empty tensor", {}, {}
        n = int((a != g).sum().item())
        if n == 0:
            return True, "exact match (integer)", {"matched_ratio": 1.0}, {}
        return False, f"integer mismatch: {n}/{total} elements differ", {"matched_ratio": 1 - n / total}, {}
    if not a.is_floating_point() or not g.is_floating_point():
        return (False, f"unsupported dtype pair for floating comparison: actual={a.dtype}, golden={g.dtype}",
                {}, {})
    if total == 0:
        return True, "empty tensor", {}, {}
    rtol, atol, fixed = THRESHOLDS[cmp]
    limit = max(fixed, 32.0 * ulp(cmp))
    af = a.to(torch.float64).reshape(-1)
    gf = g.to(torch.float64).reshape(-1)
    an, gn = torch.isnan(af), torch.isnan(gf)
    diag = {"nan_mismatch": int((an != gn).sum().item())}
    if diag["nan_mismatch"]:
        return False, f"NaN position mismatch: {diag['nan_mismatch']} positions differ", {}, diag
    ai, gi = torch.isinf(af), torch.isinf(gf)
    both = ai & gi
    opposite = both & (torch.sign(af) != torch.sign(gf))
    if opposite.any().item():
        return False, f"Inf sign mismatch: {int(opposite.sum().item())} positions", {}, diag
    fmax = torch.finfo(cmp).max
    ac, gc = af.clone(), gf.clone()
    ac[ai & ~gi] = torch.sign(af[ai & ~gi]) * fmax
    gc[gi & ~ai] = torch.sign(gf[gi & ~ai]) * fmax
    matched = (both & ~opposite) | an | gn
    comp = ~matched
    if not comp.any().item():
        ratio, max_abs, mean_abs, mean_rel = 1.0, 0.0, 0.0, 0.0
        diag.update(cosine=None)
    else:
        ac, gc = ac[comp], gc[comp]
        diff = (ac - gc).abs()
        tol = atol + rtol * gc.abs()
        ok = diff <= tol
        ratio = (int(ok.sum().item()) + int(matched.sum().item())) / total
        max_abs = diff.max().item()
        mean_abs = diff.mean().item()
        nz = gc.abs() > 0
        rel = diff[nz] / gc.abs()[nz]
        mean_rel = rel.mean().item() if nz.any().item() else 0.0
        saa, sgg, sag = (ac * ac).sum().item(), (gc * gc).sum().item(), (ac * gc).sum().item()
        ssq = (diff * diff).sum().item()
        if saa == 0 and sgg == 0:
            cosine = 1.0
        elif saa == 0 or sgg == 0:
            cosine = 0.0
        else:
            cosine = sag / (math.sqrt(saa) * math.sqrt(sgg))
        ratio_t = diff / tol
        hist = []
        lo = None
        for e in HIST_EDGES + [None]:
            sel = torch.ones_like(diff, dtype=torch.bool)
            if lo is not None:
                sel &= diff > tol * lo
            if e is not None:
                sel &= ~(diff > tol * e)
            hist.append(int(sel.sum().item()))
            lo = e
        del ratio_t
        diag.update(
            cosine=cosine,
            rmse=math.sqrt(ssq / diff.numel()),
            max_rel=rel.max().item() if nz.any().item() else 0.0,
            rel_euclid=0.0 if ssq == 0 else (math.sqrt(ssq) / math.sqrt(sgg) if sgg > 0 else None),
            failed=int((~ok).sum().item()),
            histogram=hist,
        )
    checks = [
        ("atol", f"{mean_abs:.3e}", f"{atol:.3e}", "GT", mean_abs > atol),
        ("rtol", f"{mean_rel:.3e}", f"{rtol:.3e}", "GT", mean_rel > rtol),
        ("matched_ratio", f"{ratio:.4f}", f"{REQUIRED_RATIO:.4f}", "LT", ratio < REQUIRED_RATIO),
        ("max_abs_error", f"{max_abs:.3e}", f"{limit:.3e}", "GT", max_abs > limit),
    ]
    passed = not any(c[4] for c in checks)
    lines = ["precision " + ("PASS" if passed else "FAIL")]
    lines += [row(*c) for c in checks]
    lines.append("-" * 100)
    metrics = {"matched_ratio": ratio, "max_abs_error": max_abs, "mean_abs_error": mean_abs,
               "mean_rel_error": mean_rel}
    return passed, "\n".join(lines), metrics, diag


def check_precision(actual, golden, dtype_str=None):
    """Returns (passed, summary, per-output [(metrics, diagnostics) or None])."""
    actuals = actual if isinstance(actual, list) else [actual]
    goldens = golden if isinstance(golden, list) else [golden]
    if len(actuals) != len(goldens):
        return False, f"output count mismatch: actual={len(actuals)} vs golden={len(goldens)}", []
    if dtype_str is not None and dtype_str not in NAMES:
        return False, f"unsupported dtype: {dtype_str}", []
    tdtype = NAMES.get(dtype_str)
    ok, parts, outs, compared = True, [], [], 0
    for i, (a, g) in enumerate(zip(actuals, goldens)):
        if a is None and g is None:
            outs.append(None)
            continue
        if a is None or g is None:
            ok = False
            parts.append(f"output[{i}]: one side is None")
            outs.append(None)
            continue
        compared += 1
        p, s, m, d = compare_one(a, g, tdtype)
        ok = ok and p
        parts.append(("" if len(actuals) == 1 else f"output[{i}]: ") + s)
        outs.append({"passed": p, "metrics": m, "diagnostics": d})
    if compared == 0:
        ok = False
        parts.append("no tensor output was compared")
    return ok, "; ".join(parts), outs


# ---- files ----------------------------------------------------------------------------

def save(t, path):
    if t.dtype == torch.bfloat16:
        # (torch's view(dtype) turns a 0-d tensor into shape (1,): restore the shape.)
        np.save(path, t.contiguous().view(torch.int16).reshape(t.shape).numpy().view("V2"))
    else:
        np.save(path, t.contiguous().numpy())


def load(path, bf16=False):
    arr = np.load(path)
    if arr.dtype.kind == "V" and arr.dtype.itemsize == 2:
        bits = torch.from_numpy(arr.view(np.int16).copy())
        return bits.view(torch.bfloat16).reshape(arr.shape)
    return torch.from_numpy(np.array(arr, copy=True, order="C"))  # (ascontiguousarray makes 0-d 1-d)


# ---- cases -----------------------------------------------------------------------------

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def t(values, dtype, shape=None):
    x = torch.tensor(values, dtype=torch.float64).to(dtype)
    return x.reshape(shape) if shape is not None else x


def adversarial_cases():
    c = []
    inf, nan = float("inf"), float("nan")
    # Boundary: element error exactly equal to atol + rtol*|g| passes.
    for dt in FLOATS:
        rtol, atol, _ = THRESHOLDS[dt]
        g = t([1.0, 2.0, 0.5, 0.0], dt)
        a = t([1.0 + atol + rtol, 2.0 - (atol + 2 * rtol), 0.5, atol], dt)
        c.append((f"tol_boundary_{dt}", a, g, None))
        g = torch.ones(1000, dtype=torch.float64).to(dt)
        a = g.clone()
        a[999] = 1.0 + atol + rtol  # exactly at the element tolerance: passes, ratio 1.0
        c.append((f"tol_boundary_one_{dt}", a, g, None))
        a2 = g.clone()
        a2[999] = 1.0 + atol + rtol + ulp(dt)  # one ulp above the tolerance
        c.append((f"tol_boundary_one_above_{dt}", a2, g, None))
    # Matched ratio exactly 0.99 (1 of 100 fails) and just below (2 of 100 fail, 1 of 199).
    for dt in FLOATS:
        g = torch.ones(100, dtype=torch.float64).to(dt)
        a = g.clone()
        a[7] = 1.0625
        c.append((f"ratio_exactly_099_{dt}", a, g, None))
        a2 = a.clone()
        a2[50] = 1.0625
        c.append((f"ratio_098_{dt}", a2, g, None))
    # Max error exactly at the limit with float64 data judged by each row (dtype_str).
    for name, lim in (("float16", 0.1), ("bfloat16", 1.0), ("float32", 0.01), ("float64", 0.01)):
        g = torch.zeros(1000, dtype=torch.float64)
        a = g.clone()
        a[3] = lim
        c.append((f"max_at_limit_{name}", a, g, name))
        a2 = g.clone()
        a2[3] = math.nextafter(lim, 1.0)
        c.append((f"max_above_limit_{name}", a2, g, name))
    # NaN / Inf rules.
    for dt in FLOATS:
        c.append((f"nan_one_side_{dt}", t([1.0, nan, 3.0], dt), t([1.0, 2.0, 3.0], dt), None))
        c.append((f"nan_both_{dt}", t([1.0, nan, 3.0], dt), t([1.0, nan, 3.0], dt), None))
        c.append((f"nan_only_{dt}", t([nan, nan], dt), t([nan, nan], dt), None))
        c.append((f"inf_same_{dt}", t([inf, -inf, 1.0], dt), t([inf, -inf, 1.0], dt), None))
        c.append((f"inf_opposite_{dt}", t([inf, -inf, 1.0], dt), t([-inf, -inf, 1.0], dt), None))
        c.append((f"inf_vs_finite_{dt}", t([inf, 1.0] + [1.0] * 200, dt),
                  t([1.0, 1.0] + [1.0] * 200, dt), None))
        c.append((f"inf_vs_max_{dt}", t([inf, -inf, 2.0], dt),
                  t([torch.finfo(dt).max, torch.finfo(dt).min, 2.0], dt), None))
        c.append((f"nan_and_inf_{dt}", t([nan, inf, 1.0], dt), t([1.0, -inf, 1.0], dt), None))
    # Empty, 0-d, zeros in the golden, negative zero, subnormals.
    for dt in FLOATS:
        c.append((f"empty_{dt}", torch.zeros(0, 3, dtype=dt), torch.zeros(0, 3, dtype=dt), None))
        c.append((f"scalar_{dt}", t(1.5, dt), t(1.5, dt), None))
        c.append((f"zeros_golden_{dt}", t([0.0, -0.0, 1e-3, 0.0], dt), t([0.0, 0.0, 0.0, -0.0], dt), None))
    c.append(("subnormal_f16", t([6e-8, 1e-7, 3e-5], torch.float16), t([0.0, 6e-8, 3e-5], torch.float16), None))
    c.append(("subnormal_f64", t([5e-324, 1e-310], torch.float64), t([0.0, 2e-310], torch.float64), None))
    c.append(("huge_f64", t([1e308, -1e308], torch.float64), t([-1e308, 1e308], torch.float64), None))
    # bf16 tolerance: values off by one bf16 ulp pass; off by several fail.
    g = torch.linspace(-4, 4, 257, dtype=torch.float64).to(torch.bfloat16)
    a = (g.to(torch.float64) * (1 + 2.0 ** -7)).to(torch.bfloat16)
    c.append(("bf16_one_ulp", a, g, None))
    a = (g.to(torch.float64) * 1.05).to(torch.bfloat16)
    c.append(("bf16_five_percent", a, g, None))
    # Mixed dtypes: fp16 actual vs fp32 golden (actual's row), and dtype_str overrides.
    g = torch.randn(300, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    c.append(("f16_vs_f32", g.to(torch.float16), g.to(torch.float32), None))
    c.append(("f16_vs_f32_as_float32", g.to(torch.float16), g.to(torch.float32), "float32"))
    c.append(("f32_as_half", g.to(torch.float32), g.to(torch.float64), "half"))
    c.append(("f32_as_double", g.to(torch.float32) + 1e-4, g.to(torch.float64), "double"))
    c.append(("bogus_dtype_name", g.to(torch.float32), g.to(torch.float32), "fp32"))
    # Shape and dtype rules.
    c.append(("shape_mismatch", torch.zeros(2, 3), torch.zeros(3, 2), None))
    c.append(("shape_mismatch_1d", torch.zeros(5), torch.zeros(1, 5), None))
    c.append(("int_vs_float", torch.zeros(3, dtype=torch.int32), torch.zeros(3), None))
    c.append(("float_vs_int", torch.zeros(3), torch.zeros(3, dtype=torch.int32), None))
    c.append(("int_as_float16", torch.zeros(3, dtype=torch.int32), torch.zeros(3, dtype=torch.int32), "float16"))
    for dt in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
        x = torch.arange(50).to(dt)
        y = x.clone()
        y[3] = 9
        y[40] = 1
        c.append((f"int_mismatch_{dt}", x, y, None))
        c.append((f"int_equal_{dt}", x, x.clone(), None))
        c.append((f"int_empty_{dt}", torch.zeros(0, dtype=dt), torch.zeros(0, dtype=dt), None))
    c.append(("int_dtype_mismatch", torch.zeros(3, dtype=torch.int32), torch.zeros(3, dtype=torch.int64), None))
    b = torch.tensor([True, False, True, True])
    c.append(("bool_equal", b, b.clone(), None))
    c.append(("bool_mismatch", b, torch.tensor([True, True, True, False]), None))
    # Mean checks fail while ratio and max pass: a small bias everywhere.
    g = torch.full((1000,), 8.0, dtype=torch.float32)
    c.append(("mean_abs_bias_f32", g + 0.007, g, None))
    # Multi-output lists with None placeholders.
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    c.append(("multi_ok", [x, None, x.to(torch.float16)], [x, None, x.to(torch.float16)], None))
    c.append(("multi_one_fails", [x, x + 1], [x, x], None))
    c.append(("multi_one_side_none", [x, None], [x, x], None))
    c.append(("multi_all_none", [None, None], [None, None], None))
    c.append(("single_none", [None], [x], None))
    c.append(("count_mismatch", [x, x], [x], None))
    c.append(("multi_shape_mismatch", [x, x], [x, x.t()], None))
    return c


def random_cases(gen, count):
    c = []
    for i in range(count):
        rank = int(torch.randint(0, 5, (1,), generator=gen))
        shape = [int(torch.randint(1, 9 if rank > 2 else 70, (1,), generator=gen)) for _ in range(rank)]
        adt = FLOATS[int(torch.randint(0, 4, (1,), generator=gen))]
        gdt = FLOATS[int(torch.randint(0, 4, (1,), generator=gen))] if i % 3 == 0 else adt
        scale = 10.0 ** float(torch.randint(-3, 4, (1,), generator=gen))
        g = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
        noise_kind = i % 5
        noise = torch.randn(shape, generator=gen, dtype=torch.float64)
        if noise_kind == 0:
            a = g.clone()
        elif noise_kind == 1:
            a = g * (1 + noise * 1e-4)
        elif noise_kind == 2:
            a = g * (1 + noise * 3e-3)
        elif noise_kind == 3:
            a = g + noise * 1e-2 * scale
        else:
            a = g.clone().reshape(-1)
            if a.numel():
                k = max(1, a.numel() // 50)
                idx = torch.randint(0, a.numel(), (k,), generator=gen)
                a[idx] = a[idx] + 1.0
            a = a.reshape(shape)
        if i % 7 == 0 and g.numel() > 2:
            gf = g.reshape(-1)
            af = a.reshape(-1)
            gf[0] = float("nan")
            af[0] = float("nan")
            gf[1] = float("inf")
            af[1] = float("inf") if i % 2 else 5.0
        if i % 11 == 0 and g.numel() > 0:
            g.reshape(-1)[0] = 0.0
        dtype_str = [None, None, None, "float32", "bfloat16", "half"][i % 6]
        c.append((f"random_{i}", a.to(adt), g.to(gdt), dtype_str))
    return c


def num(x):
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return x


def gen(outdir, seed, nrandom):
    os.makedirs(outdir, exist_ok=True)
    gen_ = torch.Generator().manual_seed(seed)
    cases = adversarial_cases() + random_cases(gen_, nrandom)
    out = []
    for name, a, g, dtype_str in cases:
        files = {}
        for side, val in (("actual", a), ("golden", g)):
            lst = val if isinstance(val, list) else [val]
            paths = []
            for j, x in enumerate(lst):
                if x is None:
                    paths.append(None)
                    continue
                p = os.path.join(outdir, f"{name}.{side}{j}.npy")
                save(x, p)
                paths.append(os.path.basename(p))
            files[side] = paths
        # Recompute from the files, exactly what the C++ side will read.
        def reload(paths):
            return [None if p is None else load(os.path.join(outdir, p)) for p in paths]
        ra, rg = reload(files["actual"]), reload(files["golden"])
        single = not isinstance(a, list)
        passed, summary, outs = check_precision(ra[0] if single else ra, rg[0] if single else rg, dtype_str)
        for o in outs:
            if o is None:
                continue
            o["metrics"] = {k: num(v) for k, v in o["metrics"].items()}
            o["diagnostics"] = {k: (num(v) if not isinstance(v, list) else v)
                                for k, v in o["diagnostics"].items()}
        out.append({"name": name, "actual": files["actual"], "golden": files["golden"],
                    "dtype": dtype_str, "passed": passed, "summary": summary, "outputs": outs})
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"{len(out)} cases written to {outdir}")


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        seed, nrandom = 20240601, 300
        rest = argv[3:]
        for i in range(0, len(rest) - 1, 2):
            if rest[i] == "--seed":
                seed = int(rest[i + 1])
            elif rest[i] == "--random":
                nrandom = int(rest[i + 1])
        gen(argv[2], seed, nrandom)
        return 0
    if len(argv) >= 4 and argv[1] == "check":
        passed, summary, _ = check_precision(load(argv[2]), load(argv[3]), argv[4] if len(argv) > 4 else None)
        print(summary)
        return 0 if passed else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
