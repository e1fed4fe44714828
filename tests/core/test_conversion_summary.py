"""The command line's ConversionSummary says what the ConversionResult says, without the readers.

``helia-aot convert`` prints a results panel (module, prefix, arenas, the report's hints) and never
reads the plan or the report back, so it ends the conversion in a
:class:`helia_aot.converter.ConversionSummary` taken from the records Emit wrote, instead of
validating them into OptimizationPlan/OptimizationReport (the thirty-odd pydantic models of
``helia_aot.optimization.records``). These tests hold the two endings to the same facts and the
same printed panel, and the optimization package to naming the readers without importing them.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli.progress import results_panel
from rich.console import Console

KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"


def _config(tmp_path: Path, name: str, **extra: object) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {"model": {"path": str(KWS)}, "module": {"path": str(tmp_path / name)}, **extra}
    )


def _panel_text(config: ConvertArgs, result: object) -> str:
    console = Console(width=100, file=io.StringIO(), color_system=None)
    console.print(results_panel(config, result))
    return console.file.getvalue()


@pytest.mark.parametrize("dry_run", [False, True], ids=["written", "dry_run"])
def test_the_summary_holds_what_the_result_shows(tmp_path, dry_run):
    # Each conversion writes into its own folder (names of one length, so the panels line up).
    full = AotConverter(_config(tmp_path, "a", dry_run=dry_run)).convert()
    summary = AotConverter(_config(tmp_path, "b", dry_run=dry_run))._convert_summary()
    assert summary.dry_run is full.dry_run is dry_run
    assert summary.output.relative_to(tmp_path / "b") == full.output.relative_to(tmp_path / "a")
    assert summary.prefix == full.prefix
    assert summary.work_dir is None and full.work_dir is None
    assert summary.arenas == full.arenas
    assert summary.hints == tuple(hint.message for hint in full.report.hints)
    assert summary.hints, "KWS has goal and placement hints, so the comparison covers some"
    # The panel the command prints is the same text from either ending (paths aside).
    config = _config(tmp_path, "b", dry_run=dry_run)
    panel = _panel_text(config, summary)
    assert panel == _panel_text(config, full).replace(str(tmp_path / "a"), str(tmp_path / "b"))
    assert "Optimization hints" in panel


def test_the_optimization_package_names_the_readers_without_importing_them():
    """``helia_aot.optimization`` imports its plan and report readers on first use (PEP 562):
    the plain values a conversion writes (schema versions, HintKind, ArenaRole, the measured
    settings) come from ``record_constants``, the same objects ``records`` exports."""
    script = (
        "import json, sys\n"
        "import helia_aot.optimization as opt\n"
        "before = 'helia_aot.optimization.records' in sys.modules\n"
        "listed = sorted(set(opt.__all__) - set(dir(opt)))\n"
        "from helia_aot.optimization import OptimizationPlan, HintKind, MEASUREMENT_SETTINGS\n"
        "from helia_aot.optimization import records, record_constants\n"
        "same = [OptimizationPlan is records.OptimizationPlan, HintKind is records.HintKind,\n"
        "        records.ArenaRole is record_constants.ArenaRole,\n"
        "        MEASUREMENT_SETTINGS is records.MEASUREMENT_SETTINGS,\n"
        "        all(getattr(opt, n) is getattr(records, n) for n in records.__all__ if n in opt.__all__)]\n"
        "try:\n    opt.NoSuchReader\n    missing = None\nexcept AttributeError as e:\n    missing = str(e)\n"
        "print(json.dumps([before, listed, same, missing]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    before, listed, same, missing = json.loads(run.stdout.strip().splitlines()[-1])
    assert before is False
    assert listed == []
    assert same == [True] * 5
    assert missing == "module 'helia_aot.optimization' has no attribute 'NoSuchReader'"
