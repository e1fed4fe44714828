"""The pluggy markers of the ``helia_aot`` project: ``hookspec`` for the core, ``hookimpl`` for plugins.

They live apart from the loader so the hook specifications, the core's own built-ins and every
plugin can mark functions without importing the machinery that loads them.
"""

from __future__ import annotations

import pluggy

PROJECT = "helia_aot"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["PROJECT", "hookimpl", "hookspec"]
