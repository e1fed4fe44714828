"""Plugins: pluggy hooks over the ``helia_aot`` entry-point group.

Write a plugin by implementing hooks from :mod:`helia_aot.plugins.hookspecs` with ``@hookimpl`` in a
module and declaring it under ``[project.entry-points.helia_aot]`` in your distribution. What the
plugins registered is listed by :func:`helia_aot.registry.list_plugins` (``helia-aot plugins``).
"""

from helia_aot.plugins.manager import (
    AUTOLOAD_ENV,
    CORE,
    ENTRY_POINT_GROUP,
    PluginHost,
    PluginRecord,
    PluginSelection,
    discover_entry_points,
    load_plugins,
    plugin_host,
    reset_plugin_cache,
    selection,
)
from helia_aot.plugins.markers import hookimpl

__all__ = [
    "AUTOLOAD_ENV",
    "CORE",
    "ENTRY_POINT_GROUP",
    "PluginHost",
    "PluginRecord",
    "PluginSelection",
    "discover_entry_points",
    "hookimpl",
    "load_plugins",
    "plugin_host",
    "reset_plugin_cache",
    "selection",
]
