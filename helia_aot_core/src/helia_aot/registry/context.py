"""RegistryContext and build_default_registry_context: every dispatch a conversion makes."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

from helia_aot.registry.registry import Registry

Customizer = Callable[["RegistryContext"], None]


@dataclass(eq=False)
class RegistryContext:
    """The registries a conversion dispatches through.

    ``litert_model_hooks`` (name -> ``hook(model) -> model | None``) rewrite the flatbuffer before
    parsing; ``litert_parsers`` (canonical op key -> parser) turn LiteRT nodes into AIR operators;
    ``air_options`` hold each op type's typed options class; ``aot_operator_classes`` the class that
    emits C for an op type; ``transforms`` the graph rewrites, by their NAME, in application order;
    ``memory_planners`` name -> planner function (see ``helia_aot.memory``); ``module_exporters``
    ``module.type`` -> the ``ModuleExporter`` class writing that build system's files (see
    ``helia_aot.exporters``).
    """

    litert_model_hooks: Registry[Callable[..., Any]] = field(
        default_factory=lambda: Registry("litert_model_hooks")
    )
    litert_parsers: Registry[Callable[..., Any]] = field(default_factory=lambda: Registry("litert_parsers"))
    air_options: Registry[type] = field(default_factory=lambda: Registry("air_options"))
    aot_operator_classes: Registry[type] = field(default_factory=lambda: Registry("aot_operator_classes"))
    transforms: Registry[type] = field(default_factory=lambda: Registry("transforms"))
    memory_planners: Registry[Callable[..., Any]] = field(default_factory=lambda: Registry("memory_planners"))
    module_exporters: Registry[type] = field(default_factory=lambda: Registry("module_exporters"))

    def registries(self) -> list[Registry[Any]]:
        """Every registry of the context, in declaration order."""
        return [getattr(self, f.name) for f in fields(self)]

    def freeze(self) -> None:
        """Freeze every registry: nothing may change once a conversion is under way."""
        for registry in self.registries():
            registry.freeze()

    @property
    def frozen(self) -> bool:
        return all(r.frozen for r in self.registries())

    @contextmanager
    def provided_by(self, provider: str | None) -> Iterator[RegistryContext]:
        """Record ``provider`` as the origin of every registration made inside the block."""
        previous = [r.active_provider for r in self.registries()]
        for registry in self.registries():
            registry.active_provider = provider
        try:
            yield self
        finally:
            for registry, before in zip(self.registries(), previous):
                registry.active_provider = before

    def registered_by(self, provider: str) -> dict[str, list[str]]:
        """Registry name -> keys that ``provider`` registered (for ``helia-aot plugins``)."""
        result: dict[str, list[str]] = {}
        for registry in self.registries():
            keys = [k for k in registry.keys() if registry.provider(k) == provider]
            if keys:
                result[registry.name] = keys
        return result


def build_default_registry_context(
    customizers: Sequence[Customizer] | None = None,
    allow_override: bool = False,
    freeze: bool = True,
    *,
    plugins: Any = None,
) -> RegistryContext:
    """Build a context from the built-ins, apply ``customizers`` in order, then freeze it.

    Built-ins are everything the installed plugins register (the core's own planners and
    transforms included). A customizer that replaces or removes a built-in makes construction fail
    with DuplicateRegistrationError unless ``allow_override`` is true; new keys are always fine.
    ``plugins`` selects plugins by name (an object with ``enabled`` / ``disabled``, such as
    ``ConvertArgs.plugins``); by default every installed plugin loads, subject to
    ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD``.
    """
    from helia_aot.plugins.manager import plugin_host

    context = RegistryContext()
    plugin_host(plugins).register_into(context)
    if not allow_override:
        for registry in context.registries():
            registry.protect(set(registry.keys()))
    for customizer in customizers or ():
        label = f"customizer {getattr(customizer, '__qualname__', repr(customizer))}"
        with context.provided_by(label):
            customizer(context)
    for registry in context.registries():
        registry.protect(set())
    if freeze:
        context.freeze()
    return context
