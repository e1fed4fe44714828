"""Suite-wide test settings: deterministic property tests and the bundled model corpus."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helia_aot.testing.object_cache import CACHE_ENV
from hypothesis import HealthCheck, settings

# Hypothesis profiles, chosen with HELIA_AOT_HYPOTHESIS:
# - "ci" (the default): derandomized, so every run explores the same cases with each test's own
#   max_examples; the suite stays deterministic whatever the order or the xdist distribution.
# - "random": fresh random cases on every run (pytest's --hypothesis-seed=N repeats one), each
#   test's max_examples multiplied by HELIA_AOT_HYPOTHESIS_SCALE (default 4);
#   HELIA_AOT_HYPOTHESIS_ONLY=1 then deselects every test that is not a property test.
#   bench/hypothesis_random.py runs the property-test files this way and prints a summary.
_HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=_HEALTH
)
settings.register_profile(
    "random", derandomize=False, deadline=None, print_blob=True, suppress_health_check=_HEALTH
)
HYPOTHESIS_PROFILE = os.environ.get("HELIA_AOT_HYPOTHESIS", "ci")
if HYPOTHESIS_PROFILE not in ("ci", "random"):
    raise pytest.UsageError(
        f"HELIA_AOT_HYPOTHESIS={HYPOTHESIS_PROFILE!r} names no Hypothesis profile; use 'ci' or 'random'"
    )
settings.load_profile(HYPOTHESIS_PROFILE)


def budget_scale() -> int:
    """How many times each property test's max_examples the run explores (1 under "ci")."""
    if HYPOTHESIS_PROFILE != "random":
        return 1
    raw = os.environ.get("HELIA_AOT_HYPOTHESIS_SCALE", "4")
    if not raw.isdigit() or int(raw) < 1:
        raise pytest.UsageError(f"HELIA_AOT_HYPOTHESIS_SCALE={raw!r} must be a whole number >= 1")
    return int(raw)


def pytest_configure(config: pytest.Config) -> None:
    """Share compiled kernel objects between this run's module builds (helia_aot.testing.object_cache).

    The controller makes one cache folder per run (xdist workers inherit the variable), so no
    run depends on what an earlier one left; a cache the caller already names is kept as is.
    """
    if hasattr(config, "workerinput") or os.environ.get(CACHE_ENV):
        return
    folder = tempfile.mkdtemp(prefix="helia-aot-objects-")
    os.environ[CACHE_ENV] = folder
    config.add_cleanup(lambda: (os.environ.pop(CACHE_ENV, None), shutil.rmtree(folder, True)))


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {HYPOTHESIS_PROFILE}, budget x{budget_scale()}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under the "random" profile, multiply every property test's max_examples by the scale.

    A test's own ``@settings(max_examples=...)`` overrides any profile, so the budget is scaled
    on the collected test itself (Hypothesis reads these settings when the test runs).
    """
    scale = budget_scale()
    if scale == 1:
        return
    scaled: set[int] = set()
    others = []
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        if not getattr(test, "is_hypothesis_test", False):
            others.append(item)
            continue
        if id(test) in scaled:
            continue
        scaled.add(id(test))
        own = test._hypothesis_internal_use_settings
        test._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * scale)
    if others and os.environ.get("HELIA_AOT_HYPOTHESIS_ONLY") == "1":
        config.hook.pytest_deselected(items=others)
        items[:] = [item for item in items if item not in others]


# The ``cross`` and ``tools`` markers: a test whose toolchain is missing skips locally and fails
# when CI is set (helia_aot.testing.required_tools), so CI cannot go green by skipping; and under
# CI any other skip or xfail fails as well (helia_aot.testing.no_skips_under_ci).
pytest_plugins = ["helia_aot.testing.pytest_plugin", "helia_aot.testing.no_skips_under_ci"]

DATA_DIR = Path(__file__).parent / "data"
MODELS_DIR = DATA_DIR / "models"
GOLDEN_DIR = DATA_DIR / "golden"


def load_manifest() -> list[dict]:
    """The corpus manifest: one entry per bundled model (see tests/data/README.md)."""
    return json.loads((DATA_DIR / "manifest.json").read_text())


@pytest.fixture(scope="session")
def manifest() -> list[dict]:
    return load_manifest()
