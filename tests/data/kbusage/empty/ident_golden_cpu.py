def ident_golden_cpu(x):
    return x
