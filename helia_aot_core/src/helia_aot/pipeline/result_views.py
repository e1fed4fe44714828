"""Build the result views (``helia_aot.views``) from what the pipeline holds after Plan.

The views copy values out of the graph, the operator objects and the memory plan, so they stay
valid and cheap after the conversion's internal objects are gone. Fields a memory control adds to
a region (staging source, sidecar file, an explicit symbol) are read when the region carries them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, AirTensor, AirTensorKind, TensorId
from helia_aot.optimization.figures import operator_macs, operator_parameters, weight_positions
from helia_aot.pipeline.bound_regions import is_bound
from helia_aot.pipeline.emit import c_regions
from helia_aot.pipeline.plan_records import MemoryPlan
from helia_aot.platforms.model import MemoryType
from helia_aot.views import (
    FrozenMapping,
    OperatorView,
    PlacementView,
    QuantizationView,
    RegionView,
    TensorView,
)

if TYPE_CHECKING:
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.config.args import ConvertArgs


def tensor_kind(model: AirModel, tid: TensorId) -> str:
    """``input``, else ``output``, else the tensor's storage kind (the views' ``kind``)."""
    if tid in model.inputs:
        return "input"
    if tid in model.outputs:
        return "output"
    return str(getattr(model.tensors[tid].kind, "value", model.tensors[tid].kind))


def _quantization(tensor: AirTensor) -> QuantizationView | None:
    q = tensor.quantization
    if q is None:
        return None
    return QuantizationView(
        scale=tuple(float(s) for s in q.scale),
        zero_point=tuple(int(z) for z in q.zero_point),
        axis=int(q.axis),
    )


def _index(ids: list[str], tid: str) -> int | None:
    return ids.index(tid) if tid in ids else None


def tensor_views(model: AirModel, plan: MemoryPlan) -> tuple[TensorView, ...]:
    """One view per tensor in the order of the module's tensor enumeration."""
    views = []
    for tid, tensor in model.tensors.items():
        placement = plan.placements.get(tid)
        views.append(
            TensorView(
                id=str(tid),
                name=tensor.name,
                shape=tuple(int(d) for d in tensor.shape),
                dtype=str(getattr(tensor.dtype, "value", tensor.dtype)),
                ctype=tensor.ctype,
                quantization=_quantization(tensor),
                kind=tensor_kind(model, tid),
                input_index=_index(list(model.inputs), tid),
                output_index=_index(list(model.outputs), tid),
                nbytes=placement.size if placement is not None else 0,
            )
        )
    return tuple(views)


def operands(aot_op: AotOperator) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The operator's ``input_ids`` and ``local_tensor_ids``, as the product's views give them.

    Inputs are the tensors the operator reads as operands, in operand order. Its constant weights
    and bias are its own, listed with the tensors its lowering added (tables, scratch); a constant
    operand the generated C never reads (a RESHAPE's shape, weights repacked into a tensor of the
    operator's own) and an absent optional input are no tensor it reads, so neither list has them.
    """
    op = aot_op.op
    weights = weight_positions(op.op_type)
    inputs: list[str] = []
    own: list[str] = []
    for position, tid in enumerate(op.input_ids):
        if not tid:
            continue
        if aot_op.model.tensors[tid].kind is AirTensorKind.CONSTANT:
            if not aot_op.reads_input(position):
                continue
            if position in weights:
                own.append(str(tid))
                continue
        inputs.append(str(tid))
    for tid in op.named_tensors.values():
        if str(tid) not in own and str(tid) not in inputs:
            own.append(str(tid))
    return tuple(inputs), tuple(own)


def calls_by_role(calls: dict[str, str]) -> dict[str, str]:
    """The kernel entries an operator calls, keyed by when they run, as the product's views key them.

    An operator names its calls by kernel family (``{"conv_2d": "hk_conv_s8_im2col"}``, as the
    report records them); every one is called from the operator's ``_run`` function, so the view's
    role is ``run`` (``run_1``, ``run_2``, ... for further entries, in the operator's order).
    """
    entries = list(dict.fromkeys(calls.values()))
    return {("run" if i == 0 else f"run_{i}"): entry for i, entry in enumerate(entries)}


def operator_views(operators: list[Any]) -> tuple[OperatorView, ...]:
    """One view per generated operator, in execution order."""
    views = []
    for index, aot_op in enumerate(operators):
        op = aot_op.op
        calls = aot_op.kernel_calls()
        input_ids, local_tensor_ids = operands(aot_op)
        views.append(
            OperatorView(
                layer_index=index,
                symbol=str(aot_op.stem),
                type=op.op_type,
                source_indices=tuple(int(i) for i in op.source_indices),
                input_ids=input_ids,
                output_ids=tuple(str(t) for t in op.output_ids),
                local_tensor_ids=local_tensor_ids,
                kernel_calls=None if calls is None else FrozenMapping(calls_by_role(dict(calls))),
                macs=operator_macs(aot_op),
                parameters=operator_parameters(aot_op),
            )
        )
    return tuple(views)


def region_views(plan: MemoryPlan, config: ConvertArgs) -> tuple[RegionView, ...]:
    """One view per region of the C API; ``regions[i].id == i`` is its ``<prefix>_arena_region_t``.

    A cold region that only stores the sources of staged regions is not a C region, so it has no
    view: each staged region names its own ``__source`` array (``source_offset`` 0 into it).
    The module defines a C object for a region only when it allocates the arenas; with
    ``allocate_arenas: false`` the application binds every region, and a constant region's bytes
    are the sidecar file it names.
    """
    prefix = config.module.prefix
    allocate = bool(config.memory.allocate_arenas)
    views = []
    for c in c_regions(prefix, plan):
        region = plan.regions[c.plan_id]
        sidecar = None
        if not allocate and c.role == "constant":
            sidecar = f"{c.source if c.staged else c.blob}.bin"
        views.append(
            RegionView(
                id=c.index,
                memory=MemoryType(str(region.memory)),
                source_memory=MemoryType(
                    str(c.source_memory if c.staged and c.source_memory else region.memory)
                ),
                role=str(region.role),
                offset=0,
                size=int(region.total_size),
                alignment=int(region.alignment),
                symbol=None if is_bound(config, c.role) else (c.blob if c.cold else c.buffer),
                source_symbol=c.source if c.staged else None,
                source_offset=0,
                sidecar_file=sidecar,
            )
        )
    return tuple(views)


def placement_views(
    model: AirModel, plan: MemoryPlan, regions: tuple[RegionView, ...], prefix: str = "aot"
) -> FrozenMapping[PlacementView]:
    """Each placed tensor's placement, keyed by tensor id, in enumeration order; ``region`` is the
    C region (``regions[i]``), as in the residency file."""
    c_index = {c.plan_id: c.index for c in c_regions(prefix, plan)}
    rows = []
    for tid in model.tensors:
        p = plan.placements.get(tid)
        if p is None:
            continue
        region = regions[c_index[p.region]]
        staged = region.source_memory != region.memory
        rows.append(
            (
                str(tid),
                PlacementView(
                    region=region.id,
                    offset=int(p.offset),
                    size=int(p.size),
                    source_memory=region.source_memory,
                    staged=staged,
                ),
            )
        )
    return FrozenMapping(rows)


def build_views(
    model: AirModel, operators: list[AotOperator], plan: MemoryPlan, config: ConvertArgs
) -> dict[str, Any]:
    """The four view fields of a ConversionResult."""
    regions = region_views(plan, config)
    return {
        "operators": operator_views(operators),
        "tensors": tensor_views(model, plan),
        "regions": regions,
        "placements": placement_views(model, plan, regions, config.module.prefix),
    }


__all__ = ["build_views", "operator_views", "placement_views", "region_views", "tensor_kind", "tensor_views"]
