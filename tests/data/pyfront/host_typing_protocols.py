"""Typing-heavy module: generics, protocols, TypeVar, annotated assignments."""
from __future__ import annotations

from typing import Generic, Iterator, Protocol, TypeVar, overload

T = TypeVar("T")
K = TypeVar("K", bound="Hashable")  # noqa: F821

limit: int = 10
names: list[str]
table: dict[str, tuple[int, ...]] = {}
(parenthesized): int = 1


class SupportsRun(Protocol):
    def run(self, n: int) -> bool: ...


class Ring(Generic[T]):
    items: list[T]
    cursor: int = 0

    def __init__(self, items: list[T]) -> None:
        self.items = list(items)
        self.cursor: int = 0

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def next(self) -> T:
        item = self.items[self.cursor % len(self.items)]
        self.cursor += 1
        return item

    @overload
    def get(self, i: int) -> T: ...

    @overload
    def get(self, i: slice) -> list[T]: ...

    def get(self, i):
        return self.items[i]


def run_all(runners: list[SupportsRun], n: int = 1) -> dict[int, bool]:
    return {i: r.run(n) for i, r in enumerate(runners)}


if __name__ == "__main__":
    ring: Ring[int] = Ring([1, 2, 3])
    print([ring.next() for _ in range(4)], ring.get(slice(0, 2)), limit, table, parenthesized)
