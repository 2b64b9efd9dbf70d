"""Runs several device jobs concurrently with asyncio (async def / with / for, await)."""
import asyncio
import contextlib
import time


class Slot:
    def __init__(self, index: int) -> None:
        self.index = index
        self.busy = False

    async def __aenter__(self):
        self.busy = True
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, exc_type, exc, tb):
        self.busy = False
        return False


async def ticks(n, delay=0.0):
    for i in range(n):
        await asyncio.sleep(delay)
        yield i


async def run_job(slot: Slot, name: str, steps: int) -> dict:
    started = time.perf_counter()
    async with slot as s:
        seen = [t async for t in ticks(steps)]
        async for t in ticks(1):
            seen.append(-t)
    return {"job": name, "slot": s.index, "steps": len(seen), "elapsed": time.perf_counter() - started}


async def main(jobs):
    slots = [Slot(i) for i in range(2)]
    tasks = [asyncio.create_task(run_job(slots[i % 2], name, n)) for i, (name, n) in enumerate(jobs)]
    with contextlib.suppress(asyncio.CancelledError):
        done = await asyncio.gather(*tasks)
    return sorted(done, key=lambda d: d["job"])


if __name__ == "__main__":
    print(asyncio.run(main([("a", 3), ("b", 1), ("c", 2)])))
