"""CPU FP32 golden for matmul (Stage 2 contract): the precision reference every Stage 4 test
compares against through precision_compare (`_assert_precision`).

matmul_golden_cpu(a, b) returns float32 on the CPU for any input device/dtype:
c[m, n] = sum_k a[m, k] * b[k, n] with a [M, K] and b [K, N]. No pypto imports.
"""
import torch


def matmul_golden_cpu(a, b):
    """FP32 CPU reference of the 2-D matrix product."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul_golden_cpu expects [M, K] x [K, N], got {tuple(a.shape)} x {tuple(b.shape)}")
    af = a.detach().to(device="cpu", dtype=torch.float32)
    bf = b.detach().to(device="cpu", dtype=torch.float32)
    return torch.matmul(af, bf)


def _validate():
    """Check the reference against an exact float64 product on small shapes."""
    for m, k, n in [(1, 16, 1), (100, 208, 60), (256, 256, 256)]:
        torch.manual_seed(42)
        a = (torch.rand(m, k) * 2 - 1).to(torch.float16)
        b = (torch.rand(k, n) * 2 - 1).to(torch.float16)
        c = matmul_golden_cpu(a, b)
        assert c.dtype == torch.float32 and tuple(c.shape) == (m, n)
        ref = torch.matmul(a.double(), b.double())
        assert torch.allclose(c.double(), ref, atol=1e-4, rtol=1e-5), (m, k, n)
    return True


if __name__ == "__main__":
    _validate()
    print("matmul_golden_cpu: PASS")
