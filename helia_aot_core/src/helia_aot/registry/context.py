"""RegistryContext: every extension point a conversion dispatches through, one registry each."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from helia_aot.converters.loaders import ModelLoader, check_loader
from helia_aot.errors import PluginError
from helia_aot.platforms.model import SocPlatform
from helia_aot.registry.registry import Registry

if TYPE_CHECKING:
    from helia_aot.converters.litert.parser_types import LiteRTModelHook, LiteRTParser
    from helia_aot.converters.litert.view import Arity

Customizer = Callable[["RegistryContext"], None]
"""A function that changes a context before it is frozen; also a ``helia_aot_register`` hook."""

DEFAULT_TRANSFORM_ORDER = 100
"""Where a transform without an ``ORDER`` runs; lower orders run first, ties by name."""


def _check_platform(key: str, value: object) -> None:
    """Platforms must be ``SocPlatform`` records filed under their own name."""
    if not isinstance(value, SocPlatform):
        raise PluginError(
            f"platform {key!r} is a {type(value).__name__}, not a SocPlatform",
            hint="register helia_aot.platforms.SocPlatform records (as helia_aot_platforms() returns)",
        )
    if value.name != key:
        raise PluginError(
            f"platform {value.name!r} registered under another name, {key!r}",
            hint="register a platform under its own name: context.platforms.register(p.name, p)",
        )


@dataclass
class RegistryBundle:
    """The five registries of the product's context, handed over together: ``RegistryContext(bundle)``.

    A script written for the product builds its registries, bundles them and constructs a context
    from the bundle; the context then dispatches through exactly those registry objects (nothing is
    copied, so a registration made through either is seen by both). The extension points this
    compiler adds (planners, exporters, platforms, knobs, settings) start empty in such a context.
    """

    litert_model_hooks: Registry[LiteRTModelHook]
    litert_parsers: Registry[LiteRTParser]
    aot_operator_classes: Registry[type]
    transforms: Registry[type]
    air_options: Registry[type]


class RegistryContext:
    """The registries a conversion dispatches through: the only place an extension is looked up.

    ``litert_model_hooks`` (name -> ``hook(model) -> model | None``) rewrite the flatbuffer before
    parsing; ``litert_parsers`` (canonical op key -> parser) turn LiteRT nodes into AIR operators;
    ``air_options`` hold each op type's typed options class; ``aot_operator_classes`` the class that
    emits C for an op type; ``transforms`` the graph rewrites by their ``NAME``, run in the order
    their classes declare (``ORDER``, then name); ``memory_planners`` ``memory.planner`` -> planner
    function (see ``helia_aot.memory``); ``module_exporters`` ``module.type`` -> the
    ``ModuleExporter`` class writing that build system's files; ``platforms`` ``platform.name`` ->
    ``SocPlatform``; ``model_loaders`` file format -> the ``ModelLoader`` (front end) that reads it
    (:mod:`helia_aot.converters.loaders`); ``knobs`` (``KnobSpec``) and ``settings``
    (``SettingSpec``) the optimization
    choices operators may offer and the report measures (the core plugin registers the built-in
    ones, ``helia_aot.optimization.KNOBS`` / ``SETTINGS``).

    ``RegistryContext()`` starts with every registry empty; ``RegistryContext(bundle)`` uses the
    registries of a :class:`RegistryBundle` (the product's constructor), and :attr:`bundle` gives
    them back as one. ``blocked_plugins`` names the installed plugins the context was built without
    (entry-point name -> distribution), so an error about a missing extension can say which blocked
    plugin might provide it instead of suggesting an install.
    """

    def __init__(self, bundle: RegistryBundle | None = None) -> None:
        if bundle is not None and not isinstance(bundle, RegistryBundle):
            raise TypeError(f"RegistryContext takes a RegistryBundle, not {type(bundle).__name__}")
        self.litert_model_hooks: Registry[LiteRTModelHook] = (
            bundle.litert_model_hooks if bundle else Registry("litert_model_hooks")
        )
        self.litert_parsers: Registry[LiteRTParser] = (
            bundle.litert_parsers if bundle else Registry("litert_parsers")
        )
        self.air_options: Registry[type] = bundle.air_options if bundle else Registry("air_options")
        self.aot_operator_classes: Registry[type] = (
            bundle.aot_operator_classes if bundle else Registry("aot_operator_classes")
        )
        self.transforms: Registry[type] = bundle.transforms if bundle else Registry("transforms")
        self.memory_planners: Registry[Callable[..., Any]] = Registry("memory_planners")
        self.module_exporters: Registry[type] = Registry("module_exporters")
        self.platforms: Registry[SocPlatform] = Registry("platforms", _check_platform)
        self.model_loaders: Registry[ModelLoader] = Registry("model_loaders", check_loader)
        self.knobs: Registry[Any] = Registry("knobs")
        self.settings: Registry[Any] = Registry("settings")
        self.blocked_plugins: dict[str, str] = {}
        self.litert_arities: dict[str, Arity] = {}
        """Input and output counts by LiteRT key, as the operator records registered declare them
        (``OperatorRecord.arity``); Load checks each node against its key's before any parser
        sees it."""

    @property
    def bundle(self) -> RegistryBundle:
        """The product's five registries of this context, as one bundle (the same objects)."""
        return RegistryBundle(
            litert_model_hooks=self.litert_model_hooks,
            litert_parsers=self.litert_parsers,
            aot_operator_classes=self.aot_operator_classes,
            transforms=self.transforms,
            air_options=self.air_options,
        )

    def __repr__(self) -> str:
        sizes = ", ".join(f"{r.name}={len(r)}" for r in self.registries())
        return f"RegistryContext({sizes})"

    def registries(self) -> list[Registry[Any]]:
        """Every registry of the context, in declaration order."""
        return [value for value in vars(self).values() if isinstance(value, Registry)]

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
            for registry, before in zip(self.registries(), previous, strict=True):
                registry.active_provider = before

    def registered_by(self, provider: str) -> dict[str, list[str]]:
        """Registry name -> keys that ``provider`` registered (for ``helia-aot plugins``)."""
        result: dict[str, list[str]] = {}
        for registry in self.registries():
            keys = [k for k in registry.keys() if registry.provider(k) == provider]
            if keys:
                result[registry.name] = keys
        return result

    def ordered_transforms(self) -> list[tuple[str, type]]:
        """The transforms in the order they run: by their class's ``ORDER``, then by name.

        The order is declared by each transform, never taken from registration order, so which
        plugin loaded first cannot change what a conversion does.
        """
        return sorted(
            self.transforms.items(),
            key=lambda item: (int(getattr(item[1], "ORDER", DEFAULT_TRANSFORM_ORDER)), item[0]),
        )


__all__ = ["DEFAULT_TRANSFORM_ORDER", "Customizer", "RegistryBundle", "RegistryContext"]
