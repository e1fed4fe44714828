"""Suite-wide test settings: deterministic property tests and the bundled model corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests are derandomized so every CI run explores the same cases (the suite must be
# deterministic); HELIA_AOT_HYPOTHESIS=explore turns the randomness back on for local digging.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(
    "explore" if __import__("os").environ.get("HELIA_AOT_HYPOTHESIS") == "explore" else "ci"
)

# The ``cross`` and ``tools`` markers: a test whose toolchain is missing skips locally and fails
# when CI is set (helia_aot.testing.required_tools), so CI cannot go green by skipping.
pytest_plugins = ["helia_aot.testing.pytest_plugin"]

DATA_DIR = Path(__file__).parent / "data"
MODELS_DIR = DATA_DIR / "models"
GOLDEN_DIR = DATA_DIR / "golden"


def load_manifest() -> list[dict]:
    """The corpus manifest: one entry per bundled model (see tests/data/README.md)."""
    return json.loads((DATA_DIR / "manifest.json").read_text())


@pytest.fixture(scope="session")
def manifest() -> list[dict]:
    return load_manifest()
