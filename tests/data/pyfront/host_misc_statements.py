"""Remaining statement forms: global, del, assert, chained comparison, augmented ops."""
import math as m, os.path as osp
from os import path, sep as separator
from collections import (
    OrderedDict,
    deque,
)
from . import sibling  # noqa: F401
from .. import parent  # noqa: F401
from ...pkg.mod import thing as alias  # noqa: F401

COUNT = 0


def bump():
    global COUNT
    COUNT += 1
    return COUNT


def ops(a, b):
    a += b; a -= 1; a *= 2; a /= 2; a //= 1; a %= 7; a **= 2
    n = int(a)
    n <<= 2; n >>= 1; n &= 0xFF; n |= 0x100; n ^= 0x1
    v = [1, 2]
    v @= None if False else v  # noqa
    return n


def checks(x):
    assert 0 <= x < 10, f"x out of range: {x}"
    assert x is not None
    assert not (x in (3, 4) or x not in range(10))
    return 1 < x <= 5 != 6 is not None


d = OrderedDict(a=1, b=2)
del d["a"], d["b"]
q = deque([1, 2, 3])
del q[0]
first, *_ = q
x = y = z = 0
print(bump(), checks(2), m.pi, osp.sep, path.sep, separator, first, x, y, z, ...)
