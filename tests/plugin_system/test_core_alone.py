"""The core installed alone (no operator pack importable) rejects a real model, naming the pack.

The environment is the project's own site-packages minus the helia-aot-ops-builtin distribution
(its ``.pth`` and ``.dist-info``), rebuilt from symlinks and run with ``python -S``, so the core sees
exactly what a ``pip install helia-aot-core`` alone would give it.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"

SCRIPT = """
import site, sys
site.addsitedir(sys.argv[1])
sys.argv = ["helia-aot", "convert", "--model.path", sys.argv[2], "--module.path", sys.argv[3]]
from helia_aot.cli import main
main()
"""


def core_only_site(tmp_path: Path) -> Path:
    source = Path(sysconfig.get_paths()["purelib"])
    site = tmp_path / "site"
    site.mkdir()
    for entry in source.iterdir():
        if "ops_builtin" in entry.name:
            continue
        (site / entry.name).symlink_to(entry)
    return site


def test_core_alone_names_the_builtin_operator_pack(tmp_path):
    site = core_only_site(tmp_path)
    probe = subprocess.run(
        [
            sys.executable,
            "-S",
            "-c",
            "import site, sys; site.addsitedir(sys.argv[1]); import helia_aot_ops_builtin",
            str(site),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert probe.returncode != 0, "the operator pack must not be importable in this environment"
    proc = subprocess.run(
        [sys.executable, "-S", "-c", SCRIPT, str(site), str(MODEL), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    assert "helia-aot-ops-builtin" in proc.stderr
    assert "CONV_2D" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
