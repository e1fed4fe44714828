"""Plugins: pluggy hooks over the ``helia_aot`` entry-point group.

Write a plugin by implementing hooks from :mod:`helia_aot.plugins.hookspecs` with ``@hookimpl`` in a
module and declaring it under ``[project.entry-points.helia_aot]`` in your distribution.
"""

from helia_aot.plugins.manager import (
    AUTOLOAD_ENV,
    ENTRY_POINT_GROUP,
    PluginHost,
    PluginRecord,
    collect_platforms,
    discover_entry_points,
    hookimpl,
    list_plugins,
    load_plugins,
    plugin_host,
    reset_plugin_cache,
)

__all__ = [
    "AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "PluginHost",
    "PluginRecord",
    "collect_platforms",
    "discover_entry_points",
    "hookimpl",
    "list_plugins",
    "load_plugins",
    "plugin_host",
    "reset_plugin_cache",
]
