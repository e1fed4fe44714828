"""The ``onnx_modules`` fixture: the model of every ONNX_* single-operator graph converted, built
and run once per test run (see onnx_single_ops.py); the module and its self test's lines.

Under pytest-xdist each worker has its own session, and the per-operator test files land on
both workers: the first worker to ask builds the module in the run's shared temporary folder
(under a lock), the other reads what it wrote, so the run pays for one build.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

from ops_builtin.onnx_requant.onnx_single_ops import ModuleRun, run_all


@pytest.fixture(scope="session")
def onnx_modules(tmp_path_factory, request) -> ModuleRun:
    if not hasattr(request.config, "workerinput"):  # not an xdist worker: this session is the run
        return run_all(tmp_path_factory.mktemp("onnx_single_ops"))
    shared = tmp_path_factory.getbasetemp().parent / "onnx_single_ops"  # one per run
    shared.mkdir(exist_ok=True)
    result = shared / "result.json"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            run = run_all(shared)
            result.write_text(
                json.dumps({"folder": str(run.folder), "lines": run.lines, "model": str(run.model)})
            )
    data = json.loads(result.read_text())
    return ModuleRun(Path(data["folder"]), data["lines"], Path(data["model"]))
