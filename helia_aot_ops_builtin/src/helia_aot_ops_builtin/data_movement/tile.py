"""TILE and BROADCAST_TO: the input repeated along dimensions.

Both are walks over the output whose source stride is 0 along the repeats: BROADCAST_TO stretches
size-1 (and missing leading) dimensions, TILE repeats the whole of each dimension ``multiples``
times, which interleaves a repeat dimension with every input dimension. Such a walk can need more
than the kernel's six dimensions; it is then cut into several copies along its outer dimensions.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import broadcast_copy, fit_rank, tile_copy
from helia_aot_ops_builtin.data_movement.movers import (
    ANY_DTYPE,
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

parse_tile = simple_parser("TILE")
parse_broadcast_to = simple_parser("BROADCAST_TO")


class TileOperator(CopyPlanOperator):
    """TILE: strided copies whose repeat dimensions read the input with stride 0."""

    TYPE = "TILE"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "multiples must be a constant holding one non-negative count per input dimension.",
    )

    def multiples(self) -> list[int]:
        values = constant_ints(self.input_or_none(1), "multiples")
        rank = len(self.input_tensors[0].shape)
        if len(values) != rank:
            raise ValueError(f"multiples {values} do not hold {rank} counts")
        if any(m < 0 for m in values):
            raise ValueError(f"multiples {values} include a negative count")
        return values

    def geometry_problems(self) -> Iterable[str]:
        try:
            multiples = self.multiples()
        except ValueError as exc:
            yield str(exc)
            return
        expected = tuple(int(d) * m for d, m in zip(self.input_tensors[0].shape, multiples))
        if tuple(self.output_tensors[0].shape) != expected:
            yield f"the output shape {tuple(self.output_tensors[0].shape)} is not the tiled {expected}"

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        walks = fit_rank(tile_copy(source.shape, self.multiples()))
        return [CopyStep(source, target, walk) for walk in walks]


class BroadcastToOperator(CopyPlanOperator):
    """BROADCAST_TO: strided copies reading stretched dimensions with stride 0."""

    TYPE = "BROADCAST_TO"
    SUPPORTED_DTYPES = ANY_DTYPE
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "shape must be a constant equal to the output shape, to which the input broadcasts.",
    )

    def shape_input(self) -> AirTensor | None:
        return self.input_or_none(1)

    def geometry_problems(self) -> Iterable[str]:
        target = self.output_tensors[0]
        try:
            shape = constant_ints(self.shape_input(), "shape")
            broadcast_copy(self.input_tensors[0].shape, target.shape)
        except ValueError as exc:
            yield str(exc)
            return
        if tuple(shape) != tuple(int(d) for d in target.shape):
            yield f"the output shape {tuple(target.shape)} is not the requested {tuple(shape)}"

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        walks = fit_rank(broadcast_copy(source.shape, target.shape))
        return [CopyStep(source, target, walk) for walk in walks]


REGISTRATIONS = [
    OperatorRecord("TILE", parse_tile, None, TileOperator, arity=Arity(2, 2)),
    OperatorRecord("BROADCAST_TO", parse_broadcast_to, None, BroadcastToOperator, arity=Arity(2, 2)),
]
