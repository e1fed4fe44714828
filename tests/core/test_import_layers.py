"""The core's modules form layers without import cycles (docs/architecture.md, "Layers").

Every import inside ``helia_aot`` counts, at module level or inside a function (an import inside a
function only defers a cycle, it does not remove it), and so does ``importlib.import_module`` of a
literal name (a deferred import spelled as a call: ``cli.launch`` importing ``cli.app`` that way
while ``cli.app`` imported ``cli.launch`` was a cycle the statements alone did not show); imports
under ``if TYPE_CHECKING:`` are aside, since they never run. Importing ``a.b.c`` also runs the
``__init__`` of ``a.b``, so each module depends on its parent packages too, except the root
``helia_aot``: the facade, which imports its public names lazily (PEP 562) and nothing else at
module level, as a test below checks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "helia_aot_core" / "src"
ROOT = "helia_aot"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "helia_aot.errors",
            "helia_aot.version",
            "helia_aot.user_cache",
            "helia_aot.lazy_names",
            "helia_aot.command_start",
        ),
    ),
    (
        "models",
        (
            "helia_aot.air",
            "helia_aot.litert",
            "helia_aot.platforms",
            "helia_aot.memory",
            "helia_aot.codegen",
            "helia_aot.optimization",
            "helia_aot.views",
            "helia_aot.config",
            "helia_aot.interpreters",
            "helia_aot.golden",
            "helia_aot.converters",
            "helia_aot.attributes",
            "helia_aot.defines",
        ),
    ),
    ("operators and exporters", ("helia_aot.aot", "helia_aot.exporters")),
    ("registry types", ("helia_aot.registry.registry", "helia_aot.registry.context")),
    (
        "hook markers and specs",
        ("helia_aot.plugins.markers", "helia_aot.plugins.hookspecs", "helia_aot.core_plugin"),
    ),
    ("plugin manager", ("helia_aot.plugins",)),
    ("context building", ("helia_aot.registry",)),
    ("pack authoring surface", ("helia_aot.pack",)),
    ("stages", ("helia_aot.pipeline",)),
    ("converter", ("helia_aot.converter",)),
    (
        "script surface",
        (
            "helia_aot.transforms",
            "helia_aot.sweeps",
            "helia_aot.sweeps_dask",
            "helia_aot.shared_arena",
            "helia_aot.support",
        ),
    ),
    ("command line and testing", ("helia_aot.cli", "helia_aot.testing", "helia_aot.validation")),
    ("facade", (ROOT,)),
]
"""Lowest first, as docs/architecture.md lists them; a module belongs to its longest prefix here."""


def modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in sorted((SOURCE / ROOT).rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_module_literal(node: ast.AST) -> str | None:
    """``x`` of a call ``importlib.import_module("x")`` (or ``import_module("x")``), else None."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    value = node.args[0].value
    return value if called == "import_module" and isinstance(value, str) else None


def imports(name: str, path: Path, package: bool, known: set[str]) -> set[str]:
    """The ``helia_aot`` modules ``name`` imports anywhere outside ``if TYPE_CHECKING:``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    here = name.split(".") if package else name.split(".")[:-1]
                    here = here[: len(here) - child.level + 1]
                    base = ".".join([*here, base] if base else here)
                # `from a import b` reads b from a, unless b is a module: then it imports a.b, and
                # a only as the parent package every import of a.b runs.
                submodules = [f"{base}.{alias.name}" for alias in child.names]
                targets = [base] if not all(m in known for m in submodules) else []
                targets += submodules
            elif literal := _import_module_literal(child):
                targets = [literal]
            found.update(t for t in targets if t in known and t != name)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(explicit imports, explicit imports plus the parent packages each import runs)."""
    found = modules()
    known = set(found)
    explicit = {name: imports(name, path, package, known) for name, (path, package) in found.items()}
    full = {name: set(edges) for name, edges in explicit.items()}
    for name in found:
        parts = name.split(".")
        full[name].update(".".join(parts[:i]) for i in range(2, len(parts)))
    return explicit, full


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def cycles() -> list[list[str]]:
    """The import cycles that can break an import.

    A package's ``__init__`` importing its own submodules, which in turn run that ``__init__``, is
    how packages work and not a cycle; everything else is: a loop of explicit imports, or a loop
    through a parent package that leaves the package.
    """
    explicit, full = graph()
    found = [sorted(c) for c in components(explicit)]
    for component in components(full):
        if any(set(component) <= set(c) for c in found):
            continue
        packages = [m for m in component if all(_inside(other, m) for other in component)]
        if not packages:
            found.append(component)
    return found


def layer_of(name: str) -> int:
    best = (-1, -1)
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _inside(name, prefix) and len(prefix) > best[1]:
                best = (number, len(prefix))
    assert best[0] >= 0, f"{name} is in no layer: add it to LAYERS and docs/architecture.md"
    return best[0]


def test_no_import_cycles():
    assert cycles() == []


def test_a_call_to_import_module_counts_as_an_import(tmp_path):
    """The check that would have caught ``cli.app`` <-> ``cli.launch``: a literal
    ``importlib.import_module`` is an edge of the graph like an import statement."""
    path = tmp_path / "launch.py"
    path.write_text(
        "import importlib\n"
        "def app():\n"
        "    return importlib.import_module('pkg.app').app\n"
        "def other(name):\n"
        "    return importlib.import_module(name)\n"
    )
    found = imports("pkg.launch", path, False, {"pkg", "pkg.app", "pkg.launch"})
    assert found == {"pkg.app"}
    assert components({"pkg.launch": found, "pkg.app": {"pkg.launch"}}) == [["pkg.app", "pkg.launch"]]


def test_a_lower_layer_never_imports_a_higher_one():
    explicit, _ = graph()
    wrong = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in sorted(explicit.items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(name)
    ]
    assert wrong == []


def test_the_facade_imports_nothing_eagerly_but_the_foundation():
    """The start-up interrupt handler, the version and the lazy-name helper: none imports a
    third-party package."""
    tree = ast.parse((SOURCE / ROOT / "__init__.py").read_text(encoding="utf-8"))
    eager = [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(ROOT)
    ]
    assert eager == ["helia_aot.command_start", "helia_aot.lazy_names", "helia_aot.version"]


def test_the_architecture_page_lists_the_layers():
    page = (SOURCE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Layers", 1)[1].split("\n## ", 1)[0]
    positions = [section.find(f"**{title}**") for title, _ in LAYERS]
    assert -1 not in positions and positions == sorted(positions)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"]]),
    ],
)
def test_components_find_loops(edges, expected):
    assert components(edges) == expected
