"""CPU FP32 golden of softmax (Stage 2 shape)."""
import torch


def softmax_golden_cpu(x):
    return torch.softmax(x.float().cpu(), dim=-1)
