"""A model that asks for onnxruntime's requantization converts to the onnx kernels end to end.

The model of onnx_single_ops.py (every ONNX_* operator's graph side by side, and a chain of all
of them) runs with ``requantization: "onnx"`` recorded by a test transform in place of the ONNX
front end: the chain's output must be the numpy QDQ model's bytes, the plan and report must name
the mode, and every rewritten operator must run as its ONNX_* twin. The same model without the
metadata, or with "litert", keeps LiteRT's operators and writes no mode; a mode nobody knows is
refused with a typed error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import InvalidConfigError

from ops_builtin.onnx_requant.onnx_single_ops import CASES, context_with_mode

REWRITTEN = {key for key in CASES if key.startswith("ONNX_")}


def _plan(module: Path) -> dict:
    return json.loads(next(module.glob("*_plan.json")).read_text())


def _convert(model: Path, out: Path, mode: str | None) -> Path:
    config = {"model": {"path": str(model)}, "module": {"path": str(out), "name": "module"}, "verbose": 0}
    result = AotConverter(ConvertArgs.model_validate(config), context_with_mode(mode)).convert()
    return Path(result.output)


def test_onnx_mode_module_matches_qdq_model(onnx_modules):
    line = onnx_modules.output_line("CHAIN")
    assert line.endswith(" 0 differ, max diff 0: bit-exact"), line
    plan = _plan(onnx_modules.folder)
    report = json.loads(next(onnx_modules.folder.glob("*_report.json")).read_text())
    assert plan["requantization"] == report["requantization"] == "onnx"
    assert {op["op_type"] for op in plan["operators"]} == REWRITTEN | {"DEQUANTIZE"}
    assert len(REWRITTEN) == 11


def test_litert_mode_keeps_litert_operators(onnx_modules, tmp_path):
    for mode in (None, "litert"):
        plan = _plan(_convert(onnx_modules.model, tmp_path / str(mode), mode))
        assert "requantization" not in plan
        assert {op["op_type"] for op in plan["operators"]} == {
            key.removeprefix("ONNX_") for key in REWRITTEN
        } | {"DEQUANTIZE"}


def test_unknown_mode_is_refused(onnx_modules, tmp_path):
    with pytest.raises(InvalidConfigError, match="neither 'litert' nor 'onnx'"):
        _convert(onnx_modules.model, tmp_path / "bad", "tflm")
