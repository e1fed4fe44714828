"""Several models, one image: convert a set of models whose modules share one scratch buffer.

Modules linked into one program that run one after another never need two models' activations at
once, so one scratch buffer serves them all when it is as large as the largest need. Each module
is converted with ``memory.shared_arena.enabled`` (its scratch regions are bound by the
application, its constants and state stay its own); :func:`convert_shared` first plans every model
(a dry run, which writes nothing), takes per memory the largest scratch region of the set and the
module that needs it, and then converts each model with those figures in
``memory.shared_arena``, so each module's report, README and ``<prefix>_shared_arena_<memory>_size``
say how large the shared buffer is and which model sets it. ``helia-aot convert-set`` is the same
on the command line.

The modules must be told apart in one image: their ``module.prefix`` (every C symbol starts with
it) and their output destinations must differ, which is checked before anything is converted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from helia_aot.errors import InvalidConfigError

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs
    from helia_aot.converter import ConversionResult
    from helia_aot.registry.context import RegistryContext


@dataclass(frozen=True, slots=True)
class SharedArenaResult:
    """What :func:`convert_shared` wrote: one result per configuration, in order, and the shared
    buffer per memory (lower-case memory name -> bytes) with the module whose need sets it."""

    results: tuple[ConversionResult, ...]
    size: Mapping[str, int]
    set_by: Mapping[str, str]

    @property
    def needs(self) -> dict[str, dict[str, int]]:
        """Each module's own scratch need: module name -> memory -> bytes."""
        return {
            str(result.config.module.name): scratch_needs(result.arenas)
            for result in self.results
            if result.config is not None
        }


def scratch_needs(arenas: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Bytes of each scratch region of one conversion (``ConversionResult.arenas``), by memory."""
    return {str(a["memory"]).lower(): int(a["total_size"]) for a in arenas if a["role"] == "scratch"}


def check_set(configs: Sequence[ConvertArgs]) -> None:
    """InvalidConfigError unless the set has two or more models that one image can hold apart."""
    if len(configs) < 2:
        raise InvalidConfigError(
            f"a shared scratch buffer needs two or more models, got {len(configs)}",
            hint="give one configuration per model (helia-aot convert-set --path a.yaml --path b.yaml)",
        )
    for what, key in (("module.prefix", lambda c: c.module.prefix), ("output", _destination)):
        seen: dict[str, int] = {}
        for index, config in enumerate(configs):
            value = str(key(config))
            if value in seen:
                raise InvalidConfigError(
                    f"models {seen[value]} and {index} of the set both use {what} {value!r}",
                    hint="give each module of one image its own module.prefix (every C symbol "
                    "starts with it) and its own output (module.path and module.name)",
                )
            seen[value] = index


def _destination(config: ConvertArgs) -> str:
    from helia_aot.pipeline.export import destination_of  # the pipeline: only when a set is checked

    return str(destination_of(config))


def _with_shared(config: ConvertArgs, shared: dict[str, Any], **top: Any) -> ConvertArgs:
    data = config.model_dump(mode="python")
    data["memory"]["shared_arena"] = shared
    data.update(top)
    return type(config).model_validate(data)


def convert_shared(
    configs: Sequence[ConvertArgs], *, registry_context: RegistryContext | None = None
) -> SharedArenaResult:
    """Convert every configuration so the modules share one scratch buffer, sized to the largest need.

    Each memory's shared size is the largest scratch region any model of the set needs there;
    ``set_by`` names that model's ``module.name`` (the first one, on a tie). Configurations with
    ``dry_run`` are planned but not written, as on their own. Raises InvalidConfigError for a set of
    fewer than two models or two models with one prefix or destination, and whatever a conversion
    raises.
    """
    from helia_aot.converter import AotConverter

    check_set(configs)
    names = [str(c.module.name) for c in configs]
    probes = [_probe(config, {"enabled": True}, registry_context) for config in configs]
    shares = set_constants(probes)
    if shares is not None:

        def replan(shares: list[dict[str, dict[str, int]]]) -> list[_Probe]:
            return [
                _probe(config, {"enabled": True, **share}, registry_context)
                for config, share in zip(configs, shares, strict=True)
            ]

        probes = replan(shares)
        # A module that kept fewer constants in a memory than its share (its scratch spilled and
        # they left it the room) leaves the rest to the others: once more with what each kept.
        tight = kept_shares(probes)
        again = replan(tight)
        if fits_together(again):
            probes, shares = again, tight
    planned = [probe.needs for probe in probes]
    size: dict[str, int] = {}
    set_by: dict[str, str] = {}
    for name, needs in zip(names, planned, strict=True):
        for memory, need in sorted(needs.items()):
            if need > size.get(memory, 0):
                size[memory], set_by[memory] = need, name
    shared = {"enabled": True, "size": size, "set_by": set_by, "modules": names}
    results = tuple(
        AotConverter(
            _with_shared(config, {**shared, **(shares[index] if shares else {})}),
            registry_context=registry_context,
        ).convert()
        for index, config in enumerate(configs)
    )
    return SharedArenaResult(results, size, set_by)


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class _Probe:
    """What one model's dry run planned: its scratch need (by lower-case memory, as
    :func:`scratch_needs`), its state and constant bytes per memory,
    each constant it may move (bytes, bytes read per inference), the capacity of each memory and
    the order constants fill them."""

    needs: dict[str, int]
    state: dict[str, int]
    constants: dict[str, int]
    movable: list[tuple[int, int]]
    caps: dict[str, int | None]
    fill: list[str]
    ruled: bool = False
    """Its rules place constants: they stay where it put them."""


def _probe(config: ConvertArgs, shared: dict[str, Any], registry_context: RegistryContext | None) -> _Probe:
    """Plan ``config`` as one module of a shared image (a dry run) and say what it placed where."""
    from helia_aot.air import AirTensorKind
    from helia_aot.converter import AotConverter
    from helia_aot.pipeline.memory_rules import READ_ONLY_MEMORIES, constant_order, memory_budget
    from helia_aot.pipeline.plan_records import arena_size

    probe = _with_shared(config, shared, dry_run=True, result_views=False)
    converter = AotConverter(probe, registry_context=registry_context)
    kept: dict[str, Any] = {}

    def finish(
        output: Any, model: Any, operators: Any, plan: Any, platform: Any, *rest: Any, **kw: Any
    ) -> Any:
        kept.update(model=model, plan=plan, platform=platform)
        return converter._result(output, model, operators, plan, platform, *rest, **kw)

    result = converter._convert(finish)
    model, plan, platform = kept["model"], kept["plan"], kept["platform"]
    budget = memory_budget(platform, probe.memory.constraints)
    state: dict[str, int] = {}
    constants: dict[str, int] = {}
    for region in plan.regions:
        memory, nbytes = str(region.memory).upper(), arena_size(region.used, region.alignment)
        if region.role == "persistent":
            state[memory] = state.get(memory, 0) + nbytes
        elif region.role == "constant":
            constants[memory] = constants.get(memory, 0) + nbytes
    ruled = any(str(getattr(r.type, "value", r.type)) in ("constant", "*") for r in probe.memory.tensors)
    movable = [
        (plan.placements[t.id].size, plan.accessed.get(t.id, 0))
        for t in model.tensors.values()
        if not ruled and t.kind is AirTensorKind.CONSTANT and t.id in plan.placements
    ]
    fill = [m for m in constant_order(platform, budget) if m not in READ_ONLY_MEMORIES]
    return _Probe(scratch_needs(result.arenas), state, constants, movable, dict(budget.caps), fill, ruled)


def fits_together(probes: Sequence[_Probe]) -> bool:
    """Whether the set's constants and state, and the shared scratch (the largest need), fit each
    capped writable memory."""
    first = probes[0]
    for memory in first.fill:
        cap = first.caps.get(memory)
        held = sum(p.constants.get(memory, 0) + p.state.get(memory, 0) for p in probes)
        if cap is not None and held + max(p.needs.get(memory.lower(), 0) for p in probes) > cap:
            return False
    return True


def kept_shares(probes: Sequence[_Probe]) -> list[dict[str, dict[str, int]]]:
    """Shares (as :func:`set_constants` gives them) of what each module's plan kept: its own
    constants where they went, the others' constants and state reserved."""
    memories = [m for m in probes[0].fill if probes[0].caps.get(m) is not None]
    result = []
    for index, p in enumerate(probes):
        others = {
            m.lower(): sum(
                q.constants.get(m, 0) + q.state.get(m, 0) for j, q in enumerate(probes) if j != index
            )
            for m in memories
        }
        entry = {"reserved": others}
        if not p.ruled:
            entry["constants"] = {m.lower(): p.constants.get(m, 0) for m in memories}
        result.append(entry)
    return result


def set_constants(probes: Sequence[_Probe]) -> list[dict[str, dict[str, int]]] | None:
    """Each module's share of the fast memories for its constants, and the bytes the others hold
    there, when the set's constants, state and shared scratch do not all fit them as each model
    placed its own alone; None when they fit (each module then keeps its plan).

    The set's constants are placed together as one model's would be: read most per byte first,
    each in the first writable memory of the fill order with room left after the set's state
    (constants first, then the shared scratch in what they leave, as for one model). A module
    whose rules place constants keeps them where it put them.
    """
    first = probes[0]
    memories = [m for m in first.fill if first.caps.get(m) is not None]
    if fits_together(probes):
        return None
    room = {m: (first.caps[m] or 0) - sum(p.state.get(m, 0) for p in probes) for m in memories}
    for p in probes:
        if p.ruled:  # its rules place its constants: they stay
            for m in memories:
                room[m] -= p.constants.get(m, 0)
    ranked = sorted(
        (
            (accessed / max(size, 1), index, k, size)
            for index, p in enumerate(probes)
            for k, (size, accessed) in enumerate(p.movable)
        ),
        key=lambda row: (-row[0], row[1], row[2]),
    )
    share: list[dict[str, int]] = [{m: 0 for m in memories} for _ in probes]
    for _, index, _, size in ranked:
        wanted = (size + 15) // 16 * 16
        memory = next((m for m in memories if room[m] >= wanted), None)
        if memory is not None:
            room[memory] -= wanted
            share[index][memory] += wanted
    result = []
    for index, p in enumerate(probes):
        others = {
            m.lower(): sum(
                (q.constants.get(m, 0) if q.ruled else share[j][m]) + q.state.get(m, 0)
                for j, q in enumerate(probes)
                if j != index
            )
            for m in memories
        }
        entry: dict[str, dict[str, int]] = {"reserved": others}
        if not p.ruled:
            entry["constants"] = {m.lower(): share[index][m] for m in memories}
        result.append(entry)
    return result


__all__ = ["SharedArenaResult", "check_set", "convert_shared", "scratch_needs", "set_constants"]
