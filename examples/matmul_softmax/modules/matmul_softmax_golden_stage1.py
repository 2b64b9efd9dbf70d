"""Staged CPU FP32 golden of Module 1 of matmul_softmax: the score matrix s = q @ k^T
(float32), the output of the Module 1 staged file. No pypto imports."""
import torch


def matmul_softmax_golden_stage1(q, k):
    """s[m, n] = sum_d q[m, d] * k[n, d] in float32 on the CPU."""
    qf = q.detach().to(device="cpu", dtype=torch.float32)
    kf = k.detach().to(device="cpu", dtype=torch.float32)
    return torch.matmul(qf, kf.transpose(0, 1))
