"""Discovering, selecting and loading plugins through the ``helia_aot`` entry-point group.

Plugins load in a deterministic order (entry-point name, then distribution name). A plugin that
cannot be imported, or that raises inside a hook, becomes a PluginError naming its entry point,
distribution and version. A blocked plugin is never imported.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from helia_aot.errors import DuplicateRegistrationError, InvalidConfigError, PluginError
from helia_aot.plugins import hookspecs

ENTRY_POINT_GROUP = "helia_aot"
AUTOLOAD_ENV = "HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD"
hookimpl = pluggy.HookimplMarker(hookspecs.PROJECT)


@dataclass(slots=True)
class PluginRecord:
    """One loaded plugin: where it comes from and, once registered, what it provided."""

    name: str
    distribution: str
    version: str
    module: str
    registered: dict[str, list[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"plugin {self.name!r} ({self.distribution} {self.version})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "registered": self.registered,
        }


def _selection(plugins: Any) -> tuple[list[str] | None, set[str]]:
    enabled = getattr(plugins, "enabled", None) if plugins is not None else None
    disabled = set(getattr(plugins, "disabled", None) or ()) if plugins is not None else set()
    if isinstance(plugins, dict):
        enabled, disabled = plugins.get("enabled"), set(plugins.get("disabled") or ())
    if os.environ.get(AUTOLOAD_ENV, "").strip() not in ("", "0", "false", "False") and enabled is None:
        enabled = []
    return (list(enabled) if enabled is not None else None), disabled


def discover_entry_points() -> list[metadata.EntryPoint]:
    """Every entry point of the ``helia_aot`` group, in load order."""
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted(eps, key=lambda ep: (ep.name, ep.dist.name if ep.dist else ""))


class PluginHost:
    """The loaded plugins of one selection, and the calls into their hooks."""

    def __init__(self, records: list[PluginRecord], pm: pluggy.PluginManager) -> None:
        self.records = records
        self.pm = pm
        self._by_plugin = {rec.name: rec for rec in records}

    def _record_of(self, impl: pluggy.HookImpl) -> PluginRecord | None:
        return self._by_plugin.get(impl.plugin_name)

    def _call_each(self, hook_name: str, **kwargs: Any) -> list[tuple[PluginRecord | None, Any]]:
        """Call each implementation separately so a failure names its plugin."""
        results = []
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        for impl in sorted(impls, key=lambda i: self._order(i)):
            record = self._record_of(impl)
            args = {k: kwargs[k] for k in impl.argnames}
            try:
                results.append((record, impl.function(**args)))
            except (DuplicateRegistrationError, PluginError):
                raise
            except Exception as exc:  # a plugin's own bug: name the plugin, keep the cause
                who = record.label if record else f"plugin {impl.plugin_name!r}"
                raise PluginError(
                    f"{who} raised {type(exc).__name__} in {hook_name}: {exc}",
                    hint=f"upgrade or disable the plugin (plugins.disabled, or {AUTOLOAD_ENV}=1)",
                    details=traceback.format_exc(),
                ) from exc
        return results

    def _order(self, impl: pluggy.HookImpl) -> int:
        names = [r.name for r in self.records]
        return names.index(impl.plugin_name) if impl.plugin_name in names else len(names)

    def register_into(self, context: Any) -> None:
        """Run every plugin's ``helia_aot_register`` on ``context``, recording providers."""
        impls = self.pm.hook.helia_aot_register.get_hookimpls()
        for impl in sorted(impls, key=self._order):
            record = self._record_of(impl)
            label = record.label if record else f"plugin {impl.plugin_name!r}"
            with context.provided_by(label):
                try:
                    impl.function(context=context)
                except (DuplicateRegistrationError, PluginError):
                    raise
                except Exception as exc:
                    raise PluginError(
                        f"{label} raised {type(exc).__name__} in helia_aot_register: {exc}",
                        hint=f"upgrade or disable the plugin (plugins.disabled, or {AUTOLOAD_ENV}=1)",
                        details=traceback.format_exc(),
                    ) from exc
            if record is not None:
                record.registered = context.registered_by(label)

    def platforms(self) -> list[Any]:
        """Every platform record the plugins provide; two providers of one name is an error."""
        seen: dict[str, str] = {}
        platforms = []
        for record, provided in self._call_each("helia_aot_platforms"):
            label = record.label if record else "a plugin"
            for platform in provided or ():
                name = getattr(platform, "name", None)
                if not isinstance(name, str):
                    raise PluginError(f"{label} returned a platform without a name: {platform!r}")
                if name in seen:
                    raise DuplicateRegistrationError(
                        f"platform {name!r} is provided by both {seen[name]} and {label}",
                        hint="uninstall or disable one of the two plugins",
                    )
                seen[name] = label
                platforms.append(platform)
                if record is not None and name not in record.registered.setdefault("platforms", []):
                    record.registered["platforms"].append(name)
        return platforms

    def stage_started(self, stage: str, config: Any) -> None:
        self._call_each("helia_aot_stage_started", stage=stage, config=config)

    def stage_finished(self, stage: str, config: Any, seconds: float, details: dict[str, Any]) -> None:
        self._call_each(
            "helia_aot_stage_finished", stage=stage, config=config, seconds=seconds, details=details
        )


def load_plugins(plugins: Any = None, *, extra: Iterable[tuple[str, object]] = ()) -> PluginHost:
    """Import the selected plugins and return a host over them.

    ``plugins`` is the ``plugins`` configuration (``enabled``: only these names; ``disabled``: never
    these). With ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD=1`` only explicitly enabled plugins load.
    ``extra`` adds (name, object) plugins registered directly, such as an observer.
    """
    enabled, disabled = _selection(plugins)
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    from helia_aot import __version__, core_plugin

    # The core's own built-ins load first, always, through the same hooks as every plugin.
    core = PluginRecord("core", "helia-aot-core", __version__, core_plugin.__name__)
    pm.register(core_plugin, name=core.name)
    records: list[PluginRecord] = [core]
    available = discover_entry_points()
    names = {ep.name for ep in available}
    for wanted in enabled or ():
        if wanted not in names:
            raise InvalidConfigError(
                f"plugin {wanted!r} is not installed",
                hint=f"installed plugins: {', '.join(sorted(names)) or '(none)'}",
            )
    for ep in available:
        if ep.name in disabled or (enabled is not None and ep.name not in enabled):
            continue  # blocked plugins are never imported
        dist = ep.dist.name if ep.dist else "(unknown distribution)"
        version = ep.dist.version if ep.dist else "?"
        record = PluginRecord(ep.name, dist, version, ep.value)
        try:
            module = ep.load()
        except Exception as exc:
            raise PluginError(
                f"{record.label}: entry point {ep.name} = {ep.value!r} failed to import: "
                f"{type(exc).__name__}: {exc}",
                hint=f"reinstall {dist}, or block it with plugins.disabled: [{ep.name}] or {AUTOLOAD_ENV}=1",
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
    return PluginHost(records, pm)


_HOSTS: dict[Any, PluginHost] = {}


def plugin_host(plugins: Any = None) -> PluginHost:
    """A cached host for a selection (importing plugins once per process and selection)."""
    enabled, disabled = _selection(plugins)
    key = (tuple(enabled) if enabled is not None else None, tuple(sorted(disabled)))
    if key not in _HOSTS:
        _HOSTS[key] = load_plugins(plugins)
    return _HOSTS[key]


def reset_plugin_cache() -> None:
    """Forget loaded hosts (tests that install or remove distributions call this)."""
    _HOSTS.clear()


def list_plugins(plugins: Any = None) -> list[PluginRecord]:
    """The loaded plugins with every key each registered (builds a fresh context to find out)."""
    from helia_aot.registry.context import RegistryContext

    host = load_plugins(plugins)
    host.register_into(RegistryContext())
    host.platforms()
    return host.records


def collect_platforms(plugins: Any = None) -> list[Any]:
    """Every platform the selected plugins provide."""
    return plugin_host(plugins).platforms()
