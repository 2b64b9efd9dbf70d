"""CPU FP32 golden for silu (Stage 2 contract): the precision reference of every Stage 4 test.

silu_golden_cpu(x) returns float32 on the CPU: y = x / (1 + exp(-x)). No pypto imports.
"""
import torch


def silu_golden_cpu(x):
    """FP32 CPU reference of the elementwise SiLU."""
    if x.dim() != 2:
        raise ValueError(f"silu_golden_cpu expects a 2-D [B, N] tensor, got {tuple(x.shape)}")
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    return xf / (1.0 + torch.exp(-xf))
