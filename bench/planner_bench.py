"""Compare the arena planners on random buffer sets: how far each lands above the live-bytes bound.

Every planner registered in the default context (the core's and any a plugin adds) is measured.
Prints, per planner and per kind of buffer set, the mean and worst ``used / peak_live`` (1.000 is
optimal) and the time per plan. Runs in a few seconds with the defaults:

    python bench/planner_bench.py [--cases 40] [--buffers 60] [--seed 0] [--iterations 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from helia_aot.memory import BufferRequest
from helia_aot.registry import build_default_registry_context


def random_intervals(rng: random.Random, n: int) -> list[BufferRequest]:
    """Unstructured lifetimes and sizes: the hardest case for every planner."""
    ops = max(n // 2, 1)
    out = []
    for i in range(n):
        first = rng.randrange(ops)
        last = min(ops - 1, first + int(rng.expovariate(1 / 3)))
        out.append(
            BufferRequest(f"b{i}", rng.choice([16, 64, 256, 1024, 4096]) * rng.randint(1, 4), first, last)
        )
    return out


def model_like(rng: random.Random, n: int) -> list[BufferRequest]:
    """A chain of operators with occasional skip connections and elementwise (in-place) steps,
    roughly what a convolutional network's activations look like."""
    out = [BufferRequest("t0", 16 * rng.randint(64, 512), 0, 0)]
    for i in range(1, n):
        op = i - 1
        prev = out[-1]
        out[-1] = BufferRequest(
            prev.id, prev.size, prev.first, max(prev.last, op), prev.alignment, prev.inplace_of
        )
        if rng.random() < 0.15 and len(out) > 3:  # a skip connection re-read here
            k = rng.randrange(len(out) - 3, len(out) - 1)
            s = out[k]
            out[k] = BufferRequest(s.id, s.size, s.first, max(s.last, op), s.alignment, s.inplace_of)
        if rng.random() < 0.3:
            size, inplace = prev.size, prev.id
        else:
            size, inplace = 16 * rng.randint(16, 512), None
        out.append(BufferRequest(f"t{i}", size, op, op, inplace_of=inplace))
    last = out[-1]
    out[-1] = BufferRequest(last.id, last.size, last.first, n - 2, inplace_of=last.inplace_of)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--buffers", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=None, help="hill-climb steps (default: planner's)")
    args = parser.parse_args()

    planners = build_default_registry_context().memory_planners
    print(f"{'set':<12}{'planner':<16}{'mean':>8}{'worst':>8}{'optimal':>9}{'ms/plan':>9}")
    for kind, make in (("random", random_intervals), ("model_like", model_like)):
        rng = random.Random(args.seed)
        cases = [make(rng, args.buffers) for _ in range(args.cases)]
        for name, planner in planners.items():
            options = None
            if name == "hill_climb" and args.iterations is not None:
                options = {"iterations": args.iterations}
            ratios = []
            start = time.perf_counter()
            for buffers in cases:
                plan = planner(buffers, options=options)
                ratios.append(plan.used / plan.peak_live)
            ms = 1000 * (time.perf_counter() - start) / len(cases)
            optimal = sum(r == 1.0 for r in ratios)
            print(
                f"{kind:<12}{name:<16}{statistics.fmean(ratios):>8.3f}{max(ratios):>8.3f}"
                f"{optimal:>5}/{len(cases):<3}{ms:>9.1f}"
            )


if __name__ == "__main__":
    main()
