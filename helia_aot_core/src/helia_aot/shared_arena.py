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
    planned = []
    for config in configs:
        probe = _with_shared(config, {"enabled": True}, dry_run=True, result_views=False)
        planned.append(scratch_needs(AotConverter(probe, registry_context=registry_context).convert().arenas))
    size: dict[str, int] = {}
    set_by: dict[str, str] = {}
    for name, needs in zip(names, planned, strict=True):
        for memory, need in sorted(needs.items()):
            if need > size.get(memory, 0):
                size[memory], set_by[memory] = need, name
    shared = {"enabled": True, "size": size, "set_by": set_by, "modules": names}
    results = tuple(
        AotConverter(_with_shared(config, shared), registry_context=registry_context).convert()
        for config in configs
    )
    return SharedArenaResult(results, size, set_by)


__all__ = ["SharedArenaResult", "check_set", "convert_shared", "scratch_needs"]
