"""register_default_aot_operators: fill a registry with the installed built-in operator classes.

The core ships no operator: they come from operator distributions (``helia-aot-ops-builtin``)
that a conversion loads as plugins. This layer sits below the plugin loader, so it reads the same
``helia_aot`` entry points directly, with the standard library's ``importlib.metadata`` the plugin
manager reads them with: an entry-point module that offers default operator classes
has a module-level ``aot_operator_classes()`` returning ``(key, class)`` pairs. Plugins blocked
by ``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD`` are skipped, as a default context skips them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the registry layer is above this one: annotations only
    from helia_aot.registry.registry import Registry

ENTRY_POINT_GROUP = "helia_aot"
_AUTOLOAD_OFF = "HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD"


def register_default_aot_operators(registry: Registry[type]) -> None:
    """Register (with overwrite) the operator class of every built-in key into ``registry``.

    ``registry`` is a :class:`helia_aot.registry.Registry` of operator classes (a context's
    ``aot_operator_classes``); entry points load in name order, so the result is deterministic.
    """
    if os.environ.get(_AUTOLOAD_OFF, "").strip() not in ("", "0", "false", "False"):
        return
    for entry in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        provide: Callable[[], Any] | None = getattr(entry.load(), "aot_operator_classes", None)
        if provide is None:
            continue
        for key, cls in provide():
            registry.register(key, cls, overwrite=True)


__all__ = ["register_default_aot_operators"]
