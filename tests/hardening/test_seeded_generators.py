"""Every test seeds its own random generator: no generator shared by a module, no global state.

A generator made at import time and drawn from by several tests gives each test different data
depending on which tests ran before it in the process, so a failure seen under xdist may not come
back alone. This check reads the source of tests/ and bench/ and refuses a module-level (or
class-level) statement that creates a generator, and any use of numpy's or ``random``'s global
state.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for folder in ("tests", "bench") for p in (ROOT / folder).rglob("*.py"))

GENERATOR_FACTORIES = {"default_rng", "Random", "RandomState", "Generator", "SeedSequence"}
GLOBAL_STATE = {"seed", "rand", "randn", "randint", "random", "normal", "uniform", "choice", "shuffle"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def shared_generator_problems(source: str, name: str = "<source>") -> list[str]:
    """Lines that create a generator outside a function, or touch a library's global generator."""
    tree = ast.parse(source, name)
    problems = []

    def outside_functions(body: list[ast.stmt]):
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                yield from outside_functions(stmt.body)
            elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                yield stmt

    def evaluated_now(node: ast.AST):
        """The node and its children, except lambda bodies (run later, on each call)."""
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.Lambda):
                yield from evaluated_now(child)

    for stmt in outside_functions(tree.body):
        for node in evaluated_now(stmt):
            if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] in GENERATOR_FACTORIES:
                problems.append(f"{name}:{node.lineno}: a generator created at import time is shared")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            head, _, tail = dotted.rpartition(".")
            if head in ("np.random", "numpy.random", "random") and tail in GLOBAL_STATE:
                problems.append(f"{name}:{node.lineno}: {dotted}() uses the library's global generator")
    return problems


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_shared_or_global_generator(path):
    assert shared_generator_problems(path.read_text(), str(path.relative_to(ROOT))) == []


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nRNG = np.random.default_rng(7)\n",
        "import random\nclass Case:\n    rng = random.Random(3)\n",
        "import numpy as np\ndef make():\n    return np.random.randint(0, 4)\n",
        "import random\ndef make():\n    random.seed(1)\n",
    ],
)
def test_the_check_catches_a_shared_generator(source):
    assert shared_generator_problems(source)


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\ndef test_x():\n    rng = np.random.default_rng(7)\n    rng.integers(0, 4)\n",
        "import numpy as np\nMAKE = lambda: np.random.default_rng(1).integers(0, 4)\n",
    ],
)
def test_a_generator_made_per_call_is_fine(source):
    assert shared_generator_problems(source) == []
