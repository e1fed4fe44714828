"""The four QDQ MLPerf Tiny twins (quantize_static, per-channel weights) converted into int8
operators with onnxruntime's requantization, built and run against two references.

The module's self test compares it with the exact-arithmetic QDQ model of
``scripts/qdq_numerics.py`` (a numpy evaluation of the graph, written independently of the
kernels): every output must be bit-exact. That model is then compared with onnxruntime's default
session's golden outputs: identical on every element (its Softmax is onnxruntime's lookup-table
``QLinearSoftmax``, as the module's ONNX_SOFTMAX). One host build per model; the KWS module also
runs once on the Cortex-M55 (QEMU).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import onnx
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, cross_build_module, run_module_test_case, run_qemu

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
MODELS = ("ad_autoencoder", "ic_resnet8", "kws_dscnn", "vww_mobilenet025")
WITH_SOFTMAX = {"ic_resnet8", "kws_dscnn", "vww_mobilenet025"}


def _numerics() -> ModuleType:
    """scripts/qdq_numerics.py, the exact-arithmetic QDQ model (a script, not a package module)."""
    path = HERE.parent / "scripts" / "qdq_numerics.py"
    spec = importlib.util.spec_from_file_location("qdq_numerics", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


QN = _numerics()


def _convert(name: str, out: Path) -> tuple[object, np.ndarray, np.ndarray, float]:
    """The QDQ model converted with the exact model's outputs as its golden data."""
    model = onnx.load(str(DATA / f"{name}_qdq.onnx"))
    golden = np.load(DATA / f"{name}_qdq.npz")
    exact = np.concatenate([QN.exact_model(model, x) for x in golden["input"]]).astype(np.float32)
    npz = out.parent / f"{name}_exact.npz"
    np.savez(npz, input_0=golden["input"], output_0=exact.reshape((len(exact), 1, *exact.shape[1:])))
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA / f"{name}_qdq.onnx")},
            "module": {"path": str(out), "name": name},
            "test": {"enabled": True, "golden_data": str(npz), "tolerance": 0.0},
        }
    )
    return AotConverter(config).convert(), exact, golden["output"], QN.output_step(model)


@pytest.fixture(scope="module")
def kws_module(tmp_path_factory):
    return _convert("kws_dscnn", tmp_path_factory.mktemp("kws_qdq") / "out")


@pytest.mark.parametrize("name", MODELS)
def test_qdq_model_is_exact_and_within_a_step_of_onnxruntime(name, tmp_path, kws_module):
    if name == "kws_dscnn":  # shared with the M55 run
        result, exact, ort_default, step = kws_module
    else:
        result, exact, ort_default, step = _convert(name, tmp_path / "out")
    plan = json.loads(next(Path(result.output).rglob("*_plan.json")).read_text())
    op_types = [op["op_type"] for op in plan["operators"]]
    assert plan["requantization"] == "onnx"
    assert "TRANSPOSE" not in op_types
    assert op_types[-1] == "DEQUANTIZE", op_types
    assert {"ONNX_FULLY_CONNECTED"} <= set(op_types)
    assert not {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"} & set(op_types), op_types

    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed and run.report.bit_exact, f"{run.stdout}\n{run.stderr[-3000:]}"

    steps = np.rint(np.abs(exact.astype(np.float64) - ort_default) / step)
    assert int((steps > 0).sum()) == 0, f"{int((steps > 0).sum())} of {steps.size} differ, max {steps.max()}"
    if name in WITH_SOFTMAX:
        assert op_types[-2:] == ["ONNX_SOFTMAX", "DEQUANTIZE"], op_types
    assert op_types[0] == "ONNX_QUANTIZE" and "QUANTIZE" not in op_types, op_types
    assert not {"PAD", "SUB", "MUL", "ADD"} & set(op_types), op_types  # pads and batch norms folded
    assert op_types.count("DEQUANTIZE") == 1, op_types


TWINS = {
    "ad_autoencoder": "mlperf_ad_fc_autoencoder_int8",
    "ic_resnet8": "mlperf_ic_resnet8_int8",
    "kws_dscnn": "mlperf_kws_dscnn_int8",
    "vww_mobilenet025": "mlperf_vww_mobilenetv1_025_int8",
}
"""Each QDQ twin's LiteRT model of the same architecture, in the repository's test data."""
TWIN_DATA = HERE.parents[1] / "tests" / "data" / "models"


def _scratch_arena(path: Path, out: Path, *, bind: bool = False) -> int:
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(out), "name": "arena"},
        "memory": {"bind_inputs": bind, "bind_outputs": bind},
        "dry_run": True,
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    return int(result.arenas[0]["used"])


@pytest.mark.parametrize("name", MODELS)
def test_qdq_arena_equals_the_litert_twins(name, tmp_path):
    """With the LiteRT twin's interface (int8 in and out: the QDQ model without its input
    QuantizeLinear and output DequantizeLinear) the scratch arena is the twin's: a depthwise
    convolution keeps torch's explicit pads (no PAD copy), a batch normalization is one int8
    operator (no float32 tensors between the dense layers). With the model's own float interface
    bound to the caller's buffers (memory.bind_inputs, memory.bind_outputs) it is the twin's too:
    the float input and output were all that the default arena held beyond it."""
    from .onnx_graphs import int8_boundaries, save

    twin = _scratch_arena(TWIN_DATA / f"{TWINS[name]}.tflite", tmp_path / "twin")
    model = save(int8_boundaries(onnx.load(str(DATA / f"{name}_qdq.onnx"))), tmp_path / f"{name}.onnx")
    assert _scratch_arena(model, tmp_path / "ours") == twin
    assert _scratch_arena(DATA / f"{name}_qdq.onnx", tmp_path / "bound", bind=True) == twin


@pytest.mark.cross
def test_qdq_kws_runs_on_the_m55(kws_module, tmp_path):
    """The KWS QDQ module, Helium paths, bit-exact with the exact model under QEMU."""
    result = kws_module[0]
    elf = cross_build_module(result.output, tmp_path / "build", CORES["m55"], prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "bit-exact" in run.stdout, run.stdout


@pytest.mark.parametrize("make", ["conv_net", "mlp", "spatial"])
def test_quantize_static_models_of_every_operator_convert(make, tmp_path):
    """The float test graphs (every operator the front end reads) quantized by quantize_static
    convert: Concat inputs with other parameters requantized, a scaled Gemm, ConvTranspose and
    the activations on float, constants of lower rank quantized per tensor."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    from . import test_onnx_modules
    from .onnx_graphs import save

    graph, inputs, outputs = getattr(test_onnx_modules, make)()
    ((name, shape),) = inputs.items()
    source = save(graph.model(inputs, outputs), tmp_path / "float.onnx")
    rng = np.random.default_rng(1)

    class Calibration(CalibrationDataReader):
        def __init__(self) -> None:
            self.samples = iter({name: rng.uniform(-1, 1, shape).astype(np.float32)} for _ in range(8))

        def get_next(self):
            return next(self.samples, None)

    quantized = tmp_path / "qdq.onnx"
    quantize_static(
        str(source),
        str(quantized),
        Calibration(),
        quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
        per_channel=True,
    )
    config = ConvertArgs.model_validate(
        {"model": {"path": str(quantized)}, "module": {"path": str(tmp_path / "out"), "name": make}}
    )
    result = AotConverter(config).convert()
    plan = json.loads(next(Path(result.output).rglob("*_plan.json")).read_text())
    op_types = {op["op_type"] for op in plan["operators"]}
    assert plan["requantization"] == "onnx"
    assert {"ONNX_QUANTIZE", "DEQUANTIZE"} <= op_types and "QUANTIZE" not in op_types
    assert any(op.startswith("ONNX_") for op in op_types), op_types
