"""CPU FP32 golden for layernorm: y = (x - mean(x)) / sqrt(var(x) + EPS) * gamma + beta. No pypto imports."""
import torch


def layernorm_golden_cpu(x, gamma, beta):
    """FP32 CPU reference of layernorm."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    gf = gamma.detach().to(device="cpu", dtype=torch.float32)
    bf = beta.detach().to(device="cpu", dtype=torch.float32)
    return torch.nn.functional.layer_norm(xf, (xf.shape[-1],), gf[0], bf[0], eps=1e-5)
