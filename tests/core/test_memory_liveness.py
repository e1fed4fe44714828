"""Tensor lifetimes over a hand-built AIR schedule, and planning the arena from them."""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.air import AirModel, AirOperator, AirTensor, AirTensorKind, AirTensorType
from helia_aot.errors import OperatorOrderError
from helia_aot.memory import BufferRequest, compute_lifetimes, plan_greedy, plan_hill_climb
from hypothesis import given, settings
from hypothesis import strategies as st

I8 = AirTensorType.INT8


def tensor(tid: str, kind: AirTensorKind = AirTensorKind.SCRATCH, n: int = 16) -> AirTensor:
    data = np.zeros(n, np.int8) if kind is AirTensorKind.CONSTANT else None
    return AirTensor(tid, tid, (n,), I8, kind, data)


def small_model() -> AirModel:
    """x -> conv(w, scratch s) -> a -> relu -> b (+ unread e) -> reshape -> c -> add(c, x, state) -> d.

    ``state`` is persistent: read by the relu and rewritten by the add.
    """
    m = AirModel(name="toy")
    for t in [
        tensor("x"),
        tensor("w", AirTensorKind.CONSTANT),
        tensor("s"),
        tensor("a"),
        tensor("b"),
        tensor("e"),
        tensor("c"),
        tensor("d"),
        tensor("state", AirTensorKind.PERSISTENT),
    ]:
        m.add_tensor(t)
    m.operators = [
        AirOperator("0", "CONV_2D", ["x", "w", ""], ["a"], named_tensors={"scratch": "s"}),
        AirOperator("1", "RELU", ["a", "state"], ["b", "e"]),
        AirOperator("2", "RESHAPE", ["b"], ["c"]),
        AirOperator("3", "ADD", ["c", "x"], ["d", "state"]),
    ]
    m.inputs, m.outputs = ["x"], ["d"]
    return m


def test_lifetimes_follow_writes_and_reads():
    assert compute_lifetimes(small_model()) == {
        "x": (0, 3),  # model input, read again by the last operator
        "a": (0, 1),
        "s": (0, 0),  # scratch: only while its operator runs
        "state": (0, 3),  # persistent: the whole schedule
        "b": (1, 2),
        "e": (1, 1),  # written but never read: still needs bytes while written
        "c": (2, 3),
        "d": (3, 4),  # model output: past the last operator, for the caller's read
    }


def test_aliases_share_the_root_with_the_union_lifetime():
    lifetimes = compute_lifetimes(small_model(), alias_of={"c": "b"})
    assert lifetimes["b"] == (1, 3) and "c" not in lifetimes
    chained = compute_lifetimes(small_model(), alias_of={"c": "b", "b": "a"})
    assert chained["a"] == (0, 3) and "b" not in chained and "c" not in chained


def test_alias_of_a_constant_is_not_in_the_arena():
    m = small_model()
    assert "c" not in compute_lifetimes(m, alias_of={"c": "w"})


def test_model_outputs_live_past_the_last_operator():
    """The caller reads the outputs after the run: index len(operators) stands for that read."""
    m = small_model()
    m.outputs = ["d", "a"]
    lifetimes = compute_lifetimes(m)
    assert lifetimes["a"] == (0, 4) and lifetimes["d"] == (3, 4)


def test_model_without_operators():
    m = AirModel()
    m.add_tensor(tensor("x"))
    m.inputs, m.outputs = ["x"], ["x"]
    assert compute_lifetimes(m) == {"x": (0, 0)}


@pytest.mark.parametrize("alias_of", [{"c": "b", "b": "c"}, {"c": "c"}, {"c": "nowhere"}])
def test_bad_aliases_are_value_errors(alias_of):
    with pytest.raises(ValueError):
        compute_lifetimes(small_model(), alias_of=alias_of)


def test_reading_before_the_write_is_an_order_error():
    m = small_model()
    m.operators[1], m.operators[2] = m.operators[2], m.operators[1]
    with pytest.raises(OperatorOrderError, match="'b'"):
        compute_lifetimes(m)


def test_planned_model_arena_is_valid():
    m = small_model()
    lifetimes = compute_lifetimes(m, alias_of={"c": "b"})
    sizes = {"x": 64, "a": 48, "s": 32, "b": 48, "e": 16, "d": 64, "state": 16}
    requests = [
        BufferRequest(tid, sizes[tid], first, last, inplace_of="a" if tid == "b" else None)
        for tid, (first, last) in lifetimes.items()
    ]
    # At operator 1 the relu writes b over a, so a and b count once; the peak is at operator 3.
    greedy = plan_greedy(requests)
    assert greedy.offsets["a"] == greedy.offsets["b"]
    plan = plan_hill_climb(requests)
    assert plan.peak_live == 64 + 16 + 48 + 64  # x, state, b (holding c), d
    assert plan.used == plan.peak_live


@st.composite
def schedules(draw):
    """A random schedule: model inputs, operators reading earlier values, constants and
    persistent state (read before any write, as state kept across runs is), writing new tensors
    and sometimes a scratch tensor; some written tensors are model outputs, some alias others."""
    m = AirModel(name="drawn")
    for t in [tensor("w", AirTensorKind.CONSTANT), tensor("p", AirTensorKind.PERSISTENT)]:
        m.add_tensor(t)
    inputs = [f"in{i}" for i in range(draw(st.integers(1, 2)))]
    for tid in inputs:
        m.add_tensor(tensor(tid))
    readable = [*inputs]
    written: list[str] = []
    for index in range(draw(st.integers(0, 7))):
        reads = draw(st.lists(st.sampled_from([*readable, "w", "p", ""]), min_size=1, max_size=3))
        outputs = [f"t{index}_{k}" for k in range(draw(st.integers(1, 2)))]
        if draw(st.integers(0, 4)) == 0:
            outputs.append("p")
        named = {}
        if draw(st.booleans()):
            named["scratch"] = f"s{index}"
            m.add_tensor(tensor(f"s{index}"))
        for tid in outputs:
            if tid != "p":
                m.add_tensor(tensor(tid))
        m.operators.append(AirOperator(str(index), "ADD", reads, outputs, named_tensors=named))
        new = [tid for tid in outputs if tid != "p"]
        readable += new
        written += new
    m.inputs = inputs
    m.outputs = draw(st.lists(st.sampled_from(readable), min_size=1, max_size=3, unique=True))
    alias_of: dict[str, str] = {}
    for tid in written:
        if draw(st.integers(0, 3)) == 0:
            earlier = [t for t in [*inputs, *written, "w"] if t != tid and alias_of.get(t) != tid]
            target = draw(st.sampled_from(earlier))
            chain, seen = target, {tid}
            while chain in alias_of and chain not in seen:
                seen.add(chain)
                chain = alias_of[chain]
            if chain not in seen:
                alias_of[tid] = target
    return m, alias_of


def independent_lifetimes(m: AirModel, alias_of: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Lifetimes from the definition: every index that touches a tensor (0 for a model input,
    len(operators) for a model output), persistent state over the whole schedule, an alias group
    the span of all its members under its root, constants nowhere."""
    n = len(m.operators)
    uses: dict[str, set[int]] = {}
    for tid in m.inputs:
        uses.setdefault(tid, set()).add(0)
    for index, op in enumerate(m.operators):
        for tid in [*op.input_ids, *op.output_ids, *op.named_tensors.values()]:
            if tid:
                uses.setdefault(tid, set()).add(index)
    for tid in m.outputs:
        uses.setdefault(tid, set()).add(n)
    spans = {}
    for tid, indices in uses.items():
        kind = m.tensor(tid).kind
        if kind is AirTensorKind.PERSISTENT:
            spans[tid] = (0, max(n - 1, 0))
        elif kind is not AirTensorKind.CONSTANT:
            spans[tid] = (min(indices), max(indices))

    def root(tid: str) -> str:
        while tid in alias_of:
            tid = alias_of[tid]
        return tid

    merged: dict[str, tuple[int, int]] = {}
    for tid, (first, last) in spans.items():
        r = root(tid)
        if m.tensor(r).kind is AirTensorKind.CONSTANT:
            continue
        old = merged.get(r, (first, last))
        merged[r] = (min(first, old[0]), max(last, old[1]))
    return merged


@settings(max_examples=300)
@given(case=schedules())
def test_lifetimes_equal_an_independent_computation(case):
    m, alias_of = case
    assert compute_lifetimes(m, alias_of=alias_of) == independent_lifetimes(m, alias_of)
