"""The README's first command runs: the bundled example converts, builds and matches LiteRT.

``bash scripts/setup.sh example`` runs ``scripts/run_example.py``; this runs the same script (with
the module written to a temporary folder instead of the repository's ``out/``) from another working
directory, so a change to how configuration paths resolve cannot break the README silently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_bundled_example_matches_the_reference(tmp_path):
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_example.py"), "--out", str(tmp_path / "out")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "kws_test_case: PASS (3 sample(s), 12 output(s))" in run.stdout
    assert "match: the C module's outputs equal the LiteRT reference bit for bit" in run.stdout
    assert (tmp_path / "out" / "kws_module" / "includes-api" / "kws_model.h").is_file()
