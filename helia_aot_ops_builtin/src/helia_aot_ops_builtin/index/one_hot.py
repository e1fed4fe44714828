"""ONE_HOT: each index expanded into a row of ``depth`` values, on_value at the index.

LiteRT's output types (float32, int8, uint8, int16, int32, int64, bool) with int32 or int64
indices; ``depth`` must be a constant (LiteRT makes the output dynamic otherwise). ``hk_one_hot``
reads the indices at run time; an index outside [0, depth) gives a row of off_value, as in LiteRT
(that is the operator's meaning, not an error).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import product
from helia_aot_ops_builtin.index.index_geometry import INDEX_SIZES, constant_values, tensor_ptr

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirOneHotOptions(AirOperatorOptions):
    """``axis`` of the new dimension in the output (-1: last)."""

    axis: int = -1


def _one_hot_options(raw: litert.OneHotOptionsT | None) -> AirOneHotOptions:
    return AirOneHotOptions(axis=int((raw.axis if raw is not None else -1) if raw is not None else -1))


parse_one_hot = simple_parser("ONE_HOT", _one_hot_options)


class OneHotOperator(KernelCallOperator):
    """ONE_HOT through ``hk_one_hot`` (indices viewed as [prefix, suffix])."""

    TYPE = "ONE_HOT"
    KERNELS = ("index",)
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32)
    RESTRICTIONS = (
        "Indices must be int32 or int64; depth a constant int32 scalar; on_value and off_value "
        "scalars of the output's type.",
        "axis must be -1 or a position in [0, rank of the indices].",
        "Quantized on/off values and output must share one scale and zero point.",
    )
    MOVES_DATA_ONLY = True

    def axis(self) -> int:
        rank = len(self.input_tensors[0].shape)
        axis = self.typed_options(AirOneHotOptions).axis
        axis = rank if axis == -1 else axis
        if not 0 <= axis <= rank:
            raise ValueError(f"axis {self.typed_options(AirOneHotOptions).axis} is out of range")
        return axis

    def depth(self) -> int:
        values = constant_values(self.input_tensors[1])
        if values is None:
            raise ValueError("depth must be a constant (it is computed at run time)")
        if self.input_tensors[1].dtype is not AirTensorType.INT32 or values.size != 1:
            raise ValueError("depth must be one int32 value")
        return int(values[0])

    def check(self) -> Iterable[str]:
        indices, _, on, off = self.input_tensors[:4]
        target = self.output_tensors[0]
        problems = []
        if indices.dtype not in (AirTensorType.INT32, AirTensorType.INT64):
            problems.append(f"indices {label(indices)} are {indices.dtype}; supported: int32, int64")
        for tensor in (on, off):
            if tensor.dtype != target.dtype or tensor.size != 1:
                problems.append(f"{label(tensor)} must be one {target.dtype} value")
            elif tensor.quantization != target.quantization:
                problems.append(f"{label(tensor)} is quantized differently from the output")
        try:
            axis, depth = self.axis(), self.depth()
        except ValueError as exc:
            return problems + [str(exc)]
        shape = list(indices.shape)
        expected = tuple(shape[:axis] + [depth] + shape[axis:])
        if tuple(target.shape) != expected:
            problems.append(f"the output shape {tuple(target.shape)} is not {expected}")
        return problems

    def kernel(self) -> KernelCall:
        indices, _, on, off = self.input_tensors[:4]
        target = self.output_tensors[0]
        shape, axis = [int(d) for d in indices.shape], self.axis()
        return KernelCall(
            "one_hot",
            [tensor_ptr(self, t) for t in (indices, on, off, target)],
            "one_hot_params_t",
            {
                "prefix": product(shape[:axis]),
                "depth": self.depth(),
                "suffix": product(shape[axis:]),
                "elem_size": target.dtype.itemsize,
                "index_size": INDEX_SIZES[indices.dtype],
            },
        )


REGISTRATIONS = [
    OperatorRecord("ONE_HOT", parse_one_hot, AirOneHotOptions, OneHotOperator, arity=Arity(4, 4))
]
