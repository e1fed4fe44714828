"""What one inference reads of each tensor, and what those reads cost in each memory.

Placement puts the bytes read most often in the fastest memory that holds them, so it needs, per
tensor, an estimate of the bytes the kernels read per inference (an access count, not a
measurement) and, per memory, what one access adds: the wait states the platform declares
(``SocPlatform.wait_states``, the figures the cycle model charges, docs/cycles.md), once per bus
beat (8 bytes on a Helium core's 64-bit bus, 4 bytes otherwise), as the cycle model charges them.

The count is the naive loop's: an operator with multiply-accumulates reads its input and its
weights once per MAC; any other tensor an operator reads (a bias, a requantization table, the
operands of an elementwise operator) is read once per output element, or, for a per-channel table,
once per output element of its channel; every output element is written once. Real kernels keep
some operands in registers and read less, but by a factor the same in every memory, so the count
ranks tensors as the kernels do and prices the difference between two placements.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, TensorId
from helia_aot.optimization.figures import operator_macs
from helia_aot.platforms.model import SocPlatform

if TYPE_CHECKING:  # plan_records' planner imports this module
    from helia_aot.pipeline.plan_records import MemoryPlan


def bytes_accessed(model: AirModel, operators: Iterable[Any]) -> dict[TensorId, int]:
    """Bytes each tensor is read or written per inference, by the naive count (module docstring)."""
    counts: dict[TensorId, int] = {}

    def add(tid: TensorId, elements: int) -> None:
        tensor = model.tensors[tid]
        counts[tid] = counts.get(tid, 0) + elements * tensor.dtype.itemsize

    for aot_op in operators:
        op = aot_op.op
        outputs = [model.tensors[t] for t in op.output_ids if t]
        out_elements = sum(t.size for t in outputs)
        channels = max(int(outputs[0].shape[-1]), 1) if outputs and outputs[0].shape else 1
        macs = operator_macs(aot_op) or 0
        seen: set[TensorId] = set()
        read: list[tuple[int | None, TensorId]] = [
            (i, t) for i, t in enumerate(op.input_ids) if t and aot_op.reads_input(i)
        ]
        read += [(None, t) for t in op.named_tensors.values() if t]
        for position, tid in read:
            if tid in seen:
                continue
            seen.add(tid)
            tensor = model.tensors[tid]
            if tensor.is_constant or position is None:
                # A weight or table: each output element reads its channel's share of it.
                share = tensor.size // channels if tensor.size % channels == 0 else tensor.size
                elements = min(out_elements * share, max(macs, out_elements))
            elif macs and position < 2:
                elements = macs
            else:
                elements = out_elements
            add(tid, elements)
        for tensor in outputs:
            add(tensor.id, tensor.size)
    return counts


def access_width(platform: SocPlatform) -> int:
    """Bytes one bus beat moves: 8 on a Helium core (64-bit), 4 otherwise."""
    return 8 if platform.has_mve else 4


def wait_cycles(platform: SocPlatform, memory: str, nbytes: int) -> int:
    """Modeled wait-state cycles of accessing ``nbytes`` in ``memory``, one charge per beat."""
    width = access_width(platform)
    return platform.wait_states_of(memory) * ((nbytes + width - 1) // width)


__all__ = ["access_width", "bytes_accessed", "placement_record", "wait_cycles"]


def placement_record(plan: MemoryPlan, platform: SocPlatform, names: dict[int, str]) -> dict[str, Any]:
    """The report's ``placement``: per region what went there and its modeled wait cycles, what
    the constants' placement saves against the simplest one (each constant, in model order, in the
    first memory that holds it), and what the scratch layout saves against the simplest one (each
    memory filled in turn, its largest tensors moving on, beside the constants placed first; null
    when that layout does not fit), with that layout's bytes in all (``simplest_scratch_bytes``:
    it may buy its cycles with bytes beyond 1.02x of the peak). ``scratch_over_bound``: at goal
    latency, a scratch layout kept above 1.02x of the fewest bytes, its bytes above that bound and
    the wait cycles it saves against the best layout within it (each byte must save
    ``cycles_per_byte_asked``).
    ``constants_yield`` says the scratch spilled and the constants read less per byte than it left
    the fast memories to it (``helia_aot.pipeline.plan.yield_claims``).

    ``bytes_accessed`` and ``wait_cycles`` are per inference, by the naive count of this module;
    ``wait_cycles`` are the wait states those accesses pay in the region's memory (0 in a TCM).
    ``names`` maps region ids to their ``<prefix>_arena_region_t`` enumerators.
    """
    accessed: dict[TensorId, int] = plan.accessed
    rows: dict[int, dict[str, Any]] = {}
    for region in plan.regions:
        rows[region.id] = {
            "region": names[region.id],
            "role": region.role,
            "memory": str(region.memory).lower(),
            "tensors": 0,
            "bytes": region.used,
            "bytes_accessed": 0,
            "wait_cycles": 0,
        }
    for tid, placed in plan.placements.items():
        row = rows[placed.region]
        row["tensors"] += 1
        row["bytes_accessed"] += accessed.get(tid, 0)
    for region in plan.regions:
        row = rows[region.id]
        row["wait_cycles"] = wait_cycles(platform, str(region.memory), row["bytes_accessed"])
    ours = simplest = 0
    for tid, memory in plan.simplest_constants.items():
        kept = plan.placements.get(tid)
        if kept is None:
            continue
        nbytes = accessed.get(tid, 0)
        ours += wait_cycles(platform, str(plan.regions[kept.region].memory), nbytes)
        simplest += wait_cycles(platform, memory, nbytes)
    from helia_aot.pipeline.arena_planner import LATENCY_CYCLES_PER_BYTE  # it imports this module

    scratch = sum(rows[r.id]["wait_cycles"] for r in plan.regions if r.role == "scratch")
    baseline = plan.simplest_scratch_wait_cycles
    rule = "constants first, read most per byte first, each in the first memory that holds it"
    if plan.constants_yield:
        rule = (
            "scratch spills: the constants read less per byte than the scratch leave the first "
            "memory to it; the rest read most per byte first, each in the first memory that holds it"
        )
    return {
        "rule": rule,
        "regions": [rows[r.id] for r in plan.regions],
        "constant_wait_cycles": ours,
        "simplest_constant_wait_cycles": simplest,
        "cycles_saved": simplest - ours,
        "scratch_wait_cycles": scratch,
        "simplest_scratch_wait_cycles": baseline,
        "scratch_cycles_saved": None if baseline is None else baseline - scratch,
        "simplest_scratch_bytes": plan.simplest_scratch_bytes,
        "constants_yield": plan.constants_yield,
        "scratch_over_bound": None
        if plan.scratch_over_bound is None
        else {
            "bytes": plan.scratch_over_bound[0],
            "wait_cycles_saved": plan.scratch_over_bound[1],
            "cycles_per_byte_asked": LATENCY_CYCLES_PER_BYTE,
        },
    }
