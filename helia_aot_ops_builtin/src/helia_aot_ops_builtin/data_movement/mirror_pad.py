"""MIRROR_PAD: the input surrounded by its own mirror image (REFLECT or SYMMETRIC).

LiteRT's reference maps output index ``p`` of a dimension with ``left`` padding to input index
``left + offset - 1 - p`` on the left, ``p - left`` in the middle and ``n - 1 - offset - (p -
left - n)`` on the right, where ``offset`` is 1 for REFLECT (the edge is not repeated) and 0 for
SYMMETRIC. Each of those three segments is a run with stride -1, +1 or -1 through the input, so
the output is one strided copy per combination of segments of the padded dimensions (at most
``3 ** rank``), with no fill.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, contiguous_strides
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

MODES = {0: "REFLECT", 1: "SYMMETRIC"}


@dataclass(slots=True)
class AirMirrorPadOptions(AirOperatorOptions):
    """``mode``: REFLECT (edge excluded from the mirror) or SYMMETRIC (edge included)."""

    mode: str = "REFLECT"


def _mirror_pad_options(raw: litert.MirrorPadOptionsT | None) -> AirMirrorPadOptions:
    code = int((raw.mode if raw is not None else 0) or 0)
    return AirMirrorPadOptions(mode=MODES.get(code, f"UNKNOWN_{code}"))


parse_mirror_pad = simple_parser("MIRROR_PAD", _mirror_pad_options)


def mirror_segments(size: int, left: int, right: int, offset: int) -> list[tuple[int, int, int, int]]:
    """(output start, count, input start, input step) of the non-empty runs of one dimension."""
    runs = [(0, left, left + offset - 1, -1), (left, size, 0, 1), (left + size, right, size - 1 - offset, -1)]
    return [run for run in runs if run[1] > 0]


class MirrorPadOperator(CopyPlanOperator):
    """MIRROR_PAD: one reversed-or-straight strided copy per segment combination."""

    TYPE = "MIRROR_PAD"
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "The paddings must be a constant [rank, 2] tensor of non-negative values, each at most the "
        "dimension's size minus 1 (REFLECT) or its size (SYMMETRIC).",
    )

    def offset(self) -> int:
        mode = self.typed_options(AirMirrorPadOptions).mode
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"mode {mode} is neither REFLECT nor SYMMETRIC")
        return 1 if mode == "REFLECT" else 0

    def paddings(self) -> list[tuple[int, int]]:
        values = constant_ints(self.input_or_none(1), "paddings")
        shape = self.input_tensors[0].shape
        if len(values) != 2 * len(shape):
            raise ValueError(f"the paddings hold {len(values)} values, not 2 x rank {len(shape)}")
        pairs = [(values[2 * k], values[2 * k + 1]) for k in range(len(shape))]
        limit_by = self.offset()
        for k, (size, (a, b)) in enumerate(zip(shape, pairs)):
            if a < 0 or b < 0:
                raise ValueError(f"paddings {pairs} include a negative value")
            if max(a, b) > int(size) - limit_by:
                mode = self.typed_options(AirMirrorPadOptions).mode
                raise ValueError(
                    f"padding {max(a, b)} of dimension {k} exceeds what {mode} allows for size {size} "
                    f"(at most {int(size) - limit_by})"
                )
        return pairs

    def geometry_problems(self) -> Iterable[str]:
        try:
            pairs = self.paddings()
        except ValueError as exc:
            yield str(exc)
            return
        expected = tuple(int(d) + a + b for d, (a, b) in zip(self.input_tensors[0].shape, pairs))
        if tuple(self.output_tensors[0].shape) != expected:
            yield f"the output shape {tuple(self.output_tensors[0].shape)} is not the padded {expected}"

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        shape = [int(d) for d in source.shape]
        pairs, offset = self.paddings(), self.offset()
        in_strides, out_strides = contiguous_strides(shape), contiguous_strides(target.shape)
        per_dim = [mirror_segments(n, a, b, offset) for n, (a, b) in zip(shape, pairs)]
        steps = []
        for runs in itertools.product(*per_dim):
            walk = StridedCopy(
                tuple(r[1] for r in runs),
                tuple(r[3] * s for r, s in zip(runs, in_strides)),
                tuple(out_strides),
                src_offset=sum(r[2] * s for r, s in zip(runs, in_strides)),
                dst_offset=sum(r[0] * s for r, s in zip(runs, out_strides)),
            )
            steps.append(CopyStep(source, target, walk))
        return steps


REGISTRATIONS = [
    OperatorRecord("MIRROR_PAD", parse_mirror_pad, AirMirrorPadOptions, MirrorPadOperator, arity=Arity(2, 2))
]
