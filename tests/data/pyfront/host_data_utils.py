from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple


@dataclass(frozen=True)
class Shape:
    rows: int
    cols: int
    tags: Tuple[str, ...] = ()

    @property
    def numel(self) -> int:
        return self.rows * self.cols

    def tail(self, tile_rows: int) -> int:
        return self.rows % tile_rows or tile_rows


@dataclass
class Suite:
    name: str
    shapes: List[Shape] = field(default_factory=list)
    meta: Dict[str, str] = field(default_factory=dict)

    def by_tag(self) -> Dict[str, List[Shape]]:
        groups: Dict[str, List[Shape]] = defaultdict(list)
        for s in self.shapes:
            for t in s.tags or ("untagged",):
                groups[t].append(s)
        return dict(groups)


def grid(rows: Iterable[int], cols: Iterable[int], *tags: str) -> List[Shape]:
    return [Shape(r, c, tags) for r, c in itertools.product(rows, cols) if r * c > 0]


def largest(shapes: List[Shape], k: int = 3) -> List[Shape]:
    return sorted(shapes, key=lambda s: (-s.numel, s.rows))[:k]


def summary(suite: Suite) -> Dict[str, object]:
    sizes = {s: s.numel for s in suite.shapes}
    odd = {s for s in suite.shapes if s.cols % 2}
    return {
        "name": suite.name,
        "count": len(suite.shapes),
        "total": sum(sizes.values()),
        "odd_cols": len(odd),
        "squares": [s for s in suite.shapes if s.rows == s.cols],
        "first": next(iter(suite.shapes), None),
        "replace": dataclasses.replace(suite.shapes[0], rows=1) if suite.shapes else None,
    }


def parse_shape(text: str) -> Optional[Shape]:
    parts = [p.strip() for p in text.replace("x", ",").split(",") if p.strip()]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    r, c = map(int, parts)
    return Shape(r, c)
