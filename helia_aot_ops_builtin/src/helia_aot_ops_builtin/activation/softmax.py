"""SOFTMAX over the innermost dimension.

float32 follows LiteRT's reference float softmax; int8 input (int8 or int16 output) the kReference
fixed-point path, whose beta/scale multiplier and difference cut-off come from LiteRT's
``PreprocessSoftmaxScaling``; int16 the table-driven kernel, whose two 513-entry tables are
interned as operator constants. The kernels may run in place when input and output types match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.codegen import c_float
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.activation.softmax_scaling import softmax_s8_params, softmax_s16_params
from helia_aot_ops_builtin.common.c_struct import struct_init
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_PAIRS: dict[tuple[type, type], str] = {
    (np.float32, np.float32): "softmax_f32",
    (np.float16, np.float16): "softmax_f16",
    (np.int8, np.int8): "softmax_s8",
    (np.int8, np.int16): "softmax_s8_s16",
    (np.int16, np.int16): "softmax_s16",
}


@dataclass(slots=True)
class AirSoftmaxOptions(AirOperatorOptions):
    """SOFTMAX's inverse temperature: softmax(beta * x)."""

    beta: float = 1.0


def _softmax_options(raw: litert.SoftmaxOptionsT | None) -> AirSoftmaxOptions:
    beta = raw.beta if raw is not None else None
    return AirSoftmaxOptions(beta=float(np.float32(1.0 if beta is None else beta)))


parse_softmax = simple_parser(AirOpType.SOFTMAX.value, _softmax_options)


def _near(value: float, target: float) -> bool:
    """LiteRT's ``TF_LITE_ENSURE_NEAR`` on an output scale: within 0.1 % in float32."""
    return bool(abs(np.float32(value) - np.float32(target)) <= np.float32(0.001) * np.float32(target))


class SoftmaxOperator(KernelCallOperator):
    """SOFTMAX: one ``hk_softmax_*`` call over ``outer_size`` rows of ``depth`` elements."""

    TYPE = AirOpType.SOFTMAX.value
    KERNELS = ("softmax",)
    PARAMS_COMMENT = "{op_type} parameters as LiteRT's Prepare computes them"
    INPLACE_INPUTS = (0,)
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = (
        "Input and output must have one shape of at least one dimension.",
        "Types: float32 -> float32, float16 -> float16, int8 -> int8, int8 -> int16 or int16 -> int16.",
        FLOAT16_RESTRICTION,
        "int8 output: scale 1/256 and zero point -128; int16 -> int16: zero points 0 and output "
        "scale 1/32768 (as LiteRT requires).",
        "int8 input: beta * input scale must exceed 2^-26 (LiteRT's Prepare refuses smaller).",
    )

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    @property
    def beta(self) -> float:
        return self.typed_options(AirSoftmaxOptions).beta

    def _pair(self) -> tuple[type, type]:
        return self.source.dtype.numpy.type, self.target.dtype.numpy.type

    def check(self) -> Iterable[str]:
        src, dst = self.source, self.target
        pair = self._pair()
        if pair not in _PAIRS:
            yield f"{src.dtype} input with {dst.dtype} output is not supported"
            return
        if not src.shape or tuple(src.shape) != tuple(dst.shape):
            yield f"input shape {src.shape} and output shape {dst.shape} must match and not be scalar"
        if src.shape and src.shape[-1] < 1:
            yield "the innermost dimension is empty"
        if pair[0] in (np.float32, np.float16):
            return
        for tensor in (src, dst):
            if tensor.quantization is None or tensor.quantization.per_channel:
                yield f"{tensor.source_name or tensor.name!r} is not quantized per tensor"
                return
        if pair == (np.int8, np.int8) and (dst.zero_point() != -128 or not _near(dst.scale(), 1 / 256)):
            yield "the int8 output must have scale 1/256 and zero point -128"
        if pair == (np.int16, np.int16):
            if src.zero_point() != 0 or dst.zero_point() != 0:
                yield "int16 input and output need zero points of 0"
            if not _near(dst.scale(), 1 / 32768):
                yield "the int16 output must have scale 1/32768"
        if pair[0] is np.int8:
            real = float(np.float32(self.beta)) * src.scale() * float(1 << 26)
            if not real > 1.0:
                yield f"beta * input scale ({self.beta} * {src.scale()}) is too small"

    def on_resolve(self) -> None:
        if self._pair() == (np.int16, np.int16):
            # The tables' module is imported here: int8 and float softmax never build one.
            from helia_aot_ops_builtin.activation import activation_quantization as aq

            self.intern_constant_array("exp_lut", aq.softmax_exp_lut())
            self.intern_constant_array("one_over_one_plus_x_lut", aq.softmax_one_over_one_plus_x_lut())

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs the ``softmax_f16`` family (``_Float16`` storage, float evaluation).
        return ("softmax_f16",) if self._pair()[0] is np.float16 else self.KERNELS

    def kernel_function(self) -> str:
        return _PAIRS[self._pair()]

    def kernel(self) -> KernelCall:
        pair = self._pair()
        depth = int(self.source.shape[-1])
        outer = self.source.size // depth
        tables: list[str] = []
        if pair[0] in (np.float32, np.float16):
            suffix = "f32" if pair[0] is np.float32 else "f16"
            params_type, init = f"softmax_{suffix}_params_t", struct_init(outer, depth, c_float(self.beta))
        elif pair[0] is np.int8:
            p = softmax_s8_params(self.beta, self.source.scale())
            params_type = "softmax_s8_params_t"
            init = struct_init(outer, depth, p.input_multiplier, p.input_left_shift, p.diff_min)
        else:
            p16 = softmax_s16_params(self.beta, self.source.scale())
            params_type = "softmax_s16_params_t"
            init = struct_init(outer, depth, p16.input_multiplier, p16.input_shift)
            tables = [
                self.ptr(self.get_local_tensor(name), const=True)
                for name in ("exp_lut", "one_over_one_plus_x_lut")
            ]
        data = [self.ptr(self.source, const=True), self.ptr(self.target)]
        return KernelCall(_PAIRS[pair], data, params_type, init, leading_args=tables)


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.SOFTMAX.value, parse_softmax, AirSoftmaxOptions, SoftmaxOperator, arity=Arity(1, 1)
    ),
]
