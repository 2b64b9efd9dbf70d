# Module 1 staged file of the L1 KB usage test op (parsed for names only).
import pypto_pro.language as pl


@pl.jit(auto_mutex=True)
def fused_kernel(x, w, h):
    pass


def fused_wrapper_module1(x, w):
    pass
