# Final file of the L1 KB usage test op (parsed for names only).
import pypto_pro.language as pl


@pl.vector_function
def scale_vf(h, s):
    pass


@pl.vector_function
def cast_vf(s, y):
    pass


@pl.jit(auto_mutex=True)
def fused_kernel(x, w, y):
    pass


def fused_wrapper(x, w):
    pass
