"""Control-flow regions in AIR: the layout read from the region tags, the verifier's check of it,
the lifetimes the planner gets around IF and WHILE, and the builder's extra subgraphs.

The lifetime property is checked with hypothesis on random nestings of loops and branches built
directly in AIR, against an oracle that reads only the layout: every tensor an operator inside a
loop touches, and every value the loop's owner copies, must live from the owner to the loop's end,
and no two of them may share bytes in a plan from any of the planners.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import (
    AirControlFlowOptions,
    AirModel,
    AirOperator,
    AirOperatorOptions,
    AirRegion,
    AirTensor,
    AirTensorType,
    OpId,
    TensorId,
    region_layout,
    verify_model,
)
from helia_aot.errors import ModelLoadError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from helia_aot.memory import (
    BufferRequest,
    compute_lifetimes,
    plan_greedy,
    plan_greedy_by_size,
    plan_hill_climb,
)
from hypothesis import given, settings
from hypothesis import strategies as st


@dataclass(slots=True)
class _Loop(AirControlFlowOptions):
    LOOPS: ClassVar[bool] = True


@dataclass(slots=True)
class _Branch(AirControlFlowOptions):
    pass


class _Maker:
    """Builds an AIR model from a nesting: a list of items, each "op" or ("loop"|"if", [bodies])."""

    def __init__(self) -> None:
        self.model = AirModel()
        self.ops = 0
        self.regions = 0

    def tensor(self, size: int = 4) -> TensorId:
        tid = TensorId(f"t{len(self.model.tensors)}")
        self.model.add_tensor(AirTensor(id=tid, name=f"n{tid}", shape=(size,), dtype=AirTensorType.FLOAT32))
        return tid

    def op(self, source: TensorId, region: str, kind: str = "ADD", options=None) -> AirOperator:
        self.ops += 1
        op = AirOperator(
            id=f"o{self.ops}",
            op_type=kind,
            input_ids=[source],
            output_ids=[self.tensor(4 + self.ops % 5)],
            region=region,
            options=options or AirOperatorOptions(),
        )
        self.model.operators.append(op)
        return op

    def sequence(self, items, source: TensorId, region: str) -> TensorId:
        for item in items:
            if item == "op":
                source = self.op(source, region).output_ids[0]
                continue
            kind, bodies = item
            options = _Loop() if kind == "loop" else _Branch()
            owner = self.op(source, region, kind.upper(), options)
            names = []
            for body in bodies:
                self.regions += 1
                name = f"r{self.regions}"
                names.append(name)
                entry = self.tensor()
                self.model.regions[name] = AirRegion(
                    name, 0, OpId(owner.id), [entry], [], loops=kind == "loop"
                )
                options.regions = tuple(names)
                self.model.regions[name].outputs = [self.sequence(body, entry, name)]
            options.regions = tuple(names)
            source = owner.output_ids[0]
        return source


def build(items) -> AirModel:
    maker = _Maker()
    start = maker.tensor()
    maker.model.inputs = [start]
    maker.model.outputs = [maker.sequence(items, start, "")]
    return maker.model


def nesting(depth: int):
    leaf = st.just("op")
    if depth == 0:
        return st.lists(leaf, min_size=1, max_size=3)
    inner = nesting(depth - 1)
    control = st.tuples(st.sampled_from(["loop", "if"]), st.lists(inner, min_size=2, max_size=2))
    return st.lists(st.one_of(leaf, control), min_size=1, max_size=4)


def loop_groups(model: AirModel) -> dict[int, set[TensorId]]:
    """For each loop owner's index: the tensors that must keep their bytes for the whole loop."""
    layout = region_layout(model)
    groups = {}
    for owner in sorted(layout.loop_owners):
        end = layout.owners[owner]
        op = model.operators[owner]
        group = {*op.input_ids, *op.output_ids}
        for name in op.options.regions:
            group |= {*model.regions[name].inputs, *model.regions[name].outputs}
        for inner in model.operators[owner + 1 : end]:
            group |= {*inner.input_ids, *inner.output_ids}
        groups[owner] = group
    return groups


@settings(max_examples=60, deadline=None)
@given(nesting(2))
def test_loop_tensors_live_across_the_loop_and_never_share_bytes(items):
    model = build(items)
    assert verify_model(model) == []
    lifetimes = compute_lifetimes(model)
    layout = region_layout(model)
    for owner, group in loop_groups(model).items():
        end = layout.owners[owner] - 1
        for tid in group:
            first, last = lifetimes[tid]
            assert first <= owner and last >= end, (tid, lifetimes[tid], owner, end)
    requests = [
        BufferRequest(id=str(t), size=model.tensors[t].nbytes, first=a, last=b, alignment=4)
        for t, (a, b) in lifetimes.items()
    ]
    for planner in (plan_greedy, plan_greedy_by_size, plan_hill_climb):
        offsets = planner(requests, seed=0, options={}).offsets
        for group in loop_groups(model).values():
            for a, b in combinations(sorted(group), 2):
                sa, sb = offsets[str(a)], offsets[str(b)]
                ea, eb = sa + model.tensors[a].nbytes, sb + model.tensors[b].nbytes
                assert ea <= sb or eb <= sa, (planner.__name__, a, b)


def test_branches_keep_their_own_lifetimes():
    """The two branches of an IF may share bytes: inside each, a tensor lives only there."""
    model = build([("if", [["op", "op"], ["op", "op"]])])
    layout = region_layout(model)
    lifetimes = compute_lifetimes(model)
    (a0, a1), (b0, b1) = layout.regions["r1"], layout.regions["r2"]
    then_inner = model.operators[a0].output_ids[0]
    else_inner = model.operators[b0].output_ids[0]
    assert lifetimes[then_inner] == (a0, a0 + 1) and a0 + 1 < a1 == b0
    assert lifetimes[else_inner] == (b0, b0 + 1) and b0 + 1 < b1


def test_layout_next_index_skips_regions():
    model = build(["op", ("loop", [["op"], ["op", ("if", [["op"], ["op"]]), "op"]]), "op"])
    layout = region_layout(model)
    # 0 op, 1 loop, 2 cond op, 3 body op, 4 if, 5 then op, 6 else op, 7 body op, 8 op
    assert layout.next_index == (1, 8, 3, 4, 7, 6, 7, 8, 9)
    assert layout.regions == {"r1": (2, 3), "r2": (3, 8), "r3": (5, 6), "r4": (6, 7)}
    assert layout.owners == {1: 8, 4: 7}
    assert layout.loop_owners == {1}


def test_the_verifier_names_a_region_operator_out_of_place():
    model = build(["op", ("loop", [["op"], ["op"]]), "op"])
    model.operators.append(model.operators.pop(2))  # the cond operator moved to the end
    problems = verify_model(model)
    assert any("control-flow regions" in p and "not inside its owner's range" in p for p in problems)


def test_the_builder_writes_every_subgraph():
    b = LiteRTModelBuilder()
    x, y = b.add_tensor("x", (2,), "float32"), b.add_tensor("y", (2,), "float32")
    sub = b.add_subgraph("then")
    sx, sy = sub.add_tensor("sx", (2,), "float32"), sub.add_tensor("sy", (2,), "float32")
    sub.add_operator("NEG", [sx], [sy])
    sub.set_inputs([sx])
    sub.set_outputs([sy])
    b.add_operator("NEG", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    assert sub.index == 1
    model = litert.ModelT.InitFromPackedBuf(pack_model(b.build()), 0)
    assert [s.name for s in model.subgraphs] == [b"main", b"then"]
    assert list(model.subgraphs[1].inputs) == [sx] and len(model.subgraphs[1].operators) == 1
    assert len(model.operatorCodes) == 1  # NEG is stored once for both subgraphs


def test_a_subgraph_reference_out_of_range_is_a_load_error(tmp_path):
    """The view's option check covers IF's subgraph indices before any parser runs."""
    b = LiteRTModelBuilder()
    c, x, y = (
        b.add_tensor(n, s, t)
        for n, s, t in (("c", (), "bool"), ("x", (2,), "float32"), ("y", (2,), "float32"))
    )
    options = litert.IfOptionsT()
    options.thenSubgraphIndex, options.elseSubgraphIndex = 1, 5
    b.add_operator("IF", [c, x], [y], options)
    b.set_inputs([c, x])
    b.set_outputs([y])
    path = b.save(tmp_path / "m.tflite")
    config = ConvertArgs.model_validate(
        {"model": {"path": str(path)}, "module": {"path": str(tmp_path / "o")}}
    )
    with pytest.raises(ModelLoadError, match="refers to subgraph 5"):
        AotConverter(config).convert()
