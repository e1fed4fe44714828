"""Building a RegistryContext from the installed plugins, and listing what each plugin registered.

This is the layer above the plugin loader: the context types below it know nothing of plugins, and
every collection of extensions (a conversion, platform lookup, ``helia-aot plugins``,
``helia-aot platforms``) is a context built here for one plugin selection.
"""

from __future__ import annotations

from collections.abc import Sequence

from helia_aot.platforms.lookup import script_platforms
from helia_aot.plugins.manager import PluginRecord, Selection, load_plugins, plugin_host
from helia_aot.registry.context import Customizer, RegistryContext


def build_default_registry_context(
    customizers: Sequence[Customizer] | None = None,
    allow_override: bool = False,
    freeze: bool = True,
    *,
    plugins: Selection = None,
) -> RegistryContext:
    """Build a context from the built-ins, apply ``customizers`` in order, then freeze it.

    Built-ins are everything the selected plugins register (the core's own planners and exporters
    included). A customizer that replaces or removes a built-in makes construction fail with
    DuplicateRegistrationError unless ``allow_override`` is true; new keys are always fine.
    ``plugins`` selects plugins by name (an object with ``enabled`` / ``disabled``, such as
    ``ConvertArgs.plugins``, or a mapping with those keys); by default every installed plugin
    loads, subject to ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD``. A blocked plugin is never imported.
    """
    context = RegistryContext()
    plugin_host(plugins).register_into(context)
    with context.provided_by("register_platform"):
        for platform in script_platforms():
            context.platforms.register(platform.name, platform)
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


def list_plugins(plugins: Selection = None) -> list[PluginRecord]:
    """Every installed plugin with what it registers, blocked ones last (``helia-aot plugins``).

    The selected plugins are loaded afresh and registered into a new context to find out what
    each provides; blocked ones are listed with ``status == "blocked"`` and nothing registered,
    since listing them must not import them.
    """
    host = load_plugins(plugins)
    host.register_into(RegistryContext())
    return [*host.records, *host.blocked]


__all__ = ["build_default_registry_context", "list_plugins"]
