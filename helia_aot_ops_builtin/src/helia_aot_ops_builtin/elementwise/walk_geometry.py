"""Loop geometry of the ``hk_walk_t`` broadcast walk (elementwise math, comparisons, select).

Up to three inputs broadcast onto one output (NumPy rules). Output dimensions of extent 1 are
dropped and neighbouring dimensions where every input repeats (or does not) alike merge, so a
same-shape operation becomes one loop of stride 1 and most broadcasts two or three loops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

WALK_MAX_RANK = 5
WALK_MAX_INPUTS = 3


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The NumPy broadcast of several shapes; ValueError when they are incompatible."""
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        padded = (1,) * (rank - len(shape)) + tuple(int(d) for d in shape)
        for i, d in enumerate(padded):
            if d != 1 and out[i] != 1 and d != out[i]:
                raise ValueError(f"shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast")
            if d != 1:
                out[i] = d
    return tuple(out)


def walk_geometry(output_shape: Sequence[int], input_shapes: Sequence[Sequence[int]]) -> dict[str, Any]:
    """The fields of ``hk_walk_t`` for inputs broadcasting onto ``output_shape``.

    Raises ValueError when an input does not broadcast onto the output or the folded walk needs
    more than ``WALK_MAX_RANK`` loops.
    """
    out = tuple(int(d) for d in output_shape)
    rank = len(out)
    if len(input_shapes) > WALK_MAX_INPUTS:
        raise ValueError(f"the walk takes at most {WALK_MAX_INPUTS} inputs")
    padded = []
    for shape in input_shapes:
        if len(shape) > rank:
            raise ValueError(f"input shape {tuple(shape)} has more dimensions than the output {out}")
        p = (1,) * (rank - len(shape)) + tuple(int(d) for d in shape)
        if any(d not in (1, o) for d, o in zip(p, out)):
            raise ValueError(f"input shape {tuple(shape)} does not broadcast to the output {out}")
        padded.append(p)
    size = math.prod(out)
    runs: list[list[int]] = []  # [output extent, per-input extents...]
    previous = None
    for axis, extent in enumerate(out):
        if extent == 1:
            continue
        dims = [p[axis] for p in padded]
        pattern = tuple(d == 1 for d in dims)
        if runs and pattern == previous:
            runs[-1][0] *= extent
            for k, d in enumerate(dims):
                runs[-1][k + 1] *= d
        else:
            runs.append([extent, *dims])
        previous = pattern
    if size == 0:
        runs = []
    if len(runs) > WALK_MAX_RANK:
        raise ValueError(
            f"broadcasting onto {out} needs {len(runs)} loops after folding; the kernels walk at "
            f"most {WALK_MAX_RANK}"
        )
    strides = [[0] * len(runs) for _ in range(WALK_MAX_INPUTS)]
    for k in range(len(padded)):
        acc = 1
        for r in range(len(runs) - 1, -1, -1):
            extent = runs[r][k + 1]
            strides[k][r] = 0 if extent == 1 else acc
            acc *= extent
    pad = WALK_MAX_RANK - len(runs)
    return {
        "size": size,
        "shape": [1] * pad + [r[0] for r in runs],
        "strides": [[0] * pad + s for s in strides],
    }
