"""A model output keeps its own bytes to the end of the run, whatever reads it later.

Real models return intermediate tensors next to the final one (logits and probabilities, features
and scores). Operators may write in place over an input that dies where they run (elementwise
operators, SOFTMAX, activations) and byte movers may hand their output their input's storage; none
of that may touch a model output, because the caller reads it after the last operator. These tests
plan hand-built schedules through the real Plan stage and replay them over the planned bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from helia_aot import ConvertArgs
from helia_aot.air import AirModel, AirOperator, AirTensor, AirTensorKind, AirTensorType
from helia_aot.aot.operators import AotOperator
from helia_aot.memory import compute_lifetimes
from helia_aot.pipeline.occupancy import scratch_occupancy
from helia_aot.pipeline.plan import plan_memory
from helia_aot.pipeline.plan_records import MemoryPlan
from helia_aot.platforms import get_platform
from helia_aot.registry import build_default_registry_context
from hypothesis import given, settings
from hypothesis import strategies as st

CONTEXT = build_default_registry_context()
PLATFORM = get_platform("apollo510_evb", CONTEXT)
CONFIG = ConvertArgs.model_validate({"model": {"path": "unused.tflite"}})


class Producer(AotOperator):
    """Writes a fresh output (a FULLY_CONNECTED or CONV_2D: never in place)."""

    TYPE = "FULLY_CONNECTED"


class InPlaceUnary(AotOperator):
    """Reads each element before writing it, so may write over input 0 (SOFTMAX, RELU)."""

    TYPE = "SOFTMAX"
    INPLACE_INPUTS = (0,)


class InPlaceBinary(AotOperator):
    """An elementwise ADD: may write over either input."""

    TYPE = "ADD"
    INPLACE_INPUTS = (0, 1)


class Mover(AotOperator):
    """A RESHAPE: its output shares input 0's storage."""

    TYPE = "RESHAPE"
    ALIASES_INPUT = True


KINDS = {"produce": Producer, "inplace": InPlaceUnary, "add": InPlaceBinary, "move": Mover}


def schedule(steps: Sequence[tuple[str, list[str], str]], outputs: list[str], n: int = 64):
    """A model ``x -> ...`` of equal-size int8 tensors; ``steps`` are (kind, inputs, output)."""
    model = AirModel(name="outputs")
    names = ["x"] + [out for _, _, out in steps]
    for name in names:
        model.add_tensor(AirTensor(name, name, (n,), AirTensorType.INT8, AirTensorKind.SCRATCH))
    # A mover aliases only as PRUNE_IDENTITY_OPS leaves it: marked to share its input's storage.
    model.operators = [
        AirOperator(str(i), KINDS[kind].TYPE, list(inputs), [out], shares_input_storage=kind == "move")
        for i, (kind, inputs, out) in enumerate(steps)
    ]
    model.inputs, model.outputs = ["x"], list(outputs)
    operators = [
        KINDS[kind](op, model, PLATFORM) for (kind, _, _), op in zip(steps, model.operators, strict=True)
    ]
    return model, operators, plan_memory(model, operators, PLATFORM, CONFIG, CONTEXT)


def replay(model: AirModel, operators: list[AotOperator], plan: MemoryPlan) -> dict[str, set[str]]:
    """Run the schedule over the planned bytes; return which tensors' values each output holds.

    Each byte remembers the tensor whose value it holds. A byte mover whose output shares its
    input's bytes writes nothing (its output is the input's value); every other operator stamps
    its output's bytes with the output's name.
    """
    owner: dict[tuple[int, int], str] = {}

    def span(tid: str) -> list[tuple[int, int]]:
        p = plan.placements[tid]
        return [(p.region, p.offset + i) for i in range(p.size)]

    value_of = {tid: tid for tid in model.tensors}
    for byte in span("x"):
        owner[byte] = "x"
    for aot_op in operators:
        out = aot_op.op.output_ids[0]
        source = aot_op.op.input_ids[0]
        if aot_op.ALIASES_INPUT and span(out) == span(source):
            value_of[out] = value_of[source]
            continue
        for byte in span(out):
            owner[byte] = value_of[out]
    return {tid: {owner[b] for b in span(tid)} for tid in model.outputs}


def same_bytes(plan: MemoryPlan, a: str, b: str) -> bool:
    pa, pb = plan.placements[a], plan.placements[b]
    return pa.region == pb.region and pa.offset < pb.offset + pb.size and pb.offset < pa.offset + pa.size


# The KWS/VWW probe shape: logits from a dense layer, probabilities from a SOFTMAX, both returned.
LOGITS_THEN_SOFTMAX = [("produce", ["x"], "logits"), ("inplace", ["logits"], "probs")]


def test_softmax_keeps_off_the_logits_it_reads_when_both_are_outputs():
    model, operators, plan = schedule(LOGITS_THEN_SOFTMAX, ["probs", "logits"])
    assert not same_bytes(plan, "logits", "probs")
    assert replay(model, operators, plan) == {"probs": {"probs"}, "logits": {"logits"}}


def test_softmax_still_works_in_place_when_the_logits_are_not_returned():
    """The rule is about outputs, not a blanket ban: the in-place write still saves the bytes."""
    model, operators, plan = schedule(LOGITS_THEN_SOFTMAX, ["probs"])
    assert plan.placements["logits"].offset == plan.placements["probs"].offset
    assert replay(model, operators, plan) == {"probs": {"probs"}}


def test_an_output_read_by_an_in_place_operator_mid_schedule_keeps_its_bytes():
    steps = [
        ("produce", ["x"], "a"),
        ("inplace", ["a"], "b"),
        ("produce", ["b"], "c"),
        ("inplace", ["c"], "d"),
    ]
    model, operators, plan = schedule(steps, ["d", "a"])
    assert not same_bytes(plan, "a", "b")
    assert replay(model, operators, plan) == {"d": {"d"}, "a": {"a"}}


@pytest.mark.parametrize("position", [0, 1])
def test_an_elementwise_add_writes_over_neither_input_that_is_an_output(position):
    steps = [("produce", ["x"], "a"), ("produce", ["x"], "b"), ("add", ["a", "b"], "c")]
    returned = ["a", "b"][position]
    model, operators, plan = schedule(steps, ["c", returned])
    assert not same_bytes(plan, returned, "c")
    assert replay(model, operators, plan) == {"c": {"c"}, returned: {returned}}


def test_an_alias_of_an_output_is_not_written_in_place():
    """A reshape of a returned tensor shares its bytes; the SOFTMAX reading the reshape must not."""
    steps = [("produce", ["x"], "feat"), ("move", ["feat"], "flat"), ("inplace", ["flat"], "probs")]
    model, operators, plan = schedule(steps, ["probs", "feat"])
    assert plan.alias_of.get("flat") == "feat"
    assert not same_bytes(plan, "feat", "probs")
    assert replay(model, operators, plan) == {"probs": {"probs"}, "feat": {"feat"}}


def test_an_output_that_is_a_moved_tensor_keeps_its_source_alive():
    """A returned reshape shares its input's bytes, so an in-place reader of that input must not."""
    steps = [("produce", ["x"], "feat"), ("move", ["feat"], "flat"), ("inplace", ["feat"], "probs")]
    model, operators, plan = schedule(steps, ["probs", "flat"])
    assert not same_bytes(plan, "flat", "probs")
    assert replay(model, operators, plan) == {"probs": {"probs"}, "flat": {"feat"}}


def test_occupancy_shows_an_output_live_to_the_last_operator():
    steps = [*LOGITS_THEN_SOFTMAX, ("produce", ["probs"], "z")]
    model, operators, plan = schedule(steps, ["z", "logits"])
    lifetimes = compute_lifetimes(model, alias_of=plan.alias_of)
    assert lifetimes["logits"] == (0, len(steps))  # past the last operator: the caller's read
    (region,) = scratch_occupancy(model, plan, len(steps))
    shown = {t.id: (t.first, t.last) for t in region.tensors}
    assert shown["logits"] == (0, len(steps) - 1)
    assert all(any(t.id == "logits" for t in region.live_at(i)) for i in range(len(steps)))


@st.composite
def schedules(draw):
    """Chains and diamonds of producers, in-place operators, adds and movers; random outputs."""
    steps: list[tuple[str, list[str], str]] = []
    names = ["x"]
    for i in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(sorted(KINDS)))
        pick = st.sampled_from(names[1:] if kind != "produce" and len(names) > 1 else names)
        inputs = [draw(pick)] + ([draw(st.sampled_from(names))] if kind == "add" else [])
        steps.append((kind, inputs, f"t{i}"))
        names.append(f"t{i}")
    written = names[1:]
    extra = draw(st.lists(st.sampled_from(written), unique=True, max_size=len(written)))
    outputs = [written[-1], *(t for t in extra if t != written[-1])]
    return steps, outputs


@settings(max_examples=150, deadline=None, derandomize=True)
@given(schedules())
def test_every_output_holds_its_own_value_after_any_schedule(case):
    steps, outputs = case
    model, operators, plan = schedule(steps, outputs)
    held = replay(model, operators, plan)
    for tid in outputs:
        # A returned tensor holds its value, or (a byte mover's output) its source's value.
        root = tid
        while root in plan.alias_of:
            root = plan.alias_of[root]
        assert held[tid] in ({tid}, {root}), (tid, held[tid], steps, outputs, plan.alias_of)
