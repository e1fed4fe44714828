"""The README's first command runs: the bundled example converts, builds and matches LiteRT.

``bash scripts/setup.sh example`` runs ``scripts/run_example.py``; this runs the same script (with
the module written to a temporary folder instead of the repository's ``out/``) from another working
directory, so a change to how configuration paths resolve cannot break the README silently. The
example claims "bit for bit" only when the self-test's verdict is bit-exact: with golden data
altered by one step in one value it says "within tolerance" at tolerance 1 and fails at 0.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BIT_FOR_BIT = "match: the C module's outputs equal the LiteRT reference bit for bit"


def run_example(tmp_path: Path, *settings: str) -> subprocess.CompletedProcess[str]:
    sets = [arg for setting in settings for arg in ("--set", setting)]
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_example.py"), "--out", str(tmp_path / "out"), *sets],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_bundled_example_matches_the_reference(tmp_path):
    run = run_example(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "kws_test_case: PASS (3 sample(s), 12 output(s)): bit-exact" in run.stdout
    assert "kws_test_case: output 1 int8: 24000 compared, 0 differ, max diff 0: bit-exact" in run.stdout
    assert BIT_FOR_BIT in run.stdout
    assert (tmp_path / "out" / "kws_module" / "includes-api" / "kws_model.h").is_file()


def test_the_example_claims_bit_for_bit_only_when_it_was(tmp_path):
    golden = ROOT / "examples" / "kws" / "kws_int8_probe_golden.npz"
    with np.load(golden) as data:
        arrays = {key: data[key].copy() for key in data.files}
    scores = arrays["output_0"]  # int8 class scores of three samples
    index = (1,) + (0,) * (scores.ndim - 2) + (3,)
    scores[index] = scores[index] + (1 if scores[index] < 127 else -1)
    altered = tmp_path / "altered.npz"
    np.savez(altered, **arrays)
    run = run_example(tmp_path, f"test.golden_data={altered}", "test.tolerance=1")
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert (
        "kws_test_case: output 0 int8: 36 compared, 1 differ, max diff 1: within tolerance (|diff| <= 1)"
        in (run.stdout)
    )
    assert "kws_test_case: PASS (3 sample(s), 12 output(s)): within tolerance" in run.stdout
    assert "pass, within tolerance: some of the C module's outputs differ" in run.stdout
    assert "bit for bit" not in run.stdout
    run = run_example(tmp_path, f"test.golden_data={altered}")
    assert run.returncode == 1, run.stdout + run.stderr[-3000:]
    assert "kws_test_case: FAIL (3 sample(s), 12 output(s)): mismatch" in run.stdout
    assert "bit for bit" not in run.stdout
