"""Plan: give every tensor a place (arena region + offset) before any C is written.

Liveness over the schedule feeds the scratch planner; constants are packed (identical contents
share one copy) and persistent tensors laid out in order. One arena per (role, memory). The
scratch arena goes to the first memory in the platform's preferred order whose budget holds it;
constants are read in place from non-volatile memory.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.memory import BufferRequest, compute_lifetimes, plan_arena


@dataclass(slots=True)
class ArenaRegion:
    """One arena: a contiguous buffer of one role in one memory."""

    id: int
    role: str  # scratch | persistent | constant
    memory: str
    used: int
    alignment: int
    peak_live: int | None = None
    capacity: int | None = None
    planner: str | None = None

    @property
    def total_size(self) -> int:
        """Bytes reserved: ``used`` rounded up to the alignment (at least one alignment unit)."""
        a = self.alignment
        return max(a, (self.used + a - 1) // a * a)

    @property
    def fragmentation(self) -> float:
        """Share of the arena the planner could not fill at the peak: ``1 - peak_live / used``."""
        if not self.used or self.peak_live is None:
            return 0.0
        return round(1.0 - self.peak_live / self.used, 6)


@dataclass(slots=True)
class Placement:
    region: int
    offset: int
    size: int


@dataclass(slots=True)
class MemoryPlan:
    """Where everything lives: regions, each tensor's placement, and the aliasing used."""

    regions: list[ArenaRegion] = field(default_factory=list)
    placements: dict[TensorId, Placement] = field(default_factory=dict)
    alias_of: dict[TensorId, TensorId] = field(default_factory=dict)
    constant_blobs: dict[int, bytes] = field(default_factory=dict)

    def region(self, role: str) -> ArenaRegion | None:
        return next((r for r in self.regions if r.role == role), None)


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _alias_map(model: AirModel, operators: list[Any]) -> dict[TensorId, TensorId]:
    """Outputs of byte movers that may share their input's storage, mapped to the storage root."""
    alias: dict[TensorId, TensorId] = {}
    outputs = set(model.outputs)
    for aot_op in operators:
        if not aot_op.ALIASES_INPUT or not aot_op.op.input_ids or not aot_op.op.output_ids:
            continue
        src, dst = aot_op.op.input_ids[0], aot_op.op.output_ids[0]
        source = model.tensors[src]
        if source.kind is not AirTensorKind.SCRATCH or model.tensors[dst].nbytes != source.nbytes:
            continue
        root = alias.get(src, src)
        # Two model I/O tensors must stay distinct buffers: the caller owns both pointers.
        if (root in model.inputs or root in outputs) and dst in outputs:
            continue
        alias[dst] = root
    return alias


def plan_memory(model: AirModel, operators: list[Any], platform: Any, config: Any) -> MemoryPlan:
    """Place every tensor of ``model`` (after Resolve) and return the plan."""
    memory_cfg = config.memory
    alignment = max(int(getattr(platform, "alignment", 16) or 16), 8)
    plan = MemoryPlan(alias_of=_alias_map(model, operators))
    lifetimes = compute_lifetimes(model, alias_of=plan.alias_of)
    roots = sorted(lifetimes, key=lambda t: list(model.tensors).index(t))

    # -- scratch ---------------------------------------------------------------------------------
    sizes: dict[TensorId, int] = {}
    for tid in roots:
        sizes[tid] = model.tensors[tid].nbytes
    for dst, root in plan.alias_of.items():
        sizes[root] = max(sizes.get(root, 0), model.tensors[dst].nbytes)
    index_of = {op.op.id: i for i, op in enumerate(operators)}
    inplace: dict[TensorId, TensorId] = {}
    for aot_op in operators:
        for position in aot_op.INPLACE_INPUTS:
            if position >= len(aot_op.op.input_ids) or not aot_op.op.output_ids:
                continue
            src = plan.alias_of.get(aot_op.op.input_ids[position], aot_op.op.input_ids[position])
            dst = aot_op.op.output_ids[0]
            if (src in lifetimes and dst in lifetimes and dst not in inplace
                    and lifetimes[src][1] == index_of[aot_op.op.id] == lifetimes[dst][0]
                    and sizes[dst] <= sizes[src] and src not in model.inputs):
                inplace[dst] = src
    requests = [
        BufferRequest(id=str(tid), size=max(sizes[tid], 1), first=lifetimes[tid][0],
                      last=lifetimes[tid][1], alignment=max(alignment, model.tensors[tid].alignment or 1),
                      inplace_of=str(inplace[tid]) if tid in inplace else None)
        for tid in roots
    ]
    planner_name = str(getattr(memory_cfg.planner, "value", memory_cfg.planner))
    arena = plan_arena(requests, planner_name, seed=0, options=dict(memory_cfg.planner_options or {}))
    scratch_memory = _pick_memory(platform, arena.used, model, "scratch")
    plan.regions.append(ArenaRegion(0, "scratch", scratch_memory, arena.used, alignment,
                                    peak_live=arena.peak_live, capacity=_budget(platform, scratch_memory),
                                    planner=planner_name))
    for tid in roots:
        plan.placements[tid] = Placement(0, arena.offsets[str(tid)], sizes[tid])
    for dst, root in plan.alias_of.items():
        plan.placements[dst] = Placement(0, plan.placements[root].offset, model.tensors[dst].nbytes)

    # -- persistent --------------------------------------------------------------------------------
    persistent = [t for t in model.tensors.values() if t.kind is AirTensorKind.PERSISTENT]
    if persistent:
        offset = 0
        region_id = len(plan.regions)
        for tensor in persistent:
            offset = _align(offset, max(alignment, tensor.alignment or 1))
            plan.placements[tensor.id] = Placement(region_id, offset, tensor.nbytes)
            offset += tensor.nbytes
        memory = _pick_memory(platform, offset, model, "persistent")
        plan.regions.append(ArenaRegion(region_id, "persistent", memory, offset, alignment,
                                        capacity=_budget(platform, memory)))

    # -- constants ---------------------------------------------------------------------------------
    read = _tensors_read(model, operators)
    constants = [t for t in model.tensors.values() if t.kind is AirTensorKind.CONSTANT and t.id in read]
    if constants:
        region_id = len(plan.regions)
        blob = bytearray()
        seen: dict[bytes, int] = {}
        for tensor in constants:
            data = tensor.data.astype(tensor.dtype.numpy, copy=False).tobytes(order="C")
            key = hashlib.sha256(data).digest() + len(data).to_bytes(8, "little")
            if key in seen:
                offset = seen[key]
            else:
                offset = _align(len(blob), max(alignment, tensor.alignment or 1))
                blob.extend(b"\0" * (offset - len(blob)))
                blob.extend(data)
                seen[key] = offset
            plan.placements[tensor.id] = Placement(region_id, offset, tensor.nbytes)
        memory = _constant_memory(platform)
        plan.regions.append(ArenaRegion(region_id, "constant", memory, len(blob), alignment,
                                        capacity=_budget(platform, memory)))
        plan.constant_blobs[region_id] = bytes(blob)
    return plan


def _tensors_read(model: AirModel, operators: list[Any]) -> set[TensorId]:
    """Tensors some operator's C reads, plus the model outputs."""
    read: set[TensorId] = set(model.outputs)
    for aot_op in operators:
        read.update(t for i, t in enumerate(aot_op.op.input_ids) if t and aot_op.reads_input(i))
        read.update(aot_op.op.named_tensors.values())
    return read


def _budget(platform: Any, memory: str) -> int | None:
    try:
        return int(platform.budget(memory))
    except Exception:  # custom platforms may not list every memory
        return None


def _memory_names(platform: Any) -> list[str]:
    order = getattr(platform, "preferred_order", None) or ()
    return [str(getattr(m, "value", m)).upper() for m in order] or ["SRAM"]


def _pick_memory(platform: Any, nbytes: int, model: AirModel, role: str) -> str:
    """First memory in preferred order whose budget holds ``nbytes``, or a clear error."""
    tried = []
    for memory in _memory_names(platform):
        if memory in ("MRAM", "FLASH"):
            continue  # read-only at run time
        budget = _budget(platform, memory)
        if budget is None or nbytes <= budget:
            return memory
        tried.append(f"{memory} ({budget} B)")
    raise UnsupportedModelError(
        f"the {role} arena of model {model.name!r} needs {nbytes} bytes; no memory holds it: "
        + ", ".join(tried),
        hint="choose a platform with more RAM, or reduce the model's activation sizes",
        details={"role": role, "bytes": nbytes, "tried": tried},
    )


def _constant_memory(platform: Any) -> str:
    names = [str(getattr(m, "value", m)).upper() for m, _ in _memories(platform)]
    for candidate in ("MRAM", "FLASH"):
        if candidate in names:
            return candidate
    return _memory_names(platform)[-1]


def _memories(platform: Any) -> list[tuple[Any, int]]:
    memories = getattr(platform, "memories", ())
    if isinstance(memories, dict):
        return list(memories.items())
    try:
        return list(memories.items())  # mapping proxies
    except AttributeError:
        return list(memories)


def check_planner_name(name: str, context: Any) -> None:
    """Reject an unknown planner before any work, naming the registered ones."""
    planners = getattr(context, "memory_planners", None)
    if planners is not None and len(planners) and name not in planners:
        raise InvalidConfigError(f"unknown memory planner {name!r}",
                                 hint=f"choose one of: {', '.join(planners.keys())}")
