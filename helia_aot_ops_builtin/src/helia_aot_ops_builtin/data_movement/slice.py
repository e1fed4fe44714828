"""SLICE and STRIDED_SLICE: a window of the input, possibly strided or reversed.

Both become one ``hk_strided_copy`` whose start offset and strides are computed here from the
constant begin/end/size/strides inputs. STRIDED_SLICE follows LiteRT's handling literally: the
ellipsis and new-axis masks build an "effective" input shape, then each axis's start and stop
come from ``StartForAxis`` / ``EndForAxis`` (negative indices, clamping, begin/end masks,
shrink-axis, ``offset``); the number of steps per axis is then what the reference loop visits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from helia_aot.air import AirOperatorOptions, AirOpType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, window_copy
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirStridedSliceOptions(AirOperatorOptions):
    """STRIDED_SLICE's masks (bit i refers to index i of begin/end/strides) and ``offset``
    (end values are sizes added to the begin)."""

    begin_mask: int = 0
    end_mask: int = 0
    ellipsis_mask: int = 0
    new_axis_mask: int = 0
    shrink_axis_mask: int = 0
    offset: bool = False


def _strided_slice_options(raw: litert.StridedSliceOptionsT | None) -> AirStridedSliceOptions:
    if raw is None:
        return AirStridedSliceOptions(
            begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, offset=False
        )
    return AirStridedSliceOptions(
        begin_mask=int(raw.beginMask or 0),
        end_mask=int(raw.endMask or 0),
        ellipsis_mask=int(raw.ellipsisMask or 0),
        new_axis_mask=int(raw.newAxisMask or 0),
        shrink_axis_mask=int(raw.shrinkAxisMask or 0),
        offset=bool(raw.offset),
    )


parse_slice = simple_parser(AirOpType.SLICE.value)
parse_strided_slice = simple_parser(AirOpType.STRIDED_SLICE.value, _strided_slice_options)


def _clamp(v: int, lo: int, hi: int) -> int:
    return hi if v > hi else (lo if v < lo else v)


def _steps(start: int, stop: int, stride: int) -> int:
    """How many indices ``start, start + stride, ...`` lie before ``stop`` (the reference loop)."""
    if stride > 0:
        return max(0, -(-(stop - start) // stride))
    return max(0, -(-(start - stop) // -stride))


@dataclass(slots=True)
class StridedWindow:
    """The resolved slice: per effective axis its first index, step count and stride, the
    effective input shape, and which axes are shrunk (absent from the output shape)."""

    shape: list[int]
    starts: list[int]
    counts: list[int]
    strides: list[int]
    shrink: list[bool]

    @property
    def output_shape(self) -> tuple[int, ...]:
        return tuple(c for c, s in zip(self.counts, self.shrink) if not s)

    def copy(self) -> StridedCopy:
        return window_copy(self.shape, self.starts, self.counts, self.strides)


def resolve_strided_slice(
    shape: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int],
    o: AirStridedSliceOptions,
) -> StridedWindow:
    """LiteRT ``BuildStridedSliceParams`` + ``StartForAxis`` / ``EndForAxis``; ValueError where
    LiteRT would refuse the slice."""
    if not len(begin) == len(end) == len(strides):
        raise ValueError("begin, end and strides differ in length")
    if len(begin) > 31:
        raise ValueError("STRIDED_SLICE supports at most 31 indices")
    if any(s == 0 for s in strides):
        raise ValueError("a stride is 0")
    rank, count = len(shape), len(begin)

    def bit(mask: int, i: int) -> bool:
        return 0 <= i < 32 and bool(mask >> i & 1)

    num_add_axis = sum(1 for i in range(count) if not bit(o.ellipsis_mask, i) and bit(o.new_axis_mask, i))
    dims = rank + num_add_axis
    ellipsis: set[int] = set()
    new_axis: set[int] = set()
    ellipsis_start, expanded = dims, 0
    i = 0
    while i < dims:
        if bit(o.ellipsis_mask, i):
            ellipsis_start = i
            ellipsis_end = max(i + 1, min(i + 1 + num_add_axis + rank - count, dims))
            expanded = ellipsis_end - ellipsis_start - 1
            ellipsis.update(range(i, ellipsis_end))
            i = ellipsis_end
            continue
        if bit(o.new_axis_mask, i - expanded):
            new_axis.add(i)
        i += 1

    eff_shape, start_idx, stop_idx, step = [0] * dims, [0] * dims, [0] * dims, [1] * dims
    begin_mask, end_mask, shrink = set(), set(), set()
    added_ellipsis = added_axes = 0

    def input_dim(k: int) -> int:
        if not 0 <= k < rank:
            raise ValueError("the masks do not fit the input's rank")
        return int(shape[k])

    for i in range(dims):
        if i in ellipsis:
            added_ellipsis = max(0, i - ellipsis_start)
            begin_mask.add(i)
            end_mask.add(i)
            eff_shape[i] = input_dim(i - added_axes)
        elif i in new_axis:
            stop_idx[i] = 1
            eff_shape[i] = 1
            added_axes += 1
        elif i >= count + expanded:
            begin_mask.add(i)
            end_mask.add(i)
            eff_shape[i] = input_dim(i - added_axes)
        else:
            orig = i - added_ellipsis
            start_idx[i], stop_idx[i], step[i] = begin[orig], end[orig], strides[orig]
            if bit(o.begin_mask, orig):
                begin_mask.add(i)
            if bit(o.end_mask, orig):
                end_mask.add(i)
            if bit(o.shrink_axis_mask, orig):
                shrink.add(i)
            eff_shape[i] = input_dim(i - added_axes)

    starts, counts = [], []
    for axis in range(dims):
        size, stride = eff_shape[axis], step[axis]
        start = start_idx[axis] + (size if start_idx[axis] < 0 else 0)
        start = _clamp(start, 0, size) if stride > 0 else _clamp(start, -1, size - 1)
        if axis in begin_mask:
            start = 0 if stride > 0 else size - 1
        if axis in shrink:
            stop = start if start >= size else start + 1
        else:
            stop = stop_idx[axis] + (start if o.offset else 0)
            stop += size if stop < 0 else 0
            stop = _clamp(stop, 0, size) if stride > 0 else _clamp(stop, -1, size - 1)
            if axis in end_mask:
                stop = size if stride > 0 else -1
        starts.append(start)
        counts.append(_steps(start, stop, stride))
        if axis in shrink and counts[-1] != 1:
            # LiteRT's loop then visits nothing (an index outside the axis, or a negative
            # stride) and leaves the output unwritten.
            raise ValueError(
                f"shrinking axis {axis} selects no element (index "
                f"{start_idx[axis]}, stride {stride}, size {size})"
            )
    return StridedWindow(eff_shape, starts, counts, step, [a in shrink for a in range(dims)])


class SliceOperator(CopyPlanOperator):
    """SLICE: ``size`` elements from ``begin`` per axis (-1: to the end)."""

    TYPE = AirOpType.SLICE.value
    RESTRICTIONS = (SAME_QUANTIZATION, "begin and size must be constants inside the input.")

    def window(self) -> tuple[list[int], list[int]]:
        shape = self.input_tensors[0].shape
        begin = constant_ints(self.input_or_none(1), "begin")
        size = constant_ints(self.input_or_none(2), "size")
        if len(begin) != len(shape) or len(size) != len(shape):
            raise ValueError(f"begin {begin} and size {size} do not match rank {len(shape)}")
        size = [d - b if s == -1 else s for d, b, s in zip(shape, begin, size)]
        for d, b, s in zip(shape, begin, size):
            if b < 0 or s < 0 or b + s > d:
                raise ValueError(f"begin {begin} with size {size} leaves the input shape {shape}")
        return begin, size

    def geometry_problems(self) -> Iterable[str]:
        try:
            _, size = self.window()
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(self.output_tensors[0].shape) != tuple(size):
            yield f"the output shape {self.output_tensors[0].shape} is not the slice {size}"

    def copy_steps(self) -> list[CopyStep]:
        source = self.input_tensors[0]
        begin, size = self.window()
        walk = window_copy(source.shape, begin, size, [1] * len(size))
        return [CopyStep(source, self.output_tensors[0], walk)]


class StridedSliceOperator(CopyPlanOperator):
    """STRIDED_SLICE with every mask LiteRT supports."""

    TYPE = AirOpType.STRIDED_SLICE.value
    RESTRICTIONS = (SAME_QUANTIZATION, "begin, end and strides must be constants.")

    def window(self) -> StridedWindow:
        return resolve_strided_slice(
            self.input_tensors[0].shape,
            constant_ints(self.input_or_none(1), "begin"),
            constant_ints(self.input_or_none(2), "end"),
            constant_ints(self.input_or_none(3), "strides"),
            self.typed_options(AirStridedSliceOptions),
        )

    def geometry_problems(self) -> Iterable[str]:
        try:
            window = self.window()
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(self.output_tensors[0].shape) != window.output_shape:
            yield f"the output shape {self.output_tensors[0].shape} is not the slice's {window.output_shape}"

    def copy_steps(self) -> list[CopyStep]:
        return [CopyStep(self.input_tensors[0], self.output_tensors[0], self.window().copy())]


REGISTRATIONS = [
    OperatorRecord(AirOpType.SLICE.value, parse_slice, None, SliceOperator, arity=Arity(3, 3)),
    OperatorRecord(
        AirOpType.STRIDED_SLICE.value,
        parse_strided_slice,
        AirStridedSliceOptions,
        StridedSliceOperator,
        arity=Arity(4, 4),
    ),
]
