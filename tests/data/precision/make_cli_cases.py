#!/usr/bin/python3
"""Writes the .npy/.bin files opdev's command-line tests compare, with NumPy (and torch for
bfloat16), into the directory given as the only argument."""

import os
import sys

import numpy as np
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)

# A (33, 70) float16 output against a float32 golden; tiles of 16x32 leave tail tiles
# (row tile 2 has 1 row, column tile 2 has 6 columns).
g = rng.standard_normal((33, 70)).astype(np.float32)
np.save(os.path.join(out, "golden.npy"), g)
np.save(os.path.join(out, "good.npy"), g.astype(np.float16))
tail = g.astype(np.float16)
tail[32, :] += 1.0          # the single tail row
tail[:, 64:] += 1.0         # the 6 tail columns
np.save(os.path.join(out, "tail.npy"), tail)
rows = g.astype(np.float16)
rows[16:, :] *= 2           # everything from row 16 (a tile boundary) on
np.save(os.path.join(out, "rows.npy"), rows)
# Same values stored Fortran-ordered and big-endian.
np.save(os.path.join(out, "good_fortran.npy"), np.asfortranarray(g.astype(np.float16)))
np.save(os.path.join(out, "golden_big.npy"), g.astype(">f4"))
# bfloat16 as 2-byte raw.
b = torch.from_numpy(g).to(torch.bfloat16)
np.save(os.path.join(out, "bf16.npy"), b.view(torch.int16).numpy().view("V2"))
# Raw .bin of the golden.
g.tofile(os.path.join(out, "golden.bin"))
# Integers.
np.save(os.path.join(out, "idx.npy"), np.arange(10, dtype=np.int64))
idx2 = np.arange(10, dtype=np.int64)
idx2[4] = 0
np.save(os.path.join(out, "idx_bad.npy"), idx2)
# A corrupt file.
with open(os.path.join(out, "corrupt.npy"), "wb") as f:
    f.write(open(os.path.join(out, "golden.npy"), "rb").read()[:100])
print("ok")
