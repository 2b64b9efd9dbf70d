"""Staged CPU FP32 golden of Module 1 of fused: h = x @ w."""
import torch


def fused_golden_stage1(x, w):
    return x.float().cpu() @ w.float().cpu()
