"""The AIR verifier: the invariants every stage must keep ("valid IR in, valid IR out")."""

from __future__ import annotations

from helia_aot.air.graph import AirModel
from helia_aot.air.regions import RegionLayoutError, owned_regions, region_layout
from helia_aot.air.types import AirTensorKind


def verify_model(model: AirModel) -> list[str]:
    """Return every broken invariant of ``model`` as a sentence; an empty list means valid.

    Checked: tensor ids match their keys and names are unique; operators reference existing
    tensors; every tensor is written at most once and only after it exists (inputs and constants
    exist from the start), so the schedule is a topological order; constants carry data of the
    declared shape and dtype; model inputs and outputs exist; shapes are non-negative; each
    control-flow region's operators follow their owner (``helia_aot.air.regions``).
    """
    problems: list[str] = []
    names: dict[str, str] = {}
    for tid, tensor in model.tensors.items():
        if tensor.id != tid:
            problems.append(f"tensor stored under {tid!r} has id {tensor.id!r}")
        if tensor.name in names:
            problems.append(f"tensors {names[tensor.name]!r} and {tid!r} share the name {tensor.name!r}")
        names[tensor.name] = tid
        if tensor.shape and min(map(int, tensor.shape)) < 0:
            problems.append(f"tensor {tid!r} has a negative dimension {tensor.shape}")
        if tensor.kind is AirTensorKind.CONSTANT:
            if tensor.data is None:
                problems.append(f"constant tensor {tid!r} has no data")
            elif tensor.data.dtype != tensor.dtype.numpy or tensor.data.size != tensor.size:
                problems.append(
                    f"constant tensor {tid!r} holds {tensor.data.dtype}[{tensor.data.size}] "
                    f"but declares {tensor.dtype}{list(tensor.shape)}"
                )
    for tid in [*model.inputs, *model.outputs]:
        if tid not in model.tensors:
            problems.append(f"model input/output {tid!r} is not a tensor of the model")

    # Constants and persistent state exist before the first operator runs.
    available = {
        tid
        for tid, t in model.tensors.items()
        if t.kind in (AirTensorKind.CONSTANT, AirTensorKind.PERSISTENT)
    }
    available.update(model.inputs)
    written: dict[str, str] = {}
    op_ids: set[str] = set()
    for op in model.operators:
        if op.id in op_ids:
            problems.append(f"two operators share the id {op.id!r}")
        op_ids.add(op.id)
        for tid in [*op.input_ids, *op.output_ids, *op.named_tensors.values()]:
            if tid and tid not in model.tensors:
                problems.append(f"operator {op.id} ({op.op_type}) refers to missing tensor {tid!r}")
        for tid in op.input_ids:
            if tid and tid in model.tensors and tid not in available:
                problems.append(f"operator {op.id} ({op.op_type}) reads tensor {tid!r} before it is written")
        for tid in op.output_ids:
            if tid in written:
                problems.append(f"tensor {tid!r} is written by operators {written[tid]} and {op.id}")
            elif tid in model.tensors and model.tensors[tid].kind is AirTensorKind.CONSTANT:
                problems.append(f"operator {op.id} ({op.op_type}) writes constant tensor {tid!r}")
            written[tid] = op.id
            available.add(tid)
        available.update(op.named_tensors.values())
        for name in owned_regions(op):  # the owner copies its operands into each region's inputs
            if name in model.regions:
                available.update(model.regions[name].inputs)
    for tid in model.outputs:
        if tid in model.tensors and tid not in available:
            problems.append(f"model output {tid!r} is never written")
    if model.regions or any(op.region for op in model.operators):
        try:
            region_layout(model)
        except RegionLayoutError as exc:
            problems.append(f"control-flow regions: {exc}")
    return problems
