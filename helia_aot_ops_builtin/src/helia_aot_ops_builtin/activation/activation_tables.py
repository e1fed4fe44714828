"""GELU and ELU: float32 formulas, and quantized lookup tables built at conversion time.

LiteRT evaluates both on int8 through a 256-entry table its Prepare step fills from the float
formula (``LUTPopulate``), and GELU on int16 through a 513-entry table read with linear
interpolation; the converter fills the same tables
(:mod:`helia_aot_ops_builtin.activation.activation_quantization`) and interns them as operator
constants, so the generated code only looks values up (``hk_table``).
float32 calls ``hk_gelu`` (Eigen's erfc/tanh approximations, as LiteRT's reference GELU evaluates
them) / ``hk_elu`` (LiteRT's scalar formula with the C library's ``expm1f``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.activation import activation_quantization as aq
from helia_aot_ops_builtin.activation.activation import PER_TENSOR, SAME_TYPE, ActivationOperator, quant
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.parsing import simple_parser

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

GELU = "GELU"
ELU = "ELU"


@dataclass(slots=True)
class AirGeluOptions(AirOperatorOptions):
    """GELU's form: the erf definition, or the tanh approximation when ``approximate``."""

    approximate: bool = False


def _gelu_options(raw: litert.GeluOptionsT | None) -> AirGeluOptions:
    return AirGeluOptions(approximate=bool(raw.approximate if raw is not None else False))


class _TableOperator(ActivationOperator):
    """An activation that is a float kernel on float32 and a table lookup on integers."""

    FLOAT_FAMILY = ""

    def kernel_families(self) -> tuple[str, ...]:
        if self.dtype is np.float16:
            return ("activation_f16",)
        return (self.FLOAT_FAMILY,) if self.dtype is np.float32 else ("table",)

    def table(self) -> np.ndarray:
        """The lookup table LiteRT's Prepare fills for this operator's quantization."""
        raise NotImplementedError

    def on_resolve(self) -> None:
        if self.dtype in (np.int8, np.int16):
            self.intern_constant_array("table", self.table())

    def extra_args(self) -> list[str]:
        if self.dtype not in (np.int8, np.int16):
            return []
        return [self.ptr(self.get_local_tensor("table"), const=True)]

    def float_function(self) -> str:
        raise NotImplementedError

    def kernel_parts(self) -> tuple[str, str | None, str | None]:
        if self.dtype is np.float32:
            return self.float_function(), None, None
        return ("table_s8" if self.dtype is np.int8 else "table_s16"), None, None


class GeluOperator(_TableOperator):
    """GELU: x * Phi(x), exact (erf) or approximate (tanh) as the model's option says."""

    TYPE = GELU
    FLOAT_FAMILY = "gelu"
    KERNELS = ("gelu", "table")
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = (SAME_TYPE, PER_TENSOR, FLOAT16_RESTRICTION)

    def f16_kernel(self) -> tuple[str, str | None, str | None]:
        # float16 evaluates the same formula in float and rounds once (activation_f16).
        return ("gelu_tanh_f16" if self.approximate else "gelu_f16"), None, None

    @property
    def approximate(self) -> bool:
        return self.typed_options(AirGeluOptions).approximate

    def table(self) -> np.ndarray:
        build = aq.gelu_lut_int8 if self.dtype is np.int8 else aq.gelu_lut_int16
        return build(self.approximate, *quant(self.source), *quant(self.target))

    def float_function(self) -> str:
        return "gelu_tanh_f32" if self.approximate else "gelu_f32"


class EluOperator(_TableOperator):
    """ELU: exp(x) - 1 below zero, x elsewhere (LiteRT has no int16 ELU)."""

    TYPE = ELU
    FLOAT_FAMILY = "elu"
    KERNELS = ("elu", "table")
    SUPPORTED_DTYPES = (np.int8, np.float32)
    RESTRICTIONS = (SAME_TYPE, PER_TENSOR)

    def table(self) -> np.ndarray:
        return aq.elu_lut_int8(*quant(self.source), *quant(self.target))

    def float_function(self) -> str:
        return "elu_f32"

    def type_problems(self) -> Iterable[str]:
        return ()


REGISTRATIONS = [
    OperatorRecord(GELU, simple_parser(GELU, _gelu_options), AirGeluOptions, GeluOperator, arity=Arity(1, 1)),
    OperatorRecord(ELU, simple_parser(ELU), None, EluOperator, arity=Arity(1, 1)),
]
