"""Which operators could write their output over their input, and what that would save.

Under ``goal: size`` a windowed operator that offers it (``inplace_rows_bytes``: CONV_2D and
DEPTHWISE_CONV_2D, row by row through a ring of output rows) may share its input's bytes. Two
plan steps ask the same question: the patch planner (``patch_plan``), to know each step's floor
before it picks a stage, and ``plan_choices.choose_inplace_rows``, which then decides. One function
answers for both, so the floor the patch planner assumes is the one the in-place choice reaches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from helia_aot.air import AirModel, AirTensorKind, TensorId

if TYPE_CHECKING:
    from helia_aot.aot.operators.base import AotOperator


def inplace_candidates(
    model: AirModel,
    operators: Sequence[AotOperator],
    lifetimes: Mapping[TensorId, tuple[int, int]],
    roots: Mapping[TensorId, TensorId] | None = None,
) -> dict[int, tuple[AotOperator, int]]:
    """Per step, the operator that could write in place and the bytes it would save net of its
    ring.

    It qualifies where its first input (through ``roots``, the alias chains' storage, when given)
    is a scratch tensor that dies at that step (not a model input), its output is born there, and
    the ring is smaller than the bytes sharing saves (the smaller of input and output: the larger
    output runs on past the input's end).
    """
    roots = roots or {}
    candidates: dict[int, tuple[AotOperator, int]] = {}
    for index, aot_op in enumerate(operators):
        op = aot_op.op
        if not op.input_ids or not op.output_ids:
            continue
        src, dst = op.input_ids[0], op.output_ids[0]
        root = roots.get(src, src)
        if not src or root not in lifetimes or dst not in lifetimes or root in model.inputs:
            continue
        if model.tensors[root].kind is not AirTensorKind.SCRATCH:
            continue
        if lifetimes[root][1] != index or lifetimes[dst][0] != index:
            continue
        saved = min(model.tensors[dst].nbytes, model.tensors[src].nbytes)
        ring = aot_op.inplace_rows_bytes()
        if ring is None or ring >= saved:
            continue
        candidates[index] = (aot_op, saved - ring)
    return candidates
