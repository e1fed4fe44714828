"""QUANTIZE and DEQUANTIZE, per tensor.

QUANTIZE from float32 is LiteRT's AffineQuantize (round half away from zero, then clamp); from
int8/int16 it is LiteRT's Requantize with the multiplier of ``input_scale / output_scale``.
DEQUANTIZE widens int8/int16 (``scale * (q - zero_point)``) or float16 to float32. Every kernel
reads an element before writing it, so a QUANTIZE output may reuse its input's storage (the
planner only offers that when the output is no larger; DEQUANTIZE always widens).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirOpType, AirTensor
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.float16 import FLOAT16_RESTRICTION, is_half
from helia_aot_ops_builtin.params_call import (
    KernelCall,
    ParamsCallOperator,
    label,
    quantization_problems,
)
from helia_aot_ops_builtin.parsing import simple_parser
from helia_aot_ops_builtin.rescale import requantize_rescale

_SUFFIX = {
    np.dtype(np.int8): "s8",
    np.dtype(np.int16): "s16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
}
_INTEGER = (np.dtype(np.int8), np.dtype(np.int16))

SAME_SHAPE = "The input and output must have the same number of elements."
PER_TENSOR = (
    "Quantized tensors must be quantized per tensor with a positive scale; int16 "
    "ones with zero point 0 (as LiteRT requires)."
)

parse_quantize = simple_parser(AirOpType.QUANTIZE.value)
parse_dequantize = simple_parser(AirOpType.DEQUANTIZE.value)


class _OneToOneOperator(ParamsCallOperator):
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
    """QUANTIZE: float32 -> int8/int16, or int8/int16 -> int8/int16 (requantization)."""

    TYPE = AirOpType.QUANTIZE.value
    SUPPORTED_DTYPES = (np.float32, np.int8, np.int16, np.float16)
    RESTRICTIONS = (
        SAME_SHAPE,
        PER_TENSOR,
        "The output must be int8 or int16, or float16 from a float32 input.",
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
        if self.target.dtype.numpy not in _INTEGER:
            return [f"the output {label(self.target)} is {self.target.dtype}, not int8 or int16"]
        return quantization_problems((self.source, self.target))

    def kernel_families(self) -> tuple[str, ...]:
        # float32 -> float16 rounds with ``_Float16``: its own family, on FP16 platforms only.
        return ("quantize_f16",) if is_half(self.target) else self.KERNELS

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if is_half(dst):
            return KernelCall("quantize_f32_f16", data, leading_args=[f"{dst.size}"])
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
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_SHAPE,
        PER_TENSOR,
        "The input must be int8, int16 or float16 and the output float32.",
    )

    def check(self) -> Iterable[str]:
        problems = self.shape_problems()
        if problems:
            return problems
        src, dst = self.source, self.target
        if dst.dtype.numpy != np.dtype(np.float32):
            return [f"the output {label(dst)} is {dst.dtype}, not float32"]
        if src.dtype.numpy not in _INTEGER + (np.dtype(np.float16),):
            return [f"the input {label(src)} is {src.dtype}, not int8, int16 or float16"]
        return quantization_problems((src,))

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if src.dtype.numpy == np.dtype(np.float16):
            return KernelCall("dequantize_f16_f32", data, leading_args=[f"{dst.size}"])
        return KernelCall(
            f"dequantize_{_SUFFIX[src.dtype.numpy]}_f32",
            data,
            "dequantize_params_t",
            {"size": dst.size, "scale": src.scale(), "zero_point": src.zero_point()},
        )


REGISTRATIONS = [
    OperatorRecord(AirOpType.QUANTIZE.value, parse_quantize, None, QuantizeOperator),
    OperatorRecord(AirOpType.DEQUANTIZE.value, parse_dequantize, None, DequantizeOperator),
]
