"""Throwaway plugin distributions: a package plus a ``.dist-info`` folder on a temporary path.

``importlib.metadata`` discovers them exactly as it discovers an installed wheel, so the loader is
tested end to end without pip.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path


def make_distribution(
    root: Path, dist: str, version: str, module: str, source: str, entry_name: str | None = None
) -> Path:
    """Write ``module.py`` and ``<dist>-<version>.dist-info`` with a ``helia_aot`` entry point."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[helia_aot]\n{entry_name or module} = {module}\n")
    (info / "RECORD").write_text("")
    return root


def forget_modules(*names: str) -> None:
    for name in names:
        sys.modules.pop(name, None)
