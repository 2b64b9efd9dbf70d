def fused_golden_cpu(x, w):
    return x
