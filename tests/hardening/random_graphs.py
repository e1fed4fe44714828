"""Random but valid whole LiteRT models: chains and DAGs of catalogue operators, for the graph fuzzer.

``random_graph(rng)`` draws a :class:`Graph` (the recipe) and ``Graph.to_bytes()`` writes it with the
project's :class:`~helia_aot.litert.builder.LiteRTModelBuilder`. A graph is 3 to 30 operators over
one element type (int8, int16x8, float32 or float16), each operator reading tensors already made:
the newest one (a chain) or any earlier one (a DAG: residual adds, concatenations, broadcasts
against a constant or a second model input). Some intermediate tensors are also model outputs
while later operators read them; every tensor nothing reads is an output.

Quantization is what the TFLite converter writes, so LiteRT accepts every graph: a range that
holds 0 mapped onto the type (scale > 0, zero point in range), int16 zero point 0, int8 filters of
CONV_2D / DEPTHWISE_CONV_2D per output channel, bias scale = input scale x filter scale, the fixed
output quantization of LOGISTIC / TANH / SOFTMAX, and one quantization for the inputs and output
of the operators that move values without requantizing (MAXIMUM, pooling, CONCATENATION, PAD ...):
an input that differs gets a QUANTIZE (requantize) in front, as the converter would insert. Each
tensor carries an estimate of its real range, so scales follow the values and outputs do not
all saturate.

A graph is a plain list of tensors and operators, so the fuzzer can shrink it (cut an operator
into a model input, drop an output) and write any recipe again. ``rng`` is ``random.Random``; the
same seed gives the same graph on every machine.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

DTYPES = ("int8", "int16", "float32", "float16")
"""Element types of a graph's activations (int16 is 16x8: int8 weights, zero point 0)."""

MIN_OPS, MAX_OPS = 3, 30

ACT = litert.ActivationFunctionType
SAME, VALID = litert.Padding.SAME, litert.Padding.VALID

_FIXED_OUTPUT = {
    # (op, dtype) -> (scale, zero point) the kernels require (TFLite converter values).
    ("LOGISTIC", "int8"): (1 / 256, -128),
    ("LOGISTIC", "int16"): (1 / 32768, 0),
    ("TANH", "int8"): (1 / 128, 0),
    ("TANH", "int16"): (1 / 32768, 0),
    ("SOFTMAX", "int8"): (1 / 256, -128),
    ("SOFTMAX", "int16"): (1 / 32768, 0),
}


@dataclass(slots=True)
class Tensor:
    """One tensor of a recipe: shape, type, quantization ``(scales, zero_points, axis)``, constant data,
    and the estimated real range ``lo..hi`` of its values (activations only)."""

    shape: tuple[int, ...]
    dtype: str
    quant: tuple[list[float], list[int], int] | None = None
    data: np.ndarray | None = None
    lo: float = -1.0
    hi: float = 1.0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def same_encoding(self, other: Tensor) -> bool:
        return self.dtype == other.dtype and self.quant == other.quant


@dataclass(slots=True)
class Op:
    """One operator: builtin name, tensor indices (-1 for an omitted optional input), options."""

    kind: str
    inputs: list[int]
    outputs: list[int]
    options: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Graph:
    """A recipe for one model; ``describe()`` is its JSON-able summary."""

    dtype: str
    tensors: list[Tensor] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def copy(self) -> Graph:
        return copy.deepcopy(self)

    def describe(self) -> dict[str, Any]:
        def tensor(i: int) -> str:
            t = self.tensors[i]
            return f"t{i}:{t.dtype}{list(t.shape)}"

        return {
            "dtype": self.dtype,
            "inputs": [tensor(i) for i in self.inputs],
            "outputs": [tensor(i) for i in self.outputs],
            "ops": [
                f"{op.kind}({', '.join('-' if i < 0 else tensor(i) for i in op.inputs)}) -> "
                + ", ".join(tensor(o) for o in op.outputs)
                + (f" {op.fields}" if op.fields else "")
                for op in self.ops
            ],
        }

    def to_bytes(self) -> bytes:
        """The model file, written with the project's LiteRT builder."""
        builder = LiteRTModelBuilder("helia-aot graph fuzzer")
        index: dict[int, int] = {}
        for i, t in enumerate(self.tensors):
            if not self._used(i):
                continue
            index[i] = builder.add_tensor(f"t{i}", t.shape, t.dtype, data=t.data, quantization=t.quant)
        for op in self.ops:
            options = None
            if op.options is not None:
                options = getattr(litert, op.options)()
                for key, value in op.fields.items():
                    setattr(options, key, value)
            builder.add_operator(
                op.kind,
                [-1 if i < 0 else index[i] for i in op.inputs],
                [index[o] for o in op.outputs],
                options,
            )
        builder.set_inputs([index[i] for i in self.inputs])
        builder.set_outputs([index[o] for o in self.outputs])
        return builder.to_bytes()

    def _used(self, i: int) -> bool:
        return (
            i in self.inputs or i in self.outputs or any(i in op.inputs or i in op.outputs for op in self.ops)
        )

    def consumers(self, i: int) -> list[int]:
        return [k for k, op in enumerate(self.ops) if i in op.inputs]

    def prune(self) -> bool:
        """Drop operators whose outputs nothing reads and no model output is, and inputs nothing
        reads; False when no output or no operator is left (not a model worth running)."""
        changed = True
        while changed:
            changed = False
            for k in range(len(self.ops) - 1, -1, -1):
                op = self.ops[k]
                if not any(o in self.outputs or self.consumers(o) for o in op.outputs):
                    del self.ops[k]
                    changed = True
        self.inputs = [i for i in self.inputs if self.consumers(i) or i in self.outputs]
        return bool(self.ops) and bool(self.outputs) and bool(self.inputs)


# ---------------------------------------------------------------------------------------------
# Drawing a graph


def _log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class _Drawer:
    """Draws one graph: keeps the tensors made so far and appends operators that read them."""

    def __init__(self, rng: random.Random, dtype: str) -> None:
        self.rng = rng
        self.np = np.random.default_rng(rng.getrandbits(32))
        self.g = Graph(dtype)
        self.dtype = dtype
        self.quantized = dtype in ("int8", "int16")
        self.activations: list[int] = []

    # -- tensors ------------------------------------------------------------------------------

    def quant_for(self, lo: float, hi: float) -> tuple[list[float], list[int], int] | None:
        """Quantization of a tensor whose values span lo..hi, as a converter would calibrate it."""
        if not self.quantized:
            return None
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        span = max(hi - lo, 1e-3) * self.rng.uniform(0.8, 1.25)
        if self.dtype == "int16":
            return [max(abs(lo), abs(hi), 1e-3) * self.rng.uniform(0.8, 1.25) / 32767], [0], 0
        scale = span / 255
        zp = int(np.clip(round(-128 - lo / scale), -128, 127))
        return [scale], [zp], 0

    def real_range(self, quant: tuple[list[float], list[int], int] | None) -> tuple[float, float]:
        if quant is None:
            return -1.0, 1.0
        (scale,), (zp,), _ = quant
        info = np.iinfo(np.dtype(self.dtype))
        return scale * (info.min - zp), scale * (info.max - zp)

    def tensor(self, shape: tuple[int, ...], lo: float, hi: float, quant: Any = "auto") -> int:
        if quant == "auto":
            quant = self.quant_for(lo, hi)
        if quant is not None:
            rlo, rhi = self.real_range(quant)
            lo, hi = max(lo, rlo), min(hi, rhi)
        self.g.tensors.append(Tensor(tuple(shape), self.dtype, quant, None, lo, hi))
        return len(self.g.tensors) - 1

    def constant(self, shape: tuple[int, ...], dtype: str, data: np.ndarray, quant: Any = None) -> int:
        self.g.tensors.append(Tensor(tuple(shape), dtype, quant, np.asarray(data).reshape(shape)))
        return len(self.g.tensors) - 1

    def model_input(self, shape: tuple[int, ...], *, boundary: bool = False) -> int:
        """A model input; ``boundary``: a float32 input quantized into the graph's type by a QUANTIZE."""
        if boundary and self.quantized:
            self.g.tensors.append(Tensor(tuple(shape), "float32", None, None, -1.0, 1.0))
            real = len(self.g.tensors) - 1
            self.g.inputs.append(real)
            out = self.tensor(shape, -1.0, 1.0, self.quant_for(-0.9, 0.9))
            self.op("QUANTIZE", [real], [out])
            return out
        if self.quantized:
            scale = _log_uniform(self.rng, 0.005, 0.08)
            zp = self.rng.randint(-30, 30) if self.dtype == "int8" else 0
            quant: Any = ([scale], [zp], 0)
        else:
            quant = None
        lo, hi = self.real_range(quant)  # inputs span their whole type (floats: -1..1)
        i = self.tensor(shape, lo, hi, quant)
        self.g.inputs.append(i)
        self.activations.append(i)
        return i

    def values_constant(self, shape: tuple[int, ...], lo: float, hi: float) -> int:
        """A constant activation-typed operand (a broadcast addend, say) quantized like a converter does."""
        real = self.np.uniform(lo, hi, size=shape)
        if not self.quantized:
            return self.constant(shape, self.dtype, real.astype(self.dtype))
        quant = self.quant_for(float(real.min()), float(real.max()))
        assert quant is not None
        (scale,), (zp,), _ = quant
        info = np.iinfo(np.dtype(self.dtype))
        q = np.clip(np.round(real / scale) + zp, info.min, info.max).astype(self.dtype)
        i = self.constant(shape, self.dtype, q, quant)
        self.g.tensors[i].lo, self.g.tensors[i].hi = float(real.min()), float(real.max())
        return i

    def op(
        self, kind: str, inputs: list[int], outputs: list[int], options: str | None = None, **fields: Any
    ) -> None:
        self.g.ops.append(Op(kind, inputs, outputs, options, fields))
        for o in outputs:
            self.activations.append(o)

    def coerce(self, i: int, quant: Any) -> int:
        """Tensor ``i`` in quantization ``quant``: itself, or a requantizing QUANTIZE of it."""
        t = self.g.tensors[i]
        if not self.quantized or t.quant == quant:
            return i
        out = self.tensor(t.shape, t.lo, t.hi, quant)
        self.op("QUANTIZE", [i], [out])
        self.activations.remove(out)  # an intermediate, not a fresh operand to build on
        return out

    # -- picking operands ---------------------------------------------------------------------

    def pick(self, ok: Any = None) -> int | None:
        """The newest activation (a chain) most of the time, else any earlier one (a DAG)."""
        pool = [i for i in self.activations if ok is None or ok(self.g.tensors[i])]
        if not pool:
            return None
        if self.rng.random() < 0.6:
            return pool[-1]
        return self.rng.choice(pool)

    def act_fn(self, kinds: tuple[int, ...] = (ACT.NONE, ACT.RELU, ACT.RELU6, ACT.RELU_N1_TO_1)) -> int:
        if not self.quantized:
            kinds = tuple(k for k in kinds if k != ACT.RELU_N1_TO_1)
        return self.rng.choice((ACT.NONE, ACT.NONE, *kinds))

    @staticmethod
    def clamp(lo: float, hi: float, act: int) -> tuple[float, float]:
        if act == ACT.RELU:
            return max(lo, 0.0), max(hi, 0.0)
        if act == ACT.RELU6:
            return min(max(lo, 0.0), 6.0), min(max(hi, 0.0), 6.0)
        if act == ACT.RELU_N1_TO_1:
            return min(max(lo, -1.0), 1.0), min(max(hi, -1.0), 1.0)
        return lo, hi

    # -- weights ------------------------------------------------------------------------------

    def filter(self, shape: tuple[int, ...], fan_in: int, axis: int | None) -> tuple[int, list[float]]:
        """Weights whose real values sum to about 1 in magnitude per output; int8 with per-channel
        (``axis``) or per-tensor scales, zero point 0. Returns the tensor and its scales."""
        real = self.np.uniform(-1.0, 1.0, size=shape) * (2.0 / fan_in)
        if self.dtype in ("float32", "float16"):
            return self.constant(shape, self.dtype, real.astype(self.dtype)), []
        if axis is None:
            scales = [float(np.abs(real).max() / 127 or 1e-3)]
            q = np.clip(np.round(real / scales[0]), -127, 127)
            quant = (scales, [0], 0)
        else:
            moved = np.moveaxis(np.abs(real), axis, 0).reshape(shape[axis], -1).max(axis=1)
            scales = [float(s / 127 or 1e-3) for s in moved]
            bshape = [1] * len(shape)
            bshape[axis] = shape[axis]
            q = np.clip(np.round(real / np.asarray(scales).reshape(bshape)), -127, 127)
            quant = (scales, [0] * len(scales), axis)
        return self.constant(shape, "int8", q.astype(np.int8), quant), scales

    def bias(self, n: int, in_scale: float, w_scales: list[float]) -> int:
        real = self.np.uniform(-0.3, 0.3, size=n)
        if self.dtype in ("float32", "float16"):
            return self.constant((n,), self.dtype, real.astype(self.dtype))
        scales = [in_scale * (w_scales[c] if len(w_scales) > 1 else w_scales[0]) for c in range(n)]
        kind = "int32" if self.dtype == "int8" else "int64"
        q = np.round(real / np.asarray(scales)).astype(kind)
        per_channel = len(w_scales) > 1
        quant = (scales if per_channel else scales[:1], [0] * (n if per_channel else 1), 0)
        return self.constant((n,), kind, q, quant)

    def in_scale(self, i: int) -> float:
        quant = self.g.tensors[i].quant
        return quant[0][0] if quant else 1.0


# Each maker appends one operator (plus any QUANTIZE it needs) or returns False when no operand fits.


def _rank4(t: Tensor) -> bool:
    return len(t.shape) == 4 and t.data is None


def _activation(t: Tensor) -> bool:
    return t.data is None


def _binary(d: _Drawer, kind: str) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    ta = d.g.tensors[a]
    # The other operand: an earlier tensor of the same shape (a residual), a constant or a second
    # model input of a broadcast shape (some dimensions 1), or the same tensor.
    same = [i for i in d.activations if i != a and d.g.tensors[i].shape == ta.shape]
    choice = d.rng.random()
    if same and choice < 0.45:
        b = d.rng.choice(same)
    else:
        if kind == "SQUARED_DIFFERENCE" and not d.quantized:
            bshape = ta.shape  # the float kernel does not broadcast
        else:
            bshape = tuple(1 if d.rng.random() < 0.5 else n for n in ta.shape)
            if d.rng.random() < 0.3 and len(bshape) > 1:
                bshape = bshape[d.rng.randint(1, len(bshape) - 1) :]  # lower rank broadcasts too
        if d.rng.random() < 0.25 and bshape:
            b = d.model_input(bshape)
        else:
            b = d.values_constant(bshape, -1.0, 1.0)
    if d.rng.random() < 0.3:
        a, b = b, a
    ta, tb = d.g.tensors[a], d.g.tensors[b]
    shape = tuple(np.broadcast_shapes(ta.shape, tb.shape))
    if len(shape) > 4:
        return False
    extent = max(abs(ta.lo), abs(ta.hi)), max(abs(tb.lo), abs(tb.hi))
    if kind in ("MAXIMUM", "MINIMUM"):
        b = d.coerce(b, ta.quant)
        lo, hi = min(ta.lo, tb.lo), max(ta.hi, tb.hi)
        out = d.tensor(shape, lo, hi, ta.quant)
        d.op(kind, [a, b], [out])
        return True
    act = d.act_fn() if kind in ("ADD", "SUB", "MUL") else ACT.NONE
    if kind == "ADD":
        lo, hi = ta.lo + tb.lo, ta.hi + tb.hi
    elif kind == "SUB":
        lo, hi = ta.lo - tb.hi, ta.hi - tb.lo
    elif kind == "MUL":
        products = [ta.lo * tb.lo, ta.lo * tb.hi, ta.hi * tb.lo, ta.hi * tb.hi]
        lo, hi = min(products), max(products)
    else:  # SQUARED_DIFFERENCE
        lo, hi = 0.0, (extent[0] + extent[1]) ** 2
    lo, hi = d.clamp(lo * 0.7, hi * 0.7, act)
    out = d.tensor(shape, lo, hi)
    options = {"ADD": "AddOptionsT", "SUB": "SubOptionsT", "MUL": "MulOptionsT"}.get(kind)
    fields = {"fusedActivationFunction": act} if options else {}
    if kind == "SQUARED_DIFFERENCE":
        options = "SquaredDifferenceOptionsT"
    d.op(kind, [a, b], [out], options, **fields)
    return True


def _unary(d: _Drawer, kind: str) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    fixed = _FIXED_OUTPUT.get((kind, d.dtype))
    options: str | None = None
    fields: dict[str, Any] = {}
    if kind == "RELU":
        lo, hi = max(t.lo, 0.0), max(t.hi, 0.0)
    elif kind == "RELU6":
        lo, hi = d.clamp(t.lo, t.hi, ACT.RELU6)
    elif kind == "RELU_N1_TO_1":
        lo, hi = d.clamp(t.lo, t.hi, ACT.RELU_N1_TO_1)
    elif kind == "LEAKY_RELU":
        alpha = round(d.rng.uniform(0.01, 0.5), 3)
        options, fields = "LeakyReluOptionsT", {"alpha": alpha}
        lo, hi = min(t.lo * alpha, 0.0), t.hi
    elif kind == "ABS":
        lo, hi = 0.0, max(abs(t.lo), abs(t.hi))
    elif kind == "NEG":
        lo, hi = -t.hi, -t.lo
    elif kind == "HARD_SWISH":
        lo, hi = -0.375, max(t.hi, 0.0)
    elif kind in ("LOGISTIC",):
        lo, hi = 0.0, 1.0
    elif kind == "TANH":
        lo, hi = -1.0, 1.0
    elif kind == "GELU":
        lo, hi = -0.17, max(t.hi, 0.0)
        options, fields = "GeluOptionsT", {"approximate": False}
    else:
        raise ValueError(kind)
    if fixed is not None:
        quant: Any = ([fixed[0]], [fixed[1]], 0)
    elif kind in ("RELU", "RELU6", "RELU_N1_TO_1") and d.rng.random() < 0.5:
        quant = t.quant  # relu in place of its input's quantization, as converters often write
    else:
        quant = "auto"
    out = d.tensor(t.shape, lo, hi, quant)
    d.op(kind, [a], [out], options, **fields)
    return True


def _conv(d: _Drawer, kind: str) -> bool:
    a = d.pick(_rank4)
    if a is None:
        return False
    t = d.g.tensors[a]
    _, h, w, c = t.shape
    kh, kw = d.rng.randint(1, min(3, h)), d.rng.randint(1, min(3, w))
    stride = d.rng.choice((1, 1, 2))
    dil = 1 if stride > 1 or d.rng.random() < 0.7 else 2
    padding = d.rng.choice((SAME, VALID))
    eff_h, eff_w = (kh - 1) * dil + 1, (kw - 1) * dil + 1
    if padding == VALID and (eff_h > h or eff_w > w):
        padding = SAME
    oh = -(-h // stride) if padding == SAME else (h - eff_h) // stride + 1
    ow = -(-w // stride) if padding == SAME else (w - eff_w) // stride + 1
    act = d.act_fn()
    bias_type = litert.TensorType.INT64 if d.dtype == "int16" else 0
    if kind == "CONV_2D":
        oc = d.rng.randint(1, 8)
        wt, scales = d.filter((oc, kh, kw, c), kh * kw * c, 0 if d.quantized else None)
        options, fields = "Conv2DOptionsT", {"quantizedBiasType": bias_type} if d.quantized else {}
        fan = kh * kw * c
    else:
        mult = d.rng.choice((1, 1, 2))
        oc = c * mult
        wt, scales = d.filter((1, kh, kw, oc), kh * kw, 3 if d.quantized else None)
        options, fields = "DepthwiseConv2DOptionsT", {"depthMultiplier": mult}
        fan = kh * kw
    b = d.bias(oc, d.in_scale(a), scales)  # LiteRT's convolution kernels insist on a bias
    extent = max(abs(t.lo), abs(t.hi)) * (1.0 + 0.5 / math.sqrt(fan)) + 0.3
    lo, hi = d.clamp(-extent * 0.6, extent * 0.6, act)
    out = d.tensor((t.shape[0], oh, ow, oc), lo, hi)
    fields.update(
        padding=padding,
        strideH=stride,
        strideW=stride,
        dilationHFactor=dil,
        dilationWFactor=dil,
        fusedActivationFunction=act,
    )
    d.op(kind, [a, wt, b], [out], options, **fields)
    return True


def _fully_connected(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    depth = t.shape[-1]
    units = d.rng.randint(1, 12)
    keep = d.rng.random() < 0.4
    wt, scales = d.filter((units, depth), depth, None)
    b = d.bias(units, d.in_scale(a), scales) if d.rng.random() < 0.85 else -1
    shape = (*t.shape[:-1], units) if keep else (t.size // depth, units)
    act = d.act_fn()
    extent = max(abs(t.lo), abs(t.hi)) + 0.3
    lo, hi = d.clamp(-extent * 0.6, extent * 0.6, act)
    out = d.tensor(shape, lo, hi)
    fields: dict[str, Any] = {"keepNumDims": keep, "fusedActivationFunction": act}
    if d.dtype == "int16":
        fields["quantizedBiasType"] = litert.TensorType.INT64
    d.op("FULLY_CONNECTED", [a, wt, b], [out], "FullyConnectedOptionsT", **fields)
    return True


def _pool(d: _Drawer, kind: str) -> bool:
    a = d.pick(_rank4)
    if a is None:
        return False
    t = d.g.tensors[a]
    _, h, w, c = t.shape
    fh, fw = d.rng.randint(1, min(3, h)), d.rng.randint(1, min(3, w))
    stride = d.rng.choice((1, 2))
    padding = d.rng.choice((SAME, VALID))
    oh = -(-h // stride) if padding == SAME else (h - fh) // stride + 1
    ow = -(-w // stride) if padding == SAME else (w - fw) // stride + 1
    act = d.act_fn((ACT.NONE, ACT.RELU, ACT.RELU6))
    lo, hi = d.clamp(t.lo, t.hi, act)
    out = d.tensor((t.shape[0], oh, ow, c), lo, hi, t.quant)
    d.op(
        kind,
        [a],
        [out],
        "Pool2DOptionsT",
        padding=padding,
        strideH=stride,
        strideW=stride,
        filterHeight=fh,
        filterWidth=fw,
        fusedActivationFunction=act,
    )
    return True


def _mean(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    rank = len(t.shape)
    axes = sorted(d.rng.sample(range(1, rank), d.rng.randint(1, rank - 1)))
    keep = d.rng.random() < 0.6
    shape = tuple((1 if i in axes else n) for i, n in enumerate(t.shape) if keep or i not in axes)
    axis_t = d.constant((len(axes),), "int32", np.asarray(axes, np.int32))
    quant: Any = t.quant if d.dtype == "int16" else "auto"
    out = d.tensor(shape, t.lo, t.hi, quant)
    d.op("MEAN", [a, axis_t], [out], "ReducerOptionsT", keepDims=keep)
    return True


def _softmax(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    fixed = _FIXED_OUTPUT.get(("SOFTMAX", d.dtype))
    out = d.tensor(t.shape, 0.0, 1.0, ([fixed[0]], [fixed[1]], 0) if fixed else "auto")
    d.op("SOFTMAX", [a], [out], "SoftmaxOptionsT", beta=1.0)
    return True


def _concat(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    axis = d.rng.randrange(len(t.shape))
    fits = [
        i
        for i in d.activations
        if len(d.g.tensors[i].shape) == len(t.shape)
        and all(x == y for k, (x, y) in enumerate(zip(d.g.tensors[i].shape, t.shape)) if k != axis)
    ]
    parts = [a] + [d.rng.choice(fits) for _ in range(d.rng.randint(1, 2))]
    d.rng.shuffle(parts)
    parts = [d.coerce(p, t.quant) for p in parts]
    shape = list(t.shape)
    shape[axis] = sum(d.g.tensors[p].shape[axis] for p in parts)
    lo = min(d.g.tensors[p].lo for p in parts)
    hi = max(d.g.tensors[p].hi for p in parts)
    out = d.tensor(tuple(shape), lo, hi, t.quant)
    d.op("CONCATENATION", parts, [out], "ConcatenationOptionsT", axis=axis)
    return True


def _factor_shape(rng: random.Random, size: int) -> tuple[int, ...]:
    """A random shape of rank 1-4 holding ``size`` elements."""
    factors = []
    n = size
    p = 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    rank = rng.randint(1, 4)
    dims = [1] * rank
    for f in factors:
        dims[rng.randrange(rank)] *= f
    if rank == 4 and rng.random() < 0.7:  # batch 1 most of the time, as layers expect
        dims[rng.randrange(1, 4)] *= dims[0]
        dims[0] = 1
    return tuple(dims)


def _reshape(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    shape = _factor_shape(d.rng, t.size)
    if int(np.prod(shape)) != t.size:
        return False
    target = d.constant((len(shape),), "int32", np.asarray(shape, np.int32))
    out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op("RESHAPE", [a, target], [out], "ReshapeOptionsT", newShape=list(shape))
    return True


def _transpose(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    perm = list(range(len(t.shape)))
    d.rng.shuffle(perm)
    perm_t = d.constant((len(perm),), "int32", np.asarray(perm, np.int32))
    out = d.tensor(tuple(t.shape[p] for p in perm), t.lo, t.hi, t.quant)
    d.op("TRANSPOSE", [a, perm_t], [out], "TransposeOptionsT")
    return True


def _pad(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    pads = [[d.rng.randint(0, 2) if i else 0, d.rng.randint(0, 2) if i else 0] for i in range(len(t.shape))]
    if len(t.shape) == 1:
        pads = [[d.rng.randint(0, 2), d.rng.randint(0, 2)]]
    pads_t = d.constant((len(pads), 2), "int32", np.asarray(pads, np.int32))
    shape = tuple(n + p + q for n, (p, q) in zip(t.shape, pads))
    out = d.tensor(shape, min(t.lo, 0.0), max(t.hi, 0.0), t.quant)
    d.op("PAD", [a, pads_t], [out], "PadOptionsT")
    return True


def _slice(d: _Drawer, kind: str) -> bool:
    a = d.pick(lambda t: t.data is None and t.size > 1)
    if a is None:
        return False
    t = d.g.tensors[a]
    begin, size, strides = [], [], []
    for n in t.shape:
        b = d.rng.randint(0, n - 1)
        s = d.rng.randint(1, n - b)
        step = d.rng.choice((1, 1, 2)) if kind == "STRIDED_SLICE" else 1
        begin.append(b)
        size.append(s)
        strides.append(step)
    rank = len(t.shape)
    begin_t = d.constant((rank,), "int32", np.asarray(begin, np.int32))
    if kind == "SLICE":
        size_t = d.constant((rank,), "int32", np.asarray(size, np.int32))
        out = d.tensor(tuple(size), t.lo, t.hi, t.quant)
        d.op("SLICE", [a, begin_t, size_t], [out], "SliceOptionsT")
        return True
    end = [b + s for b, s in zip(begin, size)]
    shape = tuple(-(-s // st) for s, st in zip(size, strides))
    end_t = d.constant((rank,), "int32", np.asarray(end, np.int32))
    strides_t = d.constant((rank,), "int32", np.asarray(strides, np.int32))
    out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op("STRIDED_SLICE", [a, begin_t, end_t, strides_t], [out], "StridedSliceOptionsT")
    return True


def _requantize(d: _Drawer) -> bool:
    if not d.quantized:
        return False
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    quant = d.quant_for(t.lo * d.rng.uniform(0.5, 1.5), t.hi * d.rng.uniform(0.5, 1.5))
    if quant == t.quant:
        return False
    out = d.tensor(t.shape, t.lo, t.hi, quant)
    d.op("QUANTIZE", [a], [out])
    return True


def _reduce(d: _Drawer, kind: str) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    rank = len(t.shape)
    axes = sorted(d.rng.sample(range(rank), d.rng.randint(1, rank)))
    keep = d.rng.random() < 0.5
    shape = tuple((1 if i in axes else n) for i, n in enumerate(t.shape) if keep or i not in axes)
    if not shape:
        shape, keep = tuple(1 for _ in t.shape), True
    axis_t = d.constant((len(axes),), "int32", np.asarray(axes, np.int32))
    if kind == "SUM":
        count = int(np.prod([t.shape[i] for i in axes]))
        grow = math.sqrt(count)
        out = d.tensor(shape, t.lo * grow, t.hi * grow)
    else:
        out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op(kind, [a, axis_t], [out], "ReducerOptionsT", keepDims=keep)
    return True


def _split(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and any(n % 2 == 0 or n % 3 == 0 for n in t.shape))
    if a is None:
        return False
    t = d.g.tensors[a]
    axes = [(i, k) for i, n in enumerate(t.shape) for k in (2, 3) if n % k == 0]
    axis, parts = d.rng.choice(axes)
    axis_t = d.constant(
        (), "int32", np.asarray(axis if d.rng.random() < 0.7 else axis - len(t.shape), np.int32)
    )
    shape = tuple(n // parts if i == axis else n for i, n in enumerate(t.shape))
    outs = [d.tensor(shape, t.lo, t.hi, t.quant) for _ in range(parts)]
    d.op("SPLIT", [axis_t, a], outs, "SplitOptionsT", numSplits=parts)
    return True


def _pack(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) <= 3)
    if a is None:
        return False
    t = d.g.tensors[a]
    same = [i for i in d.activations if d.g.tensors[i].shape == t.shape]
    parts = [a, d.rng.choice(same)]
    parts = [d.coerce(p, t.quant) for p in parts]
    axis = d.rng.randint(0, len(t.shape))
    shape = list(t.shape)
    shape.insert(axis, len(parts))
    lo, hi = min(d.g.tensors[p].lo for p in parts), max(d.g.tensors[p].hi for p in parts)
    out = d.tensor(tuple(shape), lo, hi, t.quant)
    d.op("PACK", parts, [out], "PackOptionsT", valuesCount=len(parts), axis=axis)
    return True


def _expand_or_squeeze(d: _Drawer, kind: str) -> bool:
    if kind == "EXPAND_DIMS":
        a = d.pick(lambda t: t.data is None and len(t.shape) <= 3)
    else:
        a = d.pick(lambda t: t.data is None and 1 in t.shape and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    if kind == "EXPAND_DIMS":
        axis = d.rng.randint(0, len(t.shape))
        shape = list(t.shape)
        shape.insert(axis, 1)
        axis_t = d.constant((), "int32", np.asarray(axis, np.int32))
        out = d.tensor(tuple(shape), t.lo, t.hi, t.quant)
        d.op("EXPAND_DIMS", [a, axis_t], [out], "ExpandDimsOptionsT")
        return True
    ones = [i for i, n in enumerate(t.shape) if n == 1]
    dims = sorted(d.rng.sample(ones, d.rng.randint(1, len(ones))))
    if len(dims) == len(t.shape):
        dims = dims[:-1]
    shape = tuple(n for i, n in enumerate(t.shape) if i not in dims)
    out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op("SQUEEZE", [a], [out], "SqueezeOptionsT", squeezeDims=dims)
    return True


def _argmax(d: _Drawer, kind: str) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 1)
    if a is None:
        return False
    t = d.g.tensors[a]
    axis = d.rng.randrange(len(t.shape))
    axis_t = d.constant((), "int32", np.asarray(axis, np.int32))
    shape = tuple(n for i, n in enumerate(t.shape) if i != axis) or (1,)
    if shape == (1,) and len(t.shape) == 1:
        return False
    d.g.tensors.append(Tensor(shape, "int32"))
    out = len(d.g.tensors) - 1
    options = "ArgMaxOptionsT" if kind == "ARG_MAX" else "ArgMinOptionsT"
    d.g.ops.append(Op(kind, [a, axis_t], [out], options, {"outputType": litert.TensorType.INT32}))
    return True  # an index output: read by no later operator


def _resize(d: _Drawer, kind: str) -> bool:
    a = d.pick(_rank4)
    if a is None:
        return False
    t = d.g.tensors[a]
    size = (d.rng.randint(1, 2 * t.shape[1]), d.rng.randint(1, 2 * t.shape[2]))
    size_t = d.constant((2,), "int32", np.asarray(size, np.int32))
    align = d.rng.random() < 0.3
    half = not align and d.rng.random() < 0.5
    out = d.tensor((t.shape[0], *size, t.shape[3]), t.lo, t.hi, t.quant)
    options = "ResizeBilinearOptionsT" if kind == "RESIZE_BILINEAR" else "ResizeNearestNeighborOptionsT"
    d.op(kind, [a, size_t], [out], options, alignCorners=align, halfPixelCenters=half)
    return True


def _batch_matmul(d: _Drawer) -> bool:
    a = d.pick(lambda t: t.data is None and len(t.shape) >= 2)
    if a is None:
        return False
    t = d.g.tensors[a]
    adj_x = d.rng.random() < 0.3
    rows, depth = (t.shape[-1], t.shape[-2]) if adj_x else (t.shape[-2], t.shape[-1])
    cols = d.rng.randint(1, 8)
    adj_y = d.rng.random() < 0.3
    bshape = (cols, depth) if adj_y else (depth, cols)
    if d.rng.random() < 0.5:
        b = d.model_input(bshape)
    else:
        b = d.values_constant(bshape, -1.0, 1.0)
    tb = d.g.tensors[b]
    shape = (*t.shape[:-2], rows, cols)
    extent = max(abs(t.lo), abs(t.hi)) * max(abs(tb.lo), abs(tb.hi)) * math.sqrt(depth)
    out = d.tensor(shape, -extent, extent)
    d.op("BATCH_MATMUL", [a, b], [out], "BatchMatMulOptionsT", adjX=adj_x, adjY=adj_y)
    return True


def _transpose_conv(d: _Drawer) -> bool:
    a = d.pick(_rank4)
    if a is None:
        return False
    t = d.g.tensors[a]
    n, h, w, c = t.shape
    kh, kw = d.rng.randint(1, 3), d.rng.randint(1, 3)
    stride = d.rng.choice((1, 2))
    padding = d.rng.choice((SAME, VALID))
    oh, ow = (h * stride, w * stride) if padding == SAME else ((h - 1) * stride + kh, (w - 1) * stride + kw)
    oc = d.rng.randint(1, 6)
    wt, scales = d.filter((oc, kh, kw, c), kh * kw * c, 0 if d.quantized else None)
    b = d.bias(oc, d.in_scale(a), scales) if d.rng.random() < 0.6 else -1
    shape_t = d.constant((4,), "int32", np.asarray((n, oh, ow, oc), np.int32))
    extent = max(abs(t.lo), abs(t.hi)) + 0.3
    out = d.tensor((n, oh, ow, oc), -extent * 0.6, extent * 0.6)
    fields: dict[str, Any] = {"padding": padding, "strideH": stride, "strideW": stride}
    if d.dtype == "int16":
        fields["quantizedBiasType"] = litert.TensorType.INT64
    d.op("TRANSPOSE_CONV", [shape_t, wt, a, b], [out], "TransposeConvOptionsT", **fields)
    return True


def _prelu(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    ashape = tuple(1 if i < len(t.shape) - 1 and d.rng.random() < 0.7 else n for i, n in enumerate(t.shape))
    ashape = ashape[d.rng.randint(0, len(ashape) - 1) :]
    alpha = d.values_constant(ashape, -0.5, 0.5)
    out = d.tensor(t.shape, min(t.lo * 0.5, 0.0), max(t.hi, 0.0) + 0.5 * abs(t.lo))
    d.op("PRELU", [a, alpha], [out])
    return True


def _div(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None or d.quantized:
        return False
    t = d.g.tensors[a]
    bshape = tuple(1 if d.rng.random() < 0.5 else n for n in t.shape)
    real = d.np.uniform(0.5, 2.0, size=bshape) * d.np.choice((-1.0, 1.0), size=bshape)
    b = d.constant(bshape, d.dtype, real.astype(d.dtype))
    extent = 2 * max(abs(t.lo), abs(t.hi))
    out = d.tensor(t.shape, -extent, extent)
    d.op("DIV", [a, b], [out], "DivOptionsT")
    return True


def _block_move(d: _Drawer, kind: str) -> bool:
    block = 2
    if kind == "SPACE_TO_DEPTH":
        a = d.pick(lambda t: _rank4(t) and t.shape[1] % block == 0 and t.shape[2] % block == 0)
    else:
        a = d.pick(lambda t: _rank4(t) and t.shape[3] % (block * block) == 0)
    if a is None:
        return False
    t = d.g.tensors[a]
    n, h, w, c = t.shape
    if kind == "SPACE_TO_DEPTH":
        shape, options = (n, h // block, w // block, c * block * block), "SpaceToDepthOptionsT"
    else:
        shape, options = (n, h * block, w * block, c // (block * block)), "DepthToSpaceOptionsT"
    out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op(kind, [a], [out], options, blockSize=block)
    return True


def _tile(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    multiples = [d.rng.choice((1, 1, 2, 3)) for _ in t.shape]
    mult_t = d.constant((len(multiples),), "int32", np.asarray(multiples, np.int32))
    out = d.tensor(tuple(n * m for n, m in zip(t.shape, multiples)), t.lo, t.hi, t.quant)
    d.op("TILE", [a, mult_t], [out], "TileOptionsT")
    return True


def _mirror_pad(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    mode = d.rng.choice((litert.MirrorPadMode.REFLECT, litert.MirrorPadMode.SYMMETRIC))
    most = [n - 1 if mode == litert.MirrorPadMode.REFLECT else n for n in t.shape]
    pads = [[d.rng.randint(0, min(2, m)), d.rng.randint(0, min(2, m))] for m in most]
    pads_t = d.constant((len(pads), 2), "int32", np.asarray(pads, np.int32))
    out = d.tensor(tuple(n + p + q for n, (p, q) in zip(t.shape, pads)), t.lo, t.hi, t.quant)
    d.op("MIRROR_PAD", [a, pads_t], [out], "MirrorPadOptionsT", mode=mode)
    return True


def _gather(d: _Drawer) -> bool:
    a = d.pick(_activation)
    if a is None:
        return False
    t = d.g.tensors[a]
    axis = d.rng.randrange(len(t.shape))
    count = d.rng.randint(1, 5)
    indices = d.np.integers(0, t.shape[axis], size=count).astype(np.int32)
    idx_t = d.constant((count,), "int32", indices)
    shape = (*t.shape[:axis], count, *t.shape[axis + 1 :])
    out = d.tensor(shape, t.lo, t.hi, t.quant)
    d.op("GATHER", [a, idx_t], [out], "GatherOptionsT", axis=axis)
    return True


_MAKERS: dict[str, Any] = {
    "ADD": lambda d: _binary(d, "ADD"),
    "SUB": lambda d: _binary(d, "SUB"),
    "MUL": lambda d: _binary(d, "MUL"),
    "MAXIMUM": lambda d: _binary(d, "MAXIMUM"),
    "MINIMUM": lambda d: _binary(d, "MINIMUM"),
    "SQUARED_DIFFERENCE": lambda d: _binary(d, "SQUARED_DIFFERENCE"),
    "RELU": lambda d: _unary(d, "RELU"),
    "RELU6": lambda d: _unary(d, "RELU6"),
    "RELU_N1_TO_1": lambda d: _unary(d, "RELU_N1_TO_1"),
    "LEAKY_RELU": lambda d: _unary(d, "LEAKY_RELU"),
    "ABS": lambda d: _unary(d, "ABS"),
    "NEG": lambda d: _unary(d, "NEG"),
    "HARD_SWISH": lambda d: _unary(d, "HARD_SWISH"),
    "LOGISTIC": lambda d: _unary(d, "LOGISTIC"),
    "TANH": lambda d: _unary(d, "TANH"),
    "GELU": lambda d: _unary(d, "GELU"),
    "CONV_2D": lambda d: _conv(d, "CONV_2D"),
    "DEPTHWISE_CONV_2D": lambda d: _conv(d, "DEPTHWISE_CONV_2D"),
    "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": lambda d: _pool(d, "AVERAGE_POOL_2D"),
    "MAX_POOL_2D": lambda d: _pool(d, "MAX_POOL_2D"),
    "MEAN": _mean,
    "SOFTMAX": _softmax,
    "CONCATENATION": _concat,
    "RESHAPE": _reshape,
    "TRANSPOSE": _transpose,
    "PAD": _pad,
    "SLICE": lambda d: _slice(d, "SLICE"),
    "STRIDED_SLICE": lambda d: _slice(d, "STRIDED_SLICE"),
    "QUANTIZE": _requantize,
    "REDUCE_MAX": lambda d: _reduce(d, "REDUCE_MAX"),
    "REDUCE_MIN": lambda d: _reduce(d, "REDUCE_MIN"),
    "SUM": lambda d: _reduce(d, "SUM"),
    "SPLIT": _split,
    "PACK": _pack,
    "EXPAND_DIMS": lambda d: _expand_or_squeeze(d, "EXPAND_DIMS"),
    "SQUEEZE": lambda d: _expand_or_squeeze(d, "SQUEEZE"),
    "ARG_MAX": lambda d: _argmax(d, "ARG_MAX"),
    "ARG_MIN": lambda d: _argmax(d, "ARG_MIN"),
    "RESIZE_NEAREST_NEIGHBOR": lambda d: _resize(d, "RESIZE_NEAREST_NEIGHBOR"),
    "RESIZE_BILINEAR": lambda d: _resize(d, "RESIZE_BILINEAR"),
    "BATCH_MATMUL": _batch_matmul,
    "TRANSPOSE_CONV": _transpose_conv,
    "PRELU": _prelu,
    "DIV": _div,
    "SPACE_TO_DEPTH": lambda d: _block_move(d, "SPACE_TO_DEPTH"),
    "DEPTH_TO_SPACE": lambda d: _block_move(d, "DEPTH_TO_SPACE"),
    "TILE": _tile,
    "MIRROR_PAD": _mirror_pad,
    "GATHER": _gather,
}

_INTEGER_ONLY = (
    "RELU_N1_TO_1",
    "LEAKY_RELU",
    "QUANTIZE",
    "RESIZE_BILINEAR",
    "SPACE_TO_DEPTH",
    "DEPTH_TO_SPACE",
    "TILE",
    "MIRROR_PAD",
)

CATALOGUE: dict[str, tuple[str, ...]] = {
    # Which operators each element type draws from (the operator catalogue's dtype columns,
    # less the few whose LiteRT reference lacks that type).
    # Quantized SUM is left out: LiteRT's reference SUM reads int8/int16 data as uint8 (LiteRT
    # issue #4079, see tests/ops_builtin/elementwise/test_elementwise_litert_models.py), so it is no
    # reference; graph 5:30 of the first run shrank to exactly that (SUM of [1, 6] int8).
    "int8": tuple(k for k in _MAKERS if k not in ("NEG", "DIV", "SUM")),
    "int16": tuple(
        k
        for k in _MAKERS
        if k
        not in (
            *("NEG", "DIV", "SQUARED_DIFFERENCE", "GELU", "HARD_SWISH", "RELU_N1_TO_1", "RELU6", "RELU"),
            *("SUM", "PRELU", "BATCH_MATMUL", "ARG_MAX", "ARG_MIN", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE"),
        )
    ),
    "float32": tuple(k for k in _MAKERS if k not in _INTEGER_ONLY),
    # A float16 graph's reference is its float32 twin, so an index output (ARG_MAX / ARG_MIN) may
    # rightly differ wherever float16 rounding reorders two close values: not comparable.
    "float16": tuple(
        k for k in _MAKERS if k not in (*_INTEGER_ONLY, "SQUARED_DIFFERENCE", "ARG_MAX", "ARG_MIN")
    ),
}

_WEIGHTS = {
    # Layers and merges more often than the rest, so graphs look like networks.
    "CONV_2D": 4,
    "DEPTHWISE_CONV_2D": 3,
    "FULLY_CONNECTED": 3,
    "ADD": 4,
    "MUL": 2,
    "CONCATENATION": 3,
    "RESHAPE": 3,
}


def random_graph(rng: random.Random, dtype: str | None = None) -> Graph:
    """A valid random model: 3-30 operators of one element type, some outputs read again."""
    dtype = dtype or rng.choice(DTYPES)
    d = _Drawer(rng, dtype)
    rank = rng.choice((4, 4, 4, 3, 2))
    shape = (1, *(rng.randint(1, 8) for _ in range(rank - 1)))
    d.model_input(shape, boundary=rng.random() < 0.25)
    target = rng.randint(MIN_OPS, MAX_OPS)
    names = CATALOGUE[dtype]
    weights = [_WEIGHTS.get(n, 1) for n in names]
    attempts = 0
    while len(d.g.ops) < target and attempts < 20 * MAX_OPS:
        attempts += 1
        kind = rng.choices(names, weights)[0]
        before = len(d.g.tensors)
        if not _MAKERS[kind](d):
            _undo(d, before)
            continue
        last = d.g.tensors[d.g.ops[-1].outputs[0]]
        if last.size > 4096 or last.size == 0:  # keep activations small: many graphs a minute
            _undo(d, before)
    g = d.g
    read = {i for op in g.ops for i in op.inputs}
    made = [o for op in g.ops for o in op.outputs]
    leaves = [o for o in made if o not in read]
    extra = [o for o in made if o in read and rng.random() < 0.12]
    g.outputs = sorted(set(leaves + extra))
    rng.shuffle(g.outputs)
    if d.quantized:
        # Some outputs leave the graph as float32 through a DEQUANTIZE, as converted models often do.
        for j, o in enumerate(g.outputs):
            t = g.tensors[o]
            if t.dtype == dtype and rng.random() < 0.25:
                g.tensors.append(Tensor(t.shape, "float32", None, None, t.lo, t.hi))
                g.ops.append(Op("DEQUANTIZE", [o], [len(g.tensors) - 1]))
                g.outputs[j] = len(g.tensors) - 1
    return g


def _undo(d: _Drawer, tensors_before: int) -> None:
    """Remove the operators that made tensors from ``tensors_before`` on (the last maker's work)."""
    d.g.ops = [op for op in d.g.ops if all(o < tensors_before for o in op.outputs)]
    d.activations = [i for i in d.activations if i < tensors_before]
    d.g.inputs = [i for i in d.g.inputs if i < tensors_before]
    del d.g.tensors[tensors_before:]


__all__ = ["CATALOGUE", "DTYPES", "Graph", "Op", "Tensor", "random_graph"]
