"""Unary elementwise math: ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG, FLOOR, CEIL, ROUND, SIGN, SIN,
COS, and LOGICAL_NOT.

Each is one ``hk_unary`` call over the flat tensor. float32 kernels call the C library function
the LiteRT reference calls; int32 ABS, NEG and SIGN follow its integer expressions; the int8
paths LiteRT has (ABS, SQRT, RSQRT, EXP, LOG) become a 256-entry table the converter fills with
the reference's arithmetic (:mod:`helia_aot_ops_builtin.elementwise.elementwise_tables`). Each operator
accepts exactly the element types its reference kernel has, so a model the reference would
refuse is refused here at Resolve with a sentence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION, is_half
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems, quantize_multiplier
from helia_aot_ops_builtin.elementwise.elementwise_tables import TABLES, TABLES_INT16

_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.int32): "s32", np.dtype(np.bool_): "b"}

SAME_TYPE_SHAPE = "The input and output must have one element type and one shape."
INT8_PER_TENSOR = (
    "int8 and int16 tensors must be quantized per tensor with a positive scale, int16 ones with "
    "zero point 0 (as LiteRT requires)."
)


class UnaryMathOperator(KernelCallOperator):
    """Shared contract of the one-input ``hk_unary`` operators (input 0 -> output 0)."""

    KERNELS = ("unary",)
    INPLACE_INPUTS = (0,)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.float32,)
    RESTRICTIONS: tuple[str, ...] = (SAME_TYPE_SHAPE,)
    FUNCTION = ""
    """Kernel name stem: ``hk_<FUNCTION>_<f32|s32|b>``; int8 goes through the table kernel."""

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            yield (
                f"expects 1 input and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            )
            return
        if self.source.dtype != self.target.dtype:
            yield f"the input is {self.source.dtype} but the output is {self.target.dtype}"
            return
        if tuple(self.source.shape) != tuple(self.target.shape):
            shapes = f"{tuple(self.source.shape)} and {tuple(self.target.shape)}"
            yield f"the input and output shapes differ: {shapes}"
        dtype = self.target.dtype.numpy
        if self.raw_integer():
            return
        if dtype == np.dtype(np.int8) or (dtype == np.dtype(np.int16) and not self.plain_int16()):
            yield from quantization_problems((self.source, self.target))

    def raw_integer(self) -> bool:
        """int8, int16 or int64 NEG: LiteRT negates the stored integers (``hk_math_narrow``)."""
        return self.TYPE == "NEG" and self.target.dtype.numpy in (
            np.dtype(np.int8),
            np.dtype(np.int16),
            np.dtype(np.int64),
        )

    def kernel_families(self) -> tuple[str, ...]:
        if self.raw_integer():
            return ("math_narrow",)
        # float16 ABS, NEG, SQRT and RSQRT run the ``unary_f16`` family (``_Float16``).
        return ("unary_f16",) if is_half(self.target) else self.KERNELS

    def plain_int16(self) -> bool:
        """int16 ABS without quantization parameters takes the reference's plain path."""
        return self.TYPE == "ABS" and self.source.quantization is None and self.target.quantization is None

    def kernel(self) -> KernelCall:
        size = str(math.prod(self.target.shape))
        data = [self.ptr(self.source, const=True), self.ptr(self.target), size]
        if is_half(self.target):
            return KernelCall(function=f"{self.FUNCTION}_f16", data_args=data)
        if self.raw_integer():
            suffix = {1: "s8", 2: "s16", 8: "s64"}[self.target.dtype.numpy.itemsize]
            return KernelCall(function=f"neg_{suffix}", data_args=data)
        if self.target.dtype.numpy == np.dtype(np.int8):
            table = TABLES[self.TYPE](
                self.source.scale(), self.source.zero_point(), self.target.scale(), self.target.zero_point()
            )
            return KernelCall(
                function="unary_lut_s8",
                params_type="unary_lut_s8_params_t",
                params={"table": [int(v) for v in table]},
                data_args=data,
            )
        if self.target.dtype.numpy == np.dtype(np.int16):
            return self.int16_kernel(data)
        return KernelCall(function=f"{self.FUNCTION}_{_SUFFIX[self.target.dtype.numpy]}", data_args=data)

    def int16_kernel(self, data: list[str]) -> KernelCall:
        if self.TYPE in TABLES_INT16:
            table = TABLES_INT16[self.TYPE](
                self.source.scale(), self.source.zero_point(), self.target.scale(), self.target.zero_point()
            )
            return KernelCall(
                function="unary_lut_s16",
                params_type="unary_lut_s16_params_t",
                params={"table": [int(v) for v in table]},
                data_args=data,
            )
        if self.TYPE == "SQRT":
            params: dict[str, object] = {
                "input_scale": self.source.scale(),
                "input_zero_point": self.source.zero_point(),
                "output_scale": self.target.scale(),
                "output_zero_point": self.target.zero_point(),
            }
            return KernelCall("sqrt_s16", data, params_type="sqrt_s16_params_t", params=params)
        # ABS
        if self.plain_int16():
            params = {"quantized": False}
        else:
            in_scale, out_scale = np.float32(self.source.scale()), np.float32(self.target.scale())
            rescale = bool(in_scale != out_scale)
            m, s = quantize_multiplier(float(in_scale / out_scale)) if rescale else (0, 0)
            params = {
                "input_offset": self.source.zero_point(),
                "output_offset": self.target.zero_point(),
                "multiplier": m,
                "shift": s,
                "needs_rescale": rescale,
                "quantized": True,
            }
        return KernelCall("abs_s16", data, params_type="abs_s16_params_t", params=params)


def _unary(
    key: str, doc: str, dtypes: tuple[type, ...] = (np.float32,), extra: tuple[str, ...] = ()
) -> OperatorRecord:
    restrictions = (SAME_TYPE_SHAPE,) + ((INT8_PER_TENSOR,) if np.int8 in dtypes else ()) + extra
    if np.float16 in dtypes:
        restrictions += (FLOAT16_RESTRICTION,)
    cls = type(
        f"{''.join(part.title() for part in key.split('_'))}Operator",
        (UnaryMathOperator,),
        {
            "__doc__": doc,
            "__module__": __name__,
            "TYPE": key,
            "FUNCTION": key.lower(),
            "SUPPORTED_DTYPES": dtypes,
            "RESTRICTIONS": restrictions,
        },
    )
    return OperatorRecord(key, simple_parser(key), None, cls, arity=Arity(1, 1))


_TABLE_NOTE = (
    "int8 runs through a 256-entry table of the reference's arithmetic; inputs the reference "
    "refuses at run time (negative real values) give the entry nearest their definition, except "
    "int16 SQRT, whose run returns an error status on them as the reference stops."
)

REGISTRATIONS = [
    _unary(
        "ABS",
        "ABS: |x| (int8/int16 rescaled as LiteRT's AbsEvalQuantized).",
        (np.float32, np.float16, np.int8, np.int16, np.int32),
    ),
    _unary(
        "NEG",
        "NEG: -x (integers wrap the most negative value onto itself; int8, int16 and int64 "
        "negate the stored integers, as LiteRT).",
        (np.float32, np.float16, np.int8, np.int16, np.int32, np.int64),
    ),
    _unary(
        "SQRT",
        "SQRT: sqrt(x) (int8 through float32, as LiteRT).",
        (np.float32, np.float16, np.int8, np.int16),
        (_TABLE_NOTE,),
    ),
    _unary(
        "RSQRT",
        "RSQRT: 1/sqrt(x) (int8 in gemmlowp fixed point, int16 by table, as LiteRT).",
        (np.float32, np.float16, np.int8, np.int16),
        (_TABLE_NOTE,),
    ),
    _unary("SQUARE", "SQUARE: x * x (LiteRT has it for float32 only)."),
    _unary("EXP", "EXP: e^x (int8/int16 through LiteRT's LUTPopulate).", (np.float32, np.int8, np.int16)),
    _unary("LOG", "LOG: ln x (int8/int16 through LiteRT's LUTPopulate).", (np.float32, np.int8, np.int16)),
    _unary("FLOOR", "FLOOR: round toward minus infinity."),
    _unary("CEIL", "CEIL: round toward plus infinity."),
    _unary("ROUND", "ROUND: nearest integer, ties to even (LiteRT's RoundToNearest)."),
    _unary("SIGN", "SIGN: -1, 0 or 1 (0 for NaN).", (np.float32, np.int32)),
    _unary("SIN", "SIN: sine."),
    _unary("COS", "COS: cosine."),
    _unary("LOGICAL_NOT", "LOGICAL_NOT: !x of a bool tensor.", (np.bool_,)),
]
