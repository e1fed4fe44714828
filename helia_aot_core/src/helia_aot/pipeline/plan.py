"""Plan: give every tensor a place (arena region + offset) before any C is written.

One arena per (role, memory): scratch arenas share bytes between tensors whose lifetimes do not
meet, persistent arenas keep theirs for the whole run, constant arenas hold the weights. Explicit
``memory.tensors[]`` placements are honoured first; everything else fills the read-write memories
in the budget's order (``memory.constraints`` or the platform's preferred order), and when an
arena does not fit a memory its largest tensors move on to the next one. Constants are read in
place (cold) from non-volatile memory unless a rule stages them: then their bytes are stored in the
source memory and copied at init into an arena of the destination memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.aot.operators.base import SCRATCH_ISAS
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.memory import (
    ArenaPlan,
    BufferRequest,
    alias_roots,
    compute_lifetimes,
    live_by_step,
    peak_live,
)
from helia_aot.pipeline import patch_plan
from helia_aot.pipeline.constant_pool import ConstantPool, tensors_read
from helia_aot.pipeline.memory_rules import (
    READ_ONLY_MEMORIES,
    MemoryBudget,
    TensorPlacement,
    check_rule_memory,
    constant_home,
    memory_budget,
    tensor_placements,
)
from helia_aot.pipeline.patch_plan import PatchStage, adjust_planner, choose_patches
from helia_aot.registry.context import RegistryContext

if TYPE_CHECKING:  # imported by the order search itself, which only goal size runs
    from helia_aot.memory.schedule import ScheduleGraph

ROLES = ("scratch", "persistent", "constant")


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def arena_size(used: int, alignment: int) -> int:
    """Bytes an arena reserves: ``used`` rounded up to its alignment, at least one alignment unit."""
    return max(alignment, _align(used, alignment))


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class ArenaRegion:
    """One arena: a contiguous buffer of one role in one memory.

    A staged constant region (``source_region`` set) is a RAM buffer filled at init with ``used``
    bytes copied from region ``source_region`` starting ``source_offset`` bytes in; its
    ``source_memory`` is where those bytes are stored. ``capacity`` is the cap of ``memory``
    (shared by every region in it).
    """

    id: int
    role: str  # scratch | persistent | constant
    memory: str
    used: int
    alignment: int
    peak_live: int | None = None
    capacity: int | None = None
    planner: str | None = None
    tensor_peak_live: int | None = None
    """Scratch arenas: the peak of the tensors alone (no kernel scratch buffers), the bound the
    memory-aware kernel choice keeps ``used`` at."""
    source_memory: str | None = None
    source_region: int | None = None
    source_offset: int = 0

    @property
    def total_size(self) -> int:
        """Bytes reserved: ``used`` rounded up to the alignment (at least one alignment unit)."""
        return arena_size(self.used, self.alignment)

    @property
    def fragmentation(self) -> float:
        """Share of the arena the planner could not fill at the peak: ``1 - peak_live / used``."""
        if not self.used or self.peak_live is None:
            return 0.0
        return round(1.0 - self.peak_live / self.used, 6)

    @property
    def staged(self) -> bool:
        return self.source_region is not None

    @property
    def bindable(self) -> bool:
        """Whether the buffer is RAM the application may provide (everything but cold constants)."""
        return self.role != "constant" or self.staged

    @property
    def tag(self) -> str:
        """``scratch_dtcm``, ``constant_mram``, ``constant_dtcm_from_mram``: unique in a plan."""
        base = f"{self.role}_{self.memory.lower()}"
        return f"{base}_from_{self.source_memory.lower()}" if self.staged and self.source_memory else base


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class Placement:
    region: int
    offset: int
    size: int


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class OperatorSchedule:
    """Which order the operators run in, and what it saves.

    ``layer_bound`` is the tensors' peak in the model's stored (layer-by-layer) order;
    ``schedule_bound`` the peak in ``order`` (operator ids, as the module runs them). ``method``
    says how the order was found: ``stored`` (the goal does not reorder, or the graph cannot be),
    ``exact`` (every order searched) or ``greedy`` (the stated heuristic of
    :mod:`helia_aot.memory.schedule`).
    """

    order: list[str]
    layer_bound: int
    schedule_bound: int
    method: str
    reordered: bool = False


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class MemoryPlan:
    """Where everything lives: regions, each tensor's placement, and the aliasing used.

    ``constant_blobs`` holds the bytes of each cold constant region (staged bytes included, at
    their regions' ``source_offset``).
    """

    regions: list[ArenaRegion] = field(default_factory=list)
    placements: dict[TensorId, Placement] = field(default_factory=dict)
    alias_of: dict[TensorId, TensorId] = field(default_factory=dict)
    constant_blobs: dict[int, bytes] = field(default_factory=dict)
    dropped_scratch: dict[str, int] = field(default_factory=dict)
    """Operator id -> bytes of the optional kernel scratch the memory-aware choice dropped."""
    schedule: OperatorSchedule | None = None
    inplace_rows: list[str] = field(default_factory=list)
    """Operators (AIR ids) that write their output over their input row by row (goal size)."""
    patches: list[PatchStage] = field(default_factory=list)
    """Stages run band by band in patches (goal size; :mod:`helia_aot.pipeline.patch_plan`)."""
    """The operator order the plan is for and the tensor peaks of the stored and chosen orders."""

    def region(self, role: str) -> ArenaRegion | None:
        return next((r for r in self.regions if r.role == role), None)

    def region_of(self, tensor_id: TensorId) -> ArenaRegion | None:
        placement = self.placements.get(tensor_id)
        return None if placement is None else self.regions[placement.region]


def _alias_map(model: AirModel, operators: list[Any]) -> dict[TensorId, TensorId]:
    """Outputs of byte movers that share their input's storage, mapped to the storage root.

    Only operators a transform marked ``shares_input_storage`` (PRUNE_IDENTITY_OPS) whose class
    allows it (``ALIASES_INPUT``) alias: with the transform off, every copy keeps its own buffer.
    """
    alias: dict[TensorId, TensorId] = {}
    outputs = set(model.outputs)
    for aot_op in operators:
        op = aot_op.op
        if not (aot_op.ALIASES_INPUT and op.shares_input_storage and op.input_ids and op.output_ids):
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


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class _Arena:
    """A planned (role, memory) arena before region ids are assigned."""

    role: str
    memory: str
    used: int
    alignment: int
    offsets: dict[TensorId, int]
    peak_live: int | None = None
    planner: str | None = None


class _Planner:
    """Lays out the read-write arenas of one model against one budget."""

    def __init__(
        self,
        model: AirModel,
        operators: list[Any],
        config: Any,
        budget: MemoryBudget,
        rules: dict[TensorId, TensorPlacement],
        alignment: int,
        plan: MemoryPlan,
        planner: Callable[..., ArenaPlan],
    ) -> None:
        self.model = model
        self.budget = budget
        self.alignment = alignment
        self.planner = planner
        self.planner_name: str = config.memory.planner
        self.options = dict(config.memory.planner_options or {})
        self.plan = plan
        self.arenas: dict[tuple[str, str], _Arena] = {}
        lifetimes = compute_lifetimes(model, alias_of=plan.alias_of)
        order = {tid: i for i, tid in enumerate(model.tensors)}
        end = max(len(model.operators) - 1, 0)
        self.sizes: dict[TensorId, int] = {}
        self.spans: dict[TensorId, tuple[int, int]] = {}
        self.align_of: dict[TensorId, int] = {}
        self.members: dict[TensorId, list[TensorId]] = {}
        for tid, span in lifetimes.items():
            if model.tensors[tid].kind is AirTensorKind.SCRATCH:
                self.spans[tid] = span
                self.members[tid] = [tid]
        for tensor in model.tensors.values():
            if tensor.kind is AirTensorKind.PERSISTENT:
                self.spans[tensor.id] = (0, end)
                self.members[tensor.id] = [tensor.id]
        for dst, root in plan.alias_of.items():
            if root in self.members:
                self.members[root].append(dst)
        self.roots = sorted(self.spans, key=order.__getitem__)
        for root in self.roots:
            tensors = [model.tensors[t] for t in self.members[root]]
            self.sizes[root] = max(t.nbytes for t in tensors)
            wanted = [alignment] + [t.alignment or 1 for t in tensors]
            wanted += [rules[t].alignment or 1 for t in self.members[root] if t in rules]
            self.align_of[root] = max(wanted)
        self.pinned = self._pinned_memory(rules)
        self.grows: set[TensorId] = set()
        self.operators = operators
        self.inplace = self._inplace(operators)
        adjust_planner(self, plan.patches)

    def _pinned_memory(self, rules: dict[TensorId, TensorPlacement]) -> dict[TensorId, str]:
        pinned: dict[TensorId, str] = {}
        for root in self.roots:
            wanted: dict[str, TensorId] = {}
            for t in self.members[root]:
                memory = rules[t].memory if t in rules else None
                if memory:
                    wanted[memory] = t
            if len(wanted) > 1:
                names = ", ".join(f"{t} in {m}" for m, t in wanted.items())
                raise InvalidConfigError(
                    f"memory.tensors places tensors that share one buffer in different memories: {names}",
                    hint="a reshape's output shares its input's bytes; place them in the same memory",
                )
            if wanted:
                pinned[root] = next(iter(wanted))
        return pinned

    def _inplace(self, operators: list[Any]) -> dict[TensorId, TensorId]:
        """Outputs an elementwise operator may write over an input that dies there."""
        inplace: dict[TensorId, TensorId] = {}
        for index, aot_op in enumerate(operators):
            for position in aot_op.INPLACE_INPUTS:
                if position >= len(aot_op.op.input_ids) or not aot_op.op.output_ids:
                    continue
                src = aot_op.op.input_ids[position]
                src = self.plan.alias_of.get(src, src)
                dst = aot_op.op.output_ids[0]
                if (
                    src in self.spans
                    and dst in self.spans
                    and dst not in inplace
                    and self.spans[src][1] == index == self.spans[dst][0]
                    and (self.sizes[dst] <= self.sizes[src] or getattr(aot_op, "INPLACE_GROWS", False))
                    and src not in self.model.inputs
                    and self.model.tensors[src].kind is AirTensorKind.SCRATCH
                ):
                    inplace[dst] = src
                    if self.sizes[dst] > self.sizes[src]:
                        self.grows.add(dst)
        return inplace

    def role_of(self, root: TensorId) -> str:
        return "persistent" if self.model.tensors[root].kind is AirTensorKind.PERSISTENT else "scratch"

    def align(self, root: TensorId, memory: str) -> int:
        """A slot's alignment in ``memory``: the tensor's own, raised to the memory's arena_alignment."""
        return self.budget.alignment(memory, self.align_of[root])

    def layout(self, roots: list[TensorId], memory: str) -> ArenaPlan:
        """Plan one arena in ``memory`` holding ``roots`` with the configured planner."""
        chosen = set(roots)
        requests = [
            BufferRequest(
                id=str(t),
                size=max(self.sizes[t], 1),
                first=self.spans[t][0],
                last=self.spans[t][1],
                alignment=self.align(t, memory),
                inplace_of=str(self.inplace[t]) if self.inplace.get(t) in chosen else None,
                grows=t in self.grows,
            )
            for t in roots
        ]
        return self.planner(requests, seed=0, options=self.options)

    def _size(self, roots: list[TensorId], arena: Any, memory: str) -> int:
        return arena_size(arena.used, max(self.align(t, memory) for t in roots))

    def commit(self, role: str, memory: str, roots: list[TensorId], arena: Any) -> None:
        previous = self.arenas.get((role, memory))
        if previous is not None:
            self.budget.take(memory, -arena_size(previous.used, previous.alignment))
        alignment = max(self.align(t, memory) for t in roots)
        self.arenas[(role, memory)] = _Arena(
            role,
            memory,
            arena.used,
            alignment,
            {t: arena.offsets[str(t)] for t in roots},
            peak_live=arena.peak_live if role == "scratch" else None,
            planner=self.planner_name,
        )
        self.budget.take(memory, arena_size(arena.used, alignment))

    def place_pinned(self) -> None:
        """Explicitly placed tensors first: they reserve their memory before anything is filled."""
        for role in ("scratch", "persistent"):
            groups: dict[str, list[TensorId]] = {}
            for root in self.roots:
                if root in self.pinned and self.role_of(root) == role:
                    groups.setdefault(self.pinned[root], []).append(root)
            for memory, roots in groups.items():
                arena = self.layout(roots, memory)
                if not self.budget.fits(memory, self._size(roots, arena, memory)):
                    raise _no_room(
                        self.model, role, roots, self.sizes, [self.budget.describe(memory)], pinned=True
                    )
                self.commit(role, memory, roots, arena)

    def _fitting_layout(
        self, pinned: list[TensorId], by_size: list[TensorId], room: int | None, memory: str
    ) -> tuple[int, Any]:
        """How many of the largest tensors must move on so the rest fits in ``room``, and the
        layout of the rest (None when nothing auto-placed stays).

        Moving more tensors out never makes the rest larger, so a binary search finds the count;
        a short linear walk covers the planners' rare non-monotone steps.
        """
        layouts: dict[int, Any] = {}

        def fits(moved: int) -> bool:
            keep = pinned + by_size[moved:]
            if not keep:
                return True
            layouts[moved] = self.layout(keep, memory)
            return room is None or self._size(keep, layouts[moved], memory) <= room

        moved = 0
        if not fits(0):
            low, high = 1, len(by_size)
            while low < high:
                mid = (low + high) // 2
                low, high = (low, mid) if fits(mid) else (mid + 1, high)
            moved = low
            while moved < len(by_size) and not fits(moved):
                moved += 1
            fits(moved)
        return moved, layouts.get(moved) if by_size[moved:] else None

    def place_auto(self, role: str) -> None:
        """Fill the budget's memories in order; what does not fit moves on, largest first."""
        remaining = [r for r in self.roots if r not in self.pinned and self.role_of(r) == role]
        tried: list[str] = []
        for memory in self.budget.order:
            if not remaining:
                return
            tried.append(self.budget.describe(memory))
            pinned = [r for r in self.roots if self.pinned.get(r) == memory and self.role_of(r) == role]
            previous = self.arenas.get((role, memory))
            held = arena_size(previous.used, previous.alignment) if previous else 0
            free = self.budget.free(memory)
            by_size = sorted(remaining, key=lambda t: (-self.sizes[t], self.roots.index(t)))
            moved, layout = self._fitting_layout(
                pinned, by_size, None if free is None else free + held, memory
            )
            if layout is not None:
                self.commit(role, memory, pinned + by_size[moved:], layout)
            moved_out = set(by_size[:moved])
            remaining = [r for r in remaining if r in moved_out]
        if remaining:
            raise _no_room(self.model, role, remaining, self.sizes, tried, pinned=False)


def _no_room(
    model: AirModel,
    role: str,
    roots: list[TensorId],
    sizes: dict[TensorId, int],
    tried: list[str],
    *,
    pinned: bool,
) -> UnsupportedModelError:
    listed = sorted(roots, key=lambda t: -sizes[t])
    names = ", ".join(f"{t} {model.tensors[t].name} ({sizes[t]} B)" for t in listed[:8])
    more = f" and {len(listed) - 8} more" if len(listed) > 8 else ""
    what = "placed by memory.tensors " if pinned else ""
    return UnsupportedModelError(
        f"model {model.name!r} does not fit: {len(listed)} {role} tensor(s) {what}found no room "
        f"({sum(sizes[t] for t in listed)} B): {names}{more}; tried {', '.join(tried) or 'no memory'}",
        hint="raise the caps in memory.constraints, list another memory there, move tensors with "
        "memory.tensors, or choose a platform with more RAM",
        details={"role": role, "tensors": [str(t) for t in listed], "tried": tried},
    )


def _memory_rank(budget: MemoryBudget) -> dict[str, int]:
    rank = {m: i for i, m in enumerate(budget.order)}
    for m in [*READ_ONLY_MEMORIES, *sorted(budget.caps)]:
        rank.setdefault(m, len(rank))
    return rank


def _may_drop(goal: str, aot_op: Any, name: str, reusable: bool) -> bool:
    """Whether ``goal`` lets the memory-aware choice give up ``aot_op``'s buffer ``name``.

    ``latency`` keeps every fast path's buffer; ``size`` drops any buffer that would raise the
    arena (memory first); ``balanced`` and ``accuracy`` drop only a buffer whose scratch-free
    variant runs the same instructions on every instruction set, or that the kernel can place
    in the operator's own dead bytes (``reusable``), so no core's count can rise.
    """
    if goal == "size":
        return True
    if goal in ("balanced", "accuracy"):
        free_on = getattr(aot_op, "scratch_free_on", {}).get(name, frozenset())
        return reusable or SCRATCH_ISAS <= set(free_on)
    return False


def _drop_reason(goal: str, nbytes: int, reused: bool) -> str:
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


def _input_dies(
    planner: _Planner, model: AirModel, index: int, aot_op: Any, position: int, partners: set[TensorId]
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


def _scratch_requests(planner: _Planner) -> list[BufferRequest]:
    """The scratch-role buffers as one arena in the first memory would request them."""
    memory = planner.budget.order[0]
    roots = [r for r in planner.roots if planner.role_of(r) == "scratch"]
    root_set = set(roots)  # once: a set per request made this quadratic in the tensors
    return [
        BufferRequest(
            id=str(t),
            size=max(planner.sizes[t], 1),
            first=planner.spans[t][0],
            last=planner.spans[t][1],
            alignment=planner.align(t, memory),
            inplace_of=str(planner.inplace[t]) if planner.inplace.get(t) in root_set else None,
            grows=t in planner.grows,
        )
        for t in roots
    ]


def _goal(config: Any) -> str:
    return str(getattr(getattr(config.optimization, "goal", None), "value", "balanced"))


def _optional_scratch_ids(operators: list[Any]) -> set[TensorId]:
    return {
        aot_op.op.named_tensors[name]
        for aot_op in operators
        for name in getattr(aot_op, "optional_scratch", {})
    }


def tensor_bound(operators: list[Any], make_planner: Callable[[], _Planner]) -> int:
    """The tensors' peak in the current order: every scratch buffer but optional kernel scratch."""
    owners = _optional_scratch_ids(operators)
    tensors_only = [r for r in _scratch_requests(make_planner()) if TensorId(r.id) not in owners]
    return peak_live(tensors_only) if tensors_only else 0


def schedule_graph(
    model: AirModel, operators: list[Any], alias_of: dict[TensorId, TensorId]
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
    operators: list[Any],
    config: Any,
    make_planner: Callable[[], _Planner],
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
    operators: list[Any],
    config: Any,
    make_planner: Callable[[], _Planner],
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
        return [r for r in _scratch_requests(make_planner()) if TensorId(r.id) not in optional]

    before = tensor_bound(operators, make_planner)
    stages = choose_patches(model, operators, plan.alias_of, requests)
    if not stages:
        return []
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
    operators: list[Any],
    config: Any,
    alias_of: dict[TensorId, TensorId],
    make_planner: Callable[[], _Planner],
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
    requests = [r for r in _scratch_requests(make_planner()) if TensorId(r.id) not in optional]

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


def _row_block(aot_op: Any, shared: int, bound: int) -> int:
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
    operators: list[Any],
    config: Any,
    make_planner: Callable[[], _Planner],
) -> tuple[int | None, dict[str, int]]:
    """The memory-aware kernel choice: drop optional scratch buffers that would raise the arena.

    The tensors' own peak (``peak_live`` of every scratch-arena buffer that is not an optional
    kernel buffer) is the bound; a buffer that fits a gap where nothing else is live raises
    nothing and always stays. Which raising buffers may go is the goal's rule (``_may_drop``):
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
    owners: dict[TensorId, tuple[Any, str]] = {}
    first = make_planner()
    partners = set(first.inplace.values())
    reusable: set[TensorId] = set()
    for index, aot_op in enumerate(operators):
        for name in getattr(aot_op, "optional_scratch", {}):
            tid = aot_op.op.named_tensors[name]
            owners[tid] = (aot_op, name)
            position = getattr(aot_op, "reusable_scratch", {}).get(name)
            if position is not None and _input_dies(first, model, index, aot_op, position, partners):
                reusable.add(tid)
    requests = _scratch_requests(first)
    tensors_only = [r for r in requests if TensorId(r.id) not in owners]
    bound = peak_live(tensors_only) if tensors_only else 0
    goal = str(getattr(getattr(config.optimization, "goal", None), "value", "balanced"))
    candidates = {t: owner for t, owner in owners.items() if _may_drop(goal, *owner, t in reusable)}
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
            aot_op.reuse_scratch(name, _drop_reason(goal, nbytes, True))
        else:
            aot_op.drop_scratch(name, _drop_reason(goal, nbytes, False))

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


def plan_memory(
    model: AirModel, operators: list[Any], platform: Any, config: Any, context: RegistryContext
) -> MemoryPlan:
    """Place every tensor of ``model`` (after Resolve) and return the plan.

    The planner is the one ``config.memory.planner`` names in ``context.memory_planners``.
    """
    memory_cfg = config.memory
    alignment = max(int(getattr(platform, "alignment", 16) or 16), 8)
    budget = memory_budget(platform, memory_cfg.constraints)
    rules = tensor_placements(model, memory_cfg.tensors)
    for tid, rule in rules.items():
        check_rule_memory(rule, model.tensors[tid].kind, budget, platform)
    plan = MemoryPlan(alias_of=_alias_map(model, operators))
    _, run_planner = context.memory_planners.select(config.memory.planner, setting="memory.planner")

    def make_planner() -> _Planner:
        fresh = memory_budget(platform, memory_cfg.constraints)
        return _Planner(model, operators, config, fresh, rules, alignment, plan, run_planner)

    plan.schedule = choose_schedule(model, operators, config, make_planner, plan.alias_of)
    plan.patches = choose_patch_stages(model, operators, config, make_planner, plan)
    plan.inplace_rows = choose_inplace_rows(model, operators, config, plan.alias_of, make_planner)
    tensor_peak, plan.dropped_scratch = choose_scratch(model, operators, config, make_planner)

    read = tensors_read(model, operators)  # once: asking per tensor made Plan quadratic in layers
    constants = [t for t in model.tensors.values() if t.kind is AirTensorKind.CONSTANT and t.id in read]
    pool = ConstantPool(
        model, constants, rules, constant_home(platform, budget), alignment, budget.alignments
    )
    pool.reserve(budget)

    planner = _Planner(model, operators, config, budget, rules, alignment, plan, run_planner)
    planner.place_pinned()
    planner.place_auto("scratch")
    planner.place_auto("persistent")

    rank = _memory_rank(budget)
    for role in ("scratch", "persistent"):
        for (arena_role, memory), arena in sorted(planner.arenas.items(), key=lambda kv: rank[kv[0][1]]):
            if arena_role != role:
                continue
            region = ArenaRegion(
                len(plan.regions),
                role,
                memory,
                arena.used,
                arena.alignment,
                peak_live=arena.peak_live,
                capacity=budget.caps.get(memory),
                planner=arena.planner,
                tensor_peak_live=tensor_peak if role == "scratch" else None,
            )
            plan.regions.append(region)
            for root, offset in arena.offsets.items():
                for tid in planner.members[root]:
                    plan.placements[tid] = Placement(region.id, offset, model.tensors[tid].nbytes)
            # A patch stage's intermediates live in its patch buffer, a band's rows at a time.
            for stage in plan.patches:
                buffer = plan.placements.get(stage.buffer_id) if stage.buffer_id else None
                if buffer is None or buffer.region != region.id:
                    continue
                for tid, (offset, nbytes) in zip(stage.intermediates, stage.slots, strict=True):
                    plan.placements[tid] = Placement(region.id, buffer.offset + offset, nbytes)
    cold_ids: dict[str, int] = {}
    for constant_arena in pool.arenas(rank):
        region = ArenaRegion(
            len(plan.regions),
            "constant",
            constant_arena.memory,
            constant_arena.used,
            constant_arena.alignment,
            capacity=budget.caps.get(constant_arena.memory),
            source_memory=constant_arena.source_memory,
            source_offset=constant_arena.source_offset,
        )
        if constant_arena.source_memory is None:
            cold_ids[constant_arena.memory] = region.id
            plan.constant_blobs[region.id] = constant_arena.blob or b""
        else:
            region.source_region = cold_ids[constant_arena.source_memory]
        plan.regions.append(region)
        for tid, offset in constant_arena.offsets.items():
            plan.placements[tid] = Placement(region.id, offset, model.tensors[tid].nbytes)
    return plan


__all__ = [
    "ROLES",
    "ArenaRegion",
    "MemoryPlan",
    "OperatorSchedule",
    "Placement",
    "arena_size",
    "choose_schedule",
    "plan_memory",
]
