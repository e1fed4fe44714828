"""FILL, ZEROS_LIKE, DILATE and WHERE: outputs made from a value and a conversion-time map.

FILL writes one value (a constant, or a tensor read at run time) over an output whose shape the
constant ``dims`` fixes; ZEROS_LIKE writes zeros. DILATE fills the output with the padding value
and copies the input into it with the output strides multiplied by the dilations (LiteRT's
interior padding). WHERE's output is the list of coordinates of the condition's nonzero elements,
so its shape depends on the condition's values: only a constant condition has a static output,
whose coordinates are computed here and copied in by the run; any other is refused at Resolve.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from helia_aot.air import AirTensor, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator, label
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, contiguous_strides, fit_rank
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    FillStep,
    constant_ints,
)
from helia_aot_ops_builtin.index.index_geometry import constant_values

parse_fill = simple_parser("FILL")
parse_zeros_like = simple_parser("ZEROS_LIKE")
parse_dilate = simple_parser("DILATE")
parse_where = simple_parser("WHERE")


class FillOperator(CopyPlanOperator):
    """FILL: ``hk_fill_pattern`` with the value tensor (or its constant) as the pattern."""

    TYPE = "FILL"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "dims must be a constant int32 or int64 tensor equal to the output shape; value a scalar "
        "of the output's type.",
    )

    def data_tensors(self) -> list[AirTensor]:
        return [self.input_tensors[1], self.output_tensors[0]]

    def geometry_problems(self) -> Iterable[str]:
        value, target = self.input_tensors[1], self.output_tensors[0]
        try:
            dims = constant_ints(self.input_tensors[0], "dims")
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(dims) != tuple(int(d) for d in target.shape):
            yield f"dims {dims} are not the output shape {list(target.shape)}"
        if value.size != 1:
            yield f"the value {label(value)} holds {value.size} elements, not one"

    def copy_steps(self) -> list[CopyStep]:
        return []

    def fill_step(self) -> FillStep | None:
        value = self.input_tensors[1]
        data = constant_values(value)
        if data is not None:
            return FillStep(self.output_tensors[0], value=data)
        return FillStep(self.output_tensors[0], source=value)


class ZerosLikeOperator(CopyPlanOperator):
    """ZEROS_LIKE: ``hk_fill_pattern`` with a zero of the output's type."""

    TYPE = "ZEROS_LIKE"
    SUPPORTED_DTYPES = (np.int32, np.int64, np.float32)
    RESTRICTIONS = ("The input and output must be float32, int32 or int64 of one type and shape.",)

    def geometry_problems(self) -> Iterable[str]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        if tuple(source.shape) != tuple(target.shape):
            yield f"the output shape {list(target.shape)} is not the input's"

    def copy_steps(self) -> list[CopyStep]:
        return []

    def fill_step(self) -> FillStep | None:
        target = self.output_tensors[0]
        return FillStep(target, value=np.zeros(1, dtype=target.dtype.numpy))


class DilateOperator(CopyPlanOperator):
    """DILATE: a fill with the padding value, then one copy with dilated output strides."""

    TYPE = "DILATE"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "dilations must be a constant int32 tensor of one factor >= 1 per input dimension; the "
        "padding value a scalar of the input's type.",
    )

    def data_tensors(self) -> list[AirTensor]:
        return [self.input_tensors[0], self.input_tensors[2], self.output_tensors[0]]

    def dilations(self) -> list[int]:
        values = constant_ints(self.input_or_none(1), "dilations")
        rank = len(self.input_tensors[0].shape)
        if len(values) != rank or any(d < 1 for d in values):
            raise ValueError(f"dilations {values} are not {rank} factors of at least 1")
        return values

    def geometry_problems(self) -> Iterable[str]:
        source, pad, target = self.input_tensors[0], self.input_tensors[2], self.output_tensors[0]
        try:
            dilations = self.dilations()
        except ValueError as exc:
            yield str(exc)
            return
        expected = tuple((int(n) - 1) * d + 1 for n, d in zip(source.shape, dilations))
        if tuple(target.shape) != expected:
            yield f"the output shape {tuple(target.shape)} is not the dilated {expected}"
        if pad.size != 1:
            yield f"the padding value {label(pad)} holds {pad.size} elements, not one"

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        shape = tuple(int(d) for d in source.shape)
        out_strides = contiguous_strides(target.shape)
        walk = StridedCopy(
            shape,
            tuple(contiguous_strides(shape)),
            tuple(s * d for s, d in zip(out_strides, self.dilations())),
        )
        return [CopyStep(source, target, w) for w in fit_rank(walk)]

    def fill_step(self) -> FillStep | None:
        if all(d == 1 for d in self.dilations()):
            return None
        pad = self.input_tensors[2]
        data = constant_values(pad)
        if data is not None:
            return FillStep(self.output_tensors[0], value=data)
        return FillStep(self.output_tensors[0], source=pad)


class WhereOperator(BuiltinOperator):
    """WHERE of a constant condition: its int64 coordinates, computed here, copied by the run."""

    TYPE = "WHERE"
    KERNELS = ("copy",)
    TEMPLATE = "constant_output.c.mako"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32)
    RESTRICTIONS = (
        "The condition must be a constant: WHERE's output shape is the number of true elements, "
        "which a condition computed at run time would make dynamic.",
        "The output must be int64 of shape [number of true elements, rank of the condition].",
    )

    def coordinates(self) -> np.ndarray:
        data = constant_values(self.input_tensors[0])
        if data is None:
            raise ValueError(
                f"the condition {label(self.input_tensors[0])} is computed at run time, so the "
                "output's shape (its number of true elements) is only known then"
            )
        shape = tuple(int(d) for d in self.input_tensors[0].shape)
        return np.argwhere(data.reshape(shape) != 0).astype(np.int64)

    def check(self) -> Iterable[str]:
        target = self.output_tensors[0]
        try:
            coords = self.coordinates()
        except ValueError as exc:
            return [str(exc)]
        problems = []
        if target.dtype is not AirTensorType.INT64:
            problems.append(f"the output is {target.dtype}, not int64")
        if tuple(target.shape) != coords.shape:
            problems.append(f"the output shape {list(target.shape)} is not {list(coords.shape)}")
        return problems

    def kernel_calls(self) -> dict[str, str]:
        return {"copy": "hk_copy_bytes"}

    def compute_values(self) -> dict[str, Any]:
        coords = self.coordinates().reshape(-1)
        return {
            "ctype": "int64_t",
            "values": ", ".join(f"INT64_C({int(v)})" for v in coords),
            "count": int(coords.size),
            "dst": f"ctx->tensor_ptrs[{self.tensor_enum(self.output_tensors[0])}]",
            "status_base": KERNEL_STATUS_BASE,
        }


REGISTRATIONS = [
    OperatorRecord("FILL", parse_fill, None, FillOperator),
    OperatorRecord("ZEROS_LIKE", parse_zeros_like, None, ZerosLikeOperator, arity=Arity(1, 1)),
    OperatorRecord("DILATE", parse_dilate, None, DilateOperator),
    OperatorRecord("WHERE", parse_where, None, WhereOperator),
]
