"""The choices Plan weighs before the final layout, each measured with the arena planner: the
operator order (``choose_schedule``), patch stages (``choose_patch_stages``) and in-place row loops
(``choose_inplace_rows``), which only goal size makes, and the memory-aware kernel choice
(``choose_scratch``), whose rule each goal sets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.aot.operators.base import SCRATCH_ISAS, AotOperator
from helia_aot.config.args import ConvertArgs
from helia_aot.memory import BufferRequest, alias_roots, compute_lifetimes, live_by_step, peak_live
from helia_aot.pipeline import patch_plan
from helia_aot.pipeline.arena_planner import Planner, bound_tensors, scratch_requests
from helia_aot.pipeline.patch_plan import PatchStage, choose_patches
from helia_aot.pipeline.plan_records import MemoryPlan, OperatorSchedule

if TYPE_CHECKING:  # imported by the order search itself, which only goal size runs
    from helia_aot.memory.schedule import ScheduleGraph


def may_drop(goal: str, aot_op: AotOperator, name: str, reusable: bool) -> bool:
    """Whether ``goal`` lets the memory-aware choice give up ``aot_op``'s buffer ``name``.

    ``latency`` keeps every fast path's buffer; ``size`` drops any buffer that would raise the
    arena (memory first); ``balanced`` and ``accuracy`` drop only a buffer whose scratch-free
    variant runs the same instructions on every instruction set, or that the kernel can place
    in the operator's own dead bytes (``reusable``), so no core's count can rise.
    """
    if goal == "size":
        return True
    if goal in ("balanced", "accuracy"):
        free_on = aot_op.scratch_free_on.get(name, frozenset())
        return reusable or SCRATCH_ISAS <= set(free_on)
    return False


def drop_reason(goal: str, nbytes: int, reused: bool) -> str:
    if reused:
        return (
            f"goal {goal}: the {nbytes} B buffer would raise the scratch arena above the tensors' "
            "peak; the kernel places it in the operator's dead bytes (output rows not written "
            "yet, input rows already consumed) and runs the same fast path"
        )
    if goal == "size":
        return (
            f"goal size: the {nbytes} B buffer would raise the scratch arena above the tensors' "
            "peak; the scratch-free variant runs (more instructions, less memory)"
        )
    return (
        f"goal {goal}: the {nbytes} B buffer would raise the scratch arena above the tensors' "
        "peak and the scratch-free variant costs no instructions on any core"
    )


def input_dies(
    planner: Planner, model: AirModel, index: int, aot_op: AotOperator, position: int, partners: set[TensorId]
) -> bool:
    """Whether input ``position`` of operator ``index`` (with every tensor sharing its bytes)
    is a scratch tensor whose last reader is that operator: its bytes are dead once read.
    ``partners`` is the set of the planner's in-place partners (made once by the caller: a scan of
    them per operator made this quadratic)."""
    ids = aot_op.op.input_ids
    if position >= len(ids):
        return False
    root = planner.plan.alias_of.get(ids[position], ids[position])
    return (
        root in planner.spans
        and planner.spans[root][1] == index
        and planner.role_of(root) == "scratch"
        and root not in model.inputs
        and root not in set(model.outputs)
        and root not in partners
        and ids.count(ids[position]) == 1
    )


def _goal(config: ConvertArgs) -> str:
    return str(config.optimization.goal)  # the word: OptimizationGoal prints its value


def _optional_scratch_ids(operators: list[AotOperator]) -> set[TensorId]:
    return {aot_op.op.named_tensors[name] for aot_op in operators for name in aot_op.optional_scratch}


def tensor_bound(operators: list[AotOperator], make_planner: Callable[[], Planner]) -> int:
    """The tensors' peak in the current order: every scratch buffer but optional kernel scratch."""
    owners = _optional_scratch_ids(operators)
    tensors_only = [r for r in scratch_requests(make_planner()) if TensorId(r.id) not in owners]
    return peak_live(tensors_only) if tensors_only else 0


def schedule_graph(
    model: AirModel, operators: list[AotOperator], alias_of: dict[TensorId, TensorId]
) -> ScheduleGraph:
    """The order search's view of ``model``: scratch buffers by storage root, and the order
    constraints data does not show (operators touching the same persistent tensor keep their
    stored order). Optional kernel scratch is left out: the memory-aware choice decides it later."""
    from helia_aot.memory.schedule import ScheduleGraph, ScheduleOp

    roots = alias_roots(model, alias_of)
    optional = _optional_scratch_ids(operators)

    def scratch(tid: TensorId) -> bool:
        return bool(tid) and tid in model.tensors and model.tensors[tid].kind is AirTensorKind.SCRATCH

    sizes: dict[str, int] = {}
    ops: list[ScheduleOp] = []
    last_touch: dict[TensorId, int] = {}
    for index, op in enumerate(model.operators):
        reads = tuple(dict.fromkeys(str(roots.get(t, t)) for t in op.input_ids if scratch(t)))
        written = [
            t for t in [*op.output_ids, *op.named_tensors.values()] if scratch(t) and t not in optional
        ]
        writes = tuple(dict.fromkeys(str(roots.get(t, t)) for t in written))
        for t in [*op.input_ids, *op.output_ids, *written]:
            if scratch(t):
                root = str(roots.get(t, t))
                sizes[root] = max(sizes.get(root, 0), model.tensors[t].nbytes)
        after: list[int] = []
        for t in [*op.input_ids, *op.output_ids]:
            if t and t in model.tensors and model.tensors[t].kind is AirTensorKind.PERSISTENT:
                if t in last_touch:
                    after.append(last_touch[t])
                last_touch[t] = index
        ops.append(ScheduleOp(reads, writes, tuple(after)))
    inputs = frozenset(str(roots.get(t, t)) for t in model.inputs if scratch(t))
    outputs = frozenset(str(roots.get(t, t)) for t in model.outputs if scratch(t))
    return ScheduleGraph(tuple(ops), sizes, inputs, outputs)


def choose_schedule(
    model: AirModel,
    operators: list[AotOperator],
    config: ConvertArgs,
    make_planner: Callable[[], Planner],
    alias_of: dict[TensorId, TensorId],
) -> OperatorSchedule:
    """Under ``goal: size``, rerun the operators in the order with the smallest tensor peak.

    The search (:func:`helia_aot.memory.schedule.best_order`) works on the buffers alone; the
    order is then checked with the planner's own measure (in-place pairs included) and kept only
    when it lowers the tensors' peak, so every other goal, and a graph no order improves, keep the
    stored order and their plans unchanged. ``model.operators`` and ``operators`` are reordered
    together, so the lifetimes, the plan and the generated code all follow the chosen order.
    Graphs with control-flow regions keep their order (regions sit right after their owner).
    """
    stored_ids = [str(op.id) for op in model.operators]
    layer = tensor_bound(operators, make_planner)
    if _goal(config) != "size" or model.regions or len(model.operators) < 3:
        return OperatorSchedule(stored_ids, layer, layer, "stored")
    from helia_aot.memory.schedule import best_order

    found = best_order(schedule_graph(model, operators, alias_of))
    if found.order == tuple(range(len(model.operators))):
        return OperatorSchedule(stored_ids, layer, layer, found.method)
    stored_ops, stored_aot = list(model.operators), list(operators)
    model.operators[:] = [stored_ops[i] for i in found.order]
    operators[:] = [stored_aot[i] for i in found.order]
    chosen = tensor_bound(operators, make_planner)
    if chosen >= layer:
        model.operators[:] = stored_ops
        operators[:] = stored_aot
        return OperatorSchedule(stored_ids, layer, layer, found.method)
    return OperatorSchedule(
        [str(op.id) for op in model.operators], layer, chosen, found.method, reordered=True
    )


def choose_patch_stages(
    model: AirModel,
    operators: list[AotOperator],
    config: ConvertArgs,
    make_planner: Callable[[], Planner],
    plan: MemoryPlan,
) -> list[PatchStage]:
    """Under ``goal: size``, run the early convolutions in patches where that lowers the bound
    (:func:`helia_aot.pipeline.patch_plan.choose_patches`); kept only when the planner's own
    measure of the tensors' peak does not rise. The chosen operators learn their part
    (``join_patch_stage``)."""
    if _goal(config) != "size" or model.regions:
        return []
    optional = _optional_scratch_ids(operators)

    def requests() -> list[BufferRequest]:
        return [r for r in scratch_requests(make_planner()) if TensorId(r.id) not in optional]

    before = tensor_bound(operators, make_planner)
    stages = choose_patches(model, operators, plan.alias_of, requests)
    if not stages:
        return []
    # A stage never writes over a bound input, nor lays a bound output over its input
    # (memory.bind_inputs, memory.bind_outputs): those bytes are the caller's.
    bound = bound_tensors(model, config)
    stages = [replace(s, in_place=False) if {s.input_id, s.output_id} & bound else s for s in stages]
    plan.patches = stages
    for stage in stages:
        members = operators[stage.first : stage.last + 1]
        for member in members:
            member.join_patch_stage(stage, members)
    # The estimate counted what the in-place row loops (decided next) will save elsewhere; the
    # planner's measure here cannot yet, so it only has to show the stage raises nothing.
    if tensor_bound(operators, make_planner) <= before or patch_plan.FORCE_ROWS_PER_BAND is not None:
        return stages
    for stage in stages:
        for index in range(stage.first, stage.last + 1):
            operators[index].leave_patch_stage()
    plan.patches = []
    return []


INPLACE_ONLY_ABOVE_BOUND = True
"""Switch in-place row loops on only where the bound needs them (False: wherever they qualify,
which the cross tests use to run every loop variant on the cores; the bound is the same)."""


def choose_inplace_rows(
    model: AirModel,
    operators: list[AotOperator],
    config: ConvertArgs,
    alias_of: dict[TensorId, TensorId],
    make_planner: Callable[[], Planner],
) -> list[str]:
    """Under ``goal: size``, let windowed operators write their output over their input.

    An operator that offers it (``inplace_rows_bytes``: CONV_2D and DEPTHWISE_CONV_2D, row by row
    through a ring of output rows; last row first when the output is the larger, which then runs
    on past the input's end) qualifies where its input dies there (no later reader, not a model
    input or output, not state) and the ring is smaller than the bytes sharing saves. Writing in
    place only changes the bytes live at the operator's own step, so the bound it reaches is the
    largest step once every qualifying operator shares; only operators whose step is above that
    bound are switched on (the others would pay the row loop's instructions for nothing). The
    ring is a scratch buffer of the operator, so the plan counts it. Returns the operator ids.
    """
    if _goal(config) != "size" or model.regions:
        return []
    from helia_aot.pipeline.inplace_rows import inplace_candidates  # goal size only

    lifetimes = compute_lifetimes(model, alias_of=alias_of)
    # step -> (operator, bytes sharing saves net of the ring)
    candidates = inplace_candidates(model, operators, lifetimes, alias_roots(model, alias_of))
    if not candidates:
        return []
    optional = _optional_scratch_ids(operators)
    requests = [r for r in scratch_requests(make_planner()) if TensorId(r.id) not in optional]

    def live_at(step: int) -> int:
        here = [r for r in requests if r.first <= step <= r.last]
        names = {r.id for r in here}
        return (
            peak_live([r if r.inplace_of in names else replace(r, inplace_of=None) for r in here])
            if here
            else 0
        )

    live = {step: live_at(step) for step in range(len(operators) + 1)}
    bound = max(live[step] - (candidates[step][1] if step in candidates else 0) for step in live)
    chosen: list[str] = []
    for index, (aot_op, net) in sorted(candidates.items()):
        if live[index] > bound or not INPLACE_ONLY_ABOVE_BOUND:
            # The step's bytes without its ring: what sharing leaves, the one-row ring given back.
            shared = live[index] - net - (aot_op.inplace_rows_bytes() or 0)
            aot_op.enable_inplace_rows(_row_block(aot_op, shared, bound))
            chosen.append(str(aot_op.op.id))
    return chosen


MAX_ROW_BLOCK = 64
"""The most output rows one in-place kernel call computes (the ring asks no more beyond)."""

FORCE_ROW_BLOCK: int | None = None
"""Tests only: every in-place row loop computes this many rows per call (or the most its
geometry allows below that) whether or not the bound has room, so each block variant runs."""


def _row_block(aot_op: AotOperator, shared: int, bound: int) -> int:
    """Rows per kernel call of an in-place row loop: the largest block whose ring keeps the
    operator's step (``shared`` bytes besides the ring) within the bound the in-place choice
    reaches, so the arena does not grow for it. Each call pays the kernel's per-call work (its
    setup, the filter sums at goal size, a short row's pixel tails) once per block."""
    best = 1
    for block in range(2, (FORCE_ROW_BLOCK or MAX_ROW_BLOCK) + 1):
        ring = aot_op.inplace_rows_bytes(block)
        if ring is None or (FORCE_ROW_BLOCK is None and shared + ring > bound):
            break
        best = block
    return best


def choose_scratch(
    model: AirModel,
    operators: list[AotOperator],
    config: ConvertArgs,
    make_planner: Callable[[], Planner],
) -> tuple[int | None, dict[str, int]]:
    """The memory-aware kernel choice: drop optional scratch buffers that would raise the arena.

    The tensors' own peak (``peak_live`` of every scratch-arena buffer that is not an optional
    kernel buffer) is the bound; a buffer that fits a gap where nothing else is live raises
    nothing and always stays. Which raising buffers may go is the goal's rule (``may_drop``):
    at ``size`` all of them, so ``used`` reaches the bound; at ``balanced`` only those whose
    scratch-free variant costs no instructions, or that the kernel can place in its operator's
    dead bytes (``reusable_scratch``, when that input dies there), so the instruction count
    never rises; at ``latency`` none. A droppable buffer whose operator already has the bound's
    bytes of tensors live goes first (no plan can fit it); then, while the planned arena is
    larger than the plan of the tensors and the buffers that must stay, the droppable buffer at
    the fullest step goes.
    Dropped operators run their scratch-free variant (or, below size, the dead-bytes placement)
    and record why. Returns the bound and the
    dropped bytes by operator id.
    """
    owners: dict[TensorId, tuple[AotOperator, str]] = {}
    first = make_planner()
    partners = set(first.inplace.values())
    reusable: set[TensorId] = set()
    for index, aot_op in enumerate(operators):
        for name in aot_op.optional_scratch:
            tid = aot_op.op.named_tensors[name]
            owners[tid] = (aot_op, name)
            position = aot_op.reusable_scratch.get(name)
            if position is not None and input_dies(first, model, index, aot_op, position, partners):
                reusable.add(tid)
    requests = scratch_requests(first)
    tensors_only = [r for r in requests if TensorId(r.id) not in owners]
    bound = peak_live(tensors_only) if tensors_only else 0
    goal = _goal(config)
    candidates = {t: owner for t, owner in owners.items() if may_drop(goal, *owner, t in reusable)}
    if not candidates:
        return bound, {}

    asked = [r for r in requests if TensorId(r.id) in candidates]
    live_sets = live_by_step(tensors_only, (r.first for r in asked))  # one sweep, not one scan per buffer

    def live_at(step: int) -> int:
        live = live_sets[step]
        ids = {r.id for r in live}
        return peak_live([r if r.inplace_of in ids else replace(r, inplace_of=None) for r in live])

    pressure = {TensorId(r.id): live_at(r.first) + r.size for r in asked}
    dropped: dict[str, int] = {}
    gone: set[TensorId] = set()

    def drop(tid: TensorId) -> None:
        gone.add(tid)
        aot_op, name = candidates.pop(tid)
        nbytes = aot_op.optional_scratch[name]
        dropped[aot_op.op.id] = dropped.get(aot_op.op.id, 0) + nbytes
        # Where the kernel can put the buffer in dead bytes it keeps its fast path; at size the
        # scratch-free variant runs instead (no extra entry linked: the least code).
        if tid in reusable and goal != "size":
            aot_op.reuse_scratch(name, drop_reason(goal, nbytes, True))
        else:
            aot_op.drop_scratch(name, drop_reason(goal, nbytes, False))

    for tid in [t for t, need in pressure.items() if need > bound]:
        drop(tid)
    if candidates:
        planner = make_planner()
        kept = [t for t in map(TensorId, (r.id for r in requests)) if t not in candidates and t not in gone]
        target = planner.layout(kept, planner.budget.order[0]).used
        while candidates:
            planner = make_planner()
            roots = [r for r in planner.roots if planner.role_of(r) == "scratch"]
            if planner.layout(roots, planner.budget.order[0]).used <= target:
                break
            drop(max(candidates, key=lambda t: (pressure[t], str(t))))
    return bound, dropped
