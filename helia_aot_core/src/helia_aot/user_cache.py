"""The per-user cache folders a conversion may keep between runs (compiled templates, the
operator index): one rule for where they live and when they are off, so every cache follows it.

A cache only saves time: without a writable folder every run does the work again, so a failure to
create one is never an error.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(env: str, name: str) -> Path | None:
    """The folder ``$<env>`` names, else ``$XDG_CACHE_HOME/helia_aot/<name>`` (``~/.cache`` without
    it); None when ``$<env>`` is ``off`` or the folder cannot be created or written."""
    chosen = os.environ.get(env, "")
    if chosen.lower() == "off":
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "helia_aot" / name
    folder = Path(chosen) if chosen else base
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


__all__ = ["cache_folder"]
