"""The README's quick subset names a marker that exists and is the one the QEMU tests carry.

``-m "not cross"`` would silently select everything if the marker were renamed (pytest runs with
``--strict-markers``, which rejects unknown marks on tests but not in a ``-m`` expression).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_subset_uses_the_registered_cross_marker() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r'^bash scripts/setup\.sh test -m "not (\w+)"', readme, re.MULTILINE)
    assert commands == ["cross"]
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"
    ]["markers"]
    cross = [marker for marker in markers if marker.split(":")[0] == commands[0]]
    assert cross and "qemu" in cross[0].lower()
    assert re.search(r"takes about \d+-\d+ minutes on two cores", readme)


def test_the_qemu_helpers_are_used_only_by_cross_marked_modules_or_tests() -> None:
    """Every test file that starts QEMU (run_qemu, profile_module, a --target m55/m4 run) marks
    something ``cross``; a file that forgot would make the quick subset start QEMU."""
    uses_qemu = re.compile(r"run_qemu|profile_module\(|\"--target\",\s*\"m(?:55|4)\"")
    unmarked = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if uses_qemu.search(text := path.read_text(encoding="utf-8")) and "mark.cross" not in text
    ]
    assert unmarked == []
