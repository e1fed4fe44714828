"""Plan: give every tensor a place (arena region + offset) before any C is written.

One arena per (role, memory): scratch arenas share bytes between tensors whose lifetimes do not
meet, persistent arenas keep theirs for the whole run, constant arenas hold the weights. Explicit
``memory.tensors[]`` placements are honoured first; everything else fills the read-write memories
in the budget's order (``memory.constraints`` or the platform's preferred order); tensors that
do not fit the first memory spill so the regions add up to about their peak (``arena_planner``,
``memory/segments.py``). Constants are placed
before the arenas: each is read in place (cold) from the first memory of the constant order that
holds it (DTCM first on an Apollo, as heliaAOT 1.1 does), those read most per byte first, unless a
rule places it or stages it (its bytes stored in the source memory and copied at init into an
arena of the destination memory). The arenas share what the constants leave; when the scratch
spills from the first memory, the plan is made again with the constants read less per byte than
the scratch leaving it the fast memories (:func:`yield_claims`), and the placement modeled to pay
the fewest wait cycles is kept.
"""

from __future__ import annotations

from collections.abc import Callable

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.aot.operators.base import AotOperator
from helia_aot.config.args import ConvertArgs
from helia_aot.memory import peak_live
from helia_aot.pipeline.access_cost import bytes_accessed, wait_cycles
from helia_aot.pipeline.arena_planner import (
    Planner,
    alias_map,
    bound_tensors,
    memory_rank,
    scratch_requests,
    spill_score,
)
from helia_aot.pipeline.constant_pool import ConstantPool, FillOrder, tensors_read
from helia_aot.pipeline.memory_rules import (
    MemoryBudget,
    check_rule_memory,
    constant_home,
    constant_order,
    memory_budget,
    tensor_placements,
)
from helia_aot.pipeline.plan_choices import (
    choose_inplace_rows,
    choose_patch_stages,
    choose_schedule,
    choose_scratch,
)
from helia_aot.pipeline.plan_records import ArenaRegion, MemoryPlan, Placement, arena_size
from helia_aot.platforms.model import SocPlatform
from helia_aot.registry.context import RegistryContext


def plan_memory(
    model: AirModel,
    operators: list[AotOperator],
    platform: SocPlatform,
    config: ConvertArgs,
    context: RegistryContext,
) -> MemoryPlan:
    """Place every tensor of ``model`` (after Resolve) and return the plan.

    The planner is the one ``config.memory.planner`` names in ``context.memory_planners``.
    """
    memory_cfg = config.memory
    alignment = max(platform.alignment, 8)

    def memory_budget_now() -> MemoryBudget:
        return shared_budget(memory_budget(platform, memory_cfg.constraints), config)

    budget = memory_budget_now()
    rules = tensor_placements(model, memory_cfg.tensors)
    for tid, rule in rules.items():
        check_rule_memory(rule, model.tensors[tid].kind, budget, platform)
    plan = MemoryPlan(alias_of=alias_map(model, operators, bound=bound_tensors(model, config)))
    _, run_planner = context.memory_planners.select(config.memory.planner, setting="memory.planner")

    def make_planner() -> Planner:
        fresh = memory_budget_now()
        return Planner(model, operators, config, fresh, rules, alignment, plan, run_planner)

    plan.schedule = choose_schedule(model, operators, config, make_planner, plan.alias_of)
    plan.patches = choose_patch_stages(model, operators, config, make_planner, plan)
    plan.inplace_rows = choose_inplace_rows(model, operators, config, plan.alias_of, make_planner)
    tensor_peak, plan.dropped_scratch = choose_scratch(model, operators, config, make_planner)

    read = tensors_read(model, operators)  # once: asking per tensor made Plan quadratic in layers
    constants = [t for t in model.tensors.values() if t.kind is AirTensorKind.CONSTANT and t.id in read]
    # Model order is the order the operators first read them (the file's tensor order is not).
    first_read: dict[str, int] = {}
    for index, aot_op in enumerate(operators):
        for tid in [*aot_op.op.input_ids, *aot_op.op.named_tensors.values()]:
            first_read.setdefault(str(tid), index)
    constants.sort(key=lambda t: first_read.get(str(t.id), len(operators)))
    accessed = bytes_accessed(model, operators)
    home, fill = constant_home(platform, budget), constant_order(platform, budget)

    contents: dict[TensorId, tuple[bytes, bytes]] = {}  # each constant's bytes, hashed once for both pools
    shared = memory_cfg.shared_arena
    limits = {m.upper(): n for m, n in shared.constants.items()} if shared.enabled else {}

    claim = scratch_claim(model, platform, config, fill, accessed, make_planner)

    def constant_pool(by_cost: bool) -> ConstantPool:
        budget_now = memory_budget_now()
        order = FillOrder(fill, budget_now, accessed, by_cost, contents, claim, limits)
        return ConstantPool(model, constants, rules, home, alignment, budget.alignments, order)

    plan.accessed = accessed

    def place(
        claim: tuple[tuple[str, ...], int | None, float] | None,
    ) -> tuple[MemoryBudget, ConstantPool, Planner]:
        """Constants first (``claim``: the scratch arena's share of the fast memory), then the arenas."""
        budget_now = memory_budget_now()
        order = FillOrder(fill, budget_now, accessed, True, contents, claim, limits)
        pool = ConstantPool(model, constants, rules, home, alignment, budget_now.alignments, order)
        pool.reserve(budget_now)
        planner = Planner(model, operators, config, budget_now, rules, alignment, plan, run_planner)
        planner.access_cost = lambda memory, nbytes: wait_cycles(platform, memory, nbytes)
        planner.place_pinned()
        planner.place_auto("scratch")
        planner.place_auto("persistent")
        return budget_now, pool, planner

    budget, pool, planner = place(claim)
    plan.simplest_scratch_wait_cycles = planner.simplest_wait.get("scratch")
    plan.simplest_scratch_bytes = planner.simplest_bytes.get("scratch")
    claims = yield_claims(planner, platform, fill, accessed)
    if claims:
        # Variants weighed by goal latency's price of bytes above the bound too (0 at other goals).
        peak = peak_live(scratch_requests(planner))
        best = _score(pool, planner, platform, accessed, peak)
    for yielded in claims:
        other = place(yielded)
        score = _score(other[1], other[2], platform, accessed, peak)
        if score < best:
            best, (budget, pool, planner) = score, other
            plan.constants_yield = True
    plan.scratch_over_bound = planner.over_bound.get("scratch")
    # The simplest placement (each constant in the first memory that holds it, in model order) is
    # the report's baseline; when one memory holds every constant it is this placement.
    simplest = pool if len(pool.cold) <= 1 and not plan.constants_yield else constant_pool(by_cost=False)
    plan.simplest_constants = {tid: memory for memory, blob in simplest.cold.items() for tid in blob.offsets}

    rank = memory_rank(budget)
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


def scratch_claim(
    model: AirModel,
    platform: SocPlatform,
    config: ConvertArgs,
    fill: list[str],
    accessed: dict[TensorId, int],
    make_planner: Callable[[], Planner],
) -> tuple[tuple[str, ...], int | None, float] | None:
    """At goal latency, the scratch arena competes with the constants for the first memory, by
    bytes read per byte like them, where the memory constants would spill into is slower; at the
    other goals (and where the two are equally fast) the constants come first, as in heliaAOT 1.1."""
    if str(getattr(config.optimization.goal, "value", config.optimization.goal)) != "latency":
        return None
    planner = make_planner()
    memory = planner.budget.order[0]
    after = fill[fill.index(memory) + 1 :] if memory in fill else []
    if not after or platform.wait_states_of(after[0]) <= platform.wait_states_of(memory):
        return None
    roots = [r for r in planner.roots if planner.role_of(r) == "scratch"]
    if not roots:
        return None
    size = arena_size(planner.layout(roots, memory).used, max(planner.align(r, memory) for r in roots))
    read = sum(accessed.get(t, 0) for r in roots for t in planner.members[r])
    return (memory,), size, read / max(size, 1)


def shared_budget(budget: MemoryBudget, config: ConvertArgs) -> MemoryBudget:
    """``budget`` less the bytes the other modules of a shared image hold in each memory
    (``memory.shared_arena.reserved``, filled by convert-set)."""
    shared = config.memory.shared_arena
    if not shared.enabled:
        return budget
    for memory, nbytes in shared.reserved.items():
        cap = budget.caps.get(memory.upper())
        if cap is not None:
            budget.caps[memory.upper()] = max(cap - nbytes, 0)
    return budget


def yield_claims(
    planner: Planner, platform: SocPlatform, fill: list[str], accessed: dict[TensorId, int]
) -> list[tuple[tuple[str, ...], int | None, float]]:
    """When the scratch spills from the first memory, the claims under which the constants read
    less per byte than the scratch arena leave it room: in the first memory, and in every memory
    the scratch took (those constants then go to the next memory of the fill order, MRAM on an
    Apollo). The plan keeps whichever placement is modeled to pay the fewest wait cycles. None when
    nothing spills or the memory constants would move to is as fast as the first."""
    memory = planner.budget.order[0]
    scratch = [(m, a) for (role, m), a in planner.arenas.items() if role == "scratch"]
    if not scratch or all(m == memory for m, _ in scratch) or memory not in fill:
        return []
    after = fill[fill.index(memory) + 1 :]
    if not after or platform.wait_states_of(after[0]) <= platform.wait_states_of(memory):
        return []
    roots = [r for r in planner.roots if planner.role_of(r) == "scratch"]
    read = sum(accessed.get(t, 0) for r in roots for t in planner.members[r])
    density = read / max(sum(a.used for _, a in scratch), 1)
    taken = {m for m, _ in scratch}
    spilled = (memory, *(m for m in planner.budget.order[1:] if m in fill and m in taken))
    claims: list[tuple[tuple[str, ...], int | None, float]] = [((memory,), None, density)]
    if len(spilled) > 1:
        claims.append((spilled, None, density))
    return claims


def _score(
    pool: ConstantPool, planner: Planner, platform: SocPlatform, accessed: dict[TensorId, int], peak: int
) -> int:
    """Modeled wait cycles of one inference's accesses to the constants and arenas placed so, at
    goal latency with the price of the scratch bytes above the bound (:func:`spill_score`)."""
    constants = sum(
        wait_cycles(platform, memory, sum(accessed.get(t, 0) for t in blob.offsets))
        for memory, blob in pool.cold.items()
    )
    arenas = [(memory, list(a.offsets), None) for (_, memory), a in planner.arenas.items()]
    wait = constants + planner._wait_cycles(arenas)  # type: ignore[arg-type]
    if not planner.latency:
        return wait
    scratch = sum(
        arena_size(a.used, a.alignment) for (role, _), a in planner.arenas.items() if role == "scratch"
    )
    return spill_score(wait, scratch, peak)


__all__ = ["plan_memory", "scratch_claim", "yield_claims"]
