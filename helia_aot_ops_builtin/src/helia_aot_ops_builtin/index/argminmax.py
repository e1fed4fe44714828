"""ARG_MAX and ARG_MIN over one constant axis.

``hk_argminmax`` keeps the first index of the extreme value (ties go to the smallest index) and,
for float32 and float16, never picks a NaN over a number, as LiteRT's comparator does. The output is int32 or
int64 as the options say.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensorType
from helia_aot.converters.litert.schema_access import tensor_type_name
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import normalize_axis, product
from helia_aot_ops_builtin.data_movement.movers import constant_ints

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_KERNELS = {
    AirTensorType.INT8: "s8",
    AirTensorType.UINT8: "u8",
    AirTensorType.INT32: "s32",
    AirTensorType.FLOAT32: "f32",
    AirTensorType.FLOAT16: "f16",
}
_OUTPUTS = (AirTensorType.INT32, AirTensorType.INT64)


@dataclass(slots=True)
class AirArgMinMaxOptions(AirOperatorOptions):
    """The index type the options ask for (``INT32`` or ``INT64``)."""

    output_type: str = "INT64"


def _arg_options(raw: litert.ArgMaxOptionsT | litert.ArgMinOptionsT | None) -> AirArgMinMaxOptions:
    code = raw.outputType if raw is not None else None
    return AirArgMinMaxOptions(output_type="INT64" if code is None else tensor_type_name(code))


parse_arg_max = simple_parser(AirOpType.ARG_MAX.value, _arg_options)
parse_arg_min = simple_parser(AirOpType.ARG_MIN.value, _arg_options)


class ArgMaxOperator(BuiltinOperator):
    """ARG_MAX: index of the largest value along the axis."""

    TYPE = AirOpType.ARG_MAX.value
    IS_MAX = True
    SUPPORTED_DTYPES = (np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        "The input must be float32, float16, int8, uint8 or int32 and the output int32 or int64.",
        "The axis must be a constant.",
        FLOAT16_RESTRICTION,
    )
    KERNELS = ("argminmax",)
    TEMPLATE = "argminmax.c.mako"

    def reads_input(self, position: int) -> bool:
        return position == 0  # the axis is folded into the call's geometry

    def axis(self) -> int:
        (axis,) = constant_ints(self.input_or_none(1), "axis")
        return normalize_axis(axis, len(self.input_tensors[0].shape))

    def check(self) -> Iterable[str]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        problems = []
        if source.dtype not in _KERNELS:
            problems.append(f"the input is {source.dtype}; supported: float32, float16, int8, uint8, int32")
        if target.dtype not in _OUTPUTS:
            problems.append(f"the output is {target.dtype}; supported: int32, int64")
        wanted = self.typed_options(AirArgMinMaxOptions).output_type
        if wanted != target.dtype.name:
            problems.append(f"the options ask for {wanted} indices but the output is {target.dtype}")
        try:
            axis = self.axis()
        except ValueError as exc:
            return problems + [str(exc)]
        expected = source.shape[:axis] + source.shape[axis + 1 :]
        if tuple(target.shape) != tuple(expected):
            problems.append(f"the output shape {target.shape} is not {expected}")
        if source.shape[axis] == 0:
            problems.append("the reduced axis is empty")
        return problems

    def kernel_calls(self) -> dict[str, str]:
        return {"argminmax": f"hk_argminmax_{_KERNELS[self.input_tensors[0].dtype]}"}

    def compute_values(self) -> dict[str, Any]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        axis = self.axis()
        shape = source.shape
        fields = [
            str(product(shape[:axis])),
            str(shape[axis]),
            str(product(shape[axis + 1 :])),
            "true" if self.IS_MAX else "false",
            "true" if target.dtype is AirTensorType.INT64 else "false",
        ]
        return {
            "params": ", ".join(fields),
            "suffix": _KERNELS[source.dtype],
            "src": self.ptr(source, const=True),
            "dst": f"ctx->tensor_ptrs[{self.tensor_enum(target)}]",
            "status_base": KERNEL_STATUS_BASE,
        }


class ArgMinOperator(ArgMaxOperator):
    """ARG_MIN: index of the smallest value along the axis."""

    TYPE = AirOpType.ARG_MIN.value
    IS_MAX = False


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.ARG_MAX.value, parse_arg_max, AirArgMinMaxOptions, ArgMaxOperator, arity=Arity(2, 2)
    ),
    OperatorRecord(
        AirOpType.ARG_MIN.value, parse_arg_min, AirArgMinMaxOptions, ArgMinOperator, arity=Arity(2, 2)
    ),
]
