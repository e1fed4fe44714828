"""Shared machinery of the operators that only move elements (layout, gather, resize-nearest).

Such an operator never rescales a value, so its output is only right when every data input
carries the output's quantization: a different scale would need a requantization the kernels do
not do, and LiteRT's own kernels copy the bytes regardless. :class:`CopyPlanOperator` is the base
of the operators that are a fixed list of ``hk_strided_copy`` calls (optionally after a pattern
fill); it renders them all through one template.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from helia_aot.air import AirTensor, AirTensorType
from helia_aot.codegen import c_float

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.layout import StridedCopy

ANY_DTYPE: tuple[type, ...] = (
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
)
"""Element types a pure byte mover accepts: all of them, the kernels only see element sizes."""

SAME_QUANTIZATION = (
    "Quantized inputs and outputs must share one scale and zero point (the "
    "operator moves values without requantizing them)."
)


def c_scalar(value: Any, dtype: AirTensorType) -> str:
    """A C literal of one element of ``dtype`` (float16 as its raw bits, as the module stores it)."""
    item = np.asarray(value, dtype=dtype.numpy).reshape(-1)[0]
    if dtype is AirTensorType.FLOAT32:
        return c_float(float(item))
    if dtype is AirTensorType.FLOAT16:
        return f"0x{int(item.view(np.uint16)):04x}u"
    if dtype is AirTensorType.BOOL:
        return "true" if bool(item) else "false"
    if dtype is AirTensorType.INT64:
        return "INT64_MIN" if int(item) == -(2**63) else f"INT64_C({int(item)})"
    if dtype is AirTensorType.INT32 and int(item) == -(2**31):
        return "INT32_MIN"
    return str(int(item))


def constant_ints(tensor: AirTensor | None, what: str) -> list[int]:
    """The values of a constant integer tensor, flattened; ValueError when it is not constant."""
    if tensor is None:
        raise ValueError(f"the {what} input is missing")
    if not tensor.is_constant or tensor.data is None:
        raise ValueError(f"the {what} input must be a constant (it is computed at run time)")
    if not np.issubdtype(tensor.data.dtype, np.integer):
        raise ValueError(f"the {what} input must hold integers, not {tensor.dtype}")
    return [int(v) for v in np.asarray(tensor.data).reshape(-1)]


@dataclass(slots=True)
class CopyStep:
    """One strided copy from ``source`` to ``target`` (offsets and strides in elements)."""

    source: AirTensor
    target: AirTensor
    walk: StridedCopy


@dataclass(slots=True)
class FillStep:
    """Fill ``target`` with one element value: a constant pattern, or a tensor's first element."""

    target: AirTensor
    value: np.ndarray | None = None
    source: AirTensor | None = None


class CopyPlanOperator(BuiltinOperator):
    """An operator that is an optional fill followed by ``hk_strided_copy`` calls.

    Subclasses implement :meth:`copy_steps` (and :meth:`fill_step` when they fill), and list the
    data tensors whose quantization must match the output in :meth:`data_tensors`.
    """

    KERNELS = ("copy",)
    TEMPLATE = "strided_copies.c.mako"
    SUPPORTED_DTYPES = ANY_DTYPE
    MOVES_DATA_ONLY = True
    RESTRICTIONS: tuple[str, ...] = (SAME_QUANTIZATION,)

    def copy_steps(self) -> list[CopyStep]:
        raise NotImplementedError

    def fill_step(self) -> FillStep | None:
        return None

    def data_tensors(self) -> list[AirTensor]:
        """Inputs and outputs that carry the moved values (not shapes, axes or indices)."""
        return [self.input_tensors[0], *self.output_tensors]

    def geometry_problems(self) -> Iterable[str]:
        """Operator-specific problems, found before the copy plan is built."""
        return ()

    def check(self) -> Iterable[str]:
        data = self.data_tensors()
        problems = quantization_problems(data[1:], like=data[0])
        problems.extend(self.geometry_problems())
        if problems:
            return problems
        try:
            steps = self.copy_steps()
            elem = self.output_tensors[0].dtype.itemsize
            for step in steps:
                step.walk.byte_fields(elem)
        except ValueError as exc:
            return [str(exc)]
        return []

    def reads_input(self, position: int) -> bool:
        """Only the copies' sources and the fill pattern are read; shapes, axes and paddings are
        folded into the copy table."""
        tid = self.op.input_ids[position] if position < len(self.op.input_ids) else None
        fill = self.fill_step()
        read = {step.source.id for step in self.copy_steps()}
        if fill is not None and fill.source is not None:
            read.add(fill.source.id)
        return tid in read

    def kernel_calls(self) -> dict[str, str]:
        calls = {"copy": "hk_strided_copy"}
        if self.fill_step() is not None:
            calls["fill"] = "hk_fill_pattern"
        return calls

    def _tensor(self, tensor: AirTensor) -> str:
        return f"ctx->tensor_ptrs[{self.tensor_enum(tensor)}]"

    def compute_values(self) -> dict[str, Any]:
        return copy_plan_values(self, self.copy_steps(), self.fill_step())


def copy_plan_values(operator: Any, steps: Sequence[CopyStep], fill: FillStep | None) -> dict[str, Any]:
    """The values ``strided_copies.c.mako`` renders: the copy table and the optional fill.

    Shared by :class:`CopyPlanOperator` and the index operators, which render a copy plan
    instead of their kernel call when their indices are constants."""

    def pointer(tensor: AirTensor) -> str:
        return f"ctx->tensor_ptrs[{operator.tensor_enum(tensor)}]"

    elem = operator.output_tensors[0].dtype.itemsize
    copies = [
        {
            "init": step.walk.c_initializer(elem),
            "src": pointer(step.source),
            "dst": pointer(step.target),
            "comment": f"{step.source.name} -> {step.target.name}",
        }
        for step in steps
        if step.walk.elements > 0
    ]
    fill_values = None
    if fill is not None:
        dtype = fill.target.dtype
        literal = None if fill.source is not None else c_scalar(fill.value, dtype)
        fill_values = {
            "dst": pointer(fill.target),
            "count": fill.target.size,
            "elem_size": dtype.itemsize,
            "ctype": dtype.ctype,
            "literal": literal,
            "pattern": pointer(fill.source) if fill.source is not None else None,
        }
    return {"copies": copies, "fill": fill_values, "status_base": KERNEL_STATUS_BASE}
