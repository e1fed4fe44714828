"""The arena planner: lays out the read-write arenas (scratch, persistent) of one model against one
memory budget, with the configured buffer planner, filling memories in the budget's order; when
the tensors do not fit the first memory they spill by the layout :func:`choose_spill` keeps (the
largest moving on memory by memory, or one offset space cut into the memories,
:mod:`helia_aot.memory.segments`, the fastest one holding the tensors read most per byte). Plan
(``pipeline/plan.py``) runs it once per choice it weighs (``pipeline/plan_choices.py``) and once
for the final layout (three times when the scratch spills: beside the constants placed first, and
with the constants read less per byte leaving it the fast memories)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.aot.operators.base import AotOperator
from helia_aot.config.args import ConvertArgs
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.memory import ArenaPlan, BufferRequest, Placer, compute_lifetimes, peak_live
from helia_aot.pipeline.memory_rules import READ_ONLY_MEMORIES, MemoryBudget, TensorPlacement
from helia_aot.pipeline.patch_plan import adjust_planner
from helia_aot.pipeline.plan_records import MemoryPlan, arena_size


def alias_map(
    model: AirModel, operators: list[AotOperator], *, bound: frozenset[TensorId] = frozenset()
) -> dict[TensorId, TensorId]:
    """Outputs of byte movers that share their input's storage, mapped to the storage root.

    Only operators a transform marked ``shares_input_storage`` (PRUNE_IDENTITY_OPS) whose class
    allows it (``ALIASES_INPUT``) alias: with the transform off, every copy keeps its own buffer.
    Nothing aliases a ``bound`` input or output (``memory.bind_inputs``, ``memory.bind_outputs``):
    its bytes are the caller's, known only at run time.
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
        if root in bound or dst in bound:
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


def bound_outputs(model: AirModel, config: ConvertArgs) -> frozenset[TensorId]:
    """The model outputs written into the caller's buffers (``memory.bind_outputs``), not an
    arena: every scratch output that is not also a model input."""
    if not config.memory.bind_outputs:
        return frozenset()
    inputs = set(model.inputs)
    return frozenset(
        t for t in model.outputs if model.tensors[t].kind is AirTensorKind.SCRATCH and t not in inputs
    )


def bound_tensors(model: AirModel, config: ConvertArgs) -> frozenset[TensorId]:
    """Every model input and output the caller's buffers hold (see the two above)."""
    return bound_inputs(model, config) | bound_outputs(model, config)


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
        # Model inputs and outputs the caller binds (memory.bind_inputs, memory.bind_outputs) live
        # in its buffers, not in an arena.
        self.bound_inputs = bound_inputs(model, config)
        self.bound = self.bound_inputs | bound_outputs(model, config)
        # At goal size the caller writes every input before every run, so an input's bytes are
        # free once its last reader has read them: an elementwise operator may write over them.
        self.inputs_consumed = str(config.optimization.goal) == "size" and not self.bound_inputs
        for tid, span in lifetimes.items():
            if tid in self.bound:
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
        self.latency = str(getattr(config.optimization.goal, "value", config.optimization.goal)) == "latency"
        self.access_cost: Callable[[str, int], int] | None = None
        """Wait cycles of accessing ``nbytes`` in a memory (Plan sets it from the platform)."""
        self.inplace = self._inplace(operators)
        self.over_bound: dict[str, tuple[int, int] | None] = {}
        """Per role, when goal latency kept a spilled layout above :data:`SPILL_SLACK` of the
        fewest bytes: the bytes it takes above that bound and the modeled wait
        cycles it saves against that layout (:func:`over_bound`)."""
        self.simplest_wait: dict[str, int | None] = {}
        """Per role, the modeled wait cycles of the layout filling each memory in turn (None: it
        does not fit): the report's baseline for the read-write tensors."""
        self.simplest_bytes: dict[str, int | None] = {}
        """Per role, the bytes of that layout's regions in all (None: it does not fit)."""
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
        """Place the tensors no rule placed, in the budget's memories, and commit their arenas.

        When they all fit the first memory that is the whole plan. When they spill, the layouts
        of :meth:`_spill_largest` (each memory filled in turn, its largest tensors moving on) and
        :meth:`_shared_space` (every memory a segment of one offset space) are weighed by
        :func:`choose_spill`: the fewest bytes in all, or at goal latency the fewest wait cycles.
        """
        remaining = [r for r in self.roots if r not in self.pinned and self.role_of(r) == role]
        if not remaining:
            return
        chosen, left, tried = self._spill_largest(role, remaining)
        self.simplest_wait[role] = None if left else self._wait_cycles(chosen)
        self.simplest_bytes[role] = None if left else self._total(chosen)
        if left or len([m for m, roots, _ in chosen if set(roots) & set(remaining)]) > 1:
            candidates = ([] if left else [chosen]) + self._shared_space(role, remaining)
            if candidates:
                chosen, left = choose_spill(candidates, self._total, self._wait_cycles, self.latency), []
                self.over_bound[role] = over_bound(candidates, chosen, self._total, self._wait_cycles)
        if left:
            raise _no_room(self.model, role, left, self.sizes, tried, pinned=False)
        for memory, roots, layout in chosen:
            self.commit(role, memory, roots, layout)

    def _wait_cycles(self, layouts: list[tuple[str, list[TensorId], ArenaPlan]]) -> int:
        """Modeled wait cycles of the accesses one inference makes to these arenas' tensors."""
        if self.access_cost is None:
            return 0
        return sum(
            self.access_cost(
                memory, sum(self.plan.accessed.get(t, 0) for r in roots for t in self.members[r])
            )
            for memory, roots, _ in layouts
        )

    def _room(self, role: str, memory: str) -> int | None:
        """Bytes an arena of ``role`` may take in ``memory``: what is free plus what it holds."""
        previous = self.arenas.get((role, memory))
        held = arena_size(previous.used, previous.alignment) if previous else 0
        free = self.budget.free(memory)
        return None if free is None else free + held

    def _pinned_in(self, role: str, memory: str) -> list[TensorId]:
        return [r for r in self.roots if self.pinned.get(r) == memory and self.role_of(r) == role]

    def _total(self, layouts: list[tuple[str, list[TensorId], ArenaPlan]]) -> int:
        return sum(self._size(roots, layout, memory) for memory, roots, layout in layouts)

    def _spill_largest(
        self, role: str, remaining: list[TensorId]
    ) -> tuple[list[tuple[str, list[TensorId], ArenaPlan]], list[TensorId], list[str]]:
        """Fill the budget's memories in order; what does not fit moves on, largest first.

        Returns the arenas (memory, roots, layout), the tensors no memory took and the memories
        tried, committing nothing."""
        tried: list[str] = []
        chosen: list[tuple[str, list[TensorId], ArenaPlan]] = []
        for memory in self.budget.order:
            if not remaining:
                break
            tried.append(self.budget.describe(memory))
            pinned = self._pinned_in(role, memory)
            by_size = sorted(remaining, key=lambda t: (-self.sizes[t], self.roots.index(t)))
            moved, layout = self._fitting_layout(pinned, by_size, self._room(role, memory), memory)
            if layout is not None:
                chosen.append((memory, pinned + by_size[moved:], layout))
            moved_out = set(by_size[:moved])
            remaining = [r for r in remaining if r in moved_out]
        return chosen, remaining, tried

    def _shared_space(
        self, role: str, remaining: list[TensorId]
    ) -> list[list[tuple[str, list[TensorId], ArenaPlan]]]:
        """Every memory of the budget as one segment of a shared offset space (module
        :mod:`helia_aot.memory.segments`): the layouts this gives (:meth:`_space`), none when the
        tensors do not fit. Tensors a rule placed stay in their memory's segment."""
        memories = list(self.budget.order)
        rooms = [self._room(role, m) for m in memories]
        if None in rooms:  # a memory of no known cap ends the space: nothing after it is needed
            memories, rooms = memories[: rooms.index(None) + 1], rooms[: rooms.index(None) + 1]
        pinned = {r: memories.index(m) for m in memories for r in self._pinned_in(role, m)}
        roots = [r for r in self.roots if r in pinned] + remaining
        return self._space(roots, memories, rooms, pinned)

    def _space(
        self, roots: list[TensorId], memories: list[str], rooms: list[int | None], pinned: dict[TensorId, int]
    ) -> list[Layouts]:
        """The layouts of ``roots`` in ``memories`` (``rooms`` bytes free in each; ``pinned``
        roots -> the index of their memory) as segments of one offset space.

        The configured planner lays all the tensors out in one arena, as if one memory held them.
        That layout is cut into the memories two ways: at each memory's free bytes (a tensor that
        would straddle a cut moves up to the next memory), and at the highest offsets no tensor
        straddles that each memory's free bytes reach, which keeps the one arena's size in all.
        A third way gives the first memory the tensors read most per byte (:meth:`_hot_first`)
        and lays the rest out in the next memories the same ways. Each memory's tensors are then
        planned again on their own, and that layout kept where it is smaller.
        """
        if len(memories) == 1:
            layout = self.layout(roots, memories[0])
            room = rooms[0]
            fits = room is None or self._size(roots, layout, memories[0]) <= room
            return [[(memories[0], roots, layout)]] if fits else []
        chosen_set = set(roots)
        widest = {r: max(self.align(r, m) for m in memories) for r in roots}
        requests = [
            BufferRequest(
                id=str(t),
                size=max(self.sizes[t], 1),
                first=self.spans[t][0],
                last=self.spans[t][1],
                alignment=widest[t],
                inplace_of=str(self.inplace[t]) if self.inplace.get(t) in chosen_set else None,
                grows=t in self.grows,
            )
            for t in roots
        ]
        together = self.planner(requests, seed=0, options=self.options)
        at = [together.offsets[r.id] for r in requests]
        order = sorted(range(len(roots)), key=lambda i: (roots[i] not in pinned, at[i], i))
        allowed = {i: pinned[r] for i, r in enumerate(roots) if r in pinned}
        alignment = max(widest.values())
        found = []
        # Imported here: only scratch that spills past its first memory is laid out in segments.
        from helia_aot.memory.segments import place_in_segments, segment_starts

        placed = place_in_segments(Placer(requests), order, rooms, allowed)
        if placed is not None:
            found.append(self._segment_layouts(memories, roots, placed, segment_starts(rooms, alignment)))
        caps = _clean_caps(rooms, at, [r.size for r in requests], alignment)
        if caps is not None:
            starts = segment_starts(caps, alignment)
            segment = [max(k for k, start in enumerate(starts) if start <= a) for a in at]
            if all(segment[i] == k for i, k in allowed.items()):
                found.append(self._segment_layouts(memories, roots, (at, segment), starts))
        for first in self._hot_first(requests, roots, rooms[0], allowed):
            held = [roots[i] for i in first[0]]
            local = (first[1], [0] * len(first[1]))
            head = self._segment_layouts(memories[:1], held, local, [0])
            taken = set(held)
            rest = [r for r in roots if r not in taken]
            if not rest:
                found.append(head)
                continue
            later = {r: k - 1 for r, k in pinned.items() if k > 0}
            found += [head + tail for tail in self._space(rest, memories[1:], rooms[1:], later)]
        return found

    def _hot_first(
        self, requests: list[BufferRequest], roots: list[TensorId], room: int | None, allowed: dict[int, int]
    ) -> list[tuple[list[int], list[int]]]:
        """Splits that give the first memory (``room`` bytes free) the tensors read most per byte
        (:func:`helia_aot.memory.segments.hot_first`) within :data:`SPILL_SLACK` of the tensors'
        peak: the request indices it holds and their offsets there. Two: the one that keeps the
        most accessed bytes there, and the one that moves nothing of the peak there. None without a
        cycle model (the planner's trial plans) or a cap."""
        from helia_aot.memory.segments import hot_first

        if self.access_cost is None or room is None:
            return []
        placer = Placer(requests)
        heat = [
            sum(self.plan.accessed.get(t, 0) for t in self.members[r]) / max(self.sizes[r], 1) for r in roots
        ]
        peak = peak_live(requests)
        budget = int(peak * SPILL_SLACK)
        # The first memory's bytes count in full against the budget: from only what the budget
        # leaves above the peak (nothing of the peak need move there) to the whole memory (the
        # most of the peak must); between them even steps and the rooms that hold the peak's
        # largest tensors and no more.
        low, high = min(room, budget - peak), room
        tried = {low + (high - low) * step // _SPLITS for step in range(_SPLITS + 1)}
        held = 0
        for size in _sizes_at_peak(requests):
            held += size
            if low + held > high:
                break
            tried.add(low + held)
        accessed = [heat[i] * requests[i].size for i in range(len(requests))]
        splits = {}
        for size in sorted(tried):
            chosen = hot_first(placer, heat, size, budget, allowed)
            if chosen is not None:
                splits[size] = (sum(accessed[i] for i in chosen[0]), chosen[0])
        if not splits:
            return []
        best = max(splits, key=lambda size: (splits[size][0], -size))
        result = []
        for size in sorted({best, min(splits)}):
            first = splits[size][1]
            offsets = placer.place(first)[0]
            result.append((first, [offsets[i] for i in first]))
        return result

    def _segment_layouts(
        self,
        memories: list[str],
        roots: list[TensorId],
        placed: tuple[list[int], list[int]],
        starts: list[int],
    ) -> list[tuple[str, list[TensorId], ArenaPlan]]:
        """Each memory's arena from a shared-space placement: its tensors at their offsets less
        the segment's start, or the configured planner's layout of them where that is smaller."""
        offsets, segment = placed
        layouts: list[tuple[str, list[TensorId], ArenaPlan]] = []
        for k, memory in enumerate(memories):
            held = [r for i, r in enumerate(roots) if segment[i] == k]
            if not held:
                continue
            own = self.layout(held, memory)
            local = {str(r): offsets[i] - starts[k] for i, r in enumerate(roots) if segment[i] == k}
            used = max(local[str(r)] + self.sizes[r] for r in held)
            if self._size(held, own, memory) > arena_size(used, max(self.align(r, memory) for r in held)):
                own = ArenaPlan(local, used, peak_live(self.requests(held, memory)), own.planner)
            layouts.append((memory, held, own))
        return layouts


def _sizes_at_peak(requests: list[BufferRequest]) -> list[int]:
    """Sizes of the buffers live where the most bytes are (the first such operator), largest first."""
    delta: dict[int, int] = {}
    for b in requests:
        delta[b.first] = delta.get(b.first, 0) + b.size
        delta[b.last + 1] = delta.get(b.last + 1, 0) - b.size
    live, best, step = 0, -1, 0
    for t in sorted(delta):
        live += delta[t]
        if live > best:
            best, step = live, t
    return sorted((b.size for b in requests if b.first <= step <= b.last), reverse=True)


def _clean_caps(
    rooms: list[int | None], offsets: list[int], sizes: list[int], alignment: int
) -> list[int | None] | None:
    """Segment sizes that cut a one-arena layout only where no buffer straddles the cut: each
    memory takes up to the highest such offset its free bytes reach (``None``: no limit), or None
    when the memories do not reach the layout's end. A segment of zero bytes holds nothing."""
    inside: list[tuple[int, int]] = sorted(zip(offsets, (o + s for o, s in zip(offsets, sizes))))
    points = sorted({0, *(o for o, _ in inside), *(e for _, e in inside)})
    clean, reach, k = [], 0, 0
    for p in points:
        while k < len(inside) and inside[k][0] < p:
            reach = max(reach, inside[k][1])
            k += 1
        if reach <= p and p % alignment == 0:
            clean.append(p)
    caps: list[int | None] = []
    start, end = 0, max(points)
    for room in rooms:
        if room is None or start >= end:
            caps.append(room)
            continue
        cut = max(c for c in clean if c <= start + room)
        caps.append(cut - start)
        start = cut
    return caps if start >= end or rooms[-1] is None else None


_SPLITS = 8
"""How many steps :meth:`Planner._hot_first` tries between the least and the whole first memory."""

SPILL_SLACK = 1.02
"""How far above the smallest spilled layout a faster one may be and still be chosen."""

Layouts = list[tuple[str, list[TensorId], ArenaPlan]]


LATENCY_CYCLES_PER_BYTE = 32
"""At goal latency, the modeled wait cycles one inference must save for each byte a spilled layout
takes above :data:`SPILL_SLACK` of the fewest bytes: the exchange rate of memory for time."""


def choose_spill(
    candidates: list[Layouts],
    total: Callable[[Layouts], int],
    wait: Callable[[Layouts], int],
    latency: bool,
) -> Layouts:
    """The layout kept when tensors spill from the first memory.

    At goals balanced and size, the one with the fewest wait cycles among those within
    :data:`SPILL_SLACK` of the fewest bytes in all, so the regions add up to at most 1.02x what
    the best layout needs. At goal latency a larger one may win, when it saves at least
    :data:`LATENCY_CYCLES_PER_BYTE` wait cycles for each byte above that bound (the fewest of
    wait cycles plus that price of the bytes above it). Ties keep the earlier candidate.
    """
    least = min(total(c) for c in candidates)
    near = [c for c in candidates if total(c) <= least * SPILL_SLACK]
    if not latency:
        return min(near, key=wait)
    return min(candidates, key=lambda c: spill_score(wait(c), total(c), least))


def spill_score(wait: int, total: int, least: int) -> int:
    """What goal latency minimizes over spilled layouts: the modeled wait cycles plus
    :data:`LATENCY_CYCLES_PER_BYTE` per byte above :data:`SPILL_SLACK` of the fewest bytes."""
    return wait + LATENCY_CYCLES_PER_BYTE * max(0, total - int(least * SPILL_SLACK))


def over_bound(
    candidates: list[Layouts],
    chosen: Layouts,
    total: Callable[[Layouts], int],
    wait: Callable[[Layouts], int],
) -> tuple[int, int] | None:
    """When ``chosen`` is above :data:`SPILL_SLACK` of the fewest bytes: its bytes above that bound
    and the modeled wait cycles it saves against the best layout within it; else None."""
    least = min(total(c) for c in candidates)
    if total(chosen) <= least * SPILL_SLACK:
        return None
    best = min((c for c in candidates if total(c) <= least * SPILL_SLACK), key=wait)
    return total(chosen) - int(least * SPILL_SLACK), wait(best) - wait(chosen)


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
