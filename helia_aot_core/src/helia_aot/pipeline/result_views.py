"""Build the result views (``helia_aot.views``) from what the pipeline holds after Plan.

The views copy values out of the graph, the operator objects and the memory plan, so they stay
valid and cheap after the conversion's internal objects are gone. Fields a memory control adds to
a region (staging source, sidecar file, an explicit symbol) are read when the region carries them.
"""

from __future__ import annotations

from typing import Any

from helia_aot.air import AirModel, AirTensor, TensorId
from helia_aot.optimization.figures import operator_macs, operator_parameters
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


def operator_views(operators: list[Any]) -> tuple[OperatorView, ...]:
    """One view per generated operator, in execution order."""
    views = []
    for index, aot_op in enumerate(operators):
        op = aot_op.op
        calls = aot_op.kernel_calls()
        views.append(
            OperatorView(
                layer_index=index,
                symbol=str(aot_op.stem),
                type=op.op_type,
                source_indices=tuple(int(i) for i in op.source_indices),
                input_ids=tuple(str(t) if t else None for t in op.input_ids),
                output_ids=tuple(str(t) for t in op.output_ids),
                local_tensor_ids=tuple(str(t) for t in op.named_tensors.values()),
                kernel_calls=None if calls is None else FrozenMapping(dict(calls)),
                macs=operator_macs(aot_op),
                parameters=operator_parameters(aot_op),
            )
        )
    return tuple(views)


def region_views(plan: MemoryPlan, config: Any) -> tuple[RegionView, ...]:
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
                symbol=(c.blob if c.cold else c.buffer) if allocate else None,
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


def build_views(model: AirModel, operators: list[Any], plan: MemoryPlan, config: Any) -> dict[str, Any]:
    """The four view fields of a ConversionResult."""
    regions = region_views(plan, config)
    return {
        "operators": operator_views(operators),
        "tensors": tensor_views(model, plan),
        "regions": regions,
        "placements": placement_views(model, plan, regions, config.module.prefix),
    }


__all__ = ["build_views", "operator_views", "placement_views", "region_views", "tensor_kind", "tensor_views"]
