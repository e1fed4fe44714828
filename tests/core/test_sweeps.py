"""``helia_aot.sweep`` and ``helia-aot sweep``: a 2x2 cross product, one row per point with its
settings, on the default process pool, on a caller's executor and from the command line; bad
``--vary`` keys and values are typed errors before anything converts."""

from __future__ import annotations

import csv
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import helia_aot
import pytest
from helia_aot import ConvertArgs
from helia_aot.cli import app
from helia_aot.cli.sweep import parse_vary
from helia_aot.errors import InvalidConfigError
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "data" / "models" / "conv2d_3x3_s1_same_relu_float32.tflite"
VARY = {"memory.planner": ["greedy", "hill_climb"], "platform.name": ["apollo4p_evb", "apollo510_evb"]}
POINTS = [
    ("greedy", "apollo4p_evb"),
    ("greedy", "apollo510_evb"),
    ("hill_climb", "apollo4p_evb"),
    ("hill_climb", "apollo510_evb"),
]

runner = CliRunner()


def _base(tmp_path: Path, **extra) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {"model": {"path": str(MODEL)}, "module": {"path": str(tmp_path / "out"), "name": "m"}, **extra}
    )


def _check_rows(rows, tmp_path: Path) -> None:
    assert [row["point"] for row in rows] == [0, 1, 2, 3]
    assert [(row["memory.planner"], row["platform.name"]) for row in rows] == POINTS
    assert [(row["planner"], row["platform"]) for row in rows] == POINTS  # what each point really ran
    assert [row["cpu"] for row in rows] == ["cortex-m4", "cortex-m55"] * 2
    assert all(row["error"] is None and row["scratch_bytes"] > 0 for row in rows)
    assert [row["output"] for row in rows] == [str(tmp_path / "out" / f"{p}-{n}" / "m") for p, n in POINTS]


def test_sweep_on_the_default_process_pool_writes_one_module_per_point(tmp_path):
    rows = helia_aot.sweep(_base(tmp_path), VARY, progress=False, max_workers=2)
    _check_rows(rows, tmp_path)
    for row in rows:
        assert (Path(row["output"]) / "aot_plan.json").is_file()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"{p}-{n}" for p, n in POINTS)


def test_sweep_on_a_callers_executor_leaves_it_running(tmp_path):
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = helia_aot.sweep(_base(tmp_path, dry_run=True), VARY, executor=pool, progress=False)
        assert pool.submit(lambda: 7).result() == 7
    _check_rows(rows, tmp_path)
    assert all(row["dry_run"] for row in rows)
    assert not (tmp_path / "out").exists()


def test_sweep_from_a_yaml_file_keeps_settings_not_varied(tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(
        f"model:\n  path: {MODEL}\nmodule:\n  path: {tmp_path / 'out'}\n  prefix: kws\ndry_run: true\n"
    )
    rows = helia_aot.sweep(
        path, {"optimization.goal": ["size", "latency"]}, executor=ThreadPoolExecutor(1), progress=False
    )
    assert [(row["goal"], row["prefix"]) for row in rows] == [("size", "kws"), ("latency", "kws")]


def test_a_failing_point_is_a_row_with_its_error(tmp_path):
    tiny = {"dtcm": 1024, "sram": 1024, "mram": 1024, "psram": 1024}
    rows = helia_aot.sweep(
        _base(tmp_path, dry_run=True),
        {"platform.memories": [{}, tiny], "memory.planner": ["greedy", "hill_climb"]},
        executor=ThreadPoolExecutor(1),
        progress=False,
    )
    assert [row["error"] is None for row in rows] == [True, True, False, False]
    assert all("does not fit" in row["error"] for row in rows[2:])
    assert "scratch_bytes" not in rows[2] and rows[2]["exit_code"] == 1
    assert rows[2]["platform.memories"] == tiny


@pytest.mark.parametrize(
    ("vary", "words"),
    [
        ({"memory.planer": ["greedy"]}, ["memory.planer", "did you mean 'memory.planner'"]),
        ({"memory.planner": ["greedy", "nope"]}, ["memory.planner=nope", "not registered"]),
        ({"platform.name": ["nope"]}, ["platform.name=nope", "Unknown platform"]),
        ({"verbose": [1, 9]}, ["verbose=9"]),
        ({"memory.planner": "greedy"}, ["non-empty list"]),
        ({}, ["at least one"]),
    ],
)
def test_bad_vary_is_a_typed_error_before_anything_converts(tmp_path, vary, words):
    with pytest.raises(InvalidConfigError) as error:
        helia_aot.sweep(_base(tmp_path), vary, executor=ThreadPoolExecutor(1), progress=False)
    assert error.value.exit_code == 2
    for word in words:
        assert word in error.value.message
    assert not (tmp_path / "out").exists()


def test_cli_sweep_prints_a_table_and_writes_csv_and_json(tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODEL}\nmodule:\n  path: {tmp_path / 'out'}\n  name: m\n")
    args = ["sweep", "--path", str(path), "--vary", "memory.planner=greedy,hill_climb"]
    args += ["--vary", "platform.name=apollo4p_evb,apollo510_evb", "--workers", "2"]
    args += ["--csv", str(tmp_path / "s.csv"), "--json", str(tmp_path / "s.json")]
    proc = runner.invoke(app, args)
    assert proc.exit_code == 0, proc.output
    for planner, name in POINTS:
        assert f"{planner}-{name}" in proc.stdout
    with (tmp_path / "s.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert [(r["memory.planner"], r["platform.name"]) for r in table] == POINTS
    assert {"scratch_bytes", "constants_bytes", "macs", "seconds_total", "error"} <= set(table[0])
    rows = json.loads((tmp_path / "s.json").read_text())
    _check_rows(rows, tmp_path)


@pytest.mark.parametrize(
    ("vary", "words"),
    [
        ("memory.planer=greedy", "did you mean 'memory.planner'"),
        ("memory.planner", "is not KEY=VALUE,VALUE"),
        ("memory.planner=greedy,nope", "not registered"),
        ("test.tolerance=1,x", "test.tolerance"),
    ],
)
def test_cli_bad_vary_exits_2(tmp_path, vary, words):
    path = tmp_path / "base.yaml"
    path.write_text(f"model:\n  path: {MODEL}\nmodule:\n  path: {tmp_path / 'out'}\n")
    proc = runner.invoke(app, ["sweep", "--path", str(path), "--vary", vary])
    assert proc.exit_code == 2, proc.output
    assert words in proc.stderr and "Traceback" not in proc.output
    assert not (tmp_path / "out").exists()


def test_vary_values_are_read_as_their_flags_read_them():
    assert parse_vary(["--test.num-iterations=1,3", "memory.allocate_arenas=true,false"]) == {
        "test.num_iterations": [1, 3],
        "memory.allocate_arenas": [True, False],
    }
    assert parse_vary(["model.name=001,yes"]) == {"model.name": ["001", "yes"]}  # text stays text
    with pytest.raises(InvalidConfigError, match="twice"):
        parse_vary(["verbose=1", "verbose=2"])


def test_cli_sweep_exits_1_when_a_point_fails(tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(
        f"model:\n  path: {MODEL}\ndry_run: true\n"
        "platform:\n  memories: {dtcm: 1024, sram: 1024, mram: 1024, psram: 1024}\n"
        f"module:\n  path: {tmp_path / 'out'}\n"
    )
    proc = runner.invoke(app, ["sweep", "--path", str(path), "--vary", "memory.planner=greedy"])
    assert proc.exit_code == 1, proc.output
    assert "error: model 'model' does not fit" in proc.stdout
