def fused_golden_stage123(x, w):
    return x
