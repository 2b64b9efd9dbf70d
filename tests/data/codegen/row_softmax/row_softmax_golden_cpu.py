"""CPU FP32 golden for row_softmax: y = softmax(x, dim=-1). No pypto imports."""
import torch


def row_softmax_golden_cpu(x):
    """FP32 CPU reference of row_softmax."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    return torch.softmax(xf, dim=-1)
