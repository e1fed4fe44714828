"""Float16 operators end to end, checked against the float32 reference of the same graph.

LiteRT's reference interpreter has no float16 kernels, so every model here is built twice with
the builder: once with float16 tensors and weights (what the module runs) and once in float32
(what the reference runs). The weights, bias and inputs are drawn as float16 values, so both
graphs hold exactly the same numbers and the only difference is the arithmetic.

The tolerance (docs/float16.md, "Accuracy"), per output element y with reference value r:

    |y - r| <= (n + 2) * u * M + u * |r|,        u = 2^-11 (float16 unit roundoff)

where n is the longest chain of float16 roundings one accumulated term goes through, and
M = |bias| + sum |w * x| the magnitude of the accumulated terms (for MEAN and average pooling,
their mean). The kernels' paths give n:

- portable C (the host, any core without MVE-F) accumulates in float: n = 0 (its float error,
  K * 2^-24 * M for K terms, is far below u * M);
- Helium CONV_2D and FULLY_CONNECTED keep eight float16 partial sums per dot product (vfmaq_f16)
  and add the lanes in float: n = ceil(K / 8) fused multiply-adds per lane (per filter tap for
  CONV_2D, whose taps add in float);
- Helium DEPTHWISE_CONV_2D accumulates the bias and each tap in float16 lanes: n = taps + 1;
- Helium AVERAGE_POOL_2D sums the window in float16 lanes: n = taps;
- MEAN and SUM accumulate in float on every path: n = 0.

A float16 chain of n roundings errs by at most n * u * M (each rounding is relative to a partial
sum no larger than M), the final rounding to float16 adds u * |r|, and 2 * u * M covers the
average's reciprocal and product and the float32 reference's own rounding. M is computed by the
magnitude twin: the float32 graph on |w|, |bias|, |x| without activation, whose outputs are
exactly those sums. Activations, softmax and elementwise operators round once from a float
evaluation (error < 2^-20 relative before rounding), so their bound is 2u |r| (2^-10). Byte
movers are exact.

The module's self-test compares every element with one bound, tol * max|r| (the largest expected
magnitude of the output, over its samples); each test passes the smallest tol whose bound holds
every element's bound above, and asserts it stays small (the test is not vacuous). Models run
on the host (gcc _Float16, ASan/UBSan) and cross-built for the Cortex-M55 under QEMU (Helium
float16). An M4 platform refuses them, naming FP16 platforms.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.litert.float32_twin import float32_twin
from helia_aot.testing import CORES, cross_build_module, run_module_test_case, run_qemu

from ops_builtin.support.lstm_models import LstmSpec, lstm_model

U16 = 2.0**-11
"""float16 unit roundoff (half of float16 epsilon 2^-10)."""
ELEMENTWISE_TOL = 2 * U16
"""One rounding of a float evaluation: u |r|, plus the float evaluation's own error."""
MAX_TOL = 2.0**-4
"""No test may need a looser relative bound than this (the bound is not allowed to be vacuous)."""

SAME, VALID = litert.Padding.SAME, litert.Padding.VALID
RELU, RELU6 = litert.ActivationFunctionType.RELU, litert.ActivationFunctionType.RELU6


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


@dataclass
class Twin:
    """One graph in float16, float32 or magnitude (|data|, no activation) form."""

    form: str
    seed: int
    b: LiteRTModelBuilder = field(default_factory=LiteRTModelBuilder)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng([self.seed, zlib.crc32(b"float16")])

    @property
    def dtype(self) -> str:
        return "float16" if self.form == "float16" else "float32"

    def act(self, name: str, shape, *, model_input: bool = False) -> int:
        tid = self.b.add_tensor(name, shape, self.dtype)
        if model_input:
            self.inputs.append(tid)
        return tid

    def const(self, name: str, shape, scale: float = 0.5) -> int:
        """float16-representable data, identical in every form (absolute in the magnitude form)."""
        half = (self.rng.standard_normal(shape) * scale).astype(np.float16)
        data = np.abs(half) if self.form == "magnitude" else half
        return self.b.add_tensor(name, shape, self.dtype, data=data.astype(self.dtype))

    def fused(self, activation: int) -> int:
        return litert.ActivationFunctionType.NONE if self.form == "magnitude" else activation

    def op(self, kind: str, inputs, output: int, options=None) -> int:
        self.b.add_operator(kind, inputs, [output], options)
        return output

    def save(self, path: Path) -> Path:
        self.b.set_inputs(self.inputs)
        self.b.set_outputs(self.outputs)
        return self.b.save(path)


@dataclass(frozen=True)
class Case:
    """A one-operator family model: its builder, float16 rounding chain n (module docstring), and
    whether it is exact or accumulates (bounded through the magnitude twin)."""

    name: str
    make: Callable[[Twin], None]
    n: int = 0
    exact: bool = False
    accumulates: bool = False
    positive: bool = False
    """Inputs drawn from (0, 2] (SQRT and RSQRT are not defined below zero)."""
    fast: bool = False
    """Converted with ``accumulation: fast`` (and ``allow_approximate``): float16 Helium lanes."""


def conv(shape, filters, kernel, stride, padding, activation=RELU):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        oh = -(-shape[1] // stride) if padding == SAME else (shape[1] - kernel) // stride + 1
        ow = -(-shape[2] // stride) if padding == SAME else (shape[2] - kernel) // stride + 1
        y = t.act("y", (shape[0], oh, ow, filters))
        w = t.const("w", (filters, kernel, kernel, shape[3]))
        bias = t.const("b", (filters,))
        opts = _options(
            litert.Conv2DOptionsT,
            padding=padding,
            strideH=stride,
            strideW=stride,
            dilationHFactor=1,
            dilationWFactor=1,
            fusedActivationFunction=t.fused(activation),
        )
        t.outputs.append(t.op("CONV_2D", [x, w, bias], y, opts))

    return make


def depthwise(shape, multiplier, kernel, stride, padding, activation=RELU6):
    def make(t: Twin) -> None:
        c = shape[3] * multiplier
        x = t.act("x", shape, model_input=True)
        oh = -(-shape[1] // stride) if padding == SAME else (shape[1] - kernel) // stride + 1
        ow = -(-shape[2] // stride) if padding == SAME else (shape[2] - kernel) // stride + 1
        y = t.act("y", (shape[0], oh, ow, c))
        opts = _options(
            litert.DepthwiseConv2DOptionsT,
            padding=padding,
            strideH=stride,
            strideW=stride,
            depthMultiplier=multiplier,
            dilationHFactor=1,
            dilationWFactor=1,
            fusedActivationFunction=t.fused(activation),
        )
        w, bias = t.const("w", (1, kernel, kernel, c)), t.const("b", (c,))
        t.outputs.append(t.op("DEPTHWISE_CONV_2D", [x, w, bias], y, opts))

    return make


def fully_connected(batches, depth, units, activation=RELU):
    def make(t: Twin) -> None:
        x = t.act("x", (batches, depth), model_input=True)
        y = t.act("y", (batches, units))
        w, bias = t.const("w", (units, depth), 0.25), t.const("b", (units,))
        opts = _options(litert.FullyConnectedOptionsT, fusedActivationFunction=t.fused(activation))
        t.outputs.append(t.op("FULLY_CONNECTED", [x, w, bias], y, opts))

    return make


def pool(kind, shape, kernel, stride, padding):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        oh = -(-shape[1] // stride) if padding == SAME else (shape[1] - kernel) // stride + 1
        ow = -(-shape[2] // stride) if padding == SAME else (shape[2] - kernel) // stride + 1
        y = t.act("y", (shape[0], oh, ow, shape[3]))
        opts = _options(
            litert.Pool2DOptionsT,
            padding=padding,
            strideH=stride,
            strideW=stride,
            filterHeight=kernel,
            filterWidth=kernel,
        )
        t.outputs.append(t.op(kind, [x], y, opts))

    return make


def binary(kind, lhs, rhs, out, options=None):
    def make(t: Twin) -> None:
        a = t.act("a", lhs, model_input=True)
        b = t.act("b", rhs, model_input=True)
        t.outputs.append(t.op(kind, [a, b], t.act("y", out), options))

    return make


def unary(kind, shape, options=None):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        t.outputs.append(t.op(kind, [x], t.act("y", shape), options))

    return make


def reduce(kind, shape, axes, out):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        a = t.b.add_tensor("axes", (len(axes),), "int32", data=np.asarray(axes, np.int32))
        opts = _options(litert.ReducerOptionsT, keepDims=True)
        t.outputs.append(t.op(kind, [x, a], t.act("y", out), opts))

    return make


def transpose_conv(shape, filters, kernel, stride, padding, bias=True):
    def make(t: Twin) -> None:
        n, h, w, c = shape
        oh = h * stride if padding == SAME else (h - 1) * stride + kernel
        ow = w * stride if padding == SAME else (w - 1) * stride + kernel
        out = (n, oh, ow, filters)
        x = t.act("x", shape, model_input=True)
        sizes = t.b.add_tensor("output_shape", (4,), "int32", data=np.asarray(out, np.int32))
        inputs = [sizes, t.const("w", (filters, kernel, kernel, c)), x]
        if bias:
            inputs.append(t.const("b", (filters,)))
        opts = _options(litert.TransposeConvOptionsT, padding=padding, strideH=stride, strideW=stride)
        t.outputs.append(t.op("TRANSPOSE_CONV", inputs, t.act("y", out), opts))

    return make


def svdf(batch, inputs, units, rank, memory, activation=RELU):
    def make(t: Twin) -> None:
        filters = units * rank
        x = t.act("x", (batch, inputs), model_input=True)
        wf, wt = t.const("wf", (filters, inputs)), t.const("wt", (filters, memory))
        bias = t.const("b", (units,))
        state = t.b.add_tensor("state", (batch, memory * filters), t.dtype, variable=True)
        opts = _options(litert.SVDFOptionsT, rank=rank, fusedActivationFunction=t.fused(activation))
        t.outputs.append(t.op("SVDF", [x, wf, wt, bias, state], t.act("y", (batch, units)), opts))

    return make


def prelu(shape, alpha_shape):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        alpha = t.const("alpha", alpha_shape)
        t.outputs.append(t.op("PRELU", [x, alpha], t.act("y", shape)))

    return make


def arg(kind, shape, axis):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        a = t.b.add_tensor("axis", (1,), "int32", data=np.asarray([axis], np.int32))
        out = tuple(d for i, d in enumerate(shape) if i != axis)
        y = t.b.add_tensor("y", out, "int32")
        cls = litert.ArgMaxOptionsT if kind == "ARG_MAX" else litert.ArgMinOptionsT
        opts = _options(cls, outputType=litert.TensorType.INT32)
        t.outputs.append(t.op(kind, [x, a], y, opts))

    return make


def batch_matmul(lhs, rhs, out, adj_x, adj_y, constant_rhs=False):
    def make(t: Twin) -> None:
        a = t.act("a", lhs, model_input=True)
        b = t.const("b", rhs, 0.5) if constant_rhs else t.act("b", rhs, model_input=True)
        opts = _options(litert.BatchMatMulOptionsT, adjX=adj_x, adjY=adj_y)
        t.outputs.append(t.op("BATCH_MATMUL", [a, b], t.act("y", out), opts))

    return make


def more_movers(t: Twin) -> None:
    """REVERSE_V2, TILE, RESIZE_NEAREST_NEIGHBOR, STRIDED_SLICE, GATHER on float16."""
    x = t.act("x", (1, 3, 4, 5), model_input=True)
    axis = t.b.add_tensor("axis", (1,), "int32", data=np.asarray([2], np.int32))
    rev = t.op("REVERSE_V2", [x, axis], t.act("rev", (1, 3, 4, 5)))
    mult = t.b.add_tensor("mult", (4,), "int32", data=np.asarray([1, 2, 1, 1], np.int32))
    tiled = t.op("TILE", [rev, mult], t.act("tiled", (1, 6, 4, 5)))
    size = t.b.add_tensor("size", (2,), "int32", data=np.asarray([12, 8], np.int32))
    big = t.op(
        "RESIZE_NEAREST_NEIGHBOR",
        [tiled, size],
        t.act("big", (1, 12, 8, 5)),
        litert.ResizeNearestNeighborOptionsT(),
    )
    begin = t.b.add_tensor("begin", (4,), "int32", data=np.asarray([0, 1, 0, 0], np.int32))
    end = t.b.add_tensor("end", (4,), "int32", data=np.asarray([1, 12, 8, 5], np.int32))
    step = t.b.add_tensor("step", (4,), "int32", data=np.asarray([1, 3, 2, 1], np.int32))
    strided = t.op(
        "STRIDED_SLICE",
        [big, begin, end, step],
        t.act("strided", (1, 4, 4, 5)),
        litert.StridedSliceOptionsT(),
    )
    idx = t.b.add_tensor("idx", (3,), "int32", data=np.asarray([4, 0, 2], np.int32))
    gather = _options(litert.GatherOptionsT, axis=3, batchDims=0)
    t.outputs.append(t.op("GATHER", [strided, idx], t.act("y", (1, 4, 4, 3)), gather))


def generators(t: Twin) -> None:
    """FILL (a run-time value) and DILATE (a constant padding value) on float16: byte movers."""
    x = t.act("x", (2, 3, 4), model_input=True)
    value = t.act("value", (), model_input=True)
    dilations = t.b.add_tensor("dilations", (3,), "int32", data=np.asarray([1, 2, 3], np.int32))
    pad = t.const("pad", ())
    dilated = t.op("DILATE", [x, dilations, pad], t.act("dilated", (2, 5, 10)))
    dims = t.b.add_tensor("dims", (3,), "int32", data=np.asarray([2, 5, 10], np.int32))
    filled = t.op("FILL", [dims, value], t.act("filled", (2, 5, 10)))
    cat = _options(litert.ConcatenationOptionsT, axis=0)
    t.outputs.append(t.op("CONCATENATION", [dilated, filled], t.act("y", (4, 5, 10)), cat))


def movers(t: Twin) -> None:
    """RESHAPE, TRANSPOSE, CONCATENATION, PAD, SLICE: float16 moved as 2-byte elements."""
    x = t.act("x", (1, 4, 6, 3), model_input=True)
    r = t.act("r", (1, 6, 4, 3))
    shape = t.b.add_tensor("shape", (4,), "int32", data=np.asarray([1, 6, 4, 3], np.int32))
    t.op("RESHAPE", [x, shape], r)
    perm = t.b.add_tensor("perm", (4,), "int32", data=np.asarray([0, 3, 1, 2], np.int32))
    p = t.op("TRANSPOSE", [r, perm], t.act("p", (1, 3, 6, 4)))
    pads = t.b.add_tensor(
        "pads", (4, 2), "int32", data=np.asarray([[0, 0], [1, 0], [0, 2], [1, 1]], np.int32)
    )
    padded = t.op("PAD", [p, pads], t.act("padded", (1, 4, 8, 6)))
    begin = t.b.add_tensor("begin", (4,), "int32", data=np.asarray([0, 1, 2, 1], np.int32))
    size = t.b.add_tensor("size", (4,), "int32", data=np.asarray([1, 3, 5, 4], np.int32))
    sliced = t.op("SLICE", [padded, begin, size], t.act("sliced", (1, 3, 5, 4)))
    cat = _options(litert.ConcatenationOptionsT, axis=3)
    t.outputs.append(t.op("CONCATENATION", [sliced, sliced], t.act("y", (1, 3, 5, 8)), cat))


FAMILIES = [
    # accumulation: precise (the default) sums in float on every core: n = 0.
    Case("conv_3x3_same", conv((1, 6, 7, 5), 4, 3, 1, SAME), accumulates=True),
    Case("conv_2x2_s2_valid", conv((2, 5, 6, 12), 3, 2, 2, VALID, 0), accumulates=True),
    Case("conv_1x1", conv((1, 4, 4, 17), 9, 1, 1, VALID), accumulates=True),
    Case("depthwise_3x3_m1", depthwise((1, 6, 6, 11), 1, 3, 1, SAME), accumulates=True),
    Case("depthwise_3x3_m2_s2", depthwise((1, 7, 5, 3), 2, 3, 2, VALID), accumulates=True),
    Case("fully_connected_2x40", fully_connected(2, 40, 7), accumulates=True),
    Case("fully_connected_1x9", fully_connected(1, 9, 12, 0), accumulates=True),
    # accumulation: fast keeps float16 lanes on Helium: n = ceil(K / 8) per CONV_2D tap or
    # FULLY_CONNECTED row, taps + 1 for DEPTHWISE_CONV_2D with depth multiplier 1.
    Case("conv_3x3_same_fast", conv((1, 6, 7, 5), 4, 3, 1, SAME), n=1, accumulates=True, fast=True),
    Case("conv_1x1_fast", conv((1, 4, 4, 17), 9, 1, 1, VALID), n=3, accumulates=True, fast=True),
    Case(
        "depthwise_3x3_m1_fast",
        depthwise((1, 6, 6, 11), 1, 3, 1, SAME),
        n=9 + 1,
        accumulates=True,
        fast=True,
    ),
    Case("fully_connected_2x40_fast", fully_connected(2, 40, 7), n=5, accumulates=True, fast=True),
    # TRANSPOSE_CONV sums in float on every core (n = 0); TRANSPOSE_REVERSE_CONV leaves float
    # ones as they are (it rewrites int8 only, as the product does).
    Case("transpose_conv_3x3_s2_same", transpose_conv((1, 3, 4, 5), 6, 3, 2, SAME), accumulates=True),
    Case(
        "transpose_conv_2x2_valid_no_bias",
        transpose_conv((2, 3, 3, 4), 3, 2, 1, VALID, bias=False),
        accumulates=True,
    ),
    Case("avg_pool_3x3_s2", pool("AVERAGE_POOL_2D", (1, 7, 6, 10), 3, 2, SAME), n=9, accumulates=True),
    Case("max_pool_2x2", pool("MAX_POOL_2D", (1, 6, 6, 9), 2, 2, VALID), exact=True),
    Case("add_broadcast", binary("ADD", (2, 3, 1, 9), (1, 1, 4, 9), (2, 3, 4, 9))),
    Case("sub_same_shape", binary("SUB", (1, 5, 19), (1, 5, 19), (1, 5, 19))),
    Case(
        "mul_relu6",
        binary("MUL", (3, 11), (3, 11), (3, 11), _options(litert.MulOptionsT, fusedActivationFunction=RELU6)),
    ),
    Case("maximum_broadcast", binary("MAXIMUM", (4, 6), (1, 6), (4, 6)), exact=True),
    Case("minimum", binary("MINIMUM", (2, 13), (2, 13), (2, 13)), exact=True),
    Case("relu", unary("RELU", (2, 21)), exact=True),
    Case("relu6", unary("RELU6", (3, 10)), exact=True),
    Case("logistic", unary("LOGISTIC", (2, 17))),
    Case("tanh", unary("TANH", (1, 30))),
    Case("hard_swish", unary("HARD_SWISH", (4, 9))),
    Case("abs", unary("ABS", (3, 13)), exact=True),
    Case("neg", unary("NEG", (2, 9)), exact=True),
    Case("sqrt", unary("SQRT", (2, 15)), positive=True),
    Case("rsqrt", unary("RSQRT", (4, 7)), positive=True),
    Case("softmax", unary("SOFTMAX", (3, 20), _options(litert.SoftmaxOptionsT, beta=1.0))),
    # SVDF rounds each new state slot once (n = 1); both samples run through one state, as the
    # reference interpreter runs them.
    Case("svdf_rank2", svdf(2, 7, 3, 2, 4), n=1, accumulates=True),
    Case("squared_difference", binary("SQUARED_DIFFERENCE", (2, 1, 7), (1, 3, 7), (2, 3, 7))),
    Case(
        "div_relu",
        binary("DIV", (3, 9), (1, 9), (3, 9), _options(litert.DivOptionsT, fusedActivationFunction=RELU)),
        positive=True,
    ),
    Case("prelu", prelu((1, 3, 4, 5), (4, 5))),
    Case("gelu", unary("GELU", (3, 11), _options(litert.GeluOptionsT, approximate=False))),
    Case("gelu_tanh", unary("GELU", (2, 10), _options(litert.GeluOptionsT, approximate=True))),
    Case("arg_max", arg("ARG_MAX", (2, 5, 6), 1), exact=True),
    Case("arg_min", arg("ARG_MIN", (3, 8), 1), exact=True),
    Case("reduce_max", reduce("REDUCE_MAX", (2, 3, 4, 5), [1, 3], (2, 1, 4, 1)), exact=True),
    Case("reduce_min", reduce("REDUCE_MIN", (1, 4, 6, 3), [2], (1, 4, 1, 3)), exact=True),
    Case("mean_hw", reduce("MEAN", (1, 5, 6, 7), [1, 2], (1, 1, 1, 7)), n=0, accumulates=True),
    Case("sum_c", reduce("SUM", (2, 3, 4, 9), [3], (2, 3, 4, 1)), n=0, accumulates=True),
    Case("movers", movers, exact=True),
    Case("more_movers", more_movers, exact=True),
    Case("generators", generators, exact=True),
    # Helium takes vfmaq_f16 lanes only where both operands run along the depth (adj_y, not
    # adj_x): n = ceil(depth / 8); the strided walks accumulate in float (n = 0).
    Case(
        "batch_matmul_adj_y",
        batch_matmul((2, 3, 12), (2, 5, 12), (2, 3, 5), False, True),
        n=2,
        accumulates=True,
    ),
    Case(
        "batch_matmul_broadcast_const",
        batch_matmul((2, 1, 4, 6), (3, 6, 7), (2, 3, 4, 7), False, False, constant_rhs=True),
        n=0,
        accumulates=True,
    ),
]
IDS = [c.name for c in FAMILIES]
M55_FAMILIES = [
    c
    for c in FAMILIES
    if c.name
    in {
        "conv_3x3_same",
        "conv_2x2_s2_valid",
        "depthwise_3x3_m1",
        "depthwise_3x3_m2_s2",
        "fully_connected_2x40",
        "conv_3x3_same_fast",
        "depthwise_3x3_m1_fast",
        "fully_connected_2x40_fast",
        "avg_pool_3x3_s2",
        "max_pool_2x2",
        "add_broadcast",
        "sub_same_shape",
        "mul_relu6",
        "maximum_broadcast",
        "relu6",
        "logistic",
        "softmax",
        "abs",
        "rsqrt",
        "mean_hw",
        "movers",
        "more_movers",
        "batch_matmul_adj_y",
        "transpose_conv_3x3_s2_same",
        "svdf_rank2",
        "div_relu",
        "prelu",
        "arg_max",
        "reduce_max",
    }
]


def _twin(case: Case, form: str, path: Path) -> tuple[Path, Twin]:
    t = Twin(form, seed=zlib.crc32(case.name.encode()))
    case.make(t)
    return t.save(path), t


def _inputs(model: Path, seed: int, samples: int = 2) -> list[np.ndarray]:
    """float16-representable inputs in [-2, 2], stacked over samples, as float16."""
    interp = create_interpreter(model)
    rng = np.random.default_rng(seed)
    shapes = [tuple(d["shape"]) for d in interp._interpreter.get_input_details()]
    return [rng.uniform(-2.0, 2.0, (samples, *s)).astype(np.float16) for s in shapes]


def _run(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    interp = create_interpreter(model)
    samples = inputs[0].shape[0]
    runs = [interp.run([x[s].astype(np.float32) for x in inputs]) for s in range(samples)]
    return [np.stack([r[j] for r in runs]) for j in range(len(runs[0]))]


def tolerance(case: Case, reference: np.ndarray, magnitude: np.ndarray | None) -> float:
    """The smallest tolerance whose bound (tol * max|r| over the output) holds every element's bound."""
    r = np.abs(reference.astype(np.float64))
    if case.exact:
        return 0.0
    if case.accumulates:
        assert magnitude is not None
        bound = (case.n + 2) * U16 * magnitude.astype(np.float64) + U16 * r
    else:
        bound = ELEMENTWISE_TOL * r
    scale = float(r.max())
    return float(bound.max() / scale) if scale > 0 else 0.0


def prepare(case: Case, work: Path) -> tuple[Path, Path, float]:
    """The float16 model, its golden (float16 inputs, float32 reference outputs) and tolerance."""
    work.mkdir(parents=True, exist_ok=True)
    f16, _ = _twin(case, "float16", work / "model_f16.tflite")
    f32, _ = _twin(case, "float32", work / "model_f32.tflite")
    inputs = _inputs(f32, seed=zlib.crc32(case.name.encode()))
    if case.positive:
        inputs = [np.maximum(np.abs(x), np.float16(2.0**-10)) for x in inputs]
    reference = _run(f32, inputs)
    magnitude = None
    if case.accumulates:
        mag, _ = _twin(case, "magnitude", work / "model_mag.tflite")
        magnitude = _run(mag, [np.abs(x) for x in inputs])[0]
    tol = tolerance(case, reference[0], magnitude)
    assert tol <= MAX_TOL, f"{case.name}: the stated bound needs tol {tol}"
    golden = work / "golden.npz"
    arrays = {f"input_{i}": x for i, x in enumerate(inputs)}
    # float16 outputs compare as float32 (the twin's type); index outputs stay integers.
    arrays |= {
        f"output_{j}": y if y.dtype.kind in "iu" else y.astype(np.float32) for j, y in enumerate(reference)
    }
    np.savez(golden, **arrays)
    return f16, golden, tol


FAST = {"accumulation": "fast", "allow_approximate": True}


def convert(
    model: Path,
    golden: Path | None,
    tol: float,
    out: Path,
    platform: str = "apollo510_evb",
    optimization: dict | None = None,
):
    test = {"enabled": True, "tolerance": tol} | ({"golden_data": str(golden)} if golden else {})
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "module"},
        "platform": {"name": platform},
        "test": test,
        "optimization": optimization or {},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("case", FAMILIES, ids=IDS)
def test_float16_family_matches_float32_reference_on_host(case, tmp_path):
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out", optimization=FAST if case.fast else None)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert "PASS (2 sample(s)" in run.stdout


@pytest.mark.cross
@pytest.mark.parametrize("case", M55_FAMILIES, ids=[c.name for c in M55_FAMILIES])
def test_float16_family_matches_float32_reference_on_m55(case, tmp_path):
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out", optimization=FAST if case.fast else None)
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS (2 sample(s)" in run.stdout


def test_helium_f16_kernels_are_compiled_for_the_m55(tmp_path):
    """The M55 build takes the Helium float16 paths (MVE-F), not the portable loops."""
    case = next(c for c in FAMILIES if c.name == "conv_3x3_same")
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    kernels = Path(result.output) / "src" / "kernels"
    assert sorted(p.name for p in kernels.iterdir()) == [
        f"{result.prefix}_hk_{n}"
        for n in ("common.h", "conv_f16.c", "conv_f16.h", "f16.h", "f16_dot.h", "isa.h")
    ]
    dot = (kernels / f"{result.prefix}_hk_f16_dot.h").read_text()
    assert "vfmaq_f16" in dot and "HK_HAVE_MVE_F16" in dot.replace(result.prefix.upper() + "_", "")


@pytest.mark.parametrize("platform", ["apollo4p_evb", "apollo3_evb"])
def test_float16_operators_are_refused_on_a_platform_without_fp16(platform, tmp_path):
    case = FAMILIES[0]
    model, _ = _twin(case, "float16", tmp_path / "model.tflite")
    with pytest.raises(UnsupportedModelError) as info:
        convert(model, None, 0.0, tmp_path / "out", platform=platform)
    message = str(info.value)
    assert "#0 CONV_2D" in message and "is float16, which needs an FP16-capable platform" in message
    assert f"{platform} (cortex-m4) has no FP16" in message
    assert "apollo510_evb" in message  # a platform that has FP16, from the registry


def test_float16_weights_with_dequantize_still_convert_on_a_platform_without_fp16(tmp_path):
    """Constant float16 weights widened by DEQUANTIZE need no FP16: the M4 converts them."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 8), "float32")
    half = (np.random.default_rng(5).standard_normal((4, 8)) * 0.3).astype(np.float16)
    wq = b.add_tensor("wq", (4, 8), "float16", data=half)
    w = b.add_tensor("w", (4, 8), "float32")
    b.add_operator("DEQUANTIZE", [wq], [w])
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("FULLY_CONNECTED", [x, w], [y], _options(litert.FullyConnectedOptionsT))
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "model.tflite")
    result = convert(model, None, 1e-5, tmp_path / "out", platform="apollo4p_evb")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_default_golden_of_a_float16_model_is_its_float32_twin(tmp_path):
    """Without test.golden_data, the self-test's golden comes from the float32 twin (the
    reference has no float16 kernels), with float16 inputs and float32 expected outputs."""
    case = next(c for c in FAMILIES if c.name == "add_broadcast")
    model, _ = _twin(case, "float16", tmp_path / "model.tflite")
    twin = tmp_path / "twin.tflite"
    twin.write_bytes(float32_twin(model.read_bytes()))
    details = create_interpreter(twin)._interpreter.get_input_details()
    assert [d["dtype"] for d in details] == [np.float32, np.float32]
    result = convert(model, None, ELEMENTWISE_TOL, tmp_path / "out")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_quantize_float32_to_float16_and_back(tmp_path):
    """QUANTIZE float32 -> float16 rounds to nearest; DEQUANTIZE float16 -> float32 is exact, so
    the round trip is within u |x| of the input (the twin runs both as identities)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (3, 7), "float32")
    h = b.add_tensor("h", (3, 7), "float16")
    y = b.add_tensor("y", (3, 7), "float32")
    b.add_operator("QUANTIZE", [x], [h])
    b.add_operator("DEQUANTIZE", [h], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "model.tflite")
    result = convert(model, None, U16, tmp_path / "out")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


HOSTILE = [
    "conv_3x3_same",
    "depthwise_3x3_m1",
    "fully_connected_2x40",
    "avg_pool_3x3_s2",
    "max_pool_2x2",
    "mul_relu6",
    "add_broadcast",
    "logistic",
    "tanh",
    "hard_swish",
    "softmax",
    "mean_hw",
    "sum_c",
    "div_relu",
    "arg_max",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_float16_modules_run_clean_on_hostile_inputs(name, tmp_path):
    """Every float16 bit pattern class an application can write (the largest finite values of
    both signs, alternating, infinities, NaN, subnormals) runs without a sanitizer report or a
    kernel failure. Nothing is compared: float16 overflow to infinity and NaN propagation are
    the IEEE results, which the float32 twin does not share."""
    case = next(c for c in FAMILIES if c.name == name)
    model, _ = _twin(case, "float16", tmp_path / "model.tflite")
    f32, _ = _twin(case, "float32", tmp_path / "model_f32.tflite")
    shapes = [tuple(d["shape"]) for d in create_interpreter(f32)._interpreter.get_input_details()]
    patterns = [65504.0, -65504.0, np.inf, -np.inf, np.nan, 2.0**-24]

    def sample(shape, value, alternate):
        flat = np.full(int(np.prod(shape)), value, np.float16)
        if alternate:
            flat[1::2] = -flat[1::2]
        return flat.reshape(shape)

    samples = [(v, alt) for v in patterns for alt in (False, True)]
    arrays = {f"input_{i}": np.stack([sample(s, v, a) for v, a in samples]) for i, s in enumerate(shapes)}
    outputs = _run(f32, [np.zeros((1, *s), np.float16) for s in shapes])
    arrays |= {
        f"output_{j}": np.zeros((len(samples), *y.shape[1:]), np.float32 if y.dtype.kind == "f" else y.dtype)
        for j, y in enumerate(outputs)
    }
    golden = tmp_path / "hostile.npz"
    np.savez(golden, **arrays)
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "skip_verification": True},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.returncode == 0 and "runtime error" not in run.stderr, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert f"PASS ({len(samples)} sample(s), 0 output(s))" in run.stdout


def _accumulation(result) -> dict[str, tuple[str, bool]]:
    """Per operator type: the plan's resolved ``accumulation`` value and whether it is approximate."""
    return {
        op.op_type: (op.knobs["accumulation"].value, op.knobs["accumulation"].approximate)
        for op in result.plan.operators
        if "accumulation" in op.knobs
    }


def _fast_fields(result) -> list[str]:
    """The ``fast_accumulation`` initializers of the generated operator code, in file order."""
    sources = sorted((Path(result.output) / "src").glob("*.c"))
    return [
        line.strip() for p in sources for line in p.read_text().splitlines() if ".fast_accumulation" in line
    ]


def three_layers(t: Twin) -> None:
    """CONV_2D -> DEPTHWISE_CONV_2D -> FULLY_CONNECTED, the three operators the knob reaches."""
    x = t.act("x", (1, 4, 4, 3), model_input=True)
    c = t.op(
        "CONV_2D",
        [x, t.const("cw", (4, 3, 3, 3)), t.const("cb", (4,))],
        t.act("c", (1, 4, 4, 4)),
        _options(
            litert.Conv2DOptionsT, padding=SAME, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
        ),
    )
    d = t.op(
        "DEPTHWISE_CONV_2D",
        [c, t.const("dw", (1, 3, 3, 4)), t.const("db", (4,))],
        t.act("d", (1, 4, 4, 4)),
        _options(
            litert.DepthwiseConv2DOptionsT,
            padding=SAME,
            strideH=1,
            strideW=1,
            depthMultiplier=1,
            dilationHFactor=1,
            dilationWFactor=1,
        ),
    )
    r = t.op(
        "RESHAPE",
        [d, t.b.add_tensor("s", (2,), "int32", data=np.asarray([1, 64], np.int32))],
        t.act("r", (1, 64)),
    )
    f = t.op("FULLY_CONNECTED", [r, t.const("fw", (5, 64), 0.1), t.const("fb", (5,))], t.act("y", (1, 5)))
    t.outputs.append(f)


ACCUMULATING = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"}


def test_the_plan_records_the_accumulation_the_float16_kernels_run(tmp_path):
    """``precise`` (the default) and ``fast`` reach the kernels' params, and the plan says which:
    the knob record and the generated ``fast_accumulation`` field agree for every operator."""
    model, _ = _twin(Case("three", three_layers), "float16", tmp_path / "model.tflite")
    default = convert(model, None, MAX_TOL, tmp_path / "default")
    assert _accumulation(default) == {t: ("precise", False) for t in ACCUMULATING}
    assert _fast_fields(default) == [".fast_accumulation = false,"] * 3
    fast = convert(model, None, MAX_TOL, tmp_path / "fast", optimization=FAST)
    assert _accumulation(fast) == {t: ("fast", True) for t in ACCUMULATING}
    assert _fast_fields(fast) == [".fast_accumulation = true,"] * 3
    # One operator by type: only the depthwise convolution accumulates in float16 lanes.
    rules = [{"type": "DEPTHWISE_CONV_2D", "optimization": {"accumulation": "fast"}}]
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "one"), "name": "module"},
        "optimization": {"allow_approximate": True},
        "operators": rules,
    }
    one = AotConverter(ConvertArgs.model_validate(config)).convert()
    assert _accumulation(one) == {
        "CONV_2D": ("precise", False),
        "DEPTHWISE_CONV_2D": ("fast", True),
        "FULLY_CONNECTED": ("precise", False),
    }
    assert _fast_fields(one).count(".fast_accumulation = true,") == 1


def test_fast_accumulation_without_allow_approximate_stays_precise_with_a_hint(tmp_path):
    model, _ = _twin(Case("three", three_layers), "float16", tmp_path / "model.tflite")
    result = convert(model, None, MAX_TOL, tmp_path / "out", optimization={"accumulation": "fast"})
    assert _accumulation(result) == {t: ("precise", False) for t in ACCUMULATING}
    assert _fast_fields(result) == [".fast_accumulation = false,"] * 3
    hinted = {
        op.op_type for op in result.report.operators for h in op.hints if str(h.kind) == "knob_not_honoured"
    }
    assert hinted == ACCUMULATING


def gru_f16_model(
    path: Path, steps: int, inputs: int, units: int, weights, state: str, sequence: bool
) -> Path:
    """One float16 ``GRU`` custom node (the layout of recurrent_models.gru_custom_model)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (1, steps, inputs), "float16")
    names = ("kernel", "recurrent", "input_bias", "recurrent_bias")
    ins = [x] + [
        b.add_tensor(n, weights[n].shape, "float16", data=weights[n].astype(np.float16)) for n in names
    ]
    if state == "variable":
        ins.append(b.add_tensor("state", (1, units), "float16", variable=True))
    y = b.add_tensor("output", (1, steps, units) if sequence else (1, units), "float16")
    b.add_custom_operator("GRU", ins, [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def gru_case(tmp_path: Path, sequence: bool, state: str) -> tuple[Path, Path, float]:
    """The float16 GRU, its golden from the float32 unrolled reference (the same float16-valued
    weights and inputs), and the tolerance: the kernel evaluates the cell in float and keeps h in
    float inside a run, so an output differs from the reference by its one rounding to float16
    plus float noise (ELEMENTWISE_TOL, h is in (-1, 1)). A variable state is rounded to float16
    at the end of each run, and the next run's cell carries that error on (z * h keeps it, the
    candidate's tanh and the recurrent kernel scale it by at most sum|R| * 1/4 + 1 per step): the
    tolerance grows by one rounding per earlier run, times 4 for that gain."""
    from ops_builtin.support.recurrent_models import gru_unrolled_model, gru_weights, reference_outputs

    steps, inputs, units, runs = 3, 4, 5, 3
    weights = {
        k: v.astype(np.float16).astype(np.float32) for k, v in gru_weights(inputs, units, seed=7).items()
    }
    model = gru_f16_model(tmp_path / "gru_f16.tflite", steps, inputs, units, weights, state, sequence)
    total = steps * runs if state == "variable" else steps
    unrolled = gru_unrolled_model(
        tmp_path / "unrolled.tflite", steps=total, inputs=inputs, units=units, weights=weights
    )
    rng = np.random.default_rng(11)
    whole = rng.uniform(-2, 2, (1, total, inputs)).astype(np.float16)
    (expected,) = reference_outputs(unrolled, [[whole.astype(np.float32)]])[0]
    frames = np.split(whole, total // steps, axis=1)
    outputs = np.split(expected, total // steps, axis=1)
    if not sequence:
        outputs = [o[:, -1] for o in outputs]
    golden = tmp_path / "golden.npz"
    np.savez(golden, input_0=np.stack(frames), output_0=np.stack(outputs).astype(np.float32))
    tol = ELEMENTWISE_TOL * (1 + 4 * (len(frames) - 1))
    return model, golden, tol


@pytest.mark.parametrize(("sequence", "state"), [(True, "none"), (False, "none"), (True, "variable")])
def test_float16_gru_matches_the_float32_unrolled_reference_on_host(tmp_path, sequence, state):
    model, golden, tol = gru_case(tmp_path, sequence, state)
    result = convert(model, golden, tol, tmp_path / "out")
    assert [op.kernel.entry for op in result.plan.operators] == ["hk_gru_f16"]
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_float16_gru_matches_the_float32_unrolled_reference_on_m55(tmp_path):
    model, golden, tol = gru_case(tmp_path, True, "variable")
    result = convert(model, golden, tol, tmp_path / "out")
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0 and "PASS (3 sample(s)" in run.stdout, run.stdout


LSTM_F16 = [
    LstmSpec(dtype="float16", batch=2, time=4, n_input=5, n_cell=6),
    LstmSpec(
        dtype="float16", batch=1, time=3, n_input=4, n_cell=5, cifg=True, time_major=True, cell_clip=1.5
    ),
]


def lstm_case(spec: LstmSpec, work: Path) -> tuple[Path, Path, float]:
    """The float16 LSTM, its golden from the float32 twin (two runs through one interpreter, so the
    carried states matter) and the tolerance. The kernel evaluates the cell in float and keeps h
    and c in float inside a run: an output differs from the reference by its one rounding (u |r|)
    plus float noise; the states are rounded to float16 between runs, and the second run's cell
    carries those roundings on. h is in (-1, 1) and the weights are scaled by 0.9 / sqrt(fan-in),
    so a state error passes through each step with a gain below 2: tol = 2u (one rounding) + 8u
    (the carried roundings of h and c, over the second run's steps)."""
    work.mkdir(parents=True, exist_ok=True)
    f16 = lstm_model(spec, work / "lstm_f16.tflite")
    twin = work / "lstm_f32.tflite"
    twin.write_bytes(float32_twin(f16.read_bytes()))
    inputs = _inputs(twin, seed=zlib.crc32(spec.label.encode()))
    reference = _run(twin, inputs)
    golden = work / "golden.npz"
    np.savez(golden, input_0=inputs[0], output_0=reference[0].astype(np.float32))
    return f16, golden, 10 * U16


@pytest.mark.parametrize("spec", LSTM_F16, ids=[s.label for s in LSTM_F16])
def test_float16_lstm_matches_the_float32_twin_on_host(spec, tmp_path):
    model, golden, tol = lstm_case(spec, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    assert [op.kernel.entry for op in result.plan.operators] == ["hk_lstm_f16"]
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_float16_lstm_matches_the_float32_twin_on_m55(tmp_path):
    model, golden, tol = lstm_case(LSTM_F16[0], tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0 and "PASS (2 sample(s)" in run.stdout, run.stdout


def test_float16_lstm_refuses_what_the_keras_subset_lacks(tmp_path):
    model = lstm_model(LstmSpec(dtype="float16", peephole=True, n_output=4), tmp_path / "m.tflite")
    with pytest.raises(UnsupportedModelError) as info:
        convert(model, None, MAX_TOL, tmp_path / "out")
    message = str(info.value)
    assert "a float16 LSTM has no peephole weights" in message
    assert "a float16 LSTM has no projection" in message
