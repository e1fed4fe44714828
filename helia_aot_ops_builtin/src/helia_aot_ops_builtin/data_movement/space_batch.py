"""SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: spatial blocks moved into (or out of) the batch.

For block offset ``(o_1 .. o_M)`` (numbered row-major, ``p``), LiteRT's reference puts input
pixel ``j * b + o - pad`` of batch ``i`` at output batch ``p * B + i``, pixel ``j``;
BATCH_TO_SPACE_ND reads the same map backwards and drops what falls in the crops. Per block
offset, the pixels that land inside the tensor form one box, so each operator is ``prod(block)``
strided copies (SPACE_TO_BATCH_ND after filling the padding with 0, or the output zero point when
quantized, as LiteRT does).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, contiguous_strides, product
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    FillStep,
    constant_ints,
)

parse_space_to_batch_nd = simple_parser("SPACE_TO_BATCH_ND")
parse_batch_to_space_nd = simple_parser("BATCH_TO_SPACE_ND")

BATCH_DTYPES: tuple[type, ...] = (np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32)
"""What LiteRT's reference SpaceToBatchND / BatchToSpaceND kernels take."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _index_range(first: int, last: int) -> tuple[int, int]:
    """(start, count) of the integers in ``[first, last]``."""
    return first, max(0, last - first + 1)


class _BlockBatchOperator(CopyPlanOperator):
    """Shared geometry: rank 3 or 4 input, ``block_shape`` of rank - 2 positive sizes, and a
    ``[rank - 2, 2]`` table of paddings (or crops)."""

    PAIRS_NAME = "paddings"

    def geometry(self) -> tuple[list[int], list[tuple[int, int]]]:
        rank = len(self.input_tensors[0].shape)
        if rank not in (3, 4):
            raise ValueError(f"the input has rank {rank}; LiteRT supports 3 or 4")
        spatial = rank - 2
        block = constant_ints(self.input_or_none(1), "block_shape")
        values = constant_ints(self.input_or_none(2), self.PAIRS_NAME)
        if len(block) != spatial:
            raise ValueError(f"block_shape {block} does not hold {spatial} sizes (input rank {rank})")
        if any(b < 1 for b in block):
            raise ValueError(f"block_shape {block} holds a size below 1")
        if len(values) != 2 * spatial:
            raise ValueError(f"the {self.PAIRS_NAME} hold {len(values)} values, not {2 * spatial}")
        pairs = [(values[2 * k], values[2 * k + 1]) for k in range(spatial)]
        if any(a < 0 or b < 0 for a, b in pairs):
            raise ValueError(f"the {self.PAIRS_NAME} {pairs} include a negative value")
        return block, pairs

    def expected_shape(self, block: list[int], pairs: list[tuple[int, int]]) -> tuple[int, ...]:
        raise NotImplementedError

    def geometry_problems(self) -> Iterable[str]:
        try:
            block, pairs = self.geometry()
            expected = self.expected_shape(block, pairs)
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(self.output_tensors[0].shape) != expected:
            yield f"the output shape {tuple(self.output_tensors[0].shape)} is not {expected}"


class SpaceToBatchNdOperator(_BlockBatchOperator):
    """SPACE_TO_BATCH_ND: pad fill, then one strided copy per block offset."""

    TYPE = "SPACE_TO_BATCH_ND"
    SUPPORTED_DTYPES = BATCH_DTYPES
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "The input must have rank 3 or 4; block_shape (rank - 2 positive sizes) and paddings "
        "([rank - 2, 2], non-negative) must be constants, and each padded spatial size must be a "
        "multiple of its block size.",
    )

    def expected_shape(self, block: list[int], pairs: list[tuple[int, int]]) -> tuple[int, ...]:
        shape = [int(d) for d in self.input_tensors[0].shape]
        spatial: list[int] = []
        for k, (b, (a, z)) in enumerate(zip(block, pairs)):
            padded = shape[1 + k] + a + z
            if padded % b:
                raise ValueError(
                    f"padded spatial dimension {k} ({padded}) is not a multiple of block size {b}"
                )
            spatial.append(padded // b)
        return (shape[0] * product(block), *spatial, *shape[1 + len(block) :])

    def fill_step(self) -> FillStep | None:
        source, target = self.input_tensors[0], self.output_tensors[0]
        if target.size == source.size:
            return None  # no padding: the copies write every element
        return FillStep(target, value=np.asarray(target.zero_point()))

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        block, pairs = self.geometry()
        shape, out_shape = [int(d) for d in source.shape], [int(d) for d in target.shape]
        m, batch = len(block), shape[0]
        rest = product(shape[1 + m :])
        in_view = [batch, *shape[1 : 1 + m], rest]
        out_view = [product(block), batch, *out_shape[1 : 1 + m], rest]
        in_strides, out_strides = contiguous_strides(in_view), contiguous_strides(out_view)
        steps = []
        for p, offsets in enumerate(itertools.product(*(range(b) for b in block))):
            counts, src_off, dst_off = [batch], 0, p * out_strides[0]
            src_strides, dst_strides = [in_strides[0]], [out_strides[1]]
            for k, (b, o, (before, _)) in enumerate(zip(block, offsets, pairs)):
                size = shape[1 + k]
                first = max(0, _ceil_div(before - o, b))
                last = min(out_shape[1 + k] - 1, (size - 1 + before - o) // b)
                start, count = _index_range(first, last)
                counts.append(count)
                src_off += (start * b + o - before) * in_strides[1 + k]
                dst_off += start * out_strides[2 + k]
                src_strides.append(b * in_strides[1 + k])
                dst_strides.append(out_strides[2 + k])
            counts.append(rest)
            src_strides.append(1)
            dst_strides.append(1)
            walk = StridedCopy(tuple(counts), tuple(src_strides), tuple(dst_strides), src_off, dst_off)
            steps.append(CopyStep(source, target, walk))
        return steps


class BatchToSpaceNdOperator(_BlockBatchOperator):
    """BATCH_TO_SPACE_ND: one strided copy per block offset, crops left out."""

    TYPE = "BATCH_TO_SPACE_ND"
    SUPPORTED_DTYPES = BATCH_DTYPES
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "The input must have rank 3 or 4 and a batch divisible by the block size product; "
        "block_shape (rank - 2 positive sizes) and crops ([rank - 2, 2], non-negative, smaller "
        "than each scaled spatial size) must be constants.",
    )
    PAIRS_NAME = "crops"

    def expected_shape(self, block: list[int], pairs: list[tuple[int, int]]) -> tuple[int, ...]:
        shape = [int(d) for d in self.input_tensors[0].shape]
        blocks = product(block)
        if shape[0] % blocks:
            raise ValueError(
                f"the input batch {shape[0]} is not a multiple of the block sizes' product {blocks}"
            )
        spatial: list[int] = []
        for k, (b, (a, z)) in enumerate(zip(block, pairs)):
            size = shape[1 + k] * b - a - z
            if size < 0:
                raise ValueError(f"the crops {pairs[k]} exceed spatial dimension {k} ({shape[1 + k] * b})")
            spatial.append(size)
        return (shape[0] // blocks, *spatial, *shape[1 + len(block) :])

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        block, pairs = self.geometry()
        shape, out_shape = [int(d) for d in source.shape], [int(d) for d in target.shape]
        m, batch = len(block), out_shape[0]
        rest = product(shape[1 + m :])
        in_view = [product(block), batch, *shape[1 : 1 + m], rest]
        out_view = [batch, *out_shape[1 : 1 + m], rest]
        in_strides, out_strides = contiguous_strides(in_view), contiguous_strides(out_view)
        steps = []
        for p, offsets in enumerate(itertools.product(*(range(b) for b in block))):
            counts, src_off, dst_off = [batch], p * in_strides[0], 0
            src_strides, dst_strides = [in_strides[1]], [out_strides[0]]
            for k, (b, o, (before, _)) in enumerate(zip(block, offsets, pairs)):
                first = max(0, _ceil_div(before - o, b))
                last = min(shape[1 + k] - 1, (out_shape[1 + k] - 1 + before - o) // b)
                start, count = _index_range(first, last)
                counts.append(count)
                src_off += start * in_strides[2 + k]
                dst_off += (start * b + o - before) * out_strides[1 + k]
                src_strides.append(in_strides[2 + k])
                dst_strides.append(b * out_strides[1 + k])
            counts.append(rest)
            src_strides.append(1)
            dst_strides.append(1)
            walk = StridedCopy(tuple(counts), tuple(src_strides), tuple(dst_strides), src_off, dst_off)
            steps.append(CopyStep(source, target, walk))
        return steps


REGISTRATIONS = [
    OperatorRecord(
        "SPACE_TO_BATCH_ND", parse_space_to_batch_nd, None, SpaceToBatchNdOperator, arity=Arity(3, 3)
    ),
    OperatorRecord(
        "BATCH_TO_SPACE_ND", parse_batch_to_space_nd, None, BatchToSpaceNdOperator, arity=Arity(3, 3)
    ),
]
