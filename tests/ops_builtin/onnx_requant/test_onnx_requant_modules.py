"""A model that asks for onnxruntime's requantization converts to the onnx kernels end to end.

One LiteRT model chains every rewritten operator (CONV_2D with RELU, DEPTHWISE_CONV_2D, ADD, MUL,
BATCH_MATMUL, AVERAGE_POOL_2D, MEAN, FULLY_CONNECTED); a test transform stands in for the ONNX
front end and records ``requantization: "onnx"`` in its metadata. The module's self test must
reproduce, byte for byte, the numpy model of the ONNX QDQ semantics chained over the same
tensors (support/onnx_qdq_refmodels.py), and the plan and report must name the mode. The same
model without the metadata keeps LiteRT's operators, and a mode nobody knows is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirModel
from helia_aot.errors import InvalidConfigError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import RegistryContext, build_default_registry_context
from helia_aot.testing import write_golden
from helia_aot.testing.host import run_module_test_case
from helia_aot.transforms import AirTransform

from ops_builtin.support import onnx_qdq_refmodels as ref

RNG_SEED = 35


def _ints(seed: int, low: int, high: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, shape)


def _scales(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.002, 0.02, n).astype(np.float32)


Q = {  # (scale, zero point) of each activation
    "x": (0.05, 3),
    "conv": (0.11, -20),
    "dw": (0.09, 5),
    "addc": (0.07, -2),
    "add": (0.12, 1),
    "mulc": (0.02, 0),
    "mul": (0.05, -3),
    "bmmc": (0.03, 2),
    "bmm": (0.2, 0),
    "pool": (0.15, 4),
    "mean": (0.1, -1),
    "fc": (0.3, 2),
}
CONV_W, CONV_S, CONV_B = _ints(1, -127, 128, (7, 3, 3, 5)), _scales(2, 7), _ints(3, -2000, 2000, (7,))
DW_W, DW_S, DW_B = _ints(4, -127, 128, (1, 3, 3, 7)), _scales(5, 7), _ints(6, -2000, 2000, (7,))
ADD_C, MUL_C, BMM_C = (
    _ints(7, -128, 128, (1, 1, 1, 7)),
    _ints(8, -128, 128, (7,)),
    _ints(9, -128, 128, (7, 4)),
)
FC_W, FC_S, FC_B = _ints(10, -127, 128, (3, 4)), _scales(11, 3), _ints(12, -500, 500, (3,))


def build_model(path: Path) -> Path:
    b = LiteRTModelBuilder()

    def act(name: str, shape: tuple[int, ...]) -> int:
        return b.add_tensor(name, shape, "int8", quantization=([Q[name][0]], [Q[name][1]]))

    def const(name, shape, dtype, data, quant):
        return b.add_tensor(name, shape, dtype, data=np.asarray(data), quantization=quant)

    x = act("x", (1, 6, 6, 5))
    sx = Q["x"][0]
    cw = const("cw", (7, 3, 3, 5), "int8", CONV_W, (CONV_S, np.zeros(7, np.int64), 0))
    cb = const("cb", (7,), "int32", CONV_B, (sx * CONV_S, np.zeros(7, np.int64), 0))
    conv = act("conv", (1, 6, 6, 7))
    o = litert.Conv2DOptionsT()
    o.padding, o.strideH, o.strideW, o.fusedActivationFunction = 0, 1, 1, 1
    o.dilationHFactor = o.dilationWFactor = 1
    b.add_operator("CONV_2D", [x, cw, cb], [conv], o)
    dww = const("dww", (1, 3, 3, 7), "int8", DW_W, (DW_S, np.zeros(7, np.int64), 3))
    dwb = const("dwb", (7,), "int32", DW_B, (Q["conv"][0] * DW_S, np.zeros(7, np.int64), 0))
    dw = act("dw", (1, 3, 3, 7))
    o = litert.DepthwiseConv2DOptionsT()
    o.padding, o.strideH, o.strideW, o.depthMultiplier = 0, 2, 2, 1
    o.dilationHFactor = o.dilationWFactor = 1
    b.add_operator("DEPTHWISE_CONV_2D", [conv, dww, dwb], [dw], o)
    addc = const("addc", (1, 1, 1, 7), "int8", ADD_C, ([Q["addc"][0]], [Q["addc"][1]]))
    add = act("add", (1, 3, 3, 7))
    b.add_operator("ADD", [dw, addc], [add], litert.AddOptionsT())
    mulc = const("mulc", (7,), "int8", MUL_C, ([Q["mulc"][0]], [Q["mulc"][1]]))
    mul = act("mul", (1, 3, 3, 7))
    b.add_operator("MUL", [add, mulc], [mul], litert.MulOptionsT())
    bmmc = const("bmmc", (7, 4), "int8", BMM_C, ([Q["bmmc"][0]], [Q["bmmc"][1]]))
    bmm = act("bmm", (1, 3, 3, 4))
    b.add_operator("BATCH_MATMUL", [mul, bmmc], [bmm], litert.BatchMatMulOptionsT())
    pool = act("pool", (1, 2, 2, 4))
    o = litert.Pool2DOptionsT()
    o.padding, o.strideH, o.strideW, o.filterHeight, o.filterWidth = 1, 1, 1, 2, 2
    b.add_operator("AVERAGE_POOL_2D", [bmm], [pool], o)
    axes = const("axes", (2,), "int32", [1, 2], None)
    mean = act("mean", (1, 4))
    b.add_operator("MEAN", [pool, axes], [mean], litert.ReducerOptionsT())
    fw = const("fw", (3, 4), "int8", FC_W, (FC_S, np.zeros(3, np.int64), 0))
    fb = const("fb", (3,), "int32", FC_B, (Q["mean"][0] * FC_S, np.zeros(3, np.int64), 0))
    fc = act("fc", (1, 3))
    b.add_operator("FULLY_CONNECTED", [mean, fw, fb], [fc], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([fc])
    return b.save(path)


def expected(x: np.ndarray) -> np.ndarray:
    """The chain through the numpy model of the QDQ semantics (one sample)."""
    sx, zx = Q["x"]
    s, z = Q["conv"]
    mult = ref.conv_multipliers(sx, CONV_S, s)
    y = ref.conv(x, zx, CONV_W, CONV_B, (1, 1), (1, 1), (1, 1), (6, 6), mult, z, max(-128, z), 127)
    s2, z2 = Q["dw"]
    y = ref.depthwise(
        y, z, DW_W, DW_B, 1, (2, 2), (1, 1), (0, 0), (3, 3), ref.conv_multipliers(s, DW_S, s2), z2, -128, 127
    )
    y = ref.binary("add", y, s2, z2, ADD_C, *Q["addc"], *Q["add"])
    y = ref.binary("mul", y, *Q["add"], MUL_C, *Q["mulc"], *Q["mul"])
    (sm, zm), (sb, zb), (so, zo) = Q["mul"], Q["bmmc"], Q["bmm"]
    y = ref.matmul(
        y.reshape(3, 3, 7), zm, BMM_C[None], zb, None, ref.conv_multipliers(sm, [sb], so), zo, -128, 127
    )
    y = ref.avg_pool(y.reshape(1, 3, 3, 4), zo, so, 2, 2, (1, 1), (0, 0), (2, 2), *Q["pool"], -128, 127)
    y = ref.mean(y.reshape(1, 4, 4), Q["pool"][1], Q["pool"][0], *Q["mean"])
    (sm, zm), (sf, zf) = Q["mean"], Q["fc"]
    return ref.matmul(y[None], zm, FC_W.T[None], 0, FC_B, ref.conv_multipliers(sm, FC_S, sf), zf, -128, 127)[
        0
    ]


def context_with_mode(mode: str | None) -> RegistryContext:
    """The default context plus a transform that records ``mode`` as the ONNX front end would."""

    class RecordMode(AirTransform):
        NAME = "TEST_RECORD_REQUANTIZATION"
        ORDER = 0

        def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
            del context
            if mode is not None:
                model.metadata["requantization"] = mode
            self.rewrote = False
            return model

    def customize(context: RegistryContext) -> None:
        context.transforms.register(RecordMode.NAME, RecordMode)

    return build_default_registry_context(customizers=[customize])


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    return build_model(tmp_path_factory.mktemp("onnx_requant") / "chain.tflite")


def _convert(model: Path, out: Path, mode: str | None, golden: Path | None = None) -> Path:
    config = {"model": {"path": str(model)}, "module": {"path": str(out), "name": "module"}, "verbose": 0}
    if golden is not None:
        config["test"] = {"enabled": True, "golden_data": str(golden)}
    result = AotConverter(ConvertArgs.model_validate(config), context_with_mode(mode)).convert()
    return Path(result.output)


def test_onnx_mode_module_matches_qdq_model(model_file, tmp_path):
    rng = np.random.default_rng(RNG_SEED)
    inputs = rng.integers(-128, 128, (3, 1, 6, 6, 5)).astype(np.int8)
    outputs = np.stack([expected(x) for x in inputs])
    assert len({o.tobytes() for o in outputs}) == 3  # the samples' outputs differ
    golden = write_golden(tmp_path / "golden.npz", [inputs], [outputs])
    module = _convert(model_file, tmp_path / "module", "onnx", golden)
    run = run_module_test_case(module, tmp_path / "build")
    assert run.returncode == 0, run.stdout + run.stderr
    plan = json.loads(next(module.glob("*_plan.json")).read_text())
    report = json.loads(next(module.glob("*_report.json")).read_text())
    assert plan["requantization"] == report["requantization"] == "onnx"
    assert [op["op_type"] for op in plan["operators"]] == [
        "ONNX_CONV_2D",
        "ONNX_DEPTHWISE_CONV_2D",
        "ONNX_ADD",
        "ONNX_MUL",
        "ONNX_BATCH_MATMUL",
        "ONNX_AVERAGE_POOL_2D",
        "ONNX_MEAN",
        "ONNX_FULLY_CONNECTED",
    ]


def test_litert_mode_keeps_litert_operators(model_file, tmp_path):
    for mode in (None, "litert"):
        module = _convert(model_file, tmp_path / str(mode), mode)
        plan = json.loads(next(module.glob("*_plan.json")).read_text())
        assert "requantization" not in plan
        assert not any(op["op_type"].startswith("ONNX_") for op in plan["operators"])


def test_unknown_mode_is_refused(model_file, tmp_path):
    with pytest.raises(InvalidConfigError, match="neither 'litert' nor 'onnx'"):
        _convert(model_file, tmp_path / "bad", "tflm")
