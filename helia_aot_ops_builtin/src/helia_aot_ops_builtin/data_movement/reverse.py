"""REVERSE_V2: the input with the order of its elements reversed along constant axes.

Reversing an axis is walking it from its last index with a negative stride, so any set of axes is
one ``hk_strided_copy``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, contiguous_strides, normalize_axis
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

parse_reverse_v2 = simple_parser("REVERSE_V2")


class ReverseV2Operator(CopyPlanOperator):
    """REVERSE_V2: one strided copy walking the reversed axes backwards."""

    TYPE = "REVERSE_V2"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "axis must be a constant 1-D list of distinct, contiguous axes of the input (LiteRT "
        "refuses non-contiguous ones).",
    )

    def axes(self) -> list[int]:
        rank = len(self.input_tensors[0].shape)
        axes = [normalize_axis(a, rank) for a in constant_ints(self.input_or_none(1), "axis")]
        if len(set(axes)) != len(axes):
            raise ValueError(f"axis {axes} names an axis twice")
        if axes and sorted(axes) != list(range(min(axes), max(axes) + 1)):
            raise ValueError(f"axis {axes} is not a contiguous run of axes")
        return axes

    def geometry_problems(self) -> Iterable[str]:
        try:
            self.axes()
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(self.output_tensors[0].shape) != tuple(self.input_tensors[0].shape):
            yield f"the output shape {tuple(self.output_tensors[0].shape)} is not the input's"

    def copy_steps(self) -> list[CopyStep]:
        source = self.input_tensors[0]
        shape = [int(d) for d in source.shape]
        axes, strides = set(self.axes()), contiguous_strides(shape)
        walk = StridedCopy(
            tuple(shape),
            tuple(-s if k in axes else s for k, s in enumerate(strides)),
            tuple(strides),
            src_offset=sum((shape[k] - 1) * strides[k] for k in axes if shape[k] > 0),
        )
        return [CopyStep(source, self.output_tensors[0], walk)]


REGISTRATIONS = [OperatorRecord("REVERSE_V2", parse_reverse_v2, None, ReverseV2Operator, arity=Arity(2, 2))]
