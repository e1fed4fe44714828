"""Dry runs, ``result.config`` / ``summary()`` / ``repr``, models given as bytes and the notebook
summary's memory picture (issue 16 items 1, 2 and 8)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli import app
from helia_aot.pipeline.summary import STAGES
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "data" / "models" / "conv2d_3x3_s1_same_relu_float32.tflite"
"""One CONV_2D: a scratch arena and a constant arena, converted in well under a second."""

runner = CliRunner()


def _config(tmp_path: Path, **extra) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {"model": {"path": str(MODEL)}, "module": {"path": str(tmp_path / "out"), "name": "m"}, **extra}
    )


@pytest.fixture(scope="module")
def dry(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dry")
    return tmp, AotConverter(_config(tmp, dry_run=True)).convert()


def test_dry_run_writes_nothing_and_returns_the_plan(dry):
    tmp, result = dry
    assert not (tmp / "out").exists()
    assert result.dry_run and result.output == tmp / "out" / "m"
    assert [op.op_type for op in result.plan.operators] == ["CONV_2D"]
    assert result.report.total_macs > 0
    assert {(a["role"], str(a["memory"]).lower()) for a in result.arenas} == {
        ("scratch", "dtcm"),
        ("constant", "dtcm"),
    }
    assert set(result.stage_seconds) == {"load", "transform", "resolve", "plan"}


def test_dry_run_plans_what_a_conversion_writes(dry, tmp_path):
    _, planned = dry
    written = AotConverter(_config(tmp_path)).convert()
    assert written.output.is_dir() and not written.dry_run
    assert planned.plan == written.plan and planned.report == written.report
    assert planned.arenas == written.arenas
    assert json.loads((written.output / "aot_plan.json").read_text())["operators"][0]["op_type"] == "CONV_2D"


def test_dry_run_ignores_an_existing_module(tmp_path):
    (tmp_path / "out" / "m").mkdir(parents=True)
    (tmp_path / "out" / "m" / "mine.txt").write_text("keep")
    result = AotConverter(_config(tmp_path, dry_run=True)).convert()
    assert result.dry_run
    assert [p.name for p in (tmp_path / "out" / "m").iterdir()] == ["mine.txt"]


def test_cli_dry_run_writes_nothing(tmp_path):
    out = tmp_path / "cli_out"
    proc = runner.invoke(app, ["convert", "--model.path", str(MODEL), "--module.path", str(out), "--dry-run"])
    assert proc.exit_code == 0, proc.output
    assert "Dry run finished" in proc.stdout and "nothing written" in proc.stdout
    assert "Arenas" in proc.stdout
    assert not out.exists()


def test_yaml_dry_run_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(f"model:\n  path: {MODEL}\nmodule:\n  path: {tmp_path / 'y'}\ndry_run: true\n")
    assert ConvertArgs.from_yaml(path).dry_run is True
    proc = runner.invoke(app, ["convert", "--path", str(path)])
    assert proc.exit_code == 0, proc.output
    assert not (tmp_path / "y").exists()


def test_result_carries_its_config(dry):
    _, result = dry
    assert isinstance(result.config, ConvertArgs)
    assert result.config.dry_run and Path(result.config.model.path) == MODEL


def test_summary_is_one_flat_complete_row(dry):
    _, result = dry
    row = result.summary()
    assert all(isinstance(v, (str, int, float, bool, type(None))) for v in row.values())
    assert row["model"] == "model" and row["platform"] == "apollo510_evb" and row["cpu"] == "cortex-m55"
    assert (row["planner"], row["goal"], row["module_type"]) == ("hill_climb", "balanced", "cmake")
    assert row["operators"] == 1 and row["macs"] == result.report.total_macs
    assert row["parameters"] == result.report.total_parameters
    scratch = next(a for a in result.arenas if a["role"] == "scratch")
    constant = next(a for a in result.arenas if a["role"] == "constant")
    assert row["scratch_dtcm_bytes"] == row["scratch_bytes"] == scratch["used"]
    assert row["constant_dtcm_bytes"] == row["constants_bytes"] == constant["used"]
    assert row["memory_dtcm_bytes"] == scratch["used"] + constant["used"]
    assert row["persistent_bytes"] == 0
    assert [k for k in row if k.startswith("seconds_")] == [f"seconds_{s}" for s in STAGES] + [
        "seconds_total"
    ]
    assert row["seconds_emit"] == row["seconds_export"] == 0.0 and row["seconds_load"] > 0
    assert row["dry_run"] is True and row["output"] == str(result.output)
    json.dumps(row)  # a row writes as it is


def test_summaries_of_two_settings_share_their_columns(dry, tmp_path):
    _, hill = dry
    greedy = AotConverter(_config(tmp_path, dry_run=True, memory={"planner": "greedy"})).convert()
    assert list(greedy.summary()) == list(hill.summary())
    assert greedy.summary()["planner"] == "greedy"


def test_repr_is_one_short_line(dry):
    _, result = dry
    text = repr(result)
    assert "\n" not in text and len(text) < 200
    assert "apollo510_evb" in text and "dry run" in text and "CONV_2D" not in text


def test_model_given_as_bytes(tmp_path):
    data = MODEL.read_bytes()
    result = AotConverter(
        ConvertArgs(model=data, module={"path": str(tmp_path / "b"), "name": "m"}, test={"enabled": True})
    ).convert()
    from_file = AotConverter(_config(tmp_path / "f")).convert()
    assert result.plan.model.file == "model.tflite"
    assert result.plan.model.sha256 == from_file.plan.model.sha256
    assert result.plan.operators == from_file.plan.operators
    assert (result.output / "src" / "aot_test_case.c").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b", "f"]  # no model file written beside
    assert ConvertArgs(model=bytearray(data)).model.data == data
    assert ConvertArgs.model_validate({"model": {"data": data, "path": "kws.tflite"}}).model.path == Path(
        "kws.tflite"
    )


def test_model_bytes_are_not_a_flag_nor_dumped():
    from helia_aot.config import config_keys

    key = next(k for k in config_keys() if k.key == "model.data")
    assert key.cli_flag is None
    assert "data" not in ConvertArgs(model=b"\x00\xff").model_dump(mode="json")["model"]


class _Svg(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.svgs = 0
        self.rects: list[dict[str, str | None]] = []
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.svgs += tag == "svg"
        if tag == "rect":
            self.rects.append(attributes)
        if tag in ("script", "img", "link") or any(k in attributes for k in ("src", "href")):
            self.external.append(tag)


def test_notebook_summary_draws_the_memory_picture(dry):
    _, result = dry
    html = result._repr_html_()
    page = _Svg()
    page.feed(html)
    scratch = [r for r in result.occupancy]
    assert page.svgs == len(scratch) == 1
    assert {r["data-tensor"] for r in page.rects} == {t.id for t in scratch[0].tensors}
    assert not page.external
    assert "Dry run" in html and f"peak {scratch[0].peak_bytes:,}" in html
    assert html == result._repr_html_()  # deterministic
