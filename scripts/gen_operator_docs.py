"""Write the catalogue parts of docs/operators.md from the operator records (``--check`` only compares).

The operator table (key, element types, LiteRT keys) and the list of restrictions come from the
records the built-in pack registers, the same ones ``helia-aot ops`` prints, so the page cannot
drift from what a conversion accepts: a test runs ``render()`` and fails when the committed page
differs. The prose around the two generated blocks is kept as written. Run
``python scripts/gen_operator_docs.py`` after adding an operator or changing its
``SUPPORTED_DTYPES`` or ``RESTRICTIONS``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "operators.md"
DISTRIBUTION = "helia-aot-ops-builtin"
"""The page describes the built-in pack; operators other installed packs add are left out."""

try:
    from helia_aot.support import OperatorEntry, operator_catalogue
except ImportError:  # run from a checkout without installing the packages
    for src in ("helia_aot_core/src", "helia_aot_ops_builtin/src", "helia_aot_platforms_apollo/src"):
        sys.path.insert(0, str(ROOT / src))
    from helia_aot.support import OperatorEntry, operator_catalogue

REFUSED = "none: refused at Resolve"
BLOCKS = ("table", "restrictions")


def _marker(block: str, end: bool = False) -> str:
    what = "end" if end else "begin"
    return f"<!-- {what} generated {block}: scripts/gen_operator_docs.py, do not edit by hand -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(entries: list[OperatorEntry]) -> str:
    """One row per operator: key, types, and the LiteRT keys when they are not just the key."""
    lines = ["| operator | types | LiteRT keys |", "|---|---|---|"]
    for e in entries:
        types = e.types_text if e.dtypes else REFUSED
        keys = "same" if e.litert_keys == (e.operator,) else ", ".join(f"`{k}`" for k in e.litert_keys)
        lines.append(f"| `{e.operator}` | {types} | {keys} |")
    return "\n".join(lines)


def restrictions(entries: list[OperatorEntry]) -> str:
    """Each operator's restriction sentences, as Resolve checks them."""
    lines = []
    for e in entries:
        if not e.restrictions:
            lines.append(f"- `{e.operator}`: none beyond its types.")
            continue
        lines.append(f"- `{e.operator}`:")
        lines.extend(f"  - {_cell(sentence)}" for sentence in e.restrictions)
    return "\n".join(lines)


def generated(block: str, entries: list[OperatorEntry]) -> str:
    body = table(entries) if block == "table" else restrictions(entries)
    return f"{_marker(block)}\n{body}\n{_marker(block, end=True)}"


def builtin_entries() -> list[OperatorEntry]:
    return [e for e in operator_catalogue() if e.distribution == DISTRIBUTION]


def render(page: str | None = None) -> str:
    """The page with each generated block replaced by the records' current content."""
    text = DOC.read_text(encoding="utf-8") if page is None else page
    entries = builtin_entries()
    for block in BLOCKS:
        pattern = re.compile(
            re.escape(_marker(block)) + r".*?" + re.escape(_marker(block, end=True)), re.DOTALL
        )
        if not pattern.search(text):
            raise SystemExit(f"{DOC.relative_to(ROOT)} has no generated {block} block ({_marker(block)})")
        text = pattern.sub(lambda _m, b=block: generated(b, entries), text, count=1)
    return text


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    text = render(current)
    if "--check" in argv:
        if current != text:
            print(
                f"{DOC.relative_to(ROOT)} is out of date; run python scripts/gen_operator_docs.py",
                file=sys.stderr,
            )
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
