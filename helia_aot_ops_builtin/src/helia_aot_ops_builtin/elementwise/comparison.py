"""Comparisons, logical AND/OR and SELECT / SELECT_V2: the operators that make or take bool.

EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL compare two inputs of one type
(float32, int32, int64, int8, and bool for EQUAL/NOT_EQUAL) into a bool tensor; int8 inputs are
rescaled first as LiteRT's ComparisonWithScaling does, so inputs of different scales compare by
their real values. LOGICAL_AND and LOGICAL_OR combine bool tensors. SELECT picks x or y per
element by a bool condition (same shapes, or a rank-1 condition over the first dimension);
SELECT_V2 broadcasts all three. Everything walks the broadcast through ``hk_walk_t``
(:mod:`helia_aot_ops_builtin.elementwise.walk_geometry`) into the ``hk_compare`` family.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems, quantize_multiplier
from helia_aot_ops_builtin.elementwise.walk_geometry import WALK_MAX_RANK, broadcast_shapes, walk_geometry

_SUFFIX = {
    np.dtype(np.float32): "f32",
    np.dtype(np.int32): "s32",
    np.dtype(np.int64): "s64",
    np.dtype(np.int8): "s8",
    np.dtype(np.bool_): "b",
}
_OPS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
_SELECT_WIDTH = {1: "x8", 2: "x16", 4: "x32"}

BROADCAST = (
    f"The inputs must broadcast to the output's shape (NumPy rules) in at most {WALK_MAX_RANK} "
    "dimensions once equal-behaving dimensions are merged."
)
COMPARE_TYPES = "Both inputs must have one element type; the output must be bool."
INT8_SCALES = (
    "int8 inputs must be quantized per tensor with a scale in (0, 1) (LiteRT turns each scale "
    "into a multiplier below one)."
)


def _two_input_problems(op: KernelCallOperator) -> Iterable[str]:
    if len(op.input_tensors) != 2 or len(op.output_tensors) != 1:
        yield f"expects 2 inputs and 1 output, has {len(op.input_tensors)} and {len(op.output_tensors)}"
        return
    lhs, rhs = op.input_tensors
    target = op.output_tensors[0]
    try:
        expected = broadcast_shapes(lhs.shape, rhs.shape)
        walk_geometry(target.shape, [lhs.shape, rhs.shape])
    except ValueError as exc:
        yield str(exc)
        return
    if tuple(target.shape) != expected:
        yield f"the output shape {tuple(target.shape)} is not the broadcast shape {expected}"


class CompareOperator(KernelCallOperator):
    """Shared contract of the six comparisons (inputs 0 and 1 -> bool output 0)."""

    KERNELS = ("compare",)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.float32, np.int32, np.int64, np.int8, np.bool_)
    RESTRICTIONS: tuple[str, ...] = (COMPARE_TYPES, BROADCAST, INT8_SCALES)
    INPUT_DTYPES: tuple[type, ...] = (np.float32, np.int32, np.int64, np.int8)

    def check(self) -> Iterable[str]:
        problems = list(_two_input_problems(self))
        if problems:
            yield from problems
            return
        lhs, rhs = self.input_tensors
        if lhs.dtype != rhs.dtype:
            yield f"the inputs are {lhs.dtype} and {rhs.dtype}"
            return
        if self.output_tensors[0].dtype.numpy != np.dtype(np.bool_):
            yield f"the output is {self.output_tensors[0].dtype}, not bool"
        if lhs.dtype.numpy not in {np.dtype(t) for t in self.INPUT_DTYPES}:
            names = ", ".join(np.dtype(t).name for t in self.INPUT_DTYPES)
            yield f"the inputs are {lhs.dtype}; {self.TYPE} compares {names}"
            return
        if lhs.dtype.numpy == np.dtype(np.int8):
            problems = quantization_problems((lhs, rhs))
            yield from problems
            if not problems:
                for tensor in (lhs, rhs):
                    if not tensor.scale() < 1.0:
                        yield f"{tensor.source_name or tensor.name!r} has scale {tensor.scale()}, not below 1"

    def kernel(self) -> KernelCall:
        lhs, rhs = self.input_tensors
        target = self.output_tensors[0]
        params: dict[str, Any] = {
            "walk": walk_geometry(target.shape, [lhs.shape, rhs.shape]),
            "op": f"{self.prefix.upper()}_HK_CMP_{self.TYPE}",  # hk_compare_op_t, renamed
        }
        if lhs.dtype.numpy == np.dtype(np.int8):
            m1, s1 = quantize_multiplier(float(np.float32(lhs.scale())))
            m2, s2 = quantize_multiplier(float(np.float32(rhs.scale())))
            params |= {
                "left_shift": 8,
                "input1_offset": -lhs.zero_point(),
                "input2_offset": -rhs.zero_point(),
                "input1_multiplier": m1,
                "input1_shift": s1,
                "input2_multiplier": m2,
                "input2_shift": s2,
            }
        return KernelCall(
            function=f"compare_{_SUFFIX[lhs.dtype.numpy]}",
            params_type="compare_params_t",
            params=params,
            data_args=[self.ptr(lhs, const=True), self.ptr(rhs, const=True), self.ptr(target)],
        )


def _compare(key: str, bools: bool) -> OperatorRecord:
    attrs: dict[str, Any] = {
        "__doc__": f"{key} of two tensors into bool" + (" (bool inputs too)." if bools else "."),
        "__module__": __name__,
        "TYPE": key,
    }
    if bools:
        attrs["INPUT_DTYPES"] = (np.float32, np.int32, np.int64, np.int8, np.bool_)
    cls = type(f"{''.join(p.title() for p in key.split('_'))}Operator", (CompareOperator,), attrs)
    return OperatorRecord(key, simple_parser(key), None, cls, arity=Arity(2, 2))


class LogicalOperator(KernelCallOperator):
    """LOGICAL_AND / LOGICAL_OR of two bool tensors, broadcasting."""

    KERNELS = ("compare",)
    INPLACE_INPUTS = (0, 1)
    SUPPORTED_DTYPES = (np.bool_,)
    RESTRICTIONS = ("Both inputs and the output must be bool.", BROADCAST)

    def check(self) -> Iterable[str]:
        yield from _two_input_problems(self)

    def kernel(self) -> KernelCall:
        lhs, rhs = self.input_tensors
        target = self.output_tensors[0]
        return KernelCall(
            function=self.TYPE.lower(),
            params_type="walk_t",
            params=walk_geometry(target.shape, [lhs.shape, rhs.shape]),
            data_args=[self.ptr(lhs, const=True), self.ptr(rhs, const=True), self.ptr(target)],
        )


class LogicalAndOperator(LogicalOperator):
    """LOGICAL_AND: x && y."""

    TYPE = "LOGICAL_AND"


class LogicalOrOperator(LogicalOperator):
    """LOGICAL_OR: x || y."""

    TYPE = "LOGICAL_OR"


class SelectV2Operator(KernelCallOperator):
    """SELECT_V2: condition ? x : y with all three broadcast (NumPy rules)."""

    TYPE = "SELECT_V2"
    KERNELS = ("compare",)
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.int16, np.int32, np.float32)
    RESTRICTIONS = (
        "The condition must be bool; x, y and the output must share one element type (values "
        "are copied unchanged, so quantized x and y should share the output's quantization).",
        "The condition, x and y must broadcast to the output's shape (NumPy rules) in at most "
        f"{WALK_MAX_RANK} dimensions once equal-behaving dimensions are merged.",
    )

    def condition_shape(self) -> Sequence[int]:
        return self.input_tensors[0].shape

    def shape_problems(self) -> Iterable[str]:
        condition, x, y = self.input_tensors
        target = self.output_tensors[0]
        try:
            expected = broadcast_shapes(condition.shape, x.shape, y.shape)
            walk_geometry(target.shape, [self.condition_shape(), x.shape, y.shape])
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(target.shape) != expected:
            yield f"the output shape {tuple(target.shape)} is not the broadcast shape {expected}"

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 3 or len(self.output_tensors) != 1:
            counts = f"{len(self.input_tensors)} and {len(self.output_tensors)}"
            yield f"expects 3 inputs and 1 output, has {counts}"
            return
        condition, x, y = self.input_tensors
        target = self.output_tensors[0]
        if condition.dtype.numpy != np.dtype(np.bool_):
            yield f"the condition is {condition.dtype}, not bool"
        if not x.dtype == y.dtype == target.dtype:
            yield f"x is {x.dtype}, y {y.dtype} and the output {target.dtype}; they must agree"
            return
        yield from self.shape_problems()

    def kernel(self) -> KernelCall:
        condition, x, y = self.input_tensors
        target = self.output_tensors[0]
        width = _SELECT_WIDTH[target.dtype.itemsize]
        ctype = f"uint{8 * target.dtype.itemsize}_t"
        return KernelCall(
            function=f"select_{width}",
            params_type="walk_t",
            params=walk_geometry(target.shape, [self.condition_shape(), x.shape, y.shape]),
            data_args=[
                self.ptr(condition, const=True),
                self.ptr(x, const=True, ctype=ctype),
                self.ptr(y, const=True, ctype=ctype),
                self.ptr(target, ctype=ctype),
            ],
        )


class SelectOperator(SelectV2Operator):
    """SELECT: condition ? x : y, x and y of one shape, the condition of that shape or rank 1
    over the first dimension (LiteRT's RankOneSelect)."""

    TYPE = "SELECT"
    RESTRICTIONS = (
        SelectV2Operator.RESTRICTIONS[0],
        "x, y and the output must have one shape; the condition that shape too, or rank 1 with "
        "the first dimension's extent.",
    )

    def condition_shape(self) -> Sequence[int]:
        condition, x, _ = self.input_tensors
        if len(condition.shape) == 1 and len(x.shape) > 1:
            return tuple(condition.shape) + (1,) * (len(x.shape) - 1)
        return condition.shape

    def shape_problems(self) -> Iterable[str]:
        condition, x, y = self.input_tensors
        target = self.output_tensors[0]
        if not tuple(x.shape) == tuple(y.shape) == tuple(target.shape):
            shapes = f"x {tuple(x.shape)}, y {tuple(y.shape)} and the output {tuple(target.shape)}"
            yield f"{shapes} differ in shape"
            return
        rank_one = len(condition.shape) == 1 and len(x.shape) > 1 and condition.shape[0] == x.shape[0]
        if tuple(condition.shape) != tuple(x.shape) and not rank_one:
            yield (
                f"the condition's shape {tuple(condition.shape)} is neither x's nor rank 1 over its "
                "first dimension"
            )


REGISTRATIONS = [
    *(_compare(key, key in ("EQUAL", "NOT_EQUAL")) for key in _OPS),
    OperatorRecord("LOGICAL_AND", simple_parser("LOGICAL_AND"), None, LogicalAndOperator, arity=Arity(2, 2)),
    OperatorRecord("LOGICAL_OR", simple_parser("LOGICAL_OR"), None, LogicalOrOperator, arity=Arity(2, 2)),
    OperatorRecord("SELECT", simple_parser("SELECT"), None, SelectOperator, arity=Arity(3, 3)),
    OperatorRecord("SELECT_V2", simple_parser("SELECT_V2"), None, SelectV2Operator, arity=Arity(3, 3)),
]
