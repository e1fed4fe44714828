"""The arena planner: lays out the read-write arenas (scratch, persistent) of one model against one
memory budget, with the configured buffer planner, filling memories in the budget's order and moving
the largest tensors on when an arena does not fit. Plan (``pipeline/plan.py``) runs it once per
choice it weighs (``pipeline/plan_choices.py``) and once for the final layout."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.aot.operators.base import AotOperator
from helia_aot.config.args import ConvertArgs
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.memory import ArenaPlan, BufferRequest, compute_lifetimes
from helia_aot.pipeline.memory_rules import READ_ONLY_MEMORIES, MemoryBudget, TensorPlacement
from helia_aot.pipeline.patch_plan import adjust_planner
from helia_aot.pipeline.plan_records import MemoryPlan, arena_size


def alias_map(
    model: AirModel, operators: list[AotOperator], *, bound: frozenset[TensorId] = frozenset()
) -> dict[TensorId, TensorId]:
    """Outputs of byte movers that share their input's storage, mapped to the storage root.

    Only operators a transform marked ``shares_input_storage`` (PRUNE_IDENTITY_OPS) whose class
    allows it (``ALIASES_INPUT``) alias: with the transform off, every copy keeps its own buffer.
    Nothing aliases a ``bound`` input (``memory.bind_inputs``): its bytes are the caller's, known
    only at run time.
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
        if root in bound:
            continue
        # Two model I/O tensors must stay distinct buffers: the caller owns both pointers.
        if (root in model.inputs or root in outputs) and dst in outputs:
            continue
        alias[dst] = root
    return alias


def bound_inputs(model: AirModel, config: ConvertArgs) -> frozenset[TensorId]:
    """The model inputs that live in the caller's buffers (``memory.bind_inputs``), not an arena."""
    if not config.memory.bind_inputs:
        return frozenset()
    return frozenset(t for t in model.inputs if model.tensors[t].kind is AirTensorKind.SCRATCH)


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


class Planner:
    """Lays out the read-write arenas of one model against one budget."""

    def __init__(
        self,
        model: AirModel,
        operators: list[AotOperator],
        config: ConvertArgs,
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
        # Model inputs the caller binds (memory.bind_inputs) live in its buffers, not in an arena.
        self.bound_inputs = bound_inputs(model, config)
        # At goal size the caller writes every input before every run, so an input's bytes are
        # free once its last reader has read them: an elementwise operator may write over them.
        self.inputs_consumed = str(config.optimization.goal) == "size" and not self.bound_inputs
        for tid, span in lifetimes.items():
            if tid in self.bound_inputs:
                continue
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

    def _inplace(self, operators: list[AotOperator]) -> dict[TensorId, TensorId]:
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
                    and (self.sizes[dst] <= self.sizes[src] or aot_op.INPLACE_GROWS)
                    and (src not in self.model.inputs or self.inputs_consumed)
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

    def requests(self, roots: list[TensorId], memory: str) -> list[BufferRequest]:
        """What one arena in ``memory`` holding ``roots`` asks of a planner: a buffer per root,
        in place of its source only when that source is in the same arena."""
        chosen = set(roots)  # once: a set per request made this quadratic in the tensors
        return [
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

    def layout(self, roots: list[TensorId], memory: str) -> ArenaPlan:
        """Plan one arena in ``memory`` holding ``roots`` with the configured planner."""
        return self.planner(self.requests(roots, memory), seed=0, options=self.options)

    def _size(self, roots: list[TensorId], arena: ArenaPlan, memory: str) -> int:
        return arena_size(arena.used, max(self.align(t, memory) for t in roots))

    def commit(self, role: str, memory: str, roots: list[TensorId], arena: ArenaPlan) -> None:
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
    ) -> tuple[int, ArenaPlan | None]:
        """How many of the largest tensors must move on so the rest fits in ``room``, and the
        layout of the rest (None when nothing auto-placed stays).

        Moving more tensors out never makes the rest larger, so a binary search finds the count;
        a short linear walk covers the planners' rare non-monotone steps.
        """
        layouts: dict[int, ArenaPlan] = {}

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


def memory_rank(budget: MemoryBudget) -> dict[str, int]:
    rank = {m: i for i, m in enumerate(budget.order)}
    for m in [*READ_ONLY_MEMORIES, *sorted(budget.caps)]:
        rank.setdefault(m, len(rank))
    return rank


def scratch_requests(planner: Planner) -> list[BufferRequest]:
    """The scratch-role buffers as one arena in the first memory would request them."""
    memory = planner.budget.order[0]
    roots = [r for r in planner.roots if planner.role_of(r) == "scratch"]
    return planner.requests(roots, memory)
