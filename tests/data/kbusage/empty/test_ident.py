import pypto_pro.language as pl


@pl.jit
def ident_kernel(x, y):
    pass


def ident_wrapper(x):
    return x
