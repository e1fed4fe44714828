"""The operators the front end computes as onnxruntime does outside its integer kernels, each a
single-operator graph of ``tests/data/single_ops_*.onnx`` (``scripts/make_single_ops.py``),
built and run against onnxruntime's default session's outputs: every element identical.

- linear Resize (ONNX_RESIZE_BILINEAR) in each coordinate transformation, by sizes and by
  scales, on float32 and on int8 (a QDQ model's DequantizeLinear -> Resize -> QuantizeLinear);
- Sigmoid and LeakyRelu of a QDQ model (ONNX_LOGISTIC, ONNX_LEAKY_RELU: onnxruntime's
  QLinearSigmoid and QLinearLeakyRelu tables);
- a zero Pad before a convolution and before a depthwise one in a QDQ model, folded into the
  convolutions' own pads (no PAD operator left).

One host build per model; the QDQ one also runs on the Cortex-M55 and M4 (QEMU, ``cross``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, cross_build_module, run_module_test_case, run_qemu

DATA = Path(__file__).resolve().parent / "data"
RESIZES = 4
QDQ_OUTPUTS = RESIZES + 4  # the Resizes, Sigmoid, LeakyRelu, the two padded convolutions


def _golden(name: str, out: Path) -> Path:
    """The golden file without the unoptimized session's outputs (the self test reads
    ``input_<i>`` and ``output_<j>``)."""
    arrays = np.load(DATA / f"{name}.npz")
    path = out / f"{name}_golden.npz"
    np.savez(path, **{k: arrays[k] for k in arrays.files if k.startswith(("input_", "output_"))})
    return path


def _convert(name: str, out: Path):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA / f"{name}.onnx")},
            "module": {"path": str(out / "out"), "name": name},
            "test": {"enabled": True, "golden_data": str(_golden(name, out)), "tolerance": 0.0},
        }
    )
    return AotConverter(config).convert()


@pytest.fixture(scope="module")
def qdq_module(tmp_path_factory):
    """The QDQ model's module, shared by the host run and the cross runs."""
    return _convert("single_ops_qdq", tmp_path_factory.mktemp("single_ops_qdq"))


@pytest.mark.parametrize("name", ["single_ops_float", "single_ops_qdq"])
def test_single_operators_equal_onnxruntime(name, tmp_path, qdq_module):
    result = qdq_module if name == "single_ops_qdq" else _convert(name, tmp_path)
    plan = json.loads(next(Path(result.output).rglob("*_plan.json")).read_text())
    ops = [op["op_type"] for op in plan["operators"]]
    assert ops.count("ONNX_RESIZE_BILINEAR") == RESIZES, ops
    if name == "single_ops_qdq":
        assert {"ONNX_LOGISTIC", "ONNX_LEAKY_RELU", "ONNX_CONV_2D", "ONNX_DEPTHWISE_CONV_2D"} <= set(ops)
        assert "PAD" not in ops, ops  # folded into the convolutions
        # int8 throughout: the only float steps are the model's own inputs and outputs
        assert ops.count("ONNX_QUANTIZE") == ops.count("DEQUANTIZE") == QDQ_OUTPUTS, ops
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed and run.report.bit_exact, f"{run.stdout}\n{run.stderr[-3000:]}"


@pytest.mark.cross
@pytest.mark.parametrize("core", ["m55", "m4"])
def test_single_operators_equal_onnxruntime_on_the_cores(core, qdq_module, tmp_path):
    """The QDQ module under QEMU: the rounding by VCVTR, the float steps on the cores' FPUs."""
    elf = cross_build_module(qdq_module.output, tmp_path / "build", CORES[core], prefix=qdq_module.prefix)
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0 and "bit-exact" in run.stdout, run.stdout


def test_onnxruntime_sessions_agree_on_the_golden_data():
    """The default session (golden) and the unoptimized one (every node dequantize -> float ->
    quantize) give the same outputs here, so the module equals both."""
    arrays = np.load(DATA / "single_ops_qdq.npz")
    outputs = [k for k in arrays.files if k.startswith("output_")]
    assert len(outputs) == QDQ_OUTPUTS
    for key in outputs:
        assert np.array_equal(arrays[key], arrays[key.replace("output_", "unoptimized_")]), key
