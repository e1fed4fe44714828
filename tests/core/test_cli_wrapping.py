"""Tables and hints wrap to the terminal instead of being cut (checked at 80 columns).

The command's consoles soft-wrap plain lines (a path is never broken); the results panel and the
plugins table are printed wrapped, so a long hint continues on the next line and a long plugin or
platform name folds instead of ending in an ellipsis.
"""

from __future__ import annotations

import re
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli.app import app
from typer.testing import CliRunner

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
WIDTH = 80

runner = CliRunner()


def panel_text(output: str, heading: str) -> str:
    """The words inside the panel after ``heading``, the border and the line breaks taken out."""
    lines = output.split(heading, 1)[1].splitlines()
    return " ".join(" ".join(line.strip("│╰─╯ ").split()) for line in lines).strip()


def test_optimization_hints_wrap_at_80_columns(tmp_path):
    result = runner.invoke(
        app,
        ["convert", "--model.path", str(MODEL), "--module.path", str(tmp_path / "m")],
        env={"COLUMNS": str(WIDTH)},
    )
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= WIDTH
    config = {"model": {"path": str(MODEL)}, "module": {"path": str(tmp_path / "api")}, "verbose": 0}
    hints = [hint.message for hint in AotConverter(ConvertArgs.model_validate(config)).convert().report.hints]
    assert hints and max(len(message) for message in hints) > WIDTH  # a hint that must wrap
    shown = panel_text(result.stdout, "Optimization hints")
    assert shown == " ".join(" ".join(message.split()) for message in hints)


def test_plugins_table_folds_long_names_at_80_columns():
    result = runner.invoke(app, ["plugins"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= WIDTH and "…" not in result.stdout
    rows = [re.split("│", line) for line in lines if line.startswith("│")]
    distributions = "".join(cells[2].strip() for cells in rows)
    registered = "".join(cells[5].strip() for cells in rows)
    assert "helia-aot-platforms-apollo" in distributions  # longer than its column: folded, whole
    assert "apollo3_blue_plus_evb" in registered.replace(" ", "")
