# Stand-in kernel file of the split-layout KB usage test op (parsed for names only).
import pypto_pro.language as pl
import torch


@pl.vector_function
def duo_rows_vf(tile, rows):
    pass


@pl.jit(auto_mutex=True)
def duo_kernel(x, y):
    pass


def duo_wrapper(x):
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    duo_kernel[None, 1](x, y)
    return y


def test_duo_aligned():
    pass
