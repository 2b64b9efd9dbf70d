"""Every parameter form: positional-only, defaults, *args, keyword-only, **kwargs."""
from typing import Any, Callable, Optional


def posonly(a, b, /, c, d=4, *, e, f=6, **rest):
    return a, b, c, d, e, f, rest


def defaults_only(x=1, /, y=2, *args, z: int = 3, **kw) -> tuple:
    return x, y, args, z, kw


def star_only(*, key: str, value: Optional[int] = None):
    return {key: value}


def varargs(*values: float, scale: float = 1.0) -> list:
    return [v * scale for v in values]


def annotated(tile: "Tile", n: int = 0, /) -> "Tile":  # noqa: F821
    return tile


def higher(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


identity = lambda x: x  # noqa: E731
pick = lambda *a, k=0, **kw: (a, k, kw)  # noqa: E731
nothing = lambda: None  # noqa: E731
ordered = lambda a, /, b, *, c: (a, b, c)  # noqa: E731

if __name__ == "__main__":
    print(posonly(1, 2, 3, e=5, g=7))
    print(defaults_only(), defaults_only(9, 8, 7, z=0, extra=True))
    print(star_only(key="k"), varargs(1, 2, scale=0.5), higher(max, 3, 4, key=abs))
    print(identity(1), pick(1, 2, k=3, z=4), nothing(), ordered(1, 2, c=3))
    args = (1, 2)
    kwargs = {"e": 0}
    print(posonly(*args, 3, **kwargs), posonly(*args, *[3], **kwargs, f=1))
