"""CUMSUM: running sums along a constant axis (exclusive and reverse as the options say).

LiteRT's CUMSUM has float32, int32 and int64 kernels only (converters wrap a quantized model's
CUMSUM in DEQUANTIZE/QUANTIZE); ``hk_cumsum`` sums each line in the reference's order, so float32
results are the reference's bit for bit and integer sums wrap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import product
from helia_aot_ops_builtin.index.index_geometry import constant_values, tensor_ptr

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

KINDS = {AirTensorType.FLOAT32: 0, AirTensorType.INT32: 1, AirTensorType.INT64: 2}


@dataclass(slots=True)
class AirCumsumOptions(AirOperatorOptions):
    """``exclusive``: leave each element out of its own sum; ``reverse``: sum from the end."""

    exclusive: bool = False
    reverse: bool = False


def _cumsum_options(raw: litert.CumsumOptionsT | None) -> AirCumsumOptions:
    return AirCumsumOptions(
        exclusive=bool(raw.exclusive if raw is not None else False),
        reverse=bool(raw.reverse if raw is not None else False),
    )


parse_cumsum = simple_parser("CUMSUM", _cumsum_options)


class CumsumOperator(KernelCallOperator):
    """CUMSUM through ``hk_cumsum`` over the input viewed as [outer, axis, inner]."""

    TYPE = "CUMSUM"
    KERNELS = ("cumsum",)
    SUPPORTED_DTYPES = (np.float32, np.int32, np.int64)
    RESTRICTIONS = (
        "The input and output must be float32, int32 or int64 of one type and shape (LiteRT's CUMSUM types).",
        "The axis must be a constant int32 scalar naming a dimension of the input.",
    )

    def axis(self) -> int:
        axis_tensor = self.input_or_none(1)
        values = constant_values(axis_tensor)
        if axis_tensor is None or values is None:
            raise ValueError("the axis must be a constant (it is computed at run time)")
        if axis_tensor.dtype is not AirTensorType.INT32 or values.size != 1:
            raise ValueError(f"the axis must be one int32 value, not {values.size} {axis_tensor.dtype}")
        rank = len(self.input_tensors[0].shape)
        axis = int(values[0])
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for rank {rank}")
        return axis % rank

    def check(self) -> Iterable[str]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        problems = []
        if source.dtype != target.dtype or tuple(source.shape) != tuple(target.shape):
            problems.append(
                f"the output ({target.dtype} {list(target.shape)}) differs from the input "
                f"({source.dtype} {list(source.shape)})"
            )
        if len(source.shape) < 1:
            problems.append("the input must have at least one dimension")
            return problems
        try:
            self.axis()
        except ValueError as exc:
            problems.append(str(exc))
        return problems

    def kernel(self) -> KernelCall:
        source, target = self.input_tensors[0], self.output_tensors[0]
        shape, axis = [int(d) for d in source.shape], self.axis()
        options = self.typed_options(AirCumsumOptions)
        return KernelCall(
            "cumsum",
            [tensor_ptr(self, source), tensor_ptr(self, target)],
            "cumsum_params_t",
            {
                "outer": product(shape[:axis]),
                "axis_size": shape[axis],
                "inner": product(shape[axis + 1 :]),
                "kind": KINDS[source.dtype],
                "exclusive": options.exclusive,
                "reverse": options.reverse,
            },
        )


REGISTRATIONS = [OperatorRecord("CUMSUM", parse_cumsum, AirCumsumOptions, CumsumOperator, arity=Arity(2, 2))]
