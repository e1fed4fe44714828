"""QUANTIZE and DEQUANTIZE, per tensor.

QUANTIZE from float32 is LiteRT's AffineQuantize (round half away from zero, then clamp), per
tensor or per channel (PerChannelQuantize: each element uses its channel's scale and zero point,
interned as two small constant arrays); from int8/int16 it is LiteRT's Requantize with the
multiplier of ``input_scale / output_scale``.
DEQUANTIZE widens int8/int16 (``scale * (q - zero_point)``) or float16 to float32. Every kernel
reads an element before writing it, so a QUANTIZE output may reuse its input's storage (the
planner only offers that when the output is no larger; DEQUANTIZE always widens).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirOpType, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION, is_half
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.common.rescale import requantize_rescale

_SUFFIX = {
    np.dtype(np.int8): "s8",
    np.dtype(np.uint8): "u8",
    np.dtype(np.int16): "s16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
}
_INTEGER = (np.dtype(np.int8), np.dtype(np.int16))
_UINT8 = np.dtype(np.uint8)
# Integer pairs LiteRT's QUANTIZE requantizes between (quantize.cc Prepare): uint8 meets only
# int8 and uint8.
_REQUANTIZE_PAIRS = frozenset(
    {(a, b) for a in _INTEGER for b in _INTEGER}
    | {(np.dtype(np.int8), _UINT8), (_UINT8, np.dtype(np.int8)), (_UINT8, _UINT8)}
)

SAME_SHAPE = "The input and output must have the same number of elements."
PER_TENSOR = (
    "Quantized tensors must be quantized per tensor with a positive scale; int16 "
    "ones with zero point 0 (as LiteRT requires)."
)

parse_quantize = simple_parser(AirOpType.QUANTIZE.value)
parse_dequantize = simple_parser(AirOpType.DEQUANTIZE.value)


def _uint8_problems(tensors: Iterable[AirTensor]) -> list[str]:
    """uint8 tensors need per-tensor quantization too (any zero point in 0..255 is fine)."""
    problems = []
    for tensor in tensors:
        if tensor.dtype.numpy != _UINT8:
            continue
        q = tensor.quantization
        if q is None or q.per_channel or not float(q.scale[0]) > 0.0:
            problems.append(f"{label(tensor)} is uint8 without one positive per-tensor scale")
    return problems


class _OneToOneOperator(KernelCallOperator):
    KERNELS = ("quantize",)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def shape_problems(self) -> list[str]:
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            return [
                f"expects 1 input and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            ]
        if self.source.size != self.target.size:
            return [f"the input has {self.source.size} elements but the output {self.target.size}"]
        return []


class QuantizeOperator(_OneToOneOperator):
    """QUANTIZE: float32 -> int8/int16/uint8, or a requantization between int8/int16, or between
    int8/uint8 and uint8 (uint8 model inputs and outputs)."""

    TYPE = AirOpType.QUANTIZE.value
    SUPPORTED_DTYPES = (np.float32, np.int8, np.int16, np.uint8, np.float16)
    RESTRICTIONS = (
        SAME_SHAPE,
        "Quantized tensors must be quantized per tensor with a positive scale (int16 ones with "
        "zero point 0), except a per-channel output of a float32 input: one positive scale (and "
        "any zero point, as LiteRT's PerChannelQuantize allows) per index of its quantized "
        "dimension. Per-channel requantization (an int8/int16 input) is refused.",
        "The output must be int8, int16 or uint8 (uint8 requantized only from or to int8 or uint8), or "
        "float16 from a float32 input.",
        FLOAT16_RESTRICTION,
    )
    # The planner shares storage only when the output is no larger than the input, and the
    # narrowing and same-width kernels walk forwards, reading each element before writing it.
    INPLACE_INPUTS = (0,)

    def check(self) -> Iterable[str]:
        problems = self.shape_problems()
        if problems:
            return problems
        if is_half(self.target) and self.source.dtype.numpy == np.dtype(np.float32):
            return []
        src, dst = self.source.dtype.numpy, self.target.dtype.numpy
        if dst not in _INTEGER + (_UINT8,):
            return [f"the output {label(self.target)} is {self.target.dtype}, not int8, int16 or uint8"]
        if src != np.dtype(np.float32) and (src, dst) not in _REQUANTIZE_PAIRS:
            return [
                f"QUANTIZE from {self.source.dtype} to {self.target.dtype} is not a LiteRT requantization"
            ]
        if self.per_channel:
            if dst == _UINT8:
                return [f"per-channel quantization of {label(self.target)} to uint8 is not supported"]
            return self.channel_problems()
        return quantization_problems((self.source, self.target)) + _uint8_problems((self.source, self.target))

    @property
    def per_channel(self) -> bool:
        """A float32 input quantized per channel (LiteRT's PerChannelQuantize)."""
        q = self.target.quantization
        return self.source.dtype.numpy == np.dtype(np.float32) and q is not None and q.per_channel

    def channel_problems(self) -> list[str]:
        q = self.target.quantization
        assert q is not None
        shape = self.target.shape
        if not 0 <= q.axis < len(shape):
            return [f"the quantized dimension {q.axis} is outside the output's rank {len(shape)}"]
        if q.scale.size != shape[q.axis]:
            return [f"{q.scale.size} scales for a quantized dimension of {shape[q.axis]}"]
        problems = []
        if not np.all(q.scale > 0):
            problems.append(f"{label(self.target)} has a non-positive per-channel scale")
        return problems

    def on_resolve(self) -> None:
        if self.per_channel:
            q = self.target.quantization
            assert q is not None
            self.intern_constant_array("scales", np.asarray(q.scale, np.float32))
            self.intern_constant_array("zero_points", np.asarray(q.zero_point, np.int32))

    def kernel_families(self) -> tuple[str, ...]:
        # float32 -> float16 rounds with ``_Float16``: its own family, on FP16 platforms only.
        return ("quantize_f16",) if is_half(self.target) else self.KERNELS

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if is_half(dst):
            return KernelCall("quantize_f32_f16", data, leading_args=[f"{dst.size}"])
        if self.per_channel:
            q = dst.quantization
            assert q is not None
            shape = [int(d) for d in dst.shape]
            tables = [
                self.ptr(self.model.tensors[self.op.named_tensors[name]], const=True)
                for name in ("scales", "zero_points")
            ]
            return KernelCall(
                f"quantize_channel_f32_{_SUFFIX[dst.dtype.numpy]}",
                tables + data,
                "quantize_channel_params_t",
                {
                    "outer": int(np.prod(shape[: q.axis], dtype=np.int64)),
                    "channels": shape[q.axis],
                    "inner": int(np.prod(shape[q.axis + 1 :], dtype=np.int64)),
                },
            )
        suffix = f"{_SUFFIX[src.dtype.numpy]}_{_SUFFIX[dst.dtype.numpy]}"
        if src.dtype.numpy == np.dtype(np.float32):
            return KernelCall(
                f"quantize_{suffix}",
                data,
                "quantize_params_t",
                {"size": dst.size, "scale": dst.scale(), "zero_point": dst.zero_point()},
            )
        multiplier, shift = requantize_rescale(src.scale(), dst.scale())
        return KernelCall(
            f"requantize_{suffix}",
            data,
            "requantize_params_t",
            {
                "size": dst.size,
                "input_zero_point": src.zero_point(),
                "output_zero_point": dst.zero_point(),
                "multiplier": multiplier,
                "shift": shift,
            },
        )


class DequantizeOperator(_OneToOneOperator):
    """DEQUANTIZE: int8/int16/float16 -> float32."""

    TYPE = AirOpType.DEQUANTIZE.value
    SUPPORTED_DTYPES = (np.int8, np.int16, np.uint8, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_SHAPE,
        PER_TENSOR,
        "The input must be int8, int16, uint8 or float16 and the output float32.",
        "A constant int8 or int4 input may be quantized per channel (the weight-only recipes).",
    )

    def check(self) -> Iterable[str]:
        problems = self.shape_problems()
        if problems:
            return problems
        src, dst = self.source, self.target
        if dst.dtype.numpy != np.dtype(np.float32):
            return [f"the output {label(dst)} is {dst.dtype}, not float32"]
        if src.dtype.numpy not in _INTEGER + (_UINT8, np.dtype(np.float16)):
            return [f"the input {label(src)} is {src.dtype}, not int8, int16, uint8 or float16"]
        if self.per_channel:
            return dequantize_channel_problems(src)
        return quantization_problems((src,)) + _uint8_problems((src,))

    @property
    def per_channel(self) -> bool:
        """A constant int8 (or int4) input quantized per channel: weights a weight-only recipe
        dequantizes for a float operator (LiteRT's PerChannelDequantize)."""
        q = self.source.quantization
        return (
            self.source.is_constant
            and self.source.dtype.numpy == np.dtype(np.int8)
            and q is not None
            and q.per_channel
        )

    def on_resolve(self) -> None:
        if self.per_channel:
            q = self.source.quantization
            assert q is not None
            self.intern_constant_array("scales", np.asarray(q.scale, np.float32))
            self.intern_constant_array("zero_points", np.asarray(q.zero_point, np.int32))

    def kernel_families(self) -> tuple[str, ...]:
        return ("dequantize_channel",) if self.per_channel else super().kernel_families()

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if src.dtype.numpy == np.dtype(np.float16):
            return KernelCall("dequantize_f16_f32", data, leading_args=[f"{dst.size}"])
        if self.per_channel:
            q = src.quantization
            assert q is not None
            shape = [int(d) for d in src.shape]
            tables = [
                self.ptr(self.model.tensors[self.op.named_tensors[name]], const=True)
                for name in ("scales", "zero_points")
            ]
            return KernelCall(
                "dequantize_channel_s8_f32",
                tables + data,
                "quantize_channel_params_t",
                {
                    "outer": int(np.prod(shape[: q.axis], dtype=np.int64)),
                    "channels": shape[q.axis],
                    "inner": int(np.prod(shape[q.axis + 1 :], dtype=np.int64)),
                },
            )
        return KernelCall(
            f"dequantize_{_SUFFIX[src.dtype.numpy]}_f32",
            data,
            "dequantize_params_t",
            {"size": dst.size, "scale": src.scale(), "zero_point": src.zero_point()},
        )


def dequantize_channel_problems(tensor: AirTensor) -> list[str]:
    """A per-channel DEQUANTIZE input: its quantized dimension and positive scales."""
    q = tensor.quantization
    assert q is not None
    shape = tensor.shape
    if not 0 <= q.axis < len(shape) or q.scale.size != shape[q.axis]:
        return [f"{label(tensor)} has {q.scale.size} scales for dimension {q.axis} of {tuple(shape)}"]
    if not np.all(q.scale > 0):
        return [f"{label(tensor)} has a non-positive per-channel scale"]
    return []


REGISTRATIONS = [
    OperatorRecord(AirOpType.QUANTIZE.value, parse_quantize, None, QuantizeOperator, arity=Arity(1, 1)),
    OperatorRecord(AirOpType.DEQUANTIZE.value, parse_dequantize, None, DequantizeOperator, arity=Arity(1, 1)),
]
