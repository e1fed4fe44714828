"""Float16 single-family models and their float32 twins, for the float16 tests.

LiteRT's reference interpreter has no float16 kernels, so every model is built twice with the
builder: once with float16 tensors and weights (what the module runs) and once in float32 (what
the reference runs). The weights, bias and inputs are drawn as float16 values, so both graphs hold
exactly the same numbers and the only difference is the arithmetic. :data:`FAMILIES` holds the
cases (most one operator each: the operators' own files run theirs through :func:`check_on_host`;
the byte movers' multi-operator cases and the Cortex-M55 runs are in
tests/ops_builtin/common/test_float16_ops.py).

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
magnitude of the output, over its samples); each case passes the smallest tol whose bound holds
every element's bound above, and asserts it stays small (the test is not vacuous).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

U16 = 2.0**-11
"""float16 unit roundoff (half of float16 epsilon 2^-10)."""
ELEMENTWISE_TOL = 2 * U16
"""One rounding of a float evaluation: u |r|, plus the float evaluation's own error."""
MAX_TOL = 2.0**-4
"""No test may need a looser relative bound than this (the bound is not allowed to be vacuous)."""

SAME, VALID = litert.Padding.SAME, litert.Padding.VALID
RELU, RELU6 = litert.ActivationFunctionType.RELU, litert.ActivationFunctionType.RELU6


def options_of(cls, **fields):
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
        opts = options_of(
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
        opts = options_of(
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
        opts = options_of(litert.FullyConnectedOptionsT, fusedActivationFunction=t.fused(activation))
        t.outputs.append(t.op("FULLY_CONNECTED", [x, w, bias], y, opts))

    return make


def pool(kind, shape, kernel, stride, padding):
    def make(t: Twin) -> None:
        x = t.act("x", shape, model_input=True)
        oh = -(-shape[1] // stride) if padding == SAME else (shape[1] - kernel) // stride + 1
        ow = -(-shape[2] // stride) if padding == SAME else (shape[2] - kernel) // stride + 1
        y = t.act("y", (shape[0], oh, ow, shape[3]))
        opts = options_of(
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
        opts = options_of(litert.ReducerOptionsT, keepDims=True)
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
        opts = options_of(litert.TransposeConvOptionsT, padding=padding, strideH=stride, strideW=stride)
        t.outputs.append(t.op("TRANSPOSE_CONV", inputs, t.act("y", out), opts))

    return make


def svdf(batch, inputs, units, rank, memory, activation=RELU):
    def make(t: Twin) -> None:
        filters = units * rank
        x = t.act("x", (batch, inputs), model_input=True)
        wf, wt = t.const("wf", (filters, inputs)), t.const("wt", (filters, memory))
        bias = t.const("b", (units,))
        state = t.b.add_tensor("state", (batch, memory * filters), t.dtype, variable=True)
        opts = options_of(litert.SVDFOptionsT, rank=rank, fusedActivationFunction=t.fused(activation))
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
        opts = options_of(cls, outputType=litert.TensorType.INT32)
        t.outputs.append(t.op(kind, [x, a], y, opts))

    return make


def batch_matmul(lhs, rhs, out, adj_x, adj_y, constant_rhs=False):
    def make(t: Twin) -> None:
        a = t.act("a", lhs, model_input=True)
        b = t.const("b", rhs, 0.5) if constant_rhs else t.act("b", rhs, model_input=True)
        opts = options_of(litert.BatchMatMulOptionsT, adjX=adj_x, adjY=adj_y)
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
    gather = options_of(litert.GatherOptionsT, axis=3, batchDims=0)
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
    cat = options_of(litert.ConcatenationOptionsT, axis=0)
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
    cat = options_of(litert.ConcatenationOptionsT, axis=3)
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
        binary(
            "MUL", (3, 11), (3, 11), (3, 11), options_of(litert.MulOptionsT, fusedActivationFunction=RELU6)
        ),
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
    Case("softmax", unary("SOFTMAX", (3, 20), options_of(litert.SoftmaxOptionsT, beta=1.0))),
    # SVDF rounds each new state slot once (n = 1); both samples run through one state, as the
    # reference interpreter runs them.
    Case("svdf_rank2", svdf(2, 7, 3, 2, 4), n=1, accumulates=True),
    Case("squared_difference", binary("SQUARED_DIFFERENCE", (2, 1, 7), (1, 3, 7), (2, 3, 7))),
    Case(
        "div_relu",
        binary("DIV", (3, 9), (1, 9), (3, 9), options_of(litert.DivOptionsT, fusedActivationFunction=RELU)),
        positive=True,
    ),
    Case("prelu", prelu((1, 3, 4, 5), (4, 5))),
    Case("gelu", unary("GELU", (3, 11), options_of(litert.GeluOptionsT, approximate=False))),
    Case("gelu_tanh", unary("GELU", (2, 10), options_of(litert.GeluOptionsT, approximate=True))),
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


def build_twin(case: Case, form: str, path: Path) -> tuple[Path, Twin]:
    t = Twin(form, seed=zlib.crc32(case.name.encode()))
    case.make(t)
    return t.save(path), t


def twin_inputs(model: Path, seed: int, samples: int = 2) -> list[np.ndarray]:
    """float16-representable inputs in [-2, 2], stacked over samples, as float16."""
    interp = create_interpreter(model)
    rng = np.random.default_rng(seed)
    shapes = [tuple(d["shape"]) for d in interp._interpreter.get_input_details()]
    return [rng.uniform(-2.0, 2.0, (samples, *s)).astype(np.float16) for s in shapes]


def run_twin(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
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
    f16, _ = build_twin(case, "float16", work / "model_f16.tflite")
    f32, _ = build_twin(case, "float32", work / "model_f32.tflite")
    inputs = twin_inputs(f32, seed=zlib.crc32(case.name.encode()))
    if case.positive:
        inputs = [np.maximum(np.abs(x), np.float16(2.0**-10)) for x in inputs]
    reference = run_twin(f32, inputs)
    magnitude = None
    if case.accumulates:
        mag, _ = build_twin(case, "magnitude", work / "model_mag.tflite")
        magnitude = run_twin(mag, [np.abs(x) for x in inputs])[0]
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


def named(*names: str) -> list[Case]:
    """The cases of :data:`FAMILIES` called ``names``, in that order."""
    by_name = {case.name: case for case in FAMILIES}
    return [by_name[name] for name in names]


def check_on_host(case: Case, tmp_path: Path) -> None:
    """Convert ``case``'s float16 model with its float32 twin's outputs as golden data and the
    case's tolerance, build it on the host (gcc _Float16, ASan/UBSan) and run its self test."""
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out", optimization=FAST if case.fast else None)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert "PASS (2 sample(s)" in run.stdout
