"""AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors (float32, int8, int16).

Each lowers to one ``hk_avg_pool_*`` / ``hk_max_pool_*`` call with LiteRT's SAME/VALID padding
and fused-activation clamp. The quantized kernels pool raw values, as LiteRT's reference kernels
do (they expect input and output to share one quantization and never rescale).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.codegen import c_float
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION, is_half
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, padding_name, simple_parser
from helia_aot_ops_builtin.common.quantization import (
    ACTIVATION_RESTRICTION,
    FUSED_ACTIVATIONS,
    float_clamp,
    quantized_clamp,
)
from helia_aot_ops_builtin.common.weighted_prepare import window_geometry

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_SUFFIX = {np.float32: "f32", np.float16: "f16", np.int8: "s8", np.int16: "s16"}


@dataclass(slots=True)
class AirPool2DOptions(AirOperatorOptions):
    """Pool2DOptions as LiteRT stores them."""

    padding: str = "SAME"
    stride_h: int = 1
    stride_w: int = 1
    filter_h: int = 1
    filter_w: int = 1
    activation: str = "NONE"


def _pool_options(raw: litert.Pool2DOptionsT | None) -> AirPool2DOptions:
    if raw is None:
        return AirPool2DOptions()
    return AirPool2DOptions(
        padding=padding_name(raw.padding),
        stride_h=int(raw.strideH),
        stride_w=int(raw.strideW),
        filter_h=int(raw.filterHeight),
        filter_w=int(raw.filterWidth),
        activation=activation_name(raw.fusedActivationFunction),
    )


parse_average_pool_2d = simple_parser(AirOpType.AVERAGE_POOL_2D.value, _pool_options)
parse_max_pool_2d = simple_parser(AirOpType.MAX_POOL_2D.value, _pool_options)


class _PoolOperator(KernelCallOperator):
    """Shared contract of the two poolings."""

    KERNELS = ("pool",)
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    RESTRICTIONS = (
        "Input and output are 4-D NHWC tensors of one type (float32, float16, int8 or int16) with "
        "the same channels; quantized ones are quantized per tensor.",
        "Filter and strides are positive; padding is SAME or VALID.",
        ACTIVATION_RESTRICTION,
        FLOAT16_RESTRICTION,
    )
    KIND = ""

    @property
    def options(self) -> AirPool2DOptions:
        return self.typed_options(AirPool2DOptions)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        return f"{self.KIND}_pool_{_SUFFIX[self.source.dtype.numpy.type]}"

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``, Helium f16 on the M55).
        return ("pool_f16",) if is_half(self.source) else self.KERNELS

    def _spatial(self) -> tuple[tuple[int, int], tuple[int, int]]:
        o, (_, h, w, _) = self.options, self.source.shape
        return (
            window_geometry(o.padding, h, o.filter_h, o.stride_h),
            window_geometry(o.padding, w, o.filter_w, o.stride_w),
        )

    def check(self) -> Iterable[str]:
        o, src, dst = self.options, self.source, self.target
        if src.dtype != dst.dtype:
            yield f"input {src.dtype} and output {dst.dtype} types differ"
            return
        if o.activation not in FUSED_ACTIVATIONS:
            yield f"fused activation {o.activation} is not supported"
        if o.padding not in ("SAME", "VALID"):
            yield f"padding {o.padding} is not SAME or VALID"
            return
        if min(o.filter_h, o.filter_w, o.stride_h, o.stride_w) < 1:
            yield "filter size and strides must be positive"
            return
        if len(src.shape) != 4 or len(dst.shape) != 4:
            yield "input and output must be 4-D"
            return
        n, _, _, c = src.shape
        (oh, _), (ow, _) = self._spatial()
        if tuple(dst.shape) != (n, oh, ow, c):
            yield f"output shape {tuple(dst.shape)} is not the expected {(n, oh, ow, c)}"
        if not src.dtype.is_float:
            for tensor in (src, dst):
                if tensor.quantization is None or tensor.quantization.per_channel:
                    yield f"{label(tensor)} must be quantized per tensor"
                    return

    def kernel(self) -> KernelCall:
        o = self.options
        n, h, w, c = self.source.shape
        (oh, pad_top), (ow, pad_left) = self._spatial()
        fields = [
            (k, str(v))
            for k, v in (
                ("batches", n),
                ("input_height", h),
                ("input_width", w),
                ("channels", c),
                ("output_height", oh),
                ("output_width", ow),
                ("filter_height", o.filter_h),
                ("filter_width", o.filter_w),
                ("stride_height", o.stride_h),
                ("stride_width", o.stride_w),
                ("pad_top", pad_top),
                ("pad_left", pad_left),
            )
        ]
        if self.source.dtype.is_float:
            lo, hi = float_clamp(o.activation)
            fields += [("act_min_f32", c_float(lo)), ("act_max_f32", c_float(hi))]
        else:
            lo, hi = quantized_clamp(o.activation, self.target)
            fields += [("act_min", str(lo)), ("act_max", str(hi))]
        params_type = "pool_f16_params_t" if is_half(self.source) else "pool_params_t"
        return KernelCall(
            self.kernel_function(),
            [self.ptr(self.source, const=True), self.ptr(self.target)],
            params_type,
            dict(fields),
            params_in_run=True,
        )


class AveragePool2DOperator(_PoolOperator):
    """AVERAGE_POOL_2D: the mean of each window's in-image taps (integer: rounded half away)."""

    TYPE = AirOpType.AVERAGE_POOL_2D.value
    KIND = "avg"


class MaxPool2DOperator(_PoolOperator):
    """MAX_POOL_2D: the largest in-image tap of each window."""

    TYPE = AirOpType.MAX_POOL_2D.value
    KIND = "max"


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.AVERAGE_POOL_2D.value,
        parse_average_pool_2d,
        AirPool2DOptions,
        AveragePool2DOperator,
        arity=Arity(1, 1),
    ),
    OperatorRecord(
        AirOpType.MAX_POOL_2D.value, parse_max_pool_2d, AirPool2DOptions, MaxPool2DOperator, arity=Arity(1, 1)
    ),
]
