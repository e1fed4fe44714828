"""Loop geometry for the broadcast binary kernels (hk_binary) and the reduction kernels (hk_reduce).

Both kernel families walk a fixed number of nested loops, so the converter folds the tensor
shapes first: extent-1 dimensions are dropped and neighbouring dimensions that behave alike
(broadcast the same way, or are all kept / all reduced) are merged. That keeps the C loops few
and long, and lets tensors of higher rank through whenever their folded form fits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BINARY_MAX_RANK = 5
REDUCE_MAX_DIMS = 4


def broadcast_shape(shape1: Sequence[int], shape2: Sequence[int]) -> tuple[int, ...]:
    """The NumPy/LiteRT broadcast of two shapes; ValueError when they are incompatible."""
    rank = max(len(shape1), len(shape2))
    a = (1,) * (rank - len(shape1)) + tuple(int(d) for d in shape1)
    b = (1,) * (rank - len(shape2)) + tuple(int(d) for d in shape2)
    out = []
    for da, db in zip(a, b):
        if da != db and da != 1 and db != 1:
            raise ValueError(f"shapes {tuple(shape1)} and {tuple(shape2)} do not broadcast")
        out.append(db if da == 1 else da)
    return tuple(out)


@dataclass(slots=True)
class BroadcastGeometry:
    """The fields of ``hk_broadcast_t``: output extents and each input's element strides."""

    size: int
    broadcast: bool
    shape: tuple[int, ...]
    strides1: tuple[int, ...]
    strides2: tuple[int, ...]

    @property
    def rank(self) -> int:
        """Dimensions the folded walk really needs (extents above 1)."""
        return sum(1 for d in self.shape if d > 1)


def broadcast_geometry(
    shape1: Sequence[int], shape2: Sequence[int], max_rank: int = BINARY_MAX_RANK
) -> BroadcastGeometry:
    """Fold the broadcast of ``shape1`` and ``shape2`` into at most ``max_rank`` loops.

    Raises ValueError when the shapes do not broadcast or still need more than ``max_rank``
    dimensions after folding.
    """
    out = broadcast_shape(shape1, shape2)
    size = math.prod(out)
    n1, n2 = math.prod(shape1), math.prod(shape2)
    if size == 0 or (n1 == size and n2 == size):
        return BroadcastGeometry(size, False, (1,) * max_rank, (0,) * max_rank, (0,) * max_rank)
    rank = len(out)
    a = (1,) * (rank - len(shape1)) + tuple(shape1)
    b = (1,) * (rank - len(shape2)) + tuple(shape2)
    # Runs of dimensions with the same (input 1 repeats, input 2 repeats) pattern merge.
    runs: list[list[int]] = []  # [output extent, input 1 extent, input 2 extent]
    pattern_prev = None
    for d_out, d1, d2 in zip(out, a, b):
        if d_out == 1:
            continue
        pattern = (d1 == 1, d2 == 1)
        if runs and pattern == pattern_prev:
            runs[-1][0] *= d_out
            runs[-1][1] *= d1
            runs[-1][2] *= d2
        else:
            runs.append([d_out, d1, d2])
        pattern_prev = pattern
    if len(runs) > max_rank:
        raise ValueError(
            f"broadcasting {tuple(shape1)} with {tuple(shape2)} needs {len(runs)} "
            f"loops after folding; the kernel walks at most {max_rank}"
        )
    strides1, strides2 = [], []
    acc1 = acc2 = 1
    for _d_out, d1, d2 in reversed(runs):
        strides1.append(0 if d1 == 1 else acc1)
        strides2.append(0 if d2 == 1 else acc2)
        acc1 *= d1
        acc2 *= d2
    pad = max_rank - len(runs)
    return BroadcastGeometry(
        size=size,
        broadcast=True,
        shape=(1,) * pad + tuple(r[0] for r in runs),
        strides1=(0,) * pad + tuple(reversed(strides1)),
        strides2=(0,) * pad + tuple(reversed(strides2)),
    )


def normalize_axes(axes: Sequence[int], rank: int) -> tuple[int, ...]:
    """LiteRT ResolveAxis: negative axes count from the end, duplicates collapse, order kept."""
    out: list[int] = []
    for axis in axes:
        a = int(axis) + rank if int(axis) < 0 else int(axis)
        if not 0 <= a < rank:
            raise ValueError(f"axis {axis} is out of range for rank {rank}")
        if a not in out:
            out.append(a)
    return tuple(out)


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keep_dims: bool) -> tuple[int, ...]:
    """The output shape of a reduction over ``axes`` (LiteRT GetOutputShape)."""
    resolved = normalize_axes(axes, len(shape))
    if keep_dims:
        return tuple(1 if i in resolved else int(d) for i, d in enumerate(shape))
    return tuple(int(d) for i, d in enumerate(shape) if i not in resolved)


@dataclass(slots=True)
class ReduceGeometry:
    """The loop fields of ``hk_reduce_params_t``."""

    kept_extents: tuple[int, ...]
    kept_strides: tuple[int, ...]
    reduced_extents: tuple[int, ...]
    reduced_strides: tuple[int, ...]
    count: int
    outputs: int


def reduce_geometry(
    shape: Sequence[int], axes: Sequence[int], max_dims: int = REDUCE_MAX_DIMS
) -> ReduceGeometry:
    """Fold a reduction of a row-major ``shape`` over ``axes`` into kept and reduced loops.

    Raises ValueError when either kind still needs more than ``max_dims`` loops.
    """
    shape = tuple(int(d) for d in shape)
    resolved = set(normalize_axes(axes, len(shape)))
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    runs: list[list[int]] = []  # [reduced?, extent, stride of the innermost dimension]
    for i, extent in enumerate(shape):
        if extent == 1:
            continue
        reduced = i in resolved
        if runs and runs[-1][0] == reduced:
            runs[-1][1] *= extent
            runs[-1][2] = strides[i]
        else:
            runs.append([reduced, extent, strides[i]])
    kept = [(e, s) for r, e, s in runs if not r]
    red = [(e, s) for r, e, s in runs if r]
    if len(kept) > max_dims or len(red) > max_dims:
        raise ValueError(
            f"reducing {shape} over {sorted(resolved)} needs {len(kept)} kept and "
            f"{len(red)} reduced loops; the kernel walks at most {max_dims} of each"
        )

    def padded(items: list[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        pad = [(1, 0)] * (max_dims - len(items))
        full = pad + items
        return tuple(e for e, _ in full), tuple(s for _, s in full)

    kept_extents, kept_strides = padded(kept)
    reduced_extents, reduced_strides = padded(red)
    return ReduceGeometry(
        kept_extents,
        kept_strides,
        reduced_extents,
        reduced_strides,
        count=math.prod(reduced_extents),
        outputs=math.prod(kept_extents),
    )
