"""pytest fixtures for operator-pack authors.

Enable them in the pack's ``pyproject.toml`` (``addopts = "-p helia_aot.testing.pytest_plugin"``)
or in its top-level ``conftest.py`` (``pytest_plugins = ["helia_aot.testing.pytest_plugin"]``).
Each fixture is a function bound to the test's temporary directory:

- ``aot_convert(model, pack=..., operators=[...], ...)`` converts and returns the ConversionResult;
- ``aot_golden(model, golden_data, pack=..., ...)`` also builds the module on the host with
  sanitizers and runs its self test, returning a GoldenRun (``.assert_passed()``);
- ``aot_pack_contract(pack, samples=[...])`` returns the PackContractReport (``.assert_ok()``).

Two markers name what a test needs: ``cross`` (arm-none-eabi-gcc with newlib, qemu-system-arm)
and ``tools("cmake", ...)`` (host executables). A test whose tools are missing is skipped, saying
what to install, except when the environment variable ``CI`` is set: then it fails, so a CI
machine without its toolchain cannot pass by skipping (see ``helia_aot.testing.required_tools``).

``pack`` is the installed pack's entry-point or distribution name, its plugin module or a
customizer; leave it out to use whatever is installed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helia_aot.plugins.manager import discover_entry_points
from helia_aot.testing.contract import PackContractReport, check_pack_contract
from helia_aot.testing.packs import GoldenRun, convert_model, run_golden
from helia_aot.version import __version__


def pytest_configure(config: pytest.Config) -> None:
    """Declare the markers, so ``--strict-markers`` accepts them."""
    config.addinivalue_line("markers", "cross: needs arm-none-eabi-gcc with newlib and qemu-system-arm")
    config.addinivalue_line("markers", "tools(*names): needs these executables on PATH")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (locally) or fail (under CI) a test whose marked tools are missing."""
    from helia_aot.testing.cross import require_toolchain
    from helia_aot.testing.required_tools import require_tools

    if item.get_closest_marker("cross") is not None:
        require_toolchain()
    for marker in item.iter_markers("tools"):
        require_tools(*marker.args)


def pytest_report_header(config: pytest.Config) -> str:
    """Name the helia-aot release and the installed plugins, for bug reports."""
    plugins = ", ".join(
        f"{ep.name} ({ep.dist.name if ep.dist else '?'} {ep.dist.version if ep.dist else '?'})"
        for ep in discover_entry_points()
    )
    return f"helia-aot {__version__}; plugins: {plugins or '(none)'}"


def _numbered(root: Path, stem: str) -> Callable[[], Path]:
    counter = itertools.count()
    return lambda: root / f"{stem}{next(counter)}"


@pytest.fixture
def aot_convert(tmp_path: Path) -> Callable[..., Any]:
    """Convert a model with a pack into a fresh folder under the test's temporary directory."""
    folder = _numbered(tmp_path, "convert")

    def convert(model: str | Path, **options: Any) -> Any:
        return convert_model(model, folder(), **options)

    return convert


@pytest.fixture
def aot_golden(tmp_path: Path) -> Callable[..., GoldenRun]:
    """Convert with a self test on golden data, build on the host and run it."""
    folder = _numbered(tmp_path, "golden")

    def golden(model: str | Path, golden_data: str | Path, **options: Any) -> GoldenRun:
        return run_golden(model, golden_data, folder(), **options)

    return golden


@pytest.fixture
def aot_pack_contract(tmp_path: Path) -> Callable[..., PackContractReport]:
    """Check a pack's registrations, templates and emitted C on sample models."""

    def contract(pack: Any, **options: Any) -> PackContractReport:
        options.setdefault("work_dir", tmp_path)
        return check_pack_contract(pack, **options)

    return contract
