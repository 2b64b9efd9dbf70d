"""CPU FP32 golden for swish: y = x / (1 + exp(-x)). No pypto imports."""
import torch


def swish_golden_cpu(x):
    """FP32 CPU reference of swish."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    return xf / (1.0 + torch.exp(-xf))
