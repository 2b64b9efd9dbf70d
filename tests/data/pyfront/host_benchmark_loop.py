"""Times repeated kernel launches with a context-manager timer and summary statistics."""
import statistics
import time
from contextlib import contextmanager


class Timer:
    def __init__(self, label):
        self.label = label
        self.samples = []

    def __enter__(self):
        self._t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        self.samples.append((time.perf_counter_ns() - self._t0) / 1e3)
        return None


@contextmanager
def warmup(fn, n=3):
    for _ in range(n):
        fn()
    yield fn


def bench(fn, repeat=20):
    t = Timer(fn.__name__)
    with warmup(fn) as f:
        for _ in range(repeat):
            with t:
                f()
    s = sorted(t.samples)
    return {
        "label": t.label,
        "median_us": statistics.median(s),
        "p90_us": s[int(0.9 * (len(s) - 1))],
        "stdev_us": statistics.pstdev(s) if len(s) > 1 else 0.0,
    }


def busy():
    return sum(i * i for i in range(2000))


if __name__ == "__main__":
    r = bench(busy)
    print("{label}: median {median_us:.1f} us, p90 {p90_us:.1f} us".format(**r))
