"""The ledger of hand-written speed (docs/architecture.md) names files that exist.

Each row of "Hand-written where a library exists" names the piece, the test that pins it to its
library and how to delete it; a row whose piece or test was deleted or moved would send a reader
to nothing. Rows marked deleted name their test as it was (``was ...``) and are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "helia_aot_core" / "src" / "helia_aot"


def ledger_rows() -> list[list[str]]:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Hand-written where a library exists", 1)[1].split("\n## ", 1)[0]
    lines = [
        line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| piece")
    ]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_every_kept_piece_and_its_pinning_test_exist():
    rows = ledger_rows()
    assert len(rows) >= 4
    for piece, _library, gain, pinned_by, delete in rows:
        assert re.search(r"\d+(\.\d+)? ms", gain), piece  # a measured figure, not a claim
        if delete.startswith("deleted"):
            continue
        tests = re.findall(r"`(tests/[\w/]+\.py)`", pinned_by)
        assert tests and all((ROOT / t).is_file() for t in tests), piece
        modules = re.findall(r"`([\w/]+\.py)`", piece)
        assert modules and all((CORE / m).is_file() for m in modules), piece


def test_the_ledger_names_its_benchmark():
    assert (ROOT / "bench" / "handwritten_ledger.py").is_file()
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "`bench/handwritten_ledger.py`" in page
