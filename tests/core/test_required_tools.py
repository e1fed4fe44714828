"""A test whose toolchain is missing skips on a developer's machine and fails under CI.

The rule (helia_aot.testing.required_tools): with the environment variable ``CI`` set, a missing
arm-none-eabi-gcc, qemu-system-arm or marked host tool is a failure, so a CI machine without its
toolchain cannot turn the on-target tests into a green run of skips. Each check here strips PATH to
an empty folder, the break CI would suffer, and looks at what the helper or the marker does.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from helia_aot.testing import MissingToolError, require_toolchain, require_tools, running_in_ci
from helia_aot.testing.cross import toolchain_problem


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, False),
        ("", False),
        ("0", False),
        ("false", False),
        ("FALSE", False),
        ("true", True),
        ("1", True),
    ],
)
def test_ci_is_any_value_but_an_explicit_off(value, expected):
    environ = {} if value is None else {"CI": value}
    assert running_in_ci(environ) is expected


@pytest.fixture
def no_tools(tmp_path, monkeypatch):
    """PATH names one empty folder; the toolchain lookup is redone before and after."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    toolchain_problem.cache_clear()
    yield
    monkeypatch.undo()
    toolchain_problem.cache_clear()


def test_missing_toolchain_fails_under_ci(no_tools, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(MissingToolError, match=r"arm-none-eabi-gcc.*qemu-system-arm.*CI is set"):
        require_toolchain()
    with pytest.raises(MissingToolError, match=r"missing cmake on PATH"):
        require_tools("cmake")


def test_missing_toolchain_skips_without_ci(no_tools, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"install_cross_toolchain\.sh"):
        require_toolchain()
    with pytest.raises(pytest.skip.Exception, match=r"missing cmake"):
        require_tools("cmake")


def test_present_tools_neither_skip_nor_fail(monkeypatch):
    monkeypatch.setenv("CI", "true")
    require_tools(sys.executable)  # an absolute path to an executable is found


MARKED = textwrap.dedent(
    """
    import pytest

    @pytest.mark.cross
    def test_on_target():
        pass

    @pytest.mark.tools("cmake")
    def test_with_cmake():
        pass
    """
)


def _run_marked(tmp_path, ci: str | None) -> subprocess.CompletedProcess:
    """Run two marked tests in a child pytest with an empty PATH, through the pack plugin."""
    (tmp_path / "test_marked.py").write_text(MARKED)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --strict-markers\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    env = {"PATH": str(empty), "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "helia_aot.testing.pytest_plugin", "-p", "no:cacheprovider"]
        + ["-p", "no:xdist", "-q", "-rA", "test_marked.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_markers_fail_the_run_under_ci(tmp_path):
    proc = _run_marked(tmp_path, "true")
    assert proc.returncode != 0, proc.stdout
    assert "2 errors" in proc.stdout and "skipped" not in proc.stdout, proc.stdout
    assert proc.stdout.count("MissingToolError") >= 2, proc.stdout


def test_markers_skip_with_a_reason_without_ci(tmp_path):
    proc = _run_marked(tmp_path, None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 skipped" in proc.stdout, proc.stdout
    assert "install_cross_toolchain.sh" in proc.stdout and "missing cmake" in proc.stdout, proc.stdout
