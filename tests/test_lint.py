"""Lint and static types, run as tests so the README's test command enforces them.

ruff (rules and formatter) and mypy come from the core's ``test`` extra, pinned, and read their
configuration from the root ``pyproject.toml``: ruff checks the whole repository, mypy checks the
core (``helia_aot``), the built-in operator pack (``helia_aot_ops_builtin``), the Apollo
platform pack (``helia_aot_platforms_apollo``) and the ONNX front end (``helia_aot_frontend_onnx``)
in strict mode.
Each test prints the tool's own report when it fails, which names every file and line to fix.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_rules_and_formatting_are_clean() -> None:
    check = _run("ruff", "check", "--no-fix", ".")
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = _run("ruff", "format", "--check", ".")
    assert fmt.returncode == 0, "run `ruff format .`:\n" + fmt.stdout + fmt.stderr


MYPY_CHECKED = (
    "helia_aot_core/src/helia_aot",
    "helia_aot_ops_builtin/src/helia_aot_ops_builtin",
    "helia_aot_platforms_apollo/src/helia_aot_platforms_apollo",
    "helia_aot_frontend_onnx/src/helia_aot_frontend_onnx",
)


def test_core_and_packs_type_check_under_mypy_strict() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True and set(MYPY_CHECKED) <= set(config["files"]), config
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
