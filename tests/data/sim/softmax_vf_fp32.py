"""Row softmax over a [rows, cols] fp32 matrix with VF registers (simulator test kernel).

Rows are split into row blocks of BLOCK_ROWS spread over the cores; the columns of a row
live in one UB row of ROW_CAP elements and are walked register by register (64 fp32 lanes).
Row tails: set_validshape on the row block. Column tails: update_mask on the last register.
"""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf
from pypto_pro.runtime.platform import get_platform_info
import torch

LANES = 64
ROW_CAP = 512
BLOCK_ROWS = 16
MIN_VALUE = -1e30
BLOCK_BYTES = BLOCK_ROWS * ROW_CAP * 4

X_PING = 0
X_PONG = X_PING + BLOCK_BYTES
Y_PING = X_PONG + BLOCK_BYTES
Y_PONG = Y_PING + BLOCK_BYTES


@pl.vector_function
def row_softmax(src, dst, rows: pl.DT_INT64, cols: pl.DT_INT64):
    full = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    regs = (cols + LANES - 1) // LANES
    for i in pl.range(0, rows):
        row = i * ROW_CAP
        best = vf.full(MIN_VALUE, full, dtype=pl.DT_FP32)
        for k in pl.range(0, regs):
            live = pl.min(LANES, cols - k * LANES)
            m = vf.update_mask(live, dtype=pl.DT_FP32)
            v = vf.load_align(src, row + k * LANES)
            best = vf.max(best, vf.reduce_max(v, m), full)
        best_all = vf.full(best, full)
        total = vf.full(0.0, full, dtype=pl.DT_FP32)
        for k in pl.range(0, regs):
            live = pl.min(LANES, cols - k * LANES)
            m = vf.update_mask(live, dtype=pl.DT_FP32)
            v = vf.load_align(src, row + k * LANES)
            e = vf.exp_sub(v, best_all, m)
            total = vf.add(total, vf.reduce_sum(e, m), full)
        total_all = vf.full(total, full)
        for k in pl.range(0, regs):
            live = pl.min(LANES, cols - k * LANES)
            m = vf.update_mask(live, dtype=pl.DT_FP32)
            v = vf.load_align(src, row + k * LANES)
            e = vf.exp_sub(v, best_all, m)
            vf.store_align(dst + (row + k * LANES), vf.div(e, total_all, m), m)


@pl.jit(auto_mutex=True)
def softmax_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    block = pl.TileType(shape=[BLOCK_ROWS, ROW_CAP], dtype=pl.DT_FP32,
                        target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    xs = pl.make_tile_group(type=block, addrs=[X_PING, X_PONG], mutex_ids=[0, 1])
    ys = pl.make_tile_group(type=block, addrs=[Y_PING, Y_PONG], mutex_ids=[2, 3])
    with pl.section_vector():
        rows = x.shape[0]
        cols = x.shape[1]
        cores = pl.get_block_num()
        me = pl.get_block_idx()
        blocks = (rows + BLOCK_ROWS - 1) // BLOCK_ROWS
        for b in pl.range(me, blocks, cores):
            r0 = b * BLOCK_ROWS
            live_rows = pl.min(BLOCK_ROWS, rows - r0)
            xt = xs.next()
            pl.set_validshape(xt, [live_rows, cols])
            pl.load(xt, x, [r0, 0])
            yt = ys.next()
            pl.set_validshape(yt, [live_rows, cols])
            row_softmax(xt, yt, live_rows, cols)
            pl.store(y, yt, [r0, 0])
    return


def softmax_wrapper(x):
    if x.dim() != 2:
        raise ValueError("x must be 2-D")
    if x.shape[1] > ROW_CAP:
        raise ValueError("too many columns")
    y = torch.empty_like(x)
    blocks = (x.shape[0] + BLOCK_ROWS - 1) // BLOCK_ROWS
    cores = min(get_platform_info().vector_core_num, blocks)
    softmax_kernel[None, cores](x, y)
    return y
