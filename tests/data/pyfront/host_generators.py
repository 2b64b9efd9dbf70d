"""Generators, yield from, walrus, nonlocal and closures."""
import re


def chunks(seq, size):
    for start in range(0, len(seq), size):
        yield seq[start:start + size]


def flatten(nested):
    for item in nested:
        if isinstance(item, (list, tuple)):
            yield from flatten(item)
        else:
            yield item


def accumulator():
    total = 0
    while True:
        value = yield total
        if value is None:
            return total
        total += value


def counter():
    count = 0

    def bump(step=1):
        nonlocal count
        count += step
        return count

    return bump


def first_match(lines, pattern=re.compile(r"(\w+)=(\d+)")):
    for line in lines:
        if (m := pattern.search(line)) is not None:
            return m.group(1), int(m.group(2))
    return None


def main():
    data = list(range(10))
    print([c for c in chunks(data, 4)])
    print(list(flatten([1, [2, (3, [4])], 5])))
    gen = accumulator()
    next(gen)
    for v in (1, 2, 3):
        gen.send(v)
    bump = counter()
    bump()
    print(bump(5))
    print(first_match(["a", "key=42", "x=1"]))
    evens = (x for x in data if x % 2 == 0)
    print(sum(evens), any(x > 8 for x in data), max((y := x * 2) for x in data))
    total = sum(n for n in range(5))
    squares = {k: k * k for k in range(5) if k}
    pairs = [(i, j) for i in range(3) for j in range(i) if (i + j) % 2]
    unique = {c.lower() for c in "AbBa"}
    print(total, squares, pairs, unique)


if __name__ == "__main__":
    main()
