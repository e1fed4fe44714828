"""Elementwise binary operators: ADD, SUB, MUL, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM.

Each is one ``hk_binary`` call over the NumPy broadcast of its two inputs, folded into at most
five loops by :mod:`helia_aot_ops_builtin.elementwise.broadcast_geometry`. Quantized operators get the
multipliers LiteRT's Prepare computes (:mod:`helia_aot_ops_builtin.common.rescale`): int8 ADD/SUB
rescale both inputs after a left shift of 20, int16 ADD/SUB either do the same with 15 or, with
``pot_scale_int16`` and power-of-two scales, shift one input onto the other; MUL rescales the
product; MAXIMUM and MINIMUM compare stored values, as LiteRT does. The kernels read an
element's inputs before writing it, so the output may reuse a same-shape input's storage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.common.quantization import (
    ACTIVATION_RESTRICTION,
    FUSED_ACTIVATIONS,
    activation_range,
    activation_range_float,
    quantization_problems,
)
from helia_aot_ops_builtin.common.rescale import (
    BinaryRescale,
    add_sub_rescale,
    mul_rescale,
    squared_difference_rescale,
)
from helia_aot_ops_builtin.elementwise.binary_f16_call import geometry_params
from helia_aot_ops_builtin.elementwise.binary_math import int32_activation_range
from helia_aot_ops_builtin.elementwise.broadcast_geometry import (
    BINARY_MAX_RANK,
    broadcast_geometry,
    broadcast_shape,
)
from helia_aot_ops_builtin.elementwise.walk_geometry import walk_geometry

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_SUFFIX = {
    np.dtype(np.int8): "s8",
    np.dtype(np.int16): "s16",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
}

SAME_TYPE = "Both inputs and the output must have one element type."
BROADCAST = (
    f"The inputs must broadcast to the output's shape (NumPy rules) in at most "
    f"{BINARY_MAX_RANK} dimensions once equal-behaving dimensions are merged."
)
PER_TENSOR = (
    "Quantized tensors must be quantized per tensor with a positive scale; int16 "
    "ones with zero point 0 (as LiteRT requires)."
)
RESCALE_BELOW_ONE = (
    "Quantized: LiteRT's input and output rescale factors must stay below one, "
    "i.e. the output scale may not be tiny next to the input scales."
)
POT_SAME_SHAPE = (
    "int16 with pot_scale_int16 and power-of-two scales: the inputs must have one "
    "shape, and one of them the output's scale."
)


@dataclass(slots=True)
class AirAddOptions(AirOperatorOptions):
    """ADD's fused activation, and whether int16 may take LiteRT's power-of-two-scale path."""

    activation: str = "NONE"
    pot_scale_int16: bool = True


@dataclass(slots=True)
class AirSubOptions(AirOperatorOptions):
    """SUB's fused activation, and whether int16 may take LiteRT's power-of-two-scale path."""

    activation: str = "NONE"
    pot_scale_int16: bool = True


@dataclass(slots=True)
class AirMulOptions(AirOperatorOptions):
    """MUL's fused activation."""

    activation: str = "NONE"


def _pot_flag(raw: litert.AddOptionsT | litert.SubOptionsT) -> bool:
    # The schema's default is true: options that never wrote the field take the POT path.
    value = raw.potScaleInt16 if raw is not None else True
    return True if value is None else bool(value)


# A node without options gets LiteRT's zero-initialized params: no activation, and
# pot_scale_int16 false (the general int16 path).
def _add_options(raw: litert.AddOptionsT | None) -> AirAddOptions:
    if raw is None:
        return AirAddOptions(pot_scale_int16=False)
    return AirAddOptions(
        activation=activation_name(raw.fusedActivationFunction), pot_scale_int16=_pot_flag(raw)
    )


def _sub_options(raw: litert.SubOptionsT | None) -> AirSubOptions:
    if raw is None:
        return AirSubOptions(pot_scale_int16=False)
    return AirSubOptions(
        activation=activation_name(raw.fusedActivationFunction), pot_scale_int16=_pot_flag(raw)
    )


def _mul_options(raw: litert.MulOptionsT | None) -> AirMulOptions:
    if raw is None:
        return AirMulOptions()
    return AirMulOptions(activation=activation_name(raw.fusedActivationFunction))


parse_add = simple_parser(AirOpType.ADD.value, _add_options)
parse_sub = simple_parser(AirOpType.SUB.value, _sub_options)
parse_mul = simple_parser(AirOpType.MUL.value, _mul_options)
parse_squared_difference = simple_parser(AirOpType.SQUARED_DIFFERENCE.value)
parse_maximum = simple_parser(AirOpType.MAXIMUM.value)
parse_minimum = simple_parser(AirOpType.MINIMUM.value)


class BinaryOperator(KernelCallOperator):
    """Shared contract of the ``hk_binary`` operators (inputs 0 and 1 -> output 0)."""

    KERNELS = ("binary",)
    INPLACE_INPUTS = (0, 1)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS: tuple[str, ...] = (
        SAME_TYPE,
        BROADCAST,
        PER_TENSOR,
        "int64 operands take no fused activation (int32 ones wrap, then clamp).",
    )
    FUNCTION = ""
    """Kernel name stem: ``hk_<FUNCTION>_<s8|s16|f32>``."""
    RESCALES = True
    """Whether quantized inputs are rescaled (MAXIMUM/MINIMUM compare raw values)."""

    @property
    def lhs(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def rhs(self) -> AirTensor:
        return self.input_tensors[1]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    @property
    def quantized(self) -> bool:
        return self.target.dtype.numpy in (np.dtype(np.int8), np.dtype(np.int16))

    @property
    def int32(self) -> bool:
        """int32/int64 ADD, SUB, MUL, MAXIMUM and MINIMUM (shape arithmetic) run in the ``hk_math``
        family, whose broadcast walk already serves the other int32 binary operators."""
        return bool(self.input_tensors) and self.target.dtype.numpy in (
            np.dtype(np.int32),
            np.dtype(np.int64),
        )

    @property
    def half(self) -> bool:
        """float16 operands: the ``binary_f16`` family (``_Float16``, Helium f16 on the M55)."""
        return self.target.dtype.numpy == np.dtype(np.float16)

    def kernel_families(self) -> tuple[str, ...]:
        if self.int32:
            return ("math",)
        return ("binary_f16",) if self.half else self.KERNELS

    def activation(self) -> str:
        """The fused activation (NONE for operators without one)."""
        return "NONE"

    def rescale(self) -> BinaryRescale:
        """LiteRT's Prepare constants; ValueError where LiteRT's Prepare refuses."""
        raise NotImplementedError

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 2 or len(self.output_tensors) != 1:
            yield (
                f"expects 2 inputs and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            )
            return
        lhs, rhs, target = self.lhs, self.rhs, self.target
        if not lhs.dtype == rhs.dtype == target.dtype:
            yield f"the inputs are {lhs.dtype} and {rhs.dtype} but the output is {target.dtype}"
            return
        try:
            expected = broadcast_shape(lhs.shape, rhs.shape)
            broadcast_geometry(lhs.shape, rhs.shape)
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(target.shape) != expected:
            yield f"the output shape {tuple(target.shape)} is not the broadcast shape {expected}"
        if self.activation() not in FUSED_ACTIVATIONS:
            yield f"fused activation {self.activation()} is not supported"
        if target.dtype.numpy == np.dtype(np.int64) and self.activation() != "NONE":
            yield f"int64 with fused activation {self.activation()} is not supported (only NONE)"
        if self.quantized and self.RESCALES:
            problems = quantization_problems((lhs, rhs, target))
            if problems:
                yield from problems
                return
            try:
                r = self.rescale()
            except ValueError as exc:
                yield str(exc)
                return
            if r.pot_scale and lhs.shape != rhs.shape:
                yield (
                    "int16 power-of-two-scale ADD/SUB needs inputs of one shape (LiteRT's "
                    "kernel does not broadcast)"
                )

    def kernel(self) -> KernelCall:
        if self.int32:
            return self._int32_kernel()
        params: dict[str, Any] = {"geometry": geometry_params(self.lhs, self.rhs)}
        if not self.quantized:
            # Without an activation the clamp is +-FLT_MAX, which (as in LiteRT) also caps infinities.
            lo, hi = activation_range_float(self.activation())
            params.update(float_min=lo, float_max=hi)
        elif self.RESCALES:
            r = self.rescale()
            lo, hi = activation_range(
                self.activation(), self.target.dtype.numpy, self.target.scale(), self.target.zero_point()
            )
            quant = {name: getattr(r, name) for name in BinaryRescale.__slots__ if name != "pot_scale"}
            params["quant"] = quant | {"activation_min": lo, "activation_max": hi, "pot_scale": r.pot_scale}
        suffix = _SUFFIX[self.target.dtype.numpy]
        return KernelCall(
            function=f"{self.FUNCTION}_{suffix}",
            params_type="binary_f16_params_t" if self.half else "binary_params_t",
            params=params,
            data_args=[self.ptr(self.lhs, const=True), self.ptr(self.rhs, const=True), self.ptr(self.target)],
        )

    def _int32_kernel(self) -> KernelCall:
        lo, hi = int32_activation_range(self.activation())
        params = {
            "walk": walk_geometry(self.target.shape, [self.lhs.shape, self.rhs.shape]),
            "float_min": activation_range_float("NONE")[0],
            "float_max": activation_range_float("NONE")[1],
            "int_min": lo,
            "int_max": hi,
        }
        return KernelCall(
            function=f"{self.FUNCTION}_{'s64' if self.target.dtype.numpy == np.dtype(np.int64) else 's32'}",
            params_type="math_params_t",
            params=params,
            data_args=[self.ptr(self.lhs, const=True), self.ptr(self.rhs, const=True), self.ptr(self.target)],
        )

    # -- shared rescale inputs -----------------------------------------------------------------
    def _quant_args(self) -> tuple[float, int, float, int, float, int]:
        return (
            self.lhs.scale(),
            self.lhs.zero_point(),
            self.rhs.scale(),
            self.rhs.zero_point(),
            self.target.scale(),
            self.target.zero_point(),
        )


class _AddSubOperator(BinaryOperator):
    OPTIONS: type = AirAddOptions

    def activation(self) -> str:
        return self.typed_options(self.OPTIONS).activation

    def rescale(self) -> BinaryRescale:
        int16 = self.target.dtype.numpy == np.dtype(np.int16)
        return add_sub_rescale(
            self.TYPE,
            int16,
            *self._quant_args(),
            pot_scale_int16=self.typed_options(self.OPTIONS).pot_scale_int16,
        )


class AddOperator(_AddSubOperator):
    """ADD with a fused activation."""

    TYPE = AirOpType.ADD.value
    FUNCTION = "add"
    OPTIONS = AirAddOptions
    RESTRICTIONS = BinaryOperator.RESTRICTIONS + (
        ACTIVATION_RESTRICTION,
        RESCALE_BELOW_ONE,
        POT_SAME_SHAPE,
        FLOAT16_RESTRICTION,
    )


class SubOperator(_AddSubOperator):
    """SUB with a fused activation."""

    TYPE = AirOpType.SUB.value
    FUNCTION = "sub"
    OPTIONS = AirSubOptions
    RESTRICTIONS = BinaryOperator.RESTRICTIONS + (
        ACTIVATION_RESTRICTION,
        RESCALE_BELOW_ONE,
        POT_SAME_SHAPE,
        FLOAT16_RESTRICTION,
    )


class MulOperator(BinaryOperator):
    """MUL with a fused activation (int16: zero points 0)."""

    TYPE = AirOpType.MUL.value
    FUNCTION = "mul"
    RESTRICTIONS = BinaryOperator.RESTRICTIONS + (ACTIVATION_RESTRICTION, FLOAT16_RESTRICTION)

    def activation(self) -> str:
        return self.typed_options(AirMulOptions).activation

    def rescale(self) -> BinaryRescale:
        return mul_rescale(*self._quant_args())


class SquaredDifferenceOperator(BinaryOperator):
    """SQUARED_DIFFERENCE: (a - b)^2 (LiteRT has no int16 version)."""

    TYPE = AirOpType.SQUARED_DIFFERENCE.value
    FUNCTION = "squared_difference"
    SUPPORTED_DTYPES = (np.int8, np.int32, np.float16, np.float32)
    RESTRICTIONS = BinaryOperator.RESTRICTIONS + (
        RESCALE_BELOW_ONE,
        FLOAT16_RESTRICTION,
        "int32 squares the wrapped difference, as LiteRT (hk_math_narrow); int64 is not supported.",
    )

    def kernel_families(self) -> tuple[str, ...]:
        # int32 (hk_squared_difference_s32) lives with the other integer forms LiteRT runs.
        return ("math_narrow",) if self.int32 else super().kernel_families()

    def kernel(self) -> KernelCall:
        if not self.int32:
            return super().kernel()
        return KernelCall(
            function="squared_difference_s32",
            params_type="math_narrow_params_t",
            params={"walk": walk_geometry(self.target.shape, [self.lhs.shape, self.rhs.shape])},
            data_args=[self.ptr(self.lhs, const=True), self.ptr(self.rhs, const=True), self.ptr(self.target)],
        )

    def rescale(self) -> BinaryRescale:
        return squared_difference_rescale(*self._quant_args())


class MaximumOperator(BinaryOperator):
    """MAXIMUM of the stored values."""

    TYPE = AirOpType.MAXIMUM.value
    FUNCTION = "maximum"
    RESCALES = False
    RESTRICTIONS = (SAME_TYPE, BROADCAST, FLOAT16_RESTRICTION)


class MinimumOperator(BinaryOperator):
    """MINIMUM of the stored values."""

    TYPE = AirOpType.MINIMUM.value
    FUNCTION = "minimum"
    RESCALES = False
    RESTRICTIONS = (SAME_TYPE, BROADCAST, FLOAT16_RESTRICTION)


REGISTRATIONS = [
    OperatorRecord(AirOpType.ADD.value, parse_add, AirAddOptions, AddOperator, arity=Arity(2, 2)),
    OperatorRecord(AirOpType.SUB.value, parse_sub, AirSubOptions, SubOperator, arity=Arity(2, 2)),
    OperatorRecord(AirOpType.MUL.value, parse_mul, AirMulOptions, MulOperator, arity=Arity(2, 2)),
    OperatorRecord(
        AirOpType.SQUARED_DIFFERENCE.value,
        parse_squared_difference,
        None,
        SquaredDifferenceOperator,
        arity=Arity(2, 2),
    ),
    OperatorRecord(AirOpType.MAXIMUM.value, parse_maximum, None, MaximumOperator, arity=Arity(2, 2)),
    OperatorRecord(AirOpType.MINIMUM.value, parse_minimum, None, MinimumOperator, arity=Arity(2, 2)),
]
