"""No test skips its way to a green CI run, and no way to skip exists besides the required-tools one.

Two checks: a child pytest run with the suite's skip policy (helia_aot.testing.no_skips_under_ci)
shows that every kind of skip fails when ``CI`` is set and stays a skip otherwise; and a scan of
the suite's source (and of helia_aot.testing) finds no skip, skipif, xfail or importorskip outside
helia_aot.testing.required_tools, which is where a test that needs a tool goes.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import helia_aot.testing

TESTS = Path(__file__).resolve().parent
TESTING_PACKAGE = Path(helia_aot.testing.__file__).resolve().parent
MECHANISM = TESTING_PACKAGE / "required_tools.py"

SKIPPING = textwrap.dedent(
    """
    import sys
    import pytest

    def test_skip_call():
        pytest.skip("not today")

    @pytest.mark.skip(reason="marked")
    def test_skip_mark():
        pass

    @pytest.mark.skipif(sys.maxsize > 0, reason="always")
    def test_skipif_mark():
        pass

    @pytest.mark.xfail(reason="known")
    def test_xfail_mark():
        assert False

    def test_importorskip():
        pytest.importorskip("no_such_module_anywhere")

    @pytest.mark.parametrize("value", [])
    def test_empty_parametrization(value):
        pass

    def test_passes():
        assert True
    """
)
SKIPPED_TESTS = 6


def run_child(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --strict-markers\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "helia_aot.testing.no_skips_under_ci",
            "-p",
            "no:cacheprovider",
        ]
        + ["-p", "no:xdist", "-q", "-rA", "test_skipping.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_kind_of_skip_fails_under_ci(tmp_path):
    proc = run_child(tmp_path, "true")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # A skip raised in a test's call fails it; one a mark raises in setup is an error: both fail the run.
    assert proc.stdout.splitlines()[-1].startswith("3 failed, 1 passed, 3 errors"), proc.stdout
    assert "skipped" not in proc.stdout.splitlines()[-1] and "xfailed" not in proc.stdout, proc.stdout
    summary = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    assert len(summary) == SKIPPED_TESTS, proc.stdout
    assert all("skipped under CI: " in line for line in summary), proc.stdout
    for reason in ("not today", "marked", "always", "known", "no_such_module_anywhere", "empty"):
        assert reason in proc.stdout, (reason, proc.stdout)


def test_skips_stay_skips_without_ci(tmp_path):
    proc = run_child(tmp_path, "false")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed, 5 skipped, 1 xfailed" in proc.stdout, proc.stdout


SKIP_NAMES = frozenset({"skip", "skipif", "xfail", "importorskip", "skipTest", "SkipTest"})


def skip_uses(path: Path) -> list[str]:
    """``line: text`` of every use of a pytest or unittest skip/xfail in one source file.

    ``pytest.skip.Exception`` is the exception a skip raises (a test of the mechanism catches it),
    not a skip, so it is not counted.
    """
    tree = ast.parse(path.read_text(), str(path))
    catching = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "Exception"
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in SKIP_NAMES or id(node) in catching:
            continue
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if node.attr == "skipTest" or (isinstance(root, ast.Name) and root.id in ("pytest", "unittest")):
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.ImportFrom) and node.module in ("pytest", "unittest"):
            names = [alias.name for alias in node.names if alias.name in SKIP_NAMES]
            found += [f"{path}:{node.lineno}: from {node.module} import {name}" for name in names]
    return found


def test_the_only_skip_is_the_required_tools_one():
    sources = sorted(TESTS.rglob("*.py")) + sorted(TESTING_PACKAGE.rglob("*.py"))
    uses = [use for path in sources if path != MECHANISM for use in skip_uses(path)]
    assert uses == [], (
        "skip/skipif/xfail outside helia_aot.testing.required_tools: a test that needs a tool uses the "
        "cross/tools markers or helia_aot.testing.require; a case with nothing to check is not generated\n"
        + "\n".join(uses)
    )
    assert skip_uses(MECHANISM), "the scan no longer sees the mechanism's own pytest.skip"
