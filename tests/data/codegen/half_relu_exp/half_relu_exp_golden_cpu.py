"""CPU FP32 golden for half_relu_exp: y = exp(0.5 * relu(x)). No pypto imports."""
import torch


def half_relu_exp_golden_cpu(x):
    """FP32 CPU reference of half_relu_exp."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    return torch.exp(0.5 * torch.relu(xf))
