"""Binary elementwise math: DIV, POW, FLOOR_DIV, FLOOR_MOD (broadcasting), ATAN2; and ADD_N.

Each binary operator is one ``hk_math`` call walking the NumPy broadcast of its inputs
(:mod:`helia_aot_ops_builtin.elementwise.walk_geometry`), for float32 and, where LiteRT's reference has it,
int32 (DIV, POW, FLOOR_DIV, FLOOR_MOD). DIV applies its fused activation as the reference does
(float clamp to +-FLT_MAX without one). int32 inputs the reference stops on (a zero divisor, a
negative exponent) make the run function return an error status. ADD_N sums any number of
same-shape inputs in order from a zero accumulator.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.common.quantization import (
    ACTIVATION_RESTRICTION,
    FUSED_ACTIVATIONS,
    activation_range_float,
    quantize_multiplier,
    quantized_clamp,
)
from helia_aot_ops_builtin.elementwise.binary_f16_call import binary_f16_call
from helia_aot_ops_builtin.elementwise.broadcast_geometry import BINARY_MAX_RANK, broadcast_geometry
from helia_aot_ops_builtin.elementwise.walk_geometry import WALK_MAX_RANK, broadcast_shapes, walk_geometry

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.int32): "s32"}
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

SAME_TYPE = "Both inputs and the output must have one element type."
BROADCAST = (
    f"The inputs must broadcast to the output's shape (NumPy rules) in at most {WALK_MAX_RANK} "
    "dimensions once equal-behaving dimensions are merged."
)
F16_BROADCAST = (
    f"float16: the inputs broadcast in at most {BINARY_MAX_RANK} dimensions once equal-behaving "
    "dimensions are merged (the binary_f16 walk)."
)
INT32_ERRORS = (
    "int32: a zero divisor (or, for POW, a negative exponent) makes the run return an error, "
    "where the reference stops with one."
)


@dataclass(slots=True)
class AirDivOptions(AirOperatorOptions):
    """DIV's fused activation."""

    activation: str = "NONE"


def _div_options(raw: litert.DivOptionsT | None) -> AirDivOptions:
    return (
        AirDivOptions()
        if raw is None
        else AirDivOptions(activation=activation_name(raw.fusedActivationFunction))
    )


def int32_activation_range(activation: str) -> tuple[int, int]:
    """LiteRT ``CalculateActivationRange<int32_t>``."""
    return {
        "NONE": (INT32_MIN, INT32_MAX),
        "RELU": (0, INT32_MAX),
        "RELU6": (0, 6),
        "RELU_N1_TO_1": (-1, 1),
    }[activation]


class BinaryMathOperator(KernelCallOperator):
    """Shared contract of the ``hk_math`` binary operators (inputs 0 and 1 -> output 0)."""

    KERNELS = ("math",)
    INPLACE_INPUTS = (0, 1)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.float32, np.int32)
    RESTRICTIONS: tuple[str, ...] = (SAME_TYPE, BROADCAST, INT32_ERRORS)
    FUNCTION = ""

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def activation(self) -> str:
        return "NONE"

    def function_suffix(self) -> str:
        """The kernel name's type suffix: ``hk_<FUNCTION>_<suffix>``."""
        return _SUFFIX[self.target.dtype.numpy]

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 2 or len(self.output_tensors) != 1:
            yield (
                f"expects 2 inputs and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            )
            return
        lhs, rhs = self.input_tensors
        if not lhs.dtype == rhs.dtype == self.target.dtype:
            yield f"the inputs are {lhs.dtype} and {rhs.dtype} but the output is {self.target.dtype}"
            return
        try:
            expected = broadcast_shapes(lhs.shape, rhs.shape)
            walk_geometry(self.target.shape, [lhs.shape, rhs.shape])
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(self.target.shape) != expected:
            yield f"the output shape {tuple(self.target.shape)} is not the broadcast shape {expected}"
        if self.activation() not in FUSED_ACTIVATIONS:
            yield f"fused activation {self.activation()} is not supported"

    def kernel(self) -> KernelCall:
        lhs, rhs = self.input_tensors
        lo, hi = activation_range_float(self.activation())
        ilo, ihi = int32_activation_range(self.activation())
        params = {
            "walk": walk_geometry(self.target.shape, [lhs.shape, rhs.shape]),
            "float_min": lo,
            "float_max": hi,
            "int_min": ilo,
            "int_max": ihi,
        }
        return KernelCall(
            function=f"{self.FUNCTION}_{self.function_suffix()}",
            params_type="math_params_t",
            params=params,
            data_args=[self.ptr(lhs, const=True), self.ptr(rhs, const=True), self.ptr(self.target)],
        )


class DivOperator(BinaryMathOperator):
    """DIV: x / y with a fused activation (int32 truncates toward zero). float16 runs the
    ``binary_f16`` family (each quotient in float, rounded once), whose broadcast walk it shares
    with ADD and MUL."""

    TYPE = "DIV"
    FUNCTION = "div"
    SUPPORTED_DTYPES = (np.float16, np.float32, np.int8, np.int16, np.int32)
    RESTRICTIONS = BinaryMathOperator.RESTRICTIONS + (
        ACTIVATION_RESTRICTION,
        F16_BROADCAST,
        FLOAT16_RESTRICTION,
        "int8 and int16: every tensor quantized per tensor (int16 with zero points 0); LiteRT's "
        "fixed-point division, a divisor equal to its zero point is a run-time error.",
    )

    @property
    def half(self) -> bool:
        return self.target.dtype.numpy == np.dtype(np.float16)

    def activation(self) -> str:
        return self.typed_options(AirDivOptions).activation

    @property
    def quantized(self) -> bool:
        return self.target.dtype.numpy in (np.dtype(np.int8), np.dtype(np.int16))

    def kernel_families(self) -> tuple[str, ...]:
        if self.quantized:
            return ("div_quant",)
        return ("binary_f16",) if self.half else self.KERNELS

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        yield from problems
        if not problems and self.quantized:
            for tensor in (*self.input_tensors, self.target):
                q = tensor.quantization
                if q is None or q.per_channel:
                    yield f"{tensor.source_name or tensor.name!r} must be quantized per tensor"
                    return
                if tensor.dtype.numpy == np.dtype(np.int16) and tensor.zero_point() != 0:
                    yield f"int16 {tensor.source_name or tensor.name!r} needs zero point 0"
        if not problems and self.half:
            try:
                first, second = self.input_tensors  # DIV: two inputs (its record's arity)
                broadcast_geometry(first.shape, second.shape)
            except ValueError as exc:
                yield str(exc)

    def kernel(self) -> KernelCall:
        if self.half:
            lhs, rhs = self.input_tensors
            return binary_f16_call("div", lhs, rhs, self.target, self.activation(), self.ptr)
        if self.quantized:
            return self.quantized_kernel()
        return super().kernel()

    def quantized_kernel(self) -> KernelCall:
        """``hk_div_s8`` / ``hk_div_s16``: LiteRT's Prepare multiplies the float scales in float,
        input1 / (input2 * output), then quantizes that multiplier."""
        lhs, rhs = self.input_tensors
        scale = np.float32(lhs.scale()) / (np.float32(rhs.scale()) * np.float32(self.target.scale()))
        multiplier, shift = quantize_multiplier(float(np.float32(scale)))
        lo, hi = quantized_clamp(self.activation(), self.target)
        params = {
            "walk": walk_geometry(self.target.shape, [lhs.shape, rhs.shape]),
            "input1_offset": -lhs.zero_point(),
            "input2_offset": -rhs.zero_point(),
            "output_offset": self.target.zero_point(),
            "output_multiplier": multiplier,
            "output_shift": shift,
            "act_min": lo,
            "act_max": hi,
        }
        suffix = "s8" if self.target.dtype.numpy == np.dtype(np.int8) else "s16"
        return KernelCall(
            function=f"div_{suffix}",
            params_type="div_quant_params_t",
            params=params,
            data_args=[self.ptr(lhs, const=True), self.ptr(rhs, const=True), self.ptr(self.target)],
        )


class PowOperator(BinaryMathOperator):
    """POW: x^y (int32 through double, as LiteRT's std::pow)."""

    TYPE = "POW"
    FUNCTION = "pow"


_NARROW_SUFFIX = {np.dtype(np.int8): "s8", np.dtype(np.int16): "s16", np.dtype(np.int64): "s64"}
"""The integer types whose kernels live in ``hk_math_narrow`` (stored integers, no rescale)."""
NARROW_NOTE = (
    "int8, int16 (and for FLOOR_MOD int64) compute on the stored integers as LiteRT does, "
    "ignoring quantization parameters; a zero divisor is a run-time error."
)


class _NarrowIntegerMath(BinaryMathOperator):
    """FLOOR_DIV and FLOOR_MOD: int8/int16/int64 run ``hk_math_narrow``, the rest ``hk_math``."""

    RESTRICTIONS = BinaryMathOperator.RESTRICTIONS + (NARROW_NOTE,)

    @property
    def narrow(self) -> bool:
        return self.target.dtype.numpy in _NARROW_SUFFIX

    def kernel_families(self) -> tuple[str, ...]:
        return ("math_narrow",) if self.narrow else self.KERNELS

    def function_suffix(self) -> str:
        return _NARROW_SUFFIX[self.target.dtype.numpy] if self.narrow else super().function_suffix()

    def kernel(self) -> KernelCall:
        if not self.narrow:
            return super().kernel()
        lhs, rhs = self.input_tensors
        return KernelCall(
            function=f"{self.FUNCTION}_{self.function_suffix()}",
            params_type="math_narrow_params_t",
            params={"walk": walk_geometry(self.target.shape, [lhs.shape, rhs.shape])},
            data_args=[self.ptr(lhs, const=True), self.ptr(rhs, const=True), self.ptr(self.target)],
        )


class FloorDivOperator(_NarrowIntegerMath):
    """FLOOR_DIV: floor(x / y), the quotient taken in double as LiteRT does."""

    TYPE = "FLOOR_DIV"
    FUNCTION = "floor_div"
    SUPPORTED_DTYPES = (np.float32, np.int8, np.int16, np.int32)


class FloorModOperator(_NarrowIntegerMath):
    """FLOOR_MOD: the remainder with the divisor's sign."""

    TYPE = "FLOOR_MOD"
    FUNCTION = "floor_mod"
    SUPPORTED_DTYPES = (np.float32, np.int8, np.int16, np.int32, np.int64)


class Atan2Operator(BinaryMathOperator):
    """ATAN2: atan2(y = input 0, x = input 1), float32 only (as LiteRT's reference)."""

    TYPE = "ATAN2"
    FUNCTION = "atan2"
    SUPPORTED_DTYPES = (np.float32,)
    RESTRICTIONS = (
        SAME_TYPE,
        "Both inputs and the output must have one shape (LiteRT's ATAN2 does not broadcast).",
    )

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        if problems:
            yield from problems
            return
        lhs, rhs = self.input_tensors
        if tuple(lhs.shape) != tuple(rhs.shape):
            shapes = f"{tuple(lhs.shape)} and {tuple(rhs.shape)}"
            yield f"the input shapes {shapes} differ; ATAN2 does not broadcast"


class AddNOperator(KernelCallOperator):
    """ADD_N: the elementwise sum of two or more same-shape inputs."""

    TYPE = "ADD_N"
    KERNELS = ("math",)
    INPLACE_INPUTS = (0,)
    SUPPORTED_DTYPES = (np.float32, np.int32)
    RESTRICTIONS = (
        "Every input and the output must have one element type and one shape (LiteRT's ADD_N "
        "does not broadcast).",
    )

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) < 1 or len(self.output_tensors) != 1:
            yield "expects at least 1 input and 1 output"
            return
        target = self.output_tensors[0]
        for tensor in self.input_tensors:
            if tensor.dtype != target.dtype:
                name = tensor.source_name or tensor.name
                yield f"input {name!r} is {tensor.dtype}, the output {target.dtype}"
            elif tuple(tensor.shape) != tuple(target.shape):
                yield (
                    f"input {tensor.source_name or tensor.name!r} has shape {tuple(tensor.shape)}, "
                    f"the output {tuple(target.shape)}"
                )

    def kernel(self) -> KernelCall:
        target = self.output_tensors[0]
        ctype = target.ctype
        pointers = ", ".join(self.ptr(t, const=True) for t in self.input_tensors)
        return KernelCall(
            function=f"add_n_{_SUFFIX[target.dtype.numpy]}",
            data_args=[
                f"(const {ctype} *const[]){{{pointers}}}",
                str(len(self.input_tensors)),
                self.ptr(target),
                str(math.prod(target.shape)),
            ],
        )


REGISTRATIONS = [
    OperatorRecord("DIV", simple_parser("DIV", _div_options), AirDivOptions, DivOperator, arity=Arity(2, 2)),
    OperatorRecord("POW", simple_parser("POW"), None, PowOperator, arity=Arity(2, 2)),
    OperatorRecord("FLOOR_DIV", simple_parser("FLOOR_DIV"), None, FloorDivOperator, arity=Arity(2, 2)),
    OperatorRecord("FLOOR_MOD", simple_parser("FLOOR_MOD"), None, FloorModOperator, arity=Arity(2, 2)),
    OperatorRecord("ATAN2", simple_parser("ATAN2"), None, Atan2Operator, arity=Arity(2, 2)),
    OperatorRecord("ADD_N", simple_parser("ADD_N"), None, AddNOperator, arity=Arity(1, None)),
]
