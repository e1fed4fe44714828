"""QUANTIZE, int8 SOFTMAX and a quantized batch normalization as onnxruntime computes them:
ONNX_QUANTIZE (QuantizeLinear: divide, round half to even) and ONNX_SOFTMAX (onnxruntime's
QLinearSoftmax, which its default session fuses a QDQ Softmax into: a 256-entry exp table built
here, at conversion), which the ONNX_REQUANTIZATION transform makes from QUANTIZE and SOFTMAX; and
ONNX_BATCH_NORMALIZATION, which the ONNX front end writes for a BatchNormalization between a
DequantizeLinear and a QuantizeLinear (onnxruntime computes it in float32; the kernel does the
same float32 steps per element, int8 in and out). The kernels are ``hk_onnx_qlinear.h``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from helia_aot.air import AirOperatorOptions
from helia_aot.codegen import c_float
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.activation.softmax import AirSoftmaxOptions
from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall
from helia_aot_ops_builtin.onnx_requant.onnx_operators import MADE, PER_TENSOR, _not_in_files, _OnnxOperator

F32 = np.float32
TABLE_SIZE = 256
RESERVED_EXPONENT = 5.0
"""QLinearSoftmax's float table leaves e^5 of headroom below FLT_MAX / depth for the row sum."""


def qlinear_softmax_table(input_scale: float, depth: int) -> np.ndarray:
    """onnxruntime's QLinearSoftmax exp table for int8 input (float entries).

    Entry ``uint8(d + 127)`` holds ``exp((d + shift) * input_scale)`` for a difference ``d`` of
    ``-255..0`` to the row maximum, computed in double and stored as float32; ``shift`` puts
    the largest entry as high as a row of ``depth`` of them can sum without overflow.
    """
    scale = float(F32(input_scale))
    quotient = F32(np.finfo(F32).max) / F32(depth)  # float / size_t, in float
    shift = max(0.0, math.log(float(quotient)) - RESERVED_EXPONENT) / scale
    differences = np.arange(TABLE_SIZE, dtype=np.float64) - 255.0
    values = np.exp((differences + shift) * scale).astype(F32)
    table = np.empty(TABLE_SIZE, F32)
    table[(np.arange(TABLE_SIZE) + 128) & 0xFF] = values  # d + 127 as a byte: i - 128
    return table


def qlinear_softmax_multiplier(output_scale: float) -> float:
    """``floor(1.0f / output_scale)`` in float32: what QLinearSoftmax multiplies a ratio by."""
    return float(F32(np.floor(F32(1.0) / F32(output_scale))))


def batch_norm_meets_no_subnormal(
    input_scale: float,
    input_zero_point: int,
    mean: np.ndarray,
    multiplier: np.ndarray,
    offset: np.ndarray,
    output_scale: float,
) -> bool:
    """Whether no float32 step of ONNX_BATCH_NORMALIZATION's kernel meets a subnormal or a
    non-finite value, for every int8 input of every channel: the operands, each rounded step of
    ``((x - zp) * scale - mean) * multiplier + offset``, the reciprocal of the output scale and
    the product by it. Then Helium's float vectors, which flush subnormals to zero where the
    scalar FPU keeps them, give the scalar code's bytes (the kernel's ``vector`` parameter)."""
    tiny = np.finfo(F32).tiny

    def normal(*values: Any) -> bool:
        return all(bool(np.all(np.isfinite(v) & ((v == 0) | (np.abs(v) >= tiny)))) for v in values)

    mean, multiplier, offset = (np.asarray(v, F32).reshape(-1, 1) for v in (mean, multiplier, offset))
    scale, out_scale = F32(input_scale), F32(output_scale)
    reciprocal = F32(1.0) / out_scale
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        x = (np.arange(-128, 128, dtype=np.int64) - int(input_zero_point)).astype(F32).reshape(1, -1)
        steps = [x * scale]
        steps.append(steps[-1] - mean)
        steps.append(steps[-1] * multiplier)
        steps.append(steps[-1] + offset)
        steps.append(steps[-1] * reciprocal)
    return normal(scale, out_scale, reciprocal, mean, multiplier, offset, *steps)


def batch_norm_outputs(
    input_scale: float,
    input_zero_point: int,
    mean: np.ndarray,
    multiplier: np.ndarray,
    offset: np.ndarray,
    output_scale: float,
    output_zero_point: int,
) -> np.ndarray:
    """ONNX_BATCH_NORMALIZATION's int8 output for every int8 input of every channel, [channels,
    256] (column j: input j - 128), by the float32 steps of its kernel (each rounded, IEEE
    subnormals kept as the scalar FPU keeps them), then QuantizeLinear (NaN to -128)."""
    mean, multiplier, offset = (np.asarray(v, F32).reshape(-1, 1) for v in (mean, multiplier, offset))
    x = (np.arange(-128, 128, dtype=np.int64) - int(input_zero_point)).astype(F32).reshape(1, -1)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        v = ((x * F32(input_scale) - mean) * multiplier + offset) / F32(output_scale)
    v = np.where(np.isnan(v), -np.inf, v)
    q: np.ndarray = np.clip(np.rint(np.clip(v, -1e9, 1e9)) + int(output_zero_point), -128, 127)
    return q.astype(np.int64)


AFFINE_SLACK = 8
"""How far from the nearest multiplier fit_affine_outputs looks, in units of its last bit."""


def fit_affine_outputs(outputs: np.ndarray, slopes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Integers (a, b) per channel and one shift s with ``clamp((a * x + b) >> s, -128, 127)``
    equal to ``outputs[c, x + 128]`` for every int8 x and channel c, or None where no such
    line exists near ``slopes`` (output steps per input step) with every ``a * x + b`` inside
    int32.

    Each wanted output q bounds a * x + b to [q * 2^s, (q + 1) * 2^s) (only from above at -128,
    only from below at 127), so for a given a the b that fit form one interval; the a tried are
    the rounded slope and its neighbours. The result is checked on all 256 inputs.
    """
    x = np.arange(-128, 128, dtype=np.int64)
    reach = float(np.max(np.abs(slopes))) * 256.0 + 512.0
    shift = int(min(24, np.floor(np.log2(2.0**29 / reach))))
    if shift < 8:
        return None
    unit = 1 << shift
    lows = np.where(outputs == -128, np.iinfo(np.int64).min // 4, outputs * unit)
    highs = np.where(outputs == 127, np.iinfo(np.int64).max // 4, (outputs + 1) * unit - 1)
    scales, biases = [], []
    for c in range(outputs.shape[0]):
        nominal = int(np.rint(float(slopes[c]) * unit))
        for a in sorted(
            {0, *range(nominal - AFFINE_SLACK, nominal + AFFINE_SLACK + 1)}, key=lambda v: abs(v - nominal)
        ):
            low, high = int(np.max(lows[c] - a * x)), int(np.min(highs[c] - a * x))
            if low <= high:
                b = min(max((low + high) // 2, -(2**30)), 2**30)
                if low <= b <= high:
                    break
        else:
            return None
        scales.append(a)
        biases.append(b)
    a_, b_ = np.asarray(scales, np.int64).reshape(-1, 1), np.asarray(biases, np.int64).reshape(-1, 1)
    line = a_ * x + b_
    if np.max(np.abs(line)) >= 2**31 or not np.array_equal(np.clip(line >> shift, -128, 127), outputs):
        return None
    return a_.reshape(-1).astype(np.int32), b_.reshape(-1).astype(np.int32), shift


def _per_tensor_int8(*tensors: Any) -> Iterable[str]:
    for t in tensors:
        if t.dtype.numpy != np.int8:
            yield f"{label(t)} must be int8"
        elif t.quantization is None or t.quantization.per_channel or not t.scale() > 0.0:
            yield f"{label(t)} must be quantized per tensor with a positive scale"


class OnnxQuantizeOperator(_OnnxOperator):
    """ONNX_QUANTIZE: QUANTIZE as ``QuantizeLinear`` computes it (float32 divided by the scale,
    rounded half to even), from float32 or, dequantized first in float32, from int8."""

    TYPE = "ONNX_QUANTIZE"
    KERNELS = ("onnx_qlinear",)
    SUPPORTED_DTYPES = (np.float32, np.int8)
    RESTRICTIONS = (
        MADE,
        "float32 or int8 input, int8 output with as many elements.",
        PER_TENSOR,
    )
    INPLACE_INPUTS = (0,)  # each element is read before its output byte is written

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        if x.size != y.size:
            yield f"the input has {x.size} elements but the output {y.size}"
        yield from _per_tensor_int8(y)
        if x.dtype.numpy != np.float32:
            yield from _per_tensor_int8(x)

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        requantize = x.dtype.numpy == np.int8
        params: dict[str, Any] = {
            "size": y.size,
            "input_scale": F32(x.scale()) if requantize else F32(1.0),
            "input_zero_point": x.zero_point() if requantize else 0,
            "output_scale": F32(y.scale()),
            "output_zero_point": y.zero_point(),
        }
        function = "onnx_requantize_s8" if requantize else "onnx_quantize_f32_s8"
        args = [self.ptr(x, const=True), self.ptr(y)]
        return KernelCall(function, args, "onnx_quantize_params_t", params)


class OnnxSoftmaxOperator(_OnnxOperator):
    """ONNX_SOFTMAX: int8 SOFTMAX over the innermost dimension as onnxruntime's QLinearSoftmax
    computes it (see :func:`qlinear_softmax_table`)."""

    TYPE = "ONNX_SOFTMAX"
    KERNELS = ("onnx_qlinear",)
    RESTRICTIONS = (
        MADE,
        PER_TENSOR,
        "int8 input and output of one shape; beta 1.",
    )
    INPLACE_INPUTS = (0,)  # a row is read whole before any of it is written, then element by element

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        yield from _per_tensor_int8(x, y)
        if not x.shape or tuple(x.shape) != tuple(y.shape) or x.shape[-1] < 1:
            yield f"input shape {tuple(x.shape)} and output shape {tuple(y.shape)} must match"
        if self.typed_options(AirSoftmaxOptions).beta != 1.0:
            yield "beta must be 1 (ONNX's Softmax has none)"

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        depth = int(x.shape[-1])
        table = self._table(
            "exp",
            "float",
            [c_float(float(v)) for v in qlinear_softmax_table(x.scale(), depth)],
            "QLinearSoftmax's exp table: entry uint8(x - row max + 127)",
        )
        params: dict[str, Any] = {
            "outer_size": x.size // depth,
            "depth": depth,
            "output_multiplier": F32(qlinear_softmax_multiplier(y.scale())),
            "output_zero_point": y.zero_point(),
            "table": self.table_ref(table),
        }
        args = [self.ptr(x, const=True), self.ptr(y)]
        return KernelCall("onnx_softmax_s8", args, "onnx_softmax_params_t", params, tables=[table])


@dataclass(slots=True)
class AirOnnxBatchNormOptions(AirOperatorOptions):
    """ONNX_BATCH_NORMALIZATION's channel axis, in the AIR tensor's layout."""

    axis: int = -1


class OnnxBatchNormOperator(_OnnxOperator):
    """ONNX_BATCH_NORMALIZATION: int8 in, int8 out, per element of channel c
    ``QuantizeLinear(((x - zp) * scale - mean[c]) * multiplier[c] + offset[c])`` in float32, the
    steps of onnxruntime's float BatchNormalization between its DequantizeLinear and
    QuantizeLinear. Inputs: the int8 tensor, then the float32 mean, multiplier
    (gamma / sqrt(var + epsilon)) and offset (beta), one per channel."""

    TYPE = "ONNX_BATCH_NORMALIZATION"
    KERNELS = ("onnx_qlinear",)
    RESTRICTIONS = (
        "Written by the ONNX front end for a BatchNormalization of a QDQ model (never read from a file).",
        PER_TENSOR,
        "Mean, multiplier and offset constant float32, one per channel of the channel axis.",
    )
    INPLACE_INPUTS = (0,)

    def _axis(self) -> int:
        rank = len(self.input_tensors[0].shape)
        axis = self.typed_options(AirOnnxBatchNormOptions).axis
        return axis + rank if axis < 0 else axis

    def check(self) -> Iterable[str]:
        ins, y = self.input_tensors, self.output_tensors[0]
        if len(ins) != 4 or any(t is None for t in ins):
            yield "needs an input, a mean, a multiplier and an offset"
            return
        x = ins[0]
        yield from _per_tensor_int8(x, y)
        if tuple(x.shape) != tuple(y.shape) or not 0 <= self._axis() < len(x.shape):
            yield f"input {tuple(x.shape)} and output {tuple(y.shape)} differ or the axis is outside them"
            return
        channels = int(x.shape[self._axis()])
        for t in ins[1:]:
            if not t.is_constant or t.dtype.numpy != np.float32 or t.size != channels:
                yield f"{label(t)} must be {channels} constant float32 values"

    def _parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mean, multiplier, offset = (
            np.asarray(t.required_data(), F32).reshape(-1) for t in self.input_tensors[1:]
        )
        return mean, multiplier, offset

    def _fit(self) -> tuple[np.ndarray, np.ndarray, int] | None:
        """The per-channel integer line (fit_affine_outputs) giving the float32 steps' output
        for every int8 input of every channel, if one does."""
        x, y = self.input_tensors[0], self.output_tensors[0]
        mean, multiplier, offset = self._parameters()
        outputs = batch_norm_outputs(
            x.scale(), x.zero_point(), mean, multiplier, offset, y.scale(), y.zero_point()
        )
        slopes = (F32(x.scale()) * multiplier.astype(np.float64)) / float(F32(y.scale()))
        return fit_affine_outputs(outputs, slopes)

    def on_resolve(self) -> None:
        """Where the line exists the kernel multiplies, adds and shifts instead of running five
        float32 steps and a division per element."""
        fitted = self._fit()
        if fitted is not None:
            self.intern_constant_array("affine_scale", fitted[0])
            self.intern_constant_array("affine_bias", fitted[1])

    def _affine(self) -> bool:
        return "affine_scale" in self.op.named_tensors

    def reads_input(self, position: int) -> bool:
        return position == 0 or not self._affine()  # the integer line replaces the float32 ones

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        shape, axis = [int(d) for d in x.shape], self._axis()
        params: dict[str, Any] = {
            "outer": int(np.prod(shape[:axis], dtype=np.int64)),
            "channels": shape[axis],
            "inner": int(np.prod(shape[axis + 1 :], dtype=np.int64)),
        }
        if self._affine():
            fitted = self._fit()
            assert fitted is not None  # on_resolve found it, from the same constants
            params["shift"] = fitted[2]
            args = [
                self.ptr(self.get_local_tensor("affine_scale"), const=True),
                self.ptr(self.get_local_tensor("affine_bias"), const=True),
                self.ptr(x, const=True),
                self.ptr(y),
            ]
            return KernelCall("onnx_batch_norm_affine_s8", args, "onnx_batch_norm_affine_params_t", params)
        mean, multiplier, offset = self._parameters()
        params |= {
            "input_scale": F32(x.scale()),
            "input_zero_point": x.zero_point(),
            "output_scale": F32(y.scale()),
            "output_zero_point": y.zero_point(),
            "vector": int(
                batch_norm_meets_no_subnormal(x.scale(), x.zero_point(), mean, multiplier, offset, y.scale())
            ),
        }
        args = [self.ptr(t, const=True) for t in self.input_tensors[1:]]
        args += [self.ptr(x, const=True), self.ptr(y)]
        return KernelCall("onnx_batch_norm_s8", args, "onnx_batch_norm_params_t", params)


REGISTRATIONS = [
    OperatorRecord(OnnxQuantizeOperator.TYPE, _not_in_files, None, OnnxQuantizeOperator),
    OperatorRecord(OnnxSoftmaxOperator.TYPE, _not_in_files, AirSoftmaxOptions, OnnxSoftmaxOperator),
    OperatorRecord(OnnxBatchNormOperator.TYPE, _not_in_files, AirOnnxBatchNormOptions, OnnxBatchNormOperator),
]
