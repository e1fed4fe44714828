"""plugins-example reaches the core only through the API manifest's modules and helia_aot.pack.

The example pack is written the way a third party writes one, so it is the check that the pack
authoring surface is complete: the pack's code imports names only from the modules the API
manifest lists (docs/python-api.md) and from ``helia_aot.pack``; its tests and example scripts
may also use ``helia_aot.testing``, the documented test kit. Every ``import`` and ``from ...
import`` statement of every Python file is read with ``ast``, function bodies included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "plugins-example"

MANIFEST_MODULES = frozenset(
    {
        "helia_aot",
        "helia_aot.air",
        "helia_aot.aot.operators",
        "helia_aot.errors",
        "helia_aot.interpreters",
        "helia_aot.memory",
        "helia_aot.optimization",
        "helia_aot.platforms",
        "helia_aot.registry",
        "helia_aot.views",
    }
)
"""The modules the API manifest lists names for (the seed Python API page)."""
PACK_CODE_MODULES = MANIFEST_MODULES | {"helia_aot.pack"}
TEST_MODULES = PACK_CODE_MODULES | {"helia_aot.testing"}


def core_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every import of a ``helia_aot`` module in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        found += [(node.lineno, m) for m in modules if m == "helia_aot" or m.startswith("helia_aot.")]
    return found


def stray_imports(folder: Path, allowed: frozenset[str]) -> list[str]:
    return [
        f"{path.relative_to(PACK)}:{line}: {module}"
        for path in sorted(folder.rglob("*.py"))
        for line, module in core_imports(path)
        if module not in allowed
    ]


@pytest.mark.parametrize(
    "folder, allowed",
    [("src", PACK_CODE_MODULES), ("tests", TEST_MODULES), ("example", TEST_MODULES)],
)
def test_the_example_pack_imports_only_the_authoring_surface(folder, allowed):
    files = sorted((PACK / folder).rglob("*.py"))
    assert files, f"plugins-example/{folder} holds no Python file"
    assert any(core_imports(path) for path in files), f"plugins-example/{folder} imports no core module"
    assert stray_imports(PACK / folder, allowed) == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(
        "import helia_aot.pack\n"
        "from helia_aot.air import AirModel\n"
        "from . import sibling\n"
        "def late():\n"
        "    from helia_aot.converters.litert import schema_access\n"
        "    import helia_aot.codegen.templates as t\n"
    )
    assert core_imports(source) == [
        (1, "helia_aot.pack"),
        (2, "helia_aot.air"),
        (5, "helia_aot.converters.litert"),
        (6, "helia_aot.codegen.templates"),
    ]


def test_every_manifest_module_and_the_pack_surface_import():
    import importlib

    for module in sorted(TEST_MODULES):
        importlib.import_module(module)
