"""``helia-aot validate`` end to end: converts, runs the module and both LiteRT interpreters.

Host builds of small corpus models (about a second to a few each): the 8x8x4 int8 ReLU with the
user's own inputs (an .npz, a folder of .npy, a callable through the API), a 5x12 int8 softmax with
generated samples (a softmax: top-1 agreement), and the one-operator int8 SUM whose LiteRT
reference kernel is known wrong (the module matches the exact sum, the reference does not: a
mismatch, exit 1, with the note that says why). The metrics themselves are checked on a tiny case
in tests/core/test_validation_metrics.py; here, against the corpus's recorded reference outputs.
One run under QEMU on the Cortex-M55 (marked cross).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helia_aot import ConvertArgs, validate
from helia_aot.cli.app import app
from typer.testing import CliRunner

from .corpus import DATA_DIR

RELU = DATA_DIR / "models" / "relu_int8.tflite"
RELU_GOLDEN = DATA_DIR / "golden" / "relu_int8.npz"
SOFTMAX = DATA_DIR / "models" / "softmax_3d_int8.tflite"
SUM = DATA_DIR / "models" / "reduce_sum_int8.tflite"


def run(*args: str):
    return CliRunner().invoke(app, ["validate", "--verbose", "0", *args])


def test_generated_samples_on_a_classifier_give_every_metric_as_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("--model.path", str(SOFTMAX), "--samples", "4", "--seed", "7", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["samples"], data["inputs"], data["seed"], data["target"]) == (4, "generated", 7, "host")
    assert data["verdict"] == "bit-exact" and data["passed"] is True
    (out,) = data["outputs"]
    assert out["shape"] == [1, 5, 12] and out["classifier"] is True and out["error_unit"] == "step"
    ref = out["reference"]
    assert ref["compared"] == 4 * 60 and ref["exact_match"] == 1.0 and ref["max_abs_error"] == 0.0
    assert ref["top1_agreement"] == 1.0 and ref["cosine"] == pytest.approx(1.0)
    assert set(out["optimized"]) == set(ref)
    assert data["known_differences"] == [] and data["reference_bugs"] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the module went to a temporary folder


def test_npz_inputs_print_the_table_and_match_the_recorded_reference(tmp_path):
    inputs = tmp_path / "features.npz"
    with np.load(RELU_GOLDEN) as golden:
        np.savez(inputs, input_0=golden["in_0"])
    result = run("--model.path", str(RELU), "--inputs", str(inputs), "--keep-work-dir")
    assert result.exit_code == 0, result.output
    kept = Path(result.stderr.split("Kept the module and its build in", 1)[1].split()[0])
    try:
        assert sorted(p.name for p in kept.iterdir()) == ["build", "module"]
        assert (kept / "build" / "batch0" / "main.c").is_file()
    finally:
        shutil.rmtree(kept)
    lines = result.stdout.splitlines()
    assert lines[-1] == "PASS: bit-exact against the LiteRT reference kernels over 3 sample(s) on host"
    (ref_row,) = [line for line in lines if "\u2502 ref" in line]
    cells = [c.strip() for c in ref_row.split("\u2502")]
    assert cells == ["0", "ref", "0", "0", "0.0e+00", "1.00000", "100%", "-", "bit-exact"]


def test_a_folder_of_npy_and_the_html_page(tmp_path):
    folder = tmp_path / "samples"
    folder.mkdir()
    with np.load(RELU_GOLDEN) as golden:
        for i, sample in enumerate(golden["in_0"]):
            np.save(folder / f"sample_{i}.npy", sample)
    page = tmp_path / "report" / "validation.html"
    result = run("--model.path", str(RELU), "--inputs", str(folder), "--html", str(page), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["samples"] == 3 and data["inputs"] == str(folder)
    text = page.read_text()
    assert "<h2>Validation</h2>" in text and "bit-exact (|diff| &lt;= 1)" in text and "<script" not in text


def test_the_api_takes_a_callable_and_reports_against_the_recorded_reference(tmp_path):
    with np.load(RELU_GOLDEN) as golden:
        samples, expected = golden["in_0"], golden["ref_out_0"]
    config = ConvertArgs.model_validate(
        {"model": {"path": str(RELU)}, "module": {"path": str(tmp_path / "m")}}
    )
    seen: list[int] = []
    report = validate(config, inputs=lambda i: samples[i], samples=3, progress=lambda s, d, t: seen.append(d))
    assert report.passed(exact=True) and report.inputs == "callable" and report.samples == 3
    (out,) = report.outputs
    # The corpus recorded the reference's outputs: the module's must equal them everywhere.
    assert out.reference.exact_match == 1.0 and out.reference.compared == expected.size
    assert seen[-1] == 3 and not (tmp_path / "m").exists()


def test_a_reference_kernel_bug_is_a_mismatch_explained_under_the_table(tmp_path):
    result = run("--model.path", str(SUM), "--samples", "3")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[-1].startswith("FAIL: mismatch against the LiteRT reference kernels")
    assert "note: SUM: LiteRT's reference int8 SUM kernel" in result.stdout
    assert "#4079" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--inputs", "missing.npz"), "the inputs missing.npz do not exist"),
        (
            ("--inputs", "wrong.npz"),
            "input 0 (t0_in0) has shape [2, 8, 8]; the model's input is [1, 8, 8, 4]",
        ),
        (("--target", "riscv"), "target 'riscv' is not one of host, m55, m4"),
        (("--samples", "0"), "at least one sample"),
    ],
    ids=["missing-file", "wrong-shape", "unknown-target", "no-samples"],
)
def test_bad_inputs_exit_2_with_a_typed_error(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    np.savez(tmp_path / "wrong.npz", input_0=np.zeros((2, 8, 8), dtype=np.int8))
    result = run("--model.path", str(RELU), *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "hint:" in result.stderr and "Traceback" not in result.stderr


def test_a_missing_compiler_exits_2_naming_validate(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    result = run("--model.path", str(RELU), "--target", "m55")
    assert result.exit_code == 2 and "helia-aot validate --target m55 needs" in result.stderr


@pytest.mark.cross
def test_m55_under_qemu_matches_the_reference(tmp_path):
    result = run("--model.path", str(SOFTMAX), "--samples", "3", "--target", "m55", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["target"] == "m55" and data["verdict"] == "bit-exact"
    assert data["outputs"][0]["reference"]["top1_agreement"] == 1.0


def test_progress_bars_on_a_terminal_name_each_stage():
    """On a terminal the command draws one bar per stage (nothing elsewhere: a log stays clean)."""
    import io

    from helia_aot.cli.validate import _progress_bars
    from rich.console import Console

    buffer = io.StringIO()
    with _progress_bars(Console(file=buffer, force_terminal=True, width=80), enabled=True) as update:
        for stage in ("reference", "optimized", "module"):
            update(stage, 0, 4)
            update(stage, 4, 4)
    text = buffer.getvalue()
    assert "LiteRT reference kernels" in text and "module (build and run)" in text and "4/4" in text
    with _progress_bars(Console(file=io.StringIO()), enabled=True) as update:
        assert update is None


def test_the_results_join_the_module_report_as_a_section(tmp_path):
    """--module-report adds the Validation section to the report convert wrote, before its end; a
    later run replaces it; a report of another plan, or no report, is refused with exit 2."""
    from helia_aot import AotConverter
    from helia_aot.validation.html_page import SECTION_END, SECTION_START

    result = AotConverter(
        ConvertArgs.model_validate(
            {
                "model": {"path": str(RELU)},
                "module": {"path": str(tmp_path / "out")},
                "documentation": {"html": True},
            }
        )
    ).convert()
    page = Path(result.output) / f"{result.prefix}_report.html"
    before = page.read_text(encoding="utf-8")
    for samples in ("3", "2"):
        outcome = run("--model.path", str(RELU), "--samples", samples, "--module-report", str(page))
        assert outcome.exit_code == 0, outcome.output
    text = page.read_text(encoding="utf-8")
    assert text.count(SECTION_START) == 1 and text.count("<h2>Validation</h2>") == 1
    start, end = text.index(SECTION_START), text.index(SECTION_END) + len(SECTION_END) + 1
    assert text[:start] + text[end:] == before  # the module report itself is untouched
    section = text[start:end]
    assert "<td>Samples</td><td>2</td>" in section and "bit-exact" in section
    other = run(
        "--model.path",
        str(RELU),
        "--samples",
        "1",
        "--platform.name",
        "apollo4p_evb",
        "--module-report",
        str(page),
    )
    assert other.exit_code == 2 and "describes plan" in other.output
    assert page.read_text(encoding="utf-8") == text
    missing = run("--model.path", str(RELU), "--module-report", str(tmp_path / "none.html"))
    assert missing.exit_code == 2 and "does not exist" in missing.output
