"""CPU FP32 golden for rmsnorm_long: y = x / sqrt(mean(x^2, dim=-1) + EPS) * gamma. No pypto imports."""
import torch


def rmsnorm_long_golden_cpu(x, gamma):
    """FP32 CPU reference of rmsnorm_long."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    gf = gamma.detach().to(device="cpu", dtype=torch.float32)
    return xf / torch.sqrt((xf * xf).mean(dim=-1, keepdim=True) + 1e-6) * gf
