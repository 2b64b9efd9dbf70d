"""Staged CPU FP32 golden of Modules 1..2 of matmul_softmax: y = softmax(q @ k^T, dim=-1)
(float32), the output of the Module 1+2 staged file. No pypto imports."""
import torch


def matmul_softmax_golden_stage12(q, k):
    """Row softmax of the float32 score matrix q @ k^T on the CPU."""
    qf = q.detach().to(device="cpu", dtype=torch.float32)
    kf = k.detach().to(device="cpu", dtype=torch.float32)
    return torch.softmax(torch.matmul(qf, kf.transpose(0, 1)), dim=-1)
