"""Packaging metadata of every distribution in the repository.

setuptools deprecates the ``license = { text = ... }`` table (builds stop being accepted in February
2027) and prints a warning on every install while it is there; a warning nobody reads is how such a
deadline is missed. These tests build each distribution's wheel the way ``pip`` does and fail on any
deprecation warning in the build log, and check that the distributions agree on what they promise:
one licence, one Python floor, one build requirement, a ``py.typed`` marker in every package.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# distribution directory -> the import package it ships ("" for the meta-distribution, which has none)
DISTRIBUTIONS = {
    ".": "",
    "helia_aot_core": "helia_aot",
    "helia_aot_ops_builtin": "helia_aot_ops_builtin",
    "helia_aot_platforms_apollo": "helia_aot_platforms_apollo",
    "helia_aot_frontend_onnx": "helia_aot_frontend_onnx",
    "plugins-example": "helia_aot_example_ops",
}

# setuptools' deprecation classes (SetuptoolsDeprecationWarning, BuildBackendWarning about deprecated
# keys, ...) and pip's own "DEPRECATION:" notices all say "deprecat"; any *Warning class name counts
# too. setuptools' lowercase distutils notices ("warning: build_py: byte-compiling is disabled") are
# informational and match neither.
_CLASS_WARNING = re.compile(r"\b[A-Z]\w*Warning\b")


def _pyproject(directory: str) -> dict:
    return tomllib.loads((ROOT / directory / "pyproject.toml").read_text())


def _copy_sources(directory: str, destination: Path) -> Path:
    """Copy a distribution's sources, without build leftovers, so the build writes nothing in the repo."""
    source = ROOT / directory
    target = destination / "src"
    if directory == ".":
        target.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy2(source / name, target / name)
        return target
    shutil.copytree(
        source,
        target,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache", "out"),
    )
    return target


@pytest.mark.parametrize("directory", sorted(DISTRIBUTIONS))
def test_wheel_builds_without_deprecation_warnings(directory: str, tmp_path: Path) -> None:
    source = _copy_sources(directory, tmp_path)
    wheels = tmp_path / "wheels"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--verbose",
            "--wheel-dir",
            str(wheels),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    log = completed.stdout + completed.stderr
    assert completed.returncode == 0, log
    flagged = [
        line.strip() for line in log.splitlines() if "deprecat" in line.lower() or _CLASS_WARNING.search(line)
    ]
    assert flagged == [], "\n".join(flagged)

    (wheel,) = wheels.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names
    package = DISTRIBUTIONS[directory]
    if package:
        assert f"{package}/py.typed" in names
    if package == "helia_aot":  # the pages `helia-aot docs TOPIC` prints to pip users
        pages = {name for name in names if name.startswith("helia_aot/pages/")}
        assert {f"helia_aot/pages/{page.name}" for page in (ROOT / "docs").glob("*.md")} == pages


def test_distributions_share_licence_python_floor_and_build_requirements() -> None:
    root = _pyproject(".")
    for directory in DISTRIBUTIONS:
        data = _pyproject(directory)
        project = data["project"]
        assert project["license"] == "Apache-2.0", directory
        assert project["license-files"] == ["LICENSE"], directory
        assert (ROOT / directory / "LICENSE").read_text() == (ROOT / "LICENSE").read_text(), directory
        assert project["requires-python"] == root["project"]["requires-python"] == ">=3.11", directory
        assert data["build-system"] == root["build-system"], directory
        assert data["build-system"]["requires"] == ["setuptools>=77"], directory


def test_every_package_carries_a_py_typed_marker() -> None:
    for directory, package in DISTRIBUTIONS.items():
        if package:
            assert (ROOT / directory / "src" / package / "py.typed").is_file(), package
