"""Operator order for the smallest tensor peak: exact search on small graphs, a greedy rule beyond.

A graph with branches (a residual block's shortcut, the inputs of a concatenation) can run its
operators in more than one topological order, and the orders differ in which tensors are live at
once. The peak of an order is the largest sum of tensor bytes live at any operator: everything
produced (or given as a model input) that a later operator still reads or the caller reads after
the run, plus what the operator writes and its private scratch. The layer-by-layer order the model
was stored in is one such order; this module finds the one with the smallest peak.

What is live after a set ``S`` of operators has run depends only on ``S``, not on the order that
ran it, so the best peak from ``S`` onward is a function of ``S`` alone. :func:`best_order`
memoizes it over the sets that can occur (the graph's down-closed sets: a chain has ``n + 1``, a
residual block a few more) and so searches every order exactly. When a graph has more such sets
than ``state_limit``, it falls back to a stated heuristic: at each step run the ready operator
with the smallest step peak, then the smallest bytes left live after it, then the earliest in the
stored order; and it keeps the stored order when that is better.

Among the orders with the smallest peak the search returns the one that is lexicographically
first by stored position, so a graph whose stored order is already optimal keeps it unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_STATE_LIMIT = 20_000
"""Down-closed operator sets the exact search may visit before the greedy rule takes over: the
MLPerf models need a few dozen, and this many stays well under a second in Python."""


@dataclass(frozen=True, slots=True)
class ScheduleOp:
    """One operator as the order search sees it: the storage it reads and writes.

    ``reads`` and ``writes`` name buffers (an alias group counts once, under its root);
    ``after`` lists positions of operators that must run first beyond data dependences (state
    kept across runs, read and written in the stored order); ``scratch`` is the bytes of the
    operator's private working buffers, live only while it runs.
    """

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    after: tuple[int, ...] = ()
    scratch: int = 0


@dataclass(frozen=True, slots=True)
class ScheduleGraph:
    """Operators in stored order, buffer sizes, and the buffers live at the edges of a run.

    ``inputs`` are written by the caller before the run (live from the start until their last
    reader); ``outputs`` are read by the caller after it (live from their writer to the end).
    """

    ops: tuple[ScheduleOp, ...]
    sizes: Mapping[str, int]
    inputs: frozenset[str] = frozenset()
    outputs: frozenset[str] = frozenset()
    producers: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        producers: dict[str, list[int]] = {}
        for index, op in enumerate(self.ops):
            for buffer in op.writes:
                producers.setdefault(buffer, []).append(index)
        self.producers.update({b: tuple(p) for b, p in producers.items()})

    def predecessors(self, index: int) -> frozenset[int]:
        """Operators that must run before ``index``: writers of what it reads (before it in the
        stored order, so an in-place rewrite of a buffer keeps its place) and its ``after`` list."""
        op = self.ops[index]
        found = {p for buffer in op.reads for p in self.producers.get(buffer, ()) if p < index}
        found.update(a for a in op.after if a < index)
        return frozenset(found)


@dataclass(frozen=True, slots=True)
class Schedule:
    """A chosen order (stored positions), its peak, the stored order's peak, and how it was found."""

    order: tuple[int, ...]
    peak: int
    stored_peak: int
    method: str  # "exact" | "greedy"
    states: int


class _Model:
    """Precomputed masks: what each operator needs, which buffers die when, what each costs."""

    def __init__(self, graph: ScheduleGraph) -> None:
        self.graph = graph
        n = len(graph.ops)
        self.n = n
        self.full = (1 << n) - 1
        self.need = [sum(1 << p for p in graph.predecessors(i)) for i in range(n)]
        buffers = sorted({b for op in graph.ops for b in (*op.reads, *op.writes)} | set(graph.inputs))
        self.buffers = buffers
        self.size = {b: int(graph.sizes.get(b, 0)) for b in buffers}
        readers: dict[str, int] = {b: 0 for b in buffers}
        writers: dict[str, int] = {b: 0 for b in buffers}
        for i, op in enumerate(graph.ops):
            for b in op.reads:
                readers[b] |= 1 << i
            for b in op.writes:
                writers[b] |= 1 << i
        self.readers = readers
        self.writers = writers
        self.write_bytes = [
            sum(self.size[b] for b in set(op.writes) - set(op.reads)) + op.scratch for op in graph.ops
        ]
        self.new_buffers = [tuple(sorted(set(op.writes) - set(op.reads))) for op in graph.ops]

    def live_after(self, done: int) -> int:
        """Bytes live once the operators in ``done`` (a bitmask) have run, before the next one."""
        total = 0
        for b in self.buffers:
            given = b in self.graph.inputs or self.writers[b] & done
            if not given:
                continue
            if b in self.graph.outputs or self.readers[b] & ~done & self.full:
                total += self.size[b]
        return total

    def step(self, done: int, index: int) -> int:
        """Bytes live while operator ``index`` runs after ``done``: what is live, what it writes
        (a buffer it rewrites in place counts once) and its scratch; at the first step also the
        model inputs nobody reads (the caller's bytes still exist while the run starts)."""
        live = self.live_after(done)
        if done == 0:
            live += sum(
                self.size[b] for b in self.graph.inputs if not self.readers[b] and b not in self.graph.outputs
            )
        extra = sum(
            self.size[b]
            for b in self.new_buffers[index]
            if not (b in self.graph.inputs or self.writers[b] & done)
            or not (b in self.graph.outputs or self.readers[b] & ~done & self.full)
        )
        return live + extra + self.graph.ops[index].scratch

    def ready(self, done: int) -> list[int]:
        return [i for i in range(self.n) if not done >> i & 1 and self.need[i] & ~done == 0]


def order_peak(graph: ScheduleGraph, order: Sequence[int]) -> int:
    """The peak of running ``graph``'s operators in ``order`` (a topological order of positions)."""
    model = _Model(graph)
    done = 0
    peak = 0
    for index in order:
        if model.need[index] & ~done:
            raise ValueError(f"operator {index} runs before an operator it depends on")
        peak = max(peak, model.step(done, index))
        done |= 1 << index
    return peak


def is_topological(graph: ScheduleGraph, order: Sequence[int]) -> bool:
    """Whether ``order`` runs every operator once, each after everything it depends on."""
    if sorted(order) != list(range(len(graph.ops))):
        return False
    seen: set[int] = set()
    for index in order:
        if not graph.predecessors(index) <= seen:
            return False
        seen.add(index)
    return True


class _TooManyStates(Exception):
    pass


def _exact(model: _Model, state_limit: int) -> tuple[int, tuple[int, ...], int]:
    """Best peak and order over every topological order, memoized over the sets already run."""
    memo: dict[int, tuple[int, int]] = {}  # done -> (best peak from here, first operator to run)

    def best(done: int) -> int:
        if done == model.full:
            return 0
        cached = memo.get(done)
        if cached is not None:
            return cached[0]
        if len(memo) >= state_limit:
            raise _TooManyStates
        choice = (-1, -1)
        for index in model.ready(done):
            peak = max(model.step(done, index), best(done | 1 << index))
            if choice[0] < 0 or peak < choice[0]:
                choice = (peak, index)
        memo[done] = choice
        return choice[0]

    peak = best(0)
    order: list[int] = []
    done = 0
    while done != model.full:
        index = memo[done][1]
        order.append(index)
        done |= 1 << index
    return peak, tuple(order), len(memo)


def _greedy(model: _Model) -> tuple[int, ...]:
    order: list[int] = []
    done = 0
    while done != model.full:
        index = min(
            model.ready(done),
            key=lambda i: (model.step(done, i), model.live_after(done | 1 << i), i),
        )
        order.append(index)
        done |= 1 << index
    return tuple(order)


def best_order(graph: ScheduleGraph, *, state_limit: int = DEFAULT_STATE_LIMIT) -> Schedule:
    """The order of ``graph``'s operators with the smallest peak (see the module docstring)."""
    model = _Model(graph)
    stored = tuple(range(model.n))
    stored_peak = order_peak(graph, stored)
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 4 * model.n + 100))
    try:
        peak, order, states = _exact(model, state_limit)
        return Schedule(order, peak, stored_peak, "exact", states)
    except _TooManyStates:
        order = _greedy(model)
        peak = order_peak(graph, order)
        if peak >= stored_peak:
            order, peak = stored, stored_peak
        return Schedule(order, peak, stored_peak, "greedy", state_limit)
    finally:
        sys.setrecursionlimit(depth)


__all__ = [
    "DEFAULT_STATE_LIMIT",
    "Schedule",
    "ScheduleGraph",
    "ScheduleOp",
    "best_order",
    "is_topological",
    "order_peak",
]
