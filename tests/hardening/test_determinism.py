"""The same model and configuration give byte-identical modules, whatever the process around them.

Two fresh interpreters, with different ``PYTHONHASHSEED`` values (so set and dict-of-str orders
differ), working directories, temporary folders and model path spellings, convert the four MLPerf
Tiny int8 models (one of them into a ``.zip``), with the self test and the residency report on.
Every file must match byte for byte, and none may mention a folder of either run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
MODELS = sorted(p.name for p in (DATA / "models").glob("mlperf_*_int8.tflite"))

_SCRIPT = """
import json, sys
from helia_aot import AotConverter, ConvertArgs
for job in json.loads(sys.argv[1]):
    config = {"model": {"path": job["model"]}, "module": {"path": job["out"], "name": job["name"]},
              "test": {"enabled": True, "samples": 2}, "memory": {"dump_residency_json": True}}
    AotConverter(ConvertArgs.model_validate(config)).convert()
"""


def start_run(root: Path, cwd: Path, hash_seed: str, relative_model: bool) -> subprocess.Popen:
    cwd.mkdir(parents=True)
    (root / "tmp").mkdir()
    jobs = []
    for name in MODELS:
        model = DATA / "models" / name
        stem = Path(name).stem
        jobs.append(
            {
                "model": os.path.relpath(model, cwd) if relative_model else str(model),
                "out": "out/model.zip" if stem.startswith("mlperf_kws") else "out",
                "name": stem,
            }
        )
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, TMPDIR=str(root / "tmp"))
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, json.dumps(jobs)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_conversions_are_byte_identical_across_processes(tmp_path):
    runs = [
        (tmp_path / "a", tmp_path / "a" / "work", "0", False),
        (tmp_path / "b", tmp_path / "b" / "deeper" / "work dir", "4242", True),
    ]
    procs = []
    for root, cwd, seed, relative in runs:
        root.mkdir()
        procs.append(start_run(root, cwd, seed, relative))
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-4000:]
    first, second = (files(cwd / "out") for _, cwd, _, _ in runs)
    assert sorted(first) == sorted(second) and len(first) > 40 * len(MODELS) // 2
    assert "model.zip" in first and sum(name.endswith("_model.c") for name in first) == len(MODELS) - 1
    different = [name for name in first if first[name] != second[name]]
    assert different == [], different
    for content in first.values():
        for root, _cwd, _, _ in runs:
            assert str(root).encode() not in content and b"/work dir" not in content
