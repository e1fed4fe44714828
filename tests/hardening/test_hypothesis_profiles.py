"""The suite's Hypothesis profiles: "ci" repeats itself exactly, "random" explores a bigger budget.

The profiles live in tests/conftest.py. Each check runs a child pytest over a one-test file next to
a copy of that conftest, the property test writing down the values it was given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

PROPERTY_TEST = textwrap.dedent(
    """
    import json, os
    from hypothesis import given, settings, strategies as st

    SEEN = []

    @settings(max_examples=10, database=None)
    @given(st.integers())
    def test_property(x):
        SEEN.append(x)
        with open(os.environ["SEEN_FILE"], "w") as f:
            json.dump(SEEN, f)
    """
)


def _run(tmp_path: Path, name: str, **env: str) -> list[int]:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "conftest.py").write_text(CONFTEST.read_text())
    (folder / "test_property.py").write_text(PROPERTY_TEST)
    seen = folder / "seen.json"
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("HELIA_AOT_HYPOTHESIS")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        + ["test_property.py"],
        cwd=folder,
        env={**child_env, **env, "SEEN_FILE": str(seen)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(seen.read_text())


def test_ci_profile_is_the_default_and_repeats_exactly(tmp_path):
    first = _run(tmp_path, "first")
    again = _run(tmp_path, "again", HELIA_AOT_HYPOTHESIS="ci")
    assert len(first) == 10  # the test's own budget
    assert first == again  # derandomized: the same cases every run


def test_random_profile_scales_the_budget_and_varies(tmp_path):
    a = _run(tmp_path, "a", HELIA_AOT_HYPOTHESIS="random", HELIA_AOT_HYPOTHESIS_SCALE="3")
    b = _run(tmp_path, "b", HELIA_AOT_HYPOTHESIS="random", HELIA_AOT_HYPOTHESIS_SCALE="3")
    assert len(a) == len(b) == 30  # 10 x 3
    assert a != b  # fresh random cases on each run


def test_an_unknown_profile_is_refused(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "conftest.py").write_text(CONFTEST.read_text())
    (folder / "test_property.py").write_text(PROPERTY_TEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_property.py"],
        cwd=folder,
        env={**os.environ, "HELIA_AOT_HYPOTHESIS": "explore", "SEEN_FILE": str(folder / "s.json")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "names no Hypothesis profile" in proc.stdout + proc.stderr
