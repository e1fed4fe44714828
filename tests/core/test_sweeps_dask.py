"""Sweeps on a Dask cluster: ``helia_aot.sweep`` on a distributed client's executor and
``helia-aot sweep --dask ADDRESS`` against an in-process ``LocalCluster`` (one threaded worker, so
the test costs what the conversions cost), over two models and two planners; a missing extra and
a scheduler that does not answer are ClusterUnavailableError (exit status 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import distributed  # a test extra (dask[distributed]), as "helia-aot[distributed]" brings it
import helia_aot
import pytest
from helia_aot import ConvertArgs
from helia_aot.cli import app
from helia_aot.errors import ClusterUnavailableError
from helia_aot.sweeps_dask import dask_client, dask_executor
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MODELS = [
    str(ROOT / "tests" / "data" / "models" / "conv2d_3x3_s1_same_relu_float32.tflite"),
    str(ROOT / "tests" / "data" / "models" / "avgpool_2x2_s2_valid_int8.tflite"),
]
VARY = {"model.path": MODELS, "memory.planner": ["greedy", "hill_climb"]}

runner = CliRunner()


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as local:
        yield local


def _check(rows) -> None:
    assert [(Path(row["model.path"]).name, row["memory.planner"]) for row in rows] == [
        (Path(m).name, p) for m in MODELS for p in ("greedy", "hill_climb")
    ]
    assert [row["planner"] for row in rows] == ["greedy", "hill_climb"] * 2
    assert all(row["error"] is None and row["scratch_bytes"] > 0 for row in rows)
    assert len({row["output"] for row in rows}) == 4


def test_sweep_runs_on_a_dask_clients_executor(cluster, tmp_path):
    base = ConvertArgs.model_validate({"model": {"path": MODELS[0]}, "module": {"path": str(tmp_path / "o")}})
    with distributed.Client(cluster) as client:
        rows = helia_aot.sweep(base, VARY, executor=client.get_executor(), progress=False)
    _check(rows)
    for row in rows:
        assert (Path(row["output"]) / "aot_plan.json").is_file()


def test_dask_executor_connects_to_the_scheduler_address(cluster, tmp_path):
    base = {"model": {"path": MODELS[0]}, "module": {"path": str(tmp_path / "o")}, "dry_run": True}
    with dask_executor(cluster.scheduler_address) as executor:
        rows = helia_aot.sweep(base, VARY, executor=executor, progress=False)
    _check(rows)
    assert not (tmp_path / "o").exists()


def test_cli_sweep_dask_prints_the_table(cluster, tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODELS[0]}\nmodule:\n  path: {tmp_path / 'out'}\n  name: m\n")
    args = ["sweep", "--path", str(path), "--dask", cluster.scheduler_address, "--dry-run"]
    args += ["--vary", f"model.path={','.join(MODELS)}", "--vary", "memory.planner=greedy,hill_climb"]
    proc = runner.invoke(app, args)
    assert proc.exit_code == 0, proc.output
    for planner in ("greedy", "hill_climb"):
        assert f"avgpool_2x2_s2_valid_int8.tflite-{planner}" in proc.stdout


def test_cli_sweep_dask_with_workers_exits_2(cluster, tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODELS[0]}\nmodule:\n  path: {tmp_path / 'out'}\n")
    args = ["sweep", "--path", str(path), "--dask", cluster.scheduler_address, "--workers", "2"]
    proc = runner.invoke(app, [*args, "--vary", "memory.planner=greedy"])
    assert proc.exit_code == 2, proc.output
    assert "--workers" in proc.stderr and "Traceback" not in proc.output


def test_an_address_nobody_answers_is_a_typed_error(monkeypatch, tmp_path):
    with pytest.raises(ClusterUnavailableError) as error, dask_client("tcp://127.0.0.1:9", timeout_s=0.5):
        pass
    assert error.value.exit_code == 2 and "tcp://127.0.0.1:9" in error.value.message
    assert "dask scheduler" in (error.value.hint or "")
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODELS[0]}\nmodule:\n  path: {tmp_path / 'out'}\n")
    monkeypatch.setattr("helia_aot.sweeps_dask.DEFAULT_TIMEOUT_S", 0.5)
    args = ["sweep", "--path", str(path), "--dask", "tcp://127.0.0.1:9", "--vary", "memory.planner=greedy"]
    proc = runner.invoke(app, args)
    assert proc.exit_code == 2, proc.output
    assert "no Dask scheduler answers at 'tcp://127.0.0.1:9'" in proc.stderr
    assert "Traceback" not in proc.output and not (tmp_path / "out").exists()


def test_a_missing_extra_is_a_typed_error_naming_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(ClusterUnavailableError) as error, dask_executor("tcp://127.0.0.1:8786"):
        pass
    assert error.value.exit_code == 2 and "helia-aot[distributed]" in (error.value.hint or "")
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODELS[0]}\nmodule:\n  path: {tmp_path / 'out'}\n")
    args = ["sweep", "--path", str(path), "--dask", "tcp://127.0.0.1:8786", "--vary", "memory.planner=greedy"]
    proc = runner.invoke(app, args)
    assert proc.exit_code == 2, proc.output
    assert "'distributed' package" in proc.stderr and "helia-aot[distributed]" in proc.stderr
