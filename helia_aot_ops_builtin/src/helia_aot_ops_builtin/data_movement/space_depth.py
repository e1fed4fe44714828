"""SPACE_TO_DEPTH and DEPTH_TO_SPACE: NHWC blocks of ``block x block`` pixels moved into (or out
of) the channel dimension.

LiteRT orders the output depth of SPACE_TO_DEPTH as ``(row in block * block + column in block) *
C + c`` and DEPTH_TO_SPACE inverts it (the DCR order). Both are one six-dimensional walk over
``[N, H/b, row in block, W/b, column in block, C]`` between the spatial view and the depth view,
so each is a single ``hk_strided_copy``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy
from helia_aot_ops_builtin.data_movement.movers import SAME_QUANTIZATION, CopyPlanOperator, CopyStep

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

BLOCK_DTYPES: tuple[type, ...] = (np.int8, np.uint8, np.int32, np.int64, np.float32)
"""What LiteRT's reference SpaceToDepth / DepthToSpace kernels take (no int16: they refuse it)."""

BLOCK_RESTRICTIONS = (
    SAME_QUANTIZATION,
    "The input must be 4-D NHWC and block_size positive; SPACE_TO_DEPTH needs height and width "
    "divisible by block_size, DEPTH_TO_SPACE a depth divisible by block_size squared.",
)


@dataclass(slots=True)
class AirBlockSizeOptions(AirOperatorOptions):
    """The side of the square pixel block SPACE_TO_DEPTH / DEPTH_TO_SPACE move into channels."""

    block_size: int = 0


def _block_options(
    raw: litert.SpaceToDepthOptionsT | litert.DepthToSpaceOptionsT | None,
) -> AirBlockSizeOptions:
    return AirBlockSizeOptions(block_size=int((raw.blockSize if raw is not None else 0) or 0))


parse_space_to_depth = simple_parser("SPACE_TO_DEPTH", _block_options)
parse_depth_to_space = simple_parser("DEPTH_TO_SPACE", _block_options)


def block_walk(space_shape: tuple[int, ...], block: int, *, to_depth: bool) -> StridedCopy:
    """The copy between an NHWC ``space_shape`` tensor and its depth view
    ``[N, H/b, W/b, C*b*b]``; ``to_depth`` reads the spatial side (SPACE_TO_DEPTH)."""
    n, h, w, c = (int(d) for d in space_shape)
    b = int(block)
    ho, wo, depth = h // b, w // b, c * b * b
    counts = (n, ho, b, wo, b, c)
    space = (h * w * c, b * w * c, w * c, b * c, c, 1)
    packed = (ho * wo * depth, wo * depth, b * c, depth, c, 1)
    if to_depth:
        return StridedCopy(counts, space, packed)
    return StridedCopy(counts, packed, space)


class _BlockOperator(CopyPlanOperator):
    TO_DEPTH = True

    def block(self) -> int:
        return self.typed_options(AirBlockSizeOptions).block_size

    def space_shape(self) -> tuple[int, ...]:
        tensor = self.input_tensors[0] if self.TO_DEPTH else self.output_tensors[0]
        return tuple(int(d) for d in tensor.shape)

    def geometry_problems(self) -> Iterable[str]:
        block = self.block()
        source, target = self.input_tensors[0], self.output_tensors[0]
        if len(source.shape) != 4:
            yield f"the input has rank {len(source.shape)}, not 4 (NHWC)"
            return
        if block < 1:
            yield f"block_size {block} is not positive"
            return
        n, a, b, c = (int(d) for d in source.shape)
        if self.TO_DEPTH:
            if a % block or b % block:
                yield f"the input height and width {a}x{b} are not multiples of block_size {block}"
                return
            expected = (n, a // block, b // block, c * block * block)
        else:
            if c % (block * block):
                yield f"the input depth {c} is not a multiple of block_size squared ({block * block})"
                return
            expected = (n, a * block, b * block, c // (block * block))
        if tuple(target.shape) != expected:
            yield f"the output shape {tuple(target.shape)} is not {expected}"

    def copy_steps(self) -> list[CopyStep]:
        walk = block_walk(self.space_shape(), self.block(), to_depth=self.TO_DEPTH)
        return [CopyStep(self.input_tensors[0], self.output_tensors[0], walk)]


class SpaceToDepthOperator(_BlockOperator):
    """SPACE_TO_DEPTH: one strided copy from the spatial view into the depth view."""

    TYPE = "SPACE_TO_DEPTH"
    SUPPORTED_DTYPES = BLOCK_DTYPES
    RESTRICTIONS = BLOCK_RESTRICTIONS
    TO_DEPTH = True


class DepthToSpaceOperator(_BlockOperator):
    """DEPTH_TO_SPACE: one strided copy from the depth view into the spatial view."""

    TYPE = "DEPTH_TO_SPACE"
    SUPPORTED_DTYPES = BLOCK_DTYPES
    RESTRICTIONS = BLOCK_RESTRICTIONS
    TO_DEPTH = False


REGISTRATIONS = [
    OperatorRecord(
        "SPACE_TO_DEPTH", parse_space_to_depth, AirBlockSizeOptions, SpaceToDepthOperator, arity=Arity(1, 1)
    ),
    OperatorRecord(
        "DEPTH_TO_SPACE", parse_depth_to_space, AirBlockSizeOptions, DepthToSpaceOperator, arity=Arity(1, 1)
    ),
]
