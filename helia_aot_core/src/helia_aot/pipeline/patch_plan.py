"""Plan: where patch-based execution pays, and what the planner must know about it (goal size).

A *stage* is a run of consecutive windowed operators (CONV_2D, DEPTHWISE_CONV_2D) that form a
chain: each reads the previous one's output, which nothing else reads. Run in patches (see
:mod:`helia_aot.memory.patches`), the whole stage executes when its first operator runs: band by
band over the rows of its last output, each operator on the rows the next one's windows read,
its intermediate outputs kept in one small *patch buffer* (the planner's tensors shrunk to a
band's rows, laid out so the outputs a band still needs never share bytes). The other operators
of the stage then run nothing. So the planner sees, at the first operator's step, the stage
input, the stage output and the patch buffer; the whole intermediate tensors are never
allocated. Where every band writes only input bytes no later band reads, the stage output is
laid over the stage input (even a model input, whose bytes the run has consumed: at goal size
the caller writes the inputs before every run, as the module's API asks).

:func:`choose_patches` tries every stage of at most ``MAX_STAGE_LAYERS`` operators and every
band height, estimates the bound each reaches (the stage's step and, elsewhere, what writing in
place row by row can reach: the planner then decides those), and keeps the choice with the
smallest bound, the fewest extra MACs among equals; only when it is below the bound without
patches. The planner's own measure then confirms it (or the stage is dropped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.memory import BufferRequest, alias_roots, compute_lifetimes, peak_live, plan_greedy_by_size

if TYPE_CHECKING:  # the band arithmetic is imported by the functions that run it (goal size only)
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.memory.patches import BandCall, RowLayer

MAX_STAGE_LAYERS = 8
"""The longest stage tried: halos grow with depth, so deeper stages recompute more and save less."""

PATCH_ALIGNMENT = 16

MODES = ("recompute", "stream")

COST_TOLERANCE = 16
"""Among the choices whose bound is within 1/16 of the smallest, the one with the fewest extra
MACs wins: a few hundred bytes more for a stage that recomputes nothing (streaming) rather
than the last bytes bought with halos computed again and again."""

FORCE_ROWS_PER_BAND: int | None = None
"""Tests only: run the first chain (its first ``MAX_STAGE_LAYERS`` operators) in bands of this many
rows whether or not that lowers the bound, so random chains exercise every band geometry."""
FORCE_MODE = "recompute"
"""Tests only: the mode of the forced stage (``recompute`` or ``stream``)."""


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class PatchStage:
    """One patch-run stage of the plan.

    ``operators`` are AIR operator ids in stage order, at run positions ``first`` .. ``last``;
    the stage output is computed ``rows_per_band`` rows at a time in ``bands`` bands.
    ``halo_rows`` counts, per operator, the output rows computed more than once (the
    recomputed halos) and ``extra_macs`` what they cost. ``slots`` gives, per intermediate
    output (every operator but the last), its offset and bytes in the patch buffer of
    ``buffer_bytes``; ``in_place`` says the stage output starts at the stage input's first byte.
    ``bound`` is the bytes live at the stage's step.
    """

    operators: list[str]
    first: int
    last: int
    rows_per_band: int
    bands: int
    halo_rows: list[int]
    extra_macs: int
    in_place: bool
    buffer_bytes: int
    slots: list[tuple[int, int]]
    input_id: TensorId
    output_id: TensorId
    intermediates: list[TensorId]
    band_table: list[list[BandCall]] = field(default_factory=list)
    mode: str = "recompute"
    """``recompute`` (each band computes its halos again: least memory) or ``stream`` (each band
    keeps the rows the next one reads again: no extra MACs, buffers not shared)."""
    bound: int = 0
    buffer_id: TensorId | None = None
    """The patch buffer: a scratch tensor of the first operator (set when it joins the stage)."""


def _align(value: int) -> int:
    return (value + PATCH_ALIGNMENT - 1) // PATCH_ALIGNMENT * PATCH_ALIGNMENT


def patch_slots(
    layers: Sequence[RowLayer], rows: Sequence[int], *, streaming: bool = False
) -> tuple[int, list[tuple[int, int]]]:
    """Lay the intermediates out in one buffer. Recomputing bands start afresh: output ``j`` is
    written by operator ``j`` and read by operator ``j + 1`` of a band, so it may share bytes with
    outputs two or more apart. Streaming bands keep rows for the next band: no sharing."""
    last = len(rows)
    requests = [
        BufferRequest(
            id=str(j),
            size=max(_align(n * layers[j].output_row_bytes), PATCH_ALIGNMENT),
            first=0 if streaming else j,
            last=last if streaming else j + 1,
        )
        for j, n in enumerate(rows)
    ]
    arena = plan_greedy_by_size(requests)
    return arena.used, [(arena.offsets[str(j)], requests[j].size) for j in range(len(rows))]


def _readers(model: AirModel) -> dict[TensorId, int]:
    count: dict[TensorId, int] = {}
    for op in model.operators:
        for tid in dict.fromkeys(op.input_ids):
            if tid:
                count[tid] = count.get(tid, 0) + 1
    return count


def _chains(
    model: AirModel, operators: list[AotOperator], alias_of: dict[TensorId, TensorId]
) -> list[list[int]]:
    """Maximal runs of consecutive patchable operators, each linked to the next by a tensor only
    the next one reads (scratch, no alias, not a model input or output)."""
    readers = _readers(model)
    aliased = set(alias_of) | set(alias_of.values())
    outputs = set(model.outputs)

    def patchable(aot_op: Any) -> bool:
        ask = getattr(aot_op, "patch_geometry", None)
        return ask is not None and ask() is not None

    def linked(a: AotOperator, b: AotOperator) -> bool:
        tid = a.op.output_ids[0]
        return (
            b.op.input_ids[0] == tid
            and readers.get(tid) == 1
            and tid not in aliased
            and tid not in outputs
            and tid not in model.inputs
            and model.tensors[tid].kind is AirTensorKind.SCRATCH
            and len(a.op.output_ids) == 1
        )

    chains: list[list[int]] = []
    current: list[int] = []
    for index, aot_op in enumerate(operators):
        if not patchable(aot_op):
            current = []
            continue
        if current and linked(operators[current[-1]], aot_op):
            current.append(index)
        else:
            current = [index]
            chains.append(current)
    return [c for c in chains if len(c) >= 2]


def _stage(
    model: AirModel,
    operators: list[Any],
    positions: list[int],
    rows_per_band: int,
    input_dies: bool,
    mode: str = "recompute",
) -> PatchStage | None:
    from helia_aot.memory.patches import extra_rows, held_rows, lands_in_place, recompute_calls, stream_calls

    members = [operators[i] for i in positions]
    layers = [m.patch_geometry() for m in members]
    streaming = mode == "stream"
    bands = stream_calls(layers, rows_per_band) if streaming else recompute_calls(layers, rows_per_band)
    if any(call.out_rows > 0 and call.in_rows < 1 for band in bands for call in band):
        return None
    if any(band[-1].out_rows < 1 for band in bands):
        return None
    buffer, slots = patch_slots(layers, held_rows(bands), streaming=streaming)
    halos = extra_rows(layers, bands)
    extra = sum(
        halo * (int(m.macs() or 0) // max(layer.output_height, 1))
        for halo, m, layer in zip(halos, members, layers, strict=True)
    )
    first, last = members[0], members[-1]
    source, target = first.op.input_ids[0], last.op.output_ids[0]
    in_place = (
        input_dies
        and target not in set(model.outputs)
        and model.tensors[source].kind is AirTensorKind.SCRATCH
        and lands_in_place(layers, bands)
    )
    return PatchStage(
        operators=[str(m.op.id) for m in members],
        first=positions[0],
        last=positions[-1],
        rows_per_band=rows_per_band,
        bands=len(bands),
        halo_rows=halos,
        extra_macs=extra,
        in_place=in_place,
        buffer_bytes=buffer,
        slots=slots,
        input_id=source,
        output_id=target,
        intermediates=[m.op.output_ids[0] for m in members[:-1]],
        band_table=bands,
        mode=mode,
    )


def adjust_planner(planner: Any, stages: Sequence[PatchStage]) -> None:
    """Tell a planner (``pipeline.arena_planner.Planner``) what patch execution changes.

    Everything of a stage happens at its first operator's step: the stage output is born there
    (over the stage input when ``in_place``), the patch buffer and every member's kernel scratch
    are live there, and the whole intermediate tensors are not planned at all (their bytes are
    never touched: the patch buffer holds a band's rows of each).
    """
    for stage in stages:
        gone = set(stage.intermediates)
        for dst, src in list(planner.inplace.items()):
            if dst in gone or src in gone:
                del planner.inplace[dst]
        for tid in stage.intermediates:
            if tid in planner.spans:
                del planner.spans[tid]
                planner.sizes.pop(tid, None)
                planner.members.pop(tid, None)
                planner.roots.remove(tid)
        for aot_op in planner.operators[stage.first : stage.last + 1]:
            for tid in aot_op.op.named_tensors.values():
                if tid in planner.spans and planner.model.tensors[tid].kind is AirTensorKind.SCRATCH:
                    planner.spans[tid] = (stage.first, stage.first)
        out = stage.output_id
        if out in planner.spans:
            planner.spans[out] = (stage.first, planner.spans[out][1])
            if stage.in_place and stage.input_id in planner.spans:
                planner.inplace[out] = stage.input_id


def _live_at(requests: list[BufferRequest], step: int) -> int:
    here = [r for r in requests if r.first <= step <= r.last]
    names = {r.id for r in here}
    return (
        peak_live([r if r.inplace_of in names else replace(r, inplace_of=None) for r in here]) if here else 0
    )


def _dies_at(
    model: AirModel,
    alias_of: dict[TensorId, TensorId],
    lifetimes: dict[TensorId, tuple[int, int]],
    source: TensorId,
    first: int,
) -> bool:
    """Whether the stage input's last reader is the stage's first operator (its bytes are free
    once the last band has read them)."""
    return (
        _readers(model).get(source) == 1
        and source not in alias_of.values()
        and source not in alias_of
        and source not in set(model.outputs)
        and source in lifetimes
        and lifetimes[source][1] == first
    )


def _forced(
    model: AirModel, operators: list[Any], positions: list[int], alias_of: dict[TensorId, TensorId]
) -> list[PatchStage]:
    assert FORCE_ROWS_PER_BAND is not None
    source = operators[positions[0]].op.input_ids[0]
    height = operators[positions[-1]].patch_geometry().output_height
    stage = _stage(
        model,
        operators,
        positions,
        min(FORCE_ROWS_PER_BAND, height),
        _dies_at(model, alias_of, compute_lifetimes(model, alias_of=alias_of), source, positions[0]),
        FORCE_MODE,
    )
    return [] if stage is None else [stage]


def choose_patches(
    model: AirModel,
    operators: list[Any],
    alias_of: dict[TensorId, TensorId],
    requests: Callable[[], list[BufferRequest]],
) -> list[PatchStage]:
    """The stage and band height with the smallest estimated bound (see the module docstring),
    or no stage when none lowers it. ``requests`` gives the scratch buffers as the planner
    would place them now (no patches), which the estimate starts from."""
    chains = _chains(model, operators, alias_of)
    if not chains:
        return []
    if FORCE_ROWS_PER_BAND is not None:
        return _forced(model, operators, chains[0][:MAX_STAGE_LAYERS], alias_of)
    from helia_aot.pipeline.inplace_rows import inplace_candidates

    base = requests()
    steps = len(operators)
    live = [_live_at(base, step) for step in range(steps + 1)]
    lifetimes = compute_lifetimes(model, alias_of=alias_of)
    saving = {
        step: saved
        for step, (_, saved) in inplace_candidates(
            model, operators, lifetimes, alias_roots(model, alias_of)
        ).items()
    }
    floor = [live[s] - saving.get(s, 0) for s in range(steps + 1)]
    sizes = {r.id: r.size for r in base}
    before = [0] * (steps + 2)  # before[s]: the largest floor at steps < s
    after = [0] * (steps + 2)  # after[s]: the largest floor at steps >= s
    for s in range(steps + 1):
        before[s + 1] = max(before[s], floor[s])
    for s in range(steps, -1, -1):
        after[s] = max(after[s + 1], floor[s])
    found: list[tuple[int, int, int, int, PatchStage]] = []  # bound, extra MACs, layers, order
    smallest: int | None = None
    # A stage lowers the bound only if it covers every step at the bound: one left outside
    # keeps the bound where it is. So only stages over the hottest steps are tried.
    top = max(floor)
    hot = [s for s in range(steps + 1) if floor[s] >= top]
    for chain in chains:
        if chain[0] > hot[0] or chain[-1] < hot[-1]:
            continue
        for a in range(len(chain) - 1):
            first = chain[a]
            if first > hot[0] or first + MAX_STAGE_LAYERS <= hot[-1]:
                continue
            head = operators[first].op
            source = head.input_ids[0]
            dies = _dies_at(model, alias_of, lifetimes, source, first)
            # Live at the stage's step besides its own buffers (the first operator's input,
            # output and scratch are the only stage buffers live there before patching).
            own = {
                str(source),
                *(str(t) for t in head.output_ids),
                *(str(t) for t in head.named_tensors.values()),
            }
            around = sum(r.size for r in base if r.first <= first <= r.last and r.id not in own)
            scratch = sum(sizes.get(str(t), 0) for t in head.named_tensors.values())
            io = sizes.get(str(source), 0)
            for b in range(a + 1, min(len(chain), a + MAX_STAGE_LAYERS)):
                positions = chain[a : b + 1]
                last = positions[-1]
                scratch += sum(sizes.get(str(t), 0) for t in operators[last].op.named_tensors.values())
                if last < hot[-1]:
                    continue
                out = sizes.get(str(operators[last].op.output_ids[0]), 0)
                outside = max(before[first], after[last + 1])
                low = max(around + scratch + max(io, out), outside)
                if smallest is not None and low > smallest + smallest // COST_TOLERANCE:
                    continue  # no band height can come near the best bound so far
                height = operators[last].patch_geometry().output_height
                for rows_per_band in range(1, height):
                    for mode in MODES:
                        stage = _stage(model, operators, positions, rows_per_band, dies, mode)
                        if stage is None:
                            continue
                        stage.bound = (
                            around
                            + scratch
                            + stage.buffer_bytes
                            + (max(io, out) if stage.in_place else io + out)
                        )
                        bound = max(stage.bound, outside)
                        smallest = bound if smallest is None else min(smallest, bound)
                        found.append((bound, stage.extra_macs, len(positions), len(found), stage))
    if smallest is None or smallest >= max(floor):
        return []
    near = [f for f in found if f[0] <= smallest + smallest // COST_TOLERANCE]
    return [min(near, key=lambda f: (f[1], f[0], f[2], f[3]))[4]]


__all__ = ["MAX_STAGE_LAYERS", "PatchStage", "adjust_planner", "choose_patches", "patch_slots"]
