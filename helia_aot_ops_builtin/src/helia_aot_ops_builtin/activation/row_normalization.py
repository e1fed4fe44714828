"""Row-wise operators over the innermost dimension: LOG_SOFTMAX, L2_NORMALIZATION and
LOCAL_RESPONSE_NORMALIZATION.

Each is one ``hk_*`` call over ``outer_size`` rows of ``depth`` elements. int8 LOG_SOFTMAX follows
LiteRT's kReference fixed-point kernel with the multipliers of ``PreprocessLogSoftmaxScalingExp``;
int8 L2_NORMALIZATION LiteRT's integer inverse square root. Both int8 kernels have a fixed output
quantization, which LiteRT's Prepare checks; the checks here mirror it so a model the reference
refuses is refused with a sentence instead of producing numbers the reference never would.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor
from helia_aot.codegen import c_float
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.activation import activation_quantization as aq
from helia_aot_ops_builtin.common.c_struct import struct_init
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

LOG_SOFTMAX = "LOG_SOFTMAX"
L2_NORMALIZATION = "L2_NORMALIZATION"
LOCAL_RESPONSE_NORMALIZATION = "LOCAL_RESPONSE_NORMALIZATION"
SAME_SHAPE = "Input and output must have one element type and one shape of at least one dimension."


@dataclass(slots=True)
class AirL2NormOptions(AirOperatorOptions):
    """L2_NORMALIZATION's fused activation (LiteRT accepts only NONE)."""

    activation: str = "NONE"


@dataclass(slots=True)
class AirLrnOptions(AirOperatorOptions):
    """LOCAL_RESPONSE_NORMALIZATION: x * (bias + alpha * sum of squares in the window) ^ -beta."""

    radius: int = 5
    bias: float = 1.0
    alpha: float = 1.0
    beta: float = 0.5


def _l2_options(raw: litert.L2NormOptionsT | None) -> AirL2NormOptions:
    return AirL2NormOptions(activation=activation_name(raw.fusedActivationFunction if raw is not None else 0))


def _lrn_options(raw: litert.LocalResponseNormalizationOptionsT | None) -> AirLrnOptions:
    if raw is None:
        return AirLrnOptions(radius=0, bias=0.0, alpha=0.0, beta=0.0)
    return AirLrnOptions(
        radius=int(raw.radius or 0),
        bias=float(np.float32(raw.bias)),
        alpha=float(np.float32(raw.alpha)),
        beta=float(np.float32(raw.beta)),
    )


class RowOperator(KernelCallOperator):
    """One kernel call over the rows of the innermost dimension (input 0 -> output 0)."""

    PARAMS_COMMENT = "{op_type} parameters as LiteRT's Prepare computes them"
    INPLACE_INPUTS: tuple[int, ...] = (0,)
    NAME = ""

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    @property
    def dtype(self) -> type:
        return self.source.dtype.numpy.type

    @property
    def depth(self) -> int:
        return int(self.source.shape[-1])

    @property
    def outer(self) -> int:
        return self.source.size // max(self.depth, 1)

    def check(self) -> Iterable[str]:
        src, dst = self.source, self.target
        if src.dtype != dst.dtype:
            yield f"the input is {src.dtype} but the output is {dst.dtype}"
            return
        if not src.shape or tuple(src.shape) != tuple(dst.shape):
            yield f"input shape {src.shape} and output shape {dst.shape} must match and not be scalar"
            return
        if self.depth < 1:
            yield "the innermost dimension is empty"
        if self.dtype is not np.float32:
            for tensor in (src, dst):
                if tensor.quantization is None or tensor.quantization.per_channel:
                    yield f"{tensor.source_name or tensor.name!r} is not quantized per tensor"
                    return
        yield from self.type_problems()

    def type_problems(self) -> Iterable[str]:
        return ()

    def params(self) -> tuple[str, str]:
        """(params struct type without ``hk_``, its initializer)."""
        raise NotImplementedError

    def function(self) -> str:
        suffix = "f32" if self.dtype is np.float32 else "s8"
        return f"{self.NAME}_{suffix}"

    def kernel_function(self) -> str:
        return self.function()

    def kernel(self) -> KernelCall:
        params_type, init = self.params()
        data = [self.ptr(self.source, const=True), self.ptr(self.target)]
        return KernelCall(self.function(), data, params_type, init)


class LogSoftmaxOperator(RowOperator):
    """LOG_SOFTMAX: x - max - log(sum(exp(x - max))) over the innermost dimension."""

    TYPE = LOG_SOFTMAX
    KERNELS = ("log_softmax",)
    NAME = "log_softmax"
    SUPPORTED_DTYPES = (np.int8, np.float32)
    RESTRICTIONS = (
        SAME_SHAPE,
        "Quantized tensors must be quantized per tensor.",
        "int8: the output scale must be 16/256 and its zero point 127 (as LiteRT requires).",
        "int8: the input scale must exceed 2^-26 (LiteRT's scaling needs a multiplier above one).",
    )

    def type_problems(self) -> Iterable[str]:
        if self.dtype is np.int8:
            if self.target.scale() != 16.0 / 256 or self.target.zero_point() != 127:
                yield "the int8 output must have scale 16/256 and zero point 127"
            if not self.source.scale() * float(1 << 26) > 1.0:
                yield f"the input scale {self.source.scale()} is too small"

    def params(self) -> tuple[str, str]:
        if self.dtype is np.float32:
            return "log_softmax_f32_params_t", struct_init(self.outer, self.depth)
        p = aq.log_softmax_s8_params(self.source.scale())
        return "log_softmax_s8_params_t", struct_init(
            self.outer,
            self.depth,
            p.input_multiplier,
            p.input_left_shift,
            p.reverse_multiplier,
            p.reverse_shift,
            p.diff_min,
        )


class L2NormalizationOperator(RowOperator):
    """L2_NORMALIZATION: x / max(||x||, 1e-6) over the innermost dimension."""

    TYPE = L2_NORMALIZATION
    KERNELS = ("normalization",)
    NAME = "l2_norm"
    SUPPORTED_DTYPES = (np.int8, np.float32)
    RESTRICTIONS = (
        SAME_SHAPE,
        "Quantized tensors must be quantized per tensor.",
        "int8: the output scale must be 1/128 and its zero point 0 (as LiteRT requires).",
        "No fused activation (LiteRT accepts none).",
    )

    def type_problems(self) -> Iterable[str]:
        activation = self.typed_options(AirL2NormOptions).activation
        if activation not in ("NONE", ""):
            yield f"the fused activation {activation} is not supported (LiteRT accepts none)"
        if self.dtype is np.int8 and (self.target.scale() != 1.0 / 128 or self.target.zero_point() != 0):
            yield "the int8 output must have scale 1/128 and zero point 0"

    def params(self) -> tuple[str, str]:
        zero_point = 0 if self.dtype is np.float32 else self.source.zero_point()
        return "l2_norm_params_t", struct_init(self.outer, self.depth, zero_point)


class LocalResponseNormalizationOperator(RowOperator):
    """LOCAL_RESPONSE_NORMALIZATION across the channels of a 4-D float32 tensor."""

    TYPE = LOCAL_RESPONSE_NORMALIZATION
    KERNELS = ("normalization",)
    NAME = "lrn"
    # Each output reads its neighbours' inputs, so it cannot overwrite its own input.
    INPLACE_INPUTS = ()
    SUPPORTED_DTYPES = (np.float32,)
    RESTRICTIONS = (
        "Input and output must be float32 with one 4-D shape (as LiteRT requires).",
        "The radius must not be negative.",
    )

    def type_problems(self) -> Iterable[str]:
        if len(self.source.shape) != 4:
            yield f"the input has {len(self.source.shape)} dimensions (LiteRT requires 4)"
        if self.typed_options(AirLrnOptions).radius < 0:
            yield "the radius is negative"

    def params(self) -> tuple[str, str]:
        o = self.typed_options(AirLrnOptions)
        init = struct_init(
            self.outer, self.depth, o.radius, c_float(o.bias), c_float(o.alpha), c_float(o.beta)
        )
        return "lrn_f32_params_t", init


REGISTRATIONS = [
    OperatorRecord(LOG_SOFTMAX, simple_parser(LOG_SOFTMAX), None, LogSoftmaxOperator, arity=Arity(1, 1)),
    OperatorRecord(
        L2_NORMALIZATION,
        simple_parser(L2_NORMALIZATION, _l2_options),
        AirL2NormOptions,
        L2NormalizationOperator,
        arity=Arity(1, 1),
    ),
    OperatorRecord(
        LOCAL_RESPONSE_NORMALIZATION,
        simple_parser(LOCAL_RESPONSE_NORMALIZATION, _lrn_options),
        AirLrnOptions,
        LocalResponseNormalizationOperator,
    ),
]
