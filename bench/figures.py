"""The registry of the figures docs/ quotes (docs/figures.json), as bench scripts write it.

Every measured number a page quotes stands beside a ``<!-- fig: name -->`` marker, and
docs/figures.json holds, under that name, the numbers in the order the page quotes them, the
command that produced them, the day and the commit it ran at. tests/docs/test_figures.py checks
that each marked number equals the registry's, that no figure in docs/ goes unmarked, and
recomputes the cheap ones (arena and constant bytes, patch buffers) from a conversion. A bench
run with ``--write-figures`` rewrites the entries it produces; the page must then be edited to
the new numbers (the test names every one that differs), which is the point: a figure changes in
the docs only when the command that produces it ran.
"""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "docs" / "figures.json"

Number = int | float
MEASURED_CODE = ("helia_aot_core", "helia_aot_ops_builtin", "helia_aot_platforms_apollo")
"""The code a measurement depends on: a change elsewhere does not mark a figure dirty."""


def load(path: Path = REGISTRY) -> dict[str, dict[str, object]]:
    """The registry as a mapping of figure name -> entry."""
    return json.loads(path.read_text(encoding="utf-8"))


def current_commit() -> str:
    """The short hash the measurement ran at, with ``+dirty`` when the measured code (the three
    distributions' sources, not docs, tests or benches) had uncommitted changes."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", *MEASURED_CODE],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head}+dirty" if dirty else head


def write_figures(figures: Mapping[str, Sequence[Number]], command: str, path: Path = REGISTRY) -> list[str]:
    """Record ``figures`` (name -> the numbers in the order the docs quote them) as measured now
    by ``command``; returns the names whose numbers changed, for the caller to print."""
    registry = load(path) if path.exists() else {}
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    commit = current_commit()
    changed = []
    for name, values in figures.items():
        old = registry.get(name, {})
        numbers = [round(v, 6) if isinstance(v, float) else int(v) for v in values]
        if old.get("values") != numbers:
            changed.append(name)
        entry = {k: v for k, v in old.items() if k not in ("values", "source", "measured", "commit")}
        registry[name] = {"values": numbers, "source": command, "measured": today, "commit": commit, **entry}
    path.write_text(dumps(registry), encoding="utf-8")
    return changed


def report_written(changed: Sequence[str], path: Path = REGISTRY) -> None:
    """What a bench prints after ``--write-figures``."""
    where = path.relative_to(ROOT)
    if changed:
        print(f"{where}: {len(changed)} figure(s) changed, edit the docs to match: {', '.join(changed)}")
    else:
        print(f"{where}: figures unchanged")


def dumps(registry: Mapping[str, Mapping[str, object]]) -> str:
    """The registry as docs/figures.json keeps it: names sorted, one entry per line (a diff then
    shows which figures a bench run changed)."""
    lines = [f"  {json.dumps(name)}: {json.dumps(registry[name])}" for name in sorted(registry)]
    return "{\n" + ",\n".join(lines) + "\n}\n"
