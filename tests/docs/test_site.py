"""docs/ builds as a site (mkdocs.yml: MkDocs Material, mkdocstrings) with no warning, and the
generated reference pages are current: the command line (scripts/gen_cli_reference.py) and the
API reference, which renders every name of the public API manifest with its docstring."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages(entries: list) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """A broken link, a missing anchor or an API name mkdocstrings cannot find fails the build."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    api = (tmp_path / "site" / "api-reference" / "index.html").read_text(encoding="utf-8")
    assert "Convert a LiteRT model" in (tmp_path / "site" / "cli-reference" / "index.html").read_text()
    assert 'id="helia_aot.errors.HeliaAotError"' in api


def test_the_navigation_lists_every_page() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    listed = _nav_pages(config["nav"])
    assert sorted(listed) == sorted(page.name for page in DOCS.glob("*.md"))


def test_the_cli_reference_is_current() -> None:
    generator = _load(ROOT / "scripts" / "gen_cli_reference.py")
    committed = (DOCS / "cli-reference.md").read_text(encoding="utf-8")
    assert committed == generator.render(), "run: python scripts/gen_cli_reference.py"


def test_the_cli_reference_has_every_command_and_option() -> None:
    text = _load(ROOT / "scripts" / "gen_cli_reference.py").render()
    for command in ("convert", "test", "profile", "sweep", "ops", "check", "platforms show"):
        assert f"## `helia-aot {command}`" in text
    for flag in ("--model.path", "--memory.planner", "--target", "--vary", "--json"):
        assert f"`{flag}`" in text


def test_the_api_reference_renders_every_manifest_name() -> None:
    """Each name of the manifest (tests/core/test_product_python_api.py) and of ``helia_aot.__all__``
    has a ``::: path`` directive: under its public module, or where it is defined when the package
    resolves it lazily (griffe reads sources and cannot follow a module ``__getattr__``)."""
    manifest = _load(ROOT / "tests" / "core" / "test_product_python_api.py").MANIFEST
    facade = importlib.import_module("helia_aot")
    names = {(module, name) for module, names in manifest.items() for name in names}
    names |= {("helia_aot", name) for name in facade.__all__ if not name.startswith("_")}
    rendered = set(re.findall(r"^::: ([\w.]+)$", (DOCS / "api-reference.md").read_text(), re.MULTILINE))
    missing = []
    for module, name in sorted(names):
        value = getattr(importlib.import_module(module), name)
        defined = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
        if f"{module}.{name}" not in rendered and defined not in rendered:
            missing.append(f"{module}.{name}")
    assert missing == []
