"""CPU FP32 golden for add_relu: y = relu(x + z). No pypto imports."""
import torch


def add_relu_golden_cpu(x, z):
    """FP32 CPU reference of add_relu."""
    xf = x.detach().to(device="cpu", dtype=torch.float32)
    zf = z.detach().to(device="cpu", dtype=torch.float32)
    return torch.relu(xf + zf)
