# Module 2 staged file of the L1 KB usage test op (parsed for names only).
import pypto_pro.language as pl


@pl.vector_function
def scale_vf(h, s):
    pass


@pl.jit(auto_mutex=True)
def fused_kernel(x, w, s):
    pass


def fused_wrapper_module12(x, w):
    pass
