"""CPU FP32 golden for matmul_softmax (Stage 2 contract): the precision reference every final
Stage 4 test compares against through precision_compare (`_assert_precision`).

matmul_softmax_golden_cpu(q, k) returns float32 on the CPU for any input device/dtype:
y = softmax(q @ k^T, dim=-1) with q [M, D] and k [N, D]. No pypto imports.
"""
import torch


def matmul_softmax_golden_cpu(q, k):
    """FP32 CPU reference: row softmax of the score matrix q @ k^T."""
    if q.dim() != 2 or k.dim() != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"matmul_softmax_golden_cpu expects [M, D] and [N, D], got {tuple(q.shape)} and {tuple(k.shape)}")
    qf = q.detach().to(device="cpu", dtype=torch.float32)
    kf = k.detach().to(device="cpu", dtype=torch.float32)
    s = torch.matmul(qf, kf.transpose(0, 1))
    return torch.softmax(s, dim=-1)


def _validate():
    """Check the reference against a float64 computation on small shapes."""
    for m, n, d in [(1, 1, 16), (100, 77, 48), (256, 128, 128)]:
        torch.manual_seed(42)
        q = (torch.rand(m, d) * 2 - 1).to(torch.float16)
        k = (torch.rand(n, d) * 2 - 1).to(torch.float16)
        y = matmul_softmax_golden_cpu(q, k)
        assert y.dtype == torch.float32 and tuple(y.shape) == (m, n)
        ref = torch.softmax(q.double() @ k.double().T, dim=-1)
        assert torch.allclose(y.double(), ref, atol=1e-6, rtol=1e-5), (m, n, d)
    return True


if __name__ == "__main__":
    _validate()
    print("matmul_softmax_golden_cpu: PASS")
