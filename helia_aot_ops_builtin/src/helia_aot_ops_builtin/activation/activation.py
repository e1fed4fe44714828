"""Elementwise activations: RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH, PRELU, LOGISTIC, TANH.

Each is one call into its kernel family: ``hk_relu`` (RELU, RELU6, RELU_N1_TO_1),
``hk_leaky_relu``, ``hk_hard_swish``, ``hk_prelu`` and ``hk_sigmoid`` (LOGISTIC and TANH, which
share the sigmoid table), one family per operator so that a module carries only the activation
code its operators call (a ReLU-only model's module has no tanh or logistic source). The quantized
parameters are LiteRT's Prepare values, computed by
:mod:`helia_aot_ops_builtin.activation.activation_quantization`; int8 LOGISTIC and TANH are a 256-entry table
(the kReference path), interned as an operator constant. Every kernel reads an element before
writing it, so the output may take over the input's storage (``INPLACE_INPUTS``).
The checks mirror what LiteRT's Prepare accepts, so a model the reference rejects is rejected here
with a sentence instead of producing numbers the reference never would.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.codegen import c_float
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.activation import activation_quantization as aq
from helia_aot_ops_builtin.common.c_struct import struct_init
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

RELU_N1_TO_1 = "RELU_N1_TO_1"
RELU_0_TO_1 = "RELU_0_TO_1"
SAME_TYPE = "The input and output must have one element type and one shape."
PER_TENSOR = "Quantized tensors must be quantized per tensor."
SYMMETRIC_INT16 = "int16 tensors must have zero points of 0 (as LiteRT requires)."


@dataclass(slots=True)
class AirLeakyReluOptions(AirOperatorOptions):
    """LEAKY_RELU's slope for negative inputs (may exceed one or be negative)."""

    alpha: float = 0.2


def _leaky_relu_options(raw: litert.LeakyReluOptionsT | None) -> AirLeakyReluOptions:
    return AirLeakyReluOptions(alpha=float(np.float32((raw.alpha if raw is not None else 0.0) or 0.0)))


def quant(tensor: AirTensor) -> tuple[float, int]:
    return tensor.scale(), tensor.zero_point()


class ActivationOperator(KernelCallOperator):
    """Shared contract of the one-call activation operators (input 0 -> output 0).

    Each subclass names its own kernel family (``KERNELS``).
    """

    PARAMS_COMMENT = "{op_type} parameters as LiteRT's Prepare computes them"
    INPLACE_INPUTS = (0,)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.int16, np.float32)
    F16_KERNEL: str | None = None
    """The ``activation_f16`` kernel (without ``hk_``) of a type that runs float16, or None."""
    RESTRICTIONS: tuple[str, ...] = (SAME_TYPE, PER_TENSOR)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    @property
    def dtype(self) -> type:
        return self.source.dtype.numpy.type

    def check(self) -> Iterable[str]:
        src, dst = self.source, self.target
        if src.dtype != dst.dtype:
            yield f"the input is {src.dtype} but the output is {dst.dtype}"
            return
        if src.size != dst.size:
            yield f"the input has {src.size} elements but the output {dst.size}"
        if self.dtype is np.float16:
            yield from self.type_problems()
            return
        if self.dtype is not np.float32:
            for tensor in (src, dst):
                if tensor.quantization is None or tensor.quantization.per_channel:
                    yield f"{tensor.source_name or tensor.name!r} is not quantized per tensor"
                    return
            if self.dtype is np.int16 and (src.zero_point() != 0 or dst.zero_point() != 0):
                yield "int16 input and output need zero points of 0"
        problems = list(self.type_problems())
        yield from problems
        if not problems:
            # The kernel parameters are computed here once so that scales or options no fixed-point
            # kernel can represent (an alpha of 3.4e38) are reported now, naming this operator.
            try:
                self.kernel_parts()
            except (ValueError, ArithmeticError) as exc:
                yield str(exc)

    def type_problems(self) -> Iterable[str]:
        """Limits of one operator type, checked after the shared ones."""
        return ()

    # -- the kernel call -----------------------------------------------------------------------
    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        """(function without ``hk_``, params struct type without ``hk_``, params initializer)."""
        raise NotImplementedError

    def extra_args(self) -> list[str]:
        """Data pointers passed between the params and the input (tables, alpha)."""
        return []

    def data_args(self) -> list[str]:
        """The input, the output and the element count (PRELU passes its alpha instead)."""
        return [self.ptr(self.source, const=True), self.ptr(self.target), f"{self.target.size}u"]

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs the ``activation_f16`` family (``_Float16``, Helium f16 on the M55).
        return ("activation_f16",) if self.dtype is np.float16 else self.KERNELS

    def f16_kernel(self) -> tuple[str, str | None, str | None]:
        """The float16 call: ``F16_KERNEL`` without parameters (RELU overrides it)."""
        assert self.F16_KERNEL is not None
        return self.F16_KERNEL, None, None

    def parts(self) -> tuple[str, str | None, str | None]:
        """The kernel call this instance's element type takes."""
        return self.f16_kernel() if self.dtype is np.float16 else self.kernel_parts()

    def kernel_function(self) -> str:
        return self.parts()[0]

    def kernel(self) -> KernelCall:
        function, params_type, params_init = self.parts()
        return KernelCall(
            function,
            self.data_args(),
            params_type,
            params_init,
            leading_args=self.extra_args(),
            includes=("math.h",) if params_init is not None and "INFINITY" in params_init else (),
        )


class ReluOperator(ActivationOperator):
    """RELU: requantizing clamp to [0, inf)."""

    TYPE = AirOpType.RELU.value
    KERNELS = ("relu",)
    ACTIVATION = "RELU"
    BOUNDS = (0.0, float("inf"))
    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = (SAME_TYPE, PER_TENSOR, SYMMETRIC_INT16, FLOAT16_RESTRICTION)

    def f16_kernel(self) -> tuple[str, str | None, str | None]:
        lo, hi = self.BOUNDS
        literal = [c_float(lo), "INFINITY" if hi == float("inf") else c_float(hi)]
        return "relu_f16", "relu_f16_params_t", struct_init(*literal)

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        if self.dtype is np.float32:
            lo, hi = self.BOUNDS
            literal = [c_float(lo), "INFINITY" if hi == float("inf") else c_float(hi)]
            return "relu_f32", "relu_f32_params_t", struct_init(*literal)
        p = aq.relu_params(self.ACTIVATION, np.dtype(self.dtype), *quant(self.source), *quant(self.target))
        return (
            f"relu_{'s8' if self.dtype is np.int8 else 's16'}",
            "relu_params_t",
            struct_init(
                p.input_zero_point,
                p.output_zero_point,
                p.output_multiplier,
                p.output_shift,
                p.activation_min,
                p.activation_max,
            ),
        )


class Relu6Operator(ReluOperator):
    """RELU6: requantizing clamp to [0, 6]."""

    TYPE = AirOpType.RELU6.value
    ACTIVATION = "RELU6"
    BOUNDS = (0.0, 6.0)


class ReluN1To1Operator(ReluOperator):
    """RELU_N1_TO_1: requantizing clamp to [-1, 1] (LiteRT has no int16 version)."""

    TYPE = RELU_N1_TO_1
    ACTIVATION = RELU_N1_TO_1
    BOUNDS = (-1.0, 1.0)
    SUPPORTED_DTYPES = (np.int8, np.float16, np.float32)


class Relu0To1Operator(ReluOperator):
    """RELU_0_TO_1: requantizing clamp to [0, 1] (LiteRT has no int16 version)."""

    TYPE = RELU_0_TO_1
    ACTIVATION = RELU_0_TO_1
    BOUNDS = (0.0, 1.0)
    SUPPORTED_DTYPES = (np.int8, np.float32)


class LeakyReluOperator(ActivationOperator):
    """LEAKY_RELU: x for x >= 0, alpha * x below, each branch requantized on its own."""

    TYPE = AirOpType.LEAKY_RELU.value
    KERNELS = ("leaky_relu",)
    RESTRICTIONS = (SAME_TYPE, PER_TENSOR, SYMMETRIC_INT16)

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        alpha = self.typed_options(AirLeakyReluOptions).alpha
        if self.dtype is np.float32:
            return "leaky_relu_f32", "leaky_relu_f32_params_t", struct_init(c_float(alpha))
        p = aq.leaky_relu_params(alpha, *quant(self.source), *quant(self.target))
        return (
            f"leaky_relu_{'s8' if self.dtype is np.int8 else 's16'}",
            "leaky_relu_params_t",
            struct_init(
                p.input_zero_point,
                p.output_zero_point,
                p.identity_multiplier,
                p.identity_shift,
                p.alpha_multiplier,
                p.alpha_shift,
            ),
        )


class HardSwishOperator(ActivationOperator):
    """HARD_SWISH: x * relu6(x + 3) / 6, in LiteRT's 16-bit fixed point for int8."""

    TYPE = AirOpType.HARD_SWISH.value
    KERNELS = ("hard_swish",)
    SUPPORTED_DTYPES = (np.int8, np.float16, np.float32)
    F16_KERNEL = "hard_swish_f16"
    RESTRICTIONS = (
        SAME_TYPE,
        PER_TENSOR,
        "int8: the output scale must be at least input scale / 128 (LiteRT's Prepare refuses smaller ones).",
        FLOAT16_RESTRICTION,
    )

    def _params(self) -> aq.HardSwishParams:
        return aq.hard_swish_params(*quant(self.source), *quant(self.target))

    def type_problems(self) -> Iterable[str]:
        if self.dtype is np.int8 and self._params().output_exponent > 0:
            yield (
                "the output scale is too small for the input scale (LiteRT needs "
                "input_scale / 128 / output_scale < 1)"
            )

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        if self.dtype is np.float32:
            return "hard_swish_f32", None, None
        p = self._params()
        return (
            "hard_swish_s8",
            "hard_swish_params_t",
            struct_init(
                p.input_zero_point,
                p.output_zero_point,
                p.reluish_multiplier,
                p.reluish_exponent,
                p.output_multiplier,
                p.output_exponent,
            ),
        )


class _SigmoidFamilyOperator(ActivationOperator):
    """LOGISTIC and TANH: a LiteRT table for int8, interpolated sigmoid table for int16."""

    KERNELS = ("sigmoid",)
    NAME = ""
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float16, np.float32)

    def f16_kernel(self) -> tuple[str, str | None, str | None]:
        return f"{self.NAME.lower()}_f16", None, None

    def type_problems(self) -> Iterable[str]:
        if self.dtype is np.int16 and not aq.is_q15_scale(self.target.scale()):
            yield "the int16 output scale must be 2^-15"

    def on_resolve(self) -> None:
        if self.dtype is np.int8:
            build = aq.logistic_lut_int8 if self.NAME == "LOGISTIC" else aq.tanh_lut_int8
            self.intern_constant_array("lut", build(*quant(self.source), *quant(self.target)))

    def extra_args(self) -> list[str]:
        if self.dtype is np.int8:
            return [self.ptr(self.get_local_tensor("lut"), const=True)]
        return []

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        name = self.NAME.lower()
        if self.dtype is np.float32:
            return f"{name}_f32", None, None
        if self.dtype is np.int8:
            return "lut_s8", None, None
        p = aq.sigmoid_s16_params(self.NAME, self.source.scale())
        return f"{name}_s16", "sigmoid_s16_params_t", struct_init(p.input_multiplier, p.input_left_shift)


class LogisticOperator(_SigmoidFamilyOperator):
    """LOGISTIC (sigmoid)."""

    TYPE = AirOpType.LOGISTIC.value
    NAME = "LOGISTIC"
    RESTRICTIONS = (
        SAME_TYPE,
        PER_TENSOR,
        SYMMETRIC_INT16,
        "int8: the output scale must be 1/256; int16: 1/32768 (as LiteRT requires).",
        FLOAT16_RESTRICTION,
    )

    def type_problems(self) -> Iterable[str]:
        if self.dtype is np.int8 and self.target.scale() != 1.0 / 256:
            yield "the int8 output scale must be exactly 1/256"
        elif self.dtype is np.int16 and self.target.scale() != 1.0 / 32768:
            yield "the int16 output scale must be exactly 1/32768"


class TanhOperator(_SigmoidFamilyOperator):
    """TANH."""

    TYPE = AirOpType.TANH.value
    NAME = "TANH"
    RESTRICTIONS = (
        SAME_TYPE,
        PER_TENSOR,
        SYMMETRIC_INT16,
        "int16: the output scale must be 2^-15.",
        FLOAT16_RESTRICTION,
    )


class PreluOperator(ActivationOperator):
    """PRELU: x for x >= 0, alpha * x below, alpha broadcast to the input's shape."""

    TYPE = AirOpType.PRELU.value
    KERNELS = ("prelu",)
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_TYPE,
        PER_TENSOR,
        "alpha must have the input's element type and broadcast to the input's shape; at most 6 dimensions.",
        "int16 input: alpha must be int8 (LiteRT's 16x8 PRELU; it reads an int16 alpha as bytes), "
        "input and output zero points 0.",
        FLOAT16_RESTRICTION,
    )

    @property
    def alpha(self) -> AirTensor:
        return self.input_tensors[1]

    def type_problems(self) -> Iterable[str]:
        if len(self.input_tensors) != 2:
            yield "PRELU needs an input and an alpha"
            return
        src, alpha = self.source, self.alpha
        expected = np.int8 if self.dtype is np.int16 else self.dtype
        if alpha.dtype.numpy.type is not expected:
            yield f"alpha is {alpha.dtype} but a {src.dtype} input needs {np.dtype(expected).name} alpha"
        elif self.dtype in (np.int8, np.int16) and (
            alpha.quantization is None or alpha.quantization.per_channel
        ):
            yield "alpha is not quantized per tensor"
        if tuple(src.shape) != tuple(self.target.shape):
            yield f"the output shape {self.target.shape} differs from the input shape {src.shape}"
        if not 1 <= len(src.shape) <= 6:
            yield f"the input has {len(src.shape)} dimensions (1 to 6 are supported)"
            return
        try:
            aq.prelu_alpha_strides(tuple(src.shape), tuple(alpha.shape))
        except ValueError as exc:
            yield str(exc)

    def _shape_init(self) -> tuple[int, list[int], list[int]]:
        shape = tuple(self.source.shape)
        pad = [0] * (6 - len(shape))
        strides = aq.prelu_alpha_strides(shape, tuple(self.alpha.shape))
        return (len(shape), list(shape) + pad, strides + pad)

    def data_args(self) -> list[str]:
        # hk_prelu_* take (params, input, alpha, output): no element count.
        return [self.ptr(self.source, const=True), self.ptr(self.alpha, const=True), self.ptr(self.target)]

    def f16_kernel(self) -> tuple[str, str | None, str | None]:
        # The float16 family declares its own shape struct (same fields as hk_prelu_shape_t), so a
        # float16 module carries no hk_prelu source.
        return "prelu_f16", "prelu_f16_shape_t", struct_init(*self._shape_init())

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        shape = self._shape_init()
        if self.dtype is np.float32:
            return "prelu_f32", "prelu_shape_t", struct_init(*shape)
        p = aq.prelu_quant_params(*quant(self.source), *quant(self.alpha), *quant(self.target))
        return (
            "prelu_s8" if self.dtype is np.int8 else "prelu_s16",
            "prelu_params_t",
            struct_init(
                shape,
                p.input_zero_point,
                p.alpha_zero_point,
                p.output_zero_point,
                p.identity_multiplier,
                p.identity_shift,
                p.alpha_multiplier,
                p.alpha_shift,
            ),
        )


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.RELU.value, simple_parser(AirOpType.RELU.value), None, ReluOperator, arity=Arity(1, 1)
    ),
    OperatorRecord(
        AirOpType.RELU6.value, simple_parser(AirOpType.RELU6.value), None, Relu6Operator, arity=Arity(1, 1)
    ),
    OperatorRecord(RELU_N1_TO_1, simple_parser(RELU_N1_TO_1), None, ReluN1To1Operator, arity=Arity(1, 1)),
    OperatorRecord(RELU_0_TO_1, simple_parser(RELU_0_TO_1), None, Relu0To1Operator, arity=Arity(1, 1)),
    OperatorRecord(
        AirOpType.LEAKY_RELU.value,
        simple_parser(AirOpType.LEAKY_RELU.value, _leaky_relu_options),
        AirLeakyReluOptions,
        LeakyReluOperator,
        arity=Arity(1, 1),
    ),
    OperatorRecord(
        AirOpType.HARD_SWISH.value,
        simple_parser(AirOpType.HARD_SWISH.value),
        None,
        HardSwishOperator,
        arity=Arity(1, 1),
    ),
    OperatorRecord(
        AirOpType.PRELU.value, simple_parser(AirOpType.PRELU.value), None, PreluOperator, arity=Arity(2, 2)
    ),
    OperatorRecord(
        AirOpType.LOGISTIC.value,
        simple_parser(AirOpType.LOGISTIC.value),
        None,
        LogisticOperator,
        arity=Arity(1, 1),
    ),
    OperatorRecord(
        AirOpType.TANH.value, simple_parser(AirOpType.TANH.value), None, TanhOperator, arity=Arity(1, 1)
    ),
]
