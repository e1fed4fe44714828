"""Discovering, selecting and loading plugins through the ``helia_aot`` entry-point group.

Plugins load in a deterministic order (entry-point name, then distribution name). A plugin that
cannot be imported, or that raises inside a hook, becomes a PluginError naming its entry point,
distribution and version. The selection (``plugins.enabled`` / ``plugins.disabled`` and
``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD``) is applied before anything is imported, so a blocked plugin
is never imported; every collection of extensions (conversion, platform lookup, the CLI listings)
goes through a host built here for one selection.

Entry points and distributions are read here with the standard library's ``importlib.metadata``
(the design's "equivalent over importlib.metadata"): every Python the core supports (3.11+) has
the ``entry_points(group=...)`` selection, and pydantic has already imported it, so reading entry
points costs no import of its own (the ``importlib-metadata`` backport brought zipp and the email
header registry into every conversion's start-up). A hand-written selection that parsed only the
``entry_points.txt`` files naming the group saved 0.5 ms of CPU a conversion and was removed
(docs/architecture.md, "Hand-written where a library exists"). A plugin's distribution name and
version come from the two header lines of its METADATA file (:func:`_name_and_version`), which
keeps the email parser out of a conversion.
"""

from __future__ import annotations

import os
import re
import traceback
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

import helia_aot.core_plugin as core_plugin
from helia_aot.converters.loaders import ModelLoader
from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError, PluginError
from helia_aot.platforms.model import SocPlatform
from helia_aot.plugins import hookspecs
from helia_aot.plugins.markers import PROJECT, hookimpl
from helia_aot.version import __version__

if TYPE_CHECKING:  # pragma: no cover - the context module sits above the hook layer
    from helia_aot.config.args import ConvertArgs
    from helia_aot.registry.context import RegistryContext

ENTRY_POINT_GROUP = "helia_aot"
AUTOLOAD_ENV = "HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD"
CORE = "core"
"""The name the core's own built-ins (planners, exporters) load under; always loaded."""


class PluginSelection(Protocol):
    """What selects plugins: ``ConvertArgs.plugins`` (a ``PluginsConfig``) or anything shaped so."""

    @property
    def enabled(self) -> Sequence[str] | None: ...

    @property
    def disabled(self) -> Sequence[str]: ...


Selection = PluginSelection | Mapping[str, Any] | None


@dataclass(slots=True)
class PluginRecord:
    """One plugin: where it comes from and, once registered, what it provided.

    ``status`` is ``loaded``, or ``blocked`` for an installed plugin the selection leaves out (its
    module was not imported, so it has registered nothing).
    """

    name: str
    distribution: str
    version: str
    module: str
    registered: dict[str, list[str]] = field(default_factory=dict)
    status: str = "loaded"

    @property
    def label(self) -> str:
        return f"plugin {self.name!r} ({self.distribution} {self.version})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "status": self.status,
            "registered": self.registered,
        }


def selection(plugins: Selection) -> tuple[list[str] | None, list[str]]:
    """``(enabled or None for every plugin, disabled)`` of a selection, the environment applied.

    With ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD`` set, a selection that enables nothing explicitly
    loads no plugin but the core.
    """
    if isinstance(plugins, Mapping):
        enabled, disabled = plugins.get("enabled"), plugins.get("disabled")
    elif plugins is not None:
        enabled, disabled = plugins.enabled, plugins.disabled
    else:
        enabled, disabled = None, None
    if os.environ.get(AUTOLOAD_ENV, "").strip() not in ("", "0", "false", "False") and enabled is None:
        enabled = []
    return (list(enabled) if enabled is not None else None), sorted(set(disabled or ()))


def distribution_installed(name: str) -> bool:
    """Whether the distribution ``name`` is installed (its metadata can be found)."""
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def distribution_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


_IDENTITIES: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()
"""Each distribution's (name, version), read once (see :func:`_name_and_version`)."""

_IDENTITY_FIELDS = ("name", "version")
_FIELD_NAME = re.compile(r"[\x21-\x39\x3b-\x7e]+")
"""A header field name as the email parser reads one (printable ASCII, no space, no colon)."""


def _header_identity(text: str) -> tuple[str, str] | None:
    """``(Name, Version)`` from the header block of a METADATA (or PKG-INFO) text, or None.

    Only the plain case is read here: ``Field: value`` lines up to the first blank line, the first
    ``Name`` and ``Version`` taken, neither continued on a following line. Anything else (a header
    line the email parser would read differently, a field missing) gives None, and the caller
    falls back to the library's full parse, so the values are always the ones it gives.
    """
    found: dict[str, str] = {}
    pending = False  # a field was just read: the next line must not continue it
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line[:1] in (" ", "\t"):
            if pending:
                return None
            continue  # the continuation of another field
        if pending and len(found) == len(_IDENTITY_FIELDS):
            break
        pending = False
        if not line:
            break
        field_name, colon, value = line.partition(":")
        if not colon or not field_name or "\r" in line or not _FIELD_NAME.fullmatch(field_name):
            return None
        key = field_name.lower()
        if key in _IDENTITY_FIELDS and key not in found:
            found[key] = value.lstrip(" \t")
            pending = True
    if len(found) < len(_IDENTITY_FIELDS):
        return None
    return found["name"], found["version"]


def _name_and_version(dist: Any) -> tuple[str, str]:
    """``dist.name`` and ``dist.version``, read from the metadata file's header lines.

    Each of those properties parses the whole METADATA file (README included) with the email
    parser again: sorting and recording two plugins parsed six, a visible part of every
    conversion's start-up. The two header lines give the same values (see
    :func:`_header_identity`; an unusual file gets the library's parse).
    """
    known = _IDENTITIES.get(dist)
    if known is None:
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or dist.read_text("") or ""
        known = _header_identity(text)
        if known is None:
            fields = dist.metadata
            # .get, not [...]: importlib_metadata (which dask, mkdocs and others import, and which
            # then answers the standard library's discovery too) raises KeyError for a missing key.
            name, version = fields.get("Name"), fields.get("Version")
            if name is None or version is None:
                raise PluginError(
                    f"an installed distribution ({getattr(dist, '_path', dist)}) has no "
                    f"{'Name' if name is None else 'Version'} in its metadata",
                    hint="reinstall or uninstall that distribution",
                )
            known = (name, version)
        _IDENTITIES[dist] = known
    return known


def discover_entry_points() -> list[metadata.EntryPoint]:
    """Every entry point of the ``helia_aot`` group, in load order."""
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted(eps, key=lambda ep: (ep.name, _name_and_version(ep.dist)[0] if ep.dist else ""))


def _record(ep: metadata.EntryPoint, status: str = "loaded") -> PluginRecord:
    dist, version = _name_and_version(ep.dist) if ep.dist else ("(unknown distribution)", "?")
    return PluginRecord(ep.name, dist, version, ep.value, status=status)


def _failure_hint(name: str) -> str:
    return (
        f"block it with plugins.disabled: [{name}] (or --plugins.disabled {name}), "
        f"or {AUTOLOAD_ENV}=1 with plugins.enabled naming the plugins to keep"
    )


class PluginHost:
    """The loaded plugins of one selection, and the calls into their hooks."""

    def __init__(
        self, records: list[PluginRecord], pm: pluggy.PluginManager, blocked: Sequence[PluginRecord] = ()
    ) -> None:
        self.records = records
        self.blocked = list(blocked)
        self.pm = pm
        self._by_plugin = {rec.name: rec for rec in records}
        self._names = [rec.name for rec in records]

    def _record_of(self, impl: pluggy.HookImpl) -> PluginRecord | None:
        return self._by_plugin.get(impl.plugin_name)

    def _order(self, impl: pluggy.HookImpl) -> int:
        return self._order_of_name(impl.plugin_name)

    def _call(self, impl: pluggy.HookImpl, hook_name: str, **kwargs: Any) -> Any:
        """Call one implementation so that a failure names its plugin."""
        record = self._record_of(impl)
        try:
            return impl.function(**{k: kwargs[k] for k in impl.argnames})
        except (DuplicateRegistrationError, PluginError):
            raise
        except Exception as exc:  # a plugin's own bug: name the plugin, keep the cause
            who = record.label if record else f"plugin {impl.plugin_name!r}"
            raise PluginError(
                f"{who} raised {type(exc).__name__} in {hook_name}: {exc}",
                hint=f"upgrade or disable the plugin ({_failure_hint(impl.plugin_name)})",
                details=traceback.format_exc(),
            ) from exc

    def _impls(self, hook_name: str) -> list[pluggy.HookImpl]:
        return sorted(getattr(self.pm.hook, hook_name).get_hookimpls(), key=self._order)

    def register_into(self, context: RegistryContext) -> None:
        """Run every plugin's ``helia_aot_register`` and ``helia_aot_platforms`` on ``context``.

        Each plugin's registrations are recorded under its label, so a collision names both
        plugins and ``helia-aot plugins`` can list what each provided.
        """
        platform_impls = {impl.plugin_name: impl for impl in self._impls("helia_aot_platforms")}
        register_impls = {impl.plugin_name: impl for impl in self._impls("helia_aot_register")}
        loader_impls = {impl.plugin_name: impl for impl in self._impls("helia_aot_model_loaders")}
        names = sorted(set(platform_impls) | set(register_impls) | set(loader_impls), key=self._order_of_name)
        for name in names:
            record = self._by_plugin.get(name)
            label = record.label if record else f"plugin {name!r}"
            with context.provided_by(label):
                if name in register_impls:
                    self._call(register_impls[name], "helia_aot_register", context=context)
                if name in platform_impls:
                    provided = self._call(platform_impls[name], "helia_aot_platforms")
                    for platform in provided or ():
                        self._register_platform(context, platform, label)
                if name in loader_impls:
                    loaders = self._call(loader_impls[name], "helia_aot_model_loaders")
                    for loader in loaders or ():
                        self._register_loader(context, loader, label)
            if record is not None:
                record.registered = context.registered_by(label)
        context.blocked_plugins = {rec.name: rec.distribution for rec in self.blocked}

    def _order_of_name(self, name: str) -> int:
        return self._names.index(name) if name in self._names else len(self._names)

    @staticmethod
    def _register_platform(context: RegistryContext, platform: object, label: str) -> None:
        if not isinstance(platform, SocPlatform):
            raise PluginError(
                f"{label} returned {type(platform).__name__} {platform!r} instead of a SocPlatform",
                hint="helia_aot_platforms() must return helia_aot.platforms.SocPlatform records",
            )
        if platform.name in context.platforms:
            raise DuplicateRegistrationError(
                f"platform {platform.name!r} is provided by both "
                f"{context.platforms.provider(platform.name)} and {label}",
                hint="uninstall or disable one of the two plugins (plugins.disabled)",
            )
        context.platforms.register(platform.name, platform)

    @staticmethod
    def _register_loader(context: RegistryContext, loader: object, label: str) -> None:
        if not isinstance(loader, ModelLoader):
            raise PluginError(
                f"{label} returned {type(loader).__name__} {loader!r} instead of a ModelLoader",
                hint="helia_aot_model_loaders() must return helia_aot.converters.loaders.ModelLoader records",
            )
        if loader.format in context.model_loaders:
            raise DuplicateRegistrationError(
                f"model format {loader.format!r} is read by both "
                f"{context.model_loaders.provider(loader.format)} and {label}",
                hint="uninstall or disable one of the two plugins (plugins.disabled)",
            )
        context.model_loaders.register(loader.format, loader)

    def stage_started(self, stage: str, config: ConvertArgs) -> None:
        for impl in self._impls("helia_aot_stage_started"):
            self._call(impl, "helia_aot_stage_started", stage=stage, config=config)

    def stage_finished(
        self, stage: str, config: ConvertArgs, seconds: float, details: Mapping[str, Any]
    ) -> None:
        for impl in self._impls("helia_aot_stage_finished"):
            self._call(
                impl, "helia_aot_stage_finished", stage=stage, config=config, seconds=seconds, details=details
            )


class _CorePlugin:
    """The core's built-ins (:mod:`helia_aot.core_plugin`) as the plugin object pluggy registers."""

    helia_aot_register = staticmethod(hookimpl(core_plugin.register_builtins))
    helia_aot_model_loaders = staticmethod(hookimpl(core_plugin.model_loaders))


def _core_record() -> PluginRecord:
    return PluginRecord(CORE, "helia-aot-core", __version__, core_plugin.__name__)


def load_plugins(plugins: Selection = None, *, extra: Iterable[tuple[str, object]] = ()) -> PluginHost:
    """Import the selected plugins and return a host over them.

    ``plugins`` is the ``plugins`` configuration (``enabled``: only these names; ``disabled``: never
    these). ``core`` (the core's own planners and exporters) always loads and may be named in
    ``enabled``; it cannot be disabled. With ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD=1`` only explicitly
    enabled plugins load. ``extra`` adds (name, object) plugins registered directly, such as an
    observer.
    """
    enabled, disabled = selection(plugins)
    if CORE in disabled:
        raise InvalidConfigError(
            "plugin 'core' cannot be disabled: it holds the built-in planners and module exporters",
            hint="remove core from plugins.disabled",
        )
    available = discover_entry_points()
    names = {ep.name for ep in available}
    for wanted in enabled or ():
        if wanted not in names and wanted != CORE:
            raise InvalidConfigError(
                f"plugin {wanted!r} is not installed",
                hint=f"installed plugins: {', '.join(sorted(names | {CORE}))}",
            )
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    # The core's own built-ins load first, always, through the same hooks as every plugin.
    pm.register(_CorePlugin(), name=CORE)
    records: list[PluginRecord] = [_core_record()]
    blocked: list[PluginRecord] = []
    for ep in available:
        if ep.name in disabled or (enabled is not None and ep.name not in enabled):
            blocked.append(_record(ep, "blocked"))  # never imported
            continue
        record = _record(ep)
        try:
            module = ep.load()
        except Exception as exc:
            raise PluginError(
                f"{record.label}: entry point {ep.name} = {ep.value!r} failed to import: "
                f"{type(exc).__name__}: {exc}",
                hint=f"reinstall {record.distribution}, or {_failure_hint(ep.name)}",
                details=traceback.format_exc(),
            ) from exc
        if pm.is_registered(module):
            continue
        try:
            pm.register(module, name=ep.name)
        except Exception as exc:  # e.g. a hookimpl with an unknown argument name
            raise PluginError(f"{record.label} does not fit the hook specifications: {exc}") from exc
        records.append(record)
    for name, obj in extra:
        pm.register(obj, name=name)
    return PluginHost(records, pm, blocked)


_HOSTS: dict[tuple[tuple[str, ...] | None, tuple[str, ...]], PluginHost] = {}
"""Loaded hosts by selection: plugins are imported once per process and selection."""


def plugin_host(plugins: Selection = None) -> PluginHost:
    """A cached host for a selection (importing plugins once per process and selection)."""
    enabled, disabled = selection(plugins)
    key = (tuple(enabled) if enabled is not None else None, tuple(disabled))
    if key not in _HOSTS:
        _HOSTS[key] = load_plugins(plugins)
    return _HOSTS[key]


def reset_plugin_cache() -> None:
    """Forget loaded hosts (tests that install or remove distributions call this)."""
    _HOSTS.clear()


__all__ = [
    "AUTOLOAD_ENV",
    "CORE",
    "ENTRY_POINT_GROUP",
    "PluginHost",
    "PluginRecord",
    "PluginSelection",
    "Selection",
    "discover_entry_points",
    "hookimpl",
    "load_plugins",
    "plugin_host",
    "reset_plugin_cache",
    "selection",
]
