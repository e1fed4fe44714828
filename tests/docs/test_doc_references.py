"""Every ``docs/<page>.md`` the code names exists, and so does the section a ``#anchor`` names.

Error hints send users to a page ("docs/configuration.md lists every key with its default"); a hint
pointing at a page that was never written, or was renamed, is a dead end at the moment the user
needs help. The scan covers the Python sources and templates of every distribution.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SOURCES = [
    ROOT / "helia_aot_core" / "src",
    ROOT / "helia_aot_ops_builtin" / "src",
    ROOT / "helia_aot_platforms_apollo" / "src",
    ROOT / "plugins-example" / "src",
]
REFERENCE = re.compile(r"docs/([A-Za-z0-9_.-]+\.md)(?:#([a-z0-9-]+))?")


def _anchors(page: Path) -> set[str]:
    """GitHub-style anchors of a page's headings: lower case, punctuation dropped, spaces to '-'."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return anchors


def _references() -> list[tuple[str, str, str | None]]:
    found = []
    for source in SOURCES:
        for path in sorted(source.rglob("*")):
            if path.suffix not in (".py", ".mako") or path.name == "schema_py_generated.py":
                continue
            for match in REFERENCE.finditer(path.read_text(encoding="utf-8")):
                found.append((str(path.relative_to(ROOT)), match.group(1), match.group(2)))
    return found


def test_the_scan_finds_the_references_hints_make() -> None:
    # The configuration error hint names docs/configuration.md; finding it shows the scan works.
    pages = {page for _, page, _ in _references()}
    assert "configuration.md" in pages


def test_every_docs_page_the_code_names_exists() -> None:
    missing = [
        f"{where}: docs/{page}" + (f"#{anchor}" if anchor else "")
        for where, page, anchor in _references()
        if not (DOCS / page).is_file() or (anchor and anchor not in _anchors(DOCS / page))
    ]
    assert missing == []
