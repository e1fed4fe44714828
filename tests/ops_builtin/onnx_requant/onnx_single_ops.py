"""One single-operator graph per ONNX_* operator, side by side in one model and one build.

Each case is the LiteRT operator the ONNX_REQUANTIZATION transform rewrites, with seeded
constants and scales, on inputs and an output of its own: the graphs share nothing, so each
output is its operator's alone, and one conversion and one host build serve all of them (the
``onnx_modules`` fixture). The conversion runs with a context whose test transform records
``requantization: "onnx"`` (standing in for the ONNX front end); the golden outputs come from
the numpy model of the ONNX QDQ semantics (support/onnx_qdq_refmodels.py), never from our C.
Each operator's own test file asserts that the module's self test found its output bit-exact.
A last graph chains every rewritten operator (CONV_2D with RELU, DEPTHWISE_CONV_2D, ADD, MUL,
BATCH_MATMUL, AVERAGE_POOL_2D, MEAN, FULLY_CONNECTED), its expected output the numpy model
chained over the same tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from helia_aot.air import AirModel
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import RegistryContext, build_default_registry_context
from helia_aot.testing import write_golden
from helia_aot.transforms import AirTransform

from ops_builtin.support import onnx_qdq_refmodels as ref
from ops_builtin.support.linked_host import run_linked

SAMPLES = 2


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


def _ints(seed: int, low: int, high: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, shape)


def _scales(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.002, 0.02, n).astype(np.float32)


@dataclass(frozen=True)
class OnnxCase:
    """A model builder (the builder and the input tensors' ids in) and the expected outputs of a
    list of runtime inputs."""

    inputs: tuple[tuple[tuple[int, ...], float, int], ...]  # (shape, scale, zero point) each
    build: Callable[[LiteRTModelBuilder, list[int]], int]  # adds the operator, returns the output
    expected: Callable[..., np.ndarray]


class CaseBuilder(LiteRTModelBuilder):
    """A model builder whose tensor names start with the case being built (``prefix``)."""

    prefix = ""

    def add_tensor(self, name: str, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return super().add_tensor(f"{self.prefix}{name}", *args, **kwargs)


def _q(b: LiteRTModelBuilder, name: str, shape: tuple[int, ...], scale: float, zp: int) -> int:
    return b.add_tensor(name, shape, "int8", quantization=([scale], [zp]))


def _const(b: LiteRTModelBuilder, name: str, shape, dtype: str, data, quant) -> int:
    return b.add_tensor(name, shape, dtype, data=np.asarray(data), quantization=quant)


W_CONV, S_CONV, B_CONV = _ints(1, -127, 128, (4, 3, 3, 3)), _scales(2, 4), _ints(3, -900, 900, (4,))


def _conv(b, ins):
    w = _const(b, "w", (4, 3, 3, 3), "int8", W_CONV, (S_CONV, np.zeros(4, np.int64), 0))
    bias = _const(b, "b", (4,), "int32", B_CONV, (0.05 * S_CONV, np.zeros(4, np.int64), 0))
    y = _q(b, "y", (1, 5, 5, 4), 0.1, -10)
    o = litert.Conv2DOptionsT()
    o.padding, o.strideH, o.strideW, o.fusedActivationFunction = 0, 1, 1, 1
    o.dilationHFactor = o.dilationWFactor = 1
    b.add_operator("CONV_2D", [ins[0], w, bias], [y], o)
    return y


def _conv_expected(x):
    mult = ref.conv_multipliers(0.05, S_CONV, 0.1)
    return ref.conv(x, 4, W_CONV, B_CONV, (1, 1), (1, 1), (1, 1), (5, 5), mult, -10, -10, 127)


W_DW, S_DW, B_DW = _ints(4, -127, 128, (1, 3, 3, 8)), _scales(5, 8), _ints(6, -900, 900, (8,))


def _depthwise(b, ins):
    w = _const(b, "w", (1, 3, 3, 8), "int8", W_DW, (S_DW, np.zeros(8, np.int64), 3))
    bias = _const(b, "b", (8,), "int32", B_DW, (0.04 * S_DW, np.zeros(8, np.int64), 0))
    y = _q(b, "y", (1, 2, 2, 8), 0.09, 7)
    o = litert.DepthwiseConv2DOptionsT()
    o.padding, o.strideH, o.strideW, o.depthMultiplier = 1, 2, 2, 2
    o.dilationHFactor = o.dilationWFactor = 1
    b.add_operator("DEPTHWISE_CONV_2D", [ins[0], w, bias], [y], o)
    return y


def _depthwise_expected(x):
    mult = ref.conv_multipliers(0.04, S_DW, 0.09)
    return ref.depthwise(x, -6, W_DW, B_DW, 2, (2, 2), (1, 1), (0, 0), (2, 2), mult, 7, -128, 127)


W_FC, S_FC, B_FC = _ints(7, -127, 128, (5, 6)), _scales(8, 5), _ints(9, -900, 900, (5,))


def _fully_connected(b, ins):
    w = _const(b, "w", (5, 6), "int8", W_FC, (S_FC, np.zeros(5, np.int64), 0))
    bias = _const(b, "b", (5,), "int32", B_FC, (0.1 * S_FC, np.zeros(5, np.int64), 0))
    y = _q(b, "y", (2, 5), 0.6, -3)
    b.add_operator("FULLY_CONNECTED", [ins[0], w, bias], [y], litert.FullyConnectedOptionsT())
    return y


def _fully_connected_expected(x):
    mult = ref.conv_multipliers(0.1, S_FC, 0.6)
    return ref.matmul(x[None], 11, W_FC.T[None], 0, B_FC, mult, -3, -128, 127)[0]


def _batch_matmul(b, ins):
    y = _q(b, "y", (2, 3, 5), 0.4, 2)
    o = litert.BatchMatMulOptionsT()
    o.adjY = True
    b.add_operator("BATCH_MATMUL", [ins[0], ins[1]], [y], o)
    return y


def _batch_matmul_expected(a, bt):
    mult = ref.conv_multipliers(0.05, [0.04], 0.4)
    return ref.matmul(a, -5, bt.transpose(0, 2, 1), 9, None, mult, 2, -128, 127)


def _binary(op: str, out_shape: tuple[int, ...], scale: float, zp: int):
    def build(b, ins):
        y = _q(b, "y", out_shape, scale, zp)
        b.add_operator(op, [ins[0], ins[1]], [y], getattr(litert, f"{op.title()}OptionsT")())
        return y

    return build


def _average_pool(b, ins):
    y = _q(b, "y", (1, 3, 3, 4), 0.05, -2)
    o = litert.Pool2DOptionsT()
    o.padding, o.strideH, o.strideW, o.filterHeight, o.filterWidth = 0, 2, 2, 3, 3
    b.add_operator("AVERAGE_POOL_2D", [ins[0]], [y], o)
    return y


def _mean(b, ins):
    axes = _const(b, "axes", (2,), "int32", [1, 2], None)
    y = _q(b, "y", (1, 6), 0.03, 1)
    b.add_operator("MEAN", [ins[0], axes], [y], litert.ReducerOptionsT())
    return y


def _quantize(b, ins):
    y = _q(b, "y", (3, 40), 0.1, -5)
    b.add_operator("QUANTIZE", [ins[0]], [y])
    return y


def _float_quantize(b, ins):
    """DEQUANTIZE (LiteRT's, exact) then a QUANTIZE from float32: ONNX_QUANTIZE's other kernel."""
    real = b.add_tensor("real", (3, 40), "float32")
    b.add_operator("DEQUANTIZE", [ins[0]], [real])
    y = _q(b, "y", (3, 40), 0.5, 2)
    b.add_operator("QUANTIZE", [real], [y])
    return y


def _softmax(b, ins):
    y = _q(b, "y", (4, 10), 1 / 256, -128)  # what LiteRT's SOFTMAX accepts too (the litert-mode test)
    o = litert.SoftmaxOptionsT()
    o.beta = 1.0
    b.add_operator("SOFTMAX", [ins[0]], [y], o)
    return y


# -- every rewritten operator in a row (the chain) ------------------------------------------

Q = {  # the chain's activations: (scale, zero point)
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
CONV_W, CONV_S, CONV_B = _ints(21, -127, 128, (7, 3, 3, 5)), _scales(22, 7), _ints(23, -2000, 2000, (7,))
DW_W, DW_S, DW_B = _ints(24, -127, 128, (1, 3, 3, 7)), _scales(25, 7), _ints(26, -2000, 2000, (7,))
ADD_C, MUL_C, BMM_C = (
    _ints(7, -128, 128, (1, 1, 1, 7)),
    _ints(8, -128, 128, (7,)),
    _ints(9, -128, 128, (7, 4)),
)
FC_W, FC_S, FC_B = _ints(30, -127, 128, (3, 4)), _scales(31, 3), _ints(32, -500, 500, (3,))


def _chain(b: LiteRTModelBuilder, ins: list[int]) -> int:
    """Every rewritten operator in a row, on input ins[0]; returns the output."""

    def act(name: str, shape: tuple[int, ...]) -> int:
        return b.add_tensor(name, shape, "int8", quantization=([Q[name][0]], [Q[name][1]]))

    def const(name, shape, dtype, data, quant):
        return b.add_tensor(name, shape, dtype, data=np.asarray(data), quantization=quant)

    x = ins[0]
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
    return fc


def _chain_expected(x: np.ndarray) -> np.ndarray:
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


CASES: dict[str, OnnxCase] = {
    "ONNX_CONV_2D": OnnxCase((((1, 5, 5, 3), 0.05, 4),), _conv, _conv_expected),
    "ONNX_DEPTHWISE_CONV_2D": OnnxCase((((1, 5, 5, 4), 0.04, -6),), _depthwise, _depthwise_expected),
    "ONNX_FULLY_CONNECTED": OnnxCase((((2, 6), 0.1, 11),), _fully_connected, _fully_connected_expected),
    "ONNX_BATCH_MATMUL": OnnxCase(
        (((2, 3, 4), 0.05, -5), ((2, 5, 4), 0.04, 9)), _batch_matmul, _batch_matmul_expected
    ),
    "ONNX_ADD": OnnxCase(
        (((1, 3, 4, 5), 0.07, 3), ((1, 1, 4, 1), 0.05, -8)),
        _binary("ADD", (1, 3, 4, 5), 0.09, -1),
        lambda a, c: ref.binary("add", a, 0.07, 3, c, 0.05, -8, 0.09, -1),
    ),
    "ONNX_SUB": OnnxCase(
        (((2, 3, 4), 0.06, -4), ((3, 1), 0.08, 2)),
        _binary("SUB", (2, 3, 4), 0.1, 0),
        lambda a, c: ref.binary("sub", a, 0.06, -4, c, 0.08, 2, 0.1, 0),
    ),
    "ONNX_MUL": OnnxCase(
        (((2, 6), 0.07, 3), ((6,), 0.05, -8)),
        _binary("MUL", (2, 6), 0.4, 4),
        lambda a, c: ref.binary("mul", a, 0.07, 3, c, 0.05, -8, 0.4, 4),
    ),
    "ONNX_AVERAGE_POOL_2D": OnnxCase(
        (((1, 6, 5, 4), 0.04, 6),),
        _average_pool,
        lambda x: ref.avg_pool(x, 6, 0.04, 3, 3, (2, 2), (0, 1), (3, 3), 0.05, -2, -128, 127),
    ),
    "ONNX_MEAN": OnnxCase(
        (((1, 4, 5, 6), 0.04, -3),),
        _mean,
        lambda x: ref.mean(x.reshape(1, 20, 6), -3, 0.04, 0.03, 1),
    ),
    # Half the requantized values are ties ((q - 3) * 0.05 / 0.1): half to even, not away from zero.
    "ONNX_QUANTIZE": OnnxCase(
        (((3, 40), 0.05, 3),), _quantize, lambda x: ref.requantize_linear(x, 0.05, 3, 0.1, -5)
    ),
    "FLOAT_QUANTIZE": OnnxCase(
        (((3, 40), 0.25, -1),), _float_quantize, lambda x: ref.requantize_linear(x, 0.25, -1, 0.5, 2)
    ),
    "ONNX_SOFTMAX": OnnxCase(
        (((4, 10), 0.2, -4),), _softmax, lambda x: ref.qlinear_softmax(x, 0.2, 1 / 256, -128)
    ),
    "CHAIN": OnnxCase((((1, 6, 6, 5), Q["x"][0], Q["x"][1]),), _chain, _chain_expected),
}


OUTPUT_INDEX = {key: i for i, key in enumerate(CASES)}
"""Each case's output index in the model (the self test reports outputs by index)."""


def build_all(folder: Path) -> tuple[Path, Path]:
    """The model holding every case (and the chain) side by side, and its golden data, in ``folder``."""
    b = CaseBuilder()
    inputs, outputs, samples, expected = [], [], [], []
    for key, case in CASES.items():
        b.prefix = key.lower() + "_"
        ins = [_q(b, f"x{i}", shape, scale, zp) for i, (shape, scale, zp) in enumerate(case.inputs)]
        outputs.append(case.build(b, ins))
        inputs += ins
        rng = np.random.default_rng(sum(map(ord, key)))
        drawn = [
            [rng.integers(-128, 128, shape).astype(np.int8) for shape, _, _ in case.inputs]
            for _ in range(SAMPLES)
        ]
        results = [case.expected(*sample) for sample in drawn]
        assert not np.array_equal(results[0], results[1]), key  # the outputs depend on the inputs
        assert all(np.unique(r).size > 2 for r in results), key  # and are not clamped flat
        samples += [np.stack([d[i] for d in drawn]) for i in range(len(case.inputs))]
        expected.append(np.stack(results))
    b.set_inputs(inputs)
    b.set_outputs(outputs)
    model = b.save(folder / "onnx_single_ops.tflite")
    return model, write_golden(folder / "onnx_single_ops.npz", samples, expected)


@dataclass(frozen=True)
class ModuleRun:
    """The converted module (``folder``) and its self test's lines (one per output, by index)."""

    folder: Path
    lines: str
    model: Path

    def output_line(self, key: str) -> str:
        """The self test's line for the output of case ``key``."""
        head = f"output {OUTPUT_INDEX[key]} int8: "
        return next(line for line in self.lines.splitlines() if head in line)


def run_all(folder: Path) -> ModuleRun:
    """Convert the model with requantization 'onnx', build it with its self test and run it
    (run_linked fails unless every output is bit-exact)."""
    model, golden = build_all(folder)
    lines = run_linked({"single_ops": (model, golden, None)}, folder / "linked", context_with_mode("onnx"))
    return ModuleRun(folder / "linked" / "single_ops" / "module", lines["single_ops"], model)
