"""CPU FP32 golden for softmax (Stage 2 contract): the precision reference every Stage 4
test compares against through precision_compare (`_assert_precision`).

softmax_golden_cpu(x) returns float32 on the CPU for any input device/dtype, following the
SPEC.md formula exactly: y[b, i] = exp(x[b, i] - m[b]) / s[b] with m[b] = max_j x[b, j] and
s[b] = sum_j exp(x[b, j] - m[b]), over the last axis of a 2-D [B, N] tensor.
No pypto imports.
"""
import torch


def softmax_golden_cpu(x):
    """FP32 CPU reference of the numerically stable row softmax."""
    if x.dim() != 2:
        raise ValueError(f"softmax_golden_cpu expects a 2-D [B, N] tensor, got {tuple(x.shape)}")
    if x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"softmax_golden_cpu needs B >= 1 and N >= 1, got {tuple(x.shape)}")
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    m = xf.amax(dim=-1, keepdim=True)
    e = torch.exp(xf - m)
    s = e.sum(dim=-1, keepdim=True)
    return e / s


# SPEC.md p0_cases: (name, input shape).
P0_CASES = [("p0_batch1_n128", (1, 128)), ("p0_batch4_n2048", (4, 2048)),
            ("p0_batch32_n4096", (32, 4096))]


def _validate():
    """Check the reference on the SPEC P0 shapes: rows sum to 1 and it equals torch.softmax."""
    for name, shape in P0_CASES:
        torch.manual_seed(42)
        x = (torch.rand(shape) * 20 - 10).to(torch.float16)
        y = softmax_golden_cpu(x)
        assert y.dtype == torch.float32 and tuple(y.shape) == shape, name
        assert torch.allclose(y.sum(dim=-1), torch.ones(shape[0]), atol=1e-5), name
        ref = torch.softmax(x.float(), dim=-1)
        assert torch.allclose(y, ref, atol=1e-6, rtol=1e-5), name
    return True


if __name__ == "__main__":
    _validate()
    print("softmax_golden_cpu: P0 cases PASS")
