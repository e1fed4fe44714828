"""QUANTIZE and int8 SOFTMAX of a model that asks for onnxruntime's arithmetic: ONNX_QUANTIZE
(QuantizeLinear: divide, round half to even) and ONNX_SOFTMAX (onnxruntime's QLinearSoftmax,
which its default session fuses a QDQ Softmax into: a 256-entry exp table built here, at
conversion). The ONNX_REQUANTIZATION transform makes them from QUANTIZE and SOFTMAX; the
kernels are ``hk_onnx_qlinear.h``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
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


REGISTRATIONS = [
    OperatorRecord(OnnxQuantizeOperator.TYPE, _not_in_files, None, OnnxQuantizeOperator),
    OperatorRecord(OnnxSoftmaxOperator.TYPE, _not_in_files, AirSoftmaxOptions, OnnxSoftmaxOperator),
]
