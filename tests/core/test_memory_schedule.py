"""The peak-minimizing operator order (helia_aot.memory.schedule) on random DAGs.

Why: under ``optimization.goal: size`` the planner reruns a model's operators in the order with
the smallest tensor peak, and the generated code follows it. A wrong order reads a tensor before it
is written; a wrong peak mis-sizes the arena. These properties pin both against an independent
brute force over every topological order of small graphs, and check that a plan of the chosen
order's lifetimes never gives two live buffers the same bytes.
"""

from __future__ import annotations

import itertools

from helia_aot.memory import BufferRequest, plan_hill_climb
from helia_aot.memory.schedule import ScheduleGraph, ScheduleOp, best_order, is_topological, order_peak
from hypothesis import given, settings
from hypothesis import strategies as st


@st.composite
def dags(draw: st.DrawFn, max_ops: int = 7) -> ScheduleGraph:
    """A random single-output-per-operator DAG: each operator reads one to three earlier buffers
    (model inputs or earlier outputs) and writes one buffer of random size."""
    n_inputs = draw(st.integers(1, 2))
    n = draw(st.integers(1, max_ops))
    sizes = {f"in{i}": draw(st.integers(1, 64)) for i in range(n_inputs)}
    available = list(sizes)
    ops = []
    for i in range(n):
        reads = draw(st.lists(st.sampled_from(available), min_size=1, max_size=3, unique=True))
        out = f"t{i}"
        sizes[out] = draw(st.integers(1, 64))
        ops.append(ScheduleOp(tuple(reads), (out,), scratch=draw(st.sampled_from([0, 0, 8]))))
        available.append(out)
    read = {b for op in ops for b in op.reads}
    # Every unread operator output is a model output (as in a real graph); a few more may be too.
    outputs = {f"t{i}" for i in range(n) if f"t{i}" not in read}
    outputs |= set(draw(st.lists(st.sampled_from([f"t{i}" for i in range(n)]), max_size=1)))
    return ScheduleGraph(tuple(ops), sizes, frozenset(f"in{i}" for i in range(n_inputs)), frozenset(outputs))


def _brute_peak(graph: ScheduleGraph, order: tuple[int, ...]) -> int:
    """The peak simulated independently: per step, every buffer whose lifetime covers it."""
    position = {op: step for step, op in enumerate(order)}
    end = len(order)
    spans: dict[str, list[int]] = {b: [0, 0] for b in graph.inputs}
    for op_index, op in enumerate(graph.ops):
        step = position[op_index]
        for b in op.writes:
            spans.setdefault(b, [step, step])
        for b in (*op.reads, *op.writes):
            spans[b][0] = min(spans[b][0], step)
            spans[b][1] = max(spans[b][1], step)
    for b in graph.outputs:
        spans[b][1] = end
    scratch = [graph.ops[i].scratch for i in order]
    return max(
        sum(graph.sizes[b] for b, (first, last) in spans.items() if first <= step <= last) + scratch[step]
        for step in range(end)
    )


def _all_orders(graph: ScheduleGraph) -> list[tuple[int, ...]]:
    return [p for p in itertools.permutations(range(len(graph.ops))) if is_topological(graph, p)]


@settings(max_examples=25, deadline=None)
@given(dags())
def test_order_is_topological_and_its_peak_is_the_brute_force_minimum(graph: ScheduleGraph) -> None:
    schedule = best_order(graph)
    assert schedule.method == "exact"
    assert is_topological(graph, schedule.order)
    assert schedule.peak == order_peak(graph, schedule.order) == _brute_peak(graph, schedule.order)
    assert schedule.stored_peak == _brute_peak(graph, tuple(range(len(graph.ops))))
    assert schedule.peak == min(_brute_peak(graph, p) for p in _all_orders(graph))
    assert schedule.peak <= schedule.stored_peak


@settings(max_examples=20, deadline=None)
@given(dags(max_ops=12))
def test_greedy_fallback_is_topological_and_never_worse_than_stored(graph: ScheduleGraph) -> None:
    schedule = best_order(graph, state_limit=1)
    assert is_topological(graph, schedule.order)
    assert schedule.peak == _brute_peak(graph, schedule.order) <= schedule.stored_peak
    assert schedule.peak >= best_order(graph).peak


@settings(max_examples=20, deadline=None)
@given(dags(max_ops=9))
def test_a_plan_of_the_chosen_order_never_overlaps_live_buffers(graph: ScheduleGraph) -> None:
    """Lay out the chosen order's lifetimes and check the no-overlap property directly."""
    order = best_order(graph).order
    position = {op: step for step, op in enumerate(order)}
    spans: dict[str, list[int]] = {b: [0, 0] for b in graph.inputs}
    for op_index, op in enumerate(graph.ops):
        for b in (*op.reads, *op.writes):
            span = spans.setdefault(b, [position[op_index], position[op_index]])
            span[0], span[1] = min(span[0], position[op_index]), max(span[1], position[op_index])
    for b in graph.outputs:
        spans[b][1] = len(order)
    requests = [BufferRequest(b, graph.sizes[b], first, last) for b, (first, last) in spans.items()]
    plan = plan_hill_climb(requests)
    for a, b in itertools.combinations(requests, 2):
        if a.overlaps_in_time(b):
            a0, b0 = plan.offsets[a.id], plan.offsets[b.id]
            assert a0 + a.size <= b0 or b0 + b.size <= a0, (a, b)
    assert plan.used >= plan.peak_live


def test_two_branches_run_one_after_the_other_when_that_lowers_the_peak() -> None:
    """Two branches from x each make a large intermediate and a small result that a join reads
    (the inputs of a concatenation, an inception block). Stored interleaved, both intermediates
    are live at once; finishing one branch before starting the other keeps only one."""
    graph = ScheduleGraph(
        (
            ScheduleOp(("x",), ("a1",)),
            ScheduleOp(("x",), ("b1",)),
            ScheduleOp(("a1",), ("a2",)),
            ScheduleOp(("b1",), ("b2",)),
            ScheduleOp(("a2", "b2"), ("y",)),
        ),
        {"x": 10, "a1": 100, "b1": 100, "a2": 10, "b2": 10, "y": 10},
        frozenset({"x"}),
        frozenset({"y"}),
    )
    schedule = best_order(graph)
    assert schedule.stored_peak == 210  # x, a1 and b1 at the second operator
    assert schedule.order == (0, 2, 1, 3, 4)
    assert schedule.peak == 120


def test_a_chain_keeps_its_stored_order() -> None:
    graph = ScheduleGraph(
        tuple(ScheduleOp((f"t{i}",), (f"t{i + 1}",)) for i in range(6)),
        {f"t{i}": 10 * (i + 1) for i in range(7)},
        frozenset({"t0"}),
        frozenset({"t6"}),
    )
    schedule = best_order(graph)
    assert schedule.order == tuple(range(6)) and schedule.peak == schedule.stored_peak == 130
