"""CPU FP32 golden for softmax_long: y = softmax(x, dim=-1). No pypto imports."""
import torch


def softmax_long_golden_cpu(x):
    """FP32 CPU reference of softmax_long."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    return torch.softmax(xf, dim=-1)
