"""Every ``docs/<page>.md`` the code names exists, and so does the section a ``#anchor`` names.

Error hints send users to a page ("docs/configuration.md lists every key with its default"); a hint
pointing at a page that was never written, or was renamed, is a dead end at the moment the user
needs help. The scan covers the Python sources and templates of every distribution.
"""

from __future__ import annotations

import ast
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
TOPIC = re.compile(r"helia-aot docs ([a-z0-9][a-z0-9-]*)")
"""How a hint or a printed line sends a pip user to a page: ``helia-aot docs TOPIC`` prints
docs/TOPIC.md from the wheel."""


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
    # The configuration sections' docstring names docs/configuration.md; finding it shows the scan works.
    pages = {page for _, page, _ in _references()}
    assert "configuration.md" in pages


def test_every_docs_page_the_code_names_exists() -> None:
    missing = [
        f"{where}: docs/{page}" + (f"#{anchor}" if anchor else "")
        for where, page, anchor in _references()
        if not (DOCS / page).is_file() or (anchor and anchor not in _anchors(DOCS / page))
    ]
    assert missing == []


def _topics() -> list[tuple[str, str]]:
    """Every ``helia-aot docs TOPIC`` in the sources, the README and the pages themselves."""
    texts = [
        path
        for source in SOURCES
        for path in sorted(source.rglob("*"))
        if path.suffix in (".py", ".mako") and path.name != "schema_py_generated.py"
    ]
    texts += [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    return [
        (str(path.relative_to(ROOT)), match.group(1))
        for path in texts
        for match in TOPIC.finditer(path.read_text(encoding="utf-8"))
    ]


def test_every_docs_topic_named_is_a_page() -> None:
    topics = _topics()
    assert ("helia_aot_core/src/helia_aot/testing/profiling.py", "cycles") in topics  # the scan works
    missing = [
        f"{where}: helia-aot docs {topic}" for where, topic in topics if not (DOCS / f"{topic}.md").is_file()
    ]
    assert missing == []


def _hint_texts(tree: ast.AST) -> list[str]:
    """The string constants of every ``hint=`` argument and every ``*_HINT = ...`` assignment."""
    values: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "hint":
            values.append(node.value)
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id.endswith("_HINT") for target in node.targets
        ):
            values.append(node.value)
    return [
        part.value
        for value in values
        for part in ast.walk(value)
        if isinstance(part, ast.Constant) and isinstance(part.value, str)
    ]


def test_hints_send_no_pip_user_to_a_docs_page() -> None:
    """A hint is read by whoever installed the wheel, which has no docs/ folder: it names what
    they have (a command's --help, ``helia-aot docs TOPIC``, a package to install) or stands on
    its own."""
    pointing = [
        f"{path.relative_to(ROOT)}: {text!r}"
        for source in SOURCES
        for path in sorted(source.rglob("*.py"))
        if path.name != "schema_py_generated.py"
        for text in _hint_texts(ast.parse(path.read_text(encoding="utf-8")))
        if REFERENCE.search(text)
    ]
    assert pointing == []


def test_the_hint_scan_sees_the_configuration_hint() -> None:
    from helia_aot.config.loading import CONFIG_HINT

    path = ROOT / "helia_aot_core" / "src" / "helia_aot" / "config" / "loading.py"
    assert CONFIG_HINT in _hint_texts(ast.parse(path.read_text(encoding="utf-8")))
