"""bench/mutation_table.toml still describes the current sources, so the mutation score means something.

bench/mutation.py applies each row's change at the place the row names (a snippet, counted inside
the function whose signature line the row quotes). A refactor that moves, renames or rewrites that
code would make the row fail to apply; without this test the bench would only say so when someone
next ran it. So every row must apply to the sources as they are, yield a file that still parses
(Python) or compiles warning-free on the host (kernel headers), and name tests that exist.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helia_aot.testing import require_tools

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("mutation_bench", ROOT / "bench" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bench = _bench()
MUTANTS = bench.load_table()


def test_the_table_uses_every_mutation_kind_and_explains_each_equivalent():
    assert {m.kind for m in MUTANTS} == bench.KINDS
    for m in MUTANTS:
        assert m.equivalent is None or len(m.equivalent.split()) >= 6, m.name
    assert len(MUTANTS) >= 100
    assert {Path(m.path).name for m in MUTANTS} == {
        "hk_common.h",
        "hk_fixedpoint.h",
        "hk_requant.h",
        "placement.py",
        "liveness.py",
    }


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_applies_where_its_row_says(mutant):
    text = (ROOT / mutant.path).read_text()
    begin, end = bench.scope_span(text, mutant.scope)
    assert text[begin:end].count("\n") < 150, f"{mutant.scope!r} spans most of {mutant.path}"
    mutated = bench.mutate(text, mutant)
    assert mutated != text
    assert mutated[:begin] == text[:begin], "the change fell before its scope"
    if mutant.path.endswith(".py"):
        compile(mutated, mutant.path, "exec")


def test_the_test_groups_name_existing_tests():
    for tests in {m.tests for m in MUTANTS}:
        for node in tests:
            file, _, rest = node.partition("::")
            assert (ROOT / file).is_file(), node
            if rest:
                name = re.sub(r"\[.*\]$", "", rest)
                assert re.search(rf"^def {re.escape(name)}\(", (ROOT / file).read_text(), re.M), node


def test_every_kernel_mutant_compiles_on_the_host(tmp_path):
    # A mutant that does not build would be "killed" by any test that compiles it, for nothing.
    # Each mutated header sits alone in its own folder with a probe that includes it first (its
    # include guard then keeps the original out) and the other headers from the kernel folder;
    # one gcc call checks them all. The Helium and DSP paths are checked with the cross
    # compilers when the bench runs.
    require_tools("gcc")
    probes = []
    for m in (m for m in MUTANTS if m.path.endswith(".h")):
        folder = tmp_path / m.name
        folder.mkdir()
        name = Path(m.path).name
        (folder / name).write_text(bench.mutate((ROOT / m.path).read_text(), m))
        (folder / "probe.c").write_text(
            f'#include "{name}"\n#include "hk_requant.h"\n#include "hk_fixedpoint.h"\n'
        )
        probes.append(str(folder / "probe.c"))
    kernel_dir = ROOT / MUTANTS[0].path if MUTANTS[0].path.endswith(".h") else None
    assert kernel_dir is not None
    command = [
        "gcc",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fsyntax-only",
        "-I",
        str(kernel_dir.parent),
    ]
    run = subprocess.run([*command, *probes], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    ("text", "scope", "inside", "outside"),
    [
        ("int f(int a) { return a; }\nint g(void) { return 1; }\n", "int f(", "return a", "return 1"),
        (
            "HK int h(int a,\n          int b)\n{\n    return a < b;\n}\nint z;\n",
            "HK int h(",
            "a < b",
            "int z",
        ),
        (
            "class A:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n",
            "    def m(self):",
            "return 1",
            "return 2",
        ),
        ("#if X\nint k(void)\n{\n#if Y\n    return 3;\n#endif\n}\n#endif\nint w;\n", "int k(", "3", "int w"),
    ],
)
def test_a_scope_is_the_block_of_its_line(text, scope, inside, outside):
    begin, end = bench.scope_span(text, scope)
    assert inside in text[begin:end] and outside not in text[begin:end]


def test_a_stale_row_is_reported():
    row = MUTANTS[0]
    stale = bench.Mutant(**{**{f: getattr(row, f) for f in row.__dataclass_fields__}, "original": "@@"})
    with pytest.raises(bench.TableError, match="does not occur"):
        bench.mutate((ROOT / row.path).read_text(), stale)
    with pytest.raises(bench.TableError, match="expected exactly one"):
        bench.scope_span("int f(\nint f(\n", "int f(")
