"""Classes: decorators, properties, class/static methods, metaclass keyword, slots."""
import abc
import functools
from typing import ClassVar


def register(cls):
    REGISTRY[cls.__name__] = cls
    return cls


REGISTRY: dict = {}


class Meta(type):
    def __new__(mcs, name, bases, ns, **kwargs):
        ns.setdefault("kind", kwargs.get("kind", "plain"))
        return super().__new__(mcs, name, bases, ns)


class Base(abc.ABC):
    counter: ClassVar[int] = 0
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name
        Base.counter += 1

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        if not value:
            raise ValueError("empty name")
        self._name = value

    @abc.abstractmethod
    def run(self, *args, **kwargs):
        ...

    @classmethod
    def create(cls, *names):
        return [cls(n) for n in names]

    @staticmethod
    def describe() -> str:
        return "base"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r})"

    def __eq__(self, other):
        return isinstance(other, Base) and self._name == other._name

    __hash__ = None


@register
@functools.total_ordering
class Kernel(Base, metaclass=Meta, kind="vector"):
    __slots__ = ()

    def run(self, *args, **kwargs):
        return len(args) + len(kwargs)

    def __lt__(self, other):
        return self.name < other.name


class Empty:
    pass


class Nested:
    class Inner:
        value = 1

        def get(self):
            return self.value

    def make(self):
        return self.Inner()


if __name__ == "__main__":
    ks = Kernel.create("b", "a")
    print(sorted(ks), Kernel.kind, Base.counter, REGISTRY, Nested().make().get(), Empty())
