"""The float ONNX twins of the MLPerf Tiny models (tests/data, made by scripts/make_models.py):
each converts to float operators with no layout transposes, and each module, built on the
host, matches onnxruntime's default session's golden outputs within the documented float bound
(``test.tolerance`` 1e-5 of the largest expected magnitude: the kernels and onnxruntime sum in
different orders; measured: every output within 3e-6, docs/onnx.md). The float AD autoencoder
is not in git (over 1 MiB)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import run_module_test_case

DATA = Path(__file__).resolve().parent / "data"
TOLERANCE = 1e-5
"""The float bound of docs/onnx.md: relative to each output's largest expected magnitude."""


def _config(name: str, out: Path, test: dict | None = None, *, dry_run: bool = False) -> ConvertArgs:
    model = {"path": str(DATA / f"{name}_float.onnx")}
    config = {"model": model, "module": {"path": str(out), "name": name}, "dry_run": dry_run}
    if test is not None:
        config["test"] = test
    return ConvertArgs.model_validate(config)


@pytest.mark.parametrize("name", ["ic_resnet8", "kws_dscnn", "vww_mobilenet025"])
def test_float_twin_converts_to_float_operators(name, tmp_path):
    result = AotConverter(_config(name, tmp_path / "out", dry_run=True)).convert()
    op_types = [op.op_type for op in result.plan.operators]
    assert "TRANSPOSE" not in op_types and "QUANTIZE" not in op_types, op_types
    assert op_types[-2:] == ["FULLY_CONNECTED", "SOFTMAX"], op_types
    assert "CONV_2D" in op_types and ("ADD" if name == "ic_resnet8" else "DEPTHWISE_CONV_2D") in op_types


@pytest.mark.parametrize("name", ["ic_resnet8", "kws_dscnn", "vww_mobilenet025"])
def test_float_twin_matches_onnxruntime(name, tmp_path):
    golden = np.load(DATA / f"{name}_float.npz")
    out = golden["output"]
    npz = tmp_path / "golden.npz"
    np.savez(npz, input_0=golden["input"], output_0=out.reshape((len(out), 1, *out.shape[1:])))
    test = {"enabled": True, "golden_data": str(npz), "tolerance": TOLERANCE}
    result = AotConverter(_config(name, tmp_path / "out", test)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-3000:]}"
    plan = json.loads(next(Path(result.output).rglob("*_plan.json")).read_text())
    assert "requantization" not in plan  # float: LiteRT's operators and kernels
