"""Tensor lifetimes over an AIR schedule: which operator indices need each non-constant tensor.

A lifetime is an inclusive ``(first, last)`` pair of operator indices, the form
:class:`~helia_aot.memory.types.BufferRequest` takes, so the arena planner can pack tensors whose
lifetimes do not intersect into the same bytes. Model outputs end at ``len(operators)``, an index
after the last operator standing for the caller's read, so no operator can take their bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helia_aot.air.graph import AirModel
from helia_aot.air.regions import owned_regions, region_layout
from helia_aot.air.types import AirTensorKind, TensorId
from helia_aot.errors import OperatorOrderError


def alias_roots(model: AirModel, alias_of: Mapping[TensorId, TensorId]) -> dict[TensorId, TensorId]:
    """Map every tensor named in ``alias_of`` (as key or value) to the root of its storage chain.

    ``alias_of[a] = b`` says ``a`` lives in ``b``'s bytes; chains (a reshape of a reshape) resolve
    to the tensor that is not itself an alias. A cycle or an unknown tensor is a ValueError, since
    either means the caller's alias analysis is wrong.
    """
    roots: dict[TensorId, TensorId] = {}
    for start in alias_of:
        path = [start]
        current = start
        while current in alias_of and current not in roots:
            current = alias_of[current]
            if current in path:
                raise ValueError(f"tensor aliases form a cycle: {' -> '.join([*path, current])}")
            path.append(current)
        root = roots.get(current, current)
        for tid in path:
            if tid not in model.tensors:
                raise ValueError(f"alias_of names tensor {tid!r}, which the model does not have")
            roots[tid] = root
    return roots


def _extend_over_regions(model: AirModel, spans: dict[TensorId, list[int]], is_constant: Any) -> None:
    """Widen lifetimes so the linear planner stays right when regions run out of schedule order.

    An owner at index ``i`` whose regions end at ``j`` copies its operands into its regions'
    inputs and their outputs into its own outputs around them, so its operands, outputs and the
    regions' inputs and outputs live over ``[i, j]``. A loop's regions run again and again, so
    every tensor an operator inside them touches also lives over the whole ``[i, j]`` (a value
    computed late in one iteration is read early in the next one's copies). IF branches keep
    their own spans: only one branch runs, so the planner may give both the same bytes. Owners are
    widened innermost first, so an outer loop widens what an inner one already did.
    """
    layout = region_layout(model)
    ops = model.operators
    for owner in sorted(layout.owners, reverse=True):
        end = layout.owners[owner] - 1
        op = ops[owner]
        touched: list[TensorId] = [*op.input_ids, *op.output_ids]
        for name in owned_regions(op):
            touched += [*model.regions[name].inputs, *model.regions[name].outputs]
        if owner in layout.loop_owners:
            for inner in ops[owner + 1 : end + 1]:
                touched += [*inner.input_ids, *inner.output_ids, *inner.named_tensors.values()]
        for tid in touched:
            if not tid or is_constant(tid):
                continue
            span = spans.setdefault(tid, [owner, end])
            span[0] = min(span[0], owner)
            span[1] = max(span[1], end)


def compute_lifetimes(
    model: AirModel, *, alias_of: Mapping[TensorId, TensorId] | None = None
) -> dict[TensorId, tuple[int, int]]:
    """Inclusive ``(first, last)`` operator indices of every non-constant tensor the schedule uses.

    A tensor lives from the operator that writes it to the last operator that reads it (an output
    nobody reads still needs its bytes while its writer runs). Model inputs live from index 0,
    because the caller writes them before the run. Model outputs live to ``len(operators)``, one
    index past the last operator: that index stands for the caller reading them after the run, so a
    model output never "dies" at an operator. Ending at the last operator instead would let that
    operator write in place over an output it reads (a SOFTMAX over the logits it is given, when the
    model returns both), since the in-place rules take ``last == index`` to mean the bytes are free
    once that operator has read them. A scratch tensor an operator names for itself lives only
    during that operator; persistent tensors (state kept across runs) span the whole schedule so
    nothing else ever takes their bytes. Tensors in one ``alias_of`` group share storage, so the
    group gets the union of their lifetimes under the root's id and its other members are left
    out. Constants, and groups whose root is a constant, are not in the arena and are omitted.

    Control-flow regions (IF/WHILE subgraphs, placed after their owner) widen lifetimes, see
    :func:`_extend_over_regions`.

    Raises OperatorOrderError when an operator reads a tensor that is neither a model input nor
    written by an earlier operator.
    """
    end = max(len(model.operators) - 1, 0)
    after_run = len(model.operators)  # the caller's read of the model outputs
    spans: dict[TensorId, list[int]] = {}

    def touch(tid: TensorId, index: int) -> None:
        span = spans.get(tid)
        if span is None:
            spans[tid] = [index, index]
        else:
            span[0] = min(span[0], index)
            span[1] = max(span[1], index)

    def is_constant(tid: TensorId) -> bool:
        return model.tensor(tid).kind is AirTensorKind.CONSTANT

    for tid in model.inputs:
        if not is_constant(tid):
            touch(tid, 0)
    written: set[TensorId] = set(model.inputs)
    for index, op in enumerate(model.operators):
        for name in owned_regions(op):  # the owner copies into the region's inputs before it runs
            written.update(model.regions[name].inputs)
        for tid in op.input_ids:
            if not tid or is_constant(tid):
                continue
            if tid not in written and model.tensor(tid).kind is not AirTensorKind.PERSISTENT:
                raise OperatorOrderError(
                    f"operator {op.id} ({op.op_type}) at index {index} reads tensor {tid!r} "
                    "before any operator writes it.",
                    hint="Schedule the producer first; the AIR verifier names every such read.",
                )
            touch(tid, index)
        for tid in [*op.output_ids, *op.named_tensors.values()]:
            if tid and not is_constant(tid):
                touch(tid, index)
                written.add(tid)
    for tid in model.outputs:
        if not is_constant(tid):
            touch(tid, after_run)
    if model.regions:
        _extend_over_regions(model, spans, is_constant)
    for tid in spans:
        if model.tensor(tid).kind is AirTensorKind.PERSISTENT:
            spans[tid] = [0, end]

    roots = alias_roots(model, alias_of or {})
    lifetimes: dict[TensorId, tuple[int, int]] = {}
    for tid, (first, last) in spans.items():
        root = roots.get(tid, tid)
        if is_constant(root):
            continue
        if root in lifetimes:
            old_first, old_last = lifetimes[root]
            first, last = min(first, old_first), max(last, old_last)
        lifetimes[root] = (first, last)
    return lifetimes
